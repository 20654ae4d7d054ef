/* The counter engine on hybrid CPUs (docs/events.md, "Hybrid CPUs"): the list split over
 * the core PMUs as counters/perf/hybrid.c plans it is opened as one engine, each event's
 * known error passed on to its parts; a read sums each split event's parts by the rule
 * of counters/perf/hybrid.h, and the parts stay readable on their own. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/perf/counters_priv.h"
#include "counters/perf/hybrid.h"

int pmc_hybrid_open(const struct pmc_event_list *events, const struct pmc_counters_opts *opts,
		    const struct pmc_sys *sys, struct pmc_hybrid *hy, struct pmc_counters **ret)
{
	struct pmc_counters_opts o;
	struct pmc_counters *c;
	int *known = NULL, r;

	c = calloc(1, sizeof(*c));
	if (!c) {
		pmc_hybrid_free(hy);
		return -ENOMEM;
	}
	c->hy = hy;
	c->n = events->n;
	c->sys = sys;
	r = pmc_counters_copy_opts(c, opts);
	if (r < 0)
		goto fail;
	c->tmp = calloc(c->n ? c->n : 1, sizeof(*c->tmp));
	c->parts = calloc(hy->list.n ? hy->list.n : 1, sizeof(*c->parts));
	known = calloc(hy->list.n ? hy->list.n : 1, sizeof(*known));
	if (!c->tmp || !c->parts || !known) {
		r = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; c->opts.known_errors && i < c->n; i++)
		for (size_t k = 0; k < hy->nparts[i]; k++)
			known[hy->part[i][k]] = c->opts.known_errors[i];
	o = pmc_counters_inner_opts(c, opts, known);
	/* A struct copy need not bring the zeroed padding the library checks. */
	PMC_OPTS_ZERO_TAIL(pmc_counters_opts, &o);
	r = pmc_counters_open_plain(&hy->list, &o, sys, &c->inner);
	if (r < 0)
		goto fail;
	free(known);
	*ret = c;
	return 0;
fail:
	free(known);
	pmc_counters_close(c);
	return r;
}

/* True when part k of event i opened. */
static bool part_open(const struct pmc_counters *c, size_t i, size_t k)
{
	return c->inner->slots[c->hy->part[i][k]].fd >= 0;
}

size_t pmc_hybrid_opened(const struct pmc_counters *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++) {
		bool any = false;

		for (size_t k = 0; k < c->hy->nparts[i]; k++)
			any |= part_open(c, i, k);
		n += any;
	}
	return n;
}

/* Open when some part opened; else the first part's reason. */
void pmc_hybrid_open_status(const struct pmc_counters *c, size_t i, enum pmc_status *ret_status,
			    int *ret_error)
{
	const struct slot *s = &c->inner->slots[c->hy->part[i][0]];

	*ret_status = s->status;
	*ret_error = s->error;
	for (size_t k = 0; k < c->hy->nparts[i]; k++) {
		if (part_open(c, i, k)) {
			*ret_status = PMC_STATUS_COUNTED;
			*ret_error = 0;
		}
	}
}

/* Hybrid: reads the parts, then each split event's sum by the rule of counters/perf/hybrid.h. */
int pmc_hybrid_read(struct pmc_counters *c)
{
	const struct pmc_hybrid *hy = c->hy;
	int r = pmc_counters_read(c->inner, c->parts, sizeof(*c->parts));

	if (r < 0)
		return r;
	for (size_t i = 0; i < c->n; i++) {
		struct pmc_reading p[PMC_CORE_PMUS_MAX];

		if (!hy->split[i]) {
			c->tmp[i] = c->parts[hy->part[i][0]];
			continue;
		}
		for (size_t k = 0; k < hy->nparts[i]; k++)
			p[k] = c->parts[hy->part[i][k]];
		pmc_reading_combine(p, hy->nparts[i], hy->restricted[i], &c->tmp[i]);
		for (size_t k = 0; k < hy->nparts[i]; k++)
			c->parts[hy->part[i][k]] = p[k];
	}
	return 0;
}

size_t pmc_counters_nparts(const struct pmc_counters *c, size_t i)
{
	if (!pmc_syswide_task_event(&c, &i))
		return 0;
	return c && c->hy && i < c->n && c->hy->split[i] ? c->hy->nparts[i] : 0;
}

const char *pmc_counters_part_pmu(const struct pmc_counters *c, size_t i, size_t k)
{
	int pmu;

	if (!pmc_syswide_task_event(&c, &i) || k >= pmc_counters_nparts(c, i))
		return NULL;
	pmu = c->hy->part_pmu[c->hy->part[i][k]];
	return pmu >= 0 ? c->hy->pmus.pmu[pmu].name : "";
}

bool pmc_counters_restricted(const struct pmc_counters *c, size_t i)
{
	if (!pmc_syswide_task_event(&c, &i))
		return false;
	return pmc_counters_nparts(c, i) && c->hy->restricted[i];
}

int pmc_counters_part_reading(const struct pmc_counters *c, size_t i, size_t k,
			      struct pmc_reading *ret)
{
	if (!pmc_syswide_task_event(&c, &i) || k >= pmc_counters_nparts(c, i))
		return -EINVAL;
	*ret = c->parts[c->hy->part[i][k]];
	return 0;
}

void pmc_counters_read_parts(const struct pmc_counters *c, size_t i, struct pmc_reading_parts *ret)
{
	ret->n = pmc_counters_nparts(c, i);
	ret->restricted = pmc_counters_restricted(c, i);
	for (size_t k = 0; k < ret->n; k++) {
		const char *pmu = pmc_counters_part_pmu(c, i, k);

		snprintf(ret->pmu[k], sizeof(ret->pmu[k]), "%s", pmu ? pmu : "");
		pmc_counters_part_reading(c, i, k, &ret->rd[k]);
	}
}

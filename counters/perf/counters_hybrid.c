/* The hybrid engine (counters_priv.h, struct counters_ops) for hybrid CPUs (docs/events.md,
 * "Hybrid CPUs"): the list split over the core PMUs as counters/perf/hybrid.c plans it is
 * opened as one plain engine, each event's known error passed on to its parts; a read
 * sums each split event's parts by the rule of counters/perf/hybrid.h, and the parts stay
 * readable on their own. */
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
	c->ops = &pmc_counters_hybrid_ops;
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
	pmc_counters_inner_opts(c, known, &o);
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

/* True when part k of event i opened: the inner engine's event is counted once open. */
static bool part_open(const struct pmc_counters *c, size_t i, size_t k)
{
	enum pmc_status st;

	pmc_counters_open_status(c->inner, c->hy->part[i][k], &st, NULL);
	return st == PMC_STATUS_COUNTED;
}

static size_t hybrid_opened(const struct pmc_counters *c)
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
static void hybrid_open_status(const struct pmc_counters *c, size_t i, enum pmc_status *ret_status,
			       int *ret_error)
{
	pmc_counters_open_status(c->inner, c->hy->part[i][0], ret_status, ret_error);
	for (size_t k = 0; k < c->hy->nparts[i]; k++) {
		if (part_open(c, i, k)) {
			*ret_status = PMC_STATUS_COUNTED;
			*ret_error = 0;
		}
	}
}

/* Hybrid: reads the parts, then each split event's sum by the rule of counters/perf/hybrid.h. */
static int hybrid_read(struct pmc_counters *c)
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

static int hybrid_ioctl(struct pmc_counters *c, unsigned long request)
{
	return pmc_counters_ioctl(c->inner, request);
}

/* The groups are the inner engine's, one set per core PMU, each with its own pages. While
 * the task runs on one core type, the other type's events are off their counters and
 * their pages say index 0 (x86_pmu_del() writes the page as the event leaves:
 * perf_event_index() is 0 for a stopped event, arch/x86/events/core.c and
 * kernel/events/core.c), so those groups are read with read(); a move during a read
 * rewrites the page and the window is read again. */
static int hybrid_pause(struct pmc_counters *c, bool pause)
{
	return pmc_counters_pause(c->inner, pause);
}

static int hybrid_self_read(struct pmc_counters *c)
{
	return pmc_counters_self_read(c->inner);
}

static void hybrid_inner_read_counts(const struct pmc_counters *c, uint64_t *ret_self,
				     uint64_t *ret_sys)
{
	pmc_counters_read_counts(c->inner, ret_self, ret_sys);
}

static size_t hybrid_nparts(const struct pmc_counters *c, size_t i)
{
	return c->hy->split[i] ? c->hy->nparts[i] : 0;
}

static int hybrid_part(const struct pmc_counters *c, size_t i, size_t k, const char **ret_pmu,
		       struct pmc_reading *ret_rd)
{
	int pmu;

	if (k >= hybrid_nparts(c, i))
		return -EINVAL;
	pmu = c->hy->part_pmu[c->hy->part[i][k]];
	if (ret_pmu)
		*ret_pmu = pmu >= 0 ? c->hy->pmus.pmu[pmu].name : "";
	if (ret_rd)
		*ret_rd = c->parts[c->hy->part[i][k]];
	return 0;
}

static bool hybrid_restricted(const struct pmc_counters *c, size_t i)
{
	return hybrid_nparts(c, i) && c->hy->restricted[i];
}

static void hybrid_free(struct pmc_counters *c)
{
	pmc_counters_close(c->inner);
	pmc_hybrid_free(c->hy);
	free(c->parts);
}

const struct counters_ops pmc_counters_hybrid_ops = {
    .read = hybrid_read,
    .ioctl = hybrid_ioctl,
    .pause = hybrid_pause,
    .opened = hybrid_opened,
    .open_status = hybrid_open_status,
    .self_read = hybrid_self_read,
    .inner_read_counts = hybrid_inner_read_counts,
    .nparts = hybrid_nparts,
    .part = hybrid_part,
    .restricted = hybrid_restricted,
    .free = hybrid_free,
};

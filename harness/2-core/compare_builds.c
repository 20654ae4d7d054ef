/* Two builds of one set of benchmarks measured in one run (`pmcbench run --library A.so
 * --library B.so`; docs/microbench.md, "Comparing two builds"): the benchmarks "A:x" and
 * "B:x" of one result are paired by the name without the label, and their runs by round.
 * A round is one process of each benchmark, the builds' order rotated from round to round,
 * and may hold several samples: the process is the unit of replication
 * (docs/statistics.md), so a side's value of a round is the median of its samples there,
 * as the unpaired test takes the median of each process. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/hashmap.h"
#include "base/opts.h"
#include "core/compare.h"
#include "core/compare_priv.h"
#include "core/result.h"
#include "core/stats.h"

/* The benchmarks of each side as the comparison sees them, and their fits, named without
 * the label; owned[i]: benchmark i has runs and metrics of its own (by round), which the
 * views free, else it borrows r's. */
struct pmc_cmp_views {
	struct pmc_benchmark *v[2];
	bool *owned[2];
	size_t n[2];
	struct pmc_fit *fits[2];
	size_t nfits[2];
};

static void bench_free(struct pmc_benchmark *b)
{
	for (size_t k = 0; k < b->nmetrics; k++) {
		free(b->metrics[k].values);
		free(b->metrics[k].status);
		free(b->metrics[k].raw);
	}
	free(b->metrics);
	free(b->runs);
}

void pmc_cmp_views_free(struct pmc_cmp_views *v)
{
	if (!v)
		return;
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < v->n[s]; i++)
			if (v->owned[s][i])
				bench_free(&v->v[s][i]);
		free(v->v[s]);
		free(v->owned[s]);
		free(v->fits[s]);
	}
	free(v);
}

/* name without "label:", or NULL when it is not of that build. */
static const char *unlabel(const char *name, const char *label)
{
	size_t n = strlen(label);

	return strncmp(name, label, n) == 0 && name[n] == ':' ? name + n + 1 : NULL;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

/* The distinct rounds of b's runs, sorted, into *ret (malloc'ed, *ret_n of them). Sets
 * *ret_n to 0 when a run was not taken in a round. Returns 0 or -ENOMEM. */
static int rounds_of(const struct pmc_benchmark *b, unsigned **ret, size_t *ret_n)
{
	unsigned *v = malloc((b->nruns ? b->nruns : 1) * sizeof(*v));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < b->nruns; i++) {
		if (!b->runs[i].round) {
			n = 0;
			break;
		}
		v[n++] = b->runs[i].round;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_unsigned);
	*ret_n = 0;
	for (size_t i = 0; i < n; i++)
		if (*ret_n == 0 || v[i] != v[*ret_n - 1])
			v[(*ret_n)++] = v[i];
	*ret = v;
	return 0;
}

/* Metric m of b over the rounds in `rounds` (k of them) into *out: one value per round,
 * the median of the round's measured values (NAN when it has none), and the status and
 * raw counts of the round's first measured run (else its first run). tmp: room for
 * b->nruns. Returns 0 or -ENOMEM. */
static int metric_by_round(const struct pmc_benchmark *b, const struct pmc_metric *m,
			   const unsigned *rounds, size_t k, double *tmp, struct pmc_metric *out)
{
	*out = *m;
	out->n = k;
	out->cap = 0;
	out->parts = NULL;
	out->nparts = 0;
	out->values = calloc(k ? k : 1, sizeof(*out->values));
	out->status = m->has_status ? calloc(k ? k : 1, sizeof(*out->status)) : NULL;
	out->raw = m->has_status ? calloc(k ? k : 1, sizeof(*out->raw)) : NULL;
	if (!out->values || (m->has_status && (!out->status || !out->raw)))
		return -ENOMEM;
	for (size_t j = 0; j < k; j++) {
		size_t n = 0, first = SIZE_MAX;

		for (size_t i = 0; i < b->nruns && i < m->n; i++) {
			if (b->runs[i].round != rounds[j])
				continue;
			if (first == SIZE_MAX || (isnan(m->values[first]) && !isnan(m->values[i])))
				first = i;
			if (!isnan(m->values[i]))
				tmp[n++] = m->values[i];
		}
		out->values[j] = n ? pmc_median(tmp, n) : NAN;
		if (m->has_status && first != SIZE_MAX) {
			out->status[j] = m->status[first];
			out->raw[j] = m->raw[first];
		} else if (m->has_status) {
			out->status[j] = PMC_STATUS_NOT_COUNTED;
		}
	}
	return 0;
}

/* b with one run per round of `rounds` (k) into *out, named name. Returns 0 or -ENOMEM
 * (out is then freed with bench_free). */
static int bench_by_round(const struct pmc_benchmark *b, const char *name, const unsigned *rounds,
			  size_t k, struct pmc_benchmark *out)
{
	double *tmp = malloc((b->nruns ? b->nruns : 1) * sizeof(*tmp));
	int r = 0;

	*out = *b;
	out->name = (char *)name;
	out->runs_cap = out->metrics_cap = 0;
	out->nruns = k;
	out->nmetrics = 0;
	out->intervals = NULL; /* indexed by b's runs, not these */
	out->nintervals = 0;
	out->runs = calloc(k ? k : 1, sizeof(*out->runs));
	out->metrics = calloc(b->nmetrics ? b->nmetrics : 1, sizeof(*out->metrics));
	if (!tmp || !out->runs || !out->metrics) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t j = 0; j < k; j++) {
		for (size_t i = 0; i < b->nruns; i++)
			if (b->runs[i].round == rounds[j]) {
				out->runs[j] = b->runs[i];
				break;
			}
		/* One value per round: the round is its process too (the unpaired test's
		 * unit). */
		out->runs[j].process = rounds[j];
	}
	for (size_t i = 0; r == 0 && i < b->nmetrics; i++) {
		r = metric_by_round(b, &b->metrics[i], rounds, k, tmp, &out->metrics[i]);
		out->nmetrics = i + 1;
	}
out:
	free(tmp);
	return r;
}

/* Appends b, named name, to side s of v: by round over the rounds both sides have when
 * other is its namesake and every run of both was taken in a round, else borrowed as it
 * is. Adds to *dropped the rounds only one of them has. Returns 0 or -ENOMEM. */
static int add_view(struct pmc_cmp_views *v, int s, const struct pmc_benchmark *b, const char *name,
		    const struct pmc_benchmark *other, size_t *dropped)
{
	struct pmc_benchmark *bm = &v->v[s][v->n[s]];
	unsigned *mine = NULL, *theirs = NULL;
	size_t nm = 0, nt = 0, k = 0;
	int r = 0;

	if (other && !b->skipped && !other->skipped &&
	    ((r = rounds_of(b, &mine, &nm)) < 0 || (r = rounds_of(other, &theirs, &nt)) < 0))
		goto out;
	/* The rounds of both sides, in order: a merge of two sorted lists. */
	for (size_t i = 0, j = 0; i < nm && j < nt;) {
		if (mine[i] == theirs[j]) {
			mine[k++] = mine[i];
			i++;
			j++;
		} else if (mine[i] < theirs[j]) {
			i++;
		} else {
			j++;
		}
	}
	v->owned[s][v->n[s]] = false;
	if (nm && nt) {
		/* Counted once, from the old side. */
		if (s == 0)
			*dropped += nm + nt - 2 * k;
		r = bench_by_round(b, name, mine, k, bm);
		v->owned[s][v->n[s]] = true;
	} else {
		*bm = *b;
		bm->name = (char *)name;
		bm->runs_cap = bm->metrics_cap = 0;
	}
	v->n[s]++;
out:
	free(mine);
	free(theirs);
	return r;
}

/* The fits of r of build label, named without it, into side s of v. Returns 0 or -ENOMEM. */
static int add_fits(struct pmc_cmp_views *v, int s, const struct pmc_result *r, const char *label)
{
	v->fits[s] = calloc(r->nfits ? r->nfits : 1, sizeof(*v->fits[s]));
	if (!v->fits[s])
		return -ENOMEM;
	for (size_t i = 0; i < r->nfits; i++) {
		const char *name = unlabel(r->fits[i].name, label);

		if (name) {
			v->fits[s][v->nfits[s]] = r->fits[i];
			v->fits[s][v->nfits[s]++].name = (char *)name;
		}
	}
	return 0;
}

/* "'x', 'y', ..." of the benchmarks of build s in v that the other build lacks (alone),
 * into buf; returns how many. */
static size_t list_alone(const struct pmc_cmp_views *v, int s, const bool *alone, char *buf,
			 size_t len)
{
	size_t n = 0, off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < v->n[s]; i++) {
		if (!alone[i])
			continue;
		if (n < 5 && off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s'%.60s'", n ? ", " : "",
						v->v[s][i].name);
		else if (n == 5 && off < len)
			off += (size_t)snprintf(buf + off, len - off, ", ...");
		n++;
	}
	return n;
}

/* The warnings of what was not paired: benchmarks of one build only, and rounds only one
 * side has. */
static int warn_unpaired(struct pmc_comparison *c, const struct pmc_cmp_views *v,
			 bool *const alone[2], const char *const labels[2], size_t dropped)
{
	char names[400];
	int r = 0;

	for (int s = 0; s < 2 && r == 0; s++) {
		size_t n = list_alone(v, s, alone[s], names, sizeof(names));

		if (n)
			r = pmc_cmp_warn(c, "%zu benchmark%s only in build '%s', not compared: %s",
					 n, n == 1 ? "" : "s", labels[s], names);
	}
	if (r == 0 && dropped)
		r = pmc_cmp_warn(c,
				 "%zu round%s of a benchmark measured in one build only (a process "
				 "that failed or was stopped) left out of the pairs",
				 dropped, dropped == 1 ? "" : "s");
	return r;
}

int pmc_compare_builds(const struct pmc_result *r, const char *old_label, const char *new_label,
		       const struct pmc_compare_opts *opts, struct pmc_comparison **ret, char *err,
		       size_t errlen)
{
	const char *const labels[2] = {old_label, new_label};
	struct pmc_hashmap names[2] = {{0}, {0}};
	struct pmc_cmp_views *v = NULL;
	struct pmc_comparison *c = NULL;
	struct pmc_result side[2];
	bool *alone[2] = {NULL, NULL};
	size_t dropped = 0, idx;
	int rc;

	if (!r || !ret)
		return -EINVAL;
	if (!old_label || !new_label || strcmp(old_label, new_label) == 0) {
		pmc_err_set(err, errlen,
			    "two builds need two different labels (given '%s' and '%s')",
			    old_label ? old_label : "(none)", new_label ? new_label : "(none)");
		return -EINVAL;
	}
	v = calloc(1, sizeof(*v));
	rc = v ? 0 : -ENOMEM;
	for (int s = 0; rc == 0 && s < 2; s++) {
		v->v[s] = calloc(r->nbench + 1, sizeof(*v->v[s]));
		v->owned[s] = calloc(r->nbench + 1, sizeof(*v->owned[s]));
		alone[s] = calloc(r->nbench + 1, sizeof(*alone[s]));
		if (!v->v[s] || !v->owned[s] || !alone[s])
			rc = -ENOMEM;
		if (rc == 0)
			rc = pmc_hashmap_init(&names[s], r->nbench);
		if (rc == 0)
			rc = add_fits(v, s, r, labels[s]);
	}
	/* Each build's names, then each benchmark beside its namesake of the other build. */
	for (size_t i = 0; rc == 0 && i < r->nbench; i++)
		for (int s = 0; rc == 0 && s < 2; s++) {
			const char *name = unlabel(r->benchmarks[i].name, labels[s]);

			if (name && (rc = pmc_hashmap_get_or_put(&names[s], name, i, NULL)) > 0)
				rc = 0;
		}
	for (size_t i = 0; rc == 0 && i < r->nbench; i++)
		for (int s = 0; rc == 0 && s < 2; s++) {
			const char *name = unlabel(r->benchmarks[i].name, labels[s]);
			const struct pmc_benchmark *other = NULL;

			if (!name)
				continue;
			if (pmc_hashmap_get(&names[1 - s], name, &idx) == 0)
				other = &r->benchmarks[idx];
			alone[s][v->n[s]] = !other;
			rc = add_view(v, s, &r->benchmarks[i], name, other, &dropped);
		}
	if (rc < 0)
		goto out;
	if (!v->n[0] || !v->n[1]) {
		pmc_err_set(err, errlen, "nothing to compare: no benchmark of build '%s'",
			    labels[v->n[0] ? 1 : 0]);
		rc = -ENODATA;
		goto out;
	}
	/* Two results that borrow r's, as pmc_compare_reference's do. */
	for (int s = 0; s < 2; s++) {
		side[s] = *r;
		side[s].benchmarks = v->v[s];
		side[s].nbench = v->n[s];
		side[s].fits = v->fits[s];
		side[s].nfits = v->nfits[s];
		side[s].priv = NULL;
	}
	rc = pmc_cmp_results(&side[0], &side[1], opts,
			     r->design.mode && !(opts && PMC_OPTS_GET(opts, unpaired, false)), true,
			     &c, err, errlen);
	if (rc == 0)
		rc = warn_unpaired(c, v, alone, labels, dropped);
	if (rc == 0) {
		c->views = v;
		v = NULL;
		*ret = c;
		c = NULL;
	}
out:
	for (int s = 0; s < 2; s++) {
		pmc_hashmap_free(&names[s]);
		free(alone[s]);
	}
	pmc_comparison_free(c);
	pmc_cmp_views_free(v);
	return rc;
}

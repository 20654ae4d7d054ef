/* The baseline of a gate against the history (pmc_history_baseline, docs/history.md,
 * "Gate"): the samples of the last K entries of a fingerprint as one result, each entry one
 * process of it, each series from its current level on. */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "base/grow.h"
#include "core/changepoint.h"
#include "core/result.h"
#include "core/stats.h"
#include "history/engine.h"
#include "history/history.h"
#include "history/store_priv.h"

static int id_row(void *ud, const char *const *cols, size_t n)
{
	struct baseline_ids *ids = ud;

	if (ids->n == 0)
		ids->newest = cols[1] ? strtoll(cols[1], NULL, 10) : 0;
	if (pmc_grow(&ids->v, ids->n, sizeof(*ids->v)) < 0 ||
	    pmc_grow(&ids->ref, ids->n, sizeof(*ids->ref)) < 0)
		return -ENOMEM;
	ids->v[ids->n] = strdup(cols[0]);
	ids->ref[ids->n] = strdup(cols[2] ? cols[2] : "");
	ids->n++;
	return ids->v[ids->n - 1] && ids->ref[ids->n - 1] ? 0 : -ENOMEM;
}

static void ids_free(struct baseline_ids *ids)
{
	for (size_t i = 0; i < ids->n; i++) {
		free(ids->v[i]);
		free(ids->ref[i]);
	}
	free(ids->v);
	free(ids->ref);
}

/* Appends NAN samples to m up to n. */
static int pad(struct pmc_metric *m, size_t n)
{
	while (m->n < n) {
		int r = pmc_metric_append(m, NAN, NULL);

		if (r < 0)
			return r;
	}
	return 0;
}

/* The benchmarks of entry be that r has, as runs of base recording the entry as their
 * process, with the points read; matched[i] tells whether metrics[i] matched a point of a
 * benchmark that r measured. */
static int baseline_entry(struct pmc_result *base, const struct pmc_result *r,
			  const struct bentry *be, unsigned process, bool *matched)
{
	size_t x = 0;

	for (size_t i = 0; i < be->nb; i++) {
		const char *name = be->text + be->b[i].name;
		const struct pmc_benchmark *rb;
		struct pmc_benchmark *b = NULL;
		size_t before, runs = be->b[i].runs;
		int rc;

		/* Past the points of the benchmarks passed over. */
		while (x < be->np && strcmp(be->text + be->p[x].bench, name) < 0)
			x++;
		rb = pmc_result_find_benchmark(r, name);
		if (runs == 0 || !rb)
			continue;
		b = pmc_result_find_benchmark(base, name);
		if (!b && (rc = pmc_result_add_benchmark(base, name, NULL, &b)) < 0)
			return rc;
		before = b->nruns;
		for (size_t k = 0; k < runs; k++) {
			struct pmc_run_info info = {.process = process, .invocation = process};

			rc = pmc_benchmark_add_run(b, &info);
			if (rc < 0)
				return rc;
		}
		for (; x < be->np && strcmp(be->text + be->p[x].bench, name) == 0; x++) {
			const struct bpoint *p = &be->p[x];
			const char *id = be->text + p->metric;
			struct pmc_metric *m = pmc_benchmark_find_metric(b, id);

			if (!m) {
				rc = pmc_benchmark_metric(b, id, &m);
				if (rc < 0)
					return rc;
				/* The stored unit and direction, whatever the registry says. */
				free(m->unit);
				m->unit = strdup(be->text + p->unit);
				if (!m->unit)
					return -ENOMEM;
				m->better = p->better;
				m->simulated = p->simulated;
			}
			if ((rc = pad(m, before)) < 0)
				return rc;
			for (size_t k = 0; k < p->n; k++)
				if ((rc = pmc_metric_append(m, be->vals[p->at + k], NULL)) < 0)
					return rc;
			for (size_t k = 0; matched && !rb->skipped && k < be->nmetrics; k++)
				matched[k] = matched[k] ||
					     (be->literal ? strcmp(be->metrics[k], id)
							  : fnmatch(be->metrics[k], id, 0)) == 0;
		}
		for (size_t k = 0; k < b->nmetrics; k++)
			if ((rc = pad(&b->metrics[k], b->nruns)) < 0)
				return rc;
	}
	return 0;
}

/* Leaves of each metric of b only the samples of its series' current level (the
 * entries since its last change point; for exact counts, the latest level): a gate
 * after an accepted change judges against the new level, not a pool of both
 * (docs/history.md, "Gate"). The entries are b's processes, in blocks, oldest first.
 * Returns 0 or -ENOMEM. */
static int keep_current_level(struct pmc_benchmark *b)
{
	double *med = malloc((b->nruns + 1) * sizeof(*med));
	double *vals = malloc((b->nruns + 1) * sizeof(*vals));
	size_t *at = malloc((b->nruns + 1) * sizeof(*at));
	int r = med && vals && at ? 0 : -ENOMEM;

	for (size_t k = 0; r == 0 && k < b->nmetrics; k++) {
		struct pmc_metric *m = &b->metrics[k];
		struct pmc_cp_opts o = {.exact = m->simulated};
		size_t np = 0, start = 0;

		if (m->n != b->nruns)
			continue;
		for (size_t i = 0, j; i < m->n; i = j) {
			size_t nv = 0;

			for (j = i; j < m->n && b->runs[j].process == b->runs[i].process; j++)
				if (!isnan(m->values[j]))
					vals[nv++] = m->values[j];
			if (nv == 0)
				continue;
			/* A simulator's counts are exact when each entry's samples agree. */
			pmc_stats_sort(vals, nv);
			o.exact = o.exact && vals[0] == vals[nv - 1];
			med[np] = pmc_median_sorted(vals, nv);
			at[np++] = i;
		}
		r = pmc_cp_current_level(med, np, &o, &start);
		if (r == -EINVAL) { /* a value not finite: no level to find, all are kept */
			r = 0;
			start = 0;
		}
		for (size_t i = 0; r == 0 && start > 0 && start < np && i < at[start]; i++)
			m->values[i] = NAN;
	}
	free(med);
	free(vals);
	free(at);
	return r;
}

/* The baseline of the entries ids (newest first), of the metrics of be (all when
 * be->metrics is NULL), in *ret (NULL when none of r's benchmarks is there) with the
 * number of entries in it; *ret_all tells whether every pattern of be matched a metric
 * that r's benchmarks have in it. */
static int baseline_of(struct pmc_history *h, const struct pmc_result *r,
		       const struct baseline_ids *ids, struct bentry *be, struct pmc_result **ret,
		       size_t *ret_n, bool *ret_all, char *err, size_t errlen)
{
	struct pmc_result *base = NULL;
	struct bentry *bes = NULL; /* schema 3: one per entry */
	bool *matched = NULL;
	size_t ne = 0;
	int rc;

	be->literal = be->metrics && be->nmetrics < MAX_PARAMS;
	for (size_t i = 0; be->literal && i < be->nmetrics; i++)
		be->literal = !strpbrk(be->metrics[i], "*?[\\");
	if (be->metrics && !(matched = calloc(be->nmetrics + 1, sizeof(*matched))))
		return oom(err, errlen);
	rc = pmc_result_new(r->backend, &base);
	for (size_t i = 0; rc == 0 && i < r->nenv; i++)
		rc = pmc_result_set_env(base, r->env[i].key, r->env[i].value);
	if (rc < 0) {
		oom(err, errlen);
		goto fail;
	}
	/* Schema 3: every entry's points first, in one query by name. */
	if (h->schema >= 3) {
		bes = calloc(ids->n + 1, sizeof(*bes));
		for (size_t e = 0; bes && e < ids->n; e++) {
			bes[e] = (struct bentry){.metrics = be->metrics,
						 .nmetrics = be->nmetrics,
						 .literal = be->literal};
			pmc_hist_bentry_start(&bes[e], h, ids->v[e], err, errlen);
		}
		rc = bes ? pmc_hist_baseline_points(h, bes, ids, err, errlen) : -ENOMEM;
		if (rc == -ENOMEM)
			oom(err, errlen);
		if (rc < 0)
			goto fail;
	}
	/* Entry by entry, oldest first (the ids come newest first, by (t, id) as the
	 * entries sort everywhere): each is one process of the baseline. */
	for (size_t e = ids->n; e-- > 0;) {
		struct bentry *at = bes ? &bes[e] : be;

		rc = pmc_hist_bentry_read(h, at, ids->v[e], ids->ref[e], bes != NULL, err, errlen);
		if (rc == -ENOMEM)
			oom(err, errlen);
		if (rc < 0)
			goto fail;
		if (at->nb > 0) /* an entry without a point is no process */
			rc = baseline_entry(base, r, at, (unsigned)++ne, matched);
		if (bes)
			pmc_hist_bentry_free(at);
		if (rc < 0) {
			oom(err, errlen);
			goto fail;
		}
	}
	free(bes);
	bes = NULL;
	for (size_t i = 0; i < base->nbench; i++) {
		rc = keep_current_level(&base->benchmarks[i]);
		if (rc < 0) {
			oom(err, errlen);
			goto fail;
		}
	}
	*ret_all = true;
	for (size_t i = 0; matched && i < be->nmetrics; i++)
		*ret_all = *ret_all && matched[i];
	free(matched);
	if (base->nbench == 0) {
		pmc_result_free(base);
		base = NULL; /* entries there, none with these benchmarks */
	}
	*ret = base;
	*ret_n = base ? ne : 0;
	return 0;
fail:
	for (size_t e = 0; bes && e < ids->n; e++)
		pmc_hist_bentry_free(&bes[e]);
	free(bes);
	free(matched);
	pmc_result_free(base);
	return rc;
}

/* The baseline was created when its newest entry was measured, not when the gate pools
 * it: else every result gated is older than its baseline ("are the arguments swapped?"). */
static int stamp_newest(struct pmc_result *base, long long t, char *err, size_t errlen)
{
	time_t when = (time_t)t;
	struct tm tm;
	char buf[32];

	if (!gmtime_r(&when, &tm) || strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		return 0; /* a time out of range: the pool's own stays */
	free(base->created);
	base->created = strdup(buf);
	return base->created ? 0 : oom(err, errlen);
}

int pmc_history_baseline(struct pmc_history *h, const struct pmc_result *r,
			 const struct pmc_history_meta *meta, const char *branch, size_t k,
			 const char *const *metrics, size_t nmetrics, struct pmc_result **ret,
			 size_t *ret_n, char *err, size_t errlen)
{
	struct baseline_ids ids = {NULL, NULL, 0};
	struct bentry be = {.metrics = nmetrics ? metrics : NULL, .nmetrics = nmetrics};
	struct pmc_result *base = NULL;
	char id[65], fp[17], lim[24];
	bool all = true;
	int rc;

	if (k < 1 || k > PMC_HISTORY_MAX_LAST) {
		pmc_err_set(err, errlen, "the baseline takes 1 to %d entries, not %zu",
			    PMC_HISTORY_MAX_LAST, k);
		return -EINVAL;
	}
	if (pmc_history_result_id(r, id) < 0)
		return oom(err, errlen);
	pmc_history_fingerprint(r, meta, fp);
	snprintf(lim, sizeof(lim), "%zu", k);
	/* One read transaction: the entries and their points as one state of the store. */
	rc = h->eng->begin_read(h->db, err, errlen);
	if (rc < 0)
		return rc;
	{
		const char *p[] = {fp, id, lim, branch};

		char sql[256];

		snprintf(sql, sizeof(sql),
			 "SELECT id, t, %s FROM pmc_entry WHERE fingerprint = $1 AND id <> $2%s "
			 "ORDER BY t DESC, id DESC LIMIT CAST($3 AS BIGINT)",
			 h->schema >= 3 ? "num" : "id", branch ? " AND branch = $4" : "");
		rc = h->eng->query(h->db, sql, p, branch ? 4 : 3, id_row, &ids, err, errlen);
	}
	if (rc == -ENOMEM)
		oom(err, errlen);
	*ret_n = 0;
	if (rc == 0 && ids.n > 0)
		rc = baseline_of(h, r, &ids, &be, &base, ret_n, &all, err, errlen);
	if (rc == 0 && !all) {
		/* A pattern that matched nothing here makes the comparison name it, with the
		 * metrics the baseline has: with them all, as it would without the selection. */
		pmc_result_free(base);
		base = NULL;
		be.metrics = NULL;
		be.nmetrics = 0;
		rc = baseline_of(h, r, &ids, &be, &base, ret_n, &all, err, errlen);
	}
	if (rc == 0 && base)
		rc = stamp_newest(base, ids.newest, err, errlen);
	if (rc == 0)
		rc = h->eng->commit(h->db, err, errlen);
	if (rc == 0)
		*ret = base;
	else {
		h->eng->rollback(h->db);
		pmc_result_free(base);
	}
	pmc_hist_bentry_free(&be);
	ids_free(&ids);
	return rc;
}

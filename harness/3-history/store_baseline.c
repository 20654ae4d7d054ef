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

struct ids {
	char **v;
	char **ref; /* what the other tables name each by: its number (schema 3), or v */
	size_t n;
	long long newest; /* the time of v[0], seconds since the epoch */
};

static int id_row(void *ud, const char *const *cols, size_t n)
{
	struct ids *ids = ud;

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

static void ids_free(struct ids *ids)
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

/* What one entry gives the baseline: its benchmarks with their runs, and the points of
 * the metrics read. Their text goes into one buffer and their samples into another, so
 * that a row costs no allocation of its own; the arrays are reused entry after entry. */
struct bbench {
	size_t name; /* offset into text */
	size_t runs;
};

struct bpoint {
	size_t bench, metric, unit; /* offsets into text */
	int better;
	bool simulated;
	size_t at, n; /* samples: vals[at .. at + n) */
};

struct bentry {
	const char *const *metrics; /* the patterns of the metrics read; NULL: all */
	size_t nmetrics;
	bool literal; /* the patterns are plain names, which the query selects */
	struct bbench *b;
	size_t nb, capb;
	struct bpoint *p;
	size_t np, capp;
	char *text;
	size_t ntext, captext;
	double *vals;
	size_t nvals, capvals;
	/* Where the points are read, for the message of a damaged one. */
	const struct pmc_history *h;
	const char *entry;
	char *err;
	size_t errlen;
};

static void bentry_clear(struct bentry *be)
{
	be->nb = be->np = be->ntext = be->nvals = 0;
}

static void bentry_free(struct bentry *be)
{
	free(be->b);
	free(be->p);
	free(be->text);
	free(be->vals);
	be->b = NULL;
	be->p = NULL;
	be->text = NULL;
	be->vals = NULL;
	be->capb = be->capp = be->captext = be->capvals = 0;
	bentry_clear(be);
}

static int put_text(struct bentry *be, const char *s, size_t *ret)
{
	size_t len = strlen(s ? s : "") + 1;

	if (pmc_grow_to(&be->text, &be->captext, be->ntext + len, 1) < 0)
		return -ENOMEM;
	memcpy(be->text + be->ntext, s ? s : "", len);
	*ret = be->ntext;
	be->ntext += len;
	return 0;
}

static int bench_row(void *ud, const char *const *c, size_t ncols)
{
	struct bentry *be = ud;
	struct bbench *b;

	if (pmc_grow_to(&be->b, &be->capb, be->nb + 1, sizeof(*be->b)) < 0)
		return -ENOMEM;
	b = &be->b[be->nb];
	b->runs = c[1] && *c[1] >= '0' && *c[1] <= '9' ? strtoull(c[1], NULL, 10) : SIZE_MAX;
	if (put_text(be, c[0], &b->name) < 0)
		return -ENOMEM;
	be->nb++;
	return 0;
}

static int bpoint_row(void *ud, const char *const *c, size_t ncols)
{
	struct bentry *be = ud;
	struct bpoint *p;
	bool want = !be->metrics || be->literal;

	/* The comparison's own rule of which metrics it compares (compare_pairing.c). */
	for (size_t i = 0; !want && i < be->nmetrics; i++)
		want = fnmatch(be->metrics[i], c[1], 0) == 0;
	if (!want)
		return 0;
	if (pmc_grow_to(&be->p, &be->capp, be->np + 1, sizeof(*be->p)) < 0)
		return -ENOMEM;
	p = &be->p[be->np];
	p->better = c[3] ? atoi(c[3]) : 0;
	p->simulated = c[4] && atoi(c[4]) != 0;
	p->at = be->nvals;
	p->n = 0;
	if (put_text(be, c[0], &p->bench) < 0 || put_text(be, c[1], &p->metric) < 0 ||
	    put_text(be, c[2], &p->unit) < 0)
		return -ENOMEM;
	if (!c[5]) {
		/* A one-sample point (schema 3): its sample is its median. */
		double *v = NULL;
		size_t n = 0;
		int r = pmc_hist_point_samples(be->h, NULL, c[7], c[6], be->entry, c[0], c[1], &v,
					       &n, be->err, be->errlen);

		if (r < 0)
			return r;
		if (pmc_grow_to(&be->vals, &be->capvals, be->nvals + 1, sizeof(*be->vals)) < 0) {
			free(v);
			return -ENOMEM;
		}
		be->vals[be->nvals++] = v[0];
		free(v);
		p->n = 1;
		be->np++;
		return 0;
	}
	for (const char *s = c[5] + strspn(c[5], " "); *s;) {
		if (pmc_grow_to(&be->vals, &be->capvals, be->nvals + 1, sizeof(*be->vals)) < 0)
			return -ENOMEM;
		if (pmc_hist_parse_sample(&s, &be->vals[be->nvals]) < 0)
			return pmc_hist_bad_point(be->h, be->entry, c[0], c[1],
						  "its samples are not all finite numbers", be->err,
						  be->errlen);
		be->nvals++;
		p->n++;
		while (*s == ' ')
			s++;
	}
	if (!pmc_hist_count_is(c[6], p->n))
		return pmc_hist_bad_point(be->h, be->entry, c[0], c[1],
					  "its count n is not the number of its samples", be->err,
					  be->errlen);
	be->np++;
	return 0;
}

static int cmp_bbench(const void *a, const void *b, void *text)
{
	return strcmp((const char *)text + ((const struct bbench *)a)->name,
		      (const char *)text + ((const struct bbench *)b)->name);
}

static int cmp_bpoint(const void *a, const void *b, void *text)
{
	const struct bpoint *x = a, *y = b;
	int c = strcmp((const char *)text + x->bench, (const char *)text + y->bench);

	return c ? c : strcmp((const char *)text + x->metric, (const char *)text + y->metric);
}

/* Sorts v by cmp (on the names in text) unless it is sorted already: SQLite gives the
 * rows in the order of their key, bytewise as here. */
static void sort_once(void *v, size_t n, size_t size,
		      int (*cmp)(const void *, const void *, void *), char *text)
{
	for (size_t i = 1; i < n; i++)
		if (cmp((char *)v + (i - 1) * size, (char *)v + i * size, text) > 0) {
			qsort_r(v, n, size, cmp, text);
			return;
		}
}

#define RUNS_WRONG "its count of runs is not the most samples of one of its metrics"

static int max_n_row(void *ud, const char *const *c, size_t ncols)
{
	*(size_t *)ud = c[0] ? strtoull(c[0], NULL, 10) : 0;
	return 0;
}

/* The runs of each benchmark of entry id are the most samples of one of its metrics
 * (pmc_bench is written so): more samples in a point read, or more runs than any of its
 * points holds, is a store changed by something else (a count of 10^15 runs would have
 * the gate make them). When the points read are not all of a benchmark's, and hold fewer
 * samples than its runs (a metric not read has more), its points' counts are asked. */
static int check_runs(struct pmc_history *h, struct bentry *be, const char *id, const char *ref,
		      char *err, size_t errlen)
{
	size_t x = 0;

	for (size_t i = 0; i < be->nb; i++) {
		const char *name = be->text + be->b[i].name;
		size_t most = 0;
		int r;

		while (x < be->np && strcmp(be->text + be->p[x].bench, name) < 0)
			x++;
		for (; x < be->np && strcmp(be->text + be->p[x].bench, name) == 0; x++)
			most = be->p[x].n > most ? be->p[x].n : most;
		if (most < be->b[i].runs && be->metrics) {
			const char *p[] = {ref, name};

			r = h->eng->query(
			    h->db,
			    h->schema >= 3 ? "SELECT max(p.n) FROM pmc_name s CROSS JOIN pmc_point "
					     "p WHERE s.benchmark = $2 AND p.name = s.num AND "
					     "p.entry = $1"
					   : "SELECT max(n) FROM pmc_point WHERE entry = $1 AND "
					     "benchmark = $2",
			    p, 2, max_n_row, &most, err, errlen);
			if (r < 0)
				return r;
		}
		if (most != be->b[i].runs)
			return pmc_hist_bad_point(h, id, name, NULL, RUNS_WRONG, err, errlen);
	}
	return 0;
}

/* The benchmarks of entry ref into be: the store's pmc_bench since schema 2, else found
 * from its points. */
static int read_benches(struct pmc_history *h, struct bentry *be, const char *ref, char *err,
			size_t errlen)
{
	const char *p[] = {ref};

	be->nb = 0;
	return h->eng->query(h->db,
			     h->schema >= 2
				 ? "SELECT benchmark, runs FROM pmc_bench WHERE entry = $1"
				 : "SELECT benchmark, max(n) FROM pmc_point WHERE entry = $1 GROUP "
				   "BY benchmark",
			     p, 1, bench_row, be, err, errlen);
}

/* Appends " AND col IN ($k, ...)" of be's metrics to sql when they are plain names, which
 * the store is then asked for, so that it reads no other row; patterns are matched by
 * bpoint_row, as the comparison matches them. */
static void metrics_in(const struct bentry *be, const char *col, char *sql, size_t size,
		       const char **p, size_t *np)
{
	size_t len = strlen(sql);

	if (!be->literal)
		return;
	len += (size_t)snprintf(sql + len, size - len, " AND %s IN (", col);
	for (size_t i = 0; i < be->nmetrics && len < size; i++) {
		len += (size_t)snprintf(sql + len, size - len, "%s$%zu", i ? ", " : "", *np + 1);
		p[(*np)++] = be->metrics[i];
	}
	if (len < size)
		snprintf(sql + len, size - len, ")");
}

/* Sorts what be read and checks its runs. */
static int finish_entry(struct pmc_history *h, struct bentry *be, const char *id, const char *ref,
			char *err, size_t errlen)
{
	sort_once(be->b, be->nb, sizeof(*be->b), cmp_bbench, be->text);
	sort_once(be->p, be->np, sizeof(*be->p), cmp_bpoint, be->text);
	return check_runs(h, be, id, ref, err, errlen);
}

static void bentry_start(struct bentry *be, struct pmc_history *h, const char *id, char *err,
			 size_t errlen)
{
	bentry_clear(be);
	be->h = h;
	be->entry = id;
	be->err = err;
	be->errlen = errlen;
}

/* Reads entry id of a store before schema 3 into be: its benchmarks and the points of the
 * metrics read, both sorted by name. */
static int read_entry(struct pmc_history *h, struct bentry *be, const char *id, const char *ref,
		      char *err, size_t errlen)
{
	const char *p[MAX_PARAMS + 1] = {ref};
	char sql[2048] = "SELECT benchmark, metric, unit, better, simulated, samples, n, median "
			 "FROM pmc_point WHERE entry = $1";
	size_t np = 1;
	int r;

	bentry_start(be, h, id, err, errlen);
	r = read_benches(h, be, ref, err, errlen);
	if (r < 0)
		return r;
	metrics_in(be, "metric", sql, sizeof(sql), p, &np);
	r = h->eng->query(h->db, sql, p, np, bpoint_row, be, err, errlen);
	return r < 0 ? r : finish_entry(h, be, id, ref, err, errlen);
}

/* The names of the points a gate reads (schema 3), ascending by number, read once: each
 * point's row then names its number, not its text, which a join would give again with
 * every entry's point. col: benchmark, metric, unit, better, simulated, as offsets into
 * text (SIZE_MAX: NULL). */
struct bname {
	unsigned long long num;
	size_t col[5];
};

struct bnames {
	struct bname *v;
	size_t n, cap, last; /* last: the name of the row before, where the next most often is */
	char *text;
	size_t ntext, captext;
};

static int name_row(void *ud, const char *const *c, size_t ncols)
{
	struct bnames *ns = ud;
	struct bname *b;

	if (pmc_grow_to(&ns->v, &ns->cap, ns->n + 1, sizeof(*ns->v)) < 0)
		return -ENOMEM;
	b = &ns->v[ns->n++];
	b->num = c[0] ? strtoull(c[0], NULL, 10) : 0;
	for (size_t k = 0; k < 5; k++) {
		size_t len = c[k + 1] ? strlen(c[k + 1]) + 1 : 0;

		b->col[k] = c[k + 1] ? ns->ntext : SIZE_MAX;
		if (len && pmc_grow_to(&ns->text, &ns->captext, ns->ntext + len, 1) < 0)
			return -ENOMEM;
		memcpy(ns->text + ns->ntext, c[k + 1] ? c[k + 1] : "", len);
		ns->ntext += len;
	}
	return 0;
}

/* The name numbered num, or NULL. */
static const struct bname *name_of(struct bnames *ns, unsigned long long num)
{
	size_t lo = 0, hi = ns->n;

	if (ns->last < ns->n && ns->v[ns->last].num == num)
		return &ns->v[ns->last];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ns->v[mid].num == num) {
			ns->last = mid;
			return &ns->v[mid];
		}
		if (ns->v[mid].num < num)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The points of the entries of a gate, each row to the bentry of its entry. */
struct by_entry {
	struct bentry *bes;
	unsigned long long *num; /* the entries' numbers, ascending */
	size_t *at;		 /* the bentry of num[i] */
	size_t n;
	struct bnames names;
};

/* A row (entry, name, samples, n, median) as bpoint_row reads it, with its name's text. */
static int entry_point_row(void *ud, const char *const *c, size_t ncols)
{
	struct by_entry *d = ud;
	unsigned long long num = c[0] ? strtoull(c[0], NULL, 10) : 0;
	const struct bname *name = name_of(&d->names, c[1] ? strtoull(c[1], NULL, 10) : 0);
	const char *cols[8];
	size_t lo = 0, hi = d->n;

	if (!name)
		return 0; /* none in one read transaction: a name is added with its points */
	for (size_t k = 0; k < 5; k++)
		cols[k] = name->col[k] == SIZE_MAX ? NULL : d->names.text + name->col[k];
	cols[5] = c[2];
	cols[6] = c[3];
	cols[7] = c[4];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->num[mid] == num)
			return bpoint_row(&d->bes[d->at[mid]], cols, 8);
		if (d->num[mid] < num)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* The names of the metrics read, into d->names. */
static int read_names(struct pmc_history *h, const struct bentry *be, struct by_entry *d, char *err,
		      size_t errlen)
{
	const char *p[MAX_PARAMS + 1];
	char sql[2048] = "SELECT num, benchmark, metric, unit, better, simulated FROM pmc_name "
			 "WHERE 1 = 1";
	size_t np = 0;

	metrics_in(be, "metric", sql, sizeof(sql), p, &np);
	strcat(sql, " ORDER BY num");
	return h->eng->query(h->db, sql, p, np, name_row, &d->names, err, errlen);
}

/* The points of the metrics read of every entry ids names (schema 3), into bes[i] for
 * ids->v[i], in one query by name: the points lie by series, the points of one name of the
 * last entries side by side, so that each page is read once for all of them (a query by
 * entry would read a page of every series for each entry). */
static int read_points_by_name(struct pmc_history *h, struct bentry *bes, const struct ids *ids,
			       char *err, size_t errlen)
{
	struct by_entry d = {.bes = bes, .n = ids->n};
	size_t nmetrics = bes[0].nmetrics, size = 512 + 16 * (ids->n + nmetrics), np = 0;
	const char **p = calloc(ids->n + nmetrics + 1, sizeof(*p));
	char *sql = malloc(size);
	size_t len;
	int r = -ENOMEM;

	d.num = calloc(ids->n + 1, sizeof(*d.num));
	d.at = calloc(ids->n + 1, sizeof(*d.at));
	if (!d.num || !d.at || !p || !sql)
		goto out;
	r = read_names(h, &bes[0], &d, err, errlen);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < ids->n; i++) {
		/* Insertion into num, kept ascending (k is at most PMC_HISTORY_MAX_LAST). */
		size_t k = i;
		unsigned long long v = strtoull(ids->ref[i], NULL, 10);

		for (; k > 0 && d.num[k - 1] > v; k--) {
			d.num[k] = d.num[k - 1];
			d.at[k] = d.at[k - 1];
		}
		d.num[k] = v;
		d.at[k] = i;
	}
	/* The median only of a one-sample point, whose sample it is: the others' would be
	 * turned into text (by printf, when not a whole number) and never read. */
	len = (size_t)snprintf(sql, size,
			       "SELECT p.entry, p.name, p.samples, p.n, CASE WHEN p.samples IS "
			       "NULL THEN p.median END FROM pmc_name s CROSS JOIN pmc_point p "
			       "WHERE p.name = s.num AND p.entry ");
	if (d.num[ids->n - 1] - d.num[0] < 4 * (unsigned long long)ids->n) {
		/* Entries numbered close together (the last of a fingerprint, most often):
		 * one walk of each name's points over their range, entry_point_row leaving
		 * out those of other entries, costs less than a look-up of each. */
		p[np++] = ids->ref[d.at[0]];
		p[np++] = ids->ref[d.at[ids->n - 1]];
		snprintf(sql + len, size - len, "BETWEEN $1 AND $2");
	} else {
		len += (size_t)snprintf(sql + len, size - len, "IN (");
		for (size_t i = 0; i < ids->n; i++) {
			len += (size_t)snprintf(sql + len, size - len, "%s$%zu", i ? ", " : "",
						np + 1);
			p[np++] = ids->ref[i];
		}
		snprintf(sql + len, size - len, ")");
	}
	metrics_in(&bes[0], "s.metric", sql, size, p, &np);
	/* By name, as each entry's points are sorted (SQLite walks its index of the names
	 * so, and sorts nothing): each entry's come sorted, and sort_once keeps them. */
	len = strlen(sql);
	snprintf(sql + len, size - len, " ORDER BY s.benchmark, s.metric");
	r = h->eng->query(h->db, sql, p, np, entry_point_row, &d, err, errlen);
out:
	free(d.num);
	free(d.at);
	free(d.names.v);
	free(d.names.text);
	free(p);
	free(sql);
	return r;
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
static int baseline_of(struct pmc_history *h, const struct pmc_result *r, const struct ids *ids,
		       struct bentry *be, struct pmc_result **ret, size_t *ret_n, bool *ret_all,
		       char *err, size_t errlen)
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
			bentry_start(&bes[e], h, ids->v[e], err, errlen);
		}
		rc = bes ? read_points_by_name(h, bes, ids, err, errlen) : -ENOMEM;
		if (rc == -ENOMEM)
			oom(err, errlen);
		if (rc < 0)
			goto fail;
	}
	/* Entry by entry, oldest first (the ids come newest first, by (t, id) as the
	 * entries sort everywhere): each is one process of the baseline. */
	for (size_t e = ids->n; e-- > 0;) {
		struct bentry *at = bes ? &bes[e] : be;

		if (bes) {
			rc = read_benches(h, at, ids->ref[e], err, errlen);
			if (rc == 0)
				rc = finish_entry(h, at, ids->v[e], ids->ref[e], err, errlen);
		} else {
			rc = read_entry(h, at, ids->v[e], ids->ref[e], err, errlen);
		}
		if (rc == -ENOMEM)
			oom(err, errlen);
		if (rc < 0)
			goto fail;
		if (at->nb > 0) /* an entry without a point is no process */
			rc = baseline_entry(base, r, at, (unsigned)++ne, matched);
		if (bes)
			bentry_free(at);
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
		bentry_free(&bes[e]);
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
	struct ids ids = {NULL, NULL, 0};
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
	bentry_free(&be);
	ids_free(&ids);
	return rc;
}

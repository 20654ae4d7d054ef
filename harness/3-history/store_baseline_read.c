/* What a gate's baseline reads of the history (store_baseline.c): the benchmarks of each
 * entry with their runs and the points of the metrics read, checked as a store changed by
 * something else needs, sorted by name; before schema 3 entry by entry, since then every
 * entry's points in one query by name. */
#include <errno.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "history/engine.h"
#include "history/history.h"
#include "history/store_priv.h"

static void bentry_clear(struct bentry *be)
{
	be->nb = be->np = be->ntext = be->nvals = 0;
}

void pmc_hist_bentry_free(struct bentry *be)
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

void pmc_hist_bentry_start(struct bentry *be, struct pmc_history *h, const char *id, char *err,
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

	pmc_hist_bentry_start(be, h, id, err, errlen);
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

/* In one query by name: the points lie by series, the points of one name of the last
 * entries side by side, so that each page is read once for all of them (a query by entry
 * would read a page of every series for each entry). */
int pmc_hist_baseline_points(struct pmc_history *h, struct bentry *bes,
			     const struct baseline_ids *ids, char *err, size_t errlen)
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

int pmc_hist_bentry_read(struct pmc_history *h, struct bentry *be, const char *id, const char *ref,
			 bool points_read, char *err, size_t errlen)
{
	int r;

	if (!points_read)
		return read_entry(h, be, id, ref, err, errlen);
	r = read_benches(h, be, ref, err, errlen);
	return r < 0 ? r : finish_entry(h, be, id, ref, err, errlen);
}

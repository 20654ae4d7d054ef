/* The points of the series a selection picks, read series by series (pmc_history_series):
 * the entries once, then for each (benchmark, metric) its points in one query, so that
 * memory holds one of them, never the store; pmc_history_points on top of it. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/grow.h"
#include "history/engine.h"
#include "history/history.h"
#include "history/store_priv.h"

/* A (benchmark, metric) of the store: the series of it, one per fingerprint. */
struct group {
	char *benchmark, *metric;
};

struct groups {
	struct group *v;
	size_t n;
};

static int group_row(void *ud, const char *const *c, size_t n)
{
	struct groups *gs = ud;
	struct group *g;

	if (!c[0] || !c[1])
		return 0;
	if (pmc_grow(&gs->v, gs->n, sizeof(*gs->v)) < 0)
		return -ENOMEM;
	g = &gs->v[gs->n++];
	g->benchmark = strdup(c[0]);
	g->metric = strdup(c[1]);
	return g->benchmark && g->metric ? 0 : -ENOMEM;
}

static void groups_free(struct groups *gs)
{
	for (size_t i = 0; i < gs->n; i++) {
		free(gs->v[i].benchmark);
		free(gs->v[i].metric);
	}
	free(gs->v);
}

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	int c = strcmp(x->benchmark, y->benchmark);

	return c ? c : strcmp(x->metric, y->metric);
}

/* The (benchmark, metric) pairs that f's benchmark and metric select, in the order of the
 * series (bytewise, as strcmp: a server's collation may order text otherwise). */
static int select_groups(struct pmc_history *h, const struct pmc_history_filter *f,
			 struct groups *gs, char *err, size_t errlen)
{
	const char *tbl = h->schema >= 3 ? "pmc_name" : "pmc_point";
	const char *p[2];
	char sql[256];
	size_t np = 0, len;
	int r;

	len = (size_t)snprintf(sql, sizeof(sql),
			       "SELECT DISTINCT benchmark, metric FROM %s WHERE 1 = 1", tbl);
	if (f && f->benchmark) {
		p[np++] = f->benchmark;
		len += (size_t)snprintf(sql + len, sizeof(sql) - len, " AND benchmark = $%zu", np);
	}
	if (f && f->metric) {
		p[np++] = f->metric;
		snprintf(sql + len, sizeof(sql) - len, " AND metric = $%zu", np);
	}
	r = h->eng->query(h->db, sql, p, np, group_row, gs, err, errlen);
	if (r == -ENOMEM)
		oom(err, errlen);
	if (r == 0 && gs->n)
		qsort(gs->v, gs->n, sizeof(*gs->v), cmp_group);
	return r;
}

/* The points of one group, reused group after group: units in text, samples in vals
 * (offsets until the group is read, when the pointers are set). */
struct reader {
	struct pmc_history *h;
	const struct pmc_hist_entries *es;
	const struct group *g;
	struct pmc_history_point *v;
	size_t n, cap;
	char *text;
	size_t ntext, captext;
	double *vals;
	size_t nvals, capvals;
	char *err;
	size_t errlen;
};

static int reader_row(void *ud, const char *const *c, size_t ncols)
{
	struct reader *rd = ud;
	const struct pmc_history_entry *e = pmc_hist_entry_of(rd->es, c[0]);
	struct pmc_history_point *p;
	const char *unit = c[1] ? c[1] : "";
	size_t ulen = strlen(unit) + 1, n = 0;
	double *v = NULL;
	int r;

	if (!e)
		return 0; /* an entry the selection leaves out */
	r = pmc_hist_point_samples(rd->h, c[6], c[5], c[4], e->id, rd->g->benchmark, rd->g->metric,
				   &v, &n, rd->err, rd->errlen);
	if (r < 0)
		return r;
	if (pmc_grow_to(&rd->v, &rd->cap, rd->n + 1, sizeof(*rd->v)) < 0 ||
	    pmc_grow_to(&rd->text, &rd->captext, rd->ntext + ulen, 1) < 0 ||
	    pmc_grow_to(&rd->vals, &rd->capvals, rd->nvals + n + 1, sizeof(double)) < 0) {
		free(v);
		return oom(rd->err, rd->errlen);
	}
	p = &rd->v[rd->n++];
	memset(p, 0, sizeof(*p));
	p->e = *e;
	p->benchmark = rd->g->benchmark;
	p->metric = rd->g->metric;
	p->unit = (char *)(uintptr_t)rd->ntext; /* an offset until the group is read */
	memcpy(rd->text + rd->ntext, unit, ulen);
	rd->ntext += ulen;
	p->better = c[2] ? atoi(c[2]) : 0;
	p->simulated = c[3] && atoi(c[3]) != 0;
	p->median = c[5] ? strtod(c[5], NULL) : NAN;
	p->n = n;
	p->samples = (double *)(uintptr_t)rd->nvals;
	memcpy(rd->vals + rd->nvals, v, n * sizeof(double));
	rd->nvals += n;
	free(v);
	return 0;
}

static int cmp_in_group(const void *a, const void *b)
{
	const struct pmc_history_point *x = a, *y = b;
	int c = strcmp(x->e.fingerprint, y->e.fingerprint);

	return c ? c : pmc_hist_cmp_entry(&x->e, &y->e);
}

/* Reads group g's points of the entries selected, sorted by fingerprint, then by entry. */
static int read_group(struct reader *rd, const struct group *g)
{
	static const char *const sql[] = {
	    "SELECT p.entry, p.unit, p.better, p.simulated, p.n, p.median, p.samples FROM "
	    "pmc_point p WHERE p.benchmark = $1 AND p.metric = $2",
	    "SELECT p.entry, s.unit, s.better, s.simulated, p.n, p.median, p.samples FROM "
	    "pmc_name s JOIN pmc_point p ON p.name = s.num WHERE s.benchmark = $1 AND s.metric = "
	    "$2",
	};
	const char *p[] = {g->benchmark, g->metric};
	int r;

	rd->g = g;
	rd->n = rd->ntext = rd->nvals = 0;
	r = rd->h->eng->query(rd->h->db, sql[rd->h->schema >= 3], p, 2, reader_row, rd, rd->err,
			      rd->errlen);
	if (r < 0)
		return r;
	for (size_t i = 0; i < rd->n; i++) {
		rd->v[i].unit = rd->text + (uintptr_t)rd->v[i].unit;
		rd->v[i].samples = rd->vals + (uintptr_t)rd->v[i].samples;
	}
	if (rd->n)
		qsort(rd->v, rd->n, sizeof(*rd->v), cmp_in_group);
	return 0;
}

int pmc_history_series(struct pmc_history *h, const struct pmc_history_filter *f,
		       pmc_history_series_fn fn, void *ud, struct pmc_history_entry **ret_entries,
		       size_t *ret_nentries, char *err, size_t errlen)
{
	struct pmc_hist_entries es;
	struct groups gs = {NULL, 0};
	struct reader rd = {.h = h, .es = &es, .err = err, .errlen = errlen};
	int r;

	/* One read transaction: the entries and every series of one state of the store. */
	r = h->eng->begin_read(h->db, err, errlen);
	if (r < 0)
		return r;
	r = pmc_hist_select_entries(h, f, false, &es, err, errlen);
	if (r < 0)
		goto rollback;
	r = select_groups(h, f, &gs, err, errlen);
	for (size_t i = 0; r == 0 && i < gs.n; i++) {
		r = read_group(&rd, &gs.v[i]);
		for (size_t a = 0, b; r == 0 && a < rd.n; a = b) {
			for (b = a + 1; b < rd.n && pmc_history_same_series(&rd.v[a], &rd.v[b]);
			     b++)
				;
			r = fn(ud, rd.v + a, b - a);
		}
	}
	if (r == 0)
		r = h->eng->commit(h->db, err, errlen);
	free(rd.v);
	free(rd.text);
	free(rd.vals);
	groups_free(&gs);
	if (r < 0) {
		pmc_hist_entries_free(&es);
		goto rollback;
	}
	if (ret_entries) {
		*ret_entries = es.v;
		*ret_nentries = es.n;
		es.v = NULL;
	}
	pmc_hist_entries_free(&es);
	return 0;
rollback:
	h->eng->rollback(h->db);
	return r;
}

/* ---- Every point at once (show, export): copies of the series' points ---- */

struct points {
	struct pmc_history_point *v;
	size_t n;
};

static char *dup_or_null(const char *s, bool *failed)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*failed = true;
	return d;
}

static int copy_point(struct pmc_history_point *d, const struct pmc_history_point *s)
{
	const struct pmc_history_entry *e = &s->e;
	bool failed = false;

	*d = *s;
	d->e.id = dup_or_null(e->id, &failed);
	d->e.commit = dup_or_null(e->commit, &failed);
	d->e.branch = dup_or_null(e->branch, &failed);
	d->e.fingerprint = dup_or_null(e->fingerprint, &failed);
	d->e.machine = dup_or_null(e->machine, &failed);
	d->e.kernel = dup_or_null(e->kernel, &failed);
	d->e.cpu = dup_or_null(e->cpu, &failed);
	d->e.compiler = dup_or_null(e->compiler, &failed);
	d->e.backend = dup_or_null(e->backend, &failed);
	d->e.target_env = dup_or_null(e->target_env, &failed);
	d->e.source = dup_or_null(e->source, &failed);
	d->e.tags = dup_or_null(e->tags, &failed);
	d->benchmark = dup_or_null(s->benchmark, &failed);
	d->metric = dup_or_null(s->metric, &failed);
	d->unit = dup_or_null(s->unit, &failed);
	d->samples = malloc((s->n + 1) * sizeof(double));
	if (d->samples)
		memcpy(d->samples, s->samples, s->n * sizeof(double));
	return failed || !d->samples ? -ENOMEM : 0;
}

static int keep_series(void *ud, const struct pmc_history_point *ps, size_t n)
{
	struct points *all = ud;

	for (size_t i = 0; i < n; i++) {
		int r;

		if (pmc_grow(&all->v, all->n, sizeof(*all->v)) < 0)
			return -ENOMEM;
		r = copy_point(&all->v[all->n++], &ps[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

int pmc_history_points(struct pmc_history *h, const struct pmc_history_filter *f,
		       struct pmc_history_point **ret, size_t *ret_n, char *err, size_t errlen)
{
	struct points all = {NULL, 0};
	int r = pmc_history_series(h, f, keep_series, &all, NULL, NULL, err, errlen);

	if (r == -ENOMEM)
		oom(err, errlen);
	if (r < 0) {
		pmc_history_points_free(all.v, all.n);
		return r;
	}
	*ret = all.v;
	*ret_n = all.n;
	return 0;
}

void pmc_history_points_free(struct pmc_history_point *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		pmc_hist_entry_clear(&v[i].e);
		free(v[i].benchmark);
		free(v[i].metric);
		free(v[i].unit);
		free(v[i].samples);
	}
	free(v);
}

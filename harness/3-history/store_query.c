/* The queries of list, show, export and changes: the conditions of a filter, the
 * entries with their tags, and the points of the series. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/grow.h"
#include "history/engine.h"
#include "history/history.h"
#include "history/store_priv.h"

struct where {
	char sql[2048];
	const char *p[MAX_PARAMS];
	char owned[MAX_PARAMS][40]; /* numbers and prefixes made here */
	size_t n;
};

/* Appends " AND <clause>" whose "$?" stand for the next parameters, in order. */
static int where_add(struct where *w, const char *clause, const char *const *vals, size_t nv)
{
	size_t len = strlen(w->sql), used = 0;

	if (w->n + nv > MAX_PARAMS)
		return -E2BIG;
	len += (size_t)snprintf(w->sql + len, sizeof(w->sql) - len, " AND ");
	for (const char *c = clause; *c && len + 8 < sizeof(w->sql); c++) {
		if (c[0] == '$' && c[1] == '?') {
			len +=
			    (size_t)snprintf(w->sql + len, sizeof(w->sql) - len, "$%zu", w->n + 1);
			w->p[w->n++] = vals[used++];
			c++;
		} else {
			w->sql[len++] = *c;
			w->sql[len] = '\0';
		}
	}
	return len + 8 < sizeof(w->sql) ? 0 : -E2BIG;
}

/* A number as the text of the next parameter. */
static const char *owned_num(struct where *w, long long v)
{
	snprintf(w->owned[w->n], sizeof(w->owned[0]), "%lld", v);
	return w->owned[w->n];
}

struct tbound {
	int64_t t;
	bool found;
};

static int tbound_row(void *ud, const char *const *cols, size_t n)
{
	struct tbound *b = ud;

	if (cols[0]) {
		b->t = strtoll(cols[0], NULL, 10);
		b->found = true;
	}
	return 0;
}

/* The time of the first (or last) measurement of a commit: the entries whose commit is
 * name, or when none is and name is hex digits (a SHA), whose commit starts with it. A
 * name is any text `add --commit` took (a tag such as v1.2); only the prefix is a pattern. */
static int commit_time(struct pmc_history *h, const char *name, bool last, int64_t *ret,
		       char *err, size_t errlen)
{
	struct tbound b = {0, false};
	char like[64];
	const char *p[] = {name};
	size_t len = strlen(name);
	int r;

	if (!*name) {
		pmc_err_set(err, errlen, "an empty commit selects nothing; give a commit, its "
					 "prefix or the name it was added with");
		return -EINVAL;
	}
	r = h->eng->query(h->db,
			  last ? "SELECT max(t) FROM pmc_entry WHERE commit_sha = $1"
			       : "SELECT min(t) FROM pmc_entry WHERE commit_sha = $1",
			  p, 1, tbound_row, &b, err, errlen);
	if (r == 0 && !b.found && len <= 40 && strspn(name, "0123456789abcdefABCDEF") == len) {
		snprintf(like, sizeof(like), "%s%%", name);
		p[0] = like;
		r = h->eng->query(h->db,
				  last ? "SELECT max(t) FROM pmc_entry WHERE commit_sha LIKE $1"
				       : "SELECT min(t) FROM pmc_entry WHERE commit_sha LIKE $1",
				  p, 1, tbound_row, &b, err, errlen);
	}
	if (r < 0)
		return r;
	if (!b.found) {
		pmc_err_set(err, errlen,
			    "%s: no entry measured commit %.200s; 'pmcbench history list' "
			    "shows the commits there",
			    h->display, name);
		return -ENOENT;
	}
	*ret = b.t;
	return 0;
}

int pmc_history_commit_time(struct pmc_history *h, const char *commit, bool last, int64_t *ret,
			    char *err, size_t errlen)
{
	return commit_time(h, commit, last, ret, err, errlen);
}

/* The conditions of f on entry e (and point p when points is true). */
static int build_where(struct pmc_history *h, const struct pmc_history_filter *f, bool points,
		       struct where *w, char *err, size_t errlen)
{
	int64_t since = f ? f->since : 0, until = f ? f->until : 0, t;
	int r = 0;

	memset(w, 0, sizeof(*w));
	strcpy(w->sql, " WHERE 1 = 1");
	if (!f)
		return 0;
	if (f->commit_from) {
		r = commit_time(h, f->commit_from, false, &t, err, errlen);
		if (r < 0)
			return r;
		if (!since || t > since)
			since = t;
	}
	if (f->commit_to) {
		r = commit_time(h, f->commit_to, true, &t, err, errlen);
		if (r < 0)
			return r;
		if (!until || t < until)
			until = t;
	}
#define ADD1(clause, v)                                                                            \
	do {                                                                                       \
		const char *vv_[] = {v};                                                           \
		if (r == 0)                                                                        \
			r = where_add(w, clause, vv_, 1);                                          \
	} while (0)
	if (f->benchmark)
		ADD1(points ? "p.benchmark = $?"
			    : "EXISTS (SELECT 1 FROM pmc_point q WHERE q.entry = e.id AND "
			      "q.benchmark = $?)",
		     f->benchmark);
	if (f->metric)
		ADD1(points ? "p.metric = $?"
			    : "EXISTS (SELECT 1 FROM pmc_point q WHERE q.entry = e.id AND "
			      "q.metric = $?)",
		     f->metric);
	if (f->branch)
		ADD1("e.branch = $?", f->branch);
	if (f->machine)
		ADD1("e.machine = $?", f->machine);
	if (f->fingerprint)
		ADD1("e.fingerprint = $?", f->fingerprint);
	if (since)
		ADD1("e.t >= CAST($? AS BIGINT)", owned_num(w, (long long)since));
	if (until)
		ADD1("e.t <= CAST($? AS BIGINT)", owned_num(w, (long long)until));
#undef ADD1
	for (size_t i = 0; i < f->ntags && r == 0; i++) {
		const char *eq = strchr(f->tags[i], '=');
		const char *kv[2];

		if (!eq || eq == f->tags[i] || (size_t)(eq - f->tags[i]) >= sizeof(w->owned[0])) {
			pmc_err_set(err, errlen, "tag '%s' is not KEY=VALUE", f->tags[i]);
			return -EINVAL;
		}
		snprintf(w->owned[w->n], sizeof(w->owned[0]), "%.*s", (int)(eq - f->tags[i]),
			 f->tags[i]);
		kv[0] = w->owned[w->n];
		kv[1] = eq + 1;
		r = where_add(w,
			      "EXISTS (SELECT 1 FROM pmc_tag g WHERE g.entry = e.id AND g.key = $? "
			      "AND g.value = $?)",
			      kv, 2);
	}
	if (r < 0)
		pmc_err_set(err, errlen, "too many conditions for one query");
	return r;
}

#define ENTRY_COLS                                                                                 \
	"e.id, e.t, e.added, e.commit_sha, e.branch, e.fingerprint, e.machine, e.kernel, e.cpu, "  \
	"e.compiler, e.backend, e.target_env, e.source"
#define NENTRY_COLS 13

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

static int fill_entry(struct pmc_history_entry *e, const char *const *c)
{
	bool failed = false;

	e->id = dup_or_null(c[0], &failed);
	e->t = c[1] ? strtoll(c[1], NULL, 10) : 0;
	e->added = c[2] ? strtoll(c[2], NULL, 10) : 0;
	e->commit = dup_or_null(c[3], &failed);
	e->branch = dup_or_null(c[4], &failed);
	e->fingerprint = dup_or_null(c[5], &failed);
	e->machine = dup_or_null(c[6], &failed);
	e->kernel = dup_or_null(c[7], &failed);
	e->cpu = dup_or_null(c[8], &failed);
	e->compiler = dup_or_null(c[9], &failed);
	e->backend = dup_or_null(c[10], &failed);
	e->target_env = dup_or_null(c[11], &failed);
	e->source = dup_or_null(c[12], &failed);
	e->tags = NULL;
	return failed ? -ENOMEM : 0;
}

static void clear_entry(struct pmc_history_entry *e)
{
	free(e->id);
	free(e->commit);
	free(e->branch);
	free(e->fingerprint);
	free(e->machine);
	free(e->kernel);
	free(e->cpu);
	free(e->compiler);
	free(e->backend);
	free(e->target_env);
	free(e->source);
	free(e->tags);
}

struct entries {
	struct pmc_history_entry *v;
	size_t n;
};

static int entry_row(void *ud, const char *const *cols, size_t n)
{
	struct entries *es = ud;
	int r;

	if (pmc_grow(&es->v, es->n, sizeof(*es->v)) < 0)
		return -ENOMEM;
	r = fill_entry(&es->v[es->n], cols);
	es->n++;
	return r;
}

static int cmp_entry(const struct pmc_history_entry *a, const struct pmc_history_entry *b)
{
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return strcmp(a->id, b->id);
}

static int cmp_entries(const void *a, const void *b)
{
	return cmp_entry(a, b);
}

/* Tags of the entries the where selects, as "k=v,k=v" on each entry of the table (by
 * id): tbl[i] points at an entry, sorted by id. */
struct tag_join {
	struct pmc_history_entry **by_id;
	size_t n;
};

static int cmp_by_id(const void *a, const void *b)
{
	return strcmp((*(struct pmc_history_entry *const *)a)->id,
		      (*(struct pmc_history_entry *const *)b)->id);
}

static int tag_row(void *ud, const char *const *cols, size_t n)
{
	struct tag_join *j = ud;
	struct pmc_history_entry key = {.id = (char *)cols[0]}, *kp = &key, **found;

	found = bsearch(&kp, j->by_id, j->n, sizeof(*j->by_id), cmp_by_id);
	for (; found && found < j->by_id + j->n && strcmp((*found)->id, cols[0]) == 0; found++) {
		struct pmc_history_entry *e = *found;
		size_t old = e->tags ? strlen(e->tags) : 0;
		char *grown = realloc(e->tags, old + strlen(cols[1]) + strlen(cols[2]) + 3);

		if (!grown)
			return -ENOMEM;
		e->tags = grown;
		sprintf(grown + old, "%s%s=%s", old ? "," : "", cols[1], cols[2]);
	}
	return 0;
}

/* Tags for the n entries at stride bytes from first, selected by w (on e, and on p after
 * the join in points). */
static int attach_tags(struct pmc_history *h, struct where *w, bool points, void *first, size_t n,
		       size_t stride, char *err, size_t errlen)
{
	struct tag_join j = {calloc(n + 1, sizeof(*j.by_id)), n};
	char sql[3072];
	int r;

	if (!j.by_id)
		return oom(err, errlen);
	for (size_t i = 0; i < n; i++)
		j.by_id[i] = (struct pmc_history_entry *)((char *)first + i * stride);
	qsort(j.by_id, n, sizeof(*j.by_id), cmp_by_id);
	snprintf(
	    sql, sizeof(sql),
	    "SELECT DISTINCT g.entry, g.key, g.value FROM pmc_tag g JOIN pmc_entry e ON e.id = "
	    "g.entry%s%s ORDER BY g.entry, g.key",
	    points ? " JOIN pmc_point p ON p.entry = e.id" : "", w->sql);
	r = h->eng->query(h->db, sql, w->p, w->n, tag_row, &j, err, errlen);
	if (r == -ENOMEM)
		oom(err, errlen);
	for (size_t i = 0; r == 0 && i < n; i++)
		if (!j.by_id[i]->tags && !(j.by_id[i]->tags = strdup("")))
			r = oom(err, errlen);
	free(j.by_id);
	return r;
}

int pmc_history_list(struct pmc_history *h, const struct pmc_history_filter *f,
		     struct pmc_history_entry **ret, size_t *ret_n, char *err, size_t errlen)
{
	struct entries es = {NULL, 0};
	struct where w;
	char sql[3072];
	int r;

	r = build_where(h, f, false, &w, err, errlen);
	if (r < 0)
		return r;
	snprintf(sql, sizeof(sql), "SELECT " ENTRY_COLS " FROM pmc_entry e%s", w.sql);
	r = h->eng->query(h->db, sql, w.p, w.n, entry_row, &es, err, errlen);
	if (r == -ENOMEM)
		oom(err, errlen);
	if (r == 0)
		r = attach_tags(h, &w, false, es.v, es.n, sizeof(*es.v), err, errlen);
	if (r < 0) {
		pmc_history_entries_free(es.v, es.n);
		return r;
	}
	if (es.n) /* an empty array may be NULL, which qsort may not get */
		qsort(es.v, es.n, sizeof(*es.v), cmp_entries);
	*ret = es.v;
	*ret_n = es.n;
	return 0;
}

void pmc_history_entries_free(struct pmc_history_entry *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		clear_entry(&v[i]);
	free(v);
}

/* ---- Points ---- */

struct points {
	struct pmc_history_point *v;
	size_t n;
	const struct pmc_history *h;
	char *err; /* the message of a damaged point */
	size_t errlen;
};

/* The end of a sample: a space before the next, or the end of the text. */
static bool sample_end(const char *s)
{
	return *s == ' ' || *s == '\0';
}

/* One sample of "v v null v" at *c, as strtod reads it: a whole number of up to 15
 * digits (a count, the most common sample) is exact as a double, and read without it.
 * pmcbench writes finite numbers only: "1e400", "nan" or "inf" are a store changed by
 * something else. */
int pmc_hist_parse_sample(const char **c, double *ret)
{
	const char *s = *c, *d = s + (*s == '-');
	size_t nd = strspn(d, "0123456789");
	char *end;
	double v;

	if (nd > 0 && nd <= 15 && sample_end(d + nd)) {
		long long w = 0;

		for (size_t i = 0; i < nd; i++)
			w = w * 10 + (d[i] - '0');
		/* -0 is a double of its own: strtod's. */
		*ret = *s == '-' ? (w ? -(double)w : -0.0) : (double)w;
		*c = d + nd;
		return 0;
	}
	if (strncmp(s, "null", 4) == 0 && sample_end(s + 4)) {
		*ret = NAN;
		*c = s + 4;
		return 0;
	}
	v = strtod(s, &end);
	/* A sample ends at a space: "1-2" is not two (nor "nullnull"), and strtod's leading
	 * whitespace is not a separator the writer writes. */
	if (end == s || isspace((unsigned char)*s) || !isfinite(v) || !sample_end(end))
		return -EINVAL;
	*ret = v;
	*c = end;
	return 0;
}

int pmc_hist_bad_point(const struct pmc_history *h, const char *entry, const char *bench,
		       const char *metric, const char *what, char *err, size_t errlen)
{
	char qb[PMC_QUOTE_SIZE(64)], qraw[PMC_QUOTE_SIZE(64)], qm[PMC_QUOTE_SIZE(64) + 16] = "";
	char qe[PMC_QUOTE_SIZE(12)], id[13];

	/* An entry is named by the first 12 digits of its id, as list shows it. */
	snprintf(id, sizeof(id), "%s", entry ? entry : "?");
	if (metric)
		snprintf(qm, sizeof(qm), ", metric '%s'", pmc_quote(qraw, sizeof(qraw), metric));
	pmc_err_set(err, errlen,
		    "%s: entry %s, benchmark '%s'%s: %s; the store was changed by something else "
		    "than pmcbench: move it away and add the results again",
		    h->display, pmc_quote(qe, sizeof(qe), id),
		    pmc_quote(qb, sizeof(qb), bench ? bench : "?"), qm, what);
	return -EBADMSG;
}

bool pmc_hist_count_is(const char *text, size_t n)
{
	char *end;
	unsigned long long v;

	if (!text || *text < '0' || *text > '9')
		return false;
	errno = 0;
	v = strtoull(text, &end, 10);
	return !*end && errno == 0 && v == n;
}

int pmc_hist_parse_samples(const char *text, double **ret, size_t *ret_n)
{
	size_t cap = 1;
	double *v;
	size_t n = 0;

	for (const char *c = text; *c; c++)
		cap += *c == ' ';
	v = malloc(cap * sizeof(double));
	if (!v)
		return -ENOMEM;
	for (const char *c = text + strspn(text, " "); *c && n < cap; c += strspn(c, " ")) {
		if (pmc_hist_parse_sample(&c, &v[n++]) < 0) {
			free(v);
			return -EINVAL;
		}
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

static int point_row(void *ud, const char *const *c, size_t ncols)
{
	struct points *ps = ud;
	struct pmc_history_point *p;
	bool failed = false;
	int r;

	if (pmc_grow(&ps->v, ps->n, sizeof(*ps->v)) < 0)
		return -ENOMEM;
	p = &ps->v[ps->n++];
	memset(p, 0, sizeof(*p));
	r = fill_entry(&p->e, c);
	c += NENTRY_COLS;
	p->benchmark = dup_or_null(c[0], &failed);
	p->metric = dup_or_null(c[1], &failed);
	p->unit = dup_or_null(c[2], &failed);
	p->better = c[3] ? atoi(c[3]) : 0;
	p->simulated = c[4] && atoi(c[4]) != 0;
	p->median = c[5] ? strtod(c[5], NULL) : NAN;
	if (r < 0 || failed)
		return -ENOMEM;
	r = pmc_hist_parse_samples(c[7] ? c[7] : "", &p->samples, &p->n);
	if (r == -EINVAL)
		return pmc_hist_bad_point(ps->h, p->e.id, p->benchmark, p->metric,
					  "its samples are not all finite numbers", ps->err,
					  ps->errlen);
	if (r == 0 && !pmc_hist_count_is(c[6], p->n))
		return pmc_hist_bad_point(ps->h, p->e.id, p->benchmark, p->metric,
					  "its count n is not the number of its samples", ps->err,
					  ps->errlen);
	return r;
}

static int cmp_points(const void *a, const void *b)
{
	const struct pmc_history_point *x = a, *y = b;
	int c = strcmp(x->benchmark, y->benchmark);

	if (!c)
		c = strcmp(x->metric, y->metric);
	if (!c)
		c = strcmp(x->e.fingerprint, y->e.fingerprint);
	return c ? c : cmp_entry(&x->e, &y->e);
}

bool pmc_history_same_series(const struct pmc_history_point *a, const struct pmc_history_point *b)
{
	return strcmp(a->benchmark, b->benchmark) == 0 && strcmp(a->metric, b->metric) == 0 &&
	       strcmp(a->e.fingerprint, b->e.fingerprint) == 0;
}

#define POINT_COLS                                                                                 \
	ENTRY_COLS                                                                                 \
	", p.benchmark, p.metric, p.unit, p.better, p.simulated, p.median, p.n, p.samples"

static int query_points(struct pmc_history *h, struct where *w, struct points *ps, char *err,
			size_t errlen)
{
	char sql[3072];
	int r;

	snprintf(sql, sizeof(sql),
		 "SELECT " POINT_COLS " FROM pmc_point p JOIN pmc_entry e ON e.id = p.entry%s",
		 w->sql);
	ps->h = h;
	ps->err = err;
	ps->errlen = errlen;
	r = h->eng->query(h->db, sql, w->p, w->n, point_row, ps, err, errlen);
	if (r == -ENOMEM)
		oom(err, errlen);
	return r;
}

int pmc_history_points(struct pmc_history *h, const struct pmc_history_filter *f,
		       struct pmc_history_point **ret, size_t *ret_n, char *err, size_t errlen)
{
	struct points ps = {NULL, 0, NULL, NULL, 0};
	struct where w;
	int r;

	r = build_where(h, f, true, &w, err, errlen);
	if (r == 0)
		r = query_points(h, &w, &ps, err, errlen);
	if (r == 0 && ps.n > 0)
		r = attach_tags(h, &w, true, &ps.v[0].e, ps.n, sizeof(*ps.v), err, errlen);
	if (r < 0) {
		pmc_history_points_free(ps.v, ps.n);
		return r;
	}
	if (ps.n) /* an empty array may be NULL, which qsort may not get */
		qsort(ps.v, ps.n, sizeof(*ps.v), cmp_points);
	*ret = ps.v;
	*ret_n = ps.n;
	return 0;
}

void pmc_history_points_free(struct pmc_history_point *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		clear_entry(&v[i].e);
		free(v[i].benchmark);
		free(v[i].metric);
		free(v[i].unit);
		free(v[i].samples);
	}
	free(v);
}

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
static int commit_time(struct pmc_history *h, const char *name, bool last, int64_t *ret, char *err,
		       size_t errlen)
{
	struct tbound b = {0, false};
	char like[64];
	const char *p[] = {name};
	size_t len = strlen(name);
	int r;

	if (!*name) {
		pmc_err_set(err, errlen,
			    "an empty commit selects nothing; give a commit, its "
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

/* The conditions of f on entry e; with names, its benchmark and metric too (an entry
 * selected when it has a point of them: since schema 3, found by the names' points of the
 * entry, a probe of pmc_point's key each), else those are left to the reader of the
 * series. */
static int build_where(struct pmc_history *h, const struct pmc_history_filter *f, bool names,
		       struct where *w, char *err, size_t errlen)
{
	int64_t since = f ? f->since : 0, until = f ? f->until : 0, t;
	bool v3 = h->schema >= 3;
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
	if (names && f->benchmark)
		ADD1(v3 ? "EXISTS (SELECT 1 FROM pmc_name s CROSS JOIN pmc_point q WHERE "
			  "s.benchmark = $? AND q.name = s.num AND q.entry = e.num)"
			: "EXISTS (SELECT 1 FROM pmc_point q WHERE q.entry = e.id AND "
			  "q.benchmark = $?)",
		     f->benchmark);
	if (names && f->metric)
		ADD1(v3 ? "EXISTS (SELECT 1 FROM pmc_name s CROSS JOIN pmc_point q WHERE "
			  "s.metric = $? AND q.name = s.num AND q.entry = e.num)"
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
	for (size_t i = 0; f && i < f->ntags && r == 0; i++) {
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
			      v3 ? "EXISTS (SELECT 1 FROM pmc_tag g WHERE g.entry = e.num AND "
				   "g.key = $? AND g.value = $?)"
				 : "EXISTS (SELECT 1 FROM pmc_tag g WHERE g.entry = e.id AND "
				   "g.key = $? AND g.value = $?)",
			      kv, 2);
	}
	if (r < 0)
		pmc_err_set(err, errlen, "too many conditions for one query");
	return r;
}

#define ENTRY_COLS                                                                                 \
	"e.id, e.t, e.added, e.commit_sha, e.branch, e.fingerprint, e.machine, e.kernel, e.cpu, "  \
	"e.compiler, e.backend, e.target_env, e.source"

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
	return failed || !e->id ? -ENOMEM : 0;
}

void pmc_hist_entry_clear(struct pmc_history_entry *e)
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

void pmc_hist_entries_free(struct pmc_hist_entries *es)
{
	pmc_history_entries_free(es->v, es->n);
	for (size_t i = 0; es->ref && i < es->n; i++)
		free(es->ref[i]);
	free(es->ref);
	free(es->by_ref);
	memset(es, 0, sizeof(*es));
}

static int entry_row(void *ud, const char *const *cols, size_t n)
{
	struct pmc_hist_entries *es = ud;
	int r;

	if (pmc_grow(&es->v, es->n, sizeof(*es->v)) < 0 ||
	    pmc_grow(&es->ref, es->n, sizeof(*es->ref)) < 0)
		return -ENOMEM;
	es->ref[es->n] = strdup(cols[0] ? cols[0] : "");
	r = fill_entry(&es->v[es->n], cols + 1);
	es->n++;
	return r == 0 && es->ref[es->n - 1] ? 0 : -ENOMEM;
}

static int cmp_entry(const struct pmc_history_entry *a, const struct pmc_history_entry *b)
{
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return strcmp(a->id, b->id);
}

static int cmp_ref(const void *a, const void *b, void *es)
{
	char **ref = ((struct pmc_hist_entries *)es)->ref;

	return strcmp(ref[*(const size_t *)a], ref[*(const size_t *)b]);
}

const struct pmc_history_entry *pmc_hist_entry_of(const struct pmc_hist_entries *es,
						  const char *ref)
{
	size_t lo = 0, hi = es->n;

	while (ref && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(es->ref[es->by_ref[mid]], ref);

		if (c == 0)
			return &es->v[es->by_ref[mid]];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* A tag row (entry, key, value) onto its entry's tags, "k=v,k=v". */
static int tag_row(void *ud, const char *const *cols, size_t n)
{
	struct pmc_history_entry *e = (struct pmc_history_entry *)pmc_hist_entry_of(ud, cols[0]);
	size_t old;
	char *grown;

	if (!e || !cols[1] || !cols[2])
		return 0;
	old = e->tags ? strlen(e->tags) : 0;
	grown = realloc(e->tags, old + strlen(cols[1]) + strlen(cols[2]) + 3);
	if (!grown)
		return -ENOMEM;
	e->tags = grown;
	sprintf(grown + old, "%s%s=%s", old ? "," : "", cols[1], cols[2]);
	return 0;
}

int pmc_hist_select_entries(struct pmc_history *h, const struct pmc_history_filter *f, bool names,
			    struct pmc_hist_entries *es, char *err, size_t errlen)
{
	const char *ref = h->schema >= 3 ? "e.num" : "e.id";
	struct where w;
	char sql[3072];
	int r;

	memset(es, 0, sizeof(*es));
	r = build_where(h, f, names, &w, err, errlen);
	if (r < 0)
		return r;
	snprintf(sql, sizeof(sql), "SELECT %s, " ENTRY_COLS " FROM pmc_entry e%s", ref, w.sql);
	r = h->eng->query(h->db, sql, w.p, w.n, entry_row, es, err, errlen);
	if (r == 0 && !(es->by_ref = malloc((es->n + 1) * sizeof(*es->by_ref))))
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < es->n; i++)
		es->by_ref[i] = i;
	if (r == 0 && es->n)
		qsort_r(es->by_ref, es->n, sizeof(*es->by_ref), cmp_ref, es);
	if (r == 0) {
		snprintf(sql, sizeof(sql),
			 "SELECT g.entry, g.key, g.value FROM pmc_tag g JOIN pmc_entry e ON %s = "
			 "g.entry%s ORDER BY g.entry, g.key",
			 ref, w.sql);
		r = h->eng->query(h->db, sql, w.p, w.n, tag_row, es, err, errlen);
	}
	for (size_t i = 0; r == 0 && i < es->n; i++)
		if (!es->v[i].tags && !(es->v[i].tags = strdup("")))
			r = -ENOMEM;
	if (r == -ENOMEM)
		oom(err, errlen);
	if (r < 0)
		pmc_hist_entries_free(es);
	return r;
}

static int cmp_entries(const void *a, const void *b)
{
	return cmp_entry(a, b);
}

int pmc_history_list(struct pmc_history *h, const struct pmc_history_filter *f,
		     struct pmc_history_entry **ret, size_t *ret_n, char *err, size_t errlen)
{
	struct pmc_hist_entries es;
	int r = pmc_hist_select_entries(h, f, true, &es, err, errlen);

	if (r < 0)
		return r;
	if (es.n) /* an empty array may be NULL, which qsort may not get */
		qsort(es.v, es.n, sizeof(*es.v), cmp_entries);
	*ret = es.v;
	*ret_n = es.n;
	es.v = NULL;
	pmc_hist_entries_free(&es);
	return 0;
}

void pmc_history_entries_free(struct pmc_history_entry *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		pmc_hist_entry_clear(&v[i]);
	free(v);
}

int pmc_hist_cmp_entry(const struct pmc_history_entry *a, const struct pmc_history_entry *b)
{
	return cmp_entry(a, b);
}

/* ---- Samples ---- */

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
	size_t nd = 0;
	long long w = 0;
	char *end;
	double v;

	/* The digits counted and summed in one pass (strspn's set costs more than them). */
	for (; nd < 16 && d[nd] >= '0' && d[nd] <= '9'; nd++)
		w = w * 10 + (d[nd] - '0');
	if (nd > 0 && nd <= 15 && sample_end(d + nd)) {
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

int pmc_hist_point_samples(const struct pmc_history *h, const char *samples, const char *median,
			   const char *ntext, const char *entry, const char *bench,
			   const char *metric, double **ret, size_t *ret_n, char *err,
			   size_t errlen)
{
	int r;

	if (!samples) {
		const char *c = median ? median : "null";

		if (!pmc_hist_count_is(ntext, 1))
			return pmc_hist_bad_point(h, entry, bench, metric,
						  "its count n is not the number of its samples",
						  err, errlen);
		if (!(*ret = malloc(sizeof(double))))
			return oom(err, errlen);
		if (pmc_hist_parse_sample(&c, *ret) < 0 || *c || (median && isnan(**ret))) {
			free(*ret);
			*ret = NULL;
			return pmc_hist_bad_point(h, entry, bench, metric,
						  "its samples are not all finite numbers", err,
						  errlen);
		}
		*ret_n = 1;
		return 0;
	}
	r = pmc_hist_parse_samples(samples, ret, ret_n);
	if (r == -ENOMEM)
		return oom(err, errlen);
	if (r == -EINVAL)
		return pmc_hist_bad_point(h, entry, bench, metric,
					  "its samples are not all finite numbers", err, errlen);
	if (!pmc_hist_count_is(ntext, *ret_n)) {
		free(*ret);
		*ret = NULL;
		return pmc_hist_bad_point(h, entry, bench, metric,
					  "its count n is not the number of its samples", err,
					  errlen);
	}
	return 0;
}

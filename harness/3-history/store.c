/* The history's one schema over either engine (history.h, docs/history.md): opening
 * and migrating, ingest, and the queries of list, show, export, changes and gate. */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "base/grow.h"
#include "base/hashmap.h"
#include "core/result.h"
#include "core/stats.h"
#include "history/engine.h"
#include "history/history.h"
#include "history/sha256.h"

struct pmc_history {
	const struct pmc_hist_engine *eng;
	struct pmc_hist_db *db;
	char *display;
	long schema; /* the store's version: an older one is read as it is */
};

/* The schema, one list of statements per version: migration k takes a store of version
 * k - 1 to version k, in one transaction. A version's statements never change once
 * released; a new version adds a list. */
static const char *const schema_v1[] = {
    "CREATE TABLE pmc_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    /* One result: id is the hash of its content (idempotent ingest), t when it was
     * measured, and the fingerprint of where (pmc_history_fingerprint). */
    "CREATE TABLE pmc_entry (id TEXT PRIMARY KEY, t BIGINT NOT NULL, added BIGINT NOT NULL, "
    "commit_sha TEXT, branch TEXT, fingerprint TEXT NOT NULL, machine TEXT, kernel TEXT, "
    "cpu TEXT, compiler TEXT, backend TEXT NOT NULL, target_env TEXT, tool_version TEXT, "
    "source TEXT)",
    "CREATE INDEX pmc_entry_fp ON pmc_entry (fingerprint, t)",
    /* The result's whole environment, and the user's tags. */
    "CREATE TABLE pmc_env (entry TEXT NOT NULL REFERENCES pmc_entry (id), key TEXT NOT NULL, "
    "value TEXT NOT NULL, PRIMARY KEY (entry, key))",
    "CREATE TABLE pmc_tag (entry TEXT NOT NULL REFERENCES pmc_entry (id), key TEXT NOT NULL, "
    "value TEXT NOT NULL, PRIMARY KEY (entry, key))",
    /* One metric of one benchmark in one result: every sample ("v v null v", each
     * double exact in 17 digits), and their median for the series. */
    "CREATE TABLE pmc_point (entry TEXT NOT NULL REFERENCES pmc_entry (id), "
    "benchmark TEXT NOT NULL, metric TEXT NOT NULL, unit TEXT NOT NULL, "
    "better INTEGER NOT NULL, simulated INTEGER NOT NULL, n INTEGER NOT NULL, "
    "median DOUBLE PRECISION, samples TEXT NOT NULL, PRIMARY KEY (entry, benchmark, metric))",
    "CREATE INDEX pmc_point_series ON pmc_point (benchmark, metric)",
    "INSERT INTO pmc_meta (key, value) VALUES ('schema', '1')",
    NULL,
};

/* The benchmarks of each entry with their runs (the most samples of a metric): a gate
 * reads them, and the points of the metrics it compares only. */
static const char *const schema_v2[] = {
    "CREATE TABLE pmc_bench (entry TEXT NOT NULL REFERENCES pmc_entry (id), "
    "benchmark TEXT NOT NULL, runs INTEGER NOT NULL, PRIMARY KEY (entry, benchmark))",
    "INSERT INTO pmc_bench (entry, benchmark, runs) SELECT entry, benchmark, max(n) FROM "
    "pmc_point GROUP BY entry, benchmark",
    /* An entry's points of one metric, without reading the others. */
    "CREATE INDEX pmc_point_metric ON pmc_point (entry, metric)",
    NULL,
};

static const char *const *const migrations[] = {schema_v1, schema_v2};

#define NMIGRATIONS (sizeof(migrations) / sizeof(migrations[0]))
_Static_assert(NMIGRATIONS == PMC_HISTORY_SCHEMA, "one migration per schema version");

static int oom(char *err, size_t errlen)
{
	pmc_err_set(err, errlen, "out of memory");
	return -ENOMEM;
}

static bool is_pg(const char *url)
{
	return strncmp(url, "postgresql://", 13) == 0 || strncmp(url, "postgres://", 11) == 0;
}

/* The URL as messages may show it: a password in the user part ("user:pw@") or in a
 * "password=" parameter becomes "***". */
static char *mask_url(const char *url)
{
	size_t len = strlen(url);
	char *out = malloc(len + 8), *o = out;
	const char *scheme = strstr(url, "://");
	const char *at, *colon, *p = url;

	if (!out)
		return NULL;
	if (scheme) {
		const char *host = scheme + 3;

		at = strchr(host, '@');
		colon = at ? memchr(host, ':', (size_t)(at - host)) : NULL;
		if (at && colon) {
			memcpy(o, url, (size_t)(colon + 1 - url));
			o += colon + 1 - url;
			o += sprintf(o, "***");
			p = at;
		}
	}
	while (*p) {
		if (strncmp(p, "password=", 9) == 0 && p > url && (p[-1] == '?' || p[-1] == '&')) {
			size_t used = (size_t)(o - out);
			char *grown = realloc(out, used + strlen(p) + 16);

			if (!grown) {
				free(out);
				return NULL;
			}
			out = grown;
			o = out + used;
			o += sprintf(o, "password=***");
			p += 9;
			p += strcspn(p, "&");
			continue;
		}
		*o++ = *p++;
	}
	*o = '\0';
	return out;
}

/* ---- Small query helpers ---- */

struct one_text {
	char *v;
	bool found;
};

static int one_text_row(void *ud, const char *const *cols, size_t n)
{
	struct one_text *t = ud;

	if (t->found)
		return 0;
	t->found = true;
	if (n > 0 && cols[0] && !(t->v = strdup(cols[0])))
		return -ENOMEM;
	return 0;
}

/* The first column of the first row of sql, or found false. */
static int query_text(struct pmc_history *h, const char *sql, const char *const *params, size_t n,
		      struct one_text *ret, char *err, size_t errlen)
{
	int r;

	memset(ret, 0, sizeof(*ret));
	r = h->eng->query(h->db, sql, params, n, one_text_row, ret, err, errlen);
	if (r == -ENOMEM)
		oom(err, errlen);
	if (r < 0) {
		free(ret->v);
		ret->v = NULL;
	}
	return r;
}

/* The store's schema version: 0 when it has none yet. */
static int schema_version(struct pmc_history *h, long *ret, char *err, size_t errlen)
{
	struct one_text t;
	bool has;
	char *end;
	int r;

	r = h->eng->has_table(h->db, "pmc_meta", &has, err, errlen);
	if (r < 0)
		return r;
	if (!has) {
		*ret = 0;
		return 0;
	}
	r = query_text(h, "SELECT value FROM pmc_meta WHERE key = 'schema'", NULL, 0, &t, err,
		       errlen);
	if (r < 0)
		return r;
	*ret = t.v ? strtol(t.v, &end, 10) : -1;
	if (!t.v || *end || *ret < 1) {
		pmc_err_set(err, errlen,
			    "%s: the table pmc_meta has no valid schema version; it is not a "
			    "pmcbench history (use another store)",
			    h->display);
		free(t.v);
		return -EINVAL;
	}
	free(t.v);
	return 0;
}

static int refuse_newer(struct pmc_history *h, long v, char *err, size_t errlen)
{
	pmc_err_set(err, errlen,
		    "%s: history schema %ld is newer than this pmcbench's (%d); use the pmcbench "
		    "that wrote it, or a newer one",
		    h->display, v, PMC_HISTORY_SCHEMA);
	return -EPROTONOSUPPORT;
}

/* A store without pmcbench's schema that holds tables is another program's, and is
 * refused. The tables may also be a writer's who just made the schema (its migration is
 * one transaction, pmc_meta included): the version is read again after the count, so the
 * store is another program's only if it still has no version. *v gets that version. */
static int refuse_foreign(struct pmc_history *h, long *v, char *err, size_t errlen)
{
	struct one_text t;
	bool tables;
	int r;

	if (!h->eng->count_tables_sql)
		return 0;
	r = query_text(h, h->eng->count_tables_sql, NULL, 0, &t, err, errlen);
	if (r < 0)
		return r;
	tables = t.v && strcmp(t.v, "0") != 0;
	if (tables) {
		r = schema_version(h, v, err, errlen);
		if (r == 0 && *v == 0) {
			pmc_err_set(err, errlen,
				    "%s: a database of another program (%s tables, none of "
				    "them pmcbench's); give the path of a pmcbench history or "
				    "of a new file",
				    h->display, t.v);
			r = -EINVAL;
		} else if (r == 0 && *v > PMC_HISTORY_SCHEMA)
			r = refuse_newer(h, *v, err, errlen);
	}
	free(t.v);
	return r;
}

/* Takes the store from its version to PMC_HISTORY_SCHEMA under the write lock, reading
 * the version again there: another process may have migrated it meanwhile. */
static int migrate(struct pmc_history *h, char *err, size_t errlen)
{
	long v;
	int r;

	r = h->eng->begin(h->db, true, err, errlen);
	if (r < 0)
		return r;
	r = schema_version(h, &v, err, errlen);
	if (r < 0)
		goto rollback;
	if (v > PMC_HISTORY_SCHEMA) {
		r = refuse_newer(h, v, err, errlen);
		goto rollback;
	}
	for (long k = v; k < PMC_HISTORY_SCHEMA; k++) {
		for (const char *const *s = migrations[k]; *s; s++) {
			r = h->eng->exec(h->db, *s, NULL, 0, NULL, err, errlen);
			if (r < 0)
				goto rollback;
		}
		if (k > 0) {
			char num[24];
			const char *p[] = {num};

			snprintf(num, sizeof(num), "%ld", k + 1);
			r = h->eng->exec(h->db,
					 "UPDATE pmc_meta SET value = $1 WHERE key = 'schema'", p,
					 1, NULL, err, errlen);
			if (r < 0)
				goto rollback;
		}
	}
	return h->eng->commit(h->db, err, errlen);
rollback:
	h->eng->rollback(h->db);
	return r;
}

int pmc_history_open(const char *url, unsigned flags, struct pmc_history **ret, char *err,
		     size_t errlen)
{
	struct pmc_history *h = calloc(1, sizeof(*h));
	bool write = flags & PMC_HISTORY_WRITE;
	long v;
	int r;

	if (!h)
		return oom(err, errlen);
	if (!url || !*url) {
		pmc_err_set(err, errlen,
			    "the history's location is empty; give a file or a "
			    "postgresql:// URL");
		r = -EINVAL;
		goto close;
	}
	h->display = mask_url(url);
	if (!h->display) {
		r = oom(err, errlen);
		goto close;
	}
	if (is_pg(url)) {
		h->eng = &pmc_hist_pg;
		r = pmc_hist_pg_open(url, h->display, &h->db, err, errlen);
	} else {
		const char *path = strncmp(url, "sqlite:", 7) == 0 ? url + 7 : url;

		h->eng = &pmc_hist_sqlite;
		r = pmc_hist_sqlite_open(path, write, h->display, &h->db, err, errlen);
	}
	if (r < 0)
		goto close;
	r = schema_version(h, &v, err, errlen);
	if (r < 0)
		goto close;
	if (v > PMC_HISTORY_SCHEMA) {
		r = refuse_newer(h, v, err, errlen);
		goto close;
	}
	if (v == 0) {
		r = refuse_foreign(h, &v, err, errlen);
		if (r < 0)
			goto close;
	}
	if (v == 0 && !write) {
		pmc_err_set(err, errlen, "%s: no history there; 'pmcbench history add' makes one",
			    h->display);
		r = -ENOENT;
		goto close;
	}
	/* Reading leaves an older store as it is, and reads it as it is. */
	h->schema = v;
	if (v < PMC_HISTORY_SCHEMA && write) {
		r = migrate(h, err, errlen);
		if (r < 0)
			goto close;
		h->schema = PMC_HISTORY_SCHEMA;
	}
	*ret = h;
	return 0;
close:
	pmc_history_close(h);
	return r;
}

void pmc_history_close(struct pmc_history *h)
{
	if (!h)
		return;
	if (h->db)
		h->eng->close(h->db);
	free(h->display);
	free(h);
}

const char *pmc_history_engine(const struct pmc_history *h)
{
	return h->eng->name;
}

const char *pmc_history_display(const struct pmc_history *h)
{
	return h->display;
}

/* ---- Identity ---- */

static const char *env_of(const struct pmc_result *r, const char *key)
{
	for (size_t i = 0; i < r->nenv; i++)
		if (strcmp(r->env[i].key, key) == 0)
			return r->env[i].value;
	return NULL;
}

static void fp_fields(const struct pmc_result *r, const struct pmc_history_meta *meta,
		      struct pmc_history_fp *fp)
{
	const char *compiler = meta ? meta->compiler : NULL;

	fp->machine = meta && meta->machine ? meta->machine : env_of(r, "hostname");
	fp->kernel = env_of(r, "kernel");
	fp->cpu = env_of(r, "cpu-model");
	fp->compiler = env_of(r, "compiler");
	if (!fp->compiler)
		fp->compiler = compiler;
	fp->backend = r->backend;
	fp->target_env = env_of(r, "target-env");
}

static void hash_str(struct pmc_sha256 *s, const char *v)
{
	/* A missing value differs from every string: NUL-terminated text, or one 0xff. */
	if (v)
		pmc_sha256_update(s, v, strlen(v) + 1);
	else
		pmc_sha256_update(s, "\xff", 1);
}

void pmc_history_fingerprint(const struct pmc_result *r, const struct pmc_history_meta *meta,
			     char fp[17])
{
	struct pmc_history_fp f;
	struct pmc_sha256 s;
	char hex[65];

	fp_fields(r, meta, &f);
	pmc_sha256_init(&s);
	hash_str(&s, f.machine);
	hash_str(&s, f.kernel);
	hash_str(&s, f.cpu);
	hash_str(&s, f.compiler);
	hash_str(&s, f.backend);
	hash_str(&s, f.target_env);
	pmc_sha256_hex(&s, hex);
	memcpy(fp, hex, 16);
	fp[16] = '\0';
}

static int cmp_env(const void *a, const void *b)
{
	return strcmp((*(const struct pmc_env_entry *const *)a)->key,
		      (*(const struct pmc_env_entry *const *)b)->key);
}

static void hash_num(struct pmc_sha256 *s, double v)
{
	char buf[40];

	if (isnan(v))
		hash_str(s, NULL);
	else {
		snprintf(buf, sizeof(buf), "%.17g", v);
		hash_str(s, buf);
	}
}

int pmc_history_result_id(const struct pmc_result *r, char id[65])
{
	const struct pmc_env_entry **env = malloc((r->nenv + 1) * sizeof(*env));
	struct pmc_sha256 s;

	if (!env)
		return -ENOMEM;
	/* The content, as the codec would not reorder it: environment keys sorted. */
	pmc_sha256_init(&s);
	hash_str(&s, "pmcbench-history-entry/1");
	hash_str(&s, r->backend);
	hash_str(&s, r->tool_version);
	hash_str(&s, r->created);
	for (size_t i = 0; i < r->nenv; i++)
		env[i] = &r->env[i];
	if (r->nenv) /* an empty array may be NULL, which qsort may not get */
		qsort(env, r->nenv, sizeof(*env), cmp_env);
	for (size_t i = 0; i < r->nenv; i++) {
		hash_str(&s, env[i]->key);
		hash_str(&s, env[i]->value);
	}
	free(env);
	for (size_t i = 0; i < r->nbench; i++) {
		const struct pmc_benchmark *b = &r->benchmarks[i];

		hash_str(&s, "benchmark");
		hash_str(&s, b->name);
		hash_str(&s, b->command);
		hash_str(&s, b->skipped);
		for (size_t j = 0; j < b->nmetrics; j++) {
			const struct pmc_metric *m = &b->metrics[j];

			hash_str(&s, m->id);
			hash_str(&s, m->unit);
			for (size_t k = 0; k < m->n; k++)
				hash_num(&s, m->values[k]);
		}
	}
	pmc_sha256_hex(&s, id);
	return 0;
}

/* ---- Ingest ---- */

/* "2024-05-02T09:14:03Z" in unix seconds; -1 when it is not that form. */
static int64_t parse_time(const char *s)
{
	struct tm tm;
	const char *end;

	if (!s)
		return -1;
	memset(&tm, 0, sizeof(tm));
	end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!end)
		return -1;
	if (*end == '.')
		end += 1 + strspn(end + 1, "0123456789");
	if (strcmp(end, "Z") != 0 && *end)
		return -1;
	return (int64_t)timegm(&tm);
}

/* The median of m's measured samples (NAN when none) and its samples as text. */
static int point_text(const struct pmc_metric *m, double *ret_median, char **ret_text)
{
	double *v = malloc((m->n + 1) * sizeof(double));
	size_t nv = 0, len = 0;
	char *text = malloc(m->n * 26 + 1);

	if (!v || !text) {
		free(v);
		free(text);
		return -ENOMEM;
	}
	text[0] = '\0';
	for (size_t i = 0; i < m->n; i++) {
		if (isnan(m->values[i]))
			len += (size_t)sprintf(text + len, "%snull", i ? " " : "");
		else {
			v[nv++] = m->values[i];
			len += (size_t)sprintf(text + len, "%s%.17g", i ? " " : "", m->values[i]);
		}
	}
	pmc_stats_sort(v, nv);
	*ret_median = nv == 0 ? NAN : nv % 2 ? v[nv / 2] : (v[nv / 2 - 1] + v[nv / 2]) / 2;
	free(v);
	*ret_text = text;
	return 0;
}

/* Points go in BATCH rows per statement: a statement is a round trip to a server, and
 * a result of 10,000 benchmarks holds 100,000 points (9 parameters a row, far below
 * either engine's limit). */
#define BATCH 100
#define POINT_PARAMS 9

struct batch {
	size_t n;
	const char *p[BATCH * POINT_PARAMS];
	char num[BATCH][3][40]; /* better, n, median */
	char *samples[BATCH];
};

static void batch_clear(struct batch *bt)
{
	for (size_t i = 0; i < bt->n; i++)
		free(bt->samples[i]);
	bt->n = 0;
}

/* Inserts nrows rows of ncols parameters each (p) in one statement: head, then the
 * VALUES. The statements of full batches have one text, so that SQLite's prepared
 * statement is reused. */
static int insert_rows(struct pmc_history *h, const char *head, size_t ncols, const char *const *p,
		       size_t nrows, char *err, size_t errlen)
{
	char *sql = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	if (nrows == 0)
		return 0;
	f = open_memstream(&sql, &len);
	if (!f)
		return oom(err, errlen);
	fprintf(f, "%s VALUES ", head);
	for (size_t i = 0; i < nrows; i++) {
		fprintf(f, "%s(", i ? ", " : "");
		for (size_t k = 0; k < ncols; k++)
			fprintf(f, "%s$%zu", k ? ", " : "", i * ncols + k + 1);
		fputc(')', f);
	}
	if (fclose(f) != 0) {
		free(sql);
		return oom(err, errlen);
	}
	r = h->eng->exec(h->db, sql, p, nrows * ncols, NULL, err, errlen);
	free(sql);
	return r;
}

/* Inserts the rows of bt: one statement of bt->n rows. */
static int batch_flush(struct pmc_history *h, struct batch *bt, char *err, size_t errlen)
{
	int r = insert_rows(h,
			    "INSERT INTO pmc_point (entry, benchmark, metric, unit, better, "
			    "simulated, n, median, samples)",
			    POINT_PARAMS, bt->p, bt->n, err, errlen);

	batch_clear(bt);
	return r;
}

/* The benchmarks of res with a metric, and their runs (the most samples of one), BATCH
 * rows a statement. */
static int add_benches(struct pmc_history *h, const struct pmc_result *res, const char *id,
		       char *err, size_t errlen)
{
	struct {
		const char *p[BATCH * 3];
		char runs[BATCH][24];
	} *bt = calloc(1, sizeof(*bt));
	size_t n = 0;
	int r = 0;

	if (!bt)
		return oom(err, errlen);
	for (size_t i = 0; i < res->nbench && r == 0; i++) {
		const struct pmc_benchmark *b = &res->benchmarks[i];
		size_t runs = 0;

		if (b->nmetrics == 0)
			continue;
		for (size_t j = 0; j < b->nmetrics; j++)
			if (b->metrics[j].n > runs)
				runs = b->metrics[j].n;
		snprintf(bt->runs[n], sizeof(bt->runs[n]), "%zu", runs);
		bt->p[n * 3] = id;
		bt->p[n * 3 + 1] = b->name;
		bt->p[n * 3 + 2] = bt->runs[n];
		if (++n == BATCH) {
			r = insert_rows(h, "INSERT INTO pmc_bench (entry, benchmark, runs)", 3,
					bt->p, n, err, errlen);
			n = 0;
		}
	}
	if (r == 0)
		r = insert_rows(h, "INSERT INTO pmc_bench (entry, benchmark, runs)", 3, bt->p, n,
				err, errlen);
	free(bt);
	return r;
}

/* A point of the result: its metric's rank (by first appearance), benchmark and metric. */
struct point_at {
	size_t rank, b, j;
};

static int cmp_point_at(const void *a, const void *b)
{
	const struct point_at *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	return x->j < y->j ? -1 : x->j > y->j;
}

/* res's points in the order they are inserted: metric by metric, each metric's
 * benchmarks in the result's order. The rows of a store lie in that order, so that one
 * metric's points of an entry, which a gate reads, share a few pages. */
static int points_in_order(const struct pmc_result *res, struct point_at **ret, size_t *ret_n)
{
	struct pmc_hashmap ids = {0};
	struct point_at *v;
	size_t n = 0;
	int r;

	for (size_t i = 0; i < res->nbench; i++)
		n += res->benchmarks[i].nmetrics;
	v = malloc((n + 1) * sizeof(*v));
	r = v ? pmc_hashmap_init(&ids, 16) : -ENOMEM;
	n = 0;
	for (size_t i = 0; r >= 0 && i < res->nbench; i++)
		for (size_t j = 0; r >= 0 && j < res->benchmarks[i].nmetrics; j++) {
			r = pmc_hashmap_get_or_put(&ids, res->benchmarks[i].metrics[j].id, ids.n,
						   &v[n].rank);
			v[n].b = i;
			v[n++].j = j;
		}
	pmc_hashmap_free(&ids);
	if (r < 0) {
		free(v);
		return r;
	}
	qsort(v, n, sizeof(*v), cmp_point_at);
	*ret = v;
	*ret_n = n;
	return 0;
}

static int add_points(struct pmc_history *h, const struct pmc_result *res, const char *id,
		      char *err, size_t errlen)
{
	struct batch *bt = calloc(1, sizeof(*bt));
	struct point_at *at = NULL;
	size_t n = 0;
	int r = 0;

	if (!bt || points_in_order(res, &at, &n) < 0) {
		free(bt);
		return oom(err, errlen);
	}
	for (size_t i = 0; i < n && r == 0; i++) {
		const struct pmc_benchmark *b = &res->benchmarks[at[i].b];
		const struct pmc_metric *m = &b->metrics[at[i].j];
		const char **p = bt->p + bt->n * POINT_PARAMS;
		char(*num)[40] = bt->num[bt->n];
		double med;

		if (point_text(m, &med, &bt->samples[bt->n]) < 0) {
			r = oom(err, errlen);
			break;
		}
		snprintf(num[0], sizeof(num[0]), "%d", m->better);
		snprintf(num[1], sizeof(num[1]), "%zu", m->n);
		snprintf(num[2], sizeof(num[2]), "%.17g", med);
		p[0] = id;
		p[1] = b->name;
		p[2] = m->id;
		p[3] = m->unit ? m->unit : "";
		p[4] = num[0];
		p[5] = m->simulated ? "1" : "0";
		p[6] = num[1];
		p[7] = isnan(med) ? NULL : num[2];
		p[8] = bt->samples[bt->n];
		if (++bt->n == BATCH)
			r = batch_flush(h, bt, err, errlen);
	}
	if (r == 0)
		r = batch_flush(h, bt, err, errlen);
	batch_clear(bt);
	free(bt);
	free(at);
	return r;
}

static int add_pairs(struct pmc_history *h, const char *sql, const char *id,
		     const struct pmc_env_entry *env, size_t n, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		const char *p[] = {id, env[i].key, env[i].value};
		int r = h->eng->exec(h->db, sql, p, 3, NULL, err, errlen);

		if (r < 0)
			return r;
	}
	return 0;
}

/* The tags "k=v" as pairs; a tag without '=' or with an empty key is -EINVAL. */
static int parse_tags(const char *const *tags, size_t n, struct pmc_env_entry **ret, char *err,
		      size_t errlen)
{
	struct pmc_env_entry *v = calloc(n + 1, sizeof(*v));

	if (!v)
		return oom(err, errlen);
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(tags[i], '=');

		if (!eq || eq == tags[i]) {
			pmc_err_set(err, errlen, "tag '%s' is not KEY=VALUE", tags[i]);
			for (size_t j = 0; j < i; j++)
				free(v[j].key);
			free(v);
			return -EINVAL;
		}
		v[i].key = strndup(tags[i], (size_t)(eq - tags[i]));
		v[i].value = (char *)eq + 1;
		if (!v[i].key) {
			for (size_t j = 0; j < i; j++)
				free(v[j].key);
			free(v);
			return oom(err, errlen);
		}
		for (size_t j = 0; j < i; j++)
			if (strcmp(v[j].key, v[i].key) == 0) {
				pmc_err_set(err, errlen,
					    "tag '%s' is given twice; give each key once",
					    v[i].key);
				for (size_t k = 0; k <= i; k++)
					free(v[k].key);
				free(v);
				return -EINVAL;
			}
	}
	*ret = v;
	return 0;
}

int pmc_history_add(struct pmc_history *h, const struct pmc_result *r,
		    const struct pmc_history_meta *meta, bool *ret_added, char ret_id[65],
		    char *err, size_t errlen)
{
	static const struct pmc_history_meta none = {0};
	struct pmc_env_entry *tags = NULL;
	struct pmc_history_fp f;
	char id[65], fp[17], t[24], added[24];
	int64_t now, when;
	long changes = 0;
	int rc;

	if (!meta)
		meta = &none;
	if (pmc_history_result_id(r, id) < 0)
		return oom(err, errlen);
	rc = parse_tags(meta->tags, meta->ntags, &tags, err, errlen);
	if (rc < 0)
		return rc;
	pmc_history_fingerprint(r, meta, fp);
	fp_fields(r, meta, &f);
	now = meta->now ? meta->now : (int64_t)time(NULL);
	when = parse_time(r->created);
	snprintf(t, sizeof(t), "%lld", (long long)(when >= 0 ? when : now));
	snprintf(added, sizeof(added), "%lld", (long long)now);

	rc = h->eng->begin(h->db, false, err, errlen);
	if (rc < 0)
		goto free_tags;
	{
		const char *p[] = {id,
				   t,
				   added,
				   meta->commit,
				   meta->branch,
				   fp,
				   f.machine,
				   f.kernel,
				   f.cpu,
				   f.compiler,
				   f.backend,
				   f.target_env,
				   r->tool_version,
				   meta->source};

		rc = h->eng->exec(
		    h->db,
		    "INSERT INTO pmc_entry (id, t, added, commit_sha, branch, "
		    "fingerprint, machine, kernel, cpu, compiler, backend, target_env, "
		    "tool_version, source) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, "
		    "$10, $11, $12, $13, $14) ON CONFLICT (id) DO NOTHING",
		    p, 14, &changes, err, errlen);
	}
	if (rc < 0)
		goto rollback;
	if (changes == 0) {
		/* The same content is there already: one entry, nothing written. */
		h->eng->rollback(h->db);
		goto done;
	}
	rc = add_pairs(h, "INSERT INTO pmc_env (entry, key, value) VALUES ($1, $2, $3)", id, r->env,
		       r->nenv, err, errlen);
	if (rc == 0)
		rc = add_pairs(h, "INSERT INTO pmc_tag (entry, key, value) VALUES ($1, $2, $3)", id,
			       tags, meta->ntags, err, errlen);
	if (rc == 0)
		rc = add_points(h, r, id, err, errlen);
	if (rc == 0)
		rc = add_benches(h, r, id, err, errlen);
	if (rc == 0)
		rc = h->eng->commit(h->db, err, errlen);
	if (rc < 0)
		goto rollback;
done:
	*ret_added = changes > 0;
	if (ret_id)
		memcpy(ret_id, id, 65);
	goto free_tags;
rollback:
	h->eng->rollback(h->db);
free_tags:
	for (size_t i = 0; tags && i < meta->ntags; i++)
		free(tags[i].key);
	free(tags);
	return rc;
}

/* ---- Queries ---- */

/* The parameters of one query: its conditions, or the metrics a gate reads. */
#define MAX_PARAMS 128

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

/* The time of the first (or last) measurement of a commit given by a prefix. */
static int commit_time(struct pmc_history *h, const char *prefix, bool last, int64_t *ret,
		       char *err, size_t errlen)
{
	struct tbound b = {0, false};
	char like[64];
	const char *p[] = {like};
	int r;

	if (strlen(prefix) > 40 || strspn(prefix, "0123456789abcdefABCDEF") != strlen(prefix) ||
	    !*prefix) {
		pmc_err_set(err, errlen, "'%s' is not a commit (hex digits, at most 40)", prefix);
		return -EINVAL;
	}
	snprintf(like, sizeof(like), "%s%%", prefix);
	r = h->eng->query(h->db,
			  last ? "SELECT max(t) FROM pmc_entry WHERE commit_sha LIKE $1"
			       : "SELECT min(t) FROM pmc_entry WHERE commit_sha LIKE $1",
			  p, 1, tbound_row, &b, err, errlen);
	if (r < 0)
		return r;
	if (!b.found) {
		pmc_err_set(err, errlen,
			    "%s: no entry measured commit %s; 'pmcbench history list' "
			    "shows the commits there",
			    h->display, prefix);
		return -ENOENT;
	}
	*ret = b.t;
	return 0;
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
};

/* One sample of "v v null v" at *c, as strtod reads it: a whole number of up to 15
 * digits (a count, the most common sample) is exact as a double, and read without it. */
static int parse_sample(const char **c, double *ret)
{
	const char *s = *c, *d = s + (*s == '-');
	size_t nd = strspn(d, "0123456789");
	char *end;

	if (nd > 0 && nd <= 15 && (d[nd] == ' ' || d[nd] == '\0')) {
		long long v = 0;

		for (size_t i = 0; i < nd; i++)
			v = v * 10 + (d[i] - '0');
		/* -0 is a double of its own: strtod's. */
		*ret = *s == '-' ? (v ? -(double)v : -0.0) : (double)v;
		*c = d + nd;
		return 0;
	}
	if (strncmp(s, "null", 4) == 0) {
		*ret = NAN;
		*c = s + 4;
		return 0;
	}
	*ret = strtod(s, &end);
	if (end == s)
		return -EINVAL;
	*c = end;
	return 0;
}

/* "v v null v" as n doubles, each read as parse_sample reads it. */
static int parse_samples(const char *text, double **ret, size_t *ret_n)
{
	size_t cap = 1;
	double *v;
	size_t n = 0;

	for (const char *c = text; *c; c++)
		cap += *c == ' ';
	v = malloc(cap * sizeof(double));
	if (!v)
		return -ENOMEM;
	for (const char *c = text; *c && n < cap; c += strspn(c, " ")) {
		if (parse_sample(&c, &v[n++]) < 0) {
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
	r = parse_samples(c[7] ? c[7] : "", &p->samples, &p->n);
	return r == -EINVAL ? -EBADMSG : r;
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
	r = h->eng->query(h->db, sql, w->p, w->n, point_row, ps, err, errlen);
	if (r == -ENOMEM)
		oom(err, errlen);
	else if (r == -EBADMSG)
		pmc_err_set(err, errlen,
			    "%s: a point's samples are not numbers; the store was "
			    "changed by something else than pmcbench",
			    h->display);
	return r;
}

int pmc_history_points(struct pmc_history *h, const struct pmc_history_filter *f,
		       struct pmc_history_point **ret, size_t *ret_n, char *err, size_t errlen)
{
	struct points ps = {NULL, 0};
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

/* ---- The baseline of a gate ---- */

struct ids {
	char **v;
	size_t n;
};

static int id_row(void *ud, const char *const *cols, size_t n)
{
	struct ids *ids = ud;

	if (pmc_grow(&ids->v, ids->n, sizeof(*ids->v)) < 0)
		return -ENOMEM;
	ids->v[ids->n] = strdup(cols[0]);
	return ids->v[ids->n++] ? 0 : -ENOMEM;
}

static void ids_free(struct ids *ids)
{
	for (size_t i = 0; i < ids->n; i++)
		free(ids->v[i]);
	free(ids->v);
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
	struct bbench *b;
	size_t nb, capb;
	struct bpoint *p;
	size_t np, capp;
	char *text;
	size_t ntext, captext;
	double *vals;
	size_t nvals, capvals;
	bool bad; /* samples that are not numbers */
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
	b->runs = c[1] ? strtoull(c[1], NULL, 10) : 0;
	if (put_text(be, c[0], &b->name) < 0)
		return -ENOMEM;
	be->nb++;
	return 0;
}

static int bpoint_row(void *ud, const char *const *c, size_t ncols)
{
	struct bentry *be = ud;
	struct bpoint *p;
	bool want = !be->metrics;

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
	for (const char *s = c[5] ? c[5] : ""; *s;) {
		if (pmc_grow_to(&be->vals, &be->capvals, be->nvals + 1, sizeof(*be->vals)) < 0)
			return -ENOMEM;
		if (parse_sample(&s, &be->vals[be->nvals]) < 0)
			return -EBADMSG;
		be->nvals++;
		p->n++;
		s += strspn(s, " ");
	}
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

/* Reads entry id into be: its benchmarks (the store's pmc_bench since schema 2, else
 * found from its points) and the points of the metrics read, both sorted by name. */
static int read_entry(struct pmc_history *h, struct bentry *be, const char *id, bool literal,
		      char *err, size_t errlen)
{
	const char *p[MAX_PARAMS] = {id};
	char sql[2048];
	size_t np = 1, len;
	int r;

	bentry_clear(be);
	r = h->eng->query(h->db,
			  h->schema >= 2
			      ? "SELECT benchmark, runs FROM pmc_bench WHERE entry = $1"
			      : "SELECT benchmark, max(n) FROM pmc_point WHERE entry = $1 GROUP BY "
				"benchmark",
			  p, 1, bench_row, be, err, errlen);
	if (r < 0)
		return r;
	len = (size_t)snprintf(sql, sizeof(sql),
			       "SELECT benchmark, metric, unit, better, simulated, samples FROM "
			       "pmc_point WHERE entry = $1");
	/* Plain names are asked of the store, so that it reads no other row; patterns are
	 * matched here, as the comparison matches them. */
	if (literal) {
		len += (size_t)snprintf(sql + len, sizeof(sql) - len, " AND metric IN (");
		for (size_t i = 0; i < be->nmetrics; i++) {
			len += (size_t)snprintf(sql + len, sizeof(sql) - len, "%s$%zu",
						i ? ", " : "", np + 1);
			p[np++] = be->metrics[i];
		}
		snprintf(sql + len, sizeof(sql) - len, ")");
	}
	r = h->eng->query(h->db, sql, p, np, bpoint_row, be, err, errlen);
	if (r < 0)
		return r;
	sort_once(be->b, be->nb, sizeof(*be->b), cmp_bbench, be->text);
	sort_once(be->p, be->np, sizeof(*be->p), cmp_bpoint, be->text);
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
			struct pmc_run_info info = {.process = process};

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
				matched[k] = matched[k] || fnmatch(be->metrics[k], id, 0) == 0;
		}
		for (size_t k = 0; k < b->nmetrics; k++)
			if ((rc = pad(&b->metrics[k], b->nruns)) < 0)
				return rc;
	}
	return 0;
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
	bool *matched = NULL, literal = be->metrics && be->nmetrics < MAX_PARAMS;
	size_t ne = 0;
	int rc;

	for (size_t i = 0; literal && i < be->nmetrics; i++)
		literal = !strpbrk(be->metrics[i], "*?[\\");
	if (be->metrics && !(matched = calloc(be->nmetrics + 1, sizeof(*matched))))
		return oom(err, errlen);
	rc = pmc_result_new(r->backend, &base);
	for (size_t i = 0; rc == 0 && i < r->nenv; i++)
		rc = pmc_result_set_env(base, r->env[i].key, r->env[i].value);
	if (rc < 0) {
		oom(err, errlen);
		goto fail;
	}
	/* Entry by entry, oldest first (the ids come newest first, by (t, id) as the
	 * entries sort everywhere): each is one process of the baseline. */
	for (size_t e = ids->n; e-- > 0;) {
		rc = read_entry(h, be, ids->v[e], literal, err, errlen);
		if (rc == -ENOMEM || rc == -EBADMSG) {
			if (rc == -ENOMEM)
				oom(err, errlen);
			else
				pmc_err_set(err, errlen,
					    "%s: a point's samples are not numbers; the store was "
					    "changed by something else than pmcbench",
					    h->display);
		}
		if (rc < 0)
			goto fail;
		if (be->nb == 0)
			continue; /* an entry without a point: no process */
		rc = baseline_entry(base, r, be, (unsigned)++ne, matched);
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
	free(matched);
	pmc_result_free(base);
	return rc;
}

int pmc_history_baseline(struct pmc_history *h, const struct pmc_result *r,
			 const struct pmc_history_meta *meta, const char *branch, size_t k,
			 const char *const *metrics, size_t nmetrics, struct pmc_result **ret,
			 size_t *ret_n, char *err, size_t errlen)
{
	struct ids ids = {NULL, 0};
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
	{
		const char *p[] = {fp, id, lim, branch};

		rc = h->eng->query(
		    h->db,
		    branch ? "SELECT id FROM pmc_entry WHERE fingerprint = $1 AND id <> "
			     "$2 AND branch = $4 ORDER BY t DESC, id DESC LIMIT "
			     "CAST($3 AS BIGINT)"
			   : "SELECT id FROM pmc_entry WHERE fingerprint = $1 AND id <> "
			     "$2 ORDER BY t DESC, id DESC LIMIT CAST($3 AS BIGINT)",
		    p, branch ? 4 : 3, id_row, &ids, err, errlen);
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
	if (rc == 0)
		*ret = base;
	bentry_free(&be);
	ids_free(&ids);
	return rc;
}

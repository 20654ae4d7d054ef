/* The history's store (history.h, docs/history.md): the schema, one list of statements
 * per version, opening a store over either engine and migrating it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "history/engine.h"
#include "history/history.h"
#include "history/store_priv.h"

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

/* The layout that scales (docs/history.md, "Schema and migrations"): an entry is keyed by
 * a number the store assigns (@ID@: the engine's column of one), its 64-hex key stored
 * once; a point names its series by the number of its (benchmark, metric, unit, better,
 * simulated) in pmc_name, and the points lie by series (@CLUSTER@: SQLite's WITHOUT
 * ROWID keeps the table in the order of its key), so that reading a series reads a run
 * of pages; a one-sample point keeps its sample as its median, samples NULL. An entry's
 * points are found by its key too, a probe per name (no index repeats the table: in a
 * PostgreSQL heap it would cost 30 bytes a point); the number of a name or an entry in a
 * point is an INTEGER (4 bytes in PostgreSQL: two billion of each). Every table
 * that names an entry is made again with its number, the rows copied, the old dropped. */
static const char *const schema_v3[] = {
    "CREATE TABLE pmc_entry_v3 (num @ID@, id TEXT NOT NULL UNIQUE, t BIGINT NOT NULL, "
    "added BIGINT NOT NULL, commit_sha TEXT, branch TEXT, fingerprint TEXT NOT NULL, "
    "machine TEXT, kernel TEXT, cpu TEXT, compiler TEXT, backend TEXT NOT NULL, "
    "target_env TEXT, tool_version TEXT, source TEXT)",
    "INSERT INTO pmc_entry_v3 (id, t, added, commit_sha, branch, fingerprint, machine, kernel, "
    "cpu, compiler, backend, target_env, tool_version, source) SELECT id, t, added, "
    "commit_sha, branch, fingerprint, machine, kernel, cpu, compiler, backend, target_env, "
    "tool_version, source FROM pmc_entry ORDER BY t, id",
    "CREATE TABLE pmc_name (num @ID@, benchmark TEXT NOT NULL, metric TEXT NOT NULL, "
    "unit TEXT NOT NULL, better INTEGER NOT NULL, simulated INTEGER NOT NULL, "
    "UNIQUE (benchmark, metric, unit, better, simulated))",
    "INSERT INTO pmc_name (benchmark, metric, unit, better, simulated) SELECT DISTINCT "
    "benchmark, metric, unit, better, simulated FROM pmc_point ORDER BY benchmark, metric, "
    "unit, better, simulated",
    "CREATE TABLE pmc_point_v3 (name INTEGER NOT NULL REFERENCES pmc_name (num), "
    "entry INTEGER NOT NULL REFERENCES pmc_entry_v3 (num), n INTEGER NOT NULL, "
    "median DOUBLE PRECISION, samples TEXT, PRIMARY KEY (name, entry))@CLUSTER@",
    "INSERT INTO pmc_point_v3 (name, entry, n, median, samples) SELECT s.num, e.num, p.n, "
    "p.median, p.samples FROM pmc_point p JOIN pmc_entry_v3 e ON e.id = p.entry JOIN pmc_name "
    "s ON s.benchmark = p.benchmark AND s.metric = p.metric AND s.unit = p.unit AND s.better "
    "= p.better AND s.simulated = p.simulated ORDER BY s.num, e.num",
    "CREATE TABLE pmc_bench_v3 (entry BIGINT NOT NULL REFERENCES pmc_entry_v3 (num), "
    "benchmark TEXT NOT NULL, runs INTEGER NOT NULL, PRIMARY KEY (entry, benchmark))",
    "INSERT INTO pmc_bench_v3 (entry, benchmark, runs) SELECT e.num, b.benchmark, b.runs FROM "
    "pmc_bench b JOIN pmc_entry_v3 e ON e.id = b.entry",
    "CREATE TABLE pmc_env_v3 (entry BIGINT NOT NULL REFERENCES pmc_entry_v3 (num), "
    "key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (entry, key))",
    "INSERT INTO pmc_env_v3 (entry, key, value) SELECT e.num, g.key, g.value FROM pmc_env g "
    "JOIN pmc_entry_v3 e ON e.id = g.entry",
    "CREATE TABLE pmc_tag_v3 (entry BIGINT NOT NULL REFERENCES pmc_entry_v3 (num), "
    "key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (entry, key))",
    "INSERT INTO pmc_tag_v3 (entry, key, value) SELECT e.num, g.key, g.value FROM pmc_tag g "
    "JOIN pmc_entry_v3 e ON e.id = g.entry",
    "DROP TABLE pmc_point",
    "DROP TABLE pmc_bench",
    "DROP TABLE pmc_env",
    "DROP TABLE pmc_tag",
    "DROP TABLE pmc_entry",
    "ALTER TABLE pmc_entry_v3 RENAME TO pmc_entry",
    "ALTER TABLE pmc_point_v3 RENAME TO pmc_point",
    "ALTER TABLE pmc_bench_v3 RENAME TO pmc_bench",
    "ALTER TABLE pmc_env_v3 RENAME TO pmc_env",
    "ALTER TABLE pmc_tag_v3 RENAME TO pmc_tag",
    "CREATE INDEX pmc_entry_fp ON pmc_entry (fingerprint, t)",
    NULL,
};

static const char *const *const migrations[] = {schema_v1, schema_v2, schema_v3};

/* A new store is made in the layout of PMC_HISTORY_SCHEMA at once, as the migrations
 * leave it (the tables, their columns and indexes), not by them: they would copy nothing
 * and leave the pages of the tables they drop free in the file. */
static const char *const schema_new[] = {
    "CREATE TABLE pmc_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE pmc_entry (num @ID@, id TEXT NOT NULL UNIQUE, t BIGINT NOT NULL, "
    "added BIGINT NOT NULL, commit_sha TEXT, branch TEXT, fingerprint TEXT NOT NULL, "
    "machine TEXT, kernel TEXT, cpu TEXT, compiler TEXT, backend TEXT NOT NULL, "
    "target_env TEXT, tool_version TEXT, source TEXT)",
    "CREATE INDEX pmc_entry_fp ON pmc_entry (fingerprint, t)",
    "CREATE TABLE pmc_env (entry BIGINT NOT NULL REFERENCES pmc_entry (num), "
    "key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (entry, key))",
    "CREATE TABLE pmc_tag (entry BIGINT NOT NULL REFERENCES pmc_entry (num), "
    "key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (entry, key))",
    "CREATE TABLE pmc_name (num @ID@, benchmark TEXT NOT NULL, metric TEXT NOT NULL, "
    "unit TEXT NOT NULL, better INTEGER NOT NULL, simulated INTEGER NOT NULL, "
    "UNIQUE (benchmark, metric, unit, better, simulated))",
    "CREATE TABLE pmc_point (name INTEGER NOT NULL REFERENCES pmc_name (num), "
    "entry INTEGER NOT NULL REFERENCES pmc_entry (num), n INTEGER NOT NULL, "
    "median DOUBLE PRECISION, samples TEXT, PRIMARY KEY (name, entry))@CLUSTER@",
    "CREATE TABLE pmc_bench (entry BIGINT NOT NULL REFERENCES pmc_entry (num), "
    "benchmark TEXT NOT NULL, runs INTEGER NOT NULL, PRIMARY KEY (entry, benchmark))",
    "INSERT INTO pmc_meta (key, value) VALUES ('schema', '3')",
    NULL,
};
_Static_assert(PMC_HISTORY_SCHEMA == 3, "schema_new makes the layout of PMC_HISTORY_SCHEMA");

#define NMIGRATIONS (sizeof(migrations) / sizeof(migrations[0]))
_Static_assert(NMIGRATIONS == PMC_HISTORY_SCHEMA, "one migration per schema version");

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

/* A statement of the schema in the engine's words: "@ID@" the column of a number the store
 * assigns, "@CLUSTER@" what keeps a table in the order of its key. */
static int engine_sql(struct pmc_history *h, const char *s, char *buf, size_t len, char *err,
		      size_t errlen)
{
	static const char *const marks[] = {"@ID@", "@CLUSTER@"};
	const char *words[] = {h->eng->id_type, h->eng->cluster};
	size_t used = 0;

	while (*s && used + 1 < len) {
		size_t k = 0;

		while (k < 2 && strncmp(s, marks[k], strlen(marks[k])) != 0)
			k++;
		if (k < 2) {
			used += (size_t)snprintf(buf + used, len - used, "%s", words[k]);
			s += strlen(marks[k]);
		} else {
			buf[used++] = *s++;
		}
	}
	if (*s || used >= len) {
		pmc_err_set(err, errlen, "%s: a statement of the schema is too long", h->display);
		return -E2BIG;
	}
	buf[used] = '\0';
	return 0;
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
		const char *const *list = v == 0 ? schema_new : migrations[k];

		for (const char *const *s = list; *s; s++) {
			char sql[2048];

			r = engine_sql(h, *s, sql, sizeof(sql), err, errlen);
			if (r == 0)
				r = h->eng->exec(h->db, sql, NULL, 0, NULL, err, errlen);
			if (r < 0)
				goto rollback;
		}
		if (v == 0)
			break; /* schema_new is the current version, and says so */
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

/* ---- The objects of the schema ---- */

/* Whether name is an object of kind ("TABLE", "INDEX") that a migration creates: the
 * migrations and schema_new are the one list of pmcbench's objects. */
static bool ours(const char *kind, const char *name)
{
	char head[32];
	size_t len = (size_t)snprintf(head, sizeof(head), "CREATE %s ", kind), nlen = strlen(name);

	for (size_t k = 0; k <= NMIGRATIONS; k++)
		for (const char *const *s = k < NMIGRATIONS ? migrations[k] : schema_new; *s; s++)
			if (strncmp(*s, head, len) == 0 && strncmp(*s + len, name, nlen) == 0 &&
			    (*s)[len + nlen] == ' ')
				return true;
	return false;
}

struct objects {
	struct pmc_history *h;
	char *err;
	size_t errlen;
};

/* One object of the store's schema: a view or a trigger, or one of pmcbench's names of
 * another type, is refused (a view named pmc_point can run a query that never ends). */
static int object_row(void *ud, const char *const *c, size_t n)
{
	struct objects *o = ud;
	const char *type = n > 0 && c[0] ? c[0] : "", *name = n > 1 && c[1] ? c[1] : "";
	const char *table = n > 2 && c[2] ? c[2] : "";
	bool table_ours = ours("TABLE", name), index_ours = ours("INDEX", name);
	char qn[PMC_QUOTE_SIZE(64)], qt[PMC_QUOTE_SIZE(64)], qtab[PMC_QUOTE_SIZE(64)];

	if (strcmp(type, "view") != 0 && strcmp(type, "trigger") != 0 &&
	    (!table_ours || strcmp(type, "table") == 0) &&
	    (!index_ours || strcmp(type, "index") == 0))
		return 0;
	pmc_quote(qn, sizeof(qn), name);
	pmc_quote(qt, sizeof(qt), type);
	if (table_ours || index_ours)
		pmc_err_set(o->err, o->errlen,
			    "%s: not a pmcbench history: '%s' is a %s, where pmcbench keeps %s; "
			    "move the file away and add the results again",
			    o->h->display, qn, qt, table_ours ? "a table" : "an index");
	else
		pmc_err_set(o->err, o->errlen,
			    "%s: not a pmcbench history: it holds the %s '%s' (on '%s'), which "
			    "pmcbench never makes; drop it if it is yours, else move the file away "
			    "and add the results again",
			    o->h->display, qt, qn, pmc_quote(qtab, sizeof(qtab), table));
	return -EBADMSG;
}

/* Refuses a store whose schema holds what pmcbench never makes, before anything of it
 * is read. */
static int check_objects(struct pmc_history *h, char *err, size_t errlen)
{
	struct objects o = {h, err, errlen};

	if (!h->eng->objects_sql)
		return 0;
	return h->eng->query(h->db, h->eng->objects_sql, NULL, 0, object_row, &o, err, errlen);
}

/* -ENOTSUP with the message when this build has no engine for url. */
static int missing_engine(const char *url, const char *display, char *err, size_t errlen)
{
	const struct pmc_hist_kind *k = pmc_hist_kind_of(url);

	if (k->engine)
		return 0;
	pmc_err_set(err, errlen,
		    "%s: this pmcbench is built without the history's %s engine; install %s "
		    "and build it again with -D%s=enabled (docs/history.md)",
		    display, k->title, k->package, k->name);
	return -ENOTSUP;
}

int pmc_history_engine_check(const char *url, char *err, size_t errlen)
{
	char *display;
	int r;

	if (pmc_hist_kind_of(url)->engine)
		return 0;
	display = mask_url(url);
	if (!display)
		return oom(err, errlen);
	r = missing_engine(url, display, err, errlen);
	free(display);
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
	r = missing_engine(url, h->display, err, errlen);
	if (r < 0)
		goto close;
	h->eng = pmc_hist_kind_of(url)->engine;
	r = h->eng->open(url, write, h->display, &h->db, err, errlen);
	if (r < 0)
		goto close;
	r = check_objects(h, err, errlen);
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

static int first_text(void *ud, const char *const *cols, size_t n)
{
	char *buf = ud;

	if (!*buf)
		snprintf(buf, 256, "%s", n && cols[0] ? cols[0] : "?");
	return 0;
}

int pmc_history_check(struct pmc_history *h, char *err, size_t errlen)
{
	char first[256] = "";
	int r;

	if (!h->eng->check_sql)
		return 0;
	r = h->eng->query(h->db, h->eng->check_sql, NULL, 0, first_text, first, err, errlen);
	if (r < 0)
		return r;
	if (strcmp(first, "ok") != 0) {
		pmc_err_set(err, errlen,
			    "%s: the file is damaged (%.200s); move it away and add the results "
			    "again",
			    h->display, first);
		return -EINVAL;
	}
	return 0;
}

const char *pmc_history_display(const struct pmc_history *h)
{
	return h->display;
}

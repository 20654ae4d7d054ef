/* The PostgreSQL engine of the history (engine.h), through libpq: a shared store for
 * many machines and CI jobs. Credentials are libpq's (the URL, PGPASSWORD, ~/.pgpass,
 * service files, sslmode); a message shows the store's URL with the password masked and
 * never repeats libpq's text beyond its first line.
 *
 * libpq is loaded (dlopen) when a store is first opened, not linked: it brings some
 * twenty-five libraries (OpenSSL, GnuTLS, Kerberos, LDAP...) whose loading and
 * relocation cost every start of pmcbench about 8 ms, a few percent of a short
 * `pmcbench run` that never touches a history (issue 37, bench/README.md). */
#include <errno.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dl.h"
#include "base/error.h"
#include "base/grow.h"
#include "history/engine.h"

/* libpq's soname: its ABI major has been 5 since PostgreSQL 8.2. */
#define LIBPQ_SONAME "libpq.so.5"

/* The functions of libpq this engine calls, looked up once by name. */
#define PQ_FUNCS(X)                                                                                \
	X(PQclear)                                                                                 \
	X(PQcmdTuples)                                                                             \
	X(PQconnectdbParams)                                                                       \
	X(PQerrorMessage)                                                                          \
	X(PQexec)                                                                                  \
	X(PQexecParams)                                                                            \
	X(PQfinish)                                                                                \
	X(PQgetResult)                                                                             \
	X(PQgetisnull)                                                                             \
	X(PQgetvalue)                                                                              \
	X(PQnfields)                                                                               \
	X(PQntuples)                                                                               \
	X(PQputCopyData)                                                                           \
	X(PQputCopyEnd)                                                                            \
	X(PQresultErrorField)                                                                      \
	X(PQresultErrorMessage)                                                                    \
	X(PQresultStatus)                                                                          \
	X(PQsendQueryParams)                                                                       \
	X(PQsetNoticeProcessor)                                                                    \
	X(PQsetSingleRowMode)                                                                      \
	X(PQstatus)                                                                                \
	X(PQtransactionStatus)

static struct {
#define PQ_FIELD(f) __typeof__(&f) f;
	PQ_FUNCS(PQ_FIELD)
#undef PQ_FIELD
} pq;

/* What loading libpq came to: 0, or -ENOENT with its reason in pq_error. Loaded once per
 * process and never unloaded, as a linked library would be. */
static pthread_once_t pq_once = PTHREAD_ONCE_INIT;
static int pq_loaded;
static char pq_error[256];

static void pq_load(void)
{
#define PQ_SLOT(f) (void **)&pq.f,
	static const char *const names[] = {PQ_FUNCS(PMC_DL_NAME)};
	void **const slots[] = {PQ_FUNCS(PQ_SLOT)};
#undef PQ_SLOT

	pq_loaded = pmc_dl_load(LIBPQ_SONAME, names, slots, sizeof(names) / sizeof(*names),
				pq_error, sizeof(pq_error));
}

/* From here on every PQ call goes through the table. */
#define PQ_CALL(f) (*pq.f)
#define PQclear PQ_CALL(PQclear)
#define PQcmdTuples PQ_CALL(PQcmdTuples)
#define PQconnectdbParams PQ_CALL(PQconnectdbParams)
#define PQerrorMessage PQ_CALL(PQerrorMessage)
#define PQexec PQ_CALL(PQexec)
#define PQexecParams PQ_CALL(PQexecParams)
#define PQfinish PQ_CALL(PQfinish)
#define PQgetResult PQ_CALL(PQgetResult)
#define PQgetisnull PQ_CALL(PQgetisnull)
#define PQgetvalue PQ_CALL(PQgetvalue)
#define PQnfields PQ_CALL(PQnfields)
#define PQntuples PQ_CALL(PQntuples)
#define PQputCopyData PQ_CALL(PQputCopyData)
#define PQputCopyEnd PQ_CALL(PQputCopyEnd)
#define PQresultErrorField PQ_CALL(PQresultErrorField)
#define PQresultErrorMessage PQ_CALL(PQresultErrorMessage)
#define PQresultStatus PQ_CALL(PQresultStatus)
#define PQsendQueryParams PQ_CALL(PQsendQueryParams)
#define PQsetNoticeProcessor PQ_CALL(PQsetNoticeProcessor)
#define PQsetSingleRowMode PQ_CALL(PQsetSingleRowMode)
#define PQstatus PQ_CALL(PQstatus)
#define PQtransactionStatus PQ_CALL(PQtransactionStatus)

/* The advisory lock that makes schema changes one at a time: "pmcbench" in ASCII. */
#define SCHEMA_LOCK "7308332109478856808"

struct pmc_hist_db {
	PGconn *conn;
	char *display;
};

/* libpq prints a server's notices ("relation exists, skipping") on stderr; a library
 * never prints. */
static void no_notice(void *arg, const char *message)
{
}

/* The first line of libpq's message, without its "ERROR:  " or "FATAL:  " lead. */
static void first_line(const char *msg, char *buf, size_t len)
{
	size_t n;

	if (!msg)
		msg = "";
	if (strncmp(msg, "ERROR:  ", 8) == 0 || strncmp(msg, "FATAL:  ", 8) == 0)
		msg += 8;
	n = strcspn(msg, "\n");
	if (n >= len)
		n = len - 1;
	memcpy(buf, msg, n);
	buf[n] = '\0';
}

static int fail_result(struct pmc_hist_db *d, PGresult *res, char *err, size_t errlen)
{
	char line[512];
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	int r = -EIO;

	first_line(res ? PQresultErrorMessage(res) : PQerrorMessage(d->conn), line, sizeof(line));
	if (PQstatus(d->conn) == CONNECTION_BAD) {
		pmc_err_set(err, errlen, "%s: the connection was lost (%s); try again", d->display,
			    line);
		r = -ECONNRESET;
	} else if (state && strncmp(state, "42501", 5) == 0) {
		pmc_err_set(err, errlen,
			    "%s: permission denied (%s); the user needs CREATE and INSERT on the "
			    "database",
			    d->display, line);
		r = -EACCES;
	} else if (state && strncmp(state, "53", 2) == 0) {
		pmc_err_set(err, errlen, "%s: the server is out of resources (%s)", d->display,
			    line);
		r = -ENOSPC;
	} else {
		pmc_err_set(err, errlen, "%s: %s", d->display, line);
	}
	PQclear(res);
	return r;
}

static int pg_run(struct pmc_hist_db *d, const char *sql, const char *const *params, size_t nparams,
		  PGresult **ret, char *err, size_t errlen)
{
	PGresult *res = PQexecParams(d->conn, sql, (int)nparams, NULL, params, NULL, NULL, 0);
	ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;

	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		return fail_result(d, res, err, errlen);
	*ret = res;
	return 0;
}

static int pg_exec(struct pmc_hist_db *d, const char *sql, const char *const *params,
		   size_t nparams, long *ret_changes, char *err, size_t errlen)
{
	PGresult *res = NULL;
	int r = pg_run(d, sql, params, nparams, &res, err, errlen);

	if (r < 0)
		return r;
	if (ret_changes)
		*ret_changes = strtol(PQcmdTuples(res), NULL, 10);
	PQclear(res);
	return 0;
}

/* The rows of a query as the server sends them, one at a time (libpq's single-row mode):
 * the client holds one row, never the whole result set, so that reading a store of
 * millions of points costs the memory of what the caller keeps. */
static int pg_query(struct pmc_hist_db *d, const char *sql, const char *const *params,
		    size_t nparams, pmc_hist_row_fn row, void *ud, char *err, size_t errlen)
{
	enum { MAXCOLS = 32 };
	const char *cols[MAXCOLS];
	PGresult *res;
	int r = 0;

	if (PQsendQueryParams(d->conn, sql, (int)nparams, NULL, params, NULL, NULL, 0) != 1)
		return fail_result(d, NULL, err, errlen);
	if (PQsetSingleRowMode(d->conn) != 1) {
		r = fail_result(d, NULL, err, errlen);
		while ((res = PQgetResult(d->conn)))
			PQclear(res);
		return r;
	}
	/* Every result is read, after a failure too, until libpq has none: the connection
	 * is then ready for the next query. */
	while ((res = PQgetResult(d->conn))) {
		ExecStatusType st = PQresultStatus(res);
		int ncols = PQnfields(res);

		if (r == 0 && st != PGRES_SINGLE_TUPLE && st != PGRES_TUPLES_OK &&
		    st != PGRES_COMMAND_OK) {
			r = fail_result(d, res, err, errlen);
			continue;
		}
		if (ncols > MAXCOLS)
			ncols = MAXCOLS;
		for (int i = 0; r == 0 && i < PQntuples(res); i++) {
			for (int c = 0; c < ncols; c++)
				cols[c] = PQgetisnull(res, i, c) ? NULL : PQgetvalue(res, i, c);
			r = row(ud, cols, (size_t)ncols);
		}
		PQclear(res);
	}
	return r;
}

/* What COPY sends at once: large enough that the rows of a result take few round trips
 * of libpq's buffer, small enough to stay in a cache. */
#define COPY_CHUNK (64 * 1024)

struct copy_buf {
	char *v;
	size_t n, cap;
};

/* A value in COPY's text format (PostgreSQL's documentation of COPY, "Text Format"):
 * backslash, tab, newline and carriage return escaped, SQL NULL as \N. */
static int copy_value(struct copy_buf *b, const char *s, char sep)
{
	size_t len = s ? strlen(s) : 2;

	/* At worst every byte doubles, and the separator. */
	if (pmc_grow_to(&b->v, &b->cap, b->n + 2 * len + 1, 1) < 0)
		return -ENOMEM;
	if (!s) {
		memcpy(b->v + b->n, "\\N", 2);
		b->n += 2;
	} else {
		for (; *s; s++) {
			const char *esc = *s == '\\'   ? "\\\\"
					  : *s == '\t' ? "\\t"
					  : *s == '\n' ? "\\n"
					  : *s == '\r' ? "\\r"
						       : NULL;

			if (esc) {
				b->v[b->n++] = esc[0];
				b->v[b->n++] = esc[1];
			} else {
				b->v[b->n++] = *s;
			}
		}
	}
	b->v[b->n++] = sep;
	return 0;
}

static int copy_send(struct pmc_hist_db *d, struct copy_buf *b, char *err, size_t errlen)
{
	if (b->n > 0 && PQputCopyData(d->conn, b->v, (int)b->n) != 1)
		return fail_result(d, NULL, err, errlen);
	b->n = 0;
	return 0;
}

/* The end of a COPY: every result libpq has for it read, the first failure reported. */
static int copy_finish(struct pmc_hist_db *d, int r, char *err, size_t errlen)
{
	PGresult *res;

	while ((res = PQgetResult(d->conn))) {
		if (r == 0 && PQresultStatus(res) != PGRES_COMMAND_OK)
			r = fail_result(d, res, err, errlen);
		else
			PQclear(res);
	}
	return r;
}

static int pg_insert(struct pmc_hist_db *d, const char *table, const char *const *cols,
		     size_t ncols, size_t nrows, pmc_hist_fill_fn fill, void *ud, char *err,
		     size_t errlen)
{
	enum { MAXCOLS = 32 };
	const char *vals[MAXCOLS];
	struct copy_buf b = {NULL, 0, 0};
	char sql[1024];
	size_t used;
	PGresult *res;
	int r = 0;

	used = (size_t)snprintf(sql, sizeof(sql), "COPY %s (", table);
	for (size_t i = 0; i < ncols && used < sizeof(sql); i++)
		used += (size_t)snprintf(sql + used, sizeof(sql) - used, "%s%s", i ? ", " : "",
					 cols[i]);
	if (used < sizeof(sql))
		used += (size_t)snprintf(sql + used, sizeof(sql) - used, ") FROM STDIN");
	if (ncols > MAXCOLS || used >= sizeof(sql)) {
		pmc_err_set(err, errlen, "%s: too many columns for one insert", d->display);
		return -E2BIG;
	}
	if (nrows == 0)
		return 0;
	res = PQexec(d->conn, sql);
	if (!res || PQresultStatus(res) != PGRES_COPY_IN)
		return copy_finish(d, fail_result(d, res, err, errlen), err, errlen);
	PQclear(res);
	for (size_t i = 0; r == 0 && i < nrows; i++) {
		r = fill(ud, i, vals);
		for (size_t k = 0; r == 0 && k < ncols; k++)
			r = copy_value(&b, vals[k], k + 1 < ncols ? '\t' : '\n');
		if (r == 0 && b.n >= COPY_CHUNK)
			r = copy_send(d, &b, err, errlen);
	}
	if (r == 0)
		r = copy_send(d, &b, err, errlen);
	free(b.v);
	/* A failed fill ends the COPY with an error: the server keeps none of its rows. */
	if (PQputCopyEnd(d->conn, r == 0 ? NULL : "pmcbench stopped the copy") != 1 && r == 0)
		r = fail_result(d, NULL, err, errlen);
	return copy_finish(d, r, err, errlen);
}

static int pg_begin(struct pmc_hist_db *d, bool lock, char *err, size_t errlen)
{
	int r = pg_exec(d, "BEGIN", NULL, 0, NULL, err, errlen);

	if (r == 0 && lock) {
		r = pg_exec(d, "SELECT pg_advisory_xact_lock(" SCHEMA_LOCK ")", NULL, 0, NULL, err,
			    errlen);
		if (r < 0)
			pg_exec(d, "ROLLBACK", NULL, 0, NULL, NULL, 0);
	}
	return r;
}

static int pg_begin_read(struct pmc_hist_db *d, char *err, size_t errlen)
{
	return pg_exec(d, "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", NULL, 0, NULL, err,
		       errlen);
}

static int pg_commit(struct pmc_hist_db *d, char *err, size_t errlen)
{
	return pg_exec(d, "COMMIT", NULL, 0, NULL, err, errlen);
}

static void pg_rollback(struct pmc_hist_db *d)
{
	if (PQtransactionStatus(d->conn) != PQTRANS_IDLE)
		pg_exec(d, "ROLLBACK", NULL, 0, NULL, NULL, 0);
}

struct found {
	bool yes;
};

static int found_row(void *ud, const char *const *cols, size_t n)
{
	((struct found *)ud)->yes = true;
	return 0;
}

static int pg_has_table(struct pmc_hist_db *d, const char *name, bool *ret, char *err,
			size_t errlen)
{
	struct found f = {false};
	const char *p[] = {name};
	int r = pg_query(d,
			 "SELECT 1 FROM information_schema.tables WHERE table_schema = "
			 "current_schema() AND table_name = $1",
			 p, 1, found_row, &f, err, errlen);

	if (r == 0)
		*ret = f.yes;
	return r;
}

static void pg_close(struct pmc_hist_db *d)
{
	if (!d)
		return;
	PQfinish(d->conn);
	free(d->display);
	free(d);
}

/* create: nothing to make here; migrating an empty database creates the tables. */
static int pg_open(const char *url, bool create, const char *display, struct pmc_hist_db **ret,
		   char *err, size_t errlen)
{
	struct pmc_hist_db *d;
	char line[512];
	int r;

	pthread_once(&pq_once, pq_load);
	if (pq_loaded < 0) {
		pmc_err_set(err, errlen,
			    "%s: cannot load libpq, PostgreSQL's client library (%s); install it "
			    "(Debian: libpq5) or use a SQLite file",
			    display, pq_error);
		return pq_loaded;
	}
	d = calloc(1, sizeof(*d));
	if (!d || !(d->display = strdup(display))) {
		free(d);
		pmc_err_set(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* An address that never answers fails after 10 s, not after TCP's minutes; the
	 * URL's own connect_timeout, processed after it, wins. */
	static const char *const keys[] = {"connect_timeout", "dbname", NULL};
	const char *values[] = {"10", url, NULL};

	d->conn = PQconnectdbParams(keys, values, 1);
	if (!d->conn) {
		pmc_err_set(err, errlen, "out of memory");
		r = -ENOMEM;
		goto close;
	}
	if (PQstatus(d->conn) != CONNECTION_OK) {
		const char *msg = PQerrorMessage(d->conn);

		/* libpq's message starts with where it connected ("connection to server at
		 * ... failed: "); the reason follows. */
		const char *why = strstr(msg, "failed: ");

		first_line(why ? why + 8 : msg, line, sizeof(line));
		if (strstr(msg, "password authentication failed") ||
		    strstr(msg, "no password supplied") || strstr(msg, "authentication failed")) {
			pmc_err_set(err, errlen,
				    "%s: the server refused the credentials (%s); check the user "
				    "and the password (PGPASSWORD, ~/.pgpass or the URL)",
				    display, line);
			r = -EACCES;
		} else if (strstr(msg, "does not exist")) {
			pmc_err_set(err, errlen,
				    "%s: %s; create the database (createdb) or name another one",
				    display, line);
			r = -ENOENT;
		} else {
			pmc_err_set(
			    err, errlen,
			    "%s: cannot connect (%s); check the host and port, and that the "
			    "server is running",
			    display, line);
			r = -ECONNREFUSED;
		}
		goto close;
	}
	PQsetNoticeProcessor(d->conn, no_notice, NULL);
	*ret = d;
	return 0;
close:
	pg_close(d);
	return r;
}

const struct pmc_hist_engine pmc_hist_pg = {
    .name = "postgresql",
    .open = pg_open,
    .exec = pg_exec,
    .query = pg_query,
    .insert = pg_insert,
    .begin = pg_begin,
    .begin_read = pg_begin_read,
    .commit = pg_commit,
    .rollback = pg_rollback,
    .id_type = "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
    .cluster = "",
    .has_table = pg_has_table,
    .close = pg_close,
};

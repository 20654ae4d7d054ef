/* The SQLite engine of the history (engine.h), through libsqlite3: one file, the
 * default store. Writers take the database's write lock at BEGIN IMMEDIATE and wait for
 * each other (a busy timeout), so that several processes can add at once; the rollback
 * journal (not WAL) keeps the store one file that travels as a CI cache or artifact, and
 * a writer killed mid-transaction is rolled back by the next one to open the file.
 *
 * libsqlite3 is loaded (dlopen) when a store is first opened, not linked, as libpq is
 * (postgres.c): its loading and relocation cost every start of pmcbench about 0.25 ms of
 * CPU, most of which never opens a history (issue 37, bench/README.md). */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/dl.h"
#include "base/error.h"
#include "history/engine.h"

/* libsqlite3's soname: 0 for all of SQLite 3. */
#define SQLITE_SONAME "libsqlite3.so.0"

/* The functions of libsqlite3 this engine calls, looked up once by name. */
#define SQ_FUNCS(X)                                                                                \
	X(sqlite3_bind_null)                                                                       \
	X(sqlite3_bind_text)                                                                       \
	X(sqlite3_busy_timeout)                                                                    \
	X(sqlite3_changes)                                                                         \
	X(sqlite3_clear_bindings)                                                                  \
	X(sqlite3_close)                                                                           \
	X(sqlite3_column_count)                                                                    \
	X(sqlite3_column_double)                                                                   \
	X(sqlite3_column_text)                                                                     \
	X(sqlite3_column_type)                                                                     \
	X(sqlite3_db_config)                                                                       \
	X(sqlite3_errmsg)                                                                          \
	X(sqlite3_errstr)                                                                          \
	X(sqlite3_extended_result_codes)                                                           \
	X(sqlite3_finalize)                                                                        \
	X(sqlite3_get_autocommit)                                                                  \
	X(sqlite3_open_v2)                                                                         \
	X(sqlite3_prepare_v2)                                                                      \
	X(sqlite3_progress_handler)                                                                \
	X(sqlite3_reset)                                                                           \
	X(sqlite3_step)

static struct {
#define SQ_FIELD(f) __typeof__(&f) f;
	SQ_FUNCS(SQ_FIELD)
#undef SQ_FIELD
} sq;

/* What loading libsqlite3 came to: 0, or -ENOENT with its reason in sq_error. Loaded once
 * per process and never unloaded, as a linked library would be. */
static pthread_once_t sq_once = PTHREAD_ONCE_INIT;
static int sq_loaded;
static char sq_error[256];

static void sq_load(void)
{
#define SQ_SLOT(f) (void **)&sq.f,
	static const char *const names[] = {SQ_FUNCS(PMC_DL_NAME)};
	void **const slots[] = {SQ_FUNCS(SQ_SLOT)};
#undef SQ_SLOT

	sq_loaded = pmc_dl_load(SQLITE_SONAME, names, slots, sizeof(names) / sizeof(*names),
				sq_error, sizeof(sq_error));
}

/* From here on every sqlite3 call goes through the table. */
#define SQ_CALL(f) (*sq.f)
#define sqlite3_bind_null SQ_CALL(sqlite3_bind_null)
#define sqlite3_bind_text SQ_CALL(sqlite3_bind_text)
#define sqlite3_busy_timeout SQ_CALL(sqlite3_busy_timeout)
#define sqlite3_changes SQ_CALL(sqlite3_changes)
#define sqlite3_clear_bindings SQ_CALL(sqlite3_clear_bindings)
#define sqlite3_close SQ_CALL(sqlite3_close)
#define sqlite3_column_count SQ_CALL(sqlite3_column_count)
#define sqlite3_column_double SQ_CALL(sqlite3_column_double)
#define sqlite3_column_text SQ_CALL(sqlite3_column_text)
#define sqlite3_column_type SQ_CALL(sqlite3_column_type)
#define sqlite3_db_config SQ_CALL(sqlite3_db_config)
#define sqlite3_errmsg SQ_CALL(sqlite3_errmsg)
#define sqlite3_errstr SQ_CALL(sqlite3_errstr)
#define sqlite3_extended_result_codes SQ_CALL(sqlite3_extended_result_codes)
#define sqlite3_finalize SQ_CALL(sqlite3_finalize)
#define sqlite3_get_autocommit SQ_CALL(sqlite3_get_autocommit)
#define sqlite3_open_v2 SQ_CALL(sqlite3_open_v2)
#define sqlite3_prepare_v2 SQ_CALL(sqlite3_prepare_v2)
#define sqlite3_progress_handler SQ_CALL(sqlite3_progress_handler)
#define sqlite3_reset SQ_CALL(sqlite3_reset)
#define sqlite3_step SQ_CALL(sqlite3_step)

/* How long a writer waits for another one's transaction. */
#define BUSY_TIMEOUT_MS 60000
/* Prepared statements kept for reuse: ingest runs the same few many times. */
#define NCACHE 16
/* A statement's budget of virtual-machine instructions, so that a store made to loop (a
 * query that never ends) is stopped: BUDGET_BASE for any store, and BUDGET_PAGE more per
 * page of the file, far above what pmcbench's queries need: on a store of 600,000 points
 * (67,000 pages) the most one took was 17.2 million (export, 256 a page; docs/history.md).
 * The count is the progress handler's, called every PROGRESS_STEP instructions. */
#define BUDGET_BASE 200000000ULL
#define BUDGET_PAGE 20000ULL
#define PROGRESS_STEP 1000
/* SQLite's page cache, in KiB (its default is 2,000): at most this much memory, used only
 * as pages are read. */
#define CACHE_KIB "65536"

struct pmc_hist_db {
	sqlite3 *db;
	char *display;
	struct {
		char *sql; /* a copy of the caller's text: the key */
		sqlite3_stmt *st;
	} cache[NCACHE];
	size_t next;			 /* the cache slot replaced next */
	unsigned long long budget, used; /* instructions, of the statement stepped */
};

static int errno_of(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		return -EINVAL;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_INTERRUPT:
		return -ETIME;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_CANTOPEN:
		return -ENOENT;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	default:
		return -EIO;
	}
}

/* One error line for rc on d: what it means for a store, and what to do. */
static int fail(struct pmc_hist_db *d, int rc, char *err, size_t errlen)
{
	const char *msg = d->db ? sqlite3_errmsg(d->db) : sqlite3_errstr(rc);

	switch (rc & 0xff) {
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		pmc_err_set(err, errlen,
			    "%s: not a readable SQLite database (%s); give the path of a pmcbench "
			    "history, or move the damaged file away and add the results again",
			    d->display, msg);
		break;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		pmc_err_set(err, errlen,
			    "%s: the database stayed locked by another writer for %d s (%s); try "
			    "again",
			    d->display, BUSY_TIMEOUT_MS / 1000, msg);
		break;
	case SQLITE_READONLY:
	case SQLITE_PERM:
		pmc_err_set(err, errlen,
			    "%s: cannot write the database (%s); check its permissions", d->display,
			    msg);
		break;
	case SQLITE_FULL:
		pmc_err_set(err, errlen, "%s: the disk is full (%s)", d->display, msg);
		break;
	case SQLITE_INTERRUPT:
		pmc_err_set(err, errlen,
			    "%s: a query was stopped after %llu million instructions, more than "
			    "any of pmcbench's takes on a store of this size; the file was made "
			    "to loop or is damaged: move it away and add the results again",
			    d->display, d->budget / 1000000);
		break;
	default:
		pmc_err_set(err, errlen, "%s: %s", d->display, msg);
	}
	return errno_of(rc);
}

/* "$12" as "?12": the dialect of engine.h in SQLite's spelling. */
static char *translate(const char *sql)
{
	char *out = strdup(sql);

	if (!out)
		return NULL;
	for (char *p = out; *p; p++)
		if (p[0] == '$' && p[1] >= '0' && p[1] <= '9')
			*p = '?';
	return out;
}

static int prepare(struct pmc_hist_db *d, const char *sql, sqlite3_stmt **ret, char *err,
		   size_t errlen)
{
	char *text;
	sqlite3_stmt *st;
	size_t slot;
	int rc;

	for (size_t i = 0; i < NCACHE; i++)
		if (d->cache[i].st && strcmp(d->cache[i].sql, sql) == 0) {
			*ret = d->cache[i].st;
			return 0;
		}
	text = translate(sql);
	if (!text) {
		pmc_err_set(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = sqlite3_prepare_v2(d->db, text, -1, &st, NULL);
	if (rc != SQLITE_OK) {
		free(text);
		return fail(d, rc, err, errlen);
	}
	slot = d->next;
	d->next = (d->next + 1) % NCACHE;
	sqlite3_finalize(d->cache[slot].st);
	free(d->cache[slot].sql);
	/* The key outlives the caller's buffer: the caller's text, copied (translating
	 * changed no length). */
	memcpy(text, sql, strlen(sql) + 1);
	d->cache[slot].sql = text;
	d->cache[slot].st = st;
	*ret = st;
	return 0;
}

static int bind(struct pmc_hist_db *d, sqlite3_stmt *st, const char *const *params, size_t n,
		char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		int rc = params[i] ? sqlite3_bind_text(st, (int)i + 1, params[i], -1, SQLITE_STATIC)
				   : sqlite3_bind_null(st, (int)i + 1);

		if (rc != SQLITE_OK)
			return fail(d, rc, err, errlen);
	}
	return 0;
}

static void done(sqlite3_stmt *st)
{
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

static int sq_exec(struct pmc_hist_db *d, const char *sql, const char *const *params,
		   size_t nparams, long *ret_changes, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int r, rc;

	r = prepare(d, sql, &st, err, errlen);
	if (r < 0)
		return r;
	r = bind(d, st, params, nparams, err, errlen);
	d->used = 0;
	if (r == 0) {
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			;
		if (rc != SQLITE_DONE)
			r = fail(d, rc, err, errlen);
		else if (ret_changes)
			*ret_changes = sqlite3_changes(d->db);
	}
	done(st);
	return r;
}

/* v as "%.17g" writes it (SQLite's own text of a double keeps 15 digits: 17 are exact),
 * a whole number below 2^53 (a count: most of a store's medians and one-sample points)
 * without printf, which took a third of reading a store series by series. */
static void double_text(char *buf, size_t len, double v)
{
	char digits[24];
	size_t n = 0, at = 0;
	uint64_t u;

	/* fabs first: NAN fails it, and a cast of it to an integer is undefined. */
	if (!(fabs(v) < 9007199254740992.0) || v != (double)(int64_t)v || (v == 0 && signbit(v))) {
		snprintf(buf, len, "%.17g", v);
		return;
	}
	if (v < 0)
		buf[at++] = '-';
	for (u = (uint64_t)fabs(v);; u /= 10) {
		digits[n++] = (char)('0' + u % 10);
		if (u < 10)
			break;
	}
	while (n > 0)
		buf[at++] = digits[--n];
	buf[at] = '\0';
}

static int sq_query(struct pmc_hist_db *d, const char *sql, const char *const *params,
		    size_t nparams, pmc_hist_row_fn row, void *ud, char *err, size_t errlen)
{
	enum { MAXCOLS = 32 };
	const char *cols[MAXCOLS];
	char nums[MAXCOLS][32];
	sqlite3_stmt *st;
	int r, rc;

	r = prepare(d, sql, &st, err, errlen);
	if (r < 0)
		return r;
	r = bind(d, st, params, nparams, err, errlen);
	d->used = 0;
	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int n = sqlite3_column_count(st);

		if (n > MAXCOLS)
			n = MAXCOLS;
		for (int i = 0; i < n; i++) {
			switch (sqlite3_column_type(st, i)) {
			case SQLITE_NULL:
				cols[i] = NULL;
				break;
			case SQLITE_FLOAT:
				double_text(nums[i], sizeof(nums[i]), sqlite3_column_double(st, i));
				cols[i] = nums[i];
				break;
			default:
				cols[i] = (const char *)sqlite3_column_text(st, i);
				if (!cols[i]) {
					pmc_err_set(err, errlen, "out of memory");
					r = -ENOMEM;
				}
			}
		}
		if (r == 0)
			r = row(ud, cols, (size_t)n);
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = fail(d, rc, err, errlen);
	done(st);
	return r;
}

/* "INSERT INTO table (cols) VALUES ($1, ...)" in a buffer of the caller's; NULL when
 * it does not fit. */
static const char *insert_sql(char *buf, size_t len, const char *table, const char *const *cols,
			      size_t ncols)
{
	size_t used = (size_t)snprintf(buf, len, "INSERT INTO %s (", table);

	for (size_t i = 0; i < ncols && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", cols[i]);
	for (size_t i = 0; i < ncols && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s$%zu", i ? ", " : ") VALUES (",
					 i + 1);
	if (used < len)
		used += (size_t)snprintf(buf + used, len - used, ")");
	return used < len ? buf : NULL;
}

static int sq_insert(struct pmc_hist_db *d, const char *table, const char *const *cols,
		     size_t ncols, size_t nrows, pmc_hist_fill_fn fill, void *ud, char *err,
		     size_t errlen)
{
	enum { MAXCOLS = 32 };
	const char *vals[MAXCOLS];
	char sql[1024];
	sqlite3_stmt *st;
	int r, rc;

	if (ncols > MAXCOLS || !insert_sql(sql, sizeof(sql), table, cols, ncols)) {
		pmc_err_set(err, errlen, "%s: too many columns for one insert", d->display);
		return -E2BIG;
	}
	r = prepare(d, sql, &st, err, errlen);
	if (r < 0)
		return r;
	for (size_t i = 0; r == 0 && i < nrows; i++) {
		r = fill(ud, i, vals);
		if (r == 0)
			r = bind(d, st, vals, ncols, err, errlen);
		d->used = 0;
		if (r == 0 && (rc = sqlite3_step(st)) != SQLITE_DONE)
			r = fail(d, rc, err, errlen);
		sqlite3_reset(st);
	}
	/* The bindings point at the caller's values (SQLITE_STATIC). */
	sqlite3_clear_bindings(st);
	return r;
}

static int sq_begin(struct pmc_hist_db *d, bool lock, char *err, size_t errlen)
{
	return sq_exec(d, "BEGIN IMMEDIATE", NULL, 0, NULL, err, errlen);
}

static int sq_begin_read(struct pmc_hist_db *d, char *err, size_t errlen)
{
	return sq_exec(d, "BEGIN DEFERRED", NULL, 0, NULL, err, errlen);
}

static int sq_commit(struct pmc_hist_db *d, char *err, size_t errlen)
{
	return sq_exec(d, "COMMIT", NULL, 0, NULL, err, errlen);
}

static void sq_rollback(struct pmc_hist_db *d)
{
	if (!sqlite3_get_autocommit(d->db))
		sq_exec(d, "ROLLBACK", NULL, 0, NULL, NULL, 0);
}

struct found {
	bool yes;
};

static int found_row(void *ud, const char *const *cols, size_t n)
{
	((struct found *)ud)->yes = true;
	return 0;
}

static int sq_has_table(struct pmc_hist_db *d, const char *name, bool *ret, char *err,
			size_t errlen)
{
	struct found f = {false};
	const char *p[] = {name};
	int r = sq_query(d, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = $1", p, 1,
			 found_row, &f, err, errlen);

	if (r == 0)
		*ret = f.yes;
	return r;
}

static void sq_close(struct pmc_hist_db *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < NCACHE; i++) {
		sqlite3_finalize(d->cache[i].st);
		free(d->cache[i].sql);
	}
	sqlite3_close(d->db);
	free(d->display);
	free(d);
}

/* Why path cannot be opened, when SQLite says only that it cannot: not there, a
 * directory, or a file or directory this user may not read or write. */
static int cantopen(const char *path, bool create, const char *display, char *err, size_t errlen)
{
	struct stat st;
	int e;

	if (stat(path, &st) < 0) {
		e = errno;
		if (e == ENOENT && !create) {
			pmc_err_set(err, errlen,
				    "%s: no history there; 'pmcbench history add' makes one",
				    display);
			return -ENOENT;
		}
		pmc_err_set(err, errlen, "%s: %s; %s", display, strerror(e),
			    e == ENOENT ? "its directory must exist" : "check the path");
		return -e;
	}
	if (S_ISDIR(st.st_mode)) {
		pmc_err_set(err, errlen,
			    "%s is a directory, not a history file; name a file (--db "
			    "%s/pmcbench-history.db)",
			    display, display);
		return -EISDIR;
	}
	if (access(path, R_OK) < 0 || (create && access(path, W_OK) < 0)) {
		bool unreadable = access(path, R_OK) < 0;

		e = errno;
		pmc_err_set(err, errlen, "%s: cannot %s it (%s); check its permissions", display,
			    unreadable ? "read" : "write", strerror(e));
		return -EACCES;
	}
	pmc_err_set(err, errlen, "%s: cannot open it (%s)", display,
		    sqlite3_errstr(SQLITE_CANTOPEN));
	return -EIO;
}

/* SQLite's progress handler: a nonzero return interrupts the statement. */
static int over_budget(void *ud)
{
	struct pmc_hist_db *d = ud;

	d->used += PROGRESS_STEP;
	return d->used > d->budget;
}

static int page_count_row(void *ud, const char *const *cols, size_t n)
{
	*(unsigned long long *)ud = n && cols[0] ? strtoull(cols[0], NULL, 10) : 0;
	return 0;
}

/* A store travels as a CI cache or artifact, made by anyone: its schema may not run code
 * or write outside the file (SQLITE_DBCONFIG_DEFENSIVE: no writable_schema, no
 * journal_mode=OFF; trusted_schema off: no function with side effects in a view, trigger,
 * index or default), and pmcbench makes no view or trigger (store.c refuses a store
 * holding one, by name; these refuse to run one in any case). */
static int harden(struct pmc_hist_db *d, char *err, size_t errlen)
{
	static const int off[] = {SQLITE_DBCONFIG_TRUSTED_SCHEMA, SQLITE_DBCONFIG_ENABLE_TRIGGER,
				  SQLITE_DBCONFIG_ENABLE_VIEW,
				  SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION};
	int rc = sqlite3_db_config(d->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);

	for (size_t i = 0; rc == SQLITE_OK && i < sizeof(off) / sizeof(off[0]); i++)
		rc = sqlite3_db_config(d->db, off[i], 0, NULL);
	if (rc != SQLITE_OK)
		return fail(d, rc, err, errlen);
	d->budget = BUDGET_BASE;
	sqlite3_progress_handler(d->db, PROGRESS_STEP, over_budget, d);
	return 0;
}

static int sq_open(const char *url, bool create, const char *display, struct pmc_hist_db **ret,
		   char *err, size_t errlen)
{
	const char *path = strncmp(url, "sqlite:", 7) == 0 ? url + 7 : url;
	struct pmc_hist_db *d = calloc(1, sizeof(*d));
	int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
	unsigned long long pages = 0;
	struct stat st;
	int rc, r;

	pthread_once(&sq_once, sq_load);
	if (sq_loaded < 0) {
		free(d);
		pmc_err_set(err, errlen,
			    "%s: cannot load libsqlite3, SQLite's library (%s); install it "
			    "(Debian: libsqlite3-0)",
			    display, sq_error);
		return sq_loaded;
	}
	if (!d || !(d->display = strdup(display))) {
		free(d);
		pmc_err_set(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* SQLite would follow a dangling symlink and create its target, wherever it
	 * points: a store is made only at a path that names no link, or a link to one. */
	if (create && lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && stat(path, &st) < 0 &&
	    errno == ENOENT) {
		pmc_err_set(err, errlen,
			    "%s: a symlink to a file that does not exist; create the store at "
			    "another path or fix the link",
			    display);
		r = -ENOENT;
		goto close;
	}
	rc = sqlite3_open_v2(path, &d->db, flags | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		if ((rc & 0xff) == SQLITE_CANTOPEN) {
			r = cantopen(path, create, display, err, errlen);
		} else {
			fail(d, rc, err, errlen);
			r = errno_of(rc);
		}
		goto close;
	}
	sqlite3_extended_result_codes(d->db, 1);
	sqlite3_busy_timeout(d->db, BUSY_TIMEOUT_MS);
	r = harden(d, err, errlen);
	if (r < 0)
		goto close;
	/* The first read of the file tells whether it is a database at all. */
	r = sq_exec(d, "SELECT count(*) FROM sqlite_master", NULL, 0, NULL, err, errlen);
	if (r < 0)
		goto close;
	r = sq_query(d, "PRAGMA page_count", NULL, 0, page_count_row, &pages, err, errlen);
	if (r < 0)
		goto close;
	d->budget = BUDGET_BASE + BUDGET_PAGE * pages;
	/* The points lie by series: a gate reads an entry's from many pages, and reads the
	 * same pages for the next entry; a cache of CACHE_KIB keeps them read once. */
	r = sq_exec(d, "PRAGMA cache_size = -" CACHE_KIB, NULL, 0, NULL, err, errlen);
	if (r < 0)
		goto close;
	*ret = d;
	return 0;
close:
	sq_close(d);
	return r;
}

const struct pmc_hist_engine pmc_hist_sqlite = {
    .name = "sqlite",
    .open = sq_open,
    .exec = sq_exec,
    .query = sq_query,
    .insert = sq_insert,
    .begin = sq_begin,
    .begin_read = sq_begin_read,
    .commit = sq_commit,
    .rollback = sq_rollback,
    .count_tables_sql = "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
    .check_sql = "PRAGMA quick_check(1)",
    .objects_sql = "SELECT type, name, tbl_name FROM sqlite_master",
    .id_type = "INTEGER PRIMARY KEY",
    .cluster = " WITHOUT ROWID",
    .has_table = sq_has_table,
    .close = sq_close,
};

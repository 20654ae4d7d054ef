/* The one small interface behind which each engine of the history lives (sqlite.c,
 * postgres.c). The SQL is one dialect both understand: parameters are written $1, $2
 * (sqlite.c reads them as ?1, ?2), every value goes in and comes out as text (NULL: SQL
 * NULL), a double as its shortest exact decimal. Every query is parameterized: names
 * from result files are data, never SQL. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct pmc_hist_db;

/* One row of a query: ncols values, NULL for SQL NULL. Returns 0 to go on, or -errno
 * to stop the query with that error. */
typedef int (*pmc_hist_row_fn)(void *ud, const char *const *cols, size_t ncols);

/* Row i of a bulk insert: sets vals[0..ncols) (NULL: SQL NULL), which stay valid until
 * the next call. Returns 0, or -errno to stop the insert with that error (which the
 * insert returns without a message: the caller's to write). */
typedef int (*pmc_hist_fill_fn)(void *ud, size_t i, const char **vals);

struct pmc_hist_engine {
	const char *name;
	/* Opens the connection to the store at url (a SQLite path may start "sqlite:");
	 * create: a SQLite file that does not exist is made. display is the store as
	 * messages show it. */
	int (*open)(const char *url, bool create, const char *display, struct pmc_hist_db **ret,
		    char *err, size_t errlen);
	/* Runs one statement; *ret_changes (may be NULL) gets the rows it changed. */
	int (*exec)(struct pmc_hist_db *db, const char *sql, const char *const *params,
		    size_t nparams, long *ret_changes, char *err, size_t errlen);
	int (*query)(struct pmc_hist_db *db, const char *sql, const char *const *params,
		     size_t nparams, pmc_hist_row_fn row, void *ud, char *err, size_t errlen);
	/* Inserts nrows rows into table's ncols columns cols (names of the schema, never
	 * data), each from fill, in the open transaction: many rows of one kind (the points
	 * of a result) at the cost of few statements. SQLite steps one prepared statement a
	 * row; PostgreSQL streams the rows by COPY FROM STDIN (one round trip, no statement
	 * parsed per row). */
	int (*insert)(struct pmc_hist_db *db, const char *table, const char *const *cols,
		      size_t ncols, size_t nrows, pmc_hist_fill_fn fill, void *ud, char *err,
		      size_t errlen);
	/* A transaction that writes: it holds the store's write lock (SQLite: BEGIN
	 * IMMEDIATE, waiting while another writer holds it; PostgreSQL: an advisory lock
	 * for schema changes, taken when lock is true). */
	int (*begin)(struct pmc_hist_db *db, bool lock, char *err, size_t errlen);
	/* A transaction that only reads: its queries see one state of the store (a writer
	 * adding an entry meanwhile is not half seen), and SQLite takes its shared lock and
	 * checks its cache once, not once a query. Ended by commit or rollback. */
	int (*begin_read)(struct pmc_hist_db *db, char *err, size_t errlen);
	int (*commit)(struct pmc_hist_db *db, char *err, size_t errlen);
	void (*rollback)(struct pmc_hist_db *db);
	/* A query of how many tables the store holds, when a store that holds another
	 * program's tables is refused (a SQLite file is one program's; a PostgreSQL
	 * database may be shared: NULL). */
	const char *count_tables_sql;
	/* A query of the store's integrity whose first row is "ok" when every page of it
	 * reads well (SQLite's quick_check), or NULL: the server keeps it (PostgreSQL). */
	const char *check_sql;
	/* A query of every object of the store's schema, a row (type, name, table) each,
	 * when a store may be made by anyone (a SQLite file travels as a CI cache or an
	 * artifact), so that one whose tables are views, or that holds triggers, is refused
	 * before it is read (store.c); NULL: the server's owner keeps it (PostgreSQL). */
	const char *objects_sql;
	/* The schema's words that differ (store.c): the type of a column of numbers that the
	 * store assigns to the rows inserted without one, and what follows a CREATE TABLE to
	 * keep its rows in the order of their primary key ("" where the engine does not). */
	const char *id_type;
	const char *cluster;
	/* Whether the table exists (without creating anything). */
	int (*has_table)(struct pmc_hist_db *db, const char *name, bool *ret, char *err,
			 size_t errlen);
	void (*close)(struct pmc_hist_db *db);
};

extern const struct pmc_hist_engine pmc_hist_sqlite;
extern const struct pmc_hist_engine pmc_hist_pg;

/* The engines, one row each (engines.c): the locations it takes, and how to build it in
 * when this build left it out (meson's -Dsqlite and -Dpostgresql features). */
struct pmc_hist_kind {
	const char *name;    /* the build option's (-Dsqlite) */
	const char *title;   /* as messages name it */
	const char *package; /* what building it needs (Debian's package) */
	/* The locations it opens: those that start with one of these (NULL ends the list);
	 * the table's last row opens every other location too (a file's path). */
	const char *const *prefixes;
	const struct pmc_hist_engine *engine; /* NULL: not in this build */
};

/* The row of the engine that opens url: the first with a prefix that url starts with,
 * else the last (engines.c). */
const struct pmc_hist_kind *pmc_hist_kind_of(const char *url);

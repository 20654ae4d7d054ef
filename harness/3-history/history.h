/* The history of results (docs/history.md): every result added is kept with its samples,
 * its environment fingerprint, the commit and branch it measured, when, and the user's
 * tags, in one schema behind two engines: SQLite (a file, the default) and PostgreSQL
 * (a shared server, "postgresql://..."). Nothing here prints; every failing call writes
 * one line naming the store, the problem and the fix into err. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/series.h"

struct pmc_result;
struct pmc_history;

/* The schema this code writes; a store of a newer one is refused (-EPROTONOSUPPORT). */
#define PMC_HISTORY_SCHEMA 3

/* What opening may do: create the store (a new SQLite file, the tables on an empty
 * PostgreSQL database) and migrate an older schema. Without it a store that does not
 * exist is -ENOENT and an older schema is read as it is. */
#define PMC_HISTORY_WRITE 1u

/* Opens the store at url: "postgresql://..." or "postgres://..." (libpq's URL; the
 * password from it, PGPASSWORD, ~/.pgpass or a service file), else the path of a SQLite
 * file ("sqlite:PATH" too). Returns 0, or -ENOENT (no store), -EPROTONOSUPPORT (a newer
 * schema), -EINVAL (not a store: a corrupt file), -ECONNREFUSED (no server),
 * -EACCES (refused credentials), -ENOTSUP (an engine this build left out: as
 * pmc_history_engine_check), -EIO, -ENOMEM, with one line in err. */
int pmc_history_open(const char *url, unsigned flags, struct pmc_history **ret, char *err,
		     size_t errlen);
void pmc_history_close(struct pmc_history *h);

/* Whether this build has the engine url needs (meson's -Dsqlite, -Dpostgresql): 0, or
 * -ENOTSUP with one line in err naming the engine, its package and the build option. */
int pmc_history_engine_check(const char *url, char *err, size_t errlen);

/* Reads every page of a SQLite store once to check it (PRAGMA quick_check): damage where
 * a command would not read is found too. A PostgreSQL server keeps its own: 0. Returns 0,
 * or -EINVAL (damaged) or -errno with one line in err. */
int pmc_history_check(struct pmc_history *h, char *err, size_t errlen);

/* The store as it may be shown: the URL with any password masked. */
const char *pmc_history_display(const struct pmc_history *h);

/* The fingerprint's fields, from a result's environment (docs/history.md). */
struct pmc_history_fp {
	const char *machine, *kernel, *cpu, *compiler, *backend, *target_env;
};

/* What is said about a result beside its content; each may be NULL. */
struct pmc_history_meta {
	const char *commit;
	const char *branch;
	const char *source;   /* the file it came from */
	const char *compiler; /* when the result's environment has no "compiler" */
	/* The machine instead of the result's hostname: a CI runner whose hostname is new
	 * every job but whose kind is the same ("gha-ubuntu-24.04"). */
	const char *machine;
	const char *const *tags; /* ntags "key=value" strings */
	size_t ntags;
	int64_t now; /* the time of ingest (unix seconds); 0: now */
};

/* The result's content hash (64 hex digits): its key in a store. Returns 0 or -ENOMEM. */
int pmc_history_result_id(const struct pmc_result *r, char id[65]);

/* The fingerprint of r (16 hex digits), with meta's machine and compiler (meta may be
 * NULL). */
void pmc_history_fingerprint(const struct pmc_result *r, const struct pmc_history_meta *meta,
			     char fp[17]);

/* Adds r in one transaction; *ret_added is false when the store holds it already (the
 * same content: nothing is written), and ret_id (may be NULL) gets its key. Returns 0 or
 * -errno with one line in err. */
int pmc_history_add(struct pmc_history *h, const struct pmc_result *r,
		    const struct pmc_history_meta *meta, bool *ret_added, char ret_id[65],
		    char *err, size_t errlen);

/* Removes the entry whose key is key or starts with it (at least 4 of its hex digits),
 * with its points, benchmarks, environment and tags, in one transaction (a bad run; the
 * same result added again is an entry again). ret_id, ret_commit (malloc'ed, NULL when
 * it had none) and ret_t (when measured), each may be NULL, get what it was. Returns 0,
 * -ENOENT (no such entry), -EINVAL (not hex digits, or the start of several keys) or
 * -errno, with one line in err. */
int pmc_history_remove(struct pmc_history *h, const char *key, char ret_id[65], char **ret_commit,
		       int64_t *ret_t, char *err, size_t errlen);

/* What list, show, export and changes select; NULL, 0: anything. */
struct pmc_history_filter {
	const char *benchmark, *metric, *branch, *machine, *fingerprint;
	const char *commit_from, *commit_to; /* prefixes of commits: entries from the first
						measurement of one to the last of the other */
	int64_t since, until;		     /* unix seconds, inclusive */
	const char *const *tags;	     /* "key=value", every one must match */
	size_t ntags;
};

/* When commit was first (or with last, last) measured: the entries whose commit is that
 * name (any text `add --commit` took), or when none is and it is hex digits, whose commit
 * starts with it (--from, --to, changes --new-since). Returns 0, or -ENOENT (no entry
 * measured it), -EINVAL (an empty name) or -errno, with one line in err. */
int pmc_history_commit_time(struct pmc_history *h, const char *commit, bool last, int64_t *ret,
			    char *err, size_t errlen);

/* The entries f selects, oldest first (by t, then by id), in *ret (free with
 * pmc_history_entries_free). Returns 0 or -errno with one line in err. */
int pmc_history_list(struct pmc_history *h, const struct pmc_history_filter *f,
		     struct pmc_history_entry **ret, size_t *ret_n, char *err, size_t errlen);
void pmc_history_entries_free(struct pmc_history_entry *v, size_t n);

/* Called with the points ps[0..n) of one series (one benchmark, metric and fingerprint,
 * oldest first); they are the reader's, and live until it returns, except their entry's
 * strings (p->e), which live as long as the entries pmc_history_series gives back.
 * Returns 0 to go on, or -errno to stop. */
typedef int (*pmc_history_series_fn)(void *ud, const struct pmc_history_point *ps, size_t n);

/* Calls fn with each series f selects, in the order of pmc_history_points, reading the
 * store series by series in one read transaction: memory holds the selected entries and
 * one (benchmark, metric) at a time, never the store. *ret_entries (may be NULL: freed
 * here) gets the entries the points' p->e borrow from, to free with
 * pmc_history_entries_free. Returns 0, fn's error (err untouched), or -errno with one line
 * in err. */
int pmc_history_series(struct pmc_history *h, const struct pmc_history_filter *f,
		       pmc_history_series_fn fn, void *ud, struct pmc_history_entry **ret_entries,
		       size_t *ret_nentries, char *err, size_t errlen);

/* The points f selects, by series (benchmark, metric, fingerprint) and in each oldest
 * first, in *ret (free with pmc_history_points_free). Returns 0 or -errno. */
int pmc_history_points(struct pmc_history *h, const struct pmc_history_filter *f,
		       struct pmc_history_point **ret, size_t *ret_n, char *err, size_t errlen);
void pmc_history_points_free(struct pmc_history_point *v, size_t n);

/* The baseline of a gate (docs/history.md, "Gate"): for the benchmarks of r, the samples
 * of the last k entries of r's fingerprint (meta as pmc_history_fingerprint) on
 * branch (NULL: any), r itself left out, as one result whose runs record the entry they
 * come from as their process; of each metric only the entries of its current level
 * (pmc_cp_current_level: exact when simulated and each entry's samples agree) are
 * measured, the others NAN; created is the newest entry's time. k is at most
 * PMC_HISTORY_MAX_LAST (-EINVAL beyond). Only
 * the metrics that one of the nmetrics fnmatch(3) patterns metrics matches are read
 * (nmetrics 0: all); when a pattern matches none of them, all are. *ret_n gets the
 * number of entries used (0: *ret is NULL). Returns 0 or -errno with one line in err. */
#define PMC_HISTORY_MAX_LAST 128
int pmc_history_baseline(struct pmc_history *h, const struct pmc_result *r,
			 const struct pmc_history_meta *meta, const char *branch, size_t k,
			 const char *const *metrics, size_t nmetrics, struct pmc_result **ret,
			 size_t *ret_n, char *err, size_t errlen);

/* The series of a history (docs/history.md) as plain data: the entries and points a store
 * returns, a series' change points (changepoint.h over the points' medians), and the rows
 * of `history changes` that a selection (changepoint_judge.h) keeps. No store here: the
 * history layer reads the points, the reporters render what is computed here. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/changepoint.h"
#include "core/changepoint_judge.h"

/* An entry of a history: one result added, with where and when it was measured. */
struct pmc_history_entry {
	char *id;
	int64_t t;     /* when measured (the result's created time), unix seconds */
	int64_t added; /* when added */
	char *commit, *branch, *fingerprint, *machine, *kernel, *cpu, *compiler, *backend,
	    *target_env, *source, *tags; /* tags: "k=v,k=v" in key order, "" for none */
};

/* One metric of one benchmark in one entry: a point of a series. */
struct pmc_history_point {
	struct pmc_history_entry e; /* the entry it belongs to */
	char *benchmark, *metric, *unit;
	int better;	/* enum pmc_better */
	bool simulated; /* counted by a simulator: exact */
	double median;	/* of the measured samples; NAN when none was */
	size_t n;
	double *samples; /* n entries, NAN where not measured */
};

/* Whether two points are of one series (benchmark, metric and fingerprint). */
bool pmc_history_same_series(const struct pmc_history_point *a, const struct pmc_history_point *b);

/* One series: ps[0..n) (one benchmark, metric and fingerprint, oldest first), borrowed.
 * The points with a median are its values x[0..nx); at[i] is the point of value i; the
 * change points index the values. */
struct pmc_series {
	const struct pmc_history_point *ps;
	size_t n;
	double *x;
	size_t *at;
	size_t nx;
	struct pmc_changepoint *cps;
	size_t ncps;
	/* The change points reported as the series grew and withdrawn since. */
	struct pmc_cp_withdrawn *wd;
	size_t nwd;
};

/* The change points of the series at ps[0..n) by o (its exact decided here: a
 * simulator's series whose every point's samples are equal). Returns 0, -ENOMEM or
 * -EINVAL (o is not valid); s is to clear either way. */
int pmc_series_changes(const struct pmc_history_point *ps, size_t n, const struct pmc_cp_opts *o,
		       struct pmc_series *s);
void pmc_series_clear(struct pmc_series *s);

/* A change point of `history changes`: where, between which commits, how large. */
struct pmc_change_row {
	const char *benchmark, *metric, *unit;
	const char *machine, *backend, *fingerprint, *branch; /* NULL when not known */
	const char *entry;		    /* the entry of the first point after it */
	const char *commit_before, *commit; /* the commits around it, or NULL */
	char measured[32];		    /* when the first point after was */
	size_t points;			    /* of its series */
	struct pmc_changepoint cp;
	enum pmc_cp_way way;
};

/* A change point that an earlier `history changes` reported and the points since
 * withdrew (docs/history.md, "Stable as the series grows"): where it was, when it was
 * reported and when withdrawn, each with its commit. */
struct pmc_withdrawn_row {
	const char *benchmark, *metric, *machine;
	const char *commit_before, *commit;	/* around where it was, or NULL */
	const char *reported_at, *withdrawn_at; /* the commits of those points, or NULL */
	char withdrawn_measured[32];		/* when the point that withdrew it was */
	struct pmc_cp_withdrawn w;
};

/* The change points of a selection of series. The rows own copies of their benchmark,
 * metric and unit (a series' points go once it is read) and borrow the entries' strings. */
struct pmc_changes {
	struct pmc_change_row *rows;
	size_t n;
	size_t nseries;	       /* selected */
	const char *store;     /* as it may be shown */
	const char *new_since; /* --new-since as given (the rows are the new ones), or NULL */
	int64_t from;	       /* the rows' first points are at or after it (0: any) */
	struct pmc_cp_select select;
	char **names; /* what the rows own */
	size_t nnames;
	/* The change points withdrawn, at or after from (whatever the selection: a reader
	 * who saw one must learn it is gone). */
	struct pmc_withdrawn_row *gone;
	size_t ngone;
};

/* Adds the rows of the change points of s that c->select keeps, whose first point after
 * the change is at or after c->from, and counts s among c->nseries. Returns 0 or -ENOMEM. */
int pmc_changes_add(struct pmc_changes *c, const struct pmc_series *s);
void pmc_changes_clear(struct pmc_changes *c);

/* The regressions among c's rows. */
size_t pmc_changes_regressions(const struct pmc_changes *c);

/* The verdict for a pull request: with new_since, "regression" when a regression is among
 * the rows, else "pass"; NULL without new_since (old changes are not news). */
const char *pmc_changes_verdict(const struct pmc_changes *c);

/* Unix seconds as "2026-01-02T03:04:05Z". */
void pmc_history_time_text(int64_t t, char buf[32]);

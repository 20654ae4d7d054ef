/* What the files of `pmcbench history` share (docs/history.md). The command is cut by
 * subcommand:
 *   cli_history.c          the help, the options of every action, the dispatcher
 *   cli_history_add.c      add (and run --history)
 *   cli_history_list.c     list
 *   cli_history_remove.c   remove
 *   cli_history_export.c   export
 *   cli_history_series.c   what show and changes share: a series' change points, charts
 *   cli_history_show.c     show
 *   cli_history_changes.c  changes
 *   cli_history_gate.c     gate
 *   cli_history_bisect.c   bisect
 * Private to these files. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <jansson.h>

#include "core/changepoint.h"
#include "core/changepoint_judge.h"
#include "history/history.h"
#include "base/error.h"
#include "reporters/trend.h"

/* history bisect's options (docs/history.md, "Bisect"). */
struct pmc_cli_bisect_opts {
	const char *good, *bad; /* commits */
	const char *build;	/* run by sh -c at each commit */
	const char *threshold;	/* gate's METRIC=LIMIT */
	const char *backend;	/* run's --backend, or NULL */
	size_t runs;		/* 0: 1 for exact counts (valgrind), else 6 */
};

/* What the options of any action set. */
struct hopts {
	const char *db;
	const char *commit, *branch, *compiler, *machine, *format, *output, *svg, *html;
	struct pmc_cli_bisect_opts bisect;
	const char **tags;
	size_t ntags;
	size_t last;
	struct pmc_history_filter f;
	struct pmc_cp_opts cp;
	/* changes: only the change points after this commit or time, and which */
	const char *new_since;
	struct pmc_cp_select select;
};

struct pmc_cli_compare_opts;

/* The actions: each returns the exit code. argv[0..argc) are the arguments after the
 * options. */
int pmc_cli_hist_add(int argc, char **argv, struct hopts *o);
int pmc_cli_hist_list(int argc, char **argv, struct hopts *o);
int pmc_cli_hist_show(int argc, char **argv, struct hopts *o);
int pmc_cli_hist_export(int argc, char **argv, struct hopts *o);
int pmc_cli_hist_remove(int argc, char **argv, struct hopts *o);
int pmc_cli_hist_changes(int argc, char **argv, struct hopts *o);
int pmc_cli_hist_gate(int argc, char **argv, struct hopts *o, struct pmc_cli_compare_opts *co);

/* Runs the bisect of COMMAND (argv[0..argc)) in the git checkout of the working
 * directory; prints the first bad commit and its change. Returns the exit code. */
int pmc_cli_history_bisect(int argc, char **argv, struct pmc_cli_bisect_opts *o);

/* Opens the store of --db, $PMCBENCH_HISTORY or the default (cli_history.c). Returns 0,
 * or -1 after an error line. */
int pmc_cli_hist_open(const struct hopts *o, unsigned flags, struct pmc_history **ret);

/* Writes "did you mean './my-prog'?" into buf when the entries f selects, whatever their
 * benchmark, hold names close to f's benchmark (a name typed without its "./"), else "". */
void pmc_cli_hist_near_benchmark(struct pmc_history *h, const struct pmc_history_filter *f,
				 char *buf, size_t size);

/* "2026-01-02", "2026-01-02T03:04[:05][Z]" (UTC) in unix seconds. Returns 0, or -EINVAL
 * (not a time; nothing printed). */
int pmc_cli_hist_parse_when(const char *s, int64_t *ret);

/* Unix seconds as "2026-01-02T03:04:05Z". */
static inline void when_text(int64_t t, char buf[32])
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* A name from a store, safe to print: control characters escaped. */
static inline const char *q(char *buf, size_t len, const char *s)
{
	return pmc_quote(buf, len, s ? s : "-");
}

/* A string of a store as JSON: null when it has none. */
static inline json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* ---- A series and its charts (cli_history_series.c) ---- */

/* One series: ps[0..n) (one benchmark, metric and fingerprint, oldest first). The
 * points with a median are its values; at[i] is the point of value i. */
struct series {
	const struct pmc_history_point *ps;
	size_t n;
	double *x;
	size_t *at;
	size_t nx;
	struct pmc_changepoint *cps;
	size_t ncps;
};

/* The change points of the series at ps[0..n). Returns 0, or -errno after an error line. */
int pmc_cli_hist_series_changes(const struct pmc_history_point *ps, size_t n, const struct hopts *o,
				struct series *s);
void pmc_cli_hist_series_clear(struct series *s);

/* A series drawn (reporters/trend.h), owning what its trend points at. */
struct chart {
	struct pmc_trend t;
	struct pmc_trend_point *pts;
	char (*labels)[16];
	char (*whens)[32];
	struct pmc_changepoint *cps;
	/* Of their own allocation: t points at them, and the array of charts moves as it
	 * grows. */
	char *title, *subtitle, *unit;
	/* Its first entry: where it was measured (its strings borrowed from the entries the
	 * series came with, which outlive the charts). */
	struct pmc_history_entry e;
};

struct charts {
	struct chart *v;
	size_t n;
	char **skipped; /* the titles of the series never measured: no chart */
	size_t nskipped;
};

/* Adds the chart of s, taking its change points; a series never measured (no value) gets
 * no chart, only its name in skipped. Returns 0, or -ENOMEM after an error line. */
int pmc_cli_hist_charts_add(struct charts *cs, struct series *s);
void pmc_cli_hist_charts_clear(struct charts *cs);

/* The charts into path, atomically: an SVG file, or with html a page of the change
 * points and every chart. Titles that two charts share get what tells them apart.
 * Returns 0, or -errno after an error line. */
int pmc_cli_hist_write_charts(const char *path, struct charts *cs, bool html, const char *store);

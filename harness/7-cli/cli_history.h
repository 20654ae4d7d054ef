/* What the files of `pmcbench history` share (docs/history.md). The command is cut by
 * subcommand:
 *   cli_history.c          the help, the options of every action, the dispatcher
 *   cli_history_add.c      add (and run --history)
 *   cli_history_list.c     list
 *   cli_history_remove.c   remove
 *   cli_history_export.c   export
 *   cli_history_series.c   what show and changes share: a series' change points, charts
 *                          into a file
 *   cli_history_show.c     show
 *   cli_history_changes.c  changes
 *   cli_history_gate.c     gate
 *   cli_history_bisect.c   bisect
 * Private to these files. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/changepoint.h"
#include "core/changepoint_judge.h"
#include "history/history.h"
#include "base/error.h"

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

struct pmc_charts;
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

/* A name from a store, safe to print: control characters escaped. */
static inline const char *q(char *buf, size_t len, const char *s)
{
	return pmc_quote(buf, len, s ? s : "-");
}

/* ---- What show and changes share (cli_history_series.c) ---- */

/* The change points of the series at ps[0..n) by o's options (core/series.h). Returns 0,
 * or -errno after an error line; s is to clear either way. */
int pmc_cli_hist_series(const struct pmc_history_point *ps, size_t n, const struct hopts *o,
			struct pmc_series *s);

/* The charts into path, atomically, in format ("svg": the charts; "html": a page of the
 * change points and every chart; reporters/charts.h). An SVG of no chart (every series
 * never measured) is an error. Returns 0, or -errno after an error line. */
int pmc_cli_hist_write_charts(const char *path, const struct pmc_charts *cs, const char *format,
			      const char *store);

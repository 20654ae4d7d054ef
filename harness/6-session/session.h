/* The session (layer 6, docs/architecture.md): the one sequence of `pmcbench run` and of
 * every benchmark program — probe the events, run the commands or the registered
 * benchmarks, report, save, export, compare, gate — and the comparisons and their reports
 * that `pmcbench compare` and `gate` share with it. Nothing here prints: messages go to
 * the caller's print function (struct pmc_session_printer), reports to the streams the
 * caller gives. The public face is pmcbench/session.h. */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/filter.h"
#include "microbench/microbench.h"
#include "run/runner.h"
#include "core/sequential.h"
#include "pmcbench/compare.h"
#include "pmcbench/session.h"

struct pmc_comparison;
struct pmc_event_list;
struct pmc_flame_view;
struct pmc_profile;
struct pmc_report_opts;
struct pmc_result;
struct pmc_sys;
struct pmc_thresholds;

/* ---- session_print.c: messages ---- */

struct pmc_session_printer {
	pmc_session_print_fn fn; /* NULL: messages are dropped */
	void *ud;
};

/* One message at level, formatted. pr may be NULL. */
void pmc_session_say(const struct pmc_session_printer *pr, enum pmc_session_level level,
		     const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The file of option opt ("--output", "--export") can be written: not empty, not a
 * directory, its directory writable. Else an error message and -EINVAL. */
int pmc_session_check_path(const struct pmc_session_printer *pr, const char *opt, const char *path);

/* How a message names a report's stream: "standard output", "standard error" or "the
 * report stream". */
const char *pmc_session_stream_name(FILE *f);

/* Flushes f and says whether everything written to it arrived, so that a full disk or a
 * closed pipe does not pass for a report that was written: 0, or -errno (-EIO when the
 * stream does not say which). */
int pmc_session_stream_flush(FILE *f);

/* A format whose report on a stream is one document (json, csv, gobench: the reporter's
 * `document`), so that any other output beside it (a comparison, the sequential
 * decisions) goes elsewhere. */
bool pmc_session_format_is_document(const char *format);

/* ---- session_exports.c: --export FILE, repeatable (docs/export.md) ---- */

struct pmc_session_export {
	const char *path;   /* borrowed */
	const char *format; /* the canonical format name the extension names */
};

struct pmc_session_exports {
	struct pmc_session_export *v;
	size_t n;
};

/* Adds path. Returns 0, or -EINVAL (an extension that names no format) or -ENOMEM after
 * an error message. */
int pmc_session_exports_add(struct pmc_session_exports *x, const char *path,
			    const struct pmc_session_printer *pr);
/* Adds path in format, a reporter's name, whatever its extension says (Google
 * Benchmark's --benchmark_out_format). Returns 0, or -ENOMEM after an error message. */
int pmc_session_exports_add_as(struct pmc_session_exports *x, const char *path, const char *format,
			       const struct pmc_session_printer *pr);
/* Every export's directory is writable, checked before anything runs: else an error
 * message and -EINVAL. */
int pmc_session_exports_check(const struct pmc_session_exports *x,
			      const struct pmc_session_printer *pr);
/* Writes r (with its analysis a, NULL to analyse it where needed, and its report
 * options) to every export file, each atomically; a failure is one error message and
 * the others are still written. Returns 0 or the first error. */
struct pmc_analysis;
int pmc_session_exports_result(const struct pmc_session_exports *x, const struct pmc_result *r,
			       const struct pmc_analysis *a, const struct pmc_report_opts *ro,
			       const struct pmc_session_printer *pr);
/* The same for a comparison. */
int pmc_session_exports_comparison(const struct pmc_session_exports *x,
				   const struct pmc_comparison *c, const struct pmc_report_opts *ro,
				   const struct pmc_session_printer *pr);
/* One base compared with several files (`compare A B C`): cs[i] compares names[0] with
 * names[i + 1]. */
struct pmc_session_comparison_set {
	const struct pmc_comparison *const *cs;
	const char *const *names;
	size_t n;
};
/* The same for several comparisons with one base, in one report each file. */
int pmc_session_exports_comparisons(const struct pmc_session_exports *x,
				    const struct pmc_session_comparison_set *set,
				    const struct pmc_report_opts *ro,
				    const struct pmc_session_printer *pr);
void pmc_session_exports_clear(struct pmc_session_exports *x);

/* ---- session_profiles.c: profiles beside results (docs/profile.md) ---- */

struct pmc_session_profile {
	char *name; /* the benchmark's */
	struct pmc_profile *p;
};

/* The profiles of one result, by benchmark name, and the directory they are in (NULL
 * when they were not saved). */
struct pmc_session_profiles {
	struct pmc_session_profile *v;
	size_t n, cap;
	char *dir;
};

/* `run --profile`: one profiled run of each command, as the measured runs ran it, saved
 * in RESULT.profiles/ beside result_path (or pmcbench.profiles/ without one). A profile
 * never fails the run (docs/profile.md, "Profiles in the gate"): a command that cannot be
 * profiled, a profile that cannot be saved, a directory that cannot be made, each is a
 * warning, and the others go on. off_cpu: where each command waits (record --off-cpu,
 * docs/profile.md, "Off-CPU time"), not where it runs. Stops early when *ro->stop. */
void pmc_session_profiles_record(struct pmc_session_profiles *ps, const struct pmc_runner_cmd *cmds,
				 size_t n, const struct pmc_runner_opts *ro, bool off_cpu,
				 const char *result_path, const struct pmc_session_printer *pr);

/* The directory the profiles of result_path go to (created when missing): RESULT.profiles/,
 * or pmcbench.profiles/ when result_path is NULL. Returns 0, or -errno after a warning
 * (ps->dir stays NULL: profiles are then kept in memory only). */
int pmc_session_profiles_open_dir(struct pmc_session_profiles *ps, const char *result_path,
				  const struct pmc_session_printer *pr);

/* Takes p (freed with ps) as the profile of benchmark name, saves it in ps->dir (when
 * there is one) and says where (display: how the user wrote the benchmark). Returns 0,
 * or -errno after a warning: the caller goes on without the file. */
int pmc_session_profiles_keep(struct pmc_session_profiles *ps, const char *name,
			      const char *display, struct pmc_profile *p,
			      const struct pmc_session_printer *pr);

/* Says why the profile of name could not be recorded (r < 0, err its line). Returns true
 * when sampling is denied (EACCES, EPERM), which holds for every later one too: the caller
 * stops trying, and that was said once. */
bool pmc_session_profile_failed(int r, const char *name, const char *err,
				const struct pmc_session_printer *pr);

/* `compare`, `gate`, `run --baseline`: the profiles saved beside result_path for r's
 * benchmarks, those that exist (a damaged one is a warning). Returns 0 or -ENOMEM. */
int pmc_session_profiles_load(struct pmc_session_profiles *ps, const char *result_path,
			      const struct pmc_result *r, const struct pmc_session_printer *pr);

void pmc_session_profiles_clear(struct pmc_session_profiles *ps);

/* For every regression of c whose two sides have profiles: which functions account for
 * it (the old side is benchmark ref_name when it is set: `run -c A -c B`), and the path
 * of its differential flame graph in new_ps->dir, which draw writes (a second report of
 * the same comparison names it without drawing it again). Writes nothing when neither
 * side has a profile. */
void pmc_session_profiles_explain(const struct pmc_comparison *c,
				  const struct pmc_session_profiles *old_ps,
				  const struct pmc_session_profiles *new_ps, const char *ref_name,
				  bool markdown, FILE *out, bool draw,
				  const struct pmc_session_printer *pr);

/* The flame graph of new_p (differential against old_p when set) into path,
 * atomically, drawn as view says (NULL: the defaults). Returns 0, or -errno after an
 * error message. */
int pmc_session_write_flamegraph(const char *path, const struct pmc_profile *old_p,
				 const struct pmc_profile *new_p, const struct pmc_flame_view *view,
				 const struct pmc_session_printer *pr);

/* ---- session_compare.c: comparisons, the gate, and their reports ---- */

enum pmc_session_color {
	PMC_SESSION_COLOR_AUTO, /* when the stream is a terminal and NO_COLOR is unset or empty */
	PMC_SESSION_COLOR_ALWAYS,
	PMC_SESSION_COLOR_NEVER,
};

/* How to compare and report (the comparison options of `compare`, `gate` and `run`). */
struct pmc_session_compare {
	double alpha, confidence;
	char **metrics; /* owned */
	size_t nmetrics;
	const char *format; /* a format of pmcbench/report.h, by its canonical name */
	char *report;	    /* the --report file (owned), or NULL */
	struct pmc_thresholds *thresholds; /* owned */
	bool no_fdr, fail_on_inconclusive, force, unpaired;
	enum pmc_session_color color;
	FILE *out;			    /* the report's stream; NULL: none is written there */
	struct pmc_session_exports exports; /* compare, gate: --export */
	/* The profiles of both sides: a regression is explained with them. profile_ref: the
	 * old side's benchmark in a reference comparison. Borrowed. */
	const struct pmc_session_profiles *old_profiles, *new_profiles;
	const char *profile_ref;
	bool all_rows;		  /* every row (--all); else the rows without change fold */
	bool by_benchmark;	  /* compare --row metric: a table per benchmark */
	struct pmc_filter filter; /* compare --filter */
};

/* The defaults (alpha 0.05, confidence 0.95, table, an empty set of limits) in c.
 * Returns 0 or -ENOMEM. */
int pmc_session_compare_init(struct pmc_session_compare *c);
void pmc_session_compare_clear(struct pmc_session_compare *c);

/* Whether reports on f get colour. */
bool pmc_session_compare_color(const struct pmc_session_compare *c, FILE *f);

/* The columns a report on f may take (pmc_report_opts.width): COLUMNS when it is a
 * number, as ls(1) and every curses program honour it; else the width of the terminal f
 * writes to (TIOCGWINSZ); else 0, no limit: a pipe or a file gets every column, as perf
 * stat and hyperfine write them (docs/cli.md, "Width"). */
unsigned pmc_session_stream_width(FILE *f);

/* Compares new against old as `compare` (gate=false) or `gate` (gate=true) would, writes
 * the report on c->out (and to the report file and the exports) and returns the decision
 * (PMC_DECISION_PASS for a comparison that is not a gate). old_name/new_name label the
 * sides. */
enum pmc_decision pmc_session_compare_results(const struct pmc_result *old_r, const char *old_name,
					      const struct pmc_result *new_r, const char *new_name,
					      const struct pmc_session_compare *c, bool gate,
					      const struct pmc_session_printer *pr);

/* Compares the benchmarks of build new_label of r with those of old_label, as `run
 * --library A.so --library B.so` does (pmc_compare_builds), writes the report and returns
 * the decision. */
enum pmc_decision pmc_session_compare_builds(const struct pmc_result *r, const char *old_label,
					     const char *new_label,
					     const struct pmc_session_compare *c, bool gate,
					     const struct pmc_session_printer *pr);

/* Compares every benchmark of r against its benchmark ref (0-based), as `run -c A -c B`
 * does, writes the report and returns the decision. pre, when not NULL, is the comparison
 * pmc_session_compare_headline() computed (it is used and freed, and the headline not
 * written again). */
enum pmc_decision pmc_session_compare_reference(const struct pmc_result *r, size_t ref,
						const struct pmc_session_compare *c, bool gate,
						struct pmc_comparison *pre,
						const struct pmc_session_printer *pr);

/* A benchmark program's --reference: every benchmark of r against the one named
 * ref_name, as pmc_session_compare_reference() compares commands, under the heading
 * "Comparison against the reference 'NAME':" on out (NULL: none). A reference with no
 * result (it failed or skipped itself) is an error message and PMC_DECISION_ERROR. */
enum pmc_decision pmc_session_compare_named(const struct pmc_result *r, const char *ref_name,
					    const struct pmc_session_compare *c, bool gate,
					    FILE *out, const struct pmc_session_printer *pr);

/* `run -c A -c B`: compares as pmc_session_compare_reference() will and writes the line
 * that answers the question (docs/compare.md, "The headline") to out (NULL: compares
 * only). Returns the comparison for pmc_session_compare_reference(), or NULL when it
 * failed (which that call then reports). */
struct pmc_comparison *pmc_session_compare_headline(const struct pmc_result *r, size_t ref,
						    const struct pmc_session_compare *c, FILE *out);

/* `compare A B C ...`: each later file against the first, each comparison as two files
 * give it, reported together (docs/compare.md, "More than two files"). ps: the profiles
 * of each file. */
enum pmc_decision pmc_session_compare_many(struct pmc_result *const *rs, const char *const *names,
					   size_t n, const struct pmc_session_compare *c,
					   const struct pmc_session_profiles *ps,
					   const struct pmc_session_printer *pr);

/* A comparison that could not be made (a file that cannot be loaded, a filter that
 * failed): the error message, and the report of that failure where one was asked for.
 * Returns PMC_DECISION_ERROR. */
enum pmc_decision pmc_session_compare_failed(const struct pmc_session_compare *c, const char *err,
					     const char *old_name, const char *new_name, bool gate,
					     const struct pmc_session_printer *pr);

/* ---- session_seq.c: `run --runs auto` (docs/compare.md, "Sequential") ---- */

/* Rounds go on until the sequential rule decides every limit's metric, or max_runs
 * rounds, or max_time_s. */
struct pmc_session_seq {
	size_t ref;	   /* the reference command, 0-based */
	size_t max_runs;   /* rounds at most */
	double max_time_s; /* <= 0: no time limit */
	const struct pmc_session_compare *cmp;
	/* Filled in while running. */
	double start_s;
	bool out_of_time;
	int error; /* a check that failed: its message in err, the run stopped */
	char err[512];
	struct pmc_seq_check chk; /* the decisions after the last round (settle) */
};

/* Checks the options before any run: a limit names a metric, every limit is relative
 * and has a direction, max_runs reaches the rule's first decision. Returns 0, or -EINVAL
 * after an error message. */
int pmc_session_seq_check_opts(struct pmc_session_seq *s, size_t ncmds,
			       const struct pmc_session_printer *pr);
/* The runner's round_done (harness/3-run/runner.h) with s as round_ud. */
bool pmc_session_seq_round_done(void *s, const struct pmc_result *r, size_t round);
/* After the run: the decisions, and why the rounds stopped in r's design (before r is
 * saved). Returns 0, or -EINVAL after an error message. */
int pmc_session_seq_settle(struct pmc_session_seq *s, struct pmc_result *r,
			   const struct pmc_session_printer *pr);
/* Writes the decisions to out and returns the decision (with gate: a regression, or
 * inconclusive on an undecided metric with fail_on_inconclusive; else a pass); frees
 * them. */
enum pmc_decision pmc_session_seq_report(struct pmc_session_seq *s, const struct pmc_result *r,
					 FILE *out, bool gate,
					 const struct pmc_session_printer *pr);
void pmc_session_seq_clear(struct pmc_session_seq *s);

/* ---- session.c: the sequence ---- */

/* A benchmark's defaults: 8 samples, one in each of 8 processes. At 8 + 8 the smallest p
 * of a test over the processes is 2 / C(16, 8) = 1.6e-4, so a lone change can be
 * significant among up to 300 gated tests (docs/statistics.md, "The unit of
 * replication", "Many comparisons"). */
#define PMC_SESSION_MB_PROCESSES 8
#define PMC_SESSION_MB_SAMPLES PMC_SESSION_MB_PROCESSES

/* Everything a session runs with: what `pmcbench run` and benchmark programs give, of
 * which pmc_session_run() gives a part. */
struct pmc_session_cfg {
	struct pmc_session_printer pr;
	pmc_session_progress_fn progress; /* NULL: none */
	void *progress_ud;
	/* What to run: commands (their paths are looked up here), with the runner's options
	 * (events and progress are the session's to set) ... */
	struct pmc_runner_cmd *cmds;
	size_t ncmds;
	struct pmc_runner_opts ro;
	/* ... or benchmarks, with the measurement's options: in this process (no_fork), or
	 * each in processes (0: PMC_SESSION_MB_PROCESSES) that run this program again, through
	 * "run --library PATH" for each of the nlibraries shared objects (none: the
	 * program's own), with its options args. Two builds of the benchmarks
	 * (docs/microbench.md, "Comparing two builds"): labels[0] and labels[1], given as
	 * "-n LABEL" before each library, name their benchmarks "LABEL:name"; the second is
	 * compared with the first round by round, and gated with gate. Two builds of a
	 * benchmark program: other_program is the executable of the first (labels[0]), this
	 * program the second, and each build's processes run its own executable with
	 * "--build-label LABEL" and args (NULL: none). */
	const struct pmc_mb_set *benchmarks;
	struct pmc_mb_opts mo;
	bool no_fork;
	size_t processes;
	const char *const *libraries;
	const char *const *labels;
	size_t nlibraries;
	const char *other_program;
	char *const *args;
	size_t nargs;
	/* One build's benchmarks compared with one of them (a benchmark program's
	 * --reference, as `run --reference` compares commands): its name, NULL for none;
	 * round p is every benchmark's p-th process, and gate judges them. */
	const char *reference_name;
	/* What to count (perf backend): an event list (NULL: PMC_DEFAULT_EVENTS). */
	const char *events;
	bool require_counters;
	bool quiet;	      /* no progress, no note of a counter that cannot be counted */
	bool profile;	      /* one profiled run of each command or benchmark, beside the result */
	bool profile_off_cpu; /* commands: that run records where they wait (off-CPU time) */
	/* The result's report on out (NULL: none) in format, with medians or the stats. */
	FILE *out;
	const char *format;
	bool median, stats;
	/* Where a comparison and the sequential decisions go when the report on out is one
	 * document (JSON, CSV, Go's format): stderr in the CLI. */
	FILE *aside;
	const char *output;
	const struct pmc_session_exports *exports;
	/* Compare with the baseline file, or several commands against the reference
	 * (0-based), gating them with gate; runs_auto: rounds until the sequential rule
	 * decides (seq's max_runs, max_time_s). */
	const char *baseline;
	struct pmc_session_compare *cmp;
	size_t reference;
	bool gate;
	bool runs_auto;
	struct pmc_session_seq seq;
	/* Called with true before commands start and with false after they ended: the
	 * caller's signal handlers, which set ro.stop and stop ro.running, go there. */
	void (*guard)(bool on, void *ud);
	void *guard_ud;
};

/* Runs the session cfg describes (pmcbench/session.h, pmc_session_run). Returns 0 with
 * the decision in *ret_decision and, when ret_result is not NULL, the result; -EINTR when
 * *cfg->ro.stop was set (the error message says what was written); another -errno after
 * an error message. */
int pmc_session_exec(struct pmc_session_cfg *cfg, enum pmc_decision *ret_decision,
		     struct pmc_result **ret_result);

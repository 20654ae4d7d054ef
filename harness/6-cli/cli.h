/* The command-line front end: one entry point per subcommand. Only this layer prints
 * to the terminal. */
#pragma once

#include "core/sequential.h"

#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct pmc_result;
struct pmc_event_list;
struct pmc_sys;
struct pmc_report_opts;

/* Exit codes (README, "Exit codes"). */
enum {
	PMC_EXIT_OK = 0,
	PMC_EXIT_REGRESSION = 1,
	PMC_EXIT_ERROR = 2,
	PMC_EXIT_INCONCLUSIVE = 3,
};

/* Each takes the arguments after the subcommand name (argv[0] is the subcommand) and
 * returns the process exit code. "--help" prints the command's help and returns 0. */
int pmc_cli_run(int argc, char **argv);
int pmc_cli_compare(int argc, char **argv);
int pmc_cli_gate(int argc, char **argv);
int pmc_cli_list(int argc, char **argv);
int pmc_cli_doctor(int argc, char **argv);
int pmc_cli_record(int argc, char **argv);
int pmc_cli_report(int argc, char **argv);

/* Signals while commands run (cli_signal.c): the handler kills the process group of
 * every non-zero pmc_cli_running slot (pmc_runner_opts.running, pmc_record_opts.running)
 * and sets pmc_cli_interrupted to the signal; pmc_cli_die_interrupted() then says so,
 * with what happened to the output ("nothing was written"), and re-raises it. */
#define PMC_CLI_RUNNING_SLOTS 2
extern volatile sig_atomic_t pmc_cli_interrupted;
extern volatile sig_atomic_t pmc_cli_running[PMC_CLI_RUNNING_SLOTS];
void pmc_cli_catch_signals(bool on);
void pmc_cli_die_interrupted(const char *what);

/* Prints "pmcbench: <message>" on stderr as one line. */
void pmc_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "pmcbench: warning: <message>" on stderr as one line. */
void pmc_cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints each line of text (a command's own output) on stderr after an indent, escaped
 * as every message is; lead (may be NULL) goes before the first line. */
void pmc_cli_quote_lines(const char *text, const char *lead);

/* The option parser of every subcommand (cli_opts.c). */

/* own's entries followed by shared's, in one malloc'ed table ending with a zero entry;
 * NULL on ENOMEM. Either may be NULL. */
struct option *pmc_cli_options_merge(const struct option *own, const struct option *shared);

/* getopt_long (set optind to 0 before the first call) with the rules of every command:
 * shortopts starts with ":" (or "+:" to stop at the first operand). Returns the option,
 * -1 at the end of the options, or '?' after printing one error line naming the
 * unknown, ambiguous or value-less option and 'pmcbench help CMD'. */
int pmc_cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
		   const char *cmd);

/* Option values, one way for every command (cli_opts.c); each returns 0, or -EINVAL
 * after one error line naming opt and the value. A whole number from min to max: */
int pmc_cli_parse_count(const char *opt, const char *s, uint64_t min, uint64_t max,
			uint64_t *ret);
/* A count of runs, samples, rounds: from min to PMC_CLI_MAX_COUNT. */
#define PMC_CLI_MAX_COUNT 1000000
int pmc_cli_parse_size(const char *opt, const char *s, size_t min, size_t *ret);
/* A positive, finite number of seconds, at most max when max > 0. */
int pmc_cli_parse_seconds(const char *opt, const char *s, double max, double *ret);

/* Options shared by `compare`, `gate` and `run --baseline`/`run -c A -c B`
 * (implemented in cli_compare.c). */
struct pmc_cli_compare_opts;
struct pmc_comparison;

/* The long options every comparing command accepts (--alpha, --confidence, --metric,
 * --threshold, --thresholds, --no-fdr, --fail-on-inconclusive, --force, --report), to
 * merge into the command's own table; their values are PMC_CLI_COMPARE_OPT_FIRST and up. */
extern const struct option pmc_cli_compare_long_opts[];
#define PMC_CLI_COMPARE_OPT_FIRST 0x200

/* Creates the options with their defaults in *ret. Returns 0 or -ENOMEM. */
int pmc_cli_compare_opts_new(struct pmc_cli_compare_opts **ret);
void pmc_cli_compare_opts_free(struct pmc_cli_compare_opts *o);

/* Takes one option that pmc_cli_getopt returned: 1 when it is a comparison option and
 * was taken, 0 when it is not one, -EINVAL after printing one error line. */
int pmc_cli_compare_opts_handle(struct pmc_cli_compare_opts *o, int opt, const char *value);

/* The report's format by name (table, markdown, json, csv, gobench); -EINVAL after an
 * error line. */
int pmc_cli_compare_opts_set_format(struct pmc_cli_compare_opts *o, const char *name);

/* compare, gate: --export FILE (repeatable), the comparison in the format the extension
 * names, written whenever there is a comparison. 0, or -EINVAL/-ENOMEM after an error
 * line. */
int pmc_cli_compare_opts_add_export(struct pmc_cli_compare_opts *o, const char *path);

/* Where the comparison report goes (default stdout); `run --format json|csv` sends it
 * to stderr so that stdout stays one document. */
void pmc_cli_compare_opts_set_stream(struct pmc_cli_compare_opts *o, FILE *out);
/* `run --unpaired`: runs taken in rounds compared as independent samples. */
void pmc_cli_compare_opts_set_unpaired(struct pmc_cli_compare_opts *o, bool unpaired);

/* What the sequential rule of `run --runs auto` reads of them. */
double pmc_cli_compare_opts_alpha(const struct pmc_cli_compare_opts *o);
const struct pmc_thresholds *pmc_cli_compare_opts_thresholds(const struct pmc_cli_compare_opts *o);
bool pmc_cli_compare_opts_fail_on_inconclusive(const struct pmc_cli_compare_opts *o);
/* The --report file (NULL: none) and whether it is Markdown. */
const char *pmc_cli_compare_opts_report(const struct pmc_cli_compare_opts *o, bool *ret_markdown);

/* Help lines for those options, for the help text of the commands that accept them. */
void pmc_cli_compare_opts_help(FILE *out);

/* Plain ASCII (cli_ascii.c): main() says whether the locale's character set is not
 * UTF-8; pmc_cli_ascii_wrap() then replaces *stream by one that spells the reports'
 * symbols in ASCII ("±" as "+-") and any other non-ASCII character as "?". A no-op
 * unless main() asked; returns 0, or -1 when out of memory. */
void pmc_cli_set_ascii(bool ascii);
int pmc_cli_ascii_wrap(FILE **stream);
/* Flushes and closes the streams pmc_cli_ascii_wrap() made, and puts the originals
 * back; returns 0, or -1 when writing failed. */
int pmc_cli_ascii_finish(void);

/* The profiles of the two sides (cli_profile.h), which explain a regression after the
 * report; ref_name names the old side's benchmark in a reference comparison (`run -c A
 * -c B`), else NULL. Borrowed: they must outlive the comparison calls. */
struct pmc_cli_profiles;
void pmc_cli_compare_opts_set_profiles(struct pmc_cli_compare_opts *o,
				       const struct pmc_cli_profiles *old_ps,
				       const struct pmc_cli_profiles *new_ps, const char *ref_name);

/* An option that would do nothing is an error: when compares is false (nothing will be
 * compared) and a comparison option was given, one error line ending with fix (what to
 * give instead) and -EINVAL; else 0. */
int pmc_cli_compare_opts_check_used(const struct pmc_cli_compare_opts *o, bool compares,
				    const char *fix);

/* Whether reports on f get colour: --color, or by default when f is a terminal and
 * NO_COLOR is unset or empty. */
bool pmc_cli_compare_opts_color(const struct pmc_cli_compare_opts *o, FILE *f);

/* Compares new against old as `compare` (gate=false) or `gate` (gate=true) would, prints
 * the report on its stream (and to the --report file when given) and returns the exit
 * code. old_name/new_name label the sides in the report. */
int pmc_cli_compare_results(const struct pmc_result *old_r, const char *old_name,
			    const struct pmc_result *new_r, const char *new_name,
			    const struct pmc_cli_compare_opts *o, bool gate);

/* Compares every benchmark of r against its benchmark ref (0-based), as `run -c A -c B`
 * does, prints the report and returns the exit code. pre, when not NULL, is the
 * comparison pmc_cli_compare_headline() computed (it is used and freed, and the headline
 * not written again). */
int pmc_cli_compare_reference(const struct pmc_result *r, size_t ref,
			      const struct pmc_cli_compare_opts *o, bool gate,
			      struct pmc_comparison *pre);

/* `run -c A -c B`: compares as pmc_cli_compare_reference() will and writes the line that
 * answers the question (docs/compare.md, "The headline") to out (NULL: compares only),
 * before the run table. Returns the comparison for pmc_cli_compare_reference(), or NULL when it failed (which
 * that call then reports). */
struct pmc_comparison *pmc_cli_compare_headline(const struct pmc_result *r, size_t ref,
						const struct pmc_cli_compare_opts *o, FILE *out);

/* `run --runs auto` (cli_sequential.c, docs/compare.md "Sequential"): rounds go on until
 * the sequential rule decides every limit's metric, or max_runs rounds, or max_time_s. */
struct pmc_cli_seq {
	size_t ref;	   /* the reference command, 0-based */
	size_t max_runs;   /* rounds at most */
	double max_time_s; /* <= 0: no time limit */
	const struct pmc_cli_compare_opts *copts;
	/* Filled in while running. */
	double start_s;
	bool out_of_time;
	int error; /* a check that failed: its message in err, the run stopped */
	char err[512];
	struct pmc_seq_check chk; /* the decisions after the last round (settle) */
};

/* Checks the options before any run: a limit names a metric, every limit is relative
 * and has a direction, max_runs reaches the rule's first decision. Returns 0, or -EINVAL
 * after one error line. */
int pmc_cli_seq_check_opts(struct pmc_cli_seq *s, size_t ncmds);
/* The runner's round_done (harness/3-run/runner.h) with s as round_ud. */
bool pmc_cli_seq_round_done(void *s, const struct pmc_result *r, size_t round);
/* After the run: the decisions, and why the rounds stopped in r's design (before r is
 * saved). Returns 0, or -EINVAL after an error line. */
int pmc_cli_seq_settle(struct pmc_cli_seq *s, struct pmc_result *r);
/* Prints the decisions to out and returns the exit code (with gate: 1 on a regression, 3
 * on an undecided metric with --fail-on-inconclusive, else 0); frees them. */
int pmc_cli_seq_report(struct pmc_cli_seq *s, const struct pmc_result *r, FILE *out, bool gate);

/* Shared by `run` and the benchmark programs' CLI (cli_run.c). */

/* Probes the events once on this process (user-only ones renamed ":u", as perf does)
 * and says in one line which are missing and why, unless quiet (-q: the reports and the
 * result still show each missing counter's status); when every event is denied, it says
 * so even under -q, with what the run goes on with (without: "what wait4 measures ...").
 * With require, a missing event is an error. Returns 0, or -errno after an error line. */
int pmc_cli_probe_events(struct pmc_event_list *ev, bool require, bool quiet,
			 const struct pmc_sys *sys, const char *without, bool *ret_user_only);
/* Two events with one metric id: an error line naming it, -EINVAL. */
int pmc_cli_check_duplicate_events(const struct pmc_event_list *ev, const char *spec);
/* The directory of an output file must be writable: else an error line, -EINVAL. */
int pmc_cli_check_output(const char *path);
/* The same for the file of option opt ("--export"). */
int pmc_cli_check_path(const char *opt, const char *path);

/* --export FILE, repeatable (cli_export.c, docs/export.md): the format each file's
 * extension names (a canonical format name of pmcbench/report.h). */
struct pmc_cli_export {
	const char *path; /* borrowed from argv */
	const char *format;
};

struct pmc_cli_exports {
	struct pmc_cli_export *v;
	size_t n;
};

/* Adds --export path. Returns 0, or -EINVAL (an extension that names no format) or
 * -ENOMEM after one error line. */
int pmc_cli_exports_add(struct pmc_cli_exports *x, const char *path);
/* Every export's directory is writable, checked before anything runs: else an error
 * line and -EINVAL. */
int pmc_cli_exports_check(const struct pmc_cli_exports *x);
/* Writes r (with its report options) to every export file, each atomically; a failure
 * is one error line and the others are still written. Returns 0 or the first error. */
int pmc_cli_exports_result(const struct pmc_cli_exports *x, const struct pmc_result *r,
			   const struct pmc_report_opts *ro);
/* The same for a comparison. */
int pmc_cli_exports_comparison(const struct pmc_cli_exports *x, const struct pmc_comparison *c,
			       const struct pmc_report_opts *ro);
/* One base compared with several files (`compare A B C`): cs[i] compares names[0] with
 * names[i + 1]. */
struct pmc_cli_comparison_set {
	const struct pmc_comparison *const *cs;
	const char *const *names;
	size_t n;
};
/* The same for several comparisons with one base, in one report each file. */
int pmc_cli_exports_comparisons(const struct pmc_cli_exports *x,
				const struct pmc_cli_comparison_set *set,
				const struct pmc_report_opts *ro);
void pmc_cli_exports_clear(struct pmc_cli_exports *x);

/* A format whose report on standard output is one document (json, csv, gobench), so that
 * any other output (a comparison, the sequential decisions) goes to stderr. */
bool pmc_cli_format_is_document(const char *format);

/* pmc_main_defs with the program's name for its messages and help given (cli_microbench.c):
 * `pmcbench run --library PATH` runs a shared object's definitions with it, library
 * giving PATH (NULL for a benchmark program), which the valgrind backend needs to run
 * the same benchmarks again. */
struct pmc_bench_def;
int pmc_cli_microbench(int argc, char **argv, const char *prog, const struct pmc_bench_def *begin,
		       const struct pmc_bench_def *end, const char *library);

/* `pmcbench run --library PATH [OPTIONS]` (cli_library.c): argv as pmc_cli_run got it.
 * True when argv asks for it (--library before any "--"). */
bool pmc_cli_wants_library(int argc, char **argv);
int pmc_cli_run_library(int argc, char **argv);

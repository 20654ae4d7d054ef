/* The command-line front end: one entry point per subcommand. Only this layer prints
 * to the terminal. */
#pragma once

#include "run/runner.h"
#include "session/session.h"

#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes (README, "Exit codes"). */
enum {
	PMC_EXIT_OK = 0,
	PMC_EXIT_REGRESSION = 1,
	PMC_EXIT_ERROR = 2,
	PMC_EXIT_INCONCLUSIVE = 3,
};

/* `run --history DB`: adds the result file that run saved to the history DB, as
 * `history add` does (cli_history_add.c), and returns an exit code; with path NULL,
 * before anything runs, only checks that DB could take it (an existing store opens, a
 * new SQLite file could be created in its directory), saying why not. The history is the
 * pmcbench executable's only (cli/meson.build): its main passes
 * pmc_cli_history_add_file to pmc_cli_run; a caller without a history passes NULL. */
typedef int (*pmc_cli_history_fn)(const char *db, const char *path);
int pmc_cli_history_add_file(const char *db, const char *path);

/* Each takes the arguments after the subcommand name (argv[0] is the subcommand) and
 * returns the process exit code. "--help" prints the command's help and returns 0.
 * pmc_cli_run's history: where --history DB adds the saved result, or NULL (then
 * --history is refused). */
int pmc_cli_run(int argc, char **argv, pmc_cli_history_fn history);
int pmc_cli_compare(int argc, char **argv);
int pmc_cli_gate(int argc, char **argv);
int pmc_cli_list(int argc, char **argv);
int pmc_cli_doctor(int argc, char **argv);
int pmc_cli_record(int argc, char **argv);
int pmc_cli_report(int argc, char **argv);
struct pmc_profile;
/* report --lines FUNC (cli_report_lines.c): the exit status. */
int pmc_cli_report_lines(const char *path, const struct pmc_profile *p, const char *fn);
/* report --annotate FUNC (cli_report_lines.c): the exit status. The check before the
 * profile is read: whether this build can disassemble (one line saying how, if not). */
int pmc_cli_report_annotate(const char *path, const struct pmc_profile *p, const char *fn);
bool pmc_cli_report_annotate_possible(void);
/* One line: no function FN in the profile at path (given to option), with "did you
 * mean" among its functions. */
void pmc_cli_report_unknown_function(const char *path, const struct pmc_profile *p,
				     const char *option, const char *fn);
int pmc_cli_history(int argc, char **argv);

/* Signals while commands run (cli_signal.c): the handler kills the process group of
 * every non-zero pmc_cli_running slot (pmc_runner_opts.running, pmc_record_opts.running),
 * or the process when it leads none (a benchmark's, pmc_mb_opts.running), and sets
 * pmc_cli_interrupted to the signal; pmc_cli_die_interrupted() then says so, with what happened to
 * the output ("nothing was written"), and re-raises it. */
#define PMC_CLI_RUNNING_SLOTS 2
extern volatile sig_atomic_t pmc_cli_interrupted;
extern volatile sig_atomic_t pmc_cli_running[PMC_CLI_RUNNING_SLOTS];
void pmc_cli_catch_signals(bool on);
void pmc_cli_die_interrupted(const char *what);

/* Where a message sends the user for the options: "see 'pmcbench help CMD'", or, once
 * pmc_cli_set_program named a benchmark program, "see 'PROGRAM --help'" (as started,
 * "./bench"). Returns buf. */
void pmc_cli_set_program(const char *argv0);
const char *pmc_cli_see(const char *cmd, char *buf, size_t len);

/* Prints "pmcbench: <message>" on stderr as one line. */
void pmc_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "pmcbench: warning: <message>" on stderr as one line. */
void pmc_cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "pmcbench: note: <message>" on stderr as one line. */
void pmc_cli_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
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
int pmc_cli_parse_count(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *ret);
/* A count of runs, samples, rounds: from min to PMC_CLI_MAX_COUNT. */
#define PMC_CLI_MAX_COUNT 1000000
int pmc_cli_parse_size(const char *opt, const char *s, size_t min, size_t *ret);
/* --backend NAME: one registered in counters/backend.h, whose names the error offers
 * ("use perf or valgrind", or the close ones: docs/events.md, "Errors") (cli_session.c). */
int pmc_cli_parse_backend(const char *v, enum pmc_backend *ret);
/* A positive, finite number of seconds, at most max when max > 0. */
int pmc_cli_parse_seconds(const char *opt, const char *s, double max, double *ret);

/* Options shared by `compare`, `gate` and `run --baseline`/`run -c A -c B`
 * (cli_compare_opts.c): what the session and the comparing commands read (s), and what
 * only parsing needs. */
struct pmc_cli_compare_opts {
	struct pmc_session_compare s;
	const char *first_given; /* the first option that judges a comparison, or NULL */
};

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

/* --report FILE (and compare's and gate's -o, its other name). 0 or -ENOMEM. */
int pmc_cli_compare_opts_set_output(struct pmc_cli_compare_opts *o, const char *path);

/* Help lines for those options, for the help text of the commands that accept them. */
void pmc_cli_compare_opts_help(FILE *out);

/* An option that would do nothing is an error: when compares is false (nothing will be
 * compared) and a comparison option was given, one error line ending with fix (what to
 * give instead) and -EINVAL; else 0. */
int pmc_cli_compare_opts_check_used(const struct pmc_cli_compare_opts *o, bool compares,
				    const char *fix);

/* Plain ASCII (cli_ascii.c): main() says whether the locale's character set is not
 * UTF-8; pmc_cli_ascii_wrap() then replaces *stream by one that spells the reports'
 * symbols in ASCII ("±" as "+-") and any other non-ASCII character as "?". A no-op
 * unless main() asked; returns 0, or -1 when out of memory. */
void pmc_cli_set_ascii(bool ascii);
/* Whether the locale the environment names (LC_ALL, LC_CTYPE, LANG) has a character set
 * other than UTF-8 (nl_langinfo(CODESET)): the one test of when to write ASCII. */
bool pmc_cli_locale_ascii(void);
int pmc_cli_ascii_wrap(FILE **stream);
/* Flushes and closes the streams pmc_cli_ascii_wrap() made, and puts the originals
 * back; returns 0, or -1 when writing failed. */
int pmc_cli_ascii_finish(void);

/* Control characters (cli_controls.c): main() replaces stdout and stderr by streams that
 * write every control character (C0 but newline and tab, DEL, C1 as UTF-8 or as a lone
 * byte) as a space, but for pmcbench's own SGR colours (on a terminal, or anywhere after
 * --color=always: pmc_cli_controls_allow_colour()) and, when allow_erase, the progress
 * line's "\r\033[K": whatever text a command prints from a file, a store or a
 * repository, no escape sequence reaches the terminal or a CI log and no line is forged.
 * The machine formats are not changed: JSON escapes control characters itself, CSV
 * blanks them. Returns 0, or -1 when out of memory. */
int pmc_cli_controls_wrap(FILE **stream, bool allow_erase);
void pmc_cli_controls_allow_colour(void);
/* Flushes and closes the streams pmc_cli_controls_wrap() made, and puts the originals
 * back; returns 0, or -1 when writing failed. */
int pmc_cli_controls_finish(void);
/* The filter itself, for a test: pmc_cli_controls_filter() writes buf's len bytes into
 * out as the stream shows them, keeping an incomplete sequence for the next call;
 * pmc_cli_controls_end() writes what is left. Free with free(). */
struct pmc_cli_controls;
struct pmc_cli_controls *pmc_cli_controls_new(bool allow_colour, bool allow_erase);
void pmc_cli_controls_filter(struct pmc_cli_controls *s, const char *buf, size_t len, FILE *out);
void pmc_cli_controls_end(struct pmc_cli_controls *s, FILE *out);

/* What `run` and the benchmark programs share (cli_session.c): the options of a session
 * with the same meaning in both, the session's messages and progress on stderr, and its
 * decision as the exit status. */

/* -e (repeatable, the lists joined), --require-counters, --backend, -o, --format,
 * --export, -q, --baseline, --profile, --timeout, as they are parsed. */
struct pmc_cli_session_opts {
	char *events; /* owned; NULL: none given */
	/* The presets asked for (--syscalls, --allocs: docs/events.md, "Presets"), counted
	 * besides -e's events, or besides the default ones when -e is not given; and the
	 * list of both, made by pmc_cli_session_spec(). Owned. */
	char *presets;
	char *spec;
	unsigned detailed; /* -d's given: perf stat's detailed cache events (-d, -dd, -ddd) */
	bool require_counters, quiet, profile;
	bool profile_off_cpu; /* --profile=off-cpu: the profiled run records its waits */
	enum pmc_backend backend;
	const char *output, *baseline;
	const char *format; /* a format of pmcbench/report.h, by its canonical name */
	double timeout_s;
	struct pmc_session_exports exports;
	/* The last option given that only a backend that takes events takes (-e,
	 * --require-counters; pmc_backend_ops.takes_events), as the help spells it, or
	 * NULL. */
	const char *perf_only;
};

/* Their long options, to merge into the command's own table; their values are
 * PMC_CLI_SESSION_OPT_FIRST and up, and 'e', 'o', 'q' for the short ones. */
extern const struct option pmc_cli_session_long_opts[];
#define PMC_CLI_SESSION_OPT_FIRST 0x300
/* "e:o:q": their short options, for the command's own shortopts. */
#define PMC_CLI_SESSION_SHORT_OPTS "e:o:qd"

/* Takes one option that pmc_cli_getopt returned: 1 when it is one of them and was taken,
 * 0 when it is not one, -EINVAL or -ENOMEM after one error line. */
int pmc_cli_session_opts_handle(struct pmc_cli_session_opts *o, int opt, const char *value);
/* The default case of run's and benchmark programs' option loops: one of these options,
 * else one of the comparison options (c). 0 when taken, -EINVAL (unknown, or after an
 * error line) or -ENOMEM. */
int pmc_cli_shared_opts_handle(struct pmc_cli_session_opts *o, struct pmc_cli_compare_opts *c,
			       int opt, const char *value);
void pmc_cli_session_opts_clear(struct pmc_cli_session_opts *o);
/* The event list to count: -e's events (the default ones when none was given) and the
 * presets'; NULL for the default list. Owned by o. */
const char *pmc_cli_session_spec(struct pmc_cli_session_opts *o);

/* Sets the fields of cfg that these options and the comparison's (c) give, and the
 * CLI's printer, progress and streams, the same for `pmcbench run` and benchmark
 * programs; the command sets the rest. cfg borrows from o and c. */
void pmc_cli_session_cfg(struct pmc_cli_session_opts *o, struct pmc_cli_compare_opts *c,
			 struct pmc_session_cfg *cfg);

/* own's options, the session's and the comparison's in one malloc'ed table (NULL on
 * ENOMEM after an error line). */
struct option *pmc_cli_session_options(const struct option *own);

/* The session's messages on stderr, each one line (or a command's output, indented),
 * escaped for the terminal: the printer of every session the CLI runs and of the
 * session's functions the other commands call. */
extern const struct pmc_session_printer pmc_cli_printer;
/* The signal handlers around the commands (the session's guard; ud unused). */
void pmc_cli_guard(bool on, void *ud);

/* The exit status of a session's outcome (r < 0: an error; -EINTR: the signal is raised
 * again) and decision: 0 pass, 1 regression, 2 error, 3 inconclusive (docs/compare.md,
 * "Errors and exit status"). */
int pmc_cli_exit_status(int r, enum pmc_decision d);

/* The definitions of a benchmark program, or of a shared object (`run --library PATH`),
 * one of two builds when it has a label (docs/microbench.md, "Comparing two builds"). */
struct pmc_bench_def;
struct pmc_cli_build {
	const char *label; /* its benchmarks are "LABEL:name"; NULL: the only build */
	const char *path;  /* the shared object, which the processes load again; NULL: none */
	const struct pmc_bench_def *begin, *end;
};

/* pmc_main_defs with the program's name for its messages and help given (cli_microbench.c),
 * over the definitions of nbuilds builds: the program's own, or those of `pmcbench run
 * --library PATH` (with two, the second compared with the first round by round). */
int pmc_cli_microbench(int argc, char **argv, const char *prog, const struct pmc_cli_build *builds,
		       size_t nbuilds);

/* The labels of two builds (docs/microbench.md, "Comparing two builds"), into ret
 * (malloc'ed): given[i] when not NULL, else the shortest end of path[i], in whole
 * components, that tells the two apart, and A and B for one path given twice; a ':'
 * becomes '_'. Returns 0, or -EINVAL (two equal labels) / -ENOMEM after an error line
 * (cli_library.c). */
int pmc_cli_build_labels(const char *const path[2], const char *const given[2], char *ret[2]);

/* A label a user gave (-n): not empty, without ':' (which ends it in "LABEL:name"). 0,
 * or -EINVAL after an error line. */
int pmc_cli_check_label(const char *label);

/* `pmcbench run [-n LABEL] --library PATH [[-n LABEL] --library PATH] [OPTIONS]`
 * (cli_library.c): argv as pmc_cli_run got it. True when argv asks for it (--library
 * before any "--"). */
bool pmc_cli_wants_library(int argc, char **argv);
int pmc_cli_run_library(int argc, char **argv);

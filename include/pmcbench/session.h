/* A session: commands or registered benchmarks measured from start to decision, as
 * `pmcbench run` and every benchmark program do it (docs/api.md, "Sessions"): the events
 * probed, the runs, the result's report, the result saved and exported, and the gate
 * against a baseline. The library never prints: every message goes to the caller's print
 * function, every report to the stream the caller gives. Plain C11. */
#ifndef PMCBENCH_SESSION_H
#define PMCBENCH_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "pmcbench/common.h"
#include "pmcbench/compare.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pmc_result;
struct pmc_bench_def;

/* What a message is. pmcbench prints an error as "pmcbench: MSG", a warning as
 * "pmcbench: warning: MSG", a note as "pmcbench: note: MSG", information as
 * "pmcbench: MSG"; output is what a command wrote (its standard error, one or more
 * lines), shown indented; aside is report text that cannot go on the report's stream,
 * which holds one document (`compare --format json` on stdout: where the profiles say a
 * regression's time went), printed as it is to standard error. */
enum pmc_session_level {
	PMC_SESSION_ERROR,
	PMC_SESSION_WARN,
	PMC_SESSION_NOTE,
	PMC_SESSION_INFO,
	PMC_SESSION_OUTPUT,
	PMC_SESSION_ASIDE,
};

/* Receives one message: a line without its newline (several for PMC_SESSION_OUTPUT and
 * PMC_SESSION_ASIDE), as the user wrote names and commands, unescaped. As libbpf's print callback,
 * but set per session. */
typedef void (*pmc_session_print_fn)(enum pmc_session_level level, const char *msg, void *ud);

/* Where a session is, before each run (commands) or each benchmark's process
 * (registered benchmarks); done: the runs ended, a progress line may be cleared. */
struct pmc_session_progress {
	const char *name; /* the command or benchmark about to run */
	size_t run, runs; /* commands: the run (from 1) of runs; benchmarks: the benchmark */
	bool warmup;	  /* commands: an unmeasured run */
	size_t process, processes; /* benchmarks: its process (from 1) of processes */
	double left_s;		   /* commands: the time left at the pace so far; < 0: unknown */
	/* Commands: the median so far of the command's time (task-clock when counted, else
	 * wall-time), in median_unit; median_metric NULL before its first measured run. */
	double median;
	const char *median_metric, *median_unit;
	bool done;
};

typedef void (*pmc_session_progress_fn)(const struct pmc_session_progress *p, void *ud);

struct pmc_session_opts {
	size_t sz; /* sizeof(struct pmc_session_opts) */
	/* What to run: ncommands commands, each split into words as `pmcbench run -c` splits
	 * them (no shell runs), named after names[i] (NULL, or a NULL entry: the command as
	 * written); or the benchmarks registered in [bench_begin, bench_end) whose name
	 * matches bench_filter (POSIX ERE; NULL: all), run in this process. One of the two. */
	const char *const *commands;
	size_t ncommands;
	const char *const *names;
	const struct pmc_bench_def *bench_begin, *bench_end;
	const char *bench_filter;
	/* What to count: a perf event list (NULL: PMC_DEFAULT_EVENTS); with
	 * require_counters an event that cannot be counted is an error. */
	const char *events;
	bool require_counters;
	/* Measured runs per command or samples per benchmark (0: 10 and 8); unmeasured runs
	 * or batches before them. */
	size_t runs;
	size_t warmup;
	/* The result's report in report_format (a format of pmcbench/report.h; NULL:
	 * "table") on report, and the gate's after it; NULL: none. */
	FILE *report;
	const char *report_format;
	/* The result file, written atomically (NULL: none), and more copies of it, each in
	 * the format its extension names (docs/export.md). */
	const char *output;
	const char *const *exports;
	size_t nexports;
	/* Gate the result against this result file (NULL: no gate), with these limits
	 * (NULL: the default, 5%), alpha (0: 0.05), and an inconclusive row failing it. */
	const char *baseline;
	const struct pmc_thresholds *thresholds;
	double alpha;
	bool fail_on_inconclusive;
	/* Messages (NULL: none), and progress (NULL: none). */
	pmc_session_print_fn print;
	void *print_ud;
	pmc_session_progress_fn progress;
	void *progress_ud;
	/* When it becomes non-zero (a signal handler stores the signal's number there), no
	 * further run starts and the session ends with -EINTR. A `volatile sig_atomic_t`,
	 * which is an int on Linux's C libraries; spelled int so that this header needs no
	 * <signal.h>, whose _GNU_SOURCE declarations (unistd.h's dup, pause...) would take
	 * names from the benchmark program. */
	volatile int *stop;
};
#define pmc_session_opts__last_field stop

/* Runs the session: probes the events, runs every command (or benchmark), writes the
 * report, saves and exports the result, and gates it against the baseline. Returns 0 with
 * the decision in *ret_decision (PMC_DECISION_PASS without a baseline; PMC_DECISION_ERROR
 * when something failed after the result was written, e.g. the gate could not decide or
 * a bad benchmark definition was skipped, the others run) and, when ret_result is not NULL, the
 * result in *ret_result (the caller's, freed with pmc_result_free). Returns -EINVAL for bad
 * options, -EINTR when stopped, another -errno when the session failed; each after a
 * PMC_SESSION_ERROR message. */
PMC_API int pmc_session_run(const struct pmc_session_opts *opts, enum pmc_decision *ret_decision,
			    struct pmc_result **ret_result);

#ifdef __cplusplus
}
#endif

#endif /* PMCBENCH_SESSION_H */

/* The result model: a suite holds benchmarks, a benchmark holds metrics, a metric holds
 * one sample per run. harness/3-formats/result_json.h saves and loads it (schema
 * pmcbench-result/1, docs/result-schema.md). A value that was not measured is NAN in memory and
 * null in JSON; NAN never stands for a measured number. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters/reading.h"
#include "pmcbench/common.h"
#include "pmcbench/result.h"

#define PMC_RESULT_SCHEMA PMCBENCH_RESULT_SCHEMA

struct pmc_run_raw {
	uint64_t value, enabled, running;
};

struct pmc_metric {
	char *id; /* stable metric id (metrics.h) */
	char *unit;
	int better;		 /* enum pmc_better */
	bool derived;		 /* computed from other metrics of the same run */
	bool simulated;		 /* counted by a simulator (valgrind), not by hardware */
	bool cross_group;	 /* a ratio of events in different groups: multiplexing skews it */
	size_t n;		 /* samples, one per run */
	double *values;		 /* n entries, NAN where not measured */
	bool has_status;	 /* counter metrics carry per-run status and raw values */
	enum pmc_status *status; /* n entries when has_status */
	struct pmc_run_raw *raw; /* n entries when has_status */
	int error;		 /* errno behind unsupported/denied in every run, else 0 */
	char *note;		 /* why it is missing, or NULL */
	/* A microbenchmark's: the cost per operation of its empty loop, measured beside
	 * the samples and not subtracted from them (docs/microbench.md, "Overhead"). */
	bool has_loop_overhead;
	double loop_overhead;
	/* Hybrid CPUs (docs/events.md, "Hybrid CPUs"): the event was counted on each core
	 * PMU apart and the metric is the sum. Each part is a metric of its own (id: the
	 * PMU's name, "unknown" when the kernel chose; the unit of this one; samples, status
	 * and raw per run), n samples like this one. NULL and 0 otherwise. */
	struct pmc_metric *parts;
	size_t nparts;
	bool restricted; /* counted only on the core types of its parts: not extrapolated */
	/* Private to result.c: the entries allocated in values (status, raw), which grow
	 * geometrically. 0 in a hand-built struct: the arrays are then n long. */
	size_t cap;
};

struct pmc_run_info {
	int exit_code;	 /* -1 when killed by a signal */
	int term_signal; /* 0 unless killed */
	bool timed_out;
	/* The round of a design (struct pmc_design) the run belongs to, from 1: the runs of
	 * the commands in one round are pairs. 0: not taken in rounds. */
	unsigned round;
	bool pinned; /* run on one CPU only (duet), cpu */
	int cpu;
	/* The loop iterations the run's values are per (a microbenchmark's batch size);
	 * 0: not known, a run of a command is one operation. Below 2^63. */
	uint64_t iterations;
	/* The process the run's sample was taken in, from 1 (a benchmark program runs each
	 * benchmark in several); 0: not recorded. Samples of one process share its
	 * conditions: compare tests at the level of processes (docs/statistics.md). */
	unsigned process;
	/* The invocation the run was taken in, from 1, when a result pools several (a
	 * history's baseline: one per entry); 0: the result's own, one invocation (every
	 * result file: a run of pmcbench or of a benchmark program is one). Runs of one
	 * invocation share its conditions, whatever process they ran in: compare does not
	 * test a drifting metric between two results of which a side is one invocation
	 * (docs/statistics.md). Not saved. */
	unsigned invocation;
	/* Its context switches, from wait4 (ru_nvcsw, ru_nivcsw: getrusage(2)): voluntary
	 * when the command blocked (slept, waited for I/O or a child), involuntary when the
	 * scheduler preempted it. switches false: not known (a benchmark program's sample,
	 * a run under valgrind, an import, a file written before they were recorded), never
	 * 0. Below 2^63. */
	bool switches;
	uint64_t voluntary_switches, involuntary_switches;
};

struct pmc_benchmark {
	char *name;
	char *command;	/* as given by the user, or NULL */
	char *build_id; /* hex build-id of the measured executable, or NULL */
	/* Why the benchmark skipped itself ("" when it gave no reason), or NULL when it
	 * ran. A skipped benchmark has no runs and no metrics: nothing was measured. */
	char *skipped;
	/* The unit its times are shown in (enum pmc_time_unit, docs/result-schema.md,
	 * "time_unit"); the values stay in ns. */
	int time_unit;
	/* The parameters whose values made this benchmark's command (run -L, -P:
	 * docs/result-schema.md, "parameters"), name and value, in the order given; none
	 * for a benchmark of a command without them. */
	struct pmc_env_entry *params;
	size_t nparams;
	size_t nruns;
	struct pmc_run_info *runs; /* nruns entries */
	struct pmc_metric *metrics;
	size_t nmetrics;
	/* run -I: per run (its index; nintervals <= nruns), its counts per interval, owned
	 * by the benchmark (core/intervals.h), NULL for a run without; NULL: none at all.
	 * Views that copy the benchmark (filter, compare) share them and never free them. */
	struct pmc_intervals **intervals;
	size_t nintervals;
	/* Private to result.c: the entries allocated in runs and metrics (as cap above). */
	size_t runs_cap, metrics_cap;
};

struct pmc_env_entry {
	char *key;
	char *value;
};

struct pmc_result_priv;
struct pmc_intervals;

/* How the runs of several commands were taken (docs/result-schema.md, "design"). */
struct pmc_design {
	/* "interleaved" (one after the other, the order rotated each round) or "duet" (at
	 * the same time, each on its own CPU); NULL: not recorded (one command, or runs
	 * that were not taken in rounds). */
	char *mode;
	size_t rounds; /* the rounds taken */
	size_t ncpus;  /* duet: the two CPUs, swapped every round */
	int cpus[2];
	char *stopped; /* --runs auto: why the rounds stopped; NULL otherwise */
};

/* A complexity fit over the benchmarks of one definition (docs/result-schema.md,
 * "complexity"; docs/microbench.md, "Complexity"): metric ≈ coef · f(n), least squares,
 * as Google Benchmark's BigO. */
struct pmc_fit {
	char *name;    /* the definition's name: its benchmarks are name/... */
	char *metric;  /* the metric fitted, per benchmark its median ("wall-time/op") */
	char *big_o;   /* one of PMC_FIT_BIG_O */
	double coef;   /* in the metric's unit */
	double rms;    /* root mean square of the residuals over the mean, from 0 */
	size_t points; /* the benchmarks fitted, from 2 */
};

/* The fits' names, as the result spells them. */
#define PMC_FIT_BIG_O "O(1)", "O(log n)", "O(n)", "O(n log n)", "O(n^2)", "O(n^3)", "O(f(n))"

/* True when s is one of PMC_FIT_BIG_O. */
bool pmc_fit_big_o_valid(const char *s);

struct pmc_result {
	char *backend; /* "perf" or "valgrind" */
	char *tool_version;
	char *created; /* ISO 8601 UTC */
	struct pmc_env_entry *env;
	size_t nenv;
	struct pmc_benchmark *benchmarks;
	size_t nbench;
	struct pmc_design design;
	/* Why the run ended before every benchmark had all its runs, the ones it has being
	 * those finished by then (docs/result-schema.md, "incomplete"); NULL: it did not. */
	char *incomplete;
	struct pmc_fit *fits; /* complexity fits, in the order added; none: NULL */
	size_t nfits;
	/* Private to result.c: the name index behind pmc_result_find_benchmark() and the
	 * array's capacity. NULL in a hand-built struct, which then gets a linear search. */
	struct pmc_result_priv *priv;
};

/* The public functions of the model (new, free, set_env, get_env, add_benchmark,
 * find_benchmark, pmc_benchmark_metric, find_metric, the getters) are declared in
 * pmcbench/result.h. Benchmark names are unique: they pair benchmarks across files. */

/* Sets the parameter name (not empty) of a benchmark to value, or adds it. Returns 0,
 * -EINVAL or -ENOMEM. */
/* "ns", "us", "ms", "s" for an enum pmc_time_unit, NULL for PMC_TIME_AUTO or another
 * value; and back: the unit named, or -EINVAL. */
const char *pmc_time_unit_name(int unit);
int pmc_time_unit_from_name(const char *name);

int pmc_benchmark_set_param(struct pmc_benchmark *b, const char *name, const char *value);

/* Adds a copy of fit f to r. Returns 0, -EINVAL (a big_o not of PMC_FIT_BIG_O, a
 * missing name or metric, fewer than 2 points, a coef or rms that is not finite, a
 * negative rms), or -ENOMEM. */
int pmc_result_add_fit(struct pmc_result *r, const struct pmc_fit *f);

/* Records one run of a benchmark. Returns 0, -ENOMEM, or -EINVAL for a skipped one. */
int pmc_benchmark_add_run(struct pmc_benchmark *b, const struct pmc_run_info *run);

/* Gives run (an index below nruns) of b the intervals iv, which b then owns (freed on
 * failure too). Returns 0, -EINVAL (no such run, or it has intervals) or -ENOMEM. */
int pmc_benchmark_set_intervals(struct pmc_benchmark *b, size_t run, struct pmc_intervals *iv);

/* Appends one sample: value is NAN when not measured. reading may be NULL for metrics
 * that are not counters (wall-time, max-rss, derived ones). Returns 0, -ENOMEM, or
 * -EINVAL when the sample contradicts itself or the metric: a number for a reading
 * whose status holds none or NAN for one that does, an infinite value, or a reading
 * for a metric that had none (and the reverse). */
int pmc_metric_append(struct pmc_metric *m, double value, const struct pmc_reading *reading);

/* Appends one run's parts (hybrid CPUs) to m, whose sample of that run was just appended:
 * a part new to m gets NAN (not counted) for the runs before, and a part this run lacks
 * gets one. Returns 0, -ENOMEM, or -EINVAL for a metric without status. */
int pmc_metric_append_parts(struct pmc_metric *m, const struct pmc_reading_parts *p);

/* What the backend says of a metric's event (counters/: for perf, pmc_event_note and
 * the unit its PMU gives in sysfs, RAPL's Joules): unit replaces m's when not NULL or
 * "", note is set when not NULL and m has none yet. Returns 0 or -ENOMEM. */
int pmc_metric_describe(struct pmc_metric *m, const char *unit, const char *note);

/* Sets or clears (NULL) the note saying why a metric is missing. Returns 0 or -ENOMEM. */
int pmc_metric_set_note(struct pmc_metric *m, const char *note);

/* Copies the measured values (not NAN) into out (n entries); returns how many. */
size_t pmc_metric_present(const struct pmc_metric *m, double *out);
/* Whether m (NULL: no) holds a measured value, 0 included, in any run. */
bool pmc_metric_any_value(const struct pmc_metric *m);

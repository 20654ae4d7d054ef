/* The microbenchmark library (docs/microbench.md): the registered definitions expanded
 * into benchmarks (expand.c), the loop and its measurement (measure.c, a multithreaded
 * batch in threads.c), the recording of samples into the result model (samples.c), the
 * child process each benchmark runs in (child.c), and the complexity fits over a
 * definition's benchmarks (complexity.c). The CLI of a benchmark program
 * (harness/7-cli/cli_microbench.c) and `pmcbench run --library` build on these. */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters/reading.h"
#include "pmcbench/microbench.h"

struct pmc_backend_ops;
struct pmc_event_list;
struct pmc_result;
struct pmc_sys;

/* ---- expand.c: definitions → benchmarks ---- */

/* One benchmark: a definition with one combination of its arguments. */
struct pmc_mb_bench {
	char *name; /* "name/arg1/arg2"; of one of several builds: "LABEL:name/arg1/arg2" */
	/* A copy of the definition, zero beyond the fields the registering program knew. */
	struct pmc_bench_def def;
	int64_t args[PMC_BENCH_MAX_ARGS];
	size_t nargs;
	unsigned threads; /* the function runs on this many threads at once; 0: one */
	/* Of one of several builds (pmc_mb_set_add_build): the length of its "LABEL" (0:
	 * none), and, on the first benchmark of a group, how many it holds: itself and its
	 * namesakes of the other builds, which follow it in the set (0 on the others). */
	size_t label_len;
	size_t group;
};

struct pmc_mb_set {
	struct pmc_mb_bench *v;
	size_t n, cap; /* cap: room in v */
	/* The definitions left out, one line each naming its place ("bench.c:12: benchmark
	 * 'copy' has no function; skipped"): a program with any must exit 2 after running
	 * the others. */
	char **bad;
	size_t nbad;
};

/* Parses one argument dimension: a list "8,64,512", a range "1..16", "8..4096*8" (times
 * 8, always ending at its end) or "0..100+25" (plus 25, ending where a step reaches). Sets
 * *ret (malloc'ed) and *ret_n. Returns 0, -EINVAL with one line in err, or -ENOMEM. */
int pmc_mb_args_parse(const char *spec, int64_t **ret, size_t *ret_n, char *err, size_t errlen);

/* Walks the definitions in [begin, end) (each sz bytes, rounded up to a pointer's
 * alignment, as the section lays them out), expands each into the cartesian product of
 * its arguments and keeps the benchmarks whose name matches filter (POSIX extended
 * regex, unanchored; "-RE": those RE does not match; NULL: all), but for definitions
 * named DISABLED_.... A bad definition (no function, a bad name or argument
 * spec, a benchmark name another definition already gave) is left out, with a line in
 * ret->bad naming its file:line; the others are kept. Returns 0 with *ret (possibly
 * empty), -EINVAL with one line in err (a bad regex, a definition not made by
 * PMC_BENCHMARK, whose size stops the walk), or -ENOMEM. Free with pmc_mb_set_free. */
int pmc_mb_expand(const struct pmc_bench_def *begin, const struct pmc_bench_def *end,
		  const char *filter, struct pmc_mb_set *ret, char *err, size_t errlen);
/* As pmc_mb_expand without a filter, but of the definitions only the one that may give
 * the benchmark name ("name/args", or "LABEL:name/args"): what one benchmark's process
 * needs, at a cost that does not grow with the program's other definitions (their
 * duplicates and bad ones are the parent's to find). ret may hold benchmarks of other
 * names of that definition: find name in it. */
int pmc_mb_expand_named(const struct pmc_bench_def *begin, const struct pmc_bench_def *end,
			const char *name, struct pmc_mb_set *ret, char *err, size_t errlen);
void pmc_mb_set_free(struct pmc_mb_set *s);

/* Adds the benchmarks of a build (src, from pmc_mb_expand) to dst, the set of the builds
 * added before, named "LABEL:name" (docs/microbench.md, "Comparing two builds"): each
 * right after its namesakes of those builds, in a group that the runs take in turn and
 * in an order rotated from round to round, and the others after every group. src's bad
 * registrations too, each saying its build. src is left empty. Returns 0, -EINVAL (a
 * label that is empty or holds ':') or -ENOMEM. */
int pmc_mb_set_add_build(struct pmc_mb_set *dst, struct pmc_mb_set *src, const char *label);

/* ---- measure.c: calibration, samples, overhead ---- */

/* A monotonic clock in ns; injectable so that tests are exact. */
typedef uint64_t (*pmc_mb_clock_fn)(void *ud);

struct pmc_mb_opts {
	size_t samples;	   /* measured batches; default 10 */
	size_t warmup;	   /* unrecorded batches at the calibrated size; default 1 */
	double min_time_s; /* target time of one batch; default 0.01 */
	/* Batch size: 0 calibrates to min_time_s; otherwise this many iterations. */
	uint64_t iters;
	uint64_t max_iters; /* calibration stops here; default 1e12 */
	/* Counters of every batch (NULL: none), opened on the calling thread by backend's
	 * thread operations (counters/backend.h; NULL: perf's) through sys (NULL: the
	 * kernel). */
	const struct pmc_event_list *events;
	const struct pmc_backend_ops *backend;
	bool user_only_fallback;
	const struct pmc_sys *sys;
	pmc_mb_clock_fn clock; /* NULL: CLOCK_MONOTONIC */
	void *clock_ud;
	/* The empty loop whose cost is reported beside the figures (NULL: the built-in
	 * one); no_overhead measures none. */
	pmc_bench_fn empty;
	bool no_overhead;
	/* pmc_mb_measure_forked only: the child is killed when it has not handed its samples
	 * over this many seconds after it started; 0: pmc_mb_timeout's default; < 0: no
	 * limit. */
	double timeout_s;
	/* The CPU-time clock calibration grows the batch on (NULL: the thread's CPU time,
	 * or the wall clock when clock was injected). */
	pmc_mb_clock_fn cpu_clock;
	void *cpu_clock_ud;
	/* pmc_mb_measure_forked only: the command that runs this same benchmark program
	 * again (as pmc_mb_exact_opts.self_argv, followed by the user's options), so
	 * that the child is a new process image (its own address-space layout, pages and
	 * code placement) rather than a copy of this one; NULL: a forked copy. */
	char *const *self_argv;
	/* Read every counter with read(), never through the mmap pages with rdpmc
	 * (docs/microbench.md, "Reading the counters"). */
	bool no_self_read;
	/* pmc_mb_measure_forked only, as pmc_spawn_opts' (harness/3-run/spawn.h): the child's
	 * pid is kept in *running while it runs, so that the caller's signal handler can
	 * kill it (by its pid: it stays in the caller's process group), and a non-zero
	 * *stop (the handler ran) makes the call return -EINTR. */
	volatile sig_atomic_t *running;
	const volatile sig_atomic_t *stop;
};
/* Every default: what a NULL options pointer means. */
extern const struct pmc_mb_opts pmc_mb_opts_defaults;

/* A named counter of the benchmark's own (pmc_set_counter). */
struct pmc_mb_ucounter {
	char name[64];
	unsigned flags; /* enum pmc_counter_flags */
};

/* What one benchmark's measurement gives: raw batch figures, all per batch of iters. */
struct pmc_mb_samples {
	uint64_t iters;		      /* the batch size */
	size_t n;		      /* samples */
	size_t nev;		      /* events (the list's count) */
	double *ns;		      /* n batch wall times */
	struct pmc_reading *readings; /* n * nev: the batch's counts (deltas), statuses */
	/* Hybrid CPUs: n * nev, each event's parts per batch (docs/events.md, "Hybrid
	 * CPUs"); NULL when no event was split. */
	struct pmc_reading_parts *parts;
	/* The empty loop at iters: median batch time and counts (NAN: not measured). */
	double over_ns;
	double *over_counts; /* nev */
	/* n: the empty loop's batch time beside sample i (in one process: its i-th batch;
	 * from processes: the median of sample i's process), NAN where it was not measured;
	 * NULL: none. What pmc_mb_empty_like() tests the samples against. */
	double *over_v;
	uint64_t items, bytes; /* per iteration, as the benchmark set them; 0: not set */
	bool skipped;
	char *message; /* pmc_skip's reason, or NULL */
	/* The process each sample was taken in, from 1 (n entries; NULL: not recorded):
	 * the unit of replication (docs/statistics.md, "The unit of replication"). */
	unsigned *process;
	/* Group reads at the batches' edges through the mmap pages (rdpmc) and through
	 * read(), over every batch (calibration, warm-up and overhead included). */
	uint64_t reads_self, reads_sys;
	/* pmc_pause/pmc_resume: the most pairs in a sample's batch (0: none), and what one
	 * pair cost (ns), already subtracted from each sample's ns. */
	uint64_t pauses;
	double pause_ns;
	/* Threads the function ran on (0: one): each ran iters iterations, so the counts are
	 * of iters * threads operations; ns is the mean of the threads' times. */
	unsigned threads;
	/* pmc_set_counter: the names in the order first set, and n * PMC_COUNTERS_MAX batch
	 * values (sample i's counter k at i * PMC_COUNTERS_MAX + k; NAN: not set in that
	 * batch); NULL when the benchmark set none. */
	struct pmc_mb_ucounter uc[PMC_COUNTERS_MAX];
	size_t nuc;
	double *uc_values;
};

/* Calibrates the batch size, warms up, takes o->samples batches of b and then measures
 * the empty loop at the same size, in this process. Returns 0 with *ret (ret->skipped
 * when the benchmark skipped itself), or a negative errno with one line in err (counters
 * that cannot be opened or read, a benchmark that left its loop early or never ran it,
 * -ENOMEM). Free with pmc_mb_samples_free. */
/* The target CPU time of one batch of b, in seconds: the benchmark's own min_time when
 * set, else o's min_time_s, 0.01 for 0 (o NULL: the defaults'); a negative one as it is. */
double pmc_mb_min_time(const struct pmc_mb_bench *b, const struct pmc_mb_opts *o);

int pmc_mb_measure(const struct pmc_mb_bench *b, const struct pmc_mb_opts *o,
		   struct pmc_mb_samples *ret, char *err, size_t errlen);
void pmc_mb_samples_free(struct pmc_mb_samples *s);

/* ---- child.c: one benchmark per process ---- */

/* The limit of a benchmark's process, valgrind run or profile when the caller gave none
 * (docs/microbench.md, "Isolation"): a hung benchmark must not block the program forever,
 * and such a process takes seconds, so only a hang reaches it. */
#define PMC_MB_TIMEOUT_DEFAULT 600.0

/* The timeout to enforce for timeout_s: timeout_s when positive; for 0, the default plus
 * ten times work_s, the time the process is asked to measure for (its samples and
 * warm-up at their target time); 0 (none) for a negative one. */
double pmc_mb_timeout(double timeout_s, double work_s);

/* pmc_mb_measure in a forked child; the samples come back over a pipe. With
 * o->self_argv the child runs that command with "--process-child NAME --process-fd FD
 * --process-samples N --process-iters I [--process-overhead]" appended, and the program
 * it starts answers with pmc_mb_process_child(). A child that crashes, exits or fails
 * is contained: -ECHILD with one line in err saying how it ended (or the child's own
 * message). One that outlives o->timeout_s is killed (SIGKILL): -ETIMEDOUT, with
 * "'name' timed out after S s" in err. -EINTR when *o->stop was set while it ran (the
 * child killed). */
int pmc_mb_measure_forked(const struct pmc_mb_bench *b, const struct pmc_mb_opts *o,
			  struct pmc_mb_samples *ret, char *err, size_t errlen);

/* The started program's side: pmc_mb_measure(b, o), its samples or its error written
 * to fd in the pipe format. Returns 0, or -errno when nothing could be written. */
int pmc_mb_process_child(const struct pmc_mb_bench *b, const struct pmc_mb_opts *o, int fd);

/* The child protocol: the options a benchmark program's children are started with
 * ("--process-child", "--valgrind-child", "--profile-child", "--build-label",
 * "--process-list"), the pipe's format and the valgrind child's report. Both ends are
 * one program, or, with two builds of a program (docs/microbench.md, "Comparing two
 * builds"), two that must speak the same: bump the version with any change to those. */
#define PMC_MB_PROTOCOL 1
#define PMC_MB_PROTOCOL_MAX 128

/* The line that names this library's child protocol: "pmcbench-child VERSION" and the
 * sizes of the structures the pipe carries, into buf. */
void pmc_mb_protocol(char buf[PMC_MB_PROTOCOL_MAX]);

/* The started program's answer when it has no benchmark `name`: -ENOENT and "'name' is
 * not in this build (program)" written to fd, as the parent reads a child's error.
 * Returns 0, or -errno when nothing could be written. */
int pmc_mb_process_child_absent(const char *name, const char *program, int fd);

/* Appends the samples of process `process` (from 1) to dst, moving src's arrays (src is
 * left empty); the first samples with a measured overhead give dst its overhead. Both
 * must be of the same batch size and events. Returns 0, -EINVAL or -ENOMEM. */
int pmc_mb_samples_merge(struct pmc_mb_samples *dst, struct pmc_mb_samples *src, unsigned process);

/* ---- record.c: samples → result ---- */

/* When the loop's own overhead is more than this share of a benchmark's median batch
 * time, the result says so (a note on wall-time/op): the body alone is then near the
 * loop's resolution. */
#define PMC_MB_OVERHEAD_WARN 0.5

/* When the pause/resume pairs subtracted from a benchmark's samples are more than this
 * share of its median batch time before the subtraction, the result says so: the figure
 * is then a small difference of two large numbers. */
#define PMC_MB_PAUSE_WARN 0.5

/* The significance level of pmc_mb_empty_like()'s test. */
#define PMC_MB_EMPTY_ALPHA 0.05

/* Whether a benchmark's time per operation is indistinguishable from the empty loop of
 * its form measured beside it, which is what a body the compiler removed gives (a
 * result never used): pairs of the body's and the empty loop's batch times, one per
 * process (or per sample in one process), tested with the one-sided Wilcoxon
 * signed-rank test on their log ratios (docs/statistics.md, "Paired rounds"), H1: the
 * body is slower. 1 when it is not significantly slower at PMC_MB_EMPTY_ALPHA with
 * enough pairs for the test to be able to say so (5), with one line in msg saying so; 0
 * when it is slower or there are too few pairs to tell; -ENOMEM. */
int pmc_mb_empty_like(const struct pmc_mb_samples *s, char *msg, size_t len);

/* Adds benchmark b to res: one run per sample (with its process) with wall-time/op
 * (ns), <event>/op for every event of events (its status per sample; missing ones as
 * such), items/s and bytes/s when set, each the batch's figure over its iterations,
 * nothing subtracted, and the empty loop's cost per operation beside it
 * (pmc_metric.loop_overhead); then the derived ratios (ipc, ...) of the registry. A benchmark that
 * skipped itself is added as skipped, with pmc_skip's message and no runs or metrics. Returns 0, or
 * -ENOMEM / -EINVAL with one line in err. */
int pmc_mb_record(const struct pmc_mb_bench *b, const struct pmc_mb_samples *s,
		  const struct pmc_event_list *events, struct pmc_result *res, char *err,
		  size_t errlen);

/* What the notes of allocs/op and alloc-bytes/op say: which source measured them, or why
 * one is not measured (docs/microbench.md, "Allocations"). */
#define PMC_MB_ALLOC_NOTE                                                                          \
	"counted in the benchmark's process (pmcbench-alloc, or its own memory manager)"
#define PMC_MB_ALLOC_NO_BYTES "the memory manager counts no bytes"
#define PMC_MB_ALLOC_UPROBE_NOTE "calls of malloc, calloc and realloc, counted through uprobes"
#define PMC_MB_ALLOC_UPROBE_THREADS                                                                \
	"the kernel's uprobes miss calls on the threads of a multithreaded benchmark; link "       \
	"pmcbench-alloc to count them"
/* What the note of a multithreaded benchmark's uprobe metrics says: the kernel's inherited
 * uprobe events miss the calls of whole threads (docs/microbench.md, "Threads"). */
#define PMC_MB_UPROBE_THREADS                                                                      \
	"the kernel's uprobes miss calls on the threads of a multithreaded benchmark; count "      \
	"them on one thread"
#define PMC_MB_ALLOC_UPROBE_NO_BYTES                                                               \
	"uprobes count calls, not bytes; link pmcbench-alloc to count them"

/* allocs/op and alloc-bytes/op of bm from s (alloc.c): the memory manager's counters
 * (pmc_register_memory_manager) get a note naming it; without them, the calls of the
 * uprobes of --allocs in events make allocs/op, and alloc-bytes/op is not measured. No
 * metric without either. Returns 0 or -ENOMEM. */
struct pmc_benchmark;
int pmc_mb_record_allocs(struct pmc_benchmark *bm, const struct pmc_mb_samples *s,
			 const struct pmc_event_list *events);

/* The named arguments of b (pmc_bench_def.arg_names) as parameters of bm, name → value
 * (docs/result-schema.md, "parameters"). Returns 0 or -ENOMEM. */
struct pmc_benchmark;
int pmc_mb_record_params(const struct pmc_mb_bench *b, struct pmc_benchmark *bm);

/* Adds benchmark b to res as skipped, with pmc_skip's message (NULL: none given).
 * Returns 0, or -ENOMEM with one line in err. */
int pmc_mb_record_skipped(const struct pmc_mb_bench *b, const char *message, struct pmc_result *res,
			  char *err, size_t errlen);

/* The per-operation value of one sample: batch / iters (NAN when not measured). */
double pmc_mb_per_op(double batch, uint64_t iters);

/* The empty loop of loop form `form` (enum pmc_loop_form) measured for b: the one
 * compiled with it (PMC_BENCHMARK, pmcbench.hpp), else the library's. */
pmc_bench_fn pmc_mb_empty_fn(const struct pmc_mb_bench *b, int form);

/* What pmc_mb_batch runs: the benchmark's function, or (any other value) the empty loop
 * of that loop form. */
#define PMC_MB_BODY (-1)

/* What one batch of pmc_mb_batch gave. */
struct pmc_mb_batch_out {
	double ns;	 /* its time on the monotonic clock */
	uint64_t pauses; /* its pmc_pause/pmc_resume pairs */
	int form;	 /* the form its loop was written in (enum pmc_loop_form) */
	bool skipped;	 /* the benchmark skipped itself */
	char *message;	 /* pmc_skip's reason, malloc'ed, or NULL: the caller frees it */
};

/* One batch of b's function (loop PMC_MB_BODY) or of its empty loop of a form (loop an
 * enum pmc_loop_form, without setup and teardown) at iters iterations, with the monotonic
 * clock and no counters; with marks (a backend's exact mode, NULL: none), counting is
 * toggled at the loop's two edges, so that the backend counts only between them (and
 * not while paused). fixture: the pointer of the definition's setup_once, run by the
 * caller once for many batches with pmc_mb_once (NULL: setup_once and teardown_once run
 * around this batch). Sets *ret (its message also on failure). Returns 0, -EINVAL with
 * one line in err (a loop left early), or -ENOTSUP for a benchmark on several threads
 * with marks. */
int pmc_mb_batch(const struct pmc_mb_bench *b, int loop, uint64_t iters,
		 const struct pmc_backend_ops *marks, void **fixture, struct pmc_mb_batch_out *ret,
		 char *err, size_t errlen);

/* One batch of a loop of `pairs` iterations, each a pmc_pause/pmc_resume pair and
 * nothing else (with empty: the library's empty loop, whose bookkeeping is the same),
 * counted by the backend marks between the loop's edges (NULL: none): the difference of the two
 * is what the pairs leave counted (docs/microbench.md, "Exact counts"). Returns 0 or
 * -EINVAL with one line in err. */
int pmc_mb_pause_batch(const struct pmc_mb_bench *b, uint64_t pairs, bool empty,
		       const struct pmc_backend_ops *marks, char *err, size_t errlen);

/* Runs b's setup_once (up) or teardown_once, if it has one, with *fixture as the
 * pointer pmc_fixture reads and pmc_set_fixture sets. */
void pmc_mb_once(const struct pmc_mb_bench *b, bool up, void **fixture);

/* ---- complexity.c: fits over a definition's benchmarks ---- */

struct pmc_fit;

/* The least-squares fit of t ≈ coef · f(n) over k points (Google Benchmark's BigO):
 * f of complexity (enum pmc_complexity; PMC_O_AUTO: the one with the smallest error),
 * or fn when it is not NULL. Sets *ret's coef, rms (root mean square of the residuals
 * over the mean of t), points and big_o (a static string). Returns 0, -EINVAL (fewer
 * than 2 points, an unknown complexity) or -EDOM (an n below 1, a t below 0, a curve
 * that is 0 or not finite). */
int pmc_mb_fit(const int64_t *n, const double *t, size_t k, int complexity, double (*fn)(int64_t),
	       struct pmc_fit *ret);

/* Fits every definition in set that asks for it (pmc_bench_def.complexity or
 * complexity_fn) over its benchmarks in res, each the median of its wall-time/op (under
 * the valgrind backend, instructions/op), n its argument complexity_arg, and adds the
 * fits to res (a definition with fewer than two measured benchmarks gets none). Returns
 * 0, or -EINVAL / -EDOM / -ENOMEM with one line in err. */
int pmc_mb_complexity(const struct pmc_mb_set *set, struct pmc_result *res, char *err,
		      size_t errlen);

/* ---- profile.c: a profile of the loop ---- */

struct pmc_profile;

struct pmc_mb_profile_opts {
	size_t sz;		/* sizeof(struct pmc_mb_profile_opts) */
	char *const *self_argv; /* as pmc_mb_exact_opts.self_argv. Required. */
	double seconds;		/* of the loop's CPU time; <= 0: 1 */
	double timeout_s;	/* 0: pmc_mb_timeout's default; < 0: none */
	bool show_output;
};

/* Samples benchmark b's loop: runs o->self_argv with "--profile-child NAME
 * --profile-time S" under the sampler and returns the profile. Returns 0, the errors of
 * pmc_profile_record, or -ECHILD when the child failed; one line in err. */
int pmc_mb_profile(const struct pmc_mb_bench *b, const struct pmc_mb_profile_opts *o,
		   struct pmc_profile **ret, char *err, size_t errlen);

/* The child's side: b's loop in batches growing to about 10 ms, until it has used
 * seconds of CPU time. Returns 0 (also when the benchmark skipped itself) or -errno with
 * one line in err. */
int pmc_mb_profile_child(const struct pmc_mb_bench *b, double seconds, char *err, size_t errlen);

/* ---- exact.c: exact counts per operation, a backend's exact mode ---- */

struct pmc_mb_exact_opts {
	/* The backend that counts (pmc_backend_ops.marks: valgrind's). Required. */
	const struct pmc_backend_ops *backend;
	/* The command that runs this same benchmark program again, NULL-terminated: the
	 * program's path, or pmcbench's with "run --library PATH". Required. */
	char *const *self_argv;
	const char *program; /* the backend's, from its find (valgrind's); NULL: in PATH */
	double timeout_s;    /* 0: pmc_mb_timeout's default; < 0: none */
	bool show_output;    /* the benchmark's output; discarded by default */
	/* Also keep the exact profile of the body's loop at n (pmc_mb_exact.profile):
	 * callgrind then separates the costs by call stack (harness/4-profile/callgrind.h). */
	bool profile;
	/* As pmc_mb_opts' (the signal handler's slot): the backend's pid (and process
	 * group) while it runs, and a non-zero *stop makes the call return -EINTR. */
	volatile sig_atomic_t *running;
	const volatile sig_atomic_t *stop;
};

/* The dumps of one benchmark's exact run: the body's loop at n and 2n, the empty loop at
 * n and 2n, then, when the body paused (pauses[1] > pauses[0]), the pair loop and the
 * library's empty loop at the body's pairs at n and at 2n. */
#define PMC_MB_EXACT_DUMPS 8

/* What a backend's exact mode counted for one benchmark. */
struct pmc_mb_exact {
	uint64_t iters; /* n: the loops ran n and 2n iterations */
	/* The backend's metrics (nmetrics ids, malloc'ed) and their readings, counted
	 * between the loop's edges only: metric i of dump k at counts[k * nmetrics + i], 4
	 * dumps, or PMC_MB_EXACT_DUMPS when the body paused. */
	size_t nmetrics;
	char **ids;
	struct pmc_reading *counts;
	uint64_t pauses[2]; /* the body's pmc_pause/pmc_resume pairs at n and 2n */
	bool skipped;
	char *message; /* pmc_skip's reason, or NULL */
	/* With pmc_mb_exact_opts.profile: the exact profile (Ir) of the body's loop at n
	 * iterations, its edges included; owned, freed by pmc_mb_exact_free. */
	struct pmc_profile *profile;
};

/* Runs o->self_argv with "--backend NAME --valgrind-child NAME --valgrind-report FILE
 * --valgrind-iters N" under the backend, marked (pmc_backend_opts.marked: counting only
 * what the program marks, children not followed; ASLR off), and reads back its report and
 * four dumps: first at N = 1, whose instructions per iteration choose N (a power of two
 * up to 1024, deterministic; 1024 for a backend without an "instructions" metric), then
 * at that N. Returns 0 with *ret (ret->skipped when the benchmark skipped itself), or a
 * negative errno with one line in err: -EINTR when *o->stop was set while it ran (the
 * backend killed), -ECHILD when the child crashed, exited or timed out, -EOPNOTSUPP from
 * the backend's mark_check (no exact mode, or not built in), or what its operations
 * return. Free with pmc_mb_exact_free. */
int pmc_mb_measure_exact(const struct pmc_mb_bench *b, const struct pmc_mb_exact_opts *o,
			 struct pmc_mb_exact *ret, char *err, size_t errlen);
void pmc_mb_exact_free(struct pmc_mb_exact *x);

/* The child's side, in the program that runs under the backend be: one uncounted batch of
 * n, then the four counted loops (the body at n and 2n, the empty loop at n and 2n), each
 * marked (be's mark_zero before it, mark_toggle at its edges, mark_dump after it), and the
 * four pair loops when the body paused, then its one-line report to report ("ok N" or "ok
 * N P1 P2", the body's pairs at n and 2n). Returns 0 or -errno (the report could not be
 * written). */
int pmc_mb_exact_child(const struct pmc_backend_ops *be, const struct pmc_mb_bench *b, uint64_t n,
		       const char *report);

/* The child's answer when it has no benchmark `name`: the report "error 'name' is not in
 * this build (program)", which the parent gives as the benchmark's error. Returns 0 or
 * -errno (the report could not be written). */
int pmc_mb_exact_child_absent(const char *name, const char *program, const char *report);

/* The count of metric `metric` (an index of x->ids) over n iterations of the body alone:
 * (body(2n) - body(n)) - (empty(2n) - empty(n)), less what the body's extra pairs left
 * when it paused ((pairs(p2) - pairs(p1)) - (libempty(p2) - libempty(p1))), clamped at
 * zero; *ret_below (may be NULL) is how far below zero it was, 0 when it was not. Returns
 * 0, -ENODATA when a dump has no value of it (not simulated), -ERANGE (a count above
 * 2^63 - 1, a difference that overflows) with one line in err. */
int pmc_mb_exact_count(const struct pmc_mb_exact *x, size_t metric, uint64_t *ret,
		       uint64_t *ret_below, char *err, size_t errlen);

/* Adds benchmark b to res: one run with `<metric>/op` for every metric of x (status
 * exact; not simulated ones as unsupported, never 0; one clamped at 0 with a note saying
 * by how much), then the registry's derived ratios; a skipped one as skipped. Returns 0 or
 * -errno with one line in err. */
int pmc_mb_record_exact(const struct pmc_mb_bench *b, const struct pmc_mb_exact *x,
			struct pmc_result *res, char *err, size_t errlen);

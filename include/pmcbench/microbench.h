/* Microbenchmarks of C functions (docs/microbench.md): a function registered with
 * PMC_BENCHMARK runs its body in a loop the harness controls; the harness picks the batch
 * size, reads clocks and counters once per batch, and reports per-operation time and
 * counts in a result that `pmcbench compare` and `gate` read. Plain C11 (the registration
 * macros use GCC/Clang attributes and designated initializers); usable from C++. */
#ifndef PMCBENCH_MICROBENCH_H
#define PMCBENCH_MICROBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmcbench/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Argument dimensions a benchmark may have; each combination is its own benchmark. */
#define PMC_BENCH_MAX_ARGS 4

/* The state a benchmark function gets. Only `left` is read by the inline pmc_loop(); the
 * rest belongs to the harness: read it with the functions below. */
struct pmc_state {
	uint64_t left;		 /* iterations left in the running batch */
	struct pmc_run_ctx *ctx; /* the harness's */
};

/* Called by pmc_loop() when a batch starts (the first call) and when it is over: starts
 * or stops the clocks and counters. Returns true when the body should run. */
PMC_API bool pmc_loop_edge(struct pmc_state *s);

/* The forms a benchmark's loop may be written in. Each costs its own bookkeeping per
 * iteration, so the empty loop the harness measures (and, under the valgrind backend,
 * subtracts) is the one of the form the benchmark ran (docs/microbench.md, "Overhead"). */
enum pmc_loop_form {
	PMC_FORM_WHILE = 0, /* while (pmc_loop(s)) { body } */
	PMC_FORM_LOCAL = 1, /* PMC_LOOP(s) { body } */
	PMC_FORM_RANGE = 2, /* C++: for (auto _ : state) { body } (pmcbench.hpp) */
};

/* pmc_loop_edge for a loop of another form (enum pmc_loop_form): the edges of PMC_LOOP
 * and of the C++ range loop, which tell the harness their form. */
PMC_API bool pmc_loop_edge_form(struct pmc_state *s, int form);

/* The loop every benchmark runs: `while (pmc_loop(s)) { body }`. The harness sets the
 * number of iterations; per iteration this costs a decrement and a branch. */
static inline bool pmc_loop(struct pmc_state *s)
{
	if (s->left) {
		s->left--;
		return true;
	}
	return pmc_loop_edge(s);
}

/* The same loop with its count in a local variable: `PMC_LOOP(s) { body }`. A body that
 * clobbers memory (pmc_do_not_optimize, pmc_clobber_memory, a call) makes the compiler
 * store and reload s->left on every iteration of `while (pmc_loop(s))`, since *s can be
 * reached from anywhere; a local count whose address never escapes stays in a register,
 * as Google Benchmark's `for (auto _ : state)` keeps its own. Use it for bodies of a few
 * nanoseconds, where that store is a measurable share (a 64-byte memcpy: +30%). The
 * batch starts on entry and stops after the last iteration, as with pmc_loop(); leaving
 * the loop early (break, return) is an error the harness reports. The count goes down
 * after the body, so that the branch tests the decrement's own flags: per iteration a
 * subtract and a branch (gcc and clang -O2), the instructions of Google Benchmark's loop;
 * counted down before the body, gcc put a test more after the body's call. */
#define PMC_LOOP(s)                                                                                \
	for (uint64_t pmc_left_ = pmc_loop_begin(s); pmc_left_ ? 1 : ((void)pmc_loop_end(s), 0);   \
	     pmc_left_--)

/* PMC_LOOP's two edges: the batch's size (0 when the body must not run), and the end of
 * the batch (always false). */
static inline uint64_t pmc_loop_begin(struct pmc_state *s)
{
	return pmc_loop_edge_form(s, PMC_FORM_LOCAL) ? s->left + 1 : 0;
}

static inline int pmc_loop_end(struct pmc_state *s)
{
	s->left = 0;
	return pmc_loop_edge_form(s, PMC_FORM_LOCAL);
}

/* The running thread's index, from 0, and the benchmark's thread count (1 unless the
 * definition has .threads): each thread of a multithreaded benchmark runs the function
 * with its own state. */
PMC_API unsigned pmc_thread_index(const struct pmc_state *s);
PMC_API unsigned pmc_threads(const struct pmc_state *s);

/* The benchmark's i-th argument (0 when it has none). */
PMC_API int64_t pmc_arg(const struct pmc_state *s, size_t i);

/* Work done per iteration, for throughput and per-item counts ("items/s", "bytes/s",
 * "<event>/item"). Call before the loop. */
PMC_API void pmc_set_items_per_iter(struct pmc_state *s, uint64_t items);
PMC_API void pmc_set_bytes_per_iter(struct pmc_state *s, uint64_t bytes);

/* The running batch's iterations: known in setup (a per-batch setup that prepares one
 * input per iteration), the function and teardown. */
PMC_API uint64_t pmc_iterations(const struct pmc_state *s);

/* Stops the clock and the counters inside the loop, for work the figures must not include
 * (Google Benchmark's PauseTiming/ResumeTiming): rebuilding a sort's input every
 * iteration. Each pause/resume pair has a cost of its own (clock reads, the counters'
 * system calls); the harness measures it after the samples and subtracts it from the
 * time, and the result says so when it is most of the time (docs/microbench.md,
 * "Untimed work"). A pause outside the loop or twice in a row is ignored; ending the loop
 * paused is an error. */
PMC_API void pmc_pause(struct pmc_state *s);
PMC_API void pmc_resume(struct pmc_state *s);

/* The time of the running iteration in seconds, as the benchmark measured it (a GPU's
 * or a device's clock, a span inside the body), for a definition with use_manual_time
 * (Google Benchmark's SetIterationTime): the batch's time is the sum of every call's.
 * Ignored without use_manual_time, and for a negative or non-finite value. */
PMC_API void pmc_set_iteration_time(struct pmc_state *s, double seconds);

/* How pmc_set_counter's value becomes a metric (Google Benchmark's Counter flags). */
enum pmc_counter_flags {
	/* The batch's total, as given: metric "<name>". */
	PMC_COUNTER_TOTAL = 0,
	/* Per operation, the value over the batch's iterations: metric "<name>/op"
	 * (kAvgIterations). */
	PMC_COUNTER_PER_OP = 1 << 0,
	/* A rate, the value over the batch's time in seconds: metric "<name>/s" (kIsRate). */
	PMC_COUNTER_RATE = 1 << 1,
	/* The value given is per iteration: multiplied by the batch's iterations first
	 * (kIsIterationInvariant); with PMC_COUNTER_RATE, bytes per iteration become bytes/s. */
	PMC_COUNTER_PER_ITERATION = 1 << 2,
	/* The direction an improvement goes, for compare and gate; without either, a rate is
	 * higher-is-better and the others lower-is-better. */
	PMC_COUNTER_HIGHER_IS_BETTER = 1 << 3,
	PMC_COUNTER_LOWER_IS_BETTER = 1 << 4,
	/* A multithreaded benchmark's threads each set their own value, and the metric is
	 * their sum; with this flag their mean (kAvgThreads). */
	PMC_COUNTER_AVG_THREADS = 1 << 5,
	/* The inverse, 1/value, taken after the others (kInvert): with PMC_COUNTER_RATE the
	 * time per count, metric "time/<name>" in ns (seconds per item, shown as a time);
	 * with PMC_COUNTER_PER_OP operations per count, "op/<name>"; alone "1/<name>". Its
	 * default direction is the opposite of the value's. A value of 0 has no inverse: that
	 * sample is missing. */
	PMC_COUNTER_INVERT = 1 << 6,
	/* Shown in 1024-based steps, Ki, Mi, Gi (OneK::kIs1024): unit "count:1024", or
	 * "count:1024/s" for a rate; the result keeps the value itself. Not for an inverted
	 * rate, which is a time. */
	PMC_COUNTER_1024 = 1 << 7,
};

/* At most this many named counters per benchmark. */
#define PMC_COUNTERS_MAX 16

/* Reports a figure of the benchmark's own (hits, items, bytes, nodes visited) for the
 * running batch: set it in setup, the function or teardown, as the batch's total (or per
 * iteration with PMC_COUNTER_PER_ITERATION); setting it again replaces it. It becomes a
 * metric of the result like the measured ones, in every format, compare and gate
 * (docs/microbench.md, "User counters"). name: 1 to 63 characters, no '/'; a bad name,
 * or more than PMC_COUNTERS_MAX names, fails the benchmark with an error naming it. */
PMC_API void pmc_set_counter(struct pmc_state *s, const char *name, double value, unsigned flags);

/* An allocation counter of the benchmark's process (Google Benchmark's MemoryManager):
 * sets *ret_allocs and *ret_bytes to the calling thread's running totals of allocation
 * calls and of the bytes they asked for, since any point it likes. The harness calls it
 * on each benchmark thread at the edges of its timed region (and around pauses), and
 * reports the differences per operation as allocs/op and alloc-bytes/op
 * (docs/microbench.md, "Allocations"); one that counts no bytes leaves *ret_bytes alone,
 * and alloc-bytes/op is then not measured. It must not allocate. */
typedef void (*pmc_alloc_read_fn)(uint64_t *ret_allocs, uint64_t *ret_bytes);

/* Registers the process's allocation counter (NULL: none, the default), before
 * pmc_main; the last one registered is used. Linking pmcbench-alloc registers its own, which counts
 * malloc, calloc, realloc, posix_memalign, aligned_alloc and memalign. */
PMC_API void pmc_register_memory_manager(pmc_alloc_read_fn read);

/* A pointer for setup, the function and teardown to share (the state lives for one
 * batch, from setup to teardown): setup allocates, the function reads it, teardown
 * frees it. NULL until set. */
PMC_API void pmc_set_user_data(struct pmc_state *s, void *data);
PMC_API void *pmc_user_data(const struct pmc_state *s);

/* A pointer that lives from the definition's setup_once to its teardown_once (a fixture
 * built once per benchmark, in each of its processes), readable in every setup, function
 * and teardown between them. NULL until set. */
PMC_API void pmc_set_fixture(struct pmc_state *s, void *data);
PMC_API void *pmc_fixture(const struct pmc_state *s);

/* Skips this benchmark with a reason ("no AVX2 on this CPU"); call it instead of running
 * the loop. The result records the benchmark as skipped, with the message. */
PMC_API void pmc_skip(struct pmc_state *s, const char *message);

/* Does nothing, out of line: what pmc_do_not_optimize is without GNU C. */
PMC_API void pmc_do_not_optimize_ptr(const volatile void *p);

/* Keeps the compiler from deleting the computation of a value without copying it. */
#if defined(__GNUC__)
#define pmc_do_not_optimize(value) __asm__ volatile("" : : "r,m"(value) : "memory")
/* Makes the compiler assume that all memory was read and written. */
#define pmc_clobber_memory() __asm__ volatile("" : : : "memory")
#else
#define pmc_do_not_optimize(value) pmc_do_not_optimize_ptr(&(value))
#define pmc_clobber_memory() pmc_do_not_optimize_ptr(NULL)
#endif

typedef void (*pmc_bench_fn)(struct pmc_state *s);

/* The complexity a definition's benchmarks are fitted to, over their argument n
 * (Google Benchmark's BigO): time ≈ coef · f(n) by least squares, with the RMS error;
 * PMC_O_AUTO picks the f of O(1) ... O(n^3) with the smallest error
 * (docs/microbench.md, "Complexity"). */
enum pmc_complexity {
	PMC_O_NONE = 0,
	PMC_O_1,
	PMC_O_LOG_N,
	PMC_O_N,
	PMC_O_N_LOG_N,
	PMC_O_N2,
	PMC_O_N3,
	PMC_O_AUTO,
};

/* One registered benchmark: what PMC_BENCHMARK puts in the "pmc_bench" section of the
 * program or shared object. The layout is an ABI: fields are only ever added at the end,
 * and sz says how many the registering program knew. */
struct pmc_bench_def {
	size_t sz;	  /* sizeof(struct pmc_bench_def) when compiled */
	const char *name; /* the function's name */
	pmc_bench_fn fn;
	/* Untimed, around every batch, outside the counters; may be NULL. Setup knows the
	 * batch's size (pmc_iterations). */
	pmc_bench_fn setup;
	pmc_bench_fn teardown;
	/* Argument dimensions, each a list "8,64,512", a range "1..16" (step 1), "8..4096*8"
	 * (times 8, always ending at its end, as Google Benchmark's Range), or "0..100+25"
	 * (plus 25); NULL-terminated. Their cartesian product gives the benchmarks
	 * name/arg1/arg2. */
	const char *args[PMC_BENCH_MAX_ARGS + 1];
	/* The empty loop whose cost is reported beside the figures, compiled with the
	 * benchmark and its flags (PMC_BENCHMARK sets it); NULL: the library's own. */
	pmc_bench_fn empty;
	/* Where PMC_BENCHMARK stands: benchmarks run and are listed in source order (a
	 * compiler may lay out a section in any order). */
	const char *file;
	int line;
	/* Fields below were added later; a definition whose sz ends before one has it zero. */
	/* The dimensions' names (Google Benchmark's ArgNames), NULL-terminated: the
	 * benchmarks are then named name/n:64/k:8, and the result keeps each value as a
	 * parameter of its benchmark. One name per dimension. */
	const char *arg_names[PMC_BENCH_MAX_ARGS + 1];
	/* Argument tuples (Google Benchmark's Args({a, b})): "1,16; 64,256" is two benchmarks,
	 * name/1/16 and name/64/256, each tuple one value per dimension. Added after the
	 * cartesian product of args, when both are given. */
	const char *arg_tuples;
	/* Untimed, once per benchmark in each of its processes: before its first batch and
	 * after its last (a fixture too costly to build per batch; pmc_set_fixture). */
	pmc_bench_fn setup_once;
	pmc_bench_fn teardown_once;
	/* Fit the benchmarks' time over n, the argument complexity_arg (from 0), to
	 * complexity (enum pmc_complexity), or to complexity_fn when it is set (Google
	 * Benchmark's Complexity(oN) and Complexity(lambda)). */
	int complexity;
	double (*complexity_fn)(int64_t n);
	int complexity_arg;
	/* Thread counts, a list or range as in args ("1,2,4", "1..8*2"): each count is a
	 * benchmark of its own, name/.../threads:N, whose function runs on N threads at
	 * once, each with its own state, started together (Google Benchmark's Threads and
	 * ThreadRange; docs/microbench.md, "Threads"). NULL: one thread. */
	const char *threads;
	/* The empty loops of the other loop forms (enum pmc_loop_form), compiled with the
	 * benchmark as empty is (PMC_BENCHMARK sets empty_local, pmcbench.hpp both); NULL:
	 * the library's. */
	pmc_bench_fn empty_local;
	pmc_bench_fn empty_range;
	/* This benchmark's own, over the command line's (Google Benchmark's MinTime,
	 * Iterations and UseRealTime): the target time of a sample in seconds (0:
	 * --min-time's), a fixed batch size (0: calibrated, or --min-time Nx's), and
	 * calibration on the wall clock rather than on the CPU time, for a body that waits
	 * (docs/microbench.md, "Calibration and samples"). */
	double min_time;
	uint64_t iterations;
	int use_real_time;
	/* The benchmark times its iterations itself (Google Benchmark's UseManualTime):
	 * its time of a batch is the sum of what it gave pmc_set_iteration_time, on which
	 * calibration grows the batch and which is its wall-time/op; a batch that gave none
	 * is an error (docs/microbench.md, "Manual time"). */
	int use_manual_time;
	/* The benchmark's work runs on threads it starts (Google Benchmark's
	 * MeasureProcessCPUTime): calibration grows the batch on the process's CPU time
	 * (CLOCK_PROCESS_CPUTIME_ID, every thread's) rather than the calling thread's, and
	 * every sample reports it as cpu-time/op, the CPU column of the report
	 * (docs/microbench.md, "Process CPU time"). */
	int measure_process_cpu_time;
	/* The unit its times are shown in (enum pmc_time_unit; Google Benchmark's ->Unit):
	 * only the report changes, the result keeps ns (docs/microbench.md, "The report"). */
	int unit;
	/* This benchmark's samples (runs), over -r's (Google Benchmark's Repetitions),
	 * shared out over its processes as -r's are; 0: -r's. */
	unsigned repetitions;
};

/* The loop of every benchmark with nothing in it but what makes the compiler reload
 * s->left, as pmc_do_not_optimize's clobber does: what the harness reports as the loop's
 * own cost (and, under the valgrind backend, subtracts exactly). Compiled in
 * the benchmark's own translation unit, so its cost is that of the benchmark's loop. */
static inline void pmc_bench_empty_loop(struct pmc_state *s)
{
	while (pmc_loop(s))
		pmc_clobber_memory();
}

/* The same for PMC_LOOP, whose count stays in a register whatever the body clobbers. */
static inline void pmc_bench_empty_loop_local(struct pmc_state *s)
{
	PMC_LOOP(s)
	{
		pmc_clobber_memory();
	}
}

/* The command line of a benchmark program (docs/microbench.md): --list, --filter REGEX,
 * -r, --min-time, --timeout, -e EVENTS, --backend, -o FILE.json, --format, --baseline,
 * --threshold, with the meanings and exit codes of `pmcbench run`. Runs the benchmarks
 * registered in [begin, end). Returns the exit code. */
PMC_API int pmc_main_defs(int argc, char **argv, const struct pmc_bench_def *begin,
			  const struct pmc_bench_def *end);

#define PMC_BENCH_SECTION "pmc_bench"

#if defined(__GNUC__) || defined(__clang__)

/* Registers fn (void fn(struct pmc_state *)) at file scope, with options:
 *	PMC_BENCHMARK(lcg);
 *	PMC_BENCHMARK_OPTS(copy, .args = {"8..65536*8"}, .setup = fill, .teardown = drain);
 * Registration is a constant in a linker section: no list to maintain, no constructor. */
#define PMC_BENCHMARK_OPTS(fn_, ...)                                                               \
	__attribute__((                                                                            \
	    used, section(PMC_BENCH_SECTION),                                                      \
	    aligned(sizeof(void *)))) static const struct pmc_bench_def pmc_bench_def_##fn_ = {    \
	    .sz = sizeof(struct pmc_bench_def),                                                    \
	    .name = #fn_,                                                                          \
	    .fn = fn_,                                                                             \
	    __VA_ARGS__,                                                                           \
	    .empty = pmc_bench_empty_loop,                                                         \
	    .file = __FILE__,                                                                      \
	    .line = __LINE__,                                                                      \
	    .empty_local = pmc_bench_empty_loop_local}
#define PMC_BENCHMARK(fn_) PMC_BENCHMARK_OPTS(fn_, .setup = NULL)

/* The section's bounds in the module that includes this header (the linker defines them
 * for a section named like a C identifier). */
extern const struct pmc_bench_def __start_pmc_bench[] __attribute__((weak, visibility("hidden")));
extern const struct pmc_bench_def __stop_pmc_bench[] __attribute__((weak, visibility("hidden")));

/* int main(int argc, char **argv) { return pmc_main(argc, argv); } */
#define pmc_main(argc, argv) pmc_main_defs((argc), (argv), __start_pmc_bench, __stop_pmc_bench)
#endif /* __GNUC__ || __clang__: registration needs section attributes */

#ifdef __cplusplus
}
#endif

#endif /* PMCBENCH_MICROBENCH_H */

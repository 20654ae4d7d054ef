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
 * the loop early (break, return) is an error the harness reports. */
#define PMC_LOOP(s)                                                                                \
	for (uint64_t pmc_left_ = pmc_loop_begin(s); pmc_left_ ? (pmc_left_--, 1) : pmc_loop_end(s);)

/* PMC_LOOP's two edges: the batch's size (0 when the body must not run), and the end of
 * the batch (always false). */
static inline uint64_t pmc_loop_begin(struct pmc_state *s)
{
	return pmc_loop_edge(s) ? s->left + 1 : 0;
}

static inline int pmc_loop_end(struct pmc_state *s)
{
	s->left = 0;
	return pmc_loop_edge(s);
}

/* The benchmark's i-th argument (0 when it has none). */
PMC_API int64_t pmc_arg(const struct pmc_state *s, size_t i);

/* Work done per iteration, for throughput and per-item counts ("items/s", "bytes/s",
 * "<event>/item"). Call before the loop. */
PMC_API void pmc_set_items_per_iter(struct pmc_state *s, uint64_t items);
PMC_API void pmc_set_bytes_per_iter(struct pmc_state *s, uint64_t bytes);

/* A pointer for setup, the function and teardown to share (the state lives for one
 * batch, from setup to teardown): setup allocates, the function reads it, teardown
 * frees it. NULL until set. */
PMC_API void pmc_set_user_data(struct pmc_state *s, void *data);
PMC_API void *pmc_user_data(const struct pmc_state *s);

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

/* One registered benchmark: what PMC_BENCHMARK puts in the "pmc_bench" section of the
 * program or shared object. The layout is an ABI: fields are only ever added at the end,
 * and sz says how many the registering program knew. */
struct pmc_bench_def {
	size_t sz;	  /* sizeof(struct pmc_bench_def) when compiled */
	const char *name; /* the function's name */
	pmc_bench_fn fn;
	/* Untimed, around every batch, outside the counters; may be NULL. */
	pmc_bench_fn setup;
	pmc_bench_fn teardown;
	/* Argument dimensions, each a list "8,64,512", a range "1..16" (step 1), "8..4096*8"
	 * (times 8), or "0..100+25" (plus 25); NULL-terminated. Their cartesian product gives
	 * the benchmarks name/arg1/arg2. */
	const char *args[PMC_BENCH_MAX_ARGS + 1];
	/* The empty loop whose cost is reported beside the figures, compiled with the
	 * benchmark and its flags (PMC_BENCHMARK sets it); NULL: the library's own. */
	pmc_bench_fn empty;
	/* Where PMC_BENCHMARK stands: benchmarks run and are listed in source order (a
	 * compiler may lay out a section in any order). */
	const char *file;
	int line;
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
	    .line = __LINE__}
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

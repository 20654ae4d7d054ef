// bench/vs_gbench.sh's Google Benchmark side: the bodies of vs_gbench_bodies.c, called
// from Google Benchmark's loop, at its defaults.
#include <benchmark/benchmark.h>

#include "bench/vs_gbench_bodies.h"

// The benchmark `name`: its state of type `struct type`, set up before the loop (outside
// the timed run), then a call of name##_op once per iteration.
#define VS_BENCH(name, type)                                                                       \
	static void name(benchmark::State &state)                                                  \
	{                                                                                          \
		struct type *st = type##_init();                                                   \
		for (auto _ : state)                                                               \
			name##_op(st);                                                             \
	}                                                                                          \
	BENCHMARK(name)

VS_BENCH(lcg_1, vs_lcg);
VS_BENCH(lcg_1000, vs_lcg);
VS_BENCH(memcpy_64, vs_copy);
VS_BENCH(memcpy_4k, vs_copy);
VS_BENCH(memcpy_1m, vs_copy);
VS_BENCH(hash_lookup, vs_hash);
VS_BENCH(qsort_1000, vs_sort);

BENCHMARK_MAIN();

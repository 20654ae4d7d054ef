// bench/vs_gbench.sh's Google Benchmark side: the same two bodies as vs_gbench_pmc.c.
#include <benchmark/benchmark.h>

#include <cstdint>

// Read once at run time, so that the compiler cannot fold the chain into one step.
static volatile uint64_t mul = 6364136223846793005u, add = 1442695040888963407u;

// 1000 dependent multiply-adds per iteration; x carries over, so iterations chain too.
static void chain(benchmark::State &state)
{
	uint64_t a = mul, b = add, x = 1;

	for (auto _ : state) {
		for (int i = 0; i < 1000; i++)
			x = x * a + b;
		benchmark::DoNotOptimize(x);
	}
}
BENCHMARK(chain);

static void empty(benchmark::State &state)
{
	for (auto _ : state) {
	}
}
BENCHMARK(empty);

BENCHMARK_MAIN();

// The program behind gbench_*.json (README.md): a benchmark with user counters, one whose
// counters are not numbers, and one that fails. Build: g++ -O2 gbench_prog.cc -lbenchmark -lpthread
#include <benchmark/benchmark.h>

#include <limits>
#include <vector>

static void BM_sum(benchmark::State &state)
{
	std::vector<int> v(state.range(0), 1);
	double widgets = 0;

	for (auto _ : state) {
		long long s = 0;
		for (int x : v)
			s += x;
		benchmark::DoNotOptimize(s);
		widgets++;
	}
	state.counters["widgets"] = widgets;
	state.counters["rate"] = benchmark::Counter(widgets, benchmark::Counter::kIsRate);
	state.SetItemsProcessed(state.iterations() * state.range(0));
	state.SetBytesProcessed(state.iterations() * state.range(0) * sizeof(int));
}
BENCHMARK(BM_sum)->Arg(64);

static void BM_nan(benchmark::State &state)
{
	for (auto _ : state)
		benchmark::DoNotOptimize(state.iterations());
	state.counters["ratio"] = std::numeric_limits<double>::quiet_NaN();
	state.counters["big"] = std::numeric_limits<double>::infinity();
	state.counters["small"] = -std::numeric_limits<double>::infinity();
}
BENCHMARK(BM_nan);

static void BM_fail(benchmark::State &state)
{
	for (auto _ : state)
		state.SkipWithError("no input file");
}
BENCHMARK(BM_fail);

BENCHMARK_MAIN();

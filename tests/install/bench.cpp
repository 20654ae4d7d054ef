// A C++ benchmark program using every option of pmcbench.hpp (docs/microbench.md, "C++"),
// built with g++ and clang++ by tests/install/test_install.sh (installed headers) and
// tests/meson.build (the tree's), and run: tests/e2e/t_microbench.sh checks what it
// registered and, under the valgrind backend, that the range loop counts its body.
#include <pmcbench.hpp>

#include <cstdint>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

// The range loop around bodies of a known size, as tests/targets/mb_forms.c's C loops.
static void nop1_range(pmc::State &state)
{
	for (auto _ : state)
		__asm__ volatile("nop" ::: "memory");
}
PMC_BENCHMARK(nop1_range);

static void nop10_range(pmc::State &state)
{
	for (auto _ : state) {
		__asm__ volatile("nop\n\tnop\n\tnop\n\tnop\n\tnop" ::: "memory");
		__asm__ volatile("nop\n\tnop\n\tnop\n\tnop\n\tnop" ::: "memory");
	}
}
PMC_BENCHMARK(nop10_range);

static void lcg_range(pmc::State &state)
{
	std::uint64_t x = 1;
	for (auto _ : state) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		pmc::DoNotOptimize(x);
	}
}
PMC_BENCHMARK(lcg_range);

// Arguments: a range with names, tuples, a dense range, threads, complexity.
static void copy(pmc::State &state)
{
	std::vector<char> src(static_cast<std::size_t>(state.range(0)), 'x');
	std::vector<char> dst(src.size());
	state.SetBytesPerIteration(src.size());
	for (auto _ : state) {
		std::memcpy(dst.data(), src.data(), src.size());
		pmc::ClobberMemory();
	}
}
PMC_BENCHMARK(copy)->RangeMultiplier(4)->Range(16, 256)->ArgNames({"bytes"});

static void pairs(pmc::State &state)
{
	std::int64_t v = state.range(0) * state.range(1);
	for (auto _ : state)
		pmc::DoNotOptimize(v);
}
PMC_BENCHMARK(pairs)->Args({1, 2})->Args({3, 4})->ArgNames({"a", "b"});

static void dense(pmc::State &state)
{
	std::int64_t n = state.range(0);
	for (auto _ : state)
		pmc::DoNotOptimize(n);
}
PMC_BENCHMARK(dense)->DenseRange(0, 20, 10)->Arg(99);

static void grid(pmc::State &state)
{
	std::int64_t n = state.range(0) + state.range(1);
	for (auto _ : state)
		pmc::DoNotOptimize(n);
}
PMC_BENCHMARK(grid)->Ranges({{1, 8}, {2, 2}});

static void shared(pmc::State &state)
{
	unsigned mine = state.thread_index();
	for (auto _ : state)
		pmc::DoNotOptimize(mine);
	state.SetCounter("threads_seen", state.threads(), PMC_COUNTER_AVG_THREADS);
}
PMC_BENCHMARK(shared)->Threads(1)->ThreadRange(2, 8);

static void linear(pmc::State &state)
{
	std::vector<int> v(static_cast<std::size_t>(state.range(0)), 1);
	for (auto _ : state) {
		long s = 0;
		for (int x : v)
			s += x;
		pmc::DoNotOptimize(s);
	}
}
PMC_BENCHMARK(linear)->Range(64, 512)->Complexity(pmc::oN);

static double square(std::int64_t n)
{
	return static_cast<double>(n) * static_cast<double>(n);
}
PMC_BENCHMARK(linear)->Range(64, 128)->Complexity(square)->ComplexityArg(0)->ArgName("n");

// A fixture once per benchmark, per-batch setup that knows the batch, paused work, a
// skip, a counter.
static std::vector<int> *table;
static void build(pmc::State &state)
{
	table = new std::vector<int>(1000, 7);
	state.SetFixture(table);
}
static void destroy(pmc::State &)
{
	delete table;
	table = nullptr;
}
static int batches;
static void per_batch(pmc::State &state)
{
	batches += state.iterations() > 0;
}
static void after_batch(pmc::State &)
{
}
static void lookup(pmc::State &state)
{
	auto *t = static_cast<std::vector<int> *>(state.fixture());
	if (!t) {
		state.SkipWithError("no fixture");
		return;
	}
	std::size_t i = 0;
	state.SetItemsPerIteration(1);
	for (auto _ : state) {
		pmc::DoNotOptimize((*t)[i++ % t->size()]);
		state.PauseTiming();
		state.ResumeTiming();
	}
	state.SetCounter("hits", static_cast<double>(i), PMC_COUNTER_PER_OP);
}
PMC_BENCHMARK(lookup)->Setup(build)->Teardown(destroy)->BatchSetup(per_batch)->BatchTeardown(
    after_batch);

static void absent(pmc::State &state)
{
	state.SkipWithMessage("no such device");
}
PMC_BENCHMARK(absent);

// Its own time settings: a target per sample, a fixed batch, the wall clock.
static void own_time(pmc::State &state)
{
	for (auto _ : state)
		pmc::ClobberMemory();
}
PMC_BENCHMARK(own_time)->MinTime(0.0002)->Iterations(1000)->UseRealTime();

// Manual time: a body that sleeps 1 ms and says it took 2 ms (a device's own clock),
// shown in microseconds.
static void device(pmc::State &state)
{
	for (auto _ : state) {
		struct timespec ms = {0, 1000000};
		nanosleep(&ms, nullptr);
		state.SetIterationTime(0.002);
	}
}
PMC_BENCHMARK(device)->UseManualTime()->Iterations(2)->Unit(pmc::kMicrosecond);

// Process CPU time: the work runs on a thread the body starts, until that thread has
// used 1 ms of its CPU; the calling thread only waits for it.
static void spin_a_millisecond()
{
	struct timespec t;
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	while (t.tv_sec == 0 && t.tv_nsec < 1000000);
}
static void worker(pmc::State &state)
{
	for (auto _ : state) {
		std::thread t(spin_a_millisecond);
		t.join();
	}
}
PMC_BENCHMARK(worker)->MeasureProcessCPUTime()->Iterations(2);

// Its own runs, over -r.
static void thrice(pmc::State &state)
{
	for (auto _ : state)
		pmc::ClobberMemory();
}
PMC_BENCHMARK(thrice)->Repetitions(3)->Iterations(10);

// Templates and captured arguments.
template <class T, int N> static void fill(pmc::State &state)
{
	T a[N];
	for (auto _ : state) {
		for (int i = 0; i < N; i++)
			a[i] = static_cast<T>(i);
		pmc::DoNotOptimize(a);
	}
}
PMC_BENCHMARK(fill<int, 8>);
PMC_BENCHMARK_TEMPLATE(fill, char, 16);

static void repeat(pmc::State &state, std::string word, int times)
{
	std::string out;
	for (auto _ : state) {
		out.clear();
		for (int i = 0; i < times; i++)
			out += word;
		pmc::DoNotOptimize(out.data());
	}
}
PMC_BENCHMARK_CAPTURE(repeat, ab3, std::string("ab"), 3);
PMC_BENCHMARK_CAPTURE(repeat, x1, std::string("x"), 1)->Arg(5);

// A function of the C API, registered by the C++ macro: its two loops.
static void c_style(struct pmc_state *s)
{
	unsigned n = 0;
	while (pmc_loop(s))
		pmc_do_not_optimize(n);
	PMC_LOOP(s)
	{
		n++;
		pmc_do_not_optimize(n);
	}
}
PMC_BENCHMARK(c_style);

// Google Benchmark's user counters: state.counters["name"] = Counter(value, flags, OneK).
static void gb_counters(pmc::State &state)
{
	std::uint64_t x = 1;

	for (auto _ : state) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		pmc::DoNotOptimize(x);
	}
	double n = static_cast<double>(state.iterations());
	state.counters["steps"] = pmc::Counter(n, pmc::Counter::kIsRate);
	state.counters["steps"] = pmc::Counter(n, pmc::Counter::kIsRate | pmc::Counter::kInvert);
	state.counters["mem"] = pmc::Counter(3 << 20, pmc::Counter::kDefaults, pmc::Counter::kIs1024);
	state.counters["seen"] = 4 * n;
	state.SetCounter("per", pmc::Counter(2 * n, pmc::Counter::kAvgIterations | pmc::Counter::kInvert));
}
PMC_BENCHMARK(gb_counters);

PMC_BENCHMARK_MAIN();

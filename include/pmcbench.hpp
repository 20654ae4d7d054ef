// The microbenchmark library from C++ (docs/microbench.md, "C++"), in Google Benchmark's
// style, over the C API of pmcbench/microbench.h:
//
//	static void BM_copy(pmc::State &state)
//	{
//		std::vector<char> src(state.range(0)), dst(src.size());
//		for (auto _ : state)
//			std::memcpy(dst.data(), src.data(), src.size());
//	}
//	PMC_BENCHMARK(BM_copy)->Range(8, 8 << 10)->ArgNames({"bytes"});
//	PMC_BENCHMARK_MAIN();
//
// Each registration fills a struct pmc_bench_def in the program's "pmc_bench" section
// before main runs, so the benchmarks are the C API's in every respect: their processes,
// the valgrind backend, --against, `pmcbench run --library`. The builder's setters
// return the builder, as Google Benchmark's do. Needs C++11 and GCC or Clang.
#ifndef PMCBENCH_HPP
#define PMCBENCH_HPP

#include <pmcbench.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#if !defined(__GNUC__) && !defined(__clang__)
#error "pmcbench.hpp registers benchmarks in a linker section: it needs GCC or Clang"
#endif

namespace pmc
{

// Google Benchmark's Counter: a value and how it becomes a metric, for
// `state.counters["hits"] = pmc::Counter(n, pmc::Counter::kIsRate)`. Its flags are the C
// API's (enum pmc_counter_flags) under Google Benchmark's names; kIs1024 shows the value
// in 1024-based steps (PMC_COUNTER_1024).
class Counter
{
      public:
	enum Flags {
		kDefaults = PMC_COUNTER_TOTAL,
		kIsRate = PMC_COUNTER_RATE,
		kAvgThreads = PMC_COUNTER_AVG_THREADS,
		kAvgThreadsRate = PMC_COUNTER_RATE | PMC_COUNTER_AVG_THREADS,
		kIsIterationInvariant = PMC_COUNTER_PER_ITERATION,
		kIsIterationInvariantRate = PMC_COUNTER_RATE | PMC_COUNTER_PER_ITERATION,
		kAvgIterations = PMC_COUNTER_PER_OP,
		kInvert = PMC_COUNTER_INVERT,
	};
	enum OneK { kIs1000 = 1000, kIs1024 = 1024 };

	Counter(double value = 0, Flags flags = kDefaults, OneK one_k = kIs1000)
	    : value(value), flags(flags), oneK(one_k)
	{
	}
	// The C API's flags.
	unsigned c_flags() const
	{
		return static_cast<unsigned>(flags) |
		       (oneK == kIs1024 ? static_cast<unsigned>(PMC_COUNTER_1024) : 0u);
	}

	double value;
	Flags flags;
	OneK oneK;
};

inline Counter::Flags operator|(Counter::Flags a, Counter::Flags b)
{
	return static_cast<Counter::Flags>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}

// What a benchmark function gets: its loop, its arguments and the harness's setters.
class State
{
      public:
	explicit State(pmc_state *s) : counters(s), s_(s)
	{
	}

	// `state.counters["name"] = value` (a total) or `= pmc::Counter(value, flags)`:
	// Google Benchmark's user counters; each assignment is a pmc_set_counter, which
	// replaces the batch's value of that name.
	class Counters
	{
	      public:
		class Entry
		{
		      public:
			Entry(pmc_state *s, const std::string &name) : s_(s), name_(name)
			{
			}
			Entry &operator=(const Counter &c)
			{
				pmc_set_counter(s_, name_.c_str(), c.value, c.c_flags());
				return *this;
			}
			Entry &operator=(double v)
			{
				return *this = Counter(v);
			}

		      private:
			pmc_state *s_;
			std::string name_;
		};
		explicit Counters(pmc_state *s) : s_(s)
		{
		}
		Entry operator[](const std::string &name)
		{
			return Entry(s_, name);
		}

	      private:
		pmc_state *s_;
	};
	Counters counters;

	// The loop: `for (auto _ : state) { body }`. Its count is the iterator's, in a
	// register, as PMC_LOOP's; its edges are PMC_LOOP's, and it tells the harness its
	// form, whose empty loop is measured beside it (PMC_FORM_RANGE).
	// What `auto _` holds: nothing, with a destructor of its own, so that the compilers
	// do not warn that `_` is unused.
	struct Value {
		~Value()
		{
		}
	};
	class Iterator
	{
	      public:
		Iterator(pmc_state *s, std::uint64_t left) : s_(s), left_(left)
		{
		}
		Value operator*() const
		{
			return Value();
		}
		Iterator &operator++()
		{
			--left_;
			return *this;
		}
		bool operator!=(const Iterator &) const
		{
			if (left_)
				return true;
			s_->left = 0;
			return pmc_loop_edge_form(s_, PMC_FORM_RANGE);
		}

	      private:
		pmc_state *s_;
		std::uint64_t left_;
	};
	Iterator begin()
	{
		return Iterator(s_, pmc_loop_edge_form(s_, PMC_FORM_RANGE) ? s_->left + 1 : 0);
	}
	Iterator end()
	{
		return Iterator(s_, 0);
	}

	// The i-th argument (Google Benchmark's range(i)); 0 when there is none.
	std::int64_t range(std::size_t i = 0) const
	{
		return pmc_arg(s_, i);
	}
	unsigned thread_index() const
	{
		return pmc_thread_index(s_);
	}
	unsigned threads() const
	{
		return pmc_threads(s_);
	}
	// The running batch's iterations.
	std::uint64_t iterations() const
	{
		return pmc_iterations(s_);
	}
	void PauseTiming()
	{
		pmc_pause(s_);
	}
	void ResumeTiming()
	{
		pmc_resume(s_);
	}
	// Skips the benchmark with a reason; call it instead of running the loop.
	void SkipWithMessage(const std::string &why)
	{
		pmc_skip(s_, why.c_str());
	}
	void SkipWithError(const std::string &why)
	{
		pmc_skip(s_, why.c_str());
	}
	// Work per iteration, before the loop (the C API's; Google Benchmark's
	// SetItemsProcessed takes the total after it).
	void SetItemsPerIteration(std::uint64_t n)
	{
		pmc_set_items_per_iter(s_, n);
	}
	void SetBytesPerIteration(std::uint64_t n)
	{
		pmc_set_bytes_per_iter(s_, n);
	}
	// This iteration's time in seconds as the benchmark measured it, for a benchmark
	// with UseManualTime (Google Benchmark's SetIterationTime).
	void SetIterationTime(double seconds)
	{
		pmc_set_iteration_time(s_, seconds);
	}
	// A figure of the benchmark's own (enum pmc_counter_flags).
	void SetCounter(const std::string &name, double value, unsigned flags = PMC_COUNTER_TOTAL)
	{
		pmc_set_counter(s_, name.c_str(), value, flags);
	}
	void SetCounter(const std::string &name, const Counter &c)
	{
		pmc_set_counter(s_, name.c_str(), c.value, c.c_flags());
	}
	// The pointer shared from Setup to Teardown (pmc_set_fixture).
	void SetFixture(void *p)
	{
		pmc_set_fixture(s_, p);
	}
	void *fixture() const
	{
		return pmc_fixture(s_);
	}
	// The C state, for the C API's functions.
	pmc_state *c_state() const
	{
		return s_;
	}

      private:
	pmc_state *s_;
};

template <class T> inline void DoNotOptimize(T const &value)
{
	__asm__ volatile("" : : "r,m"(value) : "memory");
}

template <class T> inline void DoNotOptimize(T &value)
{
#if defined(__clang__)
	__asm__ volatile("" : "+r,m"(value) : : "memory");
#else
	__asm__ volatile("" : "+m,r"(value) : : "memory");
#endif
}

inline void ClobberMemory()
{
	__asm__ volatile("" : : : "memory");
}

// Google Benchmark's complexities (BigO), as the C API's enum pmc_complexity.
enum BigO {
	oNone = PMC_O_NONE,
	o1 = PMC_O_1,
	oLogN = PMC_O_LOG_N,
	oN = PMC_O_N,
	oNLogN = PMC_O_N_LOG_N,
	oNSquared = PMC_O_N2,
	oNCubed = PMC_O_N3,
	oAuto = PMC_O_AUTO,
};

// Google Benchmark's time units, for ->Unit(), as the C API's enum pmc_time_unit.
constexpr pmc_time_unit kNanosecond = PMC_TIME_NS;
constexpr pmc_time_unit kMicrosecond = PMC_TIME_US;
constexpr pmc_time_unit kMillisecond = PMC_TIME_MS;
constexpr pmc_time_unit kSecond = PMC_TIME_S;

namespace detail
{
// The C++ callables of one registration, called through the C trampolines of Slot.
struct Fns {
	std::function<void(State &)> fn, setup_once, teardown_once, setup, teardown;
};
} // namespace detail

// One registration: the setters fill its struct pmc_bench_def, whose strings this object
// owns (it lives as long as the program, as Google Benchmark's do).
class Benchmark
{
      public:
	Benchmark(pmc_bench_def *def, detail::Fns *fns, const char *name, const char *file,
		  int line, pmc_bench_fn empty_fns[3])
	    : def_(def), fns_(fns), name_(name)
	{
		*def_ = pmc_bench_def();
		def_->sz = sizeof(pmc_bench_def);
		def_->file = file;
		def_->line = line;
		def_->empty = empty_fns[0];
		def_->empty_local = empty_fns[1];
		def_->empty_range = empty_fns[2];
		sync();
	}

	// One more benchmark with these arguments (Google Benchmark's Arg and Args): each
	// call is a tuple, after the cartesian product of the ranges.
	Benchmark *Arg(std::int64_t v)
	{
		return Args({v});
	}
	Benchmark *Args(std::initializer_list<std::int64_t> values)
	{
		std::string t;
		for (std::int64_t v : values)
			t += (t.empty() ? "" : ",") + std::to_string(v);
		tuples_ += (tuples_.empty() ? "" : "; ") + t;
		return sync();
	}
	// The first dimension's values from lo to hi: lo, the powers of the multiplier
	// between, and hi (Google Benchmark's Range, RangeMultiplier 8 by default).
	Benchmark *Range(std::int64_t lo, std::int64_t hi)
	{
		return Ranges({{lo, hi}});
	}
	Benchmark *RangeMultiplier(int m)
	{
		mult_ = m;
		return this;
	}
	// Dimensions of ranges, their cartesian product (Google Benchmark's Ranges).
	Benchmark *Ranges(std::initializer_list<std::pair<std::int64_t, std::int64_t>> r)
	{
		dims_.clear();
		for (const auto &p : r)
			dims_.push_back(std::to_string(p.first) + ".." + std::to_string(p.second) +
					"*" + std::to_string(mult_));
		return sync();
	}
	// lo, lo + step, ... up to hi (Google Benchmark's DenseRange).
	Benchmark *DenseRange(std::int64_t lo, std::int64_t hi, std::int64_t step = 1)
	{
		dims_.assign(1, std::to_string(lo) + ".." + std::to_string(hi) + "+" +
				    std::to_string(step));
		return sync();
	}
	Benchmark *ArgName(const std::string &name)
	{
		return ArgNames({name});
	}
	Benchmark *ArgNames(std::initializer_list<std::string> names)
	{
		names_.assign(names.begin(), names.end());
		return sync();
	}
	// The function runs on n threads at once, each with its own State: a benchmark
	// per count (Google Benchmark's Threads, ThreadRange).
	Benchmark *Threads(int n)
	{
		threads_ += (threads_.empty() ? "" : ",") + std::to_string(n);
		return sync();
	}
	// lo, 2 lo, 4 lo, ... and hi.
	Benchmark *ThreadRange(int lo, int hi)
	{
		for (int n = lo; n > 0 && n < hi; n *= 2)
			Threads(n);
		return Threads(hi);
	}
	// Untimed, once per benchmark in each of its processes, before its first batch and
	// after its last (Google Benchmark's Setup and Teardown).
	template <class F> Benchmark *Setup(F f)
	{
		fns_->setup_once = f;
		return sync();
	}
	template <class F> Benchmark *Teardown(F f)
	{
		fns_->teardown_once = f;
		return sync();
	}
	// Untimed, around every batch (the C API's .setup and .teardown).
	template <class F> Benchmark *BatchSetup(F f)
	{
		fns_->setup = f;
		return sync();
	}
	template <class F> Benchmark *BatchTeardown(F f)
	{
		fns_->teardown = f;
		return sync();
	}
	// Fits the time over argument `arg` (Google Benchmark's Complexity).
	Benchmark *Complexity(BigO c = oAuto)
	{
		def_->complexity = c;
		return this;
	}
	Benchmark *Complexity(double (*f)(std::int64_t))
	{
		def_->complexity_fn = f;
		return this;
	}
	Benchmark *ComplexityArg(int arg)
	{
		def_->complexity_arg = arg;
		return this;
	}
	// This benchmark's target time per sample in seconds, over --min-time (Google
	// Benchmark's MinTime).
	Benchmark *MinTime(double seconds)
	{
		def_->min_time = seconds;
		return this;
	}
	// Every sample a batch of n iterations, not calibrated (Google Benchmark's
	// Iterations).
	Benchmark *Iterations(std::uint64_t n)
	{
		def_->iterations = n;
		return this;
	}
	// Calibrate on the wall clock, for a body that waits (Google Benchmark's
	// UseRealTime; the report has the wall time and the CPU time either way).
	Benchmark *UseRealTime()
	{
		def_->use_real_time = 1;
		return this;
	}
	// The time is the sum of the iterations' SetIterationTime (Google Benchmark's
	// UseManualTime): calibration and wall-time/op are that time.
	Benchmark *UseManualTime()
	{
		def_->use_manual_time = 1;
		return this;
	}
	// Calibrate on, and report as cpu-time/op, the CPU time of the whole process, for a
	// body whose work runs on threads it starts (Google Benchmark's
	// MeasureProcessCPUTime).
	Benchmark *MeasureProcessCPUTime()
	{
		def_->measure_process_cpu_time = 1;
		return this;
	}
	// The unit its times are shown in (Google Benchmark's Unit(benchmark::kMillisecond)):
	// pmc::kNanosecond, kMicrosecond, kMillisecond, kSecond; the result keeps ns.
	Benchmark *Unit(pmc_time_unit unit)
	{
		def_->unit = unit;
		return this;
	}
	// This benchmark's runs, over -r (Google Benchmark's Repetitions).
	Benchmark *Repetitions(unsigned n)
	{
		def_->repetitions = n;
		return this;
	}

	// The trampolines' side (detail::Register sets them).
	void set_trampolines(pmc_bench_fn fn, pmc_bench_fn so, pmc_bench_fn to, pmc_bench_fn s,
			     pmc_bench_fn t)
	{
		tramp_[0] = fn, tramp_[1] = so, tramp_[2] = to, tramp_[3] = s, tramp_[4] = t;
		sync();
	}

      private:
	// Points the definition at the strings as they are now.
	Benchmark *sync()
	{
		def_->name = name_.c_str();
		def_->fn = fns_->fn ? tramp_[0] : nullptr;
		def_->setup_once = fns_->setup_once ? tramp_[1] : nullptr;
		def_->teardown_once = fns_->teardown_once ? tramp_[2] : nullptr;
		def_->setup = fns_->setup ? tramp_[3] : nullptr;
		def_->teardown = fns_->teardown ? tramp_[4] : nullptr;
		fill(def_->args, dims_);
		fill(def_->arg_names, names_);
		def_->arg_tuples = tuples_.empty() ? nullptr : tuples_.c_str();
		def_->threads = threads_.empty() ? nullptr : threads_.c_str();
		return this;
	}
	// A NULL-terminated array of at most PMC_BENCH_MAX_ARGS; one more is a spec the
	// library refuses, naming the registration's place.
	void fill(const char *(&out)[PMC_BENCH_MAX_ARGS + 1], const std::vector<std::string> &v)
	{
		std::size_t i = 0;
		for (; i < v.size() && i < PMC_BENCH_MAX_ARGS; i++)
			out[i] = v[i].c_str();
		if (v.size() > PMC_BENCH_MAX_ARGS)
			out[i - 1] = too_many;
		out[i] = nullptr;
	}

	static constexpr const char *too_many = "more than 4 dimensions";
	pmc_bench_def *def_;
	detail::Fns *fns_;
	std::string name_, tuples_, threads_;
	std::vector<std::string> dims_, names_;
	int mult_ = 8;
	pmc_bench_fn tramp_[5] = {nullptr, nullptr, nullptr, nullptr, nullptr};
};

namespace detail
{
// The empty loops of the three forms, compiled in the program as its benchmarks are.
inline void empty_range(pmc_state *s)
{
	State st(s);
	for (auto _ : st)
		ClobberMemory();
}

// One registration's C trampolines: a type per registration (Tag) and per translation
// unit (Tag is in an unnamed namespace), each calling the callables of its Fns.
template <class Tag> struct Slot {
	static Fns &fns()
	{
		static Fns f; // constructed on first use: before any other initializer uses it
		return f;
	}
	static void call(pmc_state *s, std::function<void(State &)> Fns::*which)
	{
		State st(s);
		(fns().*which)(st);
	}
	static void fn(pmc_state *s)
	{
		call(s, &Fns::fn);
	}
	static void setup_once(pmc_state *s)
	{
		call(s, &Fns::setup_once);
	}
	static void teardown_once(pmc_state *s)
	{
		call(s, &Fns::teardown_once);
	}
	static void setup(pmc_state *s)
	{
		call(s, &Fns::setup);
	}
	static void teardown(pmc_state *s)
	{
		call(s, &Fns::teardown);
	}
};

// A function of pmc::State & (or any callable taking one), or of the C API's struct
// pmc_state *.
template <class F> std::function<void(State &)> body(F f)
{
	return f;
}
inline std::function<void(State &)> body(void (*f)(pmc_state *))
{
	return [f](State &st) { f(st.c_state()); };
}

template <class Tag, class F>
Benchmark *Register(pmc_bench_def *def, const char *name, F f, const char *file, int line)
{
	pmc_bench_fn empties[3] = {pmc_bench_empty_loop, pmc_bench_empty_loop_local, empty_range};
	Fns &fns = Slot<Tag>::fns();
	fns.fn = body(f);
	Benchmark *b = new Benchmark(def, &fns, name, file, line, empties);
	b->set_trampolines(Slot<Tag>::fn, Slot<Tag>::setup_once, Slot<Tag>::teardown_once,
			   Slot<Tag>::setup, Slot<Tag>::teardown);
	return b;
}
} // namespace detail
} // namespace pmc

namespace
{
// A type per registration in this translation unit (PMC_BENCHMARK's __COUNTER__).
template <int N> struct pmc_cxx_tag {
};
} // namespace

#undef PMC_BENCHMARK
#define PMC_CXX_CAT_(a, b) a##b
#define PMC_CXX_CAT(a, b) PMC_CXX_CAT_(a, b)
// The definition in the section, and the builder that fills it before main.
#define PMC_CXX_REGISTER_(n, name, ...)                                                            \
	__attribute__((used, section(PMC_BENCH_SECTION),                                           \
		       aligned(sizeof(void *)))) static pmc_bench_def PMC_CXX_CAT(pmc_cxx_def_, n); \
	static ::pmc::Benchmark *PMC_CXX_CAT(pmc_cxx_reg_, n) __attribute__((unused)) =            \
	    ::pmc::detail::Register<pmc_cxx_tag<n>>(&PMC_CXX_CAT(pmc_cxx_def_, n), name,           \
						    __VA_ARGS__, __FILE__, __LINE__)

// PMC_BENCHMARK(f), f a function of pmc::State & (a template's instance too:
// PMC_BENCHMARK(f<int, 8>)), named after itself; the builder follows:
// PMC_BENCHMARK(f)->Arg(8)->Threads(2).
#define PMC_BENCHMARK(...) PMC_CXX_REGISTER_(__COUNTER__, #__VA_ARGS__, __VA_ARGS__)
// Google Benchmark's BENCHMARK_TEMPLATE: f<T...>, named "f<T...>".
#define PMC_BENCHMARK_TEMPLATE(f, ...)                                                             \
	PMC_CXX_REGISTER_(__COUNTER__, #f "<" #__VA_ARGS__ ">", f<__VA_ARGS__>)
// Google Benchmark's BENCHMARK_CAPTURE: f(state, args...), named "f_label".
#define PMC_BENCHMARK_CAPTURE(f, label, ...)                                                       \
	PMC_CXX_REGISTER_(__COUNTER__, #f "_" #label,                                              \
			  [](::pmc::State &pmc_state_) { f(pmc_state_, __VA_ARGS__); })
// int main(int argc, char **argv) running every registered benchmark, C's and C++'s.
#define PMC_BENCHMARK_MAIN()                                                                       \
	int main(int argc, char **argv)                                                            \
	{                                                                                          \
		return pmc_main(argc, argv);                                                       \
	}                                                                                          \
	int pmc_cxx_main_defined_

#endif // PMCBENCH_HPP

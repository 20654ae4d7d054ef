// pmc-prof-cxx: a C++ program for the names of both profilers (tests/e2e/t_profile.sh,
// test_cxx_names_match_across_backends):
//
//   pmc-prof-cxx ROUNDS   2 x ROUNDS rounds of a multiply-add chain in shapes::Mixer::spin
//
// Its functions have mangled symbols of three kinds: a member function, a function
// template instance and a function of internal linkage in a namespace. The sampler reads
// them mangled (_ZN6shapes5Mixer4spinEm) and valgrind prints them demangled
// (shapes::Mixer::spin(unsigned long)); both profiles must name them alike. Built with
// frame pointers and without inlining, as prof_work.c, so that the call chains hold
// main -> twice<long> -> spin.
#include <cstdio>
#include <cstdlib>

namespace shapes {

struct Mixer {
	unsigned long state;
	unsigned long spin(unsigned long rounds);
};

// Called first in spin, so that spin is no leaf and sets up its frame before the loop.
__attribute__((noinline)) static unsigned long step(unsigned long x)
{
	return x ^ (x >> 7);
}

__attribute__((noinline)) unsigned long Mixer::spin(unsigned long rounds)
{
	unsigned long x = step(state);

	for (unsigned long r = 0; r < rounds; r++)
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
	state = x;
	return x;
}

template <typename T> __attribute__((noinline)) T twice(T seed, unsigned long rounds)
{
	Mixer m{static_cast<unsigned long>(seed)};

	return static_cast<T>(m.spin(rounds) + m.spin(rounds));
}

} // namespace shapes

int main(int argc, char **argv)
{
	if (argc != 2) {
		std::fprintf(stderr, "usage: pmc-prof-cxx ROUNDS\n");
		return 2;
	}
	unsigned long rounds = std::strtoul(argv[1], nullptr, 10);
	long r = shapes::twice<long>(argc, rounds);

	// The result is printed so that the work is not optimized away.
	std::printf("%ld\n", r & 1);
	return 0;
}

// The public headers compile as C++ and their functions link with C linkage: a missing
// extern "C" would leave a mangled reference that the library does not define.
#include <pmcbench.h>

#include <cstdio>

// Both loops of the microbenchmark header compile as C++ (PMC_LOOP is a macro).
static void both_loops(struct pmc_state *s)
{
	unsigned n = 0;

	while (pmc_loop(s))
		n++;
	PMC_LOOP(s)
	{
		n++;
		pmc_do_not_optimize(n);
	}
}

int main()
{
	(void)both_loops;
	std::printf("libpmcbench %s from C++\n", pmc_version());
	return pmc_version()[0] != '\0' ? 0 : 1;
}

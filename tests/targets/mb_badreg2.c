/* The second file of mb_badreg.c: 'twice' again, and one more good benchmark. */
#include <pmcbench.h>

static void twice(struct pmc_state *s)
{
	while (pmc_loop(s))
		;
}
PMC_BENCHMARK(twice);

static void also_good(struct pmc_state *s)
{
	while (pmc_loop(s))
		pmc_clobber_memory();
}
PMC_BENCHMARK(also_good);

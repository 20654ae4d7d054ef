/* pmu-bench: a benchmark program whose bodies have known instruction counts, for the
 * per-operation counts against a real PMU (tests/guest/t_pmu.sh). nops10 and nops20
 * differ by exactly 10 instructions per iteration, in each loop form the API offers. */
#include <pmcbench.h>

#define NOPS5 "nop\n\tnop\n\tnop\n\tnop\n\tnop\n\t"

static void nops10(struct pmc_state *s)
{
	while (pmc_loop(s))
		__asm__ __volatile__(NOPS5 NOPS5);
}
PMC_BENCHMARK(nops10);

static void nops20(struct pmc_state *s)
{
	while (pmc_loop(s))
		__asm__ __volatile__(NOPS5 NOPS5 NOPS5 NOPS5);
}
PMC_BENCHMARK(nops20);

static void loop_nops10(struct pmc_state *s)
{
	PMC_LOOP(s)
	{
		__asm__ __volatile__(NOPS5 NOPS5);
	}
}
PMC_BENCHMARK(loop_nops10);

static void loop_nops20(struct pmc_state *s)
{
	PMC_LOOP(s)
	{
		__asm__ __volatile__(NOPS5 NOPS5 NOPS5 NOPS5);
	}
}
PMC_BENCHMARK(loop_nops20);

int main(int argc, char **argv)
{
	return pmc_main(argc, argv);
}

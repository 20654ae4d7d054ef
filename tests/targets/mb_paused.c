/* The README's LCG, alone and with untimed work between pmc_pause and pmc_resume in every
 * iteration, for the valgrind backend's subtraction of what the pairs leave counted
 * (tests/e2e/t_microbench.sh). */
#include <pmcbench.h>
#include <stdint.h>

static volatile uint64_t sink;

static void lcg(struct pmc_state *s)
{
	uint64_t x = 1;

	while (pmc_loop(s)) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		pmc_do_not_optimize(x);
	}
}
PMC_BENCHMARK(lcg);

static void lcg_paused(struct pmc_state *s)
{
	uint64_t x = 1;

	while (pmc_loop(s)) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		pmc_do_not_optimize(x);
		pmc_pause(s);
		for (int i = 0; i < 100; i++)
			sink += (uint64_t)i;
		pmc_resume(s);
	}
}
PMC_BENCHMARK(lcg_paused);

int main(int argc, char **argv)
{
	return pmc_main(argc, argv);
}

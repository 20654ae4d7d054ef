/* A benchmark program stopped by a signal while a benchmark runs (tests/e2e/t_microbench.sh):
 * 'fast' finishes, then 'stuck' never ends, until the program is sent SIGINT or SIGTERM. */
#include <pmcbench.h>
#include <stdint.h>
#include <unistd.h>

static void fast(struct pmc_state *s)
{
	uint64_t x = 1;

	while (pmc_loop(s)) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		pmc_do_not_optimize(x);
	}
}
PMC_BENCHMARK(fast);

static void stuck(struct pmc_state *s)
{
	while (pmc_loop(s))
		;
	for (;;)
		pause();
}
PMC_BENCHMARK(stuck);

int main(int argc, char **argv)
{
	return pmc_main(argc, argv);
}

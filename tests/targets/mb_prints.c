/* A benchmark that prints: one line per process from its once-per-benchmark setup, so
 * that the report's stream is seen to stay clean and the lines to arrive
 * (tests/e2e/t_microbench.sh, docs/microbench.md "Isolation"). */
#include <pmcbench.h>
#include <stdint.h>
#include <stdio.h>

static void hello(struct pmc_state *s)
{
	printf("mb_prints: hello from the benchmark\n");
}

static void lcg(struct pmc_state *s)
{
	uint64_t x = 1;

	while (pmc_loop(s)) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		pmc_do_not_optimize(x);
	}
}
PMC_BENCHMARK_OPTS(lcg, .setup_once = hello);

int main(int argc, char **argv)
{
	return pmc_main(argc, argv);
}

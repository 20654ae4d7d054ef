/* A shared object with two registered benchmarks and no main, for `pmcbench run
 * --library` (tests/e2e/t_library.sh). It does not link libpmcbench: pmc_loop_edge and
 * the rest of the API resolve from the pmcbench executable that loads it. */
#include <pmcbench.h>
#include <stdint.h>

static void lcg(struct pmc_state *s)
{
	uint64_t x = 1;

	while (pmc_loop(s)) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		pmc_do_not_optimize(x);
	}
}
PMC_BENCHMARK(lcg);

static void sum(struct pmc_state *s)
{
	uint64_t acc = 0, n = (uint64_t)pmc_arg(s, 0);

	pmc_set_items_per_iter(s, n);
	while (pmc_loop(s)) {
		for (uint64_t i = 0; i < n; i++)
			acc += i;
		pmc_do_not_optimize(acc);
	}
}
PMC_BENCHMARK_OPTS(sum, .args = {"8,64"});

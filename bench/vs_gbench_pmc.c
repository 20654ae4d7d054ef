/* bench/vs_gbench.sh's pmcbench side: the same two bodies as vs_gbench_gb.cc. */
#include <pmcbench.h>
#include <stdint.h>

/* Read once at run time, so that the compiler cannot fold the chain into one step. */
static volatile uint64_t mul = 6364136223846793005u, add = 1442695040888963407u;

/* 1000 dependent multiply-adds per iteration; x carries over, so iterations chain too. */
static void chain(struct pmc_state *s)
{
	uint64_t a = mul, b = add, x = 1;

	while (pmc_loop(s)) {
		for (int i = 0; i < 1000; i++)
			x = x * a + b;
		pmc_do_not_optimize(x);
	}
}
PMC_BENCHMARK(chain);

static void empty(struct pmc_state *s)
{
	while (pmc_loop(s)) {
	}
}
PMC_BENCHMARK(empty);

int main(int argc, char **argv)
{
	return pmc_main(argc, argv);
}

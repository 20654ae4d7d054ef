/* A benchmark program whose benchmark calls malloc three times per operation (and free as
 * often), for the uprobe counts per operation (tests/e2e/t_tracepoints.sh), and one that
 * allocates nothing. */
#include <pmcbench.h>
#include <stdlib.h>

static void three_mallocs(struct pmc_state *s)
{
	while (pmc_loop(s)) {
		/* volatile: the compiler may not pair and drop them. */
		void *volatile a = malloc(16);
		void *volatile b = malloc(32);
		void *volatile c = malloc(64);

		free(a);
		free(b);
		free(c);
	}
}
PMC_BENCHMARK(three_mallocs);

static void no_mallocs(struct pmc_state *s)
{
	unsigned long x = 1;

	while (pmc_loop(s)) {
		x = x * 6364136223846793005UL + 1;
		pmc_do_not_optimize(x);
	}
}
PMC_BENCHMARK(no_mallocs);

int main(int argc, char **argv)
{
	return pmc_main(argc, argv);
}

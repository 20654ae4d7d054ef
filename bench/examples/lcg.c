/* A benchmark program of the microbenchmark library (docs/microbench.md): the LCG of the
 * README's quick start, and a sum over arrays of several sizes with untimed setup. Built
 * in the tree (bench/examples/meson.build) and, outside it, with `pkg-config --cflags
 * --libs pmcbench` by the install test. */
#include <pmcbench.h>
#include <stdint.h>
#include <stdlib.h>

static void lcg(struct pmc_state *s)
{
	uint64_t x = 1;
	while (pmc_loop(s)) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		pmc_do_not_optimize(x);
	}
}
PMC_BENCHMARK(lcg);

/* Untimed: the array to sum, sized by the benchmark's argument. */
static void fill(struct pmc_state *s)
{
	size_t n = (size_t)pmc_arg(s, 0);
	uint32_t *a = malloc(n * sizeof(*a));

	for (size_t i = 0; a && i < n; i++)
		a[i] = (uint32_t)i * 2654435761u;
	pmc_set_user_data(s, a);
}

static void drain(struct pmc_state *s)
{
	free(pmc_user_data(s));
}

static void sum(struct pmc_state *s)
{
	const uint32_t *a = pmc_user_data(s);
	size_t n = (size_t)pmc_arg(s, 0);

	if (!a) {
		pmc_skip(s, "out of memory");
		return;
	}
	pmc_set_items_per_iter(s, n);
	pmc_set_bytes_per_iter(s, n * sizeof(*a));
	while (pmc_loop(s)) {
		uint64_t total = 0;

		for (size_t i = 0; i < n; i++)
			total += a[i];
		pmc_do_not_optimize(total);
	}
}
PMC_BENCHMARK_OPTS(sum, .args = {"64..4096*8"}, .setup = fill, .teardown = drain);

int main(int argc, char **argv)
{
	return pmc_main(argc, argv);
}

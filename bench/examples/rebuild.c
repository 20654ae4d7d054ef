/* Sorting input that must be fresh every iteration, two ways (docs/microbench.md,
 * "Untimed work"):
 *
 * - sort_paused rebuilds the input inside the loop between pmc_pause() and
 *   pmc_resume(), as Google Benchmark's PauseTiming/ResumeTiming; the harness measures
 *   what a pause/resume pair costs and subtracts it;
 * - sort_batch has its per-batch setup shuffle one input per iteration, since setup
 *   knows the batch's size (pmc_iterations), so the loop has nothing to pause for.
 *
 * Both report elements sorted per second (items/s); neither includes the rebuild. */
#include <pmcbench.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* xorshift32: the same inputs in every run. */
static void fill(uint32_t *v, size_t n, uint32_t *x)
{
	for (size_t i = 0; i < n; i++) {
		*x ^= *x << 13;
		*x ^= *x >> 17;
		*x ^= *x << 5;
		v[i] = *x;
	}
}

static void alloc_one(struct pmc_state *s)
{
	pmc_set_user_data(s, malloc((size_t)pmc_arg(s, 0) * sizeof(uint32_t)));
}

static void drop(struct pmc_state *s)
{
	free(pmc_user_data(s));
}

static void sort_paused(struct pmc_state *s)
{
	uint32_t *v = pmc_user_data(s), x = 2463534242u;
	size_t n = (size_t)pmc_arg(s, 0);

	if (!v) {
		pmc_skip(s, "out of memory");
		return;
	}
	pmc_set_items_per_iter(s, n);
	while (pmc_loop(s)) {
		pmc_pause(s);
		fill(v, n, &x);
		pmc_resume(s);
		qsort(v, n, sizeof(*v), cmp_u32);
		pmc_clobber_memory();
	}
}
PMC_BENCHMARK_OPTS(sort_paused, .args = {"1000..100000*10"}, .setup = alloc_one, .teardown = drop);

/* One unsorted input per iteration of the batch, made before it starts. */
static void alloc_batch(struct pmc_state *s)
{
	size_t n = (size_t)pmc_arg(s, 0), iters = (size_t)pmc_iterations(s);
	uint32_t *v = iters <= SIZE_MAX / sizeof(*v) / n ? malloc(n * iters * sizeof(*v)) : NULL;
	uint32_t x = 2463534242u;

	if (v)
		fill(v, n * iters, &x);
	pmc_set_user_data(s, v);
}

static void sort_batch(struct pmc_state *s)
{
	uint32_t *v = pmc_user_data(s);
	size_t n = (size_t)pmc_arg(s, 0);

	if (!v) {
		pmc_skip(s, "out of memory");
		return;
	}
	pmc_set_items_per_iter(s, n);
	while (pmc_loop(s)) {
		qsort(v, n, sizeof(*v), cmp_u32);
		v += n;
		pmc_clobber_memory();
	}
}
PMC_BENCHMARK_OPTS(sort_batch, .args = {"1000..100000*10"}, .setup = alloc_batch, .teardown = drop);

int main(int argc, char **argv)
{
	return pmc_main(argc, argv);
}

/* Benchmarks whose allocations per operation are known exactly (docs/microbench.md,
 * "Allocations"), built twice: as pmc-mb-allocs, counted through uprobes only
 * (tests/e2e/t_tracepoints.sh), and as pmc-mb-allocs-counted, linked with pmcbench-alloc
 * (tests/e2e/t_allocs.sh). The pointers are volatile: the compiler may not pair a malloc
 * with its free and drop both. */
#include <pmcbench.h>
#include <stdlib.h>

static void three_mallocs(struct pmc_state *s)
{
	while (pmc_loop(s)) {
		void *volatile a = malloc(16);
		void *volatile b = malloc(32);
		void *volatile c = malloc(64);

		free(a);
		free(b);
		free(c);
	}
}
PMC_BENCHMARK(three_mallocs);

/* k mallocs of n bytes each: k allocs/op, k * n bytes/op. */
static void k_mallocs(struct pmc_state *s)
{
	int64_t k = pmc_arg(s, 0);
	size_t n = (size_t)pmc_arg(s, 1);
	void *volatile p[8];

	PMC_LOOP(s)
	{
		for (int64_t i = 0; i < k; i++)
			p[i] = malloc(n);
		for (int64_t i = 0; i < k; i++)
			free(p[i]);
	}
}
PMC_BENCHMARK_OPTS(k_mallocs, .args = {"1,5", "24,1000"}, .arg_names = {"k", "n"});

/* calloc(2, 8), realloc to 32, posix_memalign of 64 and aligned_alloc of 128: 4 allocs
 * and 240 bytes per operation for the counter; the uprobes of --allocs count only calloc
 * and realloc. */
static void mixed(struct pmc_state *s)
{
	while (pmc_loop(s)) {
		void *volatile a = calloc(2, 8);
		void *b = NULL;
		void *volatile c;

		a = realloc(a, 32);
		if (posix_memalign(&b, 64, 64) != 0)
			b = NULL;
		c = aligned_alloc(64, 128);
		free(a);
		free(b);
		free(c);
	}
}
PMC_BENCHMARK(mixed);

/* What setup allocates, and the body while paused, is no operation's: 1 alloc of 8 bytes
 * per operation. */
static void keep(struct pmc_state *s)
{
	pmc_set_user_data(s, malloc(4096));
}

static void drop(struct pmc_state *s)
{
	free(pmc_user_data(s));
}

static void paused(struct pmc_state *s)
{
	while (pmc_loop(s)) {
		pmc_pause(s);
		void *volatile a = malloc(100);
		free(a);
		pmc_resume(s);
		void *volatile b = malloc(8);
		free(b);
	}
}
PMC_BENCHMARK_OPTS(paused, .setup = keep, .teardown = drop);

/* On two threads at once, each 1 alloc of 40 bytes per operation. */
static void threaded(struct pmc_state *s)
{
	while (pmc_loop(s)) {
		void *volatile a = malloc(40);
		free(a);
	}
}
PMC_BENCHMARK_OPTS(threaded, .threads = "2");

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

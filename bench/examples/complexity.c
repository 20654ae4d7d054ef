/* Complexity fits (docs/microbench.md, "Complexity"), as Google Benchmark's
 * Complexity(): the benchmarks of a definition are fitted to coef · f(n) over their
 * argument n, and the result keeps the fit with its RMS error.
 *
 * - sum: a pass over n integers, declared O(n);
 * - insertion: insertion sort of n integers in reverse order, O(auto): the fit that
 *   explains the times best among O(1) ... O(n^3) (n^2 here);
 * - search: a binary search in n sorted integers, fitted to a function of the program's
 *   own (log2(n) + 1 comparisons). */
#include <pmcbench.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void alloc_ints(struct pmc_state *s)
{
	size_t n = (size_t)pmc_arg(s, 0);
	int64_t *v = malloc(2 * n * sizeof(*v));

	/* v[0..n): 0, 1, ... (sorted); v[n..2n): n-1, ..., 0 (reversed). */
	for (size_t i = 0; v && i < n; i++) {
		v[i] = (int64_t)i;
		v[n + i] = (int64_t)(n - 1 - i);
	}
	pmc_set_user_data(s, v);
}

static void free_ints(struct pmc_state *s)
{
	free(pmc_user_data(s));
}

static void sum(struct pmc_state *s)
{
	const int64_t *v = pmc_user_data(s);
	size_t n = (size_t)pmc_arg(s, 0);

	if (!v) {
		pmc_skip(s, "out of memory");
		return;
	}
	while (pmc_loop(s)) {
		int64_t t = 0;

		for (size_t i = 0; i < n; i++)
			t += v[i];
		pmc_do_not_optimize(t);
	}
}
PMC_BENCHMARK_OPTS(sum, .args = {"1024..65536*4"}, .setup = alloc_ints, .teardown = free_ints,
		   .complexity = PMC_O_N);

static void insertion(struct pmc_state *s)
{
	int64_t *v = pmc_user_data(s), *w;
	size_t n = (size_t)pmc_arg(s, 0);

	if (!v || !(w = malloc(n * sizeof(*w)))) {
		pmc_skip(s, "out of memory");
		return;
	}
	while (pmc_loop(s)) {
		memcpy(w, v + n, n * sizeof(*w));
		for (size_t i = 1; i < n; i++) {
			int64_t x = w[i];
			size_t j = i;

			for (; j > 0 && w[j - 1] > x; j--)
				w[j] = w[j - 1];
			w[j] = x;
		}
		pmc_clobber_memory();
	}
	free(w);
}
PMC_BENCHMARK_OPTS(insertion, .args = {"32..512*2"}, .setup = alloc_ints, .teardown = free_ints,
		   .complexity = PMC_O_AUTO);

/* The comparisons of a binary search: floor(log2(n)) + 1. */
static double log2_plus_1(int64_t n)
{
	double k = 1;

	for (; n > 1; n /= 2)
		k++;
	return k;
}

static void search(struct pmc_state *s)
{
	const int64_t *v = pmc_user_data(s);
	size_t n = (size_t)pmc_arg(s, 0), q = 0;

	if (!v) {
		pmc_skip(s, "out of memory");
		return;
	}
	while (pmc_loop(s)) {
		size_t lo = 0, hi = n;
		int64_t key = (int64_t)q;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (v[mid] < key)
				lo = mid + 1;
			else
				hi = mid;
		}
		pmc_do_not_optimize(lo);
		q = q + 7919 >= n ? (q + 7919) % n : q + 7919;
	}
}
PMC_BENCHMARK_OPTS(search, .args = {"1024..1048576*32"}, .setup = alloc_ints, .teardown = free_ints,
		   .complexity_fn = log2_plus_1);

int main(int argc, char **argv)
{
	return pmc_main(argc, argv);
}

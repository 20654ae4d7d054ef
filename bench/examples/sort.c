/* Sorting n random uint32: qsort against an LSD radix sort (four passes of 8 bits).
 *
 * Setup runs once per batch, not per iteration, so an iteration cannot be handed a fresh
 * unsorted array: each one copies the same random input into the array it sorts. What is
 * measured is that copy (n * 4 bytes, a memcpy: see copy.c for its cost) plus the sort;
 * the sort is O(n log n) or, for radix, four passes over the data, so the copy is the
 * smaller part. items/s is elements sorted per second. */
#include <pmcbench.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct sort_data {
	uint32_t *input; /* the random data, never sorted */
	uint32_t *work;	 /* sorted in place, refilled from input every iteration */
	uint32_t *tmp;	 /* the radix sort's other buffer */
};

static void free_data(struct sort_data *d)
{
	if (d) {
		free(d->input);
		free(d->work);
		free(d->tmp);
	}
	free(d);
}

/* Untimed: the same pseudo-random input (xorshift32, fixed seed) for both sorts. */
static void make_data(struct pmc_state *s)
{
	size_t n = (size_t)pmc_arg(s, 0);
	struct sort_data *d = calloc(1, sizeof(*d));
	uint32_t x = 2463534242u;

	if (d) {
		d->input = malloc(n * sizeof(uint32_t));
		d->work = malloc(n * sizeof(uint32_t));
		d->tmp = malloc(n * sizeof(uint32_t));
	}
	if (!d || !d->input || !d->work || !d->tmp) {
		free_data(d);
		pmc_set_user_data(s, NULL);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		d->input[i] = x;
	}
	pmc_set_user_data(s, d);
}

static void drop_data(struct pmc_state *s)
{
	free_data(pmc_user_data(s));
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Least significant byte first; each pass is a stable counting sort from one buffer into
 * the other, so after four passes the result is back in v. */
static void radix_sort(uint32_t *v, uint32_t *tmp, size_t n)
{
	uint32_t *from = v, *to = tmp, *t;

	for (unsigned shift = 0; shift < 32; shift += 8) {
		size_t count[256] = {0}, pos = 0;

		for (size_t i = 0; i < n; i++)
			count[(from[i] >> shift) & 0xff]++;
		for (size_t b = 0; b < 256; b++) {
			size_t c = count[b];

			count[b] = pos;
			pos += c;
		}
		for (size_t i = 0; i < n; i++)
			to[count[(from[i] >> shift) & 0xff]++] = from[i];
		t = from;
		from = to;
		to = t;
	}
}

static void sort_qsort(struct pmc_state *s)
{
	struct sort_data *d = pmc_user_data(s);
	size_t n = (size_t)pmc_arg(s, 0);

	if (!d) {
		pmc_skip(s, "out of memory");
		return;
	}
	pmc_set_items_per_iter(s, n);
	while (pmc_loop(s)) {
		memcpy(d->work, d->input, n * sizeof(uint32_t));
		qsort(d->work, n, sizeof(uint32_t), cmp_u32);
		pmc_clobber_memory();
	}
}
PMC_BENCHMARK_OPTS(sort_qsort, .args = {"1000..1000000*10"}, .setup = make_data,
		   .teardown = drop_data);

static void sort_radix(struct pmc_state *s)
{
	struct sort_data *d = pmc_user_data(s);
	size_t n = (size_t)pmc_arg(s, 0);

	if (!d) {
		pmc_skip(s, "out of memory");
		return;
	}
	pmc_set_items_per_iter(s, n);
	while (pmc_loop(s)) {
		memcpy(d->work, d->input, n * sizeof(uint32_t));
		radix_sort(d->work, d->tmp, n);
		pmc_clobber_memory();
	}
}
PMC_BENCHMARK_OPTS(sort_radix, .args = {"1000..1000000*10"}, .setup = make_data,
		   .teardown = drop_data);

int main(int argc, char **argv)
{
	return pmc_main(argc, argv);
}

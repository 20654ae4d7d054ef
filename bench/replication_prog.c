/* bench/replication.sh's benchmark program: two bodies whose work is scaled by the
 * environment variable PMC_REPL_SCALE (default 1.0), so that the same binary can be
 * compared with itself (A/A) and with a known slowdown (PMC_REPL_SCALE=1.05: +5% work).
 *
 *   lcg     a chain of round(1000 * scale) dependent multiply-adds per operation
 *   memcpy  a copy of round(262144 * scale) bytes per operation (buffers from setup)
 *
 * The benchmarks' processes are new starts of this program with its environment, so
 * every process of a run sees the same scale. */
#include <pmcbench.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Read at run time, so that the compiler cannot fold the chain. */
static volatile uint64_t mul = 6364136223846793005u, add = 1442695040888963407u;

/* PMC_REPL_SCALE, or 1.0 when unset; a bad value ends the program (its benchmark's
 * process), which the harness reports as a failure rather than measuring the wrong work. */
static double scale(void)
{
	const char *v = getenv("PMC_REPL_SCALE");
	char *end;
	double x;

	if (!v || !*v)
		return 1.0;
	x = strtod(v, &end);
	if (*end || !(x > 0) || x > 1000) {
		fprintf(
		    stderr,
		    "replication_prog: PMC_REPL_SCALE must be a number in (0, 1000], not '%s'\n",
		    v);
		exit(2);
	}
	return x;
}

static size_t scaled(double base)
{
	double n = round(base * scale());

	return n < 1 ? 1 : (size_t)n;
}

static void lcg(struct pmc_state *s)
{
	uint64_t a = mul, b = add, x = 1;
	size_t n = scaled(1000);

	pmc_set_items_per_iter(s, n);
	while (pmc_loop(s)) {
		for (size_t i = 0; i < n; i++)
			x = x * a + b;
		pmc_do_not_optimize(x);
	}
}
PMC_BENCHMARK(lcg);

/* Untimed: source and destination of the copy in one page-aligned block, written once
 * so that their pages are mapped before the loop. Their distance is fixed, a whole
 * number of pages plus half a page, whatever the size. Left to malloc, the two 256 KiB
 * buffers were mmapped at the same offset in their pages in some batches and came from
 * the heap in others, and the copy took up to 2x as long in some batches of a process
 * (4K aliasing between the loads of one and the stores to the other, presumably): the
 * +5% case read as -22% in a first trial. */
struct bufs {
	size_t n;
	unsigned char *src, *dst;
};

static void bufs_alloc(struct pmc_state *s)
{
	struct bufs *b = malloc(sizeof(*b));

	if (b) {
		size_t n = scaled(262144), gap = (n + 4095) / 4096 * 4096 + 2048;

		b->n = n;
		b->src = aligned_alloc(4096, (gap + n + 4095) / 4096 * 4096);
		if (!b->src) {
			free(b);
			b = NULL;
		} else {
			b->dst = b->src + gap;
			for (size_t i = 0; i < n; i++)
				b->src[i] = (unsigned char)(i * 2654435761u >> 24);
			memset(b->dst, 0, n);
		}
	}
	pmc_set_user_data(s, b);
}

static void bufs_free(struct pmc_state *s)
{
	struct bufs *b = pmc_user_data(s);

	if (b) {
		free(b->src);
		free(b);
	}
}

static void copy(struct pmc_state *s)
{
	struct bufs *b = pmc_user_data(s);

	if (!b) {
		pmc_skip(s, "out of memory");
		return;
	}
	pmc_set_bytes_per_iter(s, b->n);
	while (pmc_loop(s)) {
		memcpy(b->dst, b->src, b->n);
		pmc_clobber_memory();
	}
}
PMC_BENCHMARK_OPTS(copy, .setup = bufs_alloc, .teardown = bufs_free);

int main(int argc, char **argv)
{
	return pmc_main(argc, argv);
}

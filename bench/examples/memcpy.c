/* memcpy over a grid of sizes and source offsets, as Google Benchmark users write it
 * with Ranges, Args and ArgNames (docs/microbench.md, "Arguments"): the dimensions are
 * named, so the benchmarks read memcpy/bytes:4096/offset:1, and one more size is a tuple
 * of its own.
 *
 *	build/bench/examples/memcpy --filter 'offset:1'
 *	build/bench/examples/memcpy --list */
#include <pmcbench.h>
#include <stdlib.h>
#include <string.h>

struct buffers {
	unsigned char *src, *dst;
};

/* Untimed: room for the copy at its offset, the source filled so its pages are real. */
static void alloc_buffers(struct pmc_state *s)
{
	size_t n = (size_t)pmc_arg(s, 0) + (size_t)pmc_arg(s, 1);
	struct buffers *b = calloc(1, sizeof(*b));

	if (b && (b->src = malloc(n)) && (b->dst = malloc(n))) {
		memset(b->src, 0xa5, n);
		memset(b->dst, 0, n);
	}
	pmc_set_user_data(s, b);
}

static void free_buffers(struct pmc_state *s)
{
	struct buffers *b = pmc_user_data(s);

	if (b) {
		free(b->src);
		free(b->dst);
	}
	free(b);
}

static void copy_at(struct pmc_state *s)
{
	struct buffers *b = pmc_user_data(s);
	size_t n = (size_t)pmc_arg(s, 0), off = (size_t)pmc_arg(s, 1);

	if (!b || !b->src || !b->dst) {
		pmc_skip(s, "out of memory");
		return;
	}
	pmc_set_bytes_per_iter(s, n);
	PMC_LOOP(s)
	{
		memcpy(b->dst, b->src + off, n);
		pmc_clobber_memory();
	}
}
/* 64, 2048 and 65536 bytes (the range ends at its end), each aligned and one byte off;
 * then 1 MiB aligned only. */
PMC_BENCHMARK_OPTS(copy_at, .args = {"64..65536*32", "0,1"}, .arg_names = {"bytes", "offset"},
		   .arg_tuples = "1048576,0", .setup = alloc_buffers, .teardown = free_buffers);

int main(int argc, char **argv)
{
	return pmc_main(argc, argv);
}

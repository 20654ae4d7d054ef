/* memcpy from 64 bytes to 1 MiB: bytes per iteration are set, so the report gives
 * bytes/s; the sizes cross the caches (docs/microbench.md).
 *
 *	build/bench/examples/copy --filter 'copy/(64|65536)$' */
#include <pmcbench.h>
#include <stdlib.h>
#include <string.h>

struct buffers {
	unsigned char *src, *dst;
};

/* Untimed: the two buffers, the source filled so that its pages are real. */
static void alloc_buffers(struct pmc_state *s)
{
	size_t n = (size_t)pmc_arg(s, 0);
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

static void copy(struct pmc_state *s)
{
	struct buffers *b = pmc_user_data(s);
	size_t n = (size_t)pmc_arg(s, 0);

	if (!b || !b->src || !b->dst) {
		pmc_skip(s, "out of memory");
		return;
	}
	pmc_set_bytes_per_iter(s, n);
	/* The count in a register: the clobber below would otherwise store and reload it
	 * every iteration, a fifth store beside a 64-byte copy's four. */
	PMC_LOOP(s)
	{
		memcpy(b->dst, b->src, n);
		/* Or the compiler may copy once for all iterations. */
		pmc_clobber_memory();
	}
}
PMC_BENCHMARK_OPTS(copy, .args = {"64..1048576*4"}, .setup = alloc_buffers,
		   .teardown = free_buffers);

int main(int argc, char **argv)
{
	return pmc_main(argc, argv);
}

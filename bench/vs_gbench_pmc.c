/* bench/vs_gbench.sh's pmcbench side: the bodies of vs_gbench_bodies.c, called from the
 * library's loop with its count in a register (PMC_LOOP, as Google Benchmark's range-for
 * keeps its own), at the library's defaults. */
#include <pmcbench.h>

#include "bench/vs_gbench_bodies.h"

/* The benchmark `name`: its state of type `struct type`, set up before the loop (outside
 * the timed batch), then a call of name##_op once per iteration. */
#define VS_BENCH(name, type)                                                                       \
	static void name(struct pmc_state *s)                                                      \
	{                                                                                          \
		struct type *st = type##_init();                                                   \
		PMC_LOOP(s)                                                                        \
		name##_op(st);                                                                     \
	}                                                                                          \
	PMC_BENCHMARK(name)

VS_BENCH(lcg_1, vs_lcg);
VS_BENCH(lcg_1000, vs_lcg);
VS_BENCH(memcpy_64, vs_copy);
VS_BENCH(memcpy_4k, vs_copy);
VS_BENCH(memcpy_1m, vs_copy);
VS_BENCH(hash_lookup, vs_hash);
VS_BENCH(qsort_1000, vs_sort);

int main(int argc, char **argv)
{
	return pmc_main(argc, argv);
}

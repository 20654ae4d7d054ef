/* One shared object built twice, with WORK=1 and WORK=4 (tests/targets/meson.build), for
 * `pmcbench run --library A --library B`, two builds compared round by round
 * (tests/e2e/t_library.sh; docs/microbench.md, "Comparing two builds"): 'steps' does
 * WORK times the work per operation in the second build, and 'extra' is in it alone. */
#include <pmcbench.h>
#include <stdint.h>

#ifndef WORK
#error "build with -DWORK=N"
#endif

/* 100 steps of a linear congruential generator per unit of work: the loop's own
 * instructions are then a small part of each operation, so that the counts per
 * operation are close to WORK times those of one unit. */
static void steps(struct pmc_state *s)
{
	uint64_t x = 1;

	while (pmc_loop(s)) {
		for (int i = 0; i < 100 * WORK; i++) {
			x = x * 6364136223846793005u + 1442695040888963407u;
			pmc_do_not_optimize(x);
		}
	}
}
PMC_BENCHMARK(steps);

#if WORK > 1
static void extra(struct pmc_state *s)
{
	uint64_t x = 0;

	while (pmc_loop(s))
		pmc_do_not_optimize(++x);
}
PMC_BENCHMARK(extra);
#endif

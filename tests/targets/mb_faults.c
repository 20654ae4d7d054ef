/* A benchmark program whose benchmarks misbehave, for the valgrind backend's containment
 * (tests/e2e/t_microbench.sh): one crashes, one calls exit(), one skips itself, one never ends, one
 * works. */
#include <pmcbench.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static void crash(struct pmc_state *s)
{
	while (pmc_loop(s))
		;
	abort();
}
PMC_BENCHMARK(crash);

static void quit(struct pmc_state *s)
{
	(void)s;
	exit(0);
}
PMC_BENCHMARK(quit);

static void skipper(struct pmc_state *s)
{
	pmc_skip(s, "needs a feature this machine lacks");
}
PMC_BENCHMARK(skipper);

static void hang(struct pmc_state *s)
{
	while (pmc_loop(s))
		;
	for (;;)
		pause();
}
PMC_BENCHMARK(hang);

static void mix(struct pmc_state *s)
{
	uint64_t x = 7;

	while (pmc_loop(s)) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		pmc_do_not_optimize(x);
	}
}
PMC_BENCHMARK(mix);

int main(int argc, char **argv)
{
	return pmc_main(argc, argv);
}

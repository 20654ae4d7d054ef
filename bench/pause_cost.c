/* What a pmc_pause/pmc_resume pair costs (bench/README.md, `pause-cost`), beside its
 * floor: two clock_gettime(CLOCK_MONOTONIC) through the vDSO, as a pair reads the wall
 * clock twice. Each iteration times its own body with that clock and gives the time as
 * manual time, so that nothing is subtracted from either. The events (-e) decide a
 * pair's path (docs/microbench.md, "Untimed work"): a group on counters where rdpmc is
 * allowed is read through its pages, any other (software events) is disabled and
 * enabled with ioctl(). Usage: pause-cost [options of a benchmark program], e.g.
 * `-e task-clock --reference clock_floor`. */
#include <stdint.h>
#include <time.h>

#include <pmcbench.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static volatile uint64_t sink;

static void clock_floor(struct pmc_state *s)
{
	while (pmc_loop(s)) {
		uint64_t t0 = now_ns();

		sink += now_ns();
		sink += now_ns();
		pmc_set_iteration_time(s, (double)(now_ns() - t0) * 1e-9);
	}
}
PMC_BENCHMARK_OPTS(clock_floor, .use_manual_time = 1);

static void pause_resume(struct pmc_state *s)
{
	while (pmc_loop(s)) {
		uint64_t t0 = now_ns();

		pmc_pause(s);
		pmc_resume(s);
		pmc_set_iteration_time(s, (double)(now_ns() - t0) * 1e-9);
	}
}
PMC_BENCHMARK_OPTS(pause_resume, .use_manual_time = 1);

int main(int argc, char **argv)
{
	return pmc_main(argc, argv);
}

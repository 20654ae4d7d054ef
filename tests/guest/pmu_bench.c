/* pmu-bench: a benchmark program whose bodies have known instruction counts, for the
 * per-operation counts against a real PMU (tests/guest/t_pmu.sh). nops10 and nops20
 * differ by exactly 10 instructions per iteration, in each loop form the API offers;
 * paused20 and paused40 by 20 paused ones, which count nothing. pause_syscalls counts
 * the system calls a pmc_pause/pmc_resume pair makes, with the raw_syscalls:sys_enter
 * tracepoint (root, tracefs mounted), as its counter pause-syscalls/op. */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <pmcbench.h>

#define NOPS5 "nop\n\tnop\n\tnop\n\tnop\n\tnop\n\t"

static void nops10(struct pmc_state *s)
{
	while (pmc_loop(s))
		__asm__ __volatile__(NOPS5 NOPS5);
}
PMC_BENCHMARK(nops10);

static void nops20(struct pmc_state *s)
{
	while (pmc_loop(s))
		__asm__ __volatile__(NOPS5 NOPS5 NOPS5 NOPS5);
}
PMC_BENCHMARK(nops20);

static void loop_nops10(struct pmc_state *s)
{
	PMC_LOOP(s)
	{
		__asm__ __volatile__(NOPS5 NOPS5);
	}
}
PMC_BENCHMARK(loop_nops10);

static void loop_nops20(struct pmc_state *s)
{
	PMC_LOOP(s)
	{
		__asm__ __volatile__(NOPS5 NOPS5 NOPS5 NOPS5);
	}
}
PMC_BENCHMARK(loop_nops20);

static void paused20(struct pmc_state *s)
{
	while (pmc_loop(s)) {
		__asm__ __volatile__(NOPS5 NOPS5);
		pmc_pause(s);
		__asm__ __volatile__(NOPS5 NOPS5 NOPS5 NOPS5);
		pmc_resume(s);
	}
}
PMC_BENCHMARK(paused20);

static void paused40(struct pmc_state *s)
{
	while (pmc_loop(s)) {
		__asm__ __volatile__(NOPS5 NOPS5);
		pmc_pause(s);
		__asm__ __volatile__(NOPS5 NOPS5 NOPS5 NOPS5 NOPS5 NOPS5 NOPS5 NOPS5);
		pmc_resume(s);
	}
}
PMC_BENCHMARK(paused40);

/* The calling thread's raw_syscalls:sys_enter count, opened once; -1 when it cannot be. */
static int sys_enter_fd = -1;

static void open_sys_enter(struct pmc_state *s)
{
	struct perf_event_attr a = {.size = sizeof(a), .type = PERF_TYPE_TRACEPOINT};
	FILE *f = fopen("/sys/kernel/tracing/events/raw_syscalls/sys_enter/id", "r");
	unsigned long long id;

	if (!f || fscanf(f, "%llu", &id) != 1) {
		if (f)
			fclose(f);
		pmc_skip(s, "no raw_syscalls/sys_enter in /sys/kernel/tracing");
		return;
	}
	fclose(f);
	a.config = id;
	sys_enter_fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (sys_enter_fd < 0)
		pmc_skip(s, "raw_syscalls:sys_enter does not open (root only)");
}

static uint64_t sys_enters(void)
{
	uint64_t v = 0;

	return read(sys_enter_fd, &v, sizeof(v)) == (ssize_t)sizeof(v) ? v : 0;
}

/* Between two reads of the count, a pair: the second read's own entry is counted (the
 * tracepoint fires before the read runs), the pair's are the rest. */
static void pause_syscalls(struct pmc_state *s)
{
	uint64_t calls = 0;

	if (sys_enter_fd < 0)
		open_sys_enter(s);
	if (sys_enter_fd < 0)
		return;
	while (pmc_loop(s)) {
		uint64_t a = sys_enters();

		pmc_pause(s);
		pmc_resume(s);
		calls += sys_enters() - a - 1;
	}
	pmc_set_counter(s, "pause-syscalls", (double)calls, PMC_COUNTER_PER_OP);
}
PMC_BENCHMARK(pause_syscalls);

int main(int argc, char **argv)
{
	return pmc_main(argc, argv);
}

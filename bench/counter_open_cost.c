/* What a run's counters cost the kernel, step by step (issue 37): each `pmcbench run`
 * opens its group on the child before the exec and closes it after the reading, so every
 * run pays the group's perf_event_open calls, PERF_EVENT_IOC_ID on each member (the read
 * maps its values by id), one group read and the closes. Here the default software group
 * (task-clock as leader, page-faults, context-switches, cpu-migrations: what a run opens
 * on a machine without a PMU) is opened on this process with a run's attributes
 * (disabled, enable_on_exec, the group read format), N times, with one disabled event of
 * each kind held open meanwhile as the session does (counters.h, pmc_events_hold), so no
 * static key is flipped. For scale, a posix_spawn and wait4 of `true` (the floor of a
 * run, bench/spawn_loop.c) is timed N times too, after the counters. Prints the mean
 * microseconds of each step per run.
 *
 * Usage: build/bench/counter-open-cost [N]   (default 2000) */
#include <errno.h>
#include <linux/perf_event.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define NEV 4
static const uint64_t configs[NEV] = {PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_PAGE_FAULTS,
				      PERF_COUNT_SW_CONTEXT_SWITCHES, PERF_COUNT_SW_CPU_MIGRATIONS};

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int open_event(uint64_t config, int group)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.disabled = group < 0;
	a.enable_on_exec = group < 0;
	a.inherit = 1;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 2000;
	double t_open = 0, t_id = 0, t_read = 0, t_close = 0, t_spawn = 0;
	char *const true_argv[] = {"true", NULL};
	int hold[NEV];

	if (n < 1) {
		fprintf(stderr, "counter-open-cost: N must be a whole number > 0\n");
		return 2;
	}
	for (int i = 0; i < NEV; i++)
		if ((hold[i] = open_event(configs[i], -1)) < 0) {
			fprintf(stderr, "counter-open-cost: perf_event_open: %s\n",
				strerror(errno));
			return 1;
		}
	for (long k = 0; k < n; k++) {
		uint64_t id, buf[3 + 2 * NEV];
		int fd[NEV];
		double t0, t1, t2, t3, t4;

		t0 = now_us();
		fd[0] = open_event(configs[0], -1);
		for (int i = 1; i < NEV; i++)
			fd[i] = open_event(configs[i], fd[0]);
		t1 = now_us();
		for (int i = 0; i < NEV; i++)
			if (fd[i] < 0 || ioctl(fd[i], PERF_EVENT_IOC_ID, &id) < 0) {
				fprintf(stderr, "counter-open-cost: %s\n", strerror(errno));
				return 1;
			}
		t2 = now_us();
		if (read(fd[0], buf, sizeof(buf)) < 0) {
			fprintf(stderr, "counter-open-cost: read: %s\n", strerror(errno));
			return 1;
		}
		t3 = now_us();
		for (int i = 0; i < NEV; i++)
			close(fd[i]);
		t4 = now_us();
		t_open += t1 - t0;
		t_id += t2 - t1;
		t_read += t3 - t2;
		t_close += t4 - t3;
	}
	for (int i = 0; i < NEV; i++)
		close(hold[i]);
	for (long k = 0; k < n; k++) {
		double t0 = now_us();
		pid_t pid;
		int st;

		if (posix_spawnp(&pid, "true", NULL, NULL, true_argv, environ) != 0 ||
		    waitpid(pid, &st, 0) < 0) {
			fprintf(stderr, "counter-open-cost: cannot spawn true\n");
			return 1;
		}
		t_spawn += now_us() - t0;
	}
	printf("per run, %ld runs, the group of %d software events: open %.2f us, "
	       "PERF_EVENT_IOC_ID %.2f us, read %.2f us, close %.2f us; in all %.2f us, "
	       "%.1f%% of a spawn and wait of true (%.1f us)\n",
	       n, NEV, t_open / n, t_id / n, t_read / n, t_close / n,
	       (t_open + t_id + t_read + t_close) / n,
	       100 * (t_open + t_id + t_read + t_close) / t_spawn, t_spawn / n);
	return 0;
}

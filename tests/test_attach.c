/* Attached counting (counters/perf/attach.h) against the emulated PMU: the descriptors
 * per thread (pid = the thread, cpu -1, inherit) and per CPU (pid -1, cpu k, no inherit),
 * as perf_event_open() allows them; windows as differences; each part scaled by its own
 * running fraction before the sum; the targets the kernel refuses. */
#include <errno.h>
#include <linux/perf_event.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "counters/perf/attach.h"
#include "counters/perf/events.h"
#include "tests/fake_pmu.h"
#include "tests/helpers.h"

#define Q FAKE_PMU_QUANTUM_NS

static struct fake_pmu fake;
static char proc[PATH_MAX];

static const struct fake_pmu_config pmu8 = {.counters = 8, .paranoid = 2, .privileged = true};

static void put_text(const char *rel, const char *text)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", proc, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A /proc with process pid of threads tids, and perf_event_paranoid at level. */
static void make_proc(pid_t pid, const pid_t *tids, size_t n, int level)
{
	char path[PATH_MAX + 64], text[16];

	snprintf(proc, sizeof(proc), "/tmp/pmc-attach-XXXXXX");
	assert_non_null(mkdtemp(proc));
	snprintf(path, sizeof(path), "%s/%d", proc, (int)pid);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%d/task", proc, (int)pid);
	assert_int_equal(mkdir(path, 0755), 0);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%d/task/%d", proc, (int)pid, (int)tids[i]);
		assert_int_equal(mkdir(path, 0755), 0);
	}
	snprintf(path, sizeof(path), "%s/sys", proc);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/sys/kernel", proc);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(text, sizeof(text), "%d\n", level);
	put_text("sys/kernel/perf_event_paranoid", text);
}

static void remove_proc(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", proc);
	assert_int_equal(system(cmd), 0);
}

static uint64_t rate_of(const struct pmc_event *ev)
{
	return fake_pmu_rate(ev->type, ev->config);
}

/* Three threads: a descriptor set each, pid = the thread, cpu -1, inherit (threads they
 * start later are counted into them), disabled until enabled; the sum of the three. */
static void test_threads_layout_and_sum(void **state)
{
	const pid_t tids[] = {4100, 4101, 4102}, pid = 4100;
	struct pmc_event_list *l = t_events("{task-clock,page-faults}");
	struct pmc_attach_opts o = {.pids = &pid, .npids = 1, .sys = &fake.sys};
	struct pmc_reading r[2];
	struct pmc_attach *a = NULL;
	char err[256] = "";

	(void)state;
	fake_pmu_init(&fake, &pmu8);
	make_proc(pid, tids, 3, 2);
	o.proc_root = proc;
	assert_int_equal(pmc_attach_open(l, &o, &a, err, sizeof(err)), 0);
	assert_int_equal(pmc_attach_parts(a), 3);
	assert_int_equal(fake.nlog, 6);
	for (size_t i = 0; i < fake.nlog; i++) {
		const struct fake_pmu_open *op = &fake.log[i];

		assert_true(op->pid >= 4100 && op->pid <= 4102);
		assert_int_equal(op->cpu, -1);
		assert_int_equal(op->attr.inherit, 1);
		assert_int_equal(op->attr.disabled, i % 2 == 0);
		assert_int_equal(op->attr.enable_on_exec, 0);
	}
	fake_pmu_tick(&fake, 2); /* disabled: nothing */
	assert_int_equal(pmc_attach_enable(a), 0);
	fake_pmu_tick(&fake, 5);
	assert_int_equal(pmc_attach_read(a, r), 0);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(r[i].status, PMC_STATUS_COUNTED);
		assert_int_equal(r[i].value, 3 * 5 * rate_of(&l->events[i]));
		assert_int_equal(r[i].enabled, 3 * 5 * Q);
		assert_true(r[i].scaled == (double)r[i].value);
	}
	/* The next window: only what was counted since. */
	fake_pmu_tick(&fake, 2);
	assert_int_equal(pmc_attach_read(a, r), 0);
	assert_int_equal(r[1].value, 3 * 2 * rate_of(&l->events[1]));
	assert_int_equal(r[1].running, 3 * 2 * Q);
	/* A mark, then a window after it. */
	fake_pmu_tick(&fake, 4);
	assert_int_equal(pmc_attach_read(a, NULL), 0);
	fake_pmu_tick(&fake, 1);
	assert_int_equal(pmc_attach_read(a, r), 0);
	assert_int_equal(r[0].value, 3 * rate_of(&l->events[0]));
	pmc_attach_close(a);
	assert_int_equal(fake.nopen, 0);
	assert_int_equal(fake.bad_closes, 0);
	remove_proc();
	pmc_event_list_free(l);
}

/* Every CPU: pid -1 with cpu k for each online CPU (the kernel refuses pid -1 with cpu
 * -1), no inherit; the CPUs' counts summed. */
static void test_cpus_layout_and_sum(void **state)
{
	struct pmc_event_list *l = t_events("task-clock,context-switches");
	struct fake_pmu_config cfg = pmu8;
	struct pmc_attach_opts o = {.system_wide = true, .sys = &fake.sys};
	struct pmc_reading r[2];
	struct pmc_attach *a = NULL;
	char err[256] = "";
	bool seen[4] = {false};

	(void)state;
	cfg.online = "0-3\n";
	fake_pmu_init(&fake, &cfg);
	assert_int_equal(pmc_attach_open(l, &o, &a, err, sizeof(err)), 0);
	assert_int_equal(pmc_attach_parts(a), 4);
	assert_int_equal(fake.nlog, 8);
	for (size_t i = 0; i < fake.nlog; i++) {
		const struct fake_pmu_open *op = &fake.log[i];

		assert_int_equal(op->pid, -1);
		assert_true(op->cpu >= 0 && op->cpu < 4);
		assert_true(op->result >= 0);
		assert_int_equal(op->attr.inherit, 0);
		seen[op->cpu] = true;
	}
	for (int k = 0; k < 4; k++)
		assert_true(seen[k]);
	assert_int_equal(pmc_attach_enable(a), 0);
	fake_pmu_tick(&fake, 3);
	assert_int_equal(pmc_attach_read(a, r), 0);
	assert_int_equal(r[0].status, PMC_STATUS_COUNTED);
	assert_int_equal(r[0].value, 4 * 3 * rate_of(&l->events[0]));
	assert_int_equal(r[1].value, 4 * 3 * rate_of(&l->events[1]));
	pmc_attach_close(a);
	assert_int_equal(fake.nopen, 0);
	/* The online CPUs as listed, not 0..n-1: CPU 1 offline (the kernel refuses it). */
	cfg.online = "0,2-3";
	fake_pmu_init(&fake, &cfg);
	assert_int_equal(pmc_attach_open(l, &o, &a, err, sizeof(err)), 0);
	assert_int_equal(pmc_attach_parts(a), 3);
	for (size_t i = 0; i < fake.nlog; i++) {
		assert_true(fake.log[i].result >= 0);
		assert_int_not_equal(fake.log[i].cpu, 1);
	}
	pmc_attach_close(a);
	pmc_event_list_free(l);
}

/* Two threads' groups of two hardware events on two counters: each part runs every
 * other quantum, and is extrapolated by its own fraction (2 x 1/2) before the sum, which
 * is what dedicated counters would have counted. */
static void test_parts_scaled_each(void **state)
{
	const pid_t tids[] = {500, 501}, pid = 500;
	struct pmc_event_list *l = t_events("{cycles,instructions}");
	struct fake_pmu_config cfg = pmu8;
	struct pmc_attach_opts o = {.pids = &pid, .npids = 1, .sys = &fake.sys};
	struct pmc_reading r[2];
	struct pmc_attach *a = NULL;
	char err[256] = "";

	(void)state;
	cfg.counters = 2;
	fake_pmu_init(&fake, &cfg);
	make_proc(pid, tids, 2, 2);
	o.proc_root = proc;
	assert_int_equal(pmc_attach_open(l, &o, &a, err, sizeof(err)), 0);
	assert_int_equal(pmc_attach_enable(a), 0);
	fake_pmu_tick(&fake, 4);
	assert_int_equal(pmc_attach_read(a, r), 0);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(r[i].status, PMC_STATUS_SCALED);
		assert_int_equal(r[i].enabled, 2 * 4 * Q);
		assert_int_equal(r[i].running, 2 * 2 * Q);
		assert_int_equal(r[i].value, 2 * 2 * rate_of(&l->events[i]));
		assert_true(r[i].scaled == (double)(2 * 4 * rate_of(&l->events[i])));
	}
	pmc_attach_close(a);
	remove_proc();
	pmc_event_list_free(l);
}

/* Before Linux 4.13 inherit and PERF_FORMAT_GROUP exclude each other: every thread's
 * events are opened and read one by one, and still summed. */
static void test_inherit_without_group_reads(void **state)
{
	const pid_t tids[] = {700, 701}, pid = 700;
	struct pmc_event_list *l = t_events("{task-clock,page-faults}");
	struct fake_pmu_config cfg = pmu8;
	struct pmc_attach_opts o = {.pids = &pid, .npids = 1, .sys = &fake.sys};
	struct pmc_reading r[2];
	struct pmc_attach *a = NULL;
	char err[256] = "";

	(void)state;
	cfg.kernel = FAKE_PMU_KERNEL(4, 12);
	fake_pmu_init(&fake, &cfg);
	make_proc(pid, tids, 2, 2);
	o.proc_root = proc;
	assert_int_equal(pmc_attach_open(l, &o, &a, err, sizeof(err)), 0);
	for (size_t i = 0; i < fake.nlog; i++)
		if (fake.log[i].result >= 0)
			assert_int_equal(fake.log[i].attr.read_format & PERF_FORMAT_GROUP, 0);
	assert_int_equal(pmc_attach_enable(a), 0);
	fake_pmu_tick(&fake, 3);
	assert_int_equal(pmc_attach_read(a, r), 0);
	assert_int_equal(r[1].status, PMC_STATUS_COUNTED);
	assert_int_equal(r[1].value, 2 * 3 * rate_of(&l->events[1]));
	pmc_attach_close(a);
	remove_proc();
	pmc_event_list_free(l);
}

/* What the kernel refuses: a process that is not there, another user's (the ptrace
 * check), every CPU without the privilege; one line each. */
static void test_refused_targets(void **state)
{
	const pid_t tids[] = {900}, pid = 900, none = 901;
	struct pmc_event_list *l = t_events("task-clock");
	struct fake_pmu_config cfg = {.counters = 8, .paranoid = 2, .foreign_pid = 900};
	struct pmc_attach_opts o = {
	    .pids = &none, .npids = 1, .sys = &fake.sys, .user_only_fallback = true};
	struct pmc_attach *a = NULL;
	char err[256] = "";

	(void)state;
	fake_pmu_init(&fake, &cfg);
	make_proc(pid, tids, 1, 2);
	o.proc_root = proc;
	assert_int_equal(pmc_attach_open(l, &o, &a, err, sizeof(err)), -ESRCH);
	assert_string_equal(err, "-p 901: no such process");
	assert_null(a);
	o.pids = &pid;
	assert_int_equal(pmc_attach_open(l, &o, &a, err, sizeof(err)), -EACCES);
	assert_non_null(strstr(err, "-p 900: the kernel refuses to count it (permission denied)"));
	assert_int_equal(fake.nopen, 0);
	o.pids = NULL;
	o.npids = 0;
	o.system_wide = true;
	assert_int_equal(pmc_attach_open(l, &o, &a, err, sizeof(err)), -EACCES);
	assert_non_null(strstr(err, "-a counts every CPU: that needs root or CAP_PERFMON, or "
				    "kernel.perf_event_paranoid <= 0 (it is 2"));
	/* The same unprivileged caller's own process is counted (user space only). */
	cfg.foreign_pid = 0;
	fake_pmu_init(&fake, &cfg);
	o.system_wide = false;
	o.pids = &pid;
	o.npids = 1;
	assert_int_equal(pmc_attach_open(l, &o, &a, err, sizeof(err)), 0);
	assert_int_equal(pmc_attach_parts(a), 1);
	pmc_attach_close(a);
	/* Neither or both targets is the caller's mistake. */
	o.system_wide = true;
	assert_int_equal(pmc_attach_open(l, &o, &a, err, sizeof(err)), -EINVAL);
	remove_proc();
	pmc_event_list_free(l);
}

/* A thread started while the others were being attached (by one not yet attached, so not
 * inherited) is found by listing again; one gone since it was listed (ESRCH) is no error;
 * two processes are both counted. */
static void on_open_new_thread(struct fake_pmu *f, void *ud)
{
	char path[PATH_MAX + 64];

	(void)f;
	(void)ud;
	snprintf(path, sizeof(path), "%s/300/task/309", proc);
	mkdir(path, 0755);
}

static void test_threads_listed_again_and_gone(void **state)
{
	const pid_t tids[] = {300, 301}, pids[] = {300, 400};
	struct pmc_event_list *l = t_events("page-faults");
	struct fake_pmu_config cfg = pmu8;
	struct pmc_attach_opts o = {.pids = pids, .npids = 2, .sys = &fake.sys};
	struct pmc_reading r[1];
	struct pmc_attach *a = NULL;
	char err[256] = "", path[PATH_MAX + 64];
	bool opened[3] = {false};

	(void)state;
	cfg.gone_pid = 301;
	fake_pmu_init(&fake, &cfg);
	fake.on_open = on_open_new_thread;
	make_proc(300, tids, 2, 2);
	snprintf(path, sizeof(path), "%s/400", proc);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/400/task", proc);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/400/task/400", proc);
	assert_int_equal(mkdir(path, 0755), 0);
	o.proc_root = proc;
	assert_int_equal(pmc_attach_open(l, &o, &a, err, sizeof(err)), 0);
	/* 300, 309 (listed again) and 400; 301 had exited. */
	assert_int_equal(pmc_attach_parts(a), 3);
	for (size_t i = 0; i < fake.nlog; i++) {
		if (fake.log[i].result < 0) {
			assert_int_equal(fake.log[i].pid, 301);
			continue;
		}
		opened[fake.log[i].pid == 300 ? 0 : fake.log[i].pid == 309 ? 1 : 2] = true;
	}
	assert_true(opened[0] && opened[1] && opened[2]);
	assert_int_equal(pmc_attach_enable(a), 0);
	fake_pmu_tick(&fake, 2);
	assert_int_equal(pmc_attach_read(a, r), 0);
	assert_int_equal(r[0].value, 3 * 2 * rate_of(&l->events[0]));
	pmc_attach_close(a);
	remove_proc();
	pmc_event_list_free(l);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_threads_layout_and_sum),
	    cmocka_unit_test(test_cpus_layout_and_sum),
	    cmocka_unit_test(test_parts_scaled_each),
	    cmocka_unit_test(test_inherit_without_group_reads),
	    cmocka_unit_test(test_refused_targets),
	    cmocka_unit_test(test_threads_listed_again_and_gone),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

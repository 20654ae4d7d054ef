/* Uncore and RAPL events (docs/events.md, "Uncore and RAPL events") through the emulated
 * PMU's RAPL-like `power` PMU and its sysfs tree: the parser marks them system-wide with
 * their cpumask, scale, unit and per-pkg; the engine opens them on each CPU of the
 * cpumask with pid -1 (never per task, which the PMU refuses, never in a task's group),
 * enables them explicitly, sums the CPUs and applies the scale; unprivileged under
 * perf_event_paranoid 1 they are denied; per-task events of the same list count as
 * before; and each scope opens only its own events. */
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "counters/perf/counters.h"
#include "counters/perf/events.h"
#include "tests/fake_pmu.h"

#define Q FAKE_PMU_QUANTUM_NS
#define POWER 21
#define ENERGY_PKG 0x02
/* rapl.c's scale: 2^-32 J per count, as sysfs writes it. */
#define RAPL_SCALE 2.3283064365386962890625e-10

static struct fake_pmu fake;
static char root[PATH_MAX];

/* Two packages, CPU 0 and CPU 1 each the first of its package; CAP_PERFMON. */
static const struct fake_pmu_config two_pkg = {
    .counters = 4,
    .paranoid = 2,
    .privileged = true,
    .online = "0-1",
    .power_type = POWER,
    .power_cpumask = "0,1",
};

static void machine(const struct fake_pmu_config *cfg)
{
	fake_pmu_init(&fake, cfg);
	assert_int_equal(fake_pmu_sysfs(cfg, root), 0);
	fake.sys.sysfs_root = root;
}

static int teardown(void **state)
{
	(void)state;
	fake_pmu_sysfs_remove(root);
	root[0] = '\0';
	return 0;
}

static void put(const char *rel, const char *text)
{
	char path[PATH_MAX + 64];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

static void dir(const char *rel)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static struct pmc_event_list *events(const char *spec)
{
	struct pmc_event_list_opts o = {.sz = sizeof(o), .sysfs_root = root};
	struct pmc_event_list *l = NULL;
	char err[256];

	if (pmc_event_list_parse(spec, &o, &l, err, sizeof(err)) != 0)
		print_error("%s: %s\n", spec, err);
	assert_non_null(l);
	return l;
}

static struct pmc_counters *open_scope(const struct pmc_event_list *l,
				       enum pmc_counters_scope scope, bool start_disabled)
{
	struct pmc_counters_opts o = {.sz = sizeof(o), .start_disabled = start_disabled};
	struct pmc_counters *c = NULL;

	assert_int_equal(pmc_counters_open_scope(l, &o, &fake.sys, scope, &c), 0);
	assert_non_null(c);
	return c;
}

/* Opens of the power PMU in the log, successful or not, and how many were per task. */
static size_t power_opens(size_t *ret_per_task)
{
	size_t n = 0, per_task = 0;

	for (size_t i = 0; i < fake.nlog; i++) {
		if (fake.log[i].attr.type != POWER)
			continue;
		n++;
		per_task += fake.log[i].pid != -1 || fake.log[i].cpu < 0;
	}
	if (ret_per_task)
		*ret_per_task = per_task;
	return n;
}

static void test_parse(void **state)
{
	struct pmc_event_list *l;
	const struct pmc_event *ev;

	(void)state;
	machine(&two_pkg);
	/* An uncore PMU as Intel's IMC shows it: one CPU per package, MiB, per-pkg. */
	dir("uncore_imc_0");
	put("uncore_imc_0/type", "17\n");
	put("uncore_imc_0/cpumask", "0,18\n");
	dir("uncore_imc_0/events");
	dir("uncore_imc_0/format");
	put("uncore_imc_0/events/cas_count_read", "event=0x04,umask=0x03\n");
	put("uncore_imc_0/events/cas_count_read.scale", "6.103515625e-5\n");
	put("uncore_imc_0/events/cas_count_read.unit", "MiB\n");
	put("uncore_imc_0/events/cas_count_read.per-pkg", "1\n");
	put("uncore_imc_0/format/event", "config:0-7\n");
	put("uncore_imc_0/format/umask", "config:8-15\n");
	l = events("power/energy-pkg/,cpu/cycles/,uncore_imc_0/cas_count_read/,task-clock");
	assert_int_equal(l->n, 4);

	ev = &l->events[0];
	assert_true(ev->system_wide);
	assert_string_equal(ev->cpus, "0,1");
	assert_true(ev->scale == RAPL_SCALE);
	assert_true(pmc_event_scale(ev) == 0x1p-32);
	assert_string_equal(ev->unit, "Joules");
	assert_false(ev->per_pkg);
	assert_int_equal(ev->type, POWER);
	assert_int_equal(ev->config, ENERGY_PKG);

	/* A core PMU: per task, no scale. */
	ev = &l->events[1];
	assert_false(ev->system_wide);
	assert_string_equal(ev->cpus, "");
	assert_true(pmc_event_scale(ev) == 1.0);
	assert_string_equal(ev->unit, "");

	ev = &l->events[2];
	assert_true(ev->system_wide);
	assert_string_equal(ev->cpus, "0,18");
	assert_true(ev->scale == 6.103515625e-5);
	assert_string_equal(ev->unit, "MiB");
	assert_true(ev->per_pkg);
	assert_int_equal(ev->config, 0x0304);

	assert_false(l->events[3].system_wide);
	pmc_event_list_free(l);
}

static void test_bad_cpumask_is_an_error(void **state)
{
	struct pmc_event_list_opts o = {.sz = sizeof(o)};
	struct pmc_event_list *l = NULL;
	char err[256] = "";

	(void)state;
	machine(&two_pkg);
	o.sysfs_root = root;
	put("power/cpumask", "zero\n");
	assert_int_equal(pmc_event_list_parse("power/energy-pkg/", &o, &l, err, sizeof(err)),
			 -EINVAL);
	assert_null(l);
	assert_non_null(strstr(err, "cpumask of PMU 'power'"));
}

struct cpus_seen {
	int cpu[8];
	size_t n;
};

static int collect(int cpu, void *ud)
{
	struct cpus_seen *s = ud;

	if (s->n == 8)
		return -E2BIG;
	s->cpu[s->n++] = cpu;
	return 0;
}

static void test_cpu_list(void **state)
{
	struct cpus_seen s = {.n = 0};

	(void)state;
	assert_int_equal(pmc_cpu_list_each("0-2,18", collect, &s), 0);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.cpu[0], 0);
	assert_int_equal(s.cpu[2], 2);
	assert_int_equal(s.cpu[3], 18);
	assert_int_equal(pmc_cpu_list_each("", collect, &s), -EINVAL);
	assert_int_equal(pmc_cpu_list_each("0,x", collect, &s), -EINVAL);
	assert_int_equal(pmc_cpu_list_each("3-1", collect, &s), -EINVAL);
	assert_int_equal(pmc_cpu_list_count("0,18"), 2);
	assert_int_equal(pmc_cpu_list_count("0-3,8"), 5);
	assert_int_equal(pmc_cpu_list_count("0;1"), 0);
}

/* pid -1 on each CPU of the cpumask, each its own group, no inherit, no enable_on_exec,
 * disabled until enabled; per task never. */
static void test_open_each_cpu(void **state)
{
	struct pmc_event_list *l;
	struct pmc_counters *c;
	size_t per_task = 1, k = 0;

	(void)state;
	machine(&two_pkg);
	l = events("power/energy-pkg/");
	c = open_scope(l, PMC_SCOPE_ALL, true);
	assert_int_equal(pmc_counters_opened(c), 1);
	assert_int_equal(power_opens(&per_task), 2);
	assert_int_equal(per_task, 0);
	for (size_t i = 0; i < fake.nlog; i++) {
		const struct fake_pmu_open *o = &fake.log[i];

		if (o->attr.type != POWER)
			continue;
		assert_int_equal(o->cpu, (int)k++);
		assert_int_equal(o->pid, -1);
		assert_int_equal(o->group_fd, -1);
		assert_true(o->result >= 0);
		assert_int_equal(o->attr.inherit, 0);
		assert_int_equal(o->attr.enable_on_exec, 0);
		assert_int_equal(o->attr.disabled, 1);
		assert_int_equal(o->attr.config, ENERGY_PKG);
	}
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* Both CPUs' counts summed, times too; the scale turns the sum into joules. Nothing is
 * counted before the explicit enable or after the disable. */
static void test_read_sum_scaled(void **state)
{
	struct pmc_event_list *l;
	struct pmc_counters *c;
	struct pmc_reading r;
	uint64_t rate = fake_pmu_rate(POWER, ENERGY_PKG);

	(void)state;
	machine(&two_pkg);
	l = events("power/energy-pkg/");
	c = open_scope(l, PMC_SCOPE_ALL, true);
	fake_pmu_exec(&fake); /* no enable_on_exec: still disabled */
	fake_pmu_tick(&fake, 3);
	assert_int_equal(pmc_counters_enable(c), 0);
	fake_pmu_tick(&fake, 10);
	assert_int_equal(pmc_counters_disable(c), 0);
	fake_pmu_tick(&fake, 5);
	assert_int_equal(pmc_counters_read(c, &r, sizeof(r)), 0);
	assert_int_equal(r.status, PMC_STATUS_COUNTED);
	assert_int_equal(r.value, 2 * 10 * rate);
	assert_int_equal(r.enabled, 2 * 10 * Q);
	assert_int_equal(r.running, 2 * 10 * Q);
	assert_true(r.scaled == (double)(2 * 10 * rate) * RAPL_SCALE);
	assert_string_equal(l->events[0].unit, "Joules");
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* The power PMU's event opened on cpu (a slot of the emulation). */
static struct fake_pmu_event *power_on(int cpu)
{
	for (int i = 0; i < FAKE_PMU_MAX_EVENTS; i++)
		if (fake.ev[i].used && fake.ev[i].attr.type == POWER && fake.ev[i].cpu == cpu)
			return &fake.ev[i];
	fail_msg("no power event on CPU %d", cpu);
	return NULL;
}

/* The CPUs of a system-wide event multiplexed unevenly (CPU 1's event ran a fifth of the
 * time): each CPU's count is scaled by its own times, then the CPUs summed, as perf stat
 * aggregates (tools/perf/util/stat.c, process_counter_values()); the times are the sums,
 * so the running fraction is perf's, all CPUs' running over all CPUs' enabled. Scaling
 * the sum would give 1100 * 20 / 12 = 1833, not 1000 + 100 * 5 = 1500. A CPU whose event
 * never ran leaves the sum unknown: not counted, as perf stat says of it. */
static void test_scaled_per_cpu(void **state)
{
	struct pmc_event_list *l;
	struct pmc_counters *c;
	struct pmc_reading r;

	(void)state;
	machine(&two_pkg);
	l = events("power/energy-pkg/");
	c = open_scope(l, PMC_SCOPE_ALL, false);
	fake_pmu_tick(&fake, 10);
	power_on(0)->value = 1000;
	power_on(1)->value = 100;
	power_on(1)->time_running = 2 * Q;
	assert_int_equal(pmc_counters_read(c, &r, sizeof(r)), 0);
	assert_int_equal(r.status, PMC_STATUS_SCALED);
	assert_int_equal(r.value, 1100);
	assert_int_equal(r.enabled, 20 * Q);
	assert_int_equal(r.running, 12 * Q);
	if (r.scaled != 1500 * RAPL_SCALE)
		fail_msg("scaled %.17g J, expected %.17g J", r.scaled, 1500 * RAPL_SCALE);
	/* CPU 1's event never ran. */
	power_on(0)->time_running = 10 * Q;
	power_on(1)->time_running = 0;
	assert_int_equal(pmc_counters_read(c, &r, sizeof(r)), 0);
	assert_int_equal(r.status, PMC_STATUS_NOT_COUNTED);
	assert_true(isnan(r.scaled));
	assert_false(pmc_status_has_value(r.status));
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* What rapl_pmu_event_init() answers a per-task event: EINVAL. */
static void test_fake_refuses_per_task(void **state)
{
	struct perf_event_attr a = {.size = sizeof(a), .type = POWER, .config = ENERGY_PKG};

	(void)state;
	machine(&two_pkg);
	assert_int_equal(fake.sys.event_open(fake.sys.ctx, &a, 0, -1, -1, 0), -EINVAL);
	assert_true(fake.sys.event_open(fake.sys.ctx, &a, -1, 0, -1, 0) >= 0);
	a.exclude_kernel = 1;
	assert_int_equal(fake.sys.event_open(fake.sys.ctx, &a, -1, 0, -1, 0), -EINVAL);
}

/* Unprivileged under perf_event_paranoid 1: CPU-wide events are denied (EACCES), and
 * the per-task events of the list count as before. */
static void test_denied_unprivileged(void **state)
{
	struct fake_pmu_config cfg = two_pkg;
	struct pmc_event_list *l;
	struct pmc_counters *c;
	struct pmc_reading r[2];
	enum pmc_status st;
	int err;

	(void)state;
	cfg.privileged = false;
	cfg.paranoid = 1;
	machine(&cfg);
	l = events("task-clock,power/energy-pkg/");
	c = open_scope(l, PMC_SCOPE_ALL, false);
	pmc_counters_open_status(c, 1, &st, &err);
	assert_int_equal(st, PMC_STATUS_DENIED);
	assert_int_equal(err, EACCES);
	assert_int_equal(pmc_counters_opened(c), 1);
	fake_pmu_tick(&fake, 4);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_int_equal(r[0].status, PMC_STATUS_COUNTED);
	assert_int_equal(r[0].running, 4 * Q);
	assert_int_equal(r[1].status, PMC_STATUS_DENIED);
	assert_int_equal(r[1].error, EACCES);
	assert_true(isnan(r[1].scaled));
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* A group mixing them is split: the task's events keep their group, the system-wide one
 * is opened on its own; every reading lands at its event's index. */
static void test_mixed_group(void **state)
{
	struct pmc_event_list *l;
	struct pmc_counters *c;
	struct pmc_reading r[4];
	int cycles_fd = -2;
	size_t per_task = 1;

	(void)state;
	machine(&two_pkg);
	l = events("{cycles,power/energy-pkg/,instructions},page-faults");
	c = open_scope(l, PMC_SCOPE_ALL, false);
	assert_int_equal(pmc_counters_opened(c), 4);
	assert_int_equal(power_opens(&per_task), 2);
	assert_int_equal(per_task, 0);
	for (size_t i = 0; i < fake.nlog; i++) {
		const struct fake_pmu_open *o = &fake.log[i];

		if (o->attr.type == PERF_TYPE_HARDWARE &&
		    o->attr.config == PERF_COUNT_HW_CPU_CYCLES)
			cycles_fd = o->result;
		if (o->attr.type == PERF_TYPE_HARDWARE &&
		    o->attr.config == PERF_COUNT_HW_INSTRUCTIONS)
			assert_int_equal(o->group_fd, cycles_fd);
		if (o->attr.type != POWER)
			assert_int_equal(o->pid, 0);
	}
	fake_pmu_tick(&fake, 6);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_int_equal(r[0].value,
			 6 * fake_pmu_rate(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES));
	assert_true(r[1].scaled == (double)(2 * 6 * fake_pmu_rate(POWER, ENERGY_PKG)) * RAPL_SCALE);
	assert_int_equal(r[2].value,
			 6 * fake_pmu_rate(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS));
	assert_int_equal(r[3].value,
			 6 * fake_pmu_rate(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS));
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(r[i].status, PMC_STATUS_COUNTED);
	assert_int_equal(pmc_counters_nparts(c, 1), 0);
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* The runner's split: the child opens the task's events, the parent the system-wide
 * ones; each reads the other's as not counted, error 0. */
static void test_scopes(void **state)
{
	struct pmc_event_list *l;
	struct pmc_counters *task, *sys;
	struct pmc_reading rt[2], rs[2];
	size_t per_task = 1;

	(void)state;
	machine(&two_pkg);
	l = events("cycles,power/energy-pkg/");
	task = open_scope(l, PMC_SCOPE_TASK, false);
	assert_int_equal(power_opens(NULL), 0);
	sys = open_scope(l, PMC_SCOPE_SYSTEM, true);
	assert_int_equal(power_opens(&per_task), 2);
	assert_int_equal(per_task, 0);
	assert_int_equal(pmc_counters_opened(task), 1);
	assert_int_equal(pmc_counters_opened(sys), 1);
	assert_int_equal(pmc_counters_enable(sys), 0);
	fake_pmu_tick(&fake, 2);
	assert_int_equal(pmc_counters_read(task, rt, sizeof(*rt)), 0);
	assert_int_equal(pmc_counters_read(sys, rs, sizeof(*rs)), 0);
	assert_int_equal(rt[0].status, PMC_STATUS_COUNTED);
	assert_int_equal(rt[1].status, PMC_STATUS_NOT_COUNTED);
	assert_int_equal(rt[1].error, 0);
	assert_int_equal(rs[0].status, PMC_STATUS_NOT_COUNTED);
	assert_int_equal(rs[0].error, 0);
	assert_int_equal(rs[1].status, PMC_STATUS_COUNTED);
	assert_int_equal(rs[1].value, 2 * 2 * fake_pmu_rate(POWER, ENERGY_PKG));
	pmc_counters_close(task);
	pmc_counters_close(sys);
	pmc_event_list_free(l);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_parse, teardown),
	    cmocka_unit_test_teardown(test_bad_cpumask_is_an_error, teardown),
	    cmocka_unit_test(test_cpu_list),
	    cmocka_unit_test_teardown(test_open_each_cpu, teardown),
	    cmocka_unit_test_teardown(test_read_sum_scaled, teardown),
	    cmocka_unit_test_teardown(test_scaled_per_cpu, teardown),
	    cmocka_unit_test_teardown(test_fake_refuses_per_task, teardown),
	    cmocka_unit_test_teardown(test_denied_unprivileged, teardown),
	    cmocka_unit_test_teardown(test_mixed_group, teardown),
	    cmocka_unit_test_teardown(test_scopes, teardown),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The counter engine against an emulated PMU (fake_pmu.h): statuses, values matched by
 * id, multiplex scaling, weak groups, paranoid levels, EMFILE and 0-byte reads. */
#include <errno.h>
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
#include <unistd.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "counters/perf/counters.h"
#include "counters/perf/events.h"
#include "tests/fake_pmu.h"
#include "tests/helpers.h"

#define Q FAKE_PMU_QUANTUM_NS

static struct fake_pmu fake;

static struct pmc_counters *open_ok(const struct pmc_event_list *l,
				    const struct pmc_counters_opts *o)
{
	struct pmc_counters *c = NULL;

	assert_int_equal(pmc_counters_open_sys(l, o, &fake.sys, &c), 0);
	assert_non_null(c);
	return c;
}

static uint64_t rate_of(const struct pmc_event *ev)
{
	return fake_pmu_rate(ev->type, ev->config);
}

static void assert_reading(const struct pmc_reading *r, enum pmc_status status, uint64_t value,
			   uint64_t enabled, uint64_t running)
{
	if (r->status != status)
		print_error("status %s, expected %s\n", pmc_status_name(r->status),
			    pmc_status_name(status));
	assert_int_equal(r->status, status);
	assert_int_equal(r->value, value);
	assert_int_equal(r->enabled, enabled);
	assert_int_equal(r->running, running);
}

static const struct fake_pmu_config pmu8 = {.counters = 8, .paranoid = 2, .privileged = true};

/* Every event has its own counter: counted, exact values, and the attributes the kernel
 * ABI asks for (docs/events.md, "Kernel ABI facts"). */
static void test_counted_and_attrs(void **state)
{
	struct pmc_event_list *l = t_events("{cycles,instructions},branches,task-clock");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct pmc_reading r[4];
	struct pmc_counters *c;

	fake_pmu_init(&fake, &pmu8);
	o.inherit = true;
	o.start_disabled = true;
	c = open_ok(l, &o);
	assert_int_equal(pmc_counters_opened(c), 4);
	assert_int_equal(fake.nopen, 4);
	assert_int_equal(fake.nlog, 4);
	for (size_t i = 0; i < 4; i++) {
		const struct fake_pmu_open *op = &fake.log[i];
		bool leader = i != 1;

		assert_int_equal(op->attr.read_format, PERF_FORMAT_GROUP | PERF_FORMAT_ID |
							   PERF_FORMAT_TOTAL_TIME_ENABLED |
							   PERF_FORMAT_TOTAL_TIME_RUNNING);
		assert_true(op->flags & PERF_FLAG_FD_CLOEXEC);
		assert_int_equal(op->attr.inherit, 1);
		assert_int_equal(op->attr.disabled, leader);
		assert_int_equal(op->attr.enable_on_exec, 0);
		assert_int_equal(op->group_fd, leader ? -1 : fake.log[0].result);
		assert_int_equal(op->pid, 0);
		assert_int_equal(op->cpu, -1);
	}
	/* Started disabled: time passing before enable counts nothing. */
	fake_pmu_tick(&fake, 3);
	assert_int_equal(pmc_counters_enable(c), 0);
	fake_pmu_tick(&fake, 10);
	assert_int_equal(pmc_counters_disable(c), 0);
	fake_pmu_tick(&fake, 5);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	for (size_t i = 0; i < 4; i++) {
		assert_reading(&r[i], PMC_STATUS_COUNTED, 10 * rate_of(&l->events[i]), 10 * Q,
			       10 * Q);
		assert_true(r[i].scaled == (double)r[i].value);
		assert_int_equal(r[i].error, 0);
		assert_false(r[i].user_only);
		assert_true(pmc_status_has_value(r[i].status));
	}
	/* Reset zeroes the values of every group. */
	assert_int_equal(pmc_counters_reset(c), 0);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(r[i].value, 0);
	pmc_counters_close(c);
	assert_int_equal(fake.nopen, 0);
	assert_int_equal(fake.bad_closes, 0);
	pmc_event_list_free(l);
}

/* 3 groups of 2 on 4 counters: each group runs 2 quanta of 3, so running/enabled is 2/3
 * exactly, and scaling recovers exactly what a dedicated counter would have counted. */
static void test_multiplex_scaling(void **state)
{
	struct pmc_event_list *l = t_events("{cycles,instructions},{branches,branch-misses},"
					    "{cache-references,cache-misses},task-clock");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct fake_pmu_config cfg = pmu8;
	struct pmc_reading r[7];
	struct pmc_counters *c;

	cfg.counters = 4;
	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	fake_pmu_tick(&fake, 30);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	for (size_t i = 0; i < 6; i++) {
		uint64_t rate = rate_of(&l->events[i]);

		assert_reading(&r[i], PMC_STATUS_SCALED, 20 * rate, 30 * Q, 20 * Q);
		assert_true(fabs(r[i].scaled - 30.0 * (double)rate) < 1e-6);
	}
	/* Members share the leader's times, so a ratio inside a group is unaffected. */
	assert_true(fabs(r[1].scaled / r[0].scaled - (double)r[1].value / (double)r[0].value) <
		    1e-12);
	/* The software event never waits for a counter. */
	assert_reading(&r[6], PMC_STATUS_COUNTED, 30 * rate_of(&l->events[6]), 30 * Q, 30 * Q);
	pmc_counters_close(c);
	assert_int_equal(fake.nopen, 0);
	pmc_event_list_free(l);
}

/* Scaling in double: counts near 2^63 and times whose product overflows 64 bits. */
static void test_scaling_math(void **state)
{
	struct pmc_event_list *l = t_events("{cycles,instructions},{branches,branch-misses},"
					    "{cache-references,cache-misses}");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct fake_pmu_config cfg = pmu8;
	struct pmc_reading r[6];
	struct pmc_counters *c;
	struct fake_pmu_event *e;

	cfg.counters = 4;
	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	fake_pmu_tick(&fake, 3);
	e = fake_pmu_lookup(&fake, fake.log[0].result);
	assert_non_null(e);
	e->value = UINT64_C(1) << 62;
	e->time_enabled = UINT64_C(3) << 40;
	e->time_running = UINT64_C(1) << 40;
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_int_equal(r[0].status, PMC_STATUS_SCALED);
	assert_int_equal(r[0].value, UINT64_C(1) << 62);
	assert_true(fabs(r[0].scaled / (3.0 * 4611686018427387904.0) - 1.0) < 1e-12);
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* A member the PMU rejects for itself (EINVAL, alone too) does not sink its group: the
 * group is closed and reopened without it, and the event is reported unsupported. */
static void test_weak_group_einval_member(void **state)
{
	struct pmc_event_list *l = t_events("{cycles,cache-misses,instructions},branches");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct fake_pmu_config cfg = pmu8;
	struct pmc_reading r[4];
	struct pmc_counters *c;
	enum pmc_status st;
	int err;

	cfg.einval = true;
	cfg.einval_config = PERF_COUNT_HW_CACHE_MISSES;
	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	assert_int_equal(pmc_counters_opened(c), 3);
	/* The leader was opened twice: once with the bad member, once without. */
	assert_int_equal(
	    fake_pmu_open_attempts(&fake, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES), 2);
	/* In the group, then alone to learn that it is the event, not the group. */
	assert_int_equal(
	    fake_pmu_open_attempts(&fake, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES), 2);
	assert_int_equal(fake.nopen, 3);
	pmc_counters_open_status(c, 1, &st, &err);
	assert_int_equal(st, PMC_STATUS_UNSUPPORTED);
	assert_int_equal(err, EINVAL);
	pmc_counters_open_status(c, 0, &st, &err);
	assert_int_equal(st, PMC_STATUS_COUNTED);
	assert_int_equal(err, 0);
	fake_pmu_tick(&fake, 4);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_reading(&r[0], PMC_STATUS_COUNTED, 4 * rate_of(&l->events[0]), 4 * Q, 4 * Q);
	assert_reading(&r[1], PMC_STATUS_UNSUPPORTED, 0, 0, 0);
	assert_int_equal(r[1].error, EINVAL);
	assert_true(isnan(r[1].scaled));
	assert_false(pmc_status_has_value(r[1].status));
	assert_reading(&r[2], PMC_STATUS_COUNTED, 4 * rate_of(&l->events[2]), 4 * Q, 4 * Q);
	/* The member stays in the group: it has the leader as group_fd in the reopen. */
	assert_int_equal(fake.log[fake.nlog - 2].group_fd, fake.log[fake.nlog - 3].result);
	assert_reading(&r[3], PMC_STATUS_COUNTED, 4 * rate_of(&l->events[3]), 4 * Q, 4 * Q);
	pmc_counters_close(c);
	assert_int_equal(fake.nopen, 0);
	pmc_event_list_free(l);
}

/* A group larger than the PMU: validate_group refuses the member that does not fit. It
 * opens alone, so it is not counted for that reason (never "unsupported", and never
 * remembered as its error): the rest of the group counts. */
static void test_group_too_big(void **state)
{
	struct pmc_event_list *l = t_events("{cycles,instructions,branches}");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct fake_pmu_config cfg = pmu8;
	struct pmc_reading r[3];
	struct pmc_counters *c;
	enum pmc_status st;
	int err;

	cfg.counters = 2;
	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	assert_int_equal(pmc_counters_opened(c), 2);
	assert_int_equal(fake.nopen, 2);
	pmc_counters_open_status(c, 2, &st, &err);
	assert_int_equal(st, PMC_STATUS_NOT_COUNTED);
	assert_int_equal(err, PMC_ERROR_NO_FIT);
	fake_pmu_tick(&fake, 2);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_reading(&r[0], PMC_STATUS_COUNTED, 2 * rate_of(&l->events[0]), 2 * Q, 2 * Q);
	assert_reading(&r[1], PMC_STATUS_COUNTED, 2 * rate_of(&l->events[1]), 2 * Q, 2 * Q);
	assert_int_equal(r[2].status, PMC_STATUS_NOT_COUNTED);
	assert_int_equal(r[2].error, PMC_ERROR_NO_FIT);
	assert_true(isnan(r[2].scaled));
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* The same group on an ARM PMU, probed: arm_pmu's validate_group() leaves a leader
 * opened disabled out of the check unless it is to be enabled on exec, so a probe that
 * opened the group disabled saw it fit and said nothing, while the measured run (enabled
 * on exec) found the member that does not fit (seen against the arm64 guest's kernel).
 * The probe must see what the run will. */
static void test_group_too_big_probed_on_arm(void **state)
{
	struct pmc_event_list *l = t_events("{cycles,instructions,branches}");
	struct fake_pmu_config cfg = pmu8;
	struct pmc_probe_report *rep = NULL;
	enum pmc_status st;
	char err[128] = "";
	int e;

	cfg.counters = 2;
	cfg.arm_validate = true;
	fake_pmu_init(&fake, &cfg);
	assert_int_equal(
	    pmc_event_list_probe_sys(l, NULL, &fake.sys, "/nonexistent", &rep, err, sizeof(err)),
	    0);
	assert_int_equal(pmc_probe_report_event_at(rep, 0, &st, &e, NULL), 0);
	assert_int_equal(st, PMC_STATUS_COUNTED);
	assert_int_equal(pmc_probe_report_event_at(rep, 2, &st, &e, NULL), 0);
	assert_int_equal(st, PMC_STATUS_NOT_COUNTED);
	assert_int_equal(e, PMC_ERROR_NO_FIT);
	pmc_probe_report_free(rep);
	assert_int_equal(fake.nopen, 0);
	pmc_event_list_free(l);
}

/* perf's weak group: {...}:W that does not fit is split into single events, which all
 * count, each multiplexed on its own (so each has its own times and is scaled). */
static void test_weak_group_split(void **state)
{
	struct pmc_event_list *l = t_events("{cycles,instructions,branches}:W,task-clock");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct fake_pmu_config cfg = pmu8;
	struct pmc_reading r[4];
	struct pmc_counters *c;
	int leaders = 0;

	assert_true(l->events[0].weak && l->events[2].weak);
	assert_false(l->events[3].weak);
	assert_string_equal(l->events[0].name, "cycles");
	cfg.counters = 2;
	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	assert_int_equal(pmc_counters_opened(c), 4);
	for (int i = 0; i < FAKE_PMU_MAX_EVENTS; i++)
		leaders += fake.ev[i].used && fake.ev[i].leader == i;
	assert_int_equal(leaders, 4); /* three singletons and task-clock */
	assert_int_equal(pmc_counters_enable(c), 0);
	/* Three single events on two counters: each runs 2 quanta out of 3. */
	fake_pmu_tick(&fake, 3);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	for (int i = 0; i < 3; i++) {
		assert_reading(&r[i], PMC_STATUS_SCALED, 2 * rate_of(&l->events[i]), 3 * Q, 2 * Q);
		assert_int_equal(r[i].error, 0);
	}
	assert_reading(&r[3], PMC_STATUS_COUNTED, 3 * rate_of(&l->events[3]), 3 * Q, 3 * Q);
	assert_int_equal(pmc_counters_disable(c), 0);
	fake_pmu_tick(&fake, 3);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_int_equal(r[0].enabled, 3 * Q); /* disabled: no time passed */
	assert_int_equal(pmc_counters_reset(c), 0);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_int_equal(r[1].value, 0);
	pmc_counters_close(c);
	assert_int_equal(fake.nopen, 0);
	pmc_event_list_free(l);
}

/* A weak group that fits stays one group. */
static void test_weak_group_that_fits(void **state)
{
	struct pmc_event_list *l = t_events("{cycles,instructions}:W");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct pmc_counters *c;

	fake_pmu_init(&fake, &pmu8);
	c = open_ok(l, &o);
	assert_int_equal(fake.ev[1].leader, 0);
	assert_int_equal(fake.nlog, 2);
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* Intel's fixed counters: cycles and instructions do not take general-purpose ones, so
 * {cycles,instructions,4 more} opens on 4 counters. The NMI watchdog holds the fixed
 * cycles counter at run time only: the group opens (validated on an empty PMU) but never
 * runs, and is reported not counted, never as a count of 0. */
static void test_fixed_counters_and_watchdog(void **state)
{
	struct pmc_event_list *l =
	    t_events("{cycles,instructions,branches,branch-misses,cache-references,cache-misses}");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct fake_pmu_config cfg = pmu8;
	struct pmc_reading r[6];
	struct pmc_counters *c;

	cfg.counters = 4;
	cfg.fixed_counters = true;
	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	assert_int_equal(pmc_counters_opened(c), 6);
	fake_pmu_tick(&fake, 2);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	for (int i = 0; i < 6; i++)
		assert_int_equal(r[i].status, PMC_STATUS_COUNTED);
	pmc_counters_close(c);

	cfg.nmi_watchdog = true;
	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	assert_int_equal(pmc_counters_opened(c), 6);
	fake_pmu_tick(&fake, 2);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(r[i].status, PMC_STATUS_NOT_COUNTED);
		assert_int_equal(r[i].value, 0);
		assert_true(isnan(r[i].scaled));
	}
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* Before Linux 4.13 inherit and PERF_FORMAT_GROUP exclude each other: the engine opens
 * without group reads (still grouped through group_fd) and reads event by event. */
static void test_no_group_read_before_4_13(void **state)
{
	struct pmc_event_list *l = t_events("{cycles,instructions},{branches,task-clock}");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct fake_pmu_config cfg = pmu8;
	struct pmc_reading r[4];
	struct pmc_counters *c;

	o.inherit = true;
	cfg.kernel = FAKE_PMU_KERNEL(4, 12);
	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	assert_int_equal(pmc_counters_opened(c), 4);
	assert_int_equal(fake.nlog, 5); /* the first leader twice */
	assert_int_equal(fake.log[0].result, -EINVAL);
	for (size_t i = 1; i < fake.nlog; i++) {
		assert_false(fake.log[i].attr.read_format & PERF_FORMAT_GROUP);
		assert_true(fake.log[i].attr.inherit);
	}
	assert_int_equal(fake.log[2].group_fd, fake.log[1].result); /* still a group */
	assert_int_equal(pmc_counters_enable(c), 0);
	fake_pmu_tick(&fake, 3);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	for (int i = 0; i < 4; i++)
		assert_reading(&r[i], PMC_STATUS_COUNTED, 3 * rate_of(&l->events[i]), 3 * Q, 3 * Q);
	pmc_counters_close(c);

	/* From 4.13 on, group reads as usual. */
	cfg.kernel = FAKE_PMU_KERNEL(4, 13);
	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	assert_int_equal(fake.nlog, 4);
	assert_true(fake.log[0].attr.read_format & PERF_FORMAT_GROUP);
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* Before 4.13 under perf_event_paranoid 2: the kernel refuses kernel-space counting
 * (EACCES) before it looks at read_format, so the refusal of inherit with group reads
 * (EINVAL) shows only on the :u retry. That EINVAL is the kernel's version, not a PMU
 * that cannot exclude the kernel: the retry goes on without group reads, and the events
 * count user space, read one by one (they were denied). */
static void test_no_group_read_on_user_only_retry(void **state)
{
	struct pmc_event_list *l = t_events("{task-clock,page-faults},minor-faults");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0, .inherit = true, .user_only_fallback = true);
	struct fake_pmu_config cfg = {
	    .no_pmu = true, .paranoid = 2, .kernel = FAKE_PMU_KERNEL(4, 12)};
	struct pmc_reading r[3];
	struct pmc_counters *c;

	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	assert_int_equal(pmc_counters_opened(c), 3);
	assert_int_equal(fake.log[0].result, -EACCES);
	assert_int_equal(fake.log[1].result, -EINVAL);
	assert_true(fake.log[1].attr.exclude_kernel);
	assert_true(fake.log[2].result >= 0);
	assert_false(fake.log[2].attr.read_format & PERF_FORMAT_GROUP);
	assert_int_equal(pmc_counters_enable(c), 0);
	fake_pmu_tick(&fake, 2);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	for (int i = 0; i < 3; i++) {
		assert_reading(&r[i], PMC_STATUS_COUNTED, 2 * rate_of(&l->events[i]), 2 * Q, 2 * Q);
		assert_true(r[i].user_only);
	}
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* Apple's M1 PMU refuses hardware events that do not exclude the guest (EOPNOTSUPP):
 * they are retried with exclude_guest and count. */
static void test_exclude_guest_retry(void **state)
{
	struct pmc_event_list *l = t_events("{cycles,instructions},task-clock");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct fake_pmu_config cfg = pmu8;
	struct pmc_reading r[3];
	struct pmc_counters *c;

	cfg.need_exclude_guest = true;
	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	assert_int_equal(pmc_counters_opened(c), 3);
	assert_int_equal(fake.log[0].result, -EOPNOTSUPP);
	assert_true(fake.log[1].attr.exclude_guest);
	fake_pmu_tick(&fake, 1);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(r[i].status, PMC_STATUS_COUNTED);
	pmc_counters_close(c);

	/* Unprivileged under paranoid 2, the kernel refuses counting its own space before
	 * the PMU sees the event: EACCES first, EOPNOTSUPP only on the user-only retry. */
	cfg.privileged = false;
	cfg.paranoid = 2;
	fake_pmu_init(&fake, &cfg);
	o.user_only_fallback = true;
	c = open_ok(l, &o);
	assert_int_equal(pmc_counters_opened(c), 3);
	fake_pmu_tick(&fake, 1);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(r[i].status, PMC_STATUS_COUNTED);
		assert_true(r[i].user_only);
	}
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* cycles:k under perf_event_paranoid=2: there is no user-only fallback for an event that
 * counts the kernel only; it is denied, never a count of nothing named cycles:k:u. */
static void test_kernel_only_denied_under_paranoid(void **state)
{
	struct pmc_event_list *l = t_events("cycles:k,instructions");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct fake_pmu_config cfg = pmu8;
	struct pmc_reading r[2];
	struct pmc_counters *c;

	o.user_only_fallback = true;
	cfg.paranoid = 2;
	cfg.privileged = false;
	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	assert_int_equal(
	    fake_pmu_open_attempts(&fake, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES), 1);
	fake_pmu_tick(&fake, 1);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_int_equal(r[0].status, PMC_STATUS_DENIED);
	assert_int_equal(r[0].error, EACCES);
	assert_false(r[0].user_only);
	assert_int_equal(r[1].status, PMC_STATUS_COUNTED);
	assert_true(r[1].user_only);
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* A lone event the kernel refuses with EINVAL is unsupported, not fatal. */
static void test_lone_einval(void **state)
{
	struct pmc_event_list *l = t_events("cycles,task-clock");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct pmc_reading r[2];
	struct pmc_counters *c;

	l->events[0].config = PERF_COUNT_HW_MAX + 5; /* no such generic event */
	fake_pmu_init(&fake, &pmu8);
	c = open_ok(l, &o);
	fake_pmu_tick(&fake, 1);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_int_equal(r[0].status, PMC_STATUS_UNSUPPORTED);
	assert_int_equal(r[0].error, EINVAL);
	assert_int_equal(r[1].status, PMC_STATUS_COUNTED);
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* No PMU, as on the development VMs: hardware events ENOENT, software ones counted,
 * and a mixed group keeps its software member (which becomes the leader). */
static void test_no_pmu(void **state)
{
	struct pmc_event_list *l = t_events("{cycles,instructions},{branches,branch-misses},"
					    "{cycles,task-clock},page-faults,r1a8,L1-dcache-loads");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct fake_pmu_config cfg = {.no_pmu = true, .paranoid = 2, .privileged = true};
	struct pmc_reading r[9];
	struct pmc_counters *c;

	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	assert_int_equal(pmc_counters_opened(c), 2);
	fake_pmu_tick(&fake, 7);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	for (size_t i = 0; i < 9; i++) {
		if (i == 5 || i == 6)
			continue;
		assert_int_equal(r[i].status, PMC_STATUS_UNSUPPORTED);
		assert_int_equal(r[i].error, ENOENT);
		assert_true(isnan(r[i].scaled));
	}
	assert_reading(&r[5], PMC_STATUS_COUNTED, 7 * rate_of(&l->events[5]), 7 * Q, 7 * Q);
	assert_reading(&r[6], PMC_STATUS_COUNTED, 7 * rate_of(&l->events[6]), 7 * Q, 7 * Q);
	pmc_counters_close(c);
	assert_int_equal(fake.nopen, 0);
	pmc_event_list_free(l);
}

/* perf stat's -d, -dd and -ddd (tools/perf/builtin-stat.c: detailed_attrs,
 * very_detailed_attrs, very_very_detailed_attrs): the same events, in perf's order, each
 * a group of its own. The 12 of -ddd on 4 counters take turns: each runs 4 quanta of 12
 * and is scaled up to what a counter of its own would count; without a PMU each is
 * unsupported. */
static void test_detailed_presets(void **state)
{
#define HWC(c, op, res)                                                                            \
	(PERF_COUNT_HW_CACHE_##c | PERF_COUNT_HW_CACHE_OP_##op << 8 |                              \
	 PERF_COUNT_HW_CACHE_RESULT_##res << 16)
	static const uint64_t perf[] = {
	    HWC(L1D, READ, ACCESS),  HWC(L1D, READ, MISS),	 HWC(LL, READ, ACCESS),
	    HWC(LL, READ, MISS),     HWC(L1I, READ, ACCESS),	 HWC(L1I, READ, MISS),
	    HWC(DTLB, READ, ACCESS), HWC(DTLB, READ, MISS),	 HWC(ITLB, READ, ACCESS),
	    HWC(ITLB, READ, MISS),   HWC(L1D, PREFETCH, ACCESS), HWC(L1D, PREFETCH, MISS),
	};
#undef HWC
	static const size_t per_level[] = {4, 10, 12};
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct fake_pmu_config cfg = pmu8;
	struct pmc_event_list *l;
	struct pmc_reading r[12];
	struct pmc_counters *c;

	assert_null(pmc_event_detailed_list(0));
	assert_null(pmc_event_detailed_list(4));
	for (unsigned level = 1; level <= 3; level++) {
		l = t_events(pmc_event_detailed_list(level));
		assert_int_equal(l->n, per_level[level - 1]);
		assert_int_equal(l->ngroups, l->n);
		for (size_t i = 0; i < l->n; i++) {
			assert_int_equal(l->events[i].type, PERF_TYPE_HW_CACHE);
			assert_int_equal(l->events[i].config, perf[i]);
			assert_true(l->events[i].leader);
		}
		assert_string_equal(l->events[0].name, "L1-dcache-loads");
		pmc_event_list_free(l);
	}

	l = t_events(pmc_event_detailed_list(3));
	assert_string_equal(l->events[11].name, "L1-dcache-prefetch-misses");
	cfg.counters = 4;
	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	fake_pmu_tick(&fake, 12);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	for (size_t i = 0; i < 12; i++) {
		uint64_t rate = rate_of(&l->events[i]);

		assert_reading(&r[i], PMC_STATUS_SCALED, 4 * rate, 12 * Q, 4 * Q);
		assert_true(fabs(r[i].scaled - 12.0 * (double)rate) < 1e-6);
	}
	pmc_counters_close(c);

	cfg = (struct fake_pmu_config){.no_pmu = true, .paranoid = 2, .privileged = true};
	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	fake_pmu_tick(&fake, 3);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	for (size_t i = 0; i < 12; i++) {
		assert_int_equal(r[i].status, PMC_STATUS_UNSUPPORTED);
		assert_int_equal(r[i].error, ENOENT);
	}
	pmc_counters_close(c);
	assert_int_equal(fake.nopen, 0);
	pmc_event_list_free(l);
}

/* perf_event_paranoid as an unprivileged user sees it. */
static void test_paranoid_levels(void **state)
{
	struct pmc_event_list *l = t_events("task-clock,page-faults:u,{context-switches:u,cs}");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct fake_pmu_config cfg = {.counters = 4, .paranoid = 2};
	struct pmc_reading r[4];
	struct pmc_counters *c;

	/* Paranoid 2: kernel-space counting is denied; :u events count. */
	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	fake_pmu_tick(&fake, 2);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_int_equal(r[0].status, PMC_STATUS_DENIED);
	assert_int_equal(r[0].error, EACCES);
	assert_int_equal(r[1].status, PMC_STATUS_COUNTED);
	assert_false(r[1].user_only);
	/* The denied member left its group; the :u leader still counts. */
	assert_int_equal(r[2].status, PMC_STATUS_COUNTED);
	assert_int_equal(r[3].status, PMC_STATUS_DENIED);
	pmc_counters_close(c);

	/* Paranoid 2 with the fallback: retried as user space only, and said so; but not cs,
	 * which would read 0 so (test_kernel_recorded_denied_under_paranoid). */
	fake_pmu_init(&fake, &cfg);
	o.user_only_fallback = true;
	c = open_ok(l, &o);
	fake_pmu_tick(&fake, 2);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(r[i].status, PMC_STATUS_COUNTED);
	assert_true(r[0].user_only);
	assert_false(r[1].user_only);
	assert_false(r[2].user_only);
	assert_int_equal(r[3].status, PMC_STATUS_DENIED);
	assert_int_equal(r[3].error, EACCES);
	assert_false(r[3].user_only);
	assert_int_equal(fake.log[0].result, -EACCES);
	assert_int_equal(fake.log[0].attr.exclude_kernel, 0);
	assert_true(fake.log[1].result >= 0);
	assert_int_equal(fake.log[1].attr.exclude_kernel, 1);
	assert_int_equal(fake.log[1].attr.exclude_hv, 1);
	pmc_counters_close(c);

	/* Paranoid 3 (Debian): nothing opens, not even :u, fallback or not. */
	cfg.paranoid = 3;
	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	assert_int_equal(pmc_counters_opened(c), 0);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(r[i].status, PMC_STATUS_DENIED);
		assert_int_equal(r[i].error, EACCES);
	}
	pmc_counters_close(c);

	/* Paranoid 1: kernel space may be counted on one's own tasks. */
	cfg.paranoid = 1;
	fake_pmu_init(&fake, &cfg);
	o.user_only_fallback = false;
	c = open_ok(l, &o);
	assert_int_equal(pmc_counters_opened(c), 4);
	pmc_counters_close(c);

	/* CAP_PERFMON lifts paranoid 3. */
	cfg.paranoid = 3;
	cfg.privileged = true;
	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	assert_int_equal(pmc_counters_opened(c), 4);
	pmc_counters_close(c);
	assert_int_equal(fake.nopen, 0);
	pmc_event_list_free(l);
}

/* Context switches, CPU migrations and cgroup switches are recorded by the kernel in
 * kernel mode, and exclude_kernel drops every one (kernel/events/core.c,
 * perf_exclude_event()): under paranoid 2 they get no user-only fallback, which would
 * read 0 as counted; they are denied, for paranoid's reason. Faults and the clocks keep
 * theirs, and count. An explicit :u is what the kernel counts: nothing. */
static void test_kernel_recorded_denied_under_paranoid(void **state)
{
	struct pmc_event_list *l = t_events("context-switches,{cpu-migrations,page-faults},"
					    "task-clock,software/config=11/,context-switches:u");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0, .user_only_fallback = true);
	struct fake_pmu_config cfg = {.no_pmu = true, .paranoid = 2};
	struct pmc_reading r[6];
	struct pmc_counters *c;

	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	fake_pmu_tick(&fake, 3);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	for (size_t i = 0; i < 5; i += 4) {
		assert_int_equal(r[i].status, PMC_STATUS_DENIED);
		assert_int_equal(r[i].error, EACCES);
		assert_false(r[i].user_only);
	}
	assert_int_equal(r[1].status, PMC_STATUS_DENIED);
	assert_int_equal(r[1].error, EACCES);
	assert_int_equal(
	    fake_pmu_open_attempts(&fake, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES),
	    2); /* the plain one once, never retried; the :u one */
	assert_int_equal(
	    fake_pmu_open_attempts(&fake, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS), 1);
	for (size_t i = 2; i < 4; i++) {
		assert_reading(&r[i], PMC_STATUS_COUNTED, 3 * rate_of(&l->events[i]), 3 * Q, 3 * Q);
		assert_true(r[i].user_only);
	}
	assert_reading(&r[5], PMC_STATUS_COUNTED, 0, 3 * Q, 3 * Q);
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* perf_event_open() puts a member in its leader's context: the same task and CPU, else
 * EINVAL; and an event on neither a task nor a CPU is EINVAL. The engine refuses the
 * latter as bad options (it opened every event "unsupported", or, before the emulation
 * was strict, counted them). */
static void test_group_context_and_no_target(void **state)
{
	struct pmc_event_list *l = t_events("task-clock");
	PMC_OPTS(pmc_counters_opts, o, .pid = -1);
	struct perf_event_attr a = {.size = sizeof(a),
				    .type = PERF_TYPE_SOFTWARE,
				    .config = PERF_COUNT_SW_TASK_CLOCK,
				    .exclude_kernel = 1};
	struct pmc_counters *c = NULL;
	int leader;

	fake_pmu_init(&fake, &pmu8);
	leader = fake.sys.event_open(fake.sys.ctx, &a, 0, 0, -1, 0);
	assert_true(leader >= 0);
	assert_int_equal(fake.sys.event_open(fake.sys.ctx, &a, 0, 1, leader, 0), -EINVAL);
	assert_int_equal(fake.sys.event_open(fake.sys.ctx, &a, 0, -1, leader, 0), -EINVAL);
	assert_int_equal(fake.sys.event_open(fake.sys.ctx, &a, 42, 0, leader, 0), -EINVAL);
	assert_true(fake.sys.event_open(fake.sys.ctx, &a, 0, 0, leader, 0) >= 0);
	assert_int_equal(fake.sys.event_open(fake.sys.ctx, &a, -1, -1, -1, 0), -EINVAL);

	fake_pmu_init(&fake, &pmu8);
	assert_int_equal(pmc_counters_open_sys(l, &o, &fake.sys, &c), -EINVAL);
	assert_null(c);
	assert_int_equal(fake.nlog, 0);
	pmc_event_list_free(l);
}

/* The :u retry distinguishes "no such event" (ENOENT: unsupported) from "this PMU cannot
 * count user space alone" (EINVAL, as the msr PMU): that event stays denied. */
static void test_user_only_fallback_outcomes(void **state)
{
	struct pmc_event_list *l = t_events("cycles,task-clock,task-clock");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct fake_pmu_config cfg = {.no_pmu = true, .paranoid = 2, .msr_type = 9};
	struct pmc_reading r[3];
	struct pmc_counters *c;

	l->events[2].kind = PMC_EV_PMU;
	l->events[2].type = 9;
	l->events[2].config = 0;
	snprintf(l->events[2].name, sizeof(l->events[2].name), "msr/tsc/");
	o.user_only_fallback = true;
	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	fake_pmu_tick(&fake, 1);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_int_equal(r[0].status, PMC_STATUS_UNSUPPORTED);
	assert_int_equal(r[0].error, ENOENT);
	assert_int_equal(r[1].status, PMC_STATUS_COUNTED);
	assert_true(r[1].user_only);
	assert_int_equal(r[2].status, PMC_STATUS_DENIED);
	assert_int_equal(r[2].error, EACCES);
	pmc_counters_close(c);

	/* Privileged, the msr-like event counts (nothing to exclude). */
	cfg.privileged = true;
	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	fake_pmu_tick(&fake, 1);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_int_equal(r[2].status, PMC_STATUS_COUNTED);
	assert_false(r[2].user_only);
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* EPERM for an event with a modifier, from a PMU that cannot exclude privilege levels
 * (older ARM drivers), is no permission problem: the event opens without the modifier,
 * so cycles:u is unsupported here (EOPNOTSUPP), not denied; plain cycles counts. Under
 * paranoid 3 the same EPERM stays denied. */
static void test_eperm_for_an_exclude_setting(void **state)
{
	struct pmc_event_list *l = t_events("cycles:u,instructions");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct fake_pmu_config cfg = pmu8;
	struct pmc_reading r[2];
	struct pmc_counters *c;

	cfg.eperm_exclude = true;
	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	assert_int_equal(fake.nopen, 1);
	fake_pmu_tick(&fake, 1);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_int_equal(r[0].status, PMC_STATUS_UNSUPPORTED);
	assert_int_equal(r[0].error, EOPNOTSUPP);
	assert_int_equal(r[1].status, PMC_STATUS_COUNTED);
	pmc_counters_close(c);

	/* A real denial stays one: nothing opens without the modifier either. */
	cfg.paranoid = 3;
	cfg.privileged = false;
	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_int_equal(r[0].status, PMC_STATUS_DENIED);
	assert_int_equal(r[1].status, PMC_STATUS_DENIED);
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* A task that is gone is fatal (ESRCH), with nothing left open. */
static void test_esrch(void **state)
{
	struct pmc_event_list *l = t_events("task-clock,{cycles,instructions}");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct fake_pmu_config cfg = pmu8;
	struct pmc_counters *c = NULL;

	o.pid = 4242;
	cfg.gone_pid = 4242;
	fake_pmu_init(&fake, &cfg);
	assert_int_equal(pmc_counters_open_sys(l, &o, &fake.sys, &c), -ESRCH);
	assert_null(c);
	assert_int_equal(fake.nopen, 0);
	pmc_event_list_free(l);
}

/* A busy PMU (EBUSY) says nothing about the event: it is not counted this time, with the
 * reason, and is never remembered as unsupported, so the next open tries it again. */
static void test_ebusy_is_not_remembered(void **state)
{
	struct pmc_event_list *l = t_events("{cycles,instructions},task-clock");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct fake_pmu_config cfg = pmu8;
	struct pmc_reading r[3];
	struct pmc_counters *c;
	enum pmc_status st;
	int err;

	cfg.busy = true;
	cfg.busy_config = PERF_COUNT_HW_INSTRUCTIONS;
	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	pmc_counters_open_status(c, 1, &st, &err);
	assert_int_equal(st, PMC_STATUS_NOT_COUNTED);
	assert_int_equal(err, EBUSY);
	fake_pmu_tick(&fake, 1);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_int_equal(r[0].status, PMC_STATUS_COUNTED);
	assert_int_equal(r[1].status, PMC_STATUS_NOT_COUNTED);
	assert_int_equal(r[1].error, EBUSY);
	assert_true(isnan(r[1].scaled));
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* Out of descriptors is fatal: an error, nothing left open, *ret untouched. */
static void test_emfile(void **state)
{
	struct pmc_event_list *l =
	    t_events("task-clock,{page-faults,cs},cpu-migrations,minor-faults");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct fake_pmu_config cfg = pmu8;
	struct pmc_counters *c = (struct pmc_counters *)&fake;

	cfg.max_fds = 3;
	fake_pmu_init(&fake, &cfg);
	assert_int_equal(pmc_counters_open_sys(l, &o, &fake.sys, &c), -EMFILE);
	assert_ptr_equal(c, (struct pmc_counters *)&fake);
	assert_int_equal(fake.nopen, 0);
	assert_int_equal(fake.bad_closes, 0);
	/* Three fit. */
	pmc_event_list_free(l);
	l = t_events("task-clock,{page-faults,cs}");
	fake_pmu_init(&fake, &cfg);
	assert_int_equal(pmc_counters_open_sys(l, &o, &fake.sys, &c), 0);
	assert_int_equal(pmc_counters_opened(c), 3);
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* A pinned group the PMU cannot schedule reads 0 bytes: not counted, no number. */
static void test_pinned_zero_read(void **state)
{
	struct pmc_event_list *l =
	    t_events("{cycles,instructions},{branches,branch-misses},task-clock");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct fake_pmu_config cfg = pmu8;
	struct pmc_reading r[5];
	struct pmc_counters *c;

	cfg.counters = 2;
	cfg.pinned = true;
	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	fake_pmu_tick(&fake, 5);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_reading(&r[0], PMC_STATUS_COUNTED, 5 * rate_of(&l->events[0]), 5 * Q, 5 * Q);
	assert_reading(&r[1], PMC_STATUS_COUNTED, 5 * rate_of(&l->events[1]), 5 * Q, 5 * Q);
	assert_reading(&r[2], PMC_STATUS_NOT_COUNTED, 0, 0, 0);
	assert_reading(&r[3], PMC_STATUS_NOT_COUNTED, 0, 0, 0);
	assert_true(isnan(r[2].scaled));
	assert_false(pmc_status_has_value(r[2].status));
	assert_int_equal(r[2].error, 0);
	assert_reading(&r[4], PMC_STATUS_COUNTED, 5 * rate_of(&l->events[4]), 5 * Q, 5 * Q);
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* Enabled but never scheduled (running == 0): not counted, though time was enabled. */
static void test_enable_on_exec_and_not_counted(void **state)
{
	struct pmc_event_list *l = t_events("{task-clock,page-faults}");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct pmc_reading r[2];
	struct pmc_counters *c;

	fake_pmu_init(&fake, &pmu8);
	o.enable_on_exec = true;
	o.pid = 4242;
	c = open_ok(l, &o);
	assert_int_equal(fake.log[0].attr.disabled, 1);
	assert_int_equal(fake.log[0].attr.enable_on_exec, 1);
	assert_int_equal(fake.log[1].attr.disabled, 0);
	assert_int_equal(fake.log[1].attr.enable_on_exec, 0);
	assert_int_equal(fake.log[0].pid, 4242);
	/* Before exec the task's work is not counted. */
	fake_pmu_tick(&fake, 6);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_reading(&r[0], PMC_STATUS_NOT_COUNTED, 0, 0, 0);
	fake_pmu_exec(&fake);
	fake_pmu_tick(&fake, 4);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_reading(&r[0], PMC_STATUS_COUNTED, 4 * rate_of(&l->events[0]), 4 * Q, 4 * Q);
	assert_reading(&r[1], PMC_STATUS_COUNTED, 4 * rate_of(&l->events[1]), 4 * Q, 4 * Q);
	pmc_counters_close(c);
	pmc_event_list_free(l);

	/* running == 0 with enabled > 0: opened, enabled, never on the PMU. */
	l = t_events("{cycles,instructions}");
	fake_pmu_init(&fake, &pmu8);
	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	c = open_ok(l, &o);
	fake_pmu_lookup(&fake, fake.log[0].result)->time_enabled = 5 * Q;
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_reading(&r[0], PMC_STATUS_NOT_COUNTED, 0, 5 * Q, 0);
	assert_true(isnan(r[0].scaled));
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* Values are matched by id, whatever order the read lists them in. */
static void test_ids_out_of_order(void **state)
{
	struct pmc_event_list *l = t_events("{cycles,instructions,branches,branch-misses}");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct fake_pmu_config cfg = pmu8;
	struct pmc_reading r[4];
	struct pmc_counters *c;

	cfg.reverse_ids = true;
	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	fake_pmu_tick(&fake, 3);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	for (size_t i = 0; i < 4; i++)
		assert_reading(&r[i], PMC_STATUS_COUNTED, 3 * rate_of(&l->events[i]), 3 * Q, 3 * Q);
	/* The rates differ, so a match by position would have failed above. */
	assert_int_not_equal(r[0].value, r[3].value);
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* Events that failed before are not tried again. */
static void test_known_errors(void **state)
{
	struct pmc_event_list *l = t_events("{cycles,instructions},task-clock,branches");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	const int known[4] = {ENOENT, 0, 0, EACCES};
	struct pmc_reading r[4];
	struct pmc_counters *c;

	fake_pmu_init(&fake, &pmu8);
	o.known_errors = known;
	c = open_ok(l, &o);
	assert_int_equal(
	    fake_pmu_open_attempts(&fake, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES), 0);
	assert_int_equal(
	    fake_pmu_open_attempts(&fake, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS),
	    0);
	/* instructions leads its group now. */
	assert_int_equal(fake.log[0].group_fd, -1);
	assert_int_equal(fake.log[0].attr.config, PERF_COUNT_HW_INSTRUCTIONS);
	fake_pmu_tick(&fake, 2);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_int_equal(r[0].status, PMC_STATUS_UNSUPPORTED);
	assert_int_equal(r[0].error, ENOENT);
	assert_int_equal(r[1].status, PMC_STATUS_COUNTED);
	assert_int_equal(r[2].status, PMC_STATUS_COUNTED);
	assert_int_equal(r[3].status, PMC_STATUS_DENIED);
	assert_int_equal(r[3].error, EACCES);
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* One hardware event missing from the PMU (ENOENT) while others exist. */
static void test_enoent_one_event(void **state)
{
	struct pmc_event_list *l = t_events("{ref-cycles,cycles},{cycles,ref-cycles}");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct fake_pmu_config cfg = pmu8;
	struct pmc_reading r[4];
	struct pmc_counters *c;

	cfg.enoent_hw_mask = 1u << PERF_COUNT_HW_REF_CPU_CYCLES;
	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	fake_pmu_tick(&fake, 2);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_int_equal(r[0].status, PMC_STATUS_UNSUPPORTED);
	assert_int_equal(r[0].error, ENOENT);
	assert_int_equal(r[1].status, PMC_STATUS_COUNTED);
	assert_int_equal(r[2].status, PMC_STATUS_COUNTED);
	assert_int_equal(r[3].status, PMC_STATUS_UNSUPPORTED);
	pmc_counters_close(c);
	assert_int_equal(fake.nopen, 0);
	pmc_event_list_free(l);
}

/* A failing read is returned and leaves the caller's readings untouched. */
static void test_read_error(void **state)
{
	struct pmc_event_list *l = t_events("task-clock");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct fake_pmu_config cfg = pmu8;
	struct pmc_reading r[1] = {{.value = 99}};
	struct pmc_counters *c;

	cfg.read_error = EIO;
	fake_pmu_init(&fake, &cfg);
	c = open_ok(l, &o);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), -EIO);
	assert_int_equal(r[0].value, 99);
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

static void test_bad_arguments(void **state)
{
	struct pmc_event_list *l = t_events("task-clock");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct pmc_counters *c = NULL;
	enum pmc_status st;
	int err;

	fake_pmu_init(&fake, &pmu8);
	assert_int_equal(pmc_counters_open(NULL, &o, &c), -EINVAL);
	assert_int_equal(pmc_counters_open_sys(l, &o, &fake.sys, NULL), -EINVAL);
	o.sz = 0;
	assert_int_equal(pmc_counters_open_sys(l, &o, &fake.sys, &c), -EINVAL);
	assert_null(c);
	l->events[0].group = 3; /* beyond ngroups */
	o.sz = sizeof(o);
	assert_int_equal(pmc_counters_open_sys(l, &o, &fake.sys, &c), -EINVAL);
	assert_int_equal(fake.nopen, 0);
	pmc_counters_close(NULL);
	assert_int_equal(pmc_counters_opened(NULL), 0);
	pmc_counters_open_status(NULL, 0, &st, &err);
	assert_int_equal(st, PMC_STATUS_UNSUPPORTED);
	assert_int_equal(pmc_counters_enable(NULL), -EINVAL);
	pmc_event_list_free(l);
}

/* Readings of every version: a newer program's larger struct pmc_reading gets each
 * reading at its own stride with zero past the fields this library fills; one smaller
 * than the first release's is refused, the array untouched. */
static void test_read_element_size(void **state)
{
	struct pmc_event_list *l = t_events("{cycles,instructions},task-clock");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0);
	struct pmc_reading r[3];
	struct {
		struct pmc_reading r;
		uint64_t future[3];
	} big[3];
	struct pmc_counters *c;

	fake_pmu_init(&fake, &pmu8);
	c = open_ok(l, &o);
	fake_pmu_tick(&fake, 4);
	assert_int_equal(pmc_counters_disable(c), 0);
	assert_int_equal(pmc_counters_read(c, r, sizeof(r[0])), 0);
	memset(big, 0xAA, sizeof(big));
	assert_int_equal(pmc_counters_read(c, &big[0].r, sizeof(big[0])), 0);
	for (size_t i = 0; i < 3; i++) {
		assert_reading(&big[i].r, r[i].status, r[i].value, r[i].enabled, r[i].running);
		assert_true(big[i].r.scaled == r[i].scaled);
		for (size_t k = 0; k < 3; k++)
			assert_int_equal(big[i].future[k], 0);
	}
	memset(big, 0xAA, sizeof(big));
	assert_int_equal(pmc_counters_read(c, &big[0].r, offsetof(struct pmc_reading, user_only)),
			 -EINVAL);
	assert_int_equal(big[0].future[0], 0xAAAAAAAAAAAAAAAAu);
	assert_int_equal(pmc_counters_read(c, NULL, sizeof(r[0])), -EINVAL);
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* Options of every version: a newer program's struct with an unknown tail is accepted
 * when the tail is zero and refused (-EINVAL, nothing opened) when it is not; an older
 * program's struct that stops before cpu counts on any CPU; on_cpu picks one. */
static void test_opts_versions(void **state)
{
	struct pmc_event_list *l = t_events("task-clock");
	struct {
		struct pmc_counters_opts o;
		uint64_t future[2];
	} big;
	PMC_OPTS(pmc_counters_opts, old, .on_cpu = true, .cpu = 1);
	struct pmc_counters *c = NULL;

	/* Every byte zero, the padding too, as PMC_OPTS declares them. */
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	old.sz = offsetof(struct pmc_counters_opts, on_cpu);
	fake_pmu_init(&fake, &pmu8);
	assert_int_equal(pmc_counters_open_sys(l, &big.o, &fake.sys, &c), 0);
	assert_int_equal(fake.log[0].cpu, -1);
	pmc_counters_close(c);
	c = NULL;
	big.future[1] = 1;
	assert_int_equal(pmc_counters_open_sys(l, &big.o, &fake.sys, &c), -EINVAL);
	assert_null(c);
	assert_int_equal(fake.nlog, 1);

	assert_int_equal(pmc_counters_open_sys(l, &old, &fake.sys, &c), 0);
	assert_int_equal(fake.log[1].cpu, -1);
	pmc_counters_close(c);
	old.sz = sizeof(old);
	assert_int_equal(pmc_counters_open_sys(l, &old, &fake.sys, &c), 0);
	assert_int_equal(fake.log[2].cpu, 1);
	pmc_counters_close(c);
	old.cpu = -2;
	assert_int_equal(pmc_counters_open_sys(l, &old, &fake.sys, &c), -EINVAL);
	pmc_event_list_free(l);
}

/* A fake /proc holding only perf_event_paranoid. */
static char proc_root[64];

static void make_proc(int paranoid)
{
	char path[128];
	FILE *f;

	snprintf(proc_root, sizeof(proc_root), "/tmp/pmc-probe-XXXXXX");
	assert_non_null(mkdtemp(proc_root));
	snprintf(path, sizeof(path), "%s/sys", proc_root);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/sys/kernel", proc_root);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/sys/kernel/perf_event_paranoid", proc_root);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%d\n", paranoid);
	fclose(f);
}

static void remove_proc(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/sys/kernel/perf_event_paranoid", proc_root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sys/kernel", proc_root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/sys", proc_root);
	rmdir(path);
	rmdir(proc_root);
}

/* Probing on a machine without a PMU at perf_event_paranoid 2: cycles is missing with
 * ENOENT, task-clock falls back to user space and is renamed task-clock:u (counting
 * user space from then on), page-faults:u was user-only already and stays as it is. */
static void test_probe_missing_and_user_only(void **state)
{
	struct pmc_event_list *l = t_events("cycles,task-clock,page-faults:u,{minor-faults}");
	struct fake_pmu_config cfg = {.no_pmu = true, .paranoid = 2};
	struct pmc_probe_report *rep = NULL;
	enum pmc_status st;
	bool user_only;
	char err[128] = "";
	int e, level = -1;

	fake_pmu_init(&fake, &cfg);
	make_proc(2);
	assert_int_equal(
	    pmc_event_list_probe_sys(l, NULL, &fake.sys, proc_root, &rep, err, sizeof(err)), 0);
	remove_proc();
	assert_int_equal(fake.nopen, 0); /* closed again */
	assert_int_equal(pmc_probe_report_missing(rep), 1);
	assert_int_equal(pmc_probe_report_user_only(rep), 2);
	assert_int_equal(pmc_probe_report_first_error(rep), ENOENT);
	assert_int_equal(pmc_probe_report_paranoid(rep, &level), 0);
	assert_int_equal(level, 2);

	assert_int_equal(pmc_probe_report_event_at(rep, 0, &st, &e, &user_only), 0);
	assert_int_equal(st, PMC_STATUS_UNSUPPORTED);
	assert_int_equal(e, ENOENT);
	assert_false(user_only);
	assert_string_equal(l->events[0].name, "cycles");

	assert_int_equal(pmc_probe_report_event_at(rep, 1, &st, &e, &user_only), 0);
	assert_int_equal(st, PMC_STATUS_COUNTED);
	assert_int_equal(e, 0);
	assert_true(user_only);
	assert_string_equal(pmc_event_list_name(l, 1), "task-clock:u");
	assert_true(l->events[1].exclude_kernel);
	assert_true(l->events[1].exclude_hv);
	assert_false(l->events[1].exclude_user);

	assert_int_equal(pmc_probe_report_event_at(rep, 2, &st, &e, &user_only), 0);
	assert_false(user_only);
	assert_string_equal(pmc_event_list_name(l, 2), "page-faults:u");
	assert_int_equal(pmc_probe_report_event_at(rep, 3, NULL, NULL, &user_only), 0);
	assert_true(user_only);
	assert_string_equal(pmc_event_list_name(l, 3), "minor-faults:u");
	assert_int_equal(pmc_probe_report_event_at(rep, 4, &st, &e, &user_only), -EINVAL);
	pmc_probe_report_free(rep);
	rep = NULL;

	/* Probing again finds nothing new to rename: the list counts user space now. */
	assert_int_equal(
	    pmc_event_list_probe_sys(l, NULL, &fake.sys, "/nonexistent", &rep, err, sizeof(err)),
	    0);
	assert_int_equal(pmc_probe_report_user_only(rep), 0);
	assert_int_equal(pmc_probe_report_missing(rep), 1);
	assert_int_equal(pmc_probe_report_paranoid(rep, &level), -ENOENT);
	assert_string_equal(pmc_event_list_name(l, 1), "task-clock:u");
	pmc_probe_report_free(rep);
	pmc_event_list_free(l);
}

/* Without the fallback, what needs kernel space is missing (denied, EACCES) and nothing
 * is renamed; a failure of the machine (EMFILE) is an error with words, not a report. */
static void test_probe_no_fallback_and_errors(void **state)
{
	struct pmc_event_list *l = t_events("task-clock,page-faults");
	struct fake_pmu_config cfg = {.counters = 4, .paranoid = 2};
	PMC_OPTS(pmc_probe_opts, po, .no_user_only_fallback = true);
	struct pmc_probe_report *rep = NULL;
	enum pmc_status st;
	char err[128] = "";
	int e;

	fake_pmu_init(&fake, &cfg);
	assert_int_equal(pmc_event_list_probe_sys(l, &po, &fake.sys, NULL, &rep, err, sizeof(err)),
			 0);
	assert_int_equal(pmc_probe_report_missing(rep), 2);
	assert_int_equal(pmc_probe_report_user_only(rep), 0);
	assert_int_equal(pmc_probe_report_first_error(rep), EACCES);
	assert_int_equal(pmc_probe_report_event_at(rep, 1, &st, &e, NULL), 0);
	assert_int_equal(st, PMC_STATUS_DENIED);
	assert_string_equal(pmc_event_list_name(l, 0), "task-clock");
	pmc_probe_report_free(rep);
	rep = NULL;

	cfg.max_fds = 1;
	cfg.privileged = true;
	fake_pmu_init(&fake, &cfg);
	assert_int_equal(pmc_event_list_probe_sys(l, NULL, &fake.sys, NULL, &rep, err, sizeof(err)),
			 -EMFILE);
	assert_null(rep);
	assert_non_null(strstr(err, "cannot open counters"));
	assert_int_equal(fake.nopen, 0);
	assert_int_equal(
	    pmc_event_list_probe_sys(NULL, NULL, &fake.sys, NULL, &rep, err, sizeof(err)), -EINVAL);
	pmc_probe_report_free(NULL);
	assert_int_equal(pmc_probe_report_missing(NULL), 0);
	pmc_event_list_free(l);
}

/* At paranoid 2, 'instructions,instructions:u': the fallback would make the first a
 * second instructions:u, and the two metrics of one id merge their runs (seen against
 * the arm64 guest's kernel: one run reported as two). The first stays denied and is
 * never retried user-only; the second counts. */
static void test_probe_fallback_never_duplicates(void **state)
{
	struct pmc_event_list *l = t_events("instructions,instructions:u");
	struct fake_pmu_config cfg = {.counters = 4, .paranoid = 2};
	PMC_OPTS(pmc_counters_opts, o, .user_only_fallback = true);
	struct pmc_probe_report *rep = NULL;
	struct pmc_counters *c = NULL;
	struct pmc_reading rd[2];
	enum pmc_status st;
	bool user_only;
	char err[128] = "";
	int e;

	fake_pmu_init(&fake, &cfg);
	assert_int_equal(
	    pmc_event_list_probe_sys(l, NULL, &fake.sys, "/nonexistent", &rep, err, sizeof(err)),
	    0);
	assert_string_equal(pmc_event_list_name(l, 0), "instructions");
	assert_string_equal(pmc_event_list_name(l, 1), "instructions:u");
	assert_int_equal(pmc_probe_report_event_at(rep, 0, &st, &e, &user_only), 0);
	assert_int_equal(st, PMC_STATUS_DENIED);
	assert_int_equal(e, EACCES);
	assert_false(user_only);
	assert_int_equal(pmc_probe_report_missing(rep), 1);
	assert_int_equal(pmc_probe_report_user_only(rep), 0);
	pmc_probe_report_free(rep);

	/* Measured: the first denied (no fallback), the second counts user space. */
	assert_int_equal(pmc_counters_open_sys(l, &o, &fake.sys, &c), 0);
	assert_int_equal(pmc_counters_enable(c), 0);
	fake_pmu_tick(&fake, 1);
	assert_int_equal(pmc_counters_read(c, rd, sizeof(rd[0])), 0);
	assert_int_equal(rd[0].status, PMC_STATUS_DENIED);
	assert_false(rd[0].user_only);
	assert_int_equal(rd[1].status, PMC_STATUS_COUNTED);
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

static void test_status_names(void **state)
{
	static const struct {
		enum pmc_status st;
		const char *name;
		bool value;
	} want[] = {
	    {PMC_STATUS_COUNTED, "counted", true},
	    {PMC_STATUS_SCALED, "scaled", true},
	    {PMC_STATUS_NOT_COUNTED, "not-counted", false},
	    {PMC_STATUS_UNSUPPORTED, "unsupported", false},
	    {PMC_STATUS_DENIED, "denied", false},
	    {PMC_STATUS_EXACT, "exact", true},
	};
	enum pmc_status st = PMC_STATUS_EXACT;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_string_equal(pmc_status_name(want[i].st), want[i].name);
		assert_int_equal(pmc_status_from_name(want[i].name, &st), 0);
		assert_int_equal(st, want[i].st);
		assert_int_equal(pmc_status_has_value(want[i].st), want[i].value);
	}
	assert_int_equal(pmc_status_from_name("Counted", &st), -EINVAL);
	assert_int_equal(pmc_status_from_name(NULL, &st), -EINVAL);
	assert_string_equal(pmc_status_name((enum pmc_status)99), "unknown");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_counted_and_attrs),
	    cmocka_unit_test(test_multiplex_scaling),
	    cmocka_unit_test(test_scaling_math),
	    cmocka_unit_test(test_weak_group_einval_member),
	    cmocka_unit_test(test_group_too_big),
	    cmocka_unit_test(test_esrch),
	    cmocka_unit_test(test_eperm_for_an_exclude_setting),
	    cmocka_unit_test(test_ebusy_is_not_remembered),
	    cmocka_unit_test(test_weak_group_split),
	    cmocka_unit_test(test_weak_group_that_fits),
	    cmocka_unit_test(test_fixed_counters_and_watchdog),
	    cmocka_unit_test(test_no_group_read_before_4_13),
	    cmocka_unit_test(test_exclude_guest_retry),
	    cmocka_unit_test(test_kernel_only_denied_under_paranoid),
	    cmocka_unit_test(test_lone_einval),
	    cmocka_unit_test(test_no_pmu),
	    cmocka_unit_test(test_detailed_presets),
	    cmocka_unit_test(test_paranoid_levels),
	    cmocka_unit_test(test_group_context_and_no_target),
	    cmocka_unit_test(test_no_group_read_on_user_only_retry),
	    cmocka_unit_test(test_kernel_recorded_denied_under_paranoid),
	    cmocka_unit_test(test_user_only_fallback_outcomes),
	    cmocka_unit_test(test_emfile),
	    cmocka_unit_test(test_pinned_zero_read),
	    cmocka_unit_test(test_enable_on_exec_and_not_counted),
	    cmocka_unit_test(test_ids_out_of_order),
	    cmocka_unit_test(test_known_errors),
	    cmocka_unit_test(test_enoent_one_event),
	    cmocka_unit_test(test_read_error),
	    cmocka_unit_test(test_bad_arguments),
	    cmocka_unit_test(test_status_names),
	    cmocka_unit_test(test_read_element_size),
	    cmocka_unit_test(test_opts_versions),
	    cmocka_unit_test(test_probe_missing_and_user_only),
	    cmocka_unit_test(test_probe_no_fallback_and_errors),
	    cmocka_unit_test(test_probe_fallback_never_duplicates),
	    cmocka_unit_test(test_group_too_big_probed_on_arm),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

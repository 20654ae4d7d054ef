/* Reads through the mmap page (counters/perf/selfread.h) against the emulated PMU's pages and
 * rdpmc (fake_pmu.h): every reading equals what read() gives for the same state. Two
 * emulated PMUs of one configuration are driven alike; the counters on one are read
 * through their pages, those on the other with read(). */
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

#include <cmocka.h>

#include "tests/test_main.h"

#include "counters/perf/counters.h"
#include "counters/perf/events.h"
#include "counters/perf/selfread.h"
#include "tests/fake_pmu.h"
#include "tests/helpers.h"

struct pair {
	struct fake_pmu self, plain;
	struct pmc_event_list *list;
	struct pmc_counters *cs, *cp;
	int kept; /* groups pmc_counters_self_read kept */
};

static struct pair P;

static void pair_open(struct pair *p, const struct fake_pmu_config *cfg, const char *spec)
{
	struct pmc_counters_opts o = {.sz = sizeof(o)};

	memset(p, 0, sizeof(*p));
	fake_pmu_init(&p->self, cfg);
	fake_pmu_init(&p->plain, cfg);
	p->list = t_events(spec);
	assert_int_equal(pmc_counters_open_sys(p->list, &o, &p->self.sys, &p->cs), 0);
	assert_int_equal(pmc_counters_open_sys(p->list, &o, &p->plain.sys, &p->cp), 0);
	p->kept = pmc_counters_self_read(p->cs);
	assert_true(p->kept >= 0);
	assert_int_equal(pmc_counters_enable(p->cs), 0);
	assert_int_equal(pmc_counters_enable(p->cp), 0);
}

static void pair_tick(struct pair *p, unsigned n)
{
	fake_pmu_tick(&p->self, n);
	fake_pmu_tick(&p->plain, n);
}

static void pair_close(struct pair *p)
{
	pmc_counters_close(p->cs);
	pmc_counters_close(p->cp);
	pmc_event_list_free(p->list);
	/* Every page was unmapped, and no rdpmc was ever wrong. */
	assert_int_equal(p->self.munmaps, p->self.mmaps);
	assert_int_equal(p->self.rdpmc_faults, 0);
}

/* Reads both and asserts that every event's reading is the same; returns how many group
 * reads of this call went through the pages. */
static uint64_t pair_read(struct pair *p)
{
	size_t n = pmc_event_list_count(p->list);
	struct pmc_reading a[16], b[16];
	uint64_t self0, self1;

	assert_true(n <= 16);
	pmc_counters_read_counts(p->cs, &self0, NULL);
	assert_int_equal(pmc_counters_read(p->cs, a, sizeof(*a)), 0);
	assert_int_equal(pmc_counters_read(p->cp, b, sizeof(*b)), 0);
	pmc_counters_read_counts(p->cs, &self1, NULL);
	for (size_t i = 0; i < n; i++) {
		if (a[i].value != b[i].value || a[i].enabled != b[i].enabled ||
		    a[i].running != b[i].running || a[i].status != b[i].status)
			print_error("%s: self-read %llu %llu %llu %s, read() %llu %llu %llu %s\n",
				    p->list->events[i].name, (unsigned long long)a[i].value,
				    (unsigned long long)a[i].enabled,
				    (unsigned long long)a[i].running, pmc_status_name(a[i].status),
				    (unsigned long long)b[i].value,
				    (unsigned long long)b[i].enabled,
				    (unsigned long long)b[i].running, pmc_status_name(b[i].status));
		assert_int_equal(a[i].status, b[i].status);
		assert_int_equal(a[i].value, b[i].value);
		assert_int_equal(a[i].enabled, b[i].enabled);
		assert_int_equal(a[i].running, b[i].running);
	}
	return self1 - self0;
}

static struct fake_pmu_event *event_of(struct fake_pmu *f, uint32_t type, uint64_t config)
{
	for (int i = 0; i < FAKE_PMU_MAX_EVENTS; i++)
		if (f->ev[i].used && f->ev[i].attr.type == type && f->ev[i].attr.config == config)
			return &f->ev[i];
	fail_msg("no event %u/%llu", type, (unsigned long long)config);
	return NULL;
}

static const struct fake_pmu_config base_cfg = {
    .counters = 4, .fixed_counters = true, .privileged = true, .rdpmc = 1};

/* With rdpmc allowed, groups on the PMU are read with no read() at all, and their values
 * and times are read()'s; cycles and instructions sit on fixed counters, which rdpmc
 * names with bit 30. */
static void rdpmc_reads_equal_read(void **state)
{
	struct pair *p = &P;
	uint64_t sys;

	pair_open(p, &base_cfg, "{cycles,instructions},{branches,branch-misses}");
	assert_int_equal(p->kept, 2);
	assert_int_equal(p->self.mmaps, 4);
	for (unsigned t = 1; t <= 4; t++) {
		pair_tick(p, t);
		assert_int_equal(pair_read(p), 2);
	}
	pmc_counters_read_counts(p->cs, NULL, &sys);
	assert_int_equal(sys, 0);
	assert_int_equal(p->self.reads, 0);
	assert_int_equal(p->self.rdpmcs, 4 * 4);
	assert_int_equal(p->self.rdpmc_stale, 0);
	assert_int_equal(event_of(&p->self, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES)->counter,
			 1u << 30 | 1);
	assert_int_equal(
	    event_of(&p->self, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS)->counter, 1u << 30);
	pair_close(p);
}

/* A counter armed a few events before its overflow wraps past 0 before the PMI comes:
 * the value is right only when the counter is sign-extended from pmc_width (40 bits
 * here, not the usual 48). After the PMI the counter is armed again. */
static void counter_wraps_at_pmc_width(void **state)
{
	struct fake_pmu_config cfg = base_cfg;
	struct pair *p = &P;
	uint64_t rate = fake_pmu_rate(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
	struct fake_pmu_event *e;

	cfg.pmc_width = 40;
	cfg.pmc_left = 2 * rate + rate / 2;
	pair_open(p, &cfg, "{branches,branch-misses}");
	pair_tick(p, 1);
	e = event_of(&p->self, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
	assert_true(fake_pmu_counter(&p->self, FAKE_PMU_FD_BASE + (int)(e - p->self.ev)) >
		    (UINT64_C(1) << 39));
	assert_int_equal(pair_read(p), 1);
	pair_tick(p, 2);
	/* Wrapped: a small counter, no PMI yet. */
	assert_true(fake_pmu_counter(&p->self, FAKE_PMU_FD_BASE + (int)(e - p->self.ev)) < rate);
	assert_int_equal(pair_read(p), 1);
	pair_tick(p, 1);
	assert_int_equal(pair_read(p), 1);
	pair_close(p);
}

/* Two groups on two counters take turns: the one off the PMU (index 0) is read with
 * read() for that read, the one on it through its page; both are multiplexed, and the
 * page's times, extrapolated with the TSC, are read()'s. */
static void descheduled_group_falls_back(void **state)
{
	struct fake_pmu_config cfg = base_cfg;
	struct pair *p = &P;
	uint64_t sys;

	cfg.counters = 2;
	cfg.fixed_counters = false;
	pair_open(p, &cfg, "{branches,branch-misses},{cache-references,cache-misses}");
	assert_int_equal(p->kept, 2);
	for (unsigned t = 0; t < 6; t++) {
		pair_tick(p, 1);
		assert_int_equal(pair_read(p), 1);
	}
	pmc_counters_read_counts(p->cs, NULL, &sys);
	assert_int_equal(sys, 6);
	assert_int_equal(p->self.reads, 6);
	pair_close(p);
}

/* Three groups of two on four counters: each runs two quanta of three, so a group
 * stays on the PMU across a quantum without its page being written, and the times
 * come from the TSC's advance since the write. */
static void multiplexed_times_from_the_tsc(void **state)
{
	struct fake_pmu_config cfg = base_cfg;
	struct pair *p = &P;
	uint64_t self = 0;
	unsigned writes;
	struct pmc_reading r[6];

	cfg.fixed_counters = false;
	pair_open(p, &cfg,
		  "{cycles,instructions},{branches,branch-misses},{cache-references,cache-misses}");
	for (unsigned t = 0; t < 9; t++) {
		pair_tick(p, 1);
		writes = p->self.page_writes;
		self += pair_read(p);
		assert_int_equal(p->self.page_writes, writes);
	}
	assert_int_equal(self, 2 * 9);
	assert_int_equal(pmc_counters_read(p->cs, r, sizeof(*r)), 0);
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(r[i].status, PMC_STATUS_SCALED);
	pair_close(p);
}

/* A concurrent update (a PMI arms the counters again) lands between the page's fields
 * and rdpmc: the window is read again, so the values are still read()'s. */
static void rearm(struct fake_pmu *f, void *ud)
{
	fake_pmu_rearm(f, ud ? *(const int *)ud : -1);
}

static void seqcount_retry(void **state)
{
	struct pair *p = &P;
	int fd;

	pair_open(p, &base_cfg, "{branches,branch-misses}");
	pair_tick(p, 3);
	p->self.on_rdpmc = rearm;
	assert_int_equal(pair_read(p), 1);
	/* Two counters read twice: the first window saw the lock change. */
	assert_int_equal(p->self.rdpmcs, 4);
	pair_tick(p, 1);
	assert_int_equal(pair_read(p), 1);
	/* Only the member's page changes: its own lock tells. */
	fd =
	    FAKE_PMU_FD_BASE +
	    (int)(event_of(&p->self, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES) - p->self.ev);
	p->self.rdpmcs = 0;
	p->self.on_rdpmc = rearm;
	p->self.on_rdpmc_ud = &fd;
	assert_int_equal(pair_read(p), 1);
	assert_int_equal(p->self.rdpmcs, 4);
	pair_close(p);
}

/* Disables and enables both sides' groups: off the PMU and, at the next quantum, on it. */
static void pair_cycle(struct pair *p)
{
	assert_int_equal(pmc_counters_disable(p->cs), 0);
	assert_int_equal(pmc_counters_disable(p->cp), 0);
	assert_int_equal(pmc_counters_enable(p->cs), 0);
	assert_int_equal(pmc_counters_enable(p->cp), 0);
}

/* A reset of groups on the PMU: the kernel writes their pages from the counters as read,
 * zero-extended (_perf_event_reset()), and a counter has its top bit set from its arming
 * to its overflow, so a page read would be 2^48 off. The groups are read with read() until
 * their pages are written again, as they are put back on the PMU; a reset of stopped
 * groups costs no read(). */
static void reset_while_running(void **state)
{
	struct pair *p = &P;

	pair_open(p, &base_cfg, "{cycles,instructions},{branches,branch-misses}");
	pair_tick(p, 3);
	assert_int_equal(pair_read(p), 2);
	assert_int_equal(pmc_counters_reset(p->cs), 0);
	assert_int_equal(pmc_counters_reset(p->cp), 0);
	assert_int_equal(pair_read(p), 0);
	pair_tick(p, 2);
	assert_int_equal(pair_read(p), 0);
	pair_cycle(p);
	pair_tick(p, 1);
	assert_int_equal(pair_read(p), 2);
	assert_int_equal(pmc_counters_disable(p->cs), 0);
	assert_int_equal(pmc_counters_disable(p->cp), 0);
	assert_int_equal(pmc_counters_reset(p->cs), 0);
	assert_int_equal(pmc_counters_reset(p->cp), 0);
	assert_int_equal(pmc_counters_enable(p->cs), 0);
	assert_int_equal(pmc_counters_enable(p->cp), 0);
	pair_tick(p, 1);
	assert_int_equal(pair_read(p), 2);
	pair_close(p);
}

/* Pages mapped while the group is on the PMU and after a read(): perf_mmap() writes them
 * as a reset does, so they are not read until written again. */
static void mapped_while_running(void **state)
{
	struct pair *p = &P;
	struct pmc_counters_opts o = {.sz = sizeof(o)};
	struct pmc_reading r[2];

	memset(p, 0, sizeof(*p));
	fake_pmu_init(&p->self, &base_cfg);
	fake_pmu_init(&p->plain, &base_cfg);
	p->list = t_events("{branches,branch-misses}");
	assert_int_equal(pmc_counters_open_sys(p->list, &o, &p->self.sys, &p->cs), 0);
	assert_int_equal(pmc_counters_open_sys(p->list, &o, &p->plain.sys, &p->cp), 0);
	assert_int_equal(pmc_counters_enable(p->cs), 0);
	assert_int_equal(pmc_counters_enable(p->cp), 0);
	pair_tick(p, 2);
	assert_int_equal(pmc_counters_read(p->cs, r, sizeof(*r)), 0);
	assert_int_equal(pmc_counters_self_read(p->cs), 1);
	pair_tick(p, 1);
	assert_int_equal(pair_read(p), 0);
	pair_cycle(p);
	pair_tick(p, 1);
	assert_int_equal(pair_read(p), 1);
	pair_close(p);
}

/* Intel's topdown events (slots, event 0 umask 0x04, leading the metric events, umask 0x80
 * and up): a metric event's rdpmc gives the packed PERF_METRICS register, and a read()
 * resets slots' counter without writing its page, so a group with any of them, slots
 * alone included, is always read with read(); the other groups through their pages. */
static void topdown_groups_use_read(void **state)
{
	struct fake_pmu_config cfg = base_cfg;
	struct pair *p = &P;

#if !defined(__x86_64__) && !defined(__i386__)
	skip(); /* Intel's events: counters_plain.c treats them so on x86 only */
#endif
	cfg.perf_metrics = true;
	pair_open(p, &cfg, "{r0400,r8000,r8300},{branches,branch-misses},{r0400}");
	assert_int_equal(p->kept, 1);
	for (unsigned t = 0; t < 3; t++) {
		pair_tick(p, 1);
		assert_int_equal(pair_read(p), 1);
	}
	assert_int_equal(p->self.rdpmc_metrics, 0);
	pair_close(p);
}

/* The kernel's rules, as the emulation applies them: a metric event needs a slots leader. */
static void topdown_metric_needs_slots_leader(void **state)
{
	struct fake_pmu_config cfg = base_cfg;
	struct fake_pmu f;
	struct pmc_event_list *l = t_events("{cycles,r0400,r8000},{r8100}");
	struct pmc_counters_opts o = {.sz = sizeof(o)};
	struct pmc_counters *c = NULL;
	enum pmc_status st;
	int err;

	cfg.perf_metrics = true;
	fake_pmu_init(&f, &cfg);
	assert_int_equal(pmc_counters_open_sys(l, &o, &f.sys, &c), 0);
	assert_int_equal(pmc_counters_opened(c), 2);
	pmc_counters_open_status(c, 2, &st, &err);
	assert_int_equal(st, PMC_STATUS_UNSUPPORTED);
	assert_int_equal(err, EINVAL);
	pmc_counters_open_status(c, 3, &st, &err);
	assert_int_equal(st, PMC_STATUS_UNSUPPORTED);
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* rdpmc off (sysfs 0): pages say so, nothing stays mapped, every read is a read(), and
 * rdpmc is never tried. With 2 (always) it is used. */
static void rdpmc_disallowed_uses_read(void **state)
{
	struct fake_pmu_config cfg = base_cfg;
	struct pair *p = &P;

	cfg.rdpmc = 0;
	pair_open(p, &cfg, "{cycles,instructions}");
	assert_int_equal(p->kept, 0);
	assert_int_equal(p->self.mmaps, 1);
	assert_int_equal(p->self.munmaps, 1);
	pair_tick(p, 2);
	assert_int_equal(pair_read(p), 0);
	assert_int_equal(p->self.rdpmcs, 0);
	pair_close(p);

	cfg.rdpmc = 2;
	pair_open(p, &cfg, "{cycles,instructions}");
	assert_int_equal(p->kept, 1);
	pair_tick(p, 2);
	assert_int_equal(pair_read(p), 1);
	pair_close(p);
}

/* Software events never have a counter (index 0, no cap_user_rdpmc): a group with one is
 * read with read(), and its pages are not kept. */
static void software_events_use_read(void **state)
{
	struct pair *p = &P;

	pair_open(p, &base_cfg, "{task-clock,page-faults},{cycles,task-clock},branches");
	assert_int_equal(p->kept, 1);
	pair_tick(p, 2);
	assert_int_equal(pair_read(p), 1);
	pair_close(p);
}

/* Without cap_user_time the page's times are stale: read(). With a 32-bit TSC
 * (cap_user_time_short) the TSC is widened from time_cycles: the fake's starts at 2^40. */
static void page_clock(void **state)
{
	struct fake_pmu_config cfg = base_cfg;
	struct pair *p = &P;

	cfg.no_user_time = true;
	pair_open(p, &cfg, "{cycles,instructions}");
	pair_tick(p, 2);
	assert_int_equal(pair_read(p), 0);
	pair_close(p);

	cfg.no_user_time = false;
	cfg.tsc_bits = 32;
	pair_open(p, &cfg, "{cycles,instructions},{branches,branch-misses},{cache-misses}");
	for (unsigned t = 0; t < 5; t++) {
		pair_tick(p, 1);
		pair_read(p);
	}
	pair_close(p);
}

/* Only the calling thread's own, uninherited counters are read through pages. */
static void only_the_calling_thread(void **state)
{
	struct fake_pmu f;
	struct pmc_event_list *l = t_events("{cycles,instructions}");
	struct pmc_counters_opts o = {.sz = sizeof(o), .pid = 1234};
	struct pmc_counters *c = NULL;

	fake_pmu_init(&f, &base_cfg);
	assert_int_equal(pmc_counters_open_sys(l, &o, &f.sys, &c), 0);
	assert_int_equal(pmc_counters_self_read(c), 0);
	pmc_counters_close(c);
	o.pid = 0;
	o.inherit = true;
	assert_int_equal(pmc_counters_open_sys(l, &o, &f.sys, &c), 0);
	assert_int_equal(pmc_counters_self_read(c), 0);
	pmc_counters_close(c);
	assert_int_equal(f.mmaps, 0);
	pmc_event_list_free(l);
}

/* The arithmetic of the uapi header's comments. */
static void page_arithmetic(void **state)
{
	/* -1 in 40 bits, -2^47 in 48, and 64 bits as they are. */
	assert_int_equal(pmc_selfread_extend(100, UINT64_C(0xffffffffff), 40), 99);
	assert_int_equal(pmc_selfread_extend(UINT64_C(1) << 47, UINT64_C(0x800000000000), 48), 0);
	assert_int_equal(pmc_selfread_extend(5, UINT64_C(0x7fffffffffff), 48),
			 UINT64_C(0x7fffffffffff) + 5);
	assert_int_equal(pmc_selfread_extend(1, ~UINT64_C(0), 64), 0);
	/* 2^40 cycles at 25/64 ns each, as mult 25 << 26 and shift 32: the product
	 * 2^40 * mult would not fit in 64 bits. */
	assert_int_equal(pmc_selfread_delta(UINT64_C(1) << 40, 0, UINT32_C(25) << 26, 32),
			 (UINT64_C(1) << 34) * 25);
	assert_int_equal(pmc_selfread_delta(64, UINT64_C(0) - 10, UINT32_C(25) << 26, 32), 15);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(rdpmc_reads_equal_read),
	    cmocka_unit_test(counter_wraps_at_pmc_width),
	    cmocka_unit_test(descheduled_group_falls_back),
	    cmocka_unit_test(multiplexed_times_from_the_tsc),
	    cmocka_unit_test(seqcount_retry),
	    cmocka_unit_test(reset_while_running),
	    cmocka_unit_test(mapped_while_running),
	    cmocka_unit_test(topdown_groups_use_read),
	    cmocka_unit_test(topdown_metric_needs_slots_leader),
	    cmocka_unit_test(rdpmc_disallowed_uses_read),
	    cmocka_unit_test(software_events_use_read),
	    cmocka_unit_test(page_clock),
	    cmocka_unit_test(only_the_calling_thread),
	    cmocka_unit_test(page_arithmetic),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

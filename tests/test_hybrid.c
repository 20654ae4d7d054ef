/* Hybrid and big.LITTLE CPUs (counters/perf/hybrid.h) through the emulated PMU with several core
 * PMUs and its sysfs tree: events split per core PMU with the extended type, the sum and
 * its parts, time on the other core type never taken for multiplexing, real multiplexing
 * still scaled, an event of one core PMU never extrapolated, Apple M1, the fallback of
 * kernels without the extended type, and machines with one core PMU unchanged. */
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
#include <unistd.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "counters/perf/counters.h"
#include "counters/perf/events.h"
#include "counters/perf/hybrid.h"
#include "counters/perf/selfread.h"
#include "tests/fake_pmu.h"

#define Q FAKE_PMU_QUANTUM_NS

static struct fake_pmu fake;
static char root[PATH_MAX];

/* Alder Lake as the kernel shows it: cpu_core registered as PERF_TYPE_RAW on CPUs 0-1,
 * cpu_atom with a dynamic type on CPUs 2-3; legacy events go to cpu_core. */
static const struct fake_pmu_config adl = {
    .counters = 8,
    .paranoid = 2,
    .cores = {{"cpu_core", PERF_TYPE_RAW, 0x3, 8}, {"cpu_atom", 10, 0xc, 6}},
    .ncores = 2,
    .legacy_core = 0,
};

/* Apple M1 (Asahi): two PMUs of dynamic types, E-cores 0-3 and P-cores 4-7; legacy events
 * go to the one registered first. */
static const struct fake_pmu_config m1 = {
    .counters = 8,
    .paranoid = 2,
    .cores = {{"apple_icestorm_pmu", 8, 0x0f, 8}, {"apple_firestorm_pmu", 9, 0xf0, 8}},
    .ncores = 2,
    .legacy_core = 0,
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

/* Opened on the calling thread, user space only (paranoid 2), enabled at once. */
static struct pmc_counters *open_ok(const struct pmc_event_list *l)
{
	struct pmc_counters_opts o = {.sz = sizeof(o), .user_only_fallback = true};
	struct pmc_counters *c = NULL;

	assert_int_equal(pmc_counters_open_sys(l, &o, &fake.sys, &c), 0);
	assert_non_null(c);
	return c;
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

static struct pmc_reading part(const struct pmc_counters *c, size_t i, size_t k, const char *pmu)
{
	struct pmc_reading rd;

	assert_string_equal(pmc_counters_part_pmu(c, i, k), pmu);
	assert_int_equal(pmc_counters_part_reading(c, i, k, &rd), 0);
	return rd;
}

/* Opens of (type, config) that succeeded. */
static size_t opened_as(uint32_t type, uint64_t config)
{
	size_t n = 0;

	for (size_t i = 0; i < fake.nlog; i++)
		n += fake.log[i].result >= 0 && fake.log[i].attr.type == type &&
		     fake.log[i].attr.config == config;
	return n;
}

static uint64_t ext(unsigned core, uint64_t config)
{
	return config | (uint64_t)fake.cfg.cores[core].type << PERF_PMU_TYPE_SHIFT;
}

/* The case: 60% of the run on P-cores, 40% on E-cores. The sum is exact and
 * counted, not the P-core count x1.67 labelled scaled, and each part is reported. */
static void test_split_sum_counted(void **state)
{
	struct pmc_event_list *l;
	struct pmc_counters *c;
	struct pmc_reading r[2], p;
	uint64_t core_cycles, atom_cycles;

	(void)state;
	machine(&adl);
	l = events("cycles,task-clock");
	c = open_ok(l);
	/* cycles on each core PMU with its type in config bits 32-63. */
	assert_int_equal(opened_as(PERF_TYPE_HARDWARE, ext(0, PERF_COUNT_HW_CPU_CYCLES)), 2);
	assert_int_equal(opened_as(PERF_TYPE_HARDWARE, ext(1, PERF_COUNT_HW_CPU_CYCLES)), 2);
	assert_int_equal(opened_as(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES), 0);
	assert_int_equal(pmc_counters_opened(c), 2);
	fake_pmu_tick_on(&fake, 0, 6);
	fake_pmu_tick_on(&fake, 2, 4);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	core_cycles = 6 * fake_pmu_core_rate(&fake, 0, PERF_COUNT_HW_CPU_CYCLES);
	atom_cycles = 4 * fake_pmu_core_rate(&fake, 1, PERF_COUNT_HW_CPU_CYCLES);
	assert_reading(&r[0], PMC_STATUS_COUNTED, core_cycles + atom_cycles, 10 * Q, 10 * Q);
	assert_true(r[0].scaled == (double)(core_cycles + atom_cycles));
	assert_int_equal(pmc_counters_nparts(c, 0), 2);
	assert_false(pmc_counters_restricted(c, 0));
	p = part(c, 0, 0, "cpu_core");
	assert_reading(&p, PMC_STATUS_COUNTED, core_cycles, 10 * Q, 6 * Q);
	assert_true(p.scaled == (double)core_cycles);
	p = part(c, 0, 1, "cpu_atom");
	assert_reading(&p, PMC_STATUS_COUNTED, atom_cycles, 10 * Q, 4 * Q);
	/* Software events are not split. */
	assert_int_equal(pmc_counters_nparts(c, 1), 0);
	assert_reading(&r[1], PMC_STATUS_COUNTED, 10 * fake_pmu_rate(PERF_TYPE_SOFTWARE, 1), 10 * Q,
		       10 * Q);
	/* A run that stays on P-cores: the E-core part never ran, the sum is still whole. */
	assert_int_equal(pmc_counters_reset(c), 0);
	pmc_counters_close(c);
	fake_pmu_init(&fake, &adl);
	fake.sys.sysfs_root = root;
	c = open_ok(l);
	fake_pmu_tick_on(&fake, 1, 5);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_reading(&r[0], PMC_STATUS_COUNTED,
		       5 * fake_pmu_core_rate(&fake, 0, PERF_COUNT_HW_CPU_CYCLES), 5 * Q, 5 * Q);
	p = part(c, 0, 1, "cpu_atom");
	assert_int_equal(p.status, PMC_STATUS_NOT_COUNTED);
	assert_true(isnan(p.scaled));
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* Groups cannot span PMUs: {cycles,instructions} becomes one group per core PMU, and a
 * software member goes to a group of its own, which counts on every CPU. */
static void test_groups_per_pmu(void **state)
{
	struct pmc_event_list *l;
	struct pmc_counters *c;
	struct pmc_reading r[3];

	(void)state;
	machine(&adl);
	l = events("{cycles,instructions,task-clock}");
	c = open_ok(l);
	assert_int_equal(fake.nopen, 5);
	for (size_t i = 0; i < fake.nlog; i++) {
		const struct fake_pmu_open *o = &fake.log[i];
		const struct fake_pmu_event *lead;

		if (o->result < 0 || o->group_fd < 0)
			continue;
		/* Every member joined a leader of its own PMU. */
		lead = fake_pmu_lookup(&fake, o->group_fd);
		assert_non_null(lead);
		assert_int_equal(lead->core, fake_pmu_lookup(&fake, o->result)->core);
	}
	fake_pmu_tick_on(&fake, 2, 3);
	fake_pmu_tick_on(&fake, 0, 1);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_int_equal(r[0].status, PMC_STATUS_COUNTED);
	assert_int_equal(r[1].status, PMC_STATUS_COUNTED);
	assert_int_equal(r[1].value,
			 3 * fake_pmu_core_rate(&fake, 1, PERF_COUNT_HW_INSTRUCTIONS) +
			     1 * fake_pmu_core_rate(&fake, 0, PERF_COUNT_HW_INSTRUCTIONS));
	assert_reading(&r[2], PMC_STATUS_COUNTED, 4 * fake_pmu_rate(PERF_TYPE_SOFTWARE, 1), 4 * Q,
		       4 * Q);
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* Multiplexing on top of the split: two groups of two on two counters of each core PMU
 * run half of the time each type had. The parts' running times (3 + 2 quanta) fall short
 * of the 10 enabled: that shortfall, and only it, is scaled. */
static void test_multiplexing_still_scaled(void **state)
{
	struct fake_pmu_config cfg = adl;
	struct pmc_event_list *l;
	struct pmc_counters *c;
	struct pmc_reading r[4], p;
	uint64_t v;

	(void)state;
	cfg.cores[0].counters = 2;
	cfg.cores[1].counters = 2;
	machine(&cfg);
	l = events("{cycles,instructions},{branches,branch-misses}");
	c = open_ok(l);
	fake_pmu_tick_on(&fake, 0, 6);
	fake_pmu_tick_on(&fake, 3, 4);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(r[i].status, PMC_STATUS_SCALED);
		assert_int_equal(r[i].enabled, 10 * Q);
		assert_int_equal(r[i].running, 5 * Q);
		assert_true(r[i].scaled == (double)r[i].value * 2);
	}
	v = 3 * fake_pmu_core_rate(&fake, 0, PERF_COUNT_HW_CPU_CYCLES) +
	    2 * fake_pmu_core_rate(&fake, 1, PERF_COUNT_HW_CPU_CYCLES);
	assert_int_equal(r[0].value, v);
	p = part(c, 0, 0, "cpu_core");
	assert_reading(&p, PMC_STATUS_SCALED, 3 * fake_pmu_core_rate(&fake, 0, 0), 10 * Q, 3 * Q);
	assert_true(p.scaled == (double)p.value * 2);
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* An event of one core PMU, written by hand, counts only on that PMU's CPUs: its count is
 * what was counted there, never extrapolated over the time on the other type (the old
 * engine reported cpu_core/cycles/ x1.67, scaled). */
static void test_one_pmu_not_extrapolated(void **state)
{
	struct pmc_event_list *l;
	struct pmc_counters *c;
	struct pmc_reading r[2], p;
	uint64_t core, atom;

	(void)state;
	machine(&adl);
	l = events("cpu_core/cycles/,cpu_atom/cycles/");
	c = open_ok(l);
	fake_pmu_tick_on(&fake, 0, 6);
	fake_pmu_tick_on(&fake, 2, 4);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	core = 6 * fake_pmu_core_rate(&fake, 0, 0x3c);
	atom = 4 * fake_pmu_core_rate(&fake, 1, 0x3c);
	assert_reading(&r[0], PMC_STATUS_COUNTED, core, 10 * Q, 6 * Q);
	assert_true(r[0].scaled == (double)core);
	assert_reading(&r[1], PMC_STATUS_COUNTED, atom, 10 * Q, 4 * Q);
	assert_true(r[1].scaled == (double)atom);
	assert_true(pmc_counters_restricted(c, 0));
	assert_int_equal(pmc_counters_nparts(c, 0), 1);
	p = part(c, 1, 0, "cpu_atom");
	assert_int_equal(p.value, atom);
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* A raw code is one PMU's encoding: perf opens `r00c0` once, as PERF_TYPE_RAW, which
 * reaches cpu_core only (kernel/events/core.c, perf_init_event()). It is not opened on
 * cpu_atom too and summed (the same code is another event there): its count is the
 * P-cores', restricted to them, not extrapolated over the time on E-cores; the generic
 * event beside it is still split and summed. */
static void test_raw_opened_once(void **state)
{
	struct pmc_event_list *l;
	struct pmc_counters *c;
	struct pmc_reading r[2], p;

	(void)state;
	machine(&adl);
	l = events("{instructions,r00c0}");
	c = open_ok(l);
	assert_int_equal(opened_as(PERF_TYPE_RAW, 0xc0), 1);
	assert_int_equal(opened_as(10, 0xc0), 0);
	fake_pmu_tick_on(&fake, 0, 6);
	fake_pmu_tick_on(&fake, 3, 4);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_reading(&r[0], PMC_STATUS_COUNTED,
		       6 * fake_pmu_core_rate(&fake, 0, PERF_COUNT_HW_INSTRUCTIONS) +
			   4 * fake_pmu_core_rate(&fake, 1, PERF_COUNT_HW_INSTRUCTIONS),
		       10 * Q, 10 * Q);
	assert_reading(&r[1], PMC_STATUS_COUNTED, 6 * fake_pmu_core_rate(&fake, 0, 0xc0), 10 * Q,
		       6 * Q);
	assert_true(pmc_counters_restricted(c, 1));
	assert_int_equal(pmc_counters_nparts(c, 1), 1);
	p = part(c, 1, 0, "cpu_core");
	assert_int_equal(p.value, r[1].value);
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* Apple M1: no PMU of type PERF_TYPE_RAW; the split works the same. A raw code is opened
 * once, as PERF_TYPE_RAW, which the kernel gives to the first PMU that takes it: a count
 * of one cluster, which nobody can name, never extrapolated. */
static void test_m1(void **state)
{
	struct pmc_event_list *l;
	struct pmc_counters *c;
	struct pmc_reading r[2], p;
	uint64_t v;

	(void)state;
	machine(&m1);
	l = events("instructions,r08");
	c = open_ok(l);
	assert_int_equal(opened_as(8, 0x08), 0);
	assert_int_equal(opened_as(9, 0x08), 0);
	assert_int_equal(opened_as(PERF_TYPE_RAW, 0x08), 1);
	fake_pmu_tick_on(&fake, 5, 3);
	fake_pmu_tick_on(&fake, 1, 7);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	v = 7 * fake_pmu_core_rate(&fake, 0, PERF_COUNT_HW_INSTRUCTIONS) +
	    3 * fake_pmu_core_rate(&fake, 1, PERF_COUNT_HW_INSTRUCTIONS);
	assert_reading(&r[0], PMC_STATUS_COUNTED, v, 10 * Q, 10 * Q);
	p = part(c, 0, 0, "apple_icestorm_pmu");
	assert_int_equal(p.running, 7 * Q);
	p = part(c, 0, 1, "apple_firestorm_pmu");
	assert_int_equal(p.running, 3 * Q);
	assert_reading(&r[1], PMC_STATUS_COUNTED, 7 * fake_pmu_core_rate(&fake, 0, 8), 10 * Q,
		       7 * Q);
	assert_true(pmc_counters_restricted(c, 1));
	assert_int_equal(pmc_counters_nparts(c, 1), 1);
	assert_string_equal(pmc_counters_part_pmu(c, 1, 0), "");
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* Apple's PMUs refuse a hardware event that does not exclude the guest (EOPNOTSUPP): the
 * probe retries with exclude_guest as perf's does, so M1 still gets one event per core
 * PMU, and the engine opens them with exclude_guest. */
static void test_m1_needs_exclude_guest(void **state)
{
	struct fake_pmu_config cfg = m1;
	struct pmc_event_list *l;
	struct pmc_counters *c;
	struct pmc_reading r[1];

	(void)state;
	cfg.need_exclude_guest = true;
	machine(&cfg);
	l = events("cycles");
	c = open_ok(l);
	assert_int_equal(pmc_counters_nparts(c, 0), 2);
	assert_false(pmc_counters_restricted(c, 0));
	fake_pmu_tick_on(&fake, 5, 3);
	fake_pmu_tick_on(&fake, 1, 1);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_reading(&r[0], PMC_STATUS_COUNTED,
		       1 * fake_pmu_core_rate(&fake, 0, 0) + 3 * fake_pmu_core_rate(&fake, 1, 0),
		       4 * Q, 4 * Q);
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* A kernel without the extended type (x86 before 5.13, arm64 before 6.6): perf's probe
 * (cycles with a PMU type on every core PMU) fails, so generic events are opened once
 * as legacy events, which reach one core type only: reported as such, not extrapolated.
 * A cache event is the trap: such a kernel ignores its high bits and opens it anyway,
 * on cpu_core, so it must not be split either. A raw event is opened once, as on any
 * kernel. */
static void test_no_extended_type(void **state)
{
	struct fake_pmu_config cfg = adl;
	struct pmc_event_list *l;
	struct pmc_counters *c;
	struct pmc_reading r[3], p;
	uint64_t l1d = PERF_COUNT_HW_CACHE_L1D | PERF_COUNT_HW_CACHE_OP_READ << 8 |
		       PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16;

	(void)state;
	cfg.no_extended_type = true;
	machine(&cfg);
	l = events("cycles,L1-dcache-loads,r00c0");
	c = open_ok(l);
	assert_int_equal(opened_as(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES), 1);
	assert_int_equal(opened_as(PERF_TYPE_HW_CACHE, l1d), 1);
	assert_int_equal(opened_as(PERF_TYPE_HW_CACHE, ext(1, l1d)), 0);
	assert_int_equal(opened_as(PERF_TYPE_RAW, 0xc0), 1);
	assert_int_equal(opened_as(10, 0xc0), 0);
	fake_pmu_tick_on(&fake, 0, 6);
	fake_pmu_tick_on(&fake, 2, 4);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_reading(&r[0], PMC_STATUS_COUNTED,
		       6 * fake_pmu_core_rate(&fake, 0, PERF_COUNT_HW_CPU_CYCLES), 10 * Q, 6 * Q);
	assert_true(pmc_counters_restricted(c, 0));
	p = part(c, 0, 0, "cpu_core");
	assert_int_equal(p.running, 6 * Q);
	assert_true(pmc_counters_restricted(c, 1));
	assert_true(pmc_counters_restricted(c, 2));
	assert_reading(&r[2], PMC_STATUS_COUNTED, 6 * fake_pmu_core_rate(&fake, 0, 0xc0), 10 * Q,
		       6 * Q);
	pmc_counters_close(c);
	pmc_event_list_free(l);
	teardown(NULL);

	/* M1 on such a kernel: nobody can say which cluster the legacy event went to. */
	cfg = m1;
	cfg.no_extended_type = true;
	machine(&cfg);
	l = events("cycles");
	c = open_ok(l);
	fake_pmu_tick_on(&fake, 4, 2);
	fake_pmu_tick_on(&fake, 0, 2);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_reading(&r[0], PMC_STATUS_COUNTED,
		       2 * fake_pmu_core_rate(&fake, 0, PERF_COUNT_HW_CPU_CYCLES), 4 * Q, 2 * Q);
	assert_string_equal(pmc_counters_part_pmu(c, 0, 0), "");
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* The emulated kernel is as strict as the real one: no group across core PMUs, no
 * extended type on an older kernel, no event bound to another type's CPU. */
static void test_fake_kernel_strict(void **state)
{
	struct fake_pmu_config cfg = adl;
	struct perf_event_attr a = {
	    .size = sizeof(a), .type = PERF_TYPE_HARDWARE, .exclude_kernel = 1};
	int lead, fd;

	(void)state;
	fake_pmu_init(&fake, &adl);
	a.config = ext(0, 0);
	lead = fake.sys.event_open(fake.sys.ctx, &a, 0, -1, -1, 0);
	assert_true(lead >= 0);
	a.config = ext(1, 1);
	assert_int_equal(fake.sys.event_open(fake.sys.ctx, &a, 0, -1, lead, 0), -EINVAL);
	a.config = 1 | (uint64_t)77 << PERF_PMU_TYPE_SHIFT;
	assert_int_equal(fake.sys.event_open(fake.sys.ctx, &a, 0, -1, -1, 0), -ENOENT);
	a.config = ext(1, 0);
	assert_int_equal(fake.sys.event_open(fake.sys.ctx, &a, 0, 0, -1, 0), -ENOENT);
	fd = fake.sys.event_open(fake.sys.ctx, &a, 0, 2, -1, 0);
	assert_true(fd >= 0);
	cfg.no_extended_type = true;
	fake_pmu_init(&fake, &cfg);
	a.config = ext(1, 0);
	assert_int_equal(fake.sys.event_open(fake.sys.ctx, &a, 0, -1, -1, 0), -EINVAL);
}

static volatile struct perf_event_mmap_page *page_of(int fd)
{
	void *pg = NULL;

	assert_int_equal(fake.sys.mmap(fake.sys.ctx, fd, (size_t)sysconf(_SC_PAGESIZE), &pg), 0);
	assert_non_null(pg);
	return pg;
}

/* The emulated kernel's pages on a hybrid CPU are the real one's: every event of a core
 * PMU (a generic event with cpu_atom's extended type, cpu_atom's own type) gets a counter
 * and an index while the task is on a CPU of that PMU (Intel's fixed counter for
 * instructions, the extended type stripped); a move to a P-core takes it off at once, its
 * page written with index 0 as x86_pmu_del() does, and rdpmc there reads cpu_core's
 * counters, not the E-core's. */
static void test_fake_pages_per_core_type(void **state)
{
	struct fake_pmu_config cfg = adl;
	struct perf_event_attr a = {
	    .size = sizeof(a), .type = PERF_TYPE_HARDWARE, .exclude_kernel = 1};
	volatile struct perf_event_mmap_page *insn, *raw;
	int fi, fr;

	(void)state;
	cfg.fixed_counters = true;
	cfg.rdpmc = 1;
	fake_pmu_init(&fake, &cfg);
	fake_pmu_run_on(&fake, 2);
	a.config = ext(1, PERF_COUNT_HW_INSTRUCTIONS);
	fi = fake.sys.event_open(fake.sys.ctx, &a, 0, -1, -1, 0);
	a.type = 10;
	a.config = 0xc0;
	fr = fake.sys.event_open(fake.sys.ctx, &a, 0, -1, -1, 0);
	assert_true(fi >= 0 && fr >= 0);
	insn = page_of(fi);
	raw = page_of(fr);
	fake_pmu_tick(&fake, 2);
	assert_int_equal(insn->index, (UINT32_C(1) << 30 | 0) + 1);
	assert_int_equal(raw->index, 1);
	assert_int_equal(pmc_selfread_extend((uint64_t)insn->offset,
					     fake.sys.rdpmc(fake.sys.ctx, insn->index - 1),
					     insn->pmc_width),
			 2 * fake_pmu_core_rate(&fake, 1, PERF_COUNT_HW_INSTRUCTIONS));
	fake_pmu_run_on(&fake, 0);
	assert_int_equal(insn->index, 0);
	assert_int_equal(raw->index, 0);
	(void)fake.sys.rdpmc(fake.sys.ctx, 0);
	assert_int_equal(fake.rdpmc_stale, 1);
	fake_pmu_tick_on(&fake, 3, 1);
	assert_int_equal(raw->index, 1);
	assert_int_equal(fake.rdpmc_faults, 0);
	fake.sys.munmap(fake.sys.ctx, (void *)insn, (size_t)sysconf(_SC_PAGESIZE));
	fake.sys.munmap(fake.sys.ctx, (void *)raw, (size_t)sysconf(_SC_PAGESIZE));
}

/* A hybrid list is read through its pages (docs/events.md, "Reading the counters"): the
 * groups of the core type the task runs on with rdpmc, the other type's (index 0) with
 * read(), and the read counts say so; the sums are those of read() alone. */
static void test_self_read_per_core_type(void **state)
{
	struct fake_pmu_config cfg = adl;
	struct pmc_event_list *l;
	struct pmc_counters *c;
	struct pmc_reading r[2];
	uint64_t self, sys, cyc, insn;

	(void)state;
	cfg.fixed_counters = true;
	cfg.rdpmc = 1;
	machine(&cfg);
	l = events("{cycles,instructions}");
	c = open_ok(l);
	assert_int_equal(pmc_counters_self_read(c), 2);
	fake_pmu_tick_on(&fake, 0, 3);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	pmc_counters_read_counts(c, &self, &sys);
	assert_int_equal(self, 1);
	assert_int_equal(sys, 1);
	cyc = 3 * fake_pmu_core_rate(&fake, 0, PERF_COUNT_HW_CPU_CYCLES);
	insn = 3 * fake_pmu_core_rate(&fake, 0, PERF_COUNT_HW_INSTRUCTIONS);
	assert_reading(&r[0], PMC_STATUS_COUNTED, cyc, 3 * Q, 3 * Q);
	assert_reading(&r[1], PMC_STATUS_COUNTED, insn, 3 * Q, 3 * Q);
	/* Read on an E-core right after the move, then after it ran there. */
	fake_pmu_run_on(&fake, 2);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	assert_reading(&r[0], PMC_STATUS_COUNTED, cyc, 3 * Q, 3 * Q);
	fake_pmu_tick(&fake, 2);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	pmc_counters_read_counts(c, &self, &sys);
	assert_int_equal(self, 3);
	assert_int_equal(sys, 3);
	cyc += 2 * fake_pmu_core_rate(&fake, 1, PERF_COUNT_HW_CPU_CYCLES);
	insn += 2 * fake_pmu_core_rate(&fake, 1, PERF_COUNT_HW_INSTRUCTIONS);
	assert_reading(&r[0], PMC_STATUS_COUNTED, cyc, 5 * Q, 5 * Q);
	assert_reading(&r[1], PMC_STATUS_COUNTED, insn, 5 * Q, 5 * Q);
	assert_true(fake.rdpmcs > 0);
	assert_int_equal(fake.rdpmc_stale, 0);
	assert_int_equal(fake.rdpmc_faults, 0);
	pmc_counters_close(c);
	assert_int_equal(fake.munmaps, fake.mmaps);
	pmc_event_list_free(l);
}

/* One core PMU ("cpu", no cpus file) or none: the list is opened as it is, nothing split,
 * the same readings as without a sysfs tree. */
static void test_one_core_pmu_unchanged(void **state)
{
	static const struct fake_pmu_config one = {.counters = 2, .paranoid = 2};
	struct pmc_event_list *l;
	struct pmc_counters *c;
	struct pmc_reading a[4], b[4];

	(void)state;
	machine(&one);
	l = events("{cycles,instructions},branches,task-clock");
	c = open_ok(l);
	fake_pmu_tick(&fake, 5);
	assert_int_equal(pmc_counters_read(c, a, sizeof(*a)), 0);
	assert_int_equal(pmc_counters_nparts(c, 0), 0);
	/* Each event tried counting the kernel first (paranoid 2), and nothing else: no probe. */
	assert_int_equal(fake.nlog, 8);
	pmc_counters_close(c);
	fake_pmu_init(&fake, &one);
	c = open_ok(l);
	fake_pmu_tick(&fake, 5);
	assert_int_equal(pmc_counters_read(c, b, sizeof(*b)), 0);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(a[i].status, b[i].status);
		assert_int_equal(a[i].value, b[i].value);
		assert_int_equal(a[i].enabled, b[i].enabled);
		assert_int_equal(a[i].running, b[i].running);
		assert_true(a[i].scaled == b[i].scaled);
	}
	assert_int_equal(a[0].status, PMC_STATUS_SCALED);
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* A list of software events on a hybrid CPU: nothing to split, so no probe either. */
static void test_software_only_no_probe(void **state)
{
	struct pmc_event_list *l;
	struct pmc_counters *c;

	(void)state;
	machine(&adl);
	l = events("task-clock,page-faults");
	c = open_ok(l);
	for (size_t i = 0; i < fake.nlog; i++)
		assert_int_equal(fake.log[i].attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(pmc_counters_nparts(c, 0), 0);
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

/* The rule alone: parts enabled and read one after the other differ by that much in
 * their enabled times, which is not multiplexing; a real shortfall is; a refused part
 * leaves a sum of the others that is not extrapolated. */
static void test_combine_rule(void **state)
{
	struct pmc_reading p[2], s;

	(void)state;
	p[0] = (struct pmc_reading){
	    .status = PMC_STATUS_SCALED, .value = 600, .enabled = 1000, .running = 600};
	p[1] = (struct pmc_reading){
	    .status = PMC_STATUS_SCALED, .value = 200, .enabled = 1003, .running = 401};
	pmc_reading_combine(p, 2, false, &s);
	assert_reading(&s, PMC_STATUS_COUNTED, 800, 1000, 1000);
	assert_true(s.scaled == 800);
	p[1].running = 300;
	pmc_reading_combine(p, 2, false, &s);
	assert_reading(&s, PMC_STATUS_SCALED, 800, 1000, 900);
	assert_true(fabs(s.scaled - 800 * 1000.0 / 900) < 1e-9);
	assert_true(fabs(p[1].scaled - 200 * 1000.0 / 900) < 1e-9);
	p[1] = (struct pmc_reading){.status = PMC_STATUS_UNSUPPORTED, .error = ENOENT};
	pmc_reading_combine(p, 2, false, &s);
	assert_reading(&s, PMC_STATUS_COUNTED, 600, 1000, 600);
	p[0] = p[1];
	pmc_reading_combine(p, 2, false, &s);
	assert_int_equal(s.status, PMC_STATUS_UNSUPPORTED);
	assert_int_equal(s.error, ENOENT);
	assert_true(isnan(s.scaled));
}

/* A hybrid CPU with a RAPL-like PMU: the list's per-task events are opened by the
 * system-wide engine as an engine of their own, itself split over the core PMUs, and the
 * parts are asked for by the caller's index, which the system-wide event shifts. */
static void test_parts_beside_system_wide(void **state)
{
	struct fake_pmu_config cfg = adl;
	struct pmc_event_list *l;
	struct pmc_counters *c;
	struct pmc_reading r[3], p;
	uint64_t core_cycles, atom_cycles, self, sys;

	(void)state;
	cfg.privileged = true; /* CPU-wide events under paranoid 2 */
	cfg.power_type = 21;
	machine(&cfg);
	l = events("power/energy-pkg/,cycles,task-clock");
	c = open_ok(l);
	assert_int_equal(pmc_counters_opened(c), 3);
	fake_pmu_tick_on(&fake, 0, 6);
	fake_pmu_tick_on(&fake, 2, 4);
	assert_int_equal(pmc_counters_read(c, r, sizeof(*r)), 0);
	core_cycles = 6 * fake_pmu_core_rate(&fake, 0, PERF_COUNT_HW_CPU_CYCLES);
	atom_cycles = 4 * fake_pmu_core_rate(&fake, 1, PERF_COUNT_HW_CPU_CYCLES);
	assert_int_equal(r[0].status, PMC_STATUS_COUNTED);
	assert_reading(&r[1], PMC_STATUS_COUNTED, core_cycles + atom_cycles, 10 * Q, 10 * Q);
	/* The system-wide event has no parts, and no part 0 to read. */
	assert_int_equal(pmc_counters_nparts(c, 0), 0);
	assert_false(pmc_counters_restricted(c, 0));
	assert_null(pmc_counters_part_pmu(c, 0, 0));
	assert_int_equal(pmc_counters_part_reading(c, 0, 0, &p), -EINVAL);
	/* cycles, event 1 of the caller's list, is event 0 of the per-task one. */
	assert_int_equal(pmc_counters_nparts(c, 1), 2);
	assert_false(pmc_counters_restricted(c, 1));
	p = part(c, 1, 0, "cpu_core");
	assert_reading(&p, PMC_STATUS_COUNTED, core_cycles, 10 * Q, 6 * Q);
	p = part(c, 1, 1, "cpu_atom");
	assert_reading(&p, PMC_STATUS_COUNTED, atom_cycles, 10 * Q, 4 * Q);
	assert_null(pmc_counters_part_pmu(c, 1, 2));
	assert_int_equal(pmc_counters_part_reading(c, 1, 2, &p), -EINVAL);
	assert_int_equal(pmc_counters_nparts(c, 2), 0);
	assert_int_equal(pmc_counters_nparts(c, 3), 0);
	/* Every read() counted: the two core PMUs' groups, task-clock's and the CPU's. */
	pmc_counters_read_counts(c, &self, &sys);
	assert_int_equal(self, 0);
	assert_int_equal(sys, 4);
	pmc_counters_close(c);
	pmc_event_list_free(l);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_split_sum_counted, teardown),
	    cmocka_unit_test_teardown(test_groups_per_pmu, teardown),
	    cmocka_unit_test_teardown(test_multiplexing_still_scaled, teardown),
	    cmocka_unit_test_teardown(test_one_pmu_not_extrapolated, teardown),
	    cmocka_unit_test_teardown(test_raw_opened_once, teardown),
	    cmocka_unit_test_teardown(test_m1, teardown),
	    cmocka_unit_test_teardown(test_m1_needs_exclude_guest, teardown),
	    cmocka_unit_test_teardown(test_no_extended_type, teardown),
	    cmocka_unit_test(test_fake_kernel_strict),
	    cmocka_unit_test(test_fake_pages_per_core_type),
	    cmocka_unit_test_teardown(test_self_read_per_core_type, teardown),
	    cmocka_unit_test_teardown(test_one_core_pmu_unchanged, teardown),
	    cmocka_unit_test_teardown(test_software_only_no_probe, teardown),
	    cmocka_unit_test(test_combine_rule),
	    cmocka_unit_test_teardown(test_parts_beside_system_wide, teardown),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

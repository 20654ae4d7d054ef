/* The sampler's DWARF call graphs (counters/perf/sample.h, stack_user) against the
 * emulated PMU's rings (tests/fake_pmu.h): the attributes perf record --call-graph dwarf
 * opens, and hand-made PERF_RECORD_SAMPLEs carrying user registers and a stack copy as
 * perf_event_open(2) lays them out: a copy shorter than the size set aside (dyn_size <
 * size), a whole one, a kernel thread's (no registers, a stack of size 0), and malformed
 * ones. */
#include <asm/perf_regs.h>
#include <errno.h>
#include <linux/perf_event.h>
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

#include "counters/perf/sample.h"
#include "tests/fake_pmu.h"

/* perf's x86-64 unwinding registers: every general register up to r15 but ds, es, fs, gs. */
#define PERF_X86_64_REGS 0xff0fffULL
#define NREGS 20

static struct fake_pmu fake;
static char err[512];
static struct pmc_record recs[8];
static size_t nrecs;

static int collect(const struct pmc_record *rec, void *ud)
{
	(void)ud;
	if (nrecs < sizeof(recs) / sizeof(recs[0]))
		recs[nrecs++] = *rec;
	return 0;
}

static void replay(struct pmc_sampler *s)
{
	nrecs = 0;
	assert_int_equal(pmc_sampler_replay(s, collect, NULL), 0);
}

static struct pmc_sample_opts dwarf_opts(uint32_t stack)
{
	/* A period: the machine's perf_event_max_sample_rate never reaches the test. */
	return (struct pmc_sample_opts){.sz = sizeof(struct pmc_sample_opts),
					.event = "cpu-clock",
					.period = 100000,
					.pages = 4,
					.stack_user = stack,
					.sys = &fake.sys};
}

static struct pmc_sampler *open_fake(const struct fake_pmu_config *cfg,
				     const struct pmc_sample_opts *o)
{
	struct pmc_sampler *s = NULL;

	fake_pmu_init(&fake, cfg);
	err[0] = '\0';
	assert_int_equal(pmc_sampler_open(o, 42, &s, err, sizeof(err)), 0);
	return s;
}

static void close_fake(struct pmc_sampler *s)
{
	pmc_sampler_close(s);
	assert_int_equal(fake.nopen, 0);
	assert_int_equal(fake.munmaps, fake.mmaps);
}

/* A sample record built word by word. */
struct rec {
	uint64_t w[512];
	size_t n; /* words after the header */
};

static void put(struct rec *r, uint64_t v)
{
	assert_true(r->n < sizeof(r->w) / 8 - 1);
	r->w[1 + r->n++] = v;
}

/* ip, {pid, tid}, time, {cpu, res}, period, then a call chain of nchain words. */
static void begin(struct rec *r, uint64_t ip, uint64_t time, const uint64_t *chain, size_t nchain)
{
	r->n = 0;
	put(r, ip);
	put(r, 42 | (uint64_t)43 << 32);
	put(r, time);
	put(r, 0);
	put(r, 250000);
	put(r, nchain);
	for (size_t i = 0; i < nchain; i++)
		put(r, chain[i]);
}

/* abi, then NREGS registers: register k (its bit's rank) holds 0x1000 + k. */
static void put_regs(struct rec *r, uint64_t abi)
{
	put(r, abi);
	if (abi == PERF_SAMPLE_REGS_ABI_NONE)
		return;
	for (unsigned k = 0; k < NREGS; k++)
		put(r, 0x1000 + k);
}

/* size, data[size] (byte i is i & 0xff), dyn_size; size 0: nothing else. */
static void put_stack(struct rec *r, uint64_t size, uint64_t dyn)
{
	put(r, size);
	if (!size)
		return;
	for (uint64_t i = 0; i < size; i += 8) {
		uint64_t v = 0;

		for (unsigned b = 0; b < 8; b++)
			v |= (uint64_t)((i + b) & 0xff) << (8 * b);
		put(r, v);
	}
	put(r, dyn);
}

static int emit(struct rec *r, uint16_t misc)
{
	struct perf_event_header h = {
	    .type = PERF_RECORD_SAMPLE, .misc = misc, .size = (uint16_t)(8 + 8 * r->n)};

	memcpy(&r->w[0], &h, sizeof(h));
	return fake_pmu_emit(&fake, 0, r->w, 8 + 8 * r->n);
}

static void test_attributes(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .online = "0-1"};
	struct pmc_sample_opts o = dwarf_opts(PMC_SAMPLE_STACK_DEFAULT);
	struct pmc_sampler *s;

	(void)state;
	s = open_fake(&cfg, &o);
	for (size_t i = 0; i < 2; i++) {
		const struct perf_event_attr *a = &fake.log[i].attr;

		assert_int_equal(a->sample_type,
				 PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				     PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |
				     PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
		assert_int_equal(a->sample_regs_user, PERF_X86_64_REGS);
		assert_int_equal(a->sample_stack_user, 8192);
		/* The kernel walks its own frames only: the user part is the unwinder's. */
		assert_true(a->exclude_callchain_user);
		assert_false(a->exclude_callchain_kernel);
	}
	assert_int_equal(pmc_sampler_regs_mask(s), PERF_X86_64_REGS);
	/* ip, sp and bp are among them. */
	assert_true(PERF_X86_64_REGS & (1ULL << PERF_REG_X86_IP));
	assert_true(PERF_X86_64_REGS & (1ULL << PERF_REG_X86_SP));
	assert_true(PERF_X86_64_REGS & (1ULL << PERF_REG_X86_BP));
	close_fake(s);

	/* Without stack_user: none of it. */
	o = dwarf_opts(0);
	s = open_fake(&cfg, &o);
	assert_int_equal(
	    fake.log[0].attr.sample_type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER), 0);
	assert_int_equal(fake.log[0].attr.sample_regs_user, 0);
	assert_false(fake.log[0].attr.exclude_callchain_user);
	assert_int_equal(pmc_sampler_regs_mask(s), 0);
	close_fake(s);
}

static void test_bad_sizes_and_refusal(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .online = "0"};
	struct pmc_sample_opts o;
	struct pmc_sampler *s = NULL;
	const uint32_t bad[] = {12, PMC_SAMPLE_STACK_MAX + 8, 65536};

	(void)state;
	fake_pmu_init(&fake, &cfg);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		o = dwarf_opts(bad[i]);
		assert_int_equal(pmc_sampler_open(&o, 42, &s, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "multiple of 8"));
	}
	o = dwarf_opts(PMC_SAMPLE_STACK_MAX);
	s = open_fake(&cfg, &o);
	assert_int_equal(fake.log[0].attr.sample_stack_user, 65528);
	close_fake(s);
	o = dwarf_opts(8192);
	o.no_callchain = true;
	assert_int_equal(pmc_sampler_open(&o, 42, &s, err, sizeof(err)), -EINVAL);
	/* A kernel that cannot copy user stacks: said plainly, no fallback. */
	cfg.no_stack_user = true;
	fake_pmu_init(&fake, &cfg);
	o = dwarf_opts(8192);
	assert_int_equal(pmc_sampler_open(&o, 42, &s, err, sizeof(err)), -ENOSYS);
	assert_non_null(strstr(err, "PERF_SAMPLE_STACK_USER"));
	assert_non_null(strstr(err, "--call-graph fp"));
	assert_int_equal(fake.nopen, 0);
}

/* A sample in the kernel with its kernel chain, registers and a stack copy the kernel
 * could fill only in part: 24 of 64 bytes (the stack ended). */
static void test_short_copy(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .online = "0"};
	struct pmc_sample_opts o = dwarf_opts(64);
	const uint64_t chain[] = {PERF_CONTEXT_KERNEL, 0xffffffff81000010, 0xffffffff81000020};
	struct pmc_sampler *s;
	static struct rec r;

	(void)state;
	s = open_fake(&cfg, &o);
	begin(&r, 0xffffffff81000010, 1000, chain, 3);
	put_regs(&r, PERF_SAMPLE_REGS_ABI_64);
	put_stack(&r, 64, 24);
	assert_int_equal(emit(&r, PERF_RECORD_MISC_KERNEL), 0);
	assert_int_equal(pmc_sampler_poll(s, 0), 1);
	for (int pass = 0; pass < 2; pass++) {
		/* A second replay reads the record as the first did (it shrank once). */
		replay(s);
		assert_int_equal(nrecs, 1);
		assert_int_equal(recs[0].sample.nips, 2);
		assert_int_equal(recs[0].sample.nkernel, 2);
		assert_int_equal(recs[0].sample.ips[1], 0xffffffff81000020);
		assert_int_equal(recs[0].sample.regs_abi, PERF_SAMPLE_REGS_ABI_64);
		assert_int_equal(recs[0].sample.regs_mask, PERF_X86_64_REGS);
		assert_int_equal(recs[0].sample.nregs, NREGS);
		assert_non_null(recs[0].sample.regs);
		/* In the order of the mask's bits: ip (bit 8) is the 9th, r8 (bit 16) the
		 * 13th (ds, es, fs and gs are not there). */
		assert_int_equal(recs[0].sample.regs[PERF_REG_X86_IP], 0x1000 + 8);
		assert_int_equal(recs[0].sample.regs[12], 0x1000 + 12);
		assert_int_equal(recs[0].sample.regs[NREGS - 1], 0x1000 + NREGS - 1);
		assert_int_equal(recs[0].sample.stack_size, 64);
		assert_int_equal(recs[0].sample.stack_dyn_size, 24);
		assert_non_null(recs[0].sample.stack);
		for (unsigned i = 0; i < 24; i++)
			assert_int_equal(recs[0].sample.stack[i], i);
	}
	assert_int_equal(pmc_sampler_samples(s), 1);
	close_fake(s);
}

/* A copy as long as was set aside, a copy of 0 bytes, and a kernel thread's sample:
 * abi NONE with no registers, a stack of size 0 with no data and no dyn_size. */
static void test_whole_and_empty_copies(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .online = "0"};
	struct pmc_sample_opts o = dwarf_opts(32);
	const uint64_t chain[] = {PERF_CONTEXT_KERNEL, 0xffffffff81000030};
	struct pmc_sampler *s;
	static struct rec r;

	(void)state;
	s = open_fake(&cfg, &o);
	begin(&r, 0x401000, 1000, NULL, 0);
	put_regs(&r, PERF_SAMPLE_REGS_ABI_64);
	put_stack(&r, 32, 32);
	assert_int_equal(emit(&r, PERF_RECORD_MISC_USER), 0);
	begin(&r, 0x401000, 2000, NULL, 0);
	put_regs(&r, PERF_SAMPLE_REGS_ABI_64);
	put_stack(&r, 32, 0);
	assert_int_equal(emit(&r, PERF_RECORD_MISC_USER), 0);
	begin(&r, 0xffffffff81000030, 3000, chain, 2);
	put_regs(&r, PERF_SAMPLE_REGS_ABI_NONE);
	put_stack(&r, 0, 0);
	assert_int_equal(emit(&r, PERF_RECORD_MISC_KERNEL), 0);
	/* And a record after them, read where they end. */
	assert_int_equal(
	    fake_pmu_comm(&fake, 0, &(struct fake_pmu_id){42, 42, 4000}, "after", false), 0);
	assert_int_equal(pmc_sampler_poll(s, 0), 4);
	replay(s);
	assert_int_equal(nrecs, 4);
	assert_int_equal(recs[0].sample.stack_size, 32);
	assert_int_equal(recs[0].sample.stack_dyn_size, 32);
	assert_int_equal(recs[0].sample.stack[31], 31);
	assert_int_equal(recs[0].sample.nips, 0);
	assert_int_equal(recs[1].sample.stack_size, 32);
	assert_int_equal(recs[1].sample.stack_dyn_size, 0);
	assert_null(recs[1].sample.stack);
	assert_int_equal(recs[1].sample.nregs, NREGS);
	assert_int_equal(recs[2].sample.regs_abi, PERF_SAMPLE_REGS_ABI_NONE);
	assert_null(recs[2].sample.regs);
	assert_int_equal(recs[2].sample.nregs, 0);
	assert_null(recs[2].sample.stack);
	assert_int_equal(recs[2].sample.stack_size, 0);
	assert_int_equal(recs[2].sample.stack_dyn_size, 0);
	assert_int_equal(recs[2].sample.nips, 1);
	assert_int_equal(recs[3].type, PMC_RECORD_COMM);
	assert_string_equal(recs[3].comm.comm, "after");
	close_fake(s);
}

/* Each malformed sample stops its ring's reading (-EIO), never read out of bounds. */
static void test_malformed(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .online = "0"};
	struct pmc_sample_opts o = dwarf_opts(64);
	struct pmc_sampler *s;
	static struct rec r;

	(void)state;
	for (int kind = 0; kind < 5; kind++) {
		s = open_fake(&cfg, &o);
		begin(&r, 0x401000, 1000, NULL, 0);
		if (kind == 0) {
			/* dyn_size beyond size */
			put_regs(&r, PERF_SAMPLE_REGS_ABI_64);
			put_stack(&r, 16, 24);
		} else if (kind == 1) {
			/* an abi the kernel has no number for */
			put_regs(&r, 7);
			put_stack(&r, 0, 0);
		} else if (kind == 2) {
			/* a size that is no multiple of 8 */
			put_regs(&r, PERF_SAMPLE_REGS_ABI_64);
			put(&r, 12);
			put(&r, 0);
			put(&r, 0);
		} else if (kind == 3) {
			/* a stack claiming more than the record holds */
			put_regs(&r, PERF_SAMPLE_REGS_ABI_64);
			put(&r, 4096);
			put(&r, 0);
		} else {
			/* registers cut short */
			put(&r, PERF_SAMPLE_REGS_ABI_64);
			put(&r, 1);
		}
		assert_int_equal(emit(&r, PERF_RECORD_MISC_USER), 0);
		assert_int_equal(pmc_sampler_poll(s, 0), -EIO);
		replay(s);
		assert_int_equal(nrecs, 0);
		close_fake(s);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_attributes), cmocka_unit_test(test_bad_sizes_and_refusal),
	    cmocka_unit_test(test_short_copy), cmocka_unit_test(test_whole_and_empty_copies),
	    cmocka_unit_test(test_malformed),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

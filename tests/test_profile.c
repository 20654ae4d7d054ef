/* The profile model and its file (harness/4-profile/profile.h): frames and stacks are
 * interned, self and total count a recursive function once per stack, shares, the diff
 * and the attribution match functions by display name (across objects in different
 * directories), unresolved addresses are one "[unknown] OBJECT" function in the views
 * while the file keeps their offsets, a save and load gives the same profile, and each
 * damaged file is refused with -EINVAL and a message naming the field and the fix. */
#include <errno.h>
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

#include "profile/profile.h"
#include "tests/helpers.h"

static struct pmc_profile *new_profile(enum pmc_profile_kind kind)
{
	struct pmc_profile_info in = {.kind = kind,
				      .event = kind == PMC_PROFILE_EXACT ? "Ir" : "cpu-clock",
				      .unit = kind == PMC_PROFILE_EXACT ? "instructions" : "ns",
				      .name = "bench/parse",
				      .freq = kind == PMC_PROFILE_EXACT ? 0 : 4000};
	struct pmc_profile *p = NULL;

	assert_int_equal(pmc_profile_new(&in, &p), 0);
	return p;
}

static uint32_t fid(struct pmc_profile *p, const char *sym, const char *obj, uint64_t off)
{
	uint32_t id = UINT32_MAX;

	assert_int_equal(pmc_profile_frame_id(p, sym, obj, off, &id), 0);
	return id;
}

/* Adds a stack given by symbol names of object obj, root first. */
static void add_syms(struct pmc_profile *p, const char *obj, uint64_t w, int depth, ...)
{
	uint32_t ids[16];
	va_list ap;

	va_start(ap, depth);
	for (int i = 0; i < depth; i++)
		ids[i] = fid(p, va_arg(ap, const char *), obj, 0);
	va_end(ap);
	assert_int_equal(pmc_profile_add(p, ids, (uint32_t)depth, w, 1, false), 0);
}

static const struct pmc_profile_fn *find_fn(const struct pmc_profile_fn *f, size_t n,
					    const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(f[i].name, name) == 0)
			return &f[i];
	return NULL;
}

static const struct pmc_profile_delta *find_delta(const struct pmc_profile_delta *d, size_t n,
						  const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(d[i].name, name) == 0)
			return &d[i];
	return NULL;
}

static void interning(void **state)
{
	struct pmc_profile *p = new_profile(PMC_PROFILE_SAMPLED);
	uint32_t a = fid(p, "main", "/bin/x", 0), b = fid(p, "main", "/bin/x", 99);
	uint32_t u1 = fid(p, NULL, "/bin/x", 0x10), u2 = fid(p, NULL, "/bin/x", 0x10);
	uint32_t u3 = fid(p, NULL, "/bin/x", 0x20), c = fid(p, "main", "/lib/y.so", 0);
	uint32_t st[2] = {a, u1}, bad[1] = {99}, id;

	(void)state;
	assert_int_equal(a, b); /* the offset is ignored with a symbol */
	assert_int_equal(u1, u2);
	assert_int_not_equal(u1, u3);
	assert_int_not_equal(a, c);
	assert_int_equal(pmc_profile_frame_count(p), 4);
	assert_int_equal(pmc_profile_frame(p, u3)->offset, 0x20);
	assert_null(pmc_profile_frame(p, u3)->symbol);
	assert_int_equal(pmc_profile_frame_id(p, "f", NULL, 0, &id), -EINVAL);
	/* An offset no JSON reader reads back never enters a profile, so every profile can
	 * be saved; with a symbol the offset is not kept. */
	assert_int_equal(pmc_profile_frame_id(p, NULL, "/bin/x", PMC_PROFILE_OFFSET_MAX + 1, &id),
			 -ERANGE);
	assert_int_equal(pmc_profile_frame_id(p, NULL, "/bin/x", PMC_PROFILE_OFFSET_MAX, &id), 0);
	assert_int_equal(pmc_profile_frame_id(p, "main", "/bin/x", UINT64_MAX, &id), 0);
	assert_int_equal(id, a);
	assert_int_equal(pmc_profile_frame_count(p), 5);

	assert_int_equal(pmc_profile_add(p, st, 2, 10, 1, false), 0);
	assert_int_equal(pmc_profile_add(p, st, 2, 5, 2, true), 0);
	assert_int_equal(pmc_profile_add(p, st, 1, 7, 1, false), 0);
	assert_int_equal(pmc_profile_stack_count(p), 2);
	assert_int_equal(pmc_profile_stack(p, 0)->weight, 15);
	assert_int_equal(pmc_profile_stack(p, 0)->samples, 3);
	assert_true(pmc_profile_stack(p, 0)->truncated);
	assert_int_equal(pmc_profile_total(p), 22);
	/* The stack became cut on its second addition: all of its weight is cut weight. */
	assert_int_equal(pmc_profile_truncated(p), 15);
	assert_int_equal(pmc_profile_add(p, bad, 1, 1, 1, false), -EINVAL);
	assert_int_equal(pmc_profile_add(p, st, 0, 1, 1, false), -EINVAL);
	assert_int_equal(pmc_profile_total(p), 22);
	/* A total that would wrap is refused, and nothing is added. */
	assert_int_equal(pmc_profile_add(p, st, 2, UINT64_MAX - 10, 1, false), -EOVERFLOW);
	assert_int_equal(pmc_profile_total(p), 22);
	assert_int_equal(pmc_profile_stack(p, 0)->weight, 15);
	pmc_profile_free(p);
	pmc_profile_free(NULL);
}

/* Many frames and stacks: ids stay right across the growth of every table. */
static void many(void **state)
{
	struct pmc_profile *p = new_profile(PMC_PROFILE_SAMPLED);
	enum { N = 20000 };

	(void)state;
	for (uint32_t i = 0; i < N; i++) {
		char name[32];
		uint32_t ids[3];

		snprintf(name, sizeof(name), "f%u", i);
		ids[0] = fid(p, "main", "/bin/x", 0);
		ids[1] = fid(p, name, "/bin/x", 0);
		ids[2] = fid(p, NULL, "/bin/x", i);
		assert_int_equal(pmc_profile_add(p, ids, 3, i, 1, false), 0);
		assert_int_equal(pmc_profile_add(p, ids, 2, 1, 1, false), 0);
	}
	assert_int_equal(pmc_profile_frame_count(p), 1 + 2 * N);
	assert_int_equal(pmc_profile_stack_count(p), 2 * N);
	for (uint32_t i = 0; i < N; i += 997) {
		const struct pmc_profile_stack *s = pmc_profile_stack(p, 2 * i);
		char buf[64];

		assert_int_equal(s->weight, i);
		assert_string_equal(pmc_profile_frame(p, s->frames[0])->symbol, "main");
		snprintf(buf, sizeof(buf), "f%u", i);
		assert_string_equal(pmc_profile_frame(p, s->frames[1])->symbol, buf);
		assert_int_equal(pmc_profile_frame(p, s->frames[2])->offset, i);
	}
	pmc_profile_free(p);
}

static void names(void **state)
{
	struct pmc_profile *p = new_profile(PMC_PROFILE_SAMPLED);
	char buf[64];

	(void)state;
	assert_string_equal(pmc_profile_frame_name(p, fid(p, "parse", "/a/x", 0), buf, 64),
			    "parse");
	assert_string_equal(
	    pmc_profile_frame_name(p, fid(p, NULL, "/usr/lib/libc.so.6", 5), buf, 64),
	    "libc.so.6+0x5");
	assert_string_equal(pmc_profile_frame_name(p, fid(p, NULL, "[vdso]", 5), buf, 64),
			    "[vdso]");
	pmc_profile_free(p);
}

/* main -> f -> f -> g (recursion), main -> f, main -> h: f's total counts the recursive
 * stack once. */
static void self_total_recursion(void **state)
{
	struct pmc_profile *p = new_profile(PMC_PROFILE_SAMPLED);
	struct pmc_profile_fn *f;
	size_t n;

	(void)state;
	add_syms(p, "/bin/x", 50, 4, "main", "f", "f", "g");
	add_syms(p, "/bin/x", 30, 2, "main", "f");
	add_syms(p, "/bin/x", 20, 3, "main", "f", "f");
	add_syms(p, "/bin/x", 20, 2, "main", "h");
	assert_int_equal(pmc_profile_functions(p, &f, &n), 0);
	assert_int_equal(n, 4);
	/* Sorted by self (g 50, f 50: then total, f 100 > g 50), then name. */
	assert_string_equal(f[0].name, "f");
	assert_int_equal(f[0].self, 50);
	assert_int_equal(f[0].total, 100);
	assert_string_equal(f[1].name, "g");
	assert_int_equal(f[1].self, 50);
	assert_int_equal(f[1].total, 50);
	assert_string_equal(f[2].name, "h");
	assert_int_equal(find_fn(f, n, "h")->total, 20);
	assert_string_equal(f[3].name, "main");
	assert_int_equal(f[3].self, 0);
	assert_int_equal(f[3].total, 120);
	assert_string_equal(f[3].object, "/bin/x");
	pmc_profile_functions_free(f, n);
	pmc_profile_free(p);
}

/* Each unresolved address is a function of its own in the views, as perf shows them;
 * the same address twice is one. */
static void unknown_address_per_row(void **state)
{
	struct pmc_profile *p = new_profile(PMC_PROFILE_SAMPLED);
	uint32_t s1[2] = {fid(p, "main", "/bin/x", 0), fid(p, NULL, "/lib/libc.so.6", 0x100)};
	uint32_t s2[2] = {s1[0], fid(p, NULL, "/lib/libc.so.6", 0x200)};
	uint32_t s3[2] = {s1[0], fid(p, NULL, "/lib/libm.so.6", 0x200)};
	uint32_t s4[2] = {s1[0], fid(p, NULL, "/lib/libc.so.6", 0x100)};
	struct pmc_profile_fn *f;
	size_t n;

	(void)state;
	assert_int_equal(pmc_profile_add(p, s1, 2, 3, 1, false), 0);
	assert_int_equal(pmc_profile_add(p, s2, 2, 4, 1, false), 0);
	assert_int_equal(pmc_profile_add(p, s3, 2, 1, 1, false), 0);
	assert_int_equal(pmc_profile_add(p, s4, 2, 2, 1, false), 0);
	assert_int_equal(pmc_profile_stack_count(p), 3);
	assert_int_equal(pmc_profile_functions(p, &f, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(f[0].name, "libc.so.6+0x100");
	assert_int_equal(f[0].self, 5);
	assert_string_equal(f[0].object, "/lib/libc.so.6");
	assert_string_equal(f[1].name, "libc.so.6+0x200");
	assert_int_equal(f[1].self, 4);
	assert_string_equal(f[2].name, "libm.so.6+0x200");
	assert_int_equal(f[2].self, 1);
	pmc_profile_functions_free(f, n);
	pmc_profile_free(p);
}

static struct pmc_profile *profile_of(enum pmc_profile_kind kind, const char *event);

/* Old: a 50, b 30, c 20. New (built elsewhere: other object paths): a 20, b 30, d 50;
 * new_event: the new profile's (another event than cpu-clock: the diff compares shares). */
static void make_pair(struct pmc_profile **o, struct pmc_profile **n, const char *new_event)
{
	*o = new_profile(PMC_PROFILE_SAMPLED);
	*n = strcmp(new_event, "cpu-clock") == 0 ? new_profile(PMC_PROFILE_SAMPLED)
						 : profile_of(PMC_PROFILE_SAMPLED, new_event);
	add_syms(*o, "/home/ci/old/bin", 50, 2, "main", "a");
	add_syms(*o, "/home/ci/old/bin", 30, 2, "main", "b");
	add_syms(*o, "/home/ci/old/bin", 20, 2, "main", "c");
	add_syms(*n, "/tmp/new/bin", 40, 2, "main", "a");
	add_syms(*n, "/tmp/new/bin", 60, 2, "main", "b");
	add_syms(*n, "/tmp/new/bin", 100, 2, "main", "d");
}

static void diff_sorted_matched(void **state)
{
	struct pmc_profile *o, *n;
	struct pmc_profile_delta *d;
	size_t nd;

	(void)state;
	/* Two events: shares of each profile's total. */
	make_pair(&o, &n, "task-clock");
	assert_int_equal(pmc_profile_diff_mode(o, n), PMC_PROFILE_DIFF_SHARES);
	assert_int_equal(pmc_profile_diff(o, n, &d, &nd), 0);
	/* a: 0.5 -> 0.2 (-0.3), b: 0.3 -> 0.3 (0), c: 0.2 -> 0 (-0.2), d: 0 -> 0.5 (+0.5),
	 * main absent on both as self: 0. */
	assert_int_equal(nd, 5);
	assert_string_equal(d[0].name, "d");
	assert_close(d[0].delta, 0.5, 1e-12);
	assert_close(d[0].old_share, 0, 1e-12);
	assert_int_equal(d[0].old_self, 0);
	assert_string_equal(d[1].name, "a");
	assert_close(d[1].delta, -0.3, 1e-12);
	assert_int_equal(d[1].old_self, 50);
	assert_int_equal(d[1].new_self, 40);
	assert_string_equal(d[2].name, "c");
	assert_close(d[2].new_share, 0, 1e-12);
	assert_close(d[2].delta, -0.2, 1e-12);
	/* Ties on |delta| (0): by name. */
	assert_string_equal(d[3].name, "b");
	assert_string_equal(d[4].name, "main");
	pmc_profile_deltas_free(d, nd);

	/* An empty profile's functions all weigh 0: each of the other's is gone (a share of
	 * 0 against its own), and the diff of two empty ones is empty. */
	{
		struct pmc_profile *e = new_profile(PMC_PROFILE_SAMPLED);

		assert_int_equal(pmc_profile_diff(o, e, &d, &nd), 0);
		assert_true(nd > 0);
		for (size_t i = 0; i < nd; i++) {
			assert_true(d[i].new_self == 0);
			assert_close(d[i].new_share, 0, 0);
			assert_close(d[i].delta, -d[i].old_share, 1e-12);
		}
		pmc_profile_deltas_free(d, nd);
		assert_int_equal(pmc_profile_diff(e, e, &d, &nd), 0);
		assert_int_equal(nd, 0);
		pmc_profile_deltas_free(d, nd);
		pmc_profile_free(e);
	}
	pmc_profile_free(o);
	pmc_profile_free(n);
}

static void attribution(void **state)
{
	struct pmc_profile *o, *n;
	struct pmc_profile_delta *d;
	double sum = 0;
	size_t nd;

	(void)state;
	make_pair(&o, &n, "cpu-clock");
	/* Metric 1000 -> 1200: a 500 -> 240 (-260), b 300 -> 360 (+60), c 200 -> 0 (-200),
	 * d 0 -> 600 (+600); parts over +200: d 3, b 0.3, a -1.3, c -1. */
	assert_int_equal(pmc_profile_attribute(o, n, 1000, 1200, &d, &nd), 0);
	assert_int_equal(nd, 5);
	assert_string_equal(d[0].name, "d");
	assert_close(d[0].delta, 3.0, 1e-12);
	assert_string_equal(d[1].name, "b");
	assert_close(d[1].delta, 0.3, 1e-12);
	assert_string_equal(d[2].name, "main");
	assert_string_equal(d[3].name, "c");
	assert_close(d[3].delta, -1.0, 1e-12);
	assert_string_equal(d[4].name, "a");
	assert_close(d[4].delta, -1.3, 1e-12);
	for (size_t i = 0; i < nd; i++)
		sum += d[i].delta;
	assert_close(sum, 1.0, 1e-12);
	pmc_profile_deltas_free(d, nd);
	assert_int_equal(pmc_profile_attribute(o, n, 5, 5, &d, &nd), -EDOM);
	pmc_profile_free(o);
	pmc_profile_free(n);
}

/* Every function on both sides: the parts add up to 1. */
static void attribution_sums_to_one(void **state)
{
	struct pmc_profile *o = new_profile(PMC_PROFILE_EXACT), *n = new_profile(PMC_PROFILE_EXACT);
	struct pmc_profile_delta *d;
	double sum = 0;
	size_t nd;

	(void)state;
	add_syms(o, "/x", 700, 2, "main", "parse_header");
	add_syms(o, "/x", 300, 2, "main", "memcpy");
	add_syms(n, "/y", 990, 2, "main", "parse_header");
	add_syms(n, "/y", 310, 2, "main", "memcpy");
	assert_int_equal(pmc_profile_attribute(o, n, 1000, 1300, &d, &nd), 0);
	for (size_t i = 0; i < nd; i++)
		sum += d[i].delta;
	assert_close(sum, 1.0, 1e-12);
	assert_string_equal(d[0].name, "parse_header");
	assert_close(d[0].delta, 290.0 / 300.0, 1e-12);
	assert_close(find_delta(d, nd, "memcpy")->delta, 10.0 / 300.0, 1e-12);
	pmc_profile_deltas_free(d, nd);
	pmc_profile_free(o);
	pmc_profile_free(n);
}

/* A stack of k samples of 250 us each (cpu-clock at 4000 Hz), root first. */
static void add_samples(struct pmc_profile *p, uint64_t k, int depth, ...)
{
	uint32_t ids[16];
	va_list ap;

	va_start(ap, depth);
	for (int i = 0; i < depth; i++)
		ids[i] = fid(p, va_arg(ap, const char *), "/bin/x", 0);
	va_end(ap);
	assert_int_equal(pmc_profile_add(p, ids, (uint32_t)depth, k * 250000, k, false), 0);
}

/* The report --diff: prof_cold's instructions doubled, prof_hot's did not
 * change; by share, prof_hot "shrank" by 11.9 points and led the list with prof_cold.
 * Exact counts of one event rank by the change of the count: prof_hot has none. */
static void diff_of_exact_counts_ranks_by_change(void **state)
{
	struct pmc_profile *o = new_profile(PMC_PROFILE_EXACT), *n = new_profile(PMC_PROFILE_EXACT);
	struct pmc_profile *s = new_profile(PMC_PROFILE_SAMPLED);
	struct pmc_profile_delta *d;
	size_t nd;

	(void)state;
	add_syms(o, "/x", 1600, 2, "main", "prof_hot");
	add_syms(o, "/x", 400, 2, "main", "prof_cold");
	add_syms(o, "/x", 50, 2, "main", "printf");
	add_syms(n, "/x", 1600, 2, "main", "prof_hot");
	add_syms(n, "/x", 800, 2, "main", "prof_cold");
	add_syms(n, "/x", 40, 2, "main", "printf");
	assert_true((pmc_profile_diff_mode(o, n) != PMC_PROFILE_DIFF_SHARES));
	assert_int_equal(pmc_profile_diff(o, n, &d, &nd), 0);
	assert_int_equal(nd, 4);
	assert_string_equal(d[0].name, "prof_cold");
	assert_string_equal(d[1].name, "printf");
	/* Unchanged, by name: main (no self weight) and prof_hot. */
	assert_string_equal(d[2].name, "main");
	assert_string_equal(d[3].name, "prof_hot");
	assert_int_equal(d[3].old_self, d[3].new_self);
	pmc_profile_deltas_free(d, nd);

	/* A sampled side, or another event: shares, which are comparable across runs of
	 * different lengths. */
	add_syms(s, "/x", 1600, 2, "main", "prof_hot");
	add_syms(s, "/x", 800, 2, "main", "prof_cold");
	assert_false((pmc_profile_diff_mode(o, s) != PMC_PROFILE_DIFF_SHARES));
	assert_false((pmc_profile_diff_mode(s, n) != PMC_PROFILE_DIFF_SHARES));
	assert_int_equal(pmc_profile_diff(o, s, &d, &nd), 0);
	assert_string_equal(d[0].name, "prof_cold"); /* 0.195 -> 0.333 */
	assert_string_equal(d[1].name, "prof_hot");  /* 0.780 -> 0.667 */
	pmc_profile_deltas_free(d, nd);
	pmc_profile_free(s);
	{
		struct pmc_profile_info in = {
		    .kind = PMC_PROFILE_EXACT, .event = "Dr", .unit = "events"};

		assert_int_equal(pmc_profile_new(&in, &s), 0);
		assert_false((pmc_profile_diff_mode(o, s) != PMC_PROFILE_DIFF_SHARES));
		pmc_profile_free(s);
	}
	pmc_profile_free(o);
	pmc_profile_free(n);
}

/* The diff of two time profiles: hot_b did 3x the work, hot_a the same (400 and
 * 402 samples of 250 us). By share, hot_a "fell" 22.6 points and led the list; by time,
 * hot_b grew by 200 ms beyond sampling error and leads, and hot_a is unchanged (its
 * 0.5 ms within sampling error). */
static void diff_of_sampled_time_ranks_by_change(void **state)
{
	struct pmc_profile *o = new_profile(PMC_PROFILE_SAMPLED),
			   *n = new_profile(PMC_PROFILE_SAMPLED);
	struct pmc_profile *c = profile_of(PMC_PROFILE_SAMPLED, "cycles");
	struct pmc_profile_delta *d;
	size_t nd;

	(void)state;
	add_samples(o, 400, 2, "main", "hot_a");
	add_samples(o, 400, 2, "main", "hot_b");
	add_samples(n, 402, 2, "main", "hot_a");
	add_samples(n, 1200, 2, "main", "hot_b");
	assert_int_equal(pmc_profile_diff_mode(o, n), PMC_PROFILE_DIFF_AMOUNTS);
	assert_true((pmc_profile_diff_mode(o, n) != PMC_PROFILE_DIFF_SHARES));
	assert_close(pmc_profile_per_sample(o), 250000, 1e-12);
	assert_int_equal(pmc_profile_diff(o, n, &d, &nd), 0);
	assert_string_equal(d[0].name, "hot_b");
	assert_true(d[0].clear);
	assert_close(d[0].change, 800 * 250000.0, 1e-12);
	assert_true(d[0].lo > 0 && d[0].lo < d[0].change && d[0].hi > d[0].change);
	assert_string_equal(d[1].name, "hot_a");
	assert_false(d[1].clear);
	assert_close(d[1].change, 2 * 250000.0, 1e-12);
	assert_true(d[1].lo < 0 && d[1].hi > 0);
	assert_true(d[1].delta < -0.2); /* its share fell: no change of its time */
	pmc_profile_deltas_free(d, nd);
	/* The gate's attribution of the time's change (200 ms -> 400 ms) names hot_b, all
	 * of it, and not hot_a. */
	assert_int_equal(pmc_profile_attribute(o, n, 200e6, 400e6, &d, &nd), 0);
	assert_string_equal(d[0].name, "hot_b");
	assert_true(d[0].clear);
	assert_close(d[0].delta, 1.0, 0.01);
	assert_false(find_delta(d, nd, "hot_a")->clear);
	pmc_profile_deltas_free(d, nd);

	/* Another event on one side: shares. */
	add_samples(c, 400, 2, "main", "hot_a");
	assert_int_equal(pmc_profile_diff_mode(o, c), PMC_PROFILE_DIFF_SHARES);
	pmc_profile_free(c);
	/* Numbers of samples of folded stacks, at rates not known: shares. */
	{
		struct pmc_profile_info in = {
		    .kind = PMC_PROFILE_SAMPLED, .event = "samples", .unit = "samples"};
		struct pmc_profile *f0, *f1;

		assert_int_equal(pmc_profile_new(&in, &f0), 0);
		assert_int_equal(pmc_profile_new(&in, &f1), 0);
		add_samples(f0, 4, 2, "main", "hot_a");
		add_samples(f1, 4, 2, "main", "hot_a");
		assert_int_equal(pmc_profile_diff_mode(f0, f1), PMC_PROFILE_DIFF_SHARES);
		pmc_profile_free(f0);
		pmc_profile_free(f1);
	}
	pmc_profile_free(o);
	pmc_profile_free(n);
}

static struct pmc_profile *profile_of(enum pmc_profile_kind kind, const char *event)
{
	struct pmc_profile_info in = {.kind = kind, .event = event, .unit = "ns"};
	struct pmc_profile *p = NULL;

	assert_int_equal(pmc_profile_new(&in, &p), 0);
	return p;
}

/* A metric divides only by a profile of that metric: time by a time profile, counted
 * instructions by callgrind's; max-rss and page faults by none of them. */
static void fits_metric(void **state)
{
	static const struct {
		enum pmc_profile_kind kind;
		const char *event, *metric;
		enum pmc_profile_fit fit;
	} cases[] = {
	    {PMC_PROFILE_SAMPLED, "cpu-clock", "task-clock", PMC_PROFILE_FIT_SAMPLED},
	    {PMC_PROFILE_SAMPLED, "cpu-clock:u", "task-clock", PMC_PROFILE_FIT_SAMPLED},
	    {PMC_PROFILE_SAMPLED, "cpu-clock", "wall-time", PMC_PROFILE_FIT_SAMPLED},
	    {PMC_PROFILE_SAMPLED, "cpu-clock", "user-time", PMC_PROFILE_FIT_SAMPLED},
	    {PMC_PROFILE_SAMPLED, "cpu-clock", "cpu-clock", PMC_PROFILE_FIT_SAMPLED},
	    {PMC_PROFILE_SAMPLED, "cycles", "cycles:u", PMC_PROFILE_FIT_SAMPLED},
	    {PMC_PROFILE_SAMPLED, "task-clock", "wall-time/op", PMC_PROFILE_FIT_SAMPLED},
	    {PMC_PROFILE_SAMPLED, "cpu-clock", "cycles/op", PMC_PROFILE_FIT_SAMPLED},
	    {PMC_PROFILE_SAMPLED, "cpu-clock", "max-rss", PMC_PROFILE_FIT_NONE},
	    {PMC_PROFILE_SAMPLED, "cpu-clock", "page-faults", PMC_PROFILE_FIT_NONE},
	    {PMC_PROFILE_SAMPLED, "cpu-clock", "instructions", PMC_PROFILE_FIT_NONE},
	    {PMC_PROFILE_SAMPLED, "cpu-clock", "system-time", PMC_PROFILE_FIT_NONE},
	    {PMC_PROFILE_SAMPLED, "cpu-clock", "ipc", PMC_PROFILE_FIT_NONE},
	    {PMC_PROFILE_SAMPLED, "page-faults", "page-faults", PMC_PROFILE_FIT_SAMPLED},
	    {PMC_PROFILE_SAMPLED, "instructions:u", "instructions", PMC_PROFILE_FIT_SAMPLED},
	    {PMC_PROFILE_EXACT, "Ir", "instructions", PMC_PROFILE_FIT_EXACT},
	    {PMC_PROFILE_EXACT, "Ir", "instructions/op", PMC_PROFILE_FIT_EXACT},
	    {PMC_PROFILE_EXACT, "Ir", "task-clock", PMC_PROFILE_FIT_NONE},
	    {PMC_PROFILE_EXACT, "Ir", "cycles", PMC_PROFILE_FIT_NONE},
	    {PMC_PROFILE_EXACT, "Dr", "instructions", PMC_PROFILE_FIT_NONE},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct pmc_profile *p = profile_of(cases[i].kind, cases[i].event);
		enum pmc_profile_fit got = pmc_profile_fits_metric(p, cases[i].metric);

		if (got != cases[i].fit)
			print_error("%s profile of %s, metric %s: fit %d, expected %d\n",
				    cases[i].kind == PMC_PROFILE_EXACT ? "exact" : "sampled",
				    cases[i].event, cases[i].metric, (int)got, (int)cases[i].fit);
		assert_int_equal(got, cases[i].fit);
		pmc_profile_free(p);
	}
	assert_int_equal(pmc_profile_fits_metric(NULL, "task-clock"), PMC_PROFILE_FIT_NONE);
}

/* Sampled parts carry an interval from the 95% Wilson intervals of the two shares, and
 * only a part with enough samples and an interval clear of 0 is a finding. Old: hot 800
 * and cold 200 of 1000 samples; new: hot 800, cold 400, one 1 of 1201; the metric
 * 1000 -> 1200. */
static void sampled_attribution_has_intervals(void **state)
{
	struct pmc_profile *o = new_profile(PMC_PROFILE_SAMPLED),
			   *n = new_profile(PMC_PROFILE_SAMPLED);
	const struct pmc_profile_delta *cold, *hot, *one;
	struct pmc_profile_delta *d;
	double sum = 0;
	size_t nd;

	(void)state;
	add_samples(o, 800, 2, "main", "hot");
	add_samples(o, 200, 2, "main", "cold");
	add_samples(n, 800, 2, "main", "hot");
	add_samples(n, 400, 2, "main", "cold");
	add_samples(n, 1, 2, "main", "one");
	assert_int_equal(pmc_profile_samples(n), 1201);
	assert_int_equal(pmc_profile_attribute(o, n, 1000, 1200, &d, &nd), 0);
	cold = find_delta(d, nd, "cold");
	hot = find_delta(d, nd, "hot");
	one = find_delta(d, nd, "one");
	for (size_t i = 0; i < nd; i++)
		sum += d[i].delta;
	assert_close(sum, 1.0, 1e-12);
	assert_int_equal(cold->old_samples, 200);
	assert_int_equal(cold->new_samples, 400);
	/* Wilson's 95% intervals (z = 1.959964, computed independently): 200/1000
	 * [0.176377, 0.225919]; 400/1201 and 800/1201 about [0.307, 0.360] and [0.640,
	 * 0.693]. The part's bounds are at the shares' opposite bounds. */
	{
		const double z = 1.959963984540054;
		double lo_n = 0, hi_n = 0;
		double p = 400.0 / 1201, nn = 1201;
		double c = (p + z * z / (2 * nn)) / (1 + z * z / nn);
		double h = z / (1 + z * z / nn) * sqrt(p * (1 - p) / nn + z * z / (4 * nn * nn));

		lo_n = c - h;
		hi_n = c + h;
		assert_close(cold->lo, (lo_n * 1200 - 0.2259189646481347 * 1000) / 200, 1e-9);
		assert_close(cold->hi, (hi_n * 1200 - 0.1763770904431985 * 1000) / 200, 1e-9);
	}
	assert_true(cold->lo > 0.5 && cold->hi < 1.5);
	assert_true(cold->clear);
	/* hot's time did not change: its part's interval holds 0. */
	assert_true(hot->lo < 0 && hot->hi > 0);
	assert_false(hot->clear);
	/* One sample is no cause, whatever its interval. */
	assert_false(one->clear);
	pmc_profile_deltas_free(d, nd);

	/* Five samples whose interval alone would name them (none of 100,000 before, five
	 * of 1000 after): still fewer than PMC_PROFILE_ATTRIBUTE_MIN_SAMPLES. */
	pmc_profile_free(o);
	pmc_profile_free(n);
	o = new_profile(PMC_PROFILE_SAMPLED);
	n = new_profile(PMC_PROFILE_SAMPLED);
	add_samples(o, 100000, 1, "main");
	add_samples(n, 995, 1, "main");
	add_samples(n, 5, 1, "x");
	assert_int_equal(pmc_profile_attribute(o, n, 1000, 1200, &d, &nd), 0);
	one = find_delta(d, nd, "x");
	assert_true(one->lo > 0);
	assert_false(one->clear);
	pmc_profile_deltas_free(d, nd);

	/* Exact profiles: the part is its own interval, and a finding. */
	pmc_profile_free(o);
	pmc_profile_free(n);
	o = new_profile(PMC_PROFILE_EXACT);
	n = new_profile(PMC_PROFILE_EXACT);
	add_syms(o, "/x", 100, 1, "f");
	add_syms(n, "/x", 101, 1, "f");
	assert_int_equal(pmc_profile_attribute(o, n, 100, 101, &d, &nd), 0);
	assert_close(d[0].delta, 1.0, 1e-12);
	assert_true(d[0].lo == d[0].delta && d[0].hi == d[0].delta && d[0].clear);
	pmc_profile_deltas_free(d, nd);
	pmc_profile_free(o);
	pmc_profile_free(n);
}

/* ---- The file ------------------------------------------------------------------ */

static char dir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/pmc-test-profile-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void same_profile(const struct pmc_profile *a, const struct pmc_profile *b)
{
	const struct pmc_profile_info *x = pmc_profile_info(a), *y = pmc_profile_info(b);

	assert_int_equal(x->kind, y->kind);
	assert_string_equal(x->event, y->event);
	assert_string_equal(x->unit, y->unit);
	if (x->name || y->name)
		assert_string_equal(x->name, y->name);
	assert_int_equal(x->freq, y->freq);
	assert_int_equal(x->samples, y->samples);
	assert_int_equal(x->lost, y->lost);
	assert_int_equal(x->throttled, y->throttled);
	assert_int_equal(x->partial, y->partial);
	assert_int_equal(x->unresolved, y->unresolved);
	assert_int_equal(x->timeline.span_ns, y->timeline.span_ns);
	assert_memory_equal(x->timeline.samples, y->timeline.samples, sizeof(x->timeline.samples));
	assert_memory_equal(x->timeline.lost, y->timeline.lost, sizeof(x->timeline.lost));
	assert_int_equal(pmc_profile_total(a), pmc_profile_total(b));
	assert_int_equal(pmc_profile_frame_count(a), pmc_profile_frame_count(b));
	for (uint32_t i = 0; i < pmc_profile_frame_count(a); i++) {
		const struct pmc_profile_frame *f = pmc_profile_frame(a, i),
					       *g = pmc_profile_frame(b, i);

		if (f->symbol || g->symbol)
			assert_string_equal(f->symbol, g->symbol);
		assert_string_equal(f->object, g->object);
		assert_int_equal(f->offset, g->offset);
	}
	assert_int_equal(pmc_profile_stack_count(a), pmc_profile_stack_count(b));
	for (size_t i = 0; i < pmc_profile_stack_count(a); i++) {
		const struct pmc_profile_stack *s = pmc_profile_stack(a, i),
					       *t = pmc_profile_stack(b, i);

		assert_int_equal(s->depth, t->depth);
		assert_memory_equal(s->frames, t->frames, s->depth * sizeof(*s->frames));
		assert_int_equal(s->weight, t->weight);
		assert_int_equal(s->samples, t->samples);
		assert_int_equal(s->truncated, t->truncated);
	}
}

static void round_trip(void **state)
{
	struct pmc_profile *p = new_profile(PMC_PROFILE_SAMPLED), *q = NULL;
	uint32_t s[3];
	char path[128], err[256] = "";

	(void)state;
	s[0] = fid(p, "main", "/bin/x y", 0);
	s[1] = fid(p, "quote\"back\\slash\ttab", "/bin/x y", 0);
	s[2] = fid(p, NULL, "/usr/lib/libc.so.6", 0x7fffffffffffull);
	assert_int_equal(pmc_profile_add(p, s, 3, 12345678901ull, 3, true), 0);
	assert_int_equal(pmc_profile_add(p, s, 2, 0, 1, false), 0);
	assert_int_equal(pmc_profile_add(p, s + 2, 1, 7, 1, false), 0);
	pmc_profile_set_counts(p, 5, 2, 4);
	pmc_profile_set_throttled(p, 3);
	snprintf(path, sizeof(path), "%s/p.json", dir);
	assert_int_equal(pmc_profile_save(p, path, err, sizeof(err)), 0);
	assert_int_equal(pmc_profile_load(path, &q, err, sizeof(err)), 0);
	same_profile(p, q);
	assert_false(pmc_profile_info(q)->partial);
	pmc_profile_free(q);
	/* A recording stopped before its end stays marked so. */
	pmc_profile_set_partial(p, true);
	assert_int_equal(pmc_profile_save(p, path, err, sizeof(err)), 0);
	assert_int_equal(pmc_profile_load(path, &q, err, sizeof(err)), 0);
	same_profile(p, q);
	assert_true(pmc_profile_info(q)->partial);
	pmc_profile_free(q);
	pmc_profile_set_partial(p, false);
	/* When the samples were taken and lost, per tenth of the recording, stays too. */
	{
		struct pmc_profile_timeline t = {
		    .span_ns = 2000000000, .samples = {0, 1, 1, 0, 0, 0, 0, 0, 1, 2}, .lost = {2}};

		pmc_profile_set_timeline(p, &t);
		assert_int_equal(pmc_profile_save(p, path, err, sizeof(err)), 0);
		assert_int_equal(pmc_profile_load(path, &q, err, sizeof(err)), 0);
		same_profile(p, q);
		assert_int_equal(pmc_profile_info(q)->timeline.lost[0], 2);
		pmc_profile_free(q);
	}

	/* A directory that does not exist: -errno and a message naming the file. */
	snprintf(path, sizeof(path), "%s/no/such/dir/p.json", dir);
	assert_true(pmc_profile_save(p, path, err, sizeof(err)) < 0);
	assert_contains(err, path);
	/* A count beyond what JSON readers read back is not written. */
	pmc_profile_set_counts(p, (uint64_t)INT64_MAX + 1, 0, 0);
	snprintf(path, sizeof(path), "%s/big.json", dir);
	assert_int_equal(pmc_profile_save(p, path, err, sizeof(err)), -EOVERFLOW);
	assert_contains(err, "2^63-1");
	assert_int_equal(access(path, F_OK), -1);
	pmc_profile_free(p);
	snprintf(path, sizeof(path), "%s/p.json", dir);

	/* Exact, no name, no frames at all. */
	{
		struct pmc_profile_info in = {
		    .kind = PMC_PROFILE_EXACT, .event = "Ir", .unit = "instructions"};

		assert_int_equal(pmc_profile_new(&in, &p), 0);
	}
	assert_int_equal(pmc_profile_save(p, path, err, sizeof(err)), 0);
	assert_int_equal(pmc_profile_load(path, &q, err, sizeof(err)), 0);
	same_profile(p, q);
	assert_null(pmc_profile_info(q)->name);
	pmc_profile_free(q);
	pmc_profile_free(p);
}

/* The file text: the fields and their shape are those docs/profile.md documents. */
static void file_text(void **state)
{
	struct pmc_profile *p = new_profile(PMC_PROFILE_EXACT);
	char path[128], err[256] = "", text[1024] = "";
	uint32_t s[2];
	FILE *f;
	size_t n;

	(void)state;
	s[0] = fid(p, "main", "/bin/x", 0);
	s[1] = fid(p, NULL, "/bin/x", 16);
	assert_int_equal(pmc_profile_add(p, s, 2, 9, 0, false), 0);
	pmc_profile_set_counts(p, 0, 0, 1);
	snprintf(path, sizeof(path), "%s/e.json", dir);
	assert_int_equal(pmc_profile_save(p, path, err, sizeof(err)), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = 0;
	fclose(f);
	assert_string_equal(text, "{\n"
				  "  \"schema\": \"pmcbench-profile/1\",\n"
				  "  \"kind\": \"exact\",\n"
				  "  \"event\": \"Ir\",\n"
				  "  \"unit\": \"instructions\",\n"
				  "  \"name\": \"bench/parse\",\n"
				  "  \"unresolved\": 1,\n"
				  "  \"total\": 9,\n"
				  "  \"frames\": [\n"
				  "    {\"symbol\": \"main\", \"object\": \"/bin/x\"},\n"
				  "    {\"object\": \"/bin/x\", \"offset\": 16}\n"
				  "  ],\n"
				  "  \"stacks\": [\n"
				  "    {\"frames\": [0,1], \"weight\": 9}\n"
				  "  ]\n"
				  "}\n");
	pmc_profile_free(p);
}

/* Writes text to dir/bad.json and loads it: -EINVAL with want in the message. */
static void refused(const char *text, const char *want)
{
	struct pmc_profile *q = NULL;
	char path[128], err[512] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/bad.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(pmc_profile_load(path, &q, err, sizeof(err)), -EINVAL);
	assert_null(q);
	assert_contains(err, path);
	assert_contains(err, want);
	assert_null(strchr(err, '\n'));
}

#define HEAD                                                                                       \
	"{\"schema\": \"pmcbench-profile/1\", \"kind\": \"sampled\", \"event\": \"cpu-clock\", "   \
	"\"unit\": \"ns\", \"freq\": 99, \"samples\": 3, \"lost\": 0, \"unresolved\": 0, "
#define FRAMES                                                                                     \
	"\"frames\": [{\"symbol\": \"main\", \"object\": \"/x\"}, {\"object\": \"/x\", "           \
	"\"offset\": 4}], "

static void malformed(void **state)
{
	struct pmc_profile *q = NULL;
	char path[128], err[512] = "";

	(void)state;
	/* The well-formed base of the cases below loads. */
	snprintf(path, sizeof(path), "%s/good.json", dir);
	{
		FILE *f = fopen(path, "w");

		fputs(HEAD FRAMES "\"total\": 5, \"stacks\": [{\"frames\": [0, 1], \"weight\": "
				  "5, \"samples\": 3}, {\"frames\": [0], \"weight\": 0, "
				  "\"samples\": 0}]}",
		      f);
		fclose(f);
	}
	assert_int_equal(pmc_profile_load(path, &q, err, sizeof(err)), 0);
	assert_int_equal(pmc_profile_stack_count(q), 2);
	pmc_profile_free(q);

	refused("{\"schema\": \"pmcbench-profile/2\"}", "reads pmcbench-profile/1");
	refused("{\"schema\": \"pmcbench-result/1\"}", "is not a profile");
	refused("{\"kind\": \"sampled\"}", "schema: missing");
	refused("[1, 2]", "expected a JSON object");
	refused(HEAD FRAMES "\"total\": 5, \"stacks\": [{\"frames\": [0, 1], \"wei",
		"cut short or not JSON");
	refused("", "cut short or not JSON");
	refused(HEAD FRAMES "\"total\": 5, \"stacks\": [{\"frames\": [0, 2], \"weight\": 5, "
			    "\"samples\": 3}]}",
		"stacks[0].frames[1]: frame id 2 is out of range");
	refused(HEAD FRAMES "\"total\": 5, \"stacks\": [{\"frames\": [0, -1], \"weight\": 5, "
			    "\"samples\": 3}]}",
		"stacks[0].frames[1]: expected a non-negative integer, got -1");
	refused(HEAD FRAMES "\"total\": 5, \"stacks\": [{\"frames\": [0, 1], \"weight\": -5, "
			    "\"samples\": 3}]}",
		"stacks[0].weight: expected a non-negative integer, got -5");
	refused(HEAD FRAMES "\"total\": 5, \"stacks\": [{\"frames\": [0, 1], \"weight\": 2.5, "
			    "\"samples\": 3}]}",
		"stacks[0].weight: expected a non-negative integer, got 2.5");
	refused(HEAD FRAMES "\"total\": 5, \"stacks\": [{\"frames\": [0, 1], \"weight\": \"5\", "
			    "\"samples\": 3}]}",
		"stacks[0].weight: expected a non-negative integer, got a string");
	refused(HEAD FRAMES "\"total\": 5, \"stacks\": [{\"frames\": [], \"weight\": 5, "
			    "\"samples\": 3}]}",
		"stacks[0].frames: expected a non-empty array");
	refused(HEAD "\"frames\": [{\"symbol\": \"main\"}], \"total\": 0, \"stacks\": []}",
		"frames[0].object: missing");
	refused(HEAD FRAMES "\"total\": 5, \"stacks\": [{\"frames\": [0, 1], \"weight\": 5}]}",
		"stacks[0].samples: missing");
	refused("{\"schema\": \"pmcbench-profile/1\", \"kind\": \"sampled\", \"event\": "
		"\"cpu-clock\", \"unit\": \"ns\", \"freq\": 99, \"samples\": 3, \"unresolved\": 0, "
		"\"total\": 0, \"frames\": [], \"stacks\": []}",
		"lost: missing");
	refused(HEAD FRAMES "\"total\": 5, \"stacks\": [{\"frames\": [0, 1], \"weight\": 4, "
			    "\"samples\": 3}]}",
		"total: 5, but the stacks' weights add up to 4");
	refused(HEAD "\"partial\": 1, " FRAMES "\"total\": 0, \"stacks\": []}",
		"partial: expected true or false, got a number");
	/* A timeline adds up to the profile's samples and lost ones, in ten tenths. */
	refused(HEAD "\"timeline\": {\"span_ns\": 9, \"samples\": [3, 0, 0, 0, 0, 0, 0, 0, 0, 0], "
		     "\"lost\": [0, 0, 0, 0, 0, 0, 0, 0, 0, 1]}, " FRAMES
		     "\"total\": 0, \"stacks\": []}",
		"timeline.lost[9]: adds up to more than the profile's 0");
	refused(HEAD "\"timeline\": {\"span_ns\": 9, \"samples\": [2, 0, 0, 0, 0, 0, 0, 0, 0, 0], "
		     "\"lost\": [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]}, " FRAMES
		     "\"total\": 0, \"stacks\": []}",
		"timeline.samples: adds up to 2, not the profile's 3");
	refused(HEAD "\"timeline\": {\"span_ns\": 9, \"samples\": [3], \"lost\": []}, " FRAMES
		     "\"total\": 0, \"stacks\": []}",
		"timeline.samples: expected an array of 10 counts");
	refused(HEAD "\"timeline\": {\"span_ns\": 0, \"samples\": [3, 0, 0, 0, 0, 0, 0, 0, 0, 0], "
		     "\"lost\": [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]}, " FRAMES
		     "\"total\": 0, \"stacks\": []}",
		"timeline.span_ns: 0 is no recording's span");
	/* A control character of the file is escaped in the message. */
	refused("{\"schema\": \"evil\\u001b[31m\"}", "\"evil\\x1b[31m\" is not a profile");

	/* A file that cannot be read is -errno. */
	snprintf(path, sizeof(path), "%s/none.json", dir);
	assert_int_equal(pmc_profile_load(path, &q, err, sizeof(err)), -ENOENT);
	assert_contains(err, "none.json");
}

/* A name that is not UTF-8 cannot be JSON text: its bytes are written as \xNN. */
static void non_utf8(void **state)
{
	struct pmc_profile *p = new_profile(PMC_PROFILE_SAMPLED), *q = NULL;
	char path[128], err[256] = "";
	uint32_t s[1];

	(void)state;
	s[0] = fid(p, "bad\xff", "/x", 0);
	assert_int_equal(pmc_profile_add(p, s, 1, 1, 1, false), 0);
	snprintf(path, sizeof(path), "%s/u.json", dir);
	assert_int_equal(pmc_profile_save(p, path, err, sizeof(err)), 0);
	assert_int_equal(pmc_profile_load(path, &q, err, sizeof(err)), 0);
	assert_string_equal(pmc_profile_frame(q, 0)->symbol, "bad\\xff");
	pmc_profile_free(q);
	pmc_profile_free(p);
}

/* Names are written through the one JSON writer (json_out.h): a control character, DEL
 * or a C1 control (U+009B is CSI) is an escape in the file, never a raw byte a terminal
 * would obey, and reads back as it was. */
static void controls_escaped(void **state)
{
	struct pmc_profile *p = new_profile(PMC_PROFILE_SAMPLED), *q = NULL;
	char path[128], err[256] = "", text[4096];
	uint32_t s[1];
	size_t n;
	FILE *f;

	(void)state;
	s[0] = fid(p, "esc\x1b[31m del\x7f csi\xc2\x9b", "/x", 0);
	assert_int_equal(pmc_profile_add(p, s, 1, 1, 1, false), 0);
	snprintf(path, sizeof(path), "%s/c.json", dir);
	assert_int_equal(pmc_profile_save(p, path, err, sizeof(err)), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	assert_non_null(strstr(text, "\"symbol\": \"esc\\u001B[31m del\\u007F csi\\u009B\""));
	assert_null(strchr(text, 0x1b));
	assert_null(strchr(text, 0x7f));
	assert_null(strstr(text, "\xc2\x9b"));
	assert_int_equal(pmc_profile_load(path, &q, err, sizeof(err)), 0);
	assert_string_equal(pmc_profile_frame(q, 0)->symbol, "esc\x1b[31m del\x7f csi\xc2\x9b");
	pmc_profile_free(q);
	pmc_profile_free(p);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(interning),
	    cmocka_unit_test(many),
	    cmocka_unit_test(names),
	    cmocka_unit_test(self_total_recursion),
	    cmocka_unit_test(unknown_address_per_row),
	    cmocka_unit_test(diff_sorted_matched),
	    cmocka_unit_test(attribution),
	    cmocka_unit_test(attribution_sums_to_one),
	    cmocka_unit_test(diff_of_exact_counts_ranks_by_change),
	    cmocka_unit_test(diff_of_sampled_time_ranks_by_change),
	    cmocka_unit_test(fits_metric),
	    cmocka_unit_test(sampled_attribution_has_intervals),
	    cmocka_unit_test(round_trip),
	    cmocka_unit_test(file_text),
	    cmocka_unit_test(malformed),
	    cmocka_unit_test(non_utf8),
	    cmocka_unit_test(controls_escaped),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, setup, teardown);
}

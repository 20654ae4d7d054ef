/* Options structs as the API grows (docs/api.md, "Growth rules"; include/pmcbench/common.h,
 * harness/0-base/opts.h): a library accepts a newer program's larger struct only when every
 * byte past the last field it knows is zero, padding included, and gives an older
 * program's smaller struct the defaults of the fields it lacks; PMC_OPTS declares a struct
 * whose padding is zero, so that the first rule never refuses a struct it made. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "base/opts.h"
#include "pmcbench/report.h"
#include "tests/helpers.h"

/* One options struct in three versions of a library: v1 as this test's library knows
 * it, v0 before b was added, v2 after c and p were. v1's tail padding (after b) is where
 * v2's c lies, so v2 has the same sizeof as v1 up to p. */
struct t_opts_v0 {
	size_t sz;
	double a;
};
#define t_opts_v0__last_field a

struct t_opts {
	size_t sz;
	double a; /* 0: 1.5 */
	bool b;	  /* default true when the caller's struct stops before it */
};
#define t_opts__last_field b

struct t_opts_v2 {
	size_t sz;
	double a;
	bool b;
	bool c;
	const char *p;
};
#define t_opts_v2__last_field p

/* A caller's struct as the library sees it: any version, read through v1's layout. */
union t_any {
	struct t_opts v1;
	unsigned char raw[64];
};

static void test_larger_struct_with_zero_tail_is_accepted(void **state)
{
	union t_any u;
	PMC_OPTS(t_opts_v2, o, .a = 2, .b = true);

	memset(&u, 0, sizeof(u));
	memcpy(u.raw, &o, sizeof(o));
	assert_true(PMC_OPTS_VALID(&u.v1, t_opts));
	assert_true(PMC_OPTS_GET(&u.v1, a, 1.5) == 2);
	assert_true(PMC_OPTS_GET(&u.v1, b, false));
}

/* A field this library does not know, set, is refused rather than ignored: a pointer
 * past v1's sizeof, and a bool that lies in v1's own tail padding (which a check from
 * sizeof would never read). */
static void test_larger_struct_with_nonzero_tail_is_refused(void **state)
{
	union t_any u;
	PMC_OPTS(t_opts_v2, with_p, .p = "x");
	PMC_OPTS(t_opts_v2, with_c, .c = true);

	memset(&u, 0, sizeof(u));
	memcpy(u.raw, &with_p, sizeof(with_p));
	assert_false(PMC_OPTS_VALID(&u.v1, t_opts));
	memcpy(u.raw, &with_c, sizeof(with_c));
	assert_int_equal(u.v1.sz, sizeof(struct t_opts_v2));
	assert_false(PMC_OPTS_VALID(&u.v1, t_opts));
	/* The same byte in a struct of v1's own size: padding, yet it must be zero. */
	u.v1.sz = sizeof(struct t_opts);
	assert_true(offsetof(struct t_opts_v2, c) < sizeof(struct t_opts));
	assert_false(PMC_OPTS_VALID(&u.v1, t_opts));
	u.raw[offsetof(struct t_opts_v2, c)] = 0;
	assert_true(PMC_OPTS_VALID(&u.v1, t_opts));
}

/* An older program's struct stops before b: b gets its default, whatever lies in the
 * memory past the caller's struct, which the library must not read. */
static void test_smaller_struct_gets_the_defaults(void **state)
{
	union t_any u;
	PMC_OPTS(t_opts_v0, old, .a = 3);

	memset(&u, 0xAA, sizeof(u));
	memcpy(u.raw, &old, sizeof(old));
	assert_true(PMC_OPTS_VALID(&u.v1, t_opts));
	assert_true(PMC_OPTS_GET(&u.v1, a, 1.5) == 3);
	assert_true(PMC_OPTS_GET(&u.v1, b, true));
	u.raw[offsetof(struct t_opts, b)] = 0;
	assert_true(PMC_OPTS_GET(&u.v1, b, true));
	/* Too small to hold sz itself, and no struct at all. */
	u.v1.sz = sizeof(size_t) - 1;
	assert_false(PMC_OPTS_VALID(&u.v1, t_opts));
	assert_true(PMC_OPTS_VALID((const struct t_opts *)NULL, t_opts));
	assert_true(PMC_OPTS_GET((const struct t_opts *)NULL, b, true));
}

/* Fills a stretch of the stack with non-zero bytes for the next call to find. */
__attribute__((noinline)) static void dirty_stack(void)
{
	volatile unsigned char junk[4096];

	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = 0xAA;
	(void)junk[0];
}

/* Unoptimised, as a caller's debug build would be: that is where a compiler copies a
 * compound literal with its padding as the stack had it (clang -O0 does). */
#if defined(__clang__)
__attribute__((noinline, optnone))
#else
__attribute__((noinline, optimize("O0")))
#endif
static bool
declared_tail_is_zero(double a, bool b, size_t *ret_sz)
{
	PMC_OPTS(t_opts_v2, o, .a = a, .b = b, .p = b ? "p" : NULL);
	PMC_OPTS(t_opts, v1, .a = a, .b = b);
	const unsigned char *p2 = (const unsigned char *)&o, *p1 = (const unsigned char *)&v1;

	*ret_sz = o.sz;
	if (o.a != a || o.b != b || o.c || !o.p || v1.a != a || v1.b != b)
		return false;
	for (size_t i = PMC_OPTS_END(t_opts_v2); i < sizeof(o); i++)
		if (p2[i])
			return false;
	for (size_t i = PMC_OPTS_END(t_opts); i < sizeof(v1); i++)
		if (p1[i])
			return false;
	return true;
}

static void test_pmc_opts_zeroes_the_tail(void **state)
{
	size_t sz = 0;

	for (int i = 0; i < 8; i++) {
		dirty_stack();
		assert_true(declared_tail_is_zero(0.25 * i, true, &sz));
		assert_int_equal(sz, sizeof(struct t_opts_v2));
	}
}

/* Renders r as a table with opts into a string (the caller frees it). */
static char *render(const struct pmc_result *r, const struct pmc_report_opts *opts, int *ret_rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*ret_rc = pmc_report_result(f, "table", r, opts, NULL, 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* The same rules through a public function: an older struct that stops before median
 * shows means, whatever follows it; a newer one with a byte set past by_benchmark (in
 * the tail padding or beyond) is refused. */
static void test_public_report_options(void **state)
{
	struct pmc_result *r = t_result("perf");
	union {
		struct pmc_report_opts o;
		unsigned char raw[sizeof(struct pmc_report_opts) + 8];
	} newer;
	char *plain, *medians, *out;
	int rc;
	PMC_OPTS(pmc_report_opts, o, .median = true);

	put(r, "x", "task-clock", 9, 1e6, 0.2);
	plain = render(r, NULL, &rc);
	assert_int_equal(rc, 0);
	medians = render(r, &o, &rc);
	assert_int_equal(rc, 0);
	assert_string_not_equal(plain, medians);
	o.sz = offsetof(struct pmc_report_opts, median);
	out = render(r, &o, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(out, plain);
	free(out);

	memset(&newer, 0, sizeof(newer));
	newer.o.sz = sizeof(newer);
	out = render(r, &newer.o, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(out, plain);
	free(out);
	newer.raw[PMC_OPTS_END(pmc_report_opts)] = 1;
	out = render(r, &newer.o, &rc);
	assert_int_equal(rc, -EINVAL);
	free(out);

	free(plain);
	free(medians);
	pmc_result_free(r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_larger_struct_with_zero_tail_is_accepted),
	    cmocka_unit_test(test_larger_struct_with_nonzero_tail_is_refused),
	    cmocka_unit_test(test_smaller_struct_gets_the_defaults),
	    cmocka_unit_test(test_pmc_opts_zeroes_the_tail),
	    cmocka_unit_test(test_public_report_options),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

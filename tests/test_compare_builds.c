/* pmc_compare_builds (harness/2-core/compare_builds.c): two builds' benchmarks of one
 * result, "A:x" paired with "B:x" by name and their runs by round; a round's samples as
 * their median; a round of one side only dropped and counted; a benchmark of one build
 * only named; the labels checked. */
#include <errno.h>
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

#include "core/compare.h"
#include "core/result.h"
#include "tests/helpers.h"

/* Adds benchmark name with one run per entry of rounds (its round and process), whose
 * wall-time is v[i]; marks r's design interleaved. */
static void add(struct pmc_result *r, const char *name, const unsigned *rounds, const double *v,
		size_t n)
{
	struct pmc_benchmark *b = t_bench(r, name, NULL);

	for (size_t i = 0; i < n; i++) {
		struct pmc_run_info info = {
		    .round = rounds[i], .process = rounds[i], .iterations = 1000};

		assert_int_equal(pmc_benchmark_add_run(b, &info), 0);
	}
	put_values(r, name, "wall-time", v, n);
	if (!r->design.mode)
		r->design.mode = strdup("interleaved");
}

/* The only row of c for benchmark bench. */
static const struct pmc_cmp_row *row_of(const struct pmc_comparison *c, const char *bench)
{
	for (size_t i = 0; i < pmc_comparison_row_count(c); i++)
		if (strcmp(pmc_cmp_row_bench(pmc_comparison_row_at(c, i)), bench) == 0)
			return pmc_comparison_row_at(c, i);
	fail_msg("no row for '%s'", bench);
	return NULL;
}

/* All warnings of c, one per line. */
static void warnings(const struct pmc_comparison *c, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < pmc_comparison_warning_count(c) && off < len; i++)
		off +=
		    (size_t)snprintf(buf + off, len - off, "%s\n", pmc_comparison_warning_at(c, i));
}

static const unsigned R8[] = {1, 2, 3, 4, 5, 6, 7, 8};

/* B's x takes 1.5 times A's in every round, with drift that hits both alike: paired by
 * round, a regression with every pair, named x; A's "old" only in A, named as such. */
static void test_builds_pair_by_name_and_round(void **state)
{
	struct pmc_result *r = t_result("perf");
	struct pmc_comparison *c = NULL;
	double a[8], b[8], ratio, lo, hi;
	char err[512] = "", w[2048];
	enum pmc_verdict v;

	(void)state;
	for (size_t i = 0; i < 8; i++) {
		a[i] = 100.0 * (1.0 + 0.3 * (double)((i * 5) % 8)); /* drift across rounds */
		b[i] = a[i] * 1.5 * (1.0 + 0.001 * (double)i);
	}
	add(r, "A:x", R8, a, 8);
	add(r, "B:x", R8, b, 8);
	add(r, "A:old", R8, a, 8);
	assert_int_equal(pmc_compare_builds(r, "A", "B", NULL, &c, err, sizeof(err)), 0);
	assert_int_equal(pmc_comparison_row_count(c), 1);
	const struct pmc_cmp_row *row = row_of(c, "x");
	assert_true(row->paired);
	assert_int_equal(row->npairs, 8);
	assert_int_equal(pmc_cmp_row_verdict(row, &v), 0);
	assert_int_equal(v, PMC_VERDICT_REGRESSION);
	assert_int_equal(pmc_cmp_row_ratio(row, &ratio, &lo, &hi), 0);
	assert_true(ratio > 1.49 && ratio < 1.52);
	assert_true(lo > 1.4 && hi < 1.6);
	warnings(c, w, sizeof(w));
	assert_contains(w, "1 benchmark only in build 'A', not compared: 'old'");
	pmc_comparison_free(c);

	/* Unpaired on request: the same row, tested as two samples. */
	PMC_OPTS(pmc_compare_opts, o, .unpaired = true);
	assert_int_equal(pmc_compare_builds(r, "A", "B", &o, &c, err, sizeof(err)), 0);
	assert_false(row_of(c, "x")->paired);
	pmc_comparison_free(c);
	pmc_result_free(r);
}

/* A round that only B has (A's process 8 failed or was stopped) is left out: 7 pairs,
 * and a warning counts it. */
static void test_builds_missing_round_dropped(void **state)
{
	struct pmc_result *r = t_result("perf");
	struct pmc_comparison *c = NULL;
	double a[8], b[8];
	char err[512] = "", w[2048];

	(void)state;
	for (size_t i = 0; i < 8; i++) {
		a[i] = 100.0 + (double)i;
		b[i] = 100.0 + (double)i;
	}
	add(r, "A:x", R8, a, 7);
	add(r, "B:x", R8, b, 8);
	assert_int_equal(pmc_compare_builds(r, "A", "B", NULL, &c, err, sizeof(err)), 0);
	const struct pmc_cmp_row *row = row_of(c, "x");
	assert_true(row->paired);
	assert_int_equal(row->npairs, 7);
	warnings(c, w, sizeof(w));
	assert_contains(w, "1 round of a benchmark measured in one build only");
	pmc_comparison_free(c);
	pmc_result_free(r);
}

/* Several samples of one process (a round): the round's value is their median, and the
 * rounds, not the samples, are the pairs. */
static void test_builds_round_median(void **state)
{
	static const unsigned rounds[] = {1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6};
	struct pmc_result *r = t_result("perf");
	struct pmc_comparison *c = NULL;
	double a[18], b[18];
	char err[512] = "";

	(void)state;
	for (size_t i = 0; i < 18; i++) {
		/* The middle sample of round k is 10 * k; the others far off either side. */
		double mid = 10.0 * (double)(i / 3 + 1);

		a[i] = i % 3 == 0 ? mid * 0.5 : i % 3 == 1 ? mid : mid * 3;
		b[i] = a[i] * 2;
	}
	add(r, "old:y", rounds, a, 18);
	add(r, "new:y", rounds, b, 18);
	assert_int_equal(pmc_compare_builds(r, "old", "new", NULL, &c, err, sizeof(err)), 0);
	const struct pmc_cmp_row *row = row_of(c, "y");
	assert_int_equal(row->npairs, 6);
	assert_int_equal(row->old.n, 6);
	/* The median of the rounds' medians 10, 20, ..., 60. */
	assert_close(row->old.median, 35.0, 1e-12);
	assert_close(row->new.median, 70.0, 1e-12);
	pmc_comparison_free(c);
	pmc_result_free(r);
}

/* One build against itself: every round alike, no change. */
static void test_builds_same_build_no_change(void **state)
{
	struct pmc_result *r = t_result("perf");
	struct pmc_comparison *c = NULL;
	double a[8];
	char err[512] = "";
	enum pmc_verdict v;

	(void)state;
	for (size_t i = 0; i < 8; i++)
		a[i] = 100.0 * (1.0 + 0.01 * (double)((i * 3) % 8));
	add(r, "A:x", R8, a, 8);
	add(r, "B:x", R8, a, 8);
	assert_int_equal(pmc_compare_builds(r, "A", "B", NULL, &c, err, sizeof(err)), 0);
	assert_int_equal(pmc_cmp_row_verdict(row_of(c, "x"), &v), 0);
	assert_int_not_equal(v, PMC_VERDICT_REGRESSION);
	assert_int_equal(pmc_comparison_verdict_count(c, PMC_VERDICT_REGRESSION), 0);
	pmc_comparison_free(c);
	pmc_result_free(r);
}

/* Labels that are equal or missing, and a build without benchmarks, are errors. */
static void test_builds_errors(void **state)
{
	struct pmc_result *r = t_result("perf");
	struct pmc_comparison *c = NULL;
	double a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	char err[512] = "";

	(void)state;
	add(r, "A:x", R8, a, 8);
	assert_int_equal(pmc_compare_builds(r, "A", "A", NULL, &c, err, sizeof(err)), -EINVAL);
	assert_contains(err, "two different labels");
	assert_int_equal(pmc_compare_builds(r, "A", NULL, NULL, &c, err, sizeof(err)), -EINVAL);
	assert_int_equal(pmc_compare_builds(r, "A", "B", NULL, &c, err, sizeof(err)), -ENODATA);
	assert_contains(err, "no benchmark of build 'B'");
	assert_null(c);
	pmc_result_free(r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_builds_pair_by_name_and_round),
	    cmocka_unit_test(test_builds_missing_round_dropped),
	    cmocka_unit_test(test_builds_round_median),
	    cmocka_unit_test(test_builds_same_build_no_change),
	    cmocka_unit_test(test_builds_errors),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

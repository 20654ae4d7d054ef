/* compare --filter (harness/2-core/filter.h): the terms it accepts and refuses, that all of
 * them must hold, and that the view it takes of a result holds exactly what they select
 * and compares as the whole result would. */
#include <errno.h>
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
#include "core/filter.h"
#include "core/result.h"
#include "tests/helpers.h"

static void test_terms(void **state)
{
	struct pmc_filter f = {0};
	char err[256];

	(void)state;
	assert_int_equal(pmc_filter_add(&f, "sort*", err, sizeof(err)), 0);
	assert_int_equal(pmc_filter_add(&f, "-name:*/1k", err, sizeof(err)), 0);
	assert_int_equal(pmc_filter_add(&f, "metric:task-*", err, sizeof(err)), 0);
	assert_true(pmc_filter_bench(&f, "sort/64"));
	assert_false(pmc_filter_bench(&f, "sort/1k")); /* left out by the '-' term */
	assert_false(pmc_filter_bench(&f, "hash/64")); /* not sort* */
	assert_true(pmc_filter_metric(&f, "task-clock"));
	assert_false(pmc_filter_metric(&f, "cycles"));
	pmc_filter_clear(&f);
	/* Empty: everything. */
	assert_true(pmc_filter_bench(&f, "x"));
	assert_true(pmc_filter_metric(&f, "cycles"));
}

static void test_bad_terms(void **state)
{
	static const struct {
		const char *expr, *msg;
	} bad[] = {
	    {"", "filter '': empty"},
	    {"unit:ns", "filter 'unit:ns': unknown key 'unit'"},
	    {"-x:y", "unknown key 'x'"},
	    {"metric:", "no pattern after 'metric:'"},
	};
	struct pmc_filter f = {0};
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(pmc_filter_add(&f, bad[i].expr, err, sizeof(err)), -EINVAL);
		if (!strstr(err, bad[i].msg))
			fail_msg("'%s': '%s' does not say '%s'", bad[i].expr, err, bad[i].msg);
		assert_null(strchr(err, '\n'));
	}
	assert_int_equal(f.n, 0);
}

static void test_view(void **state)
{
	const double v[] = {1, 2, 3, 4, 5, 6};
	struct pmc_result *r = t_result("perf"), *view = NULL;
	struct pmc_filter f = {0};
	struct pmc_comparison *c = NULL;
	char err[256];

	(void)state;
	put_values(r, "sort", "task-clock", v, 6);
	put_values(r, "sort", "cycles", v, 6);
	put_values(r, "hash", "task-clock", v, 6);
	assert_int_equal(pmc_filter_add(&f, "metric:cycles", err, sizeof(err)), 0);
	assert_int_equal(pmc_filter_view(&f, r, "a.json", &view, err, sizeof(err)), 0);
	assert_int_equal(view->nbench, 2);
	assert_int_equal(view->benchmarks[0].nmetrics, 1);
	assert_string_equal(view->benchmarks[0].metrics[0].id, "cycles");
	assert_int_equal(view->benchmarks[1].nmetrics, 0);
	/* The view compares: one row, the only metric selected. */
	assert_int_equal(pmc_compare(view, view, NULL, &c, err, sizeof(err)), 0);
	assert_int_equal(pmc_comparison_row_count(c), 1);
	assert_string_equal(pmc_cmp_row_metric(pmc_comparison_row_at(c, 0)), "cycles");
	pmc_comparison_free(c);
	pmc_filter_view_free(view);
	/* Nothing selected: an error naming the file and what it has. */
	assert_int_equal(pmc_filter_add(&f, "name:nothing", err, sizeof(err)), 0);
	view = NULL;
	assert_int_equal(pmc_filter_view(&f, r, "a.json", &view, err, sizeof(err)), -ENODATA);
	assert_null(view);
	assert_non_null(
	    strstr(err, "filter selects no benchmark of a.json (it has 'sort', 'hash')"));
	pmc_filter_clear(&f);
	pmc_result_free(r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_terms),
	    cmocka_unit_test(test_bad_terms),
	    cmocka_unit_test(test_view),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

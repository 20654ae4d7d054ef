/* How a team reads a change point (harness/2-core/changepoint_judge.c): the way it went
 * by the metric registry's direction (time up, ipc down: regressions), the stored
 * direction for ids the registry does not know, its size, and the selection of
 * --regressions-only and --min-change. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "core/changepoint.h"
#include "core/changepoint_judge.h"
#include "pmcbench/metrics.h"

static struct pmc_changepoint cp_of(double before, double after, double ratio)
{
	return (struct pmc_changepoint){.index = 5,
					.before = before,
					.after = after,
					.ratio = ratio,
					.ratio_lo = NAN,
					.ratio_hi = NAN};
}

static void way_follows_the_registry(void **state)
{
	struct pmc_changepoint up = cp_of(100, 110, 1.1), down = cp_of(2.0, 1.9, 0.95);

	(void)state;
	/* The registry knows these, whatever a file stored. */
	assert_int_equal(pmc_cp_metric_better("wall-time", PMC_HIGHER_IS_BETTER),
			 PMC_LOWER_IS_BETTER);
	assert_int_equal(pmc_cp_metric_better("ipc", PMC_LOWER_IS_BETTER), PMC_HIGHER_IS_BETTER);
	/* An id it does not know keeps the stored direction. */
	assert_int_equal(pmc_cp_metric_better("my-throughput", PMC_HIGHER_IS_BETTER),
			 PMC_HIGHER_IS_BETTER);
	assert_int_equal(pmc_cp_way(&up, pmc_cp_metric_better("wall-time", 0)), PMC_CP_REGRESSION);
	assert_int_equal(pmc_cp_way(&down, pmc_cp_metric_better("wall-time", 0)),
			 PMC_CP_IMPROVEMENT);
	assert_int_equal(pmc_cp_way(&down, pmc_cp_metric_better("ipc", 0)), PMC_CP_REGRESSION);
	assert_int_equal(pmc_cp_way(&up, pmc_cp_metric_better("ipc", 0)), PMC_CP_IMPROVEMENT);
	assert_int_equal(pmc_cp_way(&up, PMC_NO_DIRECTION), PMC_CP_NEITHER);
}

static void way_and_size_without_a_ratio(void **state)
{
	/* From 0 there is no ratio: the medians tell the way, the size is unknown. */
	struct pmc_changepoint from0 = cp_of(0, 3, NAN), none = cp_of(NAN, NAN, NAN);

	(void)state;
	assert_int_equal(pmc_cp_way(&from0, PMC_LOWER_IS_BETTER), PMC_CP_REGRESSION);
	assert_true(isnan(pmc_cp_size_pct(&from0)));
	assert_int_equal(pmc_cp_way(&none, PMC_LOWER_IS_BETTER), PMC_CP_NEITHER);
	struct pmc_changepoint r = cp_of(100, 97.5, 0.975);
	assert_true(fabs(pmc_cp_size_pct(&r) - 2.5) < 1e-9);
}

static void selection_keeps_what_it_says(void **state)
{
	struct pmc_changepoint big = cp_of(100, 110, 1.1), small = cp_of(100, 101, 1.01),
			       from0 = cp_of(0, 3, NAN);
	struct pmc_cp_select all = {0}, reg = {.regressions_only = true}, min5 = {.min_change = 5};

	(void)state;
	assert_true(pmc_cp_selected(&small, PMC_CP_IMPROVEMENT, NULL));
	assert_true(pmc_cp_selected(&small, PMC_CP_IMPROVEMENT, &all));
	assert_false(pmc_cp_selected(&big, PMC_CP_IMPROVEMENT, &reg));
	assert_false(pmc_cp_selected(&big, PMC_CP_NEITHER, &reg));
	assert_true(pmc_cp_selected(&big, PMC_CP_REGRESSION, &reg));
	assert_true(pmc_cp_selected(&big, PMC_CP_REGRESSION, &min5));
	assert_false(pmc_cp_selected(&small, PMC_CP_REGRESSION, &min5));
	/* A change of no known size is not known to be small. */
	assert_true(pmc_cp_selected(&from0, PMC_CP_REGRESSION, &min5));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(way_follows_the_registry),
	    cmocka_unit_test(way_and_size_without_a_ratio),
	    cmocka_unit_test(selection_keeps_what_it_says),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

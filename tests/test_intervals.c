/* Counts per interval (harness/2-core/intervals.c, run -I): each interval's count is the
 * growth of the cumulative reading, scaled by that interval's own enabled and running
 * times; an interval in which the event was enabled but never ran has none (never 0),
 * one in which nothing advanced (the task slept) a real 0; the last, partial interval
 * ends where the run did, and the intervals sum to the run's total. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "core/intervals.h"
#include "tests/helpers.h"

/* A count as expected (to 1e-9: a scaled one is a double), printing both when not. */
#define assert_count(actual, expected)                                                             \
	do {                                                                                       \
		double got_ = (actual), want_ = (expected);                                        \
		if (!(fabs(got_ - want_) <= 1e-9))                                                 \
			fail_msg("%s is %.17g, expected %.17g", #actual, got_, want_);             \
	} while (0)

static struct pmc_reading rd(enum pmc_status st, uint64_t value, uint64_t enabled, uint64_t running)
{
	return (struct pmc_reading){
	    .status = st, .value = value, .enabled = enabled, .running = running};
}

static struct pmc_intervals *two(void)
{
	const char *ids[] = {"instructions", "syscalls:sys_enter_getpid"};
	struct pmc_intervals *iv = NULL;

	assert_int_equal(pmc_intervals_new(ids, 2, &iv), 0);
	return iv;
}

static void deltas_come_from_cumulative_readings(void **state)
{
	struct pmc_intervals *iv = two();
	struct pmc_reading a[2] = {rd(PMC_STATUS_COUNTED, 1000, 100, 100),
				   rd(PMC_STATUS_COUNTED, 7, 100, 100)};
	struct pmc_reading b[2] = {rd(PMC_STATUS_COUNTED, 1500, 200, 200),
				   rd(PMC_STATUS_COUNTED, 7, 200, 200)};
	/* The run's end: its final readings, 60 ns after the last tick. */
	struct pmc_reading end[2] = {rd(PMC_STATUS_COUNTED, 1600, 260, 260),
				     rd(PMC_STATUS_COUNTED, 19, 260, 260)};
	double sum0 = 0, sum1 = 0;

	(void)state;
	assert_int_equal(pmc_intervals_add(iv, 100, a), 0);
	assert_int_equal(pmc_intervals_add(iv, 200, b), 0);
	assert_int_equal(pmc_intervals_add(iv, 260, end), 0);
	assert_int_equal(iv->n, 3);
	assert_int_equal(iv->end_ns[2], 260);
	assert_count(pmc_intervals_get(iv, 0, 0), 1000);
	assert_count(pmc_intervals_get(iv, 1, 0), 500);
	assert_count(pmc_intervals_get(iv, 2, 0), 100);
	/* Counted, and nothing happened: a real 0. */
	assert_count(pmc_intervals_get(iv, 1, 1), 0);
	assert_count(pmc_intervals_get(iv, 2, 1), 12);
	for (size_t k = 0; k < iv->n; k++) {
		sum0 += pmc_intervals_get(iv, k, 0);
		sum1 += pmc_intervals_get(iv, k, 1);
	}
	assert_count(sum0, 1600);
	assert_count(sum1, 19);
	pmc_intervals_free(iv);
}

/* Multiplexed: each interval is scaled by its own share of time on the PMU, not by the
 * run's so far. */
static void each_interval_is_scaled_by_its_own_times(void **state)
{
	struct pmc_intervals *iv = two();
	/* First interval: on the PMU all the time. Second: a quarter of its 400 ns. */
	struct pmc_reading a[2] = {rd(PMC_STATUS_COUNTED, 1000, 100, 100),
				   rd(PMC_STATUS_COUNTED, 1, 100, 100)};
	struct pmc_reading b[2] = {rd(PMC_STATUS_SCALED, 1250, 500, 200),
				   rd(PMC_STATUS_COUNTED, 2, 500, 500)};

	(void)state;
	assert_int_equal(pmc_intervals_add(iv, 100, a), 0);
	assert_int_equal(pmc_intervals_add(iv, 500, b), 0);
	assert_count(pmc_intervals_get(iv, 0, 0), 1000);
	/* 250 counted in 100 of 400 ns: 1000, where the cumulative ratio would give 625. */
	assert_count(pmc_intervals_get(iv, 1, 0), 1000);
	pmc_intervals_free(iv);
}

static void an_interval_off_the_pmu_is_not_counted_never_0(void **state)
{
	struct pmc_intervals *iv = two();
	struct pmc_reading a[2] = {rd(PMC_STATUS_COUNTED, 1000, 100, 100),
				   rd(PMC_STATUS_UNSUPPORTED, 0, 0, 0)};
	/* Enabled 100 ns more, never on the PMU: not counted. */
	struct pmc_reading b[2] = {rd(PMC_STATUS_SCALED, 1000, 200, 100),
				   rd(PMC_STATUS_UNSUPPORTED, 0, 0, 0)};
	/* Neither value nor times grew: the task did not run, nothing could happen. */
	struct pmc_reading c[2] = {rd(PMC_STATUS_SCALED, 1000, 200, 100),
				   rd(PMC_STATUS_UNSUPPORTED, 0, 0, 0)};

	(void)state;
	assert_int_equal(pmc_intervals_add(iv, 100, a), 0);
	assert_int_equal(pmc_intervals_add(iv, 200, b), 0);
	assert_int_equal(pmc_intervals_add(iv, 300, c), 0);
	assert_true(isnan(pmc_intervals_get(iv, 1, 0)));
	assert_count(pmc_intervals_get(iv, 2, 0), 0);
	/* An event that could not be opened has no count in any interval. */
	for (size_t k = 0; k < iv->n; k++)
		assert_true(isnan(pmc_intervals_get(iv, k, 1)));
	pmc_intervals_free(iv);
}

static void contradictions_are_refused(void **state)
{
	struct pmc_intervals *iv = two();
	struct pmc_reading a[2] = {rd(PMC_STATUS_COUNTED, 1000, 100, 100),
				   rd(PMC_STATUS_COUNTED, 5, 100, 100)};
	struct pmc_reading back[2] = {rd(PMC_STATUS_COUNTED, 999, 200, 200),
				      rd(PMC_STATUS_COUNTED, 5, 200, 200)};
	const char *none[] = {NULL};

	(void)state;
	assert_int_equal(pmc_intervals_add(iv, 100, a), 0);
	/* An end not after the last one's, a count that went back. */
	assert_int_equal(pmc_intervals_add(iv, 100, a), -EINVAL);
	assert_int_equal(pmc_intervals_add(iv, 200, back), -EINVAL);
	assert_int_equal(iv->n, 1);
	pmc_intervals_free(iv);
	iv = NULL;
	assert_int_equal(pmc_intervals_new(none, 0, &iv), -EINVAL);
	assert_null(iv);
	pmc_intervals_free(NULL);
}

/* Many intervals: the arrays grow, and every row keeps its own counts. */
static void many_intervals_keep_their_counts(void **state)
{
	struct pmc_intervals *iv = two();

	(void)state;
	for (uint64_t k = 1; k <= 1000; k++) {
		struct pmc_reading c[2] = {rd(PMC_STATUS_COUNTED, k * (k + 1) / 2, k, k),
					   rd(PMC_STATUS_COUNTED, 2 * k, k, k)};

		assert_int_equal(pmc_intervals_add(iv, k * 10, c), 0);
	}
	assert_int_equal(iv->n, 1000);
	for (size_t k = 0; k < iv->n; k++) {
		assert_count(pmc_intervals_get(iv, k, 0), (double)(k + 1));
		assert_count(pmc_intervals_get(iv, k, 1), 2);
		assert_int_equal(iv->end_ns[k], (k + 1) * 10);
	}
	pmc_intervals_free(iv);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(deltas_come_from_cumulative_readings),
	    cmocka_unit_test(each_interval_is_scaled_by_its_own_times),
	    cmocka_unit_test(an_interval_off_the_pmu_is_not_counted_never_0),
	    cmocka_unit_test(contradictions_are_refused),
	    cmocka_unit_test(many_intervals_keep_their_counts),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

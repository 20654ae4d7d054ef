/* The analysis of a result (harness/2-core/analysis.c): the summaries and status facts
 * that compare and every run report read, computed once from the samples. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "core/analysis.h"
#include "core/result.h"
#include "core/stats_priv.h"
#include "tests/helpers.h"

static struct pmc_reading reading(enum pmc_status st, double v, uint64_t enabled, uint64_t running)
{
	struct pmc_reading rd = {
	    .status = st,
	    .value = isnan(v) ? 0 : (uint64_t)v,
	    .enabled = enabled,
	    .running = running,
	    .scaled = v,
	};

	return rd;
}

/* A benchmark of 7 runs (one failed, one timed out): a counter multiplexed in some
 * runs and missing in one, a wait4 figure, and a counter that never opened. */
static struct pmc_result *sample(void)
{
	static const double tc[] = {10, 12, 11, 13, NAN, 11, 100};
	struct pmc_result *r = t_result("perf");
	struct pmc_benchmark *b;
	struct pmc_metric *m;
	struct pmc_run_info ok = {0}, bad = {.exit_code = 1}, slow = {.timed_out = true};

	assert_non_null(r);
	b = t_bench(r, "sort", "./sort");
	assert_non_null(b);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(pmc_benchmark_add_run(b, &ok), 0);
	assert_int_equal(pmc_benchmark_add_run(b, &bad), 0);
	assert_int_equal(pmc_benchmark_add_run(b, &slow), 0);

	m = t_metric(b, "task-clock");
	assert_non_null(m);
	for (size_t i = 0; i < 7; i++) {
		/* Runs 0 and 1 ran half and a quarter of their enabled time. */
		uint64_t running = i == 0 ? 500 : i == 1 ? 250 : 1000;
		enum pmc_status st = isnan(tc[i])     ? PMC_STATUS_NOT_COUNTED
				     : running < 1000 ? PMC_STATUS_SCALED
						      : PMC_STATUS_COUNTED;
		struct pmc_reading rd = reading(st, tc[i], 1000, isnan(tc[i]) ? 0 : running);

		assert_int_equal(pmc_metric_append(m, tc[i], &rd), 0);
	}
	m = t_metric(b, "wall-time");
	assert_non_null(m);
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(pmc_metric_append(m, 1e6 + (double)i, NULL), 0);
	m = t_metric(b, "cycles");
	assert_non_null(m);
	for (size_t i = 0; i < 7; i++) {
		struct pmc_reading rd = {.status = PMC_STATUS_UNSUPPORTED, .error = ENOENT};

		assert_int_equal(pmc_metric_append(m, NAN, &rd), 0);
	}
	return r;
}

static void test_summaries_and_facts(void **state)
{
	struct pmc_result *r = sample();
	struct pmc_analysis *a = NULL;
	const struct pmc_bench_analysis *ba;
	const struct pmc_metric_analysis *tc, *wall, *cyc;

	assert_int_equal(pmc_analysis_new(r, 0.95, &a), 0);
	assert_int_equal(a->nbench, 1);
	ba = &a->benches[0];
	assert_ptr_equal(ba->b, &r->benchmarks[0]);
	assert_int_equal(ba->runs, 7);
	assert_int_equal(ba->failed, 1);
	assert_int_equal(ba->timed_out, 1);

	tc = &ba->metrics[0];
	assert_string_equal(tc->m->id, "task-clock");
	assert_int_equal(tc->present, 6);
	assert_true(tc->has_summary);
	assert_int_equal(tc->s.n, 6);
	/* 10 12 11 13 11 100: mean 26.1667, median of the sorted 10 11 11 12 13 100 is
	 * 11.5, |x - 11.5| = 1.5 .5 .5 .5 1.5 88.5 has median 1. */
	assert_float_equal(tc->s.mean, 157.0 / 6, 1e-12);
	assert_float_equal(tc->s.median, 11.5, 1e-12);
	assert_float_equal(tc->s.mad, 1.0, 1e-12);
	assert_float_equal(tc->s.min, 10, 0);
	assert_float_equal(tc->s.max, 100, 0);
	assert_true(tc->s.has_ci); /* n = 6 reaches 95% with [x(1), x(6)] */
	assert_float_equal(tc->s.ci_lo, 10, 0);
	assert_float_equal(tc->s.ci_hi, 100, 0);
	/* Multiplexed in runs 0 and 1: the mean running share over the 6 runs with a value. */
	assert_true(tc->scaled);
	assert_float_equal(tc->running, (0.5 + 0.25 + 4 * 1.0) / 6, 1e-12);
	assert_int_equal(tc->status_count[PMC_STATUS_SCALED], 2);
	assert_int_equal(tc->status_count[PMC_STATUS_COUNTED], 4);
	assert_int_equal(tc->status_count[PMC_STATUS_NOT_COUNTED], 1);
	assert_false(tc->all_exact);

	wall = &ba->metrics[1];
	assert_int_equal(wall->present, 7);
	assert_float_equal(wall->s.median, 1e6 + 3, 0);
	assert_false(wall->scaled);
	assert_int_equal(wall->status_count[PMC_STATUS_COUNTED], 0); /* no readings */

	/* Never measured: no summary at all, never zeros; the statuses say why. */
	cyc = &ba->metrics[2];
	assert_int_equal(cyc->present, 0);
	assert_false(cyc->has_summary);
	assert_int_equal(cyc->status_count[PMC_STATUS_UNSUPPORTED], 7);
	pmc_analysis_free(a);
	pmc_result_free(r);
}

/* Welford's update keeps the variance of values far from zero (a sum of squares would
 * cancel to nothing). */
static void test_welford(void **state)
{
	struct pmc_result *r = t_result("perf");
	struct pmc_benchmark *b = t_bench(r, "big", NULL);
	struct pmc_metric *m = t_metric(b, "wall-time");
	struct pmc_metric_analysis ma;

	for (int i = 0; i < 4; i++)
		assert_int_equal(pmc_metric_append(m, 1e9 + (i % 2 ? 1 : -1), NULL), 0);
	assert_int_equal(pmc_metric_analyze(m, 0.95, &ma), 0);
	assert_float_equal(ma.s.mean, 1e9, 0);
	assert_float_equal(ma.s.stddev, sqrt(4.0 / 3), 1e-9);
	assert_false(ma.s.has_ci); /* 4 runs are too few for a 95% CI of the median */
	pmc_result_free(r);
}

/* An exact (simulated) count in every run. */
static void test_exact(void **state)
{
	struct pmc_result *r = t_result("valgrind");
	struct pmc_benchmark *b = t_bench(r, "x", NULL);
	struct pmc_metric *m = t_metric(b, "instructions");
	struct pmc_reading rd = {.status = PMC_STATUS_EXACT, .value = 5000};
	struct pmc_metric_analysis ma;

	rd.scaled = 5000;
	assert_int_equal(pmc_metric_append(m, 5000, &rd), 0);
	assert_int_equal(pmc_metric_append(m, 5000, &rd), 0);
	assert_int_equal(pmc_metric_analyze(m, 0.95, &ma), 0);
	assert_true(ma.all_exact);
	assert_false(ma.scaled);
	assert_float_equal(ma.s.cv, 0, 0);
	pmc_result_free(r);
}

/* Appends a count of value with status st to m. */
static void append_count(struct pmc_metric *m, double value, enum pmc_status st)
{
	struct pmc_reading rd = reading(st, value, 1000, st == PMC_STATUS_SCALED ? 500 : 1000);

	assert_int_equal(pmc_metric_append(m, value, &rd), 0);
}

/* Kernel counts say whether their runs read the same: every run measured, counted in
 * full (not multiplexed), one value; clocks, hardware and simulated counts never do. */
static void test_identical_kernel_counts(void **state)
{
	struct pmc_result *r = t_result("perf");
	struct pmc_benchmark *b = t_bench(r, "x", NULL);
	struct pmc_metric *same = t_metric(b, "syscalls:sys_enter_getpid");
	struct pmc_metric *varied = t_metric(b, "syscalls:sys_enter_openat");
	struct pmc_metric *scaled = t_metric(b, "uprobe:libc:malloc");
	struct pmc_metric *missing = t_metric(b, "page-faults");
	struct pmc_metric *once = t_metric(b, "major-faults");
	struct pmc_metric *sched = t_metric(b, "context-switches");
	struct pmc_metric *clock = t_metric(b, "task-clock");
	struct pmc_metric_analysis ma;
	bool identical = true;

	for (int i = 0; i < 5; i++) {
		append_count(same, 1000, PMC_STATUS_COUNTED);
		append_count(varied, i == 3 ? 41 : 40, PMC_STATUS_COUNTED);
		append_count(scaled, 7, i == 0 ? PMC_STATUS_SCALED : PMC_STATUS_COUNTED);
		append_count(missing, i == 2 ? NAN : 90,
			     i == 2 ? PMC_STATUS_NOT_COUNTED : PMC_STATUS_COUNTED);
		append_count(clock, 5000, PMC_STATUS_COUNTED);
		append_count(sched, 2, PMC_STATUS_COUNTED);
	}
	append_count(once, 3, PMC_STATUS_COUNTED);

	assert_true(pmc_metric_kernel_identical(same, &identical));
	assert_true(identical);
	assert_int_equal(pmc_metric_analyze(same, 0.95, &ma), 0);
	assert_true(ma.kernel_count);
	assert_true(ma.identical);
	assert_true(pmc_metric_kernel_identical(varied, &identical));
	assert_false(identical);
	assert_int_equal(pmc_metric_analyze(varied, 0.95, &ma), 0);
	assert_true(ma.kernel_count);
	assert_false(ma.identical);
	identical = true;
	assert_true(pmc_metric_kernel_identical(scaled, &identical));
	assert_false(identical);
	identical = true;
	assert_true(pmc_metric_kernel_identical(missing, &identical));
	assert_false(identical);
	/* One run says nothing of the next; a clock is not a count of occurrences; the
	 * scheduler's counts follow the machine's load, whatever they read. */
	assert_false(pmc_metric_kernel_identical(once, &identical));
	assert_false(pmc_metric_kernel_identical(sched, &identical));
	assert_false(pmc_metric_kernel_identical(clock, &identical));
	assert_int_equal(pmc_metric_analyze(clock, 0.95, &ma), 0);
	assert_false(ma.kernel_count);
	same->simulated = true;
	assert_false(pmc_metric_kernel_identical(same, &identical));
	pmc_result_free(r);
}

/* compare's path (compare_stats.c): the summary of the sorted measured values, which it
 * keeps for its tests, is the analysis's, number for number. */
static void test_summarize_for_compare(void **state)
{
	struct pmc_result *r = sample();
	const struct pmc_metric *tc = &r->benchmarks[0].metrics[0];
	struct pmc_summary s;
	struct pmc_metric_analysis ma;
	double values[7];
	size_t n;

	n = pmc_metric_present(tc, values);
	assert_int_equal(n, 6);
	pmc_stats_sort(values, n);
	assert_float_equal(values[5], 100, 0);
	assert_int_equal(pmc_summary_sorted(tc->values, tc->n, values, n, 0.95, &s), 0);
	assert_int_equal(pmc_metric_analyze(tc, 0.95, &ma), 0);
	/* Computed once, read twice: the same numbers wherever they are shown. (Field by
	 * field: the bytes between them are not part of the value.) */
	assert_int_equal(s.n, ma.s.n);
	assert_true(s.mean == ma.s.mean && s.stddev == ma.s.stddev && s.median == ma.s.median);
	assert_true(s.mad == ma.s.mad && s.min == ma.s.min && s.max == ma.s.max);
	assert_true(s.cv == ma.s.cv && s.has_ci == ma.s.has_ci && s.confidence == ma.s.confidence);
	assert_true(s.ci_lo == ma.s.ci_lo && s.ci_hi == ma.s.ci_hi);
	/* A metric with no measured value has no summary. */
	assert_int_equal(pmc_metric_present(&r->benchmarks[0].metrics[2], values), 0);
	assert_int_equal(pmc_metric_analyze(&r->benchmarks[0].metrics[2], 0.95, &ma), 0);
	assert_false(ma.has_summary);
	pmc_result_free(r);
}

/* The fastest benchmark, from the medians the analysis holds: task-clock's when every
 * benchmark measured it, else wall-time's, else the reference. */
static void test_fastest_by_the_primary_metric(void **state)
{
	struct pmc_result *r = t_result("perf");
	struct pmc_analysis *a = NULL;

	(void)state;
	put(r, "a", "task-clock", 6, 3e6, 0.01);
	put(r, "a", "wall-time", 6, 1e6, 0.01);
	put(r, "b", "task-clock", 6, 2e6, 0.01);
	put(r, "b", "wall-time", 6, 4e6, 0.01);
	assert_int_equal(pmc_analysis_new(r, 0.95, &a), 0);
	assert_int_equal(pmc_analysis_fastest(a, 0), 1);
	pmc_analysis_free(a);
	/* c has no task-clock: wall-time decides, where a is the fastest. */
	put(r, "c", "wall-time", 6, 2e6, 0.01);
	assert_int_equal(pmc_analysis_new(r, 0.95, &a), 0);
	assert_int_equal(pmc_analysis_fastest(a, 2), 0);
	pmc_analysis_free(a);
	/* d has neither: the reference. */
	put(r, "d", "page-faults", 6, 10, 0.01);
	assert_int_equal(pmc_analysis_new(r, 0.95, &a), 0);
	assert_int_equal(pmc_analysis_fastest(a, 2), 2);
	pmc_analysis_free(a);
	pmc_result_free(r);
}

static void test_bad_input(void **state)
{
	struct pmc_result *r = sample();
	struct pmc_analysis *a = (struct pmc_analysis *)&a;
	struct pmc_metric *m = &r->benchmarks[0].metrics[0];
	double *saved = m->values;

	assert_int_equal(pmc_analysis_new(NULL, 0.95, &a), -EINVAL);
	assert_int_equal(pmc_analysis_new(r, 1.0, &a), -EINVAL);
	assert_int_equal(pmc_analysis_new(r, 0, &a), -EINVAL);
	/* A malformed benchmark (values missing) is refused, *ret untouched. */
	m->values = NULL;
	assert_int_equal(pmc_analysis_new(r, 0.95, &a), -EINVAL);
	assert_ptr_equal(a, (struct pmc_analysis *)&a);
	m->values = saved;
	pmc_analysis_free(NULL);
	pmc_result_free(r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_summaries_and_facts),
	    cmocka_unit_test(test_welford),
	    cmocka_unit_test(test_exact),
	    cmocka_unit_test(test_identical_kernel_counts),
	    cmocka_unit_test(test_summarize_for_compare),
	    cmocka_unit_test(test_fastest_by_the_primary_metric),
	    cmocka_unit_test(test_bad_input),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

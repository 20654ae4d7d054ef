/* Change points (harness/2-core/changepoint.c): the statistic against its definition
 * (tests/changepoint_reference.py), a clear step found where it is, a flat noisy series
 * without any, outliers that do not make one, two steps, a change point that stays put
 * when points are appended, and the same answer on every call; an exact series' steps
 * (valgrind's counts) found between its levels, and where a series' current level starts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "core/changepoint.h"
#include "tests/helpers.h"

/* Normal noise from a fixed stream (an LCG and Box-Muller): the same series every run. */
struct noise {
	uint64_t s;
};

static double uniform(struct noise *n)
{
	n->s = n->s * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((double)(n->s >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(struct noise *n)
{
	double u = uniform(n), v = uniform(n);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* x[i] = level(i) * (1 + cv * N(0, 1)). */
static void fill(double *x, size_t from, size_t to, double level, double cv, struct noise *n)
{
	for (size_t i = from; i < to; i++)
		x[i] = level * (1 + cv * gauss(n));
}

static struct pmc_changepoint *find_with(const double *x, size_t n, size_t *ret_n,
					 const struct pmc_cp_opts *o)
{
	struct pmc_changepoint *cps = NULL;

	assert_int_equal(pmc_changepoints(x, n, o, &cps, ret_n), 0);
	return cps;
}

static struct pmc_changepoint *find(const double *x, size_t n, size_t *ret_n, bool raw)
{
	struct pmc_cp_opts o = {.seed = 1, .raw = raw};

	return find_with(x, n, ret_n, &o);
}

static void statistic_matches_its_definition(void **state)
{
	/* The series and values of tests/changepoint_reference.py. */
	const double step[] = {3, 1, 4, 1, 5, 9, 2, 6, 15, 13, 18, 12, 14, 17, 16, 11};
	const double blip[] = {5, 4, 6, 5, 4, 20, 21, 19, 22, 5, 6, 4, 5, 6, 4, 5};
	size_t tau, kappa;
	double q;

	assert_int_equal(pmc_cp_best_split(step, 16, 2, false, &tau, &kappa, &q), 0);
	assert_int_equal(tau, 8);
	assert_int_equal(kappa, 15);
	assert_close(q, 2744.0 / 45, 1e-12);
	assert_int_equal(pmc_cp_best_split(step, 16, 2, true, &tau, &kappa, &q), 0);
	assert_int_equal(tau, 8);
	assert_int_equal(kappa, 16);
	assert_close(q, 60, 1e-12);
	/* A blip: the best kappa ends it, where a kappa fixed at the end sees less. */
	assert_int_equal(pmc_cp_best_split(blip, 16, 2, false, &tau, &kappa, &q), 0);
	assert_int_equal(tau, 5);
	assert_int_equal(kappa, 9);
	assert_close(q, 1724.0 / 27, 1e-12);
	assert_int_equal(pmc_cp_best_split(blip, 16, 2, true, &tau, &kappa, &q), 0);
	assert_int_equal(tau, 9);
	assert_close(q, 563.0 / 32, 1e-12);
	assert_int_equal(pmc_cp_best_split(blip, 3, 2, false, &tau, &kappa, &q), -EINVAL);
}

static void clear_step_is_found_where_it_is(void **state)
{
	struct noise nz = {42};
	double x[120];
	struct pmc_changepoint *cps;
	size_t n;

	fill(x, 0, 70, 100, 0.01, &nz);
	fill(x, 70, 120, 105, 0.01, &nz);
	cps = find(x, 120, &n, false);
	assert_int_equal(n, 1);
	assert_int_equal(cps[0].index, 70);
	assert_int_equal(cps[0].seg_start, 0);
	assert_int_equal(cps[0].seg_end, 120);
	assert_true(cps[0].p <= 0.001);
	assert_close(cps[0].before, 100, 0.01);
	assert_close(cps[0].after, 105, 0.01);
	assert_close(cps[0].ratio, 1.05, 0.005);
	assert_true(cps[0].ratio_lo < 1.05 && 1.05 < cps[0].ratio_hi);
	assert_true(cps[0].ratio_lo > 1.03);
	free(cps);
	/* Plain E-Divisive, with its permutation test, finds it too. */
	cps = find(x, 120, &n, true);
	assert_int_equal(n, 1);
	assert_int_equal(cps[0].index, 70);
	assert_true(cps[0].p <= 0.001);
	free(cps);
}

static void flat_noisy_series_has_none(void **state)
{
	/* Twenty series of 200 points, 3% noise, each its own stream. */
	for (uint64_t s = 1; s <= 20; s++) {
		struct noise nz = {s * 7919};
		double x[200];
		size_t n;
		struct pmc_changepoint *cps;

		fill(x, 0, 200, 1e6, 0.03, &nz);
		cps = find(x, 200, &n, false);
		if (n)
			print_error("series %llu: a change point at %zu (p %g)\n",
				    (unsigned long long)s, cps[0].index, cps[0].p);
		assert_int_equal(n, 0);
		free(cps);
	}
}

static void outliers_make_no_change(void **state)
{
	struct noise nz = {5};
	double x[150];
	struct pmc_changepoint *cps;
	size_t n;

	/* A few points 50x the rest, all in the second half: on ranks they are just the
	 * largest points. */
	fill(x, 0, 150, 100, 0.02, &nz);
	x[100] = x[110] = x[111] = x[130] = x[140] = 5000;
	cps = find(x, 150, &n, false);
	assert_int_equal(n, 0);
	free(cps);
	/* And a real step among them is found where it is. */
	fill(x, 60, 150, 110, 0.02, &nz);
	x[100] = x[110] = x[111] = x[130] = x[140] = 5000;
	x[20] = 9000;
	cps = find(x, 150, &n, false);
	assert_int_equal(n, 1);
	assert_int_equal(cps[0].index, 60);
	free(cps);
}

static void two_steps_are_both_found(void **state)
{
	struct noise nz = {9};
	double x[180];
	struct pmc_changepoint *cps;
	size_t n;

	fill(x, 0, 60, 100, 0.01, &nz);
	fill(x, 60, 120, 110, 0.01, &nz);
	fill(x, 120, 180, 100, 0.01, &nz);
	cps = find(x, 180, &n, false);
	assert_int_equal(n, 2);
	assert_int_equal(cps[0].index, 60);
	assert_int_equal(cps[1].index, 120);
	assert_int_equal(cps[0].seg_end, 120);
	assert_int_equal(cps[1].seg_start, 60);
	assert_close(cps[1].ratio, 100.0 / 110, 0.01);
	free(cps);
}

static void change_point_stays_when_points_are_appended(void **state)
{
	struct noise nz = {77};
	double x[300];
	/* A higher alpha than the default: the change is found earlier, with fewer points. */
	struct pmc_cp_opts o = {.alpha = 0.01};
	size_t n, first = 0, at = 0;

	fill(x, 0, 50, 100, 0.02, &nz);
	fill(x, 50, 300, 103, 0.02, &nz);
	/* The series as it grows, 20 points at a time: once found, the change stays where
	 * it was found (at 49 here: x[49] is 1.5 sigma high, nearer the new level). */
	for (size_t len = 80; len <= 300; len += 20) {
		struct pmc_changepoint *cps = find_with(x, len, &n, &o);

		if (n && !first) {
			first = len;
			at = cps[0].index;
		}
		if (first) {
			if (n != 1 || cps[0].index != at)
				print_error("%zu points: %zu change points, the first at %zu\n",
					    len, n, n ? cps[0].index : 0);
			assert_int_equal(n, 1);
			assert_int_equal(cps[0].index, at);
		}
		free(cps);
	}
	assert_true(first != 0 && first <= 120);
	assert_true(at >= 49 && at <= 51);
}

static void same_answer_every_time(void **state)
{
	struct noise nz = {3};
	double x[100];
	struct pmc_changepoint *a, *b;
	size_t na, nb;

	fill(x, 0, 50, 10, 0.05, &nz);
	fill(x, 50, 100, 10.8, 0.05, &nz);
	a = find(x, 100, &na, false);
	b = find(x, 100, &nb, false);
	assert_int_equal(na, nb);
	assert_int_equal(na, 1);
	assert_int_equal(a[0].index, b[0].index);
	assert_true(a[0].p == b[0].p);
	assert_true(a[0].q == b[0].q);
	free(a);
	free(b);
}

/* An exact series (valgrind's counts): +4.00% at 28 and -1.84% at 34, 6 points before
 * the end. Both are found where they are, each sized by its two levels alone. (On ranks,
 * the second is missed and drags the first to +3.04% [+2.09%, +4.00%].) */
static void exact_steps_are_found_where_they_are(void **state)
{
	struct pmc_cp_opts o = {.exact = true};
	double x[48];
	struct pmc_changepoint *cps;
	size_t n, start;

	for (size_t i = 0; i < 48; i++)
		x[i] = i < 28 ? 5000000 : i < 34 ? 5200000 : 5104320;
	cps = find_with(x, 40, &n, &o);
	assert_int_equal(n, 2);
	assert_int_equal(cps[0].index, 28);
	assert_int_equal(cps[1].index, 34);
	assert_int_equal(cps[0].seg_start, 0);
	assert_int_equal(cps[0].seg_end, 34);
	assert_int_equal(cps[1].seg_start, 28);
	assert_int_equal(cps[1].seg_end, 40);
	assert_close(cps[0].ratio_lo, 1.04, 1e-12);
	assert_true(cps[0].exact && cps[1].exact);
	assert_true(cps[0].p == 0 && cps[1].p == 0);
	assert_close(cps[0].before, 5000000, 1e-12);
	assert_close(cps[0].after, 5200000, 1e-12);
	assert_close(cps[0].ratio, 1.04, 1e-12);
	assert_close(cps[0].ratio_lo, 1.04, 1e-12);
	assert_close(cps[0].ratio_hi, 1.04, 1e-12);
	assert_close(cps[1].ratio, 0.9816, 1e-12);
	assert_close(cps[1].after, 5104320, 1e-12);
	free(cps);
	/* A step of fewer than min-size points is not yet a change; at min-size it is, and
	 * the first stays as it was. */
	cps = find_with(x, 37, &n, &o);
	assert_int_equal(n, 1);
	assert_int_equal(cps[0].index, 28);
	assert_close(cps[0].ratio_lo, 1.04, 1e-12);
	free(cps);
	cps = find_with(x, 38, &n, &o);
	assert_int_equal(n, 2);
	assert_int_equal(cps[1].index, 34);
	free(cps);
	/* A blip of one point, and a level that returns, are no change; points between two
	 * levels belong to neither: the change is placed where the first level ends. */
	x[10] = 4900000;
	x[28] = 5300000;
	x[29] = 5250000;
	cps = find_with(x, 40, &n, &o);
	assert_int_equal(n, 2);
	assert_int_equal(cps[0].index, 28);
	assert_close(cps[0].ratio, 1.04, 1e-12);
	assert_int_equal(cps[1].index, 34);
	free(cps);
	/* The current level: the last run of equal values, however short. */
	assert_int_equal(pmc_cp_current_level(x, 40, &o, &start), 0);
	assert_int_equal(start, 34);
	x[40] = 5000000;
	assert_int_equal(pmc_cp_current_level(x, 41, &o, &start), 0);
	assert_int_equal(start, 40);
	assert_int_equal(pmc_cp_current_level(x, 0, &o, &start), 0);
	assert_int_equal(start, 0);
}

/* Exact counts that are not piecewise constant (every point its own value) go the rank
 * way: the step of a drifting series is still found; a noisy series' current level
 * starts past its last change point. */
static void exact_series_without_levels_go_the_rank_way(void **state)
{
	struct noise nz = {21};
	struct pmc_cp_opts o = {.exact = true};
	struct pmc_cp_opts noisy = {0};
	double x[120];
	struct pmc_changepoint *cps;
	size_t n, start;

	fill(x, 0, 60, 1e6, 0.01, &nz);
	fill(x, 60, 120, 1.05e6, 0.01, &nz);
	cps = find_with(x, 120, &n, &o);
	assert_int_equal(n, 1);
	assert_int_equal(cps[0].index, 60);
	assert_false(cps[0].exact);
	free(cps);
	assert_int_equal(pmc_cp_current_level(x, 120, &noisy, &start), 0);
	assert_int_equal(start, 60);
	assert_int_equal(pmc_cp_current_level(x, 50, &noisy, &start), 0);
	assert_int_equal(start, 0);
}

static void bad_input_is_refused(void **state)
{
	double x[20] = {0};
	struct pmc_changepoint *cps = NULL;
	struct pmc_cp_opts o = {.alpha = 2};
	size_t n = 7;

	x[3] = NAN;
	assert_int_equal(pmc_changepoints(x, 20, NULL, &cps, &n), -EINVAL);
	x[3] = INFINITY;
	assert_int_equal(pmc_changepoints(x, 20, NULL, &cps, &n), -EINVAL);
	x[3] = 0;
	assert_int_equal(pmc_changepoints(x, 20, &o, &cps, &n), -EINVAL);
	/* Too short to split, and constant: none. */
	assert_int_equal(pmc_changepoints(x, 5, NULL, &cps, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(pmc_changepoints(x, 20, NULL, &cps, &n), 0);
	assert_int_equal(n, 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(statistic_matches_its_definition),
	    cmocka_unit_test(clear_step_is_found_where_it_is),
	    cmocka_unit_test(flat_noisy_series_has_none),
	    cmocka_unit_test(outliers_make_no_change),
	    cmocka_unit_test(two_steps_are_both_found),
	    cmocka_unit_test(change_point_stays_when_points_are_appended),
	    cmocka_unit_test(same_answer_every_time),
	    cmocka_unit_test(exact_steps_are_found_where_they_are),
	    cmocka_unit_test(exact_series_without_levels_go_the_rank_way),
	    cmocka_unit_test(bad_input_is_refused),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

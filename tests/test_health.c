/* Sample health (harness/2-core/health.c): the Mann-Kendall test against enumerated
 * reference values (tests/health_reference.py), the Theil-Sen slope against the median of
 * every pairwise slope, and the three checks on synthetic samples from a fixed-seed
 * generator: how often clean samples are flagged (the false-alarm rates quoted in
 * docs/statistics.md, "Sample health") and that drift, outliers and two modes are. */
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

#include "core/health.h"
#include "pmcbench/common.h"

/* |actual - expected| <= tol in double precision (cmocka's assert_float_equal compares
 * floats); prints both values when it fails. */
#define assert_near(actual, expected, tol)                                                         \
	do {                                                                                       \
		double a_ = (actual), e_ = (expected);                                             \
		if (!(fabs(a_ - e_) <= (tol))) {                                                   \
			print_error("%s = %.17g, expected %.17g (+- %g)\n", #actual, a_, e_,       \
				    (double)(tol));                                                \
			fail();                                                                    \
		}                                                                                  \
	} while (0)

/* ---- a deterministic generator: SplitMix64 (G. Steele, D. Lea and C. Flood, "Fast
 * splittable pseudorandom number generators", OOPSLA 2014), Box-Muller normals ---- */

struct rng {
	uint64_t s;
};

static uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in (0, 1), never 0. */
static double rng_unit(struct rng *r)
{
	return ((double)(rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

static double rng_normal(struct rng *r)
{
	double u = rng_unit(r), v = rng_unit(r);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* Lognormal with mean 1 and coefficient of variation cv. */
static double rng_lognormal(struct rng *r, double cv)
{
	double s2 = log(1 + cv * cv);

	return exp(-s2 / 2 + sqrt(s2) * rng_normal(r));
}

/* n clean runs around 1 ms (in ns), lognormal with the given CV. */
static void clean(double *x, size_t n, double cv, uint64_t seed)
{
	struct rng r = {seed * 0x2545f4914f6cdd1dull + 1};

	for (size_t i = 0; i < n; i++)
		x[i] = 1e6 * rng_lognormal(&r, cv);
}

static struct pmc_health check(const double *x, size_t n)
{
	struct pmc_health h;

	assert_int_equal(pmc_health_check(x, n, NULL, &h), 0);
	return h;
}

static bool flagged(const struct pmc_health *h)
{
	return h->drift || h->outliers || h->multimodal;
}

/* ---- Mann-Kendall ---- */

/* Exact p-values with and without ties, from enumerating every order of the values
 * (tests/health_reference.py). */
static void test_mann_kendall_exact(void **state)
{
	static const struct {
		double x[10];
		size_t n;
		long long s;
		double tau, p;
	} ref[] = {
	    {{10.2, 10.0, 10.5, 10.4, 10.9, 10.6, 11.0, 10.8},
	     8,
	     18,
	     0.642857142857143,
	     0.0311507936507937},
	    {{5, 7, 5, 6, 7, 8, 6, 8, 9}, 9, 22, 0.648181216087669, 0.0208994708994709},
	    {{30, 31, 29, 29, 28, 30, 27, 28, 27, 26},
	     10,
	     -31,
	     -0.721711305628564,
	     0.00374779541446208},
	    {{4, 2, 4, 1, 3, 3, 2, 1, 4, 2}, 10, -9, -0.220564386628142, 0.468650793650794},
	};

	for (size_t i = 0; i < sizeof(ref) / sizeof(*ref); i++) {
		struct pmc_health h = check(ref[i].x, ref[i].n);

		assert_true(h.checked_drift);
		assert_true(h.drift_exact);
		assert_int_equal(h.drift_s, ref[i].s);
		assert_near(h.drift_tau, ref[i].tau, 1e-12);
		assert_near(h.drift_p, ref[i].p, 1e-12);
	}
}

/* Past 50 values: the normal approximation with the tie-corrected variance. */
static void test_mann_kendall_normal(void **state)
{
	double x[60];
	struct pmc_health h;

	for (size_t i = 0; i < 60; i++)
		x[i] = (double)((i * 7) % 13 + i / 12);
	h = check(x, 60);
	assert_false(h.drift_exact);
	assert_int_equal(h.drift_s, 499);
	assert_near(h.drift_tau, 0.289632558814595, 1e-12);
	assert_near(h.drift_p, 0.00144445718980259, 1e-12);
	/* 50 values are still counted exactly. */
	h = check(x, 50);
	assert_true(h.drift_exact);
}

/* The p-value is calibrated: on clean samples p < 0.05 about 5% of the time. */
static void test_mann_kendall_calibrated(void **state)
{
	double x[20];
	size_t below05 = 0, below01 = 0;

	for (uint64_t seed = 0; seed < 1000; seed++) {
		struct pmc_health h;

		clean(x, 20, 0.03, seed);
		h = check(x, 20);
		below05 += h.drift_p < 0.05;
		below01 += h.drift_p < 0.01;
	}
	/* Binomial(1000, 0.05): 50 +- 6.9; the bounds are 3 standard deviations. The exact
	 * test is slightly conservative (S moves in steps of 2). */
	print_message("p < 0.05 in %zu, p < 0.01 in %zu of 1000 clean samples\n", below05, below01);
	assert_in_range(below05, 29, 71);
	assert_in_range(below01, 1, 19);
}

/* ---- Theil-Sen ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of every pairwise slope of the present values, against their run index. */
static double brute_theil_sen(const double *x, size_t n)
{
	size_t np = 0;
	double *s = malloc(n * n * sizeof(*s)), med;

	assert_non_null(s);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (!isnan(x[i]) && !isnan(x[j]))
				s[np++] = (x[j] - x[i]) / (double)(j - i);
	qsort(s, np, sizeof(*s), cmp_double);
	med = np % 2 ? s[np / 2] : (s[np / 2 - 1] + s[np / 2]) / 2;
	free(s);
	return med;
}

static void test_theil_sen(void **state)
{
	static const size_t sizes[] = {8, 9, 10, 21, 400};
	double x[400];

	for (size_t k = 0; k < sizeof(sizes) / sizeof(*sizes); k++) {
		size_t n = sizes[k];
		double want;
		struct pmc_health h;

		clean(x, n, 0.05, 77 + k);
		/* A trend the test finds even in 8 runs: only a significant one is sized. */
		for (size_t i = 0; i < n; i++)
			x[i] *= 1 + (n < 50 ? 0.1 : 0.002) * (double)i;
		if (n > 9)
			x[3] = x[7] = NAN; /* skipped, but the slope stays per run */
		want = brute_theil_sen(x, n);
		h = check(x, n);
		assert_true(h.checked_drift);
		if (!(h.drift_p < 0.01))
			fail_msg("n %zu: p %g", n, h.drift_p);
		assert_near(h.drift_slope, want, 1e-9 * fabs(want));
	}
}

/* Many runs: the normal approximation, and the slope selected without storing the
 * 4.5 million pairwise slopes. An alternating +-0.1 around a line of slope 0.5 leaves
 * the pairwise slopes symmetric around 0.5. */
static void test_many_runs(void **state)
{
	size_t n = 3000;
	double *x = malloc(n * sizeof(*x));
	struct pmc_health h;

	assert_non_null(x);
	for (size_t i = 0; i < n; i++)
		x[i] = 1000 + 0.5 * (double)i + (i % 2 ? 0.1 : -0.1);
	h = check(x, n);
	assert_false(h.drift_exact);
	assert_near(h.drift_slope, 0.5, 1e-12);
	assert_true(h.drift_p < 1e-12);
	assert_true(h.drift);
	assert_false(h.outliers || h.multimodal);
	free(x);
}

/* A straight line with gaps: the slope is per run, not per value present. */
static void test_drift_size(void **state)
{
	double x[12];
	struct pmc_health h;

	for (size_t i = 0; i < 12; i++)
		x[i] = 1000 + 5 * (double)i;
	x[0] = x[5] = NAN;
	h = check(x, 12);
	assert_int_equal(h.n, 10);
	assert_near(h.drift_slope, 5, 1e-12);
	assert_near(h.median, 1032.5, 1e-12);
	assert_near(h.drift_rel, 5 / 1032.5, 1e-15);
	/* From run 1 to run 11: 10 steps of 5. */
	assert_int_equal(h.drift_runs, 11);
	assert_near(h.drift_total_rel, 50 / 1032.5, 1e-15);
	assert_true(h.drift);
}

/* ---- false alarms on clean samples ---- */

struct rates {
	size_t any, drift, outliers, modes;
};

static struct rates false_alarms(size_t n, double cv)
{
	struct rates r = {0};
	double x[50];

	for (uint64_t seed = 0; seed < 1000; seed++) {
		struct pmc_health h;

		clean(x, n, cv, seed);
		h = check(x, n);
		assert_true(h.checked_drift && h.checked_outliers);
		assert_true(h.checked_modes == (n >= 10));
		r.any += flagged(&h);
		r.drift += h.drift;
		r.outliers += h.outliers;
		r.modes += h.multimodal;
	}
	print_message(
	    "n = %zu, CV %.0f%%: flagged %zu of 1000 (drift %zu, outliers %zu, modes %zu)\n", n,
	    100 * cv, r.any, r.drift, r.outliers, r.modes);
	return r;
}

/* A clean lognormal sample (CV 3%) is healthy in nearly all of 1000 seeds. The design
 * rates per sample are 1% for drift (alpha 0.01; the 1% size floor removes little at
 * this noise), at most 0.5% for outliers and 0.1% for two modes (docs/statistics.md), 1.6%
 * in all. Each bound is its rate plus 4 binomial standard deviations over 1000 samples
 * (drift 10 + 12.6, all 16 + 15.9), so the test fails when a check is miscalibrated, not
 * by the luck of the seeds. */
static void test_clean_is_healthy(void **state)
{
	struct rates r20 = false_alarms(20, 0.03), r10 = false_alarms(10, 0.03);
	struct rates r8 = false_alarms(8, 0.03), r50 = false_alarms(50, 0.03);

	assert_in_range(r20.drift, 0, 23);
	assert_in_range(r20.outliers, 0, 14);
	assert_in_range(r20.modes, 0, 5);
	assert_in_range(r20.any, 0, 32);
	assert_in_range(r10.any, 0, 32);
	assert_in_range(r8.any, 0, 32);
	assert_in_range(r50.any, 0, 32);
}

/* Skewed samples (CV 30%) raise about 1% outliers (a right tail 10 robust sigmas out is
 * rarer than 1 in 1000 only for symmetric samples) and 0.1% modes in a simulation of
 * 10,000 seeds: 1.1% + 4 standard deviations. */
static void test_skewed_is_healthy(void **state)
{
	struct rates r10 = false_alarms(10, 0.3), r20 = false_alarms(20, 0.3);

	assert_in_range(r10.outliers + r10.modes, 0, 24);
	assert_in_range(r20.outliers + r20.modes, 0, 24);
}

/* ---- what must be flagged ---- */

/* A linear rise of 5% over 20 runs with 1% noise. */
static void test_linear_drift(void **state)
{
	double x[20];
	char text[PMC_HEALTH_DESC_MAX];
	size_t caught = 0;

	for (uint64_t seed = 0; seed < 1000; seed++) {
		struct pmc_health h;

		clean(x, 20, 0.01, seed);
		for (size_t i = 0; i < 20; i++)
			x[i] *= 1 + 0.05 * (double)i / 19;
		h = check(x, 20);
		caught += h.drift;
		if (seed == 0) {
			assert_true(h.drift);
			assert_true(h.drift_s > 0);
			assert_near(h.drift_total_rel, 0.05, 0.015);
			assert_int_equal(pmc_health_describe(&h, text, sizeof(text)), 0);
			assert_string_equal(text, "drifts +4.8% over 20 runs (p<0.001)");
		}
	}
	/* 99.9% power in a simulation of 10,000 seeds: a miss or two at most. */
	print_message("+5%% drift over 20 runs, CV 1%%: flagged in %zu of 1000\n", caught);
	assert_in_range(caught, 990, 1000);
}

/* A falling series is flagged with its sign. */
static void test_falling_drift(void **state)
{
	double x[16];
	char text[PMC_HEALTH_DESC_MAX];
	struct pmc_health h;

	for (size_t i = 0; i < 16; i++)
		x[i] = 200 - 2 * (double)i + (i % 3 == 0 ? 0.5 : 0);
	h = check(x, 16);
	assert_true(h.drift);
	assert_true(h.drift_total_rel < 0);
	assert_int_equal(pmc_health_describe(&h, text, sizeof(text)), 0);
	assert_string_equal(text, "drifts -16% over 16 runs (p<0.001)");
}

/* A significant trend below the size floor is not flagged: an instruction count that
 * creeps by 0.01% is certain but does not matter. */
static void test_small_drift_not_flagged(void **state)
{
	double x[20];
	struct pmc_health h;

	for (size_t i = 0; i < 20; i++)
		x[i] = 1e9 + 5000 * (double)i + (i % 2 ? 300 : 0);
	h = check(x, 20);
	assert_true(h.drift_p < 1e-6);
	assert_false(h.drift_large);
	assert_false(h.drift);
	/* Without the floor it is. */
	struct pmc_health_opts o = {.min_effect = -1};
	assert_int_equal(pmc_health_check(x, 20, &o, &h), 0);
	assert_true(h.drift);
}

/* One run at 3x the median among 19 clean ones. */
static void test_outlier(void **state)
{
	double x[20];
	char text[PMC_HEALTH_DESC_MAX];
	struct pmc_health h;

	clean(x, 20, 0.03, 5);
	x[12] = 3 * 1e6;
	h = check(x, 20);
	assert_true(h.checked_outliers);
	assert_int_equal(h.outliers_severe, 1);
	assert_true(h.outliers);
	assert_near(h.outlier_far_rel, 3 * 1e6 / h.median, 1e-12);
	assert_false(h.drift);
	assert_false(h.multimodal);
	assert_int_equal(pmc_health_describe(&h, text, sizeof(text)), 0);
	assert_string_equal(text, "1 severe outlier (3x the median)");

	/* Two, one of them low. */
	x[3] = 0.5 * 1e6;
	h = check(x, 20);
	assert_int_equal(h.outliers_severe, 2);
	assert_int_equal(pmc_health_describe(&h, text, sizeof(text)), 0);
	assert_string_equal(text, "2 severe outliers (up to 3x the median)");

	/* Below the median: "down to", and a run at 0 is said as such, never "0x". */
	x[12] = 0.2 * 1e6;
	h = check(x, 20);
	assert_int_equal(pmc_health_describe(&h, text, sizeof(text)), 0);
	/* The median of the noisy runs is near 1e6, not at it. */
	assert_memory_equal(text, "2 severe outliers (down to 0.", 29);
	assert_non_null(strstr(text, "x the median)"));
	x[12] = 0;
	h = check(x, 20);
	assert_int_equal(pmc_health_describe(&h, text, sizeof(text)), 0);
	assert_string_equal(text, "2 severe outliers (down to 0)");
	x[3] = 1e6;
	h = check(x, 20);
	assert_int_equal(pmc_health_describe(&h, text, sizeof(text)), 0);
	assert_string_equal(text, "1 severe outlier (at 0)");
}

/* Half the runs at one level, half 20% higher, alternating (no trend), 1% noise. */
static void test_two_modes(void **state)
{
	double x[20];
	char text[PMC_HEALTH_DESC_MAX];
	size_t caught = 0;

	for (uint64_t seed = 0; seed < 1000; seed++) {
		struct pmc_health h;

		clean(x, 20, 0.01, seed);
		for (size_t i = 1; i < 20; i += 2)
			x[i] *= 1.2;
		h = check(x, 20);
		caught += h.multimodal;
		assert_false(h.drift);
		if (seed == 0) {
			assert_true(h.multimodal);
			assert_int_equal(h.mode_n_lo, 10);
			assert_int_equal(h.mode_n_hi, 10);
			assert_near(h.mode_hi / h.mode_lo, 1.2, 0.02);
			assert_int_equal(pmc_health_describe(&h, text, sizeof(text)), 0);
			assert_string_equal(text, "two modes 19% apart (10 and 10 runs)");
		}
	}
	print_message("two modes 20%% apart, CV 1%%: flagged in %zu of 1000\n", caught);
	assert_in_range(caught, 990, 1000);
}

/* A counter of a few distinct integers is not two modes because of its steps; one of two
 * values is. */
static void test_modes_of_counts(void **state)
{
	static const double spread[12] = {30, 31, 32, 33, 31, 32, 30, 33, 32, 31, 30, 33};
	static const double two[12] = {30, 40, 30, 40, 30, 40, 40, 30, 30, 40, 30, 40};
	struct pmc_health h = check(spread, 12);

	assert_true(h.checked_modes);
	assert_false(h.multimodal);
	h = check(two, 12);
	assert_true(h.multimodal);
	assert_near(h.mode_sd, 0, 0);
}

/* Small counts one or two apart are jitter at the counter's resolution, not two modes
 * (issue 31: "context-switches two modes 33% apart" for 3 and 4); three apart are. */
static void test_small_counts_are_not_two_modes(void **state)
{
	static const double adjacent[12] = {3, 4, 3, 4, 3, 4, 4, 3, 3, 4, 3, 4};
	static const double two_apart[12] = {3, 5, 3, 5, 3, 5, 5, 3, 3, 5, 3, 5};
	static const double three_apart[12] = {3, 6, 3, 6, 3, 6, 6, 3, 3, 6, 3, 6};
	/* The same shape in a time (not whole numbers) is two modes. */
	static const double times[12] = {3.1, 4.1, 3.1, 4.1, 3.1, 4.1,
					 4.1, 3.1, 3.1, 4.1, 3.1, 4.1};
	struct pmc_health h = check(adjacent, 12);

	(void)state;
	assert_true(h.checked_modes);
	assert_false(h.multimodal);
	h = check(two_apart, 12);
	assert_false(h.multimodal);
	h = check(three_apart, 12);
	assert_true(h.multimodal);
	h = check(times, 12);
	assert_true(h.multimodal);
}

/* Exact counts (valgrind): every value equal, nothing to flag, nothing undefined. */
static void test_constant(void **state)
{
	double x[12];
	struct pmc_health h;

	for (size_t i = 0; i < 12; i++)
		x[i] = 123456789;
	h = check(x, 12);
	assert_true(h.checked_drift && h.checked_outliers && h.checked_modes);
	assert_false(flagged(&h));
	assert_int_equal(h.drift_s, 0);
	assert_near(h.drift_p, 1, 0);
	assert_near(h.drift_tau, 0, 0);
	/* No trend: not sized. */
	assert_true(isnan(h.drift_slope) && isnan(h.drift_total_rel));
	assert_false(h.drift_large);
	assert_int_equal(h.outliers_mild + h.outliers_severe, 0);
}

/* A median of 0 (a counter of rare events) cannot be judged against a relative floor. */
static void test_zero_median(void **state)
{
	static const double x[12] = {0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 9};
	struct pmc_health h = check(x, 12);

	struct pmc_health_opts no_floor = {.min_effect = -1};
	static const double rising[12] = {0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5};
	char text[PMC_HEALTH_DESC_MAX];

	assert_true(h.checked_outliers);
	assert_false(flagged(&h));
	assert_true(isnan(h.drift_total_rel));
	assert_true(isnan(h.outlier_far_rel));
	/* Without a floor the two runs with events are outliers (the MAD is 0). */
	assert_int_equal(pmc_health_check(x, 12, &no_floor, &h), 0);
	assert_true(h.outliers);
	assert_int_equal(h.outliers_severe, 2);
	assert_int_equal(pmc_health_describe(&h, text, sizeof(text)), 0);
	assert_string_equal(text, "2 severe outliers");
	/* And a rise from 0 drifts "up", with no share of the median to quote. */
	assert_int_equal(pmc_health_check(rising, 12, &no_floor, &h), 0);
	assert_true(h.drift);
	assert_true(h.drift_slope > 0);
	h.outliers = h.multimodal = false;
	assert_int_equal(pmc_health_describe(&h, text, sizeof(text)), 0);
	/* Every untied pair rises: p = 2 / (12! / 7!). */
	assert_near(h.drift_p, 2.0 / 95040, 1e-15);
	assert_string_equal(text, "drifts up over 12 runs (p<0.001)");
}

/* ---- too few values: not checked, never "healthy" ---- */

static void test_too_few(void **state)
{
	double x[12];
	char text[PMC_HEALTH_DESC_MAX] = "x";
	struct pmc_health h;

	clean(x, 12, 0.03, 1);
	x[2] = 5e6; /* would be an outlier */
	h = check(x, 7);
	assert_int_equal(h.n, 7);
	assert_false(h.checked_drift || h.checked_outliers || h.checked_modes);
	assert_false(flagged(&h));
	assert_true(isnan(h.drift_p));
	assert_int_equal(pmc_health_describe(&h, text, sizeof(text)), 0);
	assert_string_equal(text, "");

	/* 12 entries, 3 not measured: 9 values, enough for drift and outliers only. */
	x[4] = x[8] = x[10] = NAN;
	h = check(x, 12);
	assert_int_equal(h.n, 9);
	assert_true(h.checked_drift && h.checked_outliers);
	assert_false(h.checked_modes);
	assert_true(h.outliers);

	/* Nothing measured. */
	for (size_t i = 0; i < 12; i++)
		x[i] = NAN;
	h = check(x, 12);
	assert_int_equal(h.n, 0);
	assert_false(h.checked_drift || h.checked_outliers || h.checked_modes);
	h = check(NULL, 0);
	assert_int_equal(h.n, 0);

	/* The minimums are options. */
	struct pmc_health_opts o = {.min_n_drift = 20, .min_n_modes = 6};
	clean(x, 12, 0.03, 1);
	assert_int_equal(pmc_health_check(x, 12, &o, &h), 0);
	assert_false(h.checked_drift);
	assert_true(h.checked_modes);
}

/* ---- many metrics: Benjamini-Hochberg ---- */

/* Five checked metrics with p = 0.001, 0.004, 0.03, 0.2, 0.5 (in shuffled order): BH gives
 * q_(i) = min over k >= i of 5 p_(k) / k = 0.005, 0.01, 0.05, 0.25, 0.5. */
static void test_adjust(void **state)
{
	static const double p[5] = {0.03, 0.001, 0.5, 0.004, 0.2};
	static const double q[5] = {0.05, 0.005, 0.5, 0.01, 0.25};
	struct pmc_health h[7], *hp[7];

	for (size_t k = 0; k < 5; k++)
		h[k] = (struct pmc_health){
		    .checked_drift = true, .drift_large = true, .drift_p = p[k], .drift_q = NAN};
	/* Significant but too small to flag; and not checked at all. */
	h[5] = (struct pmc_health){.checked_drift = true, .drift_p = 0.0001, .drift_q = NAN};
	h[6] = (struct pmc_health){.drift_p = NAN, .drift_q = NAN};
	for (size_t k = 0; k < 7; k++)
		hp[k] = &h[k];
	assert_int_equal(pmc_health_adjust(hp, 7, 0.02), 0);
	/* Six checked metrics now: q = 6 p_(k) / k over 0.0001, 0.001, 0.004, 0.03, 0.2, 0.5. */
	assert_near(h[5].drift_q, 0.0006, 1e-15);
	assert_near(h[1].drift_q, 0.003, 1e-15);
	assert_near(h[3].drift_q, 0.008, 1e-15);
	assert_near(h[0].drift_q, 0.045, 1e-15);
	assert_true(h[1].drift && h[3].drift);
	assert_false(h[0].drift || h[2].drift || h[4].drift);
	assert_false(h[5].drift); /* below the size floor */
	assert_true(isnan(h[6].drift_q));
	assert_false(h[6].drift);

	/* Without the small one: the five of the comment above. */
	assert_int_equal(pmc_health_adjust(hp, 5, 0.02), 0);
	for (size_t k = 0; k < 5; k++)
		assert_near(h[k].drift_q, q[k], 1e-15);

	/* alpha 0 means the default 0.01: q = 0.005 passes, 0.01 does not. */
	assert_int_equal(pmc_health_adjust(hp, 5, 0), 0);
	assert_true(h[1].drift);
	assert_false(h[3].drift);

	hp[3] = NULL;
	assert_int_equal(pmc_health_adjust(hp, 5, 0.05), -EINVAL);
	assert_int_equal(pmc_health_adjust(hp, 3, 1), -EINVAL);
	assert_int_equal(pmc_health_adjust(NULL, 0, 0.05), 0);
}

/* ---- the phrase ---- */

static void test_describe(void **state)
{
	struct pmc_health h = {
	    .drift = true,
	    .drift_slope = 0.2,
	    .drift_total_rel = 0.0412,
	    .drift_runs = 20,
	    .drift_p = 0.00213,
	    .drift_q = NAN,
	    .outliers = true,
	    .outliers_severe = 2,
	    .outlier_far_rel = 3.0,
	    .multimodal = true,
	    .mode_lo = 1.2,
	    .mode_hi = 1.5,
	    .mode_n_lo = 12,
	    .mode_n_hi = 8,
	};
	char text[PMC_HEALTH_DESC_MAX], small[16] = "untouched";

	assert_int_equal(pmc_health_describe(&h, text, sizeof(text)), 0);
	assert_string_equal(text, "drifts +4.1% over 20 runs (p=0.0021); 2 severe outliers (up to "
				  "3x the median); two modes 25% apart (12 and 8 runs)");
	assert_int_equal(pmc_health_describe(&h, small, sizeof(small)), -ENOSPC);
	assert_string_equal(small, "untouched");
	h.drift_q = 0.0213;
	h.outliers = h.multimodal = false;
	assert_int_equal(pmc_health_describe(&h, text, sizeof(text)), 0);
	assert_string_equal(text, "drifts +4.1% over 20 runs (q=0.021)");
	/* A drift around a median of 0 (flagged only without a size floor) has no share. */
	h.drift_total_rel = NAN;
	h.drift_slope = -1;
	h.drift_q = 0.5e-3;
	assert_int_equal(pmc_health_describe(&h, text, sizeof(text)), 0);
	assert_string_equal(text, "drifts down over 20 runs (q<0.001)");
	assert_int_equal(pmc_health_describe(NULL, text, sizeof(text)), -EINVAL);
	assert_int_equal(pmc_health_describe(&h, NULL, 5), -EINVAL);
}

/* ---- bad input ---- */

static void test_bad_input(void **state)
{
	double x[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
	struct pmc_health h = {.n = 77};

	assert_int_equal(pmc_health_check(x, 10, NULL, NULL), -EINVAL);
	assert_int_equal(pmc_health_check(NULL, 10, NULL, &h), -EINVAL);
	x[4] = INFINITY;
	assert_int_equal(pmc_health_check(x, 10, NULL, &h), -EINVAL);
	x[4] = 5;
	struct pmc_health_opts bad_alpha = {.alpha = 1};
	assert_int_equal(pmc_health_check(x, 10, &bad_alpha, &h), -EINVAL);
	struct pmc_health_opts bad_effect = {.min_effect = NAN};
	assert_int_equal(pmc_health_check(x, 10, &bad_effect, &h), -EINVAL);
	struct pmc_health_opts bad_n = {.min_n_drift = 3};
	assert_int_equal(pmc_health_check(x, 10, &bad_n, &h), -EINVAL);
	/* A spread whose square overflows. */
	x[0] = -1e300;
	assert_int_equal(pmc_health_check(x, 10, NULL, &h), -ERANGE);
	x[0] = 1;
	assert_int_equal(h.n, 77); /* untouched on failure */
	bad_n.min_n_drift = 4;
	assert_int_equal(pmc_health_check(x, 10, &bad_n, &h), 0);
	assert_int_equal(h.n, 10);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mann_kendall_exact),
	    cmocka_unit_test(test_mann_kendall_normal),
	    cmocka_unit_test(test_mann_kendall_calibrated),
	    cmocka_unit_test(test_theil_sen),
	    cmocka_unit_test(test_drift_size),
	    cmocka_unit_test(test_many_runs),
	    cmocka_unit_test(test_clean_is_healthy),
	    cmocka_unit_test(test_skewed_is_healthy),
	    cmocka_unit_test(test_linear_drift),
	    cmocka_unit_test(test_falling_drift),
	    cmocka_unit_test(test_small_drift_not_flagged),
	    cmocka_unit_test(test_outlier),
	    cmocka_unit_test(test_two_modes),
	    cmocka_unit_test(test_modes_of_counts),
	    cmocka_unit_test(test_small_counts_are_not_two_modes),
	    cmocka_unit_test(test_constant),
	    cmocka_unit_test(test_zero_median),
	    cmocka_unit_test(test_too_few),
	    cmocka_unit_test(test_adjust),
	    cmocka_unit_test(test_describe),
	    cmocka_unit_test(test_bad_input),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

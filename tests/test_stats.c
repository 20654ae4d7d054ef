/* Statistics checked against reference values.
 *
 * Unless a comment says otherwise, references come from Python on Debian 12 with
 * scipy 1.10.1, numpy 1.24.2 and statsmodels 0.13.5 (Debian packages):
 *   scipy.stats.mannwhitneyu(a, b, alternative='two-sided', method='exact' or
 *     'asymptotic', use_continuity=True)
 *   scipy.stats.binom.cdf for the order statistics of the median CI
 *   statsmodels.stats.multitest.multipletests(p, method='fdr_bh')
 *   scipy.stats.gmean, scipy.stats.median_abs_deviation(x, scale=1.0)
 *   Hodges-Lehmann by brute force: numpy.median and numpy.sort of all n1*n2 differences
 *   log(b_j) - log(a_i); the exact critical value k by enumerating every one of the
 *   C(n1+n2, n1) rank arrangements with itertools.combinations (no recurrence).
 * The test never runs Python: the numbers are copied here beside their inputs.
 */
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

#include "tests/helpers.h"

#include "core/stats.h"
#include "core/stats_priv.h"

/* ---- summary ---- */

static void test_summary_basic_and_mad(void **state)
{
	/* x = [1,1,2,2,4,6,9] (shuffled): numpy mean 3.5714285714285716,
	 * np.std(ddof=1) 2.9920529661723827, median 2.0,
	 * scipy.stats.median_abs_deviation(scale=1.0) 1.0. */
	const double x[] = {4, 1, 9, 2, 6, 1, 2};
	struct pmc_summary s;

	assert_int_equal(pmc_summary_compute(x, ARRAY_SIZE(x), 0.95, &s), 0);
	assert_int_equal(s.n, 7);
	assert_close(s.mean, 3.5714285714285716, 1e-15);
	assert_close(s.stddev, 2.9920529661723827, 1e-14);
	assert_close(s.median, 2.0, 0);
	assert_close(s.mad, 1.0, 0);
	assert_close(s.min, 1.0, 0);
	assert_close(s.max, 9.0, 0);
	assert_close(s.cv, 2.9920529661723827 / 3.5714285714285716, 1e-14);
	assert_close(s.confidence, 0.95, 0);
	/* n = 7 at 95%: j = 1 (binom.cdf(0, 7, .5) = 0.0078 <= 0.025, cdf(1) = 0.0625),
	 * so the CI is [x_(1), x_(7)] with coverage 0.984375. */
	assert_true(s.has_ci);
	assert_close(s.ci_lo, 1.0, 0);
	assert_close(s.ci_hi, 9.0, 0);
}

/* CI of the median from x = 1..n: the bounds are the order statistics x_(j), x_(n-j+1)
 * with j the largest integer such that binom.cdf(j - 1, n, 0.5) <= (1 - conf) / 2
 * (scipy 1.10.1):
 *   95%: n=5 none; n=6 j=1 (coverage 0.96875); n=7 j=1; n=10 j=2 (0.978515625);
 *        n=20 j=6 (0.9586105346679688); n=50 j=18; n=1000 j=469 (0.9537088026395019);
 *        n=1001 j=470 (0.9500154764972456); n=5000 j=2431 (0.9506841418958285).
 *   n=10: 90% j=2, 99% j=1. */
static void check_median_ci(size_t n, double conf, size_t j)
{
	double *x = malloc(n * sizeof(*x));
	struct pmc_summary s;

	assert_non_null(x);
	/* Descending, to show the order statistics come from sorted values. */
	for (size_t i = 0; i < n; i++)
		x[i] = (double)(n - i);
	assert_int_equal(pmc_summary_compute(x, n, conf, &s), 0);
	if (j == 0) {
		assert_false(s.has_ci);
		assert_true(isnan(s.ci_lo) && isnan(s.ci_hi));
	} else {
		assert_true(s.has_ci);
		assert_close(s.ci_lo, (double)j, 0);
		assert_close(s.ci_hi, (double)(n - j + 1), 0);
	}
	free(x);
}

static void test_summary_median_ci_order_statistics(void **state)
{
	check_median_ci(5, 0.95, 0);
	check_median_ci(6, 0.95, 1);
	check_median_ci(7, 0.95, 1);
	check_median_ci(10, 0.95, 2);
	check_median_ci(20, 0.95, 6);
	check_median_ci(50, 0.95, 18);
	check_median_ci(1000, 0.95, 469);
	check_median_ci(1001, 0.95, 470); /* past 1000 the binomial walk runs in log space */
	check_median_ci(5000, 0.95, 2431);
	check_median_ci(10, 0.90, 2);
	check_median_ci(10, 0.99, 1);
}

static void test_summary_welford_large_offset(void **state)
{
	/* 1e9 + {4, 7, 13, 16}: the sample variance is exactly 30 (deviations -6 -3 3 6).
	 * The one-pass formula (sum x^2 - (sum x)^2 / n) / (n - 1) gives -170.66666666666666
	 * in doubles (computed here and by Python), Welford's update gives 30. */
	const double x[] = {1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16};
	double sum = 0, sum2 = 0;
	struct pmc_summary s;

	for (size_t i = 0; i < ARRAY_SIZE(x); i++) {
		sum += x[i];
		sum2 += x[i] * x[i];
	}
	double naive = (sum2 - sum * sum / 4) / 3;

	/* The naive figure is wrong, so this data does discriminate. */
	assert_true(fabs(naive - 30) > 100);

	assert_int_equal(pmc_summary_compute(x, ARRAY_SIZE(x), 0.95, &s), 0);
	assert_close(s.mean, 1e9 + 10, 1e-15);
	assert_close(s.stddev, 5.477225575051661, 1e-12);
	assert_close(s.median, 1e9 + 10, 0);
	assert_close(s.mad, 4.5, 0); /* |dev| = 6 3 3 6, median 4.5 */
}

static void test_summary_nan_skipped(void **state)
{
	/* NAN marks runs that were not measured: the summary of {4,1,9,2,6,1,2} plus NANs
	 * equals the summary without them. */
	const double x[] = {NAN, 4, 1, NAN, 9, 2, 6, 1, 2, NAN};
	const double clean[] = {4, 1, 9, 2, 6, 1, 2};
	struct pmc_summary s, c;

	assert_int_equal(pmc_summary_compute(x, ARRAY_SIZE(x), 0.95, &s), 0);
	assert_int_equal(pmc_summary_compute(clean, ARRAY_SIZE(clean), 0.95, &c), 0);
	assert_int_equal(s.n, 7);
	assert_close(s.mean, c.mean, 0);
	assert_close(s.stddev, c.stddev, 0);
	assert_close(s.median, c.median, 0);
	assert_close(s.mad, c.mad, 0);
	assert_close(s.ci_lo, c.ci_lo, 0);
	assert_close(s.ci_hi, c.ci_hi, 0);
}

static void test_summary_edges(void **state)
{
	const double one[] = {42};
	const double same[] = {5, 5, 5, 5, 5, 5, 5, 5};
	const double zero_mean[] = {-1, 1};
	const double nans[] = {NAN, NAN};
	const double inf[] = {1, INFINITY};
	const double huge[] = {1.5e308, -1.5e308, 1.5e308};
	struct pmc_summary s;

	/* n = 1: stddev 0 as stats.h promises, MAD 0, no CI. */
	assert_int_equal(pmc_summary_compute(one, 1, 0.95, &s), 0);
	assert_int_equal(s.n, 1);
	assert_close(s.mean, 42, 0);
	assert_close(s.median, 42, 0);
	assert_true(s.stddev == 0 && s.mad == 0 && s.cv == 0);
	assert_false(s.has_ci);

	/* All equal: zero spread, and a CI (n = 8) that is the single value. */
	assert_int_equal(pmc_summary_compute(same, ARRAY_SIZE(same), 0.95, &s), 0);
	assert_true(s.stddev == 0 && s.mad == 0 && s.cv == 0);
	assert_true(s.has_ci);
	assert_close(s.ci_lo, 5, 0);
	assert_close(s.ci_hi, 5, 0);

	/* Mean 0: CV is undefined and stats.h says NAN. */
	assert_int_equal(pmc_summary_compute(zero_mean, 2, 0.95, &s), 0);
	assert_true(isnan(s.cv));
	/* A subnormal mean would make stddev / |mean| overflow: NAN too, never Inf. */
	const double tiny_mean[] = {-1, 1, 1e-320};

	assert_int_equal(pmc_summary_compute(tiny_mean, 3, 0.95, &s), 0);
	assert_true(isnan(s.cv));

	/* Errors leave *ret untouched. */
	memset(&s, 0x5a, sizeof(s));
	struct pmc_summary before = s;

	assert_int_equal(pmc_summary_compute(nans, 2, 0.95, &s), -EINVAL);
	assert_int_equal(pmc_summary_compute(one, 0, 0.95, &s), -EINVAL);
	assert_int_equal(pmc_summary_compute(NULL, 3, 0.95, &s), -EINVAL);
	assert_int_equal(pmc_summary_compute(one, 1, 0.95, NULL), -EINVAL);
	assert_int_equal(pmc_summary_compute(one, 1, 0, &s), -EINVAL);
	assert_int_equal(pmc_summary_compute(one, 1, 1, &s), -EINVAL);
	assert_int_equal(pmc_summary_compute(one, 1, NAN, &s), -EINVAL);
	assert_int_equal(pmc_summary_compute(inf, 2, 0.95, &s), -EINVAL);
	/* Finite input whose variance overflows a double: an error, not Inf. */
	assert_int_equal(pmc_summary_compute(huge, 3, 0.95, &s), -ERANGE);
	assert_memory_equal(&s, &before, sizeof(s));
}

static void test_summary_large_heap_path(void **state)
{
	/* More values than the stack buffer: x = 1..1000 shuffled by i*389 mod 1000 + 1.
	 * Mean 500.5, median 500.5, MAD 250 (|dev| are 0.5..499.5 twice), sample stddev
	 * sqrt(n (n + 1) / 12) = 288.8194360957494, CI j = 469 as above. */
	double x[1000];
	struct pmc_summary s;

	for (size_t i = 0; i < 1000; i++)
		x[i] = (double)((i * 389) % 1000 + 1);
	assert_int_equal(pmc_summary_compute(x, 1000, 0.95, &s), 0);
	assert_close(s.mean, 500.5, 1e-15);
	assert_close(s.median, 500.5, 0);
	assert_close(s.mad, 250, 0);
	assert_close(s.stddev, 288.8194360957494, 1e-14);
	assert_close(s.ci_lo, 469, 0);
	assert_close(s.ci_hi, 532, 0);
}

/* ---- Mann-Whitney U ---- */

static void test_mwu_exact_no_ties(void **state)
{
	/* a = [1.1,2.3,3.5,4.2,5.9], b = [2.0,6.1,7.3,8.8,9.4,10.2]:
	 * scipy exact U = 4.0, p = 0.05194805194805195 (= 24/462). */
	const double a[] = {1.1, 2.3, 3.5, 4.2, 5.9};
	const double b[] = {2.0, 6.1, 7.3, 8.8, 9.4, 10.2};
	struct pmc_mwu r;

	assert_int_equal(pmc_mann_whitney(a, 5, b, 6, NULL, &r), 0);
	assert_int_equal(r.n1, 5);
	assert_int_equal(r.n2, 6);
	assert_true(r.exact);
	assert_close(r.u, 4.0, 0);
	assert_close(r.p, 0.05194805194805195, 1e-12);

	/* Swapped: U of the first sample is n1 n2 - 4 = 26, same two-sided p. */
	assert_int_equal(pmc_mann_whitney(b, 6, a, 5, NULL, &r), 0);
	assert_close(r.u, 26.0, 0);
	assert_close(r.p, 0.05194805194805195, 1e-12);

	/* [3,1,2] vs [6,5,4]: complete separation, scipy exact U = 0, p = 0.1 (2/20). */
	const double c[] = {3, 1, 2}, d[] = {6, 5, 4};

	assert_int_equal(pmc_mann_whitney(c, 3, d, 3, NULL, &r), 0);
	assert_close(r.u, 0, 0);
	assert_close(r.p, 0.1, 1e-12);
}

static void test_mwu_ties_normal(void **state)
{
	/* Ties past 25 per side: the normal approximation with tie and continuity
	 * correction. a_i = i mod 7, b_j = (j mod 8) + 1 (i, j < 26); U = 222,
	 * p = 0.033123058620578176 (tests/mwu_ties_reference.py, normal(), the formula of
	 * scipy.stats.mannwhitneyu(method='asymptotic')). */
	double a[26], b[26];
	struct pmc_mwu r;

	for (size_t i = 0; i < 26; i++) {
		a[i] = (double)(i % 7);
		b[i] = (double)(i % 8 + 1);
	}
	assert_int_equal(pmc_mann_whitney(a, 26, b, 26, NULL, &r), 0);
	assert_false(r.exact);
	assert_close(r.u, 222, 0);
	assert_close(r.p, 0.033123058620578176, 1e-9);
}

/* Reference values by enumerating every split of the pooled values under mid-ranks,
 * p = min(1, 2 min(P(S <= s), P(S >= s))): tests/mwu_ties_reference.py (brute(), and
 * count() for 25 + 25), as scipy.stats.permutation_test on the rank sum. */
static void test_mwu_exact_ties(void **state)
{
	static const struct {
		double a[10], b[10];
		size_t na, nb;
		double u, p;
	} cases[] = {
	    /* Issue 8: the normal approximation says 0.044, the exact p is 5/63. */
	    {{101, 102, 100, 100, 100}, {100, 99, 98, 99, 100}, 5, 5, 22, 5.0 / 63},
	    /* Mid-ranks across both samples: 1/66 (normal 0.0130). The two tails differ
	     * here: P(|S - mu| >= |s - mu|) would be 0.0099. */
	    {{1, 2, 2, 3, 3, 3, 4}, {3, 4, 4, 5, 5, 6}, 7, 6, 3.5, 1.0 / 66},
	    /* Heavy ties over 10 + 10: 851/92378 (normal 0.00848). */
	    {{1, 1, 1, 2, 2, 2, 2, 3, 3, 3},
	     {2, 2, 3, 3, 3, 3, 4, 4, 4, 5},
	     10,
	     10,
	     16,
	     851.0 / 92378},
	    /* A small counter, 2,2 against 3,3: 1/3 (normal 0.194). */
	    {{2, 2}, {3, 3}, 2, 2, 0, 1.0 / 3},
	    /* 4 + 4 separated, ties within each side only: the no-ties 2/70. */
	    {{2, 2, 2, 2}, {3, 3, 3, 3}, 4, 4, 0, 1.0 / 35},
	    /* Unequal sizes, asymmetric tie pattern: 2/105 (the other tail rule: 0.0143). */
	    {{1, 1, 1, 2}, {2, 3, 4, 5, 6, 7}, 4, 6, 0.5, 2.0 / 105},
	    /* Issue 8, case 3 (test_compare.c): 10/231 (normal 0.0239). */
	    {{98, 98, 98, 99, 99, 99}, {99, 99, 99, 100, 100, 100}, 6, 6, 4.5, 10.0 / 231},
	};
	struct pmc_mwu r;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(
		    pmc_mann_whitney(cases[i].a, cases[i].na, cases[i].b, cases[i].nb, NULL, &r),
		    0);
		assert_true(r.exact);
		assert_close(r.u, cases[i].u, 0);
		assert_close(r.p, cases[i].p, 1e-12);
		/* The other way round: the same p, U of the other sample. */
		assert_int_equal(
		    pmc_mann_whitney(cases[i].b, cases[i].nb, cases[i].a, cases[i].na, NULL, &r),
		    0);
		assert_true(r.exact);
		assert_close(r.u, (double)(cases[i].na * cases[i].nb) - cases[i].u, 0);
		assert_close(r.p, cases[i].p, 1e-12);
	}
}

static void test_mwu_exact_ties_boundary_25(void **state)
{
	/* a_i = i mod 7, b_j = (j mod 8) + 1 (i, j < 25): the largest tied design counted
	 * exactly. U = 194.5, p = 1293347568935/63205303218876 = 0.020462643212962976
	 * (tests/mwu_ties_reference.py, count(): C(50, 25) splits are too many to list). At
	 * 26 per side the same formulas go to the normal approximation
	 * (test_mwu_ties_normal). */
	double a[25], b[25];
	struct pmc_mwu r;

	for (size_t i = 0; i < 25; i++) {
		a[i] = (double)(i % 7);
		b[i] = (double)(i % 8 + 1);
	}
	assert_int_equal(pmc_mann_whitney(a, 25, b, 25, NULL, &r), 0);
	assert_true(r.exact);
	assert_close(r.u, 194.5, 0);
	assert_close(r.p, 0.020462643212962976, 1e-12);
	/* 25 + 24 in either order stays exact. */
	assert_int_equal(pmc_mann_whitney(a, 25, b, 24, NULL, &r), 0);
	assert_true(r.exact);
	assert_int_equal(pmc_mann_whitney(b, 24, a, 25, NULL, &r), 0);
	assert_true(r.exact);
}

static void test_mwu_ties_do_not_use_the_untied_table(void **state)
{
	/* The distribution without ties is memoised per (n1, n2); a tied sample of the same
	 * sizes has another distribution and must not be served from it. 5 + 5: no ties,
	 * complete separation, 2/252; then the tied 5 + 5, 5/63; then the untied
	 * one again. */
	const double a[] = {1, 2, 3, 4, 5}, b[] = {6, 7, 8, 9, 10};
	const double ta[] = {101, 102, 100, 100, 100}, tb[] = {100, 99, 98, 99, 100};
	struct pmc_mwu r;

	for (int i = 0; i < 2; i++) {
		assert_int_equal(pmc_mann_whitney(a, 5, b, 5, NULL, &r), 0);
		assert_true(r.exact);
		assert_close(r.p, 2.0 / 252, 1e-12);
		assert_int_equal(pmc_mann_whitney(ta, 5, tb, 5, NULL, &r), 0);
		assert_true(r.exact);
		assert_close(r.p, 5.0 / 63, 1e-12);
	}
}

static void fill_linear(double *x, size_t n, double slope, double offset)
{
	for (size_t i = 0; i < n; i++)
		x[i] = (double)i * slope + offset;
}

static void test_mwu_exact_boundary_50(void **state)
{
	/* a_i = i*1.3 + 0.1 (i < 50), b_j = j*1.2 + 7.05 (j < 50), no ties:
	 * scipy exact U = 1078, p = 0.23823450815008967 (asymptotic would be
	 * 0.237090608990298, so this tells the branches apart). */
	double a[51], b[50];
	struct pmc_mwu r;

	fill_linear(a, 51, 1.3, 0.1);
	fill_linear(b, 50, 1.2, 7.05);
	assert_int_equal(pmc_mann_whitney(a, 50, b, 50, NULL, &r), 0);
	assert_true(r.exact);
	assert_close(r.u, 1078, 0);
	assert_close(r.p, 0.23823450815008967, 1e-10);

	/* Same formulas with 51 values in a: past the exact limit, scipy asymptotic
	 * U = 1127, p = 0.31640516337728664. */
	assert_int_equal(pmc_mann_whitney(a, 51, b, 50, NULL, &r), 0);
	assert_false(r.exact);
	assert_close(r.u, 1127, 0);
	assert_close(r.p, 0.31640516337728664, 1e-9);
}

static void test_mwu_exact_cache_consistent(void **state)
{
	/* A distribution kept by the caller gives the same answer on every call as one built
	 * for the call, in either argument order ((5,6) and (6,5) share one table), and the
	 * same interval. */
	const double a[] = {1.1, 2.3, 3.5, 4.2, 5.9};
	const double b[] = {2.0, 6.1, 7.3, 8.8, 9.4, 10.2};
	struct pmc_mwu_tables *t = NULL;
	struct pmc_mwu r0, r1, r2;
	double ratio0, lo0, hi0, ratio, lo, hi;

	assert_int_equal(pmc_mwu_tables_new(&t), 0);
	assert_int_equal(pmc_mann_whitney(a, 5, b, 6, NULL, &r0), 0);
	assert_int_equal(pmc_ratio_ci(a, 5, b, 6, 0.95, NULL, &ratio0, &lo0, &hi0), 0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(pmc_mann_whitney(b, 6, a, 5, t, &r1), 0);
		assert_int_equal(pmc_mann_whitney(a, 5, b, 6, t, &r2), 0);
		assert_true(r1.p == r2.p && r1.p == r0.p);
		assert_close(r1.p, 0.05194805194805195, 1e-12);
		assert_int_equal(pmc_ratio_ci(a, 5, b, 6, 0.95, t, &ratio, &lo, &hi), 0);
		assert_true(ratio == ratio0 && lo == lo0 && hi == hi0);
	}
	pmc_mwu_tables_free(t);
	pmc_mwu_tables_free(NULL);
}

static void test_mwu_edges(void **state)
{
	const double one_a[] = {1}, one_b[] = {2};
	const double same[] = {3, 3, 3, 3};
	const double with_nan[] = {NAN, 1.1, 2.3, NAN, 3.5, 4.2, 5.9};
	const double b[] = {2.0, 6.1, 7.3, 8.8, 9.4, 10.2};
	const double nans[] = {NAN};
	struct pmc_mwu r;

	/* 1 vs 1: scipy exact U = 0, p = 1.0. */
	assert_int_equal(pmc_mann_whitney(one_a, 1, one_b, 1, NULL, &r), 0);
	assert_true(r.exact);
	assert_close(r.u, 0, 0);
	assert_close(r.p, 1, 0);

	/* Every value equal: one tie block, every split gives the same rank sum, so the
	 * exact p is 1 (scipy's asymptotic test returns NaN here), U = n1 n2 / 2. */
	assert_int_equal(pmc_mann_whitney(same, 4, same, 3, NULL, &r), 0);
	assert_true(r.exact);
	assert_close(r.u, 6, 0);
	assert_close(r.p, 1, 0);

	/* NAN skipped: same as test_mwu_exact_no_ties. */
	assert_int_equal(pmc_mann_whitney(with_nan, ARRAY_SIZE(with_nan), b, 6, NULL, &r), 0);
	assert_int_equal(r.n1, 5);
	assert_close(r.u, 4, 0);
	assert_close(r.p, 0.05194805194805195, 1e-12);

	memset(&r, 0x5a, sizeof(r));
	struct pmc_mwu before = r;

	assert_int_equal(pmc_mann_whitney(nans, 1, b, 6, NULL, &r), -EINVAL);
	assert_int_equal(pmc_mann_whitney(b, 6, nans, 1, NULL, &r), -EINVAL);
	assert_int_equal(pmc_mann_whitney(b, 0, b, 6, NULL, &r), -EINVAL);
	assert_int_equal(pmc_mann_whitney(NULL, 2, b, 6, NULL, &r), -EINVAL);
	assert_int_equal(pmc_mann_whitney(b, 6, b, 6, NULL, NULL), -EINVAL);
	assert_memory_equal(&r, &before, sizeof(r));
}

/* ---- Hodges-Lehmann ratio and Moses CI ---- */

static void test_ratio_exact(void **state)
{
	/* a = [10,12,11,13,9], b = [11,13,12.5,14,12,15], brute force (30 differences of
	 * logs, critical value by enumerating the C(11,5) = 462 arrangements):
	 *   95%: k = 4, ratio 1.1742179860604582, CI [0.9615384615384617, 1.4444444444444442]
	 *   90%: k = 6, same ratio, CI [1.0, 1.3888888888888888]
	 * By hand: the 4th smallest difference is log(12.5/13) = 0.96153..., the 4th largest
	 * log(13/9) = 1.4444..., and 1 - 2 P(U <= 3) = 1 - 2 * 10/462 = 0.9567 >= 0.95. */
	const double a[] = {10, 12, 11, 13, 9};
	const double b[] = {11, 13, 12.5, 14, 12, 15};
	double ratio, lo, hi;

	assert_int_equal(pmc_ratio_ci(a, 5, b, 6, 0.95, NULL, &ratio, &lo, &hi), 0);
	assert_close(ratio, 1.1742179860604582, 1e-13);
	assert_close(lo, 0.9615384615384617, 1e-13);
	assert_close(hi, 1.4444444444444442, 1e-13);

	assert_int_equal(pmc_ratio_ci(a, 5, b, 6, 0.90, NULL, &ratio, &lo, &hi), 0);
	assert_close(ratio, 1.1742179860604582, 1e-13);
	assert_close(lo, 1.0, 1e-13);
	assert_close(hi, 1.3888888888888888, 1e-13);

	/* Reversed roles give the reciprocal ratio and interval. */
	assert_int_equal(pmc_ratio_ci(b, 6, a, 5, 0.95, NULL, &ratio, &lo, &hi), 0);
	assert_close(ratio, 1 / 1.1742179860604582, 1e-13);
	assert_close(lo, 1 / 1.4444444444444442, 1e-13);
	assert_close(hi, 1 / 0.9615384615384617, 1e-13);
}

static void test_ratio_smallest_samples(void **state)
{
	/* 4 + 4 is the smallest balanced design with a 95% CI: P(U = 0) = 1/70 <= 0.025.
	 * a = [1,1.5,2,2.5], b = [2.2,2.9,3.1,4.0]: k = 1, ratio 1.7587874611030556,
	 * CI [0.88, 4.0] = [2.2/2.5, 4.0/1.0] (the extreme ratios, by hand). */
	const double a[] = {1.0, 1.5, 2.0, 2.5};
	const double b[] = {2.2, 2.9, 3.1, 4.0};
	double ratio, lo, hi;

	assert_int_equal(pmc_ratio_ci(a, 4, b, 4, 0.95, NULL, &ratio, &lo, &hi), 0);
	assert_close(ratio, 1.7587874611030556, 1e-13);
	assert_close(lo, 0.88, 1e-13);
	assert_close(hi, 4.0, 1e-13);

	/* 3 + 3: P(U = 0) = 1/20 > 0.025, no CI; the point estimate is still given
	 * (1.9333333333333331 by brute force). */
	assert_int_equal(pmc_ratio_ci(a, 3, b, 3, 0.95, NULL, &ratio, &lo, &hi), -EDOM);
	assert_close(ratio, 1.9333333333333331, 1e-13);
	assert_true(isnan(lo) && isnan(hi));

	/* 3 + 3 all tied: ties would shrink the normal variance, but the samples are still
	 * too small for 95%. 1 + 1 likewise. */
	const double t[] = {2, 2, 2};

	assert_int_equal(pmc_ratio_ci(t, 3, t, 3, 0.95, NULL, &ratio, &lo, &hi), -EDOM);
	assert_close(ratio, 1, 0);
	assert_int_equal(pmc_ratio_ci(t, 1, t, 1, 0.95, NULL, &ratio, &lo, &hi), -EDOM);
}

static void test_ratio_ties_normal(void **state)
{
	/* a = [100,102,102,104,105,107,110], b = [104,106,107,107,109,112,115,118]: ties,
	 * so k from the normal approximation with tie correction,
	 * k = floor(n1 n2 / 2 + norm.ppf(0.025) sigma + 1/2) = 11 (scipy.stats.norm.ppf);
	 * brute force ratio 1.048548159521343, CI [1.0, 1.1028037383177578]. */
	const double a[] = {100, 102, 102, 104, 105, 107, 110};
	const double b[] = {104, 106, 107, 107, 109, 112, 115, 118};
	double ratio, lo, hi;

	assert_int_equal(pmc_ratio_ci(a, 7, b, 8, 0.95, NULL, &ratio, &lo, &hi), 0);
	assert_close(ratio, 1.048548159521343, 1e-13);
	assert_close(lo, 1.0, 1e-13);
	assert_close(hi, 1.1028037383177578, 1e-13);

	/* Heavy ties, where the tie correction moves the critical value:
	 * c = [1,1,1,2,2,2,2,3,3,3], d = [2,2,3,3,3,3,4,4,4,5]; k = 25 with the tie-corrected
	 * sigma (24 without), brute force ratio 1.5000000000000002, CI [1.0, 2.5] (the
	 * uncorrected k would give hi 3.0). The test itself is exact at 10 + 10:
	 * U = 16, p = 851/92378 (test_mwu_exact_ties). */
	const double c[] = {1, 1, 1, 2, 2, 2, 2, 3, 3, 3};
	const double d[] = {2, 2, 3, 3, 3, 3, 4, 4, 4, 5};
	struct pmc_mwu r;

	assert_int_equal(pmc_ratio_ci(c, 10, d, 10, 0.95, NULL, &ratio, &lo, &hi), 0);
	assert_close(ratio, 1.5000000000000002, 1e-13);
	assert_close(lo, 1.0, 1e-13);
	assert_close(hi, 2.5, 1e-13);
	assert_int_equal(pmc_mann_whitney(c, 10, d, 10, NULL, &r), 0);
	assert_true(r.exact);
	assert_close(r.u, 16, 0);
	assert_close(r.p, 851.0 / 92378, 1e-12);
}

static void test_ratio_large_selection(void **state)
{
	/* 300 x 300 = 90,000 differences, past the size that is sorted in memory, so the
	 * order statistics come from selection. a_i = 100 (1 + 0.001 ((37 i) mod 300)),
	 * b_j = 103 (1 + 0.001 ((53 j) mod 300)) + 0.0005; numpy brute force with the
	 * normal k = 40839: ratio 1.0300043497180915, CI [1.0173171670515777,
	 * 1.0428487918939984]. The test also sorts the differences itself. */
	enum { N = 300 };
	static double a[N], b[N], d[N * N];
	double ratio, lo, hi;

	for (size_t i = 0; i < N; i++) {
		a[i] = 100 * (1 + 0.001 * (double)((i * 37) % N));
		b[i] = 103 * (1 + 0.001 * (double)((i * 53) % N)) + 0.0005;
	}
	assert_int_equal(pmc_ratio_ci(a, N, b, N, 0.95, NULL, &ratio, &lo, &hi), 0);
	assert_close(ratio, 1.0300043497180915, 1e-13);
	assert_close(lo, 1.0173171670515777, 1e-13);
	assert_close(hi, 1.0428487918939984, 1e-13);

	for (size_t i = 0; i < N; i++)
		for (size_t j = 0; j < N; j++)
			d[i * N + j] = log(b[j]) - log(a[i]);
	qsort(d, N * N, sizeof(d[0]), cmp_double);
	assert_close(ratio, exp((d[N * N / 2 - 1] + d[N * N / 2]) / 2), 1e-15);
	assert_close(lo, exp(d[40839 - 1]), 0);
	assert_close(hi, exp(d[N * N - 40839]), 0);
}

/* A pooled baseline against a few new samples (the history gate: 1,000 against 10), and
 * the other way round: the differences are merged along the longer side, and the order
 * statistics must be those of all the differences sorted. No ties, so k comes from the
 * normal approximation of U: k = floor(n1 n2 / 2 + z(0.025) sqrt(n1 n2 (N + 1) / 12)
 * + 1/2) (Hollander & Wolfe 1999, sec. 4.3). */
static void test_ratio_unequal_sizes(void **state)
{
	enum { NA = 1000, NB = 10 };
	static double a[NA], b[NB], d[NA * NB];
	double ratio, lo, hi, var = (double)NA * NB * (NA + NB + 1) / 12;
	size_t k = (size_t)floor(NA * NB / 2.0 - 1.959963984540054 * sqrt(var) + 0.5);

	(void)state;
	for (size_t i = 0; i < NA; i++)
		a[i] = 100 * (1 + 0.0001 * (double)((i * 37) % NA));
	for (size_t j = 0; j < NB; j++)
		b[j] = 104 * (1 + 0.001 * (double)((j * 3) % NB)) + 0.0005;
	for (size_t i = 0; i < NA; i++)
		for (size_t j = 0; j < NB; j++)
			d[i * NB + j] = log(b[j]) - log(a[i]);
	qsort(d, NA * NB, sizeof(d[0]), cmp_double);

	assert_int_equal(pmc_ratio_ci(a, NA, b, NB, 0.95, NULL, &ratio, &lo, &hi), 0);
	assert_close(ratio, exp((d[NA * NB / 2 - 1] + d[NA * NB / 2]) / 2), 0);
	assert_close(lo, exp(d[k - 1]), 0);
	assert_close(hi, exp(d[NA * NB - k]), 0);

	/* The other way round: the differences negated. */
	assert_int_equal(pmc_ratio_ci(b, NB, a, NA, 0.95, NULL, &ratio, &lo, &hi), 0);
	assert_close(ratio, exp(-(d[NA * NB / 2 - 1] + d[NA * NB / 2]) / 2), 0);
	assert_close(lo, exp(-d[NA * NB - k]), 0);
	assert_close(hi, exp(-d[k - 1]), 0);
}

static void test_ratio_errors(void **state)
{
	const double good[] = {1, 2, 3, 4};
	const double zero[] = {1, 0, 3};
	const double neg[] = {1, -2, 3};
	const double inf[] = {1, INFINITY, 3};
	const double nans[] = {NAN, NAN};
	const double with_nan[] = {1, NAN, 2, 3, 4};
	double ratio = 7, lo = 8, hi = 9;

	assert_int_equal(pmc_ratio_ci(zero, 3, good, 4, 0.95, NULL, &ratio, &lo, &hi), -EINVAL);
	assert_int_equal(pmc_ratio_ci(good, 4, neg, 3, 0.95, NULL, &ratio, &lo, &hi), -EINVAL);
	assert_int_equal(pmc_ratio_ci(good, 4, inf, 3, 0.95, NULL, &ratio, &lo, &hi), -EINVAL);
	assert_int_equal(pmc_ratio_ci(nans, 2, good, 4, 0.95, NULL, &ratio, &lo, &hi), -EINVAL);
	assert_int_equal(pmc_ratio_ci(good, 0, good, 4, 0.95, NULL, &ratio, &lo, &hi), -EINVAL);
	assert_int_equal(pmc_ratio_ci(good, 4, good, 4, 1.0, NULL, &ratio, &lo, &hi), -EINVAL);
	assert_int_equal(pmc_ratio_ci(good, 4, good, 4, 0.95, NULL, NULL, &lo, &hi), -EINVAL);
	/* Bad input leaves the outputs alone. */
	assert_close(ratio, 7, 0);
	assert_close(lo, 8, 0);
	assert_close(hi, 9, 0);

	/* NAN is skipped: identical samples give ratio 1 with a CI around it. */
	assert_int_equal(pmc_ratio_ci(with_nan, 5, good, 4, 0.95, NULL, &ratio, &lo, &hi), 0);
	assert_close(ratio, 1, 0);
	assert_true(lo <= 1 && hi >= 1);
}

/* ---- the comparison's path: each side sorted once ---- */

/* The same double, bit for bit (NAN equal to NAN); prints both otherwise. */
#define assert_same(actual, expected)                                                              \
	do {                                                                                       \
		double a_ = (actual), e_ = (expected);                                             \
		if (memcmp(&a_, &e_, sizeof(a_)) != 0 && !(isnan(a_) && isnan(e_))) {              \
			print_error("%s = %.17g, expected %.17g\n", #actual, a_, e_);              \
			fail();                                                                    \
		}                                                                                  \
	} while (0)

static uint64_t lcg_next(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

/* n values of which some are NAN; with few distinct values, many ties. */
static void random_sample(uint64_t *seed, double *x, size_t n, unsigned distinct)
{
	double scale = 1 + (double)(lcg_next(seed) % 1000);

	for (size_t i = 0; i < n; i++) {
		uint64_t r = lcg_next(seed);

		if (r % 11 == 0)
			x[i] = NAN;
		else if (distinct)
			x[i] = scale * (1 + (double)(r % distinct) / 64);
		else
			x[i] = scale * (1 + (double)(r % 1000003) / 1e6);
	}
}

static size_t present_sorted(const double *x, size_t n, double *v)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (!isnan(x[i]))
			v[m++] = x[i];
	qsort(v, m, sizeof(v[0]), cmp_double);
	return m;
}

static void assert_same_summary(const struct pmc_summary *a, const struct pmc_summary *e)
{
	assert_int_equal(a->n, e->n);
	assert_same(a->mean, e->mean);
	assert_same(a->stddev, e->stddev);
	assert_same(a->median, e->median);
	assert_same(a->mad, e->mad);
	assert_same(a->min, e->min);
	assert_same(a->max, e->max);
	assert_same(a->cv, e->cv);
	assert_int_equal(a->has_ci, e->has_ci);
	assert_same(a->ci_lo, e->ci_lo);
	assert_same(a->ci_hi, e->ci_hi);
}

/* The Hodges-Lehmann ratio and interval by brute force: every difference of logs sorted,
 * the median as pmc_ratio_ci takes it, and the interval [D_(k), D_(n - k + 1)] for some k
 * (which depends on the test's distribution, checked elsewhere). */
static void assert_ratio_brute_force(const double *va, size_t ma, const double *vb, size_t mb,
				     int rr, double ratio, double lo, double hi)
{
	static double d[300 * 250];
	size_t t = ma * mb, k = 1;

	assert_true(t <= ARRAY_SIZE(d));
	for (size_t i = 0; i < ma; i++)
		for (size_t j = 0; j < mb; j++)
			d[i * mb + j] = log(vb[j]) - log(va[i]);
	qsort(d, t, sizeof(d[0]), cmp_double);
	assert_same(ratio, exp(t % 2 ? d[t / 2] : (d[t / 2 - 1] + d[t / 2]) / 2));
	if (rr == -EDOM)
		return;
	while (k <= (t + 1) / 2 && !(exp(d[k - 1]) == lo && exp(d[t - k]) == hi))
		k++;
	if (k > (t + 1) / 2) {
		print_error("%zu x %zu: [%.17g, %.17g] is no [D_(k), D_(n - k + 1)]\n", ma, mb, lo,
			    hi);
		fail();
	}
}

/* The comparison (compare_stats.c) sorts each side's present values once, summarises them
 * with pmc_summary_sorted, tests them with pmc_mann_whitney_sorted and last takes the
 * interval with pmc_ratio_ci_sorted, which overwrites them with logs. On random inputs of
 * unequal sizes, with ties and NAN, that gives the public functions' numbers bit for bit;
 * the MAD, found without sorting the deviations, is the median of all of them sorted, and
 * the ratio and its interval (merged, or selected from the runs of a short side) are
 * order statistics of all differences sorted. */
static void test_sorted_path_matches_public(void **state)
{
	enum { MAXN = 1000 };
	static double a[MAXN], b[MAXN], va[MAXN], vb[MAXN], dev[MAXN];
	static const size_t sizes[][2] = {{1000, 10}, {10, 1000}, {300, 250}, {7, 1}, {1, 2}};
	struct pmc_mwu_tables *tables;
	uint64_t seed = 23;

	(void)state;
	assert_int_equal(pmc_mwu_tables_new(&tables), 0);
	for (int trial = 0; trial < 400; trial++) {
		size_t na, nb, ma, mb;
		unsigned distinct = trial % 3 == 0 ? 0 : 1 + (unsigned)(lcg_next(&seed) % 40);

		if ((size_t)trial < ARRAY_SIZE(sizes)) {
			na = sizes[trial][0];
			nb = sizes[trial][1];
		} else {
			na = 1 + lcg_next(&seed) % 200;
			nb = 1 + lcg_next(&seed) % 60;
		}
		random_sample(&seed, a, na, distinct);
		random_sample(&seed, b, nb, distinct);
		ma = present_sorted(a, na, va);
		mb = present_sorted(b, nb, vb);

		struct pmc_summary sa, sb, ea, eb;
		int ra = pmc_summary_compute(a, na, 0.95, &ea);

		assert_int_equal(pmc_summary_sorted(a, na, va, ma, 0.95, &sa), ra);
		assert_int_equal(pmc_summary_sorted(b, nb, vb, mb, 0.95, &sb),
				 pmc_summary_compute(b, nb, 0.95, &eb));
		if (ma == 0 || mb == 0)
			continue;
		assert_same_summary(&sa, &ea);
		assert_same_summary(&sb, &eb);
		for (size_t i = 0; i < ma; i++)
			dev[i] = fabs(va[i] - sa.median);
		qsort(dev, ma, sizeof(dev[0]), cmp_double);
		assert_same(sa.mad, pmc_median_sorted(dev, ma));

		struct pmc_mwu u, eu;

		assert_int_equal(pmc_mann_whitney(a, na, b, nb, tables, &eu), 0);
		assert_int_equal(pmc_mann_whitney_sorted(va, ma, vb, mb, tables, &u), 0);
		assert_same(u.u, eu.u);
		assert_same(u.p, eu.p);
		assert_int_equal(u.exact, eu.exact);

		double ratio, lo, hi, eratio, elo, ehi;
		int rr = pmc_ratio_ci(a, na, b, nb, 0.95, tables, &eratio, &elo, &ehi);

		assert_true(rr == 0 || rr == -EDOM);
		assert_ratio_brute_force(va, ma, vb, mb, rr, eratio, elo, ehi);
		assert_int_equal(
		    pmc_ratio_ci_sorted(va, ma, vb, mb, 0.95, tables, &ratio, &lo, &hi), rr);
		assert_same(ratio, eratio);
		assert_same(lo, elo);
		assert_same(hi, ehi);
	}
	pmc_mwu_tables_free(tables);
}

/* pmc_stats_sort (a radix sort from 256 values, the introsort below) against qsort on
 * values of both signs, zeros of both signs, ties, subnormals and infinities, at sizes on
 * both sides of the switch. */
static void test_sort_against_qsort(void **state)
{
	static const size_t sizes[] = {0, 1, 17, 255, 256, 257, 1000, 5003};
	static double v[5003], e[5003];
	uint64_t seed = 5;

	(void)state;
	for (size_t t = 0; t < ARRAY_SIZE(sizes); t++) {
		size_t n = sizes[t];

		for (size_t i = 0; i < n; i++) {
			uint64_t r = lcg_next(&seed);

			if (r % 6 == 0)
				v[i] = (double)(r % 7) - 3;
			else if (r % 6 == 1)
				v[i] = -1e300 * (double)(r % 1000); /* -0.0 too */
			else if (r % 6 == 2)
				v[i] = 4.9e-324 * (double)(r % 5);
			else if (r % 6 == 3)
				v[i] = r % 2 ? INFINITY : -INFINITY;
			else
				v[i] = ldexp((double)r, (int)(r % 200) - 100) * (r % 3 ? 1 : -1);
			e[i] = v[i];
		}
		pmc_stats_sort(v, n);
		qsort(e, n, sizeof(e[0]), cmp_double);
		/* Equal values: -0.0 and 0.0 compare equal, and qsort may order them either way. */
		for (size_t i = 0; i < n; i++)
			if (!(v[i] == e[i])) {
				print_error("n %zu: v[%zu] = %.17g, expected %.17g\n", n, i, v[i],
					    e[i]);
				fail();
			}
	}
}

/* ---- Benjamini-Hochberg ---- */

static void test_bh_paper_example(void **state)
{
	/* The 15 p-values of the worked example in Benjamini & Hochberg (1995); at
	 * q* = 0.05 the paper rejects the four smallest. Adjusted values from statsmodels
	 * multipletests(method='fdr_bh'). */
	const double p[] = {0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344,
			    0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.000};
	const double want[] = {0.0015,
			       0.003,
			       0.0095,
			       0.035625,
			       0.0603,
			       0.06385714285714286,
			       0.06385714285714286,
			       0.0645,
			       0.07650000000000001,
			       0.48600000000000004,
			       0.5811818181818182,
			       0.7148749999999999,
			       0.7532307692307693,
			       0.8132142857142857,
			       1.0};
	double q[ARRAY_SIZE(p)];
	size_t rejected = 0;

	assert_int_equal(pmc_bh_adjust(p, ARRAY_SIZE(p), q), 0);
	for (size_t i = 0; i < ARRAY_SIZE(p); i++) {
		assert_close(q[i], want[i], 1e-12);
		rejected += q[i] <= 0.05;
	}
	assert_int_equal(rejected, 4);
}

static void test_bh_order_nan_and_errors(void **state)
{
	/* Unsorted input, monotone step-up: statsmodels gives
	 * [0.04,0.01,0.03,0.02,0.9] -> [0.05,0.05,0.05,0.05,0.9]. */
	const double p[] = {0.04, 0.01, 0.03, 0.02, 0.9};
	const double want[] = {0.05, 0.05, 0.05, 0.05, 0.9};
	double q[8];

	assert_int_equal(pmc_bh_adjust(p, 5, q), 0);
	for (size_t i = 0; i < 5; i++)
		assert_close(q[i], want[i], 1e-12);

	/* NAN is no test: it stays NAN and does not count in m. */
	const double pn[] = {0.04, NAN, 0.01, 0.03, 0.02, NAN, 0.9};

	assert_int_equal(pmc_bh_adjust(pn, 7, q), 0);
	assert_true(isnan(q[1]) && isnan(q[5]));
	assert_close(q[0], 0.05, 1e-12);
	assert_close(q[6], 0.9, 1e-12);

	/* Capped at 1: p = [0.9, 0.95] -> [0.95, 0.95]; a single p is its own q. */
	const double high[] = {0.9, 0.95};

	assert_int_equal(pmc_bh_adjust(high, 2, q), 0);
	assert_close(q[0], 0.95, 1e-15);
	assert_close(q[1], 0.95, 1e-15);
	assert_int_equal(pmc_bh_adjust(high, 1, q), 0);
	assert_close(q[0], 0.9, 0);

	const double bad[] = {0.5, 1.5};

	assert_int_equal(pmc_bh_adjust(bad, 2, q), -EINVAL);
	assert_int_equal(pmc_bh_adjust(NULL, 2, q), -EINVAL);
	assert_int_equal(pmc_bh_adjust(NULL, 0, NULL), 0);
}

/* ---- geomean ---- */

static void test_geomean(void **state)
{
	/* scipy.stats.gmean([1,2,4,8]) = 2.82842712474619 (= 2^1.5),
	 * gmean([1.5,2.5,10]) = 3.3471647504108475. */
	const double x[] = {1, 2, 4, 8};
	const double y[] = {1.5, NAN, 2.5, 0, -3, 10}; /* non-positive and NAN skipped */
	const double none[] = {0, -1, NAN};
	const double big[] = {1e300, 1e300, 1e300}; /* the product would overflow */

	assert_close(pmc_geomean(x, 4), 2.82842712474619, 1e-14);
	assert_close(pmc_geomean(y, ARRAY_SIZE(y)), 3.3471647504108475, 1e-14);
	assert_close(pmc_geomean(big, 3), 1e300, 1e-13);
	assert_true(isnan(pmc_geomean(none, 3)));
	assert_true(isnan(pmc_geomean(x, 0)));
	assert_true(isnan(pmc_geomean(NULL, 3)));
}

/* ---- median ---- */

/* The one median of the library: numpy.median([3, 1, 2]) = 2, ([4, 1, 3, 2]) = 2.5; NAN
 * entries (not measured) are skipped, and none present is no median. */
static void test_median(void **state)
{
	double odd[] = {3, NAN, 1, 2}, even[] = {4, 1, NAN, 3, 2}, none[] = {NAN, NAN};
	const double cx[] = {4, 1, NAN, 3, 2}, nx[] = {NAN};
	/* Halfway between the middle two without overflow, for values near DBL_MAX. */
	const double big[] = {1.7e308, 1.6e308};
	double med = -1, heap[300];

	(void)state;
	assert_true(pmc_median(odd, ARRAY_SIZE(odd)) == 2);
	assert_true(pmc_median(even, ARRAY_SIZE(even)) == 2.5);
	assert_true(isnan(pmc_median(none, ARRAY_SIZE(none))));
	assert_true(isnan(pmc_median(NULL, 0)));
	assert_int_equal(pmc_median_of(cx, ARRAY_SIZE(cx), &med), 0);
	assert_true(med == 2.5);
	assert_true(cx[0] == 4 && isnan(cx[2])); /* left as it was */
	assert_int_equal(pmc_median_of(nx, ARRAY_SIZE(nx), &med), -ENODATA);
	assert_true(med == 2.5); /* untouched on failure */
	assert_int_equal(pmc_median_of(big, 2, &med), 0);
	assert_close(med, 1.65e308, 1e-15);
	/* More values than the stack holds. */
	for (size_t i = 0; i < ARRAY_SIZE(heap); i++)
		heap[i] = (double)(ARRAY_SIZE(heap) - i);
	assert_int_equal(pmc_median_of(heap, ARRAY_SIZE(heap), &med), 0);
	assert_true(med == 150.5);
	assert_true(pmc_median_sorted(cx, 0) != pmc_median_sorted(cx, 0)); /* NAN */
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_summary_basic_and_mad),
	    cmocka_unit_test(test_summary_median_ci_order_statistics),
	    cmocka_unit_test(test_summary_welford_large_offset),
	    cmocka_unit_test(test_summary_nan_skipped),
	    cmocka_unit_test(test_summary_edges),
	    cmocka_unit_test(test_summary_large_heap_path),
	    cmocka_unit_test(test_mwu_exact_no_ties),
	    cmocka_unit_test(test_mwu_ties_normal),
	    cmocka_unit_test(test_mwu_exact_boundary_50),
	    cmocka_unit_test(test_mwu_exact_cache_consistent),
	    cmocka_unit_test(test_mwu_exact_ties),
	    cmocka_unit_test(test_mwu_exact_ties_boundary_25),
	    cmocka_unit_test(test_mwu_ties_do_not_use_the_untied_table),
	    cmocka_unit_test(test_mwu_edges),
	    cmocka_unit_test(test_ratio_exact),
	    cmocka_unit_test(test_ratio_smallest_samples),
	    cmocka_unit_test(test_ratio_ties_normal),
	    cmocka_unit_test(test_ratio_large_selection),
	    cmocka_unit_test(test_ratio_unequal_sizes),
	    cmocka_unit_test(test_ratio_errors),
	    cmocka_unit_test(test_sorted_path_matches_public),
	    cmocka_unit_test(test_sort_against_qsort),
	    cmocka_unit_test(test_bh_paper_example),
	    cmocka_unit_test(test_bh_order_nan_and_errors),
	    cmocka_unit_test(test_geomean),
	    cmocka_unit_test(test_median),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

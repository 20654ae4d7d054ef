/* The paired statistics (harness/2-core/signed_rank.c) checked against reference values.
 *
 * Unless a comment says otherwise the references come from tests/signed_rank_reference.py
 * (standard library only: python3 tests/signed_rank_reference.py), which enumerates every
 * sign pattern (brute()) or counts them with a knapsack over Fraction mid-ranks (count()),
 * sorts every Walsh average, and finds the critical order by enumeration. The published
 * values are cited where they are used. The test never runs Python: the numbers are copied
 * here beside their inputs.
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

#include "core/signed_rank.h"

/* Hollander & Wolfe (1999), Example 3.1: Hamilton depression scale factor IV of nine
 * patients at the first (x) and second (y) visit after a tranquilizer. */
static const double hw_x[] = {1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30};
static const double hw_y[] = {0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29};

/* ---- the test ---- */

static void test_textbook_depression(void **state)
{
	/* Published: T+ = 40 for x - y, and P(T+ >= 40) = 0.020 for n = 9 (Hollander & Wolfe
	 * 1999, Example 3.1 with Table A.4); R's documented example,
	 * wilcox.test(x, y, paired = TRUE, alternative = "greater"), prints V = 40,
	 * p-value = 0.01953 (= 10/512). The two-sided p is twice that, 5/128. */
	double d[9], e[9];
	struct pmc_signed_rank r;

	for (size_t i = 0; i < 9; i++) {
		d[i] = hw_x[i] - hw_y[i];
		e[i] = hw_y[i] - hw_x[i];
	}
	assert_int_equal(pmc_signed_rank_test(d, 9, &r), 0);
	assert_int_equal(r.n, 9);
	assert_int_equal(r.nzero, 0);
	assert_true(r.exact);
	assert_close(r.t_plus, 40, 0);
	assert_close(r.p, 5.0 / 128, 1e-15);
	assert_close(r.p / 2, 0.01953, 1e-3); /* R's one-sided value, as printed */

	/* y - x: T+ = 45 - 40 = 5, the same two-sided p. */
	assert_int_equal(pmc_signed_rank_test(e, 9, &r), 0);
	assert_close(r.t_plus, 5, 0);
	assert_close(r.p, 5.0 / 128, 1e-15);
}

static void test_darwin_zea_mays(void **state)
{
	/* Darwin's crossed minus self-fertilised heights, eighths of an inch (R. A. Fisher,
	 * The Design of Experiments, 1935, sec. 17): T+ = 96 (the negatives have ranks 14
	 * and 10), exact p = 169/4096 (normal approximation 0.0438). */
	const double d[] = {49, -67, 8, 16, 6, 23, 28, 41, 14, 29, 56, 24, 75, 60, -48};
	struct pmc_signed_rank r;

	assert_int_equal(pmc_signed_rank_test(d, ARRAY_SIZE(d), &r), 0);
	assert_true(r.exact);
	assert_close(r.t_plus, 96, 0);
	assert_close(r.p, 169.0 / 4096, 1e-15);
}

static void test_exact_with_ties_and_zeros(void **state)
{
	static const struct {
		double d[12];
		size_t n, nzero;
		double t_plus, p;
	} cases[] = {
	    /* Zeros dropped, |d| tied across signs (1.5 and -1.5; 2, 2, 2 and -2): T+ = 46
	     * of 55, p = 17/256 (normal approximation 0.0644). */
	    {{0, 0, 1.5, -1.5, 2, 2, 3, -0.5, 3, 4, 2, -2}, 12, 2, 46, 17.0 / 256},
	    /* A small counter, +1 in most rounds: T+ = 50, p = 5/256 (normal 0.0147). */
	    {{1, 1, 0, 1, 1, 2, 1, -1, 1, 1, 0, 1}, 12, 2, 50, 5.0 / 256},
	    /* Four zeros, six positive: p = 2/64 from the six alone. */
	    {{0, 0, 0, 0, 0.01, 0.02, 0.01, 0.03, 0.02, 0.04}, 10, 4, 21, 1.0 / 32},
	    /* Every difference zero: no evidence either way. */
	    {{0, 0, 0}, 3, 3, 0, 1},
	};
	struct pmc_signed_rank r;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(pmc_signed_rank_test(cases[i].d, cases[i].n, &r), 0);
		assert_true(r.exact);
		assert_int_equal(r.n, cases[i].n);
		assert_int_equal(r.nzero, cases[i].nzero);
		assert_close(r.t_plus, cases[i].t_plus, 0);
		assert_close(r.p, cases[i].p, 1e-14);

		/* Negated: T+ becomes the sum of the other signs' ranks, p is the same (the
		 * permutation distribution is symmetric, ties or not). */
		double neg[12];
		size_t nn = cases[i].n - cases[i].nzero;

		for (size_t j = 0; j < cases[i].n; j++)
			neg[j] = -cases[i].d[j];
		assert_int_equal(pmc_signed_rank_test(neg, cases[i].n, &r), 0);
		assert_close(r.t_plus, (double)(nn * (nn + 1)) / 2 - cases[i].t_plus, 0);
		assert_close(r.p, cases[i].p, 1e-14);
	}
}

/* boundary(k) of the script: two zeros, then k nonzero differences (5 i mod 9) - 3, in
 * -3..5, heavily tied. */
static size_t fill_boundary(double *d, size_t nonzero)
{
	size_t m = 0;

	d[m++] = 0;
	d[m++] = 0;
	for (size_t i = 0; m < nonzero + 2; i++) {
		double v = (double)((i * 5) % 9) - 3;

		if (v != 0)
			d[m++] = v;
	}
	return m;
}

static void test_exact_limit_50(void **state)
{
	/* 50 nonzero differences with heavy ties (and two zeros): the largest design counted
	 * exactly, T+ = 898, p = 6076194087903/562949953421312 = 0.01079348892556986 (count();
	 * the normal approximation says 0.0115). */
	double d[60];
	struct pmc_signed_rank r;
	size_t n = fill_boundary(d, 50);

	assert_int_equal(pmc_signed_rank_test(d, n, &r), 0);
	assert_true(r.exact);
	assert_int_equal(r.nzero, 2);
	assert_close(r.t_plus, 898, 0);
	assert_close(r.p, 0.01079348892556986, 1e-13);

	/* 51: the tie- and continuity-corrected normal approximation, T+ = 919.5,
	 * p = 0.01572475278165686 (normal(), the formula of scipy.stats.wilcoxon(
	 * method='approx', correction=True)). */
	n = fill_boundary(d, 51);
	assert_int_equal(pmc_signed_rank_test(d, n, &r), 0);
	assert_false(r.exact);
	assert_close(r.t_plus, 919.5, 0);
	assert_close(r.p, 0.01572475278165686, 1e-12);
}

/* untied(n) of the script: distinct |d|, every third one negative. */
static void fill_untied(double *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		d[i] = (i % 3 == 0 ? -1 : 1) * ((double)(i + 1) * 0.37 + (double)i / 1000);
}

/* mixed(n) of the script: distinct values around a small positive shift. */
static void fill_mixed(double *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		d[i] = ((double)((7919 * i) % n) - 0.48 * (double)n) / 100 + (double)i / 1e7;
}

static void test_untied_exact_and_normal(void **state)
{
	/* Without ties at 50 the exact p is 22500178816503/562949953421312 =
	 * 0.03996834652842374 and the normal approximation 0.0407: the limit keeps the
	 * approximation within 0.001 (signed_rank.c, SR_EXACT_MAX). */
	static double d[1000];
	struct pmc_signed_rank r;

	fill_untied(d, 50);
	assert_int_equal(pmc_signed_rank_test(d, 50, &r), 0);
	assert_true(r.exact);
	assert_close(r.t_plus, 850, 0);
	assert_close(r.p, 0.03996834652842374, 1e-13);

	fill_untied(d, 60);
	assert_int_equal(pmc_signed_rank_test(d, 60, &r), 0);
	assert_false(r.exact);
	assert_close(r.t_plus, 1240, 0);
	assert_close(r.p, 0.016901653275967488, 1e-12);

	fill_mixed(d, 1000);
	assert_int_equal(pmc_signed_rank_test(d, 1000, &r), 0);
	assert_false(r.exact);
	assert_close(r.t_plus, 269620, 0);
	assert_close(r.p, 0.03398645911338616, 1e-11);
}

/* ---- the shift and its interval ---- */

static void test_shift_depression_and_darwin(void **state)
{
	/* Depression data, x - y: the median of the 45 Walsh averages is 0.46; at 95% k = 6
	 * (P(T <= 5) = 10/512 <= 0.025 < P(T <= 6) = 14/512), CI [0.01, 0.786]; at 90% k = 9,
	 * [0.175, 0.726] (hodges_lehmann()). */
	double d[9], shift, lo, hi;

	for (size_t i = 0; i < 9; i++)
		d[i] = hw_x[i] - hw_y[i];
	assert_int_equal(pmc_signed_rank_shift(d, 9, 0.95, &shift, &lo, &hi), 0);
	assert_close(shift, 0.4600000000000001, 1e-13);
	assert_close(lo, 0.010000000000000009, 1e-12);
	assert_close(hi, 0.786, 1e-13);
	assert_int_equal(pmc_signed_rank_shift(d, 9, 0.90, &shift, &lo, &hi), 0);
	assert_close(lo, 0.17500000000000004, 1e-13);
	assert_close(hi, 0.7260000000000002, 1e-13);

	/* Negated differences negate the estimate and swap the bounds. */
	for (size_t i = 0; i < 9; i++)
		d[i] = -d[i];
	assert_int_equal(pmc_signed_rank_shift(d, 9, 0.95, &shift, &lo, &hi), 0);
	assert_close(shift, -0.4600000000000001, 1e-13);
	assert_close(lo, -0.786, 1e-13);
	assert_close(hi, -0.010000000000000009, 1e-12);

	/* Darwin: shift 25, k = 26 at 95% (the classical critical value 25 for n = 15),
	 * CI [4, 41.5]. */
	const double z[] = {49, -67, 8, 16, 6, 23, 28, 41, 14, 29, 56, 24, 75, 60, -48};

	assert_int_equal(pmc_signed_rank_shift(z, ARRAY_SIZE(z), 0.95, &shift, &lo, &hi), 0);
	assert_close(shift, 25, 0);
	assert_close(lo, 4, 0);
	assert_close(hi, 41.5, 0);
}

static void test_shift_log_ratios(void **state)
{
	/* What the caller passes: per-round log ratios of a paired A/B table (B 1-5% slower
	 * in every round). p = 2/1024; shift 0.02951167022473053 (a ratio of 1.030),
	 * CI [0.01980262729617973, 0.03922071315328133] with k = 9. */
	const double a[] = {100, 102, 98, 101, 99, 103, 100, 97, 101, 100};
	const double b[] = {104, 103, 101, 105, 100, 108, 103, 99, 106, 102};
	double d[10], shift, lo, hi;
	struct pmc_signed_rank r;

	for (size_t i = 0; i < 10; i++)
		d[i] = log(b[i] / a[i]);
	assert_int_equal(pmc_signed_rank_test(d, 10, &r), 0);
	assert_close(r.p, 1.0 / 512, 1e-15);
	assert_int_equal(pmc_signed_rank_shift(d, 10, 0.95, &shift, &lo, &hi), 0);
	assert_close(shift, 0.02951167022473053, 1e-13);
	assert_close(lo, 0.01980262729617973, 1e-13);
	assert_close(hi, 0.03922071315328133, 1e-13);
}

static void test_shift_ties_interval_is_conservative(void **state)
{
	/* With ties and zeros the interval keeps the untied critical value (closed, so it
	 * covers at least as often) and the test is the exact conditional one: they can
	 * disagree at the margin, which is why a verdict needs both. */
	static const struct {
		double d[12];
		size_t n;
		double shift, lo, hi, p;
	} cases[] = {
	    /* The counter: p = 5/256 < 0.05, but 15 Walsh averages are <= 0 (2 zeros, the -1
	     * with each +1), k = 14, so the interval [0, 1] reaches 0: not significant. */
	    {{1, 1, 0, 1, 1, 2, 1, -1, 1, 1, 0, 1}, 12, 1, 0, 1, 5.0 / 256},
	    /* Four zeros: p = 1/32, interval [0, 0.025] (k = 9, 10 averages are 0). */
	    {{0, 0, 0, 0, 0.01, 0.02, 0.01, 0.03, 0.02, 0.04}, 10, 0.01, 0, 0.025, 1.0 / 32},
	    /* Ties across signs: p = 17/256 and an interval [0, 2.5] that agree. */
	    {{0, 0, 1.5, -1.5, 2, 2, 3, -0.5, 3, 4, 2, -2}, 12, 1, 0, 2.5, 17.0 / 256},
	};
	double shift, lo, hi;
	struct pmc_signed_rank r;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(pmc_signed_rank_test(cases[i].d, cases[i].n, &r), 0);
		assert_close(r.p, cases[i].p, 1e-14);
		assert_int_equal(
		    pmc_signed_rank_shift(cases[i].d, cases[i].n, 0.95, &shift, &lo, &hi), 0);
		assert_close(shift, cases[i].shift, 1e-15);
		assert_close(lo, cases[i].lo, 1e-15);
		assert_close(hi, cases[i].hi, 1e-15);
		/* The interval reaches 0, so the combined rule says "not significant". */
		assert_true(lo <= 0 && hi >= 0);
		/* 0.0, not -0.0. */
		assert_false(signbit(lo));
	}
}

/* The Walsh averages of d sorted, by brute force (the same rounding: v_i/2 + v_j/2). */
static double *sorted_walsh(const double *d, size_t n, size_t *ret_m)
{
	double *v = malloc(n * sizeof(*v)), *w = malloc(n * (n + 1) / 2 * sizeof(*w));
	size_t m = 0;

	assert_non_null(v);
	assert_non_null(w);
	memcpy(v, d, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_double);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i; j < n; j++)
			w[m++] = v[i] / 2 + v[j] / 2;
	qsort(w, m, sizeof(*w), cmp_double);
	free(v);
	*ret_m = m;
	return w;
}

static void test_shift_critical_values(void **state)
{
	/* The order of the interval is one above the classical two-sided 0.05 critical value
	 * of T (the largest c with P(T <= c) <= 0.025): 0 at n = 6, 8 at 10, 25 at 15, 52 at
	 * 20, 137 at 30, 434 at 50, as printed in the tables of most textbooks and
	 * reproduced by critical_k(); past 50, 649 at 60 and 232344 at 1000 from the normal
	 * approximation. Checked on untied and mixed data against all averages sorted here. */
	static const struct {
		size_t n, k;
		int fill; /* 0 untied, 1 mixed */
	} cases[] = {{6, 1, 0},	   {10, 9, 0},	 {15, 26, 0},  {20, 53, 0},
		     {30, 138, 0}, {50, 435, 0}, {60, 649, 0}, {1000, 232345, 1}};
	static double d[1000];
	double shift, lo, hi;

	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		size_t n = cases[c].n, m;

		if (cases[c].fill)
			fill_mixed(d, n);
		else
			fill_untied(d, n);
		double *w = sorted_walsh(d, n, &m);

		assert_int_equal(pmc_signed_rank_shift(d, n, 0.95, &shift, &lo, &hi), 0);
		assert_close(lo, w[cases[c].k - 1], 0);
		assert_close(hi, w[m - cases[c].k], 0);
		assert_close(shift, m % 2 ? w[m / 2] : w[m / 2 - 1] + (w[m / 2] - w[m / 2 - 1]) / 2,
			     0);
		free(w);
	}
	/* And the script's values for three of them. */
	fill_untied(d, 50);
	assert_int_equal(pmc_signed_rank_shift(d, 50, 0.95, &shift, &lo, &hi), 0);
	assert_close(shift, 3.5245000000000006, 1e-13);
	assert_close(lo, 0.18550000000000022, 1e-12);
	assert_close(hi, 7.048, 1e-13);
	fill_untied(d, 60);
	assert_int_equal(pmc_signed_rank_shift(d, 60, 0.95, &shift, &lo, &hi), 0);
	assert_close(shift, 4.6365, 1e-13);
	assert_close(lo, 0.7420000000000009, 1e-12);
	assert_close(hi, 8.161, 1e-13);
	fill_mixed(d, 1000);
	assert_int_equal(pmc_signed_rank_shift(d, 1000, 0.95, &shift, &lo, &hi), 0);
	assert_close(shift, 0.19506604999999988, 1e-13);
	assert_close(lo, 0.015043849999999859, 1e-12);
	assert_close(hi, 0.3750882500000001, 1e-13);
}

/* splitmix64 (Steele, Lea & Flood 2014): a fixed seed gives a fixed sequence. */
static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static void test_test_and_interval_agree_without_ties(void **state)
{
	/* Without ties (and at most 50 values) both are exact and one is the inversion of
	 * the other: p < alpha exactly when the interval at 1 - alpha excludes 0. Over many
	 * data sets near the margin (shifts around 0.5 sd). */
	uint64_t seed = 42;
	size_t significant = 0, total = 0;

	for (size_t n = 6; n <= 40; n += 2)
		for (int rep = 0; rep < 40; rep++) {
			double d[40], shift, lo, hi;
			struct pmc_signed_rank r;

			for (size_t i = 0; i < n; i++)
				d[i] = (double)(splitmix64(&seed) >> 11) * 0x1p-53 - 0.35;
			assert_int_equal(pmc_signed_rank_test(d, n, &r), 0);
			assert_int_equal(pmc_signed_rank_shift(d, n, 0.95, &shift, &lo, &hi), 0);
			bool excludes = lo > 0 || hi < 0;

			if ((r.p < 0.05) != excludes) {
				print_error("n = %zu: p = %g, CI [%g, %g]\n", n, r.p, lo, hi);
				fail();
			}
			significant += excludes;
			total++;
		}
	/* Both outcomes occur, so the comparison above was not vacuous. */
	assert_true(significant > total / 10 && significant < total * 9 / 10);
}

static void test_shift_edges(void **state)
{
	const double five[] = {0.1, 0.2, 0.3, 0.4, 0.5};
	const double six[] = {0.3, 0.1, 0.6, 0.2, 0.5, 0.4};
	const double zeros[] = {0, 0, 0, 0, 0, 0};
	const double with_nan[] = {NAN, 0.3, 0.1, NAN, 0.6, 0.2, 0.5, 0.4};
	const double inf[] = {0.1, INFINITY, 0.3};
	const double nans[] = {NAN, NAN};
	double shift = 7, lo = 8, hi = 9;
	struct pmc_signed_rank r;

	/* n = 6 is the smallest with a 95% interval (P(T = 0) = 1/64 <= 0.025): the extreme
	 * Walsh averages, i.e. [min, max]; and the smallest for p < 0.05: 2/64. */
	assert_int_equal(pmc_signed_rank_shift(six, 6, 0.95, &shift, &lo, &hi), 0);
	assert_close(shift, 0.35, 1e-14);
	assert_close(lo, 0.1, 0);
	assert_close(hi, 0.6, 0);
	assert_int_equal(pmc_signed_rank_test(six, 6, &r), 0);
	assert_close(r.p, 1.0 / 32, 1e-15);
	assert_int_equal(pmc_signed_rank_min_n(0.05), 6);
	assert_int_equal(pmc_signed_rank_min_n(0.01), 8);
	assert_int_equal(pmc_signed_rank_min_n(0), 0);

	/* n = 5: no interval, the estimate still given (median of 15 averages = 0.3). */
	assert_int_equal(pmc_signed_rank_shift(five, 5, 0.95, &shift, &lo, &hi), -EDOM);
	assert_close(shift, 0.3, 1e-14);
	assert_true(isnan(lo) && isnan(hi));

	/* Every difference zero: shift 0 and the interval [0, 0]; the test says p = 1. */
	assert_int_equal(pmc_signed_rank_shift(zeros, 6, 0.95, &shift, &lo, &hi), 0);
	assert_true(shift == 0 && lo == 0 && hi == 0);
	assert_int_equal(pmc_signed_rank_test(zeros, 6, &r), 0);
	assert_close(r.p, 1, 0);

	/* NAN is a round without a value: skipped. */
	assert_int_equal(pmc_signed_rank_shift(with_nan, 8, 0.95, &shift, &lo, &hi), 0);
	assert_close(shift, 0.35, 1e-14);
	assert_int_equal(pmc_signed_rank_test(with_nan, 8, &r), 0);
	assert_int_equal(r.n, 6);
	assert_close(r.p, 1.0 / 32, 1e-15);

	/* Bad input is an error and leaves the outputs alone. */
	shift = 7, lo = 8, hi = 9;
	assert_int_equal(pmc_signed_rank_shift(inf, 3, 0.95, &shift, &lo, &hi), -EINVAL);
	assert_int_equal(pmc_signed_rank_shift(nans, 2, 0.95, &shift, &lo, &hi), -EINVAL);
	assert_int_equal(pmc_signed_rank_shift(six, 0, 0.95, &shift, &lo, &hi), -EINVAL);
	assert_int_equal(pmc_signed_rank_shift(NULL, 3, 0.95, &shift, &lo, &hi), -EINVAL);
	assert_int_equal(pmc_signed_rank_shift(six, 6, 1.0, &shift, &lo, &hi), -EINVAL);
	assert_int_equal(pmc_signed_rank_shift(six, 6, 0.0, &shift, &lo, &hi), -EINVAL);
	assert_int_equal(pmc_signed_rank_shift(six, 6, NAN, &shift, &lo, &hi), -EINVAL);
	assert_int_equal(pmc_signed_rank_shift(six, 6, 0.95, NULL, &lo, &hi), -EINVAL);
	assert_close(shift, 7, 0);
	assert_close(lo, 8, 0);
	assert_close(hi, 9, 0);

	memset(&r, 0x5a, sizeof(r));
	struct pmc_signed_rank before = r;

	assert_int_equal(pmc_signed_rank_test(inf, 3, &r), -EINVAL);
	assert_int_equal(pmc_signed_rank_test(nans, 2, &r), -EINVAL);
	assert_int_equal(pmc_signed_rank_test(six, 0, &r), -EINVAL);
	assert_int_equal(pmc_signed_rank_test(NULL, 3, &r), -EINVAL);
	assert_int_equal(pmc_signed_rank_test(six, 6, NULL), -EINVAL);
	assert_memory_equal(&r, &before, sizeof(r));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_textbook_depression),
	    cmocka_unit_test(test_darwin_zea_mays),
	    cmocka_unit_test(test_exact_with_ties_and_zeros),
	    cmocka_unit_test(test_exact_limit_50),
	    cmocka_unit_test(test_untied_exact_and_normal),
	    cmocka_unit_test(test_shift_depression_and_darwin),
	    cmocka_unit_test(test_shift_log_ratios),
	    cmocka_unit_test(test_shift_ties_interval_is_conservative),
	    cmocka_unit_test(test_shift_critical_values),
	    cmocka_unit_test(test_test_and_interval_agree_without_ties),
	    cmocka_unit_test(test_shift_edges),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The change of an amount estimated from sampled counts (harness/2-core/counts.h):
 * the verdict follows the conditional test of two Poisson counts, and the interval
 * covers the true change as often as it says, on counts drawn with a fixed seed. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "tests/helpers.h"

#include "core/counts.h"

static struct pmc_count_change change_of(uint64_t k0, double per0, uint64_t k1, double per1)
{
	struct pmc_count_change c;

	assert_int_equal(
	    pmc_count_change((double)k0 * per0, k0, per0, (double)k1 * per1, k1, per1, 0.95, &c),
	    0);
	return c;
}

/* Counts whose verdicts the conditional test gives: k1 of n = k0 + k1 against 1/2. */
static void verdicts_follow_the_counts(void **state)
{
	struct pmc_count_change c;

	(void)state;
	c = change_of(100, 1, 100, 1);
	assert_close(c.change, 0, 0);
	assert_close(c.lo, -c.hi, 1e-12);
	assert_false(c.clear);
	/* 125 against 100 is noise; 160 against 100 is not. */
	assert_false(change_of(100, 1, 125, 1).clear);
	c = change_of(100, 1, 160, 1);
	assert_true(c.clear);
	assert_close(c.change, 60, 1e-12);
	assert_true(c.lo > 0 && c.lo < 60 && c.hi > 60);
	/* Shrinking alike. */
	c = change_of(160, 1, 100, 1);
	assert_true(c.clear && c.hi < 0 && c.lo < -60);
	/* From nothing: 4 samples could be chance, 7 are not. */
	assert_false(change_of(0, 1, 4, 1).clear);
	assert_true(change_of(0, 1, 7, 1).clear);
	/* No samples on either side: no change, and nothing to say. */
	c = change_of(0, 1, 0, 1);
	assert_false(c.clear);
	assert_close(c.change, 0, 0);
	/* Samples worth twice as much on the old side (a lower frequency): 100 of them are
	 * the amount of 200 new ones, unchanged. */
	c = change_of(100, 2, 200, 1);
	assert_close(c.change, 0, 1e-12);
	assert_false(c.clear);
	assert_int_equal(pmc_count_change(1, 1, 0, 1, 1, 1, 0.95, &c), -EINVAL);
	assert_int_equal(pmc_count_change(1, 1, 1, 1, 1, 1, 1, &c), -EINVAL);
	assert_int_equal(pmc_count_change(1, 1, NAN, 1, 1, 1, 0.95, &c), -EINVAL);
}

/* A fixed generator (SplitMix64), so that the draws and the test's outcome are always the
 * same. */
static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* Poisson(lambda) by multiplying uniforms (Knuth), for the small lambdas here. */
static uint64_t poisson(uint64_t *s, double lambda)
{
	double l = exp(-lambda), p = 1;
	uint64_t k = 0;

	do {
		k++;
		p *= (double)(next(s) >> 11) * 0x1.0p-53;
	} while (p > l);
	return k - 1;
}

/* Over 4,000 pairs of draws, the 95% interval holds the true change at least 95% of the
 * time, for counts of a function that did not change and of one that tripled. */
static void intervals_cover_the_true_change(void **state)
{
	static const struct {
		double l0, l1;
	} cases[] = {{3, 3}, {20, 20}, {20, 60}, {200, 200}, {200, 260}};
	uint64_t seed = 34;

	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		const int draws = 4000;
		int covered = 0, said = 0;

		for (int i = 0; i < draws; i++) {
			uint64_t k0 = poisson(&seed, cases[c].l0), k1 = poisson(&seed, cases[c].l1);
			struct pmc_count_change r = change_of(k0, 1, k1, 1);
			double truth = cases[c].l1 - cases[c].l0;

			covered += r.lo <= truth && truth <= r.hi;
			said += r.clear;
		}
		print_message("lambda %g -> %g: covered %d of %d, changed %d\n", cases[c].l0,
			      cases[c].l1, covered, draws, said);
		assert_true(covered >= draws * 95 / 100);
		/* No change: said to be one at most 5% of the time. */
		if (cases[c].l0 == cases[c].l1)
			assert_true(said <= draws * 5 / 100);
		/* Tripled from 20: nearly always seen. */
		if (cases[c].l1 == 3 * cases[c].l0)
			assert_true(said >= draws * 95 / 100);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(verdicts_follow_the_counts),
	    cmocka_unit_test(intervals_cover_the_true_change),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

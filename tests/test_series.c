/* A history's series as plain data (harness/2-core/series.c): the values of a series are
 * its points with a median, its change points index them and say which point they fall
 * on, a simulator's series of equal samples is exact, and the rows of `history changes`
 * keep what the selection and --new-since say, with their commits and way. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "core/series.h"

#define NPOINTS 13
#define GAP 3 /* the point never measured */

/* A series of instructions counted by a simulator: 100 from point 0 to 6, 110 after,
 * point GAP not measured; point i was measured at day i of 2026-01 and is of commit cNN. */
struct fixture {
	struct pmc_history_point ps[NPOINTS];
	double samples[NPOINTS][2];
	char commits[NPOINTS][8];
	char ids[NPOINTS][8];
};

static void make(struct fixture *f, double step, bool simulated)
{
	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < NPOINTS; i++) {
		double v = i <= 6 ? 100 : 100 * step;

		snprintf(f->commits[i], sizeof(f->commits[i]), "c%02zu", i);
		snprintf(f->ids[i], sizeof(f->ids[i]), "e%02zu", i);
		f->samples[i][0] = f->samples[i][1] = i == GAP ? NAN : v;
		f->ps[i] = (struct pmc_history_point){
		    .e = {.id = f->ids[i],
			  .t = 1767225600 + (int64_t)i * 86400,
			  .commit = f->commits[i],
			  .fingerprint = "fp",
			  .machine = "box"},
		    .benchmark = "work",
		    .metric = "instructions",
		    .unit = "count",
		    .simulated = simulated,
		    .median = i == GAP ? NAN : v,
		    .n = 2,
		    .samples = f->samples[i],
		};
	}
}

static void values_skip_the_unmeasured_point(void **state)
{
	struct fixture f;
	struct pmc_series s;

	(void)state;
	make(&f, 1.1, true);
	assert_int_equal(pmc_series_changes(f.ps, NPOINTS, &(struct pmc_cp_opts){0}, &s), 0);
	assert_int_equal(s.n, NPOINTS);
	assert_int_equal(s.nx, NPOINTS - 1);
	assert_int_equal(s.at[GAP - 1], GAP - 1);
	assert_int_equal(s.at[GAP], GAP + 1);
	/* Exact counts: one step, between values 5 and 6 (points 6 and 7), with p 0. */
	assert_int_equal(s.ncps, 1);
	assert_int_equal(s.cps[0].index, 6);
	assert_int_equal(s.at[s.cps[0].index], 7);
	assert_true(s.cps[0].p == 0);
	assert_true(s.cps[0].before == 100 && s.cps[0].after == 100 * 1.1);
	pmc_series_clear(&s);
	assert_null(s.x);
	assert_int_equal(s.ncps, 0);
}

static void bad_options_are_einval(void **state)
{
	struct fixture f;
	struct pmc_series s;

	(void)state;
	make(&f, 1.1, false);
	assert_int_equal(
	    pmc_series_changes(f.ps, NPOINTS, &(struct pmc_cp_opts){.min_size = 1}, &s), -EINVAL);
	pmc_series_clear(&s);
	/* Not a simulator's: the same values go the rank way, where 6 equal points a side
	 * are no change at the default alpha; a simulator's are one (above). */
	assert_int_equal(pmc_series_changes(f.ps, NPOINTS, &(struct pmc_cp_opts){0}, &s), 0);
	assert_int_equal(s.nx, NPOINTS - 1);
	assert_int_equal(s.ncps, 0);
	pmc_series_clear(&s);
}

static void rows_say_where_and_which_way(void **state)
{
	struct fixture f;
	struct pmc_series s;
	struct pmc_changes c = {0};

	(void)state;
	make(&f, 1.1, true);
	assert_int_equal(pmc_series_changes(f.ps, NPOINTS, &(struct pmc_cp_opts){0}, &s), 0);
	assert_int_equal(pmc_changes_add(&c, &s), 0);
	assert_int_equal(c.nseries, 1);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.rows[0].commit_before, "c06");
	assert_string_equal(c.rows[0].commit, "c07");
	assert_string_equal(c.rows[0].entry, "e07");
	assert_string_equal(c.rows[0].measured, "2026-01-08T00:00:00Z");
	assert_int_equal(c.rows[0].points, NPOINTS - 1);
	/* The rows' names are their own: the series' points may go. */
	assert_ptr_not_equal(c.rows[0].benchmark, f.ps[7].benchmark);
	assert_string_equal(c.rows[0].benchmark, "work");
	assert_string_equal(c.rows[0].unit, "count");
	/* More instructions are worse. */
	assert_int_equal(c.rows[0].way, PMC_CP_REGRESSION);
	assert_int_equal(pmc_changes_regressions(&c), 1);
	assert_null(pmc_changes_verdict(&c));
	c.new_since = "c05";
	assert_string_equal(pmc_changes_verdict(&c), "regression");
	pmc_changes_clear(&c);
	assert_int_equal(c.n, 0);

	/* --new-since after the change: no row, the series counted. */
	c = (struct pmc_changes){.new_since = "c07", .from = f.ps[7].e.t + 1};
	assert_int_equal(pmc_changes_add(&c, &s), 0);
	assert_int_equal(c.n, 0);
	assert_int_equal(c.nseries, 1);
	assert_string_equal(pmc_changes_verdict(&c), "pass");
	pmc_changes_clear(&c);
	pmc_series_clear(&s);

	/* Fewer instructions: an improvement, which --regressions-only leaves out. */
	make(&f, 0.9, true);
	assert_int_equal(pmc_series_changes(f.ps, NPOINTS, &(struct pmc_cp_opts){0}, &s), 0);
	c = (struct pmc_changes){.select = {.regressions_only = true}};
	assert_int_equal(pmc_changes_add(&c, &s), 0);
	assert_int_equal(c.n, 0);
	c.select.regressions_only = false;
	assert_int_equal(pmc_changes_add(&c, &s), 0);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.rows[0].way, PMC_CP_IMPROVEMENT);
	assert_int_equal(c.nseries, 2);
	pmc_changes_clear(&c);
	pmc_series_clear(&s);
}

static void same_series_by_benchmark_metric_fingerprint(void **state)
{
	struct fixture f;
	struct pmc_history_point other;

	(void)state;
	make(&f, 1.1, true);
	assert_true(pmc_history_same_series(&f.ps[0], &f.ps[1]));
	other = f.ps[1];
	other.e.fingerprint = "fp2";
	assert_false(pmc_history_same_series(&f.ps[0], &other));
	other = f.ps[1];
	other.metric = "cycles";
	assert_false(pmc_history_same_series(&f.ps[0], &other));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(values_skip_the_unmeasured_point),
	    cmocka_unit_test(bad_options_are_einval),
	    cmocka_unit_test(rows_say_where_and_which_way),
	    cmocka_unit_test(same_series_by_benchmark_metric_fingerprint),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

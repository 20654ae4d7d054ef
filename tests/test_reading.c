/* Multiplex scaling (counters/reading.h, docs/events.md "Scaling"): one rounding,
 * value * enabled / running in double (two roundings: the product, then the quotient),
 * wherever a reading is made: the engine's read (pmc_reading_set), a benchmark's batch
 * (microbench/batch_reading.c) and a reading handed to the result model
 * (pmc_metric_add_reading). The reference values are Python's
 * float(v) * float(e) / float(r). */
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

#include "core/result.h"
#include "counters/reading.h"
#include "microbench/loop.h"
#include "tests/helpers.h"

struct ref {
	uint64_t value, enabled, running;
	double scaled; /* float(v) * float(e) / float(r) */
};

/* Cases where value * (enabled / running), the other order, rounds differently (29 and
 * 23.333333333333332 there are 29.000000000000004 and 23.333333333333336), and one past
 * 2^53, where the product itself rounds. */
static const struct ref refs[] = {
    {7, 29, 7, 29.0},
    {7, 10, 3, 23.333333333333332},
    {123456789, 1000, 999, 123580369.36936937},
    {1000003, 2000000, 1000001, 2000003.999996},
    {(UINT64_C(1) << 53) + 1, 3, 2, 13510798882111488.0},
};

static void test_scale_rounds_as_the_reference(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
		const struct ref *c = &refs[i];
		struct pmc_reading rd = {.error = EBUSY, .user_only = true};

		assert_true(pmc_reading_scale(c->value, c->enabled, c->running) == c->scaled);
		pmc_reading_set(&rd, c->value, c->enabled, c->running);
		assert_int_equal(rd.status, PMC_STATUS_SCALED);
		assert_true(rd.scaled == c->scaled);
		assert_int_equal(rd.value, c->value);
		assert_int_equal(rd.enabled, c->enabled);
		assert_int_equal(rd.running, c->running);
		/* The caller's fields stay. */
		assert_int_equal(rd.error, EBUSY);
		assert_true(rd.user_only);
	}
}

static void test_status_from_the_times(void **state)
{
	struct pmc_reading rd = {0};

	(void)state;
	/* Never on the PMU: not counted, and no number. */
	assert_true(isnan(pmc_reading_scale(5, 10, 0)));
	pmc_reading_set(&rd, 5, 10, 0);
	assert_int_equal(rd.status, PMC_STATUS_NOT_COUNTED);
	assert_true(isnan(rd.scaled));
	pmc_reading_set(&rd, 0, 0, 0);
	assert_int_equal(rd.status, PMC_STATUS_NOT_COUNTED);
	/* All the time, or longer (a member read after its leader): the value itself. */
	pmc_reading_set(&rd, 41, 100, 100);
	assert_int_equal(rd.status, PMC_STATUS_COUNTED);
	assert_true(rd.scaled == 41.0);
	pmc_reading_set(&rd, 41, 100, 101);
	assert_int_equal(rd.status, PMC_STATUS_COUNTED);
	assert_true(rd.scaled == 41.0);
	/* The running fraction: at most 1, none without an enabled time. */
	assert_true(pmc_reading_running_fraction(100, 25) == 0.25);
	assert_true(pmc_reading_running_fraction(100, 101) == 1.0);
	assert_true(isnan(pmc_reading_running_fraction(0, 0)));
}

/* A benchmark's batch: the differences of two cumulative reads, by the same rule. */
static void test_batch_scales_as_the_engine(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
		const struct ref *c = &refs[i];
		struct pmc_reading a = {
		    .status = PMC_STATUS_COUNTED, .value = 1000, .enabled = 50, .running = 50};
		struct pmc_reading b = a, d;

		b.status = PMC_STATUS_SCALED;
		b.value += c->value;
		b.enabled += c->enabled;
		b.running += c->running;
		pmc_mb_batch_reading(&a, &b, &d);
		assert_int_equal(d.status, PMC_STATUS_SCALED);
		assert_true(d.scaled == c->scaled);
	}
}

/* A reading handed to the result model is scaled by the same function. */
static void test_result_model_scales_as_the_engine(void **state)
{
	struct pmc_result *r = t_result("perf");
	struct pmc_metric *m = t_metric(t_bench(r, "a", "a"), "cycles");

	(void)state;
	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
		struct pmc_reading rd = {.status = PMC_STATUS_SCALED,
					 .value = refs[i].value,
					 .enabled = refs[i].enabled,
					 .running = refs[i].running};

		assert_int_equal(pmc_metric_add_reading(m, &rd), 0);
		assert_true(m->values[i] == refs[i].scaled);
	}
	/* Scaled without running time is a malformed reading. */
	{
		struct pmc_reading rd = {.status = PMC_STATUS_SCALED, .value = 3, .enabled = 4};

		assert_int_equal(pmc_metric_add_reading(m, &rd), -EINVAL);
	}
	assert_int_equal(m->n, sizeof(refs) / sizeof(refs[0]));
	pmc_result_free(r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_scale_rounds_as_the_reference),
	    cmocka_unit_test(test_status_from_the_times),
	    cmocka_unit_test(test_batch_scales_as_the_engine),
	    cmocka_unit_test(test_result_model_scales_as_the_engine),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* harness/4-profile/record_timeline.c: when a recording took and lost its samples, per
 * tenth of its span. A LOST record's samples are spread over the time since its CPU's
 * previous record (the ring was full meanwhile), the tenths add up to the counts exactly,
 * and a recording of any length fits the fixed histogram. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "counters/perf/sample.h"
#include "profile/profile.h"
#include "profile/record_timeline.h"

#define MS 1000000ULL

static void sample(struct pmc_record_timeline *t, uint32_t cpu, uint64_t time)
{
	struct pmc_record r = {.type = PMC_RECORD_SAMPLE, .cpu = cpu, .time = time};

	assert_int_equal(pmc_record_timeline_add(t, &r), 0);
}

static void lost(struct pmc_record_timeline *t, uint32_t cpu, uint64_t time, uint64_t n)
{
	struct pmc_record r = {.type = PMC_RECORD_LOST, .cpu = cpu, .time = time};

	r.lost.lost = n;
	assert_int_equal(pmc_record_timeline_add(t, &r), 0);
}

static uint64_t sum(const uint64_t *v)
{
	uint64_t s = 0;

	for (int i = 0; i < PMC_PROFILE_TENTHS; i++)
		s += v[i];
	return s;
}

/* A second of samples on CPU 0, every 10 ms; CPU 1 full from its start to 100 ms (50
 * lost), and from 450 ms to 550 ms (40 lost, across two tenths). */
static void losses_fall_where_the_ring_was_full(void **state)
{
	struct pmc_record_timeline t = {0};
	struct pmc_profile_timeline got;

	(void)state;
	sample(&t, 1, 0);
	for (uint64_t ms = 0; ms <= 1000; ms += 10) {
		if (ms == 100)
			lost(&t, 1, 100 * MS, 50);
		if (ms == 450)
			sample(&t, 1, 450 * MS);
		if (ms == 550)
			lost(&t, 1, 550 * MS, 40);
		sample(&t, 0, ms * MS);
	}
	pmc_record_timeline_get(&t, &got);
	assert_int_equal(got.span_ns, 1000 * MS);
	assert_int_equal(sum(got.samples), 101 + 2);
	/* To within a bin of the histogram (at most a hundredth of the span: 8 ms here). */
	assert_in_range(got.samples[1], 8, 12);
	assert_int_equal(sum(got.lost), 90);
	assert_in_range(got.lost[0], 47, 50);
	assert_int_equal(got.lost[0] + got.lost[1], 50);
	assert_int_equal(got.lost[2], 0);
	assert_in_range(got.lost[4], 18, 22);
	assert_in_range(got.lost[5], 18, 22);
	assert_int_equal(got.lost[3] + got.lost[4] + got.lost[5] + got.lost[6], 40);
	for (int i = 7; i < PMC_PROFILE_TENTHS; i++)
		assert_int_equal(got.lost[i], 0);
	pmc_record_timeline_free(&t);
}

/* Three lost samples over three tenths are whole samples that add up to 3; a recording of
 * a thousand seconds fits the histogram, its first and last samples in the first and last
 * tenth. */
static void tenths_add_up_whatever_the_length(void **state)
{
	struct pmc_record_timeline t = {0};
	struct pmc_profile_timeline got;

	(void)state;
	sample(&t, 0, 0);
	lost(&t, 0, 299 * MS, 3);
	sample(&t, 0, 1000 * MS);
	pmc_record_timeline_get(&t, &got);
	assert_int_equal(sum(got.lost), 3);
	assert_int_equal(got.lost[0] + got.lost[1] + got.lost[2], 3);
	pmc_record_timeline_free(&t);

	memset(&t, 0, sizeof(t));
	sample(&t, 0, 5 * MS);
	for (uint64_t s = 1; s <= 1000; s++)
		sample(&t, 0, 5 * MS + s * 1000 * MS);
	pmc_record_timeline_get(&t, &got);
	assert_int_equal(got.span_ns, 1000000 * MS);
	assert_int_equal(sum(got.samples), 1001);
	assert_true(got.samples[0] >= 99 && got.samples[0] <= 102);
	assert_true(got.samples[9] >= 99 && got.samples[9] <= 102);
	assert_int_equal(sum(got.lost), 0);
	pmc_record_timeline_free(&t);
}

/* No record at all: no timeline (span 0), which the profile file leaves out. */
static void nothing_recorded_is_no_timeline(void **state)
{
	struct pmc_record_timeline t = {0};
	struct pmc_profile_timeline got;

	(void)state;
	pmc_record_timeline_get(&t, &got);
	assert_int_equal(got.span_ns, 0);
	pmc_record_timeline_free(&t);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(losses_fall_where_the_ring_was_full),
	    cmocka_unit_test(tenths_add_up_whatever_the_length),
	    cmocka_unit_test(nothing_recorded_is_no_timeline),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The CSV reporter: one row per benchmark, metric and run, read back with libcsv's own
 * parser. What was not measured is an empty field, never 0; numbers read back exactly;
 * names with commas and quotes survive; a skipped benchmark is one row with its reason. */
#include <csv.h>
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

#include "harness/core/result.h"
#include "pmcbench/report.h"
#include "tests/helpers.h"

#define NCOLS 10

/* A parsed row; NULL marks an empty unquoted field (CSV_EMPTY_IS_NULL). */
struct rows {
	char *cell[64][NCOLS];
	size_t ncols[64];
	size_t n;
};

static void on_field(void *s, size_t len, void *data)
{
	struct rows *t = data;
	size_t c = t->ncols[t->n]++;

	assert_true(t->n < 64);
	assert_true(c < NCOLS);
	t->cell[t->n][c] = s ? strndup(s, len) : NULL;
}

static void on_row(int c, void *data)
{
	struct rows *t = data;

	t->n++;
}

static void parse_csv(const char *text, size_t len, struct rows *t)
{
	struct csv_parser p;

	memset(t, 0, sizeof(*t));
	assert_int_equal(csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_EMPTY_IS_NULL), 0);
	assert_int_equal(csv_parse(&p, text, len, on_field, on_row, t), len);
	assert_int_equal(csv_fini(&p, on_field, on_row, t), 0);
	csv_free(&p);
}

static void free_rows(struct rows *t)
{
	for (size_t i = 0; i < t->n; i++)
		for (size_t c = 0; c < t->ncols[i]; c++)
			free(t->cell[i][c]);
}

static struct pmc_reading rd(enum pmc_status st, uint64_t v, uint64_t en, uint64_t run)
{
	struct pmc_reading r = {.status = st, .value = v, .enabled = en, .running = run};

	r.scaled = run ? (double)v * (double)en / (double)run : NAN;
	if (st == PMC_STATUS_UNSUPPORTED)
		r.error = ENOENT;
	return r;
}

static struct pmc_result *sample(void)
{
	struct pmc_result *r = t_result("perf");
	struct pmc_run_info ok = {0};
	struct pmc_benchmark *b = t_bench(r, "a,b \"q\"", NULL);
	struct pmc_reading c[3] = {
	    rd(PMC_STATUS_COUNTED, 1000, 5000, 5000),
	    rd(PMC_STATUS_SCALED, 333, 1000, 3),
	    rd(PMC_STATUS_NOT_COUNTED, 0, 777, 0),
	};
	const double wall[3] = {0.1, NAN, 1.0 / 3.0};

	for (int i = 0; i < 3; i++)
		assert_int_equal(pmc_benchmark_add_run(b, &ok), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(pmc_metric_append(t_metric(b, "cycles"),
						   i < 2 ? c[i].scaled : NAN, &c[i]),
				 0);
	for (int i = 0; i < 3; i++) {
		struct pmc_reading u = rd(PMC_STATUS_UNSUPPORTED, 0, 0, 0);

		assert_int_equal(pmc_metric_append(t_metric(b, "branches"), NAN, &u),
				 0);
	}
	for (int i = 0; i < 3; i++)
		assert_int_equal(
		    pmc_metric_append(t_metric(b, "wall-time"), wall[i], NULL), 0);

	b = t_bench(r, "sim", NULL);
	assert_int_equal(pmc_benchmark_add_run(b, &ok), 0);
	{
		struct pmc_reading e = rd(PMC_STATUS_EXACT, 123456789, 0, 0);

		assert_int_equal(
		    pmc_metric_append(t_metric(b, "instructions"), 123456789.0, &e), 0);
	}
	b = t_bench(r, "avx2", NULL);
	assert_int_equal(pmc_benchmark_set_skipped(b, "no AVX2, \"really\""), 0);
	b = t_bench(r, "quiet", NULL);
	assert_int_equal(pmc_benchmark_set_skipped(b, ""), 0);
	return r;
}

static void expect_row(const struct rows *t, size_t i, const char *const want[NCOLS])
{
	assert_int_equal(t->ncols[i], NCOLS);
	for (size_t c = 0; c < NCOLS; c++) {
		const char *got = t->cell[i][c];

		if (!want[c] && got)
			fail_msg("row %zu column %zu: \"%s\" where nothing was measured", i, c,
				 got);
		if (want[c] && (!got || strcmp(got, want[c]) != 0))
			fail_msg("row %zu column %zu: \"%s\", expected \"%s\"", i, c,
				 got ? got : "(empty)", want[c]);
	}
}

static void rows_hold_values_statuses_and_readings(void **state)
{
	static const char *const header[NCOLS] = {
	    "benchmark", "metric",    "unit",	      "run",	      "value",
	    "status",	 "raw_value", "time_enabled", "time_running", "skipped"};
	static const char *const want[][NCOLS] = {
	    {"a,b \"q\"", "cycles", "count", "1", "1000", "counted", "1000", "5000", "5000", NULL},
	    {"a,b \"q\"", "cycles", "count", "2", "111000", "scaled", "333", "1000", "3", NULL},
	    /* Never ran: its reading is kept, but there is no value. */
	    {"a,b \"q\"", "cycles", "count", "3", NULL, "not-counted", "0", "777", "0", NULL},
	    {"a,b \"q\"", "branches", "count", "1", NULL, "unsupported", NULL, NULL, NULL, NULL},
	    {"a,b \"q\"", "branches", "count", "2", NULL, "unsupported", NULL, NULL, NULL, NULL},
	    {"a,b \"q\"", "branches", "count", "3", NULL, "unsupported", NULL, NULL, NULL, NULL},
	    {"a,b \"q\"", "wall-time", "ns", "1", "0.1", NULL, NULL, NULL, NULL, NULL},
	    {"a,b \"q\"", "wall-time", "ns", "2", NULL, NULL, NULL, NULL, NULL, NULL},
	    {"a,b \"q\"", "wall-time", "ns", "3", "0.3333333333333333", NULL, NULL, NULL, NULL,
	     NULL},
	    /* A simulated count has no times. */
	    {"sim", "instructions", "count", "1", "123456789", "exact", "123456789", NULL, NULL,
	     NULL},
	    /* Skipped: the reason, and no value at all (not a 0). */
	    {"avx2", NULL, NULL, NULL, NULL, "skipped", NULL, NULL, NULL, "no AVX2, \"really\""},
	    {"quiet", NULL, NULL, NULL, NULL, "skipped", NULL, NULL, NULL, NULL},
	};
	struct pmc_result *r = sample();
	char *text = NULL;
	size_t len = 0;
	struct rows t;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(pmc_report_result(f, "csv", r, NULL, NULL, 0), 0);
	assert_int_equal(fclose(f), 0);
	print_message("%s", text);
	parse_csv(text, len, &t);
	assert_int_equal(t.n, 1 + sizeof(want) / sizeof(want[0]));
	expect_row(&t, 0, header);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		expect_row(&t, i + 1, want[i]);
	/* Numbers read back to the same double. */
	assert_true(strtod(t.cell[9][4], NULL) == 1.0 / 3.0);
	assert_true(strtod(t.cell[7][4], NULL) == 0.1);
	free_rows(&t);
	free(text);
	pmc_result_free(r);
}

static void write_errors_are_reported(void **state)
{
	struct pmc_result *r = sample();
	FILE *f = fopen("/dev/full", "w");

	if (!f)
		skip();
	assert_int_equal(pmc_report_result(f, "csv", r, NULL, NULL, 0), -ENOSPC);
	fclose(f);
	pmc_result_free(r);
}

static void empty_result_is_a_header(void **state)
{
	struct pmc_result *r = t_result("perf");
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_int_equal(pmc_report_result(f, "csv", r, NULL, NULL, 0), 0);
	fclose(f);
	assert_string_equal(text, "benchmark,metric,unit,run,value,status,raw_value,time_enabled,"
				  "time_running,skipped\n");
	free(text);
	pmc_result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(rows_hold_values_statuses_and_readings),
	    cmocka_unit_test(write_errors_are_reported),
	    cmocka_unit_test(empty_result_is_a_header),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The CSV reporter: one row per benchmark, metric and run (and one per row of a
 * comparison), read back with libcsv's own parser. What was not measured is an empty field, never
 * 0; numbers read back exactly; names with commas and quotes survive; a skipped benchmark is one
 * row with its reason. */
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

#include "tests/test_main.h"

#include "core/compare.h"
#include "core/result.h"
#include "pmcbench/report.h"
#include "tests/helpers.h"

/* The columns of a result's rows, and room for a comparison's. */
#define NCOLS 11
#define MAXCOLS 40

/* A parsed row; NULL marks an empty unquoted field (CSV_EMPTY_IS_NULL). */
struct rows {
	char *cell[64][MAXCOLS];
	size_t ncols[64];
	size_t n;
};

static void on_field(void *s, size_t len, void *data)
{
	struct rows *t = data;
	size_t c = t->ncols[t->n]++;

	assert_true(t->n < 64);
	assert_true(c < MAXCOLS);
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
		assert_int_equal(
		    pmc_metric_append(t_metric(b, "cycles"), i < 2 ? c[i].scaled : NAN, &c[i]), 0);
	for (int i = 0; i < 3; i++) {
		struct pmc_reading u = rd(PMC_STATUS_UNSUPPORTED, 0, 0, 0);

		assert_int_equal(pmc_metric_append(t_metric(b, "branches"), NAN, &u), 0);
	}
	for (int i = 0; i < 3; i++)
		assert_int_equal(pmc_metric_append(t_metric(b, "wall-time"), wall[i], NULL), 0);

	b = t_bench(r, "sim", NULL);
	{
		/* A microbenchmark's run: its values are per operation of a batch of 4096. */
		struct pmc_run_info batch = {.iterations = 4096};

		assert_int_equal(pmc_benchmark_add_run(b, &batch), 0);
	}
	{
		struct pmc_reading e = rd(PMC_STATUS_EXACT, 123456789, 0, 0);

		assert_int_equal(pmc_metric_append(t_metric(b, "instructions"), 123456789.0, &e),
				 0);
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
	    "benchmark", "metric",	 "unit",	 "run",	    "value",	 "status",
	    "raw_value", "time_enabled", "time_running", "skipped", "iterations"};
	static const char *const want[][NCOLS] = {
	    {"a,b \"q\"", "cycles", "count", "1", "1000", "counted", "1000", "5000", "5000", NULL,
	     NULL},
	    {"a,b \"q\"", "cycles", "count", "2", "111000", "scaled", "333", "1000", "3", NULL,
	     NULL},
	    /* Never ran: its reading is kept, but there is no value. */
	    {"a,b \"q\"", "cycles", "count", "3", NULL, "not-counted", "0", "777", "0", NULL, NULL},
	    {"a,b \"q\"", "branches", "count", "1", NULL, "unsupported", NULL, NULL, NULL, NULL,
	     NULL},
	    {"a,b \"q\"", "branches", "count", "2", NULL, "unsupported", NULL, NULL, NULL, NULL,
	     NULL},
	    {"a,b \"q\"", "branches", "count", "3", NULL, "unsupported", NULL, NULL, NULL, NULL,
	     NULL},
	    {"a,b \"q\"", "wall-time", "ns", "1", "0.1", NULL, NULL, NULL, NULL, NULL, NULL},
	    {"a,b \"q\"", "wall-time", "ns", "2", NULL, NULL, NULL, NULL, NULL, NULL, NULL},
	    {"a,b \"q\"", "wall-time", "ns", "3", "0.3333333333333333", NULL, NULL, NULL, NULL,
	     NULL, NULL},
	    /* A simulated count has no times. */
	    {"sim", "instructions", "count", "1", "123456789", "exact", "123456789", NULL, NULL,
	     NULL, "4096"},
	    /* Skipped: the reason, and no value at all (not a 0). */
	    {"avx2", NULL, NULL, NULL, NULL, "skipped", NULL, NULL, NULL, "no AVX2, \"really\"",
	     NULL},
	    {"quiet", NULL, NULL, NULL, NULL, "skipped", NULL, NULL, NULL, NULL, NULL},
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
				  "time_running,skipped,iterations\n");
	free(text);
	pmc_result_free(r);
}

/* issue 19, item 4: a name that a spreadsheet would take for a formula (=, +, -, @) is
 * written with a ' before it (OWASP, "CSV Injection"); other names as they are. */
static void formulas_are_not_written_as_formulas(void **state)
{
	static const char *const names[] = {"=HYPERLINK(\"http://x\")", "+1", "-2", "@SUM(A1)",
					    "plain"};
	static const char *const want[] = {"'=HYPERLINK(\"http://x\")", "'+1", "'-2", "'@SUM(A1)",
					   "plain"};
	struct pmc_result *r = t_result("perf");
	struct pmc_run_info ok = {0};
	struct rows t = {0};
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	for (size_t i = 0; i < 5; i++) {
		struct pmc_benchmark *b = t_bench(r, names[i], NULL);

		assert_int_equal(pmc_benchmark_add_run(b, &ok), 0);
		assert_int_equal(pmc_metric_append(t_metric(b, "wall-time"), 1.0, NULL), 0);
	}
	f = open_memstream(&text, &len);
	assert_int_equal(pmc_report_result(f, "csv", r, NULL, NULL, 0), 0);
	fclose(f);
	parse_csv(text, len, &t);
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(t.cell[i + 1][0], want[i]);
	free_rows(&t);
	free(text);
	pmc_result_free(r);
}

/* The field of row i in the column named name (the header is row 0), NULL when empty. */
static const char *field(const struct rows *t, size_t i, const char *name)
{
	for (size_t c = 0; c < t->ncols[0]; c++)
		if (strcmp(t->cell[0][c], name) == 0)
			return t->cell[i][c];
	fail_msg("no column \"%s\"", name);
	return NULL;
}

/* A number field read back, NAN when empty. */
static double num(const struct rows *t, size_t i, const char *name)
{
	const char *v = field(t, i, name);

	return v ? strtod(v, NULL) : NAN;
}

/* A comparison: one row per row of it, in the order of the other reports (metric by
 * metric), with its sides, change, test and verdict; what does not exist is empty. */
static void comparison_rows_hold_what_the_json_report_holds(void **state)
{
	struct pmc_result *a = t_result("perf"), *b = t_result("perf");
	struct pmc_comparison *c = NULL;
	char *text = NULL, err[256];
	size_t len = 0, k = 0;
	struct rows t;
	FILE *f;

	put(a, "a,b \"q\"", "task-clock", 10, 2e6, 0.01);
	put(b, "a,b \"q\"", "task-clock", 10, 2.4e6, 0.01);
	put(a, "a,b \"q\"", "cycles", 10, 3e6, 0.01);
	put(a, "two", "task-clock", 10, 1e6, 0.01);
	put(b, "two", "task-clock", 10, 1e6, 0.0101);
	put(b, "two", "cycles", 10, 1e6, 0.0101);
	assert_int_equal(pmc_compare(a, b, NULL, &c, err, sizeof(err)), 0);
	f = open_memstream(&text, &len);
	assert_int_equal(pmc_report_comparison(f, "csv", c, NULL, NULL, 0), 0);
	assert_int_equal(fclose(f), 0);
	print_message("%s", text);
	parse_csv(text, len, &t);
	assert_int_equal(t.ncols[0], 35);
	assert_string_equal(t.cell[0][0], "benchmark");
	assert_int_equal(t.n, 1 + c->nrows);
	for (size_t bi = 0; bi < c->nblocks; bi++) {
		for (size_t j = 0; j < c->blocks[bi].nrows; j++) {
			const struct pmc_cmp_row *row = &c->rows[c->blocks[bi].rows[j]];
			size_t i = ++k;

			assert_int_equal(t.ncols[i], 35);
			assert_string_equal(field(&t, i, "benchmark"), row->bench);
			assert_string_equal(field(&t, i, "old_benchmark"), row->old_bench);
			assert_string_equal(field(&t, i, "metric"), row->metric);
			assert_true(num(&t, i, "old_median") == row->old.median);
			assert_true(num(&t, i, "old_min") == row->old.min);
			assert_close(num(&t, i, "old_mean"), row->old.mean, 1e-9);
			if (row->kind == PMC_ROW_MISSING) {
				assert_string_equal(field(&t, i, "kind"), "missing");
				assert_string_equal(field(&t, i, "missing"), "new");
				assert_string_equal(field(&t, i, "verdict"), "not compared");
				assert_null(field(&t, i, "new_n"));
				assert_null(field(&t, i, "new_median"));
				assert_null(field(&t, i, "ratio"));
				assert_null(field(&t, i, "p"));
				assert_null(field(&t, i, "test"));
				continue;
			}
			assert_string_equal(field(&t, i, "kind"), "tested");
			assert_null(field(&t, i, "missing"));
			assert_true(num(&t, i, "new_n") == 10);
			assert_true(num(&t, i, "new_median") == row->new.median);
			assert_true(num(&t, i, "old_ci_lo") == row->old.ci_lo);
			assert_true(num(&t, i, "diff") == row->diff);
			assert_close(num(&t, i, "ratio"), row->ratio, 1e-9);
			assert_close(num(&t, i, "ratio_lo"), row->ratio_lo, 1e-9);
			assert_close(num(&t, i, "p"), row->p, 1e-9);
			assert_close(num(&t, i, "q"), row->q, 1e-9);
			assert_string_equal(field(&t, i, "test"), "mann-whitney-u");
			assert_null(field(&t, i, "pairs"));
			assert_string_equal(field(&t, i, "threshold"), "5%");
			assert_string_equal(field(&t, i, "gated"), "true");
			assert_string_equal(field(&t, i, "better"), "lower");
			assert_string_equal(field(&t, i, "unit"),
					    row->metric[0] == 't' ? "ns" : "count");
			assert_string_equal(field(&t, i, "verdict"),
					    pmc_verdict_name(row->verdict));
			assert_string_equal(field(&t, i, "significant"),
					    row->significant ? "true" : "false");
		}
	}
	assert_string_equal(field(&t, 1, "verdict"), "regression");
	free_rows(&t);
	free(text);

	/* A comparison that failed has the header alone. */
	f = open_memstream(&text, &len);
	{
		PMC_OPTS(pmc_report_opts, o, .error = "nothing in common");

		assert_int_equal(pmc_report_comparison(f, "csv", NULL, &o, NULL, 0), 0);
	}
	assert_int_equal(fclose(f), 0);
	assert_int_equal(strchr(text, '\n') - text + 1, (long)len);
	free(text);
	pmc_comparison_free(c);
	pmc_result_free(a);
	pmc_result_free(b);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(rows_hold_values_statuses_and_readings),
	    cmocka_unit_test(write_errors_are_reported),
	    cmocka_unit_test(empty_result_is_a_header),
	    cmocka_unit_test(formulas_are_not_written_as_formulas),
	    cmocka_unit_test(comparison_rows_hold_what_the_json_report_holds),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The perf-stat-like table and its Markdown version, rendered from results built by hand
 * and checked as text: the numbers a user reads (mean, spread, running share, derived
 * metrics), how missing counters are named, and that nothing unmeasured shows up as a
 * number. Expected spreads are worked out beside each test. */
#include <ctype.h>
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

#include "core/result.h"
#include "pmcbench/report.h"
#include "tests/helpers.h"

/* ---- Building results ---- */

static struct pmc_benchmark *bench(struct pmc_result *r, const char *name, const char *cmd,
				   size_t runs)
{
	struct pmc_benchmark *b = t_bench(r, name, cmd);
	struct pmc_run_info ok = {0};

	assert_non_null(b);
	for (size_t i = 0; i < runs; i++)
		assert_int_equal(pmc_benchmark_add_run(b, &ok), 0);
	return b;
}

/* A counter measured in every run, with the whole of its enabled time. */
static struct pmc_metric *counted(struct pmc_benchmark *b, const char *id, const double *v,
				  size_t n)
{
	struct pmc_metric *m = t_metric(b, id);

	assert_non_null(m);
	for (size_t i = 0; i < n; i++) {
		struct pmc_reading rd = {
		    .status = PMC_STATUS_COUNTED,
		    .value = (uint64_t)v[i],
		    .enabled = 1000000,
		    .running = 1000000,
		    .scaled = v[i],
		};

		assert_int_equal(pmc_metric_append(m, v[i], &rd), 0);
	}
	return m;
}

/* A counter that failed to open in each of n runs. */
static struct pmc_metric *failed(struct pmc_benchmark *b, const char *id, enum pmc_status st,
				 int error, size_t n)
{
	struct pmc_metric *m = t_metric(b, id);
	struct pmc_reading rd = {.status = st, .error = error};

	assert_non_null(m);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(pmc_metric_append(m, NAN, &rd), 0);
	return m;
}

/* A metric without counter readings: wait4 figures and derived metrics. */
static struct pmc_metric *plain(struct pmc_benchmark *b, const char *id, const double *v, size_t n)
{
	struct pmc_metric *m = t_metric(b, id);

	assert_non_null(m);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(pmc_metric_append(m, v[i], NULL), 0);
	return m;
}

/* ---- Rendering and reading text ---- */

static char *render(const struct pmc_result *r, bool markdown, bool median)
{
	PMC_OPTS(pmc_report_opts, o, .median = median, .confidence = 0.95);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int err;

	assert_non_null(f);
	err = pmc_report_result(f, markdown ? "markdown" : "table", r, &o, NULL, 0);
	assert_int_equal(fclose(f), 0);
	if (err != 0)
		print_error("report returned %d; text so far:\n%s\n", err, text);
	assert_int_equal(err, 0);
	return text;
}

/* A copy of the first line of text that contains needle, or NULL. */
static char *line_with(const char *text, const char *needle)
{
	const char *p = strstr(text, needle), *start, *end;
	char *line;

	if (!p)
		return NULL;
	for (start = p; start > text && start[-1] != '\n'; start--)
		;
	end = strchr(p, '\n');
	if (!end)
		end = p + strlen(p);
	line = strndup(start, (size_t)(end - start));
	assert_non_null(line);
	return line;
}

/* The line of a metric in the text table: its id stands alone, after the value. */
static char *metric_line(const char *text, const char *id)
{
	char needle[128];

	snprintf(needle, sizeof(needle), "  %s ", id);
	return line_with(text, needle);
}

#define assert_lacks(hay, needle)                                                                  \
	do {                                                                                       \
		const char *h_ = (hay), *n_ = (needle);                                            \
		if (h_ && strstr(h_, n_)) {                                                        \
			print_error("did not expect \"%s\" in:\n%s\n", n_, h_);                    \
			fail();                                                                    \
		}                                                                                  \
	} while (0)

/* "nan" and "inf" must never reach a reader, in any case. */
static void assert_no_nan(const char *text)
{
	for (const char *p = text; *p; p++) {
		if ((strncasecmp(p, "nan", 3) == 0 || strncasecmp(p, "inf", 3) == 0)) {
			print_error("found \"%.3s\" at offset %td in:\n%s\n", p, p - text, text);
			fail();
		}
	}
}

static void assert_no_digits(const char *line)
{
	assert_non_null(line);
	for (const char *p = line; *p; p++) {
		if (isdigit((unsigned char)*p)) {
			print_error("digit '%c' in a line that must hold no number:\n%s\n", *p,
				    line);
			fail();
		}
	}
}

/* Column where id starts on its line. */
static long column_of(const char *text, const char *id)
{
	char *line = metric_line(text, id);
	long col;

	assert_non_null(line);
	col = strstr(line, id) - line;
	free(line);
	return col;
}

/* ---- Tests ---- */

/* Means, CV and units: instructions {1000, 1100, 1200} have mean 1100 and sample stddev
 * 100, so CV = 100 / 1100 = 9.09%; task-clock {1.0, 1.1, 0.9} ms has mean 1.00 ms and
 * CV 0.1 / 1.0 = 10.00%; identical counts have CV 0.00%. */
static void test_mean_spread_units(void **state)
{
	struct pmc_result *r = t_result("perf");
	const double insn[] = {1000, 1100, 1200}, cyc[] = {1234567, 1234567, 1234567};
	const double tc[] = {1.0e6, 1.1e6, 0.9e6}, wall[] = {2.0e9, 2.0e9, 2.0e9};
	const double rss[] = {3 * 1048576.0, 3 * 1048576.0, 3 * 1048576.0};
	struct pmc_benchmark *b;
	char *text, *line;

	assert_non_null(r);
	b = bench(r, "sort", "./sort -n data.txt", 3);
	counted(b, "instructions", insn, 3);
	counted(b, "cycles", cyc, 3);
	counted(b, "task-clock", tc, 3);
	plain(b, "wall-time", wall, 3);
	plain(b, "max-rss", rss, 3);
	text = render(r, false, false);

	assert_contains(text, "sort (3 runs)");
	assert_contains(text, "./sort -n data.txt");
	line = metric_line(text, "instructions");
	assert_contains(line, "1,100 ");
	assert_contains(line, "± 9.09%");
	free(line);
	line = metric_line(text, "cycles");
	assert_contains(line, "1,234,567 ");
	assert_contains(line, "± 0.00%");
	free(line);
	line = metric_line(text, "task-clock");
	assert_contains(line, "1.00 ms");
	assert_contains(line, "± 10.00%");
	free(line);
	line = metric_line(text, "wall-time");
	assert_contains(line, "2.00 s");
	free(line);
	line = metric_line(text, "max-rss");
	assert_contains(line, "3.00 MiB");
	free(line);

	/* Aligned: every metric name starts in the same column. */
	assert_int_equal(column_of(text, "instructions"), column_of(text, "cycles"));
	assert_int_equal(column_of(text, "instructions"), column_of(text, "wall-time"));
	/* Wall time and RSS close the block, after the counters, as in perf stat. */
	assert_true(strstr(text, "  wall-time ") > strstr(text, "  task-clock "));
	assert_true(strstr(text, "  max-rss ") > strstr(text, "  wall-time "));
	assert_contains(text, "coefficient of variation");
	assert_no_nan(text);
	free(text);
	pmc_result_free(r);
}

/* A hardware event the machine has no PMU for is named, never given a number. */
static void test_missing_counters(void **state)
{
	struct pmc_result *r = t_result("perf");
	const double tc[] = {1.0e6, 1.0e6};
	struct pmc_benchmark *b;
	struct pmc_metric *m;
	char *text, *line;

	assert_non_null(r);
	b = bench(r, "true", "true", 2);
	m = failed(b, "cycles", PMC_STATUS_UNSUPPORTED, ENOENT, 2);
	assert_int_equal(pmc_metric_set_note(m, "no hardware PMU on this machine"), 0);
	failed(b, "instructions", PMC_STATUS_UNSUPPORTED, ENOENT, 2);
	failed(b, "branch-misses", PMC_STATUS_UNSUPPORTED, ENOENT, 2);
	failed(b, "branches", PMC_STATUS_DENIED, EACCES, 2);
	failed(b, "cache-misses", PMC_STATUS_NOT_COUNTED, 0, 2);
	failed(b, "L1-dcache-loads", PMC_STATUS_NOT_COUNTED, PMC_ERROR_NO_FIT, 2);
	counted(b, "task-clock", tc, 2);
	text = render(r, false, false);

	line = metric_line(text, "cycles");
	assert_contains(line, "<not supported>");
	assert_contains(line, "unsupported");
	assert_contains(line, "ENOENT");
	assert_contains(line, "no hardware PMU on this machine");
	assert_no_digits(line);
	free(line);
	/* Two rows missing for one reason are one line that names both (docs/cli.md,
	 * "Width"); cycles has a reason of its own. */
	line =
	    line_with(text, "<not supported>  instructions, branch-misses: unsupported (ENOENT)\n");
	assert_contains(line, "instructions, branch-misses");
	assert_no_digits(line);
	/* No IPC from instructions that were never counted. */
	assert_lacks(line, "insn per cycle");
	free(line);
	line = metric_line(text, "branches");
	assert_contains(line, "<denied>");
	assert_contains(line, "EACCES");
	assert_no_digits(line);
	free(line);
	line = metric_line(text, "cache-misses");
	assert_contains(line, "<not counted>");
	assert_contains(line, "not-counted");
	assert_lacks(line, "fit");
	assert_no_digits(line);
	free(line);
	/* One that did not fit its group says so and how to split the group. */
	line = metric_line(text, "L1-dcache-loads");
	assert_contains(line, "<not counted>");
	assert_contains(line, "does not fit the PMU with its group");
	assert_contains(line, ":W");
	free(line);
	assert_no_nan(text);
	free(text);

	text = render(r, true, false);
	/* Markdown: the rows not measured are lines under the table, one per reason. */
	assert_lacks(text, "| cycles |");
	line =
	    line_with(text, "- \\<not supported\\> cycles: unsupported (ENOENT): no hardware PMU");
	assert_contains(line, "cycles");
	assert_no_digits(line);
	free(line);
	line = line_with(text, "- \\<not supported\\> instructions, branch-misses: unsupported");
	assert_contains(line, "instructions, branch-misses");
	free(line);
	assert_no_nan(text);
	free(text);
	pmc_result_free(r);
}

/* Multiplexed in both runs, running 50% and 75% of the enabled time: "(62.50%)". */
static void test_scaled_running_share(void **state)
{
	struct pmc_result *r = t_result("perf");
	const double cyc[] = {5000, 5000};
	struct pmc_benchmark *b;
	struct pmc_metric *m;
	char *text, *line;

	assert_non_null(r);
	b = bench(r, "mux", NULL, 2);
	m = t_metric(b, "instructions");
	assert_non_null(m);
	{
		struct pmc_reading a = {.status = PMC_STATUS_SCALED,
					.value = 500,
					.enabled = 1000,
					.running = 500,
					.scaled = 1000};
		struct pmc_reading c = {.status = PMC_STATUS_SCALED,
					.value = 900,
					.enabled = 1000,
					.running = 750,
					.scaled = 1200};

		assert_int_equal(pmc_metric_append(m, 1000, &a), 0);
		assert_int_equal(pmc_metric_append(m, 1200, &c), 0);
	}
	counted(b, "cycles", cyc, 2);
	text = render(r, false, false);

	line = metric_line(text, "instructions");
	assert_contains(line, "1,100 ");
	assert_contains(line, "(62.50%)");
	free(line);
	line = metric_line(text, "cycles");
	assert_lacks(line, "%)");
	free(line);
	assert_contains(text, "multiplexed");

	free(text);
	text = render(r, true, false);
	line = line_with(text, "| instructions |");
	assert_contains(line, "(62.50%)");
	free(line);
	free(text);
	pmc_result_free(r);
}

/* Hybrid CPUs: a summed count shows each core type's part beside it; a count restricted to
 * some core types says so; neither is marked multiplexed. */
static void test_hybrid_parts(void **state)
{
	struct pmc_result *r = t_result("perf");
	struct pmc_benchmark *b;
	struct pmc_metric *m;
	char *text, *line;

	assert_non_null(r);
	b = bench(r, "hy", NULL, 2);
	m = t_metric(b, "cycles");
	for (size_t i = 0; i < 2; i++) {
		struct pmc_reading s = {.status = PMC_STATUS_COUNTED,
					.value = 5000000,
					.enabled = 1000,
					.running = 1000,
					.scaled = 5000000};
		struct pmc_reading_parts p = {.n = 2,
					      .pmu = {"cpu_core", "cpu_atom"},
					      .rd = {{.status = PMC_STATUS_COUNTED,
						      .value = 4000000,
						      .enabled = 1000,
						      .running = 600,
						      .scaled = 4000000},
						     {.status = PMC_STATUS_COUNTED,
						      .value = 1000000,
						      .enabled = 1000,
						      .running = 400,
						      .scaled = 1000000}}};

		assert_int_equal(pmc_metric_append(m, s.scaled, &s), 0);
		assert_int_equal(pmc_metric_append_parts(m, &p), 0);
	}
	m = t_metric(b, "cpu_core/cycles/");
	for (size_t i = 0; i < 2; i++) {
		struct pmc_reading_parts p = {.n = 1,
					      .restricted = true,
					      .pmu = {"cpu_core"},
					      .rd = {{.status = PMC_STATUS_COUNTED,
						      .value = 4000000,
						      .enabled = 1000,
						      .running = 600,
						      .scaled = 4000000}}};

		assert_int_equal(pmc_metric_append(m, 4000000, &p.rd[0]), 0);
		assert_int_equal(pmc_metric_append_parts(m, &p), 0);
	}
	text = render(r, false, false);
	line = metric_line(text, "cycles");
	assert_contains(line, "= cpu_core 4M + cpu_atom 1M");
	assert_lacks(line, "%)");
	free(line);
	line = metric_line(text, "cpu_core/cycles/");
	assert_contains(line, "cpu_core 4M (counted on these core types only");
	free(line);
	assert_lacks(text, "multiplexed");
	free(text);
	pmc_result_free(r);
}

/* Derived metrics sit in the comment of the line they describe, only when the result
 * has them; a cross-group ratio is marked and explained. */
static void test_derived_comments(void **state)
{
	struct pmc_result *r = t_result("perf");
	const double insn[] = {1230, 1230}, cyc[] = {1000, 1000}, ipc[] = {1.23, 1.23};
	const double br[] = {1000, 1000}, brm[] = {21, 21}, rate[] = {2.1, 2.1};
	const double tc[] = {1e6, 1e6}, cpus[] = {0.98, 0.98}, ghz[] = {3.1, 3.1};
	struct pmc_benchmark *b;
	struct pmc_metric *m;
	char *text, *line;

	assert_non_null(r);
	b = bench(r, "with-ipc", NULL, 2);
	counted(b, "instructions", insn, 2);
	counted(b, "cycles", cyc, 2);
	counted(b, "branches", br, 2);
	counted(b, "branch-misses", brm, 2);
	counted(b, "task-clock", tc, 2);
	plain(b, "ipc", ipc, 2);
	m = plain(b, "branch-miss-rate", rate, 2);
	m->cross_group = true;
	plain(b, "cpus-utilized", cpus, 2);
	plain(b, "ghz", ghz, 2);

	b = bench(r, "without-ipc", NULL, 2);
	counted(b, "instructions", insn, 2);
	counted(b, "cycles", cyc, 2);
	/* The runner pairs modifiers: ipc:u is instructions:u over cycles:u. */
	b = bench(r, "user-only", NULL, 2);
	counted(b, "instructions:u", insn, 2);
	counted(b, "cycles:u", cyc, 2);
	plain(b, "ipc:u", ipc, 2);
	text = render(r, false, false);

	line = metric_line(text, "instructions");
	assert_contains(line, "# 1.23 insn per cycle");
	assert_lacks(line, "†");
	free(line);
	line = metric_line(text, "branch-misses");
	assert_contains(line, "# 2.10% of all branches †");
	free(line);
	line = metric_line(text, "task-clock");
	assert_contains(line, "# 0.98 CPUs utilized");
	free(line);
	line = metric_line(text, "cycles");
	assert_contains(line, "# 3.10 GHz");
	free(line);
	assert_contains(text, "multiplexing may skew it");
	/* Derived metrics shown as comments get no line of their own. */
	assert_null(strstr(text, "  ipc "));
	assert_null(strstr(text, "  ghz "));

	/* The second benchmark has no ipc: its instructions line has no comment. */
	line = metric_line(strstr(text, "without-ipc"), "instructions");
	assert_lacks(line, "insn per cycle");
	assert_lacks(line, "#");
	free(line);
	assert_null(strstr(strstr(text, "without-ipc"), "multiplexing may skew"));
	line = metric_line(text, "instructions:u");
	assert_contains(line, "# 1.23 insn per cycle");
	free(line);
	assert_null(strstr(text, "  ipc:u "));
	assert_no_nan(text);
	free(text);

	text = render(r, true, false);
	line = line_with(text, "| instructions |");
	assert_contains(line, "1.23 insn per cycle");
	free(line);
	assert_no_nan(text);
	free(text);
	pmc_result_free(r);
}

/* A derived metric that was never measured (its input was unsupported) shows nothing. */
static void test_unmeasured_derived(void **state)
{
	struct pmc_result *r = t_result("perf");
	const double insn[] = {1000, 1000}, none[] = {NAN, NAN};
	struct pmc_benchmark *b;
	char *text, *line;

	assert_non_null(r);
	b = bench(r, "b", NULL, 2);
	counted(b, "instructions", insn, 2);
	failed(b, "cycles", PMC_STATUS_UNSUPPORTED, ENOENT, 2);
	plain(b, "ipc", none, 2);
	text = render(r, false, false);
	line = metric_line(text, "instructions");
	assert_lacks(line, "insn per cycle");
	free(line);
	assert_null(strstr(text, "  ipc "));
	assert_no_nan(text);
	free(text);
	pmc_result_free(r);
}

/* valgrind's counts: marked simulated, with their status. */
static void test_simulated(void **state)
{
	struct pmc_result *r = t_result("valgrind");
	struct pmc_reading rd = {.status = PMC_STATUS_EXACT, .value = 123456789};
	struct pmc_benchmark *b;
	struct pmc_metric *m;
	char *text, *line;

	assert_non_null(r);
	b = bench(r, "sim", "./work", 1);
	m = t_metric(b, "instructions");
	assert_non_null(m);
	m->simulated = true;
	assert_int_equal(pmc_metric_append(m, 123456789, &rd), 0);
	text = render(r, false, false);

	line = metric_line(text, "instructions");
	assert_contains(line, "123,456,789");
	assert_contains(line, "(simulated, exact)");
	/* One run: no spread to show. */
	assert_lacks(line, "±");
	free(line);
	free(text);

	text = render(r, true, false);
	line = line_with(text, "| instructions |");
	assert_contains(line, "(simulated, exact)");
	free(line);
	free(text);
	pmc_result_free(r);
}

/* Counted in 7 of 10 runs: the mean is over those 7 and says so. */
static void test_partial(void **state)
{
	struct pmc_result *r = t_result("perf");
	struct pmc_benchmark *b;
	struct pmc_metric *m;
	char *text, *line;

	assert_non_null(r);
	b = bench(r, "partial", NULL, 10);
	m = t_metric(b, "page-faults");
	assert_non_null(m);
	for (size_t i = 0; i < 10; i++) {
		/* Runs 0..6 count 100 (runs 0-3) or 107 (runs 4-6); 7..9 never ran. */
		double v = i < 4 ? 100 : 107;
		struct pmc_reading rd = {.status = PMC_STATUS_COUNTED,
					 .value = (uint64_t)v,
					 .enabled = 10,
					 .running = 10,
					 .scaled = v};
		struct pmc_reading nc = {.status = PMC_STATUS_NOT_COUNTED, .enabled = 10};

		if (i < 7)
			assert_int_equal(pmc_metric_append(m, v, &rd), 0);
		else
			assert_int_equal(pmc_metric_append(m, NAN, &nc), 0);
	}
	text = render(r, false, false);
	line = metric_line(text, "page-faults");
	/* (4 x 100 + 3 x 107) / 7 = 103.00 */
	assert_contains(line, "103 ");
	assert_contains(line, "n=7/10");
	free(line);
	assert_no_nan(text);
	free(text);

	text = render(r, true, false);
	line = line_with(text, "| page-faults |");
	assert_contains(line, "n=7/10");
	free(line);
	free(text);
	pmc_result_free(r);
}

/* Medians: x = {100..107, 200} (n = 9). Median 104; at 95% the order-statistic CI of the
 * median is [x(2), x(8)] = [101, 107] (P(B <= 1) = 10/512 <= 0.025 < P(B <= 2) = 46/512
 * for B ~ Bin(9, 1/2)), half-width max(3, 3) = 3, 3 / 104 = 2.88%. The mean is
 * 1028 / 9 = 114.22. With n = 3 there is no 95% CI: {10, 20, 40} has median 20 and
 * MAD median(10, 0, 20) = 10, i.e. 50.00%. */
static void test_median_mode(void **state)
{
	struct pmc_result *r = t_result("perf");
	const double x[] = {103, 100, 200, 107, 101, 106, 102, 105, 104};
	const double y[] = {40, 10, 20};
	struct pmc_benchmark *b;
	char *text, *line;

	assert_non_null(r);
	b = bench(r, "med", NULL, 9);
	counted(b, "context-switches", x, 9);
	b = bench(r, "few", NULL, 3);
	counted(b, "page-faults", y, 3);

	text = render(r, false, true);
	line = metric_line(text, "context-switches");
	assert_contains(line, "104 ");
	assert_contains(line, "± 2.88%");
	assert_lacks(line, "MAD");
	free(line);
	line = metric_line(text, "page-faults");
	assert_contains(line, "20 ");
	assert_contains(line, "± 50.00% MAD");
	free(line);
	assert_contains(text, "95% confidence interval of the median");
	assert_no_nan(text);
	free(text);

	text = render(r, false, false);
	line = metric_line(text, "context-switches");
	assert_contains(line, "114.22 ");
	free(line);
	free(text);

	text = render(r, true, true);
	assert_contains(text, "| metric | median |");
	line = line_with(text, "| context-switches |");
	assert_contains(line, "| 104 | ± 2.88% |");
	free(line);
	free(text);
	pmc_result_free(r);
}

/* One table per benchmark, rows in GitHub's syntax, result text escaped. */
static void test_markdown_rows(void **state)
{
	struct pmc_result *r = t_result("perf");
	const double insn[] = {1000, 1100, 1200}, tc[] = {1.0e6, 1.1e6, 0.9e6};
	struct pmc_benchmark *b;
	char *text;

	assert_non_null(r);
	b = bench(r, "a|b", "grep -c 'x|y' file", 3);
	counted(b, "instructions", insn, 3);
	counted(b, "task-clock", tc, 3);
	b = bench(r, "second", NULL, 3);
	counted(b, "instructions", insn, 3);
	text = render(r, true, false);

	assert_contains(text, "### a\\|b\n");
	assert_contains(text, "`grep -c 'x|y' file` · 3 runs");
	assert_contains(text, "### second\n");
	assert_contains(text, "| metric | mean | ± | unit | measured | comment |\n"
			      "| :-- | --: | --: | :-- | :-- | :-- |\n");
	assert_contains(text, "| instructions | 1,100 | ± 9.09% |  |  |  |\n");
	assert_contains(text, "| task-clock | 1.00 | ± 10.00% | ms |  |  |\n");
	/* Every table line has the same number of cells (6 columns, 7 pipes). */
	for (const char *p = text; *p;) {
		const char *end = strchr(p, '\n');
		size_t pipes = 0;

		if (!end)
			end = p + strlen(p);
		if (*p == '|') {
			for (const char *q = p; q < end; q++)
				pipes += *q == '|' && (q == p || q[-1] != '\\');
			if (pipes != 7) {
				print_error("%zu pipes in: %.*s\n", pipes, (int)(end - p), p);
				fail();
			}
		}
		p = *end ? end + 1 : end;
	}
	assert_no_nan(text);
	free(text);
	pmc_result_free(r);
}

/* Every format that renders a result is reached by its name through one lookup, reads
 * the same analysis, and never prints a number for what was not measured. */
static void test_every_format_by_name(void **state)
{
	static const struct {
		const char *format, *want;
	} cases[] = {
	    {"table", "Benchmark: sort (6 runs)"},
	    {"markdown", "### sort"},
	    {"md", "| task-clock | 1.05 | "},
	    {"stats", "task-clock               ns        6"},
	    {"csv", "\"sort\",\"task-clock\",\"ns\",1,1000000,\"counted\",1000000,1000000,"
		    "1000000,,\n\"sort\",\"task-clock\""},
	    {"gobench", "\nBenchmarksort\t1\t1000000 task-clock-ns/op\n"},
	    {"json", "{\"schema\":\"pmcbench-result/1\",\n"},
	};
	const double tc[] = {1.0e6, 1.1e6, 0.9e6, 1.0e6, 1.1e6, 1.2e6};
	struct pmc_result *r = t_result("perf");
	struct pmc_benchmark *b = bench(r, "sort", NULL, 6);
	PMC_OPTS(pmc_report_opts, o, .median = false);

	counted(b, "task-clock", tc, 6);
	failed(b, "cycles", PMC_STATUS_UNSUPPORTED, ENOENT, 6);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		char err[256] = "";

		assert_non_null(f);
		assert_int_equal(pmc_report_result(f, cases[i].format, r, &o, err, sizeof(err)), 0);
		assert_string_equal(err, "");
		assert_int_equal(fclose(f), 0);
		assert_contains(text, cases[i].want);
		assert_no_nan(text);
		free(text);
	}
	pmc_result_free(r);
}

/* A mean of 0 has no relative spread: the spread is shown in the metric's unit. */
static void test_zero_mean_and_empty(void **state)
{
	struct pmc_result *r = t_result("perf");
	const double z[] = {0, 0}, w[] = {-1000, 1000};
	struct pmc_benchmark *b;
	char *text, *line;

	assert_non_null(r);
	b = bench(r, "zero", NULL, 2);
	counted(b, "cpu-migrations", z, 2);
	plain(b, "user-time", w, 2);
	plain(b, "system-time", NULL, 0);
	bench(r, "nothing", NULL, 0);
	text = render(r, false, false);

	line = metric_line(text, "cpu-migrations");
	assert_contains(line, " 0 ");
	assert_contains(line, "± 0.00%");
	free(line);
	/* stddev of {-1000, 1000} ns is 1414.2 ns = 1.41 us. */
	line = metric_line(text, "user-time");
	assert_contains(line, "± 1.41 us");
	free(line);
	line = metric_line(text, "system-time");
	assert_contains(line, "<not counted>");
	free(line);
	assert_contains(text, "nothing (0 runs)");
	assert_no_nan(text);
	free(text);
	text = render(r, true, true);
	assert_no_nan(text);
	free(text);
	pmc_result_free(r);
}

/* A benchmark that skipped itself is shown as skipped with its reason in every format,
 * and with no number at all: no run count, no row, no 0. */
static void test_skipped_benchmarks(void **state)
{
	static const struct {
		const char *format, *want[2];
	} cases[] = {
	    {"table",
	     {"\nBenchmark: avx | wide (skipped: no wide vectors | *here*)\n\nBenchmark: quiet "
	      "(skipped)\n",
	      "Benchmark: sort (6 runs)"}},
	    {"markdown",
	     {"\n### avx \\| wide\n\n_Skipped:_ no wide vectors \\| \\*here\\*\n\n### quiet\n\n"
	      "_Skipped._\n",
	      "### sort"}},
	    {"stats",
	     {"\nStatistics: avx | wide: skipped: no wide vectors | *here*\n\nStatistics: quiet: "
	      "skipped\n",
	      "task-clock               ns        6"}},
	    {"csv",
	     {"\n\"avx | wide\",,,,,skipped,,,,\"no wide vectors | "
	      "*here*\",\n\"quiet\",,,,,skipped,,,,,"
	      "\n",
	      "\"sort\",\"task-clock\""}},
	    {"gobench",
	     {"\n# Benchmarkavx_|_wide skipped itself: no wide vectors | *here*\n# Benchmarkquiet "
	      "skipped itself: no reason given\n",
	      "Benchmarksort\t1\t"}},
	    {"json",
	     {"\n{\"name\":\"avx | wide\",\"command\":null,\"build_id\":null,\"skipped\":\"no "
	      "wide vectors | *here*\",\"runs\":[],\"metrics\":{}},",
	      "\"name\":\"sort\""}},
	};
	const double tc[] = {1.0e6, 1.1e6, 0.9e6, 1.0e6, 1.1e6, 1.2e6};
	struct pmc_result *r = t_result("perf");
	struct pmc_benchmark *b = bench(r, "sort", NULL, 6);

	counted(b, "task-clock", tc, 6);
	assert_int_equal(
	    pmc_benchmark_set_skipped(bench(r, "avx | wide", NULL, 0), "no wide vectors | *here*"),
	    0);
	assert_int_equal(pmc_benchmark_set_skipped(bench(r, "quiet", NULL, 0), NULL), 0);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *text = NULL, *line;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		char err[256] = "";

		assert_non_null(f);
		assert_int_equal(pmc_report_result(f, cases[i].format, r, NULL, err, sizeof(err)),
				 0);
		assert_int_equal(fclose(f), 0);
		print_message("%s:\n%s", cases[i].format, text);
		assert_contains(text, cases[i].want[0]);
		assert_contains(text, cases[i].want[1]);
		/* No number anywhere near the skipped benchmarks. */
		line = line_with(text, "avx");
		assert_no_digits(line);
		free(line);
		line = line_with(text, "quiet");
		assert_no_digits(line);
		free(line);
		assert_lacks(text, "0 runs");
		assert_lacks(text, "no metrics");
		assert_no_nan(text);
		free(text);
	}
	pmc_result_free(r);
}

/* Runs that are not repeated draws of one quantity are named under their benchmark, in
 * the table and in Markdown; healthy runs get no warning. */
static void test_health_warnings(void **state)
{
	struct pmc_result *r = t_result("perf");
	double drift[20], steady[20];
	char *text;

	(void)state;
	for (size_t i = 0; i < 20; i++) {
		/* +10% over the run, against +-0.5% of noise. */
		double noise = 0.005 * ((double)((i * 7 + 3) % 11) / 5.0 - 1);

		drift[i] = 1e6 * (1 + 0.1 * (double)i / 19.0 + noise);
		steady[i] = 2e6 * (1 + noise);
	}
	put_values(r, "slowing", "task-clock", drift, 20);
	put_values(r, "steady", "task-clock", steady, 20);
	text = render(r, false, false);
	assert_contains(text, "warning: task-clock drifts +9.4% over 20 runs");
	/* Only the drifting benchmark: the warning comes before the second header. */
	assert_true(strstr(text, "warning:") < strstr(text, "Benchmark: steady"));
	assert_null(strstr(strstr(text, "Benchmark: steady"), "warning:"));
	free(text);
	text = render(r, true, false);
	assert_contains(text, "- warning: task-clock drifts +9.4%");
	free(text);
	pmc_result_free(r);
}

static void test_bad_arguments(void **state)
{
	struct pmc_result *r = t_result("perf");
	PMC_OPTS(pmc_report_opts, bad, .confidence = 1.5);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(r);
	assert_non_null(f);
	assert_int_equal(pmc_report_result(NULL, "table", r, NULL, NULL, 0), -EINVAL);
	assert_int_equal(pmc_report_result(f, "table", NULL, NULL, NULL, 0), -EINVAL);
	assert_int_equal(pmc_report_result(f, "table", r, &bad, NULL, 0), -EINVAL);
	assert_int_equal(pmc_report_result(f, "markdown", r, &bad, NULL, 0), -EINVAL);
	/* NULL options: means at 95%. */
	assert_int_equal(pmc_report_result(f, "table", r, NULL, NULL, 0), 0);
	assert_int_equal(pmc_report_result(f, "markdown", r, NULL, NULL, 0), 0);
	assert_int_equal(fclose(f), 0);
	assert_contains(text, "No benchmarks");
	free(text);
	pmc_result_free(r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mean_spread_units),
	    cmocka_unit_test(test_missing_counters),
	    cmocka_unit_test(test_scaled_running_share),
	    cmocka_unit_test(test_hybrid_parts),
	    cmocka_unit_test(test_derived_comments),
	    cmocka_unit_test(test_unmeasured_derived),
	    cmocka_unit_test(test_simulated),
	    cmocka_unit_test(test_partial),
	    cmocka_unit_test(test_median_mode),
	    cmocka_unit_test(test_markdown_rows),
	    cmocka_unit_test(test_zero_mean_and_empty),
	    cmocka_unit_test(test_bad_arguments),
	    cmocka_unit_test(test_every_format_by_name),
	    cmocka_unit_test(test_skipped_benchmarks),
	    cmocka_unit_test(test_health_warnings),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

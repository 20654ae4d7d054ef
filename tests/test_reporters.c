/* The comparison reports (reporters/table.c, markdown.c, json.c) and the lookup of
 * formats (reporters/report.c): what a reader of the table, of the
 * Markdown summary of a pull request and of the JSON report relies on. */
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

#include "reporters/reporter.h"
#include "tests/helpers.h"
#include <jansson.h>

#include "core/analysis.h"
#include "core/compare.h"
#include "core/metrics.h"
#include "core/result.h"
#include "formats/result_json.h"
#include "pmcbench/report.h"
#include "reporters/compare_cells.h"
#include "reporters/wrap.h"

#define N 10

#define assert_not_contains(text, sub)                                                             \
	do {                                                                                       \
		const char *t_ = (text), *s_ = (sub);                                              \
		if (!t_ || strstr(t_, s_)) {                                                       \
			print_error("--- text:\n%s\n--- contains \"%s\"\n", t_ ? t_ : "(null)",    \
				    s_);                                                           \
			fail();                                                                    \
		}                                                                                  \
	} while (0)

struct fixture {
	struct pmc_result *a, *b;
	struct pmc_comparison *c;
};

/* A comparison with a regression, an improvement, rows without change, an exact row, a
 * simulated block, a row from zero, a row without a CI (zeros), one unsupported on one
 * side, benchmark sets that differ, and a benchmark skipped in the new result. */
static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct pmc_benchmark *bm;
	struct pmc_metric *m;
	char err[512];

	f->a = t_result("perf");
	f->b = t_result("perf");
	put(f->a, "sort/1k", "task-clock", N, 2e6, 0.01);
	put(f->b, "sort/1k", "task-clock", N, 2.4e6, 0.01); /* +20% */
	put(f->a, "hash/64", "task-clock", N, 5e5, 0.01);
	put(f->b, "hash/64", "task-clock", N, 4e5, 0.01); /* -20% */
	put(f->a, "parse|json", "task-clock", N, 1e6, 0.01);
	put(f->b, "parse|json", "task-clock", N, 1e6, 0.0101); /* the same */
	/* Exact rows need a simulator's counts on both sides (docs/compare.md). */
	put(f->a, "sort/1k", "page-faults", N, 1000, 0)->simulated = true;
	put(f->b, "sort/1k", "page-faults", N, 1000, 0)->simulated = true; /* exact, equal */
	put(f->a, "hash/64", "page-faults", N, 0, 0)->simulated = true;
	put(f->b, "hash/64", "page-faults", N, 3, 0)->simulated = true; /* exact, from 0 */
	put(f->a, "parse|json", "context-switches", N, 0, 0);
	m = put(f->b, "parse|json", "context-switches", N, 0, 0);
	m->values[0] = 4; /* zeros with one exception: no log scale, no CI */
	m = put(f->a, "sort/1k", "instructions", 1, 1e6, 0);
	m->simulated = true;
	m = put(f->b, "sort/1k", "instructions", 1, 1.2e6, 0);
	m->simulated = true;
	put(f->a, "hash/64", "cycles", N, 1e6, 0.01);
	put(f->b, "hash/64", "cycles", N, NAN, 0); /* unsupported in new */
	put(f->a, "gone", "task-clock", N, 1e6, 0.01);
	put(f->a, "simd", "task-clock", N, 1e6, 0.01);
	if (pmc_result_add_benchmark(f->b, "simd", NULL, &bm) < 0 ||
	    pmc_benchmark_set_skipped(bm, "no AVX2 | *here*") < 0)
		return -1;
	if (pmc_compare(f->a, f->b, NULL, &f->c, err, sizeof(err)) < 0) {
		print_error("pmc_compare: %s\n", err);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	pmc_comparison_free(f->c);
	pmc_result_free(f->a);
	pmc_result_free(f->b);
	free(f);
	return 0;
}

static char *render(const struct pmc_comparison *c, const char *fmt,
		    const struct pmc_report_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(pmc_report_comparison(f, fmt, c, o, NULL, 0), 0);
	fclose(f);
	return buf;
}

/* Never a NaN or an infinity spelled out, in any case. */
static void assert_no_nan(const char *text)
{
	for (const char *p = text; *p; p++) {
		if (strncasecmp(p, "nan", 3) == 0 || strncasecmp(p, "inf", 3) == 0) {
			print_error("--- text:\n%s\n--- has \"%.12s\"\n", text, p);
			fail();
		}
	}
}

/* The line of text that contains sub (a static copy). */
static const char *line_with(const char *text, const char *sub)
{
	static char line[1024];
	const char *p = strstr(text, sub), *s, *e;

	if (!p)
		return "";
	for (s = p; s > text && s[-1] != '\n'; s--)
		;
	e = strchr(p, '\n');
	if (!e)
		e = p + strlen(p);
	snprintf(line, sizeof(line), "%.*s", (int)(e - s), s);
	return line;
}

static void test_table(void **state)
{
	struct fixture *f = *state;
	struct pmc_report_opts o = {
	    .sz = sizeof(o), .old_name = "base.json", .new_name = "pr.json", .all_rows = true};
	char *t = render(f->c, "table", &o);
	const char *l;

	assert_contains(t, "task-clock [ns, lower is better]\n");
	assert_contains(t, "instructions [count, lower is better] (simulated)\n");
	l = line_with(t, "benchmark ");
	assert_contains(l, "base.json");
	assert_contains(l, "pr.json");
	assert_contains(l, " change (HL) ");
	assert_contains(t, "change (HL): Hodges-Lehmann estimate of new/old");

	l = line_with(t, "sort/1k ");
	assert_contains(l, "2ms ± "); /* the old median and its CI */
	assert_contains(l, "2.4ms ± ");
	assert_contains(l, "+20.");	       /* the change in percent */
	assert_contains(l, "[+");	       /* with its CI */
	assert_contains(l, "q<0.001 n=10+10"); /* Benjamini-Hochberg is on: q was judged */
	assert_contains(l, "regression");

	l = line_with(t, "hash/64 ");
	assert_contains(l, "-20.");
	assert_contains(l, "improvement");

	/* Not significant: "~", with q and n beside it. */
	l = line_with(t, "parse|json  ");
	assert_contains(l, " ~ ");
	assert_contains(l, "q=1.000 n=10+10");
	assert_contains(l, "no change");

	/* The geomean of task-clock runs over the three matched benchmarks only. */
	l = line_with(t, "geomean ");
	assert_contains(l, "(geomean ratio)");
	assert_contains(l, "3 benchmarks");
	assert_contains(t, "(exact)");
	assert_contains(t, "exact n=1+1");
	assert_contains(t, "from 0 (exact)");
	assert_contains(t, "no value");
	assert_contains(t, "not compared");
	assert_contains(t, "warning: benchmark sets differ: 4 in both (1 of them skipped), 1 only "
			   "in the old");
	assert_contains(t, "warning: 1 row has no value in the new result");
	/* The skipped benchmark: named with its reason, counted, and in no row. */
	assert_contains(
	    t, "\nwarning: benchmark 'simd' (no AVX2 | *here*) was skipped in the new result "
	       "and is not compared\n");
	assert_not_contains(t, "simd  ");
	assert_contains(t, "3 regressions, 1 improvement, ");
	assert_contains(t, "; 1 skipped benchmark not compared\n");
	assert_contains(t, "Benjamini-Hochberg");
	assert_no_nan(t);
	free(t);

	o.gate = true;
	o.decision = PMC_DECISION_REGRESSION;
	t = render(f->c, "table", &o);
	assert_contains(t, "gate: FAIL (regression); 3 regressions");
	free(t);
}

/* The default table folds the rows without change into one counted line; a gate's report
 * and --all show them (docs/compare.md, "Folded rows"). */
static void test_table_folds_unchanged_rows(void **state)
{
	struct fixture *f = *state;
	struct pmc_report_opts o = {.sz = sizeof(o)};
	char *t = render(f->c, "table", &o);

	assert_contains(line_with(t, "sort/1k "), "regression");
	assert_contains(line_with(t, "hash/64 "), "improvement");
	assert_not_contains(t, "parse|json  1ms");
	assert_contains(t, "1 benchmark without change (~); --all shows it\n");
	free(t);
	o.gate = true; /* task-clock is gated by default: the gate judged the row */
	t = render(f->c, "table", &o);
	assert_contains(line_with(t, "parse|json  1ms"), "no change");
	free(t);
	o.gate = false;
	o.all_rows = true;
	t = render(f->c, "table", &o);
	assert_contains(line_with(t, "parse|json  1ms"), "no change");
	assert_not_contains(t, "without change");
	free(t);
	/* A table per benchmark, a row per metric. */
	o.by_benchmark = true;
	t = render(f->c, "table", &o);
	assert_contains(t, "sort/1k\nmetric ");
	assert_contains(t, "\nhash/64\nmetric ");
	assert_contains(line_with(t, "task-clock [ns] "), "regression");
	free(t);
}

static void test_markdown(void **state)
{
	struct fixture *f = *state;
	struct pmc_report_opts o = {
	    .sz = sizeof(o),
	    .old_name = "base.json",
	    .new_name = "pr.json",
	    .gate = true,
	    .decision = PMC_DECISION_REGRESSION,
	};
	char *t = render(f->c, "markdown", &o);
	const char *l;

	assert_contains(t, "## pmcbench gate: FAIL (regression)\n");
	/* The summary line counts the verdicts, regressions first and in bold. */
	l = line_with(t, "**");
	assert_contains(l, "**3 regressions**");
	assert_contains(l, "1 improvement,");
	assert_contains(l, "no change");
	assert_contains(l, "1 not compared");
	assert_contains(t, "### task-clock (ns, lower is better)");
	assert_contains(t, "### instructions (count, lower is better) — simulated");
	/* The change is the Hodges-Lehmann estimate, and the header says so. */
	assert_contains(
	    t, "| benchmark | base.json | pr.json | change (HL) | test | limit | verdict |");
	l = line_with(t, "| sort/1k | 2ms");
	assert_contains(l, "| **regression** |");
	assert_contains(l, "q<0.001 n=10+10");
	/* A '|' in a name must not split the cell. */
	assert_contains(t, "| parse\\|json |");
	l = line_with(t, "| parse\\|json | 1ms");
	assert_contains(l, "| ~ |");
	assert_contains(t, "<details><summary>");
	assert_contains(t, "| **geomean** |");
	assert_contains(t, "> **Warning:** benchmark sets differ");
	assert_contains(t,
			"> **Warning:** benchmark 'simd' (no AVX2 \\| \\*here\\*) was skipped in "
			"the new result and is not compared\n");
	assert_contains(line_with(t, "**3 regressions**"), "; 1 skipped benchmark not compared");
	assert_not_contains(t, "| simd |");
	assert_no_nan(t);
	free(t);

	/* Rows are cut at the limit, and the cut is said. */
	o.md_max_changed = 1;
	t = render(f->c, "markdown", &o);
	assert_contains(t, "more (see the JSON report)");
	free(t);
}

static void test_json(void **state)
{
	struct fixture *f = *state;
	struct pmc_report_opts o = {
	    .sz = sizeof(o),
	    .old_name = "base.json",
	    .new_name = "pr.json",
	    .gate = true,
	    .decision = PMC_DECISION_REGRESSION,
	};
	char *t = render(f->c, "json", &o);
	json_error_t jerr;
	json_t *d, *metrics, *blk, *row;
	size_t i, j;
	bool saw_exact_null_p = false, saw_regression = false, saw_missing = false;

	assert_no_nan(t);
	/* jansson refuses NaN and Infinity: parsing proves there are none. */
	d = json_loads(t, 0, &jerr);
	if (!d) {
		print_error("%s\n--- %d:%d: %s\n", t, jerr.line, jerr.column, jerr.text);
		fail();
	}
	assert_string_equal(json_string_value(json_object_get(d, "schema")), PMC_COMPARE_SCHEMA);
	assert_string_equal(json_string_value(json_object_get(d, "outcome")), "regression");
	assert_int_equal(json_integer_value(json_object_get(d, "exit_code")), 1);
	assert_string_equal(json_string_value(json_object_get(d, "old")), "base.json");
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(d, "counts"), "regression")),
	    f->c->counts[PMC_VERDICT_REGRESSION]);
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(d, "benchmarks"), "only_old")), 1);
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(d, "benchmarks"), "common")), 4);
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(d, "benchmarks"), "skipped")), 1);
	assert_int_equal(json_array_size(json_object_get(d, "warnings")), f->c->nwarnings);
	metrics = json_object_get(d, "metrics");
	assert_int_equal(json_array_size(metrics), f->c->nblocks);
	json_array_foreach(metrics, i, blk)
	{
		const struct pmc_cmp_block *b = &f->c->blocks[i];

		assert_string_equal(json_string_value(json_object_get(blk, "id")), b->metric);
		assert_int_equal(json_is_true(json_object_get(blk, "simulated")), b->simulated);
		assert_int_equal(json_array_size(json_object_get(blk, "rows")), b->nrows);
		json_array_foreach(json_object_get(blk, "rows"), j, row)
		{
			const char *kind = json_string_value(json_object_get(row, "kind"));
			const char *verdict = json_string_value(json_object_get(row, "verdict"));

			assert_non_null(kind);
			assert_non_null(verdict);
			if (strcmp(kind, "exact") == 0) {
				assert_true(json_is_null(json_object_get(row, "p")));
				saw_exact_null_p = true;
			}
			if (strcmp(verdict, "regression") == 0) {
				assert_true(json_real_value(json_object_get(row, "ratio_lo")) > 1 ||
					    strcmp(kind, "exact") == 0);
				saw_regression = true;
			}
			if (strcmp(kind, "missing") == 0) {
				assert_string_equal(verdict, "not compared");
				assert_string_equal(
				    json_string_value(json_object_get(row, "missing")), "new");
				assert_true(json_is_null(json_object_get(row, "new")));
				saw_missing = true;
			}
		}
	}
	assert_true(saw_exact_null_p);
	assert_true(saw_regression);
	assert_true(saw_missing);
	blk = json_array_get(metrics, 0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(blk, "geomean"), "n")),
			 3);
	json_decref(d);
	free(t);
}

/* The comparison JSON writes DEL, the C1 controls and ESC of names as \u escapes, never
 * raw, and they read back as the same names. */
static void test_json_escapes_terminal_controls(void **state)
{
	static const char name[] = "b\x7f\xc2\x9b"
				   "2J\x1b]0;t\x07 gr\xc3\xb6\xc3\x9f"
				   "e";
	struct pmc_result *a = t_result("perf"), *b = t_result("perf");
	struct pmc_comparison *c = NULL;
	struct pmc_report_opts o = {.sz = sizeof(o), .old_name = name, .new_name = "new"};
	char err[512], *t;
	json_error_t jerr;
	json_t *d, *row;

	(void)state;
	put(a, name, "task-clock", N, 1e6, 0.01);
	put(b, name, "task-clock", N, 1e6, 0.01);
	if (pmc_compare(a, b, NULL, &c, err, sizeof(err)) < 0)
		fail_msg("pmc_compare: %s", err);
	t = render(c, "json", &o);
	for (const unsigned char *p = (const unsigned char *)t; *p; p++) {
		if (*p == 0x7f || *p == 0x1b || (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			fail_msg("raw control at %td:\n%s", (const char *)p - t, t);
	}
	assert_contains(t, "b\\u007F\\u009B2J\\u001B]0;t\\u0007 gr\xc3\xb6\xc3\x9f"
			   "e");
	d = json_loads(t, 0, &jerr);
	if (!d)
		fail_msg("%s: %s", jerr.text, t);
	assert_string_equal(json_string_value(json_object_get(d, "old")), name);
	row = json_array_get(
	    json_object_get(json_array_get(json_object_get(d, "metrics"), 0), "rows"), 0);
	assert_string_equal(json_string_value(json_object_get(row, "benchmark")), name);
	json_decref(d);
	free(t);
	pmc_comparison_free(c);
	pmc_result_free(a);
	pmc_result_free(b);
}

static void test_error_reports(void **state)
{
	struct pmc_report_opts o = {
	    .sz = sizeof(o),
	    .old_name = "a.json",
	    .new_name = "b.json",
	    .gate = true,
	    .decision = PMC_DECISION_ERROR,
	    .error = "a.json:3:1: unexpected end of input; the file is truncated",
	};
	json_error_t jerr;
	json_t *d;
	char *t;

	t = render(NULL, "markdown", &o);
	assert_contains(t, "## pmcbench gate: ERROR");
	assert_contains(t, "**Error:** a.json:3:1: unexpected end of input");
	free(t);

	t = render(NULL, "json", &o);
	d = json_loads(t, 0, &jerr);
	assert_non_null(d);
	assert_string_equal(json_string_value(json_object_get(d, "outcome")), "error");
	assert_int_equal(json_integer_value(json_object_get(d, "exit_code")), 2);
	assert_string_equal(json_string_value(json_object_get(d, "error")), o.error);
	json_decref(d);
	free(t);

	t = render(NULL, "table", &o);
	assert_contains(t, "error: a.json:3:1");
	free(t);

	o.error = NULL;
	assert_int_equal(pmc_report_comparison(stdout, "table", NULL, &o, NULL, 0), -EINVAL);
}

/* One lookup by name picks the format, for results and comparisons alike. */
static void test_format_lookup(void **state)
{
	const char *name = NULL, *ext = NULL;
	char err[256];

	assert_int_equal(pmc_report_format("md", PMC_REPORT_COMPARISON, &name, &ext), 0);
	assert_string_equal(name, "markdown");
	assert_string_equal(ext, ".md");
	assert_int_equal(pmc_report_format("markdown", PMC_REPORT_RESULT, &name, NULL), 0);
	assert_string_equal(name, "markdown");
	assert_int_equal(pmc_report_format("json", PMC_REPORT_COMPARISON, &name, &ext), 0);
	assert_string_equal(ext, ".json");
	assert_int_equal(pmc_report_format("table", PMC_REPORT_RESULT, &name, NULL), 0);
	assert_string_equal(name, "table");
	assert_int_equal(pmc_report_format("stats", PMC_REPORT_RESULT, &name, NULL), 0);
	assert_int_equal(pmc_report_format("csv", PMC_REPORT_COMPARISON, &name, &ext), 0);
	assert_string_equal(ext, ".csv");
	assert_int_equal(pmc_report_format("gobench", PMC_REPORT_COMPARISON, &name, &ext), 0);
	assert_string_equal(ext, ".txt");
	/* The statistics table renders results only. */
	assert_int_equal(pmc_report_format("stats", PMC_REPORT_COMPARISON, &name, NULL),
			 -EOPNOTSUPP);
	assert_int_equal(pmc_report_format("html", PMC_REPORT_RESULT, &name, NULL), -ENOENT);
	assert_int_equal(pmc_report_format(NULL, PMC_REPORT_RESULT, &name, NULL), -ENOENT);

	/* The entry points refuse what the lookup refuses, with words. */
	assert_int_equal(pmc_report_comparison(stdout, "stats", NULL, NULL, err, sizeof(err)),
			 -EOPNOTSUPP);
	assert_string_equal(err, "format 'stats': cannot render this report; use table, json, "
				 "csv, markdown, gobench");
	assert_int_equal(pmc_report_result(stdout, "xml", NULL, NULL, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "format 'xml': unknown format; use table, brief, json, csv, "
				 "markdown, stats, gobench");
}

/* --export picks the format by the file's extension: one format per extension, any case;
 * Go's benchmark format is the only one written to ".txt". */
static void test_format_by_extension(void **state)
{
	static const struct {
		const char *path, *format;
	} cases[] = {
	    {"out.json", "json"},     {"dir.d/r.csv", "csv"}, {"report.md", "markdown"},
	    {"bench.txt", "gobench"}, {"A.JSON", "json"},     {"x.Md", "markdown"},
	    {"a.b.c.csv", "csv"},     {"results", NULL},      {"dir.csv/results", NULL},
	    {".csv", NULL},	      {"dir/.txt", NULL},     {"out.xlsx", NULL},
	    {"out.markdown", NULL},   {"out.", NULL},	      {"", NULL},
	};
	char exts[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct pmc_reporter *rep = pmc_reporter_for_path(cases[i].path);

		if (!cases[i].format && rep)
			fail_msg("'%s': format %s, expected none", cases[i].path, rep->name);
		if (cases[i].format && (!rep || strcmp(rep->name, cases[i].format) != 0))
			fail_msg("'%s': format %s, expected %s", cases[i].path,
				 rep ? rep->name : "(none)", cases[i].format);
	}
	assert_null(pmc_reporter_for_path(NULL));
	pmc_reporter_extensions(exts, sizeof(exts));
	assert_string_equal(exts, ".json, .csv, .md or .txt (Go's benchmark format)");
}

/* Messages list the formats from the registry: results in its order, comparisons with the
 * formats for a reader first; the statistics table is not listed. */
static void test_format_lists(void **state)
{
	const struct pmc_reporter *rep;
	char names[128], err[256];
	size_t n = 0;

	pmc_reporter_names(PMC_REPORTERS_RESULT, names, sizeof(names));
	assert_string_equal(names, "table, brief, json, csv, markdown or gobench");
	pmc_reporter_names(PMC_REPORTERS_COMPARISON, names, sizeof(names));
	assert_string_equal(names, "table, markdown, json, csv or gobench");
	pmc_reporter_names(PMC_REPORTERS_COMPARISONS, names, sizeof(names));
	assert_string_equal(names, "table, markdown, json or csv");
	assert_int_equal(
	    pmc_report_comparisons(stdout, "gobench", NULL, NULL, 0, NULL, err, sizeof(err)),
	    -EOPNOTSUPP);
	assert_string_equal(err, "format 'gobench' renders one comparison of two files; use "
				 "table, markdown, json or csv for more");
	/* A short buffer is cut, never overrun. */
	pmc_reporter_names(PMC_REPORTERS_RESULT, names, 8);
	assert_string_equal(names, "table, ");

	while ((rep = pmc_reporter_at(n++)) != NULL)
		assert_ptr_equal(pmc_reporter_find(rep->name), rep);
	assert_ptr_equal(pmc_reporter_find("md"), &pmc_reporter_markdown);
	assert_null(pmc_reporter_find("xml"));
	assert_null(pmc_reporter_find(NULL));
	/* A document on standard output leaves no room for anything else there. */
	assert_true(pmc_reporter_json.document && pmc_reporter_csv.document &&
		    pmc_reporter_gobench.document);
	assert_false(pmc_reporter_table.document || pmc_reporter_markdown.document ||
		     pmc_reporter_stats.document);
}

/* Writing to a stream that fails is an error of every format, never a silent success. */
static void test_write_failure(void **state)
{
	struct fixture *f = *state;
	const char *fmts[] = {"table", "markdown", "json"};
	FILE *full = fopen("/dev/full", "w");

	if (!full)
		skip();
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		clearerr(full);
		assert_int_equal(pmc_report_comparison(full, fmts[i], f->c, NULL, NULL, 0), -EIO);
	}
	/* The machine-readable ones say why: the disk is full. */
	clearerr(full);
	assert_int_equal(pmc_report_comparison(full, "csv", f->c, NULL, NULL, 0), -ENOSPC);
	clearerr(full);
	assert_int_equal(pmc_report_comparison(full, "gobench", f->c, NULL, NULL, 0), -ENOSPC);
	clearerr(full);
	assert_int_equal(pmc_report_result(full, "gobench", f->b, NULL, NULL, 0), -ENOSPC);
	fclose(full);
}

/* A gate error that repeats a warning word for word is shown once, as the error. */
static void test_error_repeating_a_warning_is_shown_once(void **state)
{
	struct fixture *f = *state;
	struct pmc_report_opts o = {.sz = sizeof(o), .gate = true, .decision = PMC_DECISION_ERROR};
	char *t;

	o.error = f->c->warnings[0];
	t = render(f->c, "table", &o);
	assert_null(strstr(t, "warning: benchmark sets differ"));
	assert_contains(t, "error: benchmark sets differ");
	assert_contains(t, "warning: 1 row has no value"); /* the others stay */
	free(t);
	t = render(f->c, "markdown", &o);
	assert_null(strstr(t, "**Warning:** benchmark sets differ"));
	assert_contains(t, "**Error:** benchmark sets differ");
	free(t);
}

/* Issue 8, case 4: the test column shows the value that was judged, labelled. One 5 + 5
 * row with one pair inverted has the exact p = 4/252 = 0.016; beside 19 rows without
 * change (p = 1) its Benjamini-Hochberg q is p * 20 = 0.317, so with FDR control it is
 * "~" and must read q=0.317, not p=0.016 (which would look significant). With --no-fdr
 * the same row is judged on p = 0.016, and says so. */
static void test_shows_the_judged_value(void **state)
{
	const double old_v[] = {100, 101, 102, 103, 104};
	const double new_v[] = {103.5, 120, 121, 122, 123};
	struct pmc_result *a = t_result("perf"), *b = t_result("perf");
	struct pmc_compare_opts co = {.sz = sizeof(co)};
	struct pmc_report_opts o = {.sz = sizeof(o)};
	struct pmc_comparison *c = NULL;
	const char *fmts[] = {"table", "markdown"};
	char err[256], name[32], *t;

	put_values(a, "border", "task-clock", old_v, 5);
	put_values(b, "border", "task-clock", new_v, 5);
	for (int i = 0; i < 19; i++) {
		snprintf(name, sizeof(name), "null%02d", i);
		put(a, name, "task-clock", 5, 1e6, 0.01);
		put(b, name, "task-clock", 5, 1e6, 0.01);
	}
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(pmc_compare(a, b, &co, &c, err, sizeof(err)), 0);
		t = render(c, fmts[i], &o);
		assert_contains(line_with(t, "border "), "q=0.317 n=5+5");
		assert_contains(line_with(t, "border "), "~");
		assert_not_contains(t, "p=0.016");
		assert_not_contains(t, "p=1.000");
		assert_contains(line_with(t, "null00 "), "q=1.000 n=5+5");
		assert_contains(t, "q: its p adjusted by Benjamini-Hochberg over the 20 tests");
		assert_contains(t, "~: not significant (q >= alpha, or the CI holds 0%)");
		/* The footer says what the table's ± is. */
		assert_contains(t, "± beside a median: the larger half of its 95% CI");
		free(t);
		pmc_comparison_free(c);
	}
	co.no_fdr = true;
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(pmc_compare(a, b, &co, &c, err, sizeof(err)), 0);
		t = render(c, fmts[i], &o);
		assert_contains(line_with(t, "border "), "p=0.016 n=5+5");
		assert_not_contains(line_with(t, "border "), "~");
		assert_not_contains(t, "q=");
		assert_not_contains(t, "Benjamini-Hochberg");
		assert_contains(t, "Mann-Whitney U two-sided p, alpha=0.05");
		assert_contains(t, "~: not significant (p >= alpha, or the CI holds 0%)");
		free(t);
		pmc_comparison_free(c);
	}
	pmc_result_free(a);
	pmc_result_free(b);
}

/* Issue 8, case 10: the geomean row is labelled for what it is, a ratio of geometric
 * means of medians (not a Hodges-Lehmann estimate), and left out over one benchmark,
 * where it would repeat that row as another number; the JSON report keeps it with
 * "n": 1. */
static void test_geomean_row_only_over_two_benchmarks(void **state)
{
	struct pmc_result *a = t_result("perf"), *b = t_result("perf");
	struct pmc_report_opts o = {.sz = sizeof(o)};
	struct pmc_comparison *c = NULL;
	const char *fmts[] = {"table", "markdown"};
	char err[256], *t;
	json_t *d, *geo;

	put(a, "sort", "task-clock", N, 2e6, 0.01);
	put(b, "sort", "task-clock", N, 2.4e6, 0.01);
	assert_int_equal(pmc_compare(a, b, NULL, &c, err, sizeof(err)), 0);
	for (size_t i = 0; i < 2; i++) {
		t = render(c, fmts[i], &o);
		assert_not_contains(t, "geomean");
		free(t);
	}
	t = render(c, "json", &o);
	d = json_loads(t, 0, NULL);
	assert_non_null(d);
	geo = json_object_get(json_array_get(json_object_get(d, "metrics"), 0), "geomean");
	assert_int_equal(json_integer_value(json_object_get(geo, "n")), 1);
	json_decref(d);
	free(t);
	pmc_comparison_free(c);

	put(a, "hash", "task-clock", N, 5e5, 0.01);
	put(b, "hash", "task-clock", N, 5e5, 0.01);
	assert_int_equal(pmc_compare(a, b, NULL, &c, err, sizeof(err)), 0);
	for (size_t i = 0; i < 2; i++) {
		t = render(c, fmts[i], &o);
		/* sqrt(2.4 / 2) - 1 = +9.54% */
		assert_contains(line_with(t, "geomean"), "+9.54% (geomean ratio)");
		assert_contains(line_with(t, "geomean"), "2 benchmarks");
		assert_contains(t, "geomean: ratio of the geometric means of the medians");
		free(t);
	}
	pmc_comparison_free(c);
	pmc_result_free(a);
	pmc_result_free(b);
}

/* issue 19, item 1: samples of 1e70 (a hostile or broken file) once made
 * pmc_fmt_fixed_to return the 70 and more characters printf would have written, and the
 * table wrote its 'x' and '%' that far into 64- and 128-byte cells. Every format renders
 * them within bounds (an ASan build of this test fails on any overflow), in exponent
 * notation; at 1e300 the statistics overflow and the comparison is an error. */
static void test_huge_values_stay_in_their_cells(void **state)
{
	static const char *const fmts[] = {"table", "markdown", "csv", "json"};
	static const double scale[] = {1e70, 1e300};

	(void)state;
	for (size_t k = 0; k < 2; k++) {
		struct pmc_result *a = t_result("perf"), *b = t_result("perf");
		struct pmc_report_opts o = {.sz = sizeof(o)};
		struct pmc_comparison *c = NULL;
		struct pmc_cmp_cells cells;
		char err[256], line[512], *t;

		put(a, "x", "task-clock", N, scale[k], 0.01);
		put(b, "x", "task-clock", N, 3 * scale[k], 0.01);
		put(a, "y", "task-clock", N, 1, 0.01);
		put(b, "y", "task-clock", N, 1.5 * scale[k], 0.01);
		if (k == 1) {
			/* Statistics of 1e300 overflow a double: an error naming the place. */
			assert_int_equal(pmc_compare(a, b, NULL, &c, err, sizeof(err)), -ERANGE);
			assert_non_null(strstr(err, "task-clock"));
			pmc_result_free(a);
			pmc_result_free(b);
			continue;
		}
		assert_int_equal(pmc_compare(a, b, NULL, &c, err, sizeof(err)), 0);
		for (size_t i = 0; i < ARRAY_SIZE(fmts); i++) {
			t = render(c, fmts[i], &o);
			assert_non_null(t);
			free(t);
		}
		for (size_t i = 0; i < c->nrows; i++) {
			pmc_cmp_cells(c, &c->rows[i], &cells);
			assert_true(strlen(cells.change) < sizeof(cells.change));
			assert_true(strlen(cells.old) < sizeof(cells.old));
		}
		pmc_cmp_cells(c, &c->rows[1], &cells);
		assert_non_null(strstr(cells.change, "e+"));
		(void)pmc_cmp_headline(c, &o, line, sizeof(line));
		pmc_comparison_free(c);
		pmc_result_free(a);
		pmc_result_free(b);
	}
}

/* An open endpoint and the family size are in the JSON report (docs/compare.md): the tied
 * 6 + 6 row of test_compare.c, p = 0.043, lower end exactly at no change, excluded. */
static void test_json_says_which_endpoint_is_open(void **state)
{
	const double old_v[] = {98, 98, 98, 99, 99, 99};
	const double new_v[] = {99, 99, 99, 100, 100, 100};
	struct pmc_result *a = t_result("perf"), *b = t_result("perf");
	struct pmc_report_opts o = {.sz = sizeof(o)};
	struct pmc_comparison *c = NULL;
	char err[256], *t;

	(void)state;
	put_values(a, "tied", "task-clock", old_v, 6);
	put_values(b, "tied", "task-clock", new_v, 6);
	assert_int_equal(pmc_compare(a, b, NULL, &c, err, sizeof(err)), 0);
	t = render(c, "json", &o);
	assert_contains(t, "\"ci_open\":[true,false]");
	assert_contains(t, "\"family\":1,");
	free(t);
	o.all_rows = true;
	t = render(c, "table", &o);
	assert_contains(t, "+1.02% (+0.00%, +2.04%]");
	free(t);
	pmc_comparison_free(c);
	pmc_result_free(a);
	pmc_result_free(b);
}

/* issue 18, item 4: a headline never says "no difference" for a row that could not
 * decide. Five paired rounds, B three times as slow in each: the signed-rank test's
 * smallest p is 2/32 = 0.0625, so no difference can be significant; the headline says so
 * and what is needed, with the factor measured and no interval. */
static void test_headline_of_an_undecidable_design(void **state)
{
	struct pmc_result *r = t_result("perf");
	struct pmc_report_opts o = {.sz = sizeof(o), .old_name = "fast", .new_name = "best"};
	struct pmc_comparison *c = NULL;
	char err[256], line[512];

	(void)state;
	for (int side = 0; side < 2; side++) {
		double v[5];

		t_rounds_bench(r, side ? "best" : "fast", 5);
		for (size_t i = 0; i < 5; i++)
			v[i] = 1e6 * (1 + 0.01 * (double)i) * (side ? 3 : 1);
		put_values(r, side ? "best" : "fast", "task-clock", v, 5);
	}
	assert_int_equal(pmc_compare_reference(r, 0, NULL, &c, err, sizeof(err)), 0);
	assert_true(pmc_cmp_headline(c, &o, line, sizeof(line)));
	assert_string_equal(line, "undecided between best and fast: 3.00x (task-clock, paired); "
				  "need >= 6 rounds to detect a difference at alpha=0.05\n");
	pmc_comparison_free(c);
	pmc_result_free(r);
}

/* The result's report in format fmt from the analysis a (reporters/reporter.h). */
static char *render_analyzed(const struct pmc_result *r, const struct pmc_analysis *a,
			     const char *fmt)
{
	struct pmc_report_opts o = {.sz = sizeof(o)};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	char err[256] = "";

	assert_non_null(f);
	if (pmc_report_result_analyzed(f, fmt, r, a, &o, err, sizeof(err)) < 0)
		fail_msg("%s: %s", fmt, err);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* Computed once, read by all (docs/architecture.md, "Data flow"): a reader handed the
 * result's analysis renders it, and builds none of its own. An analysis whose median was
 * changed by hand shows through every reader, so none of them recomputed it; one of
 * another result is refused, and one at another confidence is not used. */
static void test_readers_take_the_analysis_they_are_given(void **state)
{
	struct pmc_result *r = t_result("perf"), *other = t_result("perf");
	struct pmc_analysis *a = NULL, *b = NULL, *c90 = NULL;
	char *text;

	(void)state;
	put(r, "a", "page-faults", 6, 1000, 0.01);
	put(other, "a", "page-faults", 6, 1000, 0.01);
	for (int i = 0; i < 6; i++) /* a result file has a run for each sample */
		assert_int_equal(pmc_benchmark_record_run(&r->benchmarks[0], 0, 0, false), 0);
	assert_int_equal(pmc_analysis_new(r, 0.95, &a), 0);
	assert_int_equal(pmc_analysis_new(other, 0.95, &b), 0);
	assert_int_equal(pmc_analysis_new(r, 0.9, &c90), 0);
	/* The table shows the mean, the rest the median. */
	a->benches[0].metrics[0].s.median = a->benches[0].metrics[0].s.mean = 4242;
	c90->benches[0].metrics[0].s.median = c90->benches[0].metrics[0].s.mean = 4242;
	text = render_analyzed(r, a, "json");
	assert_non_null(strstr(text, "\"median\":4242"));
	free(text);
	assert_int_equal(pmc_result_dumps(r, a, &text), 0);
	assert_non_null(strstr(text, "\"median\":4242"));
	free(text);
	text = render_analyzed(r, a, "stats");
	assert_non_null(strstr(text, "4242"));
	free(text);
	text = render_analyzed(r, a, "table");
	assert_non_null(strstr(text, "4,242  page-faults"));
	free(text);
	/* Without one, or with one at a confidence not the report's, the reporter's own. */
	text = render_analyzed(r, NULL, "table");
	assert_null(strstr(text, "4,242"));
	free(text);
	text = render_analyzed(r, c90, "table");
	assert_null(strstr(text, "4,242"));
	free(text);
	assert_int_equal(pmc_result_dumps(r, c90, &text), 0);
	assert_null(strstr(text, "4242"));
	free(text);
	assert_int_equal(pmc_result_dumps(r, b, &text), -EINVAL);
	assert_int_equal(pmc_report_result_analyzed(stdout, "table", r, b, NULL, NULL, 0), -EINVAL);
	pmc_analysis_free(c90);
	pmc_analysis_free(b);
	pmc_analysis_free(a);
	pmc_result_free(other);
	pmc_result_free(r);
}

/* Three commands (run -c A -c B -c C): the summary starts from the fastest, one line per
 * other command with the pair's factor and interval; several benchmarks of two files
 * get no summary. */
static void test_headline_of_three_commands(void **state)
{
	struct pmc_result *r = t_result("perf"), *a = t_result("perf"), *b = t_result("perf");
	struct pmc_report_opts o = {.sz = sizeof(o), .old_name = "c", .new_name = "command"};
	struct pmc_comparison *c = NULL;
	char err[256], line[512], *t;

	put(r, "a", "task-clock", N, 2e6, 0.01);
	put(r, "b", "task-clock", N, 3e6, 0.01);
	put(r, "c", "task-clock", N, 1e6, 0.01);
	{
		struct pmc_analysis *an = NULL;

		assert_int_equal(pmc_analysis_new(r, 0.95, &an), 0);
		assert_int_equal(pmc_analysis_fastest(an, 0), 2);
		pmc_analysis_free(an);
	}
	assert_int_equal(pmc_compare_reference(r, 2, NULL, &c, err, sizeof(err)), 0);
	assert_true(pmc_cmp_headline(c, &o, line, sizeof(line)));
	assert_string_equal(strtok(line, "\n"), "c ran");
	assert_non_null(strstr(strtok(NULL, "\n"), "  2.00x faster than a ["));
	assert_non_null(strstr(strtok(NULL, "\n"), "  3.00x faster than b ["));
	assert_null(strtok(NULL, "\n"));
	/* The table: each line escaped on its own, the word coloured only when asked. */
	t = render(c, "table", &o);
	assert_contains(t, "c ran\n  2.00x faster than a [");
	assert_not_contains(t, "\033");
	free(t);
	o.color = true;
	t = render(c, "table", &o);
	assert_contains(t, "  2.00x \033[1;32mfaster\033[0m than a [");
	free(t);
	o.color = false;
	t = render(c, "markdown", &o);
	assert_not_contains(t, "\033");
	free(t);
	pmc_comparison_free(c);

	put(a, "sort", "task-clock", N, 2e6, 0.01);
	put(b, "sort", "task-clock", N, 2.4e6, 0.01);
	put(a, "hash", "task-clock", N, 5e5, 0.01);
	put(b, "hash", "task-clock", N, 5e5, 0.01);
	assert_int_equal(pmc_compare(a, b, NULL, &c, err, sizeof(err)), 0);
	assert_false(pmc_cmp_headline(c, &o, line, sizeof(line)));
	pmc_comparison_free(c);
	pmc_result_free(r);
	pmc_result_free(a);
	pmc_result_free(b);
}

/* Names from a result file reach the terminal and CI logs: no escape sequence (ESC, the
 * C1 CSI), no DEL, and no CR or LF that would forge a line, in any text format; JSON
 * escapes them as JSON does and keeps the name. */
static void test_hostile_names_are_escaped(void **state)
{
	static const char name[] = "x\x1b]0;owned\x07\r\nPASS forged\x7f\xc2\x9b"
				   "2J";
	struct pmc_result *a = t_result("perf"), *b = t_result("perf");
	struct pmc_report_opts o = {.sz = sizeof(o)};
	struct pmc_comparison *c = NULL;
	const char *fmts[] = {"table", "markdown", "csv"};
	char err[256], *t;
	json_t *d;

	(void)state;
	put(a, name, "task-clock", N, 2e6, 0.01);
	put(b, name, "task-clock", N, 2.4e6, 0.01);
	assert_int_equal(pmc_compare(a, b, NULL, &c, err, sizeof(err)), 0);
	for (size_t i = 0; i < ARRAY_SIZE(fmts); i++) {
		t = render(c, fmts[i], &o);
		assert_not_contains(t, "\x1b");
		assert_not_contains(t, "\r");
		assert_not_contains(t, "\x7f");
		assert_not_contains(t, "\xc2\x9b");
		assert_not_contains(t, "\nPASS forged");
		assert_contains(t, "PASS forged");
		free(t);
	}
	t = render(c, "json", &o);
	assert_not_contains(t, "\x1b");
	assert_not_contains(t, "\nPASS forged");
	d = json_loads(t, 0, NULL);
	assert_non_null(d);
	assert_contains(t, "\\u001B]0;owned\\u0007\\r\\nPASS forged");
	json_decref(d);
	free(t);
	pmc_comparison_free(c);
	pmc_result_free(a);
	pmc_result_free(b);
}

/* The counts of verdicts: regressions and improvements over the gated rows only, the
 * others said as changes (issue 31: "4 regressions" when one row was gated). */
static void test_counts_gated_rows_only(void **state)
{
	struct pmc_result *a = t_result("perf"), *b = t_result("perf");
	struct pmc_report_opts o = {.sz = sizeof(o), .all_rows = true};
	struct pmc_comparison *c = NULL;
	char err[512], *t;

	(void)state;
	put(a, "x", "task-clock", N, 2e6, 0.01);
	put(b, "x", "task-clock", N, 2.4e6, 0.01); /* +20%, gated by default */
	put(a, "x", "context-switches", N, 100, 0.01);
	put(b, "x", "context-switches", N, 200, 0.01); /* +100%, not gated */
	put(a, "x", "cpu-migrations", N, 100, 0.01);
	put(b, "x", "cpu-migrations", N, 50, 0.01); /* -50%, not gated */
	assert_int_equal(pmc_compare(a, b, NULL, &c, err, sizeof(err)), 0);
	assert_int_equal(c->ngated, 1);
	t = render(c, "table", &o);
	assert_contains(t, "\n1 regression, 0 improvements, 0 no change, 0 inconclusive in 1 "
			   "gated row; not gated (2 of 3 rows): 2 changed, 0 no change, 0 "
			   "inconclusive\n");
	assert_not_contains(t, "2 regressions");
	free(t);
	pmc_comparison_free(c);
	pmc_result_free(a);
	pmc_result_free(b);
}

/* Columns a line of text takes: one per code point. */
static size_t columns_of(const char *s, size_t n)
{
	size_t w = 0;

	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

/* Every line of text fits width columns, but one that is a single word. */
static void assert_fits(const char *text, size_t width)
{
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *sp = memchr(p, ' ', n);

		if (columns_of(p, n) > width && sp && strspn(p, " ") < n &&
		    memchr(p + strspn(p, " "), ' ', n - strspn(p, " "))) {
			print_error("--- text:\n%s\n--- a line of %zu columns: %.*s\n", text,
				    columns_of(p, n), (int)n, p);
			fail();
		}
		p += n + (nl != NULL);
	}
}

/* With a width, the comparison table and its prose fit it (docs/cli.md, "Width"): the
 * test, the limit and the note go under the row, the legend is wrapped. */
static void test_table_fits_the_width(void **state)
{
	struct fixture *f = *state;
	struct pmc_report_opts o = {.sz = sizeof(o),
				    .old_name = "base.json",
				    .new_name = "pr.json",
				    .all_rows = true,
				    .width = 80};
	char *t = render(f->c, "table", &o);

	assert_fits(t, 80);
	/* The row keeps its numbers and its verdict; its test is on the next line. */
	assert_contains(line_with(t, "sort/1k "), "+20.0% [+19.2%, +20.8%]  regression");
	assert_contains(t, "\n  test q<0.001 n=10+10; limit 5%\n");
	assert_contains(t, "change (HL): Hodges-Lehmann estimate");
	free(t);
}

/* The one wrapper of prose: lines broken at spaces, the indent kept plus two, a word
 * longer than the width left whole, colour sequences taking no column. */
static void test_wrap(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(m);
	pmc_report_wrap(m,
			"  one two three four five six\nshort\n"
			"\033[33mred\033[0m words here\nabcdefghijklmnop x\n",
			12);
	fclose(m);
	assert_string_equal(buf, "  one two\n    three\n    four\n    five six\nshort\n"
				 "\033[33mred\033[0m words\n  here\nabcdefghijklmnop\n  x\n");
	free(buf);
}

/* The brief table of a benchmark program: a user counter's rate in SI steps (it printed
 * 229204180.87 count/s) and a 1024-based count; a time's note even when no sample is
 * left (pauses that cost more than every batch), and "-" for that time, never 0. */
static void test_brief_rates_and_notes(void **state)
{
	struct pmc_run_info run = {.iterations = 1000};
	struct pmc_result *r = NULL;
	struct pmc_benchmark *b;
	struct pmc_metric *m;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(pmc_result_new("perf", &r), 0);
	assert_int_equal(pmc_result_add_benchmark(r, "rates", NULL, &b), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pmc_benchmark_add_run(b, &run), 0);
	assert_int_equal(pmc_benchmark_metric(b, "wall-time/op", &m), 0);
	assert_int_equal(pmc_metric_append(m, 4.36, NULL), 0);
	assert_int_equal(pmc_metric_append(m, 4.36, NULL), 0);
	assert_int_equal(pmc_benchmark_metric(b, "hits/s", &m), 0);
	free(m->unit);
	m->unit = strdup("count/s");
	assert_int_equal(pmc_metric_append(m, 229204180.87, NULL), 0);
	assert_int_equal(pmc_metric_append(m, 229204180.87, NULL), 0);
	assert_int_equal(pmc_benchmark_metric(b, "mem", &m), 0);
	free(m->unit);
	m->unit = strdup("count:1024");
	assert_int_equal(pmc_metric_append(m, 3145728, NULL), 0);
	assert_int_equal(pmc_metric_append(m, 3145728, NULL), 0);
	assert_int_equal(pmc_result_add_benchmark(r, "paused", NULL, &b), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pmc_benchmark_add_run(b, &run), 0);
	assert_int_equal(pmc_benchmark_metric(b, "wall-time/op", &m), 0);
	assert_int_equal(pmc_metric_append(m, NAN, NULL), 0);
	assert_int_equal(pmc_metric_append(m, NAN, NULL), 0);
	assert_int_equal(pmc_metric_set_note(m, "2 of 2 samples not measured: clamped"), 0);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(pmc_report_result(f, "brief", r, NULL, NULL, 0), 0);
	fclose(f);
	assert_contains(line_with(buf, "rates "), " 229.20 M/s");
	assert_contains(line_with(buf, "rates "), " 3Mi");
	assert_contains(buf, "\nnote: paused: 2 of 2 samples not measured: clamped\n");
	assert_null(strstr(line_with(buf, "paused "), " 0 ns"));
	assert_no_nan(buf);
	free(buf);
	pmc_result_free(r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_table, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_table_folds_unchanged_rows, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_markdown, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_json, setup, teardown),
	    cmocka_unit_test(test_json_escapes_terminal_controls),
	    cmocka_unit_test(test_counts_gated_rows_only),
	    cmocka_unit_test_setup_teardown(test_table_fits_the_width, setup, teardown),
	    cmocka_unit_test(test_wrap),
	    cmocka_unit_test(test_brief_rates_and_notes),
	    cmocka_unit_test(test_error_reports),
	    cmocka_unit_test(test_format_lookup),
	    cmocka_unit_test(test_format_by_extension),
	    cmocka_unit_test(test_format_lists),
	    cmocka_unit_test(test_shows_the_judged_value),
	    cmocka_unit_test(test_geomean_row_only_over_two_benchmarks),
	    cmocka_unit_test(test_hostile_names_are_escaped),
	    cmocka_unit_test(test_headline_of_three_commands),
	    cmocka_unit_test(test_readers_take_the_analysis_they_are_given),
	    cmocka_unit_test(test_headline_of_an_undecidable_design),
	    cmocka_unit_test(test_json_says_which_endpoint_is_open),
	    cmocka_unit_test(test_huge_values_stay_in_their_cells),
	    cmocka_unit_test_setup_teardown(test_write_failure, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_error_repeating_a_warning_is_shown_once, setup,
					    teardown),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

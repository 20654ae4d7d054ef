/* The history's outputs as reporter formats (reporters/points.c, changes.c, charts.c;
 * the registry of report.c): history export's CSV and JSON of points, the change points
 * through the registry, the trend charts as svg and html with titles told apart, and
 * which formats the registry lists for each output. */
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
#include <jansson.h>

#include "tests/noise.h"
#include "tests/test_main.h"

#include "core/series.h"
#include "pmcbench/report.h"
#include "reporters/charts.h"
#include "reporters/reporter.h"

/* out's text after fn wrote into it, to free. */
struct mem {
	char *buf;
	size_t len;
	FILE *f;
};

static FILE *mem_open(struct mem *m)
{
	m->buf = NULL;
	m->f = open_memstream(&m->buf, &m->len);
	assert_non_null(m->f);
	return m->f;
}

static char *mem_close(struct mem *m)
{
	fclose(m->f);
	return m->buf;
}

/* A point of wall-time with samples 1.5 and not measured, of a commit with a comma and
 * a quote in its name. */
static struct pmc_history_point point(double *samples)
{
	samples[0] = 1.5;
	samples[1] = NAN;
	return (struct pmc_history_point){
	    .e = {.id = "e1",
		  .t = 1767225600,
		  .commit = "a,\"b",
		  .branch = "main",
		  .machine = "box",
		  .fingerprint = "fp",
		  .tags = "k=v,x=y"},
	    .benchmark = "work",
	    .metric = "wall-time",
	    .unit = "ns",
	    .median = 1.5,
	    .n = 2,
	    .samples = samples,
	};
}

static void points_as_csv_and_json(void **state)
{
	double samples[2];
	struct pmc_history_point p = point(samples);
	struct mem m;
	json_error_t jerr;
	json_t *doc, *o;
	char *text;

	(void)state;
	assert_int_equal(pmc_report_points(mem_open(&m), "csv", &p, 1, PMC_POINTS_ALL), 0);
	text = mem_close(&m);
	assert_string_equal(
	    text,
	    "entry,measured,commit,branch,machine,fingerprint,tags,benchmark,metric,unit,run,"
	    "value\n"
	    "e1,2026-01-01T00:00:00Z,\"a,\"\"b\",main,box,fp,\"k=v,x=y\",work,wall-time,ns,1,1.5\n"
	    "e1,2026-01-01T00:00:00Z,\"a,\"\"b\",main,box,fp,\"k=v,x=y\",work,wall-time,ns,2,\n");
	free(text);

	assert_int_equal(pmc_report_points(mem_open(&m), "json", &p, 1, PMC_POINTS_ALL), 0);
	text = mem_close(&m);
	doc = json_loads(text, 0, &jerr);
	assert_non_null(doc);
	assert_int_equal(json_array_size(doc), 1);
	o = json_array_get(doc, 0);
	assert_string_equal(json_string_value(json_object_get(o, "commit")), "a,\"b");
	assert_string_equal(json_string_value(json_object_get(o, "measured")),
			    "2026-01-01T00:00:00Z");
	assert_true(json_real_value(json_object_get(o, "median")) == 1.5);
	assert_true(json_real_value(json_array_get(json_object_get(o, "samples"), 0)) == 1.5);
	assert_true(json_is_null(json_array_get(json_object_get(o, "samples"), 1)));
	json_decref(doc);
	free(text);

	/* A format that writes no points is no format of export. */
	assert_int_equal(pmc_report_points(stdout, "table", &p, 1, PMC_POINTS_ALL), -ENOENT);
	assert_int_equal(pmc_report_points(stdout, "md", &p, 1, PMC_POINTS_ALL), -ENOENT);
}

/* format's document of ps[0..3) written in parts as export writes it, series by series
 * (the first part, a middle one, the last with no points), to free. */
static char *points_in_parts(const char *format, const struct pmc_history_point *ps)
{
	struct mem m;
	FILE *f = mem_open(&m);

	assert_int_equal(pmc_report_points(f, format, ps, 1, PMC_POINTS_FIRST), 0);
	assert_int_equal(pmc_report_points(f, format, ps + 1, 2, 0), 0);
	assert_int_equal(pmc_report_points(f, format, NULL, 0, PMC_POINTS_LAST), 0);
	return mem_close(&m);
}

/* Written part by part, the points make the document written at once, byte for byte; and
 * an export of nothing is the header alone, or an empty array. */
static void points_in_parts_as_at_once(void **state)
{
	static const char *const formats[] = {"csv", "json"};
	double samples[3][2];
	struct pmc_history_point ps[3];
	struct mem m;
	char *text, *parts;

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		ps[i] = point(samples[i]);
		samples[i][1] = (double)i;
	}
	ps[2].metric = "instructions";
	for (size_t k = 0; k < 2; k++) {
		assert_int_equal(pmc_report_points(mem_open(&m), formats[k], ps, 3, PMC_POINTS_ALL),
				 0);
		text = mem_close(&m);
		parts = points_in_parts(formats[k], ps);
		assert_string_equal(parts, text);
		free(parts);
		if (k == 1) { /* jansson's own text of the whole array, as before the parts */
			json_error_t jerr;
			json_t *doc = json_loads(text, 0, &jerr);
			char *dumped;

			assert_non_null(doc);
			assert_int_equal(json_array_size(doc), 3);
			dumped = json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
			assert_non_null(dumped);
			assert_int_equal(strlen(text), strlen(dumped) + 1);
			assert_memory_equal(text, dumped, strlen(dumped));
			free(dumped);
			json_decref(doc);
		}
		free(text);
	}
	assert_int_equal(pmc_report_points(mem_open(&m), "json", NULL, 0, PMC_POINTS_ALL), 0);
	text = mem_close(&m);
	assert_string_equal(text, "[]\n");
	free(text);
	assert_int_equal(pmc_report_points(mem_open(&m), "csv", NULL, 0, PMC_POINTS_ALL), 0);
	text = mem_close(&m);
	assert_string_equal(text, "entry,measured,commit,branch,machine,fingerprint,tags,benchmark,"
				  "metric,unit,run,value\n");
	free(text);
}

/* The 12 points of a series on kernel: 10 ns to point 5, 20 ns after. */
struct series_fixture {
	struct pmc_history_point ps[12];
	double samples[12][2];
	char commits[12][8];
};

static void make_series(struct series_fixture *f, const char *kernel, bool measured)
{
	for (size_t i = 0; i < 12; i++) {
		double v = measured ? (i < 6 ? 10 : 20) : NAN;

		snprintf(f->commits[i], sizeof(f->commits[i]), "c%02zu", i);
		f->samples[i][0] = f->samples[i][1] = v;
		f->ps[i] = (struct pmc_history_point){
		    .e = {.id = "e",
			  .t = 1767225600 + (int64_t)i * 60,
			  .commit = f->commits[i],
			  .machine = "box",
			  .backend = "valgrind",
			  .kernel = (char *)kernel,
			  .fingerprint = (char *)kernel},
		    .benchmark = "work",
		    .metric = "instructions",
		    .unit = "count",
		    .simulated = true,
		    .median = v,
		    .n = 2,
		    .samples = f->samples[i],
		};
	}
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *at = s; (at = strstr(at, what)) != NULL; at += strlen(what))
		n++;
	return n;
}

static void charts_tell_alike_titles_apart(void **state)
{
	static struct series_fixture a, b, never;
	struct pmc_charts cs = {0};
	struct pmc_series s;
	struct mem m;
	char *text;

	(void)state;
	make_series(&a, "Linux 6.1", true);
	make_series(&b, "Linux 6.2", true);
	make_series(&never, "Linux 6.3", false);
	for (int k = 0; k < 3; k++) {
		struct series_fixture *f = k == 0 ? &a : k == 1 ? &b : &never;

		assert_int_equal(pmc_series_changes(f->ps, 12, &(struct pmc_cp_opts){0}, &s), 0);
		assert_int_equal(pmc_charts_add(&cs, &s), 0);
		pmc_series_clear(&s);
	}
	/* The chart keeps what it draws: the series went. */
	assert_int_equal(cs.n, 2);
	assert_int_equal(cs.nskipped, 1);
	assert_string_equal(cs.skipped[0], "work instructions on box (valgrind)");
	assert_int_equal(cs.v[0].t.ncps, 1);
	assert_int_equal(cs.v[0].t.cps[0].index, 6);
	assert_string_equal(cs.v[0].t.pts[6].label, "c06");

	assert_int_equal(pmc_report_charts(mem_open(&m), "svg", &cs, "h.db"), 0);
	text = mem_close(&m);
	assert_true(strncmp(text, "<?xml", 5) == 0);
	assert_int_equal(count(text, "work instructions on box (valgrind) - kernel Linux 6.1<"), 1);
	assert_int_equal(count(text, "work instructions on box (valgrind) - kernel Linux 6.2<"), 1);
	/* Drawing leaves the charts' own titles as they were. */
	assert_string_equal(cs.v[0].title, "work instructions on box (valgrind)");
	free(text);

	assert_int_equal(pmc_report_charts(mem_open(&m), "html", &cs, "h.db"), 0);
	text = mem_close(&m);
	assert_int_equal(count(text, "<svg xmlns"), 2);
	assert_non_null(strstr(text, "work instructions on box (valgrind)</p>"));
	free(text);
	assert_int_equal(pmc_report_charts(stdout, "json", &cs, "h.db"), -ENOENT);
	pmc_charts_clear(&cs);
	assert_int_equal(cs.n, 0);
}

static void changes_through_the_registry(void **state)
{
	static struct series_fixture a;
	struct pmc_changes c = {.store = "h.db", .new_since = "c03"};
	struct pmc_series s;
	json_error_t jerr;
	json_t *doc, *row;
	struct mem m;
	char *text;

	(void)state;
	make_series(&a, "Linux 6.1", true);
	assert_int_equal(pmc_series_changes(a.ps, 12, &(struct pmc_cp_opts){0}, &s), 0);
	assert_int_equal(pmc_changes_add(&c, &s), 0);
	pmc_series_clear(&s);
	assert_int_equal(pmc_report_changes(mem_open(&m), "json", &c), 0);
	text = mem_close(&m);
	doc = json_loads(text, 0, &jerr);
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "schema")),
			    "pmcbench-changes/1");
	assert_string_equal(json_string_value(json_object_get(doc, "verdict")), "regression");
	row = json_array_get(json_object_get(doc, "changes"), 0);
	assert_string_equal(json_string_value(json_object_get(row, "commit_before")), "c05");
	assert_string_equal(json_string_value(json_object_get(row, "commit")), "c06");
	assert_string_equal(json_string_value(json_object_get(row, "way")), "regression");
	json_decref(doc);
	free(text);
	/* markdown by its alias too, the verdict first. */
	assert_int_equal(pmc_report_changes(mem_open(&m), "md", &c), 0);
	text = mem_close(&m);
	assert_non_null(strstr(text, "regression"));
	free(text);
	assert_int_equal(pmc_report_changes(stdout, "csv", &c), -ENOENT);
	pmc_changes_clear(&c);
}

/* A change reported as the series grew and withdrawn by the points since (the series of
 * tests/test_changepoint.c's false_change_is_withdrawn: 200 points of one level, 3%
 * noise, alpha 0.01): history changes says so in every format, with the commits where it
 * was, where it was reported and where it went; and not among the news of a later
 * --new-since. */
static void withdrawn_changes_are_said(void **state)
{
	static struct pmc_history_point ps[200];
	static double x[200];
	static char commits[200][8];
	struct noise nz = {78 * 7919};
	struct pmc_changes c = {.store = "h.db"};
	struct pmc_series s;
	json_error_t jerr;
	json_t *doc, *g;
	struct mem m;
	char *text;

	(void)state;
	fill(x, 0, 200, 1e6, 0.03, &nz);
	for (size_t i = 0; i < 200; i++) {
		snprintf(commits[i], sizeof(commits[i]), "c%03zu", i);
		ps[i] = (struct pmc_history_point){
		    .e = {.id = "e",
			  .t = 1767225600 + (int64_t)i * 60,
			  .commit = commits[i],
			  .machine = "box",
			  .fingerprint = "fp"},
		    .benchmark = "work",
		    .metric = "wall-time",
		    .unit = "ns",
		    .median = x[i],
		    .n = 1,
		    .samples = &x[i],
		};
	}
	assert_int_equal(pmc_series_changes(ps, 200, &(struct pmc_cp_opts){.alpha = 0.01}, &s), 0);
	assert_int_equal(s.ncps, 0);
	assert_int_equal(s.nwd, 1);
	assert_int_equal(pmc_changes_add(&c, &s), 0);
	assert_int_equal(c.n, 0);
	assert_int_equal(c.ngone, 1);
	assert_int_equal(pmc_report_changes(mem_open(&m), "table", &c), 0);
	text = mem_close(&m);
	assert_non_null(strstr(text,
			       "0 change points in 1 series of h.db\nwithdrawn: work wall-time "
			       "(box): the change at c0"));
	assert_non_null(strstr(text, ", reported at c"));
	assert_non_null(strstr(text, ", is gone since c"));
	free(text);
	assert_int_equal(pmc_report_changes(mem_open(&m), "json", &c), 0);
	text = mem_close(&m);
	doc = json_loads(text, 0, &jerr);
	assert_non_null(doc);
	g = json_array_get(json_object_get(doc, "withdrawn"), 0);
	assert_non_null(g);
	assert_int_equal(json_integer_value(json_object_get(g, "first_index")), 37);
	assert_string_equal(json_string_value(json_object_get(g, "reported_at")),
			    commits[json_integer_value(json_object_get(g, "reported_with")) - 1]);
	assert_string_equal(json_string_value(json_object_get(g, "withdrawn_at")),
			    commits[json_integer_value(json_object_get(g, "withdrawn_with")) - 1]);
	assert_true(json_real_value(json_object_get(g, "p")) > 0.1);
	json_decref(doc);
	free(text);
	assert_int_equal(pmc_report_changes(mem_open(&m), "markdown", &c), 0);
	text = mem_close(&m);
	assert_non_null(strstr(text, "Withdrawn since they were reported"));
	assert_non_null(strstr(text, "- work wall-time at `c0"));
	free(text);
	pmc_changes_clear(&c);
	/* Withdrawn before the points a --new-since selects: not news. */
	c = (struct pmc_changes){.store = "h.db", .new_since = "c199", .from = ps[199].e.t};
	assert_int_equal(pmc_changes_add(&c, &s), 0);
	assert_int_equal(c.ngone, 0);
	pmc_changes_clear(&c);
	pmc_series_clear(&s);
}

static void registry_lists_each_output(void **state)
{
	const struct pmc_reporter *rep;
	char buf[128];

	(void)state;
	pmc_reporter_names(PMC_REPORTERS_POINTS, buf, sizeof(buf));
	assert_string_equal(buf, "json or csv");
	pmc_reporter_names(PMC_REPORTERS_CHANGES, buf, sizeof(buf));
	assert_string_equal(buf, "table, markdown or json");
	pmc_reporter_set_extensions(PMC_REPORTERS_COMPARISONS, buf, sizeof(buf));
	assert_string_equal(buf, ".json, .csv or .md");
	assert_ptr_equal(pmc_reporter_of(PMC_REPORTERS_CHANGES, "md"), &pmc_reporter_markdown);
	assert_null(pmc_reporter_of(PMC_REPORTERS_POINTS, "md"));
	/* The charts are no format of a result or a comparison. */
	assert_int_equal(pmc_report_format("svg", PMC_REPORT_RESULT, NULL, NULL), -ENOENT);
	assert_int_equal(pmc_report_format("html", PMC_REPORT_COMPARISON, NULL, NULL), -ENOENT);
	pmc_reporter_names(PMC_REPORTERS_RESULT, buf, sizeof(buf));
	assert_null(strstr(buf, "svg"));
	/* Two sides at most: Go's benchmark format only. */
	for (size_t i = 0; (rep = pmc_reporter_at(i)) != NULL; i++)
		assert_int_equal(rep->two_sides, rep == &pmc_reporter_gobench);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(points_as_csv_and_json),
	    cmocka_unit_test(points_in_parts_as_at_once),
	    cmocka_unit_test(charts_tell_alike_titles_apart),
	    cmocka_unit_test(changes_through_the_registry),
	    cmocka_unit_test(withdrawn_changes_are_said),
	    cmocka_unit_test(registry_lists_each_output),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

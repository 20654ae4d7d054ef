/* Go's benchmark format (reporters/gobench.c, docs/export.md): read back by the rules of
 * the format (and of benchfmt, benchstat's reader), every line gives the samples of one
 * run exactly, under the documented units, with the run's iterations; the Unit lines say
 * which way is better and what is exact; the text matches the golden files of
 * tests/data/export/ (PMC_UPDATE_GOLDEN=1 rewrites them). */
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

#include "base/utf8.h"
#include "core/compare.h"
#include "core/result.h"
#include "pmcbench/report.h"
#include "tests/helpers.h"

#define GOLDEN PMC_TEST_SRCDIR "/data/export/"

/* ---- A reader of the format, as benchfmt reads it ---------------------------------- */

struct go_line {
	char *name; /* after "Benchmark" */
	unsigned long long iters;
	size_t n;
	double value[32];
	char *unit[32];
	char *side; /* the "side" configuration at this line, or NULL */
};

struct go_file {
	struct go_line line[256];
	size_t n;
	char *unit_meta[64]; /* "Unit" lines, without "Unit " */
	size_t nmeta;
	char *config[64]; /* "key: value" lines, in order */
	size_t nconfig;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* Splits s in place into fields; returns how many. */
static size_t fields(char *s, char **f, size_t max)
{
	size_t n = 0;

	while (*s) {
		while (is_space(*s))
			*s++ = '\0';
		if (!*s)
			break;
		assert_true(n < max);
		f[n++] = s;
		while (*s && !is_space(*s))
			s++;
	}
	return n;
}

/* Parses text (which it keeps); every line must be valid UTF-8, a benchmark line must
 * have an even number of fields (at least four) and numbers strtod reads whole, a
 * configuration key must start with a lower-case letter and hold no space or upper case
 * (the format's rules). */
static void go_parse(char *text, struct go_file *g)
{
	char *side = NULL, *save = NULL;

	memset(g, 0, sizeof(*g));
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *f[80];
		size_t n;

		if (!pmc_utf8_valid(l))
			fail_msg("not UTF-8: %s", l);
		if (l[0] == '#')
			continue;
		if (strncmp(l, "Benchmark", 9) == 0) {
			struct go_line *gl = &g->line[g->n++];
			char *end;

			n = fields(l, f, 80);
			if (n < 4 || n % 2)
				fail_msg("benchmark line with %zu fields", n);
			gl->name = f[0] + 9;
			gl->iters = strtoull(f[1], &end, 10);
			assert_true(*end == '\0' && gl->iters >= 1);
			gl->side = side;
			for (size_t i = 2; i < n; i += 2) {
				gl->value[gl->n] = strtod(f[i], &end);
				if (*end)
					fail_msg("'%s' is not a number", f[i]);
				gl->unit[gl->n++] = f[i + 1];
			}
			continue;
		}
		if (strncmp(l, "Unit ", 5) == 0) {
			g->unit_meta[g->nmeta++] = l + 5;
			continue;
		}
		/* Anything else is a configuration line: key, colon, spaces, value. */
		assert_true(l[0] >= 'a' && l[0] <= 'z');
		for (char *p = l; *p != ':'; p++)
			if (!*p || is_space(*p) || (*p >= 'A' && *p <= 'Z'))
				fail_msg("not a configuration line: %s", l);
		g->config[g->nconfig++] = l;
		if (strncmp(l, "side: ", 6) == 0)
			side = l + 6;
	}
}

/* ---- Fixtures ----------------------------------------------------------------------- */

static struct pmc_result *fixed_result(const char *backend)
{
	struct pmc_result *r = t_result(backend);

	free(r->tool_version);
	free(r->created);
	r->tool_version = strdup("9.9.9");
	r->created = strdup("2026-01-02T03:04:05Z");
	return r;
}

static void add_runs(struct pmc_benchmark *b, size_t n, uint64_t iters)
{
	for (size_t i = 0; i < n; i++) {
		struct pmc_run_info run = {.iterations = iters};

		assert_int_equal(pmc_benchmark_add_run(b, &run), 0);
	}
}

/* A result with every kind of unit, a run without values, a metric never measured, names
 * that need escaping (two the same once escaped), a microbenchmark with its batch size
 * and a skipped benchmark. */
static struct pmc_result *sample(void)
{
	static const double wall[3] = {2104566, NAN, 2098771.5};
	struct pmc_result *r = fixed_result("perf");
	struct pmc_benchmark *b;
	struct pmc_metric *m;

	assert_int_equal(pmc_result_set_env(r, "arch", "x86_64"), 0);
	assert_int_equal(pmc_result_set_env(r, "cpu-model", "Test CPU @ 2.00GHz"), 0);
	assert_int_equal(pmc_result_set_env(r, "hostname", "two\nlines"), 0);

	b = t_bench(r, "sort 1e6", "./sort 1e6");
	add_runs(b, 3, 0);
	put_values(r, "sort 1e6", "wall-time", wall, 3);
	put_values(r, "sort 1e6", "task-clock", (const double[]){1893312, NAN, 1899730.25}, 3);
	put_values(r, "sort 1e6", "max-rss", (const double[]){4096000, NAN, 4100096}, 3);
	put_values(r, "sort 1e6", "ipc", (const double[]){1.25, NAN, 0.1 + 0.2}, 3);
	put_values(r, "sort 1e6", "cpus-utilized", (const double[]){0.99, NAN, 1}, 3);
	put_values(r, "sort 1e6", "branch-miss-rate", (const double[]){2.5, NAN, 2.75}, 3);
	put_values(r, "sort 1e6", "ghz", (const double[]){3.1, NAN, 3.2}, 3);
	m = t_metric(b, "cycles");
	for (int i = 0; i < 3; i++) {
		struct pmc_reading rd = {.status = PMC_STATUS_UNSUPPORTED, .error = ENOENT};

		assert_int_equal(pmc_metric_append(m, NAN, &rd), 0);
	}

	b = t_bench(r, "lcg/64", NULL);
	add_runs(b, 2, 1048576);
	put_values(r, "lcg/64", "wall-time/op", (const double[]){1.5, 1.25}, 2);
	put_values(r, "lcg/64", "instructions/op", (const double[]){2.0009765625, 2}, 2);
	put_values(r, "lcg/64", "items/s", (const double[]){6.6e8, 8e8}, 2);
	put_values(r, "lcg/64", "bytes/s", (const double[]){5.28e9, 6.4e9}, 2);

	t_bench(r, "a b\tc\x01\xff", NULL);
	add_runs(&r->benchmarks[2], 1, 0);
	put_values(r, "a b\tc\x01\xff", "wall-time", (const double[]){1e-3}, 1);
	t_bench(r, "a_b_c\\x01\xef\xbf\xbd", NULL);
	add_runs(&r->benchmarks[3], 1, 0);
	put_values(r, "a_b_c\\x01\xef\xbf\xbd", "wall-time", (const double[]){7}, 1);

	b = t_bench(r, "avx2", NULL);
	assert_int_equal(pmc_benchmark_set_skipped(b, "no AVX2\non this CPU"), 0);
	return r;
}

static char *render_result(const struct pmc_result *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	char err[256] = "";

	assert_non_null(f);
	if (pmc_report_result(f, "gobench", r, NULL, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* The text equals tests/data/export/<name>, or rewrites it with PMC_UPDATE_GOLDEN=1. */
static void expect_golden(const char *text, const char *name)
{
	char path[512], *want = NULL;
	size_t len = 0;
	FILE *f;

	snprintf(path, sizeof(path), GOLDEN "%s", name);
	if (getenv("PMC_UPDATE_GOLDEN")) {
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(text, f);
		assert_int_equal(fclose(f), 0);
		return;
	}
	f = fopen(path, "r");
	if (!f)
		fail_msg("%s: %s (PMC_UPDATE_GOLDEN=1 writes it)", path, strerror(errno));
	assert_int_equal(getdelim(&want, &len, '\0', f) > 0, 1);
	fclose(f);
	if (strcmp(text, want) != 0)
		fail_msg("the text differs from %s:\n%s", path, text);
	free(want);
}

static bool has_meta(const struct go_file *g, const char *line)
{
	for (size_t i = 0; i < g->nmeta; i++)
		if (strcmp(g->unit_meta[i], line) == 0)
			return true;
	return false;
}

/* The lines of go_name, in order, must be b's runs with a value, each with every measured
 * value of the run exactly, under units[j] for metric j (NULL: not written). */
static void expect_runs(const struct go_file *g, const char *go_name, const char *side,
			const struct pmc_benchmark *b, const char *const *units)
{
	size_t at = 0;

	for (size_t k = 0; k < b->nruns; k++) {
		const struct go_line *gl = NULL;
		size_t want = 0, got = 0;

		for (size_t j = 0; j < b->nmetrics; j++)
			want += units[j] && !isnan(b->metrics[j].values[k]);
		if (!want)
			continue;
		for (; at < g->n && !gl; at++)
			if (strcmp(g->line[at].name, go_name) == 0 &&
			    (!side || (g->line[at].side && strcmp(g->line[at].side, side) == 0)))
				gl = &g->line[at];
		if (!gl)
			fail_msg("no line for run %zu of %s", k, b->name);
		assert_int_equal(gl->iters, b->runs[k].iterations ? b->runs[k].iterations : 1);
		for (size_t j = 0; j < b->nmetrics; j++) {
			double v = b->metrics[j].values[k];

			if (!units[j] || isnan(v))
				continue;
			assert_true(got < gl->n);
			assert_string_equal(gl->unit[got], units[j]);
			if (gl->value[got] != v)
				fail_msg("%s run %zu %s: %.17g, expected %.17g", b->name, k,
					 units[j], gl->value[got], v);
			got++;
		}
		assert_int_equal(got, gl->n);
	}
	for (; at < g->n; at++)
		if (strcmp(g->line[at].name, go_name) == 0 &&
		    (!side || (g->line[at].side && strcmp(g->line[at].side, side) == 0)))
			fail_msg("a line too many for %s", b->name);
}

/* ---- Tests ------------------------------------------------------------------------- */

static void result_lines_read_back_as_the_samples(void **state)
{
	/* The units of docs/export.md, "Units", in the order of the metrics. */
	static const char *const sort_units[] = {"ns/op",
						 "task-clock-ns/op",
						 "max-rss-B/op",
						 "ipc",
						 "cpus-utilized-CPUs",
						 "branch-miss-rate-%",
						 "GHz",
						 NULL /* cycles: never measured */};
	static const char *const lcg_units[] = {"ns/op", "instructions/op", "items/s", "B/s"};
	static const char *const wall_unit[] = {"ns/op"};
	struct pmc_result *r = sample();
	char *text = render_result(r), *copy = strdup(text);
	struct go_file g;

	go_parse(copy, &g);
	expect_runs(&g, "sort_1e6", NULL, &r->benchmarks[0], sort_units);
	expect_runs(&g, "lcg/64", NULL, &r->benchmarks[1], lcg_units);
	/* Escaped as Go's testing package escapes names, and made unique as it does. */
	expect_runs(&g, "a_b_c\\x01\xef\xbf\xbd", NULL, &r->benchmarks[2], wall_unit);
	expect_runs(&g, "a_b_c\\x01\xef\xbf\xbd#01", NULL, &r->benchmarks[3], wall_unit);
	/* Two lines of sort (its second run measured nothing), two of lcg, one each. */
	assert_int_equal(g.n, 2 + 2 + 1 + 1);

	assert_true(has_meta(&g, "ns/op better=lower"));
	assert_true(has_meta(&g, "task-clock-ns/op better=lower"));
	assert_true(has_meta(&g, "ipc better=higher"));
	assert_true(has_meta(&g, "items/s better=higher"));
	assert_true(has_meta(&g, "B/s better=higher"));
	assert_true(has_meta(&g, "GHz better=higher"));
	/* No direction (docs/metrics.md), nothing to say; a unit with no value, no line. */
	for (size_t i = 0; i < g.nmeta; i++) {
		assert_null(strstr(g.unit_meta[i], "cpus-utilized"));
		assert_null(strstr(g.unit_meta[i], "cycles"));
		assert_null(strstr(g.unit_meta[i], "assume"));
	}
	/* What makes results incomparable is configuration; the rest of the environment is
	 * comments, so that benchstat puts two runs of one machine in one table. */
	assert_int_equal(g.nconfig, 3);
	assert_string_equal(g.config[0], "backend: perf");
	assert_string_equal(g.config[1], "arch: x86_64");
	assert_string_equal(g.config[2], "cpu: Test CPU @ 2.00GHz");
	assert_contains(text, "\n# hostname: two lines\n");
	assert_contains(text, "\n# Benchmarkavx2 skipped itself: no AVX2 on this CPU\n");
	expect_golden(text, "result.txt");

	free(copy);
	free(text);
	pmc_result_free(r);
}

/* Simulated counts are exact: benchstat is told not to look for a spread in them. */
static void simulated_counts_are_exact(void **state)
{
	struct pmc_result *r = fixed_result("valgrind");
	struct pmc_benchmark *b = t_bench(r, "lcg", NULL);
	struct pmc_reading rd = {.status = PMC_STATUS_EXACT, .value = 2048};
	struct pmc_metric *m;
	char *text, *copy;
	struct go_file g;

	add_runs(b, 1, 1024);
	m = t_metric(b, "instructions/op");
	m->simulated = true;
	rd.scaled = 2;
	assert_int_equal(pmc_metric_append(m, 2, &rd), 0);
	text = render_result(r);
	copy = strdup(text);
	go_parse(copy, &g);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.line[0].iters, 1024);
	assert_true(has_meta(&g, "instructions/op better=lower assume=exact"));
	assert_string_equal(g.config[0], "backend: valgrind");
	free(copy);
	free(text);
	pmc_result_free(r);
}

/* A comparison writes both sides' samples of every compared row under the new name,
 * "side: old" then "side: new", for `benchstat -col side`; the runs of a microbenchmark
 * keep their iterations. */
static void comparison_lines_pair_the_sides(void **state)
{
	static const char *const units[] = {"ns/op", "cycles/op"};
	struct pmc_result *a = fixed_result("perf"), *b = fixed_result("perf");
	struct pmc_comparison *c = NULL;
	PMC_OPTS(pmc_report_opts, o, .old_name = "base.json", .new_name = "pr\n.json");
	char *text = NULL, *copy, err[256];
	size_t len = 0;
	struct go_file g;
	FILE *f;

	add_runs(t_bench(a, "sort", NULL), 6, 0);
	add_runs(t_bench(b, "sort", NULL), 6, 0);
	add_runs(t_bench(a, "hash/64", NULL), 6, 4096);
	add_runs(t_bench(b, "hash/64", NULL), 6, 8192);
	put(a, "sort", "wall-time", 6, 2e6, 0.01);
	put(b, "sort", "wall-time", 6, 2.4e6, 0.01);
	put(a, "sort", "cycles", 6, 3e6, 0.01);
	put(a, "hash/64", "wall-time", 6, 1e3, 0.01);
	put(b, "hash/64", "wall-time", 6, 0.9e3, 0.01);
	put(a, "hash/64", "cycles", 6, 3e3, 0.01);
	put(b, "hash/64", "cycles", 6, 3e3, 0.01);
	assert_int_equal(pmc_compare(a, b, NULL, &c, err, sizeof(err)), 0);
	f = open_memstream(&text, &len);
	assert_int_equal(pmc_report_comparison(f, "gobench", c, &o, NULL, 0), 0);
	assert_int_equal(fclose(f), 0);
	copy = strdup(text);
	go_parse(copy, &g);
	assert_int_equal(g.nconfig, 2);
	assert_string_equal(g.config[0], "side: old");
	assert_string_equal(g.config[1], "side: new");
	expect_runs(&g, "sort", "old", &a->benchmarks[0], units);
	/* The new sort has no cycles: only its time. */
	expect_runs(&g, "sort", "new", &b->benchmarks[0], units);
	expect_runs(&g, "hash/64", "old", &a->benchmarks[1], units);
	expect_runs(&g, "hash/64", "new", &b->benchmarks[1], units);
	assert_int_equal(g.n, 24);
	assert_contains(text, "# pmcbench comparison of base.json (side old) and pr .json (side "
			      "new)");
	expect_golden(text, "comparison.txt");
	free(copy);
	free(text);

	/* A comparison that failed says why, and has no lines. */
	text = NULL;
	f = open_memstream(&text, &len);
	{
		PMC_OPTS(pmc_report_opts, e, .error = "nothing in common");

		assert_int_equal(pmc_report_comparison(f, "gobench", NULL, &e, NULL, 0), 0);
	}
	assert_int_equal(fclose(f), 0);
	assert_contains(text, "\n# error: nothing in common\n");
	assert_null(strstr(text, "\nBenchmark"));
	free(text);
	pmc_comparison_free(c);
	pmc_result_free(a);
	pmc_result_free(b);
}

/* `run -c A -c B` compares every command with a reference taken from the same result:
 * the old side's samples are the reference's, under each command's name. */
static void reference_comparisons_write_the_reference_as_the_old_side(void **state)
{
	static const char *const units[] = {"ns/op"};
	struct pmc_result *r = fixed_result("perf");
	struct pmc_comparison *c = NULL;
	char *text = NULL, *copy, err[256];
	size_t len = 0;
	struct go_file g;
	FILE *f;

	add_runs(t_bench(r, "A", NULL), 6, 0);
	add_runs(t_bench(r, "B", NULL), 6, 0);
	put(r, "A", "wall-time", 6, 1e6, 0.01);
	put(r, "B", "wall-time", 6, 2e6, 0.01);
	assert_int_equal(pmc_compare_reference(r, 0, NULL, &c, err, sizeof(err)), 0);
	f = open_memstream(&text, &len);
	assert_int_equal(pmc_report_comparison(f, "gobench", c, NULL, NULL, 0), 0);
	assert_int_equal(fclose(f), 0);
	copy = strdup(text);
	go_parse(copy, &g);
	assert_int_equal(g.n, 12);
	for (size_t i = 0; i < g.n; i++)
		assert_string_equal(g.line[i].name, "B");
	assert_true(g.line[0].value[0] == r->benchmarks[0].metrics[0].values[0]);
	assert_true(g.line[6].value[0] == r->benchmarks[1].metrics[0].values[0]);
	expect_runs(&g, "B", "new", &r->benchmarks[1], units);
	free(copy);
	free(text);
	pmc_comparison_free(c);
	pmc_result_free(r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(result_lines_read_back_as_the_samples),
	    cmocka_unit_test(simulated_counts_are_exact),
	    cmocka_unit_test(comparison_lines_pair_the_sides),
	    cmocka_unit_test(reference_comparisons_write_the_reference_as_the_old_side),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

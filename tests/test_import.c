/* The importers of other tools' results (harness/3-formats/import.h): files written by Google
 * Benchmark 1.7.1, hyperfine 1.15, perf 6.1 on the development VM and Go-format text
 * written by hand (tests/data/import/README.md) load into the model with the benchmarks,
 * metric ids, runs, values and statuses docs/import.md promises; summaries are refused;
 * malformed files are refused with one line naming the file, the place and the fix. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "core/metrics.h"
#include "core/result.h"
#include "formats/import.h"
#include "formats/result_json.h"
#include "tests/helpers.h"

#define DATA PMC_TEST_SRCDIR "/data/import/"

static char tmpdir[64];

static int setup_dir(void **state)
{
	strcpy(tmpdir, "/tmp/pmc-test-import-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
	char cmd[200];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static struct pmc_result *load(const char *name)
{
	struct pmc_result *r = NULL;
	char err[1024] = "";
	int rc;

	rc = pmc_result_load_any(name, &r, err, sizeof(err));
	if (rc != 0)
		print_error("%s\n", err);
	assert_int_equal(rc, 0);
	assert_non_null(r);
	return r;
}

/* Loads a data file that must be refused; the message names the file and holds each of
 * the given parts. */
static void refused(const char *name, ...)
{
	struct pmc_result *r = NULL;
	char err[1024] = "";
	const char *part;
	va_list ap;

	assert_int_equal(pmc_result_load_any(name, &r, err, sizeof(err)), -EINVAL);
	assert_null(r);
	assert_contains(err, name);
	assert_null(strchr(err, '\n'));
	va_start(ap, name);
	while ((part = va_arg(ap, const char *)))
		assert_contains(err, part);
	va_end(ap);
}

static struct pmc_benchmark *bench(const struct pmc_result *r, const char *name)
{
	struct pmc_benchmark *b = pmc_result_find_benchmark(r, name);

	if (!b)
		fail_msg("no benchmark '%s'", name);
	return b;
}

static struct pmc_metric *metric(const struct pmc_result *r, const char *name, const char *id)
{
	struct pmc_metric *m = pmc_benchmark_find_metric(bench(r, name), id);

	if (!m)
		fail_msg("benchmark '%s' has no metric '%s'", name, id);
	return m;
}

static double sample(const struct pmc_metric *m, size_t i)
{
	double v = NAN;

	assert_int_equal(pmc_metric_sample_at(m, i, &v), 0);
	return v;
}

static void not_measured(const struct pmc_metric *m, size_t i)
{
	double v;

	assert_int_equal(pmc_metric_sample_at(m, i, &v), -ENODATA);
}

static void status_is(const struct pmc_metric *m, size_t i, enum pmc_status want)
{
	enum pmc_status s;

	assert_int_equal(pmc_metric_status(m, i, &s), 0);
	if (s != want)
		fail_msg("%s run %zu: status %s, expected %s", m->id, i, pmc_status_name(s),
			 pmc_status_name(want));
}

/* Every metric of every benchmark has one sample per run. */
static void aligned(const struct pmc_result *r)
{
	for (size_t i = 0; i < r->nbench; i++)
		for (size_t k = 0; k < r->benchmarks[i].nmetrics; k++)
			assert_int_equal(r->benchmarks[i].metrics[k].n, r->benchmarks[i].nruns);
}

static void from(const struct pmc_result *r, const char *backend, const char *format)
{
	assert_string_equal(pmc_result_backend(r), backend);
	assert_string_equal(pmc_result_get_env(r, PMC_IMPORT_ENV_KEY), format);
	aligned(r);
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = malloc(1 << 20);

	assert_non_null(f);
	assert_non_null(buf);
	*len = fread(buf, 1, (1 << 20) - 1, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	assert_int_equal(fclose(f), 0);
}

/* ---- Telling formats apart --------------------------------------------------------- */

static void the_format_is_told_by_content(void **state)
{
	static const struct {
		const char *file;
		enum pmc_import_format f;
	} files[] = {
	    {"gbench_a.json", PMC_IMPORT_GBENCH},
	    {"gbench_b.json", PMC_IMPORT_GBENCH},
	    {"gbench_aggregates.json", PMC_IMPORT_GBENCH},
	    {"hyperfine_a.json", PMC_IMPORT_HYPERFINE},
	    {"memory_hyperfine.json", PMC_IMPORT_HYPERFINE},
	    {"perf_a.csv", PMC_IMPORT_PERF_STAT_CSV},
	    {"perf_one.csv", PMC_IMPORT_PERF_STAT_CSV},
	    {"perf_r3.csv", PMC_IMPORT_PERF_STAT_CSV},
	    {"perf_not_counted.csv", PMC_IMPORT_PERF_STAT_CSV},
	    {"bad_perf_per_cpu.csv", PMC_IMPORT_PERF_STAT_CSV},
	    {"perf_a.json", PMC_IMPORT_PERF_STAT_JSON},
	    {"perf_one.json", PMC_IMPORT_PERF_STAT_JSON},
	    {"go_a.txt", PMC_IMPORT_GO},
	};
	static const char *const pmcbench[] = {
	    "{\"schema\":\"pmcbench-result/1\",\"backend\":\"perf\",\"benchmarks\":[]}",
	    /* jq -S: the benchmarks before the schema */
	    ("{\"backend\":\"perf\",\"benchmarks\":[{\"name\":\"x\",\"runs\":[],\"metrics\":{}}],"
	     "\"schema\":\"pmcbench-result/1\"}"),
	    /* not a format at all: the loader says what is wrong */
	    "",
	    "hello\n",
	    "[1, 2]",
	    "{\"benchmarks\": 3}",
	};

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char path[512];
		size_t len;
		char *text;

		snprintf(path, sizeof(path), DATA "%s", files[i].file);
		text = read_file(path, &len);
		if (pmc_import_sniff(text, len) != files[i].f)
			fail_msg("%s: told %s, expected %s", files[i].file,
				 pmc_import_format_id(pmc_import_sniff(text, len)),
				 pmc_import_format_id(files[i].f));
		free(text);
	}
	for (size_t i = 0; i < ARRAY_SIZE(pmcbench); i++)
		assert_int_equal(pmc_import_sniff(pmcbench[i], strlen(pmcbench[i])),
				 PMC_IMPORT_PMCBENCH);
}

/* The name of a file says nothing: a pmcbench result named .csv loads as one, Google
 * Benchmark's JSON named .txt as Google Benchmark's. */
static void the_file_name_says_nothing(void **state)
{
	struct pmc_result *r = t_result("perf"), *back;
	double v[] = {1, 2, 3};
	char path[128], err[512] = "", *text;
	size_t len;

	struct pmc_benchmark *b = t_bench(r, "sort", "./sort");

	for (size_t i = 0; i < 3; i++)
		assert_int_equal(pmc_benchmark_record_run(b, 0, 0, false), 0);
	put_values(r, "sort", "wall-time", v, 3);
	snprintf(path, sizeof(path), "%s/result.csv", tmpdir);
	assert_int_equal(pmc_result_save(r, path, err, sizeof(err)), 0);
	back = load(path);
	assert_null(pmc_result_get_env(back, PMC_IMPORT_ENV_KEY));
	assert_string_equal(pmc_result_backend(back), "perf");
	assert_int_equal(pmc_benchmark_run_count(bench(back, "sort")), 3);
	assert_close(sample(metric(back, "sort", "wall-time"), 2), 3, 0);
	pmc_result_free(back);
	pmc_result_free(r);

	text = read_file(DATA "gbench_one.json", &len);
	snprintf(path, sizeof(path), "%s/gbench.txt", tmpdir);
	write_file(path, text);
	free(text);
	back = load(path);
	from(back, "google-benchmark", "google-benchmark");
	pmc_result_free(back);
}

/* pmcbench's own files keep the loader's messages. */
static void pmcbench_files_keep_their_messages(void **state)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/empty.json", tmpdir);
	write_file(path, "");
	refused(path, "empty file", NULL);
	snprintf(path, sizeof(path), "%s/text.json", tmpdir);
	write_file(path, "hello\n");
	refused(path, ":1:", "not valid JSON", NULL);
	snprintf(path, sizeof(path), "%s/noschema.json", tmpdir);
	write_file(path, "{\"benchmarks\": []}");
	refused(path, "schema", NULL);
	refused(tmpdir, "is a directory", NULL);
}

/* A pipe is read once: its text is sniffed and loaded from memory. */
static void a_pipe_is_read_once(void **state)
{
	char path[128], cmd[512];
	struct pmc_result *r;

	snprintf(path, sizeof(path), "%s/fifo", tmpdir);
	assert_int_equal(mkfifo(path, 0600), 0);
	snprintf(cmd, sizeof(cmd), "cat %s > %s &", DATA "hyperfine_a.json", path);
	assert_int_equal(system(cmd), 0);
	r = load(path);
	from(r, "hyperfine", "hyperfine");
	assert_int_equal(pmc_benchmark_run_count(bench(r, "true")), 5);
	pmc_result_free(r);
}

/* ---- Google Benchmark ------------------------------------------------------------ */

/* --benchmark_repetitions=5 --benchmark_format=json: each repetition is a run, the
 * aggregates after them are not; times per iteration in ns, the throughputs and the user
 * counters as metrics. */
static void gbench_repetitions_are_runs(void **state)
{
	struct pmc_result *r = load(DATA "gbench_a.json");
	static const char *const ids[] = {"wall-time/op", "cpu-time/op", "bytes/s",
					  "items/s",	  "rate",	 "widgets"};
	struct pmc_benchmark *b;
	struct pmc_metric *m;

	from(r, "google-benchmark", "google-benchmark");
	assert_string_equal(r->created, "2026-11-24T18:10:41Z");
	assert_string_equal(pmc_result_get_env(r, "hostname"), "vm");
	assert_string_equal(pmc_result_get_env(r, "cpus"), "2");
	assert_int_equal(pmc_result_benchmark_count(r), 3);
	assert_string_equal(pmc_result_benchmark_at(r, 0)->name, "BM_sum/64");
	assert_string_equal(pmc_result_benchmark_at(r, 1)->name, "BM_nan");
	assert_string_equal(pmc_result_benchmark_at(r, 2)->name, "BM_fail");
	b = bench(r, "BM_sum/64");
	assert_int_equal(b->nruns, 5);
	assert_null(b->command);
	assert_int_equal(b->nmetrics, ARRAY_SIZE(ids));
	for (size_t i = 0; i < ARRAY_SIZE(ids); i++)
		assert_string_equal(b->metrics[i].id, ids[i]);
	m = metric(r, "BM_sum/64", "wall-time/op");
	assert_string_equal(m->unit, "ns");
	assert_close(sample(m, 0), 21.328026483671213, 1e-15);
	assert_close(sample(m, 1), 79.835887834534716, 1e-15);
	assert_close(sample(m, 4), 19.882752524660365, 1e-15);
	assert_false(m->has_status);
	assert_close(sample(metric(r, "BM_sum/64", "cpu-time/op"), 1), 26.526459492969636, 1e-15);
	m = metric(r, "BM_sum/64", "items/s");
	assert_string_equal(m->unit, "items/s");
	assert_int_equal(m->better, PMC_HIGHER_IS_BETTER);
	assert_close(sample(m, 0), 2999779905.0871606, 1e-15);
	/* A user counter: its unit and direction are not in the file. */
	m = metric(r, "BM_sum/64", "widgets");
	assert_string_equal(m->unit, "count");
	assert_int_equal(m->better, PMC_NO_DIRECTION);
	assert_close(sample(m, 3), 75814, 0);
	assert_close(sample(metric(r, "BM_sum/64", "rate"), 0), 46871561.016986884, 1e-15);
	pmc_result_free(r);
}

/* --benchmark_out=FILE writes the same document; one repetition is one run. */
static void gbench_out_file_and_one_repetition(void **state)
{
	struct pmc_result *r = load(DATA "gbench_b.json");

	from(r, "google-benchmark", "google-benchmark");
	assert_int_equal(bench(r, "BM_sum/64")->nruns, 5);
	assert_close(sample(metric(r, "BM_sum/64", "wall-time/op"), 0), 19.521484341107524, 1e-15);
	pmc_result_free(r);
	r = load(DATA "gbench_one.json");
	assert_int_equal(pmc_result_benchmark_count(r), 1);
	assert_int_equal(bench(r, "BM_sum/64")->nruns, 1);
	pmc_result_free(r);
}

/* Counters Google Benchmark writes as bare NaN, Infinity and -Infinity were not measured:
 * never a number. */
static void gbench_nonfinite_counters_are_not_measured(void **state)
{
	struct pmc_result *r = load(DATA "gbench_a.json");
	static const char *const ids[] = {"big", "ratio", "small"};

	for (size_t k = 0; k < ARRAY_SIZE(ids); k++)
		for (size_t i = 0; i < 5; i++)
			not_measured(metric(r, "BM_nan", ids[k]), i);
	assert_close(sample(metric(r, "BM_nan", "wall-time/op"), 0), 2.5020398355380071, 1e-15);
	pmc_result_free(r);
}

/* Only the bare words are rewritten: inside strings they are text. */
static void gbench_nonfinite_words_in_strings_stay(void **state)
{
	static const char text[] =
	    "{\"benchmarks\": [{\"name\": \"BM_NaN/Infinity\", \"run_type\": \"iteration\", "
	    "\"label\": \"-Infinity NaN\", \"time_unit\": \"us\", \"real_time\": 1.5, "
	    "\"cpu_time\": 1.25, \"c\\\"NaN\": NaN, \"d\": -Infinity}]}";
	struct pmc_result *r = NULL;
	char err[512] = "";

	assert_int_equal(pmc_import_gbench("t.json", text, strlen(text), &r, err, sizeof(err)), 0);
	assert_close(sample(metric(r, "BM_NaN/Infinity", "wall-time/op"), 0), 1500, 1e-15);
	assert_close(sample(metric(r, "BM_NaN/Infinity", "cpu-time/op"), 0), 1250, 1e-15);
	not_measured(metric(r, "BM_NaN/Infinity", "c\"NaN"), 0);
	not_measured(metric(r, "BM_NaN/Infinity", "d"), 0);
	pmc_result_free(r);
}

/* A syntax error after a NaN has the column of the file as written. */
static void gbench_syntax_errors_have_the_files_column(void **state)
{
	static const char with_nan[] = "{\"benchmarks\": [{\"x\": NaN, \"y\": NaN 2}]}";
	static const char same_len[] = "{\"benchmarks\": [{\"x\": 0.0, \"y\": 0.0 2}]}";
	char err[512] = "", want[512] = "";
	struct pmc_result *r = NULL;

	assert_int_equal(
	    pmc_import_gbench("t.json", with_nan, strlen(with_nan), &r, err, sizeof(err)), -EINVAL);
	assert_int_equal(
	    pmc_import_gbench("t.json", same_len, strlen(same_len), &r, want, sizeof(want)),
	    -EINVAL);
	assert_null(r);
	*strstr(err, " near") = '\0';
	*strstr(want, " near") = '\0';
	assert_string_equal(err, want);
	assert_contains(err, "t.json:1:");
}

/* A repetition that reported an error is a failed run without values; the message is the
 * note of the benchmark's metrics. */
static void gbench_errors_are_failed_runs(void **state)
{
	struct pmc_result *r = load(DATA "gbench_a.json");
	struct pmc_benchmark *b = bench(r, "BM_fail");
	int code;

	assert_int_equal(b->nruns, 5);
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(pmc_benchmark_run_at(b, i, &code, NULL, NULL), 0);
		assert_int_equal(code, 1);
		not_measured(metric(r, "BM_fail", "wall-time/op"), i);
		not_measured(metric(r, "BM_fail", "cpu-time/op"), i);
	}
	assert_string_equal(metric(r, "BM_fail", "wall-time/op")->note,
			    "5 of 5 repetitions reported an error: no input file");
	assert_int_equal(pmc_benchmark_run_at(bench(r, "BM_sum/64"), 0, &code, NULL, NULL), 0);
	assert_int_equal(code, 0);
	pmc_result_free(r);
}

/* --benchmark_report_aggregates_only: means and medians alone cannot be tested. */
static void gbench_aggregates_alone_are_refused(void **state)
{
	refused(DATA "gbench_aggregates.json", "benchmarks[0]", "'BM_sum/64'", "only aggregates",
		"cannot be tested", "--benchmark_report_aggregates_only", NULL);
}

/* Google Benchmark 1.8's SkipWithMessage: a benchmark skipped on every repetition did not
 * run; times in us become ns; the date becomes UTC. */
static void gbench_skipped_benchmarks_and_units(void **state)
{
	struct pmc_result *r = load(DATA "skipped_gbench.json");
	struct pmc_benchmark *b = bench(r, "BM_avx2");

	from(r, "google-benchmark", "google-benchmark");
	assert_string_equal(r->created, "2026-11-24T18:10:41Z");
	assert_string_equal(pmc_benchmark_skipped(b), "no AVX2 on this CPU");
	assert_int_equal(b->nruns, 0);
	assert_int_equal(b->nmetrics, 0);
	b = bench(r, "BM_copy/4096");
	assert_int_equal(b->nruns, 2);
	assert_close(sample(metric(r, "BM_copy/4096", "wall-time/op"), 0), 1500, 1e-15);
	assert_close(sample(metric(r, "BM_copy/4096", "cpu-time/op"), 1), 1500, 1e-15);
	pmc_result_free(r);
}

static void gbench_malformed_files_are_refused(void **state)
{
	refused(DATA "bad_gbench_truncated.json", ":212:", "truncated", "--benchmark_out", NULL);
	refused(DATA "bad_gbench_string.json", "benchmarks[1].real_time",
		"expected a number, found a string", "--benchmark_out", NULL);
	refused(DATA "bad_gbench_unit.json", "benchmarks[0].time_unit", "\"ps\"", "ns, us, ms or s",
		NULL);
}

/* ---- hyperfine ----------------------------------------------------------------------- */

/* hyperfine -N --runs 5 --export-json: a benchmark per command, a run per time (s -> ns);
 * hyperfine 1.15 writes user and system as means only, which are left out. */
static void hyperfine_times_are_runs(void **state)
{
	struct pmc_result *r = load(DATA "hyperfine_a.json");
	struct pmc_benchmark *b = bench(r, "true");
	struct pmc_metric *m;
	int code;

	from(r, "hyperfine", "hyperfine");
	assert_null(r->created);
	assert_int_equal(pmc_result_benchmark_count(r), 2);
	assert_int_equal(b->nruns, 5);
	assert_null(b->command);
	assert_int_equal(b->nmetrics, 1);
	m = metric(r, "true", "wall-time");
	assert_string_equal(m->unit, "ns");
	assert_close(sample(m, 0), 882787, 1e-12);
	assert_close(sample(m, 4), 593659, 1e-12);
	assert_close(sample(metric(r, "sleep 0.01", "wall-time"), 2), 16180859, 1e-12);
	assert_null(pmc_benchmark_find_metric(b, "user-time"));
	assert_int_equal(pmc_benchmark_run_at(b, 3, &code, NULL, NULL), 0);
	assert_int_equal(code, 0);
	pmc_result_free(r);

	r = load(DATA "hyperfine_named.json");
	assert_int_equal(bench(r, "fast")->nruns, 3);
	assert_close(sample(metric(r, "fast", "wall-time"), 1), 2001792, 1e-12);
	pmc_result_free(r);

	r = load(DATA "hyperfine_failing.json");
	b = bench(r, "false");
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(pmc_benchmark_run_at(b, i, &code, NULL, NULL), 0);
		assert_int_equal(code, 1);
	}
	pmc_result_free(r);
}

/* Newer hyperfine: memory_usage_byte per run (max-rss), null for a command killed by a
 * signal; user and system as arrays are per run. */
static void hyperfine_memory_and_signals(void **state)
{
	struct pmc_result *r = load(DATA "memory_hyperfine.json");
	struct pmc_benchmark *b = bench(r, "./prog --big");
	int code, sig;

	from(r, "hyperfine", "hyperfine");
	assert_int_equal(b->nruns, 3);
	assert_string_equal(metric(r, "./prog --big", "max-rss")->unit, "bytes");
	assert_close(sample(metric(r, "./prog --big", "max-rss"), 1), 1957888, 0);
	assert_close(sample(metric(r, "./prog --big", "user-time"), 2), 2.5e6, 1e-12);
	assert_close(sample(metric(r, "./prog --big", "system-time"), 1), 0, 0);
	assert_int_equal(pmc_benchmark_run_at(b, 1, &code, &sig, NULL), 0);
	assert_int_equal(code, -1);
	assert_int_equal(sig, 0);
	pmc_result_free(r);
}

static void hyperfine_malformed_files_are_refused(void **state)
{
	refused(DATA "bad_hyperfine_length.json", "results[0].exit_codes", "3 entries for 5 runs",
		"--export-json", NULL);
	refused(DATA "bad_hyperfine_no_times.json", "results[1]", "no \"times\"",
		"cannot be tested", NULL);
}

static void hyperfine_duplicate_commands_are_refused(void **state)
{
	static const char text[] = "{\"results\": [{\"command\": \"true\", \"times\": [0.1]}, "
				   "{\"command\": \"true\", \"times\": [0.2]}]}";
	struct pmc_result *r = NULL;
	char err[512] = "";

	assert_int_equal(pmc_import_hyperfine("h.json", text, strlen(text), &r, err, sizeof(err)),
			 -EINVAL);
	assert_contains(err, "h.json: results[1].command: 'true' appears twice");
	assert_contains(err, "--command-name");
}

/* hyperfine's "parameters" (-L, -P) become the benchmark's, as run -L records them. */
static void hyperfine_parameters_are_kept(void **state)
{
	static const char text[] =
	    "{\"results\": [{\"command\": \"sort -k1\", \"times\": [0.1], "
	    "\"parameters\": {\"n\": \"1\", \"m\": \"x\"}}, {\"command\": \"sort -k2\", "
	    "\"times\": [0.2], \"parameters\": {\"n\": 2}}]}";
	struct pmc_result *r = NULL;
	struct pmc_benchmark *b;
	char err[512] = "";

	assert_int_equal(pmc_import_hyperfine("h.json", text, strlen(text), &r, err, sizeof(err)),
			 -EINVAL);
	assert_contains(err, "h.json: results[1].parameters: expected a name and a string value");
	/* The first result alone. */
	{
		char ok[512];
		size_t n = (size_t)(strstr(text, ", {\"command\": \"sort -k2") - text);

		memcpy(ok, text, n);
		strcpy(ok + n, "]}");
		assert_int_equal(
		    pmc_import_hyperfine("h.json", ok, strlen(ok), &r, err, sizeof(err)), 0);
	}
	b = bench(r, "sort -k1");
	assert_int_equal(b->nparams, 2);
	assert_string_equal(b->params[0].key, "n");
	assert_string_equal(b->params[0].value, "1");
	assert_string_equal(b->params[1].key, "m");
	assert_string_equal(b->params[1].value, "x");
	pmc_result_free(r);
}

/* ---- perf stat ------------------------------------------------------------------------ */

/* perf stat -x, --append -o FILE, five times: five runs of one benchmark; msec become ns;
 * an event this VM cannot count is unsupported in every run, never 0. */
static void perf_stat_csv_blocks_are_runs(void **state)
{
	struct pmc_result *r = load(DATA "perf_a.csv");
	static const char *const ids[] = {"task-clock", "page-faults", "cycles"};
	struct pmc_benchmark *b = bench(r, "perf stat");
	struct pmc_metric *m;

	from(r, "perf", "perf-stat-csv");
	assert_int_equal(pmc_result_benchmark_count(r), 1);
	assert_int_equal(b->nruns, 5);
	assert_int_equal(b->nmetrics, 3);
	for (size_t i = 0; i < 3; i++)
		assert_string_equal(b->metrics[i].id, ids[i]);
	m = metric(r, "perf stat", "task-clock");
	assert_string_equal(m->unit, "ns");
	assert_close(sample(m, 0), 550000, 0);
	assert_close(sample(m, 1), 460000, 0);
	status_is(m, 0, PMC_STATUS_COUNTED);
	assert_int_equal(m->raw[0].running, 546589);
	assert_int_equal(m->raw[0].enabled, 546589);
	m = metric(r, "perf stat", "page-faults");
	assert_string_equal(m->unit, "count");
	assert_close(sample(m, 0), 50, 0);
	m = metric(r, "perf stat", "cycles");
	for (size_t i = 0; i < 5; i++) {
		not_measured(m, i);
		status_is(m, i, PMC_STATUS_UNSUPPORTED);
	}
	pmc_result_free(r);

	r = load(DATA "perf_one.csv");
	assert_int_equal(bench(r, "perf stat")->nruns, 1);
	assert_close(sample(metric(r, "perf stat", "task-clock"), 0), 490000, 0);
	pmc_result_free(r);
}

/* perf stat -j: the same, with six decimals of msec (whole ns). */
static void perf_stat_json_lines_are_runs(void **state)
{
	struct pmc_result *r = load(DATA "perf_a.json");
	struct pmc_metric *m;

	from(r, "perf", "perf-stat-json");
	assert_int_equal(bench(r, "perf stat")->nruns, 5);
	m = metric(r, "perf stat", "task-clock");
	assert_close(sample(m, 0), 466621, 0);
	status_is(m, 0, PMC_STATUS_COUNTED);
	status_is(metric(r, "perf stat", "cycles"), 4, PMC_STATUS_UNSUPPORTED);
	pmc_result_free(r);

	r = load(DATA "perf_one.json");
	assert_int_equal(bench(r, "perf stat")->nruns, 1);
	assert_close(sample(metric(r, "perf stat", "task-clock"), 0), 435124, 0);
	assert_close(sample(metric(r, "perf stat", "page-faults"), 0), 49, 0);
	pmc_result_free(r);
}

/* perf stat -r N prints means and a variance column: refused, with the way to record each
 * run. */
static void perf_stat_summaries_are_refused(void **state)
{
	refused(DATA "perf_r3.csv", ":1:", "perf stat -r", "mean", "cannot be tested", "--append",
		"without -r", NULL);
	refused(DATA "perf_r3.json", ":1:", "perf stat -r", "cannot be tested", "-j --append",
		NULL);
}

/* perf stat -D 100 true: the command ended before counting began. */
static void perf_stat_not_counted_is_no_number(void **state)
{
	struct pmc_result *r = load(DATA "perf_not_counted.csv");

	status_is(metric(r, "perf stat", "task-clock"), 0, PMC_STATUS_NOT_COUNTED);
	status_is(metric(r, "perf stat", "page-faults"), 0, PMC_STATUS_NOT_COUNTED);
	status_is(metric(r, "perf stat", "cycles"), 0, PMC_STATUS_UNSUPPORTED);
	not_measured(metric(r, "perf stat", "task-clock"), 0);
	not_measured(metric(r, "perf stat", "page-faults"), 0);
	pmc_result_free(r);
}

/* perf's tool events are pmcbench's times; aliases take their canonical names. */
static void perf_stat_tool_events_and_aliases(void **state)
{
	struct pmc_result *r = load(DATA "perf_tools.csv");

	assert_close(sample(metric(r, "perf stat", "wall-time"), 0), 902536, 0);
	assert_close(sample(metric(r, "perf stat", "user-time"), 0), 963000, 0);
	status_is(metric(r, "perf stat", "system-time"), 0, PMC_STATUS_NOT_COUNTED);
	assert_close(sample(metric(r, "perf stat", "page-faults"), 0), 48, 0);
	assert_null(pmc_benchmark_find_metric(bench(r, "perf stat"), "faults"));
	assert_close(sample(metric(r, "perf stat", "task-clock"), 0), 470000, 0);
	pmc_result_free(r);
}

/* A multiplexed count: the sample is what perf printed, the raw times keep the running
 * fraction for compare's warning. */
static void perf_stat_scaled_counts(void **state)
{
	struct pmc_result *r = load(DATA "scaled_perf.csv");
	struct pmc_metric *m = metric(r, "perf stat", "instructions");

	assert_int_equal(bench(r, "perf stat")->nruns, 2);
	status_is(m, 0, PMC_STATUS_SCALED);
	assert_close(sample(m, 0), 1203400, 0);
	assert_close(sample(m, 1), 1198000, 0);
	assert_close((double)m->raw[0].running / (double)m->raw[0].enabled, 0.5, 1e-6);
	assert_close((double)m->raw[1].running / (double)m->raw[1].enabled, 0.25, 1e-6);
	status_is(metric(r, "perf stat", "task-clock"), 1, PMC_STATUS_COUNTED);
	pmc_result_free(r);
}

static void perf_stat_malformed_files_are_refused(void **state)
{
	static const char interval[] =
	    "     1.001069893,0.53,msec,task-clock,530000,100.00,0.530,CPUs utilized\n";
	static const char unit[] = "12,msec,page-faults,1000,100.00,,\n";
	static const char few[] = "12,,page-faults,1000\n";
	/* A unit is printed after every value: one with a control character is refused. */
	static const char esc[] = "12,J\033]0;x\007,power/energy-pkg/,1000,100.00,,\n";
	struct pmc_result *r = NULL;
	char err[512] = "";

	refused(DATA "bad_perf_missing_event.csv", ":10:", "run 2 has no count of 'page-faults'",
		"same events", NULL);
	refused(DATA "bad_perf_value.csv", ":2:", "'5x0' is not a count", "perf stat -x,", NULL);
	refused(DATA "bad_perf_per_cpu.csv", ":1:", "'CPU0'", "per-CPU", NULL);
	assert_int_equal(
	    pmc_import_perf_stat_csv("i.csv", interval, strlen(interval), &r, err, sizeof(err)),
	    -EINVAL);
	assert_contains(err, "i.csv:1: '0.53' where the unit belongs: interval output (-I)");
	assert_int_equal(
	    pmc_import_perf_stat_csv("u.csv", unit, strlen(unit), &r, err, sizeof(err)), -EINVAL);
	assert_contains(err, "u.csv:1: 'page-faults' is in 'msec', but pmcbench's page-faults is "
			     "in count");
	assert_int_equal(pmc_import_perf_stat_csv("f.csv", few, strlen(few), &r, err, sizeof(err)),
			 -EINVAL);
	assert_contains(err, "f.csv:1: 4 fields");
	assert_int_equal(pmc_import_perf_stat_csv("e.csv", esc, strlen(esc), &r, err, sizeof(err)),
			 -EINVAL);
	assert_contains(err, "e.csv:1: the unit of 'power/energy-pkg/' holds a control character");
	assert_null(r);
}

/* ---- Go --------------------------------------------------------------------------------- */

/* Each result line is a run; ns/op is wall-time/op, MB/s bytes/s, B/op and allocs/op keep
 * their names, a custom unit is its own id with the direction its Unit line gives. */
/* 100,000 runs of one benchmark and 2,000 benchmarks import with every sample in its
 * place: the arrays that grow per line grow geometrically. */
static void go_many_runs_and_benchmarks(void **state)
{
	size_t cap = 8 << 20, len = 0;
	char *text = malloc(cap), err[512] = "";
	struct pmc_result *r = NULL;
	const struct pmc_metric *m;

	(void)state;
	assert_non_null(text);
	len += (size_t)snprintf(text + len, cap - len, "goos: linux\npkg: x\n");
	for (size_t i = 0; i < 100000; i++)
		len += (size_t)snprintf(text + len, cap - len, "BenchmarkA-2 1000 %zu ns/op\n",
					1000 + i % 97);
	for (size_t i = 0; i < 2000; i++)
		len += (size_t)snprintf(text + len, cap - len, "BenchmarkB%zu-2 10 %zu ns/op\n", i,
					5 + i);
	assert_true(len < cap);
	if (pmc_import_go("many.txt", text, len, &r, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	assert_int_equal(pmc_result_benchmark_count(r), 2001);
	assert_int_equal(bench(r, "BenchmarkA-2")->nruns, 100000);
	m = metric(r, "BenchmarkA-2", "wall-time/op");
	for (size_t i = 0; i < 100000; i += 4999)
		assert_close(sample(m, i), 1000 + i % 97, 0);
	assert_close(sample(metric(r, "BenchmarkB1999-2", "wall-time/op"), 0), 2004, 0);
	pmc_result_free(r);
	free(text);
}

static void go_result_lines_are_runs(void **state)
{
	struct pmc_result *r = load(DATA "go_a.txt");
	static const char *const ids[] = {"wall-time/op", "bytes/s", "B/op", "allocs/op"};
	struct pmc_benchmark *b = bench(r, "BenchmarkSum/n=64-2");
	struct pmc_metric *m;

	from(r, "go", "go-bench");
	assert_string_equal(pmc_result_get_env(r, "cpu-model"), "AMD EPYC 7B13");
	assert_string_equal(pmc_result_get_env(r, "goos"), "linux");
	assert_string_equal(pmc_result_get_env(r, "goarch"), "amd64");
	assert_int_equal(pmc_result_benchmark_count(r), 2);
	assert_int_equal(b->nruns, 5);
	assert_int_equal(b->nmetrics, ARRAY_SIZE(ids));
	for (size_t i = 0; i < ARRAY_SIZE(ids); i++)
		assert_string_equal(b->metrics[i].id, ids[i]);
	assert_close(sample(metric(r, "BenchmarkSum/n=64-2", "wall-time/op"), 0), 124.8, 1e-15);
	assert_close(sample(metric(r, "BenchmarkSum/n=64-2", "bytes/s"), 1), 1992.83e6, 1e-15);
	m = metric(r, "BenchmarkParse-2", "B/op");
	assert_string_equal(m->unit, "bytes");
	assert_int_equal(m->better, PMC_LOWER_IS_BETTER);
	assert_close(sample(m, 0), 4096, 0);
	m = metric(r, "BenchmarkParse-2", "allocs/op");
	assert_string_equal(m->unit, "count");
	assert_close(sample(m, 4), 12, 0);
	m = metric(r, "BenchmarkParse-2", "widgets/op");
	assert_int_equal(m->better, PMC_HIGHER_IS_BETTER);
	assert_close(sample(m, 2), 3, 0);
	assert_null(pmc_benchmark_find_metric(b, "widgets/op"));
	pmc_result_free(r);
}

/* Without a Unit line a custom unit has no direction; name-only and FAIL lines and lines
 * that are no part of the format are skipped. */
static void go_custom_units_and_other_lines(void **state)
{
	static const char text[] = "=== RUN   BenchmarkX\n"
				   "BenchmarkX-8\n"
				   "    x_test.go:10: some log\n"
				   "BenchmarkX-8   \t  100\t  5.5 ns/op\t  7 L1-miss/op\n"
				   "BenchmarkY-8   \t--- FAIL: BenchmarkY-8\n"
				   "BenchmarkX-8   \t  100\t  6.5 ns/op\n"
				   "FAIL\n";
	struct pmc_result *r = NULL;
	struct pmc_metric *m;
	char err[512] = "";

	assert_int_equal(pmc_import_sniff(text, strlen(text)), PMC_IMPORT_GO);
	assert_int_equal(pmc_import_go("g.txt", text, strlen(text), &r, err, sizeof(err)), 0);
	assert_int_equal(pmc_result_benchmark_count(r), 1);
	assert_int_equal(bench(r, "BenchmarkX-8")->nruns, 2);
	m = metric(r, "BenchmarkX-8", "L1-miss/op");
	assert_int_equal(m->better, PMC_NO_DIRECTION);
	assert_close(sample(m, 0), 7, 0);
	not_measured(m, 1);
	assert_close(sample(metric(r, "BenchmarkX-8", "wall-time/op"), 1), 6.5, 0);
	pmc_result_free(r);
}

static void go_malformed_files_are_refused(void **state)
{
	static const char none[] = "goos: linux\nPASS\n";
	static const char unit[] = "Unit B/op better=sideways\nBenchmarkX 1 2 B/op\n";
	struct pmc_result *r = NULL;
	char err[512] = "";

	refused(DATA "bad_go_value.txt", ":8:", "'128.0x' (of ns/op) is not a number", NULL);
	refused(DATA "bad_go_fields.txt", ":9:", "9 fields", "<name> <iterations> <value> <unit>",
		NULL);
	refused(DATA "bad_go_packages.txt", ":11:", "example.com/other",
		"give each package a file of its own", NULL);
	assert_int_equal(pmc_import_go("n.txt", none, strlen(none), &r, err, sizeof(err)), -EINVAL);
	assert_contains(err, "n.txt: no result lines");
	assert_int_equal(pmc_import_go("u.txt", unit, strlen(unit), &r, err, sizeof(err)), -EINVAL);
	assert_contains(err, "u.txt:1: 'better=sideways'");
	assert_null(r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(the_format_is_told_by_content),
	    cmocka_unit_test(the_file_name_says_nothing),
	    cmocka_unit_test(pmcbench_files_keep_their_messages),
	    cmocka_unit_test(a_pipe_is_read_once),
	    cmocka_unit_test(gbench_repetitions_are_runs),
	    cmocka_unit_test(gbench_out_file_and_one_repetition),
	    cmocka_unit_test(gbench_nonfinite_counters_are_not_measured),
	    cmocka_unit_test(gbench_nonfinite_words_in_strings_stay),
	    cmocka_unit_test(gbench_syntax_errors_have_the_files_column),
	    cmocka_unit_test(gbench_errors_are_failed_runs),
	    cmocka_unit_test(gbench_aggregates_alone_are_refused),
	    cmocka_unit_test(gbench_skipped_benchmarks_and_units),
	    cmocka_unit_test(gbench_malformed_files_are_refused),
	    cmocka_unit_test(hyperfine_times_are_runs),
	    cmocka_unit_test(hyperfine_memory_and_signals),
	    cmocka_unit_test(hyperfine_malformed_files_are_refused),
	    cmocka_unit_test(hyperfine_duplicate_commands_are_refused),
	    cmocka_unit_test(hyperfine_parameters_are_kept),
	    cmocka_unit_test(perf_stat_csv_blocks_are_runs),
	    cmocka_unit_test(perf_stat_json_lines_are_runs),
	    cmocka_unit_test(perf_stat_summaries_are_refused),
	    cmocka_unit_test(perf_stat_not_counted_is_no_number),
	    cmocka_unit_test(perf_stat_tool_events_and_aliases),
	    cmocka_unit_test(perf_stat_scaled_counts),
	    cmocka_unit_test(perf_stat_malformed_files_are_refused),
	    cmocka_unit_test(go_result_lines_are_runs),
	    cmocka_unit_test(go_many_runs_and_benchmarks),
	    cmocka_unit_test(go_custom_units_and_other_lines),
	    cmocka_unit_test(go_malformed_files_are_refused),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}

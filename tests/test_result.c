/* The result model and its JSON file: what is saved loads back exactly, a failed save
 * leaves the old baseline as it was, and every kind of bad file is refused with one
 * line that names the file, the place and the fix. jansson serves as an independent
 * JSON implementation to check the writer and the reader against. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "metrics.h"
#include "result.h"

static char tmpdir[64];

static int setup_dir(void **state)
{
	strcpy(tmpdir, "/tmp/pmc-test-result-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
	char cmd[200];

	snprintf(cmd, sizeof(cmd), "chmod -R u+w %s; rm -rf %s", tmpdir, tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static char *path_in_dir(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	assert_non_null(p);
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

static void write_text(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, len;

	assert_non_null(f);
	len = (size_t)getdelim(&buf, &cap, '\0', f);
	fclose(f);
	assert_true(len != (size_t)-1);
	return buf;
}

/* Entries of dir other than . and .., which after a save must be the target only. */
static size_t count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static struct pmc_reading reading(enum pmc_status st, uint64_t v, uint64_t en, uint64_t run)
{
	struct pmc_reading r = {.status = st, .value = v, .enabled = en, .running = run};

	if (st == PMC_STATUS_UNSUPPORTED)
		r.error = ENOENT;
	if (st == PMC_STATUS_DENIED)
		r.error = EACCES;
	r.scaled = run ? (double)v * (double)en / (double)run : NAN;
	return r;
}

/* A result exercising every part of the schema, with numbers chosen to be hard to
 * print and read back exactly. raw_max puts UINT64_MAX in a raw value, which jansson
 * (signed 64-bit integers) cannot read. */
static struct pmc_result *sample_result(bool raw_max)
{
	static const double hard[] = {
	    0.1,    1.0 / 3.0,		5e-324, 1.7976931348623157e308, 123456789012345678.0,
	    2.5e-8, 9007199254740993.0, 0};
	struct pmc_result *r = pmc_result_new("perf");
	struct pmc_benchmark *b;
	struct pmc_metric *m;
	struct pmc_run_info ok = {.exit_code = 0};
	struct pmc_run_info killed = {.exit_code = -1, .term_signal = 9, .timed_out = true};

	assert_non_null(r);
	assert_int_equal(pmc_result_set_env(r, "kernel", "Linux 6.1.0"), 0);
	assert_int_equal(pmc_result_set_env(r, "quote\"back\\slash", "tab\tnl\nctl\x01 é ✓ 😀"), 0);
	assert_int_equal(pmc_result_set_env(r, "perf_event_paranoid", "2"), 0);

	b = pmc_result_add_benchmark(r, "loop \"1000\"", "pmc-work loop 1000");
	assert_non_null(b);
	b->build_id = strdup("0123456789abcdef0123456789abcdef01234567");
	for (int i = 0; i < 8; i++)
		assert_int_equal(pmc_benchmark_add_run(b, i == 5 ? &killed : &ok), 0);

	m = pmc_benchmark_metric(b, "wall-time");
	for (int i = 0; i < 8; i++)
		assert_int_equal(pmc_metric_append(m, hard[i], NULL), 0);

	m = pmc_benchmark_metric(b, "ipc");
	m->cross_group = true;
	for (int i = 0; i < 8; i++)
		assert_int_equal(pmc_metric_append(m, i == 2 ? NAN : 0.0 - hard[i], NULL), 0);

	m = pmc_benchmark_metric(b, "cycles:u");
	assert_int_equal(pmc_metric_set_note(m, "multiplexed with \"ref-cycles\""), 0);
	for (int i = 0; i < 8; i++) {
		struct pmc_reading rd;

		switch (i % 4) {
		case 0:
			rd = reading(PMC_STATUS_COUNTED, 1000 + (uint64_t)i, 5000, 5000);
			break;
		case 1:
			rd = reading(PMC_STATUS_SCALED, 333, 1000, 3);
			break;
		case 2:
			rd = reading(PMC_STATUS_NOT_COUNTED, 0, 777, 0);
			break;
		default:
			rd = reading(PMC_STATUS_COUNTED, raw_max ? UINT64_MAX : (1ull << 62), 1, 1);
		}
		assert_int_equal(
		    pmc_metric_append(m, pmc_status_has_value(rd.status) ? rd.scaled : NAN, &rd),
		    0);
	}

	m = pmc_benchmark_metric(b, "branches");
	for (int i = 0; i < 8; i++) {
		struct pmc_reading rd = reading(PMC_STATUS_UNSUPPORTED, 0, 0, 0);

		assert_int_equal(pmc_metric_append(m, NAN, &rd), 0);
	}
	assert_int_equal(m->error, ENOENT);
	assert_int_equal(pmc_metric_set_note(m, "no PMU: hardware events need one"), 0);

	b = pmc_result_add_benchmark(r, "valgrind \xff latin-1", NULL);
	assert_non_null(b);
	assert_int_equal(pmc_benchmark_add_run(b, &ok), 0);
	m = pmc_benchmark_metric(b, "instructions");
	m->simulated = true;
	{
		struct pmc_reading rd = reading(PMC_STATUS_EXACT, 123456789, 0, 0);

		assert_int_equal(pmc_metric_append(m, 123456789.0, &rd), 0);
	}
	m = pmc_benchmark_metric(b, "est-cycles");
	m->simulated = true;
	assert_int_equal(pmc_metric_append(m, 4242.0, NULL), 0);
	m = pmc_benchmark_metric(b, "denied-event");
	{
		struct pmc_reading rd = reading(PMC_STATUS_DENIED, 0, 0, 0);

		assert_int_equal(pmc_metric_append(m, NAN, &rd), 0);
		assert_int_equal(m->error, EACCES);
	}

	/* A benchmark that never ran and a benchmark without metrics are valid too. */
	assert_non_null(pmc_result_add_benchmark(r, "empty", NULL));
	return r;
}

/* The stray Latin-1 byte in a name is the one thing saved differently: as U+FFFD. */
static void as_saved(struct pmc_result *a)
{
	free(a->benchmarks[1].name);
	a->benchmarks[1].name = strdup("valgrind \xef\xbf\xbd latin-1");
}

static void assert_same_double(double a, double b, const char *what, size_t i)
{
	if (isnan(a) && isnan(b))
		return;
	if (memcmp(&a, &b, sizeof(a)) != 0)
		fail_msg("%s[%zu]: %.17g != %.17g", what, i, a, b);
}

static void assert_results_equal(const struct pmc_result *a, const struct pmc_result *b)
{
	assert_string_equal(a->backend, b->backend);
	assert_string_equal(a->tool_version, b->tool_version);
	assert_string_equal(a->created, b->created);
	/* In any order: jq -S sorts them. The round trip compares the text as well. */
	assert_int_equal(a->nenv, b->nenv);
	for (size_t i = 0; i < a->nenv; i++) {
		const char *v = pmc_result_get_env(b, a->env[i].key);

		assert_non_null(v);
		assert_string_equal(a->env[i].value, v);
	}
	assert_int_equal(a->nbench, b->nbench);
	for (size_t i = 0; i < a->nbench; i++) {
		const struct pmc_benchmark *x = &a->benchmarks[i], *y = &b->benchmarks[i];

		assert_string_equal(x->name, y->name);
		if (x->command || y->command)
			assert_string_equal(x->command, y->command);
		if (x->build_id || y->build_id)
			assert_string_equal(x->build_id, y->build_id);
		assert_int_equal(x->nruns, y->nruns);
		for (size_t k = 0; k < x->nruns; k++) {
			assert_int_equal(x->runs[k].exit_code, y->runs[k].exit_code);
			assert_int_equal(x->runs[k].term_signal, y->runs[k].term_signal);
			assert_int_equal(x->runs[k].timed_out, y->runs[k].timed_out);
		}
		assert_int_equal(x->nmetrics, y->nmetrics);
		for (size_t j = 0; j < x->nmetrics; j++) {
			const struct pmc_metric *p = &x->metrics[j];
			const struct pmc_metric *q = pmc_benchmark_find_metric(y, p->id);

			assert_non_null(q);
			assert_string_equal(p->unit, q->unit);
			assert_int_equal(p->better, q->better);
			assert_int_equal(p->derived, q->derived);
			assert_int_equal(p->simulated, q->simulated);
			assert_int_equal(p->cross_group, q->cross_group);
			assert_int_equal(p->error, q->error);
			if (p->note || q->note)
				assert_string_equal(p->note, q->note);
			assert_int_equal(p->n, q->n);
			assert_int_equal(p->has_status, q->has_status);
			for (size_t k = 0; k < p->n; k++) {
				assert_same_double(p->values[k], q->values[k], p->id, k);
				if (!p->has_status)
					continue;
				assert_int_equal(p->status[k], q->status[k]);
				assert_int_equal(p->raw[k].value, q->raw[k].value);
				assert_int_equal(p->raw[k].enabled, q->raw[k].enabled);
				assert_int_equal(p->raw[k].running, q->raw[k].running);
			}
		}
	}
}

/* ---- The model ----------------------------------------------------------------- */

static void new_result_has_version_and_time(void **state)
{
	struct pmc_result *r = pmc_result_new("valgrind");
	unsigned y, mo, d, h, mi, s;
	char z;

	assert_non_null(r);
	assert_string_equal(r->backend, "valgrind");
	assert_non_null(r->tool_version);
	assert_int_equal(
	    sscanf(r->created, "%4u-%2u-%2uT%2u:%2u:%2u%c", &y, &mo, &d, &h, &mi, &s, &z), 7);
	assert_int_equal(z, 'Z');
	assert_int_equal(strlen(r->created), 20);
	pmc_result_free(r);
	assert_null(pmc_result_new(NULL));
	assert_int_equal(errno, EINVAL);
	pmc_result_free(NULL);
}

static void env_entries_are_set_and_replaced(void **state)
{
	struct pmc_result *r = pmc_result_new("perf");

	assert_int_equal(pmc_result_set_env(r, "kernel", "a"), 0);
	assert_int_equal(pmc_result_set_env(r, "cpus", "2"), 0);
	assert_int_equal(pmc_result_set_env(r, "kernel", "b"), 0);
	assert_int_equal(r->nenv, 2);
	assert_string_equal(pmc_result_get_env(r, "kernel"), "b");
	assert_string_equal(pmc_result_get_env(r, "cpus"), "2");
	assert_null(pmc_result_get_env(r, "governor"));
	assert_int_equal(pmc_result_set_env(r, "", "x"), -EINVAL);
	pmc_result_free(r);
}

/* Names pair benchmarks across files: a second one of the same name is refused, and
 * lookups stay right (and fast, through the index) as the array grows. */
static void benchmarks_are_unique_and_found(void **state)
{
	struct pmc_result *r = pmc_result_new("perf");
	char name[32];

	for (int i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "bench/%d", i);
		assert_non_null(pmc_result_add_benchmark(r, name, i % 2 ? name : NULL));
	}
	assert_int_equal(r->nbench, 3000);
	for (int i = 0; i < 3000; i++) {
		struct pmc_benchmark *b;

		snprintf(name, sizeof(name), "bench/%d", i);
		b = pmc_result_find_benchmark(r, name);
		assert_ptr_equal(b, &r->benchmarks[i]);
		assert_string_equal(b->name, name);
	}
	assert_null(pmc_result_find_benchmark(r, "bench/3000"));
	assert_null(pmc_result_add_benchmark(r, "bench/17", NULL));
	assert_int_equal(errno, EEXIST);
	assert_null(pmc_result_add_benchmark(r, "", NULL));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(r->nbench, 3000);
	pmc_result_free(r);
}

static void metrics_take_unit_and_direction_from_the_table(void **state)
{
	struct pmc_result *r = pmc_result_new("perf");
	struct pmc_benchmark *b = pmc_result_add_benchmark(r, "x", NULL);
	struct pmc_metric *m;

	m = pmc_benchmark_metric(b, "task-clock:u");
	assert_string_equal(m->unit, "ns");
	assert_int_equal(m->better, PMC_LOWER_IS_BETTER);
	m = pmc_benchmark_metric(b, "ipc");
	assert_string_equal(m->unit, "ratio");
	assert_int_equal(m->better, PMC_HIGHER_IS_BETTER);
	assert_true(m->derived);
	m = pmc_benchmark_metric(b, "r01c2");
	assert_string_equal(m->unit, "count");
	assert_false(m->derived);
	assert_int_equal(b->nmetrics, 3);
	/* Finding again does not add. */
	assert_ptr_equal(pmc_benchmark_metric(b, "ipc"), &b->metrics[1]);
	assert_ptr_equal(pmc_benchmark_find_metric(b, "task-clock:u"), &b->metrics[0]);
	assert_null(pmc_benchmark_find_metric(b, "task-clock"));
	assert_int_equal(b->nmetrics, 3);
	pmc_result_free(r);
}

/* A sample that contradicts its reading would put an invented number (or lose a real
 * one) in a baseline. */
static void append_refuses_contradictions(void **state)
{
	struct pmc_result *r = pmc_result_new("perf");
	struct pmc_benchmark *b = pmc_result_add_benchmark(r, "x", NULL);
	struct pmc_metric *c, *w;
	struct pmc_reading counted = reading(PMC_STATUS_COUNTED, 10, 5, 5);
	struct pmc_reading unsup = reading(PMC_STATUS_UNSUPPORTED, 0, 0, 0);
	struct pmc_reading notc = reading(PMC_STATUS_NOT_COUNTED, 0, 5, 0);
	double out[4];

	/* Adding a metric may move the others: take both pointers after adding both. */
	assert_non_null(pmc_benchmark_metric(b, "cycles"));
	assert_non_null(pmc_benchmark_metric(b, "wall-time"));
	c = pmc_benchmark_find_metric(b, "cycles");
	w = pmc_benchmark_find_metric(b, "wall-time");
	assert_int_equal(pmc_metric_append(c, 0.0, &unsup), -EINVAL);
	assert_int_equal(pmc_metric_append(c, 0.0, &notc), -EINVAL);
	assert_int_equal(pmc_metric_append(c, NAN, &counted), -EINVAL);
	assert_int_equal(pmc_metric_append(c, INFINITY, &counted), -EINVAL);
	assert_int_equal(c->n, 0);
	assert_int_equal(pmc_metric_append(c, 10.0, &counted), 0);
	assert_int_equal(pmc_metric_append(c, 7.0, NULL), -EINVAL);
	assert_int_equal(pmc_metric_append(c, NAN, &notc), 0);
	assert_int_equal(c->n, 2);
	assert_int_equal(c->error, 0);

	assert_int_equal(pmc_metric_append(w, 1e6, NULL), 0);
	assert_int_equal(pmc_metric_append(w, 2e6, &counted), -EINVAL);
	assert_int_equal(pmc_metric_append(w, NAN, NULL), 0);
	assert_int_equal(pmc_metric_append(w, 3e6, NULL), 0);
	assert_int_equal(pmc_metric_append(w, -INFINITY, NULL), -EINVAL);
	assert_int_equal(w->n, 3);
	assert_false(w->has_status);
	assert_int_equal(pmc_metric_present(w, out), 2);
	assert_true(out[0] == 1e6 && out[1] == 3e6);
	pmc_result_free(r);
}

/* The metric's errno stands for every run: it is kept only while all runs failed
 * with it. */
static void metric_error_needs_every_run_to_fail(void **state)
{
	struct pmc_result *r = pmc_result_new("perf");
	struct pmc_benchmark *b = pmc_result_add_benchmark(r, "x", NULL);
	struct pmc_reading unsup = reading(PMC_STATUS_UNSUPPORTED, 0, 0, 0);
	struct pmc_reading counted = reading(PMC_STATUS_COUNTED, 10, 5, 5);
	struct pmc_metric *m, *k;

	assert_non_null(pmc_benchmark_metric(b, "cycles"));
	assert_non_null(pmc_benchmark_metric(b, "instructions"));
	m = pmc_benchmark_find_metric(b, "cycles");
	k = pmc_benchmark_find_metric(b, "instructions");

	for (int i = 0; i < 3; i++)
		assert_int_equal(pmc_metric_append(m, NAN, &unsup), 0);
	assert_int_equal(m->error, ENOENT);
	assert_int_equal(pmc_metric_append(m, 10.0, &counted), 0);
	assert_int_equal(m->error, 0);

	assert_int_equal(pmc_metric_append(k, NAN, &unsup), 0);
	unsup.error = EOPNOTSUPP;
	assert_int_equal(pmc_metric_append(k, NAN, &unsup), 0);
	assert_int_equal(k->error, 0);
	pmc_result_free(r);
}

/* ---- Saving and loading --------------------------------------------------------- */

static void round_trip_is_exact(void **state)
{
	struct pmc_result *a = sample_result(true), *b = NULL;
	char *path = path_in_dir(tmpdir, "round.json");
	char *text1, *text2, err[512] = "";
	int rc;

	rc = pmc_result_save(a, path, err, sizeof(err));
	if (rc)
		fail_msg("save: %d %s", rc, err);
	rc = pmc_result_load(path, &b, err, sizeof(err));
	if (rc)
		fail_msg("load: %d %s", rc, err);
	assert_string_equal(b->benchmarks[1].name, "valgrind \xef\xbf\xbd latin-1");
	as_saved(a);
	assert_results_equal(a, b);
	assert_int_equal(b->benchmarks[0].metrics[2].raw[3].value, UINT64_MAX);

	/* Loading and saving again changes nothing, byte for byte. */
	text1 = read_text(path);
	text2 = pmc_result_dumps(b);
	assert_non_null(text2);
	assert_string_equal(text1, text2);
	assert_int_equal(count_entries(tmpdir), 1);

	free(text1);
	free(text2);
	free(path);
	pmc_result_free(a);
	pmc_result_free(b);
}

/* jansson, an independent parser, reads the same numbers and strings from the text
 * our writer produced: the writer's escaping and number formatting are right. */
static void writer_output_reads_the_same_in_jansson(void **state)
{
	struct pmc_result *a = sample_result(false);
	char *text = pmc_result_dumps(a);
	json_error_t jerr;
	json_t *root, *bench, *m, *v;
	size_t i;

	assert_non_null(text);
	root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		fail_msg("jansson: %d:%d: %s", jerr.line, jerr.column, jerr.text);
	assert_string_equal(json_string_value(json_object_get(root, "schema")),
			    "pmcbench-result/1");
	assert_string_equal(json_string_value(json_object_get(json_object_get(root, "environment"),
							      "quote\"back\\slash")),
			    "tab\tnl\nctl\x01 é ✓ 😀");
	bench = json_array_get(json_object_get(root, "benchmarks"), 0);
	assert_string_equal(json_string_value(json_object_get(bench, "name")), "loop \"1000\"");

	m = json_object_get(json_object_get(bench, "metrics"), "wall-time");
	json_array_foreach(json_object_get(m, "samples"), i, v) assert_same_double(
	    json_number_value(v), a->benchmarks[0].metrics[0].values[i], "wall-time", i);
	assert_null(json_object_get(m, "status"));

	m = json_object_get(json_object_get(bench, "metrics"), "ipc");
	assert_true(json_is_null(json_array_get(json_object_get(m, "samples"), 2)));
	assert_true(json_is_true(json_object_get(m, "cross_group")));
	assert_string_equal(json_string_value(json_object_get(m, "better")), "higher");

	m = json_object_get(json_object_get(bench, "metrics"), "cycles:u");
	json_array_foreach(json_object_get(m, "raw"), i, v)
	{
		const struct pmc_run_raw *raw = &a->benchmarks[0].metrics[2].raw[i];

		assert_int_equal(json_integer_value(json_array_get(v, 0)), raw->value);
		assert_int_equal(json_integer_value(json_array_get(v, 1)), raw->enabled);
		assert_int_equal(json_integer_value(json_array_get(v, 2)), raw->running);
	}
	assert_string_equal(json_string_value(json_array_get(json_object_get(m, "status"), 1)),
			    "scaled");
	assert_true(json_real_value(json_array_get(json_object_get(m, "running_fraction"), 1)) ==
		    0.003);
	/* A counter that never ran has a reading and a running fraction of 0, but no
	 * sample. */
	v = json_array_get(json_object_get(m, "running_fraction"), 2);
	assert_true(json_is_number(v) && json_number_value(v) == 0);
	assert_true(json_is_null(json_array_get(json_object_get(m, "samples"), 2)));

	m = json_object_get(json_object_get(bench, "metrics"), "branches");
	assert_string_equal(json_string_value(json_object_get(m, "error")), "ENOENT");
	assert_true(json_is_null(json_array_get(json_object_get(m, "raw"), 0)));

	/* A simulated count has no times: null, not 0. */
	bench = json_array_get(json_object_get(root, "benchmarks"), 1);
	m = json_object_get(json_object_get(bench, "metrics"), "instructions");
	v = json_array_get(json_object_get(m, "raw"), 0);
	assert_int_equal(json_integer_value(json_array_get(v, 0)), 123456789);
	assert_true(json_is_null(json_array_get(v, 1)) && json_is_null(json_array_get(v, 2)));
	assert_true(json_is_true(json_object_get(m, "simulated")));
	assert_string_equal(json_string_value(json_array_get(json_object_get(m, "status"), 0)),
			    "exact");

	json_decref(root);
	free(text);
	pmc_result_free(a);
}

/* A document that jansson reads (keys in another order, as jq -S writes them; extra
 * keys a later version may add; CRLF line ends; a byte order mark) loads the same. */
static void reordered_and_extended_documents_load(void **state)
{
	struct pmc_result *a = sample_result(false), *b = NULL;
	char *text = pmc_result_dumps(a), *sorted, *path, err[512] = "";
	json_error_t jerr;
	json_t *root;
	int rc;

	root = json_loads(text, 0, &jerr);
	assert_non_null(root);
	json_object_set_new(root, "future_key", json_pack("{s:[i,i]}", "x", 1, 2));
	json_object_set_new(json_array_get(json_object_get(root, "benchmarks"), 0), "tags",
			    json_string("later"));
	sorted = json_dumps(root, JSON_SORT_KEYS | JSON_INDENT(1) | JSON_REAL_PRECISION(17));
	assert_non_null(sorted);
	assert_true(strstr(sorted, "\"backend\"") < strstr(sorted, "\"schema\""));
	path = path_in_dir(tmpdir, "sorted.json");
	write_text(path, sorted, strlen(sorted));
	rc = pmc_result_load(path, &b, err, sizeof(err));
	if (rc)
		fail_msg("load: %d %s", rc, err);
	as_saved(a);
	assert_results_equal(a, b);
	pmc_result_free(b);
	b = NULL;

	/* With a BOM and CRLF line ends. */
	{
		size_t n = strlen(text), k = 3;
		char *crlf = malloc(2 * n + 4);

		memcpy(crlf, "\xef\xbb\xbf", 3);
		for (size_t i = 0; i < n; i++) {
			if (text[i] == '\n')
				crlf[k++] = '\r';
			crlf[k++] = text[i];
		}
		write_text(path, crlf, k);
		free(crlf);
	}
	rc = pmc_result_load(path, &b, err, sizeof(err));
	if (rc)
		fail_msg("load: %d %s", rc, err);
	assert_results_equal(a, b);

	unlink(path);
	free(path);
	free(sorted);
	free(text);
	json_decref(root);
	pmc_result_free(a);
	pmc_result_free(b);
}

/* A result large enough to be read window by window (over 4 MiB). */
static struct pmc_result *large_result(size_t nbench)
{
	struct pmc_result *r = pmc_result_new("perf");
	char name[32];

	for (size_t i = 0; i < nbench; i++) {
		struct pmc_benchmark *b;

		snprintf(name, sizeof(name), "bench/%05zu", i);
		b = pmc_result_add_benchmark(r, name, name);
		assert_non_null(b);
		for (int k = 0; k < 10; k++) {
			struct pmc_run_info ok = {0};

			assert_int_equal(pmc_benchmark_add_run(b, &ok), 0);
		}
		for (int j = 0; j < 4; j++) {
			static const char *const ids[] = {"cycles", "instructions", "wall-time",
							  "ipc"};
			struct pmc_metric *m = pmc_benchmark_metric(b, ids[j]);

			for (int k = 0; k < 10; k++) {
				uint64_t v = 1000000 + (i * 7919 + (size_t)k * 104729) % 100000;
				struct pmc_reading rd =
				    reading(k == 3 ? PMC_STATUS_SCALED : PMC_STATUS_COUNTED, v,
					    2000000, k == 3 ? 999999 : 2000000);

				assert_int_equal(pmc_metric_append(m, j < 2 ? rd.scaled : v / 3.0,
								   j < 2 ? &rd : NULL),
						 0);
			}
		}
	}
	return r;
}

static void large_files_round_trip(void **state)
{
	struct pmc_result *a = large_result(3000), *b = NULL;
	char *path = path_in_dir(tmpdir, "large.json"), err[512] = "";
	struct stat st;
	int rc;

	rc = pmc_result_save(a, path, err, sizeof(err));
	if (rc)
		fail_msg("save: %s", err);
	assert_int_equal(stat(path, &st), 0);
	print_message("%lld bytes\n", (long long)st.st_size);
	assert_true(st.st_size > 2 * (4 << 20)); /* several windows */
	rc = pmc_result_load(path, &b, err, sizeof(err));
	if (rc)
		fail_msg("load: %s", err);
	assert_results_equal(a, b);
	for (size_t i = 0; i < b->nbench; i++)
		assert_ptr_equal(pmc_result_find_benchmark(b, a->benchmarks[i].name),
				 &b->benchmarks[i]);
	unlink(path);
	free(path);
	pmc_result_free(a);
	pmc_result_free(b);
}

/* "line:col" of the first (or last) occurrence of needle in text, counted here
 * independently of the reader: columns are characters, from 1. */
static void pos_of(const char *text, const char *needle, bool last, char *buf, size_t len)
{
	const char *at = strstr(text, needle), *q;
	size_t line = 1, col = 1;

	assert_non_null(at);
	while (last && (q = strstr(at + 1, needle)))
		at = q;
	for (q = text; q < at; q++) {
		if (*q == '\n') {
			line++;
			col = 1;
		} else if ((*q & 0xc0) != 0x80) {
			col++;
		}
	}
	snprintf(buf, len, "%zu:%zu", line, col);
}

static void assert_contains(const char *err, const char *want)
{
	if (!strstr(err, want))
		fail_msg("error \"%s\"\n  lacks \"%s\"", err, want);
}

/* A large file with a mistake near its end: the reader falls back from windows to the
 * whole text, so the position is still the one in the file. */
static void large_file_errors_have_true_positions(void **state)
{
	struct pmc_result *a = large_result(3000), *b = NULL;
	char *path = path_in_dir(tmpdir, "large-bad.json"), err[512] = "", *text, *at;
	char pos[32], want[600];
	int rc;

	a->benchmarks[2998].metrics[2].values[7] = -12345;
	a->benchmarks[2998].metrics[2].derived = true; /* let it past the save check */
	text = pmc_result_dumps(a);
	assert_non_null(text);
	at = strstr(text, "-12345");
	assert_non_null(at);
	/* Make it a plain count, which cannot be negative. */
	{
		char *d = strstr(at - 400, "\"derived\": true");

		assert_non_null(d);
		memcpy(d, "\"derived\":false", 15);
	}
	write_text(path, text, strlen(text));
	rc = pmc_result_load(path, &b, err, sizeof(err));
	assert_int_equal(rc, -EINVAL);
	assert_null(b);
	pos_of(text, "-12345", false, pos, sizeof(pos));
	snprintf(want, sizeof(want),
		 "%s:%s: benchmarks[2998].metrics.wall-time.samples[7]: negative time -12345; "
		 "times cannot be negative — regenerate the file with pmcbench run",
		 path, pos);
	assert_string_equal(err, want);
	unlink(path);
	free(path);
	free(text);
	pmc_result_free(a);
}

/* ---- Atomic saves --------------------------------------------------------------- */

static void save_replaces_and_keeps_the_mode(void **state)
{
	struct pmc_result *a = sample_result(false);
	char *path = path_in_dir(tmpdir, "mode.json"), err[512] = "", *text;
	struct stat st;
	mode_t old = umask(022);

	unlink(path);
	assert_int_equal(pmc_result_save(a, path, err, sizeof(err)), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(chmod(path, 0600), 0);
	pmc_result_set_env(a, "kernel", "replaced");
	assert_int_equal(pmc_result_save(a, path, err, sizeof(err)), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	text = read_text(path);
	assert_non_null(strstr(text, "\"kernel\": \"replaced\""));
	umask(old);
	free(text);
	unlink(path);
	free(path);
	pmc_result_free(a);
}

/* Runs save in a child (where limits and identities can change) and returns its rc,
 * with its message in err. */
static int save_in_child(const struct pmc_result *r, const char *path, bool small_fsize,
			 bool drop_privileges, char *err, size_t errlen)
{
	int pipefd[2], status;
	pid_t pid;
	ssize_t n;
	char buf[600];

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char msg[512] = "";
		int rc;

		close(pipefd[0]);
		if (small_fsize) {
			struct rlimit rl = {4096, 4096};

			signal(SIGXFSZ, SIG_IGN);
			setrlimit(RLIMIT_FSIZE, &rl);
		}
		if (drop_privileges && geteuid() == 0 &&
		    (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0))
			_exit(100);
		rc = pmc_result_save(r, path, msg, sizeof(msg));
		n = snprintf(buf, sizeof(buf), "%d %s", rc, msg);
		if (write(pipefd[1], buf, (size_t)n) != n)
			_exit(101);
		_exit(0);
	}
	close(pipefd[1]);
	n = read(pipefd[0], buf, sizeof(buf) - 1);
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_true(n > 0);
	buf[n] = '\0';
	snprintf(err, errlen, "%s", strchr(buf, ' ') + 1);
	return atoi(buf);
}

/* The write fails half-way (the file size limit stands in for a full disk): the old
 * baseline is untouched and no temporary file is left behind. */
static void failed_write_keeps_the_old_file(void **state)
{
	struct pmc_result *a = large_result(20);
	char *path = path_in_dir(tmpdir, "keep.json"), err[512] = "", *text;
	static const char old[] = "{\"old\": true}\n";
	size_t before;
	int rc;

	write_text(path, old, strlen(old));
	before = count_entries(tmpdir);
	rc = save_in_child(a, path, true, false, err, sizeof(err));
	assert_int_equal(rc, -EFBIG);
	assert_contains(err, path);
	assert_contains(err, "the previous file is unchanged");
	text = read_text(path);
	assert_string_equal(text, old);
	assert_int_equal(count_entries(tmpdir), before);
	free(text);
	unlink(path);
	free(path);
	pmc_result_free(a);
}

/* A directory the user may not write to (root is made an ordinary user for this). */
static void read_only_directory_keeps_the_old_file(void **state)
{
	struct pmc_result *a = sample_result(false);
	char *dir = path_in_dir(tmpdir, "ro"), *path, err[512] = "", *text;
	static const char old[] = "{\"old\": true}\n";
	int rc;

	assert_int_equal(mkdir(dir, 0755), 0);
	path = path_in_dir(dir, "base.json");
	write_text(path, old, strlen(old));
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(chmod(dir, 0555), 0);
	assert_int_equal(chmod(tmpdir, 0755), 0);
	rc = save_in_child(a, path, false, true, err, sizeof(err));
	assert_int_equal(chmod(tmpdir, 0700), 0);
	assert_int_equal(rc, -EACCES);
	assert_contains(err, path);
	assert_contains(err, "writable");
	text = read_text(path);
	assert_string_equal(text, old);
	assert_int_equal(count_entries(dir), 1);
	assert_int_equal(chmod(dir, 0755), 0);
	free(text);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
	pmc_result_free(a);
}

static void save_refuses_what_would_not_load(void **state)
{
	struct pmc_result *a = sample_result(false);
	char *path = path_in_dir(tmpdir, "invalid.json"), err[512] = "", *missing;
	struct pmc_run_info ok = {0};

	/* One run more than the metrics have samples. */
	assert_int_equal(pmc_benchmark_add_run(&a->benchmarks[0], &ok), 0);
	assert_int_equal(pmc_result_save(a, path, err, sizeof(err)), -EINVAL);
	assert_contains(err, path);
	assert_contains(
	    err, "benchmark \"loop \"1000\"\": metric \"wall-time\" has 8 samples for 9 runs");
	assert_int_equal(access(path, F_OK), -1);
	assert_null(pmc_result_dumps(a));
	assert_int_equal(errno, EINVAL);
	a->benchmarks[0].nruns--;

	/* A negative count. */
	a->benchmarks[0].metrics[0].values[1] = -1;
	assert_int_equal(pmc_result_save(a, path, err, sizeof(err)), -EINVAL);
	assert_contains(err, "metric \"wall-time\": run 1 has the time -1");
	a->benchmarks[0].metrics[0].values[1] = 1;

	/* A run killed by a signal that claims an exit code. */
	a->benchmarks[0].runs[5].exit_code = 0;
	assert_int_equal(pmc_result_save(a, path, err, sizeof(err)), -EINVAL);
	assert_contains(err, "run 5 has exit code 0 and signal 9");
	a->benchmarks[0].runs[5].exit_code = -1;

	/* A directory that does not exist. */
	missing = path_in_dir(tmpdir, "no/such/dir.json");
	assert_int_equal(pmc_result_save(a, missing, err, sizeof(err)), -ENOENT);
	assert_contains(err, "cannot write");
	assert_contains(err, missing);
	free(missing);
	free(path);
	pmc_result_free(a);
}

/* ---- Bad input ------------------------------------------------------------------ */

static const char base_doc[] =
    "{\n"
    "  \"schema\": \"pmcbench-result/1\",\n"
    "  \"backend\": \"perf\",\n"
    "  \"benchmarks\": [\n"
    "    {\n"
    "      \"name\": \"a\",\n"
    "      \"runs\": [{\"exit_code\": 0}, {\"exit_code\": 0}],\n"
    "      \"metrics\": {\n"
    "        \"cycles\": {\"unit\": \"count\", \"better\": \"lower\", \"samples\": [10, 20]}\n"
    "      }\n"
    "    }\n"
    "  ]\n"
    "}\n";

/* base_doc with the first occurrence of from replaced by to. */
static char *doc_with(const char *from, const char *to)
{
	const char *at = strstr(base_doc, from);
	char *s;

	assert_non_null(at);
	assert_true(
	    asprintf(&s, "%.*s%s%s", (int)(at - base_doc), base_doc, to, at + strlen(from)) > 0);
	return s;
}

struct bad_case {
	const char *from, *to; /* the change to base_doc */
	const char *at;	       /* text at the reported position */
	const char *message;   /* what the line must say after the position */
	bool last;	       /* the last occurrence of at, not the first */
};

static const struct bad_case bad_cases[] = {
    {"[10, 20]", "[10, -5]", "-5",
     "benchmarks[0].metrics.cycles.samples[1]: negative count -5; counts cannot be "
     "negative — regenerate the file with pmcbench run"},
    {"[10, 20]", "[10]", "[10]",
     "benchmarks[0].metrics.cycles.samples: 1 samples for 2 runs; every metric has one "
     "sample per run"},
    {"20]", "NaN]", "NaN",
     "benchmarks[0].metrics.cycles.samples[1]: expected a number or null, found 'N'"},
    {"20]", "-Infinity]", "Infinity", "samples[1]: expected a digit, found 'I'"},
    {"20]", "1e999]", "1e999", "samples[1]: number out of range"},
    {"20]", "\"20\"]", "\"20\"", "samples[1]: expected a number or null, found a string"},
    {"20]", "010]", "010", "a number with a leading zero"},
    {"pmcbench-result/1", "pmcbench-result/2", "\"pmcbench-result/2",
     "schema: schema \"pmcbench-result/2\" was written by a newer pmcbench; upgrade "
     "pmcbench to read it"},
    {"pmcbench-result/1", "criterion/1", "\"criterion",
     "unknown schema \"criterion/1\"; this is not a pmcbench result file"},
    {"\"schema\": \"pmcbench-result/1\",", "", "{", "no \"schema\" key"},
    {"\"perf\"", "5", "5", "backend: expected a string, found a number"},
    {"\"perf\"", "\"\"", "\"\",", "backend: empty backend"},
    {"\"backend\": \"perf\",", "\"backend\": \"perf\", \"backend\": \"perf\",",
     "\"backend\": \"perf\",\n", "duplicate key \"backend\""},
    {"\"backend\": \"perf\",", "", "{", "missing key \"backend\""},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": [\"counted\", \"bogus\"], \"raw\": [[10, 5, 5], [20, "
     "5, 5]]",
     "\"bogus\"",
     "benchmarks[0].metrics.cycles.status[1]: unknown status \"bogus\"; expected counted, "
     "scaled, not-counted, unsupported, denied or exact"},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, null], \"status\": [\"counted\", \"counted\"], \"raw\": [[10, 5, 5], "
     "[20, 5, 5]]",
     "[10, null]", "cycles.samples[1]: null for a run with status \"counted\", which has a value"},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": [\"counted\", \"unsupported\"], \"raw\": [[10, 5, "
     "5], null]",
     "[10, 20]",
     "cycles.samples[1]: a number for a run with status \"unsupported\", which was not "
     "measured; it must be null"},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": [\"counted\", \"counted\"], \"raw\": [[10, 5, 5], "
     "null]",
     "[[10", "cycles.raw[1]: null for a run with status \"counted\""},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": [\"exact\", \"counted\"], \"raw\": [[10, 5, 5], "
     "[20, 5, 5]]",
     "[[10",
     "cycles.raw[0]: [value, time_enabled, time_running] for a run with status "
     "\"exact\"; expected [value, null, null]"},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": [\"counted\", \"counted\"], \"raw\": [[10, 5, 5], "
     "[20, 5, 6]]",
     "[20, 5, 6]", "cycles.raw[1]: time_running 6 exceeds time_enabled 5"},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": [\"counted\", \"counted\"], \"raw\": [[-10, 5, 5], "
     "[20, 5, 5]]",
     "-10, 5", "cycles.raw[0][0]: value -10 is not a non-negative integer"},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": [\"counted\", \"counted\"], \"raw\": [[10, 5], "
     "[20, 5, 5]]",
     "[10, 5]", "a raw reading is [value, time_enabled, time_running]"},
    {"\"samples\": [10, 20]", "\"samples\": [10, 20], \"status\": [\"counted\", \"counted\"]",
     "{\"unit\"", "cycles: \"status\" and \"raw\" come together"},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": [\"counted\"], \"raw\": [[10, 5, 5], [20, 5, 5]]",
     "[\"counted\"]", "cycles.status: 1 statuses for 2 samples"},
    {"\"unit\": \"count\", ", "", "{\"better\"", "cycles: missing key \"unit\""},
    {"\"lower\"", "\"sideways\"", "\"sideways\"",
     "cycles.better: \"better\" is \"lower\" or \"higher\", not \"sideways\""},
    {"\"better\": \"lower\",", "\"better\": \"lower\", \"error\": \"EFOO\",", "\"EFOO\"",
     "cycles.error: unknown errno name \"EFOO\""},
    {"\"better\": \"lower\",", "\"better\": \"lower\", \"derived\": 1,", "1,",
     "cycles.derived: expected true or false, found a number"},
    {"{\"exit_code\": 0}, {", "{\"exit_code\": 300}, {", "300",
     "benchmarks[0].runs[0].exit_code: expected an integer from -1 to 255, found 300"},
    {"{\"exit_code\": 0}, {", "{\"exit_code\": 0, \"signal\": 9}, {", "{\"exit_code\": 0, ",
     "benchmarks[0].runs[0]: a run killed by signal 9 has exit_code -1, not 0"},
    {"{\"exit_code\": 0}, {", "{}, {", "{}", "runs[0]: missing key \"exit_code\""},
    {"\"name\": \"a\"", "\"name\": \"a\", \"build_id\": \"XYZ\"", "\"XYZ\"",
     "benchmarks[0].build_id: a build-id is lower-case hex digits, not \"XYZ\""},
    {"\"name\": \"a\",\n      ", "", "{\n      \"runs\"", "benchmarks[0]: missing key \"name\""},
    {"\"cycles\": {",
     "\"cycles\": {\"unit\": \"count\", \"better\": \"lower\", \"samples\": "
     "[1, 2]}, \"cycles\": {",
     "\"cycles\": {\"unit\": \"count\", \"better\": \"lower\", \"samples\": [10",
     "benchmarks[0].metrics: duplicate metric \"cycles\""},
    {"    {\n      \"name\": \"a\"",
     "    {\"name\": \"a\", \"runs\": [], \"metrics\": {}},\n    {\n      \"name\": \"a\"",
     "{\n      \"name\": \"a\"",
     "benchmarks[1]: a second benchmark named \"a\" (the first is benchmarks[0]); names "
     "must be unique"},
    {"\"name\": \"a\"", "\"name\": \"a\xff\"", "\xff", "benchmarks[0].name: invalid UTF-8"},
    {"\"name\": \"a\"", "\"name\": \"a\nb\"", "\nb\"",
     "benchmarks[0].name: control character 0x0a in a string"},
    {"\"name\": \"a\"", "\"name\": \"\\ud800x\"", "\\ud800",
     "unpaired UTF-16 surrogate in a string"},
    {"\"name\": \"a\"", "\"name\": \"\\q\"", "\\q", "invalid escape in a string"},
    {"\"backend\": \"perf\",", "\"backend\": \"perf\",,", ",\n  \"benchmarks\"",
     "expected a key, found ','; the file is not valid JSON"},
    {"[10, 20]}", "[10, 20]", "]\n}", "expected ',' or '}', found ']'"},
    {"  ]\n}\n", "  ]\n}\n}", "}", "text after the end of the result", true},
    {"\"benchmarks\": [", "\"benchmarks\": {", "{\n    {",
     "benchmarks: expected an array, "
     "found an object"},
};

static void expect_load_error(const char *text, size_t len, const char *at, bool last,
			      const char *message)
{
	char *path = path_in_dir(tmpdir, "bad.json"), err[600] = "", pos[32], want[100];
	struct pmc_result *r = NULL;
	int rc;

	write_text(path, text, len);
	rc = pmc_result_load(path, &r, err, sizeof(err));
	print_message("%s\n", err);
	assert_int_equal(rc, -EINVAL);
	assert_null(r);
	if (at) {
		pos_of(text, at, last, pos, sizeof(pos));
	} else {
		/* The position of the end of the text. */
		size_t line = 1, col = 1;

		for (size_t i = 0; i < len; i++) {
			if (text[i] == '\n') {
				line++;
				col = 1;
			} else if ((text[i] & 0xc0) != 0x80) {
				col++;
			}
		}
		snprintf(pos, sizeof(pos), "%zu:%zu", line, col);
	}
	snprintf(want, sizeof(want), "%s:%s: ", path, pos);
	if (strncmp(err, want, strlen(want)) != 0)
		fail_msg("error \"%s\"\n  does not start with \"%s\"", err, want);
	assert_contains(err, message);
	assert_null(strchr(err, '\n'));
	unlink(path);
	free(path);
}

static void bad_documents_name_file_place_and_fix(void **state)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		char *doc = doc_with(c->from, c->to);

		print_message("case %zu: ", i);
		expect_load_error(doc, strlen(doc), c->at, c->last, c->message);
		free(doc);
	}
}

static void truncated_and_empty_files_are_refused(void **state)
{
	size_t n = strlen(base_doc);

	/* Cut anywhere: always an error at the end of the text, never a crash or a
	 * silently shorter result. */
	for (size_t cut = 1; cut < n - 1; cut++) {
		char *path = path_in_dir(tmpdir, "cut.json"), err[600] = "";
		struct pmc_result *r = NULL;
		int rc;

		write_text(path, base_doc, cut);
		rc = pmc_result_load(path, &r, err, sizeof(err));
		if (rc != -EINVAL)
			fail_msg("cut at %zu: rc %d", cut, rc);
		assert_null(r);
		assert_contains(err, path);
		assert_null(strchr(err, '\n'));
		unlink(path);
		free(path);
	}
	static const char unterminated[] =
	    "{\"schema\": \"pmcbench-result/1\", \"backend\": \"perf\", \"benchm";

	expect_load_error(base_doc, n / 2, NULL, false, "unexpected end of file");
	expect_load_error(base_doc, n / 2, NULL, false,
			  "the file is truncated — regenerate the file with pmcbench run");
	expect_load_error("", 0, NULL, false, "empty file; expected a pmcbench result");
	expect_load_error(" \n\t\n ", 5, NULL, false, "empty file");
	expect_load_error("[1, 2]", 6, "[", false, "expected a JSON object, found an array");
	expect_load_error("\"x", 2, "\"", false, "expected a JSON object, found a string");
	expect_load_error(unterminated, strlen(unterminated), "\"benchm", false,
			  "unterminated string; the file is truncated");
}

static void directories_and_missing_files_are_refused(void **state)
{
	char err[600] = "", *missing = path_in_dir(tmpdir, "missing.json");
	struct pmc_result *r = NULL;

	assert_int_equal(pmc_result_load(tmpdir, &r, err, sizeof(err)), -EINVAL);
	assert_null(r);
	assert_contains(err, tmpdir);
	assert_contains(err, "is a directory; give the path of a result file");
	assert_int_equal(pmc_result_load(missing, &r, err, sizeof(err)), -ENOENT);
	assert_contains(err, missing);
	assert_contains(err, "No such file or directory");
	assert_null(r);
	free(missing);
}

/* Many damaged copies of a valid file: the reader never accepts what jansson calls
 * invalid JSON, and every refusal is one line naming the file (under ASan, no crash
 * or leak either). */
static void damaged_files_never_pass_as_valid(void **state)
{
	static const char alphabet[] = "{}[],:\"\\0123456789-.eE+ntrufals \n\x01\xc3\xa9\xff";
	struct pmc_result *a = sample_result(false);
	char *text = pmc_result_dumps(a), *path = path_in_dir(tmpdir, "fuzz.json");
	size_t n = strlen(text), accepted = 0, rejected = 0;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	char *doc = malloc(n + 2);

	for (int iter = 0; iter < 3000; iter++) {
		struct pmc_result *r = NULL;
		char err[600] = "";
		json_error_t jerr;
		json_t *j;
		size_t len = n, pos;
		int rc, op;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		pos = (size_t)(seed >> 33) % n;
		op = (int)((seed >> 20) % 3);
		memcpy(doc, text, n);
		if (op == 0) { /* delete a byte */
			memmove(doc + pos, doc + pos + 1, n - pos - 1);
			len = n - 1;
		} else { /* replace or insert one */
			char c = alphabet[(seed >> 8) % (sizeof(alphabet) - 1)];

			if (op == 2) {
				memmove(doc + pos + 1, doc + pos, n - pos);
				len = n + 1;
			}
			doc[pos] = c;
		}
		write_text(path, doc, len);
		rc = pmc_result_load(path, &r, err, sizeof(err));
		j = json_loadb(doc, len, 0, &jerr);
		if (rc == 0) {
			accepted++;
			/* jansson's integers are signed 64-bit; larger ones are valid JSON. */
			if (!j && !strstr(jerr.text, "too big"))
				fail_msg(
				    "accepted invalid JSON (jansson: %s at %d:%d), change at %zu",
				    jerr.text, jerr.line, jerr.column, pos);
		} else {
			rejected++;
			assert_int_equal(rc, -EINVAL);
			assert_null(r);
			if (strncmp(err, path, strlen(path)) != 0 || strchr(err, '\n'))
				fail_msg("bad message \"%s\"", err);
		}
		json_decref(j);
		pmc_result_free(r);
	}
	print_message("%zu damaged files accepted (still valid), %zu refused\n", accepted,
		      rejected);
	assert_true(rejected > 1000);
	free(doc);
	free(text);
	unlink(path);
	free(path);
	pmc_result_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(new_result_has_version_and_time),
	    cmocka_unit_test(env_entries_are_set_and_replaced),
	    cmocka_unit_test(benchmarks_are_unique_and_found),
	    cmocka_unit_test(metrics_take_unit_and_direction_from_the_table),
	    cmocka_unit_test(append_refuses_contradictions),
	    cmocka_unit_test(metric_error_needs_every_run_to_fail),
	    cmocka_unit_test(round_trip_is_exact),
	    cmocka_unit_test(writer_output_reads_the_same_in_jansson),
	    cmocka_unit_test(reordered_and_extended_documents_load),
	    cmocka_unit_test(large_files_round_trip),
	    cmocka_unit_test(large_file_errors_have_true_positions),
	    cmocka_unit_test(save_replaces_and_keeps_the_mode),
	    cmocka_unit_test(failed_write_keeps_the_old_file),
	    cmocka_unit_test(read_only_directory_keeps_the_old_file),
	    cmocka_unit_test(save_refuses_what_would_not_load),
	    cmocka_unit_test(bad_documents_name_file_place_and_fix),
	    cmocka_unit_test(truncated_and_empty_files_are_refused),
	    cmocka_unit_test(directories_and_missing_files_are_refused),
	    cmocka_unit_test(damaged_files_never_pass_as_valid),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}

/* The result model and its JSON file: what is saved loads back exactly, files of the
 * previous writer still load, a failed save leaves the old baseline as it was, loads on
 * two threads at once do not disturb each other or other users of jansson, and every
 * kind of bad file is refused with one line that names the file, the place and the fix.
 * jansson parses and writes the text; the tests check what the loader makes of it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
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

#include "tests/test_main.h"
#include <jansson.h>

#include "core/metrics.h"
#include "core/result.h"
#include "core/stats.h"
#include "formats/result_json.h"
#include "tests/helpers.h"

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
 * print and read back exactly. */
static struct pmc_result *sample_result(void)
{
	static const double hard[] = {
	    0.1,    1.0 / 3.0,		5e-324, 1.7976931348623157e308, 123456789012345678.0,
	    2.5e-8, 9007199254740993.0, 0};
	struct pmc_result *r = t_result("perf");
	struct pmc_benchmark *b;
	struct pmc_metric *m;
	struct pmc_run_info ok = {.exit_code = 0};
	struct pmc_run_info killed = {.exit_code = -1, .term_signal = 9, .timed_out = true};

	assert_non_null(r);
	assert_int_equal(pmc_result_set_env(r, "kernel", "Linux 6.1.0"), 0);
	assert_int_equal(pmc_result_set_env(r, "quote\"back\\slash", "tab\tnl\nctl\x01 é ✓ 😀"), 0);
	assert_int_equal(pmc_result_set_env(r, "perf_event_paranoid", "2"), 0);

	b = t_bench(r, "loop \"1000\"", "pmc-work loop 1000");
	assert_non_null(b);
	b->build_id = strdup("0123456789abcdef0123456789abcdef01234567");
	for (int i = 0; i < 8; i++)
		assert_int_equal(pmc_benchmark_add_run(b, i == 5 ? &killed : &ok), 0);

	m = t_metric(b, "wall-time");
	for (int i = 0; i < 8; i++)
		assert_int_equal(pmc_metric_append(m, hard[i], NULL), 0);

	m = t_metric(b, "ipc");
	m->cross_group = true;
	for (int i = 0; i < 8; i++)
		assert_int_equal(pmc_metric_append(m, i == 2 ? NAN : 0.0 - hard[i], NULL), 0);

	m = t_metric(b, "cycles:u");
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
			rd = reading(PMC_STATUS_COUNTED, INT64_MAX, 1, 1);
		}
		assert_int_equal(
		    pmc_metric_append(m, pmc_status_has_value(rd.status) ? rd.scaled : NAN, &rd),
		    0);
	}

	m = t_metric(b, "branches");
	for (int i = 0; i < 8; i++) {
		struct pmc_reading rd = reading(PMC_STATUS_UNSUPPORTED, 0, 0, 0);

		assert_int_equal(pmc_metric_append(m, NAN, &rd), 0);
	}
	assert_int_equal(m->error, ENOENT);
	assert_int_equal(pmc_metric_set_note(m, "no PMU: hardware events need one"), 0);

	b = t_bench(r, "valgrind \xff latin-1", NULL);
	assert_non_null(b);
	{
		/* The iterations of a microbenchmark's run, beyond a double's 53 bits. */
		struct pmc_run_info many = {.exit_code = 0, .iterations = 9007199254740993u};

		assert_int_equal(pmc_benchmark_add_run(b, &many), 0);
	}
	m = t_metric(b, "instructions");
	m->simulated = true;
	{
		struct pmc_reading rd = reading(PMC_STATUS_EXACT, 123456789, 0, 0);

		assert_int_equal(pmc_metric_append(m, 123456789.0, &rd), 0);
	}
	m = t_metric(b, "est-cycles");
	m->simulated = true;
	assert_int_equal(pmc_metric_append(m, 4242.0, NULL), 0);
	m = t_metric(b, "denied-event");
	{
		struct pmc_reading rd = reading(PMC_STATUS_DENIED, 0, 0, 0);

		assert_int_equal(pmc_metric_append(m, NAN, &rd), 0);
		assert_int_equal(m->error, EACCES);
	}

	/* A benchmark that skipped itself, with its reason, a benchmark that never ran and
	 * a benchmark without metrics are valid too. */
	b = t_bench(r, "avx2 \"sum\"", NULL);
	assert_non_null(b);
	assert_int_equal(pmc_benchmark_set_skipped(b, "no \"AVX2\" — ✓"), 0);
	b = t_bench(r, "empty", NULL);
	assert_non_null(b);
	/* A benchmark shown in its own time unit (->Unit). */
	b->time_unit = PMC_TIME_MS;
	/* A benchmark of a parameter scan names its values, in the order given. */
	assert_int_equal(pmc_benchmark_set_param(b, "n", "10"), 0);
	assert_int_equal(pmc_benchmark_set_param(b, "größe", "a \"b\""), 0);
	assert_int_equal(pmc_benchmark_set_param(b, "n", "100"), 0);
	assert_int_equal(pmc_benchmark_set_param(b, "", "x"), -EINVAL);
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

/* Equal strings, or both NULL. */
static void assert_same_string(const char *a, const char *b)
{
	if (a || b) {
		assert_non_null(a);
		assert_non_null(b);
		assert_string_equal(a, b);
	}
}

static void assert_results_equal(const struct pmc_result *a, const struct pmc_result *b)
{
	assert_string_equal(a->backend, b->backend);
	assert_same_string(a->tool_version, b->tool_version);
	assert_same_string(a->created, b->created);
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
		assert_same_string(x->command, y->command);
		assert_same_string(x->build_id, y->build_id);
		assert_same_string(x->skipped, y->skipped);
		assert_int_equal(x->time_unit, y->time_unit);
		/* In any order too (jq -S); the round trip compares the text. */
		assert_int_equal(x->nparams, y->nparams);
		for (size_t k = 0; k < x->nparams; k++) {
			size_t j = 0;

			while (j < y->nparams && strcmp(x->params[k].key, y->params[j].key) != 0)
				j++;
			assert_true(j < y->nparams);
			assert_string_equal(x->params[k].value, y->params[j].value);
		}
		assert_int_equal(x->nruns, y->nruns);
		for (size_t k = 0; k < x->nruns; k++) {
			assert_int_equal(x->runs[k].exit_code, y->runs[k].exit_code);
			assert_int_equal(x->runs[k].term_signal, y->runs[k].term_signal);
			assert_int_equal(x->runs[k].timed_out, y->runs[k].timed_out);
			assert_int_equal(x->runs[k].iterations, y->runs[k].iterations);
			assert_int_equal(x->runs[k].switches, y->runs[k].switches);
			assert_int_equal(x->runs[k].voluntary_switches,
					 y->runs[k].voluntary_switches);
			assert_int_equal(x->runs[k].involuntary_switches,
					 y->runs[k].involuntary_switches);
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
			assert_same_string(p->note, q->note);
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
	struct pmc_result *r = t_result("valgrind");
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
	{
		struct pmc_result *none = (struct pmc_result *)0x1;

		assert_int_equal(pmc_result_new(NULL, &none), -EINVAL);
		assert_ptr_equal(none, (struct pmc_result *)0x1); /* untouched on failure */
	}
	pmc_result_free(NULL);
}

static void env_entries_are_set_and_replaced(void **state)
{
	struct pmc_result *r = t_result("perf");

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
	struct pmc_result *r = t_result("perf");
	char name[32];

	for (int i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "bench/%d", i);
		assert_non_null(t_bench(r, name, i % 2 ? name : NULL));
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
	{
		struct pmc_benchmark *dup = NULL;

		assert_int_equal(pmc_result_add_benchmark(r, "bench/17", NULL, &dup), -EEXIST);
		assert_int_equal(pmc_result_add_benchmark(r, "", NULL, &dup), -EINVAL);
		assert_null(dup);
	}
	assert_int_equal(r->nbench, 3000);
	pmc_result_free(r);
}

static void metrics_take_unit_and_direction_from_the_table(void **state)
{
	struct pmc_result *r = t_result("perf");
	struct pmc_benchmark *b = t_bench(r, "x", NULL);
	struct pmc_metric *m;

	m = t_metric(b, "task-clock:u");
	assert_string_equal(m->unit, "ns");
	assert_int_equal(m->better, PMC_LOWER_IS_BETTER);
	m = t_metric(b, "ipc");
	assert_string_equal(m->unit, "ratio");
	assert_int_equal(m->better, PMC_HIGHER_IS_BETTER);
	assert_true(m->derived);
	m = t_metric(b, "r01c2");
	assert_string_equal(m->unit, "count");
	assert_false(m->derived);
	assert_int_equal(b->nmetrics, 3);
	/* Finding again does not add. */
	assert_ptr_equal(t_metric(b, "ipc"), &b->metrics[1]);
	assert_ptr_equal(pmc_benchmark_find_metric(b, "task-clock:u"), &b->metrics[0]);
	assert_null(pmc_benchmark_find_metric(b, "task-clock"));
	assert_int_equal(b->nmetrics, 3);
	pmc_result_free(r);
}

/* A sample that contradicts its reading would put an invented number (or lose a real
 * one) in a baseline. */
static void append_refuses_contradictions(void **state)
{
	struct pmc_result *r = t_result("perf");
	struct pmc_benchmark *b = t_bench(r, "x", NULL);
	struct pmc_metric *c, *w;
	struct pmc_reading counted = reading(PMC_STATUS_COUNTED, 10, 5, 5);
	struct pmc_reading unsup = reading(PMC_STATUS_UNSUPPORTED, 0, 0, 0);
	struct pmc_reading notc = reading(PMC_STATUS_NOT_COUNTED, 0, 5, 0);
	double out[4];

	/* Adding a metric may move the others: take both pointers after adding both. */
	assert_non_null(t_metric(b, "cycles"));
	assert_non_null(t_metric(b, "wall-time"));
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
	struct pmc_result *r = t_result("perf");
	struct pmc_benchmark *b = t_bench(r, "x", NULL);
	struct pmc_reading unsup = reading(PMC_STATUS_UNSUPPORTED, 0, 0, 0);
	struct pmc_reading counted = reading(PMC_STATUS_COUNTED, 10, 5, 5);
	struct pmc_metric *m, *k;

	assert_non_null(t_metric(b, "cycles"));
	assert_non_null(t_metric(b, "instructions"));
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
	struct pmc_result *a = sample_result(), *b = NULL;
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
	assert_int_equal(b->benchmarks[0].metrics[2].raw[3].value, INT64_MAX);

	/* Loading and saving again changes nothing, byte for byte. */
	text1 = read_text(path);
	text2 = t_dumps(b);
	assert_non_null(text2);
	assert_string_equal(text1, text2);
	assert_int_equal(count_entries(tmpdir), 1);

	free(text1);
	free(text2);
	free(path);
	pmc_result_free(a);
	pmc_result_free(b);
}

/* What jansson holds at most while a file loads, counted by its allocator (bytes). */
static long json_live, json_peak;

static void *counting_malloc(size_t n)
{
	void *p = malloc(n);

	if (p) {
		json_live += (long)malloc_usable_size(p);
		json_peak = json_live > json_peak ? json_live : json_peak;
	}
	return p;
}

static void counting_free(void *p)
{
	if (p)
		json_live -= (long)malloc_usable_size(p);
	free(p);
}

/* A benchmark of many runs loads a member and a metric at a time (issue 35, item 9):
 * jansson's tree of it was eight times its text, next to the model; now at most one
 * metric's tree is held, and the window of text. */
static void a_benchmark_of_many_runs_loads_a_metric_at_a_time(void **state)
{
	static const char *const ids[] = {"cycles", "instructions", "task-clock", "page-faults"};
	struct pmc_result *a = t_result("perf"), *b = NULL;
	struct pmc_benchmark *bm = t_bench(a, "big", NULL);
	char *path = path_in_dir(tmpdir, "big.json"), err[512] = "";
	const size_t runs = 60000;
	struct stat st;

	(void)state;
	for (size_t i = 0; i < runs; i++)
		assert_int_equal(pmc_benchmark_add_run(bm, &(struct pmc_run_info){0}), 0);
	for (size_t k = 0; k < 4; k++) {
		struct pmc_metric *m = t_metric(bm, ids[k]);

		for (size_t i = 0; i < runs; i++) {
			struct pmc_reading rd =
			    reading(PMC_STATUS_COUNTED, 1000003 + i * 7, 5000 + i, 5000 + i);

			assert_int_equal(pmc_metric_append(m, rd.scaled, &rd), 0);
		}
	}
	assert_int_equal(pmc_result_save(a, path, err, sizeof(err)), 0);
	assert_int_equal(stat(path, &st), 0);
	json_live = json_peak = 0;
	json_set_alloc_funcs(counting_malloc, counting_free);
	assert_int_equal(pmc_result_load(path, &b, err, sizeof(err)), 0);
	json_set_alloc_funcs(malloc, free);
	assert_int_equal(b->benchmarks[0].nruns, runs);
	assert_int_equal(b->benchmarks[0].nmetrics, 4);
	assert_true(pmc_benchmark_find_metric(&b->benchmarks[0], "page-faults")->values[runs - 1] ==
		    1000003 + (runs - 1) * 7);
	/* The whole benchmark's tree was 6.6 times the text (here 50 MB for 7.6 MB); one
	 * metric's, of the four, about 2.5 times. */
	if (json_peak > 3 * st.st_size)
		fail_msg("jansson held %ld bytes for a file of %lld", json_peak,
			 (long long)st.st_size);
	unlink(path);
	free(path);
	pmc_result_free(a);
	pmc_result_free(b);
}

/* Hybrid CPUs: a metric's parts (one per core PMU, samples, status and raw per run) and
 * its restricted flag save and load back; a part of another length, or a sample that
 * contradicts its status, is refused on writing and on reading. */
static void hybrid_parts_round_trip(void **state)
{
	struct pmc_result *a = t_result("perf"), *b = NULL;
	struct pmc_benchmark *bm = t_bench(a, "hy", NULL);
	struct pmc_metric *m = t_metric(bm, "cycles"), *x;
	char *path = path_in_dir(tmpdir, "hybrid.json"), *text, *bad, *saved;
	char err[512] = "";
	struct pmc_reading sum[2] = {reading(PMC_STATUS_COUNTED, 1000, 100, 100),
				     reading(PMC_STATUS_SCALED, 900, 100, 90)};
	struct pmc_reading_parts p[2] = {
	    {.n = 2,
	     .pmu = {"cpu_core", "cpu_atom"},
	     .rd = {reading(PMC_STATUS_COUNTED, 700, 100, 60),
		    reading(PMC_STATUS_COUNTED, 300, 100, 40)}},
	    {.n = 2,
	     .pmu = {"cpu_core", "cpu_atom"},
	     .rd = {reading(PMC_STATUS_SCALED, 900, 100, 90),
		    {.status = PMC_STATUS_NOT_COUNTED, .enabled = 100, .scaled = NAN}}}};

	p[0].rd[0].scaled = 700;
	p[0].rd[1].scaled = 300;
	p[1].rd[0].scaled = 1000;
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(pmc_benchmark_add_run(bm, &(struct pmc_run_info){0}), 0);
		assert_int_equal(pmc_metric_append(m, sum[i].scaled, &sum[i]), 0);
		assert_int_equal(pmc_metric_append_parts(m, &p[i]), 0);
	}
	x = t_metric(bm, "cpu_core/cycles/");
	for (size_t i = 0; i < 2; i++) {
		struct pmc_reading_parts one = {.n = 1, .restricted = true, .pmu = {"cpu_core"}};

		one.rd[0] = reading(PMC_STATUS_COUNTED, 700, 100, 60);
		one.rd[0].scaled = 700;
		assert_int_equal(pmc_metric_append(x, 700, &one.rd[0]), 0);
		assert_int_equal(pmc_metric_append_parts(x, &one), 0);
	}
	assert_int_equal(pmc_result_save(a, path, err, sizeof(err)), 0);
	assert_int_equal(pmc_result_load(path, &b, err, sizeof(err)), 0);
	m = pmc_benchmark_find_metric(&b->benchmarks[0], "cycles");
	assert_int_equal(m->nparts, 2);
	assert_false(m->restricted);
	assert_string_equal(m->parts[1].id, "cpu_atom");
	assert_true(m->parts[0].values[0] == 700);
	assert_true(m->parts[0].values[1] == 1000);
	assert_int_equal(m->parts[0].raw[0].running, 60);
	assert_int_equal(m->parts[1].status[1], PMC_STATUS_NOT_COUNTED);
	assert_true(isnan(m->parts[1].values[1]));
	assert_true(pmc_benchmark_find_metric(&b->benchmarks[0], "cpu_core/cycles/")->restricted);
	/* Loading and saving again changes nothing. */
	text = t_dumps(b);
	saved = read_text(path);
	assert_string_equal(text, saved);
	free(saved);
	assert_non_null(strstr(text, "\"parts\":{\"cpu_core\":{\"samples\":[700,1000]"));

	/* A part with a number where its status says not counted: refused on loading. */
	bad = strdup(text);
	assert_non_null(bad);
	{
		char *at = strstr(bad, "\"samples\":[300,null]");

		assert_non_null(at);
		memcpy(at, "\"samples\":[300,0.00]", strlen("\"samples\":[300,0.00]"));
	}
	write_text(path, bad, strlen(bad));
	pmc_result_free(b);
	b = NULL;
	assert_int_equal(pmc_result_load(path, &b, err, sizeof(err)), -EINVAL);
	assert_contains(err, "parts");
	/* And a part shorter than the metric: refused on saving. */
	m = pmc_benchmark_find_metric(bm, "cycles");
	m->parts[1].n = 1;
	assert_int_equal(pmc_result_save(a, path, err, sizeof(err)), -EINVAL);
	assert_contains(err, "part");
	m->parts[1].n = 2;
	unlink(path);
	free(bad);
	free(text);
	free(path);
	pmc_result_free(a);
}

/* DEL, the C1 controls (here U+009B, CSI) and ESC in a name are written as \u escapes, so
 * that showing the file on a terminal cannot drive it, and load back as the same name;
 * other non-ASCII characters stay readable. */
static void terminal_controls_are_escaped_and_load_back(void **state)
{
	static const char name[] =
	    "a\x7f"
	    "b\xc2\x9b"
	    "31mc\x1b]0;title\x07 \xc2\x80\xc2\x9f\xc2\xa0 gr\xc3\xb6\xc3\x9f"
	    "e";
	struct pmc_result *a = t_result("perf"), *b = NULL;
	struct pmc_benchmark *bench;
	struct pmc_metric *m;
	char *path = path_in_dir(tmpdir, "controls.json"), *text, err[512] = "";
	int rc;

	(void)state;
	bench = t_bench(a, name, name);
	assert_non_null(bench);
	assert_int_equal(pmc_benchmark_add_run(bench, &(struct pmc_run_info){0}), 0);
	m = t_metric(bench, "wall-time");
	assert_int_equal(pmc_metric_append(m, 1.5, NULL), 0);
	rc = pmc_result_save(a, path, err, sizeof(err));
	if (rc)
		fail_msg("save: %s", err);
	text = read_text(path);
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		if (*p == 0x7f || (*p < 0x20 && *p != '\n'))
			fail_msg("raw control 0x%02x at %td", *p, (const char *)p - text);
		if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			fail_msg("raw C1 control at %td", (const char *)p - text);
	}
	assert_non_null(strstr(
	    text,
	    "a\\u007Fb\\u009B31mc\\u001B]0;title\\u0007 \\u0080\\u009F\xc2\xa0 gr\xc3\xb6\xc3\x9f"
	    "e"));
	rc = pmc_result_load(path, &b, err, sizeof(err));
	if (rc)
		fail_msg("load: %s", err);
	assert_int_equal(b->nbench, 1);
	assert_string_equal(b->benchmarks[0].name, name);
	assert_string_equal(b->benchmarks[0].command, name);
	free(text);
	unlink(path);
	free(path);
	pmc_result_free(a);
	pmc_result_free(b);
}

/* A metric of 100,000 samples (its arrays grow geometrically) is built, saved and loaded
 * with every sample in place. */
static void many_samples_round_trip(void **state)
{
	struct pmc_result *a = t_result("perf"), *b = NULL;
	struct pmc_benchmark *bench;
	struct pmc_metric *m;
	char *path = path_in_dir(tmpdir, "samples.json"), err[512] = "";
	int rc;

	(void)state;
	bench = t_bench(a, "many", "many");
	assert_non_null(bench);
	for (size_t k = 0; k < 100000; k++)
		assert_int_equal(pmc_benchmark_add_run(bench, &(struct pmc_run_info){0}), 0);
	m = t_metric(bench, "task-clock");
	for (size_t k = 0; k < 100000; k++) {
		struct pmc_reading rd = reading(PMC_STATUS_COUNTED, 1000 + k, 5000, 5000);

		assert_int_equal(pmc_metric_append(m, rd.scaled, &rd), 0);
	}
	assert_int_equal(m->n, 100000);
	rc = pmc_result_save(a, path, err, sizeof(err));
	if (rc)
		fail_msg("save: %s", err);
	rc = pmc_result_load(path, &b, err, sizeof(err));
	if (rc)
		fail_msg("load: %s", err);
	assert_int_equal(b->benchmarks[0].metrics[0].n, 100000);
	for (size_t k = 0; k < 100000; k += 9999) {
		assert_int_equal(b->benchmarks[0].metrics[0].values[k], 1000 + k);
		assert_int_equal(b->benchmarks[0].metrics[0].raw[k].value, 1000 + k);
	}
	assert_results_equal(a, b);
	unlink(path);
	free(path);
	pmc_result_free(a);
	pmc_result_free(b);
}

/* Entry k of the array key of a metric's "raw" object. */
static json_t *raw_entry(json_t *raw, const char *key, size_t k)
{
	json_t *arr = json_object_get(raw, key);

	assert_true(json_is_array(arr));
	return json_array_get(arr, k);
}

/* The saved text has the layout docs/result-schema.md describes: the keys, null where
 * nothing was measured or read (never 0 or NaN), integers for whole numbers, every
 * string and number as the model holds it. */
static void saved_text_follows_the_schema(void **state)
{
	struct pmc_result *a = sample_result();
	char *text = t_dumps(a);
	json_error_t jerr;
	json_t *root, *bench, *m, *v, *raw;
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
	assert_true(json_is_real(json_array_get(json_object_get(m, "samples"), 0)));
	assert_true(json_is_integer(json_array_get(json_object_get(m, "samples"), 4)));
	assert_null(strstr(text, "NaN"));
	assert_null(strstr(text, "Infinity"));
	assert_int_equal(json_integer_value(json_object_get(
			     json_array_get(json_object_get(bench, "runs"), 5), "signal")),
			 9);

	m = json_object_get(json_object_get(bench, "metrics"), "ipc");
	assert_true(json_is_null(json_array_get(json_object_get(m, "samples"), 2)));
	assert_true(json_is_true(json_object_get(m, "cross_group")));
	assert_string_equal(json_string_value(json_object_get(m, "better")), "higher");

	m = json_object_get(json_object_get(bench, "metrics"), "cycles:u");
	raw = json_object_get(m, "raw");
	for (i = 0; i < 8; i++) {
		const struct pmc_run_raw *want = &a->benchmarks[0].metrics[2].raw[i];

		assert_int_equal(json_integer_value(raw_entry(raw, "value", i)), want->value);
		assert_int_equal(json_integer_value(raw_entry(raw, "time_enabled", i)),
				 want->enabled);
		assert_int_equal(json_integer_value(raw_entry(raw, "time_running", i)),
				 want->running);
	}
	/* Runs of different statuses: one name per run. */
	assert_int_equal(json_array_size(json_object_get(m, "status")), 8);
	assert_string_equal(json_string_value(json_array_get(json_object_get(m, "status"), 1)),
			    "scaled");
	/* A counter that never ran has a reading (running 0) but no sample. */
	assert_string_equal(json_string_value(json_array_get(json_object_get(m, "status"), 2)),
			    "not-counted");
	assert_int_equal(json_integer_value(raw_entry(raw, "time_enabled", 2)), 777);
	assert_true(json_is_integer(raw_entry(raw, "time_running", 2)));
	assert_int_equal(json_integer_value(raw_entry(raw, "time_running", 2)), 0);
	assert_true(json_is_null(json_array_get(json_object_get(m, "samples"), 2)));
	/* The running fraction is not written: the raw times give it. */
	assert_null(json_object_get(m, "running_fraction"));
	assert_null(strstr(text, "running_fraction"));

	/* Every run failed alike: one status for all, and nothing read, so all null. */
	m = json_object_get(json_object_get(bench, "metrics"), "branches");
	assert_string_equal(json_string_value(json_object_get(m, "error")), "ENOENT");
	assert_string_equal(json_string_value(json_object_get(m, "status")), "unsupported");
	raw = json_object_get(m, "raw");
	for (i = 0; i < 8; i++) {
		assert_true(json_is_null(raw_entry(raw, "value", i)));
		assert_true(json_is_null(raw_entry(raw, "time_enabled", i)));
		assert_true(json_is_null(raw_entry(raw, "time_running", i)));
	}

	/* A simulated count has no times: null, not 0. */
	bench = json_array_get(json_object_get(root, "benchmarks"), 1);
	m = json_object_get(json_object_get(bench, "metrics"), "instructions");
	raw = json_object_get(m, "raw");
	assert_int_equal(json_integer_value(raw_entry(raw, "value", 0)), 123456789);
	assert_true(json_is_null(raw_entry(raw, "time_enabled", 0)));
	assert_true(json_is_null(raw_entry(raw, "time_running", 0)));
	assert_true(json_is_true(json_object_get(m, "simulated")));
	assert_string_equal(json_string_value(json_object_get(m, "status")), "exact");

	/* Members at their default are left out: flags that are false, a run's signal 0
	 * and timed_out false. */
	assert_null(json_object_get(m, "derived"));
	assert_null(json_object_get(m, "cross_group"));
	v = json_array_get(json_object_get(bench, "runs"), 0);
	assert_int_equal(json_object_size(v), 2);
	assert_int_equal(json_integer_value(json_object_get(v, "iterations")), 9007199254740993);
	v = json_array_get(
	    json_object_get(json_array_get(json_object_get(root, "benchmarks"), 0), "runs"), 0);
	assert_int_equal(json_object_size(v), 1);
	assert_null(strstr(text, "false"));

	/* Compact, with a line for each top-level member, benchmark head and metric. */
	assert_null(strstr(text, "\n "));
	assert_non_null(strstr(text, "{\"schema\":\"pmcbench-result/1\",\n\"tool\":{"));
	assert_non_null(strstr(text, "\n\"benchmarks\":[\n{\"name\":\"loop \\\"1000\\\"\","));
	assert_non_null(strstr(text, ",\"metrics\":{\n\"wall-time\":{\"unit\":\"ns\","));
	assert_non_null(strstr(text, "]},\n\"ipc\":{"));
	assert_non_null(strstr(text, "\n{\"name\":\"empty\",\"command\":null,\"build_id\":null,"
				     "\"parameters\":{\"n\":\"100\",\"größe\":\"a \\\"b\\\"\"},"
				     "\"time_unit\":\"ms\",\"runs\":[],\"metrics\":{}}\n]}\n"));

	json_decref(root);
	free(text);
	pmc_result_free(a);
}

/* Each metric with a measured run carries the summary the analysis computes (the one
 * every report shows), null where a statistic does not exist, and none without a
 * value; a reader ignores it: a file whose summary disagrees with its samples loads as
 * its samples say, and is written again with the summary they give. */
static void summaries_come_from_the_analysis_and_are_not_read(void **state)
{
	struct pmc_result *a = sample_result(), *b = NULL;
	char *text, *edited, *path, err[512] = "";
	const struct pmc_metric *wall = &a->benchmarks[0].metrics[0];
	struct pmc_summary want;
	json_error_t jerr;
	json_t *root, *metrics, *s, *ci;
	int rc;

	/* Values near the largest double overflow the spread, which the analysis refuses
	 * (stats.h): such a file has no summary at all. */
	text = t_dumps(a);
	assert_null(strstr(text, "\"summary\""));
	free(text);
	a->benchmarks[0].metrics[0].values[3] = 1e150;
	a->benchmarks[0].metrics[1].values[3] = -1e150;

	text = t_dumps(a);
	root = json_loads(text, 0, &jerr);
	assert_non_null(root);
	metrics =
	    json_object_get(json_array_get(json_object_get(root, "benchmarks"), 0), "metrics");
	assert_int_equal(pmc_summary_compute(wall->values, wall->n, 0.95, &want), 0);
	s = json_object_get(json_object_get(metrics, "wall-time"), "summary");
	assert_true(json_is_object(s));
	assert_int_equal(json_object_size(s), 7);
	assert_int_equal(json_integer_value(json_object_get(s, "n")), 8);
	assert_same_double(json_number_value(json_object_get(s, "mean")), want.mean, "mean", 0);
	assert_same_double(json_number_value(json_object_get(s, "stddev")), want.stddev, "stddev",
			   0);
	assert_same_double(json_number_value(json_object_get(s, "median")), want.median, "median",
			   0);
	assert_same_double(want.median, (0.1 + 1.0 / 3.0) / 2, "median", 0);
	assert_same_double(json_number_value(json_object_get(s, "min")), 0, "min", 0);
	assert_same_double(json_number_value(json_object_get(s, "max")), 1e150, "max", 0);
	assert_true(want.has_ci);
	ci = json_object_get(s, "median_ci");
	assert_int_equal(json_array_size(ci), 2);
	assert_same_double(json_number_value(json_array_get(ci, 0)), want.ci_lo, "ci_lo", 0);
	assert_same_double(json_number_value(json_array_get(ci, 1)), want.ci_hi, "ci_hi", 0);
	/* Runs without a value are not in it; too few runs for a CI give null. */
	s = json_object_get(json_object_get(metrics, "ipc"), "summary");
	assert_int_equal(json_integer_value(json_object_get(s, "n")), 7);
	s = json_object_get(json_object_get(metrics, "cycles:u"), "summary");
	assert_int_equal(json_integer_value(json_object_get(s, "n")), 6);
	assert_int_equal(json_integer_value(json_object_get(s, "min")), 1000);
	assert_null(json_object_get(json_object_get(metrics, "branches"), "summary"));
	s = json_object_get(
	    json_object_get(
		json_object_get(json_array_get(json_object_get(root, "benchmarks"), 1), "metrics"),
		"instructions"),
	    "summary");
	assert_true(json_is_null(json_object_get(s, "median_ci")));
	assert_int_equal(json_integer_value(json_object_get(s, "stddev")), 0);
	/* Beside the samples, on the metric's line. */
	assert_non_null(strstr(text, "\"summary\":{\"n\":8,\"mean\":"));
	assert_non_null(strstr(text, "},\"samples\":["));

	/* A summary that contradicts the samples is not read. */
	s = json_object_get(json_object_get(metrics, "wall-time"), "summary");
	json_object_set_new(s, "n", json_integer(99));
	json_object_set_new(s, "median", json_string("not a number"));
	edited = json_dumps(root, JSON_COMPACT | JSON_REAL_PRECISION(17));
	path = path_in_dir(tmpdir, "summary.json");
	write_text(path, edited, strlen(edited));
	rc = pmc_result_load(path, &b, err, sizeof(err));
	if (rc)
		fail_msg("load: %d %s", rc, err);
	as_saved(a);
	assert_results_equal(a, b);
	free(edited);
	edited = t_dumps(b);
	assert_string_equal(edited, text);

	unlink(path);
	free(path);
	free(edited);
	free(text);
	json_decref(root);
	pmc_result_free(a);
	pmc_result_free(b);
}

/* A document that jansson reads (keys in another order, as jq -S writes them; extra
 * keys a later version may add; CRLF line ends; a byte order mark) loads the same. */
static void reordered_and_extended_documents_load(void **state)
{
	struct pmc_result *a = sample_result(), *b = NULL;
	char *text = t_dumps(a), *sorted, *path, err[512] = "";
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

/* A result of many benchmarks, with counters, wall time and a derived metric. */
static struct pmc_result *large_result(size_t nbench)
{
	struct pmc_result *r = t_result("perf");
	char name[32];

	for (size_t i = 0; i < nbench; i++) {
		struct pmc_benchmark *b;

		snprintf(name, sizeof(name), "bench/%05zu", i);
		b = t_bench(r, name, name);
		assert_non_null(b);
		for (int k = 0; k < 10; k++) {
			struct pmc_run_info ok = {0};

			assert_int_equal(pmc_benchmark_add_run(b, &ok), 0);
		}
		for (int j = 0; j < 4; j++) {
			static const char *const ids[] = {"cycles", "instructions", "wall-time",
							  "ipc"};
			struct pmc_metric *m = t_metric(b, ids[j]);

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
	rc = pmc_result_load(path, &b, err, sizeof(err));
	if (rc)
		fail_msg("load: %s", err);
	assert_results_equal(a, b);
	for (size_t i = 0; i < b->nbench; i++)
		assert_ptr_equal(pmc_result_find_benchmark(b, a->benchmarks[i].name),
				 &b->benchmarks[i]);
	/* The index is kept up to date when more are added to a loaded result. */
	assert_non_null(t_bench(b, "one more", NULL));
	{
		struct pmc_benchmark *dup = NULL;

		assert_int_equal(pmc_result_add_benchmark(b, "bench/01234", NULL, &dup), -EEXIST);
	}
	assert_ptr_equal(pmc_result_find_benchmark(b, "one more"), &b->benchmarks[3000]);
	unlink(path);
	free(path);
	pmc_result_free(a);
	pmc_result_free(b);
}

/* Loading reads a file one top-level member and one benchmark at a time; the members may
 * come in any order around "benchmarks", with any white space between them, and a
 * benchmark may be larger than the part of the file read at once (128 KiB). */
static void members_around_the_benchmarks_and_large_benchmarks_load(void **state)
{
	struct pmc_result *a = sample_result(), *b = NULL;
	struct pmc_benchmark *big = t_bench(a, "many runs", "x");
	char *path = path_in_dir(tmpdir, "around.json"), err[512] = "", *text, *doc, *bench;
	struct stat st;
	int rc;

	/* 20,000 runs of two counters: about 1 MB of text in one benchmark. */
	for (int i = 0; i < 20000; i++) {
		struct pmc_run_info ok = {0};
		struct pmc_reading rd =
		    reading(i % 7 ? PMC_STATUS_COUNTED : PMC_STATUS_SCALED, 1000000 + (uint64_t)i,
			    4000000, i % 7 ? 4000000 : 1999);

		assert_int_equal(pmc_benchmark_add_run(big, &ok), 0);
		assert_int_equal(pmc_metric_append(t_metric(big, "cycles"), rd.scaled, &rd), 0);
		assert_int_equal(pmc_metric_append(t_metric(big, "task-clock"), rd.scaled, &rd), 0);
	}
	text = t_dumps(a);
	assert_non_null(text);
	/* The benchmarks first after the schema, the rest after them; odd white space. */
	bench = strstr(text, ",\n\"benchmarks\":[");
	assert_non_null(bench);
	*bench = '\0';
	bench += 2;
	bench[strlen(bench) - 2] = '\0'; /* drops the final "}\n" */
	assert_true(asprintf(&doc,
			     " \t\r\n{\"schema\" :\t\"pmcbench-result/1\" ,\r\n%s \n, \"later\": "
			     "{\"a\": [1, {\"b\": null}]},%s\n}\n\n",
			     bench, strstr(text, "\"tool\"")) > 0);
	write_text(path, doc, strlen(doc));
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size > 1000000);
	rc = pmc_result_load(path, &b, err, sizeof(err));
	if (rc)
		fail_msg("load: %d %s", rc, err);
	as_saved(a);
	assert_results_equal(a, b);
	assert_int_equal(pmc_result_find_benchmark(b, "many runs")->nruns, 20000);

	unlink(path);
	free(path);
	free(doc);
	free(text);
	pmc_result_free(a);
	pmc_result_free(b);
}

/* A pipe cannot be read twice: it is parsed whole, and loads the same. */
static void results_load_from_a_pipe(void **state)
{
	struct pmc_result *a = large_result(50), *b = NULL;
	char *path = path_in_dir(tmpdir, "fifo.json"), *text = t_dumps(a), err[512] = "";
	pid_t pid;
	int rc, status;

	assert_non_null(text);
	assert_int_equal(mkfifo(path, 0600), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		FILE *f = fopen(path, "w");

		_exit(f && fputs(text, f) >= 0 && fclose(f) == 0 ? 0 : 1);
	}
	rc = pmc_result_load(path, &b, err, sizeof(err));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (rc)
		fail_msg("load: %d %s", rc, err);
	assert_int_equal(status, 0);
	assert_results_equal(a, b);
	unlink(path);
	free(path);
	free(text);
	pmc_result_free(a);
	pmc_result_free(b);
}

/* Run as "test_result --load-peak FILE": loads FILE and prints how much the peak memory
 * of this process grew, in KiB. */
static int load_peak(const char *path)
{
	struct pmc_result *r = NULL;
	struct rusage before, after;
	char err[512];

	getrusage(RUSAGE_SELF, &before);
	if (pmc_result_load(path, &r, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	getrusage(RUSAGE_SELF, &after);
	printf("%ld\n", after.ru_maxrss - before.ru_maxrss);
	pmc_result_free(r);
	return 0;
}

/* compare holds two large results at once: loading one never holds the jansson tree of
 * the whole file (several times the size of the text), only the model and the tree of
 * one benchmark. Measured in a fresh process, whose peak memory is its own. */
static void large_files_load_without_a_whole_tree(void **state)
{
	struct pmc_result *a = large_result(5000);
	char *path = path_in_dir(tmpdir, "peak.json"), err[512] = "", cmd[400], out[64] = "";
	struct stat st;
	long grew;
	FILE *p;

	assert_int_equal(pmc_result_save(a, path, err, sizeof(err)), 0);
	assert_int_equal(stat(path, &st), 0);
	/* Under ASan, freed memory waits in a quarantine instead of being reused, which
	 * would count every benchmark's tree; the measure is of the loader, not of ASan. */
	snprintf(cmd, sizeof(cmd),
		 "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0\" "
		 "/proc/%d/exe --load-peak %s",
		 (int)getpid(), path);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(out, sizeof(out), p));
	assert_int_equal(pclose(p), 0);
	grew = atol(out);
	print_message("%lld bytes of text; the load grew the peak by %ld KiB\n",
		      (long long)st.st_size, grew);
	/* The model of this result takes about the size of the text, the tree of the
	 * whole file seven times that. */
	assert_true(grew > 0);
	assert_true(grew * 1024 < 2 * st.st_size);
	unlink(path);
	free(path);
	pmc_result_free(a);
}

/* A mistake deep in a large file: the message names the file and the JSON path. */
static void errors_deep_in_a_large_file_name_the_path(void **state)
{
	struct pmc_result *a = large_result(3000), *b = NULL;
	char *path = path_in_dir(tmpdir, "large-bad.json"), err[512] = "", *text, want[600];
	json_error_t jerr;
	json_t *root, *samples;
	int rc;

	text = t_dumps(a);
	assert_non_null(text);
	root = json_loads(text, 0, &jerr);
	assert_non_null(root);
	samples = json_object_get(
	    json_object_get(
		json_object_get(json_array_get(json_object_get(root, "benchmarks"), 2998),
				"metrics"),
		"wall-time"),
	    "samples");
	assert_int_equal(json_array_set_new(samples, 7, json_integer(-12345)), 0);
	assert_int_equal(json_dump_file(root, path, JSON_INDENT(1)), 0);
	rc = pmc_result_load(path, &b, err, sizeof(err));
	assert_int_equal(rc, -EINVAL);
	assert_null(b);
	snprintf(want, sizeof(want),
		 "%s: benchmarks[2998].metrics.wall-time.samples[7]: negative time -12345; "
		 "times cannot be negative — regenerate the file with pmcbench run",
		 path);
	assert_string_equal(err, want);
	json_decref(root);
	unlink(path);
	free(path);
	free(text);
	pmc_result_free(a);
}

/* The example in docs/result-schema.md is laid out otherwise than pmcbench writes
 * (indented, doubles in their shortest form, defaults left out or written): it loads,
 * and the example stays true to the schema. */
static void the_documented_example_loads(void **state)
{
	char *doc = read_text(PMC_TEST_SRCDIR "/../docs/result-schema.md"), *start, *end;
	char *path = path_in_dir(tmpdir, "example.json"), err[512] = "";
	const struct pmc_metric *m;
	const struct pmc_benchmark *b;
	struct pmc_result *r = NULL, *again = NULL;
	int rc;

	start = strstr(doc, "```json\n");
	assert_non_null(start);
	start += strlen("```json\n");
	end = strstr(start, "```");
	assert_non_null(end);
	write_text(path, start, (size_t)(end - start));
	rc = pmc_result_load(path, &r, err, sizeof(err));
	if (rc)
		fail_msg("load: %d %s", rc, err);
	assert_string_equal(r->backend, "perf");
	assert_string_equal(pmc_result_get_env(r, "hypervisor"), "KVM");
	assert_int_equal(r->nbench, 1);
	b = &r->benchmarks[0];
	assert_string_equal(b->build_id, "2821d57feb945c3ed5a40fbd607157447c51dc21");
	assert_int_equal(b->nruns, 3);
	assert_int_equal(b->runs[2].exit_code, -1);
	assert_int_equal(b->runs[2].term_signal, 9);
	assert_true(b->runs[2].timed_out);
	assert_true(b->runs[0].switches && b->runs[2].switches);
	assert_int_equal(b->runs[1].voluntary_switches, 1);
	assert_int_equal(b->runs[1].involuntary_switches, 5);
	assert_int_equal(b->runs[2].involuntary_switches, 0);

	m = pmc_benchmark_find_metric(b, "task-clock");
	assert_non_null(m);
	assert_true(m->has_status);
	assert_same_double(m->values[0], 1893312, "task-clock", 0);
	assert_same_double(m->values[1], 1899730.4730415763, "task-clock", 1);
	assert_true(isnan(m->values[2]));
	assert_int_equal(m->status[1], PMC_STATUS_SCALED);
	assert_int_equal(m->status[2], PMC_STATUS_NOT_COUNTED);
	assert_int_equal(m->raw[1].value, 950113);
	assert_int_equal(m->raw[1].enabled, 1901544);
	assert_int_equal(m->raw[1].running, 951020);

	m = pmc_benchmark_find_metric(b, "cycles");
	assert_non_null(m);
	assert_int_equal(m->error, ENOENT);
	assert_string_equal(m->note, "no hardware PMU on this machine");
	assert_int_equal(m->status[0], PMC_STATUS_UNSUPPORTED);

	m = pmc_benchmark_find_metric(b, "cpus-utilized");
	assert_non_null(m);
	assert_true(m->derived && m->cross_group && !m->has_status);
	assert_same_double(m->values[0], 0.89962, "cpus-utilized", 0);

	/* Saved in today's layout, it loads to the same model. */
	assert_int_equal(pmc_result_save(r, path, err, sizeof(err)), 0);
	rc = pmc_result_load(path, &again, err, sizeof(err));
	if (rc)
		fail_msg("reload: %d %s", rc, err);
	assert_results_equal(r, again);

	unlink(path);
	free(path);
	free(doc);
	pmc_result_free(r);
	pmc_result_free(again);
}

/* A jansson value made before the first load, freed after loads began. */
static json_t *made_before_loading;

struct load_loop {
	const char *path;
	int rc[10];
	struct pmc_result *got[10];
};

/* Loads one file ten times; the main thread checks the results (cmocka's asserts belong
 * to the main thread). */
static void *load_in_loop(void *arg)
{
	struct load_loop *l = arg;

	for (int i = 0; i < 10; i++)
		l->rc[i] = pmc_result_load(l->path, &l->got[i], NULL, 0);
	return NULL;
}

static void assert_loads(struct load_loop *l, const struct pmc_result *want)
{
	for (int i = 0; i < 10; i++) {
		assert_int_equal(l->rc[i], 0);
		assert_results_equal(want, l->got[i]);
		pmc_result_free(l->got[i]);
	}
}

/* compare loads its two files on two threads at once. Each load has its own arena for
 * jansson's tree, and jansson used meanwhile on another thread (here: building, dumping
 * and freeing trees, and freeing one made before any load) keeps the plain allocator:
 * under ASan, any mix-up is an error. */
static void loads_on_two_threads_at_once(void **state)
{
	struct pmc_result *small = sample_result(), *large = large_result(300);
	char *p1 = path_in_dir(tmpdir, "t1.json"), *p2 = path_in_dir(tmpdir, "t2.json");
	char err[512] = "";
	struct load_loop l1 = {.path = p1}, l2 = {.path = p2};
	pthread_t t1, t2;

	assert_int_equal(pmc_result_save(small, p1, err, sizeof(err)), 0);
	assert_int_equal(pmc_result_save(large, p2, err, sizeof(err)), 0);
	as_saved(small);
	assert_int_equal(pthread_create(&t1, NULL, load_in_loop, &l1), 0);
	assert_int_equal(pthread_create(&t2, NULL, load_in_loop, &l2), 0);
	for (int i = 0; i < 200; i++) {
		json_t *j = json_pack("{s:[i, f, s]}", "x", i, i / 3.0, "text");
		char *text;

		assert_non_null(j);
		text = json_dumps(j, 0);
		assert_non_null(text);
		free(text);
		json_decref(j);
	}
	json_decref(made_before_loading);
	made_before_loading = NULL;
	assert_int_equal(pthread_join(t1, NULL), 0);
	assert_int_equal(pthread_join(t2, NULL), 0);
	assert_loads(&l1, small);
	assert_loads(&l2, large);
	unlink(p1);
	unlink(p2);
	free(p1);
	free(p2);
	pmc_result_free(small);
	pmc_result_free(large);
}

/* ---- Atomic saves --------------------------------------------------------------- */

static void save_replaces_and_keeps_the_mode(void **state)
{
	struct pmc_result *a = sample_result();
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
	assert_non_null(strstr(text, "\"kernel\":\"replaced\""));
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
	struct pmc_result *a = sample_result();
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
	struct pmc_result *a = sample_result();
	char *path = path_in_dir(tmpdir, "invalid.json"), err[512] = "", *missing;
	struct pmc_run_info ok = {0};

	/* One run more than the metrics have samples. */
	assert_int_equal(pmc_benchmark_add_run(&a->benchmarks[0], &ok), 0);
	assert_int_equal(pmc_result_save(a, path, err, sizeof(err)), -EINVAL);
	assert_contains(err, path);
	assert_contains(
	    err, "benchmark \"loop \"1000\"\": metric \"wall-time\" has 8 samples for 9 runs");
	assert_int_equal(access(path, F_OK), -1);
	{
		char *none = NULL;

		assert_int_equal(pmc_result_dumps(a, NULL, &none), -EINVAL);
		assert_null(none);
	}
	a->benchmarks[0].nruns--;

	/* A negative count. */
	a->benchmarks[0].metrics[0].values[1] = -1;
	assert_int_equal(pmc_result_save(a, path, err, sizeof(err)), -EINVAL);
	assert_contains(err, "metric \"wall-time\": run 1 has the time -1");
	a->benchmarks[0].metrics[0].values[1] = 1;

	/* A raw count no kernel reports, and JSON readers cannot hold. */
	a->benchmarks[0].metrics[2].raw[3].value = UINT64_MAX;
	assert_int_equal(pmc_result_save(a, path, err, sizeof(err)), -EINVAL);
	assert_contains(err, "metric \"cycles:u\": run 3: a raw reading above 2^63 - 1");
	a->benchmarks[0].metrics[2].raw[3].value = INT64_MAX;

	/* A run killed by a signal that claims an exit code. */
	a->benchmarks[0].runs[5].exit_code = 0;
	assert_int_equal(pmc_result_save(a, path, err, sizeof(err)), -EINVAL);
	assert_contains(err, "run 5 has exit code 0 and signal 9");
	a->benchmarks[0].runs[5].exit_code = -1;

	/* Iterations JSON readers cannot hold. */
	a->benchmarks[1].runs[0].iterations = UINT64_MAX;
	assert_int_equal(pmc_result_save(a, path, err, sizeof(err)), -EINVAL);
	assert_contains(err, "run 0 has 18446744073709551615 iterations, beyond 2^63 - 1");
	a->benchmarks[1].runs[0].iterations = 1;

	/* A directory that does not exist. */
	missing = path_in_dir(tmpdir, "no/such/dir.json");
	assert_int_equal(pmc_result_save(a, missing, err, sizeof(err)), -ENOENT);
	assert_contains(err, "cannot write");
	assert_contains(err, missing);
	free(missing);
	free(path);
	pmc_result_free(a);
}

/* A skipped benchmark is written with its reason and empty runs and metrics (what a
 * reader that does not know "skipped" sees), read back as skipped, and never holds a
 * run or a number. */
/* text with the first `from` replaced by `to`, malloc'ed. */
static char *replaced(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	size_t head, len;
	char *out;

	assert_non_null(at);
	head = (size_t)(at - text);
	len = strlen(text) - strlen(from) + strlen(to);
	out = malloc(len + 1);
	assert_non_null(out);
	memcpy(out, text, head);
	strcpy(out + head, to);
	strcat(out, at + strlen(from));
	return out;
}

/* The process of each run and the loop's overhead beside a metric (docs/result-schema.md)
 * are saved and loaded back; a process of 0 or a negative overhead is refused with the
 * place named. */
static void processes_and_loop_overhead_round_trip(void **state)
{
	struct pmc_result *a = t_result("perf"), *b = NULL;
	struct pmc_benchmark *bm = t_bench(a, "lcg", NULL);
	struct pmc_metric *m = t_metric(bm, "wall-time/op");
	char *path = path_in_dir(tmpdir, "processes.json"), *text, *bad, err[512] = "";
	int rc;

	(void)state;
	for (unsigned i = 0; i < 4; i++) {
		struct pmc_run_info run = {.iterations = 1000, .process = i / 2 + 1};

		assert_int_equal(pmc_benchmark_add_run(bm, &run), 0);
		assert_int_equal(pmc_metric_append(m, 1.25 + i, NULL), 0);
	}
	m->has_loop_overhead = true;
	m->loop_overhead = 0.3125;
	rc = pmc_result_save(a, path, err, sizeof(err));
	if (rc)
		fail_msg("save: %s", err);
	text = read_text(path);
	assert_contains(text, "\"process\":2");
	assert_contains(text, "\"loop_overhead\":0.3125");
	rc = pmc_result_load(path, &b, err, sizeof(err));
	if (rc)
		fail_msg("load: %s", err);
	assert_int_equal(b->benchmarks[0].runs[0].process, 1);
	assert_int_equal(b->benchmarks[0].runs[3].process, 2);
	m = pmc_benchmark_find_metric(&b->benchmarks[0], "wall-time/op");
	assert_true(m->has_loop_overhead && m->loop_overhead == 0.3125);
	pmc_result_free(b);
	b = NULL;

	bad = replaced(text, "\"process\":2", "\"process\":0");
	write_text(path, bad, strlen(bad));
	assert_int_equal(pmc_result_load(path, &b, err, sizeof(err)), -EINVAL);
	assert_contains(err, "process");
	assert_contains(err, "expected an integer from 1");
	free(bad);
	bad = replaced(text, "\"loop_overhead\":0.3125", "\"loop_overhead\":-1");
	write_text(path, bad, strlen(bad));
	assert_int_equal(pmc_result_load(path, &b, err, sizeof(err)), -EINVAL);
	assert_contains(err, "loop_overhead");
	assert_contains(err, "expected a number from 0");
	assert_null(b);
	free(bad);
	free(text);
	unlink(path);
	free(path);
	pmc_result_free(a);
}

/* A run a signal stopped says so in "incomplete", after "design" (docs/result-schema.md),
 * and reads back; a whole run has no such key. */
static void incomplete_round_trips(void **state)
{
	struct pmc_result *a = t_result("perf"), *b = NULL;
	char *path = path_in_dir(tmpdir, "incomplete.json"), *text, err[512] = "";
	int rc;

	(void)state;
	t_bench(a, "fast", NULL);
	text = t_dumps(a);
	assert_null(strstr(text, "\"incomplete\""));
	free(text);
	a->incomplete = strdup("stopped by signal 2 (Interrupt) after 1 of 2 benchmarks");
	text = t_dumps(a);
	assert_contains(text, "\n\"incomplete\":\"stopped by signal 2 (Interrupt) after 1 of 2 "
			      "benchmarks\",\n");
	free(text);
	rc = pmc_result_save(a, path, err, sizeof(err));
	if (rc)
		fail_msg("save: %d %s", rc, err);
	rc = pmc_result_load(path, &b, err, sizeof(err));
	if (rc)
		fail_msg("load: %d %s", rc, err);
	assert_string_equal(b->incomplete, a->incomplete);
	pmc_result_free(b);
	pmc_result_free(a);
	free(path);
}

static void skipped_benchmarks_round_trip(void **state)
{
	struct pmc_result *a = t_result("perf"), *b = NULL;
	struct pmc_benchmark *bm;
	struct pmc_metric *m = NULL;
	struct pmc_run_info ok = {0};
	char *path = path_in_dir(tmpdir, "skipped.json"), *text, err[512] = "";
	int rc;

	bm = t_bench(a, "avx2", NULL);
	assert_int_equal(pmc_benchmark_set_skipped(bm, "no AVX2 on this CPU"), 0);
	assert_int_equal(pmc_benchmark_add_run(bm, &ok), -EINVAL);
	assert_int_equal(pmc_benchmark_metric(bm, "wall-time/op", &m), -EINVAL);
	assert_null(m);
	bm = t_bench(a, "quiet", NULL);
	assert_int_equal(pmc_benchmark_set_skipped(bm, NULL), 0);
	bm = t_bench(a, "ran", NULL);
	assert_int_equal(pmc_benchmark_add_run(bm, &ok), 0);
	assert_int_equal(pmc_metric_append(t_metric(bm, "wall-time"), 5, NULL), 0);
	assert_int_equal(pmc_benchmark_set_skipped(bm, "too late"), -EINVAL);
	assert_null(bm->skipped);

	text = t_dumps(a);
	assert_contains(text, "\n{\"name\":\"avx2\",\"command\":null,\"build_id\":null,"
			      "\"skipped\":\"no AVX2 on this CPU\",\"runs\":[],\"metrics\":{}}");
	assert_contains(text, "\"name\":\"quiet\",\"command\":null,\"build_id\":null,"
			      "\"skipped\":\"\",\"runs\":[]");
	assert_null(
	    strstr(text, "\"name\":\"ran\",\"command\":null,\"build_id\":null,\"skipped\""));
	free(text);
	rc = pmc_result_save(a, path, err, sizeof(err));
	if (rc)
		fail_msg("save: %d %s", rc, err);
	rc = pmc_result_load(path, &b, err, sizeof(err));
	if (rc)
		fail_msg("load: %d %s", rc, err);
	assert_results_equal(a, b);
	assert_string_equal(pmc_result_find_benchmark(b, "avx2")->skipped, "no AVX2 on this CPU");
	assert_string_equal(pmc_result_find_benchmark(b, "quiet")->skipped, "");
	assert_null(pmc_result_find_benchmark(b, "ran")->skipped);
	pmc_result_free(b);

	/* A struct built by hand that contradicts itself is refused before writing. */
	bm = pmc_result_find_benchmark(a, "ran");
	bm->skipped = strdup("made up");
	assert_int_equal(pmc_result_save(a, path, err, sizeof(err)), -EINVAL);
	assert_contains(err, "benchmark \"ran\" is skipped but has 1 runs and 1 metrics");
	text = NULL;
	assert_int_equal(pmc_result_dumps(a, NULL, &text), -EINVAL);
	assert_null(text);
	unlink(path);
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

#define REGEN "regenerate the file with pmcbench run"

/* A metric's "raw" object from its three arrays' entries. */
#define RAW(value, enabled, running)                                                               \
	"{\"value\": [" value "], \"time_enabled\": [" enabled "], \"time_running\": [" running "]}"

struct bad_case {
	const char *from, *to; /* the change to base_doc */
	/* A schema error: the whole line after "<file>: ". A syntax error: a part of what
	 * follows "<file>:<line>:<col>: ". */
	const char *message;
	bool syntax;
};

/* Schema errors name the JSON path; syntax errors are jansson's, with its position. */
static const struct bad_case bad_cases[] = {
    {"[10, 20]", "[10, -5]",
     "benchmarks[0].metrics.cycles.samples[1]: negative count -5; counts cannot be "
     "negative — " REGEN},
    {"[10, 20]", "[10]",
     "benchmarks[0].metrics.cycles.samples: 1 samples for 2 runs; every metric has one "
     "sample per run (null when not measured) — " REGEN},
    {"20]", "NaN]", "invalid token near 'NaN'; the file is not valid JSON — " REGEN, true},
    {"20]", "-Infinity]", "invalid token near '-'; the file is not valid JSON", true},
    {"20]", "1e999]", "real number overflow near '1e999'; numbers must fit in a double", true},
    {"20]", "99999999999999999999]", "too big integer", true},
    {"20]", "\"20\"]",
     "benchmarks[0].metrics.cycles.samples[1]: expected a number or null, found a string; " REGEN},
    {"20]", "010]", "invalid token near '0'", true},
    {"pmcbench-result/1", "pmcbench-result/2",
     "schema: schema \"pmcbench-result/2\" was written by a newer pmcbench; upgrade "
     "pmcbench to read it (this one reads pmcbench-result/1)"},
    {"pmcbench-result/1", "criterion/1",
     "schema: unknown schema \"criterion/1\"; this is not a pmcbench result file (expected "
     "\"pmcbench-result/1\")"},
    {"\"schema\": \"pmcbench-result/1\",", "",
     "no \"schema\" key; this is not a pmcbench result file (a result starts with "
     "\"schema\": \"pmcbench-result/1\")"},
    {"\"perf\"", "5", "backend: expected a string, found a number; " REGEN},
    {"\"perf\"", "\"\"", "backend: empty backend; " REGEN},
    {"\"backend\": \"perf\",", "\"backend\": \"perf\", \"backend\": \"perf\",",
     "duplicate object key near '\"backend\"'; a key given twice is ambiguous — " REGEN, true},
    {"\"backend\": \"perf\",", "", "missing key \"backend\"; " REGEN},
    /* status: one name for every run, or one per run; raw: three parallel arrays. */
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": \"bogus\", \"raw\": " RAW("10, 20", "5, 5", "5, 5"),
     "benchmarks[0].metrics.cycles.status: unknown status \"bogus\"; expected counted, "
     "scaled, not-counted, unsupported, denied or exact — " REGEN},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": [\"counted\", \"bogus\"], \"raw\": " RAW("10, 20", "5, 5",
										  "5, 5"),
     "benchmarks[0].metrics.cycles.status[1]: unknown status \"bogus\"; expected counted, "
     "scaled, not-counted, unsupported, denied or exact — " REGEN},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": [\"counted\", 3], \"raw\": " RAW("10, 20", "5, 5", "5, 5"),
     "benchmarks[0].metrics.cycles.status[1]: expected a status name, found a number; " REGEN},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": {}, \"raw\": " RAW("10, 20", "5, 5", "5, 5"),
     "benchmarks[0].metrics.cycles.status: expected a status name, or an array of one per "
     "run, found an object; " REGEN},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": [\"counted\"], \"raw\": " RAW("10, 20", "5, 5", "5, 5"),
     "benchmarks[0].metrics.cycles.status: 1 statuses for 2 samples; " REGEN},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, null], \"status\": \"counted\", \"raw\": " RAW("10, 20", "5, 5", "5, 5"),
     "benchmarks[0].metrics.cycles.samples[1]: null for a run with status \"counted\", "
     "which has a value; " REGEN},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": [\"counted\", \"unsupported\"], \"raw\": " RAW(
	 "10, null", "5, null", "5, null"),
     "benchmarks[0].metrics.cycles.samples[1]: a number for a run with status "
     "\"unsupported\", which was not measured; it must be null — " REGEN},
    {"\"samples\": [10, 20]", "\"samples\": [10, 20], \"status\": \"counted\"",
     "benchmarks[0].metrics.cycles: \"status\" and \"raw\" come together; " REGEN},
    {"\"samples\": [10, 20]", "\"samples\": [10, 20], \"raw\": " RAW("10, 20", "5, 5", "5, 5"),
     "benchmarks[0].metrics.cycles: \"status\" and \"raw\" come together; " REGEN},
    /* The layout of the first version, a triple per run, is not this one. */
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": \"counted\", \"raw\": [[10, 5, 5], [20, 5, 5]]",
     "benchmarks[0].metrics.cycles.raw: expected an object, found an array; " REGEN},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": \"counted\", \"raw\": {\"value\": [10, 20], "
     "\"time_enabled\": [5, 5]}",
     "benchmarks[0].metrics.cycles.raw: missing key \"time_running\"; " REGEN},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": \"counted\", \"raw\": {\"value\": 10, "
     "\"time_enabled\": [5, 5], \"time_running\": [5, 5]}",
     "benchmarks[0].metrics.cycles.raw.value: expected an array, found a number; " REGEN},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": \"counted\", \"raw\": " RAW("10, 20", "5", "5, 5"),
     "benchmarks[0].metrics.cycles.raw.time_enabled: 1 entries for 2 samples; " REGEN},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": \"counted\", \"raw\": " RAW("10, 20", "5, 5", "5, 5, 5"),
     "benchmarks[0].metrics.cycles.raw.time_running: 3 entries for 2 samples; " REGEN},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": \"counted\", \"raw\": " RAW("10, 20", "5, \"5\"", "5, 5"),
     "benchmarks[0].metrics.cycles.raw.time_enabled[1]: expected a non-negative integer or "
     "null, found a string; " REGEN},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": \"counted\", \"raw\": " RAW("-10, 20", "5, 5", "5, 5"),
     "benchmarks[0].metrics.cycles.raw.value[0]: value -10 is not a non-negative integer; raw "
     "readings are what the kernel returned — " REGEN},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": \"counted\", \"raw\": " RAW("10, 20", "5.5, 5", "5, 5"),
     "benchmarks[0].metrics.cycles.raw.time_enabled[0]: time_enabled 5.5 is not a "
     "non-negative integer; raw readings are what the kernel returned — " REGEN},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": \"counted\", \"raw\": " RAW("10, 20", "5, 5", "5, 1e3"),
     "benchmarks[0].metrics.cycles.raw.time_running[1]: time_running 1000 is not a "
     "non-negative integer; raw readings are what the kernel returned — " REGEN},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": \"counted\", \"raw\": " RAW("10, 20", "5, 5", "5, 6"),
     "benchmarks[0].metrics.cycles.raw.time_running[1]: time_running 6 exceeds time_enabled "
     "5; the kernel never reports that — " REGEN},
    /* A run's reading is all three, a value alone, or nothing. */
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": \"counted\", \"raw\": " RAW("10, 20", "5, 5", "5, null"),
     "benchmarks[0].metrics.cycles.raw: run 1 has time_enabled but no time_running; a "
     "reading is a value with time_enabled and time_running, a value alone (simulated), or "
     "nothing (all null) — " REGEN},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": \"exact\", \"raw\": " RAW("10, 20", "null, null",
								   "5, null"),
     "benchmarks[0].metrics.cycles.raw: run 0 has time_running but no time_enabled; a "
     "reading is a value with time_enabled and time_running, a value alone (simulated), or "
     "nothing (all null) — " REGEN},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, null], \"status\": [\"counted\", \"denied\"], \"raw\": " RAW(
	 "10, null", "5, 5", "5, 5"),
     "benchmarks[0].metrics.cycles.raw: run 1 has times but no value; a reading is a value "
     "with time_enabled and time_running, a value alone (simulated), or nothing (all null) "
     "— " REGEN},
    /* ... and the one its status calls for. */
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": \"counted\", \"raw\": " RAW("10, null", "5, null",
								     "5, null"),
     "benchmarks[0].metrics.cycles.raw: run 1 has no reading, but its status \"counted\" "
     "calls for a value with time_enabled and time_running — " REGEN},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": [\"exact\", \"counted\"], \"raw\": " RAW("10, 20", "5, 5",
										  "5, 5"),
     "benchmarks[0].metrics.cycles.raw: run 0 has a value with time_enabled and "
     "time_running, but its status \"exact\" calls for a value without times — " REGEN},
    {"\"samples\": [10, 20]",
     "\"samples\": [10, 20], \"status\": \"scaled\", \"raw\": " RAW("10, 20", "null, 5", "null, 3"),
     "benchmarks[0].metrics.cycles.raw: run 0 has a value without times, but its status "
     "\"scaled\" calls for a value with time_enabled and time_running — " REGEN},
    {"\"samples\": [10, 20]",
     "\"samples\": [null, null], \"status\": \"unsupported\", \"raw\": " RAW(
	 "0, null", "null, null", "null, null"),
     "benchmarks[0].metrics.cycles.raw: run 0 has a value without times, but its status "
     "\"unsupported\" calls for no reading — " REGEN},
    {"\"unit\": \"count\", ", "", "benchmarks[0].metrics.cycles: missing key \"unit\"; " REGEN},
    {"\"samples\": [10, 20]", "\"samples\": {}",
     "benchmarks[0].metrics.cycles.samples: expected an array, found an object; " REGEN},
    {"\"lower\"", "\"sideways\"",
     "benchmarks[0].metrics.cycles.better: \"better\" is \"lower\" or \"higher\", not "
     "\"sideways\"; " REGEN},
    {"\"better\": \"lower\",", "\"better\": \"lower\", \"error\": \"EFOO\",",
     "benchmarks[0].metrics.cycles.error: unknown errno name \"EFOO\"; " REGEN},
    {"\"better\": \"lower\",", "\"better\": \"lower\", \"derived\": 1,",
     "benchmarks[0].metrics.cycles.derived: expected true or false, found a number; " REGEN},
    {"{\"exit_code\": 0}, {", "{\"exit_code\": 300}, {",
     "benchmarks[0].runs[0].exit_code: expected an integer from -1 to 255, found 300; " REGEN},
    {"{\"exit_code\": 0}, {", "{\"exit_code\": 0, \"signal\": 9}, {",
     "benchmarks[0].runs[0]: a run killed by signal 9 has exit_code -1, not 0; " REGEN},
    {"{\"exit_code\": 0}, {", "{}, {", "benchmarks[0].runs[0]: missing key \"exit_code\"; " REGEN},
    /* The iterations a microbenchmark's run is per: a count, absent when not known. */
    {"{\"exit_code\": 0}, {", "{\"exit_code\": 0, \"iterations\": 0}, {",
     "benchmarks[0].runs[0].iterations: expected a whole number from 1, found 0; " REGEN},
    {"{\"exit_code\": 0}, {", "{\"exit_code\": 0, \"iterations\": 1.5}, {",
     "benchmarks[0].runs[0].iterations: expected a whole number from 1, found 1.5; " REGEN},
    /* "skipped" is the reason, a string; a skipped benchmark measured nothing. */
    {"\"name\": \"a\"", "\"name\": \"a\", \"skipped\": true",
     "benchmarks[0].skipped: expected a string (why the benchmark was skipped), found a "
     "boolean; " REGEN},
    {"\"name\": \"a\"", "\"name\": \"a\", \"skipped\": null",
     "benchmarks[0].skipped: expected a string (why the benchmark was skipped), found "
     "null; " REGEN},
    {"\"name\": \"a\"", "\"name\": \"a\", \"skipped\": \"no AVX2\"",
     "benchmarks[0].skipped: the benchmark was skipped (\"no AVX2\") but has 2 runs and 1 "
     "metrics; a skipped benchmark measured nothing — " REGEN},
    /* "parameters": an object of strings, as hyperfine writes it. */
    {"\"name\": \"a\"", "\"name\": \"a\", \"parameters\": [\"n\"]",
     "benchmarks[0].parameters: expected an object, found an array; " REGEN},
    {"\"name\": \"a\"", "\"name\": \"a\", \"parameters\": {\"n\": 10}",
     "benchmarks[0].parameters.n: expected a string (the parameter's value), found a "
     "number; " REGEN},
    {"\"name\": \"a\"", "\"name\": \"a\", \"parameters\": {\"\": \"10\"}",
     "benchmarks[0].parameters: a parameter with an empty name; " REGEN},
    {"\"name\": \"a\"", "\"name\": \"a\", \"build_id\": \"XYZ\"",
     "benchmarks[0].build_id: a build-id is lower-case hex digits, not \"XYZ\"; " REGEN},
    {"\"name\": \"a\"", "\"name\": \"a\", \"time_unit\": \"min\"",
     "benchmarks[0].time_unit: a time unit is ns, us, ms or s, not \"min\"; " REGEN},
    {"\"name\": \"a\",\n      ", "", "benchmarks[0]: missing key \"name\"; " REGEN},
    {"\"cycles\": {",
     "\"cycles\": {\"unit\": \"count\", \"better\": \"lower\", \"samples\": "
     "[1, 2]}, \"cycles\": {",
     "duplicate object key near '\"cycles\"'", true},
    {"    {\n      \"name\": \"a\"",
     "    {\"name\": \"a\", \"runs\": [], \"metrics\": {}},\n    {\n      \"name\": \"a\"",
     "benchmarks[1]: a second benchmark named \"a\" (the first is benchmarks[0]); names "
     "must be unique — " REGEN},
    {"\"metrics\": {\n", "\"metrics\": {\n        \"\": {}, ",
     "benchmarks[0].metrics: empty metric id; " REGEN},
    {"\"name\": \"a\"", "\"name\": \"a\xff\"", "unable to decode byte 0xff", true},
    {"\"name\": \"a\"", "\"name\": \"a\nb\"", "unexpected newline", true},
    {"\"name\": \"a\"", "\"name\": \"\\ud800x\"", "invalid Unicode '\\uD800'", true},
    {"\"name\": \"a\"", "\"name\": \"\\u0000\"", "\\u0000 is not allowed", true},
    {"\"name\": \"a\"", "\"name\": \"\\q\"", "invalid escape", true},
    {"\"backend\": \"perf\",", "\"backend\": \"perf\",,",
     "string or '}' expected near ','; the file is not valid JSON — " REGEN, true},
    {"[10, 20]}", "[10, 20]", "'}' expected near ']'", true},
    {"  ]\n}\n", "  ]\n}\n}",
     "end of file expected near '}'; text follows the end of the result — " REGEN, true},
    {"\"benchmarks\": [", "\"benchmarks\": 7, \"x\": [",
     "benchmarks: expected an array, found a number; " REGEN},
    {"\"backend\": \"perf\",", "\"backend\": \"perf\", \"environment\": {\"cpus\": 2},",
     "environment.cpus: expected a string, found a number; " REGEN},
    {"\"backend\": \"perf\",", "\"backend\": \"perf\", \"tool\": [],",
     "tool: expected an object, found an array; " REGEN},
};

/* Loads text from a file; it must be refused with one line. Returns the line. */
static char *refused(const char *text, size_t len, const char *path)
{
	static char err[600];
	struct pmc_result *r = NULL;
	int rc;

	err[0] = '\0';
	write_text(path, text, len);
	rc = pmc_result_load(path, &r, err, sizeof(err));
	print_message("%s\n", err);
	assert_int_equal(rc, -EINVAL);
	assert_null(r);
	assert_null(strchr(err, '\n'));
	unlink(path);
	return err;
}

/* A run's context switches (docs/result-schema.md): both counts, 0 included, beyond a
 * double's 53 bits, read back; a run without them writes neither and loads as not known,
 * as do the runs of a file written before they were recorded; one without the other, or
 * a count that is not a whole number from 0, is refused. */
static void context_switches_round_trip(void **state)
{
	struct pmc_result *a = t_result("perf"), *b = NULL;
	struct pmc_benchmark *bm = t_bench(a, "sleep", NULL);
	struct pmc_metric *m = t_metric(bm, "wall-time");
	struct pmc_run_info runs[3] = {
	    {.switches = true, .voluntary_switches = 3, .involuntary_switches = 9007199254740993u},
	    {.switches = true},
	    {.exit_code = 0},
	};
	char *path = path_in_dir(tmpdir, "switches.json"), *text, *bad, err[512] = "";
	int rc;

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(pmc_benchmark_add_run(bm, &runs[i]), 0);
		assert_int_equal(pmc_metric_append(m, 1e7, NULL), 0);
	}
	rc = pmc_result_save(a, path, err, sizeof(err));
	if (rc)
		fail_msg("save: %s", err);
	text = read_text(path);
	assert_contains(text, "{\"exit_code\":0,\"voluntary_switches\":3,"
			      "\"involuntary_switches\":9007199254740993}");
	assert_contains(text, "{\"exit_code\":0,\"voluntary_switches\":0,"
			      "\"involuntary_switches\":0},{\"exit_code\":0}]");
	rc = pmc_result_load(path, &b, err, sizeof(err));
	if (rc)
		fail_msg("load: %s", err);
	assert_results_equal(a, b);
	assert_true(b->benchmarks[0].runs[1].switches);
	assert_false(b->benchmarks[0].runs[2].switches);
	pmc_result_free(b);
	b = NULL;

	bad = replaced(text, ",\"involuntary_switches\":0}", "}");
	write_text(path, bad, strlen(bad));
	assert_int_equal(pmc_result_load(path, &b, err, sizeof(err)), -EINVAL);
	assert_contains(err, "benchmarks[0].runs[1]: a run has voluntary_switches without "
			     "involuntary_switches; " REGEN);
	free(bad);
	bad = replaced(text, "\"voluntary_switches\":3", "\"voluntary_switches\":-3");
	write_text(path, bad, strlen(bad));
	assert_int_equal(pmc_result_load(path, &b, err, sizeof(err)), -EINVAL);
	assert_contains(err, "benchmarks[0].runs[0].voluntary_switches: expected a whole number "
			     "from 0, found -3; " REGEN);
	free(bad);
	bad = replaced(text, "\"voluntary_switches\":3", "\"voluntary_switches\":\"3\"");
	write_text(path, bad, strlen(bad));
	assert_int_equal(pmc_result_load(path, &b, err, sizeof(err)), -EINVAL);
	assert_contains(err, "benchmarks[0].runs[0].voluntary_switches: expected a whole number");
	assert_null(b);
	free(bad);
	free(text);

	/* The runs of an older file, without them: not known, never 0. */
	write_text(path, base_doc, strlen(base_doc));
	rc = pmc_result_load(path, &b, err, sizeof(err));
	if (rc)
		fail_msg("load: %s", err);
	assert_int_equal(b->benchmarks[0].nruns, 2);
	assert_false(b->benchmarks[0].runs[0].switches);
	assert_false(b->benchmarks[0].runs[1].switches);
	pmc_result_free(b);

	/* Counts JSON readers cannot hold are refused when saving. */
	a->benchmarks[0].runs[0].involuntary_switches = UINT64_MAX;
	assert_int_equal(pmc_result_save(a, path, err, sizeof(err)), -EINVAL);
	assert_contains(err, "run 0 has 3 voluntary and 18446744073709551615 involuntary context "
			     "switches, beyond 2^63 - 1");
	unlink(path);
	free(path);
	pmc_result_free(a);
}

/* A schema error: exactly "<file>: <message>". */
static void expect_schema_error(const char *text, size_t len, const char *message)
{
	char *path = path_in_dir(tmpdir, "bad.json"), want[700];

	snprintf(want, sizeof(want), "%s: %s", path, message);
	assert_string_equal(refused(text, len, path), want);
	free(path);
}

/* A syntax error: "<file>:<line>:<col>: " where jansson, given the text, sees it (in
 * characters from 1; a byte order mark is one), then a line containing message. */
static void expect_syntax_error(const char *text, size_t len, const char *message)
{
	char *path = path_in_dir(tmpdir, "bad.json"), want[700], *err;
	bool bom = len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0;
	json_error_t jerr;
	json_t *j;

	j = json_loadb(text + 3 * bom, len - 3 * bom, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY,
		       &jerr);
	assert_null(j);
	snprintf(want, sizeof(want), "%s:%d:%d: ", path, jerr.line,
		 jerr.column + (bom && jerr.line == 1));
	err = refused(text, len, path);
	if (strncmp(err, want, strlen(want)) != 0)
		fail_msg("error \"%s\"\n  does not start with \"%s\"", err, want);
	assert_contains(err, message);
	assert_contains(err, REGEN);
	free(path);
}

/* The loader blanks the metrics' summaries before jansson parses a benchmark: wherever
 * the summary is among the members, whatever strings it or the names hold, the file
 * loads as the same document without it; text that only looks like a summary (in a
 * string, elsewhere in the document) is read as it is, and broken brackets are refused
 * with jansson's error. */
static void summaries_are_skipped_wherever_they_are(void **state)
{
	static const struct {
		const char *from, *to;
	} same[] = {
	    {"\"samples\"",
	     "\"summary\": {\"n\": 2, \"s\": \"}{]\\\"\\\\\", \"a\": [{}]}, \"samples\""},
	    {"[10, 20]}",
	     "[10, 20], \"summary\"\r\n:\t{\"median_ci\": [1, {\"x\": \"\\u007d\"}]}}"},
	    {"\"samples\": [10, 20]", "\"summary\": {}, \"summary2\": 1, \"samples\": [10, 20]"},
	    {"{\"unit\"", "{\"summary\":{\"n\":null},\"unit\""},
	    /* Not parsed at all: jansson would refuse the duplicate key. */
	    {"\"samples\"", "\"summary\": {\"n\": 1, \"n\": 2}, \"samples\""},
	};
	struct pmc_result *want = NULL, *got = NULL;
	char *path = path_in_dir(tmpdir, "summaries.json"), err[512] = "", *doc, *msg;
	int rc;

	(void)state;
	write_text(path, base_doc, strlen(base_doc));
	rc = pmc_result_load(path, &want, err, sizeof(err));
	if (rc)
		fail_msg("load: %s", err);
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		doc = doc_with(same[i].from, same[i].to);
		write_text(path, doc, strlen(doc));
		rc = pmc_result_load(path, &got, err, sizeof(err));
		if (rc)
			fail_msg("case %zu: %s\n%s", i, err, doc);
		assert_results_equal(want, got);
		pmc_result_free(got);
		got = NULL;
		free(doc);
	}
	/* The same in a benchmark after the first, after white space. */
	doc = doc_with(
	    "\n  ]",
	    ",\n    {\"name\": \"b\", \"runs\": [{\"exit_code\": 0}], \"metrics\": {\"cycles\": "
	    "{\"unit\": \"count\", \"better\": \"lower\", \"summary\": {\"n\": 1, \"n\": 2}, "
	    "\"samples\": [5]}}}\n  ]");
	write_text(path, doc, strlen(doc));
	rc = pmc_result_load(path, &got, err, sizeof(err));
	if (rc)
		fail_msg("%s\n%s", err, doc);
	assert_int_equal(got->nbench, 2);
	pmc_result_free(got);
	got = NULL;
	free(doc);
	/* A name that holds a summary's text is a name. */
	doc = doc_with("\"name\": \"a\"", "\"name\": \"a\\\",\\\"summary\\\":{\\\"n\\\":1}\"");
	write_text(path, doc, strlen(doc));
	rc = pmc_result_load(path, &got, err, sizeof(err));
	if (rc)
		fail_msg("%s", err);
	assert_string_equal(got->benchmarks[0].name, "a\",\"summary\":{\"n\":1}");
	pmc_result_free(got);
	got = NULL;
	free(doc);
	/* Brackets that do not pair up are jansson's syntax error, as without the skip. */
	doc = doc_with("\"samples\"", "\"summary\": {\"n\": [1}, \"samples\"");
	msg = refused(doc, strlen(doc), path);
	assert_non_null(strstr(msg, "summaries.json:9:"));
	free(doc);
	unlink(path);
	free(path);
	pmc_result_free(want);
}

static void bad_documents_name_file_place_and_fix(void **state)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		char *doc = doc_with(c->from, c->to);

		print_message("case %zu: ", i);
		if (c->syntax)
			expect_syntax_error(doc, strlen(doc), c->message);
		else
			expect_schema_error(doc, strlen(doc), c->message);
		free(doc);
	}
}

static void truncated_and_empty_files_are_refused(void **state)
{
	static const char unterminated[] =
	    "{\"schema\": \"pmcbench-result/1\", \"backend\": \"perf\", \"benchm";
	size_t n = strlen(base_doc);

	/* Cut anywhere: always a truncated file, never a crash or a silently shorter
	 * result. */
	for (size_t cut = 1; cut < n - 1; cut++) {
		char *path = path_in_dir(tmpdir, "cut.json");

		print_message("cut at %zu: ", cut);
		assert_contains(refused(base_doc, cut, path), "the file is truncated — " REGEN);
		free(path);
	}
	expect_syntax_error(base_doc, n / 2, "expected near end of file; the file is truncated");
	expect_syntax_error("\"x", 2, "premature end of input near '\"x'; the file is truncated");
	expect_syntax_error(unterminated, strlen(unterminated),
			    "premature end of input near '\"benchm'; the file is truncated");
	expect_schema_error("", 0,
			    "empty file; expected a pmcbench result — regenerate it with "
			    "pmcbench run -o FILE");
	expect_schema_error(" \n\t\r\n ", 6,
			    "empty file; expected a pmcbench result — regenerate it with "
			    "pmcbench run -o FILE");
	expect_schema_error("\xef\xbb\xbf\n", 4,
			    "empty file; expected a pmcbench result — regenerate it with "
			    "pmcbench run -o FILE");
	expect_schema_error("[1, 2]", 6,
			    "expected a JSON object, found an array; this is not a pmcbench "
			    "result file");
	expect_schema_error("5\n", 2,
			    "expected a JSON object, found a number; this is not a pmcbench "
			    "result file");
	/* A mistake in the first benchmark of a truncated file: the text is checked first,
	 * as jansson sees the whole file, wherever the mistakes are. */
	{
		char *doc = doc_with("[10, 20]", "[10, -5]");

		expect_syntax_error(doc, strlen(doc) - 4, "the file is truncated");
		free(doc);
	}
	/* After a byte order mark, columns on line 1 count it. */
	expect_syntax_error("\xef\xbb\xbf{,}", 6, "string or '}' expected near ','");
	expect_syntax_error("\x89PNG\r\n", 6, "unable to decode byte 0x89");
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

/* Many damaged copies of a valid file: each is refused with one line naming the file,
 * or, when it is still a valid result, it writes and loads back to the same model (under
 * ASan, no crash or leak either). The round trip is through memory, by the writer and the
 * loader pmc_result_save and pmc_result_load use: saving a file syncs it to disk twice,
 * which made this test minutes long on a busy disk (the file's part of saving is tested
 * above). */
static void damaged_files_are_refused_or_round_trip(void **state)
{
	static const char alphabet[] = "{}[],:\"\\0123456789-.eE+ntrufals \n\x01\xc3\xa9\xff";
	struct pmc_result *a = sample_result();
	char *text = t_dumps(a), *path = path_in_dir(tmpdir, "fuzz.json");
	size_t n = strlen(text), accepted = 0, rejected = 0;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	char *doc = malloc(n + 2);

	for (int iter = 0; iter < 3000; iter++) {
		struct pmc_result *r = NULL, *r2 = NULL;
		char err[600] = "";
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
		if (rc == 0) {
			char *saved = NULL;
			FILE *f = NULL;

			accepted++;
			rc = pmc_result_dumps(r, NULL, &saved);
			if (rc == 0) {
				f = fmemopen(saved, strlen(saved), "r");
				assert_non_null(f);
				rc = pmc_result_load_stream(f, true, "fuzz-again.json", &r2, err,
							    sizeof(err));
				fclose(f);
			}
			if (rc != 0)
				fail_msg("accepted, but it does not round-trip: %s (change at %zu)",
					 rc == -EINVAL && !saved ? "the writer refuses it" : err,
					 pos);
			free(saved);
			assert_results_equal(r, r2);
		} else {
			rejected++;
			assert_int_equal(rc, -EINVAL);
			assert_null(r);
			if (strncmp(err, path, strlen(path)) != 0 || strchr(err, '\n'))
				fail_msg("bad message \"%s\"", err);
		}
		pmc_result_free(r);
		pmc_result_free(r2);
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

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(new_result_has_version_and_time),
	    cmocka_unit_test(a_benchmark_of_many_runs_loads_a_metric_at_a_time),
	    cmocka_unit_test(env_entries_are_set_and_replaced),
	    cmocka_unit_test(benchmarks_are_unique_and_found),
	    cmocka_unit_test(metrics_take_unit_and_direction_from_the_table),
	    cmocka_unit_test(append_refuses_contradictions),
	    cmocka_unit_test(metric_error_needs_every_run_to_fail),
	    cmocka_unit_test(round_trip_is_exact),
	    cmocka_unit_test(hybrid_parts_round_trip),
	    cmocka_unit_test(terminal_controls_are_escaped_and_load_back),
	    cmocka_unit_test(many_samples_round_trip),
	    cmocka_unit_test(saved_text_follows_the_schema),
	    cmocka_unit_test(summaries_come_from_the_analysis_and_are_not_read),
	    cmocka_unit_test(reordered_and_extended_documents_load),
	    cmocka_unit_test(large_files_round_trip),
	    cmocka_unit_test(members_around_the_benchmarks_and_large_benchmarks_load),
	    cmocka_unit_test(results_load_from_a_pipe),
	    cmocka_unit_test(large_files_load_without_a_whole_tree),
	    cmocka_unit_test(errors_deep_in_a_large_file_name_the_path),
	    cmocka_unit_test(the_documented_example_loads),
	    cmocka_unit_test(loads_on_two_threads_at_once),
	    cmocka_unit_test(save_replaces_and_keeps_the_mode),
	    cmocka_unit_test(failed_write_keeps_the_old_file),
	    cmocka_unit_test(read_only_directory_keeps_the_old_file),
	    cmocka_unit_test(save_refuses_what_would_not_load),
	    cmocka_unit_test(skipped_benchmarks_round_trip),
	    cmocka_unit_test(incomplete_round_trips),
	    cmocka_unit_test(processes_and_loop_overhead_round_trip),
	    cmocka_unit_test(context_switches_round_trip),
	    cmocka_unit_test(bad_documents_name_file_place_and_fix),
	    cmocka_unit_test(summaries_are_skipped_wherever_they_are),
	    cmocka_unit_test(truncated_and_empty_files_are_refused),
	    cmocka_unit_test(directories_and_missing_files_are_refused),
	    cmocka_unit_test(damaged_files_are_refused_or_round_trip),
	};

	if (argc == 3 && strcmp(argv[1], "--load-peak") == 0)
		return load_peak(argv[2]);
	made_before_loading = json_pack("[s, i]", "made before any load", 1);
	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}

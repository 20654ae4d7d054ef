/* The public API of the result model (pmcbench/result.h), used as a program linking
 * libpmcbench would: a result built with it saves, loads back and reads the same through
 * the getters; a value that was not measured reads as -ENODATA, never as 0; counter
 * readings keep their status and are scaled; bad samples are refused. Only the public
 * header is included. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "pmcbench.h"

static struct pmc_result *build(void)
{
	struct pmc_result *r = NULL;
	struct pmc_benchmark *b;
	struct pmc_metric *m;

	assert_int_equal(pmc_result_new("perf", &r), 0);
	assert_int_equal(pmc_result_set_env(r, "kernel", "6.1.0"), 0);
	assert_int_equal(pmc_result_add_benchmark(r, "sort", "./sort 1000", &b), 0);
	assert_int_equal(pmc_benchmark_record_run(b, 0, 0, false), 0);
	assert_int_equal(pmc_benchmark_record_run(b, 0, 0, false), 0);
	assert_int_equal(pmc_benchmark_metric(b, "wall-time", &m), 0);
	assert_int_equal(pmc_metric_add_value(m, 1500.0), 0);
	assert_int_equal(pmc_metric_add_missing(m), 0);
	assert_int_equal(pmc_benchmark_metric(b, "task-clock", &m), 0);
	assert_int_equal(
	    pmc_metric_add_reading(m, &(struct pmc_reading){.status = PMC_STATUS_SCALED,
							    .value = 1000,
							    .enabled = 200,
							    .running = 100}),
	    0);
	assert_int_equal(
	    pmc_metric_add_reading(m, &(struct pmc_reading){.status = PMC_STATUS_NOT_COUNTED,
							    .value = 0,
							    .enabled = 200,
							    .running = 0}),
	    0);
	assert_int_equal(pmc_result_add_benchmark(r, "hash", NULL, &b), 0);
	/* A benchmark that could not run here: its reason, and nothing measured. */
	assert_int_equal(pmc_result_add_benchmark(r, "avx2", NULL, &b), 0);
	assert_int_equal(pmc_benchmark_set_skipped(b, "no AVX2 on this CPU"), 0);
	assert_int_equal(pmc_benchmark_record_run(b, 0, 0, false), -EINVAL);
	assert_int_equal(pmc_benchmark_metric(b, "wall-time", &m), -EINVAL);
	return r;
}

static void check(const struct pmc_result *r)
{
	const struct pmc_benchmark *b;
	const struct pmc_metric *m;
	const char *key, *value;
	enum pmc_status status;
	double v = -1;
	int code = 7, sig = 7;
	bool timed_out = true;

	assert_string_equal(pmc_result_backend(r), "perf");
	assert_string_equal(pmc_result_get_env(r, "kernel"), "6.1.0");
	assert_true(pmc_result_env_count(r) >= 1);
	assert_int_equal(pmc_result_env_at(r, 0, &key, &value), 0);
	assert_int_equal(pmc_result_env_at(r, pmc_result_env_count(r), &key, &value), -ERANGE);

	assert_int_equal(pmc_result_benchmark_count(r), 3);
	b = pmc_result_find_benchmark(r, "avx2");
	assert_string_equal(pmc_benchmark_skipped(b), "no AVX2 on this CPU");
	assert_int_equal(pmc_benchmark_run_count(b), 0);
	assert_int_equal(pmc_benchmark_metric_count(b), 0);
	assert_null(pmc_benchmark_skipped(pmc_result_find_benchmark(r, "hash")));
	assert_null(pmc_benchmark_skipped(NULL));
	b = pmc_result_benchmark_at(r, 0);
	assert_ptr_equal(b, pmc_result_find_benchmark(r, "sort"));
	assert_null(pmc_benchmark_skipped(b));
	assert_null(pmc_result_benchmark_at(r, 3));
	assert_null(pmc_result_find_benchmark(r, "nope"));
	assert_string_equal(pmc_benchmark_name(b), "sort");
	assert_string_equal(pmc_benchmark_command(b), "./sort 1000");
	assert_null(pmc_benchmark_command(pmc_result_find_benchmark(r, "hash")));
	assert_int_equal(pmc_benchmark_run_count(b), 2);
	assert_int_equal(pmc_benchmark_run_at(b, 1, &code, &sig, &timed_out), 0);
	assert_int_equal(code, 0);
	assert_int_equal(sig, 0);
	assert_false(timed_out);
	assert_int_equal(pmc_benchmark_run_at(b, 2, NULL, NULL, NULL), -ERANGE);

	assert_int_equal(pmc_benchmark_metric_count(b), 2);
	m = pmc_benchmark_metric_at(b, 0);
	assert_string_equal(pmc_metric_id(m), "wall-time");
	assert_string_equal(pmc_metric_unit(m), "ns");
	assert_int_equal(pmc_metric_sample_count(m), 2);
	assert_int_equal(pmc_metric_sample_at(m, 0, &v), 0);
	assert_true(v == 1500.0);
	v = -1;
	assert_int_equal(pmc_metric_sample_at(m, 1, &v), -ENODATA);
	assert_true(v == -1); /* untouched: not measured is not 0 */
	assert_int_equal(pmc_metric_sample_at(m, 2, &v), -ERANGE);
	assert_int_equal(pmc_metric_status(m, 0, &status), -ENODATA);

	m = pmc_benchmark_find_metric(b, "task-clock");
	assert_ptr_equal(m, pmc_benchmark_metric_at(b, 1));
	assert_int_equal(pmc_metric_sample_at(m, 0, &v), 0);
	assert_true(v == 2000.0); /* 1000 * 200 / 100 */
	assert_int_equal(pmc_metric_status(m, 0, &status), 0);
	assert_int_equal(status, PMC_STATUS_SCALED);
	assert_int_equal(pmc_metric_sample_at(m, 1, &v), -ENODATA);
	assert_int_equal(pmc_metric_status(m, 1, &status), 0);
	assert_int_equal(status, PMC_STATUS_NOT_COUNTED);
	assert_null(pmc_benchmark_metric_at(b, 2));
}

static void built_result_reads_back_through_the_getters(void **state)
{
	struct pmc_result *r = build();

	check(r);
	pmc_result_free(r);
	pmc_result_free(NULL);
}

static void saved_result_loads_back_the_same(void **state)
{
	char dir[] = "/tmp/pmc-test-result-api-XXXXXX", path[64], err[512] = "";
	struct pmc_result *r = build(), *back = NULL;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.json", dir);
	assert_int_equal(pmc_result_save(r, path, err, sizeof(err)), 0);
	assert_int_equal(pmc_result_load(path, &back, err, sizeof(err)), 0);
	check(back);
	pmc_result_free(back);
	pmc_result_free(r);
	unlink(path);
	rmdir(dir);
}

static void failed_load_leaves_ret_untouched(void **state)
{
	struct pmc_result *ret = (struct pmc_result *)&ret;
	char err[512] = "";

	assert_int_equal(pmc_result_load("/nonexistent/r.json", &ret, err, sizeof(err)), -ENOENT);
	assert_ptr_equal(ret, (struct pmc_result *)&ret);
	assert_non_null(strstr(err, "/nonexistent/r.json"));
	assert_int_equal(pmc_result_load("/nonexistent/r.json", &ret, NULL, 0), -ENOENT);
}

static void bad_samples_and_names_are_refused(void **state)
{
	struct pmc_result *r = NULL, *none = NULL;
	struct pmc_benchmark *b, *other = NULL;
	struct pmc_metric *m, *c;

	assert_int_equal(pmc_result_new("", &none), -EINVAL);
	assert_null(none);
	assert_int_equal(pmc_result_new("perf", &r), 0);
	assert_int_equal(pmc_result_add_benchmark(r, "a", NULL, &b), 0);
	assert_int_equal(pmc_result_add_benchmark(r, "a", NULL, &other), -EEXIST);
	assert_int_equal(pmc_result_add_benchmark(r, "", NULL, &other), -EINVAL);
	assert_null(other); /* untouched on failure */
	b = pmc_result_find_benchmark(r, "a");
	assert_int_equal(pmc_benchmark_metric(b, "wall-time", &m), 0);
	assert_int_equal(pmc_metric_add_value(m, NAN), -EINVAL);
	assert_int_equal(pmc_metric_add_value(m, INFINITY), -EINVAL);
	assert_int_equal(pmc_metric_add_value(m, 1.0), 0);
	/* A metric's samples are all readings or none. */
	assert_int_equal(
	    pmc_metric_add_reading(m, &(struct pmc_reading){.status = PMC_STATUS_COUNTED,
							    .value = 1,
							    .enabled = 1,
							    .running = 1}),
	    -EINVAL);
	assert_int_equal(pmc_benchmark_metric(b, "cycles", &c), 0);
	assert_int_equal(
	    pmc_metric_add_reading(c, &(struct pmc_reading){.status = (enum pmc_status)99,
							    .value = 1,
							    .enabled = 1,
							    .running = 1}),
	    -EINVAL);
	assert_int_equal(
	    pmc_metric_add_reading(c, &(struct pmc_reading){.status = PMC_STATUS_SCALED,
							    .value = 1,
							    .enabled = 1,
							    .running = 0}),
	    -EINVAL);
	assert_int_equal(
	    pmc_metric_add_reading(c, &(struct pmc_reading){.status = PMC_STATUS_COUNTED,
							    .value = 5,
							    .enabled = 1,
							    .running = 1}),
	    0);
	assert_int_equal(pmc_metric_add_value(c, 5.0), -EINVAL);
	assert_int_equal(pmc_metric_add_missing(c), -EINVAL);
	assert_int_equal(pmc_metric_sample_count(c), 1);
	/* A benchmark that measured something was not skipped. */
	assert_int_equal(pmc_benchmark_set_skipped(b, "too late"), -EINVAL);
	assert_null(pmc_benchmark_skipped(b));
	assert_int_equal(pmc_benchmark_set_skipped(NULL, "x"), -EINVAL);
	/* No reason given is still a skip: "". */
	assert_int_equal(pmc_result_add_benchmark(r, "b", NULL, &b), 0);
	assert_int_equal(pmc_benchmark_set_skipped(b, NULL), 0);
	assert_string_equal(pmc_benchmark_skipped(b), "");
	pmc_result_free(r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(built_result_reads_back_through_the_getters),
	    cmocka_unit_test(saved_result_loads_back_the_same),
	    cmocka_unit_test(failed_load_leaves_ret_untouched),
	    cmocka_unit_test(bad_samples_and_names_are_refused),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

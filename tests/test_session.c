/* The session (harness/6-session/, pmcbench/session.h): a short command run from start to
 * decision, its result, report and file, the gate against a baseline, the messages and
 * progress through the caller's callbacks, and options refused with -EINVAL. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "tests/helpers.h"
#include "pmcbench/session.h"
#include "session/session.h"

#define RUNS 6

/* What the callbacks received. */
struct seen {
	char text[4096];
	size_t errors, warnings, progress, done;
};

static void print(enum pmc_session_level level, const char *msg, void *ud)
{
	struct seen *s = ud;
	size_t len = strlen(s->text);

	s->errors += level == PMC_SESSION_ERROR;
	s->warnings += level == PMC_SESSION_WARN;
	snprintf(s->text + len, sizeof(s->text) - len, "%d: %s\n", (int)level, msg);
}

static void progress(const struct pmc_session_progress *p, void *ud)
{
	struct seen *s = ud;

	if (p->done) {
		s->done++;
		return;
	}
	assert_string_equal(p->name, "true");
	assert_true(p->run >= 1 && p->run <= p->runs);
	s->progress++;
}

/* A file name of this test's in the temporary directory, none there yet. */
static char *tmp_path(const char *suffix)
{
	char *p = NULL;

	assert_true(asprintf(&p, "%s/test_session.%d.%s", P_tmpdir, (int)getpid(), suffix) > 0);
	unlink(p);
	return p;
}

/* A baseline of a benchmark named name, running cmd, with max-rss around center bytes
 * over RUNS runs, saved to path. */
static void save_baseline(const char *path, const char *name, const char *cmd, double center)
{
	struct pmc_result *r = t_result("perf");
	struct pmc_benchmark *b = t_bench(r, name, cmd);
	char err[256];

	for (size_t i = 0; i < RUNS; i++)
		assert_int_equal(pmc_benchmark_record_run(b, 0, 0, false), 0);
	put(r, name, "max-rss", RUNS, center, 0.1);
	if (pmc_result_save(r, path, err, sizeof(err)) < 0) {
		print_error("%s\n", err);
		fail();
	}
	pmc_result_free(r);
}

static const char *const true_cmd[] = {"/bin/true"};
static const char *const true_name[] = {"true"};

static void test_runs_a_command_to_its_result(void **state)
{
	struct seen seen = {0};
	char *out = tmp_path("json"), *csv = tmp_path("csv"), err[256];
	const char *exports[] = {csv};
	FILE *report = tmpfile();
	struct pmc_result *r = NULL, *saved = NULL;
	enum pmc_decision d = PMC_DECISION_ERROR;
	char text[8192] = "";
	size_t len;
	PMC_OPTS(pmc_session_opts, o, .commands = true_cmd, .ncommands = 1, .names = true_name,
		 .events = "task-clock", .runs = 3, .warmup = 1, .report = report,
		 .report_format = "csv", .output = out, .exports = exports, .nexports = 1,
		 .print = print, .print_ud = &seen, .progress = progress, .progress_ud = &seen);

	assert_non_null(report);
	assert_int_equal(pmc_session_run(&o, &d, &r), 0);
	assert_int_equal(d, PMC_DECISION_PASS);
	assert_int_equal(seen.errors, 0);
	/* Three measured runs and one warm-up, each announced; the line cleared once. */
	assert_int_equal(seen.progress, 4);
	assert_int_equal(seen.done, 1);
	assert_non_null(r);
	assert_int_equal(r->nbench, 1);
	assert_string_equal(r->benchmarks[0].name, "true");
	assert_int_equal(r->benchmarks[0].nruns, 3);
	assert_non_null(pmc_benchmark_find_metric(&r->benchmarks[0], "wall-time"));
	assert_non_null(pmc_benchmark_find_metric(&r->benchmarks[0], "task-clock"));
	assert_string_equal(pmc_result_get_env(r, "events"), "task-clock");
	/* The report went to the stream, the result to its file and its export. */
	rewind(report);
	len = fread(text, 1, sizeof(text) - 1, report);
	text[len] = '\0';
	assert_contains(text, "\"true\",\"wall-time\",\"ns\",1,");
	assert_int_equal(pmc_result_load(out, &saved, err, sizeof(err)), 0);
	assert_int_equal(saved->benchmarks[0].nruns, 3);
	assert_int_equal(access(csv, R_OK), 0);
	pmc_result_free(saved);
	pmc_result_free(r);
	fclose(report);
	unlink(out);
	unlink(csv);
	free(out);
	free(csv);
}

/* The gate against a baseline decides: a baseline of far less memory is a regression of
 * max-rss (which does not drift between invocations), one of far more a pass. The
 * command writes 8,000 pages (31 MiB), more than this process holds, so that its max-rss
 * is its own (pmc_spawn_result.spawner_peak_kb). */
static void test_gates_against_a_baseline(void **state)
{
	static const char *const touch_cmd[] = {PMC_TEST_WORK " touch 8000"};
	static const char *const touch_name[] = {"touch"};
	struct pmc_thresholds *t = t_thresholds();
	char *base = tmp_path("base.json"), err[256];
	enum pmc_decision d = PMC_DECISION_ERROR;
	struct seen seen = {0};
	PMC_OPTS(pmc_session_opts, o, .commands = touch_cmd, .ncommands = 1, .names = touch_name,
		 .events = "task-clock", .runs = RUNS, .baseline = base, .thresholds = t,
		 .print = print, .print_ud = &seen);

	assert_int_equal(pmc_thresholds_add_arg(t, "max-rss=+5%", err, sizeof(err)), 0);
	save_baseline(base, "touch", touch_cmd[0], 1024);
	assert_int_equal(pmc_session_run(&o, &d, NULL), 0);
	if (d != PMC_DECISION_REGRESSION)
		print_error("messages:\n%s", seen.text);
	assert_int_equal(d, PMC_DECISION_REGRESSION);

	save_baseline(base, "touch", touch_cmd[0], 1e12);
	d = PMC_DECISION_ERROR;
	assert_int_equal(pmc_session_run(&o, &d, NULL), 0);
	assert_int_equal(d, PMC_DECISION_PASS);

	/* /bin/true needs less memory than this process: its max-rss is not measured, and a
	 * gate of it is never a pass. */
	o.commands = true_cmd;
	o.names = true_name;
	save_baseline(base, "true", "/bin/true", 1e12);
	d = PMC_DECISION_PASS;
	assert_int_equal(pmc_session_run(&o, &d, NULL), 0);
	if (d == PMC_DECISION_PASS)
		print_error("messages:\n%s", seen.text);
	assert_int_not_equal(d, PMC_DECISION_PASS);
	/* The caller's limits are still the caller's. */
	assert_int_equal(pmc_thresholds_add_arg(t, "wall-time=+5%", err, sizeof(err)), 0);
	pmc_thresholds_free(t);
	unlink(base);
	free(base);
}

/* The library prints nothing: what goes wrong arrives at the print function, as one
 * message that names the input. */
static void test_messages_go_to_the_callback(void **state)
{
	static const char *const missing[] = {"/nonexistent/pmcbench-test"};
	struct seen seen = {0};
	enum pmc_decision d = PMC_DECISION_PASS;
	struct pmc_result *r = NULL;
	PMC_OPTS(pmc_session_opts, o, .commands = missing, .ncommands = 1, .print = print,
		 .print_ud = &seen);

	assert_int_equal(pmc_session_run(&o, &d, &r), -EINVAL);
	assert_int_equal(seen.errors, 1);
	assert_contains(seen.text, "'/nonexistent/pmcbench-test': no such file");
	/* Outputs are left untouched on failure. */
	assert_int_equal(d, PMC_DECISION_PASS);
	assert_null(r);

	/* A baseline that cannot be read is said, naming the file. */
	memset(&seen, 0, sizeof(seen));
	o.commands = true_cmd;
	o.baseline = "/nonexistent/base.json";
	assert_int_equal(pmc_session_run(&o, &d, NULL) < 0, true);
	assert_int_equal(seen.errors, 1);
	assert_contains(seen.text, "/nonexistent/base.json");
}

static void test_bad_options_are_refused(void **state)
{
	static const char *const empty[] = {""};
	struct seen seen = {0};
	enum pmc_decision d;
	struct {
		struct pmc_session_opts o;
		int newer_field;
	} newer = {.o = {.sz = sizeof(newer), .commands = true_cmd, .ncommands = 1},
		   .newer_field = 1};
	PMC_OPTS(pmc_session_opts, o, .print = print, .print_ud = &seen);

	assert_int_equal(pmc_session_run(NULL, &d, NULL), -EINVAL);
	/* Nothing to run, or both kinds at once. */
	assert_int_equal(pmc_session_run(&o, &d, NULL), -EINVAL);
	o.commands = true_cmd;
	o.ncommands = 1;
	o.bench_begin = o.bench_end = (const struct pmc_bench_def *)true_cmd;
	assert_int_equal(pmc_session_run(&o, &d, NULL), -EINVAL);
	o.bench_begin = o.bench_end = NULL;
	assert_int_equal(pmc_session_run(&o, NULL, NULL), -EINVAL);
	o.report_format = "yaml";
	assert_int_equal(pmc_session_run(&o, &d, NULL), -EINVAL);
	assert_contains(seen.text, "unknown format 'yaml'");
	o.report_format = NULL;
	o.alpha = 1.5;
	assert_int_equal(pmc_session_run(&o, &d, NULL), -EINVAL);
	o.alpha = 0;
	o.commands = empty;
	assert_int_equal(pmc_session_run(&o, &d, NULL), -EINVAL);
	assert_contains(seen.text, "empty command");
	/* A field this library does not know, set by a newer caller. */
	assert_int_equal(pmc_session_run(&newer.o, &d, NULL), -EINVAL);
	assert_true(seen.errors >= 5);
}

/* --runs auto after each round (pmc_session_seq_round_done): a limit on a metric that is
 * not measured stops the run after round 1; one measured but 0 on a side (user-time, split
 * by the timer's ticks, of a short command) goes on while a later round may give a ratio,
 * and is an error only once the rule could have decided. */
/* A result of A and B with n rounds of metric id, as the runner records them. */
static struct pmc_result *two_sides(const char *id, const double *a, const double *b, size_t n)
{
	struct pmc_result *r = t_result("perf");

	put_values(r, "A", id, a, n);
	put_values(r, "B", id, b, n);
	return r;
}

static void test_sequential_rounds_tell_zero_from_not_measured(void **state)
{
	struct pmc_session_compare c;
	struct pmc_session_seq s = {.max_runs = 40};
	struct pmc_result *r;
	double a[12], b[12];
	char err[256] = "";
	size_t first;

	(void)state;
	assert_int_equal(pmc_session_compare_init(&c), 0);
	assert_int_equal(pmc_thresholds_add_arg(c.thresholds, "user-time=+25%", err, sizeof(err)),
			 0);
	s.cmp = &c;
	first = pmc_seq_min_rounds(c.alpha);
	assert_true(first > 2 && first < 12);
	for (size_t i = 0; i < 12; i++) {
		a[i] = 0; /* every tick fell in the kernel */
		b[i] = 4e6;
	}
	/* Before the first decidable round: go on. */
	r = two_sides("user-time", a, b, 2);
	assert_false(pmc_session_seq_round_done(&s, r, 2));
	assert_int_equal(s.error, 0);
	pmc_result_free(r);
	/* One round with a value on both sides is enough to go on past it. */
	a[1] = 3e6;
	r = two_sides("user-time", a, b, first);
	assert_false(pmc_session_seq_round_done(&s, r, first));
	assert_int_equal(s.error, 0);
	pmc_result_free(r);
	/* 0 in every round up to where the rule could decide: an error that says why. */
	a[1] = 0;
	r = two_sides("user-time", a, b, first);
	assert_true(pmc_session_seq_round_done(&s, r, first));
	assert_int_equal(s.error, -ENODATA);
	assert_contains(s.err, "'B' has no value of user-time");
	assert_contains(s.err, "0 on one side in every round");
	pmc_result_free(r);
	/* Not measured at all (no such metric): an error after round 1, as before. */
	s.error = 0;
	s.err[0] = '\0';
	r = two_sides("wall-time", b, b, 1);
	assert_true(pmc_session_seq_round_done(&s, r, 1));
	assert_int_equal(s.error, -ENODATA);
	assert_contains(s.err, "not measured on this machine?");
	pmc_result_free(r);
	pmc_seq_check_clear(&s.chk);
	pmc_session_compare_clear(&c);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_runs_a_command_to_its_result),
	    cmocka_unit_test(test_gates_against_a_baseline),
	    cmocka_unit_test(test_messages_go_to_the_callback),
	    cmocka_unit_test(test_bad_options_are_refused),
	    cmocka_unit_test(test_sequential_rounds_tell_zero_from_not_measured),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

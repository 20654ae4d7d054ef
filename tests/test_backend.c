/* The registry of backends (counters/backend.h): lookup by id and by name, and the
 * contract every registered backend keeps, so that the runner can drive any of them
 * without asking which one it has. */
#include <errno.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "counters/backend.h"
#include "counters/perf/events.h"
#include "counters/valgrind/valgrind.h"
#include "tests/fake_pmu.h"

static void test_lookup_by_name(void **state)
{
	static const char *const unknown[] = {"Perf", "perf ", "", "rr", "valgrind2"};
	enum pmc_backend id = PMC_BACKEND_COUNT;

	(void)state;
	assert_int_equal(pmc_backend_find("perf", &id), 0);
	assert_int_equal(id, PMC_BACKEND_PERF);
	assert_string_equal(pmc_backend_get(id)->name, "perf");
	assert_int_equal(pmc_backend_find("valgrind", &id), 0);
	assert_int_equal(id, PMC_BACKEND_VALGRIND);
	assert_string_equal(pmc_backend_get(id)->name, "valgrind");
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		id = PMC_BACKEND_COUNT;
		assert_int_equal(pmc_backend_find(unknown[i], &id), -ENOENT);
		assert_int_equal(id, PMC_BACKEND_COUNT); /* untouched */
	}
	assert_int_equal(pmc_backend_find(NULL, &id), -ENOENT);
	assert_null(pmc_backend_get(PMC_BACKEND_COUNT));
	assert_null(pmc_backend_get((enum pmc_backend) - 1));
}

/* Each line of PMC_BACKENDS is a complete backend: a name that finds it again and every
 * operation the runner calls. */
static void test_every_backend_has_every_operation(void **state)
{
	(void)state;
	assert_true(PMC_BACKEND_COUNT >= 2);
	for (int i = 0; i < PMC_BACKEND_COUNT; i++) {
		const struct pmc_backend_ops *b = pmc_backend_get((enum pmc_backend)i);
		enum pmc_backend id;

		assert_non_null(b);
		assert_non_null(b->name);
		assert_true(b->name[0] != '\0');
		assert_int_equal(pmc_backend_find(b->name, &id), 0);
		assert_int_equal(id, i);
		assert_true(!b->wrapper || b->wrapper[0]);
		assert_non_null(b->env);
		assert_non_null(b->find);
		assert_non_null(b->session_new);
		assert_non_null(b->session_free);
		assert_non_null(b->nmetrics);
		assert_non_null(b->metric_id);
		assert_non_null(b->events);
		assert_non_null(b->round_start);
		assert_non_null(b->round_stop);
		assert_non_null(b->run_new);
		assert_non_null(b->run_argv);
		assert_non_null(b->run_in_child);
		assert_non_null(b->run_collect);
		assert_non_null(b->run_reading);
		assert_non_null(b->run_peek);
		assert_non_null(b->run_failure);
		assert_non_null(b->run_free);
		assert_non_null(b->thread_open);
		assert_non_null(b->thread_read);
		assert_non_null(b->thread_parts);
		assert_non_null(b->thread_pause);
		assert_non_null(b->thread_read_counts);
		assert_non_null(b->thread_close);
		assert_non_null(b->mark_check);
		assert_non_null(b->mark_toggle);
		assert_non_null(b->mark_zero);
		assert_non_null(b->mark_dump);
		assert_non_null(b->run_dumps);
		assert_non_null(b->run_dump_reading);
		assert_non_null(b->run_dump_file);
		/* Benchmark programs count on their thread or in the exact mode, never both. */
		if (!b->marks) {
			char err[256] = "";

			assert_int_equal(b->mark_check(err, sizeof(err)), -EOPNOTSUPP);
			assert_true(err[0] != '\0');
		}
		/* A backend that takes no event list counts metrics of its own, given none. */
		if (!b->takes_events) {
			struct pmc_backend_opts o = {0};
			struct pmc_backend_session *s;

			assert_int_equal(b->session_new(&o, &s), 0);
			assert_true(b->nmetrics(s) > 0);
			b->session_free(s);
		}
	}
}

/* The perf backend counts the events it is given, in the command itself: its metrics are
 * the events, its runs exec the command's own argv, and only a measured run opens
 * counters in the child. Without events there is nothing to run. */
static void test_perf_counts_its_events_in_the_child(void **state)
{
	const struct pmc_backend_ops *b = pmc_backend_get(PMC_BACKEND_PERF);
	char *const argv[] = {(char *)"true", NULL};
	struct pmc_backend_opts o = {0};
	struct pmc_backend_session *s;
	struct pmc_backend_run *run;
	struct pmc_event_list *l = NULL;
	char err[256];

	(void)state;
	assert_int_equal(pmc_event_list_parse("task-clock,page-faults", NULL, &l, err, sizeof(err)),
			 0);
	o.events = l;
	assert_null(b->wrapper);
	assert_false(b->simulated);
	assert_true(b->takes_events);
	assert_int_equal(b->session_new(&o, &s), 0);
	assert_int_equal(b->nmetrics(s), 2);
	assert_string_equal(b->metric_id(s, 0), "task-clock");
	assert_string_equal(b->metric_id(s, 1), "page-faults");
	assert_ptr_equal(b->events(s), l);
	assert_int_equal(b->run_new(s, false, argv, "true", &run, err, sizeof(err)), 0);
	assert_ptr_equal(b->run_argv(run), argv);
	assert_null(b->run_in_child(run));
	b->run_free(run);
	assert_int_equal(b->run_new(s, true, argv, "true", &run, err, sizeof(err)), 0);
	assert_non_null(b->run_in_child(run));
	b->run_free(run);
	b->session_free(s);

	o.events = NULL;
	assert_int_equal(b->session_new(&o, &s), 0);
	assert_int_equal(b->nmetrics(s), 0);
	b->session_free(s);
	pmc_event_list_free(l);
}

/* The valgrind backend wraps the command: its runs exec valgrind, the child does nothing
 * before exec, and its metrics are the simulated ones, never grouped. */
static void test_valgrind_wraps_the_command(void **state)
{
	const struct pmc_backend_ops *b = pmc_backend_get(PMC_BACKEND_VALGRIND);
	char *const argv[] = {(char *)"/bin/true", NULL};
	struct pmc_backend_opts o = {.program = "/opt/vg/bin/valgrind"};
	struct pmc_backend_session *s;
	struct pmc_backend_run *run;
	char *const *wrapped;
	char err[256];
	size_t n = 0;

	(void)state;
	assert_string_equal(b->wrapper, "valgrind");
	assert_true(b->simulated);
	assert_false(b->takes_events);
	assert_int_equal(b->session_new(&o, &s), 0);
	assert_int_equal(b->nmetrics(s), pmc_valgrind_metric_count());
	for (size_t i = 0; i < b->nmetrics(s); i++)
		assert_string_equal(b->metric_id(s, i), pmc_valgrind_metric_id(i));
	assert_null(b->events(s));
	assert_int_equal(b->run_new(s, true, argv, "/bin/true", &run, err, sizeof(err)), 0);
	wrapped = b->run_argv(run);
	assert_string_equal(wrapped[0], "/opt/vg/bin/valgrind");
	while (wrapped[n])
		n++;
	assert_true(n >= 3);
	assert_string_equal(wrapped[n - 2], "--");
	assert_string_equal(wrapped[n - 1], "/bin/true");
	assert_null(b->run_in_child(run));
	/* Nothing ran: no files to read, nothing in the logs. */
	err[0] = '\0';
	assert_int_equal(b->run_collect(run, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "valgrind wrote no usable counts"));
	assert_int_equal(b->run_failure(run, err, sizeof(err)), -ENOENT);
	b->run_free(run);
	b->session_free(s);
}

/* A benchmark program's batches count on the calling thread through the table: the
 * emulated PMU's quanta from the open on, none while paused, every read a read(), and no
 * parts on a machine with one core PMU. */
static void test_perf_counts_the_calling_thread(void **state)
{
	static const struct fake_pmu_config cfg = {.counters = 4, .privileged = true};
	const struct pmc_backend_ops *b = pmc_backend_get(PMC_BACKEND_PERF);
	const uint64_t cyc = fake_pmu_rate(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	struct fake_pmu fake;
	struct pmc_event_list *l = NULL;
	struct pmc_backend_thread *t = NULL;
	struct pmc_reading rd[2], parts[2 * PMC_PARTS_MAX];
	struct pmc_reading_parts shape;
	uint64_t self = 1, sys = 0;
	char err[256];

	(void)state;
	fake_pmu_init(&fake, &cfg);
	assert_int_equal(pmc_event_list_parse("{cycles,instructions}", NULL, &l, err, sizeof(err)),
			 0);
	struct pmc_backend_thread_opts o = {.events = l, .sys = &fake.sys};

	assert_int_equal(b->thread_open(&o, &t), 0);
	fake_pmu_tick(&fake, 3);
	assert_int_equal(b->thread_read(t, rd, parts), 0);
	assert_int_equal(rd[0].status, PMC_STATUS_COUNTED);
	assert_int_equal(rd[0].value, 3 * cyc);
	assert_int_equal(rd[1].value,
			 3 * fake_pmu_rate(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS));
	assert_int_equal(b->thread_pause(t, true), 0);
	fake_pmu_tick(&fake, 5);
	assert_int_equal(b->thread_read(t, rd, NULL), 0);
	assert_int_equal(rd[0].value, 3 * cyc);
	assert_int_equal(b->thread_pause(t, false), 0);
	fake_pmu_tick(&fake, 2);
	assert_int_equal(b->thread_read(t, rd, NULL), 0);
	assert_int_equal(rd[0].value, 5 * cyc);
	b->thread_parts(t, 0, &shape);
	assert_int_equal(shape.n, 0);
	b->thread_read_counts(t, &self, &sys);
	assert_int_equal(self, 0);
	assert_int_equal(sys, 3); /* one group, three reads */
	b->thread_close(t);
	b->thread_close(NULL);
	pmc_event_list_free(l);
}

/* A simulator counts whole commands: no thread of a benchmark program. */
static void test_valgrind_counts_no_thread(void **state)
{
	const struct pmc_backend_ops *b = pmc_backend_get(PMC_BACKEND_VALGRIND);
	struct pmc_backend_thread_opts o = {0};
	struct pmc_backend_thread *t = NULL;

	(void)state;
	assert_int_equal(b->thread_open(&o, &t), -EOPNOTSUPP);
	assert_null(t);
	b->thread_close(NULL);
}

/* Valgrind's exact mode: a marked run is callgrind's, collecting only between the
 * program's toggles, in its one process, and has no dumps before it is collected. */
static void test_valgrind_marked_runs_collect_between_toggles(void **state)
{
	const struct pmc_backend_ops *b = pmc_backend_get(PMC_BACKEND_VALGRIND);
	static const char *const extra[] = {"--dump-instr=yes", NULL};
	struct pmc_backend_opts o = {
	    .valgrind_tool = PMC_VALGRIND_CACHEGRIND, .marked = true, .wrapper_args = extra};
	char *const target[] = {(char *)"/bin/true", NULL};
	struct pmc_backend_session *s = NULL;
	struct pmc_backend_run *run = NULL;
	bool off = false, alone = false, callgrind = false, more = false;
	char err[256] = "", *path = NULL;

	(void)state;
	assert_true(b->marks);
	assert_int_equal(b->session_new(&o, &s), 0);
	assert_int_equal(b->run_new(s, true, target, "true", &run, err, sizeof(err)), 0);
	for (char *const *a = b->run_argv(run); *a; a++) {
		off |= strcmp(*a, "--collect-atstart=no") == 0;
		alone |= strcmp(*a, "--trace-children=no") == 0;
		callgrind |= strcmp(*a, "--tool=callgrind") == 0;
		more |= strcmp(*a, "--dump-instr=yes") == 0;
	}
	assert_true(off && alone && callgrind && more);
	assert_int_equal(b->run_dumps(run), 0);
	assert_int_equal(b->run_dump_file(run, 0, &path), -ENOENT);
	assert_null(path);
	b->run_free(run);
	b->session_free(s);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lookup_by_name),
	    cmocka_unit_test(test_every_backend_has_every_operation),
	    cmocka_unit_test(test_valgrind_marked_runs_collect_between_toggles),
	    cmocka_unit_test(test_perf_counts_its_events_in_the_child),
	    cmocka_unit_test(test_valgrind_wraps_the_command),
	    cmocka_unit_test(test_perf_counts_the_calling_thread),
	    cmocka_unit_test(test_valgrind_counts_no_thread),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Tasks in profiles (harness/4-profile/profile.h, profile_tasks.h; reporters'
 * profile_tasks_report.c): a stack keeps its task, the same frames of two tasks are two
 * stacks that the views by function merge, the groups by thread name, process and thread
 * add up to the total with their names, the file keeps them (and a file without them
 * loads, with none), a stack whose task is out of range is refused with its place, and
 * `report --by` shows each task's share and top functions, or says tasks were not kept. */
#include <errno.h>
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

#include "profile/profile.h"
#include "profile/profile_tasks.h"
#include "reporters/profile_report.h"
#include "tests/helpers.h"

static struct pmc_profile *new_profile(enum pmc_profile_kind kind)
{
	struct pmc_profile_info in = {.kind = kind,
				      .event = kind == PMC_PROFILE_EXACT ? "Ir" : "cpu-clock",
				      .unit = kind == PMC_PROFILE_EXACT ? "instructions" : "ns",
				      .name = "live",
				      .freq = kind == PMC_PROFILE_EXACT ? 0 : 4000};
	struct pmc_profile *p = NULL;

	assert_int_equal(pmc_profile_new(&in, &p), 0);
	return p;
}

static uint32_t tid_of(struct pmc_profile *p, uint32_t pid, uint32_t tid, const char *comm)
{
	uint32_t id = UINT32_MAX;

	assert_int_equal(pmc_profile_task_id(p, pid, tid, comm, &id), 0);
	return id;
}

/* main;leaf in task, weight w, one sample per 250 ns. */
static void add(struct pmc_profile *p, const char *leaf, uint32_t task, uint64_t w)
{
	uint32_t ids[2];

	assert_int_equal(pmc_profile_frame_id(p, "main", "/bin/live", 0, &ids[0]), 0);
	assert_int_equal(pmc_profile_frame_id(p, leaf, "/bin/live", 0, &ids[1]), 0);
	assert_int_equal(pmc_profile_add_task(p, ids, 2, task, w, w / 250, false), 0);
}

/* Process 100 (main thread "live", no weight) with threads alpha (101) and beta (102)
 * and a second process 200 whose one thread is also named "live-beta"; 200's thread was
 * named "live" for part of its run. */
static struct pmc_profile *live_profile(void)
{
	struct pmc_profile *p = new_profile(PMC_PROFILE_SAMPLED);
	uint32_t lead = tid_of(p, 100, 100, "live"), a = tid_of(p, 100, 101, "live-alpha"),
		 b = tid_of(p, 100, 102, "live-beta"), c = tid_of(p, 200, 201, "live-beta"),
		 c0 = tid_of(p, 200, 201, "live");

	(void)lead;
	add(p, "alpha", a, 5000);
	add(p, "work", a, 1000);
	add(p, "beta", b, 3000);
	add(p, "beta", c, 750);
	add(p, "beta", c0, 250);
	return p;
}

static void tasks_are_interned_and_kept_apart(void **state)
{
	struct pmc_profile *p = new_profile(PMC_PROFILE_SAMPLED);
	struct pmc_profile_fn *fns = NULL;
	uint32_t a = tid_of(p, 7, 8, "live-alpha"), b = tid_of(p, 7, 9, "live-beta"), ids[1];
	size_t n = 0;

	(void)state;
	assert_int_equal(tid_of(p, 7, 8, "live-alpha"), a);
	assert_int_not_equal(tid_of(p, 7, 8, "renamed"), a);
	assert_int_not_equal(tid_of(p, 7, 8, NULL), a);
	assert_int_equal(pmc_profile_task_count(p), 4);
	assert_int_equal(pmc_profile_task(p, b)->tid, 9);
	assert_string_equal(pmc_profile_task(p, b)->comm, "live-beta");
	assert_null(pmc_profile_task(p, 4));
	assert_int_equal(pmc_profile_task_id(p, 7, 8, "", &ids[0]), -EINVAL);
	/* The same frames in two tasks are two stacks; in one task, one. */
	add(p, "spin", a, 10);
	add(p, "spin", b, 20);
	add(p, "spin", a, 5);
	assert_int_equal(pmc_profile_stack_count(p), 2);
	assert_int_equal(pmc_profile_stack(p, 0)->weight, 15);
	assert_int_equal(pmc_profile_stack(p, 0)->task, a);
	assert_int_equal(pmc_profile_stack(p, 1)->task, b);
	/* Without a task they are a third stack, not kept. */
	assert_int_equal(pmc_profile_frame_id(p, "spin", "/bin/live", 0, &ids[0]), 0);
	assert_int_equal(pmc_profile_add(p, ids, 1, 1, 1, false), 0);
	assert_int_equal(pmc_profile_stack(p, 2)->task, PMC_PROFILE_NO_TASK);
	assert_int_equal(pmc_profile_add_task(p, ids, 1, 4, 1, 1, false), -EINVAL);
	/* The views by function merge the tasks. */
	assert_int_equal(pmc_profile_functions(p, &fns, &n), 0);
	assert_string_equal(fns[0].name, "spin");
	assert_int_equal(fns[0].self, 36);
	pmc_profile_functions_free(fns, n);
	pmc_profile_free(p);
}

static const struct pmc_profile_group *find_group(const struct pmc_profile_group *g, size_t n,
						  uint32_t pid, uint32_t tid, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (g[i].pid == pid && g[i].tid == tid &&
		    (!name || (g[i].name && strcmp(g[i].name, name) == 0)))
			return &g[i];
	return NULL;
}

static void groups_by_thread_process_and_name(void **state)
{
	struct pmc_profile *p = live_profile();
	struct pmc_profile_group *g = NULL;
	const struct pmc_profile_group *x;
	struct pmc_profile_fn *fns = NULL;
	size_t n = 0, nf = 0;

	(void)state;
	/* By thread: the main thread has no weight and no row; 201's names heaviest first. */
	assert_int_equal(pmc_profile_group_by(p, PMC_PROFILE_BY_TID, &g, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(g[0].tid, 101);
	assert_string_equal(g[0].name, "live-alpha");
	assert_int_equal(g[0].weight, 6000);
	assert_int_equal(g[0].samples, 24);
	assert_int_equal(g[0].threads, 1);
	assert_non_null(x = find_group(g, n, 200, 201, "live-beta, live"));
	assert_int_equal(x->weight, 1000);
	/* Each group's stacks are a profile of their own: alpha's functions only. */
	assert_int_equal(pmc_profile_total(g[0].p), 6000);
	assert_int_equal(pmc_profile_functions(g[0].p, &fns, &nf), 0);
	assert_int_equal(nf, 3);
	assert_string_equal(fns[0].name, "alpha");
	assert_int_equal(fns[0].self, 5000);
	pmc_profile_functions_free(fns, nf);
	pmc_profile_groups_free(g, n);

	/* By process: named by the main thread, which has no samples of its own. */
	assert_int_equal(pmc_profile_group_by(p, PMC_PROFILE_BY_PID, &g, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(g[0].pid, 100);
	assert_string_equal(g[0].name, "live");
	assert_int_equal(g[0].weight, 9000);
	assert_int_equal(g[0].threads, 2);
	/* 200's main thread is no task: its thread's names. */
	assert_int_equal(g[1].pid, 200);
	assert_string_equal(g[1].name, "live-beta, live");
	assert_int_equal(g[1].threads, 1);
	pmc_profile_groups_free(g, n);

	/* By name: the two live-beta threads of two processes together; "live" is 201's
	 * part under that name. */
	assert_int_equal(pmc_profile_group_by(p, PMC_PROFILE_BY_COMM, &g, &n), 0);
	assert_int_equal(n, 3);
	assert_non_null(x = find_group(g, n, 0, 0, "live-beta"));
	assert_int_equal(x->weight, 3750);
	assert_int_equal(x->threads, 2);
	assert_non_null(x = find_group(g, n, 0, 0, "live"));
	assert_int_equal(x->weight, 250);
	pmc_profile_groups_free(g, n);
	pmc_profile_free(p);
}

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/pmc-tasks-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void round_trip_keeps_tasks(void **state)
{
	struct pmc_profile *p = live_profile(), *q = NULL;
	char path[128], err[512] = "";

	(void)state;
	snprintf(path, sizeof(path), "%s/p.json", dir);
	assert_int_equal(pmc_profile_save(p, path, err, sizeof(err)), 0);
	assert_int_equal(pmc_profile_load(path, &q, err, sizeof(err)), 0);
	assert_int_equal(pmc_profile_task_count(q), pmc_profile_task_count(p));
	for (uint32_t i = 0; i < pmc_profile_task_count(p); i++) {
		assert_int_equal(pmc_profile_task(q, i)->pid, pmc_profile_task(p, i)->pid);
		assert_int_equal(pmc_profile_task(q, i)->tid, pmc_profile_task(p, i)->tid);
		assert_string_equal(pmc_profile_task(q, i)->comm, pmc_profile_task(p, i)->comm);
	}
	assert_int_equal(pmc_profile_stack_count(q), pmc_profile_stack_count(p));
	for (size_t i = 0; i < pmc_profile_stack_count(p); i++) {
		assert_int_equal(pmc_profile_stack(q, i)->task, pmc_profile_stack(p, i)->task);
		assert_int_equal(pmc_profile_stack(q, i)->weight, pmc_profile_stack(p, i)->weight);
	}
	pmc_profile_free(q);
	pmc_profile_free(p);
}

#define HEAD                                                                                       \
	"{\"schema\": \"pmcbench-profile/1\", \"kind\": \"sampled\", \"event\": \"cpu-clock\", "   \
	"\"unit\": \"ns\", \"freq\": 4000, \"samples\": 3, \"lost\": 0, \"unresolved\": 0, "       \
	"\"total\": 5, \"frames\": [{\"symbol\": \"main\", \"object\": \"/bin/x\"}], "

static void file_without_tasks_loads(void **state)
{
	struct pmc_profile *q = NULL;
	char path[128], err[512] = "";

	(void)state;
	snprintf(path, sizeof(path), "%s/old.json", dir);
	write_text(path, HEAD "\"stacks\": [{\"frames\": [0], \"weight\": 5, \"samples\": 3}]}");
	assert_int_equal(pmc_profile_load(path, &q, err, sizeof(err)), 0);
	assert_int_equal(pmc_profile_task_count(q), 0);
	assert_int_equal(pmc_profile_stack(q, 0)->task, PMC_PROFILE_NO_TASK);
	pmc_profile_free(q);
	/* A task without a name loads without one. */
	write_text(path, HEAD "\"tasks\": [{\"pid\": 1, \"tid\": 2}], \"stacks\": [{\"frames\": "
			      "[0], \"weight\": 5, \"samples\": 3, \"task\": 0}]}");
	assert_int_equal(pmc_profile_load(path, &q, err, sizeof(err)), 0);
	assert_null(pmc_profile_task(q, 0)->comm);
	assert_int_equal(pmc_profile_stack(q, 0)->task, 0);
	pmc_profile_free(q);
}

static void refused(const char *text, const char *want)
{
	struct pmc_profile *q = NULL;
	char path[128], err[512] = "";

	snprintf(path, sizeof(path), "%s/bad.json", dir);
	write_text(path, text);
	assert_int_equal(pmc_profile_load(path, &q, err, sizeof(err)), -EINVAL);
	assert_null(q);
	assert_contains(err, path);
	assert_contains(err, want);
	assert_null(strchr(err, '\n'));
}

static void bad_task_index_is_refused(void **state)
{
	(void)state;
	refused(HEAD "\"tasks\": [{\"pid\": 1, \"tid\": 2, \"comm\": \"a\"}], \"stacks\": "
		     "[{\"frames\": [0], \"weight\": 5, \"samples\": 3, \"task\": 1}]}",
		"stacks[0].task: task 1 is out of range (the file has 1 tasks)");
	refused(HEAD "\"stacks\": [{\"frames\": [0], \"weight\": 5, \"samples\": 3, \"task\": 0}]}",
		"stacks[0].task: task 0 is out of range (the file has 0 tasks: no \"tasks\" "
		"table)");
	refused(HEAD "\"tasks\": [{\"pid\": 1, \"tid\": 2}], \"stacks\": [{\"frames\": [0], "
		     "\"weight\": 5, \"samples\": 3, \"task\": -1}]}",
		"stacks[0].task: expected a non-negative integer, got -1");
	refused(HEAD "\"tasks\": [{\"pid\": 1}], \"stacks\": []}", "tasks[0].tid: missing");
	refused(HEAD "\"tasks\": [{\"pid\": 4294967296, \"tid\": 1}], \"stacks\": []}",
		"tasks[0].pid: 4294967296 is beyond any process or thread id");
	refused(HEAD "\"tasks\": [{\"pid\": 1, \"tid\": 1, \"comm\": \"\"}], \"stacks\": []}",
		"tasks[0].comm: expected a non-empty string");
	refused(HEAD "\"tasks\": {}, \"stacks\": []}", "tasks: not an array");
}

/* The report's text of p by `by`, in buf. */
static void report(const struct pmc_profile *p, enum pmc_profile_by by, size_t top, char *buf,
		   size_t len)
{
	FILE *f = fmemopen(buf, len, "w");

	assert_non_null(f);
	assert_int_equal(pmc_profile_report_tasks(f, p, by, top), 0);
	fclose(f);
}

static void report_by_task(void **state)
{
	struct pmc_profile *p = live_profile();
	char buf[8192];

	(void)state;
	report(p, PMC_PROFILE_BY_TID, 1, buf, sizeof(buf));
	assert_contains(buf, "Total: 10us in 3 threads\n");
	/* The rows: share, weight, samples, pid, tid, names. */
	assert_contains(buf, "  60.0%        6us        24       100      101  live-alpha\n");
	assert_contains(buf, "  10.0%        1us         4       200      201  live-beta, live\n");
	/* alpha's top function, its share of alpha's weight. */
	assert_contains(buf, "Thread 101 of process 100, live-alpha: 60.0% of the weight\n");
	assert_contains(buf, "  83.3%   83.3%        5us  alpha     /bin/live\n");
	assert_contains(buf, "(2 more functions; a larger --top shows them)");
	report(p, PMC_PROFILE_BY_PID, 0, buf, sizeof(buf));
	assert_contains(buf, "Total: 10us in 2 processes\n");
	assert_contains(buf, "Process 100 (2 threads), live: 90.0% of the weight\n");
	report(p, PMC_PROFILE_BY_COMM, 0, buf, sizeof(buf));
	assert_contains(buf, "Threads named live-beta (2 threads): 37.5% of the weight\n");
	pmc_profile_free(p);
}

static void report_says_not_kept(void **state)
{
	struct pmc_profile *p = new_profile(PMC_PROFILE_EXACT);
	uint32_t id;
	char buf[4096];

	(void)state;
	assert_int_equal(pmc_profile_frame_id(p, "main", "/bin/x", 0, &id), 0);
	assert_int_equal(pmc_profile_add(p, &id, 1, 100, 0, false), 0);
	report(p, PMC_PROFILE_BY_TID, 0, buf, sizeof(buf));
	assert_contains(buf, "Tasks: not kept: callgrind adds up the threads");
	assert_null(strstr(buf, "Total:"));
	pmc_profile_free(p);
	p = new_profile(PMC_PROFILE_SAMPLED);
	assert_int_equal(pmc_profile_frame_id(p, "main", "/bin/x", 0, &id), 0);
	assert_int_equal(pmc_profile_add(p, &id, 1, 100, 1, false), 0);
	report(p, PMC_PROFILE_BY_PID, 0, buf, sizeof(buf));
	assert_contains(buf, "Tasks: not kept: this profile was written by a pmcbench that");
	pmc_profile_free(p);
}

/* A stack root first, each frame "symbol@object". */
static void add_stack(struct pmc_profile *p, uint64_t w, int depth, ...)
{
	uint32_t ids[8];
	va_list ap;

	va_start(ap, depth);
	for (int i = 0; i < depth; i++) {
		const char *sym = va_arg(ap, const char *), *obj = va_arg(ap, const char *);

		assert_int_equal(pmc_profile_frame_id(p, sym, obj, 0, &ids[i]), 0);
	}
	va_end(ap);
	assert_int_equal(pmc_profile_add(p, ids, (uint32_t)depth, w, w / 250, false), 0);
}

/* By object (perf's --sort dso): each stack's weight goes to its leaf's object, so the
 * objects add up to the total, heaviest first; no tasks are needed (an exact profile has
 * none); each object's functions are its own. */
static void groups_by_object(void **state)
{
	struct pmc_profile *p = new_profile(PMC_PROFILE_EXACT);
	struct pmc_profile_group *g = NULL;
	struct pmc_profile_fn *fns = NULL;
	size_t n = 0, nf = 0;
	char buf[8192];

	(void)state;
	add_stack(p, 6000, 2, "main", "/bin/app", "parse", "/bin/app");
	add_stack(p, 3000, 2, "main", "/bin/app", "memcpy", "/lib/libc.so.6");
	add_stack(p, 500, 3, "main", "/bin/app", "parse", "/bin/app", "memcpy", "/lib/libc.so.6");
	add_stack(p, 500, 2, "main", "/bin/app", "do_syscall_64", "[kernel]");
	assert_int_equal(pmc_profile_group_by(p, PMC_PROFILE_BY_OBJECT, &g, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(g[0].name, "/bin/app");
	assert_int_equal(g[0].weight, 6000);
	assert_string_equal(g[1].name, "/lib/libc.so.6");
	assert_int_equal(g[1].weight, 3500);
	assert_int_equal(pmc_profile_total(g[1].p), 3500);
	assert_string_equal(g[2].name, "[kernel]");
	assert_int_equal(g[2].weight, 500);
	assert_true(g[0].kept && g[1].kept && g[2].kept);
	/* libc's self weight is memcpy's alone; its callers are there with their totals. */
	assert_int_equal(pmc_profile_functions(g[1].p, &fns, &nf), 0);
	assert_string_equal(fns[0].name, "memcpy");
	assert_int_equal(fns[0].self, 3500);
	for (size_t i = 1; i < nf; i++)
		assert_int_equal(fns[i].self, 0);
	pmc_profile_functions_free(fns, nf);
	pmc_profile_groups_free(g, n);
	report(p, PMC_PROFILE_BY_OBJECT, 1, buf, sizeof(buf));
	assert_contains(buf, "in 3 objects\n");
	assert_contains(buf, "  object\n");
	assert_contains(buf, "Samples in /lib/libc.so.6: 35.0% of the weight\n");
	assert_null(strstr(buf, "not kept"));
	pmc_profile_free(p);
}

static void by_parse(void **state)
{
	enum pmc_profile_by by;

	(void)state;
	assert_int_equal(pmc_profile_by_parse("comm", &by), 0);
	assert_int_equal(by, PMC_PROFILE_BY_COMM);
	assert_int_equal(pmc_profile_by_parse("pid", &by), 0);
	assert_int_equal(by, PMC_PROFILE_BY_PID);
	assert_int_equal(pmc_profile_by_parse("tid", &by), 0);
	assert_int_equal(by, PMC_PROFILE_BY_TID);
	assert_int_equal(pmc_profile_by_parse("object", &by), 0);
	assert_int_equal(by, PMC_PROFILE_BY_OBJECT);
	assert_int_equal(pmc_profile_by_parse("dso", &by), 0);
	assert_int_equal(by, PMC_PROFILE_BY_OBJECT);
	assert_int_equal(pmc_profile_by_parse("sym", &by), -EINVAL);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(tasks_are_interned_and_kept_apart),
	    cmocka_unit_test(groups_by_thread_process_and_name),
	    cmocka_unit_test(round_trip_keeps_tasks),
	    cmocka_unit_test(file_without_tasks_loads),
	    cmocka_unit_test(bad_task_index_is_refused),
	    cmocka_unit_test(report_by_task),
	    cmocka_unit_test(report_says_not_kept),
	    cmocka_unit_test(groups_by_object),
	    cmocka_unit_test(by_parse),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, setup, teardown);
}

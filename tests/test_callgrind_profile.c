/* Exact profiles from callgrind's output: hand-written files (name compression, contexts
 * as stacks, calls= costs kept out of self costs, subposition compression, two files
 * summed, each damaged file refused with its place), and real callgrind runs of
 * tests/targets/pmc-cg-work whose stack weights add up to the backend's instruction
 * count exactly. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "counters/backend.h"
#include "counters/valgrind/valgrind.h"
#include "profile/callgrind.h"
#include "profile/marked.h"
#include "profile/profile.h"
#include "tests/helpers.h"

#define DATA PMC_TEST_SRCDIR "/data/callgrind/"

/* The stack as "root;...;leaf" with "name@object" frames (objects by base name, frames
 * without a symbol as their offset). */
static void stack_text(const struct pmc_profile *p, const struct pmc_profile_stack *s, char *buf,
		       size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < s->depth && o < len; i++) {
		const struct pmc_profile_frame *f = pmc_profile_frame(p, s->frames[i]);
		const char *obj = strrchr(f->object, '/') ? strrchr(f->object, '/') + 1 : f->object;

		if (f->symbol)
			o += (size_t)snprintf(buf + o, len - o, "%s%s@%s", i ? ";" : "", f->symbol,
					      obj);
		else
			o += (size_t)snprintf(buf + o, len - o, "%s%#llx@%s", i ? ";" : "",
					      (unsigned long long)f->offset, obj);
	}
}

/* The weight of the stack written as stack_text() writes it; fails when absent. */
static uint64_t weight_of(const struct pmc_profile *p, const char *text, bool *truncated)
{
	char buf[4096];

	for (size_t i = 0; i < pmc_profile_stack_count(p); i++) {
		const struct pmc_profile_stack *s = pmc_profile_stack(p, i);

		stack_text(p, s, buf, sizeof(buf));
		if (strcmp(buf, text) == 0) {
			if (truncated)
				*truncated = s->truncated;
			return s->weight;
		}
	}
	print_error("no stack \"%s\"; the stacks are:\n", text);
	for (size_t i = 0; i < pmc_profile_stack_count(p); i++) {
		stack_text(p, pmc_profile_stack(p, i), buf, sizeof(buf));
		print_error("  %s %llu\n", buf,
			    (unsigned long long)pmc_profile_stack(p, i)->weight);
	}
	fail();
	return 0;
}

static struct pmc_profile *load(const char *const *files, size_t n, const char *event)
{
	struct pmc_profile *p = NULL;
	char err[512] = "";
	int r = pmc_callgrind_profile(files, n, event, "bench", &p, err, sizeof(err));

	if (r != 0)
		print_error("pmc_callgrind_profile: %d: %s\n", r, err);
	assert_int_equal(r, 0);
	return p;
}

/* ---- hand-written files --------------------------------------------------------------- */

static void test_contexts_become_stacks(void **state)
{
	const char *files[] = {DATA "basic.out"};
	struct pmc_profile *p = load(files, 1, "Ir");
	const struct pmc_profile_info *info = pmc_profile_info(p);
	bool trunc = true;

	(void)state;
	assert_int_equal(info->kind, PMC_PROFILE_EXACT);
	assert_string_equal(info->event, "Ir");
	assert_string_equal(info->unit, "instructions");
	assert_string_equal(info->name, "bench");
	/* Self costs only: the calls= lines' inclusive costs (300 and 100) are not in. */
	assert_int_equal(pmc_profile_total(p), 370);
	assert_int_equal(pmc_profile_stack_count(p), 7);
	/* Whole: (below main) also ran with no caller, so it is a root. */
	assert_int_equal(weight_of(p, "(below main)@prog;main@prog", &trunc), 8);
	assert_false(trunc);
	assert_int_equal(weight_of(p, "(below main)@prog;main@prog;work@prog", NULL), 200);
	/* A callee in another object (cob=), its caller's object from the caller's context. */
	assert_int_equal(
	    weight_of(p, "(below main)@prog;main@prog;work@prog;memcpy@libc.so.6", NULL), 100);
	/* The recursion level ("helper'2") is dropped: the callers show the recursion. */
	assert_int_equal(weight_of(p, "(below main)@prog;main@prog;helper@prog;helper@prog", NULL),
			 50);
	/* A function without a symbol: its offset, and callgrind's "???" object. */
	assert_int_equal(weight_of(p, "(below main)@prog;main@prog;0x1040@[unknown]", NULL), 2);
	assert_int_equal(weight_of(p, "(below main)@prog", &trunc), 4);
	assert_false(trunc);
	/* mid never ran without a caller: the chain was cut above it. */
	assert_int_equal(weight_of(p, "mid@[unknown];deep@prog", &trunc), 6);
	assert_true(trunc);
	pmc_profile_free(p);
}

static void test_other_event_column(void **state)
{
	const char *files[] = {DATA "basic.out"};
	struct pmc_profile *p = load(files, 1, "Dr");

	(void)state;
	assert_string_equal(pmc_profile_info(p)->unit, "events");
	assert_int_equal(pmc_profile_total(p), 21);
	assert_int_equal(weight_of(p, "(below main)@prog;main@prog;work@prog", NULL), 10);
	pmc_profile_free(p);
}

/* Two files (two processes or dumps) with their events in different orders and
 * instr+line positions with relative subpositions: their costs add up. */
static void test_two_files_summed(void **state)
{
	const char *files[] = {DATA "basic.out", DATA "second.out"};
	struct pmc_profile *p = load(files, 2, "Ir");

	(void)state;
	assert_int_equal(pmc_profile_total(p), 410);
	assert_int_equal(weight_of(p, "(below main)@prog;main@prog", NULL), 48);
	pmc_profile_free(p);
}

/* Without contexts every function is a stack of its own, and each is cut. */
static void test_flat_file_is_truncated(void **state)
{
	const char *files[] = {DATA "flat.out"};
	struct pmc_profile *p = load(files, 1, "Ir");
	bool trunc = false;

	(void)state;
	assert_int_equal(pmc_profile_total(p), 105);
	assert_int_equal(weight_of(p, "work@prog", &trunc), 100);
	assert_true(trunc);
	assert_int_equal(weight_of(p, "main@prog", &trunc), 5);
	assert_true(trunc);
	pmc_profile_free(p);
}

static void expect_error(const char *file, const char *event, int code, const char *msg)
{
	const char *files[] = {file};
	struct pmc_profile *p = (struct pmc_profile *)&p; /* must stay untouched */
	char err[512] = "";

	assert_int_equal(pmc_callgrind_profile(files, 1, event, NULL, &p, err, sizeof(err)), code);
	assert_ptr_equal(p, (struct pmc_profile *)&p);
	assert_contains(err, msg);
}

static void test_bad_files(void **state)
{
	(void)state;
	expect_error(DATA "bad_line.out", "Ir", -EINVAL, "bad_line.out:8: not a line");
	expect_error(DATA "truncated.out", "Ir", -EINVAL, "truncated.out: no 'totals:' line");
	/* A cost line read as self cost that was not (or the reverse) shows here. */
	expect_error(DATA "mismatch.out", "Ir", -EINVAL,
		     "mismatch.out:11: the Ir costs add up to 5");
	expect_error(DATA "undefined.out", "Ir", -EINVAL,
		     "undefined.out:6: a compressed name used");
	expect_error(DATA "no_ir.out", "Ir", -ENOENT, "no_ir.out:2: no event \"Ir\"");
	expect_error(DATA "basic.out", "Bcm", -ENOENT, "no event \"Bcm\"");
	expect_error(DATA "missing.out", "Ir", -ENOENT, "missing.out: cannot open");
}

static void test_missing_event_in_one_file(void **state)
{
	const char *files[] = {DATA "basic.out", DATA "no_ir.out"};
	struct pmc_profile *p = NULL;
	char err[512] = "";

	(void)state;
	assert_int_equal(pmc_callgrind_profile(files, 2, "Ir", NULL, &p, err, sizeof(err)),
			 -ENOENT);
	assert_null(p);
	assert_contains(err, "no_ir.out");
	assert_int_equal(pmc_callgrind_profile(files, 0, "Ir", NULL, &p, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(pmc_callgrind_profile(files, 1, NULL, NULL, &p, err, sizeof(err)),
			 -EINVAL);
}

/* An incomplete last line is a truncated file, wherever it stops. */
static void test_cut_anywhere(void **state)
{
	char path[] = "/tmp/pmc-cg-cut.XXXXXX";
	const char *files[] = {path};
	FILE *in = fopen(DATA "basic.out", "re");
	char text[4096];
	size_t len;

	(void)state;
	assert_non_null(in);
	len = fread(text, 1, sizeof(text), in);
	fclose(in);
	for (size_t cut = 1; cut < len; cut++) {
		struct pmc_profile *p = NULL;
		char err[512] = "";
		int fd = mkstemp(path);

		assert_true(fd >= 0);
		assert_int_equal(write(fd, text, cut), (ssize_t)cut);
		close(fd);
		assert_int_equal(pmc_callgrind_profile(files, 1, "Ir", NULL, &p, err, sizeof(err)),
				 -EINVAL);
		assert_null(p);
		unlink(path);
		strcpy(path, "/tmp/pmc-cg-cut.XXXXXX");
	}
}

static void test_args(void **state)
{
	const char *const *a = pmc_callgrind_profile_args();
	bool callers = false;

	(void)state;
	for (; *a; a++)
		callers = callers || strncmp(*a, "--separate-callers=", 19) == 0;
	assert_true(callers);
}

/* The profile of a marked run goes by the backend's dump_format: valgrind's dumps are
 * callgrind's files, asked for with callgrind's arguments; perf's have none. */
static void test_marked_by_dump_format(void **state)
{
	const struct pmc_backend_ops *vg = pmc_backend_get(PMC_BACKEND_VALGRIND);
	const struct pmc_backend_ops *perf = pmc_backend_get(PMC_BACKEND_PERF);
	struct pmc_backend_opts o = {.marked = true};
	char *const target[] = {(char *)"/bin/true", NULL};
	struct pmc_backend_session *s = NULL;
	struct pmc_backend_run *run = NULL;
	struct pmc_profile *p = NULL;
	char err[256] = "";

	(void)state;
	assert_ptr_equal(pmc_profile_marked_args(vg), pmc_callgrind_profile_args());
	assert_null(pmc_profile_marked_args(perf));
	assert_int_equal(pmc_profile_marked(perf, NULL, 0, "b", &p, err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "perf"));
	assert_null(p);
	/* A run not yet collected has no dump, so no file: -ENOENT, the caller's message. */
	o.wrapper_args = pmc_profile_marked_args(vg);
	assert_int_equal(vg->session_new(&o, &s), 0);
	assert_int_equal(vg->run_new(s, true, target, "true", &run, err, sizeof(err)), 0);
	assert_int_equal(pmc_profile_marked(vg, run, 0, "b", &p, err, sizeof(err)), -ENOENT);
	assert_null(p);
	vg->run_free(run);
	vg->session_free(s);
}

/* ---- real callgrind runs -------------------------------------------------------------- */

static char *valgrind_path;

static int setup(void **state)
{
	(void)state;
	if (pmc_valgrind_find(&valgrind_path) < 0)
		valgrind_path = NULL;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(valgrind_path);
	return 0;
}

struct run {
	struct pmc_profile *p;
	uint64_t ir; /* the backend's instruction count of the same files */
	uint64_t heavy, light;
};

static uint64_t self_of(const struct pmc_profile *p, const char *name)
{
	struct pmc_profile_fn *fns;
	size_t n;
	uint64_t v = 0;

	assert_int_equal(pmc_profile_functions(p, &fns, &n), 0);
	for (size_t i = 0; i < n; i++)
		if (strcmp(fns[i].name, name) == 0)
			v = fns[i].self;
	pmc_profile_functions_free(fns, n);
	return v;
}

/* Runs pmc-cg-work [arg] under callgrind as the backend counts (its options, then the
 * profile's) and reads the files both ways. */
static void run_cg_work(const char *arg, struct run *ret)
{
	struct pmc_valgrind_opts o = {0};
	struct pmc_valgrind_counts counts;
	char *target[] = {PMC_TEST_CG_WORK, (char *)arg, NULL};
	char **argv = NULL, *dir = NULL, err[512] = "";
	char *files[16];
	const char *cfiles[16];
	size_t n = 0;
	struct dirent *d;
	DIR *dp;
	int r;

	assert_int_equal(pmc_valgrind_outdir_new(NULL, &dir), 0);
	o.outdir = dir;
	o.valgrind = valgrind_path;
	o.extra_args = pmc_callgrind_profile_args();
	assert_int_equal(pmc_valgrind_argv(&o, target, &argv), 0);
	assert_int_equal(t_spawn_wait(argv), 0);
	free(argv);
	r = pmc_valgrind_collect(dir, &counts, err, sizeof(err));
	if (r != 0)
		print_error("collect: %s\n", err);
	assert_int_equal(r, 0);
	dp = opendir(dir);
	assert_non_null(dp);
	while ((d = readdir(dp)))
		if (strncmp(d->d_name, "callgrind.out.", 14) == 0) {
			assert_true(n < ARRAY_SIZE(files));
			assert_true(asprintf(&files[n], "%s/%s", dir, d->d_name) > 0);
			cfiles[n] = files[n];
			n++;
		}
	closedir(dp);
	assert_true(n >= 1);
	ret->p = load(cfiles, n, "Ir");
	ret->ir = counts.ev[PMC_VG_EV_IR];
	ret->heavy = self_of(ret->p, "cg_heavy");
	ret->light = self_of(ret->p, "cg_light");
	for (size_t i = 0; i < n; i++)
		free(files[i]);
	assert_int_equal(pmc_valgrind_outdir_remove(dir), 0);
	free(dir);
}

/* main as the caller of the function on one of its stacks. */
static bool called_from_main(const struct pmc_profile *p, const char *fn)
{
	for (size_t i = 0; i < pmc_profile_stack_count(p); i++) {
		const struct pmc_profile_stack *s = pmc_profile_stack(p, i);
		const struct pmc_profile_frame *leaf, *caller;

		if (s->depth < 2)
			continue;
		leaf = pmc_profile_frame(p, s->frames[s->depth - 1]);
		caller = pmc_profile_frame(p, s->frames[s->depth - 2]);
		if (leaf->symbol && strcmp(leaf->symbol, fn) == 0 && caller->symbol &&
		    strcmp(caller->symbol, "main") == 0 && strstr(leaf->object, "pmc-cg-work") &&
		    !s->truncated)
			return true;
	}
	return false;
}

static void test_real_run_adds_up(void **state)
{
	struct run a, b;

	(void)state;
	if (!valgrind_path) {
		print_message("valgrind is not installed; install it with: apt-get install "
			      "valgrind\n");
		skip();
	}
	run_cg_work("100000", &a);
	/* Exact: every instruction the backend counted is on exactly one stack. */
	assert_int_equal(pmc_profile_total(a.p), a.ir);
	assert_true(called_from_main(a.p, "cg_heavy"));
	assert_true(called_from_main(a.p, "cg_light"));
	assert_true(a.light > 100000);
	assert_close((double)a.heavy / (double)a.light, 3.0, 0.05);

	/* Twice the light work: only cg_light's weight changes. */
	run_cg_work("200000", &b);
	assert_int_equal(pmc_profile_total(b.p), b.ir);
	assert_int_equal(b.heavy, a.heavy);
	assert_close((double)b.light / (double)a.light, 2.0, 0.05);
	assert_int_equal(b.ir - a.ir, b.light - a.light);
	pmc_profile_free(a.p);
	pmc_profile_free(b.p);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_contexts_become_stacks),
	    cmocka_unit_test(test_other_event_column),
	    cmocka_unit_test(test_two_files_summed),
	    cmocka_unit_test(test_flat_file_is_truncated),
	    cmocka_unit_test(test_bad_files),
	    cmocka_unit_test(test_missing_event_in_one_file),
	    cmocka_unit_test(test_cut_anywhere),
	    cmocka_unit_test(test_args),
	    cmocka_unit_test(test_marked_by_dump_format),
	    cmocka_unit_test(test_real_run_adds_up),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, setup, teardown);
}

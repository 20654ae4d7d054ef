/* The valgrind backend: real valgrind runs of tests/targets/pmc-work (repeatability, the
 * instruction delta of extra loop iterations, children, counting only a function),
 * the output-file parser on handcrafted good and bad files, and the metric table. */
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "tests/helpers.h"
#include "counters/perf/counters.h"
#include "counters/valgrind/valgrind.h"

#define N 100000UL /* loop iterations: small, valgrind runs at about 1/50 of native speed */

static char *valgrind_path;

/* ---- helpers ------------------------------------------------------------------------- */

static int setup(void **state)
{
	if (pmc_valgrind_find(&valgrind_path) < 0)
		valgrind_path = NULL;
	return 0;
}

static int teardown(void **state)
{
	free(valgrind_path);
	return 0;
}

static void need_valgrind(void)
{
	if (!valgrind_path) {
		print_message("valgrind is not installed; install it with: apt-get install "
			      "valgrind\n");
		skip();
	}
}

/* Runs argv as the runner will: without address-space randomisation, output
 * discarded. Returns the wait status. */
/* One run of pmc-work ARGS... under valgrind with the options in *base (outdir and
 * valgrind filled in here); returns the wait status and, when collect_r is not NULL,
 * collect's return code (with *ret and err filled). */
static int vg_run(const struct pmc_valgrind_opts *base, struct pmc_valgrind_counts *ret,
		  int *collect_r, char *log, size_t loglen, const char *mode, ...)
{
	struct pmc_valgrind_opts o = {0};
	char *target[8] = {PMC_TEST_WORK, (char *)mode};
	char err[512] = "";
	char **argv = NULL;
	char *dir = NULL;
	int status, r, n = 2;
	va_list ap;

	need_valgrind();
	va_start(ap, mode);
	for (char *a; (a = va_arg(ap, char *)) && n < 7;)
		target[n++] = a;
	va_end(ap);
	target[n] = NULL;
	if (base)
		o = *base;
	assert_int_equal(pmc_valgrind_outdir_new(NULL, &dir), 0);
	o.outdir = dir;
	o.valgrind = valgrind_path;
	assert_int_equal(pmc_valgrind_argv(&o, target, &argv), 0);
	status = t_spawn_wait(argv);
	r = pmc_valgrind_collect(dir, ret, err, sizeof(err));
	if (collect_r) {
		*collect_r = r;
		if (r < 0)
			print_message("collect: %s\n", err);
	} else {
		if (r < 0)
			print_error("collect failed: %s\n", err);
		assert_int_equal(r, 0);
	}
	if (log && pmc_valgrind_log_error(dir, log, loglen) < 0)
		log[0] = '\0';
	assert_int_equal(pmc_valgrind_outdir_remove(dir), 0);
	free(argv);
	free(dir);
	return status;
}

/* A successful run of pmc-work; returns the counts. */
static struct pmc_valgrind_counts work(const struct pmc_valgrind_opts *base, const char *mode,
				       const char *a1, const char *a2)
{
	struct pmc_valgrind_counts c;
	int status = vg_run(base, &c, NULL, NULL, 0, mode, a1, a2, (char *)NULL);

	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	return c;
}

static uint64_t instructions(const struct pmc_valgrind_counts *c)
{
	uint64_t v = 0;

	assert_int_equal(pmc_valgrind_metric_value(c, PMC_VG_M_INSTRUCTIONS, &v, NULL, 0), 0);
	return v;
}

static uint64_t loop_ir(unsigned long iterations)
{
	char arg[32];
	struct pmc_valgrind_counts c;

	snprintf(arg, sizeof(arg), "%lu", iterations);
	c = work(NULL, "loop", arg, NULL);
	return instructions(&c);
}

static int64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? (int64_t)(a - b) : (int64_t)(b - a);
}

/* Instructions per iteration of pmc-work's loop body, measured once: the difference
 * between 2N and N iterations, divided by N. The arguments have the same length, so
 * the program's start-up does the same work in both. */
static uint64_t measured_body;

static uint64_t loop_body(void)
{
	if (!measured_body) {
		uint64_t d = loop_ir(2 * N) - loop_ir(N);

		measured_body = (d + N / 2) / N;
	}
	return measured_body;
}

/* ---- real runs ----------------------------------------------------------------------- */

static void test_find_valgrind_in_path(void **state)
{
	char *saved, *path = (char *)0x1;
	struct stat st;

	need_valgrind();
	assert_int_equal(valgrind_path[0], '/');
	assert_int_equal(stat(valgrind_path, &st), 0);
	assert_int_equal(access(valgrind_path, X_OK), 0);

	saved = strdup(getenv("PATH"));
	assert_non_null(saved);
	setenv("PATH", "/nonexistent-dir", 1);
	assert_int_equal(pmc_valgrind_find(&path), -ENOENT);
	assert_ptr_equal(path, (char *)0x1); /* untouched on failure */
	setenv("PATH", saved, 1);
	free(saved);
}

static void test_two_runs_give_identical_counts(void **state)
{
	struct pmc_valgrind_counts a = work(NULL, "loop", "100000", NULL);
	struct pmc_valgrind_counts b = work(NULL, "loop", "100000", NULL);

	for (int e = 0; e < PMC_VG_EV_COUNT; e++) {
		print_message("event %d: %llu %llu\n", e, (unsigned long long)a.ev[e],
			      (unsigned long long)b.ev[e]);
		assert_int_equal(a.ev[e], b.ev[e]);
	}
	assert_int_equal(a.present, (1u << PMC_VG_EV_COUNT) - 1);
	assert_int_equal(a.present, b.present);
	assert_int_equal(a.tool, PMC_VALGRIND_CALLGRIND);
	assert_int_equal(a.processes, 1);
	assert_int_equal(b.processes, 1);
	assert_int_equal(a.files, b.files);
	/* the fixed reference geometry, not this machine's */
	assert_string_equal(a.caches, "I1 cache: 32768 B, 64 B, 8-way associative; "
				      "D1 cache: 32768 B, 64 B, 8-way associative; "
				      "LL cache: 8388608 B, 64 B, 16-way associative");
	assert_string_equal(a.caches, b.caches);
	for (size_t i = 0; i < pmc_valgrind_metric_count(); i++) {
		uint64_t va, vb;

		assert_int_equal(pmc_valgrind_metric_value(&a, i, &va, NULL, 0), 0);
		assert_int_equal(pmc_valgrind_metric_value(&b, i, &vb, NULL, 0), 0);
		assert_int_equal(va, vb);
	}
}

static void test_extra_iterations_cost_k_times_the_body(void **state)
{
	uint64_t i1 = loop_ir(N), i2 = loop_ir(2 * N), i3 = loop_ir(3 * N);
	uint64_t d1 = i2 - i1, d2 = i3 - i2, body = (d1 + N / 2) / N;

	print_message("loop N: %llu, 2N: %llu, 3N: %llu; body %llu\n", (unsigned long long)i1,
		      (unsigned long long)i2, (unsigned long long)i3, (unsigned long long)body);
	/* linear: the second N iterations cost what the first did */
	assert_in_range(absdiff(d1, d2), 0, 8);
	/* a small whole number of instructions per iteration */
	assert_in_range(body, 3, 10);
	assert_in_range(absdiff(d1, body * N), 0, 8);
	assert_in_range(absdiff(d2, body * N), 0, 8);
	measured_body = body;
}

static void test_collect_only_counts_only_the_function(void **state)
{
	const char *const only[] = {"loop", NULL};
	struct pmc_valgrind_opts o = {.collect_only = only};
	struct pmc_valgrind_counts a = work(&o, "loop", "100000", NULL);
	struct pmc_valgrind_counts b = work(&o, "loop", "200000", NULL);
	uint64_t ia = instructions(&a), ib = instructions(&b), body = loop_body();

	print_message("loop() alone: N %llu, 2N %llu, body %llu\n", (unsigned long long)ia,
		      (unsigned long long)ib, (unsigned long long)body);
	/* The program's start-up and exit (about 130000 instructions) are not counted,
	 * only the body times N plus the function's entry and return. */
	assert_in_range(absdiff(ia, body * N), 0, 8);
	assert_in_range(absdiff(ib - ia, body * N), 0, 8);
}

static void test_forked_children_are_counted_once(void **state)
{
	struct pmc_valgrind_counts c0 = work(NULL, "fork", "0", "100000");
	struct pmc_valgrind_counts c3 = work(NULL, "fork", "3", "100000");
	uint64_t i0 = instructions(&c0), i3 = instructions(&c3), body = loop_body();

	print_message("fork 0: %llu, fork 3: %llu, body %llu\n", (unsigned long long)i0,
		      (unsigned long long)i3, (unsigned long long)body);
	assert_int_equal(c0.processes, 1);
	assert_int_equal(c3.processes, 4);
	/* each child's loop is in the sum */
	assert_true(i3 >= i0 + 3 * N * body);
	/* and nothing more than a child's own fork return and exit: the parent's ~130000
	 * instructions before each fork are not counted again in the child. */
	assert_in_range(i3 - i0 - 3 * N * body, 0, 3 * 3000);
}

static void test_cachegrind_counts_the_same_loop(void **state)
{
	struct pmc_valgrind_opts o = {.tool = PMC_VALGRIND_CACHEGRIND};
	struct pmc_valgrind_counts a = work(&o, "loop", "100000", NULL);
	struct pmc_valgrind_counts b = work(&o, "loop", "200000", NULL);

	assert_int_equal(a.tool, PMC_VALGRIND_CACHEGRIND);
	assert_int_equal(a.present, (1u << PMC_VG_EV_COUNT) - 1);
	assert_int_equal(a.files, 1);
	assert_in_range(absdiff(instructions(&b) - instructions(&a), loop_body() * N), 0, 8);
}

static void test_no_branch_sim_leaves_branch_metrics_absent(void **state)
{
	struct pmc_valgrind_opts o = {.no_branch_sim = true};
	struct pmc_valgrind_counts c = work(&o, "loop", "1000", NULL);
	uint64_t v = 7;

	assert_int_equal(pmc_valgrind_metric_value(&c, PMC_VG_M_BRANCH_COND, &v, NULL, 0),
			 -ENODATA);
	assert_int_equal(pmc_valgrind_metric_value(&c, PMC_VG_M_BRANCH_MISSES, &v, NULL, 0),
			 -ENODATA);
	assert_int_equal(v, 7);
	assert_int_equal(pmc_valgrind_metric_value(&c, PMC_VG_M_EST_CYCLES, &v, NULL, 0), 0);
	assert_true(v > instructions(&c));
}

static void test_valgrind_failing_is_an_error(void **state)
{
	const char *const bogus[] = {"--no-such-valgrind-option", NULL};
	struct pmc_valgrind_opts o = {.extra_args = bogus};
	struct pmc_valgrind_counts c, orig;
	int r, status;

	memset(&c, 0xab, sizeof(c));
	orig = c;
	status = vg_run(&o, &c, &r, NULL, 0, "loop", "10", (char *)NULL);
	assert_true(WIFEXITED(status));
	assert_int_not_equal(WEXITSTATUS(status), 0);
	assert_int_equal(r, -ENOENT);
	assert_memory_equal(&c, &orig, sizeof(c));
}

static void test_crash_is_named_in_the_log(void **state)
{
	struct pmc_valgrind_counts c;
	char log[256];
	int r, status;

	status = vg_run(NULL, &c, &r, log, sizeof(log), "kill", "11", (char *)NULL);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), 11);
	print_message("log: %s\n", log);
	assert_non_null(strstr(log, "Process terminating with default action of signal 11"));
	/* valgrind still writes the counts up to the crash; the runner decides */
	assert_int_equal(r, 0);
}

/* ---- argv ---------------------------------------------------------------------------- */

static bool has_arg(char **argv, const char *arg)
{
	for (; *argv; argv++)
		if (strcmp(*argv, arg) == 0)
			return true;
	return false;
}

static void test_argv(void **state)
{
	struct pmc_valgrind_opts o = {.outdir = "/tmp/d"};
	char *target[] = {PMC_TEST_WORK, "loop", "5", NULL};
	char *missing[] = {"/nonexistent/prog", NULL};
	char *notinpath[] = {"no-such-program-pmcbench", NULL};
	const char *const only[] = {"bench_*", NULL};
	char **argv = (char **)0x1;
	size_t n = 0;

	assert_int_equal(pmc_valgrind_argv(&o, target, &argv), 0);
	while (argv[n])
		n++;
	assert_string_equal(argv[0], "valgrind");
	assert_true(has_arg(argv, "--tool=callgrind"));
	assert_true(has_arg(argv, "--callgrind-out-file=/tmp/d/callgrind.out.%p"));
	assert_true(has_arg(argv, "--log-file=/tmp/d/valgrind.log.%p"));
	assert_true(has_arg(argv, "--cache-sim=yes"));
	assert_true(has_arg(argv, "--branch-sim=yes"));
	assert_true(has_arg(argv, "--trace-children=yes"));
	assert_true(has_arg(argv, "--dump-before=fork"));
	assert_true(has_arg(argv, "--LL=8388608,16,64"));
	assert_false(has_arg(argv, "--collect-atstart=no"));
	assert_string_equal(argv[n - 4], "--");
	assert_string_equal(argv[n - 3], PMC_TEST_WORK);
	assert_string_equal(argv[n - 1], "5");
	free(argv);

	o.tool = PMC_VALGRIND_CACHEGRIND;
	o.host_caches = true;
	o.no_children = true;
	o.valgrind = "/opt/vg/bin/valgrind";
	assert_int_equal(pmc_valgrind_argv(&o, target, &argv), 0);
	assert_string_equal(argv[0], "/opt/vg/bin/valgrind");
	assert_true(has_arg(argv, "--tool=cachegrind"));
	assert_true(has_arg(argv, "--cachegrind-out-file=/tmp/d/cachegrind.out.%p"));
	assert_true(has_arg(argv, "--trace-children=no"));
	assert_false(has_arg(argv, "--dump-before=fork"));
	assert_false(has_arg(argv, "--LL=8388608,16,64"));
	free(argv);

	/* cachegrind cannot count only a part of the program */
	argv = (char **)0x1;
	o.collect_only = only;
	assert_int_equal(pmc_valgrind_argv(&o, target, &argv), -EINVAL);
	o.tool = PMC_VALGRIND_CALLGRIND;
	assert_int_equal(pmc_valgrind_argv(&o, target, &argv), 0);
	assert_true(has_arg(argv, "--collect-atstart=no"));
	assert_true(has_arg(argv, "--toggle-collect=bench_*"));
	free(argv);

	argv = (char **)0x1;
	assert_int_equal(pmc_valgrind_argv(&o, missing, &argv), -ENOENT);
	assert_int_equal(pmc_valgrind_argv(&o, notinpath, &argv), -ENOENT);
	o.outdir = "/tmp/100%p";
	assert_int_equal(pmc_valgrind_argv(&o, target, &argv), -EINVAL);
	o.outdir = NULL;
	assert_int_equal(pmc_valgrind_argv(&o, target, &argv), -EINVAL);
	assert_int_equal(pmc_valgrind_argv(NULL, target, &argv), -EINVAL);
	assert_ptr_equal(argv, (char **)0x1);
}

/* ---- the parser on handcrafted files ------------------------------------------------- */

static char *make_dir(void)
{
	char *dir = NULL;

	assert_int_equal(pmc_valgrind_outdir_new(NULL, &dir), 0);
	return dir;
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

#define CG_HEAD                                                                                    \
	"desc: I1 cache:         32768 B, 64 B, 8-way associative\n"                               \
	"desc: D1 cache:         32768 B, 64 B, 8-way associative\n"                               \
	"desc: LL cache:         8388608 B, 64 B, 16-way associative\n"                            \
	"cmd: /bin/true\n"                                                                         \
	"events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim\n"                           \
	"fl=???\n"                                                                                 \
	"fn=???\n"                                                                                 \
	"0 131 24 23 44 1 0 17 1 1 11 6 19 11\n"

static void test_collect_sums_cachegrind_files_by_event_name(void **state)
{
	char *dir = make_dir();
	struct pmc_valgrind_counts c;
	char err[256] = "";

	write_file(dir, "cachegrind.out.41", CG_HEAD "summary: 1 2 3 4 5 6 7 8 9 10 11 12 13\n");
	write_file(dir, "cachegrind.out.42",
		   CG_HEAD "summary: 100 200 300 400 500 600 700 800 900 1000 1100 1200 1300\n");
	write_file(dir, "valgrind.log.41", "==41== Cachegrind\n");
	assert_int_equal(pmc_valgrind_collect(dir, &c, err, sizeof(err)), 0);
	assert_int_equal(c.tool, PMC_VALGRIND_CACHEGRIND);
	assert_int_equal(c.files, 2);
	assert_int_equal(c.processes, 2);
	assert_int_equal(c.present, (1u << PMC_VG_EV_COUNT) - 1);
	/* cachegrind's column order is not ours: each column lands on its event */
	assert_int_equal(c.ev[PMC_VG_EV_IR], 101);
	assert_int_equal(c.ev[PMC_VG_EV_I1MR], 202);
	assert_int_equal(c.ev[PMC_VG_EV_ILMR], 303);
	assert_int_equal(c.ev[PMC_VG_EV_DR], 404);
	assert_int_equal(c.ev[PMC_VG_EV_D1MR], 505);
	assert_int_equal(c.ev[PMC_VG_EV_DLMR], 606);
	assert_int_equal(c.ev[PMC_VG_EV_DW], 707);
	assert_int_equal(c.ev[PMC_VG_EV_D1MW], 808);
	assert_int_equal(c.ev[PMC_VG_EV_DLMW], 909);
	assert_int_equal(c.ev[PMC_VG_EV_BC], 1010);
	assert_int_equal(c.ev[PMC_VG_EV_BCM], 1111);
	assert_int_equal(c.ev[PMC_VG_EV_BI], 1212);
	assert_int_equal(c.ev[PMC_VG_EV_BIM], 1313);
	assert_string_equal(c.caches, "I1 cache:         32768 B, 64 B, 8-way associative; "
				      "D1 cache:         32768 B, 64 B, 8-way associative; "
				      "LL cache:         8388608 B, 64 B, 16-way associative");
	assert_int_equal(pmc_valgrind_outdir_remove(dir), 0);
	free(dir);
}

#define CL_HEAD(pid)                                                                               \
	"# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: " pid "\n"                \
	"positions: line\n"                                                                        \
	"events: Ir Dr sysCount Dw Bc Bcm\n"                                                       \
	"summary: 999 999 999 999 999 999\n\n"                                                     \
	"fn=(1) main\n0 5 1 0 1\n\n"

static void test_collect_sums_callgrind_dumps_and_processes(void **state)
{
	char *dir = make_dir();
	struct pmc_valgrind_counts c;
	uint64_t v = 0;
	char err[256] = "";

	/* a process with one dump before fork, and its child */
	write_file(dir, "callgrind.out.100.1", CL_HEAD("100") "totals: 10 20 5 30 40 50\n");
	write_file(dir, "callgrind.out.100", CL_HEAD("100") "totals: 1 2 7 3\n");
	write_file(dir, "callgrind.out.1001", CL_HEAD("1001") "totals: 100 200 0 300 400 500\n");
	assert_int_equal(pmc_valgrind_collect(dir, &c, err, sizeof(err)), 0);
	assert_int_equal(c.tool, PMC_VALGRIND_CALLGRIND);
	assert_int_equal(c.files, 3);
	assert_int_equal(c.processes, 2);
	/* totals, not the header's summary; sysCount skipped; left-out counts are 0 */
	assert_int_equal(c.ev[PMC_VG_EV_IR], 111);
	assert_int_equal(c.ev[PMC_VG_EV_DR], 222);
	assert_int_equal(c.ev[PMC_VG_EV_DW], 333);
	assert_int_equal(c.ev[PMC_VG_EV_BC], 440);
	assert_int_equal(c.ev[PMC_VG_EV_BCM], 550);
	assert_int_equal(c.present, (1u << PMC_VG_EV_IR) | (1u << PMC_VG_EV_DR) |
					(1u << PMC_VG_EV_DW) | (1u << PMC_VG_EV_BC) |
					(1u << PMC_VG_EV_BCM));
	assert_string_equal(c.caches, "");
	/* not collected: absent, never 0 */
	assert_int_equal(pmc_valgrind_metric_value(&c, PMC_VG_M_BRANCH_INDIRECT, &v, NULL, 0),
			 -ENODATA);
	assert_int_equal(pmc_valgrind_metric_value(&c, PMC_VG_M_BRANCH_MISSES, &v, NULL, 0),
			 -ENODATA);
	assert_int_equal(pmc_valgrind_metric_value(&c, PMC_VG_M_EST_CYCLES, &v, NULL, 0), -ENODATA);
	assert_int_equal(pmc_valgrind_metric_value(&c, PMC_VG_M_I1_MISSES, &v, NULL, 0), -ENODATA);
	assert_int_equal(pmc_valgrind_metric_value(&c, PMC_VG_M_BRANCH_COND_MISSES, &v, NULL, 0),
			 0);
	assert_int_equal(v, 550);
	assert_int_equal(pmc_valgrind_outdir_remove(dir), 0);
	free(dir);
}

/* The microbenchmark library's four dumps of one process: each read on its own and put
 * in request order (dump 10 after dump 9, though "10" sorts before "9"), the dump at the
 * program's end left out. */
static void test_collect_dumps_reads_each_dump_in_order(void **state)
{
	struct pmc_valgrind_counts c[12];
	char *dir = make_dir(), name[64], text[512];
	size_t n = 0;
	char err[256] = "";

	for (int k = 1; k <= 10; k++) {
		snprintf(name, sizeof(name), "callgrind.out.77.%d", k);
		snprintf(text, sizeof(text), CL_HEAD("77") "totals: %d 2 0 3 4 5\n", 100 * k);
		write_file(dir, name, text);
	}
	write_file(dir, "callgrind.out.77", CL_HEAD("77") "totals: 0 0 0 0 0 0\n");
	assert_int_equal(pmc_valgrind_collect_dumps(dir, c, 12, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 10);
	for (size_t k = 0; k < n; k++) {
		assert_int_equal(c[k].ev[PMC_VG_EV_IR], 100 * (k + 1));
		assert_int_equal(c[k].files, 1);
		assert_int_equal(c[k].ev[PMC_VG_EV_DW], 3);
	}
	/* More dumps than the caller has room for. */
	assert_int_equal(pmc_valgrind_collect_dumps(dir, c, 4, &n, err, sizeof(err)), -E2BIG);
	/* A gap in the numbers. */
	snprintf(name, sizeof(name), "%s/callgrind.out.77.3", dir);
	assert_int_equal(unlink(name), 0);
	assert_int_equal(pmc_valgrind_collect_dumps(dir, c, 12, &n, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "dump 3 of"));
	/* Another process's files. */
	write_file(dir, "callgrind.out.77.3", CL_HEAD("77") "totals: 300 2 0 3 4 5\n");
	write_file(dir, "callgrind.out.78", CL_HEAD("78") "totals: 1 2 0 3 4 5\n");
	assert_int_equal(pmc_valgrind_collect_dumps(dir, c, 12, &n, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "more than one process"));
	/* A truncated dump: the parser's error, naming the file. */
	snprintf(name, sizeof(name), "%s/callgrind.out.78", dir);
	assert_int_equal(unlink(name), 0);
	write_file(dir, "callgrind.out.77.2", CL_HEAD("77") "totals: 1 2");
	assert_int_equal(pmc_valgrind_collect_dumps(dir, c, 12, &n, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "callgrind.out.77.2"));
	assert_int_equal(pmc_valgrind_outdir_remove(dir), 0);
	free(dir);
}

/* Each bad directory: the files to write (name, text pairs), the error, and words the
 * message must contain. */
struct bad_case {
	const char *what;
	const char *files[4][2];
	int error;
	const char *words[2];
};

static const struct bad_case bad_cases[] = {
    {"no output file",
     {{"valgrind.log.5", "==5== Callgrind\n"}},
     -ENOENT,
     {"no valgrind output file", NULL}},
    {"empty file", {{"cachegrind.out.5", ""}}, -EINVAL, {"cachegrind.out.5", "empty"}},
    {"truncated before the summary",
     {{"cachegrind.out.5", CG_HEAD}},
     -EINVAL,
     {"cachegrind.out.5", "no 'summary:' line"}},
    {"truncated inside the summary",
     {{"cachegrind.out.5", CG_HEAD "summary: 1 2 3 4 5 6 7 8 9 10 11 1"}},
     -EINVAL,
     {"cachegrind.out.5:9", "incomplete"}},
    {"callgrind without totals",
     {{"callgrind.out.5", CL_HEAD("5")}},
     -EINVAL,
     {"callgrind.out.5", "no 'totals:' line"}},
    {"garbage count",
     {{"cachegrind.out.5", CG_HEAD "summary: 1 2 3 4 5x 6 7 8 9 10 11 12 13\n"}},
     -EINVAL,
     {"cachegrind.out.5:9", "'5x' is not a count"}},
    {"negative count",
     {{"cachegrind.out.5", CG_HEAD "summary: 1 2 3 -4 5 6 7 8 9 10 11 12 13\n"}},
     -EINVAL,
     {"cachegrind.out.5:9", "'-4' is not a count"}},
    {"count out of range",
     {{"cachegrind.out.5", CG_HEAD "summary: 18446744073709551616 2\n"}},
     -EOVERFLOW,
     {"cachegrind.out.5:9: Ir count 18446744073709551616", "above 2^63 - 1"}},
    /* A result holds at most 2^63 - 1 (a JSON integer): refused where it enters. */
    {"count of 2^63",
     {{"cachegrind.out.5", CG_HEAD "summary: 1 9223372036854775808\n"}},
     -EOVERFLOW,
     {"cachegrind.out.5:9: I1mr count 9223372036854775808", "above 2^63 - 1"}},
    {"count of an event not reported above 2^63 - 1",
     {{"callgrind.out.5", "events: Ir sysCount\ntotals: 1 9223372036854775808\n"}},
     -EOVERFLOW,
     {"callgrind.out.5:2: count 9223372036854775808 (column 2)", "above 2^63 - 1"}},
    {"sum above 2^63 - 1",
     {{"cachegrind.out.5", "events: Ir\nsummary: 4611686018427387904\n"},
      {"cachegrind.out.6", "events: Ir\nsummary: 4611686018427387904\n"}},
     -EOVERFLOW,
     {"the sum of Ir over 2 files", "above 2^63 - 1"}},
    {"too many counts",
     {{"cachegrind.out.5", CG_HEAD "summary: 1 2 3 4 5 6 7 8 9 10 11 12 13 14\n"}},
     -EINVAL,
     {"cachegrind.out.5:9", "more counts"}},
    {"no events line",
     {{"cachegrind.out.5", "desc: x\nsummary: 1 2 3\n"}},
     -EINVAL,
     {"cachegrind.out.5:2", "before the 'events:' line"}},
    {"events differ between files",
     {{"cachegrind.out.5", "events: Ir Dr\nsummary: 1 2\n"},
      {"cachegrind.out.6", "events: Ir\nsummary: 1\n"}},
     -EINVAL,
     {"cachegrind.out.6", "events differ"}},
    {"sum overflows",
     {{"cachegrind.out.5", "events: Ir\nsummary: 18446744073709551615\n"},
      {"cachegrind.out.6", "events: Ir\nsummary: 1\n"}},
     -EOVERFLOW,
     {"cachegrind.out.5:2: Ir count 18446744073709551615", "above 2^63 - 1"}},
    {"both tools",
     {{"cachegrind.out.5", "events: Ir\nsummary: 1\n"},
      {"callgrind.out.6", "events: Ir\ntotals: 1\n"}},
     -EINVAL,
     {"both callgrind and cachegrind", NULL}},
};

static void test_collect_rejects_bad_output(void **state)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *bc = &bad_cases[i];
		struct pmc_valgrind_counts c, orig;
		char *dir = make_dir();
		char err[512] = "";
		int r;

		for (int f = 0; f < 4 && bc->files[f][0]; f++)
			write_file(dir, bc->files[f][0], bc->files[f][1]);
		memset(&c, 0x5a, sizeof(c));
		orig = c;
		r = pmc_valgrind_collect(dir, &c, err, sizeof(err));
		print_message("%s: %d %s\n", bc->what, r, err);
		assert_int_equal(r, bc->error);
		assert_memory_equal(&c, &orig, sizeof(c));
		for (int w = 0; w < 2; w++)
			if (bc->words[w])
				assert_non_null(strstr(err, bc->words[w]));
		assert_int_equal(pmc_valgrind_outdir_remove(dir), 0);
		free(dir);
	}
}

static void test_collect_on_missing_dir(void **state)
{
	struct pmc_valgrind_counts c;
	char err[256] = "";

	assert_int_equal(pmc_valgrind_collect("/nonexistent-pmcbench-dir", &c, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "/nonexistent-pmcbench-dir"));
}

static void test_outdir_remove_leaves_foreign_files(void **state)
{
	char *dir = make_dir();
	char path[512];
	struct stat st;

	write_file(dir, "callgrind.out.7", "x");
	write_file(dir, "valgrind.log.7", "x");
	write_file(dir, "notes.txt", "mine");
	assert_int_equal(pmc_valgrind_outdir_remove(dir), -ENOTEMPTY);
	snprintf(path, sizeof(path), "%s/notes.txt", dir);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/callgrind.out.7", dir);
	assert_int_equal(stat(path, &st), -1);
	snprintf(path, sizeof(path), "%s/notes.txt", dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(pmc_valgrind_outdir_remove(dir), 0);
	assert_int_equal(stat(dir, &st), -1);
	assert_int_equal(pmc_valgrind_outdir_remove(NULL), 0);
	free(dir);
}

/* ---- metrics ------------------------------------------------------------------------- */

static void test_metric_table(void **state)
{
	static const char *const ids[] = {
	    "instructions",
	    "data-reads",
	    "data-writes",
	    "I1-misses",
	    "LLi-misses",
	    "D1-read-misses",
	    "D1-write-misses",
	    "LLd-read-misses",
	    "LLd-write-misses",
	    "branch-cond",
	    "branch-cond-misses",
	    "branch-indirect",
	    "branch-indirect-misses",
	    "branch-misses",
	    "est-cycles",
	};
	struct pmc_valgrind_counts c = {0};
	uint64_t v;

	assert_int_equal(pmc_valgrind_metric_count(), sizeof(ids) / sizeof(ids[0]));
	for (size_t i = 0; i < pmc_valgrind_metric_count(); i++) {
		assert_string_equal(pmc_valgrind_metric_id(i), ids[i]);
	}
	assert_null(pmc_valgrind_metric_id(pmc_valgrind_metric_count()));
	assert_int_equal(pmc_valgrind_metric_value(&c, pmc_valgrind_metric_count(), &v, NULL, 0),
			 -EINVAL);
	/* nothing collected: every metric is absent */
	for (size_t i = 0; i < pmc_valgrind_metric_count(); i++)
		assert_int_equal(pmc_valgrind_metric_value(&c, i, &v, NULL, 0), -ENODATA);
}

static void test_est_cycles_formula(void **state)
{
	struct pmc_valgrind_counts c = {.present = (1u << PMC_VG_EV_COUNT) - 1};
	struct pmc_reading rd;
	uint64_t v = 0;

	c.ev[PMC_VG_EV_IR] = 1000;
	c.ev[PMC_VG_EV_DR] = 400;
	c.ev[PMC_VG_EV_DW] = 200;
	c.ev[PMC_VG_EV_I1MR] = 10;
	c.ev[PMC_VG_EV_D1MR] = 20;
	c.ev[PMC_VG_EV_D1MW] = 5;
	c.ev[PMC_VG_EV_ILMR] = 2;
	c.ev[PMC_VG_EV_DLMR] = 4;
	c.ev[PMC_VG_EV_DLMW] = 1;
	c.ev[PMC_VG_EV_BCM] = 17;
	c.ev[PMC_VG_EV_BIM] = 4;
	/* accesses 1600, L1 misses 35, LL misses 7:
	 * L1 hits 1565 + 5 x LL hits 28 + 35 x memory accesses 7 = 1565 + 140 + 245 */
	assert_int_equal(pmc_valgrind_metric_value(&c, PMC_VG_M_EST_CYCLES, &v, NULL, 0), 0);
	assert_int_equal(v, 1950);
	assert_int_equal(pmc_valgrind_metric_value(&c, PMC_VG_M_BRANCH_MISSES, &v, NULL, 0), 0);
	assert_int_equal(v, 21);

	assert_int_equal(pmc_valgrind_metric_reading(&c, PMC_VG_M_EST_CYCLES, &rd, NULL, 0), 0);
	assert_int_equal(rd.status, PMC_STATUS_EXACT);
	assert_int_equal(rd.value, 1950);
	assert_true(rd.scaled == 1950.0);

	/* every access an L1 hit */
	memset(c.ev, 0, sizeof(c.ev));
	c.ev[PMC_VG_EV_IR] = 7;
	assert_int_equal(pmc_valgrind_metric_value(&c, PMC_VG_M_EST_CYCLES, &v, NULL, 0), 0);
	assert_int_equal(v, 7);
	/* every access to memory */
	c.ev[PMC_VG_EV_I1MR] = 7;
	c.ev[PMC_VG_EV_ILMR] = 7;
	assert_int_equal(pmc_valgrind_metric_value(&c, PMC_VG_M_EST_CYCLES, &v, NULL, 0), 0);
	assert_int_equal(v, 245);

	/* more LL misses than L1 misses cannot come from valgrind */
	v = 3;
	c.ev[PMC_VG_EV_ILMR] = 8;
	assert_int_equal(pmc_valgrind_metric_value(&c, PMC_VG_M_EST_CYCLES, &v, NULL, 0), -ERANGE);
	assert_int_equal(v, 3);
	c.ev[PMC_VG_EV_ILMR] = 0;
	c.ev[PMC_VG_EV_I1MR] = UINT64_MAX;
	assert_int_equal(pmc_valgrind_metric_value(&c, PMC_VG_M_EST_CYCLES, &v, NULL, 0), -ERANGE);
	c.ev[PMC_VG_EV_I1MR] = 0;
	c.ev[PMC_VG_EV_IR] = UINT64_MAX;
	c.ev[PMC_VG_EV_DR] = 1;
	assert_int_equal(pmc_valgrind_metric_value(&c, PMC_VG_M_EST_CYCLES, &v, NULL, 0), -ERANGE);
}

/* 2^63 - 1 is the largest count a result holds, and is read as it is. */
static void test_collect_reads_the_largest_count(void **state)
{
	struct pmc_valgrind_counts c;
	char *dir = make_dir();
	char err[256] = "";
	uint64_t v = 0;

	write_file(dir, "callgrind.out.5", "events: Ir\ntotals: 9223372036854775807\n");
	assert_int_equal(pmc_valgrind_collect(dir, &c, err, sizeof(err)), 0);
	assert_int_equal(pmc_valgrind_metric_value(&c, PMC_VG_M_INSTRUCTIONS, &v, NULL, 0), 0);
	assert_true(v == (uint64_t)INT64_MAX);
	assert_int_equal(pmc_valgrind_outdir_remove(dir), 0);
	free(dir);
}

/* The backend reads a file with the one reader the exact profiles use: a file written
 * with CRLF line ends gives the same counts, and so does one with comments and blank
 * lines between its headers. */
static void test_collect_reads_lines_as_the_profiles_do(void **state)
{
	struct pmc_valgrind_counts c;
	char *dir = make_dir();
	char err[256] = "";

	write_file(dir, "callgrind.out.5",
		   "# callgrind format\r\nevents: Ir Bc Bcm\r\n\r\n# the end\r\n"
		   "totals: 10 4 1\r\n");
	assert_int_equal(pmc_valgrind_collect(dir, &c, err, sizeof(err)), 0);
	assert_int_equal(c.present,
			 (1u << PMC_VG_EV_IR) | (1u << PMC_VG_EV_BC) | (1u << PMC_VG_EV_BCM));
	assert_int_equal(c.ev[PMC_VG_EV_IR], 10);
	assert_int_equal(c.ev[PMC_VG_EV_BCM], 1);
	assert_int_equal(pmc_valgrind_outdir_remove(dir), 0);
	free(dir);
}

/* Counts that contradict each other, or a metric above 2^63 - 1, are -ERANGE with a
 * line naming the metric and the numbers (not a bare errno the caller must guess at). */
static void test_metric_errors_name_the_metric_and_numbers(void **state)
{
	struct pmc_valgrind_counts c = {.present = (1u << PMC_VG_EV_COUNT) - 1};
	struct pmc_reading rd, orig;
	char err[512] = "";
	uint64_t v = 3;

	c.ev[PMC_VG_EV_IR] = 1000;
	c.ev[PMC_VG_EV_I1MR] = 10;
	c.ev[PMC_VG_EV_D1MR] = 20;
	c.ev[PMC_VG_EV_ILMR] = 25;
	c.ev[PMC_VG_EV_DLMR] = 15;
	/* 40 LL misses, 30 L1 misses */
	assert_int_equal(pmc_valgrind_metric_value(&c, PMC_VG_M_EST_CYCLES, &v, err, sizeof(err)),
			 -ERANGE);
	print_message("%s\n", err);
	assert_int_equal(v, 3);
	assert_non_null(strstr(err, "est-cycles: the counts contradict each other: 40 LL misses"));
	assert_non_null(strstr(err, "only 30 L1 misses"));
	/* The single counts themselves are still what valgrind wrote. */
	assert_int_equal(pmc_valgrind_metric_value(&c, PMC_VG_M_LLI_MISSES, &v, NULL, 0), 0);
	assert_int_equal(v, 25);

	/* more L1 misses than accesses */
	c.ev[PMC_VG_EV_ILMR] = c.ev[PMC_VG_EV_DLMR] = 0;
	c.ev[PMC_VG_EV_I1MR] = 2000;
	err[0] = '\0';
	assert_int_equal(pmc_valgrind_metric_value(&c, PMC_VG_M_EST_CYCLES, &v, err, sizeof(err)),
			 -ERANGE);
	assert_non_null(strstr(err, "2020 L1 misses (I1mr + D1mr + D1mw) but only 1000 accesses"));

	/* est-cycles above 2^63 - 1 from counts that each fit: 35 x 2^62 memory accesses */
	memset(c.ev, 0, sizeof(c.ev));
	c.ev[PMC_VG_EV_IR] = c.ev[PMC_VG_EV_I1MR] = c.ev[PMC_VG_EV_ILMR] = 4611686018427387904u;
	err[0] = '\0';
	memset(&rd, 0x5a, sizeof(rd));
	orig = rd;
	assert_int_equal(
	    pmc_valgrind_metric_reading(&c, PMC_VG_M_EST_CYCLES, &rd, err, sizeof(err)), -ERANGE);
	print_message("%s\n", err);
	assert_memory_equal(&rd, &orig, sizeof(rd));
	assert_non_null(strstr(err, "est-cycles: 0 L1 hits + 5 x 0 LL hits + 35 x "
				    "4611686018427387904 memory accesses is above 2^63 - 1"));

	/* branch-misses: the sum of two counts that each fit */
	c.ev[PMC_VG_EV_BCM] = c.ev[PMC_VG_EV_BIM] = 4611686018427387904u;
	err[0] = '\0';
	assert_int_equal(
	    pmc_valgrind_metric_value(&c, PMC_VG_M_BRANCH_MISSES, &v, err, sizeof(err)), -ERANGE);
	assert_non_null(strstr(err, "branch-misses: 4611686018427387904 Bcm + "
				    "4611686018427387904 Bim is above 2^63 - 1"));

	/* a count filled in by hand above 2^63 - 1 */
	c.ev[PMC_VG_EV_DR] = (uint64_t)INT64_MAX + 1;
	err[0] = '\0';
	assert_int_equal(pmc_valgrind_metric_value(&c, PMC_VG_M_DATA_READS, &v, err, sizeof(err)),
			 -ERANGE);
	assert_non_null(strstr(err, "data-reads: 9223372036854775808 Dr is above 2^63 - 1"));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_argv),
	    cmocka_unit_test(test_collect_sums_cachegrind_files_by_event_name),
	    cmocka_unit_test(test_collect_sums_callgrind_dumps_and_processes),
	    cmocka_unit_test(test_collect_dumps_reads_each_dump_in_order),
	    cmocka_unit_test(test_collect_rejects_bad_output),
	    cmocka_unit_test(test_collect_on_missing_dir),
	    cmocka_unit_test(test_outdir_remove_leaves_foreign_files),
	    cmocka_unit_test(test_collect_reads_lines_as_the_profiles_do),
	    cmocka_unit_test(test_metric_table),
	    cmocka_unit_test(test_est_cycles_formula),
	    cmocka_unit_test(test_collect_reads_the_largest_count),
	    cmocka_unit_test(test_metric_errors_name_the_metric_and_numbers),
	    cmocka_unit_test(test_find_valgrind_in_path),
	    cmocka_unit_test(test_two_runs_give_identical_counts),
	    cmocka_unit_test(test_extra_iterations_cost_k_times_the_body),
	    cmocka_unit_test(test_collect_only_counts_only_the_function),
	    cmocka_unit_test(test_forked_children_are_counted_once),
	    cmocka_unit_test(test_cachegrind_counts_the_same_loop),
	    cmocka_unit_test(test_no_branch_sim_leaves_branch_metrics_absent),
	    cmocka_unit_test(test_valgrind_failing_is_an_error),
	    cmocka_unit_test(test_crash_is_named_in_the_log),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, setup, teardown);
}

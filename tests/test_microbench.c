/* The microbenchmark library (harness/5-microbench/, docs/microbench.md) with an injected
 * clock and the emulated PMU (fake_pmu.h), so every figure is exact: argument expansion
 * (tuples, names, ranges) and the filter, bad definitions skipped by place, the loop and
 * its batch edges, setup and teardown outside the measurement, fixtures, pauses and their
 * subtracted cost, user counters, complexity fits, threads, calibration, the loop's
 * overhead reported beside the figures, processes, skips, per-operation counters with
 * their statuses, the child process that contains a crash and delivers its output, and
 * another build's program asked for its benchmarks through the child protocol. */
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
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

#include "counters/backend.h"
#include "counters/perf/counters.h"
#include "core/compare.h"
#include "core/result.h"
#include "formats/result_json.h"
#include "microbench/microbench.h"
#include "microbench/program.h"
#include "tests/fake_pmu.h"
#include "tests/helpers.h"

/* The fake clock: each read costs `per_read` ns, the body `per_iter` ns per iteration,
 * the empty loop `empty_per_iter`; setup and teardown `per_setup` each, which must never
 * show in a result. */
static uint64_t now, per_read, per_iter, empty_per_iter, per_setup;
static size_t setups, teardowns, fn_calls, body_iters;
static struct fake_pmu *pmu; /* when set, each body iteration is one quantum of it */
/* With pmu: of every 5 iterations, 3 run on CPU 0 and 2 on CPU 2 (a hybrid CPU's P- and
 * E-cores). */
static bool migrate;

static uint64_t fake_clock(void *ud)
{
	(void)ud;
	now += per_read;
	return now;
}

static void reset(void)
{
	now = 0;
	per_read = 3;
	per_iter = 7;
	empty_per_iter = 1;
	per_setup = 1000;
	setups = teardowns = fn_calls = body_iters = 0;
	pmu = NULL;
	migrate = false;
}

/* The call of body (from 1) during which the thread is preempted for 1 ms; 0: none. */
static unsigned preempt_call;
static uint64_t stolen;

static void body(struct pmc_state *s)
{
	fn_calls++;
	while (pmc_loop(s)) {
		now += per_iter;
		if (preempt_call && fn_calls == preempt_call && body_iters == 1) {
			now += 1000000;
			stolen += 1000000;
		}
		if (pmu && migrate)
			fake_pmu_run_on(pmu, body_iters % 5 < 3 ? 0 : 2);
		body_iters++;
		if (pmu)
			fake_pmu_tick(pmu, 1);
	}
}

/* On the PMU, the empty loop costs one quantum per batch. */
static void empty(struct pmc_state *s)
{
	bool first = true;

	while (pmc_loop(s)) {
		now += empty_per_iter;
		if (pmu && first)
			fake_pmu_tick(pmu, 1);
		first = false;
	}
}

static void setup(struct pmc_state *s)
{
	setups++;
	now += per_setup;
}

static void teardown(struct pmc_state *s)
{
	teardowns++;
	now += per_setup;
}

static struct pmc_mb_bench bench_of(const char *name, pmc_bench_fn fn)
{
	struct pmc_mb_bench b = {.name = (char *)name};

	b.def = (struct pmc_bench_def){
	    .sz = sizeof(b.def), .name = name, .fn = fn, .setup = setup, .teardown = teardown};
	return b;
}

static void args_lists_and_ranges(void **state)
{
	int64_t *v = NULL;
	size_t n = 0;
	char err[256] = "";

	assert_int_equal(pmc_mb_args_parse("8,64,512", &v, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[2], 512);
	free(v);
	assert_int_equal(pmc_mb_args_parse("1..4", &v, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 4);
	assert_int_equal(v[3], 4);
	free(v);
	assert_int_equal(pmc_mb_args_parse("8..4096*8", &v, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 4); /* 8, 64, 512, 4096 */
	assert_int_equal(v[3], 4096);
	free(v);
	/* A geometric range ends at its end, as Google Benchmark's Range does. */
	assert_int_equal(pmc_mb_args_parse("8..8388608*8", &v, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 8); /* 8, 64, ..., 2097152, 8388608 */
	assert_int_equal(v[6], 2097152);
	assert_int_equal(v[7], 8388608);
	free(v);
	/* A dense one stops at its last step, as DenseRange does. */
	assert_int_equal(pmc_mb_args_parse("0..10+3", &v, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 4);
	assert_int_equal(v[3], 9);
	free(v);
	assert_int_equal(pmc_mb_args_parse("0..100+25", &v, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 5);
	assert_int_equal(v[4], 100);
	free(v);
	v = NULL;
	for (size_t i = 0; i < 6; i++) {
		static const char *const bad[] = {"", "8,,9", "4..1", "1..9*1", "0..9*2", "1..x"};

		err[0] = '\0';
		assert_int_equal(pmc_mb_args_parse(bad[i], &v, &n, err, sizeof(err)), -EINVAL);
		assert_true(err[0] != '\0');
		assert_null(v);
	}
	assert_int_equal(pmc_mb_args_parse("1..9x", &v, &n, err, sizeof(err)), -EINVAL);
	assert_contains(err, "\"1..9x\"");
}

static void nop(struct pmc_state *s)
{
	while (pmc_loop(s))
		;
}

static void expansion_is_the_cartesian_product(void **state)
{
	const struct pmc_bench_def defs[] = {
	    {.sz = sizeof(defs[0]), .name = "plain", .fn = nop},
	    {.sz = sizeof(defs[0]), .name = "grid", .fn = nop, .args = {"1,2", "10..30+10"}},
	};
	struct pmc_mb_set set = {0};
	char err[256] = "";

	assert_int_equal(pmc_mb_expand(defs, defs + 2, NULL, &set, err, sizeof(err)), 0);
	assert_int_equal(set.n, 1 + 2 * 3);
	assert_string_equal(set.v[0].name, "plain");
	assert_int_equal(set.v[0].nargs, 0);
	assert_string_equal(set.v[1].name, "grid/1/10");
	assert_string_equal(set.v[3].name, "grid/1/30");
	assert_string_equal(set.v[6].name, "grid/2/30");
	assert_int_equal(set.v[6].args[0], 2);
	assert_int_equal(set.v[6].args[1], 30);
	pmc_mb_set_free(&set);

	assert_int_equal(pmc_mb_expand(defs, defs + 2, "^grid/2/", &set, err, sizeof(err)), 0);
	assert_int_equal(set.n, 3);
	assert_string_equal(set.v[0].name, "grid/2/10");
	pmc_mb_set_free(&set);
	assert_int_equal(pmc_mb_expand(defs, defs + 2, "nothing", &set, err, sizeof(err)), 0);
	assert_int_equal(set.n, 0);
	pmc_mb_set_free(&set);

	assert_int_equal(pmc_mb_expand(defs, defs + 2, "grid(", &set, err, sizeof(err)), -EINVAL);
	assert_contains(err, "--filter 'grid('");
}

/* A benchmark's process expands its own definition only (issue 35, item 9): the others,
 * bad ones or 100,000 benchmarks' worth, are never looked at, so its cost does not grow
 * with them; a name with a build's label finds its definition too, and a definition whose
 * name only starts the same ("grid2") is not one. */
static void expansion_of_one_name_reads_only_its_definition(void **state)
{
	const struct pmc_bench_def defs[] = {
	    {.sz = sizeof(defs[0]), .name = "huge", .fn = nop, .args = {"1..4000+1", "1..25+1"}},
	    {.sz = sizeof(defs[0]), .name = "grid", .fn = nop, .args = {"1,2", "10..30+10"}},
	    {.sz = sizeof(defs[0]), .name = "broken", .fn = nop, .args = {"1..x"}},
	    {.sz = sizeof(defs[0]), .name = "grid2", .fn = nop},
	};
	struct pmc_mb_set set = {0};
	char err[256] = "";

	(void)state;
	assert_int_equal(pmc_mb_expand_named(defs, defs + 4, "grid/2/30", &set, err, sizeof(err)),
			 0);
	assert_int_equal(set.n, 2 * 3);
	assert_int_equal(set.nbad, 0);
	assert_string_equal(set.v[5].name, "grid/2/30");
	pmc_mb_set_free(&set);
	assert_int_equal(
	    pmc_mb_expand_named(defs, defs + 4, "new:grid/1/10", &set, err, sizeof(err)), 0);
	assert_int_equal(set.n, 2 * 3);
	pmc_mb_set_free(&set);
	assert_int_equal(pmc_mb_expand_named(defs, defs + 4, "grid2", &set, err, sizeof(err)), 0);
	assert_int_equal(set.n, 1);
	assert_string_equal(set.v[0].name, "grid2");
	pmc_mb_set_free(&set);
	assert_int_equal(pmc_mb_expand_named(defs, defs + 4, "absent", &set, err, sizeof(err)), 0);
	assert_int_equal(set.n, 0);
	pmc_mb_set_free(&set);
	/* The whole set has them all. */
	assert_int_equal(pmc_mb_expand(defs, defs + 4, NULL, &set, err, sizeof(err)), 0);
	assert_int_equal(set.n, 4000 * 25 + 6 + 1);
	assert_int_equal(set.nbad, 1);
	pmc_mb_set_free(&set);
}

/* Google Benchmark's habits: "-RE" keeps what RE does not match; a definition named
 * DISABLED_... is left out of every set, listed or run. */
static void negative_filters_and_disabled_benchmarks(void **state)
{
	const struct pmc_bench_def defs[] = {
	    {.sz = sizeof(defs[0]), .name = "plain", .fn = nop},
	    {.sz = sizeof(defs[0]), .name = "grid", .fn = nop, .args = {"1,2"}},
	    {.sz = sizeof(defs[0]), .name = "DISABLED_slow", .fn = nop},
	};
	struct pmc_mb_set set = {0};
	char err[256] = "";

	(void)state;
	assert_int_equal(pmc_mb_expand(defs, defs + 3, NULL, &set, err, sizeof(err)), 0);
	assert_int_equal(set.n, 3);
	assert_string_equal(set.v[2].name, "grid/2");
	pmc_mb_set_free(&set);
	assert_int_equal(pmc_mb_expand(defs, defs + 3, "-^grid/1", &set, err, sizeof(err)), 0);
	assert_int_equal(set.n, 2);
	assert_string_equal(set.v[0].name, "plain");
	assert_string_equal(set.v[1].name, "grid/2");
	pmc_mb_set_free(&set);
	assert_int_equal(pmc_mb_expand(defs, defs + 3, "slow", &set, err, sizeof(err)), 0);
	assert_int_equal(set.n, 0);
	pmc_mb_set_free(&set);
}

/* Two builds (pmc_mb_set_add_build): "LABEL:name", each benchmark right after its
 * namesake of the first build in a group of two, those of one build alone after the
 * groups; a bad label is refused. */
static void builds_are_labelled_and_grouped(void **state)
{
	const struct pmc_bench_def a[] = {
	    {.sz = sizeof(a[0]), .name = "x", .fn = nop, .args = {"1,2"}},
	    {.sz = sizeof(a[0]), .name = "gone", .fn = nop},
	};
	const struct pmc_bench_def b[] = {
	    {.sz = sizeof(b[0]), .name = "new", .fn = nop},
	    {.sz = sizeof(b[0]), .name = "x", .fn = nop, .args = {"2,1"}},
	};
	static const char *const want[] = {"old:x/1", "new:x/1",  "old:x/2",
					   "new:x/2", "old:gone", "new:new"};
	static const size_t groups[] = {2, 0, 2, 0, 1, 1};
	struct pmc_mb_set set = {0}, one = {0};
	char err[256] = "";

	(void)state;
	assert_int_equal(pmc_mb_expand(a, a + 2, NULL, &one, err, sizeof(err)), 0);
	assert_int_equal(pmc_mb_set_add_build(&set, &one, "old"), 0);
	assert_int_equal(one.n, 0);
	assert_int_equal(pmc_mb_expand(b, b + 2, NULL, &one, err, sizeof(err)), 0);
	assert_int_equal(pmc_mb_set_add_build(&set, &one, "new"), 0);
	assert_int_equal(set.n, ARRAY_SIZE(want));
	for (size_t i = 0; i < set.n; i++) {
		assert_string_equal(set.v[i].name, want[i]);
		assert_int_equal(set.v[i].group, groups[i]);
		assert_int_equal(set.v[i].label_len, 3);
	}
	assert_int_equal(set.v[3].args[0], 2);
	assert_int_equal(pmc_mb_expand(b, b + 2, NULL, &one, err, sizeof(err)), 0);
	assert_int_equal(pmc_mb_set_add_build(&set, &one, "a:b"), -EINVAL);
	pmc_mb_set_free(&one);
	pmc_mb_set_free(&set);
}

/* Another build's benchmarks, known by name (pmc_mb_set_of_names): one this program has
 * too is described by its definition (arguments, function), one it has not by its name
 * alone; labelled as a build, they group with this program's. */
static void another_builds_names_become_benchmarks(void **state)
{
	const struct pmc_bench_def d[] = {
	    {.sz = sizeof(d[0]), .name = "x", .fn = nop, .args = {"1,2"}},
	    {.sz = sizeof(d[0]), .name = "mine", .fn = nop},
	};
	char *const names[] = {"x/2", "theirs"};
	static const char *const want[] = {"old:x/2", "new:x/2", "old:theirs", "new:x/1",
					   "new:mine"};
	struct pmc_mb_set own = {0}, other = {0}, set = {0};
	char err[256] = "";

	(void)state;
	assert_int_equal(pmc_mb_expand(d, d + 2, NULL, &own, err, sizeof(err)), 0);
	assert_int_equal(pmc_mb_set_of_names(&own, names, 2, &other), 0);
	assert_int_equal(other.n, 2);
	assert_string_equal(other.v[0].name, "x/2");
	assert_ptr_equal(other.v[0].def.fn, nop);
	assert_int_equal(other.v[0].nargs, 1);
	assert_int_equal(other.v[0].args[0], 2);
	assert_string_equal(other.v[1].name, "theirs");
	assert_null(other.v[1].def.fn);
	assert_int_equal(other.v[1].nargs, 0);
	assert_string_equal(other.v[1].def.name, "");
	assert_int_equal(pmc_mb_set_add_build(&set, &other, "old"), 0);
	assert_int_equal(pmc_mb_set_add_build(&set, &own, "new"), 0);
	/* old:x/2 leads the group of its namesake; this program's others follow. */
	assert_int_equal(set.n, ARRAY_SIZE(want));
	for (size_t i = 0; i < set.n; i++)
		assert_string_equal(set.v[i].name, want[i]);
	assert_int_equal(set.v[0].group, 2);
	pmc_mb_set_free(&other);
	pmc_mb_set_free(&own);
	pmc_mb_set_free(&set);
}

/* Writes an executable shell script to path. */
static void write_script(const char *path, const char *body)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s", body);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, 0755), 0);
}

/* pmc_mb_program_list: a program that answers the protocol's line gives the names after
 * it (the filter passed on); one of another protocol, one that fails on the option and
 * one that answers nothing are refused with -EPROTO and a line naming the program. */
static void another_program_is_asked_for_its_names(void **state)
{
	char dir[] = "/tmp/pmc-program-XXXXXX", path[64], body[512], err[512] = "";
	char proto[PMC_MB_PROTOCOL_MAX], **names = NULL;
	size_t n = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/prog", dir);
	pmc_mb_protocol(proto);
	assert_non_null(strstr(proto, "pmcbench-child 1 "));
	snprintf(body, sizeof(body), "echo '%s'\necho \"a/$2$3\"\necho b\n", proto);
	write_script(path, body);
	assert_int_equal(pmc_mb_program_list(path, "^a", &names, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "a/--filter^a");
	assert_string_equal(names[1], "b");
	pmc_mb_program_names_free(names, n);

	write_script(path, "echo 'pmcbench-child 0 h1'\necho a\n");
	assert_int_equal(pmc_mb_program_list(path, NULL, &names, &n, err, sizeof(err)), -EPROTO);
	assert_contains(err, "speaks another child protocol ('pmcbench-child 0 h1'");
	write_script(path, "echo \"unknown option $1\" >&2\nexit 2\n");
	assert_int_equal(pmc_mb_program_list(path, NULL, &names, &n, err, sizeof(err)), -EPROTO);
	assert_contains(err, "exited with status 2 ('unknown option --process-list')");
	write_script(path, "exit 0\n");
	assert_int_equal(pmc_mb_program_list(path, NULL, &names, &n, err, sizeof(err)), -EPROTO);
	assert_contains(err, "not a benchmark program of this libpmcbench");
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* Google Benchmark's Args({a, b}) and ArgNames: tuples after the product, names in the
 * benchmark's name and kept as the result's parameters. */
static void tuples_and_names(void **state)
{
	const struct pmc_bench_def defs[] = {
	    {.sz = sizeof(defs[0]), .name = "pairs", .fn = nop, .arg_tuples = "1,16; 64, 256"},
	    {.sz = sizeof(defs[0]),
	     .name = "grid",
	     .fn = nop,
	     .args = {"1,2", "8"},
	     .arg_names = {"n", "k"},
	     .arg_tuples = "100,7"},
	};
	const struct pmc_bench_def bad_tuple[] = {
	    {.sz = sizeof(bad_tuple[0]),
	     .name = "t",
	     .fn = nop,
	     .args = {"1"},
	     .arg_tuples = "1,2"},
	};
	const struct pmc_bench_def bad_names[] = {
	    {.sz = sizeof(bad_names[0]),
	     .name = "t",
	     .fn = nop,
	     .args = {"1"},
	     .arg_names = {"a", "b"}},
	};
	struct pmc_mb_set set = {0};
	struct pmc_result *res = NULL;
	struct pmc_benchmark *bm;
	char err[256] = "";

	assert_int_equal(pmc_mb_expand(defs, defs + 2, NULL, &set, err, sizeof(err)), 0);
	assert_int_equal(set.n, 2 + 3);
	assert_string_equal(set.v[0].name, "pairs/1/16");
	assert_string_equal(set.v[1].name, "pairs/64/256");
	assert_int_equal(set.v[1].args[1], 256);
	assert_string_equal(set.v[2].name, "grid/n:1/k:8");
	assert_string_equal(set.v[3].name, "grid/n:2/k:8");
	assert_string_equal(set.v[4].name, "grid/n:100/k:7");
	assert_int_equal(pmc_result_new("perf", &res), 0);
	assert_int_equal(pmc_result_add_benchmark(res, set.v[4].name, NULL, &bm), 0);
	assert_int_equal(pmc_mb_record_params(&set.v[4], bm), 0);
	assert_int_equal(bm->nparams, 2);
	assert_string_equal(bm->params[0].key, "n");
	assert_string_equal(bm->params[0].value, "100");
	assert_string_equal(bm->params[1].value, "7");
	pmc_result_free(res);
	pmc_mb_set_free(&set);

	assert_int_equal(pmc_mb_expand(bad_tuple, bad_tuple + 1, NULL, &set, err, sizeof(err)), 0);
	assert_int_equal(set.n, 0);
	assert_int_equal(set.nbad, 1);
	assert_contains(set.bad[0], "tuple 1 of \"1,2\"");
	pmc_mb_set_free(&set);
	assert_int_equal(pmc_mb_expand(bad_names, bad_names + 1, NULL, &set, err, sizeof(err)), 0);
	assert_int_equal(set.nbad, 1);
	assert_contains(set.bad[0], "2 argument names for 1 dimensions");
	pmc_mb_set_free(&set);
}

/* A definition's display unit (->Unit): a known one is kept, and the result names it;
 * another value leaves the definition out with a line saying which are known. */
static void a_definitions_time_unit(void **state)
{
	const struct pmc_bench_def defs[] = {
	    {.sz = sizeof(defs[0]), .name = "ms", .fn = nop, .unit = PMC_TIME_MS},
	    {.sz = sizeof(defs[0]), .name = "odd", .fn = nop, .unit = 9},
	};
	struct pmc_mb_set set = {0};
	struct pmc_mb_samples smp = {.iters = 1, .n = 1, .ns = (double[]){5.0}};
	struct pmc_result *res = NULL;
	char err[256] = "";

	(void)state;
	assert_int_equal(pmc_mb_expand(defs, defs + 2, NULL, &set, err, sizeof(err)), 0);
	assert_int_equal(set.n, 1);
	assert_int_equal(set.nbad, 1);
	assert_contains(set.bad[0],
			"benchmark 'odd': unit 9 is not one of PMC_TIME_NS, _US, _MS, _S; skipped");
	assert_int_equal(pmc_result_new("perf", &res), 0);
	assert_int_equal(pmc_mb_record(&set.v[0], &smp, NULL, res, err, sizeof(err)), 0);
	assert_int_equal(res->benchmarks[0].time_unit, PMC_TIME_MS);
	assert_string_equal(pmc_time_unit_name(res->benchmarks[0].time_unit), "ms");
	pmc_result_free(res);
	pmc_mb_set_free(&set);
}

/* A compiler may lay a section out backwards: benchmarks come in source order (file, then
 * line), and definitions that do not say where they stand come last, in section order. */
static void benchmarks_come_in_source_order(void **state)
{
	const struct pmc_bench_def defs[] = {
	    {.sz = sizeof(defs[0]), .name = "third", .fn = nop, .file = "a.c", .line = 30},
	    {.sz = sizeof(defs[0]), .name = "old_header", .fn = nop},
	    {.sz = sizeof(defs[0]), .name = "second", .fn = nop, .file = "a.c", .line = 20},
	    {.sz = sizeof(defs[0]), .name = "fourth", .fn = nop, .file = "b.c", .line = 1},
	    {.sz = sizeof(defs[0]), .name = "first", .fn = nop, .file = "a.c", .line = 10},
	};
	static const char *const want[] = {"first", "second", "third", "fourth", "old_header"};
	struct pmc_mb_set set = {0};
	char err[256] = "";

	assert_int_equal(pmc_mb_expand(defs, defs + 5, NULL, &set, err, sizeof(err)), 0);
	assert_int_equal(set.n, 5);
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(set.v[i].name, want[i]);
	pmc_mb_set_free(&set);
}

static int fresh_setups, stale_setups;

static void alloc_setup(struct pmc_state *s)
{
	if (pmc_user_data(s))
		stale_setups++;
	else
		fresh_setups++;
	pmc_set_user_data(s, malloc(16));
}

static void free_teardown(struct pmc_state *s)
{
	free(pmc_user_data(s));
}

/* Setup of every batch finds no pointer: the previous teardown freed the last one. */
static void user_data_starts_empty_every_batch(void **state)
{
	struct pmc_mb_bench b = {.name = (char *)"ud"};
	struct pmc_mb_opts o = {.samples = 4, .iters = 10, .clock = fake_clock};
	struct pmc_mb_samples s;
	char err[256] = "";

	reset();
	b.def = (struct pmc_bench_def){.sz = sizeof(b.def),
				       .name = "ud",
				       .fn = body,
				       .setup = alloc_setup,
				       .teardown = free_teardown};
	fresh_setups = stale_setups = 0;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(stale_setups, 0);
	assert_int_equal(fresh_setups, 4); /* no warm-up here: four samples */
	pmc_mb_samples_free(&s);
}

/* Untimed work inside the loop: 100 ns of it per iteration between pmc_pause and
 * pmc_resume; the fixture built once; a per-batch setup that sees the batch's size. */
static size_t once_setups, once_teardowns, batch_size_seen, fixture_seen;
static int fixture_token;

static void pausing(struct pmc_state *s)
{
	if (pmc_fixture(s) == &fixture_token)
		fixture_seen++;
	while (pmc_loop(s)) {
		now += per_iter;
		pmc_pause(s);
		now += 100;
		pmc_resume(s);
	}
}

static void pausing_setup(struct pmc_state *s)
{
	batch_size_seen = (size_t)pmc_iterations(s);
}

static void fixture_up(struct pmc_state *s)
{
	once_setups++;
	pmc_set_fixture(s, &fixture_token);
}

static void fixture_down(struct pmc_state *s)
{
	if (pmc_fixture(s) == &fixture_token)
		once_teardowns++;
}

/* On the PMU: one quantum timed and one paused per iteration. */
static void pausing_on_pmu(struct pmc_state *s)
{
	while (pmc_loop(s)) {
		fake_pmu_tick(pmu, 1);
		pmc_pause(s);
		fake_pmu_tick(pmu, 1);
		pmc_resume(s);
	}
}

/* A pause stops the counters too: the paused quantum is not counted, neither in the
 * counts nor in the enabled and running times. Without rdpmc the groups are disabled and
 * enabled again (two ioctl() a pair); with it they are read through their pages at both
 * ends, with no system call, and the counts are the same. */
static void measure_pausing(const struct fake_pmu_config *cfg, struct pmc_mb_samples *s,
			    unsigned *ret_ioctls, unsigned *ret_reads)
{
	struct fake_pmu f;
	struct pmc_event_list *ev = t_events("{cycles,instructions}");
	struct pmc_mb_bench b = bench_of("paused", pausing_on_pmu);
	struct pmc_mb_opts o = {.samples = 3,
				.iters = 50,
				.warmup = 0,
				.clock = fake_clock,
				.events = ev,
				.sys = &f.sys,
				.no_overhead = true};
	char err[256] = "";

	reset();
	fake_pmu_init(&f, cfg);
	pmu = &f;
	assert_int_equal(pmc_mb_measure(&b, &o, s, err, sizeof(err)), 0);
	*ret_ioctls = f.ioctls;
	*ret_reads = f.reads;
	assert_int_equal(f.rdpmc_faults, 0);
	assert_int_equal(f.rdpmc_stale, 0);
	pmc_event_list_free(ev);
}

static void pauses_stop_the_counters(void **state)
{
	static const struct fake_pmu_config by_ioctl = {.counters = 8, .privileged = true};
	static const struct fake_pmu_config by_read = {
	    .counters = 8, .privileged = true, .rdpmc = 1};
	struct pmc_mb_samples s, t;
	unsigned ioctls[2], reads[2];
	double cyc = (double)fake_pmu_rate(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	/* 3 samples of 50 pairs, and the pause loop: one warm-up and 3 batches of 50. */
	unsigned pairs = 3 * 50 + 4 * 50;

	measure_pausing(&by_ioctl, &s, &ioctls[0], &reads[0]);
	measure_pausing(&by_read, &t, &ioctls[1], &reads[1]);
	for (size_t i = 0; i < s.n; i++) {
		const struct pmc_reading *a = &s.readings[i * s.nev], *b = &t.readings[i * t.nev];

		assert_int_equal(a->status, PMC_STATUS_COUNTED);
		assert_true(a->scaled == 50 * cyc);
		assert_int_equal(a->enabled, 50 * FAKE_PMU_QUANTUM_NS);
		assert_int_equal(a->running, 50 * FAKE_PMU_QUANTUM_NS);
		assert_int_equal(b->status, a->status);
		assert_int_equal(b->value, a->value);
		assert_int_equal(b->enabled, a->enabled);
		assert_int_equal(b->running, a->running);
		assert_true(t.readings[i * t.nev + 1].scaled == s.readings[i * s.nev + 1].scaled);
	}
	assert_int_equal(s.pauses, 50);
	assert_int_equal(t.pauses, 50);
	assert_int_equal(ioctls[0] - ioctls[1], 2 * pairs);
	/* Each pause and resume read the group once, through its page: read() only for the
	 * first read after the page was mapped (selfread.h, pmc_selfread_hold). */
	assert_int_equal(reads[0], 2 * 7);
	assert_int_equal(reads[1], 1);
	assert_int_equal(t.reads_self + t.reads_sys, 2 * 7 + 2 * pairs);
	pmc_mb_samples_free(&s);
	pmc_mb_samples_free(&t);
}

static void ends_paused(struct pmc_state *s)
{
	while (pmc_loop(s))
		pmc_pause(s);
}

static void untimed_work_and_fixtures(void **state)
{
	struct pmc_mb_bench b = {.name = (char *)"paused"};
	struct pmc_mb_opts o = {
	    .samples = 4, .iters = 10, .clock = fake_clock, .no_overhead = true};
	struct pmc_mb_samples s;
	struct pmc_result *res = NULL;
	const struct pmc_metric *m;
	char err[256] = "";

	reset();
	once_setups = once_teardowns = batch_size_seen = fixture_seen = 0;
	b.def = (struct pmc_bench_def){.sz = sizeof(b.def),
				       .name = "paused",
				       .fn = pausing,
				       .setup = pausing_setup,
				       .setup_once = fixture_up,
				       .teardown_once = fixture_down};
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	/* Each pair reads the clock twice (3 ns each): the batch is 10 * (7 + 3 + 100 + 3) + 3
	 * with 10 * 103 paused; the pause loop's 10 pairs in one iteration take 6 * 10 + 3
	 * with 10 * 3 paused, so a pair costs 3.3 ns and 7 ns per iteration is left. */
	assert_int_equal(s.pauses, 10);
	assert_true(fabs(s.pause_ns - 3.3) < 1e-9);
	for (size_t i = 0; i < s.n; i++)
		assert_true(fabs(s.ns[i] - 70) < 1e-9);
	assert_int_equal(batch_size_seen, 10);
	assert_int_equal(once_setups, 1);
	assert_int_equal(once_teardowns, 1);
	assert_int_equal(fixture_seen, 4); /* no warm-up here: the samples */
	/* The pairs were a third of the timed part: no note; at 1 ns of work they dominate. */
	assert_int_equal(pmc_result_new("perf", &res), 0);
	assert_int_equal(pmc_mb_record(&b, &s, NULL, res, err, sizeof(err)), 0);
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "wall-time/op");
	assert_null(m->note);
	pmc_result_free(res);
	pmc_mb_samples_free(&s);
	per_iter = 1;
	b.name = (char *)"cheap";
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(pmc_result_new("perf", &res), 0);
	assert_int_equal(pmc_mb_record(&b, &s, NULL, res, err, sizeof(err)), 0);
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "wall-time/op");
	assert_non_null(m->note);
	assert_contains(m->note, "10 pmc_pause/pmc_resume pairs per batch at 3.3 ns");
	pmc_result_free(res);
	pmc_mb_samples_free(&s);
	/* No work at all: the pairs cost the whole timed part, and each sample is not
	 * measured (absent, said in the note), never a made-up 0 ns. */
	per_iter = 0;
	b.name = (char *)"nothing";
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(pmc_result_new("perf", &res), 0);
	assert_int_equal(pmc_mb_record(&b, &s, NULL, res, err, sizeof(err)), 0);
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "wall-time/op");
	for (size_t i = 0; i < m->n; i++)
		assert_true(isnan(m->values[i]));
	assert_non_null(m->note);
	assert_contains(m->note, "4 of 4 samples not measured");
	assert_contains(m->note, "clamped");
	pmc_result_free(res);
	pmc_mb_samples_free(&s);
	per_iter = 7;

	b.def.fn = ends_paused;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), -EINVAL);
	assert_contains(err, "ended its loop paused");
	assert_int_equal(once_teardowns, 4); /* after a failure too */
}

/* Figures of the benchmark's own: a total, per operation, rates, with their units and
 * directions; through the pipe and a merge of processes by name. */
static const char *counter_name = "hits";

static void counting_user(struct pmc_state *s)
{
	if (strcmp(counter_name, "collide") == 0)
		pmc_set_bytes_per_iter(s, 8);
	while (pmc_loop(s))
		now += per_iter;
	pmc_set_counter(s, counter_name, 5.0 * (double)pmc_iterations(s), PMC_COUNTER_TOTAL);
	pmc_set_counter(s, "visits", 20, PMC_COUNTER_PER_OP);
	pmc_set_counter(s, "bytes", 8, PMC_COUNTER_RATE | PMC_COUNTER_PER_ITERATION);
	pmc_set_counter(s, "stalls", 73, PMC_COUNTER_RATE | PMC_COUNTER_LOWER_IS_BETTER);
}

/* Google Benchmark's kInvert and kIs1024: the inverse taken last, in its own metric, unit
 * and direction; 1024-based steps in the unit only, the value kept as it is. */
static void counting_inverted(struct pmc_state *s)
{
	while (pmc_loop(s))
		now += per_iter;
	pmc_set_counter(s, "probes", 73, PMC_COUNTER_RATE | PMC_COUNTER_INVERT);
	pmc_set_counter(s, "spins", 40, PMC_COUNTER_PER_OP | PMC_COUNTER_INVERT);
	pmc_set_counter(s, "nothing", 0, PMC_COUNTER_INVERT);
	pmc_set_counter(s, "mem", 3.0 * 1024 * 1024, PMC_COUNTER_1024);
	pmc_set_counter(s, "moved", 2048,
			PMC_COUNTER_RATE | PMC_COUNTER_PER_ITERATION | PMC_COUNTER_1024);
}

static void inverted_and_1024_counters(void **state)
{
	struct pmc_mb_bench b = {.name = (char *)"inv"};
	struct pmc_mb_opts o = {
	    .samples = 2, .iters = 10, .clock = fake_clock, .no_overhead = true};
	struct pmc_mb_samples s;
	struct pmc_result *res = NULL;
	const struct pmc_metric *m;
	char err[256] = "";

	(void)state;
	reset();
	b.def = (struct pmc_bench_def){.sz = sizeof(b.def), .name = "inv", .fn = counting_inverted};
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(pmc_result_new("perf", &res), 0);
	assert_int_equal(pmc_mb_record(&b, &s, NULL, res, err, sizeof(err)), 0);
	/* The batch is 73 ns: 73 probes in it are 1e9/s, 1 ns each. */
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "time/probes");
	assert_non_null(m);
	assert_true(fabs(m->values[0] - 1) < 1e-12 && fabs(m->values[1] - 1) < 1e-12);
	assert_string_equal(m->unit, "ns");
	assert_int_equal(m->better, PMC_LOWER_IS_BETTER);
	/* 40 spins over 10 iterations: 0.25 operations per spin, more is better. */
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "op/spins");
	assert_non_null(m);
	assert_true(m->values[0] == 0.25);
	assert_string_equal(m->unit, "count");
	assert_int_equal(m->better, PMC_HIGHER_IS_BETTER);
	/* 0 has no inverse: missing, never Infinity. */
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "1/nothing");
	assert_non_null(m);
	assert_true(isnan(m->values[0]) && isnan(m->values[1]));
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "mem");
	assert_true(m->values[0] == 3.0 * 1024 * 1024);
	assert_string_equal(m->unit, "count:1024");
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "moved/s");
	assert_true(fabs(m->values[0] - 20480e9 / 73) < 1e-3);
	assert_string_equal(m->unit, "count:1024/s");
	assert_int_equal(m->better, PMC_HIGHER_IS_BETTER);
	pmc_result_free(res);
	pmc_mb_samples_free(&s);
}

static void user_counters_become_metrics(void **state)
{
	struct pmc_mb_bench b = {.name = (char *)"uc"};
	struct pmc_mb_opts o = {
	    .samples = 2, .iters = 10, .clock = fake_clock, .no_overhead = true};
	struct pmc_mb_samples piped = {0}, other, merged = {0};
	struct pmc_result *res = NULL;
	const struct pmc_metric *m;
	char err[256] = "";

	reset();
	counter_name = "hits";
	b.def = (struct pmc_bench_def){.sz = sizeof(b.def), .name = "uc", .fn = counting_user};
	/* Measured in a forked child: the counters come through the pipe, as a process's do. */
	assert_int_equal(pmc_mb_measure_forked(&b, &o, &piped, err, sizeof(err)), 0);
	assert_int_equal(piped.nuc, 4);
	assert_string_equal(piped.uc[2].name, "bytes");
	assert_int_equal(pmc_result_new("perf", &res), 0);
	assert_int_equal(pmc_mb_record(&b, &piped, NULL, res, err, sizeof(err)), 0);
	/* The batch is 10 * 7 ns + one 3 ns clock read. */
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "hits");
	assert_non_null(m);
	assert_true(m->values[0] == 50 && m->values[1] == 50);
	assert_string_equal(m->unit, "count");
	assert_int_equal(m->better, PMC_LOWER_IS_BETTER);
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "visits/op");
	assert_true(m->values[0] == 2);
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "bytes/s");
	assert_true(fabs(m->values[0] - 80e9 / 73) < 1e-3);
	assert_string_equal(m->unit, "bytes/s"); /* the registry's */
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "stalls/s");
	assert_true(fabs(m->values[0] - 1e9) < 1e-3);
	assert_string_equal(m->unit, "count/s");
	assert_int_equal(m->better, PMC_LOWER_IS_BETTER);
	pmc_result_free(res);

	/* A second process that set only some, in another order, merges by name. */
	counter_name = "misses";
	assert_int_equal(pmc_mb_measure(&b, &o, &other, err, sizeof(err)), 0);
	assert_int_equal(pmc_mb_samples_merge(&merged, &piped, 1), 0);
	assert_int_equal(pmc_mb_samples_merge(&merged, &other, 2), 0);
	assert_int_equal(merged.nuc, 5);
	assert_string_equal(merged.uc[4].name, "misses");
	assert_true(isnan(merged.uc_values[0 * PMC_COUNTERS_MAX + 4]));
	assert_true(merged.uc_values[2 * PMC_COUNTERS_MAX + 4] == 50);
	assert_true(isnan(merged.uc_values[2 * PMC_COUNTERS_MAX + 0]));
	assert_true(merged.uc_values[3 * PMC_COUNTERS_MAX + 1] == 20);
	pmc_mb_samples_free(&merged);

	/* A counter named like a metric the benchmark has, and a bad name, are errors. */
	counter_name = "wall-time/op";
	assert_int_equal(pmc_mb_measure(&b, &o, &other, err, sizeof(err)), -EINVAL);
	assert_contains(err, "counter name \"wall-time/op\"");
	counter_name = "collide"; /* its bytes/s and the counter "bytes" as a rate */
	assert_int_equal(pmc_mb_measure(&b, &o, &other, err, sizeof(err)), 0);
	assert_int_equal(pmc_result_new("perf", &res), 0);
	assert_int_equal(pmc_mb_record(&b, &other, NULL, res, err, sizeof(err)), -EINVAL);
	assert_contains(err, "counter \"bytes\" gives the metric 'bytes/s'");
	pmc_result_free(res);
	pmc_mb_samples_free(&other);
	counter_name = "hits";
}

/* Complexity: Google Benchmark's least squares, exact on exact data; the fits of a
 * definition's benchmarks stored in the result, through JSON and into compare. */
static double n_plus_7(int64_t n)
{
	return (double)n + 7;
}

static struct pmc_result *result_with(const char *name, double t, const char *big_o)
{
	struct pmc_result *res = NULL;
	struct pmc_benchmark *bm;
	struct pmc_metric *m;
	struct pmc_run_info info = {.exit_code = 0};

	assert_int_equal(pmc_result_new("perf", &res), 0);
	assert_int_equal(pmc_result_add_benchmark(res, name, NULL, &bm), 0);
	assert_int_equal(pmc_benchmark_metric(bm, "wall-time/op", &m), 0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(pmc_benchmark_add_run(bm, &info), 0);
		assert_int_equal(pmc_metric_append(m, t + i, NULL), 0);
	}
	if (big_o) {
		struct pmc_fit f = {.name = (char *)"sum",
				    .metric = (char *)"wall-time/op",
				    .big_o = (char *)big_o,
				    .coef = 2.5,
				    .rms = 0.125,
				    .points = 3};

		assert_int_equal(pmc_result_add_fit(res, &f), 0);
	}
	return res;
}

static void complexity_fits(void **state)
{
	const int64_t n[] = {8, 64, 512, 4096};
	double t[4];
	struct pmc_fit f = {0};
	const struct pmc_bench_def defs[] = {
	    {.sz = sizeof(defs[0]),
	     .name = "sum",
	     .fn = nop,
	     .args = {"8..4096*8"},
	     .complexity = PMC_O_AUTO},
	    {.sz = sizeof(defs[0]), .name = "plain", .fn = nop, .args = {"1,2"}},
	};
	struct pmc_mb_set set = {0};
	struct pmc_result *res = NULL, *back = NULL, *other = NULL;
	struct pmc_comparison *cmp = NULL;
	char err[512] = "", *text = NULL;
	FILE *mem;
	bool warned = false;

	for (size_t i = 0; i < 4; i++)
		t[i] = 3.0 * (double)n[i];
	assert_int_equal(pmc_mb_fit(n, t, 4, PMC_O_AUTO, NULL, &f), 0);
	assert_string_equal(f.big_o, "O(n)");
	assert_true(fabs(f.coef - 3) < 1e-12 && f.rms < 1e-12);
	for (size_t i = 0; i < 4; i++)
		t[i] = 2.0 * (double)n[i] * (double)n[i] + 100;
	assert_int_equal(pmc_mb_fit(n, t, 4, PMC_O_AUTO, NULL, &f), 0);
	assert_string_equal(f.big_o, "O(n^2)");
	assert_true(f.rms > 0 && f.rms < 0.01);
	/* Declared O(n) on quadratic data: that fit, and its error says it is bad. */
	assert_int_equal(pmc_mb_fit(n, t, 4, PMC_O_N, NULL, &f), 0);
	assert_string_equal(f.big_o, "O(n)");
	assert_true(f.rms > 0.05);
	for (size_t i = 0; i < 4; i++)
		t[i] = 0.5 * ((double)n[i] + 7);
	assert_int_equal(pmc_mb_fit(n, t, 4, PMC_O_NONE, n_plus_7, &f), 0);
	assert_string_equal(f.big_o, "O(f(n))");
	assert_true(fabs(f.coef - 0.5) < 1e-12 && f.rms < 1e-12);
	assert_int_equal(pmc_mb_fit(n, t, 1, PMC_O_N, NULL, &f), -EINVAL);
	assert_int_equal(pmc_mb_fit((const int64_t[]){0, 1}, t, 2, PMC_O_N, NULL, &f), -EDOM);

	/* The definition's benchmarks in a result, each the median of its runs. */
	assert_int_equal(pmc_mb_expand(defs, defs + 2, NULL, &set, err, sizeof(err)), 0);
	assert_int_equal(pmc_result_new("perf", &res), 0);
	for (size_t i = 0; i < set.n; i++) {
		struct pmc_benchmark *bm;
		struct pmc_metric *m;
		struct pmc_run_info info = {.exit_code = 0};

		assert_int_equal(pmc_result_add_benchmark(res, set.v[i].name, NULL, &bm), 0);
		assert_int_equal(pmc_benchmark_metric(bm, "wall-time/op", &m), 0);
		for (int k = -1; k <= 1; k++) {
			assert_int_equal(pmc_benchmark_add_run(bm, &info), 0);
			assert_int_equal(
			    pmc_metric_append(m, 4.0 * (double)set.v[i].args[0] * (1 + k * 0.5),
					      NULL),
			    0);
		}
	}
	assert_int_equal(pmc_mb_complexity(&set, res, err, sizeof(err)), 0);
	assert_int_equal(res->nfits, 1); /* "plain" asked for none */
	assert_string_equal(res->fits[0].name, "sum");
	assert_string_equal(res->fits[0].metric, "wall-time/op");
	assert_string_equal(res->fits[0].big_o, "O(n)");
	assert_true(fabs(res->fits[0].coef - 4) < 1e-9);
	assert_int_equal(res->fits[0].points, 4);

	/* Through the file and back. */
	assert_int_equal(pmc_result_dumps(res, NULL, &text), 0);
	assert_non_null(strstr(text, "\"complexity\":[{\"name\":\"sum\""));
	mem = fmemopen(text, strlen(text), "r");
	assert_int_equal(pmc_result_load_stream(mem, true, "r.json", &back, err, sizeof(err)), 0);
	fclose(mem);
	assert_int_equal(back->nfits, 1);
	assert_string_equal(back->fits[0].big_o, "O(n)");
	assert_int_equal(back->fits[0].points, 4);
	pmc_result_free(back);
	back = NULL;
	{
		char *bad = strstr(text, "O(n)");

		memcpy(bad, "O(x)", 4);
		mem = fmemopen(text, strlen(text), "r");
		assert_int_equal(
		    pmc_result_load_stream(mem, true, "r.json", &back, err, sizeof(err)), -EINVAL);
		fclose(mem);
		assert_contains(err, "big_o \"O(x)\"");
	}
	free(text);
	pmc_result_free(res);
	pmc_mb_set_free(&set);

	/* compare says when a fit changed. */
	res = result_with("sum/8", 10, "O(n)");
	other = result_with("sum/8", 10, "O(n^2)");
	assert_int_equal(pmc_compare(res, other, NULL, &cmp, err, sizeof(err)), 0);
	for (size_t i = 0; i < cmp->nwarnings; i++)
		warned |=
		    strstr(cmp->warnings[i], "complexity of 'sum' changed: O(n) (rms 12%)") != NULL;
	assert_true(warned);
	pmc_comparison_free(cmp);
	pmc_result_free(other);
	other = result_with("sum/8", 10, "O(n)");
	assert_int_equal(pmc_compare(res, other, NULL, &cmp, err, sizeof(err)), 0);
	for (size_t i = 0; i < cmp->nwarnings; i++)
		assert_null(strstr(cmp->warnings[i], "complexity"));
	pmc_comparison_free(cmp);
	pmc_result_free(other);
	pmc_result_free(res);
}

/* Threads: one benchmark per count, each thread its own state, all of them in every
 * batch, their counters summed; figures per operation over all threads' operations. */
static _Atomic unsigned long thread_iters;
static _Atomic unsigned thread_seen, thread_count;

static void threaded(struct pmc_state *s)
{
	unsigned long k = 0;

	/* cmocka's asserts cannot fail on another thread: checked after. */
	thread_seen |= 1u << pmc_thread_index(s);
	thread_count = pmc_threads(s);
	pmc_set_items_per_iter(s, 1);
	while (pmc_loop(s))
		k++;
	thread_iters += k;
	pmc_set_counter(s, "work", (double)k, PMC_COUNTER_TOTAL);
	pmc_set_counter(s, "per", (double)k, PMC_COUNTER_PER_OP);
	pmc_set_counter(s, "mean", (double)k, PMC_COUNTER_AVG_THREADS);
}

static void threaded_skip(struct pmc_state *s)
{
	if (pmc_thread_index(s) == 2) {
		pmc_skip(s, "not on thread 2");
		return;
	}
	while (pmc_loop(s))
		;
}

static void multithreaded_benchmarks(void **state)
{
	const struct pmc_bench_def defs[] = {
	    {.sz = sizeof(defs[0]),
	     .name = "mt",
	     .fn = threaded,
	     .args = {"8"},
	     .threads = "1..4*2"},
	};
	const struct pmc_bench_def bad[] = {
	    {.sz = sizeof(bad[0]), .name = "mt", .fn = threaded, .threads = "0,2"},
	};
	struct pmc_mb_set set = {0};
	struct pmc_mb_opts o = {.samples = 3, .iters = 100, .no_overhead = true};
	struct pmc_mb_samples s;
	struct pmc_result *res = NULL;
	const struct pmc_metric *m;
	struct pmc_mb_bench b;
	char err[256] = "";

	assert_int_equal(pmc_mb_expand(defs, defs + 1, NULL, &set, err, sizeof(err)), 0);
	assert_int_equal(set.n, 3);
	assert_string_equal(set.v[0].name, "mt/8/threads:1");
	assert_string_equal(set.v[2].name, "mt/8/threads:4");
	assert_int_equal(set.v[2].threads, 4);
	{
		struct pmc_mb_set none = {0};

		assert_int_equal(pmc_mb_expand(bad, bad + 1, NULL, &none, err, sizeof(err)), 0);
		assert_int_equal(none.nbad, 1);
		assert_contains(none.bad[0], "benchmark 'mt', threads: 0 threads; give 1 to 1024");
		pmc_mb_set_free(&none);
	}

	thread_iters = 0;
	thread_seen = 0;
	assert_int_equal(pmc_mb_measure(&set.v[2], &o, &s, err, sizeof(err)), 0);
	assert_int_equal(thread_seen, 0xf);
	assert_int_equal(thread_count, 4);
	assert_int_equal(thread_iters, 4 * 100 * 3); /* no warm-up here */
	assert_int_equal(s.threads, 4);
	assert_int_equal(s.nuc, 3);
	for (size_t i = 0; i < s.n; i++)
		assert_true(s.uc_values[i * PMC_COUNTERS_MAX] == 400);
	assert_int_equal(pmc_result_new("perf", &res), 0);
	assert_int_equal(pmc_mb_record(&set.v[2], &s, NULL, res, err, sizeof(err)), 0);
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "per/op");
	assert_true(m->values[0] == 1); /* 400 over 4 threads' 100 operations */
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "work");
	assert_true(m->values[0] == 400);
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "mean");
	assert_true(m->values[0] == 100); /* the threads' mean */
	assert_non_null(pmc_benchmark_find_metric(&res->benchmarks[0], "items/s"));
	pmc_result_free(res);
	pmc_mb_samples_free(&s);

	/* A thread that skips skips the benchmark, and the others are not left waiting. */
	b = set.v[2];
	b.def.fn = threaded_skip;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_true(s.skipped);
	assert_string_equal(s.message, "not on thread 2");
	pmc_mb_samples_free(&s);
	pmc_mb_set_free(&set);
}

/* One bad registration is left out with its place, and the rest are kept: a bad argument
 * spec, a name its own arguments repeat, no function, a name another file registered. */
static void bad_definitions_are_skipped(void **state)
{
	const struct pmc_bench_def defs[] = {
	    {.sz = sizeof(defs[0]),
	     .name = "copy",
	     .fn = nop,
	     .args = {"8", "1..x"},
	     .file = "a.c",
	     .line = 3},
	    {.sz = sizeof(defs[0]),
	     .name = "a",
	     .fn = nop,
	     .args = {"1,1"},
	     .file = "a.c",
	     .line = 5},
	    {.sz = sizeof(defs[0]), .name = "nofn", .file = "a.c", .line = 7},
	    {.sz = sizeof(defs[0]), .name = "x", .fn = nop, .file = "b.c", .line = 2},
	    {.sz = sizeof(defs[0]), .name = "x", .fn = nop, .file = "a.c", .line = 9},
	    {.sz = sizeof(defs[0]),
	     .name = "ok",
	     .fn = nop,
	     .args = {"1,2"},
	     .file = "c.c",
	     .line = 1},
	};
	const struct pmc_bench_def bad_size[] = {{.sz = 3}};
	struct pmc_mb_set set = {0};
	char err[256] = "";

	assert_int_equal(pmc_mb_expand(defs, defs + 6, NULL, &set, err, sizeof(err)), 0);
	assert_int_equal(set.n, 3);
	assert_string_equal(set.v[0].name, "x"); /* a.c:9 comes first: source order */
	assert_string_equal(set.v[1].name, "ok/1");
	assert_int_equal(set.nbad, 4);
	assert_contains(set.bad[0], "a.c:3: benchmark 'copy', argument 2:");
	assert_contains(set.bad[0], "; skipped");
	assert_contains(set.bad[1], "a.c:5: benchmark 'a/1' is named twice by this definition's "
				    "arguments");
	assert_string_equal(set.bad[2], "a.c:7: benchmark 'nofn': no function; skipped");
	assert_contains(set.bad[3], "b.c:2: benchmark 'x' is also registered at a.c:9");
	pmc_mb_set_free(&set);
	/* A size not made by PMC_BENCHMARK stops the walk: it finds the next one. */
	assert_int_equal(pmc_mb_expand(bad_size, bad_size + 1, NULL, &set, err, sizeof(err)),
			 -EINVAL);
	assert_contains(err, "not made by PMC_BENCHMARK");
}

/* What a benchmark prints reaches a file or a pipe: the forked child flushes stdio before
 * it ends with _exit. */
static void talker(struct pmc_state *s)
{
	printf("said by the benchmark\n");
	while (pmc_loop(s))
		;
}

static void a_childs_output_is_delivered(void **state)
{
	struct pmc_mb_bench b = {.name = (char *)"talker"};
	struct pmc_mb_opts o = {.samples = 1, .iters = 1, .no_overhead = true};
	struct pmc_mb_samples s;
	char err[256] = "", path[] = "/tmp/pmc-mb-out-XXXXXX", buf[256] = "";
	int fd = mkstemp(path), saved = dup(STDOUT_FILENO);
	ssize_t got;

	assert_true(fd >= 0 && saved >= 0);
	b.def = (struct pmc_bench_def){.sz = sizeof(b.def), .name = "talker", .fn = talker};
	fflush(stdout);
	assert_int_equal(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
	assert_int_equal(pmc_mb_measure_forked(&b, &o, &s, err, sizeof(err)), 0);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	got = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	unlink(path);
	assert_true(got > 0);
	assert_contains(buf, "said by the benchmark");
	pmc_mb_samples_free(&s);
}

static void calibration_reaches_the_target(void **state)
{
	struct pmc_mb_bench b = bench_of("body", body);
	struct pmc_mb_opts o = {.samples = 4,
				.warmup = 1,
				.min_time_s = 1000e-9,
				.clock = fake_clock,
				.no_overhead = true};
	struct pmc_mb_samples s;
	char err[256] = "";

	reset();
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	/* Batches of 1, 10, 100 take 10, 73, 703 ns (7/iteration + 3 for the second read):
	 * tenfold while under a tenth of 1000 ns, then 1000 * 1.4 / 703 times 100 = 199,
	 * whose 1396 ns reach the target. */
	assert_int_equal(s.iters, 199);
	assert_int_equal(s.n, 4);
	for (size_t i = 0; i < s.n; i++)
		assert_true(s.ns[i] == 199 * 7 + 3);
	/* Calibration (4 batches), one warm-up, 4 samples: each one call, setup and
	 * teardown around it, none of their time in a sample. */
	assert_int_equal(fn_calls, 9);
	assert_int_equal(setups, 9);
	assert_int_equal(teardowns, 9);
	assert_int_equal(body_iters, 1 + 10 + 100 + 199 * 6);
	assert_false(s.skipped);
	pmc_mb_samples_free(&s);
}

/* The empty loop's cost is measured beside the samples and reported per operation, never
 * subtracted: a difference of two separately timed loops can fall below what the body
 * costs (out-of-order execution overlaps the bookkeeping with it), and a figure below the
 * hardware's floor is a wrong number (docs/microbench.md, "Overhead"). */
static void overhead_is_reported_not_subtracted(void **state)
{
	struct pmc_mb_bench b = bench_of("body", body);
	struct pmc_mb_opts o = {.samples = 3, .iters = 100, .clock = fake_clock, .empty = empty};
	struct pmc_mb_samples s;
	struct pmc_result *res = NULL;
	const struct pmc_metric *m;
	char err[256] = "";

	reset();
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(s.iters, 100);
	/* The empty loop at the same batch size: 100 * 1 + 3. */
	assert_true(s.over_ns == 103);
	assert_int_equal(pmc_result_new("perf", &res), 0);
	assert_int_equal(pmc_mb_record(&b, &s, NULL, res, err, sizeof(err)), 0);
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "wall-time/op");
	assert_non_null(m);
	assert_int_equal(m->n, 3);
	/* 703 / 100: the whole batch per operation, the loop's own cost in it. */
	for (size_t i = 0; i < m->n; i++)
		assert_true(m->values[i] == 7.03);
	assert_true(m->has_loop_overhead);
	assert_true(m->loop_overhead == 1.03);
	assert_null(m->note);
	/* Every run records the batch size its values are per. */
	assert_int_equal(res->benchmarks[0].nruns, 3);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(res->benchmarks[0].runs[i].iterations, 100);
	pmc_mb_samples_free(&s);
	pmc_result_free(res);

	/* An empty loop that costs more than the body: the figure is still the batch's,
	 * never below it, never 0, and the note says the body is near the resolution. */
	reset();
	empty_per_iter = 9;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(pmc_result_new("perf", &res), 0);
	assert_int_equal(pmc_mb_record(&b, &s, NULL, res, err, sizeof(err)), 0);
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "wall-time/op");
	for (size_t i = 0; i < m->n; i++)
		assert_true(m->values[i] == 7.03);
	assert_true(m->loop_overhead == 9.03);
	assert_non_null(m->note);
	assert_contains(m->note, "not subtracted");
	assert_true(pmc_mb_per_op(50, 10) == 5.0);
	assert_true(isnan(pmc_mb_per_op(NAN, 10)));
	assert_true(isnan(pmc_mb_per_op(5, 0)));
	pmc_mb_samples_free(&s);
	pmc_result_free(res);
}

/* A body the compiler removed runs as the empty loop does: pmc_mb_empty_like() pairs the
 * body's batches with the empty loop's (per process, or per batch in one) and flags it
 * when the one-sided signed-rank test cannot tell it slower, with enough pairs to. */
static void a_body_like_the_empty_loop_is_flagged(void **state)
{
	struct pmc_mb_bench b = bench_of("body", body);
	struct pmc_mb_opts o = {.samples = 6, .iters = 100, .clock = fake_clock, .empty = empty};
	double ns[8], over[8], e = 500;
	unsigned proc[8];
	struct pmc_mb_samples s,
	    piped = {0}, merged = {0},
	    hand = {.iters = 100, .n = 8, .ns = ns, .over_v = over, .process = proc};
	struct pmc_result *res = NULL;
	const struct pmc_metric *m;
	char err[256] = "", msg[300] = "";

	(void)state;
	/* In one process: the body costs what the empty loop does, batch for batch. */
	reset();
	per_iter = empty_per_iter = 1;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	for (size_t i = 0; i < s.n; i++)
		assert_true(s.over_v[i] == 103 && s.ns[i] == 103);
	assert_int_equal(pmc_mb_empty_like(&s, msg, sizeof(msg)), 1);
	assert_contains(msg, "over 6 pairs of batches");
	assert_int_equal(pmc_result_new("perf", &res), 0);
	assert_int_equal(pmc_mb_record(&b, &s, NULL, res, err, sizeof(err)), 0);
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "wall-time/op");
	assert_non_null(m->note);
	assert_contains(m->note,
			"indistinguishable from the empty loop: 1.03 ns/op against its 1.03");
	pmc_result_free(res);
	pmc_mb_samples_free(&s);
	/* A body of 7 ns against the loop's 1: slower in every pair, not flagged. */
	reset();
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(pmc_mb_empty_like(&s, msg, sizeof(msg)), 0);
	assert_int_equal(pmc_result_new("perf", &res), 0);
	assert_int_equal(pmc_mb_record(&b, &s, NULL, res, err, sizeof(err)), 0);
	assert_null(pmc_benchmark_find_metric(&res->benchmarks[0], "wall-time/op")->note);
	pmc_result_free(res);
	pmc_mb_samples_free(&s);

	/* Eight processes, the body within 10% of the empty loop either way: flagged; 2%
	 * slower in every one: told apart; four processes cannot tell (p >= 1/16). */
	for (size_t i = 0; i < 8; i++) {
		proc[i] = (unsigned)i + 1;
		over[i] = e;
		ns[i] = e * (i % 2 ? 1.1 : 0.9) + (double)i;
	}
	assert_int_equal(pmc_mb_empty_like(&hand, msg, sizeof(msg)), 1);
	assert_contains(msg, "over 8 processes");
	for (size_t i = 0; i < 8; i++)
		ns[i] = e * 1.02;
	assert_int_equal(pmc_mb_empty_like(&hand, msg, sizeof(msg)), 0);
	hand.n = 4;
	for (size_t i = 0; i < 4; i++)
		ns[i] = e;
	assert_int_equal(pmc_mb_empty_like(&hand, msg, sizeof(msg)), 0);
	/* Two samples in each process: one pair per process, its samples' median. */
	hand.n = 8;
	for (size_t i = 0; i < 8; i++) {
		proc[i] = (unsigned)i / 2 + 1;
		ns[i] = i % 2 ? 3 * e : 3.2 * e;
	}
	assert_int_equal(pmc_mb_empty_like(&hand, msg, sizeof(msg)), 0); /* 4 pairs */

	/* From a process through the pipe: its median is beside each of its samples. */
	reset();
	per_iter = empty_per_iter = 1;
	assert_int_equal(pmc_mb_measure_forked(&b, &o, &piped, err, sizeof(err)), 0);
	assert_null(piped.over_v);
	assert_int_equal(pmc_mb_samples_merge(&merged, &piped, 1), 0);
	assert_non_null(merged.over_v);
	for (size_t i = 0; i < merged.n; i++)
		assert_true(merged.over_v[i] == merged.over_ns);
	pmc_mb_samples_free(&merged);
}

/* The empty loop a definition carries (PMC_BENCHMARK compiles one with the benchmark) is
 * the one measured when the options name none. */
static void the_definitions_empty_loop_is_measured(void **state)
{
	struct pmc_mb_bench b = bench_of("body", body);
	struct pmc_mb_opts o = {.samples = 3, .iters = 100, .clock = fake_clock};
	struct pmc_mb_samples s;
	char err[256] = "";

	reset();
	empty_per_iter = 2;
	b.def.empty = empty;
	assert_ptr_equal(pmc_mb_empty_fn(&b, PMC_FORM_WHILE), empty);
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_true(s.over_ns == 203);
	pmc_mb_samples_free(&s);
}

/* The bodies and empty loops of the other loop forms, costing what the fake clock says. */
static void body_local(struct pmc_state *s)
{
	PMC_LOOP(s)
	{
		now += per_iter;
	}
}

static void empty_local(struct pmc_state *s)
{
	PMC_LOOP(s)
	{
		now += empty_per_iter + 4;
	}
}

static void empty_range(struct pmc_state *s)
{
	now += 1;
	PMC_LOOP(s)
	{
		now += empty_per_iter + 5;
	}
}

/* Each loop form has its own bookkeeping per iteration, so the empty loop measured beside
 * a benchmark is the one of the form its loop is written in: PMC_LOOP's for a PMC_LOOP
 * body, never the while loop's (whose cost can be the whole of a cheap PMC_LOOP
 * iteration). */
static void the_empty_loop_is_of_the_bodys_form(void **state)
{
	struct pmc_mb_bench b = bench_of("body", body_local);
	struct pmc_mb_opts o = {.samples = 3, .iters = 100, .clock = fake_clock};
	struct pmc_mb_samples s;
	char err[256] = "";

	(void)state;
	reset();
	empty_per_iter = 2;
	b.def.empty = empty;
	b.def.empty_local = empty_local;
	b.def.empty_range = empty_range;
	assert_ptr_equal(pmc_mb_empty_fn(&b, PMC_FORM_LOCAL), empty_local);
	assert_ptr_equal(pmc_mb_empty_fn(&b, PMC_FORM_RANGE), empty_range);
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	/* 100 iterations of 2 + 4, and the 3 of the edges' reads. */
	assert_true(s.over_ns == 603);
	pmc_mb_samples_free(&s);

	/* A definition without one (an older program): the library's PMC_LOOP loop, also for
	 * the C++ range loop. */
	b.def.empty_local = b.def.empty_range = NULL;
	assert_ptr_not_equal(pmc_mb_empty_fn(&b, PMC_FORM_LOCAL), empty);
	assert_ptr_equal(pmc_mb_empty_fn(&b, PMC_FORM_RANGE), pmc_mb_empty_fn(&b, PMC_FORM_LOCAL));
	assert_ptr_not_equal(pmc_mb_empty_fn(&b, PMC_FORM_WHILE),
			     pmc_mb_empty_fn(&b, PMC_FORM_LOCAL));
}

/* The samples of a benchmark's processes are appended in order, each tagged with its
 * process; the overhead comes from the process that measured it; a batch size that
 * differs is refused. */
static void samples_of_processes_merge(void **state)
{
	struct pmc_mb_bench b = bench_of("body", body);
	struct pmc_mb_opts o = {.samples = 2, .iters = 100, .clock = fake_clock, .empty = empty};
	struct pmc_mb_samples all = {0}, s;
	struct pmc_result *res = NULL;
	char err[256] = "";

	(void)state;
	reset();
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(pmc_mb_samples_merge(&all, &s, 1), 0);
	assert_null(s.ns);
	o.samples = 3;
	o.no_overhead = true;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_true(isnan(s.over_ns));
	assert_int_equal(pmc_mb_samples_merge(&all, &s, 2), 0);
	assert_int_equal(all.n, 5);
	assert_true(all.over_ns == 103);
	for (size_t i = 0; i < all.n; i++)
		assert_int_equal(all.process[i], i < 2 ? 1 : 2);
	o.iters = 50;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(pmc_mb_samples_merge(&all, &s, 3), -EINVAL);
	pmc_mb_samples_free(&s);
	/* The runs of the result record them. */
	assert_int_equal(pmc_result_new("perf", &res), 0);
	assert_int_equal(pmc_mb_record(&b, &all, NULL, res, err, sizeof(err)), 0);
	assert_int_equal(res->benchmarks[0].nruns, 5);
	assert_int_equal(res->benchmarks[0].runs[1].process, 1);
	assert_int_equal(res->benchmarks[0].runs[4].process, 2);
	pmc_result_free(res);
	pmc_mb_samples_free(&all);
}

/* The CPU clock of calibration: the fake wall clock less the time the batch was
 * "preempted" (stolen). */
static uint64_t fake_cpu(void *ud)
{
	(void)ud;
	return now - stolen;
}

/* Calibration grows the batch on CPU time: the second batch (10 iterations) is preempted
 * for 1 ms of wall time, past the 1000 ns target on the wall clock, but it used 73 ns of
 * CPU; the growth goes on as in calibration_reaches_the_target (to 198 here: the CPU
 * clock is read outside the wall clock's two reads, and sees their 6 ns, 706 for 100). */
static void calibration_grows_on_cpu_time(void **state)
{
	struct pmc_mb_bench b = bench_of("preempted", body);
	struct pmc_mb_opts o = {.samples = 2,
				.min_time_s = 1000e-9,
				.clock = fake_clock,
				.cpu_clock = fake_cpu,
				.no_overhead = true};
	struct pmc_mb_samples s;
	char err[256] = "";

	(void)state;
	reset();
	stolen = 0;
	preempt_call = 2;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(s.iters, 198);
	pmc_mb_samples_free(&s);
	/* On the wall clock alone (no CPU clock), the preempted batch ends the growth at 10. */
	reset();
	stolen = 0;
	preempt_call = 2;
	o.cpu_clock = NULL;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(s.iters, 10);
	pmc_mb_samples_free(&s);
	preempt_call = 0;
}

/* A body that waits: 200 ns of wall time per iteration, 10 of them on the CPU. */
static void body_waits(struct pmc_state *s)
{
	while (pmc_loop(s)) {
		now += 200;
		stolen += 190;
	}
}

/* A body that waits in every batch (a sleep, I/O) grows on the wall clock once two
 * batches in a row waited more than they computed: 1, 10 (2003 ns, a fifth of the
 * target: 10000 * 1.4 / 2003 times), 69, whose 13803 ns reach the 10000 ns target. Grown
 * on CPU time it went on to 1000 iterations and more (200 000 ns per batch). */
static void calibration_of_a_waiting_body_grows_on_the_wall_clock(void **state)
{
	struct pmc_mb_bench b = bench_of("sleeps", body_waits);
	struct pmc_mb_opts o = {.samples = 2,
				.min_time_s = 10000e-9,
				.clock = fake_clock,
				.cpu_clock = fake_cpu,
				.no_overhead = true};
	struct pmc_mb_samples s;
	char err[256] = "";

	(void)state;
	reset();
	stolen = 0;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(s.iters, 69);
	pmc_mb_samples_free(&s);
}

/* A definition's own min_time, iterations and use_real_time override the options': the
 * preempted batch stops the growth on the wall clock (10, as without a CPU clock), a
 * min_time of 100 ns stops it at 100 ns of CPU time, iterations fix the batch. */
static void a_definitions_time_settings_win(void **state)
{
	struct pmc_mb_bench b = bench_of("own", body);
	struct pmc_mb_opts o = {.samples = 2,
				.min_time_s = 1000e-9,
				.clock = fake_clock,
				.cpu_clock = fake_cpu,
				.no_overhead = true};
	struct pmc_mb_samples s;
	char err[256] = "";

	(void)state;
	reset();
	stolen = 0;
	preempt_call = 2;
	b.def.use_real_time = 1;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(s.iters, 10);
	pmc_mb_samples_free(&s);
	preempt_call = 0;
	b.def.use_real_time = 0;

	/* 1, 10 (76 ns of CPU time, 6 of them the clock reads: 10 * 100 * 1.4 / 76), 18. */
	reset();
	stolen = 0;
	b.def.min_time = 100e-9;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(s.iters, 18);
	pmc_mb_samples_free(&s);

	reset();
	b.def.iterations = 33;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(s.iters, 33);
	pmc_mb_samples_free(&s);
}

/* A body that takes 1000 ns of the fake wall clock per iteration and says it took 2 ms
 * (a device's clock); or, told so, says nothing. */
static bool manual_silent;

static void body_manual(struct pmc_state *s)
{
	while (pmc_loop(s)) {
		now += 1000;
		if (!manual_silent)
			pmc_set_iteration_time(s, 0.002);
	}
}

static void body_manual_threads(struct pmc_state *s)
{
	double t = pmc_thread_index(s) ? 0.002 : 0.001;

	while (pmc_loop(s))
		pmc_set_iteration_time(s, t);
}

/* Manual time (use_manual_time): a batch's time is the sum of its iterations'
 * pmc_set_iteration_time, exactly, and calibration grows on it: 1 iteration (2 ms, a
 * fifth of the 10 ms target: 10 * 1.4 / 2 times), then 7, whose 14 ms reach it; on the
 * wall clock (1003 ns for one) it would have grown tenfold four times. The same call in
 * a benchmark without use_manual_time changes nothing; a manual one that never calls it
 * fails with one line. */
static void manual_time_is_the_benchmarks_own(void **state)
{
	struct pmc_mb_bench b = bench_of("device", body_manual);
	struct pmc_mb_opts o = {.samples = 3,
				.min_time_s = 0.01,
				.clock = fake_clock,
				.cpu_clock = fake_cpu,
				.no_overhead = true};
	struct pmc_mb_samples s;
	char err[256] = "";

	(void)state;
	reset();
	stolen = 0;
	manual_silent = false;
	b.def.use_manual_time = 1;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(s.iters, 7);
	for (size_t i = 0; i < s.n; i++) {
		assert_true(s.ns[i] == 14e6);
		assert_true(pmc_mb_per_op(s.ns[i], s.iters) == 2e6);
	}
	pmc_mb_samples_free(&s);

	reset();
	b.def.use_manual_time = 0;
	b.def.iterations = 5;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_true(s.ns[0] == 5 * 1000 + 3.0);
	pmc_mb_samples_free(&s);

	/* Of threads, each gives its own: thread 0 1 ms per iteration, thread 1 2 ms; the
	 * batch's time is their mean, 1.5 ms per iteration (the real clocks: manual time
	 * reads none). */
	b = bench_of("device2", body_manual_threads);
	b.def.use_manual_time = 1;
	b.def.iterations = 4;
	b.threads = 2;
	struct pmc_mb_opts ot = {.samples = 2, .no_overhead = true};
	assert_int_equal(pmc_mb_measure(&b, &ot, &s, err, sizeof(err)), 0);
	assert_true(s.ns[0] == 4 * 1.5e6 && s.ns[1] == 4 * 1.5e6);
	pmc_mb_samples_free(&s);
	b = bench_of("device", body_manual);

	reset();
	b.def.use_manual_time = 1;
	manual_silent = true;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "'device' uses manual time but never called "
				 "pmc_set_iteration_time(); call it in every iteration, or "
				 "drop use_manual_time");
	manual_silent = false;
}

/* The process's CPU clock of a body whose work runs on another thread: 3000 ns of it per
 * iteration, 100 ns of the wall clock and none of the calling thread's. */
static uint64_t process_cpu;

static uint64_t fake_process_cpu(void *ud)
{
	(void)ud;
	return process_cpu;
}

static void body_on_a_thread(struct pmc_state *s)
{
	while (pmc_loop(s)) {
		now += 100;
		process_cpu += 3000;
	}
}

/* measure_process_cpu_time: calibration grows on the process's CPU time (1 iteration,
 * 3000 ns, then 10000 * 1.4 / 3000 = 4, whose 12000 ns reach the target) and every
 * sample reports it as cpu-time/op (the batch's 12000 ns over 4 iterations); without
 * it the same clocks give no cpu-time. */
static void process_cpu_time_counts_every_thread(void **state)
{
	struct pmc_mb_bench b = bench_of("pool", body_on_a_thread);
	struct pmc_mb_opts o = {.samples = 3,
				.min_time_s = 10000e-9,
				.clock = fake_clock,
				.cpu_clock = fake_process_cpu,
				.no_overhead = true};
	struct pmc_mb_samples s;
	char err[256] = "";

	(void)state;
	reset();
	process_cpu = 0;
	b.def.measure_process_cpu_time = 1;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(s.iters, 4);
	assert_int_equal(s.nuc, 1);
	assert_string_equal(s.uc[0].name, "cpu-time");
	assert_int_equal(s.uc[0].flags, PMC_COUNTER_PER_OP | PMC_COUNTER_LOWER_IS_BETTER);
	for (size_t i = 0; i < s.n; i++)
		assert_true(s.uc_values[i * PMC_COUNTERS_MAX] == 12000);
	pmc_mb_samples_free(&s);

	reset();
	b.def.measure_process_cpu_time = 0;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(s.nuc, 0);
	pmc_mb_samples_free(&s);
}

/* The metrics of the exact runs below: two simulated, one not (branch simulation off). */
enum { X_INSTRUCTIONS, X_DATA_READS, X_BRANCH_MISSES, X_NMETRICS };
static char *x_ids[X_NMETRICS] = {(char *)"instructions", (char *)"data-reads",
				  (char *)"branch-misses"};
static struct pmc_reading x_counts[PMC_MB_EXACT_DUMPS * X_NMETRICS];

static struct pmc_reading exact_reading(uint64_t v)
{
	return (struct pmc_reading){.status = PMC_STATUS_EXACT, .value = v, .scaled = (double)v};
}

/* Dump k of x: ir instructions, dr data reads, and branch misses not simulated. */
static void set_counts(struct pmc_mb_exact *x, size_t k, uint64_t ir, uint64_t dr)
{
	x->nmetrics = X_NMETRICS;
	x->ids = x_ids;
	x->counts = x_counts;
	x_counts[k * X_NMETRICS + X_INSTRUCTIONS] = exact_reading(ir);
	x_counts[k * X_NMETRICS + X_DATA_READS] = exact_reading(dr);
	x_counts[k * X_NMETRICS + X_BRANCH_MISSES] =
	    (struct pmc_reading){.status = PMC_STATUS_UNSUPPORTED, .error = ENODATA};
}

/* Valgrind's per-operation counts: (body(2n) - body(n)) - (empty(2n) - empty(n)), over n;
 * fixed costs cancel, a negative difference is zero, metrics that were not simulated are
 * absent, never 0. */
static void exact_counts_are_the_body_alone(void **state)
{
	struct pmc_mb_bench b = bench_of("body", body);
	struct pmc_mb_exact x = {.iters = 4};
	struct pmc_result *res = NULL;
	const struct pmc_metric *m;
	uint64_t v = 0, below = 0;
	char err[256] = "";

	/* Fixed costs 5000 and 3000; the body 10 per iteration, its empty loop 3. */
	set_counts(&x, 0, 5000 + 4 * 10, 100);
	set_counts(&x, 1, 5000 + 8 * 10, 100);
	set_counts(&x, 2, 3000 + 4 * 3, 50);
	set_counts(&x, 3, 3000 + 8 * 3, 54);
	assert_int_equal(pmc_mb_exact_count(&x, X_INSTRUCTIONS, &v, &below, err, sizeof(err)), 0);
	assert_int_equal(v, 4 * 7);
	assert_int_equal(below, 0);
	/* The body's data reads did not grow, the empty loop's did by 4: clamped, and said. */
	assert_int_equal(pmc_mb_exact_count(&x, X_DATA_READS, &v, &below, err, sizeof(err)), 0);
	assert_int_equal(v, 0);
	assert_int_equal(below, 4);
	assert_int_equal(pmc_mb_exact_count(&x, X_BRANCH_MISSES, &v, NULL, err, sizeof(err)),
			 -ENODATA);
	/* A body that paused 4 more times at 2n: what 4 pairs left (a loop of pairs at 4
	 * and 8 less the empty loop at 4 and 8: 4 * 5) comes off too. */
	x.pauses[0] = 4;
	x.pauses[1] = 8;
	set_counts(&x, 1, 5000 + 8 * 10 + 4 * 5, 100);
	set_counts(&x, 4, 700 + 4 * (2 + 5), 10);
	set_counts(&x, 5, 700 + 8 * (2 + 5), 10);
	set_counts(&x, 6, 600 + 4 * 2, 10);
	set_counts(&x, 7, 600 + 8 * 2, 10);
	assert_int_equal(pmc_mb_exact_count(&x, X_INSTRUCTIONS, &v, &below, err, sizeof(err)), 0);
	assert_int_equal(v, 4 * 7);
	x.pauses[0] = x.pauses[1] = 0;
	set_counts(&x, 1, 5000 + 8 * 10, 100);

	assert_int_equal(pmc_result_new("valgrind", &res), 0);
	assert_int_equal(pmc_mb_record_exact(&b, &x, res, err, sizeof(err)), 0);
	assert_int_equal(res->nbench, 1);
	assert_int_equal(res->benchmarks[0].runs[0].iterations, 4);
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "instructions/op");
	assert_non_null(m);
	assert_int_equal(m->n, 1);
	assert_true(m->values[0] == 7.0);
	assert_int_equal(m->status[0], PMC_STATUS_EXACT);
	assert_true(m->simulated);
	assert_null(m->note);
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "data-reads/op");
	assert_true(m->values[0] == 0.0);
	assert_non_null(m->note);
	assert_contains(m->note, "clamped to 0: the body's loop counted 4 fewer");
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "branch-misses/op");
	assert_non_null(m);
	assert_true(isnan(m->values[0]));
	assert_int_equal(m->status[0], PMC_STATUS_UNSUPPORTED);
	assert_null(pmc_benchmark_find_metric(&res->benchmarks[0], "wall-time/op"));
	pmc_result_free(res);

	/* A skipped benchmark is recorded as such, with nothing measured. */
	x.skipped = true;
	x.message = (char *)"no AVX2";
	assert_int_equal(pmc_result_new("valgrind", &res), 0);
	assert_int_equal(pmc_mb_record_exact(&b, &x, res, err, sizeof(err)), 0);
	assert_int_equal(res->nbench, 1);
	assert_int_equal(res->benchmarks[0].nruns, 0);
	assert_string_equal(pmc_benchmark_skipped(&res->benchmarks[0]), "no AVX2");
	pmc_result_free(res);
}

static void early_exit(struct pmc_state *s)
{
	while (pmc_loop(s))
		break;
}

static void no_loop(struct pmc_state *s)
{
	(void)s;
}

static void skipper(struct pmc_state *s)
{
	pmc_skip(s, "no AVX2 on this CPU");
}

static void silent_skipper(struct pmc_state *s)
{
	pmc_skip(s, NULL);
}

/* PMC_LOOP: the count in a local variable, the same edges. */
static uint64_t local_iters;
static void local_loop(struct pmc_state *s)
{
	PMC_LOOP(s)
	{
		now += per_iter;
		local_iters++;
		pmc_clobber_memory();
	}
}

static void local_early(struct pmc_state *s)
{
	PMC_LOOP(s)
	{
		if (++local_iters == 2)
			break;
	}
}

/* PMC_LOOP runs exactly the batch, with the clock read at its two edges only, and leaving
 * it early is the same error as with pmc_loop(). */
static void the_local_loop_runs_the_batch(void **state)
{
	struct pmc_mb_bench b = bench_of("local", local_loop);
	struct pmc_mb_opts o = {
	    .samples = 3, .iters = 1000, .clock = fake_clock, .no_overhead = true};
	struct pmc_mb_samples s;
	char err[256] = "";

	(void)state;
	reset();
	local_iters = 0;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	/* 3 samples of 1000 (no warm-up: the options' 0). */
	assert_int_equal(local_iters, 3000);
	for (size_t i = 0; i < s.n; i++)
		assert_true(s.ns[i] == 1000 * 7 + 3);
	pmc_mb_samples_free(&s);
	b = bench_of("local-early", local_early);
	local_iters = 0;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), -EINVAL);
	assert_contains(err, "'local-early' left its loop before the end");
}

static void loop_misuse_and_skip(void **state)
{
	struct pmc_mb_bench b = bench_of("early", early_exit);
	struct pmc_mb_opts o = {.samples = 2, .iters = 5, .clock = fake_clock};
	struct pmc_mb_samples s = {0};
	char err[256] = "";

	reset();
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), -EINVAL);
	assert_contains(err, "'early' left its loop before the end");
	b = bench_of("lazy", no_loop);
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), -EINVAL);
	assert_contains(err, "'lazy' returned without running its loop");

	b = bench_of("avx2", skipper);
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_true(s.skipped);
	assert_string_equal(s.message, "no AVX2 on this CPU");
	pmc_mb_samples_free(&s);
}

/* A benchmark that skips itself is in the result as skipped, with its message and no
 * runs or metrics: a number would claim it ran. Through the child as well. */
static void skipped_benchmarks_are_recorded(void **state)
{
	static const struct fake_pmu_config cfg = {.counters = 8, .privileged = true};
	struct fake_pmu f;
	struct pmc_event_list *ev = t_events("cycles,instructions");
	struct pmc_mb_bench b = bench_of("avx2", skipper), q = bench_of("quiet", silent_skipper);
	struct pmc_mb_bench ran = bench_of("body", body);
	struct pmc_mb_opts o = {
	    .samples = 2, .iters = 5, .clock = fake_clock, .events = ev, .sys = &f.sys};
	struct pmc_mb_samples s = {0};
	struct pmc_result *res = NULL;
	const struct pmc_benchmark *bm;
	char err[256] = "";

	reset();
	fake_pmu_init(&f, &cfg);
	assert_int_equal(pmc_result_new("perf", &res), 0);
	assert_int_equal(pmc_mb_measure_forked(&b, &o, &s, err, sizeof(err)), 0);
	assert_true(s.skipped);
	assert_int_equal(pmc_mb_record(&b, &s, ev, res, err, sizeof(err)), 0);
	pmc_mb_samples_free(&s);
	assert_int_equal(pmc_mb_measure(&q, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(pmc_mb_record(&q, &s, ev, res, err, sizeof(err)), 0);
	pmc_mb_samples_free(&s);
	assert_int_equal(pmc_mb_measure(&ran, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(pmc_mb_record(&ran, &s, ev, res, err, sizeof(err)), 0);
	pmc_mb_samples_free(&s);

	assert_int_equal(res->nbench, 3);
	bm = pmc_result_find_benchmark(res, "avx2");
	assert_non_null(bm);
	assert_string_equal(pmc_benchmark_skipped(bm), "no AVX2 on this CPU");
	assert_int_equal(bm->nruns, 0);
	assert_int_equal(bm->nmetrics, 0);
	/* pmc_skip(s, NULL): skipped all the same, without a reason. */
	bm = pmc_result_find_benchmark(res, "quiet");
	assert_string_equal(pmc_benchmark_skipped(bm), "");
	assert_int_equal(bm->nmetrics, 0);
	bm = pmc_result_find_benchmark(res, "body");
	assert_null(pmc_benchmark_skipped(bm));
	assert_int_equal(bm->nruns, 2);
	/* A second benchmark of the name is refused, skipped or not. */
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(pmc_mb_record(&b, &s, ev, res, err, sizeof(err)), -EEXIST);
	assert_contains(err, "'avx2'");
	pmc_mb_samples_free(&s);
	pmc_result_free(res);
	pmc_event_list_free(ev);
}

/* Exactly iters iterations per batch, and the state's accessors. */
static uint64_t seen_iters;
static int64_t seen_arg[3];
static void counting(struct pmc_state *s)
{
	seen_arg[0] = pmc_arg(s, 0);
	seen_arg[1] = pmc_arg(s, 1);
	seen_arg[2] = pmc_arg(s, 7);
	pmc_set_items_per_iter(s, 4);
	pmc_set_bytes_per_iter(s, 32);
	seen_iters = 0;
	while (pmc_loop(s))
		seen_iters++;
	/* Asking again after the end stays false. */
	assert_false(pmc_loop(s));
}

static void the_loop_runs_the_batch(void **state)
{
	struct pmc_mb_bench b = bench_of("counting", counting);
	struct pmc_mb_opts o = {
	    .samples = 1, .iters = 12345, .clock = fake_clock, .no_overhead = true};
	struct pmc_mb_samples s;
	char err[256] = "";

	reset();
	b.args[0] = 64;
	b.args[1] = -3;
	b.nargs = 2;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(seen_iters, 12345);
	assert_int_equal(seen_arg[0], 64);
	assert_int_equal(seen_arg[1], -3);
	assert_int_equal(seen_arg[2], 0);
	assert_int_equal(s.items, 4);
	assert_int_equal(s.bytes, 32);
	/* Only the two edge reads are in a batch: no clock per iteration. */
	assert_true(s.ns[0] == 3);
	pmc_mb_samples_free(&s);
}

static void counters_per_operation(void **state)
{
	static const struct fake_pmu_config cfg = {.counters = 8, .privileged = true};
	struct fake_pmu f;
	struct pmc_event_list *ev = t_events("{cycles,instructions},page-faults");
	struct pmc_mb_bench b = bench_of("body", body);
	/* No warm-up: the first batch starts at the first read after opening, when no
	 * event has run yet ("not counted" with zero times), and must still count. */
	struct pmc_mb_opts o = {.samples = 3,
				.iters = 50,
				.warmup = 0,
				.clock = fake_clock,
				.events = ev,
				.sys = &f.sys,
				.empty = empty};
	struct pmc_mb_samples s;
	struct pmc_result *res = NULL;
	const struct pmc_metric *m;
	const struct pmc_benchmark *bm;
	char err[256] = "";
	double cyc = (double)fake_pmu_rate(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	double ins = (double)fake_pmu_rate(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);

	reset();
	fake_pmu_init(&f, &cfg);
	pmu = &f;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(s.nev, 3);
	/* The empty loop's batch: one quantum's counts, reported beside the body's 50. */
	assert_true(s.over_counts[0] == cyc);
	assert_int_equal(pmc_result_new("perf", &res), 0);
	assert_int_equal(pmc_mb_record(&b, &s, ev, res, err, sizeof(err)), 0);
	bm = &res->benchmarks[0];
	m = pmc_benchmark_find_metric(bm, "cycles/op");
	assert_non_null(m);
	assert_true(m->has_status);
	for (size_t i = 0; i < m->n; i++) {
		assert_int_equal(m->status[i], PMC_STATUS_COUNTED);
		assert_true(m->values[i] == 50 * cyc / 50);
		assert_int_equal(m->raw[i].value, 50 * (uint64_t)cyc);
	}
	assert_true(m->has_loop_overhead && m->loop_overhead == cyc / 50);
	m = pmc_benchmark_find_metric(bm, "instructions/op");
	assert_true(m->values[0] == 50 * ins / 50);
	m = pmc_benchmark_find_metric(bm, "ipc");
	assert_non_null(m);
	assert_true(m->derived);
	assert_true(fabs(m->values[0] - ins / cyc) < 1e-12);
	assert_non_null(pmc_benchmark_find_metric(bm, "page-faults/op"));
	pmc_mb_samples_free(&s);
	pmc_result_free(res);
	pmc_event_list_free(ev);
}

/* A hybrid CPU (docs/events.md, "Hybrid CPUs"): each batch spends 40% of its time on
 * E-cores; cycles/op is the exact sum of both core types, counted, not the P-core count
 * extrapolated (x1.67, scaled) as a multiplexed one would be; cpu_core/cycles/ is the
 * P-cores' count, not extrapolated either. */
static void hybrid_batches_sum_core_types(void **state)
{
	static const struct fake_pmu_config cfg = {
	    .counters = 8,
	    .privileged = true,
	    .cores = {{"cpu_core", PERF_TYPE_RAW, 0x3, 8}, {"cpu_atom", 10, 0xc, 6}},
	    .ncores = 2,
	};
	struct fake_pmu f;
	struct pmc_event_list *ev = NULL;
	struct pmc_mb_bench b = bench_of("body", body);
	struct pmc_mb_opts o = {
	    .samples = 3, .iters = 50, .clock = fake_clock, .sys = &f.sys, .no_overhead = true};
	struct pmc_mb_samples s;
	char err[256] = "", root[PATH_MAX];
	uint64_t want;

	reset();
	fake_pmu_init(&f, &cfg);
	assert_int_equal(fake_pmu_sysfs(&cfg, root), 0);
	f.sys.sysfs_root = root;
	{
		PMC_OPTS(pmc_event_list_opts, eo, .sysfs_root = root);

		assert_int_equal(pmc_event_list_parse("cycles,cpu_core/cycles/,task-clock", &eo,
						      &ev, err, sizeof(err)),
				 0);
	}
	o.events = ev;
	pmu = &f;
	migrate = true;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	want = 30 * fake_pmu_core_rate(&f, 0, PERF_COUNT_HW_CPU_CYCLES) +
	       20 * fake_pmu_core_rate(&f, 1, PERF_COUNT_HW_CPU_CYCLES);
	for (size_t i = 0; i < s.n; i++) {
		const struct pmc_reading *rd = &s.readings[i * s.nev];

		if (rd->status != PMC_STATUS_COUNTED)
			print_error("batch %zu: %s\n", i, pmc_status_name(rd->status));
		assert_int_equal(rd->status, PMC_STATUS_COUNTED);
		assert_int_equal(rd->value, want);
		assert_true(rd->scaled == (double)want);
		assert_int_equal(rd->running, 50 * FAKE_PMU_QUANTUM_NS);
		rd++;
		if (rd->status != PMC_STATUS_COUNTED)
			print_error("batch %zu: %s\n", i, pmc_status_name(rd->status));
		assert_int_equal(rd->status, PMC_STATUS_COUNTED);
		assert_true(rd->scaled == (double)(30 * fake_pmu_core_rate(&f, 0, 0x3c)));
	}
	/* Each core type's count per operation reaches the result beside the sum. */
	{
		struct pmc_result *res = NULL;
		const struct pmc_metric *m;

		assert_int_equal(pmc_result_new("perf", &res), 0);
		assert_int_equal(pmc_mb_record(&b, &s, ev, res, err, sizeof(err)), 0);
		m = pmc_benchmark_find_metric(&res->benchmarks[0], "cycles/op");
		assert_non_null(m);
		assert_int_equal(m->nparts, 2);
		assert_false(m->restricted);
		assert_string_equal(m->parts[1].id, "cpu_atom");
		assert_true(m->parts[0].values[0] ==
			    (double)(30 * fake_pmu_core_rate(&f, 0, PERF_COUNT_HW_CPU_CYCLES)) /
				50);
		assert_true(m->values[0] == (double)want / 50);
		m = pmc_benchmark_find_metric(&res->benchmarks[0], "cpu_core/cycles//op");
		assert_non_null(m);
		assert_true(m->restricted);
		assert_int_equal(
		    pmc_benchmark_find_metric(&res->benchmarks[0], "task-clock/op")->nparts, 0);
		pmc_result_free(res);
	}
	/* The same from a forked child, through the pipe. */
	{
		struct pmc_mb_samples fs;

		reset();
		fake_pmu_init(&f, &cfg);
		f.sys.sysfs_root = root;
		pmu = &f;
		migrate = true;
		assert_int_equal(pmc_mb_measure_forked(&b, &o, &fs, err, sizeof(err)), 0);
		assert_non_null(fs.parts);
		assert_int_equal(fs.n, s.n);
		for (size_t i = 0; i < fs.n * fs.nev; i++) {
			assert_int_equal(fs.parts[i].n, s.parts[i].n);
			for (size_t k = 0; k < fs.parts[i].n; k++)
				assert_int_equal(fs.parts[i].rd[k].value, s.parts[i].rd[k].value);
		}
		assert_int_equal(fs.parts[0].n, 2);
		pmc_mb_samples_free(&fs);
	}
	pmc_mb_samples_free(&s);
	fake_pmu_sysfs_remove(root);
	pmc_event_list_free(ev);
}

/* A hybrid CPU with rdpmc allowed: a benchmark program reads the groups of the core type
 * it is on through their pages and the other type's (index 0 there) with read(), so its
 * read counts, which the result's counter-read comes from, are not all zero, and every
 * batch's counts are those of --no-rdpmc. */
static void hybrid_batch_edges_self_read(void **state)
{
	static const struct fake_pmu_config cfg = {
	    .counters = 8,
	    .privileged = true,
	    .fixed_counters = true,
	    .rdpmc = 1,
	    .cores = {{"cpu_core", PERF_TYPE_RAW, 0x3, 8}, {"cpu_atom", 10, 0xc, 6}},
	    .ncores = 2,
	};
	struct fake_pmu f;
	struct pmc_event_list *ev = NULL;
	struct pmc_mb_bench b = bench_of("body", body);
	struct pmc_mb_opts o = {
	    .samples = 3, .iters = 50, .clock = fake_clock, .sys = &f.sys, .no_overhead = true};
	struct pmc_mb_samples s, t;
	char err[256] = "", root[PATH_MAX];

	(void)state;
	reset();
	fake_pmu_init(&f, &cfg);
	assert_int_equal(fake_pmu_sysfs(&cfg, root), 0);
	f.sys.sysfs_root = root;
	{
		PMC_OPTS(pmc_event_list_opts, eo, .sysfs_root = root);

		assert_int_equal(
		    pmc_event_list_parse("{cycles,instructions}", &eo, &ev, err, sizeof(err)), 0);
	}
	o.events = ev;
	pmu = &f;
	migrate = true;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	/* 3 batches, 2 edges each, a group per core type at each edge. */
	assert_int_equal(s.reads_self + s.reads_sys, 3 * 2 * 2);
	assert_true(s.reads_self >= 3);
	assert_true(s.reads_sys >= 3);
	assert_int_equal(f.rdpmc_faults, 0);
	assert_int_equal(f.rdpmc_stale, 0);

	reset();
	fake_pmu_init(&f, &cfg);
	f.sys.sysfs_root = root;
	pmu = &f;
	migrate = true;
	o.no_self_read = true;
	assert_int_equal(pmc_mb_measure(&b, &o, &t, err, sizeof(err)), 0);
	assert_int_equal(t.reads_self, 0);
	assert_int_equal(f.rdpmcs, 0);
	assert_int_equal(s.n * s.nev, t.n * t.nev);
	for (size_t i = 0; i < s.n * s.nev; i++) {
		assert_int_equal(s.readings[i].status, t.readings[i].status);
		assert_int_equal(s.readings[i].value, t.readings[i].value);
		assert_int_equal(s.readings[i].enabled, t.readings[i].enabled);
		assert_int_equal(s.readings[i].running, t.readings[i].running);
	}
	assert_int_equal(s.readings[0].value,
			 30 * fake_pmu_core_rate(&f, 0, PERF_COUNT_HW_CPU_CYCLES) +
			     20 * fake_pmu_core_rate(&f, 1, PERF_COUNT_HW_CPU_CYCLES));
	pmc_mb_samples_free(&s);
	pmc_mb_samples_free(&t);
	fake_pmu_sysfs_remove(root);
	pmc_event_list_free(ev);
}

/* On a hybrid CPU: a quantum timed on a P-core, then paused, a quantum on an E-core and
 * back. A pause reads the P-cores' group through its page and the E-cores' (off its
 * counters) with read(); the E-cores' group is read through its page at no edge. The
 * counts are those of pausing by ioctl(), and only the timed P-core quanta's. */
static void pausing_migrating(struct pmc_state *s)
{
	while (pmc_loop(s)) {
		fake_pmu_tick_on(pmu, 0, 1);
		pmc_pause(s);
		fake_pmu_tick_on(pmu, 2, 1);
		fake_pmu_run_on(pmu, 0);
		pmc_resume(s);
	}
}

static void hybrid_pauses_by_reading(void **state)
{
	static const struct fake_pmu_config cfg = {
	    .counters = 8,
	    .privileged = true,
	    .rdpmc = 1,
	    .cores = {{"cpu_core", PERF_TYPE_RAW, 0x3, 8}, {"cpu_atom", 10, 0xc, 6}},
	    .ncores = 2,
	};
	struct fake_pmu f;
	struct pmc_event_list *ev = NULL;
	struct pmc_mb_bench b = bench_of("paused", pausing_migrating);
	struct pmc_mb_opts o = {.samples = 3,
				.iters = 20,
				.warmup = 0,
				.clock = fake_clock,
				.sys = &f.sys,
				.no_overhead = true};
	struct pmc_mb_samples s[2];
	unsigned ioctls[2];
	char err[256] = "", root[PATH_MAX];
	/* 3 samples of 20 pairs, and the pause loop: one warm-up and 3 batches of 20. */
	unsigned pairs = 3 * 20 + 4 * 20;

	(void)state;
	for (int k = 0; k < 2; k++) {
		reset();
		fake_pmu_init(&f, &cfg);
		if (k == 0) {
			PMC_OPTS(pmc_event_list_opts, eo, .sysfs_root = root);

			assert_int_equal(fake_pmu_sysfs(&cfg, root), 0);
			assert_int_equal(pmc_event_list_parse("{cycles,instructions}", &eo, &ev,
							      err, sizeof(err)),
					 0);
		}
		f.sys.sysfs_root = root;
		o.events = ev;
		o.no_self_read = k == 1;
		pmu = &f;
		assert_int_equal(pmc_mb_measure(&b, &o, &s[k], err, sizeof(err)), 0);
		ioctls[k] = f.ioctls;
		assert_int_equal(f.rdpmc_faults, 0);
		assert_int_equal(f.rdpmc_stale, 0);
	}
	/* By reading: two reads a pair, one per core type, the E-cores' with read(). */
	assert_int_equal(ioctls[1] - ioctls[0], 2 * 2 * pairs);
	assert_true(s[0].reads_sys >= 2 * pairs);
	assert_true(s[0].reads_self >= 2 * pairs);
	for (size_t i = 0; i < s[0].n * s[0].nev; i++) {
		assert_int_equal(s[0].readings[i].status, s[1].readings[i].status);
		assert_int_equal(s[0].readings[i].value, s[1].readings[i].value);
		assert_int_equal(s[0].readings[i].enabled, s[1].readings[i].enabled);
		assert_int_equal(s[0].readings[i].running, s[1].readings[i].running);
	}
	assert_int_equal(s[0].readings[0].value,
			 20 * fake_pmu_core_rate(&f, 0, PERF_COUNT_HW_CPU_CYCLES));
	pmc_mb_samples_free(&s[0]);
	pmc_mb_samples_free(&s[1]);
	fake_pmu_sysfs_remove(root);
	pmc_event_list_free(ev);
}

/* RAPL (docs/events.md, "Uncore and RAPL events"): power/energy-pkg/ is opened on CPU 0
 * with pid -1, and a batch's energy per operation is the difference of the raw counts
 * times sysfs's scale, in joules, with the note that it counts the whole package. */
static void system_wide_energy_per_op(void **state)
{
	static const struct fake_pmu_config cfg = {
	    .counters = 8, .privileged = true, .power_type = 21};
	struct fake_pmu f;
	struct pmc_event_list *ev = NULL;
	struct pmc_mb_bench b = bench_of("body", body);
	struct pmc_mb_opts o = {
	    .samples = 3, .iters = 50, .clock = fake_clock, .sys = &f.sys, .no_overhead = true};
	struct pmc_mb_samples s;
	struct pmc_result *res = NULL;
	const struct pmc_metric *m;
	char err[256] = "", root[PATH_MAX];
	uint64_t want;

	(void)state;
	reset();
	fake_pmu_init(&f, &cfg);
	assert_int_equal(fake_pmu_sysfs(&cfg, root), 0);
	f.sys.sysfs_root = root;
	{
		PMC_OPTS(pmc_event_list_opts, eo, .sysfs_root = root);

		assert_int_equal(pmc_event_list_parse("task-clock,power/energy-pkg/", &eo, &ev, err,
						      sizeof(err)),
				 0);
	}
	o.events = ev;
	pmu = &f;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	for (size_t i = 0; i < f.nlog; i++)
		if (f.log[i].attr.type == 21)
			assert_int_equal(f.log[i].pid, -1);
	want = 50 * fake_pmu_rate(21, 0x02);
	for (size_t i = 0; i < s.n; i++) {
		const struct pmc_reading *rd = &s.readings[i * s.nev + 1];

		assert_int_equal(rd->status, PMC_STATUS_COUNTED);
		assert_int_equal(rd->value, want);
		assert_true(rd->scaled == (double)want * 0x1p-32);
	}
	assert_int_equal(pmc_result_new("perf", &res), 0);
	assert_int_equal(pmc_mb_record(&b, &s, ev, res, err, sizeof(err)), 0);
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "power/energy-pkg//op");
	assert_non_null(m);
	assert_string_equal(m->unit, "Joules");
	assert_true(m->values[0] == (double)want * 0x1p-32 / 50);
	assert_non_null(m->note);
	assert_non_null(strstr(m->note, "while the benchmark runs"));
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "task-clock/op");
	assert_string_equal(m->unit, "ns");
	assert_null(m->note);
	pmc_result_free(res);
	pmc_mb_samples_free(&s);
	fake_pmu_sysfs_remove(root);
	pmc_event_list_free(ev);
}

static void missing_counters_are_reported_as_such(void **state)
{
	static const struct fake_pmu_config cfg = {
	    .counters = 8, .privileged = true, .no_pmu = true};
	struct fake_pmu f;
	struct pmc_event_list *ev = t_events("{cycles,instructions}");
	struct pmc_mb_bench b = bench_of("body", body);
	struct pmc_mb_opts o = {
	    .samples = 2, .iters = 10, .clock = fake_clock, .events = ev, .sys = &f.sys};
	struct pmc_mb_samples s;
	struct pmc_result *res = NULL;
	const struct pmc_metric *m;
	char err[256] = "";

	reset();
	fake_pmu_init(&f, &cfg);
	pmu = &f;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(pmc_result_new("perf", &res), 0);
	assert_int_equal(pmc_mb_record(&b, &s, ev, res, err, sizeof(err)), 0);
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "cycles/op");
	assert_non_null(m);
	for (size_t i = 0; i < m->n; i++) {
		assert_int_equal(m->status[i], PMC_STATUS_UNSUPPORTED);
		assert_true(isnan(m->values[i]));
	}
	assert_int_equal(m->error, ENOENT);
	assert_null(pmc_benchmark_find_metric(&res->benchmarks[0], "ipc"));
	pmc_mb_samples_free(&s);
	pmc_result_free(res);
	pmc_event_list_free(ev);
}

static void crasher(struct pmc_state *s)
{
	while (pmc_loop(s))
		;
	abort();
}

static void exiter(struct pmc_state *s)
{
	exit(3);
}

static void a_child_contains_crashes_and_exits(void **state)
{
	struct pmc_mb_bench b = bench_of("body", body);
	struct pmc_mb_opts o = {.samples = 3, .iters = 100, .clock = fake_clock, .empty = empty};
	struct pmc_mb_samples s;
	char err[256] = "";

	reset();
	assert_int_equal(pmc_mb_measure_forked(&b, &o, &s, err, sizeof(err)), 0);
	/* The child's samples, through the pipe, as in-process. */
	assert_int_equal(s.iters, 100);
	assert_int_equal(s.n, 3);
	assert_true(s.ns[2] == 703);
	assert_true(s.over_ns == 103);
	/* ... measured in the child: this process ran nothing. */
	assert_int_equal(fn_calls, 0);
	pmc_mb_samples_free(&s);

	b = bench_of("crash", crasher);
	assert_int_equal(pmc_mb_measure_forked(&b, &o, &s, err, sizeof(err)), -ECHILD);
	assert_contains(err, "'crash' crashed: killed by signal 6");
	b = bench_of("quit", exiter);
	assert_int_equal(pmc_mb_measure_forked(&b, &o, &s, err, sizeof(err)), -ECHILD);
	assert_contains(err, "'quit' exited with status 3");
	b = bench_of("lazy", no_loop);
	assert_int_equal(pmc_mb_measure_forked(&b, &o, &s, err, sizeof(err)), -ECHILD);
	assert_contains(err, "'lazy' returned without running its loop");
}

/* A hung benchmark is stopped even when no timeout was given: the default is far above
 * what a process takes, and grows with what it is asked to measure. */
static void default_timeouts(void **state)
{
	assert_true(pmc_mb_timeout(0, 0) == PMC_MB_TIMEOUT_DEFAULT);
	assert_true(pmc_mb_timeout(0, 100) == PMC_MB_TIMEOUT_DEFAULT + 1000);
	assert_true(pmc_mb_timeout(5, 100) == 5);
	assert_true(pmc_mb_timeout(-1, 100) == 0); /* none */
}

/* A batch's target time, which calibration aims at and the forked process's default
 * timeout grows with: the benchmark's own min_time before the options', 0.01 s for none. */
static void min_time_of_a_benchmark(void **state)
{
	struct pmc_mb_bench b = bench_of("b", NULL);
	struct pmc_mb_opts o = {.min_time_s = 0.2};

	assert_true(pmc_mb_min_time(&b, NULL) == 0.01);
	assert_true(pmc_mb_min_time(&b, &pmc_mb_opts_defaults) == 0.01);
	assert_true(pmc_mb_min_time(&b, &o) == 0.2);
	b.def.min_time = 2.5;
	assert_true(pmc_mb_min_time(&b, &o) == 2.5);
	assert_true(pmc_mb_min_time(&b, NULL) == 2.5);
	b.def.min_time = 0;
	o.min_time_s = -1; /* kept, for pmc_mb_measure to refuse */
	assert_true(pmc_mb_min_time(&b, &o) == -1);
}

static void sleeper(struct pmc_state *s)
{
	(void)s;
	for (;;)
		pause();
}

/* A child that does not hand its samples over within the timeout is killed and named;
 * one that does is unaffected by it. No assertion on time beyond "it ended". */
static void a_child_that_outlives_its_timeout_is_killed(void **state)
{
	struct pmc_mb_bench b = bench_of("sleeper", sleeper);
	struct pmc_mb_opts o = {
	    .samples = 3, .iters = 100, .clock = fake_clock, .empty = empty, .timeout_s = 0.2};
	struct pmc_mb_samples s = {0};
	char err[256] = "";

	reset();
	assert_int_equal(pmc_mb_measure_forked(&b, &o, &s, err, sizeof(err)), -ETIMEDOUT);
	assert_string_equal(err, "'sleeper' timed out after 0.2 s");
	assert_null(s.ns);

	o.timeout_s = 60;
	b = bench_of("body", body);
	assert_int_equal(pmc_mb_measure_forked(&b, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 3);
	assert_true(s.ns[2] == 703);
	pmc_mb_samples_free(&s);
	/* A crash within the limit is still a crash. */
	b = bench_of("crash", crasher);
	assert_int_equal(pmc_mb_measure_forked(&b, &o, &s, err, sizeof(err)), -ECHILD);
	assert_contains(err, "'crash' crashed: killed by signal 6");
}

/* A benchmark program reads its counters at the batch edges through their mmap pages
 * when the kernel allows rdpmc: after the first edge (before the emulated PMU has put
 * the group on counters at its first quantum) not one read() is made, and the counts
 * are those read() gives. With no_self_read every edge is a read(), the same counts. */
static void batch_edges_read_without_syscalls(void **state)
{
	static const struct fake_pmu_config cfg = {
	    .counters = 4, .fixed_counters = true, .privileged = true, .rdpmc = 1};
	struct fake_pmu f;
	struct pmc_event_list *ev = t_events("{cycles,instructions},{branches,branch-misses}");
	struct pmc_mb_bench b = bench_of("body", body);
	struct pmc_mb_opts o = {.samples = 3,
				.iters = 10,
				.warmup = 0,
				.clock = fake_clock,
				.events = ev,
				.sys = &f.sys,
				.no_overhead = true};
	struct pmc_mb_samples s = {0}, t = {0};
	char err[256] = "";

	reset();
	fake_pmu_init(&f, &cfg);
	pmu = &f;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	/* 3 batches, 2 edges each, 2 groups a read. */
	assert_int_equal(s.reads_self + s.reads_sys, 3 * 2 * 2);
	assert_int_equal(s.reads_sys, 2);
	assert_int_equal(f.reads, 2);
	assert_int_equal(f.rdpmc_faults, 0);
	assert_int_equal(f.rdpmc_stale, 0);
	/* The counts come back from a benchmark's child with its samples. */
	reset();
	fake_pmu_init(&f, &cfg);
	pmu = &f;
	assert_int_equal(pmc_mb_measure_forked(&b, &o, &t, err, sizeof(err)), 0);
	assert_int_equal(t.reads_self, s.reads_self);
	assert_int_equal(t.reads_sys, s.reads_sys);
	pmc_mb_samples_free(&t);

	reset();
	fake_pmu_init(&f, &cfg);
	pmu = &f;
	o.no_self_read = true;
	assert_int_equal(pmc_mb_measure(&b, &o, &t, err, sizeof(err)), 0);
	assert_int_equal(t.reads_self, 0);
	assert_int_equal(f.reads, 3 * 2 * 2);
	assert_int_equal(f.rdpmcs, 0);
	for (size_t i = 0; i < s.n * s.nev; i++) {
		assert_int_equal(s.readings[i].status, t.readings[i].status);
		assert_int_equal(s.readings[i].value, t.readings[i].value);
		assert_int_equal(s.readings[i].enabled, t.readings[i].enabled);
		assert_int_equal(s.readings[i].running, t.readings[i].running);
	}
	assert_int_equal(s.readings[0].value,
			 10 * fake_pmu_rate(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES));
	pmc_mb_samples_free(&s);
	pmc_mb_samples_free(&t);
	pmc_event_list_free(ev);
}

/* A backend of the test's own: each event counts 5 per body iteration so far, and counts
 * its reads and pauses. Its table has only the operations a benchmark program uses. */
struct pmc_backend_thread {
	size_t n, reads, pauses;
};

static int tb_open(const struct pmc_backend_thread_opts *o, struct pmc_backend_thread **ret)
{
	struct pmc_backend_thread *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->n = o->events->n;
	*ret = t;
	return 0;
}

static int tb_read(struct pmc_backend_thread *t, struct pmc_reading *ret,
		   struct pmc_reading *ret_parts)
{
	t->reads++;
	for (size_t i = 0; i < t->n; i++)
		ret[i] = (struct pmc_reading){.status = PMC_STATUS_COUNTED,
					      .value = 5 * body_iters,
					      .enabled = 5 * body_iters,
					      .running = 5 * body_iters,
					      .scaled = (double)(5 * body_iters)};
	return 0;
}

static void tb_parts(const struct pmc_backend_thread *t, size_t i, struct pmc_reading_parts *ret)
{
	*ret = (struct pmc_reading_parts){0};
}

static int tb_pause(struct pmc_backend_thread *t, bool pause)
{
	t->pauses += pause;
	return 0;
}

static void tb_read_counts(const struct pmc_backend_thread *t, uint64_t *ret_self,
			   uint64_t *ret_sys)
{
	*ret_self = t->reads;
	*ret_sys = t->pauses;
}

static void tb_close(struct pmc_backend_thread *t)
{
	free(t);
}

static const struct pmc_backend_ops test_backend = {
    .name = "test",
    .thread_open = tb_open,
    .thread_read = tb_read,
    .thread_parts = tb_parts,
    .thread_pause = tb_pause,
    .thread_read_counts = tb_read_counts,
    .thread_close = tb_close,
};

/* The batches count through the backend the options name (counters/backend.h), so a new
 * backend reaches benchmark programs: every batch's difference of two reads is its own
 * 10 iterations' 50, and the backend saw every edge's read. The valgrind backend counts
 * no thread: the measurement fails, naming the benchmark. */
static void batches_count_through_the_backend(void **state)
{
	struct pmc_mb_bench b = bench_of("body", body);
	struct pmc_event_list *ev = NULL;
	struct pmc_mb_opts o = {.samples = 3,
				.iters = 10,
				.clock = fake_clock,
				.no_overhead = true,
				.backend = &test_backend};
	struct pmc_mb_samples s;
	char err[256] = "";

	reset();
	assert_int_equal(pmc_event_list_parse("cycles,task-clock", NULL, &ev, err, sizeof(err)), 0);
	o.events = ev;
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.nev, 2);
	for (size_t i = 0; i < s.n * s.nev; i++) {
		assert_int_equal(s.readings[i].status, PMC_STATUS_COUNTED);
		assert_int_equal(s.readings[i].value, 50);
		assert_true(s.readings[i].scaled == 50);
	}
	assert_null(s.parts);
	assert_int_equal(s.reads_self, 2 * 3);
	assert_int_equal(s.reads_sys, 0);
	pmc_mb_samples_free(&s);

	o.backend = pmc_backend_get(PMC_BACKEND_VALGRIND);
	assert_int_equal(pmc_mb_measure(&b, &o, &s, err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "'body': cannot open the counters"));
	pmc_event_list_free(ev);
}

/* A backend of the test's own with an exact mode (marks): no wrapper, one metric, and
 * dumps whose instructions are 1000 + 10 per iteration for the body's loop and 400 + 3
 * for the empty one, at the n the command line asks for; and the child's marks, counted. */
struct xb_run {
	char *const *argv;
	uint64_t n;
};
static size_t xb_runs, xb_checks, xb_zeros, xb_toggles, xb_dumps;
static uint64_t xb_ns[2];
static bool xb_marked;

static int xb_mark_check(char *err, size_t errlen)
{
	xb_checks++;
	return 0;
}

static int xb_session_new(const struct pmc_backend_opts *o, struct pmc_backend_session **ret)
{
	xb_marked = o->marked;
	*ret = (struct pmc_backend_session *)&xb_marked; /* nothing of its own to keep */
	return 0;
}

static void xb_session_free(struct pmc_backend_session *s)
{
}

static size_t xb_nmetrics(const struct pmc_backend_session *s)
{
	return 1;
}

static const char *xb_metric_id(const struct pmc_backend_session *s, size_t i)
{
	return "instructions";
}

static int xb_run_new(struct pmc_backend_session *s, bool measured, char *const *argv,
		      const char *display, struct pmc_backend_run **ret, char *err, size_t errlen)
{
	struct xb_run *run = calloc(1, sizeof(*run));
	size_t n = 0;

	if (!run)
		return -ENOMEM;
	while (argv[n])
		n++;
	run->argv = argv;
	run->n = strtoull(argv[n - 1], NULL, 10); /* --valgrind-iters N, last */
	if (xb_runs < 2)
		xb_ns[xb_runs] = run->n;
	xb_runs++;
	*ret = (struct pmc_backend_run *)run;
	return 0;
}

static char *const *xb_run_argv(const struct pmc_backend_run *run)
{
	return ((const struct xb_run *)run)->argv;
}

static int xb_run_collect(struct pmc_backend_run *run, char *why, size_t whylen)
{
	return 0;
}

static int xb_run_failure(const struct pmc_backend_run *run, char *buf, size_t len)
{
	return -ENOENT;
}

static void xb_run_free(struct pmc_backend_run *run)
{
	free(run);
}

static size_t xb_run_dumps(const struct pmc_backend_run *run)
{
	return 4;
}

static int xb_run_dump_reading(const struct pmc_backend_run *run, size_t k, size_t i,
			       struct pmc_reading *ret, char *why, size_t whylen)
{
	uint64_t n = ((const struct xb_run *)run)->n * (k % 2 ? 2 : 1);

	*ret = exact_reading(k < 2 ? 1000 + 10 * n : 400 + 3 * n);
	return 0;
}

static int xb_run_dump_file(const struct pmc_backend_run *run, size_t k, char **ret_path)
{
	return -ENOENT;
}

static void xb_mark_toggle(void)
{
	xb_toggles++;
}

static void xb_mark_zero(void)
{
	xb_zeros++;
}

static void xb_mark_dump(const char *what)
{
	xb_dumps++;
}

static const struct pmc_backend_ops exact_backend = {
    .name = "exact-test",
    .marks = true,
    .session_new = xb_session_new,
    .session_free = xb_session_free,
    .nmetrics = xb_nmetrics,
    .metric_id = xb_metric_id,
    .run_new = xb_run_new,
    .run_argv = xb_run_argv,
    .run_collect = xb_run_collect,
    .run_failure = xb_run_failure,
    .run_free = xb_run_free,
    .mark_check = xb_mark_check,
    .mark_toggle = xb_mark_toggle,
    .mark_zero = xb_mark_zero,
    .mark_dump = xb_mark_dump,
    .run_dumps = xb_run_dumps,
    .run_dump_reading = xb_run_dump_reading,
    .run_dump_file = xb_run_dump_file,
};

/* The exact mode goes through the backend the options name (counters/backend.h: marks),
 * so a new backend reaches it: the test's runs a shell as "this program", which writes
 * the child's report ("ok N", N the iterations it was asked for), and the dumps' counts
 * become the figures. The probe at n = 1 finds 10 instructions an iteration, which makes
 * n 1024; the body alone is 10 - 3 = 7 an operation. In the child, the marks go through
 * the same table: a zero and a dump around each of the four counted loops, a toggle at
 * each of their edges. A backend without an exact mode says so. */
static void the_exact_mode_goes_through_the_backend(void **state)
{
	char *const self[] = {(char *)"/bin/sh", (char *)"-c",
			      (char *)"printf 'ok %s\\n' \"$8\" > \"$6\"", (char *)"sh", NULL};
	struct pmc_mb_exact_opts o = {.backend = &exact_backend, .self_argv = self};
	struct pmc_mb_bench b = bench_of("body", body);
	struct pmc_mb_exact x = {0};
	struct pmc_result *res = NULL;
	const struct pmc_metric *m;
	char err[256] = "", report[] = "/tmp/pmc-test-exact-XXXXXX", line[64] = "";
	uint64_t v = 0;
	FILE *f;
	int fd;

	reset();
	xb_runs = xb_checks = xb_zeros = xb_toggles = xb_dumps = 0;
	assert_int_equal(pmc_mb_measure_exact(&b, &o, &x, err, sizeof(err)), 0);
	assert_true(xb_marked);
	assert_int_equal(xb_checks, 2);
	assert_int_equal(xb_runs, 2);
	assert_int_equal(xb_ns[0], 1);
	assert_int_equal(xb_ns[1], 1024);
	assert_int_equal(x.iters, 1024);
	assert_int_equal(x.nmetrics, 1);
	assert_string_equal(x.ids[0], "instructions");
	assert_int_equal(pmc_mb_exact_count(&x, 0, &v, NULL, err, sizeof(err)), 0);
	assert_int_equal(v, 7 * 1024);
	assert_int_equal(pmc_result_new("exact-test", &res), 0);
	assert_int_equal(pmc_mb_record_exact(&b, &x, res, err, sizeof(err)), 0);
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "instructions/op");
	assert_non_null(m);
	assert_true(m->values[0] == 7.0);
	assert_int_equal(m->status[0], PMC_STATUS_EXACT);
	pmc_result_free(res);
	pmc_mb_exact_free(&x);

	fd = mkstemp(report);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(pmc_mb_exact_child(&exact_backend, &b, 4, report), 0);
	assert_int_equal(xb_zeros, 4);
	assert_int_equal(xb_dumps, 4);
	assert_int_equal(xb_toggles, 8);
	f = fopen(report, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	unlink(report);
	assert_string_equal(line, "ok 4\n");

	o.backend = pmc_backend_get(PMC_BACKEND_PERF);
	assert_int_equal(pmc_mb_measure_exact(&b, &o, &x, err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "no exact mode"));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(args_lists_and_ranges),
	    cmocka_unit_test(expansion_is_the_cartesian_product),
	    cmocka_unit_test(expansion_of_one_name_reads_only_its_definition),
	    cmocka_unit_test(negative_filters_and_disabled_benchmarks),
	    cmocka_unit_test(builds_are_labelled_and_grouped),
	    cmocka_unit_test(another_builds_names_become_benchmarks),
	    cmocka_unit_test(another_program_is_asked_for_its_names),
	    cmocka_unit_test(benchmarks_come_in_source_order),
	    cmocka_unit_test(tuples_and_names),
	    cmocka_unit_test(bad_definitions_are_skipped),
	    cmocka_unit_test(a_childs_output_is_delivered),
	    cmocka_unit_test(user_data_starts_empty_every_batch),
	    cmocka_unit_test(untimed_work_and_fixtures),
	    cmocka_unit_test(pauses_stop_the_counters),
	    cmocka_unit_test(inverted_and_1024_counters),
	    cmocka_unit_test(a_body_like_the_empty_loop_is_flagged),
	    cmocka_unit_test(user_counters_become_metrics),
	    cmocka_unit_test(complexity_fits),
	    cmocka_unit_test(multithreaded_benchmarks),
	    cmocka_unit_test(calibration_reaches_the_target),
	    cmocka_unit_test(overhead_is_reported_not_subtracted),
	    cmocka_unit_test(the_definitions_empty_loop_is_measured),
	    cmocka_unit_test(the_empty_loop_is_of_the_bodys_form),
	    cmocka_unit_test(samples_of_processes_merge),
	    cmocka_unit_test(calibration_grows_on_cpu_time),
	    cmocka_unit_test(calibration_of_a_waiting_body_grows_on_the_wall_clock),
	    cmocka_unit_test(a_definitions_time_settings_win),
	    cmocka_unit_test(manual_time_is_the_benchmarks_own),
	    cmocka_unit_test(a_definitions_time_unit),
	    cmocka_unit_test(process_cpu_time_counts_every_thread),
	    cmocka_unit_test(exact_counts_are_the_body_alone),
	    cmocka_unit_test(loop_misuse_and_skip),
	    cmocka_unit_test(the_local_loop_runs_the_batch),
	    cmocka_unit_test(skipped_benchmarks_are_recorded),
	    cmocka_unit_test(the_loop_runs_the_batch),
	    cmocka_unit_test(counters_per_operation),
	    cmocka_unit_test(hybrid_batches_sum_core_types),
	    cmocka_unit_test(batches_count_through_the_backend),
	    cmocka_unit_test(the_exact_mode_goes_through_the_backend),
	    cmocka_unit_test(hybrid_batch_edges_self_read),
	    cmocka_unit_test(hybrid_pauses_by_reading),
	    cmocka_unit_test(system_wide_energy_per_op),
	    cmocka_unit_test(missing_counters_are_reported_as_such),
	    cmocka_unit_test(a_child_contains_crashes_and_exits),
	    cmocka_unit_test(a_child_that_outlives_its_timeout_is_killed),
	    cmocka_unit_test(default_timeouts),
	    cmocka_unit_test(min_time_of_a_benchmark),
	    cmocka_unit_test(batch_edges_read_without_syscalls),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

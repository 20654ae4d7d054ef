/* Allocations per operation (harness/5-microbench/alloc.c, docs/microbench.md,
 * "Allocations") with a memory manager of the test's own, registered as a user with their
 * own allocator would (pmc_register_memory_manager): its counts in the timed region only
 * (not setup's, not a pause's), per operation, on every thread, through a forked child's
 * pipe, with the note naming the source; bytes not measured when it counts none; nothing
 * without one. A multithreaded benchmark's uprobe counts: used through tracefs probes,
 * not measured through the uprobe PMU. The uprobes and pmcbench-alloc against the kernel
 * are tests/e2e/t_allocs.sh's. */
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "core/metrics.h"
#include "core/result.h"
#include "counters/perf/events.h"
#include "microbench/microbench.h"

/* The manager's totals, per thread as pmcbench-alloc keeps them. */
static __thread uint64_t fake_allocs, fake_bytes;

static void read_counts(uint64_t *ret_allocs, uint64_t *ret_bytes)
{
	*ret_allocs = fake_allocs;
	*ret_bytes = fake_bytes;
}

static void read_calls_only(uint64_t *ret_allocs, uint64_t *ret_bytes)
{
	(void)ret_bytes;
	*ret_allocs = fake_allocs;
}

/* Each operation "allocates" 2 blocks of 12 bytes; setup 100 blocks and every pause
 * 1000, which no operation may be charged with. */
static void setup(struct pmc_state *s)
{
	(void)s;
	fake_allocs += 100;
	fake_bytes += 100 * 64;
}

static void body(struct pmc_state *s)
{
	while (pmc_loop(s)) {
		pmc_pause(s);
		fake_allocs += 1000;
		fake_bytes += 1000 * 8;
		pmc_resume(s);
		fake_allocs += 2;
		fake_bytes += 24;
	}
}

static const struct pmc_metric *measured(const struct pmc_mb_bench *b, bool forked,
					 struct pmc_result **res)
{
	struct pmc_mb_opts o = {.samples = 3, .iters = 50, .no_overhead = true};
	struct pmc_mb_samples s;
	char err[256] = "";

	if (forked)
		assert_int_equal(pmc_mb_measure_forked(b, &o, &s, err, sizeof(err)), 0);
	else
		assert_int_equal(pmc_mb_measure(b, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(pmc_result_new("perf", res), 0);
	assert_int_equal(pmc_mb_record(b, &s, NULL, *res, err, sizeof(err)), 0);
	pmc_mb_samples_free(&s);
	return pmc_benchmark_find_metric(&(*res)->benchmarks[0], "allocs/op");
}

static void assert_all(const struct pmc_metric *m, double want)
{
	assert_non_null(m);
	assert_int_equal(m->n, 3);
	for (size_t i = 0; i < m->n; i++)
		assert_true(m->values[i] == want);
}

static void counts_of_the_timed_region_per_operation(void **state)
{
	struct pmc_mb_bench b = {.name = (char *)"a"};
	struct pmc_result *res = NULL;
	const struct pmc_metric *m;

	(void)state;
	b.def =
	    (struct pmc_bench_def){.sz = sizeof(b.def), .name = "a", .fn = body, .setup = setup};
	pmc_register_memory_manager(read_counts);
	for (int forked = 0; forked < 2; forked++) {
		/* In this process, and in a child whose counters come through the pipe. */
		m = measured(&b, forked, &res);
		assert_all(m, 2);
		assert_string_equal(m->unit, "count");
		assert_int_equal(m->better, PMC_LOWER_IS_BETTER);
		assert_string_equal(m->note, PMC_MB_ALLOC_NOTE);
		m = pmc_benchmark_find_metric(&res->benchmarks[0], "alloc-bytes/op");
		assert_all(m, 24);
		assert_string_equal(m->unit, "bytes");
		assert_string_equal(m->note, PMC_MB_ALLOC_NOTE);
		pmc_result_free(res);
	}

	/* On 3 threads at once, each with its own totals: still 2 per operation. */
	b.threads = 3;
	assert_all(measured(&b, false, &res), 2);
	assert_all(pmc_benchmark_find_metric(&res->benchmarks[0], "alloc-bytes/op"), 24);
	pmc_result_free(res);
	pmc_register_memory_manager(NULL);
}

static void bytes_not_counted_are_not_measured(void **state)
{
	struct pmc_mb_bench b = {.name = (char *)"a"};
	struct pmc_result *res = NULL;
	const struct pmc_metric *m;

	(void)state;
	b.def = (struct pmc_bench_def){.sz = sizeof(b.def), .name = "a", .fn = body};
	pmc_register_memory_manager(read_calls_only);
	assert_all(measured(&b, false, &res), 2);
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "alloc-bytes/op");
	assert_non_null(m);
	assert_int_equal(m->n, 3);
	for (size_t i = 0; i < m->n; i++)
		assert_true(isnan(m->values[i]));
	assert_string_equal(m->note, PMC_MB_ALLOC_NO_BYTES);
	pmc_result_free(res);

	/* No manager: neither metric, rather than a 0 nobody measured. */
	pmc_register_memory_manager(NULL);
	assert_null(measured(&b, false, &res));
	assert_null(pmc_benchmark_find_metric(&res->benchmarks[0], "alloc-bytes/op"));
	pmc_result_free(res);
}

/* 3 samples of --allocs' uprobes (malloc 6, calloc 2, realloc 0 per batch of 2 iterations)
 * on 2 threads, recorded for events of the uprobe PMU (type 8) or tracefs probes. */
static struct pmc_result *uprobes_recorded(uint32_t type)
{
	static const char *const names[] = {"uprobe:libc:malloc", "uprobe:libc:calloc",
					    "uprobe:libc:realloc"};
	static const double counts[] = {6, 2, 0};
	struct pmc_event ev[3] = {{.kind = PMC_EV_UPROBE}};
	struct pmc_event_list events = {.events = ev, .n = 3, .ngroups = 3};
	struct pmc_reading rd[3 * 3];
	double ns[3] = {100, 100, 100}, over[3] = {NAN, NAN, NAN};
	struct pmc_mb_samples s = {.iters = 2,
				   .n = 3,
				   .nev = 3,
				   .ns = ns,
				   .readings = rd,
				   .over_ns = NAN,
				   .over_counts = over,
				   .threads = 2};
	struct pmc_mb_bench b = {.name = (char *)"t"};
	struct pmc_result *res = NULL;
	char err[256] = "";

	b.def = (struct pmc_bench_def){.sz = sizeof(b.def), .name = "t", .fn = body};
	for (size_t e = 0; e < 3; e++) {
		ev[e] = (struct pmc_event){.kind = PMC_EV_UPROBE,
					   .type = type,
					   .group = e,
					   .leader = true,
					   .probe_resolved = true};
		snprintf(ev[e].name, sizeof(ev[e].name), "%s", names[e]);
		for (size_t i = 0; i < 3; i++)
			rd[i * 3 + e] = (struct pmc_reading){.status = PMC_STATUS_COUNTED,
							     .value = (uint64_t)counts[e],
							     .enabled = 10,
							     .running = 10,
							     .scaled = counts[e]};
	}
	assert_int_equal(pmc_result_new("perf", &res), 0);
	if (pmc_mb_record(&b, &s, &events, res, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	return res;
}

static void threads_uprobes_counted_through_probes_only(void **state)
{
	struct pmc_result *res = uprobes_recorded(PERF_TYPE_TRACEPOINT);
	const struct pmc_metric *m;

	(void)state;
	/* 8 calls per batch of 2 iterations on each of 2 threads: 2 per operation. */
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "allocs/op");
	assert_all(m, 2);
	assert_string_equal(m->note, PMC_MB_ALLOC_UPROBE_NOTE);
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "uprobe:libc:malloc/op");
	assert_all(m, 1.5);
	assert_null(m->note);
	pmc_result_free(res);

	res = uprobes_recorded(8);
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "allocs/op");
	assert_non_null(m);
	for (size_t i = 0; i < m->n; i++)
		assert_true(isnan(m->values[i]));
	assert_string_equal(m->note, PMC_MB_ALLOC_UPROBE_THREADS);
	m = pmc_benchmark_find_metric(&res->benchmarks[0], "uprobe:libc:malloc/op");
	assert_int_equal(m->n, 3);
	for (size_t i = 0; i < m->n; i++)
		assert_true(isnan(m->values[i]));
	assert_string_equal(m->note, PMC_MB_UPROBE_THREADS);
	pmc_result_free(res);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(counts_of_the_timed_region_per_operation),
	    cmocka_unit_test(bytes_not_counted_are_not_measured),
	    cmocka_unit_test(threads_uprobes_counted_through_probes_only),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The metric registry: every id a result can hold has the unit and direction that
 * comparisons and gates rely on, and the derived metrics of a benchmark are computed from
 * its formulas only where their inputs were measured (docs/metrics.md). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "counters/perf/events.h"
#include "counters/valgrind/valgrind.h"
#include "core/derive.h"
#include "core/metrics.h"
#include "core/result.h"
#include "tests/helpers.h"

struct expect {
	const char *id, *unit;
	enum pmc_better better;
	bool derived;
};

/* What a gate on each metric needs to know: a regression of a count or a time is an
 * increase; of IPC or GHz, a decrease. */
static const struct expect expected[] = {
    {"cycles", "count", PMC_LOWER_IS_BETTER, false},
    {"instructions", "count", PMC_LOWER_IS_BETTER, false},
    {"cache-references", "count", PMC_LOWER_IS_BETTER, false},
    {"cache-misses", "count", PMC_LOWER_IS_BETTER, false},
    {"branches", "count", PMC_LOWER_IS_BETTER, false},
    {"branch-misses", "count", PMC_LOWER_IS_BETTER, false},
    {"bus-cycles", "count", PMC_LOWER_IS_BETTER, false},
    {"stalled-cycles-frontend", "count", PMC_LOWER_IS_BETTER, false},
    {"stalled-cycles-backend", "count", PMC_LOWER_IS_BETTER, false},
    {"ref-cycles", "count", PMC_LOWER_IS_BETTER, false},
    {"L1-dcache-loads", "count", PMC_LOWER_IS_BETTER, false},
    {"L1-dcache-load-misses", "count", PMC_LOWER_IS_BETTER, false},
    {"L1-icache-load-misses", "count", PMC_LOWER_IS_BETTER, false},
    {"LLC-loads", "count", PMC_LOWER_IS_BETTER, false},
    {"LLC-load-misses", "count", PMC_LOWER_IS_BETTER, false},
    {"LLC-store-misses", "count", PMC_LOWER_IS_BETTER, false},
    {"dTLB-load-misses", "count", PMC_LOWER_IS_BETTER, false},
    {"iTLB-load-misses", "count", PMC_LOWER_IS_BETTER, false},
    {"branch-loads", "count", PMC_LOWER_IS_BETTER, false},
    {"branch-load-misses", "count", PMC_LOWER_IS_BETTER, false},
    {"node-prefetch-misses", "count", PMC_LOWER_IS_BETTER, false},
    {"task-clock", "ns", PMC_LOWER_IS_BETTER, false},
    {"cpu-clock", "ns", PMC_LOWER_IS_BETTER, false},
    {"page-faults", "count", PMC_LOWER_IS_BETTER, false},
    {"minor-faults", "count", PMC_LOWER_IS_BETTER, false},
    {"major-faults", "count", PMC_LOWER_IS_BETTER, false},
    {"context-switches", "count", PMC_LOWER_IS_BETTER, false},
    {"cpu-migrations", "count", PMC_LOWER_IS_BETTER, false},
    {"alignment-faults", "count", PMC_LOWER_IS_BETTER, false},
    {"emulation-faults", "count", PMC_LOWER_IS_BETTER, false},
    {"wall-time", "ns", PMC_LOWER_IS_BETTER, false},
    {"user-time", "ns", PMC_LOWER_IS_BETTER, false},
    {"system-time", "ns", PMC_LOWER_IS_BETTER, false},
    {"max-rss", "bytes", PMC_LOWER_IS_BETTER, false},
    {"ipc", "ratio", PMC_HIGHER_IS_BETTER, true},
    {"branch-miss-rate", "percent", PMC_LOWER_IS_BETTER, true},
    {"cache-miss-rate", "percent", PMC_LOWER_IS_BETTER, true},
    {"cpus-utilized", "CPUs", PMC_LOWER_IS_BETTER, true},
    {"ghz", "GHz", PMC_HIGHER_IS_BETTER, true},
    {"data-reads", "count", PMC_LOWER_IS_BETTER, false},
    {"data-writes", "count", PMC_LOWER_IS_BETTER, false},
    {"I1-misses", "count", PMC_LOWER_IS_BETTER, false},
    {"LLi-misses", "count", PMC_LOWER_IS_BETTER, false},
    {"D1-read-misses", "count", PMC_LOWER_IS_BETTER, false},
    {"LLd-read-misses", "count", PMC_LOWER_IS_BETTER, false},
    {"D1-write-misses", "count", PMC_LOWER_IS_BETTER, false},
    {"LLd-write-misses", "count", PMC_LOWER_IS_BETTER, false},
    {"branch-cond", "count", PMC_LOWER_IS_BETTER, false},
    {"branch-cond-misses", "count", PMC_LOWER_IS_BETTER, false},
    {"branch-indirect", "count", PMC_LOWER_IS_BETTER, false},
    {"branch-indirect-misses", "count", PMC_LOWER_IS_BETTER, false},
    {"est-cycles", "count", PMC_LOWER_IS_BETTER, true},
};

static void check(const char *query, const struct expect *e)
{
	struct pmc_metric_info info = pmc_metric_lookup(query);

	print_message("lookup(\"%s\")\n", query);
	assert_non_null(info.id);
	assert_string_equal(info.id, e->id);
	assert_string_equal(info.unit, e->unit);
	assert_int_equal(info.better, e->better);
	assert_int_equal(info.derived, e->derived);
	assert_true(info.description && *info.description);
	/* The public lookup finds the same row. */
	{
		const struct pmc_metric_info *row = NULL;

		assert_int_equal(pmc_metric_info_lookup(query, &row), 0);
		assert_string_equal(pmc_metric_info_id(row), e->id);
		assert_string_equal(pmc_metric_info_unit(row), e->unit);
		assert_string_equal(pmc_metric_info_description(row), info.description);
		assert_int_equal(pmc_metric_info_kind(row), info.kind);
	}
}

static void known_ids_have_unit_and_direction(void **state)
{
	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++)
		check(expected[i].id, &expected[i]);
}

/* "cycles:u" and "instructions/op" are what a user passes to --threshold or --metric;
 * they must gate in the same direction as the plain id. */
static void modifiers_and_per_op_keep_unit_and_direction(void **state)
{
	char q[128];

	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
		static const char *const suffix[] = {":u", ":k", ":uk", "/op", ":u/op"};

		for (size_t f = 0; f < sizeof(suffix) / sizeof(suffix[0]); f++) {
			snprintf(q, sizeof(q), "%s%s", expected[i].id, suffix[f]);
			check(q, &expected[i]);
		}
	}
}

static void unknown_ids_are_generic_counts(void **state)
{
	static const char *const unknown[] = {
	    "r01c2",
	    "msr/tsc/",
	    "cpu/event=0x3c/",
	    "no-such-metric",
	    "cycles-and-more",
	    "ipc2",
	    "foo/op",
	    ":u",
	    "/op",
	    "",
	    "cycles:",
	    "cycles/opx",
	    "xcycles",
	};

	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		struct pmc_metric_info info = pmc_metric_lookup(unknown[i]);

		print_message("lookup(\"%s\")\n", unknown[i]);
		assert_null(info.id);
		assert_string_equal(info.unit, "count");
		assert_int_equal(info.better, PMC_LOWER_IS_BETTER);
		assert_false(info.derived);
	}
	assert_null(pmc_metric_lookup(NULL).id);
}

/* The public lookup says "unknown" instead of inventing an entry, and leaves *ret alone. */
static void public_lookup_of_unknown_ids_fails(void **state)
{
	static const char *const unknown[] = {"r01c2", "msr/tsc/", "foo/op", ":u", "", "ipc2"};
	const struct pmc_metric_info *keep = pmc_metric_info_at(0), *ret = keep;

	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		print_message("pmc_metric_info_lookup(\"%s\")\n", unknown[i]);
		assert_int_equal(pmc_metric_info_lookup(unknown[i], &ret), -ENOENT);
		assert_ptr_equal(ret, keep);
	}
	assert_int_equal(pmc_metric_info_lookup(NULL, &ret), -EINVAL);
	assert_int_equal(pmc_metric_info_lookup("cycles", NULL), -EINVAL);
	assert_ptr_equal(ret, keep);
	assert_null(pmc_metric_info_at(pmc_metric_info_count()));
	assert_null(pmc_metric_find("cycles:u"));
	assert_null(pmc_metric_find("ipc/op"));
	assert_string_equal(pmc_metric_find("ipc")->id, "ipc");
}

/* cpus-utilized has no natural direction: result files (whose schema has only "lower"
 * and "higher") store it as lower; comparisons read the registry's direction. */
static void a_ratio_without_direction_gates_as_lower(void **state)
{
	const struct pmc_metric_info *m = NULL;

	assert_int_equal(pmc_metric_info_lookup("cpus-utilized:u", &m), 0);
	assert_int_equal(pmc_metric_info_direction(m), PMC_NO_DIRECTION);
	assert_int_equal(m->better, PMC_LOWER_IS_BETTER);
	assert_int_equal(pmc_metric_lookup("cpus-utilized").better, PMC_LOWER_IS_BETTER);
	assert_int_equal(pmc_metric_info_lookup("ipc", &m), 0);
	assert_int_equal(pmc_metric_info_direction(m), PMC_HIGHER_IS_BETTER);
	for (size_t i = 0; i < pmc_metric_info_count(); i++)
		assert_int_not_equal(pmc_metric_info_at(i)->better, PMC_NO_DIRECTION);
}

/* Every entry can be found again (no entry shadows another), ids are unique and units
 * come from the documented set. */
/* The gated-by-default column (docs/metrics.md): work and its cost are gated; ratios,
 * tick-granular times and scheduler counts are not; modifiers and "/op" follow the id. */
static void gated_by_default(void **state)
{
	static const char *const gated[] = {
	    "task-clock",    "wall-time",      "user-time",	  "cpu-clock",
	    "instructions",  "cycles",	       "ref-cycles",	  "branches",
	    "branch-misses", "cache-misses",   "LLC-load-misses", "dTLB-store-misses",
	    "page-faults",   "minor-faults",   "major-faults",	  "max-rss",
	    "est-cycles",    "D1-read-misses", "data-reads",	  "instructions:u",
	    "wall-time/op",
	};
	static const char *const reported[] = {
	    "cpus-utilized", "system-time",	 "context-switches", "cpu-migrations",	"ipc",
	    "ghz",	     "branch-miss-rate", "cache-references", "L1-dcache-loads",
	};
	const struct pmc_metric_info *m;

	for (size_t i = 0; i < sizeof(gated) / sizeof(gated[0]); i++) {
		assert_int_equal(pmc_metric_info_lookup(gated[i], &m), 0);
		if (!pmc_metric_info_gated(m)) {
			print_error("%s is not gated by default\n", gated[i]);
			fail();
		}
	}
	for (size_t i = 0; i < sizeof(reported) / sizeof(reported[0]); i++) {
		assert_int_equal(pmc_metric_info_lookup(reported[i], &m), 0);
		if (pmc_metric_info_gated(m)) {
			print_error("%s is gated by default\n", reported[i]);
			fail();
		}
	}
	/* No metric without a direction is gated by default. */
	for (size_t i = 0; i < pmc_metric_info_count(); i++) {
		m = pmc_metric_info_at(i);
		assert_false(m->direction == PMC_NO_DIRECTION && m->gated);
	}
	assert_false(pmc_metric_info_gated(NULL));
	assert_false(pmc_metric_lookup("r01c2").gated);
}

static void table_is_consistent(void **state)
{
	static const char *const units[] = {"count", "ns",   "bytes",	"ratio",  "percent",
					    "GHz",   "CPUs", "items/s", "bytes/s"};
	size_t n = pmc_metric_info_count();

	/* 10 generic, 42 cache, 9 software, 4 rusage, 1 imported, 2 throughput, 2
	 * allocations, 5 derived, 13 simulated. */
	assert_int_equal(n, 10 + 42 + 9 + 4 + 1 + 2 + 2 + 5 + 13);
	assert_null(pmc_metric_info_at(n));
	for (size_t i = 0; i < n; i++) {
		const struct pmc_metric_info *m = pmc_metric_info_at(i);
		struct pmc_metric_info found = pmc_metric_lookup(m->id);
		bool unit_ok = false;

		assert_non_null(m);
		assert_ptr_equal(found.id, m->id);
		for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++)
			unit_ok |= strcmp(units[u], m->unit) == 0;
		if (!unit_ok)
			fail_msg("metric %s has unit \"%s\"", m->id, m->unit);
		for (size_t j = 0; j < i; j++)
			if (strcmp(pmc_metric_info_at(j)->id, m->id) == 0)
				fail_msg("metric %s appears twice", m->id);
		/* A formula's inputs and a host are metrics of the registry; only derived
		 * metrics have a formula or a host, and only measured times and sizes trail. */
		if (m->num) {
			assert_true(m->derived);
			assert_int_equal(m->kind, PMC_METRIC_DERIVED);
			assert_non_null(pmc_metric_find(m->num));
			assert_non_null(pmc_metric_find(m->den));
			assert_true(m->scale > 0);
		}
		assert_int_equal(m->kind == PMC_METRIC_DERIVED, m->num != NULL);
		if (m->host) {
			assert_true(m->derived);
			assert_non_null(pmc_metric_find(m->host));
			assert_true(m->host_text && *m->host_text);
		}
		if (m->trailer)
			assert_true(m->kind == PMC_METRIC_TIME || m->kind == PMC_METRIC_SIZE);
	}
}

/* The valgrind backend's metrics are described once, here: every id it reports has a
 * row, a count where lower is better. */
static void every_valgrind_metric_is_in_the_registry(void **state)
{
	for (size_t i = 0; i < pmc_valgrind_metric_count(); i++) {
		const char *id = pmc_valgrind_metric_id(i);
		const struct pmc_metric_info *m = pmc_metric_find(id);

		print_message("valgrind metric %s\n", id);
		assert_non_null(m);
		assert_string_equal(m->unit, "count");
		assert_int_equal(m->direction, PMC_LOWER_IS_BETTER);
		/* instructions and branch-misses share the perf events' rows */
		assert_true(m->kind == PMC_METRIC_SIMULATED || m->kind == PMC_METRIC_EVENT);
		assert_int_equal(m->derived, strcmp(id, "est-cycles") == 0);
	}
}

/* The default event set opens both inputs of each in-group ratio in one group, so that
 * multiplexing cannot skew ipc or the miss rates, and names only known metrics. */
static void default_events_group_the_ratio_inputs(void **state)
{
	static const char *const in_group[] = {"ipc", "branch-miss-rate", "cache-miss-rate"};
	struct pmc_event_list *lp = NULL;

	assert_int_equal(pmc_event_list_parse(PMC_DEFAULT_EVENTS, NULL, &lp, NULL, 0), 0);
	const struct pmc_event_list list = *lp;
	for (size_t i = 0; i < list.n; i++)
		assert_non_null(pmc_metric_find(list.events[i].name));
	for (size_t i = 0; i < sizeof(in_group) / sizeof(in_group[0]); i++) {
		const struct pmc_metric_info *m = pmc_metric_find(in_group[i]);
		const struct pmc_event *a = NULL, *b = NULL;

		for (size_t e = 0; e < list.n; e++) {
			if (strcmp(list.events[e].name, m->num) == 0)
				a = &list.events[e];
			if (strcmp(list.events[e].name, m->den) == 0)
				b = &list.events[e];
		}
		assert_non_null(a);
		assert_non_null(b);
		assert_int_equal(a->group, b->group);
	}
	pmc_event_list_free(lp);
}

/* Every event pmcbench can count has a row of its own, under the canonical name the
 * event parser gives it (the name results store). */
static void every_builtin_event_is_in_the_table(void **state)
{
	size_t n = pmc_event_builtin_count();

	assert_true(n > 40);
	for (size_t i = 0; i < n; i++) {
		const char *name = pmc_event_builtin_name(i);
		struct pmc_event_list *list = NULL;
		char err[256];
		struct pmc_metric_info info;

		if (pmc_event_list_parse(name, NULL, &list, err, sizeof(err)) < 0)
			fail_msg("event %s does not parse: %s", name, err);
		info = pmc_metric_lookup(list->events[0].name);
		if (!info.id)
			fail_msg("event %s (stored as %s) has no metric", name,
				 list->events[0].name);
		assert_string_equal(info.id, list->events[0].name);
		pmc_event_list_free(list);
	}
}

/* ---- pmc_benchmark_derive ------------------------------------------------------------ */

/* A benchmark of one result, freed by the caller with the result. */
static struct pmc_benchmark *bench(struct pmc_result **ret_res)
{
	struct pmc_result *res = t_result("perf");
	struct pmc_benchmark *b;

	assert_non_null(res);
	b = t_bench(res, "b", NULL);
	assert_non_null(b);
	*ret_res = res;
	return b;
}

/* Adds a metric with n samples (NAN: not measured in that run). */
static void add(struct pmc_benchmark *b, const char *id, const double *v, size_t n)
{
	struct pmc_metric *m = t_metric(b, id);

	assert_non_null(m);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(pmc_metric_append(m, v[i], NULL), 0);
}

static const struct pmc_metric *get(const struct pmc_benchmark *b, const char *id)
{
	const struct pmc_metric *m = pmc_benchmark_find_metric(b, id);

	if (!m)
		fail_msg("metric %s was not derived", id);
	return m;
}

static void assert_value(const struct pmc_metric *m, size_t i, double want)
{
	if (isnan(want) ? !isnan(m->values[i]) : fabs(m->values[i] - want) > 1e-12 * fabs(want))
		fail_msg("%s run %zu: got %.17g, want %.17g", m->id, i, m->values[i], want);
}

/* Each run's ratio from its own inputs; a run where an input is missing, or the
 * denominator is 0, has no value rather than 0 or a value from another run. */
static void derive_per_run_only_where_inputs_were_measured(void **state)
{
	const double cyc[] = {1000, NAN, 2000, 0, 4000};
	const double ins[] = {1500, 3000, NAN, 10, 2000};
	const double br[] = {100, 200, 300, 400, 500};
	const double bm[] = {5, 10, NAN, 20, 0};
	const double tc[] = {2e6, 2e6, 2e6, 2e6, 2e6};
	const double wall[] = {1e6, 4e6, NAN, 2e6, 1e6};
	struct pmc_result *res;
	struct pmc_benchmark *b = bench(&res);
	const struct pmc_metric *ipc, *bmr, *ghz, *cpus;

	add(b, "cycles", cyc, 5);
	add(b, "instructions", ins, 5);
	add(b, "branches", br, 5);
	add(b, "branch-misses", bm, 5);
	add(b, "task-clock", tc, 5);
	add(b, "wall-time", wall, 5);
	assert_int_equal(pmc_benchmark_derive(b, NULL), 0);

	ipc = get(b, "ipc");
	assert_true(ipc->derived);
	assert_false(ipc->has_status);
	assert_int_equal(ipc->n, 5);
	assert_value(ipc, 0, 1.5);
	assert_value(ipc, 1, NAN);
	assert_value(ipc, 2, NAN);
	assert_value(ipc, 3, NAN); /* 0 cycles */
	assert_value(ipc, 4, 0.5);
	bmr = get(b, "branch-miss-rate");
	assert_value(bmr, 0, 5.0);
	assert_value(bmr, 2, NAN);
	assert_value(bmr, 4, 0.0); /* a measured 0 stays 0 */
	ghz = get(b, "ghz");
	assert_value(ghz, 0, 1000.0 / 2e6);
	assert_value(ghz, 1, NAN);
	cpus = get(b, "cpus-utilized");
	assert_value(cpus, 0, 2.0);
	assert_value(cpus, 1, 0.5);
	assert_value(cpus, 2, NAN);
	/* cache-references and cache-misses were not measured: no cache-miss-rate at all */
	assert_null(pmc_benchmark_find_metric(b, "cache-miss-rate"));
	pmc_result_free(res);
}

/* No run with both inputs, or inputs of different run counts: no metric, never a column
 * of nulls or zeros. */
static void derive_adds_nothing_without_a_measured_pair(void **state)
{
	const double nan3[] = {NAN, NAN, NAN};
	const double v3[] = {1, 2, 3};
	const double v2[] = {1, 2};
	struct pmc_result *res;
	struct pmc_benchmark *b = bench(&res);

	add(b, "cycles", nan3, 3);
	add(b, "instructions", v3, 3);
	add(b, "branches", v2, 2);
	add(b, "branch-misses", v3, 3);
	assert_int_equal(pmc_benchmark_derive(b, NULL), 0);
	assert_null(pmc_benchmark_find_metric(b, "ipc"));
	assert_null(pmc_benchmark_find_metric(b, "branch-miss-rate"));
	assert_null(pmc_benchmark_find_metric(b, "ghz"));
	assert_int_equal(b->nmetrics, 4);
	pmc_result_free(res);
}

/* Modified inputs pair up (ipc:u from instructions:u / cycles:u); a wait4 time has no
 * modifier (cpus-utilized:u is task-clock:u / wall-time); modifiers never mix. */
static void derive_pairs_inputs_by_modifier(void **state)
{
	const double cyc[] = {100, 200};
	const double ins[] = {300, 200};
	const double tc[] = {4e6, 4e6};
	const double wall[] = {2e6, 1e6};
	struct pmc_result *res;
	struct pmc_benchmark *b = bench(&res);

	add(b, "cycles:u", cyc, 2);
	add(b, "instructions:u", ins, 2);
	add(b, "instructions:k", ins, 2);
	add(b, "task-clock:u", tc, 2);
	add(b, "wall-time", wall, 2);
	assert_int_equal(pmc_benchmark_derive(b, NULL), 0);
	assert_value(get(b, "ipc:u"), 0, 3.0);
	assert_value(get(b, "ipc:u"), 1, 1.0);
	assert_value(get(b, "cpus-utilized:u"), 1, 4.0);
	assert_value(get(b, "ghz:u"), 0, 100 / 4e6);
	assert_null(pmc_benchmark_find_metric(b, "ipc"));
	assert_null(pmc_benchmark_find_metric(b, "ipc:k"));
	assert_null(pmc_benchmark_find_metric(b, "cpus-utilized"));
	pmc_result_free(res);
}

/* A ratio of events in different groups is flagged: multiplexing measured its inputs
 * over different intervals (docs/metrics.md). Without groups nothing is flagged. */
static void derive_flags_cross_group_ratios(void **state)
{
	const double v[] = {10, 20};
	struct pmc_event_list *ev = NULL;
	struct pmc_result *res;
	struct pmc_benchmark *b = bench(&res);

	assert_int_equal(pmc_event_list_parse("{cycles,instructions},branches,branch-misses,"
					      "task-clock",
					      NULL, &ev, NULL, 0),
			 0);
	for (size_t i = 0; i < ev->n; i++)
		add(b, ev->events[i].name, v, 2);
	add(b, "wall-time", v, 2);
	{
		struct pmc_derive_opts o = {.apart = pmc_event_list_apart, .apart_ud = ev};

		assert_int_equal(pmc_benchmark_derive(b, &o), 0);
	}
	assert_false(get(b, "ipc")->cross_group);
	assert_true(get(b, "branch-miss-rate")->cross_group);
	assert_true(get(b, "ghz")->cross_group);
	/* wall-time is no counter: its ratio is not a multiplexing question */
	assert_false(get(b, "cpus-utilized")->cross_group);
	pmc_result_free(res);

	b = bench(&res);
	for (size_t i = 0; i < ev->n; i++)
		add(b, ev->events[i].name, v, 2);
	assert_int_equal(pmc_benchmark_derive(b, NULL), 0);
	assert_false(get(b, "branch-miss-rate")->cross_group);
	assert_false(get(b, "ghz")->cross_group);
	pmc_result_free(res);
	pmc_event_list_free(ev);
}

/* The valgrind backend's metrics (its own formulas already applied): the registry has no
 * ratio of them, so nothing is added and nothing they hold changes. A ratio of two
 * simulated counts would be simulated too. */
static void derive_on_valgrind_metrics(void **state)
{
	const double v[] = {1000, 1000};
	const double c[] = {500, 250};
	struct pmc_result *res;
	struct pmc_benchmark *b = bench(&res);

	for (size_t i = 0; i < pmc_valgrind_metric_count(); i++) {
		add(b, pmc_valgrind_metric_id(i), v, 2);
		b->metrics[b->nmetrics - 1].simulated = true;
	}
	assert_int_equal(pmc_benchmark_derive(b, NULL), 0);
	assert_int_equal(b->nmetrics, pmc_valgrind_metric_count());
	assert_true(get(b, "est-cycles")->derived);
	assert_value(get(b, "est-cycles"), 1, 1000);

	add(b, "cycles", c, 2);
	b->metrics[b->nmetrics - 1].simulated = true;
	assert_int_equal(pmc_benchmark_derive(b, NULL), 0);
	assert_true(get(b, "ipc")->simulated);
	assert_value(get(b, "ipc"), 1, 4.0);
	pmc_result_free(res);
}

/* A second call adds no second set of samples; no benchmark is refused. */
static void derive_twice(void **state)
{
	const double v[] = {10, 20};
	struct pmc_result *res;
	struct pmc_benchmark *b = bench(&res);

	add(b, "cycles", v, 2);
	add(b, "instructions", v, 2);
	assert_int_equal(pmc_benchmark_derive(b, NULL), 0);
	assert_int_equal(pmc_benchmark_derive(b, NULL), 0);
	assert_int_equal(get(b, "ipc")->n, 2);
	assert_int_equal(pmc_benchmark_derive(NULL, NULL), -EINVAL);
	pmc_result_free(res);
}

#define DERIVE_TESTS                                                                               \
	cmocka_unit_test(derive_per_run_only_where_inputs_were_measured),                          \
	    cmocka_unit_test(derive_adds_nothing_without_a_measured_pair),                         \
	    cmocka_unit_test(derive_pairs_inputs_by_modifier),                                     \
	    cmocka_unit_test(derive_flags_cross_group_ratios),                                     \
	    cmocka_unit_test(derive_on_valgrind_metrics), cmocka_unit_test(derive_twice),

/* Kernel event ids (docs/events.md, "Tracepoints"): which are tracepoints and uprobes,
 * which count work, and the sum of the system calls per run. */
static void tracepoint_ids_and_syscall_total(void **state)
{
	const double openat[] = {10, 11, NAN}, read_[] = {5, 5, 5}, getpid_u[] = {1, 1, 1};
	struct pmc_result *res;
	struct pmc_benchmark *b = bench(&res);
	const struct pmc_metric *t;

	assert_true(pmc_metric_is_tracepoint("syscalls:sys_enter_openat"));
	assert_true(pmc_metric_is_tracepoint("sched:sched_switch:u"));
	assert_true(pmc_metric_is_tracepoint("syscalls:total/op"));
	assert_false(pmc_metric_is_tracepoint("cycles:u"));
	assert_false(pmc_metric_is_tracepoint("r00c0:uk"));
	assert_false(pmc_metric_is_tracepoint("msr/tsc/"));
	assert_false(pmc_metric_is_tracepoint("uprobe:libc:malloc"));
	assert_true(pmc_metric_is_uprobe("uprobe:libc:malloc/op"));
	assert_false(pmc_metric_drifts("syscalls:sys_enter_openat"));
	assert_false(pmc_metric_drifts("uprobe:libc:malloc/op"));
	/* A benchmark program's allocations count work, exactly (docs/microbench.md). */
	assert_false(pmc_metric_drifts("allocs/op"));
	assert_false(pmc_metric_drifts("alloc-bytes/op"));
	assert_true(pmc_metric_is_kernel_count("allocs/op"));
	assert_true(pmc_metric_is_kernel_count("alloc-bytes/op"));
	assert_true(pmc_metric_lookup("allocs/op").gated);
	assert_true(pmc_metric_drifts("sched:sched_switch"));
	/* Counted by one per occurrence: tracepoints, uprobes, the software faults and
	 * switches; not clocks or hardware events. */
	assert_true(pmc_metric_is_kernel_count("syscalls:total/op"));
	assert_true(pmc_metric_is_kernel_count("uprobe:libc:malloc"));
	assert_true(pmc_metric_is_kernel_count("page-faults"));
	assert_true(pmc_metric_is_kernel_count("major-faults:u"));
	assert_true(pmc_metric_is_kernel_count("context-switches"));
	assert_false(pmc_metric_is_kernel_count("task-clock"));
	assert_false(pmc_metric_is_kernel_count("instructions"));
	assert_false(pmc_metric_is_kernel_count("cycles:u"));

	add(b, "syscalls:sys_enter_openat", openat, 3);
	add(b, "syscalls:sys_enter_read", read_, 3);
	add(b, "syscalls:sys_enter_getpid:u", getpid_u, 3);
	assert_int_equal(pmc_benchmark_derive(b, NULL), 0);
	t = get(b, "syscalls:total");
	assert_true(t->derived);
	assert_int_equal(t->n, 3);
	assert_value(t, 0, 15);
	assert_value(t, 1, 16);
	assert_value(t, 2, NAN);
	/* One system call of a modifier needs no total. */
	assert_null(pmc_benchmark_find_metric(b, "syscalls:total:u"));
	pmc_result_free(res);
}

/* The headline's rule (docs/compare.md, "The headline"): under a fifth of a CPU, commands
 * mostly wait unless their switch counts say they were preempted more often than they
 * blocked; without the counts, the share alone. */
static void mostly_waits_tells_waiting_from_preempted(void **state)
{
	struct pmc_cpu_use preempted = {
	    .share = 0.1, .switches = true, .voluntary = 2, .involuntary = 30};
	struct pmc_cpu_use sleeps = {.share = 0.1, .switches = true, .voluntary = 1};
	struct pmc_cpu_use tie = {
	    .share = 0.1, .switches = true, .voluntary = 16, .involuntary = 16};
	struct pmc_cpu_use unknown = {.share = 0.1};
	struct pmc_cpu_use busy = {.share = 0.5};
	struct pmc_cpu_use busy_blocking = {.share = 0.5, .switches = true, .voluntary = 100};
	struct pmc_cpu_use nothing = {.share = NAN, .switches = true, .voluntary = 5};

	(void)state;
	assert_false(pmc_metric_mostly_waits(&preempted));
	assert_true(pmc_metric_mostly_waits(&sleeps));
	assert_true(pmc_metric_mostly_waits(&tie));
	assert_true(pmc_metric_mostly_waits(&unknown));
	assert_false(pmc_metric_mostly_waits(&busy));
	assert_false(pmc_metric_mostly_waits(&busy_blocking));
	assert_false(pmc_metric_mostly_waits(&nothing));
	assert_false(pmc_metric_mostly_waits(NULL));
	/* Just under and at the limit. */
	unknown.share = PMC_PRIMARY_MIN_CPU_SHARE - 1e-9;
	assert_true(pmc_metric_mostly_waits(&unknown));
	unknown.share = PMC_PRIMARY_MIN_CPU_SHARE;
	assert_false(pmc_metric_mostly_waits(&unknown));

	assert_string_equal(pmc_metric_primary_order(true)[0], "wall-time");
	assert_true(pmc_metric_primary_waits(pmc_metric_primary_order(true)));
	assert_string_equal(pmc_metric_primary_order(false)[0], "task-clock");
	assert_string_equal(pmc_metric_primary_order(false)[1], "cpu-time");
	assert_false(pmc_metric_primary_waits(pmc_metric_primary_order(false)));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(known_ids_have_unit_and_direction),
	    cmocka_unit_test(modifiers_and_per_op_keep_unit_and_direction),
	    cmocka_unit_test(unknown_ids_are_generic_counts),
	    cmocka_unit_test(public_lookup_of_unknown_ids_fails),
	    cmocka_unit_test(a_ratio_without_direction_gates_as_lower),
	    cmocka_unit_test(table_is_consistent),
	    cmocka_unit_test(every_builtin_event_is_in_the_table),
	    cmocka_unit_test(gated_by_default),
	    cmocka_unit_test(every_valgrind_metric_is_in_the_registry),
	    cmocka_unit_test(default_events_group_the_ratio_inputs),
	    cmocka_unit_test(tracepoint_ids_and_syscall_total),
	    cmocka_unit_test(mostly_waits_tells_waiting_from_preempted),
	    DERIVE_TESTS};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The metric table: every id a result can hold has the unit and direction that
 * comparisons and gates rely on (docs/metrics.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "counters/events.h"
#include "harness/core/metrics.h"

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

/* Every entry can be found again (no entry shadows another), ids are unique and units
 * come from the documented set. */
static void table_is_consistent(void **state)
{
	static const char *const units[] = {"count",   "ns",  "bytes", "ratio",
					    "percent", "GHz", "CPUs"};
	size_t n = pmc_metric_count();

	/* 10 generic, 42 cache, 9 software, 4 rusage, 5 derived, 13 simulated. */
	assert_int_equal(n, 10 + 42 + 9 + 4 + 5 + 13);
	assert_null(pmc_metric_at(n));
	for (size_t i = 0; i < n; i++) {
		const struct pmc_metric_info *m = pmc_metric_at(i);
		struct pmc_metric_info found = pmc_metric_lookup(m->id);
		bool unit_ok = false;

		assert_non_null(m);
		assert_ptr_equal(found.id, m->id);
		for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++)
			unit_ok |= strcmp(units[u], m->unit) == 0;
		if (!unit_ok)
			fail_msg("metric %s has unit \"%s\"", m->id, m->unit);
		for (size_t j = 0; j < i; j++)
			if (strcmp(pmc_metric_at(j)->id, m->id) == 0)
				fail_msg("metric %s appears twice", m->id);
	}
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(known_ids_have_unit_and_direction),
	    cmocka_unit_test(modifiers_and_per_op_keep_unit_and_direction),
	    cmocka_unit_test(unknown_ids_are_generic_counts),
	    cmocka_unit_test(table_is_consistent),
	    cmocka_unit_test(every_builtin_event_is_in_the_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

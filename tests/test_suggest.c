/* "Did you mean" (harness/0-base/suggest.h): the distance, the one rule for "close", the
 * order and the words. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "base/suggest.h"

static size_t dist(const char *a, const char *b)
{
	return pmc_edit_distance(a, strlen(a), b, strlen(b));
}

static void test_distance(void **state)
{
	assert_int_equal(dist("cycles", "cycles"), 0);
	assert_int_equal(dist("", "abc"), 3);
	assert_int_equal(dist("cylces", "cycles"), 1); /* a swap is one edit */
	assert_int_equal(dist("CYCLES", "cycles"), 0); /* case does not count */
	assert_int_equal(dist("instrucions", "instructions"), 1);
	assert_int_equal(dist("kitten", "sitting"), 3);
	assert_int_equal(dist("ab", "ba"), 1);
	assert_int_equal(dist("ca", "abc"), 3); /* optimal string alignment, not Damerau */
	char longw[PMC_SUGGEST_LEN + 2];

	memset(longw, 'a', sizeof(longw) - 1);
	longw[sizeof(longw) - 1] = '\0';
	assert_int_equal(dist(longw, "a"), SIZE_MAX);
}

static void test_closeness_rule(void **state)
{
	/* Up to 3 characters: 1 edit. */
	assert_int_equal(pmc_suggest_closeness("cs", 2, "cz"), 1);
	assert_int_equal(pmc_suggest_closeness("ipc", 3, "ip"), 1);
	assert_int_equal(pmc_suggest_closeness("abc", 3, "xyc"), SIZE_MAX);
	/* Up to 8: 2 edits. */
	assert_int_equal(pmc_suggest_closeness("cyclse", 6, "cycles"), 1);
	assert_int_equal(pmc_suggest_closeness("cycxxs", 6, "cycles"), 2);
	assert_int_equal(pmc_suggest_closeness("cxxxes", 6, "cycles"), SIZE_MAX);
	/* Beyond: 3 edits. */
	assert_int_equal(pmc_suggest_closeness("instrxxtions", 12, "instructions"), 2);
	assert_int_equal(pmc_suggest_closeness("instrxxxions", 12, "instructions"), 3);
	assert_int_equal(pmc_suggest_closeness("inxxxxxxons", 11, "instructions"), SIZE_MAX);
	/* A prefix of 3 or more characters is 2 away at most. */
	assert_int_equal(pmc_suggest_closeness("inst", 4, "instructions"), 2);
	assert_int_equal(pmc_suggest_closeness("in", 2, "instructions"), SIZE_MAX);
	/* Replacing the whole word is not a typo. */
	assert_int_equal(pmc_suggest_closeness("x", 1, "y"), SIZE_MAX);
	assert_int_equal(pmc_suggest_closeness("x", 1, "xy"), SIZE_MAX);
	/* Only typed[0..len) is compared. */
	assert_int_equal(pmc_suggest_closeness("cylces:u", 6, "cycles"), 1);
}

static void test_order_and_words(void **state)
{
	static const char *const known[] = {"cache-misses:u",  "branch-misses", "cache-misses",
					    "cache-miss",      "cache-misses",	"cache-mises:k",
					    "cache-references"};
	struct pmc_suggest s;
	char buf[128];

	pmc_suggest_init(&s, "cache-mises", 11);
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		pmc_suggest_offer(&s, known[i], known[i]);
	/* Nearest first, ties in the order offered, no duplicates, at most three. */
	assert_int_equal(pmc_suggest_format(&s, buf, sizeof(buf)), 3);
	assert_string_equal(buf, "did you mean 'cache-misses', 'cache-miss' or 'cache-mises:k'?");

	pmc_suggest_init(&s, "tsc", 3);
	pmc_suggest_offer(&s, "tsc", "msr/tsc/");
	assert_int_equal(pmc_suggest_format(&s, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "did you mean 'msr/tsc/'?");
	pmc_suggest_offer(&s, "tsx", "tsx");
	pmc_suggest_format(&s, buf, sizeof(buf));
	assert_string_equal(buf, "did you mean 'msr/tsc/' or 'tsx'?");

	strcpy(buf, "unknown event 'zzzz'");
	pmc_suggest_init(&s, "zzzz", 4);
	pmc_suggest_offer(&s, "cycles", "cycles");
	assert_int_equal(pmc_suggest_format(&s, buf + 40, sizeof(buf) - 40), 0);
	assert_string_equal(buf + 40, "");
	pmc_suggest_append(&s, buf, sizeof(buf), "run 'pmcbench list'");
	assert_string_equal(buf, "unknown event 'zzzz'; run 'pmcbench list'");
	strcpy(buf, "msg");
	pmc_suggest_append(&s, buf, sizeof(buf), NULL);
	assert_string_equal(buf, "msg");

	pmc_suggest_init(&s, "cylces", 6);
	pmc_suggest_offer(&s, "cycles", "cycles");
	strcpy(buf, "unknown event 'cylces'");
	pmc_suggest_append(&s, buf, sizeof(buf), "fallback");
	assert_string_equal(buf, "unknown event 'cylces'; did you mean 'cycles'?");
	/* Cut short, still terminated. */
	pmc_suggest_format(&s, buf, 10);
	assert_string_equal(buf, "did you m");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_distance),
	    cmocka_unit_test(test_closeness_rule),
	    cmocka_unit_test(test_order_and_words),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The string-keyed hash map of harness/0-base: what is put is found, a key given twice
 * keeps its first value unless replaced, absent keys say so, and the map grows past its
 * first table without losing anything. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "base/hashmap.h"

static void zeroed_map_is_empty(void **state)
{
	struct pmc_hashmap m = {0};
	size_t v = 42;

	assert_int_equal(pmc_hashmap_get(&m, "a", &v), -ENOENT);
	assert_int_equal(v, 42);
	assert_false(pmc_hashmap_has(&m, "a"));
	assert_int_equal(pmc_hashmap_get_or_put(&m, "a", 7, &v), 1);
	assert_int_equal(v, 7);
	assert_int_equal(m.n, 1);
	pmc_hashmap_free(&m);
	pmc_hashmap_free(&m); /* twice is harmless */
}

static void first_value_wins_until_replaced(void **state)
{
	struct pmc_hashmap m;
	size_t v;

	assert_int_equal(pmc_hashmap_init(&m, 4), 0);
	assert_int_equal(pmc_hashmap_get_or_put(&m, "cycles", 1, NULL), 1);
	assert_int_equal(pmc_hashmap_get_or_put(&m, "cycles", 2, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(pmc_hashmap_put(&m, "cycles", 3), 0);
	assert_int_equal(pmc_hashmap_get(&m, "cycles", &v), 0);
	assert_int_equal(v, 3);
	assert_int_equal(m.n, 1);
	/* Keys compare by text, not by pointer. */
	{
		char copy[] = "cycles";

		assert_int_equal(pmc_hashmap_get(&m, copy, &v), 0);
		assert_int_equal(v, 3);
	}
	assert_int_equal(pmc_hashmap_get(&m, "cycle", &v), -ENOENT);
	assert_int_equal(pmc_hashmap_get(&m, "", &v), -ENOENT);
	pmc_hashmap_free(&m);
}

static void grows_and_keeps_every_key(void **state)
{
	enum { N = 5000 };
	static char keys[N][16];
	struct pmc_hashmap m = {0};
	size_t v;

	for (size_t i = 0; i < N; i++) {
		snprintf(keys[i], sizeof(keys[i]), "bench_%zu", i);
		assert_int_equal(pmc_hashmap_get_or_put(&m, keys[i], i, NULL), 1);
	}
	assert_int_equal(m.n, N);
	assert_true(m.cap >= 2 * N);
	for (size_t i = 0; i < N; i++) {
		assert_int_equal(pmc_hashmap_get(&m, keys[i], &v), 0);
		assert_int_equal(v, i);
	}
	assert_false(pmc_hashmap_has(&m, "bench_5000"));
	pmc_hashmap_clear(&m);
	assert_int_equal(m.n, 0);
	assert_false(pmc_hashmap_has(&m, keys[0]));
	assert_int_equal(pmc_hashmap_get_or_put(&m, keys[1], 9, &v), 1);
	assert_int_equal(v, 9);
	pmc_hashmap_free(&m);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(zeroed_map_is_empty),
	    cmocka_unit_test(first_value_wins_until_replaced),
	    cmocka_unit_test(grows_and_keeps_every_key),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

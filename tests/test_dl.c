/* Libraries loaded when first needed (harness/0-base/dl.c): every function of the table
 * found and callable, or -ENOENT naming the library that cannot be opened or the first
 * function it lacks. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "base/dl.h"

static void a_library_fills_its_table(void **state)
{
	static const char *const names[] = {"strlen", "strcmp"};
	size_t (*my_strlen)(const char *) = NULL;
	int (*my_strcmp)(const char *, const char *) = NULL;
	void **const slots[] = {(void **)&my_strlen, (void **)&my_strcmp};
	char why[256] = "";

	assert_int_equal(pmc_dl_load("libc.so.6", names, slots, 2, why, sizeof(why)), 0);
	assert_non_null(my_strlen);
	assert_int_equal(my_strlen("four"), 4);
	assert_int_equal(my_strcmp("a", "a"), 0);
	assert_string_equal(why, "");
}

static void a_missing_library_or_function_is_named(void **state)
{
	static const char *const names[] = {"strlen", "pmc_no_such_function"};
	void *a = NULL, *b = NULL;
	void **const slots[] = {&a, &b};
	char why[256] = "";

	assert_int_equal(pmc_dl_load("libc.so.6", names, slots, 2, why, sizeof(why)), -ENOENT);
	assert_string_equal(why, "libc.so.6 has no pmc_no_such_function");
	assert_int_equal(pmc_dl_load("libpmc-no-such.so.9", names, slots, 2, why, sizeof(why)),
			 -ENOENT);
	assert_non_null(strstr(why, "libpmc-no-such.so.9"));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(a_library_fills_its_table),
	    cmocka_unit_test(a_missing_library_or_function_is_named),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

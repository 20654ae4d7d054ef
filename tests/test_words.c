/* Command strings given with -c are split like a shell would, without a shell. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "run/words.h"

static void expect_words(const char *s, const char *const *want, size_t nwant)
{
	char **w = NULL;
	size_t col = 0, i;

	assert_int_equal(pmc_words_split(s, &w, &col), 0);
	for (i = 0; w[i]; i++) {
		assert_true(i < nwant);
		assert_string_equal(w[i], want[i]);
	}
	assert_int_equal(i, nwant);
	pmc_words_free(w);
}

static void splits_on_blanks(void **state)
{
	const char *want[] = {"ls", "-l", "/tmp"};

	expect_words("  ls\t-l   /tmp  ", want, 3);
}

static void single_quotes_keep_everything(void **state)
{
	const char *want[] = {"echo", "a \"b\" $HOME \\n"};

	expect_words("echo 'a \"b\" $HOME \\n'", want, 2);
}

static void double_quotes_and_escapes(void **state)
{
	const char *want[] = {"printf", "x \"y\" \\z", "a b", ""};

	expect_words("printf \"x \\\"y\\\" \\z\" a\\ b ''", want, 4);
}

static void adjacent_quotes_join(void **state)
{
	const char *want[] = {"abc def"};

	expect_words("a'bc'\" def\"", want, 1);
}

static void errors_give_column(void **state)
{
	char **w = NULL;
	size_t col = 0;

	assert_int_equal(pmc_words_split("echo 'abc", &w, &col), -EINVAL);
	assert_int_equal(col, 6);
	assert_null(w);
	assert_int_equal(pmc_words_split("a \"b", &w, &col), -EINVAL);
	assert_int_equal(col, 3);
	assert_int_equal(pmc_words_split("   ", &w, &col), -EINVAL);
	assert_int_equal(pmc_words_split("x \\", &w, &col), -EINVAL);
	assert_int_equal(col, 3);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(splits_on_blanks),
	    cmocka_unit_test(single_quotes_keep_everything),
	    cmocka_unit_test(double_quotes_and_escapes),
	    cmocka_unit_test(adjacent_quotes_join),
	    cmocka_unit_test(errors_give_column),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Error messages: pmc_quote() shows control characters from input escaped, on one line,
 * and cuts what does not fit with "..."; pmc_err_escape() does it to a whole message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "base/error.h"

static void test_quote_escapes_controls(void **state)
{
	char buf[PMC_QUOTE_SIZE(64)];

	(void)state;
	assert_string_equal(pmc_quote(buf, sizeof(buf), "a\x1b]0;t\x07"), "a\\x1b]0;t\\x07");
	assert_string_equal(pmc_quote(buf, sizeof(buf), "l1\r\nFAIL\t"), "l1\\r\\nFAIL\\t");
	assert_string_equal(pmc_quote(buf, sizeof(buf), "del\x7f"), "del\\x7f");
	/* C1 as UTF-8 (U+009B, CSI) and as a lone byte. */
	assert_string_equal(pmc_quote(buf, sizeof(buf),
				      "c\xc2\x9b"
				      "2J\x9b"),
			    "c\\u009b2J\\x9b");
	/* Other UTF-8 passes: an em dash holds the byte 0x80. */
	assert_string_equal(pmc_quote(buf, sizeof(buf), "a \xe2\x80\x94 b"), "a \xe2\x80\x94 b");
	assert_string_equal(pmc_quote(buf, sizeof(buf), NULL), "");
}

static void test_quote_cuts_with_an_ellipsis(void **state)
{
	char buf[8];

	(void)state;
	assert_string_equal(pmc_quote(buf, sizeof(buf), "1234567"), "1234567");
	assert_string_equal(pmc_quote(buf, sizeof(buf), "12345678"), "1234...");
	/* An escape is never cut in half. */
	assert_string_equal(pmc_quote(buf, sizeof(buf), "12\x1b\x1b"), "12...");
	assert_string_equal(pmc_quote(buf, 1, "abc"), "");
}

static void test_err_escape_rewrites_a_message(void **state)
{
	char err[64];

	(void)state;
	pmc_err_set(err, sizeof(err), "f.json: unknown key \"%s\"", "k\x1b[2J\nok");
	pmc_err_escape(err, sizeof(err));
	assert_string_equal(err, "f.json: unknown key \"k\\x1b[2J\\nok\"");
	pmc_err_escape(NULL, 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_quote_escapes_controls),
	    cmocka_unit_test(test_quote_cuts_with_an_ellipsis),
	    cmocka_unit_test(test_err_escape_rewrites_a_message),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

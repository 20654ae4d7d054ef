/* UTF-8 validation (harness/0-base/utf8.c): every well-formed sequence of RFC 3629 is taken
 * with its length, and overlong forms, surrogates, code points above U+10FFFF, stray
 * continuation bytes and sequences cut short are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "base/utf8.h"

static size_t len_of(const char *s)
{
	return pmc_utf8_len((const unsigned char *)s);
}

static void well_formed_sequences_have_their_length(void **state)
{
	assert_int_equal(len_of("a"), 1);
	assert_int_equal(len_of("\x7f"), 1);
	assert_int_equal(len_of("\xc2\x80"), 2);	 /* U+0080 */
	assert_int_equal(len_of("\xc3\xa9"), 2);	 /* é */
	assert_int_equal(len_of("\xe0\xa0\x80"), 3);	 /* U+0800 */
	assert_int_equal(len_of("\xed\x9f\xbf"), 3);	 /* U+D7FF, below the surrogates */
	assert_int_equal(len_of("\xef\xbf\xbd"), 3);	 /* U+FFFD */
	assert_int_equal(len_of("\xf0\x90\x80\x80"), 4); /* U+10000 */
	assert_int_equal(len_of("\xf4\x8f\xbf\xbf"), 4); /* U+10FFFF */
	assert_true(pmc_utf8_valid("é ✓ 😀 plain"));
	assert_true(pmc_utf8_valid(""));
}

static void malformed_sequences_are_refused(void **state)
{
	assert_int_equal(len_of("\x80"), 0);		 /* a continuation byte alone */
	assert_int_equal(len_of("\xc0\xaf"), 0);	 /* overlong '/' */
	assert_int_equal(len_of("\xc1\xbf"), 0);	 /* overlong */
	assert_int_equal(len_of("\xe0\x9f\xbf"), 0);	 /* overlong U+07FF */
	assert_int_equal(len_of("\xed\xa0\x80"), 0);	 /* surrogate U+D800 */
	assert_int_equal(len_of("\xf0\x8f\xbf\xbf"), 0); /* overlong U+FFFF */
	assert_int_equal(len_of("\xf4\x90\x80\x80"), 0); /* U+110000 */
	assert_int_equal(len_of("\xf5\x80\x80\x80"), 0);
	assert_int_equal(len_of("\xff"), 0);
	assert_int_equal(len_of("\xc3"), 0);	 /* cut short by the end */
	assert_int_equal(len_of("\xe2\x9c"), 0); /* cut short */
	assert_false(pmc_utf8_valid("Latin-1 \xe9"));
	assert_false(pmc_utf8_valid("\xe2\x9c"));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(well_formed_sequences_have_their_length),
	    cmocka_unit_test(malformed_sequences_are_refused),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The samples text a history row holds, "v v null v" (harness/3-history/store_query.c):
 * each sample a word of its own, read the same by the points' and the baseline's readers.
 * History databases travel as CI caches and artifacts, so a text the writer never
 * writes is refused, never read as other samples (tests/fuzz/fuzz_history_samples.c
 * found "1-2 3" read as 1 and -2, its 3 dropped). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "history/store_priv.h"

static int parse(const char *text, double **v, size_t *n)
{
	*v = NULL;
	*n = SIZE_MAX;
	return pmc_hist_parse_samples(text, v, n);
}

static void written_texts_are_read(void **state)
{
	double *v;
	size_t n;

	(void)state;
	assert_int_equal(parse("3 -0 null 0.5 12345678901234567", &v, &n), 0);
	assert_int_equal(n, 5);
	assert_true(v[0] == 3 && v[1] == 0 && signbit(v[1]) && isnan(v[2]) && v[3] == 0.5);
	assert_true(v[4] == 12345678901234567.0);
	free(v);
	/* Spaces around and between words are separators. */
	assert_int_equal(parse("  7   8 ", &v, &n), 0);
	assert_int_equal(n, 2);
	assert_true(v[0] == 7 && v[1] == 8);
	free(v);
	assert_int_equal(parse("", &v, &n), 0);
	assert_int_equal(n, 0);
	free(v);
}

static void words_that_are_not_one_sample_are_refused(void **state)
{
	static const char *const bad[] = {"1-2 3", "nullnull", "null1",	  "0.5e3x",
					  "1\t2",  "2 \n3",    "nan(1)x", "x"};
	double *v;
	size_t n;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *c = bad[i];
		double x;

		assert_int_equal(parse(bad[i], &v, &n), -EINVAL);
		assert_null(v);
		/* The baseline's reader, one sample at a time, stops at the same word. */
		for (int r = 0; *c && r == 0; c += (*c == ' '))
			r = pmc_hist_parse_sample(&c, &x);
		assert_true(*c != '\0');
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(written_texts_are_read),
	    cmocka_unit_test(words_that_are_not_one_sample_are_refused),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests_name("history samples", tests, NULL, NULL);
}

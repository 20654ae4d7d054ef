/* File names from benchmark names (harness/0-base/slug.c): a plain name stays as it is,
 * anything else becomes a readable, safe name with a hash of the original, and distinct
 * names never share a file name (the profiles beside a result, docs/profile.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "base/slug.h"

static const char *slug(const char *name)
{
	static char buf[4][PMC_SLUG_SIZE];
	static int i;

	i = (i + 1) % 4;
	return pmc_slug(name, buf[i]);
}

/* The readable part of s: all of it before a hash suffix. */
static size_t readable_len(const char *s)
{
	const char *u = strrchr(s, '_');

	return u && strlen(u) == 9 ? (size_t)(u - s) : strlen(s);
}

/* A slug is safe: no '/', nothing outside [A-Za-z0-9._-], no leading '.' or '-', no "..",
 * not empty. */
static void assert_safe(const char *s)
{
	assert_true(s[0] != '\0');
	assert_true(s[0] != '.' && s[0] != '-');
	assert_null(strstr(s, ".."));
	for (const char *p = s; *p; p++)
		assert_non_null(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				       "0123456789._-",
				       *p));
	assert_true(strlen(s) < PMC_SLUG_SIZE);
}

static void plain_names_stay_as_they_are(void **state)
{
	assert_string_equal(slug("work"), "work");
	assert_string_equal(slug("parse-small"), "parse-small");
	assert_string_equal(slug("sum/64"), slug("sum/64")); /* the same every time */
	assert_string_equal(slug("BM_sort.v2"), "BM_sort.v2");
	assert_string_equal(slug("a_b"), "a_b");
}

static void commands_become_readable_names_with_a_hash(void **state)
{
	const char *s = slug("./new/wc data.txt");

	assert_safe(s);
	assert_int_equal(readable_len(s), strlen("new-wc-data.txt"));
	assert_memory_equal(s, "new-wc-data.txt_", 16);
	s = slug("/usr/bin/true");
	assert_memory_equal(s, "usr-bin-true_", 13);
	assert_safe(s);
	/* Runs of separators collapse into one '-'. */
	s = slug("a - b");
	assert_memory_equal(s, "a-b_", 4);
}

static void dot_dot_and_slashes_cannot_leave_the_directory(void **state)
{
	const char *names[] = {"..", ".",  "../x", "../../etc/passwd", "a/../b",
			       "/",  "//", "a..b", ".hidden",	       "-n",
			       "--", "x/", "./"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *s = slug(names[i]);

		assert_safe(s);
		assert_null(strchr(s, '/'));
		assert_string_not_equal(s, names[i]);
	}
	assert_memory_equal(slug("../../etc/passwd"), "etc-passwd_", 11);
	assert_memory_equal(slug("a..b"), "a-b_", 4);
	assert_memory_equal(slug(".hidden"), "hidden_", 7);
}

static void empty_and_unreadable_names_are_only_a_hash(void **state)
{
	const char *e = slug(""), *d = slug(".."), *j = slug("日本");

	assert_safe(e);
	assert_safe(d);
	assert_safe(j);
	assert_int_equal(strlen(e), 9);
	assert_int_equal(e[0], '_');
	assert_int_equal(readable_len(j), 0);
	assert_string_not_equal(e, d);
	assert_string_not_equal(d, j);
}

static void non_ascii_bytes_become_separators(void **state)
{
	const char *s = slug("naïve résumé");

	assert_safe(s);
	assert_memory_equal(s, "na-ve-r-sum_", 12);
	s = slug("tab\there\x01\x7f");
	assert_safe(s);
	assert_memory_equal(s, "tab-here_", 9);
}

static void long_names_are_cut_and_stay_distinct(void **state)
{
	char a[600], b[600];
	const char *sa, *sb;

	memset(a, 'x', sizeof(a) - 1);
	a[sizeof(a) - 1] = '\0';
	memcpy(b, a, sizeof(a));
	b[sizeof(b) - 2] = 'y'; /* differs after the cut only */
	sa = slug(a);
	sb = slug(b);
	assert_safe(sa);
	assert_safe(sb);
	assert_int_equal(readable_len(sa), PMC_SLUG_MAX);
	assert_int_equal(strlen(sa), PMC_SLUG_MAX + 9);
	assert_string_not_equal(sa, sb);
	/* A name of exactly PMC_SLUG_MAX plain bytes is not cut. */
	a[PMC_SLUG_MAX] = '\0';
	assert_string_equal(slug(a), a);
	/* A cut never leaves a separator at the end of the readable part. */
	memset(a, 'x', sizeof(a) - 1);
	a[PMC_SLUG_MAX - 1] = '/';
	sa = slug(a);
	assert_safe(sa);
	assert_int_not_equal(sa[readable_len(sa) - 1], '-');
}

static void names_that_would_collide_stay_distinct(void **state)
{
	/* Each group maps to one readable part. */
	const char *groups[][5] = {
	    {"a b", "a/b", "a+b", "a  b", "a-b"},
	    {"x", "./x", "x/", "../x", "x "},
	    {"", ".", "..", "/", "日本"},
	};

	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
		for (size_t i = 0; i < 5; i++)
			for (size_t j = 0; j < i; j++)
				assert_string_not_equal(slug(groups[g][i]), slug(groups[g][j]));
	/* A plain name that ends as a hash suffix would is changed too, so it cannot be
	 * the slug of another name. */
	{
		char other[PMC_SLUG_SIZE + 8];
		const char *s = slug("a b");

		snprintf(other, sizeof(other), "%s", s); /* "a-b_XXXXXXXX", a plain name */
		assert_string_not_equal(slug(other), s);
		assert_int_equal(strlen(slug(other)), strlen(other) + 9);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(plain_names_stay_as_they_are),
	    cmocka_unit_test(commands_become_readable_names_with_a_hash),
	    cmocka_unit_test(dot_dot_and_slashes_cannot_leave_the_directory),
	    cmocka_unit_test(empty_and_unreadable_names_are_only_a_hash),
	    cmocka_unit_test(non_ascii_bytes_become_separators),
	    cmocka_unit_test(long_names_are_cut_and_stay_distinct),
	    cmocka_unit_test(names_that_would_collide_stay_distinct),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

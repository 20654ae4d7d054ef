/* The commands' environment (harness/3-run/target_env.h): the normalized set is the same
 * whatever else the caller has, in the same order; --env-keep adds names; --env-inherit
 * passes everything; the description never holds a value. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "run/target_env.h"

/* envp as one string, entries separated by '|', for one comparison that prints both. */
static char *joined(char **envp)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; envp[i]; i++)
		len += strlen(envp[i]) + 1;
	s = calloc(1, len);
	assert_non_null(s);
	for (size_t i = 0; envp[i]; i++) {
		if (i)
			strcat(s, "|");
		strcat(s, envp[i]);
	}
	return s;
}

static void check(char *const *env, bool inherit, const char *const *keep, const char *want_env,
		  const char *want_desc)
{
	char **envp = NULL, *desc = NULL, *got;

	assert_int_equal(pmc_target_env_build(env, inherit, keep, &envp, &desc), 0);
	got = joined(envp);
	assert_string_equal(got, want_env);
	assert_string_equal(desc, want_desc);
	free(got);
	free(envp);
	free(desc);
}

/* Another caller's extra variables, order and locale give the very same environment. */
static void test_normalized_ignores_other_variables(void **state)
{
	char *a[] = {"PATH=/usr/bin:/bin", "HOME=/home/ci", NULL};
	char *b[] = {
	    "LANG=de_DE.UTF-8",
	    "GITHUB_EVENT_NAME=pull_request",
	    "HOME=/home/ci",
	    "LC_ALL=de_DE.UTF-8",
	    "CI_PADDING=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxx",
	    "PATH=/usr/bin:/bin",
	    "HOME=/second/one/is/ignored",
	    NULL};
	const char *want = "HOME=/home/ci|LC_ALL=C|PATH=/usr/bin:/bin";
	/* 14 + 9 + 19 bytes with their NULs */
	const char *desc = "normalized: HOME, LC_ALL=C, PATH; 3 variables, 42 bytes";

	(void)state;
	check(a, false, NULL, want, desc);
	check(b, false, NULL, want, desc);
}

static void test_keep_adds_names(void **state)
{
	char *env[] = {"TMPDIR=/t", "SECRET=hunter2", "PATH=/bin",
		       "CC=gcc",    "LC_ALL=C.UTF-8", NULL};
	const char *keep[] = {"CC", "SECRET", "NOT_SET", "CC", NULL};
	const char *keep_lc[] = {"LC_ALL", NULL};

	(void)state;
	/* The values of kept names stay out of the description. */
	check(env, false, keep, "CC=gcc|LC_ALL=C|PATH=/bin|SECRET=hunter2|TMPDIR=/t",
	      "normalized: CC, LC_ALL=C, PATH, SECRET, TMPDIR; 5 variables, 51 bytes");
	/* A kept LC_ALL is the caller's, not the fixed C. */
	check(env, false, keep_lc, "LC_ALL=C.UTF-8|PATH=/bin|TMPDIR=/t",
	      "normalized: LC_ALL, PATH, TMPDIR; 3 variables, 35 bytes");
}

static void test_inherit_passes_everything(void **state)
{
	char *env[] = {"Z=1", "A=2", "HOME=/h", NULL};
	char *none[] = {NULL};

	(void)state;
	check(env, true, NULL, "Z=1|A=2|HOME=/h", "inherited: 3 variables, 16 bytes");
	check(none, false, NULL, "LC_ALL=C", "normalized: LC_ALL=C; 1 variable, 9 bytes");
	check(NULL, true, NULL, "", "inherited: 0 variables, 0 bytes");
}

static void test_bad_names_are_refused(void **state)
{
	char *env[] = {"A=1", NULL};
	const char *eq[] = {"A=1", NULL};
	const char *empty[] = {"", NULL};
	char **envp = (char **)0x1, *desc = (char *)0x2;

	(void)state;
	assert_int_equal(pmc_target_env_build(env, false, eq, &envp, &desc), -EINVAL);
	assert_int_equal(pmc_target_env_build(env, false, empty, &envp, &desc), -EINVAL);
	assert_ptr_equal(envp, (char **)0x1);
	assert_ptr_equal(desc, (char *)0x2);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_normalized_ignores_other_variables),
	    cmocka_unit_test(test_keep_adds_names),
	    cmocka_unit_test(test_inherit_passes_everything),
	    cmocka_unit_test(test_bad_names_are_refused),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

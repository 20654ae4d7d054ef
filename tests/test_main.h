/* The argument of every cmocka program (issue 33): the cases whose name contains NAME
 * (as the e2e cases' filter), or that a glob with '*' or '?' matches, run alone; meson
 * reads the TAP output case by case (tests/cmocka_tap.py, protocol 'tap'):
 *
 *   meson test -C build test_compare --test-args gate
 *   build/tests/test_compare 'gate_*_regression'
 *
 * A pattern that names no case fails the program (exit 2), so a typo never passes as
 * "0 failed". */
#ifndef PMC_TEST_MAIN_H
#define PMC_TEST_MAIN_H

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The pattern of the program's first argument, checked against the cases it holds;
 * exits 2 (a usage error) for more than one argument or a pattern that matches none. */
static inline void pmc_test_args_check(int argc, char **argv, const struct CMUnitTest *tests,
				       size_t n)
{
	if (argc < 2)
		return;
	if (argc > 2) {
		fprintf(stderr, "usage: %s [CASE-GLOB]\n", argv[0]);
		exit(2);
	}
	static char glob[256];
	int has_glob = strpbrk(argv[1], "*?") != NULL;

	if (snprintf(glob, sizeof(glob), has_glob ? "%s" : "*%s*", argv[1]) >= (int)sizeof(glob)) {
		fprintf(stderr, "%s: the case pattern is longer than %zu bytes\n", argv[0],
			sizeof(glob) - 1);
		exit(2);
	}
	for (size_t i = 0; i < n; i++)
		if (fnmatch(glob, tests[i].name, 0) == 0) {
			cmocka_set_test_filter(glob); /* cmocka keeps the pointer */
			return;
		}
	fprintf(stderr, "%s: no case matches '%s'\n", argv[0], argv[1]);
	exit(2);
}

#define pmc_test_args(argc, argv, tests)                                                           \
	pmc_test_args_check((argc), (argv), (tests), sizeof(tests) / sizeof((tests)[0]))

#endif

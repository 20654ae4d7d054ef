/* The one sink every printed string passes (harness/7-cli/cli_controls.c): control
 * characters come out as spaces, whichever write they are split across, and only
 * pmcbench's own colours and progress erase pass, when allowed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "cli/cli.h"

/* What the filter writes for in, given in two writes split at split (SIZE_MAX: one
 * write). malloc'd. */
static char *filtered(const char *in, size_t split, bool colour, bool erase)
{
	struct pmc_cli_controls *s = pmc_cli_controls_new(colour, erase);
	size_t n = strlen(in), len = 0;
	char *out = NULL;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(s);
	assert_non_null(f);
	if (split > n)
		split = n;
	pmc_cli_controls_filter(s, in, split, f);
	pmc_cli_controls_filter(s, in + split, n - split, f);
	pmc_cli_controls_end(s, f);
	assert_int_equal(fclose(f), 0);
	free(s);
	return out;
}

static void expect_all_splits(const char *in, const char *want, bool colour, bool erase)
{
	for (size_t i = 0; i <= strlen(in); i++) {
		char *got = filtered(in, i, colour, erase);

		if (strcmp(got, want) != 0)
			fail_msg("split at %zu of \"%s\": got \"%s\", want \"%s\"", i, in, got,
				 want);
		free(got);
	}
}

static void test_controls_become_spaces(void **state)
{
	(void)state;
	/* OSC title, BEL, screen clear, CR, backspace, DEL, C1 CSI in UTF-8, a lone 0x9b. */
	expect_all_splits("a\033]0;t\007b\033[2Jc\rd\be\177f\302\233g\233h",
			  "a ]0;t b [2Jc d e f g h", false, false);
	/* Newline and tab are layout; other UTF-8 passes whole, even when split. */
	expect_all_splits("x\ty\nz \302\261 \342\200\246 \360\237\230\200",
			  "x\ty\nz \302\261 \342\200\246 \360\237\230\200", false, false);
	/* A byte that starts no valid sequence is passed as it is (the reporters' rule). */
	expect_all_splits("\303(", "\303(", false, false);
}

static void test_only_own_sequences_pass_when_allowed(void **state)
{
	(void)state;
	expect_all_splits("\033[1;31mFAIL\033[0m", "\033[1;31mFAIL\033[0m", true, false);
	expect_all_splits("\033[1;31mFAIL\033[0m", " [1;31mFAIL [0m", false, false);
	/* Colours that conceal or blink are never ours. */
	expect_all_splits("\033[8mx\033[5m", " [8mx [5m", true, false);
	expect_all_splits("\r\033[Kprogress", "\r\033[Kprogress", false, true);
	expect_all_splits("\r\033[Kprogress", "  [Kprogress", false, false);
	/* A carriage return that erases nothing forges a line: never. */
	expect_all_splits("x\rPASS", "x PASS", true, true);
	/* Cut short at the end: the part is shown as text. */
	expect_all_splits("x\033[1;3", "x [1;3", true, false);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_controls_become_spaces),
	    cmocka_unit_test(test_only_own_sequences_pass_when_allowed),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

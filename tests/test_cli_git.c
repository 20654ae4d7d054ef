/* What the history commands read of git and write for sh (harness/7-cli/cli_git.c): the
 * first line of git's output whole, however long, and words quoted so that sh reads each
 * back unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "cli/cli_git.h"
#include "run/words.h"

static char *first_line_of(const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	char *line;

	assert_non_null(f);
	line = pmc_cli_first_line(f);
	fclose(f);
	return line;
}

/* A branch of 300 characters was cut to 255 (fgets into 256 bytes; bisect's subject at
 * 511), and history add stored the wrong branch: the whole line is what
 * tests/fuzz/fuzz_git.c checks. */
static void test_first_line_is_whole(void **state)
{
	char text[700], *line;

	(void)state;
	memset(text, 'b', 600);
	strcpy(text + 600, "\nsecond\n");
	line = first_line_of(text);
	assert_non_null(line);
	assert_int_equal(strlen(line), 600);
	free(line);
	line = first_line_of("0123abc\n");
	assert_string_equal(line, "0123abc");
	free(line);
	line = first_line_of("no newline");
	assert_string_equal(line, "no newline");
	free(line);
	assert_null(first_line_of("\nsecond\n"));
	assert_null(first_line_of(""));
}

static void expect_one_word(const char *word)
{
	char *cmd = NULL, **words = NULL;
	size_t len = 0, column = 0;
	FILE *m = open_memstream(&cmd, &len);

	assert_non_null(m);
	fputs("git ", m);
	pmc_cli_sh_quote(m, word);
	assert_int_equal(fclose(m), 0);
	assert_int_equal(pmc_words_split(cmd, &words, &column), 0);
	assert_string_equal(words[0], "git");
	assert_non_null(words[1]);
	assert_string_equal(words[1], word);
	assert_null(words[2]);
	pmc_words_free(words);
	free(cmd);
}

static void test_quoted_words_read_back_unchanged(void **state)
{
	(void)state;
	expect_one_word("main");
	expect_one_word("");
	expect_one_word("it's '$(touch pwned)' `id` \"x\" \\ *");
	expect_one_word("''''");
	expect_one_word("a\nb\tc");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_first_line_is_whole),
	    cmocka_unit_test(test_quoted_words_read_back_unchanged),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

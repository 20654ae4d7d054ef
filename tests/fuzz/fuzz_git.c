/* libFuzzer target: what the history commands read of git and write for sh
 * (harness/7-cli/cli_git.c): the first line of git's output (`history add`'s commit and
 * branch, bisect's revisions, status and subject), which must be the input's first line
 * whole (up to a newline or a NUL byte; none when it is empty), and the quoting of a
 * word for sh (bisect's git arguments and step script), which the shell's rules
 * (harness/3-run/words.c) must read back as that one word, unchanged. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_git.h"
#include "run/words.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

static void first_line(const uint8_t *data, size_t n)
{
	FILE *f = fmemopen((void *)data, n, "r");
	size_t len = 0;
	char *line;

	if (!f)
		return;
	line = pmc_cli_first_line(f);
	fclose(f);
	while (len < n && data[len] != '\n' && data[len] != '\0')
		len++;
	if (len == 0 ? line != NULL : !line || strlen(line) != len || memcmp(line, data, len) != 0)
		abort();
	free(line);
}

static void quoted(const uint8_t *data, size_t n)
{
	char *word = strndup((const char *)data, n), *cmd = NULL, **words = NULL;
	size_t len = 0, column = 0;
	FILE *m;

	if (!word)
		return;
	m = open_memstream(&cmd, &len);
	if (!m) {
		free(word);
		return;
	}
	fputs("git ", m);
	pmc_cli_sh_quote(m, word);
	if (fclose(m) == 0) {
		if (pmc_words_split(cmd, &words, &column) != 0 || !words[0] || !words[1] ||
		    words[2] || strcmp(words[0], "git") != 0 || strcmp(words[1], word) != 0)
			abort();
		pmc_words_free(words);
	}
	free(cmd);
	free(word);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	if (n == 0)
		return 0;
	first_line(data, n);
	quoted(data, n);
	return 0;
}

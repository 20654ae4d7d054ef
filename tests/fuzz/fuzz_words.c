/* libFuzzer target: the word splitter of `run -c` (harness/3-run/words.c), which reads the
 * user's command strings with the shell's quoting rules. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "run/words.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	char *s = malloc(n + 1), **words = NULL;
	size_t column = 0;

	if (!s)
		return 0;
	memcpy(s, data, n);
	s[n] = '\0';
	if (pmc_words_split(s, &words, &column) == 0)
		pmc_words_free(words);
	free(s);
	return 0;
}

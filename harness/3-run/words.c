/* POSIX shell word splitting without a shell: quotes and backslashes only; no
 * expansion of any kind (XCU 2.2 "Quoting"). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "run/words.h"

void pmc_words_free(char **words)
{
	if (!words)
		return;
	for (char **w = words; *w; w++)
		free(*w);
	free(words);
}

/* Appends word and the NULL after it; the array doubles (cap slots), so that splitting
 * 60,000 words is not 60,000 copies of a growing array. */
static int push(char ***words, size_t *n, size_t *cap, char *word)
{
	if (pmc_grow_to(words, cap, *n + 2, sizeof(**words)) < 0)
		return -ENOMEM;
	(*words)[(*n)++] = word;
	(*words)[*n] = NULL;
	return 0;
}

int pmc_words_split(const char *s, char ***ret, size_t *ret_column)
{
	size_t len = strlen(s), n = 0, cap = 1, wlen = 0, quote_col = 0;
	char **words = calloc(1, sizeof(*words));
	char *word = malloc(len + 1);
	bool in_word = false;
	char quote = 0;
	int r = -ENOMEM;

	if (!words || !word)
		goto fail;
	for (size_t i = 0; i <= len; i++) {
		char c = s[i];

		if (quote == '\'') {
			if (c == '\0')
				goto unterminated;
			if (c == '\'')
				quote = 0;
			else
				word[wlen++] = c;
			continue;
		}
		if (quote == '"') {
			if (c == '\0')
				goto unterminated;
			if (c == '"') {
				quote = 0;
			} else if (c == '\\' && strchr("$`\"\\\n", s[i + 1]) && s[i + 1]) {
				if (s[++i] != '\n')
					word[wlen++] = s[i];
			} else {
				word[wlen++] = c;
			}
			continue;
		}
		if (c == '\0' || c == ' ' || c == '\t' || c == '\n') {
			if (in_word) {
				char *w = strndup(word, wlen);

				if (!w || push(&words, &n, &cap, w) < 0) {
					free(w);
					goto fail;
				}
				in_word = false;
				wlen = 0;
			}
			continue;
		}
		in_word = true;
		if (c == '\'' || c == '"') {
			quote = c;
			quote_col = i + 1;
		} else if (c == '\\') {
			if (s[i + 1] == '\0') {
				r = -EINVAL;
				*ret_column = i + 1;
				goto fail;
			}
			if (s[++i] != '\n')
				word[wlen++] = s[i];
		} else {
			word[wlen++] = c;
		}
	}
	if (n == 0) {
		r = -EINVAL;
		*ret_column = 1;
		goto fail;
	}
	free(word);
	*ret = words;
	return 0;

unterminated:
	r = -EINVAL;
	*ret_column = quote_col;
fail:
	free(word);
	pmc_words_free(words);
	return r;
}

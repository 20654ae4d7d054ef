/* Splitting a command string into words with POSIX shell quoting rules ('...', "...",
 * backslash), without running a shell. */
#pragma once

#include <stddef.h>

/* Returns 0 and a NULL-terminated, malloc'd argv in *ret (free with pmc_words_free),
 * or -EINVAL with the 1-based column of the problem in *ret_column (unterminated quote,
 * empty command). */
int pmc_words_split(const char *s, char ***ret, size_t *ret_column);
void pmc_words_free(char **words);

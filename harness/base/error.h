/* The message half of the error convention (docs/architecture.md, "Conventions"): a
 * function that fails with words writes one line into its caller's buffer. */
#pragma once

#include <stddef.h>

/* Formats one line into err (errlen bytes, always NUL-terminated, cut when too long).
 * err may be NULL or errlen 0: the message is then dropped. */
void pmc_err_set(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The message half of the error convention (docs/architecture.md, "Conventions"): a
 * function that fails with words writes one line into its caller's buffer. */
#pragma once

#include <stddef.h>

/* Formats one line into err (errlen bytes, always NUL-terminated, cut when too long).
 * err may be NULL or errlen 0: the message is then dropped. */
void pmc_err_set(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Writes s into buf (len bytes, always NUL-terminated) as an error message may quote
 * text from a file or an argument: control characters (C0, DEL and the C1 controls
 * U+0080-U+009F, or a lone byte 0x80-0x9f) as \n, \r, \t or \xNN, so that quoted input
 * cannot move the cursor, retitle a terminal or forge a line in a CI log; the text is cut
 * with "..." when it does not fit. Returns buf, so that it can be an argument of
 * pmc_err_set(). */
const char *pmc_quote(char *buf, size_t len, const char *s);

/* A buffer size for pmc_quote() of up to n bytes of input. */
#define PMC_QUOTE_SIZE(n) (4 * (n) + 4)

/* Rewrites the message in err (errlen bytes) through pmc_quote(), for a loader whose
 * messages quote its input: call it once, on the finished message, at the loader's
 * public boundary. */
void pmc_err_escape(char *err, size_t errlen);

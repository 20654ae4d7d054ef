/* UTF-8 as RFC 3629 defines it: no overlong forms, no surrogates, nothing above
 * U+10FFFF. The result file (JSON) and Go's benchmark format both require it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Length of the valid UTF-8 sequence at s (1 to 4), or 0 when s does not start one. s is
 * NUL-terminated: a sequence cut short by the NUL is not valid. */
size_t pmc_utf8_len(const unsigned char *s);

/* True when all of the NUL-terminated s is valid UTF-8. */
bool pmc_utf8_valid(const char *s);

/* True when s holds a control character: C0 (newline and tab too), DEL, or a C1 control
 * (U+0080-U+009F as UTF-8, or a lone byte 0x80-0x9f, which a terminal in an 8-bit mode
 * takes for one). */
bool pmc_utf8_has_control(const char *s);

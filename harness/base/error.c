/* Error messages into a caller's buffer (error.h). */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/error.h"
#include "harness/base/utf8.h"

void pmc_err_set(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* The C1 control U+0080-U+009F is 0xc2 0x80-0x9f in UTF-8. */
static bool is_c1_utf8(const unsigned char *p)
{
	return p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f;
}

const char *pmc_quote(char *buf, size_t len, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t o = 0;

	if (!buf || len == 0)
		return "";
	while (*p) {
		char one[12];
		size_t n, seq = pmc_utf8_len(p);

		if (is_c1_utf8(p)) {
			n = (size_t)snprintf(one, sizeof(one), "\\u%04x", p[1]);
			p += 2;
		} else if (seq > 1) {
			memcpy(one, p, seq);
			n = seq;
			p += seq;
		} else {
			unsigned char c = *p++;

			if (c == '\n' || c == '\r' || c == '\t')
				n = (size_t)snprintf(one, sizeof(one), "\\%c",
						     c == '\n'	 ? 'n'
						     : c == '\r' ? 'r'
								 : 't');
			else if (c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f))
				n = (size_t)snprintf(one, sizeof(one), "\\x%02x", c);
			else
				n = (one[0] = (char)c, 1);
		}
		/* Each piece followed by more text leaves room for "..." and the NUL, so
		 * there is room for them where the text is cut. */
		if (o + n + (*p ? 4 : 1) > len) {
			if (o + 4 <= len) {
				memcpy(buf + o, "...", 3);
				o += 3;
			}
			break;
		}
		memcpy(buf + o, one, n);
		o += n;
	}
	buf[o] = '\0';
	return buf;
}

void pmc_err_escape(char *err, size_t errlen)
{
	char *copy;

	if (!err || errlen == 0)
		return;
	err[errlen - 1] = '\0';
	copy = strdup(err);
	if (!copy) {
		/* No memory for the copy: blank what cannot be shown instead. */
		for (unsigned char *p = (unsigned char *)err; *p; p++)
			if (*p < 0x20 || *p == 0x7f || (*p >= 0x80 && *p <= 0x9f))
				*p = '?';
		return;
	}
	pmc_quote(err, errlen, copy);
	free(copy);
}

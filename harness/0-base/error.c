/* Error messages into a caller's buffer (error.h). */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/utf8.h"

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

/* The escaped form of the character at *p into one (12 bytes); advances *p. Returns its
 * length. */
static size_t quote_one(const unsigned char **p, char one[static 12])
{
	const unsigned char *c = *p;
	size_t seq = pmc_utf8_len(c);

	if (is_c1_utf8(c)) {
		*p += 2;
		return (size_t)snprintf(one, 12, "\\u%04x", c[1]);
	}
	if (seq > 1) {
		memcpy(one, c, seq);
		*p += seq;
		return seq;
	}
	*p += 1;
	if (*c == '\n' || *c == '\r' || *c == '\t') {
		one[0] = '\\';
		one[1] = *c == '\n' ? 'n' : *c == '\r' ? 'r' : 't';
		return 2;
	}
	if (*c < 0x20 || *c == 0x7f || (*c >= 0x80 && *c <= 0x9f))
		return (size_t)snprintf(one, 12, "\\x%02x", *c);
	one[0] = (char)*c;
	return 1;
}

const char *pmc_quote(char *buf, size_t len, const char *s)
{
	const unsigned char *start = (const unsigned char *)(s ? s : ""), *p = start;
	size_t o = 0, total = 0;
	char one[12];

	if (!buf || len == 0)
		return "";
	while (*p)
		total += quote_one(&p, one);
	/* When the whole does not fit, each piece leaves room for "..." and the NUL, so
	 * that there is room for them where the text is cut. */
	size_t tail = total < len ? 1 : 4;

	for (p = start; *p;) {
		size_t n = quote_one(&p, one);

		if (o + n + tail > len) {
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

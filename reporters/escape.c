/* Escapers for terminal text, Markdown and Go's benchmark format (escape.h). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "reporters/escape.h"

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* The length of the control character at p, 0 when there is none: C0 and DEL, a C1
 * control U+0080-U+009F (0xc2 0x80-0x9f), or a byte 0x80-0x9f outside a UTF-8 sequence,
 * which a terminal in an 8-bit mode takes for a C1 control (0x9b is CSI). */
static size_t control_len(const unsigned char *p)
{
	if (is_control(p[0]))
		return 1;
	if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
		return 2;
	if (p[0] >= 0x80 && p[0] <= 0x9f && pmc_utf8_len(p) == 0)
		return 1;
	return 0;
}

/* The bytes of the character at p: a UTF-8 sequence, or one byte that is not one. */
static size_t char_len(const unsigned char *p)
{
	size_t n = pmc_utf8_len(p);

	return n ? n : 1;
}

void pmc_escape_text(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = control_len(p);

		if (n) {
			fputc(' ', out);
		} else {
			n = char_len(p);
			fwrite(p, 1, n, out);
		}
		p += n;
	}
}

bool pmc_escape_text_needed(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p += char_len(p))
		if (control_len(p))
			return true;
	return false;
}

char *pmc_escape_text_dup(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = malloc(strlen(s) + 1), *q = out;

	if (!out)
		return NULL;
	while (*p) {
		size_t n = control_len(p);

		if (n) {
			*q++ = ' ';
		} else {
			n = char_len(p);
			memcpy(q, p, n);
			q += n;
		}
		p += n;
	}
	*q = '\0';
	return out;
}

void pmc_escape_md(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = control_len(p);

		if (n) {
			fputc(' ', out);
		} else if (strchr("\\`*_|<>[]#", *p)) {
			fprintf(out, "\\%c", *p);
			n = 1;
		} else {
			n = char_len(p);
			fwrite(p, 1, n, out);
		}
		p += n;
	}
}

void pmc_escape_md_code(FILE *out, const char *s)
{
	size_t run = 0, longest = 0, len = strlen(s);
	bool pad = len && (s[0] == '`' || s[len - 1] == '`');

	for (const char *p = s; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		longest = run > longest ? run : longest;
	}
	for (size_t i = 0; i <= longest; i++)
		fputc('`', out);
	if (pad)
		fputc(' ', out);
	pmc_escape_text(out, s);
	if (pad)
		fputc(' ', out);
	for (size_t i = 0; i <= longest; i++)
		fputc('`', out);
}

/* ---- Go's benchmark format -------------------------------------------------------- */

/* The code point of the n-byte valid UTF-8 sequence at p. */
static uint32_t decode(const unsigned char *p, size_t n)
{
	static const unsigned char lead_mask[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
	uint32_t cp = p[0] & lead_mask[n];

	for (size_t i = 1; i < n; i++)
		cp = cp << 6 | (p[i] & 0x3f);
	return cp;
}

/* Go's unicode.IsSpace, which strings.Fields and the benchfmt reader split fields on. */
static bool go_space(uint32_t c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0x85 || c == 0xa0 || c == 0x1680 ||
	       (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f ||
	       c == 0x205f || c == 0x3000;
}

/* Control and format characters, which strconv.IsPrint rejects and Go's testing package
 * escapes; the rest of Unicode passes as it is. */
static bool go_unprintable(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0xad || (c >= 0x200b && c <= 0x200f) ||
	       (c >= 0x202a && c <= 0x202e) || (c >= 0x2060 && c <= 0x206f) || c == 0xfeff ||
	       (c >= 0xfff9 && c <= 0xfffb);
}

char *pmc_escape_go_name(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	/* At most 6 bytes ("\u200b") for each byte of s. */
	char *out = malloc(6 * strlen(s) + 1), *q = out;

	if (!out)
		return NULL;
	while (*p) {
		size_t n = pmc_utf8_len(p);
		uint32_t c = n ? decode(p, n) : 0xfffd;

		if (go_space(c)) {
			*q++ = '_';
		} else if (c == '\a' || c == '\b') {
			q += sprintf(q, "\\%c", c == '\a' ? 'a' : 'b');
		} else if (go_unprintable(c)) {
			q += sprintf(q, c < 0x80 ? "\\x%02x" : "\\u%04x", (unsigned)c);
		} else if (n) {
			memcpy(q, p, n);
			q += n;
		} else {
			memcpy(q, "\xef\xbf\xbd", 3);
			q += 3;
		}
		p += n ? n : 1;
	}
	*q = '\0';
	return out;
}

void pmc_escape_go_text(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = pmc_utf8_len(p);

		if (n == 0)
			fputs("\xef\xbf\xbd", out);
		else if (control_len(p))
			fputc(' ', out);
		else
			fwrite(p, 1, n, out);
		p += n ? n : 1;
	}
}

/* XML text (escape.h). */
void pmc_escape_xml(FILE *out, const char *s, size_t max_chars)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t chars = 0;
	while (*p) {
		if (max_chars != SIZE_MAX && chars + 1 > max_chars) {
			fputs("..", out);
			return;
		}
		size_t l = pmc_utf8_len(p);
		chars++;
		if (l == 0 || *p < 0x20 || *p == 0x7f || (l == 2 && p[0] == 0xc2 && p[1] < 0xa0)) {
			fputs("\xef\xbf\xbd", out);
			p += l ? l : 1;
			continue;
		}
		switch (*p) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			fwrite(p, 1, l, out);
		}
		p += l;
	}
}

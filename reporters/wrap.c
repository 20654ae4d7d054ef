/* Lines that fit a terminal (reporters/wrap.h). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "reporters/wrap.h"

size_t pmc_report_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

/* Columns of s[0..n): one per code point, none for an SGR colour sequence. */
static size_t columns(const char *s, size_t n)
{
	size_t w = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\033') {
			while (i < n && s[i] != 'm')
				i++;
			continue;
		}
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	}
	return w;
}

/* One line of pmc_report_wrap: greedy, as fmt(1) without its filling. */
static void wrap_line(FILE *out, const char *s, size_t n, unsigned width)
{
	size_t lead = 0, col, start;
	bool first = true;

	while (lead < n && s[lead] == ' ')
		lead++;
	fwrite(s, 1, lead, out);
	col = lead;
	start = lead;
	while (start < n) {
		size_t end = start, w, gap = 0;

		while (start + gap < n && s[start + gap] == ' ')
			gap++;
		start += gap;
		end = start;
		while (end < n && s[end] != ' ')
			end++;
		w = columns(s + start, end - start);
		if (!first && col + gap + w > width) {
			fprintf(out, "\n%*s", (int)(lead + 2), "");
			col = lead + 2;
		} else {
			/* The spaces between two words stay as the text had them. */
			fprintf(out, "%*s", (int)gap, "");
			col += gap;
		}
		fwrite(s + start, 1, end - start, out);
		col += w;
		first = false;
		start = end;
	}
	fputc('\n', out);
}

void pmc_report_wrap(FILE *out, const char *text, unsigned width)
{
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (!width || columns(p, n) <= width) {
			fwrite(p, 1, n, out);
			fputc('\n', out);
		} else {
			wrap_line(out, p, n, width);
		}
		p += n;
		if (*p == '\n')
			p++;
	}
}

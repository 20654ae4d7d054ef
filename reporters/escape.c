/* Escapers for terminal text and Markdown (escape.h). */
#include <stdbool.h>
#include <string.h>

#include "reporters/escape.h"

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

void pmc_escape_text(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(is_control((unsigned char)*s) ? ' ' : *s, out);
}

void pmc_escape_md(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (is_control(c))
			fputc(' ', out);
		else if (strchr("\\`*_|<>[]#", c))
			fprintf(out, "\\%c", c);
		else
			fputc(c, out);
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

/* git's output for the history commands (cli_git.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "cli/cli_git.h"

void pmc_cli_sh_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

char *pmc_cli_first_line(FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n = getline(&line, &cap, f);

	if (n <= 0) {
		free(line);
		return NULL;
	}
	line[strcspn(line, "\n")] = '\0';
	if (!*line) {
		free(line);
		return NULL;
	}
	return line;
}

char *pmc_cli_git(const char *fmt, const char *a, const char *b)
{
	char *cmd = NULL, *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&cmd, &len), *p;

	if (!m)
		return NULL;
	fprintf(m, "git %s", fmt);
	if (a) {
		fputc(' ', m);
		pmc_cli_sh_quote(m, a);
	}
	if (b) {
		fputc(' ', m);
		pmc_cli_sh_quote(m, b);
	}
	fputs(" 2>/dev/null", m);
	if (fclose(m) != 0) {
		free(cmd);
		return NULL;
	}
	p = popen(cmd, "r");
	free(cmd);
	if (!p)
		return NULL;
	out = pmc_cli_first_line(p);
	if (pclose(p) != 0) {
		free(out);
		out = NULL;
	}
	return out;
}

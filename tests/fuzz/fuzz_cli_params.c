/* libFuzzer target: `pmcbench run`'s parameter scans (harness/7-cli/cli_run_params.c),
 * -L VAR a,b,c, -P VAR MIN MAX and -D STEP, then the commands they make. Each input line
 * is one option: "L NAME VALUES", "P NAME MIN MAX", "D STEP" or "C COMMAND" (-c); the
 * options are checked as the CLI checks them once all are read, and the commands of the
 * first combinations written out. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_run_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

#define MAX_LINES 8

/* The next word of *s, NUL-terminated in place; "" at the end. */
static char *word(char **s)
{
	char *w = *s + strspn(*s, " "), *e = w + strcspn(w, " ");

	*s = *e ? e + 1 : e;
	*e = '\0';
	return w;
}

static int option(struct run_cli *c, char *line, char **cmds)
{
	char *rest = line + 1, *name, *min;

	switch (line[0]) {
	case 'L':
		name = word(&rest);
		return pmc_cli_run_param_list(c, name, rest);
	case 'P':
		name = word(&rest);
		min = word(&rest);
		return pmc_cli_run_param_scan(c, name, min, word(&rest));
	case 'D':
		c->param_step = word(&rest);
		return 0;
	case 'C':
		cmds[c->ncmd_strings++] = rest;
		return 0;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct run_cli c = {0};
	char *text = malloc(n + 1), *line, *cmds[MAX_LINES];
	int r = 0;

	if (!text)
		return 0;
	memcpy(text, data, n);
	text[n] = '\0';
	c.cmd_strings = cmds;
	line = text;
	for (int k = 0; k < MAX_LINES && r == 0 && *line; k++) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		r = option(&c, line, cmds);
		line = nl ? nl + 1 : line + strlen(line);
	}
	if (r == 0 && pmc_cli_run_params_finish(&c, 0, NULL, 0) == 0) {
		if (c.nparams && c.ncombos == 0)
			abort();
		for (size_t combo = 0; combo < c.ncombos && combo < 64; combo++) {
			for (size_t i = 0; i < c.ncmd_strings; i++)
				free(pmc_cli_run_subst(&c, c.cmd_strings[i], combo));
			for (size_t i = 0; i < c.nparams; i++)
				if (!pmc_cli_run_param_value(&c, i, combo))
					abort();
		}
	}
	pmc_cli_run_params_clear(&c);
	free(text);
	return 0;
}

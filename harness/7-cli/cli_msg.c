/* The CLI's one-line messages on stderr (cli.h), shared by the pmcbench executable and
 * the command line of benchmark programs (cli_microbench.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "reporters/escape.h"
#include "reporters/wrap.h"
#include "session/session.h"

/* Every message goes through pmc_escape_text: a file name, an event list or a command
 * the user gave may hold ESC or C1 bytes, which must not drive the terminal (issue 19,
 * item 5), whichever message quotes it. */
__attribute__((format(printf, 2, 0))) static void vmsg(const char *prefix, const char *fmt,
						       va_list ap)
{
	char *text = NULL, *line = NULL;
	size_t len = 0;
	FILE *m;

	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	/* One message, one line, wrapped to the terminal's width (docs/cli.md, "Width"). */
	m = open_memstream(&line, &len);
	if (m) {
		fprintf(m, "pmcbench: %s", prefix);
		if (text)
			pmc_escape_text(m, text);
		else
			fputs("(out of memory)", m);
		if (fclose(m) == 0 && line)
			pmc_report_wrap(stderr, line, pmc_session_stream_width(stderr));
	}
	free(line);
	free(text);
}

void pmc_cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void pmc_cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void pmc_cli_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("note: ", fmt, ap);
	va_end(ap);
}

void pmc_cli_quote_lines(const char *text, const char *lead)
{
	char *copy = strdup(text), *line, *save = NULL;

	if (!copy)
		return;
	/* One line at a time: pmc_escape_text turns a newline into a space. */
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		fputs("  ", stderr);
		if (lead) {
			fputs(lead, stderr);
			lead = NULL;
		}
		pmc_escape_text(stderr, line);
		fputc('\n', stderr);
	}
	free(copy);
}

/* The benchmark program whose command line runs (pmc_main_defs), as it was started; NULL
 * in the pmcbench executable. The command line's own, as getopt's optind is. */
static const char *own_program;

void pmc_cli_set_program(const char *argv0)
{
	own_program = argv0;
}

const char *pmc_cli_see(const char *cmd, char *buf, size_t len)
{
	if (own_program)
		snprintf(buf, len, "see '%s --help'", own_program);
	else
		snprintf(buf, len, "see 'pmcbench help %s'", cmd);
	return buf;
}

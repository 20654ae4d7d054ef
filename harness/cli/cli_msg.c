/* The CLI's one-line messages on stderr (cli.h), shared by the pmcbench executable and
 * the command line of benchmark programs (cli_microbench.c). */
#include <stdarg.h>
#include <stdio.h>

#include "harness/cli/cli.h"

__attribute__((format(printf, 2, 0))) static void vmsg(const char *prefix, const char *fmt,
						       va_list ap)
{
	fprintf(stderr, "pmcbench: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
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

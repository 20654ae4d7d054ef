/* The process-wide log sink (log.h). Libraries format their message here and hand it to
 * the callback the CLI installed; without one, messages are dropped, never printed. */
#include <stdarg.h>
#include <stdio.h>

#include "harness/base/print.h"

static pmc_log_fn log_fn;
static void *log_ud;

void pmc_log_set(pmc_log_fn fn, void *ud)
{
	log_fn = fn;
	log_ud = ud;
}

void pmc_log(enum pmc_log_level level, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (!log_fn)
		return;
	va_start(ap, fmt);
	/* A message longer than the buffer is cut, not dropped: the start says what went
	 * wrong, which matters more than the tail. */
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	log_fn(log_ud, level, buf);
}

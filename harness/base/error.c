/* Error messages into a caller's buffer (error.h). */
#include <stdarg.h>
#include <stdio.h>

#include "harness/base/error.h"

void pmc_err_set(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

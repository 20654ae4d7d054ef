/* Options structs (opts.h). */
#include <stddef.h>

#include "base/opts.h"

bool pmc_opts_valid(const void *opts, size_t known)
{
	const unsigned char *p = opts;
	size_t sz;

	if (!opts)
		return true;
	sz = *(const size_t *)opts;
	if (sz < sizeof(size_t))
		return false;
	for (size_t i = known; i < sz; i++)
		if (p[i])
			return false;
	return true;
}

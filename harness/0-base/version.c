/* The library's version (pmcbench/common.h). */
#include "config.h"
#include "pmcbench/common.h"

const char *pmc_version(void)
{
	return PMC_VERSION;
}

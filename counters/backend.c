/* The registry of backends (counters/backend.h): one entry per line of PMC_BACKENDS. */
#include <errno.h>
#include <string.h>

#include "counters/backend.h"

static const struct pmc_backend_ops *const backends[PMC_BACKEND_COUNT] = {
#define PMC_BACKEND_ENTRY(sym, name) [PMC_BACKEND_##sym] = &pmc_backend_##name,
    PMC_BACKENDS(PMC_BACKEND_ENTRY)
#undef PMC_BACKEND_ENTRY
};

const struct pmc_backend_ops *pmc_backend_get(enum pmc_backend id)
{
	return (unsigned)id < PMC_BACKEND_COUNT ? backends[id] : NULL;
}

int pmc_backend_find(const char *name, enum pmc_backend *ret)
{
	for (size_t i = 0; name && i < PMC_BACKEND_COUNT; i++) {
		if (strcmp(backends[i]->name, name) == 0) {
			*ret = (enum pmc_backend)i;
			return 0;
		}
	}
	return -ENOENT;
}

/* The table of known metric ids: unit, direction and a short description
 * (docs/metrics.md explains each). Ids not in the table (raw and PMU events) are
 * counts where lower is better. */
#pragma once

#include <stdbool.h>

enum pmc_better { PMC_LOWER_IS_BETTER = -1, PMC_HIGHER_IS_BETTER = 1 };

struct pmc_metric_info {
	const char *id;
	const char *unit; /* "count", "ns", "bytes", "ratio", "percent", "GHz", "CPUs" */
	enum pmc_better better;
	const char *description;
};

/* Looks up an id; the modifiers ":u"/":k" are ignored. Unknown ids get a generic
 * "count, lower is better" entry whose id is NULL. */
struct pmc_metric_info pmc_metric_lookup(const char *id);

/* The table of known metric ids: unit, direction and a short description
 * (docs/metrics.md explains each). Ids not in the table (raw and PMU events) are
 * counts where lower is better. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

enum pmc_better { PMC_LOWER_IS_BETTER = -1, PMC_HIGHER_IS_BETTER = 1 };

struct pmc_metric_info {
	const char *id;
	const char *unit; /* "count", "ns", "bytes", "ratio", "percent", "GHz", "CPUs" */
	enum pmc_better better;
	const char *description;
	bool derived; /* computed from other metrics of the same run (ipc, miss rates, ...) */
};

/* Looks up an id; the modifiers ":u"/":k" are ignored, and "<id>/op" (per operation)
 * has the unit and direction of <id> (the returned id is then <id>'s). Unknown ids get a
 * generic "count, lower is better" entry whose id is NULL. */
struct pmc_metric_info pmc_metric_lookup(const char *id);

/* The known metrics in table order, for listings and docs: entry i < count. */
size_t pmc_metric_count(void);
const struct pmc_metric_info *pmc_metric_at(size_t i);

/* The metric registry: what each metric id means — its unit, the direction of an
 * improvement, its kind and a description (docs/metrics.md). Read-only; plain C11. */
#ifndef PMCBENCH_METRICS_H
#define PMCBENCH_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include "pmcbench/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The direction of an improvement. Ratios with no natural direction (cpus-utilized) have
 * PMC_NO_DIRECTION: comparisons report their changes but call none a regression or an
 * improvement unless a signed limit names them (docs/metrics.md). */
enum pmc_better { PMC_LOWER_IS_BETTER = -1, PMC_NO_DIRECTION = 0, PMC_HIGHER_IS_BETTER = 1 };

enum pmc_metric_kind {
	PMC_METRIC_EVENT,     /* a perf event: a count, or a time for the clock events */
	PMC_METRIC_TIME,      /* a time from wait4 (wall-time, user-time, system-time) */
	PMC_METRIC_SIZE,      /* a size from wait4 (max-rss) */
	PMC_METRIC_DERIVED,   /* computed from other metrics of the same run (ipc, ...) */
	PMC_METRIC_SIMULATED, /* counted or estimated by a simulator (valgrind) */
};

/* The events `pmcbench run` counts when none are given: the inputs of the derived
 * metrics, each ratio's two events in one group so that multiplexing cannot skew it;
 * the software events share a group, since they always schedule together. */
#define PMC_DEFAULT_EVENTS                                                                         \
	"{cycles,instructions},{branches,branch-misses},{cache-references,cache-misses},"          \
	"{task-clock,page-faults,context-switches,cpu-migrations}"

/* One entry of the registry; static, never freed. */
struct pmc_metric_info;

/* Finds the entry of id. The perf modifiers ":u", ":k" (any letters after a ':') are
 * ignored, and "<id>/op" (per operation) finds <id>'s entry, whose unit and direction it
 * shares. Returns 0 and the entry in *ret, -ENOENT for an id the registry does not know
 * (raw and PMU events: counts, lower is better), -EINVAL for NULL arguments. */
PMC_API int pmc_metric_info_lookup(const char *id, const struct pmc_metric_info **ret);

/* The number of entries, and entry i (NULL when i >= count), in registry order. */
PMC_API size_t pmc_metric_info_count(void);
PMC_API const struct pmc_metric_info *pmc_metric_info_at(size_t i);

/* The entry's id ("cycles", "ipc", ...) and unit: "count", "ns", "bytes", "ratio",
 * "percent", "GHz" or "CPUs". */
PMC_API const char *pmc_metric_info_id(const struct pmc_metric_info *info);
PMC_API const char *pmc_metric_info_unit(const struct pmc_metric_info *info);
/* The direction of an improvement, PMC_NO_DIRECTION for a ratio that has none. */
PMC_API enum pmc_better pmc_metric_info_direction(const struct pmc_metric_info *info);
/* Whether `pmcbench gate` judges the metric when no limit names metrics: true for the
 * metrics that measure work or its cost (times, instructions, cycles, misses, page
 * faults, max-rss, the simulated counts); false for the rest (docs/metrics.md). */
PMC_API bool pmc_metric_info_gated(const struct pmc_metric_info *info);
PMC_API enum pmc_metric_kind pmc_metric_info_kind(const struct pmc_metric_info *info);
/* A short description, one line without a final period. */
PMC_API const char *pmc_metric_info_description(const struct pmc_metric_info *info);

#ifdef __cplusplus
}
#endif

#endif /* PMCBENCH_METRICS_H */

/* The metric table (metrics.h, docs/metrics.md). One X-macro row per id keeps the id,
 * unit, direction and description in step. */
#include <string.h>

#include "harness/core/metrics.h"

#define LOWER PMC_LOWER_IS_BETTER
#define HIGHER PMC_HIGHER_IS_BETTER

/* perf's generic hardware cache events are <cache>-<op>s and <cache>-<op>-misses for
 * every cache and operation (tools/perf/util/evsel.c names them this way). The kernel
 * decides which combinations exist; the table knows all of them. */
#define PMC_HW_CACHE_OPS(X, c, d)                                                                  \
	X(c "-loads", "count", LOWER, false, d " loads")                                           \
	X(c "-load-misses", "count", LOWER, false, d " load misses")                               \
	X(c "-stores", "count", LOWER, false, d " stores")                                         \
	X(c "-store-misses", "count", LOWER, false, d " store misses")                             \
	X(c "-prefetches", "count", LOWER, false, d " prefetches")                                 \
	X(c "-prefetch-misses", "count", LOWER, false, d " prefetch misses")

#define PMC_METRICS(X)                                                                             \
	/* Generic hardware events (PERF_TYPE_HARDWARE). */                                        \
	X("cycles", "count", LOWER, false, "CPU cycles")                                           \
	X("instructions", "count", LOWER, false,                                                   \
	  "instructions retired (executed, when simulated)")                                       \
	X("cache-references", "count", LOWER, false, "cache accesses (usually the LLC)")           \
	X("cache-misses", "count", LOWER, false, "cache misses (usually the LLC)")                 \
	X("branches", "count", LOWER, false, "branch instructions retired")                        \
	X("branch-misses", "count", LOWER, false, "mispredicted branches")                         \
	X("bus-cycles", "count", LOWER, false, "bus cycles")                                       \
	X("stalled-cycles-frontend", "count", LOWER, false, "cycles the front end issued nothing") \
	X("stalled-cycles-backend", "count", LOWER, false, "cycles the back end retired nothing")  \
	X("ref-cycles", "count", LOWER, false,                                                     \
	  "reference cycles, unaffected by frequency scaling")                                     \
	/* Generic hardware cache events (PERF_TYPE_HW_CACHE). */                                  \
	PMC_HW_CACHE_OPS(X, "L1-dcache", "L1 data cache")                                          \
	PMC_HW_CACHE_OPS(X, "L1-icache", "L1 instruction cache")                                   \
	PMC_HW_CACHE_OPS(X, "LLC", "last-level cache")                                             \
	PMC_HW_CACHE_OPS(X, "dTLB", "data TLB")                                                    \
	PMC_HW_CACHE_OPS(X, "iTLB", "instruction TLB")                                             \
	PMC_HW_CACHE_OPS(X, "branch", "branch prediction unit")                                    \
	PMC_HW_CACHE_OPS(X, "node", "local NUMA node memory")                                      \
	/* Software events (PERF_TYPE_SOFTWARE). */                                                \
	X("task-clock", "ns", LOWER, false, "CPU time of the task")                                \
	X("cpu-clock", "ns", LOWER, false, "CPU time, from the per-CPU clock")                     \
	X("page-faults", "count", LOWER, false, "page faults")                                     \
	X("minor-faults", "count", LOWER, false, "page faults served without I/O")                 \
	X("major-faults", "count", LOWER, false, "page faults that needed I/O")                    \
	X("context-switches", "count", LOWER, false, "context switches")                           \
	X("cpu-migrations", "count", LOWER, false, "moves to another CPU")                         \
	X("alignment-faults", "count", LOWER, false, "alignment faults")                           \
	X("emulation-faults", "count", LOWER, false, "instruction emulation faults")               \
	/* From wait4() of the measured process. */                                                \
	X("wall-time", "ns", LOWER, false, "elapsed real time")                                    \
	X("user-time", "ns", LOWER, false, "CPU time in user mode (rusage)")                       \
	X("system-time", "ns", LOWER, false, "CPU time in the kernel (rusage)")                    \
	X("max-rss", "bytes", LOWER, false, "peak resident set size (rusage)")                     \
	/* Derived from other metrics of the same run (docs/metrics.md has the formulas). */       \
	X("ipc", "ratio", HIGHER, true, "instructions per cycle")                                  \
	X("branch-miss-rate", "percent", LOWER, true, "mispredicted branches per branch")          \
	X("cache-miss-rate", "percent", LOWER, true, "cache misses per cache reference")           \
	/* No natural direction: lower is taken as better so that a gate on it flags a             \
	 * program that burns more CPU time per second of wall time (docs/metrics.md). */          \
	X("cpus-utilized", "CPUs", LOWER, true, "CPU time per wall time")                          \
	X("ghz", "GHz", HIGHER, true, "cycles per nanosecond of CPU time")                         \
	/* Simulated by valgrind (cachegrind/callgrind); "instructions" is shared above. */        \
	X("data-reads", "count", LOWER, false, "memory reads (simulated)")                         \
	X("data-writes", "count", LOWER, false, "memory writes (simulated)")                       \
	X("I1-misses", "count", LOWER, false, "L1 instruction cache misses (simulated)")           \
	X("LLi-misses", "count", LOWER, false,                                                     \
	  "last-level cache misses by instruction fetches (simulated)")                            \
	X("D1-read-misses", "count", LOWER, false, "L1 data cache read misses (simulated)")        \
	X("LLd-read-misses", "count", LOWER, false,                                                \
	  "last-level cache misses by data reads (simulated)")                                     \
	X("D1-write-misses", "count", LOWER, false, "L1 data cache write misses (simulated)")      \
	X("LLd-write-misses", "count", LOWER, false,                                               \
	  "last-level cache misses by data writes (simulated)")                                    \
	X("branch-cond", "count", LOWER, false, "conditional branches (simulated)")                \
	X("branch-cond-misses", "count", LOWER, false,                                             \
	  "mispredicted conditional branches (simulated)")                                         \
	X("branch-indirect", "count", LOWER, false, "indirect branches (simulated)")               \
	X("branch-indirect-misses", "count", LOWER, false,                                         \
	  "mispredicted indirect branches (simulated)")                                            \
	X("est-cycles", "count", LOWER, true,                                                      \
	  "estimated cycles: L1 hits + 5 x LL hits + 35 x memory accesses (simulated)")

#define PMC_METRIC_ROW(id_, unit_, better_, derived_, desc_)                                       \
	{.id = id_, .unit = unit_, .better = better_, .description = desc_, .derived = derived_},

static const struct pmc_metric_info metric_table[] = {PMC_METRICS(PMC_METRIC_ROW)};

#define NMETRICS (sizeof(metric_table) / sizeof(metric_table[0]))

size_t pmc_metric_count(void)
{
	return NMETRICS;
}

const struct pmc_metric_info *pmc_metric_at(size_t i)
{
	return i < NMETRICS ? &metric_table[i] : NULL;
}

/* Length of id without a trailing perf modifier such as ":u", ":k" or ":uk". */
static size_t strip_modifier(const char *id, size_t len)
{
	size_t i = len;

	while (i > 0 &&
	       ((id[i - 1] >= 'a' && id[i - 1] <= 'z') || (id[i - 1] >= 'A' && id[i - 1] <= 'Z')))
		i--;
	if (i > 0 && i < len && id[i - 1] == ':')
		return i - 1;
	return len;
}

struct pmc_metric_info pmc_metric_lookup(const char *id)
{
	static const char per_op[] = "/op";
	struct pmc_metric_info generic = {
	    .id = NULL,
	    .unit = "count",
	    .better = PMC_LOWER_IS_BETTER,
	    .description = "event count",
	    .derived = false,
	};
	size_t len;

	if (!id)
		return generic;
	len = strlen(id);
	/* "<id>/op" is <id> divided by the operations of the run: same unit and direction. */
	if (len > sizeof(per_op) - 1 && strcmp(id + len - (sizeof(per_op) - 1), per_op) == 0)
		len -= sizeof(per_op) - 1;
	len = strip_modifier(id, len);

	for (size_t i = 0; i < NMETRICS; i++) {
		const char *name = metric_table[i].id;

		if (name[0] == id[0] && strncmp(name, id, len) == 0 && name[len] == '\0')
			return metric_table[i];
	}
	return generic;
}

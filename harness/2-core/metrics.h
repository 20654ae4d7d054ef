/* The metric registry (include/pmcbench/metrics.h, docs/metrics.md): one table of every
 * known metric id with its unit, direction, kind, derivation and display. Ids not in
 * the table (raw and PMU events) are counts where lower is better. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "pmcbench/metrics.h"

struct pmc_metric_info {
	const char *id;
	const char *unit;	   /* "count", "ns", "bytes", "ratio", "percent", "GHz", "CPUs" */
	enum pmc_better direction; /* PMC_NO_DIRECTION for ratios without one */
	/* The direction a result file stores ("lower" or "higher"; its schema has no
	 * "none"): a metric without one is stored as lower is better. Comparisons use
	 * direction, not this. Never PMC_NO_DIRECTION. */
	enum pmc_better better;
	/* Judged by `gate` when no limit names metrics (docs/metrics.md, "Gated by
	 * default"). */
	bool gated;
	enum pmc_metric_kind kind;
	/* Computed from other metrics of the run: by pmc_benchmark_derive() when num is
	 * set (scale * num / den), else by the backend that has the inputs (est-cycles). */
	bool derived;
	const char *num, *den;
	double scale;
	/* Display, as perf stat shows it: a derived metric beside the value of host, followed
	 * by host_text ("1.23 insn per cycle"); trailer rows come after the counters. */
	const char *host, *host_text;
	bool trailer;
	const char *description;
};

/* Looks up an id as pmc_metric_info_lookup() does, by value. Unknown ids get a generic
 * "count, lower is better" entry whose id is NULL. */
struct pmc_metric_info pmc_metric_lookup(const char *id);

/* The entry whose id is exactly id (no modifier, no "/op"), or NULL. */
const struct pmc_metric_info *pmc_metric_find(const char *id);

/* The primary time metrics, in order of preference, NULL-terminated: task-clock when
 * counted, else wall-time. The headline, the fastest command, the reference block and
 * the progress line's median all pick the first of these a result has
 * (docs/compare.md, "The headline"), in the order pmc_metric_primary_order() gives. */
extern const char *const pmc_metric_primary[];

/* Commands whose CPU time is below this share of their wall-time mostly wait (sleep,
 * I/O, a server): what the user waits for is the wall-time. Low enough that a busy
 * command on a loaded machine (a fifth of a CPU is four other runnable tasks on its
 * CPU) keeps its CPU time, whose measure the load does not stretch. */
#define PMC_PRIMARY_MIN_CPU_PERCENT 20
#define PMC_PRIMARY_MIN_CPU_SHARE (PMC_PRIMARY_MIN_CPU_PERCENT / 100.0)

/* The one rule for the primary metric: pmc_metric_primary's ids, wall-time first when
 * cpu_share (the smallest CPU time / wall-time of the compared commands, of their fastest
 * runs: pmc_comparison_primary; NAN when unknown) is below PMC_PRIMARY_MIN_CPU_SHARE. */
const char *const *pmc_metric_primary_order(double cpu_share);

/* Whether order (from pmc_metric_primary_order) put wall-time first for low CPU use. */
bool pmc_metric_primary_waits(const char *const *order);

/* Whether a metric's value moves with the machine's conditions (load, frequency, what
 * runs beside it, cache contention) rather than only with the work the program does:
 * times and rates, cycles, misses, context switches and migrations, the ratios derived
 * from them, and ids the table does not know. Work counts (instructions, branches,
 * loads and stores, page faults, max-rss) do not; simulated counts never do. Samples of
 * one invocation share its conditions, so such a metric is not tested between two
 * single invocations (docs/statistics.md, "The unit of replication"). */
bool pmc_metric_drifts(const char *id);

/* Kernel event counts (docs/events.md, "Tracepoints" and "Function calls"): whether id
 * names a tracepoint as perf spells it ("syscalls:sys_enter_openat", "sched:sched_switch",
 * with a modifier or "/op" after it, the sum "syscalls:total" too), or a function's calls
 * ("uprobe:libc:malloc"). Both are the kernel's exact counts of what happened. */
bool pmc_metric_is_tracepoint(const char *id);
bool pmc_metric_is_uprobe(const char *id);

/* Whether the kernel counts id by one for each occurrence, so that two runs doing the
 * same work read the same count (docs/metrics.md, "Identical runs"): tracepoints,
 * uprobes, the software events that count faults, context switches and CPU
 * migrations, and a benchmark program's allocations (allocs, alloc-bytes, counted in
 * its process as exactly). Not clocks (task-clock, cpu-clock) nor hardware events, whose counts
 * carry the PMU's skid and interrupts. */
bool pmc_metric_is_kernel_count(const char *id);

/* The metric registry (metrics.h, docs/metrics.md). One X-macro row per id keeps its unit,
 * direction, kind, derivation, display and description in step: adding a metric is one
 * row here. */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "core/metrics.h"

/* Directions. */
#define LOWER PMC_LOWER_IS_BETTER
#define HIGHER PMC_HIGHER_IS_BETTER
#define NONE PMC_NO_DIRECTION
/* Gated by default: `gate` without a limit that names metrics judges the metrics that
 * measure work or its cost (times, instructions, cycles, misses, page faults, memory);
 * the others are reported only (docs/metrics.md, "Gated by default"). */
#define GATED true
#define REPORTED false
/* Kinds. */
#define EVENT PMC_METRIC_EVENT
#define TIME PMC_METRIC_TIME
#define SIZE PMC_METRIC_SIZE
#define DERIVED PMC_METRIC_DERIVED
#define SIMULATED PMC_METRIC_SIMULATED
/* Derivations: measured; scale * num / den of the same run (pmc_benchmark_derive); or a
 * formula of the backend that has the inputs (valgrind's est-cycles). */
#define MEASURED .derived = false
#define RATIO(num_, den_, scale_) .derived = true, .num = num_, .den = den_, .scale = scale_
#define BY_BACKEND .derived = true
/* Display: a row of its own; beside another metric's value, followed by words (as perf
 * stat prints "# 1.23 insn per cycle"); or a row after the counters. */
#define OWN_ROW .trailer = false
#define BESIDE(host_, text_) .host = host_, .host_text = text_
#define TRAILER .trailer = true

/* perf's generic hardware cache events are <cache>-<op>s and <cache>-<op>-misses for
 * every cache and operation (tools/perf/util/evsel.c names them this way). The kernel
 * decides which combinations exist; the table knows all of them. */
#define PMC_HW_CACHE_OPS(X, c, d)                                                                  \
	X(c "-loads", "count", LOWER, REPORTED, EVENT, MEASURED, OWN_ROW, d " loads")              \
	X(c "-load-misses", "count", LOWER, GATED, EVENT, MEASURED, OWN_ROW, d " load misses")     \
	X(c "-stores", "count", LOWER, REPORTED, EVENT, MEASURED, OWN_ROW, d " stores")            \
	X(c "-store-misses", "count", LOWER, GATED, EVENT, MEASURED, OWN_ROW, d " store misses")   \
	X(c "-prefetches", "count", LOWER, REPORTED, EVENT, MEASURED, OWN_ROW, d " prefetches")    \
	X(c "-prefetch-misses", "count", LOWER, GATED, EVENT, MEASURED, OWN_ROW,                   \
	  d " prefetch misses")

/* Columns: id, unit, direction, gated by default, kind, derivation, display, description. */
#define PMC_METRICS(X)                                                                             \
	/* Generic hardware events (PERF_TYPE_HARDWARE). */                                        \
	X("cycles", "count", LOWER, GATED, EVENT, MEASURED, OWN_ROW, "CPU cycles")                 \
	X("instructions", "count", LOWER, GATED, EVENT, MEASURED, OWN_ROW,                         \
	  "instructions retired (executed, when simulated)")                                       \
	X("cache-references", "count", LOWER, REPORTED, EVENT, MEASURED, OWN_ROW,                  \
	  "cache accesses (usually the LLC)")                                                      \
	X("cache-misses", "count", LOWER, GATED, EVENT, MEASURED, OWN_ROW,                         \
	  "cache misses (usually the LLC)")                                                        \
	X("branches", "count", LOWER, GATED, EVENT, MEASURED, OWN_ROW,                             \
	  "branch instructions retired")                                                           \
	X("branch-misses", "count", LOWER, GATED, EVENT, MEASURED, OWN_ROW,                        \
	  "mispredicted branches")                                                                 \
	X("bus-cycles", "count", LOWER, REPORTED, EVENT, MEASURED, OWN_ROW, "bus cycles")          \
	X("stalled-cycles-frontend", "count", LOWER, REPORTED, EVENT, MEASURED, OWN_ROW,           \
	  "cycles the front end issued nothing")                                                   \
	X("stalled-cycles-backend", "count", LOWER, REPORTED, EVENT, MEASURED, OWN_ROW,            \
	  "cycles the back end retired nothing")                                                   \
	X("ref-cycles", "count", LOWER, GATED, EVENT, MEASURED, OWN_ROW,                           \
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
	X("task-clock", "ns", LOWER, GATED, EVENT, MEASURED, OWN_ROW, "CPU time of the task")      \
	X("cpu-clock", "ns", LOWER, GATED, EVENT, MEASURED, OWN_ROW,                               \
	  "CPU time, from the per-CPU clock")                                                      \
	X("page-faults", "count", LOWER, GATED, EVENT, MEASURED, OWN_ROW, "page faults")           \
	X("minor-faults", "count", LOWER, GATED, EVENT, MEASURED, OWN_ROW,                         \
	  "page faults served without I/O")                                                        \
	X("major-faults", "count", LOWER, GATED, EVENT, MEASURED, OWN_ROW,                         \
	  "page faults that needed I/O")                                                           \
	X("context-switches", "count", LOWER, REPORTED, EVENT, MEASURED, OWN_ROW,                  \
	  "context switches")                                                                      \
	X("cpu-migrations", "count", LOWER, REPORTED, EVENT, MEASURED, OWN_ROW,                    \
	  "moves to another CPU")                                                                  \
	X("alignment-faults", "count", LOWER, REPORTED, EVENT, MEASURED, OWN_ROW,                  \
	  "alignment faults")                                                                      \
	X("emulation-faults", "count", LOWER, REPORTED, EVENT, MEASURED, OWN_ROW,                  \
	  "instruction emulation faults")                                                          \
	/* From wait4() of the measured process; shown after the counters, in this order, as       \
	 * perf shows the elapsed time after them. */                                              \
	X("wall-time", "ns", LOWER, GATED, TIME, MEASURED, TRAILER, "elapsed real time")           \
	X("user-time", "ns", LOWER, GATED, TIME, MEASURED, TRAILER,                                \
	  "CPU time in user mode (rusage)")                                                        \
	X("system-time", "ns", LOWER, REPORTED, TIME, MEASURED, TRAILER,                           \
	  "CPU time in the kernel (rusage)")                                                       \
	X("max-rss", "bytes", LOWER, GATED, SIZE, MEASURED, TRAILER,                               \
	  "peak resident set size (rusage)")                                                       \
	/* CPU time as another tool measured it (Google Benchmark's cpu_time, docs/import.md):     \
	 * the CPU time of the timed thread, or process, by that tool's clock. */                  \
	X("cpu-time", "ns", LOWER, GATED, TIME, MEASURED, TRAILER,                                 \
	  "CPU time: user+system where task-clock was denied, or as imported")                     \
	/* Throughput of a microbenchmark (docs/microbench.md): the work per iteration it set,     \
	 * over wall-time/op: a time kind. Reported, not gated: wall-time/op is. */                \
	X("items/s", "items/s", HIGHER, REPORTED, TIME, MEASURED, TRAILER,                         \
	  "items processed per second (microbenchmarks)")                                          \
	X("bytes/s", "bytes/s", HIGHER, REPORTED, TIME, MEASURED, TRAILER,                         \
	  "bytes processed per second (microbenchmarks)")                                          \
	/* A benchmark program's allocations (docs/microbench.md, "Allocations"): counted in its   \
	 * process, or the calls through uprobes; work, gated as counts. */                        \
	X("allocs", "count", LOWER, GATED, EVENT, MEASURED, OWN_ROW,                               \
	  "allocation calls (malloc, calloc, realloc, ...)")                                       \
	X("alloc-bytes", "bytes", LOWER, GATED, SIZE, MEASURED, OWN_ROW,                           \
	  "bytes asked for by allocation calls")                                                   \
	/* Derived from other metrics of the same run (docs/metrics.md has the formulas). */       \
	X("ipc", "ratio", HIGHER, REPORTED, DERIVED, RATIO("instructions", "cycles", 1.0),         \
	  BESIDE("instructions", " insn per cycle"), "instructions per cycle")                     \
	X("branch-miss-rate", "percent", LOWER, REPORTED, DERIVED,                                 \
	  RATIO("branch-misses", "branches", 100.0), BESIDE("branch-misses", "% of all branches"), \
	  "mispredicted branches per branch")                                                      \
	X("cache-miss-rate", "percent", LOWER, REPORTED, DERIVED,                                  \
	  RATIO("cache-misses", "cache-references", 100.0),                                        \
	  BESIDE("cache-misses", "% of all cache refs"), "cache misses per cache reference")       \
	/* No natural direction: a change of it is reported, never judged better or worse,         \
	 * unless a signed limit names it (docs/metrics.md). */                                    \
	X("cpus-utilized", "CPUs", NONE, REPORTED, DERIVED, RATIO("task-clock", "wall-time", 1.0), \
	  BESIDE("task-clock", " CPUs utilized"), "CPU time per wall time")                        \
	X("ghz", "GHz", HIGHER, REPORTED, DERIVED, RATIO("cycles", "task-clock", 1.0),             \
	  BESIDE("cycles", " GHz"), "cycles per nanosecond of CPU time")                           \
	/* Simulated by valgrind (cachegrind/callgrind, counters/valgrind/valgrind.h);             \
	 * "instructions" and "branch-misses" are shared with the events above. */                 \
	X("data-reads", "count", LOWER, GATED, SIMULATED, MEASURED, OWN_ROW,                       \
	  "memory reads (simulated)")                                                              \
	X("data-writes", "count", LOWER, GATED, SIMULATED, MEASURED, OWN_ROW,                      \
	  "memory writes (simulated)")                                                             \
	X("I1-misses", "count", LOWER, GATED, SIMULATED, MEASURED, OWN_ROW,                        \
	  "L1 instruction cache misses (simulated)")                                               \
	X("LLi-misses", "count", LOWER, GATED, SIMULATED, MEASURED, OWN_ROW,                       \
	  "last-level cache misses by instruction fetches (simulated)")                            \
	X("D1-read-misses", "count", LOWER, GATED, SIMULATED, MEASURED, OWN_ROW,                   \
	  "L1 data cache read misses (simulated)")                                                 \
	X("LLd-read-misses", "count", LOWER, GATED, SIMULATED, MEASURED, OWN_ROW,                  \
	  "last-level cache misses by data reads (simulated)")                                     \
	X("D1-write-misses", "count", LOWER, GATED, SIMULATED, MEASURED, OWN_ROW,                  \
	  "L1 data cache write misses (simulated)")                                                \
	X("LLd-write-misses", "count", LOWER, GATED, SIMULATED, MEASURED, OWN_ROW,                 \
	  "last-level cache misses by data writes (simulated)")                                    \
	X("branch-cond", "count", LOWER, GATED, SIMULATED, MEASURED, OWN_ROW,                      \
	  "conditional branches (simulated)")                                                      \
	X("branch-cond-misses", "count", LOWER, GATED, SIMULATED, MEASURED, OWN_ROW,               \
	  "mispredicted conditional branches (simulated)")                                         \
	X("branch-indirect", "count", LOWER, GATED, SIMULATED, MEASURED, OWN_ROW,                  \
	  "indirect branches (simulated)")                                                         \
	X("branch-indirect-misses", "count", LOWER, GATED, SIMULATED, MEASURED, OWN_ROW,           \
	  "mispredicted indirect branches (simulated)")                                            \
	X("est-cycles", "count", LOWER, GATED, SIMULATED, BY_BACKEND, OWN_ROW,                     \
	  "estimated cycles: L1 hits + 5 x LL hits + 35 x memory accesses (simulated)")

#define PMC_METRIC_ROW(id_, unit_, dir_, gated_, kind_, derivation_, display_, desc_)              \
	{.id = id_,                                                                                \
	 .unit = unit_,                                                                            \
	 .direction = dir_,                                                                        \
	 .better = (dir_) == NONE ? LOWER : (dir_),                                                \
	 .gated = gated_,                                                                          \
	 .kind = kind_,                                                                            \
	 derivation_,                                                                              \
	 display_,                                                                                 \
	 .description = desc_},

static const struct pmc_metric_info metric_table[] = {PMC_METRICS(PMC_METRIC_ROW)};

#define NMETRICS (sizeof(metric_table) / sizeof(metric_table[0]))

size_t pmc_metric_info_count(void)
{
	return NMETRICS;
}

const struct pmc_metric_info *pmc_metric_info_at(size_t i)
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

/* The entry whose id is the first len characters of id, or NULL. */
static const struct pmc_metric_info *find_prefix(const char *id, size_t len)
{
	for (size_t i = 0; i < NMETRICS; i++) {
		const char *name = metric_table[i].id;

		if (name[0] == id[0] && strncmp(name, id, len) == 0 && name[len] == '\0')
			return &metric_table[i];
	}
	return NULL;
}

const struct pmc_metric_info *pmc_metric_find(const char *id)
{
	return id ? find_prefix(id, strlen(id)) : NULL;
}

int pmc_metric_info_lookup(const char *id, const struct pmc_metric_info **ret)
{
	static const char per_op[] = "/op";
	const struct pmc_metric_info *m;
	size_t len;

	if (!id || !ret)
		return -EINVAL;
	len = strlen(id);
	/* "<id>/op" is <id> divided by the operations of the run: same unit and direction. */
	if (len > sizeof(per_op) - 1 && strcmp(id + len - (sizeof(per_op) - 1), per_op) == 0)
		len -= sizeof(per_op) - 1;
	len = strip_modifier(id, len);
	m = len ? find_prefix(id, len) : NULL;
	if (!m)
		return -ENOENT;
	*ret = m;
	return 0;
}

struct pmc_metric_info pmc_metric_lookup(const char *id)
{
	static const struct pmc_metric_info generic = {
	    .id = NULL,
	    .unit = "count",
	    .direction = PMC_LOWER_IS_BETTER,
	    .better = PMC_LOWER_IS_BETTER,
	    .kind = PMC_METRIC_EVENT,
	    .description = "event count",
	};
	const struct pmc_metric_info *m = NULL;

	return pmc_metric_info_lookup(id, &m) == 0 ? *m : generic;
}

const char *pmc_metric_info_id(const struct pmc_metric_info *info)
{
	return info ? info->id : NULL;
}

const char *pmc_metric_info_unit(const struct pmc_metric_info *info)
{
	return info ? info->unit : NULL;
}

enum pmc_better pmc_metric_info_direction(const struct pmc_metric_info *info)
{
	return info ? info->direction : PMC_NO_DIRECTION;
}

bool pmc_metric_info_gated(const struct pmc_metric_info *info)
{
	return info && info->gated;
}

enum pmc_metric_kind pmc_metric_info_kind(const struct pmc_metric_info *info)
{
	return info ? info->kind : PMC_METRIC_EVENT;
}

const char *pmc_metric_info_description(const struct pmc_metric_info *info)
{
	return info ? info->description : NULL;
}

/* cpu-time: user+system where task-clock was denied (derive.c), a better measure of the
 * work than the wall-time it used to fall back to. */
const char *const pmc_metric_primary[] = {"task-clock", "cpu-time", "wall-time", NULL};
static const char *const primary_waiting[] = {"wall-time", "task-clock", "cpu-time", NULL};

bool pmc_metric_mostly_waits(const struct pmc_cpu_use *use)
{
	/* NAN compares false: task-clock first, as before anything is known. */
	if (!use || !(use->share < PMC_PRIMARY_MIN_CPU_SHARE))
		return false;
	/* A tie is no evidence of preemption: a sleep's run blocks twice (its sleep and its
	 * exit) and is preempted about once (at its exec, which wakes the harness from its
	 * vfork), more often on a loaded machine. */
	return !use->switches || use->voluntary >= use->involuntary;
}

const char *const *pmc_metric_primary_order(bool waits)
{
	return waits ? primary_waiting : pmc_metric_primary;
}

bool pmc_metric_primary_waits(const char *const *order)
{
	return order == primary_waiting;
}

bool pmc_metric_drifts(const char *id)
{
	struct pmc_metric_info m = pmc_metric_lookup(id);

	/* System calls and function calls are work the program asks for; other tracepoints
	 * (the scheduler's, interrupts, timers) follow what runs beside it. */
	if (pmc_metric_is_uprobe(id) ||
	    (pmc_metric_is_tracepoint(id) &&
	     (strncmp(id, "syscalls:", 9) == 0 || strncmp(id, "raw_syscalls:", 13) == 0)))
		return false;
	if (!m.id)
		return true;
	if (m.kind == PMC_METRIC_SIMULATED)
		return false;
	if (m.kind == PMC_METRIC_TIME || m.kind == PMC_METRIC_DERIVED || strcmp(m.unit, "ns") == 0)
		return true;
	return strstr(m.id, "cycles") || strstr(m.id, "-misses") ||
	       strcmp(m.id, "context-switches") == 0 || strcmp(m.id, "cpu-migrations") == 0;
}

static size_t word_len(const char *s)
{
	size_t n = 0;

	while (isalnum((unsigned char)s[n]) || s[n] == '_' || s[n] == '-')
		n++;
	return n;
}

bool pmc_metric_is_tracepoint(const char *id)
{
	size_t a, b;

	if (!id || pmc_metric_is_uprobe(id))
		return false;
	a = word_len(id);
	if (a == 0 || id[a] != ':')
		return false;
	b = word_len(id + a + 1);
	if (b == 0)
		return false;
	/* "cycles:uk", "r00c0:u": an event with its modifier, not a tracepoint. */
	if (strspn(id + a + 1, "ukW") == b)
		return false;
	return id[a + 1 + b] == '\0' || id[a + 1 + b] == ':' || id[a + 1 + b] == '/';
}

bool pmc_metric_is_uprobe(const char *id)
{
	return id && strncmp(id, "uprobe:", 7) == 0;
}

bool pmc_metric_is_kernel_count(const char *id)
{
	/* With the software events, a benchmark program's allocations (alloc.c's counter
	 * or the uprobes): one per call, the calls' bytes, exact in the same way. */
	static const char *const software[] = {
	    "page-faults",	"minor-faults",	  "major-faults",
	    "context-switches", "cpu-migrations", "alignment-faults",
	    "emulation-faults", "allocs",	  "alloc-bytes",
	};
	struct pmc_metric_info m;

	if (pmc_metric_is_tracepoint(id) || pmc_metric_is_uprobe(id))
		return true;
	m = pmc_metric_lookup(id);
	for (size_t i = 0; m.id && i < sizeof(software) / sizeof(software[0]); i++)
		if (strcmp(m.id, software[i]) == 0)
			return true;
	return false;
}

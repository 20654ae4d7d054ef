/* The named events: the built-in table of perf's generic hardware, cache and software
 * events with their aliases (the one event table; the sampler's too), and the PMU events
 * sysfs describes, as `pmcbench list` shows them. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/grow.h"
#include "counters/perf/events.h"
#include "counters/perf/events_priv.h"
#include "counters/perf/sysfs.h"

/* Generic hardware events (perf_event_open(2), PERF_TYPE_HARDWARE):
 * name as typed, canonical name (the metric id), PERF_COUNT_HW_* suffix. */
#define PMC_HARDWARE_EVENTS(X)                                                                     \
	X("cycles", "cycles", CPU_CYCLES)                                                          \
	X("cpu-cycles", "cycles", CPU_CYCLES)                                                      \
	X("instructions", "instructions", INSTRUCTIONS)                                            \
	X("cache-references", "cache-references", CACHE_REFERENCES)                                \
	X("cache-misses", "cache-misses", CACHE_MISSES)                                            \
	X("branches", "branches", BRANCH_INSTRUCTIONS)                                             \
	X("branch-instructions", "branches", BRANCH_INSTRUCTIONS)                                  \
	X("branch-misses", "branch-misses", BRANCH_MISSES)                                         \
	X("bus-cycles", "bus-cycles", BUS_CYCLES)                                                  \
	X("stalled-cycles-frontend", "stalled-cycles-frontend", STALLED_CYCLES_FRONTEND)           \
	X("idle-cycles-frontend", "stalled-cycles-frontend", STALLED_CYCLES_FRONTEND)              \
	X("stalled-cycles-backend", "stalled-cycles-backend", STALLED_CYCLES_BACKEND)              \
	X("idle-cycles-backend", "stalled-cycles-backend", STALLED_CYCLES_BACKEND)                 \
	X("ref-cycles", "ref-cycles", REF_CPU_CYCLES)

/* Hardware cache events: config = cache id | op << 8 | result << 16 (perf_event_open(2),
 * PERF_TYPE_HW_CACHE). Only the (cache, op) pairs perf itself lists: the instruction
 * cache is never written, the iTLB and the branch predictor are only read. */
#define PMC_CACHE_READ(X, C, ID)                                                                   \
	X(C "-loads", ID, OP_READ, RESULT_ACCESS)                                                  \
	X(C "-load-misses", ID, OP_READ, RESULT_MISS)
#define PMC_CACHE_WRITE(X, C, ID)                                                                  \
	X(C "-stores", ID, OP_WRITE, RESULT_ACCESS)                                                \
	X(C "-store-misses", ID, OP_WRITE, RESULT_MISS)
#define PMC_CACHE_PREFETCH(X, C, ID)                                                               \
	X(C "-prefetches", ID, OP_PREFETCH, RESULT_ACCESS)                                         \
	X(C "-prefetch-misses", ID, OP_PREFETCH, RESULT_MISS)
#define PMC_CACHE_ALL(X, C, ID)                                                                    \
	PMC_CACHE_READ(X, C, ID) PMC_CACHE_WRITE(X, C, ID) PMC_CACHE_PREFETCH(X, C, ID)
#define PMC_CACHE_EVENTS(X)                                                                        \
	PMC_CACHE_ALL(X, "L1-dcache", L1D)                                                         \
	PMC_CACHE_READ(X, "L1-icache", L1I)                                                        \
	PMC_CACHE_PREFETCH(X, "L1-icache", L1I)                                                    \
	PMC_CACHE_ALL(X, "LLC", LL)                                                                \
	PMC_CACHE_ALL(X, "dTLB", DTLB)                                                             \
	PMC_CACHE_READ(X, "iTLB", ITLB)                                                            \
	PMC_CACHE_READ(X, "branch", BPU)                                                           \
	PMC_CACHE_ALL(X, "node", NODE)

/* Software events (PERF_TYPE_SOFTWARE): name, canonical name, PERF_COUNT_SW_* suffix. */
#define PMC_SOFTWARE_EVENTS(X)                                                                     \
	X("task-clock", "task-clock", TASK_CLOCK)                                                  \
	X("cpu-clock", "cpu-clock", CPU_CLOCK)                                                     \
	X("page-faults", "page-faults", PAGE_FAULTS)                                               \
	X("faults", "page-faults", PAGE_FAULTS)                                                    \
	X("minor-faults", "minor-faults", PAGE_FAULTS_MIN)                                         \
	X("major-faults", "major-faults", PAGE_FAULTS_MAJ)                                         \
	X("context-switches", "context-switches", CONTEXT_SWITCHES)                                \
	X("cs", "context-switches", CONTEXT_SWITCHES)                                              \
	X("cpu-migrations", "cpu-migrations", CPU_MIGRATIONS)                                      \
	X("migrations", "cpu-migrations", CPU_MIGRATIONS)                                          \
	X("alignment-faults", "alignment-faults", ALIGNMENT_FAULTS)                                \
	X("emulation-faults", "emulation-faults", EMULATION_FAULTS)

#define CACHE_CONFIG(id, op, res)                                                                  \
	((uint64_t)PERF_COUNT_HW_CACHE_##id | ((uint64_t)PERF_COUNT_HW_CACHE_##op << 8) |          \
	 ((uint64_t)PERF_COUNT_HW_CACHE_##res << 16))

/* clang-format off */
static const struct pmc_event_builtin builtins[] = {
#define X_HW(n, c, cfg) { n, c, PMC_EV_HARDWARE, PERF_TYPE_HARDWARE, PERF_COUNT_HW_##cfg },
	PMC_HARDWARE_EVENTS(X_HW)
#undef X_HW
#define X_CACHE(n, id, op, res)                                                                    \
	{ n, n, PMC_EV_HW_CACHE, PERF_TYPE_HW_CACHE, CACHE_CONFIG(id, op, res) },
	PMC_CACHE_EVENTS(X_CACHE)
#undef X_CACHE
#define X_SW(n, c, cfg) { n, c, PMC_EV_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##cfg },
	PMC_SOFTWARE_EVENTS(X_SW)
#undef X_SW
};
/* clang-format on */

#define NBUILTINS (sizeof(builtins) / sizeof(builtins[0]))

size_t pmc_event_builtin_count(void)
{
	return NBUILTINS;
}

const char *pmc_event_builtin_name(size_t i)
{
	return i < NBUILTINS ? builtins[i].name : NULL;
}

const char *pmc_event_builtin_kind(size_t i)
{
	if (i >= NBUILTINS)
		return NULL;
	switch (builtins[i].kind) {
	case PMC_EV_HARDWARE:
		return "hardware";
	case PMC_EV_HW_CACHE:
		return "hardware-cache";
	default:
		return "software";
	}
}

int pmc_event_generic_find(const char *name, struct pmc_event_generic *ret)
{
	for (size_t i = 0; name && i < NBUILTINS; i++) {
		if (builtins[i].kind == PMC_EV_HW_CACHE || strcmp(builtins[i].name, name) != 0)
			continue;
		*ret = (struct pmc_event_generic){.name = builtins[i].name,
						  .type = builtins[i].type,
						  .config = builtins[i].config};
		return 0;
	}
	return -ENOENT;
}

const struct pmc_event_builtin *pmc_event_builtin_find(const char *name, size_t len)
{
	for (size_t i = 0; i < NBUILTINS; i++)
		if (strlen(builtins[i].name) == len &&
		    strncasecmp(builtins[i].name, name, len) == 0)
			return &builtins[i];
	return NULL;
}

/* ---- the PMU events in sysfs ---- */

static int strv_push(char ***v, size_t *n, const char *s)
{
	if (pmc_grow(v, *n, sizeof(**v)) < 0)
		return -ENOMEM;
	(*v)[*n] = strdup(s);
	if (!(*v)[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

int pmc_pmu_events_list(const char *sysfs_root, struct pmc_pmu_events *ret)
{
	struct pmc_pmu_events pe = {0};
	char **pmus = NULL;
	size_t npmus = 0;
	int r;

	if (!ret)
		return -EINVAL;
	r = pmc_sysfs_names(sysfs_root, NULL, NULL, &pmus, &npmus);
	if (r < 0)
		return r;
	for (size_t i = 0; i < npmus && r == 0; i++) {
		char **evs = NULL;
		size_t nevs = 0;

		if (pmc_sysfs_names(sysfs_root, pmus[i], "events", &evs, &nevs) < 0 || nevs == 0) {
			r = strv_push(&pe.bare, &pe.nbare, pmus[i]);
		} else {
			for (size_t j = 0; j < nevs && r == 0; j++) {
				char spec[PMC_EVENT_NAME_MAX];

				if (snprintf(spec, sizeof(spec), "%s/%s/", pmus[i], evs[j]) >=
				    (int)sizeof(spec))
					continue;
				r = strv_push(&pe.events, &pe.nevents, spec);
			}
		}
		pmc_sysfs_names_free(evs, nevs);
	}
	pmc_sysfs_names_free(pmus, npmus);
	if (r < 0) {
		pmc_pmu_events_free(&pe);
		return r;
	}
	*ret = pe;
	return 0;
}

void pmc_pmu_events_free(struct pmc_pmu_events *pe)
{
	if (!pe)
		return;
	pmc_sysfs_names_free(pe->events, pe->nevents);
	pmc_sysfs_names_free(pe->bare, pe->nbare);
	memset(pe, 0, sizeof(*pe));
}

/* -d: the L1 data cache and the last-level cache, loads and their misses. */
#define DETAILED_1 "L1-dcache-loads,L1-dcache-load-misses,LLC-loads,LLC-load-misses"
/* -dd adds the instruction cache and both TLBs. */
#define DETAILED_2                                                                                 \
	DETAILED_1 ",L1-icache-loads,L1-icache-load-misses,dTLB-loads,dTLB-load-misses,"           \
		   "iTLB-loads,iTLB-load-misses"
/* -ddd adds the L1 data cache's prefetches. */
#define DETAILED_3 DETAILED_2 ",L1-dcache-prefetches,L1-dcache-prefetch-misses"

const char *pmc_event_detailed_list(unsigned level)
{
	static const char *const lists[] = {DETAILED_1, DETAILED_2, DETAILED_3};

	return level >= 1 && level <= 3 ? lists[level - 1] : NULL;
}

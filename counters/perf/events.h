/* Event names as perf spells them, and perf's event-list syntax (public API in
 * pmcbench/events.h). The list's layout is visible here to the code of the tree. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmcbench/events.h"

#define PMC_EVENT_NAME_MAX 128
#define PMC_EVENT_CPUS_MAX 128 /* a PMU's cpumask as sysfs spells it: "0", "0,18" */
#define PMC_EVENT_UNIT_MAX 32

struct pmc_event {
	/* The metric id: the canonical name ("branches" for "branch-instructions",
	 * "page-faults" for "faults", ...) followed by ":u" or ":k" when given. */
	char name[PMC_EVENT_NAME_MAX];
	enum pmc_event_kind kind;
	uint32_t type; /* perf_event_attr.type */
	uint64_t config, config1, config2;
	bool exclude_user, exclude_kernel, exclude_hv;
	size_t group; /* index of its group; a lone event is a group of one */
	bool leader;  /* first event of its group */
	bool weak;    /* its group is weak (:W): split into single events if it does not fit */
	/* Never retried as user space only (the paranoid-2 fallback): the list has the
	 * event's :u already, which the fallback would duplicate (probe.c). */
	bool no_user_fallback;
	/* Uncore and RAPL PMUs (docs/events.md, "Uncore and RAPL events"): a PMU with a
	 * `cpumask` counts what its CPUs (a package, a die) do, not a task: the event is
	 * opened on each CPU of cpus with pid -1. */
	bool system_wide;
	char cpus[PMC_EVENT_CPUS_MAX]; /* the cpumask when system_wide, else "" */
	/* The alias's <name>.scale (0: none, the count as it is), <name>.unit ("Joules";
	 * "": a count) and <name>.per-pkg (one count per package: cpumask names one CPU
	 * of each, so summing the CPUs counts each package once). */
	double scale;
	char unit[PMC_EVENT_UNIT_MAX];
	bool per_pkg;
	/* Uprobes (PMC_EV_UPROBE, docs/events.md, "Function calls"): the file as written (a
	 * path or a library name) until pmc_uprobes_resolve() replaces it with the file's
	 * path (config1 points at it when the event is opened: uprobe_path), the symbol, and
	 * whether config2 (probe_offset) is the symbol's file offset yet; whether it counts
	 * returns (%return). While a tracefs probe stands for it (counters/perf/uprobe.h),
	 * its type is PERF_TYPE_TRACEPOINT and config the probe's id. */
	char probe_path[256];
	char probe_symbol[128];
	bool probe_resolved;
	bool probe_return;
};

struct pmc_event_list {
	struct pmc_event *events;
	size_t n;
	size_t ngroups;
};

/* The event's scale (1 when sysfs gives none). */
double pmc_event_scale(const struct pmc_event *ev);

/* What the engine knows of its events that a metric says beside its numbers, so that
 * the result model need not know perf (docs/events.md, "Uncore and RAPL events").
 *
 * pmc_event_list_apart: whether the events named a and b (list, a struct
 * pmc_event_list) were read in different windows: different groups, or a weak group
 * the engine may have split, so that multiplexing skews their ratio. False when either
 * is not in the list. The signature of pmc_derive_opts.apart (core/derive.h).
 *
 * pmc_event_note: the note of event i of list read as rd, in buf (len: at least
 * PMC_EVENT_NOTE_MAX), for a system-wide event (counting a PMU's CPUs, not only the
 * target, named by what: "the command"), or why it was denied; returns true when it
 * wrote one, false for any other event. */
#define PMC_EVENT_NOTE_MAX (PMC_EVENT_CPUS_MAX + 384)
struct pmc_reading;
bool pmc_event_list_apart(const char *a, const char *b, const void *list);
bool pmc_event_note(const struct pmc_event_list *list, size_t i, const struct pmc_reading *rd,
		    const char *what, char *buf, size_t len);

/* Calls fn for each CPU of a cpumask text ("0", "0,18", "0-3"). Returns 0, -EINVAL when
 * the text is not a CPU list, or what fn returned when negative. */
int pmc_cpu_list_each(const char *list, int (*fn)(int cpu, void *ud), void *ud);
/* The number of CPUs in such a list; 0 when it is not one. */
size_t pmc_cpu_list_count(const char *list);

/* True when the event needs a PMU other than the kernel's software one. */
bool pmc_event_is_hardware(const struct pmc_event *ev);

/* True for the software events the kernel records only in kernel mode: context
 * switches, CPU migrations and cgroup switches are counted from the scheduler with the
 * caller's (kernel) registers (include/linux/perf_event.h, __perf_sw_event_sched()), so
 * kernel/events/core.c's perf_exclude_event() drops every one of them when exclude_kernel
 * is set: counting user space only reads 0 whatever the task does. */
bool pmc_event_kernel_recorded(uint32_t type, uint64_t config);

/* A generic hardware or software event of the built-in table (not a cache event), for
 * the sampler: the name as perf spells it (exact case; aliases such as "cpu-cycles"
 * keep their own name), its perf_event_attr type and config. */
struct pmc_event_generic {
	const char *name;
	uint32_t type;
	uint64_t config;
};

/* Looks name up among the generic events into *ret. Returns 0, or -ENOENT. */
int pmc_event_generic_find(const char *name, struct pmc_event_generic *ret);

/* The built-in event names (canonical names and aliases), for `pmcbench list`. */
size_t pmc_event_builtin_count(void);
const char *pmc_event_builtin_name(size_t i);
/* "hardware", "hardware-cache", "software". */
const char *pmc_event_builtin_kind(size_t i);

/* perf stat's detailed presets (-d, -dd, -ddd; tools/perf/builtin-stat.c): the cache
 * events that level (1 to 3) adds to the default ones, cumulative, each event alone as
 * perf opens them, so that the PMU multiplexes them (docs/events.md, "Presets"). NULL
 * for another level. */
const char *pmc_event_detailed_list(unsigned level);

/* The PMU events sysfs describes, for `pmcbench list`. */
struct pmc_pmu_events {
	char **events; /* "pmu/event/", sorted by PMU then event */
	size_t nevents;
	char **bare; /* PMUs without named events (usable as pmu/term=value,.../) */
	size_t nbare;
};

/* Lists the PMU events under sysfs_root (NULL: PMC_SYSFS_ROOT) into *ret (free with
 * pmc_pmu_events_free). Returns 0, or -errno when the root cannot be read. */
int pmc_pmu_events_list(const char *sysfs_root, struct pmc_pmu_events *ret);
/* Frees what pmc_pmu_events_list filled in; accepts a zeroed struct. */
void pmc_pmu_events_free(struct pmc_pmu_events *pe);

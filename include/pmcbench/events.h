/* Event lists: perf's event names and list syntax ("a,b,{c,d}:u,e:k", "pmu/event/",
 * "pmu/term=value,.../", "rNNNN") parsed into a list of events in groups (docs/events.md).
 * Plain C11. */
#ifndef PMCBENCH_EVENTS_H
#define PMCBENCH_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmcbench/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the kernel describes its PMUs (Documentation/ABI/testing/sysfs-bus-event_source-
 * devices-*); the default of pmc_event_list_opts.sysfs_root. */
#define PMC_SYSFS_ROOT "/sys/bus/event_source/devices"

enum pmc_event_kind {
	PMC_EV_HARDWARE,   /* perf's generic hardware events (PERF_TYPE_HARDWARE) */
	PMC_EV_HW_CACHE,   /* PERF_TYPE_HW_CACHE */
	PMC_EV_SOFTWARE,   /* PERF_TYPE_SOFTWARE */
	PMC_EV_RAW,	   /* rNNNN: PERF_TYPE_RAW */
	PMC_EV_PMU,	   /* a PMU event described in sysfs: pmu/event/ or pmu/terms/ */
	PMC_EV_TRACEPOINT, /* subsystem:event, a kernel tracepoint (PERF_TYPE_TRACEPOINT) */
	PMC_EV_UPROBE,	   /* uprobe:FILE:SYMBOL, calls of a function (the uprobe PMU) */
};

/* A parsed event list: events in list order, each in a group (a lone event is a group of
 * one). Opaque; read it with the functions below. */
struct pmc_event_list;

struct pmc_event_list_opts {
	size_t sz;
	const char *sysfs_root; /* the directory holding the PMUs; NULL: PMC_SYSFS_ROOT */
	/* tracefs, for tracepoint names; NULL: /sys/kernel/tracing, then
	 * /sys/kernel/debug/tracing, mounted at the first when absent and the caller is
	 * root. A given root is never mounted. */
	const char *tracefs_root;
};
#define pmc_event_list_opts__last_field tracefs_root

/* Parses a perf-style event list into a new list (*ret, freed with pmc_event_list_free).
 * Returns 0, -EINVAL with one line in err such as "column 5: unknown event 'cyclse'; did
 * you mean 'cycles'?" (the 1-based column where the problem starts), or -ENOMEM. */
PMC_API int pmc_event_list_parse(const char *spec, const struct pmc_event_list_opts *opts,
				 struct pmc_event_list **ret, char *err, size_t errlen);

/* Frees a list from pmc_event_list_parse. Accepts NULL. */
PMC_API void pmc_event_list_free(struct pmc_event_list *list);

/* Number of events, and number of groups. 0 for NULL. */
PMC_API size_t pmc_event_list_count(const struct pmc_event_list *list);
PMC_API size_t pmc_event_list_group_count(const struct pmc_event_list *list);

/* Event i's metric id: its canonical name ("branches" for "branch-instructions") with
 * ":u" or ":k" when given, or the PMU event as written ("msr/tsc/"). Owned by the list;
 * NULL when i is out of range. */
PMC_API const char *pmc_event_list_name(const struct pmc_event_list *list, size_t i);

/* Index of event i's group (SIZE_MAX when i is out of range). */
PMC_API size_t pmc_event_list_group(const struct pmc_event_list *list, size_t i);

/* True when event i leads its group (its first event). */
PMC_API bool pmc_event_list_is_leader(const struct pmc_event_list *list, size_t i);

/* True when event i needs a PMU beyond the kernel's software one (so it fails on
 * machines without a hardware PMU). */
PMC_API bool pmc_event_list_is_hardware(const struct pmc_event_list *list, size_t i);

/* What perf_event_open is given for one event: the fields perf -vv prints. */
struct pmc_event_desc {
	size_t sz;	  /* set by the caller: fields beyond it are not written */
	const char *name; /* as pmc_event_list_name */
	enum pmc_event_kind kind;
	uint32_t type; /* perf_event_attr.type */
	uint64_t config, config1, config2;
	bool exclude_user, exclude_kernel, exclude_hv;
	size_t group;
	bool leader;
	bool hardware;
};

/* Fills the caller's *ret (ret->sz set to its size) with event i's description.
 * Returns 0, or -EINVAL for a bad index or sz. */
PMC_API int pmc_event_list_describe(const struct pmc_event_list *list, size_t i,
				    struct pmc_event_desc *ret);

/* "hardware", "hardware-cache", "software", "raw", "pmu", "tracepoint", "uprobe";
 * "unknown" otherwise. */
PMC_API const char *pmc_event_kind_name(enum pmc_event_kind kind);

#ifdef __cplusplus
}
#endif

#endif /* PMCBENCH_EVENTS_H */

/* Event names as perf spells them, and perf's event-list syntax
 * ("a,b,{c,d}:u,e:k", "pmu/event/", "pmu/term=value,.../", "rNNNN"). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PMC_EVENT_NAME_MAX 128

enum pmc_event_kind {
	PMC_EV_HARDWARE,
	PMC_EV_HW_CACHE,
	PMC_EV_SOFTWARE,
	PMC_EV_RAW,
	PMC_EV_PMU, /* a PMU event described in sysfs */
};

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
};

struct pmc_event_list {
	struct pmc_event *events;
	size_t n;
	size_t ngroups;
};

struct pmc_parse_error {
	size_t column; /* 1-based column in the list where the problem starts */
	char message[256]; /* one line: what is wrong and what to do, without the column */
};

/* Parses a perf-style event list. sysfs_root is the directory holding the PMUs
 * (NULL means /sys/bus/event_source/devices). Returns 0, or -EINVAL with err filled
 * (unknown names come with the closest known names suggested), or -ENOMEM.
 * The caller frees *ret with pmc_event_list_free(). */
int pmc_event_list_parse(const char *spec, const char *sysfs_root, struct pmc_event_list *ret,
			 struct pmc_parse_error *err);

/* Appends every event of src to dst as new groups. Returns 0 or -ENOMEM. */
int pmc_event_list_append(struct pmc_event_list *dst, const struct pmc_event_list *src);

void pmc_event_list_free(struct pmc_event_list *list);

/* True when the event needs a PMU other than the kernel's software one. */
bool pmc_event_is_hardware(const struct pmc_event *ev);

/* The built-in event names (canonical names and aliases), for `pmcbench list`. */
size_t pmc_event_builtin_count(void);
const char *pmc_event_builtin_name(size_t i);
/* "hardware", "hardware-cache", "software". */
const char *pmc_event_builtin_kind(size_t i);

/* Hybrid and big.LITTLE CPUs (docs/events.md, "Hybrid CPUs"): a machine with several core
 * PMUs (Intel's cpu_core and cpu_atom, an ARM PMU per cluster, Apple's icestorm and
 * firestorm) counts a generic event only on the CPUs of the PMU it is opened on. The
 * counter engine opens such events once per core PMU and combines the parts with the rule
 * below; this header holds the plan (which finds the core PMUs in sysfs and probes how
 * the kernel takes a PMU type) and the rule. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters/perf/events.h"
#include "counters/reading.h"
#include "counters/perf/sys.h"

#define PMC_CORE_PMUS_MAX PMC_PARTS_MAX

struct pmc_core_pmu {
	char name[PMC_PMU_NAME_MAX];
	uint32_t type;
};

struct pmc_core_pmus {
	struct pmc_core_pmu pmu[PMC_CORE_PMUS_MAX];
	size_t n;
};

/* How the events of a list are opened on a machine with several core PMUs. */
struct pmc_hybrid {
	struct pmc_event_list list; /* what is opened: one event per part, regrouped by PMU */
	size_t n;		    /* events of the caller's list */
	/* Per event: opened as its parts, one per core PMU it counts on (then reported
	 * per PMU); false: opened as it is, as the one entry of part. */
	bool *split;
	size_t *nparts;			   /* per event: its entries in part (>= 1) */
	size_t (*part)[PMC_CORE_PMUS_MAX]; /* per event: indices in list */
	int *part_pmu;			   /* per opened event: its index in pmus; -1 none */
	/* Per event: it counts only on some core types (an event of one core PMU, a legacy
	 * event the kernel cannot aim, a part the kernel refused): never extrapolated. */
	bool *restricted;
	struct pmc_core_pmus pmus;
	bool extended; /* the kernel takes a PMU type in config bits 32-63 */
};

/* What pmc_hybrid_plan looks up on the machine (pmc_sys.machine). */
struct pmc_hybrid_machine {
	struct pmc_core_pmus pmus; /* n 0: not a hybrid machine, or more than we take */
	bool extended;		   /* the kernel takes a PMU type in config bits 32-63 */
};

/* Finds the core PMUs sys describes (its sysfs_root) and, with two or more, probes
 * extended types, as pmc_hybrid_plan would for a list with hardware events. Returns 0. */
int pmc_hybrid_machine_find(const struct pmc_sys *sys, struct pmc_hybrid_machine *ret);
/* For a caller that opens list (with hardware events) again and again on the kernel's
 * table (*sys NULL): the machine found once into *machine, and *sys pointed at *copy, the
 * kernel's table with it (pmc_sys.machine). Leaves a caller's own table alone. */
void pmc_hybrid_machine_share(const struct pmc_event_list *list, const struct pmc_sys **sys,
			      struct pmc_sys *copy, struct pmc_hybrid_machine *machine);

/* Plans list for the machine sys describes (its sysfs_root, or sys->machine). *ret is NULL when
 * nothing changes (fewer than two core PMUs, or no event on them): open the list as it is. Returns
 * 0, -ENOMEM, or -E2BIG when a group would outgrow the list. */
int pmc_hybrid_plan(const struct pmc_event_list *list, const struct pmc_sys *sys,
		    struct pmc_hybrid **ret);
void pmc_hybrid_free(struct pmc_hybrid *h);

/* The rule (docs/events.md, "Hybrid CPUs"): the parts of one event, each read from its
 * own core PMU (value, enabled, running as the kernel gave them; a part that did not open
 * has its status and no figures), become one reading in *sum. The task runs on one CPU
 * at a time, so the parts' running times add up to the time it was enabled unless the
 * kernel multiplexed some part: sum counted when they do, scaled by
 * enabled / sum of running when they fall short. A restricted event's sum is what was
 * counted, never extrapolated. Each part gets its status and scaled value too (the
 * sum's factor). */
void pmc_reading_combine(struct pmc_reading *parts, size_t n, bool restricted,
			 struct pmc_reading *sum);

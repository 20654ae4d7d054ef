/* What one read of one event gives: its status (docs/events.md, "Statuses") and the raw
 * value with the kernel's enabled and running times (struct pmc_reading, public in
 * pmcbench/counters.h). Shared by the counter engine, the valgrind backend and the
 * result model, without the engine's syscall layer. */
#pragma once

#include "pmcbench/counters.h"

#define PMC_PARTS_MAX 4	    /* core PMUs of one CPU (counters/perf/hybrid.h) */
#define PMC_PMU_NAME_MAX 64

/* Hybrid CPUs (docs/events.md, "Hybrid CPUs"): the readings of the parts of one event,
 * one per core PMU it was opened on, whose sum is the event's reading. n is 0 for an
 * event opened as one, as on any other machine. */
struct pmc_reading_parts {
	size_t n;
	bool restricted;		     /* counted only on these core types: not extrapolated */
	char pmu[PMC_PARTS_MAX][PMC_PMU_NAME_MAX]; /* "cpu_core"; "" when the kernel chose */
	struct pmc_reading rd[PMC_PARTS_MAX];
};

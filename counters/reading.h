/* What one read of one event gives: its status (docs/events.md, "Statuses") and the raw
 * value with the kernel's enabled and running times (struct pmc_reading, public in
 * pmcbench/counters.h). Shared by the counter engine, the valgrind backend and the
 * result model, without the engine's syscall layer. */
#pragma once

#include <math.h>
#include <stdint.h>

#include "pmcbench/counters.h"

#define PMC_PARTS_MAX 4 /* core PMUs of one CPU (counters/perf/hybrid.h) */
#define PMC_PMU_NAME_MAX 64

/* Hybrid CPUs (docs/events.md, "Hybrid CPUs"): the readings of the parts of one event,
 * one per core PMU it was opened on, whose sum is the event's reading. n is 0 for an
 * event opened as one, as on any other machine. */
struct pmc_reading_parts {
	size_t n;
	bool restricted; /* counted only on these core types: not extrapolated */
	char pmu[PMC_PARTS_MAX][PMC_PMU_NAME_MAX]; /* "cpu_core"; "" when the kernel chose */
	struct pmc_reading rd[PMC_PARTS_MAX];
};

/* Multiplexing scaling (docs/events.md, "Multiplexing"): a count that ran for part of
 * the time it was enabled, extrapolated to the whole of it, value * enabled / running in
 * double, as perf's perf_counts_values__scale() does; NaN when it never ran. The one
 * place the engine, the hybrid sum and the result model compute it. */
static inline double pmc_reading_scale(uint64_t value, uint64_t enabled, uint64_t running)
{
	if (running == 0)
		return NAN;
	return (double)value * (double)enabled / (double)running;
}

/* A read of value over the times enabled and running, as the engine and a benchmark's
 * batch give it: not-counted (scaled NaN) when it never ran; scaled, by
 * pmc_reading_scale, when it ran for part of the time it was enabled; else counted, the
 * value itself. r's error and user_only are the caller's, left as they are. */
static inline void pmc_reading_set(struct pmc_reading *r, uint64_t value, uint64_t enabled,
				   uint64_t running)
{
	r->value = value;
	r->enabled = enabled;
	r->running = running;
	if (running == 0) {
		r->status = PMC_STATUS_NOT_COUNTED;
		r->scaled = NAN;
	} else if (running < enabled) {
		r->status = PMC_STATUS_SCALED;
		r->scaled = pmc_reading_scale(value, enabled, running);
	} else {
		r->status = PMC_STATUS_COUNTED;
		r->scaled = (double)value;
	}
}

/* The share of its enabled time a count ran on the PMU, at most 1 (a group's members
 * are read one after the other, so running may pass enabled by the reads' time). */
static inline double pmc_reading_running_fraction(uint64_t enabled, uint64_t running)
{
	if (enabled == 0)
		return NAN;
	return fmin(1.0, (double)running / (double)enabled);
}

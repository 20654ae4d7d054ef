/* When a recording took and lost its samples (profile.h, struct pmc_profile_timeline),
 * followed record by record as the builder takes them (record_build.c): a histogram of
 * fixed size whose bins double in width as the recording grows longer, so that its
 * memory does not depend on the recording's length, folded into tenths at the end: a
 * count is in its tenth to within one bin, at most a hundredth of the span. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pmc_record;
struct pmc_profile_timeline;

#define PMC_TIMELINE_BINS 200

struct pmc_record_timeline {
	uint64_t t0, last; /* the first and the latest record's time */
	uint64_t width;	   /* ns per bin */
	uint64_t samples[PMC_TIMELINE_BINS];
	double lost[PMC_TIMELINE_BINS];
	uint64_t nsamples, nlost;
	uint64_t *cpu_last; /* each CPU's latest record time, 0: none yet */
	size_t ncpus;
	bool started;
};

/* Counts one record (any type, in time order): a sample at its time, a LOST record's
 * samples over the time since its CPU's previous record. Returns 0 or -ENOMEM. */
int pmc_record_timeline_add(struct pmc_record_timeline *t, const struct pmc_record *rec);

/* The timeline in tenths of the span from the first record to the last. */
void pmc_record_timeline_get(const struct pmc_record_timeline *t, struct pmc_profile_timeline *ret);

void pmc_record_timeline_free(struct pmc_record_timeline *t);

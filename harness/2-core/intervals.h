/* Counts per interval of one run (run -I MS, docs/metrics.md, "Intervals"): the runner
 * reads the run's counters every MS milliseconds while the command runs, and each
 * interval's count of an event is the difference of two cumulative readings, scaled by
 * the interval's own enabled and running times. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "counters/reading.h"

struct pmc_intervals {
	size_t nids;
	char **ids;	  /* the metrics, in the order of every reading */
	size_t n;	  /* intervals */
	uint64_t *end_ns; /* n: the end of each, since the run's start */
	/* n * nids, interval-major: the count of metric i in interval k at [k * nids + i],
	 * NAN where it was not counted in that interval. */
	double *delta;
	struct pmc_reading *last; /* nids: the cumulative readings the last interval ended at */
};

/* Empty intervals of the metrics ids (nids of them, copied). Returns 0, -EINVAL (no
 * ids) or -ENOMEM. */
int pmc_intervals_new(const char *const *ids, size_t nids, struct pmc_intervals **ret);
void pmc_intervals_free(struct pmc_intervals *iv); /* NULL: nothing */

/* Ends an interval at end_ns (after the last one's end) with the cumulative readings cum
 * (nids, in ids' order, since the run's start). A metric's count in it is the growth of
 * its value, scaled by the growth of its times (value * enabled / running) when it was
 * multiplexed; 0 when neither value nor times grew (a task event whose task did not run:
 * nothing could happen); NAN when it has no value (unsupported, denied), or was enabled
 * but never ran on the PMU in the interval. Returns 0, -EINVAL (an end not after the
 * last, a reading that went back) or -ENOMEM. */
int pmc_intervals_add(struct pmc_intervals *iv, uint64_t end_ns, const struct pmc_reading *cum);

/* Metric i's count in interval k (NAN: not counted in it). */
static inline double pmc_intervals_get(const struct pmc_intervals *iv, size_t k, size_t i)
{
	return iv->delta[k * iv->nids + i];
}

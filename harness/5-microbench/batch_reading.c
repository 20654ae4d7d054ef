/* A batch's counts from the reads at its two edges (measure.c's run_batch): the
 * differences, scaled for multiplexing, and the parts of a split event (hybrid CPUs). */
#include <math.h>

#include "counters/perf/hybrid.h"
#include "counters/reading.h"
#include "microbench/loop.h"

static bool opened(enum pmc_status st)
{
	return st != PMC_STATUS_UNSUPPORTED && st != PMC_STATUS_DENIED;
}

/* docs/events.md, "Scaling", applied to the batch's difference of two reads: a batch
 * that was multiplexed for part of its time is extrapolated as perf does. */
void pmc_mb_batch_reading(const struct pmc_reading *a, const struct pmc_reading *b,
			  struct pmc_reading *d)
{
	*d = *b;
	/* A cumulative read with running == 0 (before the event first ran) is "not
	 * counted" but its raw figures are still the start of the batch: only an event that
	 * never opened has none. */
	if (!opened(a->status) || !opened(b->status)) {
		if (opened(d->status))
			d->status = a->status;
		d->value = d->enabled = d->running = 0;
		d->scaled = NAN;
		return;
	}
	pmc_reading_set(d, b->value - a->value, b->enabled - a->enabled, b->running - a->running);
}

/* A split event's batch (hybrid CPUs): each part's difference of two reads, then the sum
 * by the engine's rule (docs/events.md, "Hybrid CPUs"), never one part's shortfall
 * taken for multiplexing. */
void pmc_mb_hybrid_batch(const struct pmc_run_ctx *c, size_t e, struct pmc_reading *d,
			 struct pmc_reading_parts *out)
{
	const struct pmc_reading_parts *split = &c->split[e];
	size_t n = split->n;
	struct pmc_reading parts[PMC_PARTS_MAX];

	for (size_t k = 0; k < n; k++) {
		const struct pmc_reading *a = &c->p0[e * PMC_PARTS_MAX + k],
					 *b = &c->p1[e * PMC_PARTS_MAX + k];
		struct pmc_reading *p = &parts[k];

		*p = *b;
		if (!opened(a->status) || !opened(b->status)) {
			if (opened(p->status))
				p->status = a->status;
			p->value = p->enabled = p->running = 0;
			continue;
		}
		p->status = PMC_STATUS_COUNTED;
		p->value = b->value - a->value;
		p->enabled = b->enabled - a->enabled;
		p->running = b->running - a->running;
	}
	pmc_reading_combine(parts, n, split->restricted, d);
	if (!out)
		return;
	*out = *split;
	for (size_t k = 0; k < n; k++)
		out->rd[k] = parts[k];
}

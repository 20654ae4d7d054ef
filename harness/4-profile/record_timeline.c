/* The timeline of a recording's samples and losses (record_timeline.h). */
#include "profile/record_timeline.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "counters/perf/sample.h"
#include "profile/profile.h"

/* The first bins' width: a millisecond, doubled as often as the recording needs. */
#define FIRST_WIDTH_NS 1000000ULL

/* Doubles the bins' width until time t falls in one (t >= t0). */
static void fit(struct pmc_record_timeline *t, uint64_t time)
{
	while ((time - t->t0) / t->width >= PMC_TIMELINE_BINS) {
		for (size_t i = 0; i < PMC_TIMELINE_BINS / 2; i++) {
			t->samples[i] = t->samples[2 * i] + t->samples[2 * i + 1];
			t->lost[i] = t->lost[2 * i] + t->lost[2 * i + 1];
		}
		memset(t->samples + PMC_TIMELINE_BINS / 2, 0,
		       PMC_TIMELINE_BINS / 2 * sizeof(*t->samples));
		memset(t->lost + PMC_TIMELINE_BINS / 2, 0,
		       PMC_TIMELINE_BINS / 2 * sizeof(*t->lost));
		t->width *= 2;
	}
}

/* n lost samples spread evenly over [from, to] (t0 <= from <= to, both fit). */
static void spread(struct pmc_record_timeline *t, uint64_t from, uint64_t to, uint64_t n)
{
	size_t a = (size_t)((from - t->t0) / t->width), b = (size_t)((to - t->t0) / t->width);

	if (a == b) {
		t->lost[a] += (double)n;
		return;
	}
	for (size_t i = a; i <= b; i++) {
		uint64_t lo = t->t0 + i * t->width, hi = lo + t->width;

		if (lo < from)
			lo = from;
		if (hi > to)
			hi = to;
		t->lost[i] += (double)n * (double)(hi - lo) / (double)(to - from);
	}
}

int pmc_record_timeline_add(struct pmc_record_timeline *t, const struct pmc_record *rec)
{
	uint64_t time = rec->time, from;

	if (!t->started) {
		t->started = true;
		t->t0 = t->last = time;
		t->width = FIRST_WIDTH_NS;
	}
	/* In time order, as the sampler hands them out; an older one counts at the start. */
	if (time < t->t0)
		time = t->t0;
	if (time > t->last)
		t->last = time;
	fit(t, time);
	if (rec->cpu >= t->ncpus) {
		size_t cap = t->ncpus;

		if (rec->cpu > 65535 ||
		    pmc_grow_to(&t->cpu_last, &cap, (size_t)rec->cpu + 1, sizeof(*t->cpu_last)) < 0)
			return rec->cpu > 65535 ? 0 : -ENOMEM;
		memset(t->cpu_last + t->ncpus, 0, (cap - t->ncpus) * sizeof(*t->cpu_last));
		t->ncpus = cap;
	}
	if (rec->type == PMC_RECORD_SAMPLE) {
		t->samples[(time - t->t0) / t->width]++;
		t->nsamples++;
	} else if (rec->type == PMC_RECORD_LOST && rec->lost.lost) {
		/* The ring was full from its previous record until this one was written. */
		from = t->cpu_last[rec->cpu] ? t->cpu_last[rec->cpu] : t->t0;
		if (from > time)
			from = time;
		spread(t, from, time, rec->lost.lost);
		t->nlost += rec->lost.lost;
	}
	t->cpu_last[rec->cpu] = time;
	return 0;
}

/* Whole counts per tenth that add up to total: x rounded as it accumulates. */
static void whole(const double *x, uint64_t total, uint64_t *ret)
{
	uint64_t done = 0, upto;
	double cum = 0;

	for (size_t k = 0; k < PMC_PROFILE_TENTHS; k++) {
		cum += x[k];
		upto = k == PMC_PROFILE_TENTHS - 1 ? total : (uint64_t)llround(cum);
		if (upto > total)
			upto = total;
		if (upto < done)
			upto = done;
		ret[k] = upto - done;
		done = upto;
	}
}

void pmc_record_timeline_get(const struct pmc_record_timeline *t, struct pmc_profile_timeline *ret)
{
	double samples[PMC_PROFILE_TENTHS] = {0}, lost[PMC_PROFILE_TENTHS] = {0};
	double tenth;

	*ret = (struct pmc_profile_timeline){0};
	if (!t->started)
		return;
	ret->span_ns = t->last > t->t0 ? t->last - t->t0 : 1;
	tenth = (double)ret->span_ns / PMC_PROFILE_TENTHS;
	/* A bin that straddles the end of a tenth is shared by the two in proportion to its
	 * time in each: its counts are even over it, as far as the histogram knows. */
	for (size_t i = 0; i < PMC_TIMELINE_BINS; i++) {
		double lo = (double)i * (double)t->width, hi = lo + (double)t->width;

		if (!t->samples[i] && !t->lost[i])
			continue;
		for (size_t k = (size_t)(lo / tenth); k < PMC_PROFILE_TENTHS && k * tenth < hi;
		     k++) {
			double a = lo > k * tenth ? lo : k * tenth;
			double b = hi < (k + 1) * tenth ? hi : (k + 1) * tenth;
			/* What lies past the span (the last bin's rest) goes to the last tenth. */
			double part = k == PMC_PROFILE_TENTHS - 1 ? (hi - a) / (hi - lo)
								  : (b - a) / (hi - lo);

			samples[k] += part * (double)t->samples[i];
			lost[k] += part * t->lost[i];
		}
	}
	whole(samples, t->nsamples, ret->samples);
	whole(lost, t->nlost, ret->lost);
}

void pmc_record_timeline_free(struct pmc_record_timeline *t)
{
	free(t->cpu_last);
	t->cpu_last = NULL;
	t->ncpus = 0;
}

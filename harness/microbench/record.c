/* Samples into the result model (docs/microbench.md, "Result metrics"): one run per
 * sample, every value per operation, minus the empty loop's cost. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/events.h"
#include "harness/base/error.h"
#include "harness/core/derive.h"
#include "harness/core/result.h"
#include "harness/microbench/microbench.h"

double pmc_mb_per_op(double batch, double overhead, uint64_t iters)
{
	double v;

	if (isnan(batch) || iters == 0)
		return NAN;
	/* Out-of-order execution overlaps the loop's bookkeeping with the body, so the
	 * difference can come out below zero; a cost is never negative. */
	v = (batch - (isnan(overhead) ? 0.0 : overhead)) / (double)iters;
	return v > 0 ? v : 0.0;
}

static int metric(struct pmc_benchmark *b, const char *id, struct pmc_metric **ret)
{
	return pmc_benchmark_metric(b, id, ret);
}

static int append(struct pmc_benchmark *b, const char *id, double v, const struct pmc_reading *rd)
{
	struct pmc_metric *m;
	int r = metric(b, id, &m);

	return r < 0 ? r : pmc_metric_append(m, v, rd);
}

static double sorted_median(const double *v, size_t n)
{
	double *c = malloc((n ? n : 1) * sizeof(*c)), med;

	if (!c || n == 0) {
		free(c);
		return NAN;
	}
	memcpy(c, v, n * sizeof(*c));
	/* n is small (the samples): insertion sort. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && c[j - 1] > c[j]; j--) {
			double t = c[j];

			c[j] = c[j - 1];
			c[j - 1] = t;
		}
	med = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
	return med;
}

/* Says in the result when the subtracted overhead is a large share of what was
 * measured: the body is then near the resolution of the loop. */
static int note_overhead(struct pmc_benchmark *b, const struct pmc_mb_samples *s)
{
	double med = sorted_median(s->ns, s->n), share;
	struct pmc_metric *m;
	char note[200];
	int r;

	if (isnan(s->over_ns) || !(med > 0))
		return 0;
	share = s->over_ns / med;
	if (share <= PMC_MB_OVERHEAD_WARN)
		return 0;
	r = metric(b, "wall-time/op", &m);
	if (r < 0)
		return r;
	snprintf(note, sizeof(note),
		 "the loop's own overhead (%.3g ns/op, subtracted) is %.0f%% of the measured time; "
		 "the body is near the loop's resolution",
		 s->over_ns / (double)s->iters, share * 100.0);
	return pmc_metric_set_note(m, note);
}

int pmc_mb_record_skipped(const struct pmc_mb_bench *b, const char *message, struct pmc_result *res,
			  char *err, size_t errlen)
{
	struct pmc_benchmark *bm;
	/* Recorded with its reason, and nothing measured (docs/result-schema.md). */
	int r = pmc_result_add_benchmark(res, b->name, NULL, &bm);

	if (r == 0)
		r = pmc_benchmark_set_skipped(bm, message);
	if (r < 0)
		pmc_err_set(err, errlen, "'%s': cannot record the skip: %s", b->name, strerror(-r));
	return r;
}

int pmc_mb_record(const struct pmc_mb_bench *b, const struct pmc_mb_samples *s,
		  const struct pmc_event_list *events, struct pmc_result *res, char *err,
		  size_t errlen)
{
	struct pmc_benchmark *bm;
	size_t nev = events ? events->n : 0;
	char id[PMC_EVENT_NAME_MAX + 8];
	int r;

	if (s->skipped)
		return pmc_mb_record_skipped(b, s->message, res, err, errlen);
	if (nev != s->nev) {
		pmc_err_set(err, errlen, "'%s': %zu counts per sample for %zu events", b->name,
			    s->nev, nev);
		return -EINVAL;
	}
	r = pmc_result_add_benchmark(res, b->name, NULL, &bm);
	if (r < 0)
		goto fail;
	for (size_t i = 0; i < s->n; i++) {
		struct pmc_run_info info = {.exit_code = 0, .iterations = s->iters};
		double wall = pmc_mb_per_op(s->ns[i], s->over_ns, s->iters);

		r = pmc_benchmark_add_run(bm, &info);
		if (r == 0)
			r = append(bm, "wall-time/op", wall, NULL);
		for (size_t e = 0; r == 0 && e < nev; e++) {
			const struct pmc_reading *rd = &s->readings[i * nev + e];
			double v = pmc_status_has_value(rd->status)
				       ? pmc_mb_per_op(rd->scaled, s->over_counts[e], s->iters)
				       : NAN;

			snprintf(id, sizeof(id), "%s/op", events->events[e].name);
			r = append(bm, id, v, rd);
		}
		/* A throughput needs a time: none when the overhead took it all. */
		if (r == 0 && s->items)
			r = append(bm, "items/s", wall > 0 ? (double)s->items * 1e9 / wall : NAN,
				   NULL);
		if (r == 0 && s->bytes)
			r = append(bm, "bytes/s", wall > 0 ? (double)s->bytes * 1e9 / wall : NAN,
				   NULL);
		if (r < 0)
			goto fail;
	}
	r = note_overhead(bm, s);
	if (r == 0) {
		PMC_OPTS(pmc_derive_opts, dopts, .events = events, .input_suffix = "/op");

		r = pmc_benchmark_derive(bm, &dopts);
	}
	if (r < 0)
		goto fail;
	return 0;
fail:
	if (r == -ENOMEM)
		pmc_err_set(err, errlen, "out of memory");
	else
		pmc_err_set(err, errlen, "'%s': cannot record the samples: %s", b->name,
			    strerror(-r));
	return r;
}

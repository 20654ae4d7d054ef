/* The full summary statistics of every measured metric (run --stats, format "stats"): n, mean
 * (Welford), stddev, median with its CI, MAD, min, max, CV, in the metric's own unit. Metrics
 * without a single measured run are left out: they have no statistics. The numbers come
 * from the analysis. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/analysis.h"
#include "core/result.h"
#include "reporters/reporter.h"

/* %.6g keeps counts exact up to a million and every value readable; NAN never
 * reaches here (callers print "-" instead). */
static void cell(FILE *out, double v)
{
	if (isnan(v))
		fprintf(out, " %12s", "-");
	else
		fprintf(out, " %12.6g", v);
}

static int stats_result(FILE *out, const struct pmc_result *r, const struct pmc_analysis *a,
			const struct pmc_report_opts *o)
{
	for (size_t bi = 0; bi < a->nbench; bi++) {
		const struct pmc_bench_analysis *ba = &a->benches[bi];
		const struct pmc_benchmark *b = ba->b;

		if (b->skipped) {
			fprintf(out, "\nStatistics: %s: skipped%s%s\n", b->name,
				*b->skipped ? ": " : "", b->skipped);
			continue;
		}
		fprintf(out, "\nStatistics: %s (CI of the median at %g%%)\n", b->name,
			a->confidence * 100);
		fprintf(out, "%-24s %-6s %4s %12s %12s %12s %12s %12s %12s %12s %12s %12s\n",
			"metric", "unit", "n", "mean", "stddev", "median", "ci-low", "ci-high",
			"MAD", "min", "max", "CV%");
		for (size_t mi = 0; mi < b->nmetrics; mi++) {
			const struct pmc_metric *m = &b->metrics[mi];
			const struct pmc_summary *s = &ba->metrics[mi].s;

			if (!ba->metrics[mi].has_summary)
				continue;
			fprintf(out, "%-24s %-6s %4zu", m->id, m->unit ? m->unit : "", s->n);
			cell(out, s->mean);
			cell(out, s->stddev);
			cell(out, s->median);
			cell(out, s->has_ci ? s->ci_lo : NAN);
			cell(out, s->has_ci ? s->ci_hi : NAN);
			cell(out, s->mad);
			cell(out, s->min);
			cell(out, s->max);
			cell(out, isnan(s->cv) ? NAN : s->cv * 100);
			fprintf(out, "%s\n", m->simulated ? "  (simulated)" : "");
		}
	}
	return ferror(out) ? -EIO : 0;
}

const struct pmc_reporter pmc_reporter_stats = {
    .name = "stats",
    .ext = ".txt",
    .unlisted = true,
    .result = stats_result,
    .needs_analysis = true,
};

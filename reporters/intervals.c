/* Counts per interval (run -I, printed before the run table): for each
 * benchmark, its last measured run's intervals as perf stat -I prints them, the time since
 * the run's start then each metric's count in the interval, "<not counted>" where it has
 * none. Metrics are put side by side in blocks that fit 80 columns, each block with the
 * time again. Every run's intervals are in the result file (docs/result-schema.md). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/intervals.h"
#include "core/result.h"
#include "reporters/format.h"
#include "reporters/reporter.h"

#define TIME_W 10 /* "   123.456" */
#define WIDTH 80
#define NOT_COUNTED "<not counted>"

static size_t column_width(const struct pmc_intervals *iv, size_t i)
{
	size_t w = strlen(iv->ids[i]);

	return w > sizeof(NOT_COUNTED) - 1 ? w : sizeof(NOT_COUNTED) - 1;
}

/* Metrics first..end (end excluded) of iv, one line per interval. */
static void block(FILE *out, const struct pmc_intervals *iv, size_t first, size_t end)
{
	fprintf(out, "%*s", TIME_W, "time (s)");
	for (size_t i = first; i < end; i++)
		fprintf(out, "  %*s", (int)column_width(iv, i), iv->ids[i]);
	fputc('\n', out);
	for (size_t k = 0; k < iv->n; k++) {
		fprintf(out, "%*.3f", TIME_W, (double)iv->end_ns[k] / 1e9);
		for (size_t i = first; i < end; i++) {
			double v = pmc_intervals_get(iv, k, i);
			char buf[64];

			if (isnan(v))
				snprintf(buf, sizeof(buf), "%s", NOT_COUNTED);
			else
				pmc_fmt_grouped(v, buf, sizeof(buf));
			fprintf(out, "  %*s", (int)column_width(iv, i), buf);
		}
		fputc('\n', out);
	}
}

static void bench_intervals(FILE *out, const struct pmc_benchmark *b)
{
	size_t last = b->nintervals, first = 0;
	const struct pmc_intervals *iv;

	while (last > 0 && !b->intervals[last - 1])
		last--;
	if (last == 0)
		return;
	iv = b->intervals[last - 1];
	fprintf(out, "\nCounts per interval: %s (run %zu of %zu%s)\n", b->name, last, b->nruns,
		b->nruns > 1 ? "; every run's are in the result file" : "");
	while (first < iv->nids) {
		size_t end = first, used = TIME_W;

		/* At least one metric per block, however wide its name. */
		do
			used += 2 + column_width(iv, end++);
		while (end < iv->nids && used + 2 + column_width(iv, end) <= WIDTH);
		if (first)
			fputc('\n', out);
		block(out, iv, first, end);
		first = end;
	}
}

int pmc_report_intervals(FILE *out, const struct pmc_result *r)
{
	for (size_t bi = 0; bi < r->nbench; bi++)
		bench_intervals(out, &r->benchmarks[bi]);
	return ferror(out) ? -EIO : 0;
}

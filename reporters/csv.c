/* CSV: one row per benchmark, metric and run, for spreadsheets and
 * data frames. Text fields are quoted by libcsv; a field that was not measured is
 * empty, never 0. Runs are numbered from 1. Columns:
 * benchmark,metric,unit,run,value,status,raw_value,time_enabled,time_running,skipped
 * A benchmark that skipped itself has one row: its name, the status "skipped" and the
 * reason in the last column, every other field empty. */
#include <csv.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/core/result.h"
#include "reporters/format.h"
#include "reporters/reporter.h"

static void put_text(FILE *out, const char *s)
{
	csv_fwrite(out, s, strlen(s));
}

static void put_double(FILE *out, double v)
{
	char buf[PMC_FMT_MAX];

	pmc_fmt_exact_to(buf, v);
	fputs(buf, out);
}

static void put_row(FILE *out, const struct pmc_benchmark *b, const struct pmc_metric *m,
		    size_t run)
{
	double v = m->values[run];

	put_text(out, b->name);
	fputc(',', out);
	put_text(out, m->id);
	fputc(',', out);
	put_text(out, m->unit);
	fprintf(out, ",%zu,", run + 1);
	if (!isnan(v))
		put_double(out, v);
	fputc(',', out);
	if (m->has_status) {
		enum pmc_status st = m->status[run];
		const struct pmc_run_raw *raw = &m->raw[run];

		put_text(out, pmc_status_name(st));
		/* An event that did not open was never read; a simulated count has no
		 * times. */
		if (st == PMC_STATUS_UNSUPPORTED || st == PMC_STATUS_DENIED)
			fputs(",,,", out);
		else if (st == PMC_STATUS_EXACT)
			fprintf(out, ",%" PRIu64 ",,", raw->value);
		else
			fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, raw->value, raw->enabled,
				raw->running);
	} else {
		fputs(",,,", out);
	}
	fputs(",\n", out);
}

/* A skipped benchmark measured nothing: no metric, no run, no value. */
static void put_skipped(FILE *out, const struct pmc_benchmark *b)
{
	put_text(out, b->name);
	fputs(",,,,,skipped,,,,", out);
	if (*b->skipped)
		put_text(out, b->skipped);
	fputc('\n', out);
}

static int csv_result(FILE *out, const struct pmc_result *r, const struct pmc_analysis *a,
		      const struct pmc_report_opts *o)
{
	struct pmc_fmt_locale loc;

	/* CSV numbers use '.', whatever LC_NUMERIC the program set. */
	if (pmc_fmt_locale_c(&loc) < 0)
		return -ENOMEM;
	errno = 0;
	fputs("benchmark,metric,unit,run,value,status,raw_value,time_enabled,time_running,"
	      "skipped\n",
	      out);
	for (size_t i = 0; i < r->nbench; i++) {
		const struct pmc_benchmark *b = &r->benchmarks[i];

		if (b->skipped)
			put_skipped(out, b);
		for (size_t j = 0; j < b->nmetrics; j++)
			for (size_t k = 0; k < b->metrics[j].n; k++)
				put_row(out, b, &b->metrics[j], k);
	}
	pmc_fmt_locale_restore(&loc);
	if (fflush(out) != 0 || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}

const struct pmc_reporter pmc_reporter_csv = {
    .name = "csv",
    .ext = ".csv",
    .result = csv_result,
};

/* CSV (docs/export.md), for spreadsheets and data frames. Text fields are quoted by libcsv;
 * a field that was not measured is empty, never 0; columns are only ever added at the
 * end. A result: one row per benchmark, metric and run (from 1), with the columns
 * benchmark,metric,unit,run,value,status,raw_value,time_enabled,time_running,skipped,
 * iterations; a benchmark that skipped itself has one row: its name, the status
 * "skipped" and the reason in the column skipped, every other field empty. A comparison:
 * one row per row of the comparison, the fields of the JSON report's rows. */
#include <csv.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/compare.h"
#include "core/metrics.h"
#include "core/result.h"
#include "reporters/compare_cells.h"
#include "reporters/escape.h"
#include "reporters/format.h"
#include "reporters/points.h"
#include "reporters/reporter.h"

/* Text from the input, quoted by libcsv, with its control characters blanked as on a
 * terminal: the file is read in CI logs too. */
/* A text field. One that starts with =, +, -, @, a tab or a carriage return is a formula
 * to a spreadsheet, which would run it (a benchmark named "=HYPERLINK(...)"): it is
 * written with a ' before it, as OWASP's "CSV Injection" advises; docs/export.md. */
static void put_text(FILE *out, const char *s)
{
	char *shown = pmc_escape_text_dup(s);
	const char *t = shown ? shown : "";

	if (strchr("=+-@\t\r", t[0]) && t[0]) {
		char *quoted = malloc(strlen(t) + 2);

		if (quoted) {
			quoted[0] = '\'';
			strcpy(quoted + 1, t);
			csv_fwrite(out, quoted, strlen(quoted));
			free(quoted);
			free(shown);
			return;
		}
	}
	/* Out of memory: an empty field keeps the columns in place. */
	csv_fwrite(out, t, shown ? strlen(t) : 0);
	free(shown);
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
	uint64_t iters = run < b->nruns ? b->runs[run].iterations : 0;
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
	fputs(",,", out);
	if (iters)
		fprintf(out, "%" PRIu64, iters);
	fputc('\n', out);
}

/* A skipped benchmark measured nothing: no metric, no run, no value. */
static void put_skipped(FILE *out, const struct pmc_benchmark *b)
{
	put_text(out, b->name);
	fputs(",,,,,skipped,,,,", out);
	if (*b->skipped)
		put_text(out, b->skipped);
	fputs(",\n", out);
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
	      "skipped,iterations\n",
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

/* ---- A comparison ----------------------------------------------------------------- */

/* A number, or an empty field where there is none; measured values keep every digit,
 * statistics of them 10 significant ones (as the JSON report). */
static void put_num(FILE *out, double v, bool measured)
{
	char buf[PMC_FMT_MAX];

	fputc(',', out);
	if (!isfinite(v))
		return;
	if (measured)
		pmc_fmt_exact_to(buf, v);
	else
		pmc_fmt_stat_to(buf, v);
	fputs(buf, out);
}

static void put_field(FILE *out, const char *s)
{
	fputc(',', out);
	if (s)
		put_text(out, s);
}

static void put_side(FILE *out, const struct pmc_summary *s, bool have)
{
	if (!have) {
		fputs(",,,,,,,", out); /* n, median, ci_lo, ci_hi, min, max, mean */
		return;
	}
	fprintf(out, ",%zu", s->n);
	put_num(out, s->median, true);
	put_num(out, s->has_ci ? s->ci_lo : NAN, true);
	put_num(out, s->has_ci ? s->ci_hi : NAN, true);
	put_num(out, s->min, true);
	put_num(out, s->max, true);
	put_num(out, s->mean, false);
}

static const char *bool_text(bool b)
{
	return b ? "true" : "false";
}

/* A row; with old_file and new_file (several comparisons), two more fields at the end
 * name its pair. */
static void put_cmp_row(FILE *out, const struct pmc_cmp_block *blk, const struct pmc_cmp_row *row,
			const char *old_file, const char *new_file)
{
	static const char *const kinds[] = {"tested", "exact", "missing"};
	const struct pmc_threshold *th = row->threshold;

	put_text(out, row->bench);
	put_field(out, row->old_bench);
	put_field(out, row->metric);
	put_field(out, blk->unit ? blk->unit : "count");
	put_field(out, blk->better == PMC_HIGHER_IS_BETTER ? "higher"
		       : blk->better == PMC_NO_DIRECTION   ? "none"
							   : "lower");
	put_field(out, kinds[row->kind]);
	put_field(out, row->kind == PMC_ROW_MISSING ? (row->missing_old ? "old" : "new") : NULL);
	put_side(out, &row->old, row->has_old);
	put_side(out, &row->new, row->has_new);
	put_num(out, row->ratio, false);
	put_num(out, row->ratio_lo, false);
	put_num(out, row->ratio_hi, false);
	put_num(out, row->diff, true);
	put_num(out, row->p, false);
	put_num(out, row->q, false);
	put_field(out, row->kind != PMC_ROW_TESTED ? NULL
		       : row->one_invocation	   ? "none"
		       : row->paired		   ? "wilcoxon-signed-rank"
		       : row->by_process	   ? "mann-whitney-u-processes"
						   : "mann-whitney-u");
	fputc(',', out);
	if (row->paired)
		fprintf(out, "%zu", row->npairs);
	put_field(out, bool_text(row->testable));
	put_field(out, bool_text(row->significant));
	put_field(out, bool_text(row->gated));
	put_field(out, th ? th->text : NULL);
	put_field(out,
		  row->kind == PMC_ROW_MISSING ? "not compared" : pmc_verdict_name(row->verdict));
	put_field(out, row->why);
	if (old_file) {
		put_field(out, old_file);
		put_field(out, new_file);
	}
	fputc('\n', out);
}

static const char cmp_header[] =
    "benchmark,old_benchmark,metric,unit,better,kind,missing,"
    "old_n,old_median,old_ci_lo,old_ci_hi,old_min,old_max,old_mean,"
    "new_n,new_median,new_ci_lo,new_ci_hi,new_min,new_max,new_mean,"
    "ratio,ratio_lo,ratio_hi,diff,p,q,test,pairs,testable,significant,gated,"
    "threshold,verdict,why";

static void put_cmp_rows(FILE *out, const struct pmc_comparison *c, const char *old_file,
			 const char *new_file)
{
	for (size_t bi = 0; c && bi < c->nblocks; bi++)
		for (size_t j = 0; j < c->blocks[bi].nrows; j++)
			put_cmp_row(out, &c->blocks[bi], &c->rows[c->blocks[bi].rows[j]], old_file,
				    new_file);
}

static int csv_comparison(FILE *out, const struct pmc_comparison *c,
			  const struct pmc_report_opts *o)
{
	struct pmc_fmt_locale loc;

	if (pmc_fmt_locale_c(&loc) < 0)
		return -ENOMEM;
	errno = 0;
	fprintf(out, "%s\n", cmp_header);
	/* A failed comparison has no rows: the header alone (the error is on stderr). */
	put_cmp_rows(out, c, NULL, NULL);
	pmc_fmt_locale_restore(&loc);
	if (fflush(out) != 0 || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}

/* Several comparisons with one base: one table, the rows of each comparison in the order
 * of the files, and two more columns at the end, old_file and new_file, naming the pair
 * of each row (docs/compare.md, "More than two files"). */
static int csv_comparisons(FILE *out, const struct pmc_comparison *const *cs,
			   const char *const *names, size_t n, const struct pmc_report_opts *o)
{
	struct pmc_fmt_locale loc;

	if (pmc_fmt_locale_c(&loc) < 0)
		return -ENOMEM;
	errno = 0;
	fprintf(out, "%s,old_file,new_file\n", cmp_header);
	for (size_t i = 0; i < n; i++)
		put_cmp_rows(out, cs[i], names[0], names[i + 1]);
	pmc_fmt_locale_restore(&loc);
	if (fflush(out) != 0 || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}

const struct pmc_reporter pmc_reporter_csv = {
    .name = "csv",
    .ext = ".csv",
    .by_extension = true,
    .document = true,
    .result = csv_result,
    .comparison = csv_comparison,
    .comparisons = csv_comparisons,
    .points = pmc_points_csv,
};

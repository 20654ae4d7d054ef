/* The table format: the perf-stat-like table of a result, from the display rows it shares
 * with the Markdown report (report_rows.c); the table of a comparison is in
 * table_compare.c. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis.h"
#include "core/result.h"
#include "reporters/changes.h"
#include "reporters/escape.h"
#include "reporters/format.h"
#include "reporters/report_rows.h"
#include "reporters/reporter.h"
#include "reporters/table_priv.h"
#include "reporters/wrap.h"

/* Columns a UTF-8 string takes on a terminal: one per code point ("±" and "†" are one). */
#define report_width pmc_report_width

/* ---- The table -------------------------------------------------------------------- */

/* Writes one line of cells, padding with spaces that are emitted only before more text,
 * so that no line ends in blanks. */
struct line {
	FILE *out;
	size_t pending;
};

static void line_gap(struct line *l, size_t n)
{
	l->pending += n;
}

static void line_put(struct line *l, const char *s)
{
	if (!*s)
		return;
	fprintf(l->out, "%*s", (int)l->pending, "");
	l->pending = 0;
	pmc_escape_text(l->out, s);
}

/* A cell of width w (skipped when the whole column is empty), after gap spaces. */
static void line_cell(struct line *l, size_t gap, const char *s, size_t w, bool right)
{
	size_t sw = report_width(s);

	if (w == 0)
		return;
	line_gap(l, gap);
	if (right)
		line_gap(l, w - sw);
	line_put(l, s);
	if (!right)
		line_gap(l, w - sw);
}

static void line_end(struct line *l)
{
	fputc('\n', l->out);
	l->pending = 0;
}

#define MAX(a, b) ((a) > (b) ? (a) : (b))

struct widths {
	size_t value, unit, label, spread, kind, range, extra;
	/* A line may take this many columns (0: any); a row's comment that would pass it
	 * goes on a line of its own, under the names. */
	size_t limit;
};

static void label_text(const struct pmc_report_row *row, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", row->m->id, row->marked ? " " PMC_REPORT_CROSS_MARK : "");
}

/* The SGR colour of a row's status (the table with colour on): yellow for a count
 * that is scaled or missing, red when the kernel denied it; NULL for a plain count. */
static const char *status_sgr(const struct pmc_report_row *row, bool extra)
{
	if (extra)
		return row->scaled ? "\033[33m" : NULL;
	if (!row->missing)
		return NULL;
	return row->denied ? "\033[1;31m" : "\033[33m";
}

/* Like line_cell, the text wrapped in sgr when not NULL; the padding stays outside so
 * that the columns do not move. */
static void line_cell_sgr(struct line *l, size_t gap, const char *s, size_t w, const char *sgr)
{
	size_t sw = report_width(s);

	if (w == 0)
		return;
	line_gap(l, gap);
	fprintf(l->out, "%*s", (int)l->pending, "");
	l->pending = 0;
	if (sgr && *s)
		fputs(sgr, l->out);
	line_put(l, s);
	if (sgr && *s)
		fputs("\033[0m", l->out);
	line_gap(l, w - sw);
}

/* The columns of a row before its comment. */
static size_t row_width(const struct widths *w)
{
	size_t n = 2 + w->value;

	n += w->unit ? 1 + w->unit : 0;
	n += w->label ? 2 + w->label : 0;
	n += w->spread ? 2 + w->spread : 0;
	n += w->kind ? 1 + w->kind : 0;
	n += w->range ? 2 + w->range : 0;
	n += w->extra ? 2 + w->extra : 0;
	return n;
}

static void print_row(FILE *out, const struct pmc_report_row *row, const struct widths *w,
		      bool color)
{
	struct line l = {.out = out};
	char label[512];

	label_text(row, label, sizeof(label));
	line_cell(&l, 2, row->value, w->value, true);
	line_cell(&l, 1, row->unit, w->unit, false);
	line_cell(&l, 2, label, w->label, false);
	line_cell(&l, 2, row->spread, w->spread, true);
	line_cell(&l, 1, row->spread_kind, w->kind, false);
	line_cell(&l, 2, row->range, w->range, false);
	line_cell_sgr(&l, 2, row->extra, w->extra, color ? status_sgr(row, true) : NULL);
	line_gap(&l, 2);
	if (row->missing) {
		fprintf(out, "%*s", (int)l.pending, "");
		l.pending = 0;
		if (color)
			fputs(status_sgr(row, false), out);
		line_put(&l, row->comment);
		if (color)
			fputs("\033[0m", out);
		if (row->why) {
			line_put(&l, ": ");
			pmc_escape_text(out, row->why);
		}
	} else if (row->comment[0]) {
		size_t at = 2 + w->value + (w->unit ? 1 + w->unit : 0) + 2;

		if (w->limit && row_width(w) + 2 + 2 + report_width(row->comment) > w->limit) {
			line_end(&l);
			fprintf(out, "%*s", (int)at, "");
		} else {
			fprintf(out, "%*s", (int)l.pending, "");
		}
		l.pending = 0;
		fputs("# ", out);
		pmc_escape_text(out, row->comment);
	}
	line_end(&l);
}

/* ", 1,000 iterations each" (or "1,000 to 4,000"): a microbenchmark's batch size, which
 * its values are per; nothing for the runs of a command. */
static void print_batch(FILE *out, const struct pmc_benchmark *b)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	char l[64], h[64];

	for (size_t i = 0; i < b->nruns && b->runs; i++) {
		if (!b->runs[i].iterations)
			continue;
		lo = b->runs[i].iterations < lo ? b->runs[i].iterations : lo;
		hi = b->runs[i].iterations > hi ? b->runs[i].iterations : hi;
	}
	if (!hi)
		return;
	pmc_fmt_grouped((double)lo, l, sizeof(l));
	pmc_fmt_grouped((double)hi, h, sizeof(h));
	fprintf(out, " of %s%s%s iterations", l, lo == hi ? "" : " to ", lo == hi ? "" : h);
}

/* A microbenchmark's empty loop, included in its figures (docs/microbench.md,
 * "Overhead"), and the notes of its measured metrics (the loop's share, the pauses
 * subtracted), one line each. */
static void print_overhead(FILE *out, const struct pmc_report_block *blk)
{
	const struct pmc_benchmark *b = blk->b;
	bool any = false;
	char v[64];

	for (size_t i = 0; i < b->nmetrics; i++) {
		const struct pmc_metric *m = &b->metrics[i];

		if (!m->has_loop_overhead || isnan(m->loop_overhead))
			continue;
		fputs(any ? ", " : "  The empty loop's cost, included (not subtracted): ", out);
		pmc_fmt_short(m->loop_overhead, m->unit, v, sizeof(v));
		pmc_escape_text(out, m->id);
		fprintf(out, " %s", v);
		any = true;
	}
	if (any)
		fputs(".\n", out);
	for (size_t i = 0; i < blk->nrows; i++) {
		const struct pmc_report_row *row = &blk->rows[i];

		if (row->missing || !row->m->note)
			continue;
		fputs("  note: ", out);
		pmc_escape_text(out, row->m->id);
		fputs(": ", out);
		pmc_escape_text(out, row->m->note);
		fputc('\n', out);
	}
}

static void print_runs(FILE *out, const struct pmc_report_block *blk)
{
	fprintf(out, " (%zu run%s", blk->runs, blk->runs == 1 ? "" : "s");
	print_batch(out, blk->b);
	if (blk->failed)
		fprintf(out, ", %zu failed", blk->failed);
	if (blk->timed_out)
		fprintf(out, ", %zu timed out", blk->timed_out);
	fputs(")\n", out);
}

static void print_header(FILE *out, const struct pmc_report_block *blk)
{
	const struct pmc_benchmark *b = blk->b;

	fputs("Benchmark: ", out);
	pmc_escape_text(out, b->name ? b->name : "(unnamed)");
	if (b->skipped) {
		/* It measured nothing: no run count, no rows, no numbers. */
		fputs(" (skipped", out);
		if (*b->skipped) {
			fputs(": ", out);
			pmc_escape_text(out, b->skipped);
		}
		fputs(")\n", out);
	} else {
		print_runs(out, blk);
	}
	if (b->command) {
		fputs("Command:   ", out);
		pmc_escape_text(out, b->command);
		fputc('\n', out);
	}
}

/* Two rows not measured for the same reason (the six hardware events of a machine
 * without a PMU). */
static bool same_missing(const struct pmc_report_row *a, const struct pmc_report_row *b)
{
	return a->missing && b->missing && strcmp(a->value, b->value) == 0 &&
	       strcmp(a->comment, b->comment) == 0 &&
	       (a->why == b->why || (a->why && b->why && strcmp(a->why, b->why) == 0));
}

/* Whether row i is said in one line with the others missing for its reason, instead
 * of a row of its own: always with a width limit, else when it is not alone. */
static bool row_folds(const struct pmc_report_block *blk, size_t i)
{
	if (!blk->rows[i].missing)
		return false;
	if (blk->width)
		return true;
	for (size_t j = 0; j < blk->nrows; j++)
		if (j != i && same_missing(&blk->rows[i], &blk->rows[j]))
			return true;
	return false;
}

/* The rows missing for the reason of row i, from the first of them: "<not supported>
 * cycles, instructions, ...: unsupported (ENOENT)", wrapped to the width. */
static void print_folded(FILE *out, const struct pmc_report_block *blk, size_t i)
{
	const struct pmc_report_row *row = &blk->rows[i];
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	bool sgr = blk->color && status_sgr(row, false);

	if (!m)
		return;
	fprintf(m, "  %s  ", row->value);
	for (size_t j = i, n = 0; j < blk->nrows; j++)
		if (same_missing(row, &blk->rows[j])) {
			fputs(n++ ? ", " : "", m);
			pmc_escape_text(m, blk->rows[j].m->id);
		}
	fprintf(m, ": %s%s%s", sgr ? status_sgr(row, false) : "", row->comment,
		sgr ? "\033[0m" : "");
	if (row->why) {
		fputs(": ", m);
		pmc_escape_text(m, row->why);
	}
	if (fclose(m) == 0)
		pmc_report_wrap(out, text, blk->width);
	free(text);
}

/* The notes under the rows, wrapped to the block's width. */
static void print_notes(FILE *out, const struct pmc_report_block *blk, bool range)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return;
	pmc_report_footnotes(m, blk, "  ");
	print_overhead(m, blk);
	if (range)
		fputs("  min … max: the smallest and the largest value over the runs.\n", m);
	if (fclose(m) == 0)
		pmc_report_wrap(out, text, blk->width);
	free(text);
}

static void print_block(FILE *out, const struct pmc_report_block *blk)
{
	struct widths w = {.limit = blk->width};

	for (size_t i = 0; i < blk->nrows; i++) {
		const struct pmc_report_row *row = &blk->rows[i];
		char label[512];

		if (row_folds(blk, i))
			continue;
		label_text(row, label, sizeof(label));
		w.value = MAX(w.value, report_width(row->value));
		w.unit = MAX(w.unit, report_width(row->unit));
		w.label = MAX(w.label, report_width(label));
		w.spread = MAX(w.spread, report_width(row->spread));
		w.kind = MAX(w.kind, report_width(row->spread_kind));
		w.extra = MAX(w.extra, report_width(row->extra));
		w.range = MAX(w.range, report_width(row->range));
	}
	/* Too wide for the terminal: the range goes first (docs/cli.md, "Width"). */
	if (w.limit && row_width(&w) > w.limit)
		w.range = 0;

	print_header(out, blk);
	if (blk->b->skipped)
		return;
	fputc('\n', out);
	for (size_t i = 0; i < blk->nrows; i++) {
		bool first = true;

		if (i == blk->first_trailer && i > 0)
			fputc('\n', out);
		if (!row_folds(blk, i)) {
			print_row(out, &blk->rows[i], &w, blk->color);
			continue;
		}
		for (size_t j = 0; j < i && first; j++)
			first = !same_missing(&blk->rows[i], &blk->rows[j]);
		if (first)
			print_folded(out, blk, i);
	}
	if (blk->nrows == 0)
		fputs("  (no metrics)\n", out);
	fputc('\n', out);
	print_notes(out, blk, w.range != 0);
}

static int table_result(FILE *out, const struct pmc_result *r, const struct pmc_analysis *a,
			const struct pmc_report_opts *o)
{
	return pmc_report_each_block(out, a, o, "No benchmarks in the result.\n", print_block);
}

const struct pmc_reporter pmc_reporter_table = {
    .name = "table",
    .ext = ".txt",
    .result = table_result,
    .needs_analysis = true,
    .comparison = pmc_table_comparison,
    .comparisons = pmc_table_comparisons,
    .changes = pmc_changes_table,
};

/* Markdown for pull requests and $GITHUB_STEP_SUMMARY. A result: one section and one
 * table per benchmark, with the same rows, statuses and footnotes as the text table
 * (report_rows.h). A comparison: the outcome, then one table per metric, the rows
 * without change folded away. Text from the input is escaped by escape.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/compare.h"
#include "core/result.h"
#include "reporters/changes.h"
#include "reporters/compare_cells.h"
#include "reporters/escape.h"
#include "reporters/format.h"
#include "reporters/report_rows.h"
#include "reporters/reporter.h"

static void md_print_row(FILE *out, const struct pmc_report_row *row)
{
	fputs("| ", out);
	pmc_escape_md(out, row->m->id);
	if (row->marked)
		fputs(" " PMC_REPORT_CROSS_MARK, out);
	fputs(" | ", out);
	pmc_escape_md(out, row->value);
	fputs(" | ", out);
	pmc_escape_md(out, row->spread);
	if (row->spread_kind[0]) {
		fputc(' ', out);
		pmc_escape_md(out, row->spread_kind);
	}
	fputs(" | ", out);
	pmc_escape_md(out, row->unit);
	fputs(" | ", out);
	pmc_escape_md(out, row->extra);
	fputs(" | ", out);
	pmc_escape_md(out, row->comment);
	if (row->missing && row->why) {
		fputs(": ", out);
		pmc_escape_md(out, row->why);
	}
	fputs(" |\n", out);
}

static void print_footnotes(FILE *out, const struct pmc_report_block *blk)
{
	if (pmc_report_has_footnotes(blk)) {
		fputc('\n', out);
		pmc_report_footnotes(out, blk, "- ");
	}
}

static bool same_reason(const struct pmc_report_row *a, const struct pmc_report_row *b)
{
	return strcmp(a->value, b->value) == 0 && strcmp(a->comment, b->comment) == 0 &&
	       (a->why == b->why || (a->why && b->why && strcmp(a->why, b->why) == 0));
}

/* Whether blk's rows missing for the reason of row are exactly the ids of the rows of
 * other missing for that reason (the same counters, not measured for the same reason, in
 * the benchmark before). */
static bool same_group(const struct pmc_report_block *blk, const struct pmc_report_row *row,
		       const struct pmc_report_block *other)
{
	size_t j = 0, k = 0;

	for (;; j++, k++) {
		while (j < blk->nrows && !(blk->rows[j].missing && same_reason(&blk->rows[j], row)))
			j++;
		while (k < other->nrows &&
		       !(other->rows[k].missing && same_reason(&other->rows[k], row)))
			k++;
		if (j == blk->nrows || k == other->nrows)
			return j == blk->nrows && k == other->nrows;
		if (strcmp(blk->rows[j].m->id, other->rows[k].m->id) != 0)
			return false;
	}
}

/* The rows not measured, under the table: one line per reason, the reason said once
 * ("<not supported> cycles, instructions, ...: unsupported (ENOENT)"), not a row each;
 * the same counters missing for the same reason as in the benchmark above are named
 * without the reason again (a PMU-less machine's, in every benchmark). */
static void print_missing(FILE *out, const struct pmc_report_block *blk)
{
	bool any = false;

	for (size_t i = 0; i < blk->nrows; i++) {
		const struct pmc_report_row *row = &blk->rows[i];
		bool first = row->missing;

		for (size_t j = 0; j < i && first; j++)
			first = !(blk->rows[j].missing && same_reason(&blk->rows[j], row));
		if (!first)
			continue;
		fputs(any ? "- " : "\n- ", out);
		any = true;
		pmc_escape_md(out, row->value);
		fputc(' ', out);
		for (size_t j = i, n = 0; j < blk->nrows; j++)
			if (blk->rows[j].missing && same_reason(&blk->rows[j], row)) {
				fputs(n++ ? ", " : "", out);
				pmc_escape_md(out, blk->rows[j].m->id);
			}
		if (blk->prev && same_group(blk, row, blk->prev)) {
			fputs(": as above\n", out);
			continue;
		}
		fputs(": ", out);
		pmc_escape_md(out, row->comment);
		if (row->why) {
			fputs(": ", out);
			pmc_escape_md(out, row->why);
		}
		fputc('\n', out);
	}
}

static void md_print_block(FILE *out, const struct pmc_report_block *blk)
{
	const struct pmc_benchmark *b = blk->b;

	fputs("### ", out);
	pmc_escape_md(out, b->name ? b->name : "(unnamed)");
	fputs("\n\n", out);
	if (b->skipped) {
		/* It measured nothing: the reason instead of a table. */
		fputs("_Skipped", out);
		if (*b->skipped) {
			fputs(":_ ", out);
			pmc_escape_md(out, b->skipped);
			fputc('\n', out);
		} else {
			fputs("._\n", out);
		}
		return;
	}
	if (b->command) {
		fputs("Command: ", out);
		pmc_escape_md_code(out, b->command);
		fputs(" · ", out);
	}
	fprintf(out, "%zu run%s", blk->runs, blk->runs == 1 ? "" : "s");
	if (blk->failed)
		fprintf(out, ", %zu failed", blk->failed);
	if (blk->timed_out)
		fprintf(out, ", %zu timed out", blk->timed_out);
	fputs("\n\n", out);

	if (blk->nrows == 0) {
		fputs("_No metrics._\n", out);
		return;
	}
	fprintf(out, "| metric | %s | ± | unit | measured | comment |\n",
		blk->median ? "median" : "mean");
	fputs("| :-- | --: | --: | :-- | :-- | :-- |\n", out);
	for (size_t i = 0; i < blk->nrows; i++)
		if (!blk->rows[i].missing)
			md_print_row(out, &blk->rows[i]);
	print_missing(out, blk);
	print_footnotes(out, blk);
}

static int markdown_result(FILE *out, const struct pmc_result *r, const struct pmc_analysis *a,
			   const struct pmc_report_opts *o)
{
	return pmc_report_each_block(out, a, o, "_No benchmarks in the result._\n", md_print_block);
}

/* ---- The comparison --------------------------------------------------------------- */

static void md_row(FILE *out, const struct pmc_comparison *c, const struct pmc_cmp_row *row,
		   bool by_benchmark)
{
	struct pmc_cmp_cells k;
	bool bold = row->kind != PMC_ROW_MISSING && row->verdict == PMC_VERDICT_REGRESSION;

	pmc_cmp_cells(c, row, &k);
	fputs("| ", out);
	if (by_benchmark) {
		const struct pmc_cmp_block *b = &c->blocks[row->block];

		pmc_escape_md(out, row->metric);
		fputs(" (", out);
		pmc_escape_md(out, b->unit ? b->unit : "count");
		fputc(')', out);
	} else {
		pmc_escape_md(out, row->bench);
	}
	fprintf(out, " | %s | %s | %s%s%s | %s | ", k.old, k.new, bold ? "**" : "", k.change,
		bold ? "**" : "", k.test);
	pmc_escape_md(out, k.limit);
	fprintf(out, " | %s%s%s", bold ? "**" : "", k.verdict, bold ? "**" : "");
	if (row->why && row->kind != PMC_ROW_MISSING)
		fprintf(out, " (%s)", row->why);
	fputs(" |\n", out);
}

static void md_header(FILE *out, const char *on, const char *nn, bool by_benchmark)
{
	fputs(by_benchmark ? "| metric | " : "| benchmark | ", out);
	pmc_escape_md(out, on);
	fputs(" | ", out);
	pmc_escape_md(out, nn);
	fputs(" | change (HL) | test | limit | verdict |\n|---|--:|--:|--:|---|--:|---|\n", out);
}

/* One table: the rows idx[0..n) of c that do not fold (every row with o->all_rows),
 * blk's geomean row when blk is given, then the folded rows in a collapsed section. */
static void md_table(FILE *out, const struct pmc_comparison *c, const struct pmc_report_opts *o,
		     const char *on, const char *nn, const size_t *idx, size_t n,
		     const struct pmc_cmp_block *b)
{
	size_t max_changed = o->md_max_changed ? o->md_max_changed : 1000;
	size_t max_same = o->md_max_unchanged ? o->md_max_unchanged : 100;
	size_t nchanged = 0, nsame = 0, shown;
	bool bb = o->by_benchmark;

	for (size_t j = 0; j < n; j++) {
		if (!o->all_rows && pmc_cmp_row_folds(&c->rows[idx[j]], o->gate))
			nsame++;
		else
			nchanged++;
	}
	if (nchanged) {
		md_header(out, on, nn, bb);
		shown = 0;
		for (size_t j = 0; j < n && shown < max_changed; j++) {
			const struct pmc_cmp_row *row = &c->rows[idx[j]];

			if (!o->all_rows && pmc_cmp_row_folds(row, o->gate))
				continue;
			md_row(out, c, row, bb);
			shown++;
		}
		if (nchanged > shown)
			fprintf(out, "| … %zu more (see the JSON report) | | | | | | |\n",
				nchanged - shown);
	}
	if (b && pmc_cmp_has_geomean(b)) {
		struct pmc_cmp_cells k;

		if (!nchanged)
			md_header(out, on, nn, bb);
		pmc_cmp_geomean_cells(b, &k);
		fprintf(out, "| **geomean** | %s | %s | %s | %s | | |\n", k.old, k.new, k.change,
			k.test);
	}
	if (nsame) {
		fprintf(out, "\n<details><summary>%zu %s%s without change</summary>\n\n", nsame,
			bb ? "metric" : "benchmark", nsame == 1 ? "" : "s");
		md_header(out, on, nn, bb);
		shown = 0;
		for (size_t j = 0; j < n && shown < max_same; j++) {
			const struct pmc_cmp_row *row = &c->rows[idx[j]];

			if (!pmc_cmp_row_folds(row, o->gate))
				continue;
			md_row(out, c, row, bb);
			shown++;
		}
		if (nsame > shown)
			fprintf(out, "| … %zu more (see the JSON report) | | | | | | |\n",
				nsame - shown);
		fputs("\n</details>\n", out);
	}
}

static void md_settings(FILE *out, const struct pmc_comparison *c)
{
	fputs("\n<sub>", out);
	pmc_cmp_settings_line(out, c);
	fputs("</sub>\n", out);
}

/* --row metric: a section per benchmark, its metrics in the order of the blocks (gated
 * ones first); a benchmark's rows are consecutive in the comparison. */
static int md_by_benchmark(FILE *out, const struct pmc_comparison *c,
			   const struct pmc_report_opts *o, const char *on, const char *nn)
{
	size_t *idx = malloc((c->nrows ? c->nrows : 1) * sizeof(*idx));

	if (!idx)
		return -ENOMEM;
	for (size_t i = 0, end; i < c->nrows; i = end) {
		end = pmc_cmp_benchmark_rows(c, i, idx);
		fputs("\n### ", out);
		pmc_escape_md(out, c->rows[i].bench);
		fputs("\n\n", out);
		md_table(out, c, o, on, nn, idx, end - i, NULL);
	}
	free(idx);
	md_settings(out, c);
	return 0;
}

/* Whether every row of b folds (docs/compare.md, "Folded rows") and it has no geomean
 * row: the block says nothing a reader must see. */
static bool block_folds(const struct pmc_comparison *c, const struct pmc_cmp_block *b,
			const struct pmc_report_opts *o)
{
	if (o->all_rows || pmc_cmp_has_geomean(b))
		return false;
	for (size_t j = 0; j < b->nrows; j++)
		if (!pmc_cmp_row_folds(&c->rows[b->rows[j]], o->gate))
			return false;
	return true;
}

/* One metric's section: its heading and its table. */
static void md_block(FILE *out, const struct pmc_comparison *c, const struct pmc_report_opts *o,
		     const char *on, const char *nn, const struct pmc_cmp_block *b)
{
	fputs("\n### ", out);
	pmc_escape_md(out, b->metric);
	fputs(" (", out);
	pmc_escape_md(out, b->unit ? b->unit : "count");
	fprintf(out, ", %s)%s%s\n\n", pmc_cmp_better_text(b->better),
		b->simulated ? " — simulated" : "", b->derived ? " — derived" : "");
	md_table(out, c, o, on, nn, b->rows, b->nrows, b);
}

/* The headline (pmc_cmp_headline), in bold after the verdict: the answer before the
 * tables. A summary of three or more commands keeps its lines. */
static void md_headline(FILE *out, const struct pmc_comparison *c, const struct pmc_report_opts *o)
{
	char line[512];

	if (o->no_headline || !pmc_cmp_headline(c, o, line, sizeof(line)))
		return;
	for (char *p = line, *nl; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (!*p)
			continue;
		fputs(p == line ? "**" : "- ", out);
		pmc_escape_md(out, p[0] == ' ' ? p + strspn(p, " ") : p);
		fputs(p == line ? "**\n" : "\n", out);
	}
	fputc('\n', out);
}

static int markdown_comparison(FILE *out, const struct pmc_comparison *c,
			       const struct pmc_report_opts *o)
{
	const char *on = pmc_cmp_label(o->old_name, "old"), *nn = pmc_cmp_label(o->new_name, "new");
	struct pmc_report_opts every = *o;
	size_t nfolded;

	every.all_rows = true;

	fprintf(out, "## pmcbench %s", o->gate ? "gate" : "compare");
	if (o->gate || o->error)
		fprintf(out, ": %s", o->error ? "ERROR" : pmc_cmp_decision_name(o->decision));
	fputs("\n\n", out);
	pmc_escape_md_code(out, on);
	fputs(" → ", out);
	pmc_escape_md_code(out, nn);
	fputs("\n\n", out);
	if (o->error) {
		fputs("**Error:** ", out);
		pmc_escape_md(out, o->error);
		fputs("\n\n", out);
		if (!c)
			return 0;
	}
	md_headline(out, c, o);
	pmc_cmp_outcome_counts(out, c, true);
	fprintf(out, " (%zu benchmark%s in both", c->ncommon, c->ncommon == 1 ? "" : "s");
	if (c->nonly_old || c->nonly_new) {
		fprintf(out, "; %zu only in ", c->nonly_old);
		pmc_escape_md(out, on);
		fprintf(out, ", %zu only in ", c->nonly_new);
		pmc_escape_md(out, nn);
	}
	fputs(").\n", out);
	if (c->nwarnings) {
		fputs("\n", out);
		for (size_t i = 0; i < c->nwarnings; i++) {
			if (pmc_cmp_same_as_error(c->warnings[i], o))
				continue;
			fputs("> **Warning:** ", out);
			pmc_escape_md(out, c->warnings[i]);
			fputs("\n>\n", out);
		}
	}
	if (o->by_benchmark)
		return md_by_benchmark(out, c, o, on, nn);
	/* The metrics with something to say first; those whose every row folds (no change,
	 * not judged) in one collapsed section after them. */
	for (size_t bi = 0; bi < c->nblocks; bi++)
		if (!block_folds(c, &c->blocks[bi], o))
			md_block(out, c, o, on, nn, &c->blocks[bi]);
	nfolded = 0;
	for (size_t bi = 0; bi < c->nblocks; bi++)
		nfolded += block_folds(c, &c->blocks[bi], o);
	if (nfolded) {
		fprintf(out, "\n<details><summary>%zu metric%s without change: ", nfolded,
			nfolded == 1 ? "" : "s");
		for (size_t bi = 0, k = 0; bi < c->nblocks; bi++)
			if (block_folds(c, &c->blocks[bi], o)) {
				fputs(k++ ? ", " : "", out);
				pmc_escape_md(out, c->blocks[bi].metric);
			}
		fputs("</summary>\n", out);
		for (size_t bi = 0; bi < c->nblocks; bi++)
			if (block_folds(c, &c->blocks[bi], o))
				md_block(out, c, &every, on, nn, &c->blocks[bi]);
		fputs("\n</details>\n", out);
	}
	md_settings(out, c);
	return 0;
}

/* Each comparison as the two-file report: its own heading names its pair. */
static int markdown_comparisons(FILE *out, const struct pmc_comparison *const *cs,
				const char *const *names, size_t n, const struct pmc_report_opts *o)
{
	for (size_t i = 0; i < n; i++) {
		struct pmc_report_opts one = *o;
		int r;

		one.old_name = names[0];
		one.new_name = names[i + 1];
		if (i)
			fputc('\n', out);
		r = markdown_comparison(out, cs[i], &one);
		if (r < 0)
			return r;
	}
	return 0;
}

const struct pmc_reporter pmc_reporter_markdown = {
    .name = "markdown",
    .alias = "md",
    .ext = ".md",
    .by_extension = true,
    .result = markdown_result,
    .needs_analysis = true,
    .comparison = markdown_comparison,
    .comparisons = markdown_comparisons,
    .changes = pmc_changes_markdown,
};

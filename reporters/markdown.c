/* Markdown for pull requests and $GITHUB_STEP_SUMMARY. A result: one section and one
 * table per benchmark, with the same rows, statuses and footnotes as the text table
 * (report_rows.h). A comparison: the outcome, then one table per metric, the rows
 * without change folded away. Text from the input is escaped by escape.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "harness/core/compare.h"
#include "harness/core/result.h"
#include "reporters/compare_cells.h"
#include "reporters/escape.h"
#include "reporters/format.h"
#include "reporters/report_rows.h"
#include "reporters/reporter.h"

static void print_row(FILE *out, const struct pmc_report_row *row)
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
	if (blk->any_spread || blk->median || blk->any_scaled || blk->any_partial ||
	    blk->any_simulated || blk->any_cross) {
		fputc('\n', out);
		pmc_report_footnotes(out, blk, "- ");
	}
}

static void print_block(FILE *out, const struct pmc_report_block *blk)
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
		print_row(out, &blk->rows[i]);
	print_footnotes(out, blk);
}

static int markdown_result(FILE *out, const struct pmc_result *r, const struct pmc_analysis *a,
			   const struct pmc_report_opts *o)
{
	return pmc_report_each_block(out, a, o, "_No benchmarks in the result._\n", print_block);
}

/* ---- The comparison --------------------------------------------------------------- */

static void md_row(FILE *out, const struct pmc_comparison *c, const struct pmc_cmp_row *row)
{
	struct pmc_cmp_cells k;
	bool bold = row->kind != PMC_ROW_MISSING && row->verdict == PMC_VERDICT_REGRESSION;

	pmc_cmp_cells(c, row, &k);
	fputs("| ", out);
	pmc_escape_md(out, row->bench);
	fprintf(out, " | %s | %s | %s%s%s | %s | ", k.old, k.new, bold ? "**" : "", k.change,
		bold ? "**" : "", k.test);
	pmc_escape_md(out, k.limit);
	fprintf(out, " | %s%s%s", bold ? "**" : "", k.verdict, bold ? "**" : "");
	if (row->why && row->kind != PMC_ROW_MISSING)
		fprintf(out, " (%s)", row->why);
	fputs(" |\n", out);
}

static void md_header(FILE *out, const char *on, const char *nn)
{
	fputs("| benchmark | ", out);
	pmc_escape_md(out, on);
	fputs(" | ", out);
	pmc_escape_md(out, nn);
	fputs(" | change (HL) | test | limit | verdict |\n|---|--:|--:|--:|---|--:|---|\n", out);
}

static int markdown_comparison(FILE *out, const struct pmc_comparison *c,
			       const struct pmc_report_opts *o)
{
	const char *on = pmc_cmp_label(o->old_name, "old"), *nn = pmc_cmp_label(o->new_name, "new");
	size_t max_changed = o->md_max_changed ? o->md_max_changed : 1000;
	size_t max_same = o->md_max_unchanged ? o->md_max_unchanged : 100;

	fprintf(out, "## pmcbench %s", o->gate ? "gate" : "compare");
	if (o->gate || o->error)
		fprintf(out, ": %s", o->error ? "ERROR" : pmc_cmp_outcome_name(o->exit_code));
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
	for (size_t bi = 0; bi < c->nblocks; bi++) {
		const struct pmc_cmp_block *b = &c->blocks[bi];
		size_t nchanged = 0, nsame = 0, shown;

		fputs("\n### ", out);
		pmc_escape_md(out, b->metric);
		fputs(" (", out);
		pmc_escape_md(out, b->unit ? b->unit : "count");
		fprintf(out, ", %s)%s%s\n\n", pmc_cmp_better_text(b->better),
			b->simulated ? " — simulated" : "", b->derived ? " — derived" : "");
		for (size_t j = 0; j < b->nrows; j++) {
			const struct pmc_cmp_row *row = &c->rows[b->rows[j]];

			if (row->kind != PMC_ROW_MISSING && row->verdict == PMC_VERDICT_NO_CHANGE)
				nsame++;
			else
				nchanged++;
		}
		if (nchanged) {
			md_header(out, on, nn);
			shown = 0;
			for (size_t j = 0; j < b->nrows && shown < max_changed; j++) {
				const struct pmc_cmp_row *row = &c->rows[b->rows[j]];

				if (row->kind != PMC_ROW_MISSING &&
				    row->verdict == PMC_VERDICT_NO_CHANGE)
					continue;
				md_row(out, c, row);
				shown++;
			}
			if (nchanged > shown)
				fprintf(out, "| … %zu more (see the JSON report) | | | | | | |\n",
					nchanged - shown);
		}
		if (pmc_cmp_has_geomean(b)) {
			struct pmc_cmp_cells k;

			if (!nchanged)
				md_header(out, on, nn);
			pmc_cmp_geomean_cells(b, &k);
			fprintf(out, "| **geomean** | %s | %s | %s | %s | | |\n", k.old, k.new,
				k.change, k.test);
		}
		if (nsame) {
			fprintf(out,
				"\n<details><summary>%zu benchmark%s without change</summary>"
				"\n\n",
				nsame, nsame == 1 ? "" : "s");
			md_header(out, on, nn);
			shown = 0;
			for (size_t j = 0; j < b->nrows && shown < max_same; j++) {
				const struct pmc_cmp_row *row = &c->rows[b->rows[j]];

				if (row->kind == PMC_ROW_MISSING ||
				    row->verdict != PMC_VERDICT_NO_CHANGE)
					continue;
				md_row(out, c, row);
				shown++;
			}
			if (nsame > shown)
				fprintf(out, "| … %zu more (see the JSON report) | | | | | | |\n",
					nsame - shown);
			fputs("\n</details>\n", out);
		}
	}
	fputs("\n<sub>", out);
	pmc_cmp_settings_line(out, c);
	fputs("</sub>\n", out);
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
};

/* The table of a result as GitHub-flavoured Markdown, for pull requests and
 * $GITHUB_STEP_SUMMARY: one section and one table per benchmark, with the same rows,
 * statuses and footnotes as the text table (report_rows.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "harness/core/result.h"
#include "reporters/report_rows.h"
#include "reporters/reporters.h"

/* Text from the result (names, notes) and our placeholders ("<not supported>" would be
 * taken for an HTML tag) escaped for a table cell: CommonMark allows a backslash before
 * any ASCII punctuation, and GFM needs "\|" inside tables. Control characters become
 * spaces so that a newline cannot end the row. */
static void put_md(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			fputc(' ', out);
		else if (strchr("\\`*_|<>[]#", c))
			fprintf(out, "\\%c", c);
		else
			fputc(c, out);
	}
}

/* A code span that holds s verbatim: the fence is one backtick longer than the longest
 * run inside, and padded when s starts or ends with a backtick (CommonMark 6.1). */
static void put_code(FILE *out, const char *s)
{
	size_t run = 0, longest = 0, len = strlen(s);
	bool pad = len && (s[0] == '`' || s[len - 1] == '`');

	for (const char *p = s; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		longest = run > longest ? run : longest;
	}
	for (size_t i = 0; i <= longest; i++)
		fputc('`', out);
	if (pad)
		fputc(' ', out);
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, out);
	if (pad)
		fputc(' ', out);
	for (size_t i = 0; i <= longest; i++)
		fputc('`', out);
}

static void print_row(FILE *out, const struct pmc_report_row *row)
{
	fputs("| ", out);
	put_md(out, row->m->id);
	if (row->marked)
		fputs(" " PMC_REPORT_CROSS_MARK, out);
	fputs(" | ", out);
	put_md(out, row->value);
	fputs(" | ", out);
	put_md(out, row->spread);
	if (row->spread_kind[0]) {
		fputc(' ', out);
		put_md(out, row->spread_kind);
	}
	fputs(" | ", out);
	put_md(out, row->unit);
	fputs(" | ", out);
	put_md(out, row->extra);
	fputs(" | ", out);
	put_md(out, row->comment);
	if (row->missing && row->why) {
		fputs(": ", out);
		put_md(out, row->why);
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
	put_md(out, b->name ? b->name : "(unnamed)");
	fputs("\n\n", out);
	if (b->command) {
		fputs("Command: ", out);
		put_code(out, b->command);
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

int pmc_report_markdown(FILE *out, const struct pmc_result *r, const struct pmc_report_opts *o)
{
	return pmc_report_each_block(out, r, o, "_No benchmarks in the result._\n", print_block);
}

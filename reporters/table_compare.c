/* The table format's comparison (reporters/table.c renders results): the headline, a
 * table per metric (or per benchmark), the warnings, the verdict counts and the settings
 * line; within a width (pmc_report_opts.width), the narrow layout of docs/cli.md,
 * "Width". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/compare.h"
#include "pmcbench/report.h"
#include "reporters/compare_cells.h"
#include "reporters/escape.h"
#include "reporters/table_priv.h"
#include "reporters/wrap.h"

#define report_width pmc_report_width
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* ---- The comparison table ------------------------------------------------------- */

static void cmp_cell(struct pmc_sbuf *b, const char *s, size_t w, bool last)
{
	static const char spaces[] = "                                                            ";
	size_t n = report_width(s);

	pmc_sb_puts(b, s);
	if (last)
		return;
	/* A cell wider than its column pushes the rest of its row, by one space at least. */
	n = n + 1 < w + 2 ? w + 2 - n : 1;
	while (n > 0) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;

		pmc_sb_put(b, spaces, k);
		n -= k;
	}
}

/* A cell of text from the input (a benchmark's or a metric's name, a file name): its
 * control characters shown as pmc_escape_text() shows them, so that a name cannot move
 * the cursor, set a terminal title or forge a line of the report. */
static void text_cell(struct pmc_sbuf *b, const char *s, size_t w, bool last)
{
	char *e;

	if (!pmc_escape_text_needed(s)) {
		cmp_cell(b, s, w, last);
		return;
	}
	e = pmc_escape_text_dup(s);
	cmp_cell(b, e ? e : "?", w, last);
	free(e);
}

/* prefix, then s escaped for the terminal, on a line of its own. */
static void escaped_line(struct pmc_sbuf *b, const char *prefix, const char *s)
{
	char *e = pmc_escape_text_needed(s) ? pmc_escape_text_dup(s) : NULL;

	pmc_sb_puts(b, prefix);
	pmc_sb_puts(b, e ? e : pmc_escape_text_needed(s) ? "?" : s);
	pmc_sb_put(b, "\n", 1);
	free(e);
}

/* The SGR colour of a verdict: red regressions, green improvements, yellow
 * inconclusive rows; NULL for no change. */
static const char *verdict_sgr(const struct pmc_cmp_row *row)
{
	if (row->kind == PMC_ROW_MISSING)
		return NULL;
	switch (row->verdict) {
	case PMC_VERDICT_REGRESSION:
		return "\033[1;31m";
	case PMC_VERDICT_IMPROVEMENT:
		return "\033[1;32m";
	case PMC_VERDICT_INCONCLUSIVE:
		return "\033[33m";
	default:
		return NULL;
	}
}

/* A line of the headline, escaped as text_cell does; with colour, its word "faster"
 * green and "slower" red (after the escaping, so a name cannot smuggle a sequence in).
 * The word is the first after " ran " (the two-command line) or the first word of an
 * indented line (the summary of three or more). */
static void headline_line(struct pmc_sbuf *b, const char *s, bool color)
{
	char *e = pmc_escape_text_needed(s) ? pmc_escape_text_dup(s) : NULL;
	const char *t = e ? e : s, *from, *hit = NULL, *sgr = NULL;

	if (pmc_escape_text_needed(s) && !e)
		t = "?";
	from = strncmp(t, "  ", 2) == 0 ? t : strstr(t, " ran ");
	if (color && from) {
		const char *f = strstr(from, " faster than "), *sl = strstr(from, " slower than ");

		hit = f && (!sl || f < sl) ? f : sl;
		sgr = hit == f ? "\033[1;32m" : "\033[1;31m";
	}
	if (hit) {
		pmc_sb_put(b, t, (size_t)(hit - t) + 1);
		pmc_sb_printf(b, "%s%.6s\033[0m", sgr, hit + 1);
		pmc_sb_puts(b, hit + 7);
	} else {
		pmc_sb_puts(b, t);
	}
	free(e);
}

static const char *outcome_sgr(const struct pmc_report_opts *o)
{
	if (o->error || o->decision == PMC_DECISION_ERROR)
		return "\033[1;31m";
	return o->decision == PMC_DECISION_PASS		? "\033[1;32m"
	       : o->decision == PMC_DECISION_REGRESSION ? "\033[1;31m"
							: "\033[1;33m";
}

/* The label of a row in its table: the benchmark, or with --row metric the metric with
 * its unit. */
static void row_label(const struct pmc_comparison *c, const struct pmc_cmp_row *row,
		      bool by_benchmark, char *buf, size_t len)
{
	const struct pmc_cmp_block *blk = &c->blocks[row->block];

	if (by_benchmark)
		snprintf(buf, len, "%s [%s]", row->metric, blk->unit ? blk->unit : "count");
	else
		snprintf(buf, len, "%s", row->bench);
}

static bool narrow_table(struct pmc_sbuf *b, FILE *out, const struct pmc_comparison *c,
			 const struct pmc_report_opts *o, const char *on, const char *nn,
			 const size_t *idx, size_t n, const struct pmc_cmp_block *blk);
static void folded_line(struct pmc_sbuf *b, const struct pmc_report_opts *o, size_t nfolded);

/* One table: the header, the rows idx[0..n) of c but those that fold (unless
 * o->all_rows), blk's geomean row when blk is given, and one line that counts the
 * folded rows. false when writing failed or memory ran out. */
static bool one_table(struct pmc_sbuf *b, FILE *out, const struct pmc_comparison *c,
		      const struct pmc_report_opts *o, const char *on, const char *nn,
		      const size_t *idx, size_t n, const struct pmc_cmp_block *blk)
{
	const char *first = o->by_benchmark ? "metric" : "benchmark";
	size_t wb = strlen(first), wo = 16, wn = 16, wt = 15, wl = 5, wc = 24, nfolded = 0;
	bool geomean = blk && pmc_cmp_has_geomean(blk), ok = true;
	struct pmc_cmp_cells k;
	char label[512];

	/* Name widths exactly; value columns at their usual width (a longer cell only pushes
	 * its own row), so the table is formatted in one pass. */
	for (size_t j = 0; j < n; j++) {
		const struct pmc_cmp_row *row = &c->rows[idx[j]];
		size_t w;

		if (!o->all_rows && pmc_cmp_row_folds(row, o->gate)) {
			nfolded++;
			continue;
		}
		row_label(c, row, o->by_benchmark, label, sizeof(label));
		w = report_width(label);
		if (w > wb)
			wb = w < 60 ? w : 60;
	}
	if (report_width(on) > wo)
		wo = report_width(on);
	if (report_width(nn) > wn)
		wn = report_width(nn);
	if (o->width)
		return narrow_table(b, out, c, o, on, nn, idx, n, blk);
	/* A table a person reads: the columns grow to their widest cell ("0.3877 CPUs ±
	 * 2.93%" pushed its row out of line); one of 100,000 rows keeps one pass. */
	for (size_t j = 0; n <= 1000 && j < n; j++) {
		const struct pmc_cmp_row *row = &c->rows[idx[j]];

		if (!o->all_rows && pmc_cmp_row_folds(row, o->gate))
			continue;
		pmc_cmp_cells(c, row, &k);
		wo = MAX(wo, report_width(k.old));
		wn = MAX(wn, report_width(k.new));
		wc = MAX(wc, report_width(k.change));
		wt = MAX(wt, report_width(k.test));
		wl = MAX(wl, report_width(k.limit));
	}
	if (nfolded < n || geomean) {
		cmp_cell(b, first, wb, false);
		text_cell(b, on, wo, false);
		text_cell(b, nn, wn, false);
		/* The change is the Hodges-Lehmann estimate, not the ratio of the medians
		 * shown beside it; the header says so (docs/compare.md, "Reports"). */
		cmp_cell(b, "change (HL)", wc, false);
		cmp_cell(b, "test", wt, false);
		cmp_cell(b, "limit", wl, false);
		cmp_cell(b, "verdict", 0, true);
		pmc_sb_put(b, "\n", 1);
	}
	for (size_t j = 0; j < n && ok; j++) {
		const struct pmc_cmp_row *row = &c->rows[idx[j]];

		if (!o->all_rows && pmc_cmp_row_folds(row, o->gate))
			continue;
		pmc_cmp_cells(c, row, &k);
		row_label(c, row, o->by_benchmark, label, sizeof(label));
		text_cell(b, label, wb, false);
		cmp_cell(b, k.old, wo, false);
		cmp_cell(b, k.new, wn, false);
		cmp_cell(b, k.change, wc, false);
		cmp_cell(b, k.test, wt, false);
		cmp_cell(b, k.limit, wl, false);
		/* The last cell: the colour cannot shift a column. */
		if (o->color && verdict_sgr(row))
			pmc_sb_printf(b, "%s%s\033[0m", verdict_sgr(row), k.verdict);
		else
			cmp_cell(b, k.verdict, 0, true);
		/* The row's note, as the Markdown report shows it (docs/compare.md). */
		if (row->why && row->kind != PMC_ROW_MISSING)
			pmc_sb_printf(b, " (%s)", row->why);
		pmc_sb_put(b, "\n", 1);
		if (b->len > 32768)
			ok = pmc_sb_flush(b, out);
	}
	if (geomean) {
		pmc_cmp_geomean_cells(blk, &k);
		cmp_cell(b, "geomean", wb, false);
		cmp_cell(b, k.old, wo, false);
		cmp_cell(b, k.new, wn, false);
		cmp_cell(b, k.change, wc, false);
		cmp_cell(b, k.test, wt, true);
		pmc_sb_put(b, "\n", 1);
	}
	/* What was left out is counted, never silently dropped (docs/compare.md, "Folded
	 * rows"). */
	folded_line(b, o, nfolded);
	return ok;
}

/* The footer of a table: how many rows folded. */
static void folded_line(struct pmc_sbuf *b, const struct pmc_report_opts *o, size_t nfolded)
{
	if (nfolded)
		pmc_sb_printf(b, "%zu %s%s without change (~); --all shows %s\n", nfolded,
			      o->by_benchmark ? "metric" : "benchmark", nfolded == 1 ? "" : "s",
			      nfolded == 1 ? "it" : "them");
}

/* The table of a terminal o->width columns wide (docs/cli.md, "Width"): the columns as
 * wide as their cells, and when a row would still pass the width, its test, limit and
 * note on a second line under it, wrapped. */
static bool narrow_table(struct pmc_sbuf *b, FILE *out, const struct pmc_comparison *c,
			 const struct pmc_report_opts *o, const char *on, const char *nn,
			 const size_t *idx, size_t n, const struct pmc_cmp_block *blk)
{
	const char *first = o->by_benchmark ? "metric" : "benchmark";
	size_t wb = strlen(first), wo = report_width(on), wn = report_width(nn);
	size_t wc = strlen("change (HL)"), wt = strlen("test"), wl = strlen("limit");
	size_t wv = strlen("verdict"), nfolded = 0, nshown = 0;
	bool geomean = blk && pmc_cmp_has_geomean(blk), two_lines, below, change_below, ok = true;
	struct pmc_cmp_cells k;
	char label[512];
	size_t wv0 = wv;

	for (size_t j = 0; j < n; j++) {
		const struct pmc_cmp_row *row = &c->rows[idx[j]];
		size_t v;

		if (!o->all_rows && pmc_cmp_row_folds(row, o->gate)) {
			nfolded++;
			continue;
		}
		nshown++;
		pmc_cmp_cells(c, row, &k);
		row_label(c, row, o->by_benchmark, label, sizeof(label));
		wb = MAX(wb, report_width(label));
		wo = MAX(wo, report_width(k.old));
		wn = MAX(wn, report_width(k.new));
		wc = MAX(wc, report_width(k.change));
		wt = MAX(wt, report_width(k.test));
		wl = MAX(wl, report_width(k.limit));
		v = report_width(k.verdict) +
		    (row->why && row->kind != PMC_ROW_MISSING ? 3 + report_width(row->why) : 0);
		wv = MAX(wv, v);
		wv0 = MAX(wv0, report_width(k.verdict));
	}
	if (geomean) {
		pmc_cmp_geomean_cells(blk, &k);
		wo = MAX(wo, report_width(k.old));
		wn = MAX(wn, report_width(k.new));
		wc = MAX(wc, report_width(k.change));
	}
	two_lines = wb + wo + wn + wc + wt + wl + wv + 12 > o->width;
	/* Still too wide: the verdict starts the second line. */
	below = two_lines && wb + wo + wn + wc + wv0 + 8 > o->width;
	/* And the change too, when the medians alone fill the line. */
	change_below = below && wb + wo + wn + wc + 6 > o->width;
	if (nshown || geomean) {
		cmp_cell(b, first, wb, false);
		text_cell(b, on, wo, false);
		text_cell(b, nn, wn, change_below);
		if (!change_below)
			cmp_cell(b, "change (HL)", wc, below);
		if (!two_lines) {
			cmp_cell(b, "test", wt, false);
			cmp_cell(b, "limit", wl, false);
		}
		if (!below)
			cmp_cell(b, "verdict", 0, true);
		pmc_sb_put(b, "\n", 1);
	}
	for (size_t j = 0; j < n && ok; j++) {
		const struct pmc_cmp_row *row = &c->rows[idx[j]];
		bool why = row->why && row->kind != PMC_ROW_MISSING;
		const char *vsgr = o->color && verdict_sgr(row) ? verdict_sgr(row) : NULL;

		if (!o->all_rows && pmc_cmp_row_folds(row, o->gate))
			continue;
		pmc_cmp_cells(c, row, &k);
		row_label(c, row, o->by_benchmark, label, sizeof(label));
		text_cell(b, label, wb, false);
		cmp_cell(b, k.old, wo, false);
		cmp_cell(b, k.new, wn, false);
		if (!change_below)
			cmp_cell(b, k.change, wc, false);
		if (!two_lines) {
			cmp_cell(b, k.test, wt, false);
			cmp_cell(b, k.limit, wl, false);
		}
		if (below)
			; /* the verdict starts the second line */
		else if (vsgr)
			pmc_sb_printf(b, "%s%s\033[0m", vsgr, k.verdict);
		else
			cmp_cell(b, k.verdict, 0, true);
		if (!two_lines && why)
			pmc_sb_printf(b, " (%s)", row->why);
		while (b->len && b->p[b->len - 1] == ' ')
			b->len--;
		pmc_sb_put(b, "\n", 1);
		if (two_lines) {
			char *text = NULL;

			ok = pmc_sb_flush(b, out);
			if (asprintf(&text, "  %s%s%s%s%s%s%stest %s%s%s%s%s%s",
				     change_below ? "change " : "", change_below ? k.change : "",
				     change_below ? "; " : "", below && vsgr ? vsgr : "",
				     below ? k.verdict : "", below && vsgr ? "\033[0m" : "",
				     below ? "; " : "", k.test,
				     strcmp(k.limit, "-") ? "; limit " : "",
				     strcmp(k.limit, "-") ? k.limit : "", why ? " (" : "",
				     why ? row->why : "", why ? ")" : "") < 0)
				text = NULL;
			if (text)
				pmc_report_wrap(out, text, o->width);
			free(text);
		}
	}
	if (geomean) {
		pmc_cmp_geomean_cells(blk, &k);
		cmp_cell(b, "geomean", wb, false);
		cmp_cell(b, k.old, wo, false);
		cmp_cell(b, k.new, wn, change_below);
		if (!change_below)
			cmp_cell(b, k.change, wc, !two_lines ? false : true);
		if (!two_lines)
			cmp_cell(b, k.test, wt, true);
		pmc_sb_put(b, "\n", 1);
		if (two_lines)
			pmc_sb_printf(b, "  %s%s%s\n", change_below ? k.change : "",
				      change_below ? "; " : "", k.test);
	}
	folded_line(b, o, nfolded);
	return ok;
}

/* --row metric: a table per benchmark, its metrics in the order of the blocks (gated
 * ones first). A benchmark's rows are consecutive: the comparison adds them pair by
 * pair. */
static bool by_benchmark_tables(struct pmc_sbuf *b, FILE *out, const struct pmc_comparison *c,
				const struct pmc_report_opts *o, const char *on, const char *nn)
{
	size_t *idx = malloc((c->nrows ? c->nrows : 1) * sizeof(*idx));
	bool ok = idx != NULL;

	for (size_t i = 0, end; ok && i < c->nrows; i = end) {
		end = pmc_cmp_benchmark_rows(c, i, idx);
		if (i)
			pmc_sb_put(b, "\n", 1);
		text_cell(b, c->rows[i].bench, 0, true);
		pmc_sb_put(b, "\n", 1);
		ok = one_table(b, out, c, o, on, nn, idx, end - i, NULL);
	}
	if (!idx)
		b->oom = true;
	free(idx);
	return ok;
}

/* Appends piece to b, its lines wrapped to width (0: as they are). */
static void wrap_into(struct pmc_sbuf *b, const struct pmc_sbuf *piece, unsigned width)
{
	char *text = NULL, *copy;
	size_t len = 0;
	FILE *m;

	if (!piece->len)
		return;
	if (!width || !(copy = strndup(piece->p, piece->len))) {
		pmc_sb_put(b, piece->p, piece->len);
		return;
	}
	m = open_memstream(&text, &len);
	if (m) {
		pmc_report_wrap(m, copy, width);
		if (fclose(m) == 0)
			pmc_sb_put(b, text, len);
		else
			b->oom = true;
	} else {
		b->oom = true;
	}
	free(text);
	free(copy);
}

/* The gate's outcome with the counts of verdicts, and the line that says how the rows
 * were tested, each wrapped to the width. */
static int summary_lines(FILE *out, const struct pmc_comparison *c, const struct pmc_report_opts *o)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return -ENOMEM;
	if (o->gate || o->error)
		fprintf(m, "%s %s%s%s; ",
			o->gate ? "gate:" : "compare:", o->color ? outcome_sgr(o) : "",
			o->error ? "ERROR" : pmc_cmp_decision_name(o->decision),
			o->color ? "\033[0m" : "");
	pmc_cmp_outcome_counts(m, c, false);
	fputc('\n', m);
	pmc_cmp_settings_line(m, c);
	fputc('\n', m);
	if (fclose(m) != 0) {
		free(text);
		return -ENOMEM;
	}
	pmc_report_wrap(out, text, o->width);
	free(text);
	return ferror(out) ? (errno ? -errno : -EIO) : 0;
}

int pmc_table_comparison(FILE *out, const struct pmc_comparison *c, const struct pmc_report_opts *o)
{
	const char *on = pmc_cmp_label(o->old_name, "old"), *nn = pmc_cmp_label(o->new_name, "new");
	struct pmc_sbuf b = {0};
	bool ok = true;

	if (!c) {
		fputs("error: ", out);
		pmc_escape_text(out, o->error ? o->error : "");
		fputc('\n', out);
		return 0;
	}
	{
		char line[512];

		/* The answer first, the detail after it. */
		/* The line ends with its newline; the names in it came from the input. */
		if (!o->no_headline && pmc_cmp_headline(c, o, line, sizeof(line))) {
			size_t n = strlen(line);

			if (n && line[n - 1] == '\n')
				line[n - 1] = '\0';
			/* One line, or the summary of three or more commands: each line
			 * escaped on its own, its newlines kept. */
			struct pmc_sbuf h = {0};

			for (char *p = line, *nl; p; p = nl ? nl + 1 : NULL) {
				nl = strchr(p, '\n');
				if (nl)
					*nl = '\0';
				headline_line(&h, p, o->color);
				pmc_sb_put(&h, "\n", 1);
			}
			wrap_into(&b, &h, o->width);
			free(h.p);
		}
	}
	if (o->by_benchmark)
		ok = by_benchmark_tables(&b, out, c, o, on, nn);
	else
		for (size_t bi = 0; bi < c->nblocks && ok; bi++) {
			const struct pmc_cmp_block *blk = &c->blocks[bi];

			if (bi)
				pmc_sb_put(&b, "\n", 1);
			text_cell(&b, blk->metric, 0, true);
			pmc_sb_put(&b, " [", 2);
			text_cell(&b, blk->unit ? blk->unit : "count", 0, true);
			pmc_sb_printf(&b, ", %s]%s%s\n", pmc_cmp_better_text(blk->better),
				      blk->simulated ? " (simulated)" : "",
				      blk->derived ? " (derived)" : "");
			ok = one_table(&b, out, c, o, on, nn, blk->rows, blk->nrows, blk);
		}
	pmc_sb_put(&b, "\n", 1);
	/* Warnings and errors quote metric ids, names and environment values from the
	 * input: escaped as every cell is. */
	{
		struct pmc_sbuf w = {0};

		for (size_t i = 0; i < c->nwarnings; i++)
			if (!pmc_cmp_same_as_error(c->warnings[i], o))
				escaped_line(&w, "warning: ", c->warnings[i]);
		if (o->error)
			escaped_line(&w, "error: ", o->error);
		wrap_into(&b, &w, o->width);
		free(w.p);
	}
	ok = ok && pmc_sb_flush(&b, out);
	free(b.p);
	if (!ok)
		return errno ? -errno : -EIO;
	return summary_lines(out, c, o);
}

/* Each comparison as the two-file table, under a line that names its pair. */
int pmc_table_comparisons(FILE *out, const struct pmc_comparison *const *cs,
			  const char *const *names, size_t n, const struct pmc_report_opts *o)
{
	for (size_t i = 0; i < n; i++) {
		struct pmc_report_opts one = *o;
		struct pmc_sbuf b = {0};
		bool ok;
		int r;

		one.old_name = names[0];
		one.new_name = names[i + 1];
		pmc_sb_printf(&b, "%s== %zu of %zu: ", i ? "\n" : "", i + 1, n);
		text_cell(&b, names[0], 0, true);
		pmc_sb_puts(&b, " -> ");
		text_cell(&b, names[i + 1], 0, true);
		pmc_sb_puts(&b, " ==\n");
		ok = pmc_sb_flush(&b, out);
		free(b.p);
		if (!ok)
			return errno ? -errno : -EIO;
		r = pmc_table_comparison(out, cs[i], &one);
		if (r < 0)
			return r;
	}
	return 0;
}

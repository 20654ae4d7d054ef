/* The instruction report of one function (profile_annotate.h): an annotation rendered,
 * the only thing computed here being which source lines weigh most, to mark them. */
#include "reporters/profile_annotate.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "profile/annotate.h"
#include "profile/profile.h"
#include "reporters/escape.h"
#include "reporters/format.h"
#include "reporters/wrap.h"

/* The instruction column never narrower than this, however narrow the terminal. */
#define MIN_TEXT 16

struct hot_line {
	const char *file;
	uint32_t line;
	uint64_t weight;
};

static const char *annotate_base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b && b[1] ? b + 1 : path;
}

static bool same_line(const struct pmc_annotation_insn *in, const struct hot_line *h)
{
	return in->file && h->file && in->line == h->line && strcmp(in->file, h->file) == 0;
}

/* Puts h into the top (nhot of PMC_ANNOTATE_HOT_LINES, heaviest first) if it weighs
 * more than the lightest there. */
static void top_insert(struct hot_line *hot, size_t *nhot, struct hot_line h)
{
	size_t at = *nhot;

	if (at == PMC_ANNOTATE_HOT_LINES && hot[at - 1].weight >= h.weight)
		return;
	if (at == PMC_ANNOTATE_HOT_LINES)
		at--;
	else
		(*nhot)++;
	while (at > 0 && hot[at - 1].weight < h.weight) {
		hot[at] = hot[at - 1];
		at--;
	}
	hot[at] = h;
}

/* The PMC_ANNOTATE_HOT_LINES source lines of a that weigh most (*ret_n of them): each
 * line summed once, at its first instruction with samples. */
static void hottest_lines(const struct pmc_annotation *a, struct hot_line *hot, size_t *ret_n)
{
	size_t nhot = 0;

	for (size_t i = 0; i < a->n; i++) {
		const struct pmc_annotation_insn *in = &a->insns[i];
		struct hot_line h = {in->file, in->line, in->weight};
		bool seen = false;

		if (!in->file || !in->weight)
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = a->insns[j].weight && same_line(&a->insns[j], &h);
		if (seen)
			continue;
		for (size_t j = i + 1; j < a->n; j++)
			if (a->insns[j].weight && same_line(&a->insns[j], &h))
				h.weight += a->insns[j].weight;
		top_insert(hot, &nhot, h);
	}
	*ret_n = nhot;
}

static void put_header(FILE *out, const struct pmc_profile *p, const struct pmc_annotation *a,
		       const struct hot_line *hot, size_t nhot)
{
	const struct pmc_profile_info *in = pmc_profile_info(p);
	uint64_t total = pmc_profile_total(p);
	char pct[PMC_FMT_MAX + 24], w[PMC_FMT_MAX + 24];

	fputs("Instructions of ", out);
	pmc_escape_text(out, a->function);
	fputs(" in ", out);
	pmc_escape_text(out, a->object);
	fprintf(out, " (0x%" PRIx64 ", %" PRIu64 " bytes, %zu instructions)", a->start, a->size,
		a->n);
	pmc_fmt_percent(total ? 100.0 * (double)a->self / (double)total : NAN, false, pct,
			sizeof(pct));
	pmc_fmt_weight(a->self ? (double)a->self : NAN, in->unit, false, w, sizeof(w));
	fprintf(out, ": self %s of the profile (%s of ", pct, a->self ? w : "0");
	pmc_escape_text(out, in->event);
	fputs(")\n", out);
	if (!nhot)
		return;
	fputs("Hottest source lines (*):", out);
	for (size_t i = 0; i < nhot; i++) {
		pmc_fmt_percent(100.0 * (double)hot[i].weight / (double)a->weight, false, pct,
				sizeof(pct));
		fputs(i ? ", " : " ", out);
		pmc_escape_text(out, annotate_base_name(hot[i].file));
		fprintf(out, ":%" PRIu32 " %s", hot[i].line, pct);
	}
	putc('\n', out);
}

/* The header, its lines wrapped to width. */
static int put_wrapped_header(FILE *out, const struct pmc_profile *p,
			      const struct pmc_annotation *a, const struct hot_line *hot,
			      size_t nhot, unsigned width)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return -ENOMEM;
	put_header(m, p, a, hot, nhot);
	if (fclose(m) != 0) {
		free(text);
		return -ENOMEM;
	}
	pmc_report_wrap(out, text, width);
	free(text);
	return 0;
}

/* The instruction's text in at most width columns ("..." where it is cut). */
static void annotate_text(FILE *out, const char *text, size_t width, bool pad)
{
	size_t len = strlen(text);

	if (len > width && width > 3)
		fprintf(out, "%.*s...", (int)(width - 3), text);
	else
		fprintf(out, "%-*s", pad ? (int)width : 0, text);
}

static void put_source(FILE *out, const struct pmc_annotation_insn *in, bool markdown)
{
	void (*esc)(FILE *, const char *) = markdown ? pmc_escape_md : pmc_escape_text;

	if (!in->file)
		return;
	esc(out, annotate_base_name(in->file));
	fprintf(out, ":%" PRIu32, in->line);
	if (in->inlined) {
		fputs(" (", out);
		esc(out, in->inlined);
		fputs(")", out);
	}
}

static void annotate_row(FILE *out, const struct pmc_annotation *a, uint64_t total, size_t i,
			 bool hot, int addr_w, size_t text_w)
{
	const struct pmc_annotation_insn *in = &a->insns[i];
	char fn_pct[PMC_FMT_MAX] = "", all_pct[PMC_FMT_MAX] = "";

	if (in->weight) {
		pmc_fmt_percent(100.0 * (double)in->weight / (double)a->weight, false, fn_pct,
				sizeof(fn_pct));
		pmc_fmt_percent(100.0 * (double)in->weight / (double)total, false, all_pct,
				sizeof(all_pct));
	}
	fprintf(out, "%7s %7s %c %*" PRIx64 "  ", fn_pct, all_pct, hot ? '*' : ' ', addr_w,
		in->address);
	annotate_text(out, in->text, text_w, in->file != NULL);
	if (in->file)
		fputs("  ", out);
	put_source(out, in, false);
	putc('\n', out);
}

/* The instruction column's width: its longest text, cut to what width leaves beside the
 * other columns (the source's at their longest). */
static size_t text_width(const struct pmc_annotation *a, int addr_w, unsigned width)
{
	size_t longest = 0, source = 0, fixed = 7 + 1 + 7 + 3 + (size_t)addr_w + 2;

	for (size_t i = 0; i < a->n; i++) {
		const struct pmc_annotation_insn *in = &a->insns[i];
		size_t s = 0;

		if (strlen(in->text) > longest)
			longest = strlen(in->text);
		if (in->file)
			s = 2 + pmc_report_width(annotate_base_name(in->file)) +
			    (size_t)snprintf(NULL, 0, ":%" PRIu32, in->line) +
			    (in->inlined ? 3 + pmc_report_width(in->inlined) : 0);
		if (s > source)
			source = s;
	}
	if (!width || fixed + longest + source <= width)
		return longest;
	return width > fixed + source + MIN_TEXT ? width - fixed - source : MIN_TEXT;
}

/* The note of the samples that ended at no instruction shown, wrapped to width. */
static void put_outside(FILE *out, const struct pmc_annotation *a, const char *unit, unsigned width)
{
	char w[PMC_FMT_MAX + 24], *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return;
	pmc_fmt_weight((double)a->outside, unit, false, w, sizeof(w));
	fprintf(m,
		"Not shown: %s of its self weight (%" PRIu64 " samples) ended at addresses of "
		"no instruction here: a function of the same name elsewhere, or a file "
		"changed since the recording.\n",
		w, a->outside_samples);
	if (fclose(m) == 0)
		pmc_report_wrap(out, text, width);
	free(text);
}

int pmc_profile_report_annotate(FILE *out, const struct pmc_profile *p,
				const struct pmc_annotation *a, unsigned width)
{
	const struct pmc_profile_info *info = pmc_profile_info(p);
	uint64_t total = pmc_profile_total(p), end = a->start + a->size;
	struct hot_line hot[PMC_ANNOTATE_HOT_LINES];
	char pct[PMC_FMT_MAX], w[PMC_FMT_MAX + 24];
	size_t nhot, text_w, with = 0;
	int addr_w = snprintf(NULL, 0, "%" PRIx64, end);

	if (addr_w < (int)strlen("address"))
		addr_w = (int)strlen("address");
	hottest_lines(a, hot, &nhot);
	if (put_wrapped_header(out, p, a, hot, nhot, width) < 0)
		return -ENOMEM;
	text_w = text_width(a, addr_w, width);
	fprintf(out, "\n%7s %7s   %*s  %s\n", "share", "profile", addr_w, "address",
		"instruction, source line");
	for (size_t i = 0; i < a->n; i++) {
		bool is_hot = false;

		for (size_t j = 0; j < nhot; j++)
			is_hot = is_hot || same_line(&a->insns[i], &hot[j]);
		with += a->insns[i].weight != 0;
		annotate_row(out, a, total, i, is_hot, addr_w, text_w);
	}
	pmc_fmt_percent(total ? 100.0 * (double)a->weight / (double)total : NAN, false, pct,
			sizeof(pct));
	pmc_fmt_weight(a->weight ? (double)a->weight : NAN, info->unit, false, w, sizeof(w));
	fprintf(out, "%7s %7s   total: %s in %" PRIu64 " samples at %zu of %zu instructions\n",
		a->weight ? "100%" : "", a->weight ? pct : "", a->weight ? w : "0", a->samples,
		with, a->n);
	if (a->outside)
		put_outside(out, a, info->unit, width);
	return ferror(out) ? -EIO : 0;
}

/* The heaviest instruction of a lighter than (weight, index) before it in that order
 * (heaviest first, then by address), or a->n when none with samples is left. */
static size_t next_heaviest(const struct pmc_annotation *a, uint64_t weight, size_t index)
{
	size_t best = a->n;

	for (size_t i = 0; i < a->n; i++) {
		uint64_t w = a->insns[i].weight;

		if (!w || w > weight || (w == weight && i <= index))
			continue;
		if (best == a->n || w > a->insns[best].weight)
			best = i;
	}
	return best;
}

/* The line above the rows. */
static void top_heading(FILE *out, const struct pmc_annotation *a, enum pmc_annotate_top_form form,
			const char *which)
{
	switch (form) {
	case PMC_ANNOTATE_TOP_MARKDOWN:
		fputs("\nHottest instructions of ", out);
		pmc_escape_md_code(out, a->function);
		break;
	case PMC_ANNOTATE_TOP_TEXT:
		fputs("  hottest instructions of ", out);
		pmc_escape_text(out, a->function);
		break;
	case PMC_ANNOTATE_TOP_TOOLTIP:
		fputs("hottest instructions", out);
		break;
	}
	if (which) {
		fputs(" in ", out);
		pmc_escape_text(out, which);
	}
	fputs(form == PMC_ANNOTATE_TOP_MARKDOWN
		  ? " (share of its samples):\n\n"
		    "| share | address | instruction | source line |\n|---:|---|---|---|\n"
		  : " (share of its samples):\n",
	      out);
}

int pmc_profile_report_annotate_top(FILE *out, const struct pmc_annotation *a, size_t top,
				    enum pmc_annotate_top_form form, const char *which)
{
	size_t first = next_heaviest(a, UINT64_MAX, 0), i, shown, text_w = 0;
	int addr_w = snprintf(NULL, 0, "%" PRIx64, a->start + a->size);
	/* The tooltip's rows under its first line, the text's under the benchmark's. */
	int indent = form == PMC_ANNOTATE_TOP_TOOLTIP ? 2 : 4;

	if (first == a->n || !a->weight)
		return 0;
	/* The rows' instructions padded to the longest shown. */
	for (i = first, shown = 0; i < a->n && shown < top; shown++) {
		if (strlen(a->insns[i].text) > text_w)
			text_w = strlen(a->insns[i].text);
		i = next_heaviest(a, a->insns[i].weight, i);
	}
	top_heading(out, a, form, which);
	for (i = first, shown = 0; i < a->n && shown < top; shown++) {
		const struct pmc_annotation_insn *in = &a->insns[i];
		char pct[PMC_FMT_MAX];

		pmc_fmt_percent(100.0 * (double)in->weight / (double)a->weight, false, pct,
				sizeof(pct));
		if (form == PMC_ANNOTATE_TOP_MARKDOWN) {
			fprintf(out, "| %s | `%" PRIx64 "` | ", pct, in->address);
			pmc_escape_md_code(out, in->text);
			fputs(" | ", out);
			put_source(out, in, true);
			fputs(" |\n", out);
		} else {
			fprintf(out, "%*s%6s  %*" PRIx64 "  ", indent, "", pct, addr_w,
				in->address);
			if (in->file)
				fprintf(out, "%-*s  ", (int)text_w, in->text);
			else
				fputs(in->text, out);
			put_source(out, in, false);
			putc('\n', out);
		}
		i = next_heaviest(a, in->weight, i);
	}
	return ferror(out) ? -EIO : 0;
}

/* Trend charts (trend.h). Coordinates are written with two decimals in the C locale's
 * form (pmc_fmt_fixed_to), so that a chart reads the same in any locale. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/changepoint.h"
#include "reporters/changes.h"
#include "reporters/escape.h"
#include "reporters/format.h"
#include "reporters/trend.h"

#define CHART_W 960
#define HEIGHT 360
#define LEFT 90
#define RIGHT 30
/* Above the plot: the title (y 20), the subtitle (y 36) and two rows of change labels
 * (LABEL_Y, LABEL_Y - LABEL_ROW), so that no label covers the data. */
#define TOP 64
#define LABEL_Y (TOP - 6)
#define LABEL_ROW 13
#define LABEL_CHAR_W 7 /* an upper bound of a character's width at 11px bold */
#define BOTTOM 56
#define PLOT_W (CHART_W - LEFT - RIGHT)
#define PLOT_H (HEIGHT - TOP - BOTTOM)

static const char style[] =
    "<style>"
    ".title{font:bold 15px sans-serif} .subtitle{font:11px sans-serif;fill:#555}"
    " .axis{font:11px sans-serif;fill:#444}"
    " .grid{stroke:#e4e4e4} .frame{fill:none;stroke:#999}"
    " .spread{stroke:#9bb7d4;stroke-width:3} .series{fill:none;stroke:#1f5fa8;stroke-width:1.5}"
    " .pt{fill:#1f5fa8} .level{stroke:#2a9d4b;stroke-width:2;stroke-dasharray:6 3}"
    " .cp{stroke:#d62728;stroke-width:2} .cplabel{font:bold 11px sans-serif;fill:#d62728}"
    "</style>\n";

/* A coordinate, "%.2f" without printf's locale. */
static void num(FILE *out, double v)
{
	char buf[PMC_FMT_MAX];

	buf[pmc_fmt_fixed_to(buf, v, 2, false)] = '\0';
	fputs(buf, out);
}

struct scale {
	double lo, hi;
	size_t n;
};

static double px(const struct scale *s, double i)
{
	return LEFT + (i + 0.5) * PLOT_W / (double)s->n;
}

static double py(const struct scale *s, double v)
{
	return TOP + PLOT_H - (v - s->lo) / (s->hi - s->lo) * PLOT_H;
}

static void range_of(const struct pmc_trend *t, struct scale *s)
{
	double lo = INFINITY, hi = -INFINITY, pad;

	for (size_t i = 0; i < t->n; i++) {
		const struct pmc_trend_point *p = &t->pts[i];

		lo = fmin(lo, isfinite(p->lo) ? p->lo : p->median);
		hi = fmax(hi, isfinite(p->hi) ? p->hi : p->median);
	}
	if (!isfinite(lo) || !isfinite(hi)) {
		lo = 0;
		hi = 1;
	}
	pad = (hi - lo) * 0.06;
	if (pad == 0)
		pad = fabs(hi) > 0 ? fabs(hi) * 0.01 : 1;
	s->lo = lo - pad;
	s->hi = hi + pad;
	s->n = t->n ? t->n : 1;
}

static void line(FILE *out, const char *cls, double x1, double y1, double x2, double y2)
{
	fprintf(out, "<line class=\"%s\" x1=\"", cls);
	num(out, x1);
	fputs("\" y1=\"", out);
	num(out, y1);
	fputs("\" x2=\"", out);
	num(out, x2);
	fputs("\" y2=\"", out);
	num(out, y2);
	fputs("\"", out);
}

static void axes(FILE *out, const struct pmc_trend *t, const struct scale *s)
{
	size_t step = t->n > 8 ? (t->n + 7) / 8 : 1;

	fprintf(out, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", LEFT,
		TOP, PLOT_W, PLOT_H);
	for (int k = 0; k <= 4; k++) {
		double v = s->lo + (s->hi - s->lo) * k / 4, y = py(s, v);
		char label[PMC_FMT_MAX];

		line(out, "grid", LEFT, y, LEFT + PLOT_W, y);
		fputs("/>\n<text class=\"axis\" text-anchor=\"end\" x=\"", out);
		num(out, LEFT - 6);
		fputs("\" y=\"", out);
		num(out, y + 4);
		fputs("\">", out);
		pmc_fmt_short_to(label, v, t->unit ? t->unit : "");
		pmc_escape_xml(out, label, SIZE_MAX);
		fputs("</text>\n", out);
	}
	for (size_t i = 0; i < t->n; i += step) {
		fputs("<text class=\"axis\" text-anchor=\"middle\" x=\"", out);
		num(out, px(s, (double)i));
		fprintf(out, "\" y=\"%d\">", TOP + PLOT_H + 16);
		pmc_escape_xml(out, t->pts[i].label ? t->pts[i].label : "", 12);
		fputs("</text>\n", out);
	}
}

/* The level of each segment: the median of the one before each change point, and the
 * last one's after. */
static void levels(FILE *out, const struct pmc_trend *t, const struct scale *s)
{
	for (size_t k = 0; k <= t->ncps && t->n; k++) {
		size_t a = k ? t->cps[k - 1].index : 0, b = k < t->ncps ? t->cps[k].index : t->n;
		double v = k < t->ncps ? t->cps[k].before : t->ncps ? t->cps[k - 1].after : NAN;

		if (!isfinite(v) || b <= a)
			continue;
		line(out, "level", px(s, (double)a) - 0.4 * PLOT_W / (double)s->n, py(s, v),
		     px(s, (double)(b - 1)) + 0.4 * PLOT_W / (double)s->n, py(s, v));
		fputs("/>\n", out);
	}
}

static void points(FILE *out, const struct pmc_trend *t, const struct scale *s)
{
	fputs("<polyline class=\"series\" points=\"", out);
	for (size_t i = 0; i < t->n; i++) {
		num(out, px(s, (double)i));
		fputc(',', out);
		num(out, py(s, t->pts[i].median));
		fputc(i + 1 < t->n ? ' ' : '"', out);
	}
	fputs(t->n ? "/>\n" : "\"/>\n", out);
	for (size_t i = 0; i < t->n; i++) {
		const struct pmc_trend_point *p = &t->pts[i];
		char med[PMC_FMT_MAX], lo[PMC_FMT_MAX], hi[PMC_FMT_MAX];
		const char *unit = t->unit ? t->unit : "";

		pmc_fmt_short_to(med, p->median, unit);
		fprintf(out, "<g class=\"point\" data-index=\"%zu\">", i);
		if (isfinite(p->lo) && isfinite(p->hi)) {
			line(out, "spread", px(s, (double)i), py(s, p->lo), px(s, (double)i),
			     py(s, p->hi));
			fputs("/>", out);
		}
		fputs("<circle class=\"pt\" r=\"3\" cx=\"", out);
		num(out, px(s, (double)i));
		fputs("\" cy=\"", out);
		num(out, py(s, p->median));
		fputs("\"/><title>", out);
		pmc_escape_xml(out, p->label ? p->label : "-", SIZE_MAX);
		fputs(" ", out);
		pmc_escape_xml(out, p->when ? p->when : "", SIZE_MAX);
		fputs(": median ", out);
		pmc_escape_xml(out, med, SIZE_MAX);
		if (isfinite(p->lo) && isfinite(p->hi)) {
			pmc_fmt_short_to(lo, p->lo, unit);
			pmc_fmt_short_to(hi, p->hi, unit);
			fputs(", ", out);
			pmc_escape_xml(out, lo, SIZE_MAX);
			fputs(" .. ", out);
			pmc_escape_xml(out, hi, SIZE_MAX);
		}
		fputs("</title></g>\n", out);
	}
}

/* Where the label of a change point at x goes: the first of the two rows above the plot
 * where it clears the labels before it (rows_end: where each row's last label ends),
 * else the row whose last label ends first. Anchored at the start, right of its line,
 * or at the end, left of it, where it would run past the chart. */
struct label_at {
	double x, y;
	bool end;
};

static struct label_at place_label(double x, size_t chars, double rows_end[2])
{
	double w = (double)chars * LABEL_CHAR_W + 4;
	struct label_at at = {x + 4, 0, false};
	int row;

	if (at.x + w > CHART_W - 2) {
		at.end = true;
		at.x = x - 4;
	}
	double start = at.end ? at.x - w : at.x, stop = at.end ? at.x : at.x + w;

	row = start >= rows_end[0] ? 0 : start >= rows_end[1] ? 1 : rows_end[1] < rows_end[0];
	rows_end[row] = stop + 6;
	at.y = LABEL_Y - row * LABEL_ROW;
	return at;
}

static void changes(FILE *out, const struct pmc_trend *t, const struct scale *s)
{
	double rows_end[2] = {0, 0};

	for (size_t k = 0; k < t->ncps; k++) {
		const struct pmc_changepoint *cp = &t->cps[k];
		double x = px(s, (double)cp->index - 0.5);
		char pct[32], p[PMC_FMT_MAX], text[128];
		struct label_at at;

		if (cp->index == 0 || cp->index >= t->n)
			continue;
		if (isfinite(cp->ratio))
			pmc_fmt_percent((cp->ratio - 1) * 100, true, pct, sizeof(pct));
		else
			strcpy(pct, "change");
		at = place_label(x, strlen(pct), rows_end);
		p[pmc_fmt_stat_to(p, cp->p)] = '\0';
		fprintf(out, "<g class=\"change\" data-index=\"%zu\">", cp->index);
		/* The line reaches up to its label: which label is whose. */
		line(out, "cp", x, at.y - 9, x, TOP + PLOT_H);
		fputs("/><text class=\"cplabel\" x=\"", out);
		num(out, at.x);
		fputs("\" y=\"", out);
		num(out, at.y);
		fprintf(out, "\"%s>", at.end ? " text-anchor=\"end\"" : "");
		pmc_escape_xml(out, pct, SIZE_MAX);
		fputs("</text><title>change point between ", out);
		pmc_escape_xml(out, t->pts[cp->index - 1].label ? t->pts[cp->index - 1].label : "-",
			       SIZE_MAX);
		fputs(" and ", out);
		pmc_escape_xml(out, t->pts[cp->index].label ? t->pts[cp->index].label : "-",
			       SIZE_MAX);
		fputs(": ", out);
		pmc_changes_text(cp, text, sizeof(text));
		pmc_escape_xml(out, text, SIZE_MAX);
		fprintf(out, ", p=%s</title></g>\n", p);
	}
}

int pmc_trend_svg(FILE *out, const struct pmc_trend *t, size_t n, bool standalone)
{
	if (standalone)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", out);
	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		"height=\"%zu\" viewBox=\"0 0 %d %zu\" class=\"trend\">\n",
		CHART_W, HEIGHT * (n ? n : 1), CHART_W, HEIGHT * (n ? n : 1));
	fputs(style, out);
	fputs("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n", out);
	for (size_t c = 0; c < n; c++) {
		struct scale s;

		range_of(&t[c], &s);
		fprintf(out,
			"<g class=\"chart\" data-points=\"%zu\" data-changes=\"%zu\" "
			"data-fingerprint=\"",
			t[c].n, t[c].ncps);
		pmc_escape_xml(out, t[c].id ? t[c].id : "", SIZE_MAX);
		fprintf(out, "\" transform=\"translate(0,%zu)\">\n", c * HEIGHT);
		fprintf(out, "<text class=\"title\" x=\"%d\" y=\"20\">", LEFT);
		pmc_escape_xml(out, t[c].title ? t[c].title : "", 120);
		fputs("</text>\n", out);
		if (t[c].subtitle) {
			fprintf(out, "<text class=\"subtitle\" x=\"%d\" y=\"36\">", LEFT);
			pmc_escape_xml(out, t[c].subtitle, 160);
			fputs("</text>\n", out);
		}
		axes(out, &t[c], &s);
		levels(out, &t[c], &s);
		points(out, &t[c], &s);
		changes(out, &t[c], &s);
		fputs("</g>\n", out);
	}
	fputs("</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}

static void html_change_rows(FILE *out, const struct pmc_trend *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < t[i].ncps; k++) {
			const struct pmc_changepoint *cp = &t[i].cps[k];
			char change[128], p[PMC_FMT_MAX];

			if (cp->index == 0 || cp->index >= t[i].n)
				continue;
			pmc_changes_text(cp, change, sizeof(change));
			p[pmc_fmt_stat_to(p, cp->p)] = '\0';
			fprintf(out, "<tr><td><a href=\"#chart%zu\">", i);
			pmc_escape_xml(out, t[i].title ? t[i].title : "", SIZE_MAX);
			fputs("</a></td><td>", out);
			pmc_escape_xml(out, t[i].pts[cp->index - 1].label, SIZE_MAX);
			fputs("..", out);
			pmc_escape_xml(out, t[i].pts[cp->index].label, SIZE_MAX);
			fputs("</td><td>", out);
			pmc_escape_xml(out, t[i].pts[cp->index].when, SIZE_MAX);
			fputs("</td><td>", out);
			pmc_escape_xml(out, change, SIZE_MAX);
			fprintf(out, "</td><td>%s</td></tr>\n", p);
		}
	}
}

int pmc_trend_html(FILE *out, const struct pmc_trend *t, size_t n, const char *store,
		   const char *const *skipped, size_t nskipped)
{
	int r = 0;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<title>pmcbench history: change points</title><style>"
	      "body{font:14px sans-serif;margin:24px} table{border-collapse:collapse}"
	      " td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}"
	      "</style></head><body>\n<h1>Change points</h1>\n<p>",
	      out);
	pmc_escape_xml(out, store ? store : "", SIZE_MAX);
	fprintf(out,
		": %zu series</p>\n<table id=\"changes\"><tr><th>series</th><th>commits"
		"</th><th>measured</th><th>change (95%% interval)</th><th>p</th></tr>\n",
		n + nskipped);
	html_change_rows(out, t, n);
	fputs("</table>\n", out);
	if (nskipped) {
		fputs("<p id=\"unmeasured\">Never measured (every sample not measured), no chart:",
		      out);
		for (size_t i = 0; i < nskipped; i++) {
			fputs(i ? ", " : " ", out);
			pmc_escape_xml(out, skipped[i], SIZE_MAX);
		}
		fputs("</p>\n", out);
	}
	for (size_t i = 0; i < n && r == 0; i++) {
		fprintf(out, "<div id=\"chart%zu\">\n", i);
		r = pmc_trend_svg(out, &t[i], 1, false);
		fputs("</div>\n", out);
	}
	fputs("</body></html>\n", out);
	return r < 0 || ferror(out) ? -EIO : 0;
}

/* The trend chart of a history's series (docs/history.md, "Trend charts"): one SVG chart
 * per series, each point's median joined by a line, its spread (min .. max of its
 * samples) as a bar, the level of each segment between change points, and each change
 * point as a marked line with its size above the plot, where no data is. Self-contained: no script,
 * no external file; a point's and a change point's details are in their tooltips (<title>). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct pmc_changepoint;

struct pmc_trend_point {
	const char *label;     /* under the axis and in the tooltip: a commit, or NULL */
	const char *when;      /* in the tooltip */
	double median, lo, hi; /* lo, hi: NAN when the spread is not known */
};

struct pmc_trend {
	const char *title;    /* what is measured where: "work wall-time on box (perf)" */
	const char *subtitle; /* the rest of where, under it ("kernel ..., cpu ..."), or NULL */
	const char *id;	      /* the series' fingerprint, as the chart's data-fingerprint */
	const char *unit;     /* the metric registry's unit of the values */
	const struct pmc_trend_point *pts;
	size_t n;
	/* Change points by index into pts (changepoint.h), with their segments. */
	const struct pmc_changepoint *cps;
	size_t ncps;
};

/* Writes an HTML page to out: the table of every change point of the n charts (each row
 * linked to its chart), then each chart; the series never measured (nskipped names in
 * skipped) are listed, with no chart. store names the history. Returns 0 or -EIO. */
int pmc_trend_html(FILE *out, const struct pmc_trend *t, size_t n, const char *store,
		   const char *const *skipped, size_t nskipped);

/* Writes the n charts to out, one under the other: a standalone SVG file (with its XML
 * declaration) when standalone, else an <svg> element for an HTML page. Returns 0, or
 * -EIO when writing failed. */
int pmc_trend_svg(FILE *out, const struct pmc_trend *t, size_t n, bool standalone);

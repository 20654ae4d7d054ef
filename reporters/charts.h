/* The trend charts of a history's series (docs/history.md, "Trend charts"), as the svg
 * and html reporters take them (reporter.h): `history show --svg` draws its series into
 * an SVG file, `history changes --html` a page of the change points and every chart.
 * Each chart is made from a series (core/series.h) as it is read, and owns what its
 * trend (trend.h) points at, but for its entry, borrowed from the store's entries. */
#pragma once

#include <stddef.h>

#include "core/series.h"
#include "reporters/trend.h"

/* One series drawn. */
struct pmc_chart {
	struct pmc_trend t;
	struct pmc_trend_point *pts;
	char (*labels)[16];
	char (*whens)[32];
	struct pmc_changepoint *cps;
	/* Of their own allocation: t points at them, and the array of charts moves as it
	 * grows. */
	char *title, *subtitle, *unit;
	/* Its first entry: where it was measured (its strings borrowed). */
	struct pmc_history_entry e;
};

struct pmc_charts {
	struct pmc_chart *v;
	size_t n;
	char **skipped; /* the titles of the series never measured: no chart */
	size_t nskipped;
};

/* Adds the chart of s, with a copy of its change points; a series never measured (no
 * value) gets no chart, only its title in skipped. Returns 0 or -ENOMEM. */
int pmc_charts_add(struct pmc_charts *cs, const struct pmc_series *s);
void pmc_charts_clear(struct pmc_charts *cs);

/* How a team reads a change point (docs/history.md, "New changes and regressions"): the
 * way it went for its metric (a regression or an improvement, by the metric registry's
 * direction) and its size, and whether the selection of `history changes` keeps it
 * (--regressions-only, --min-change). No I/O. */
#pragma once

#include <stdbool.h>

struct pmc_changepoint;

enum pmc_cp_way {
	PMC_CP_NEITHER = 0,    /* a metric without a direction, or no step at all */
	PMC_CP_REGRESSION = 1, /* worse: up where lower is better, down where higher is */
	PMC_CP_IMPROVEMENT = -1,
};

/* The direction of metric: the registry's for an id it knows (ipc: higher is better),
 * else stored (enum pmc_better, as the result that recorded it said). */
int pmc_cp_metric_better(const char *metric, int stored);

/* The way cp went for a metric of direction better (enum pmc_better): by its ratio, or
 * by its two medians when it has none. */
enum pmc_cp_way pmc_cp_way(const struct pmc_changepoint *cp, int better);

/* Its size in percent, |after / before - 1| x 100 (the ratio's estimate); NAN when it has
 * none (a level of 0 before it). */
double pmc_cp_size_pct(const struct pmc_changepoint *cp);

struct pmc_cp_select {
	bool regressions_only; /* only the changes of way PMC_CP_REGRESSION */
	double min_change;     /* percent: a change of a smaller size is dropped; 0: any */
};

/* Whether s keeps cp, of way way. A change of no known size is not known to be small:
 * min_change keeps it. */
bool pmc_cp_selected(const struct pmc_changepoint *cp, enum pmc_cp_way way,
		     const struct pmc_cp_select *s);

/* The samples of a history's points (`pmcbench history export`, docs/history.md): a row
 * per sample as CSV, an object per point as JSON; the points callbacks of the csv and
 * json reporters (reporter.h). */
#pragma once

#include <stddef.h>
#include <stdio.h>

#include "core/series.h"

/* Write ps[0..n) to out, a part of the document (part: PMC_POINTS_FIRST, PMC_POINTS_LAST of
 * reporter.h). Return 0, -ENOMEM or -EIO. */
int pmc_points_csv(FILE *out, const struct pmc_history_point *ps, size_t n, unsigned part);
int pmc_points_json(FILE *out, const struct pmc_history_point *ps, size_t n, unsigned part);

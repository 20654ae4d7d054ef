/* How a team reads a change point (changepoint_judge.h). */
#include <math.h>

#include "core/changepoint.h"
#include "core/changepoint_judge.h"
#include "core/metrics.h"

int pmc_cp_metric_better(const char *metric, int stored)
{
	struct pmc_metric_info info = pmc_metric_lookup(metric ? metric : "");

	return info.id ? (int)info.direction : stored;
}

/* after / before: the Hodges-Lehmann estimate, else the ratio of the medians. */
static double ratio_of(const struct pmc_changepoint *cp)
{
	if (isfinite(cp->ratio))
		return cp->ratio;
	if (isfinite(cp->before) && isfinite(cp->after) && cp->before != 0)
		return cp->after / cp->before;
	return NAN;
}

enum pmc_cp_way pmc_cp_way(const struct pmc_changepoint *cp, int better)
{
	double r = ratio_of(cp);
	int up;

	if (isfinite(r) && r > 0)
		up = r > 1 ? 1 : r < 1 ? -1 : 0;
	else if (isfinite(cp->before) && isfinite(cp->after))
		up = cp->after > cp->before ? 1 : cp->after < cp->before ? -1 : 0;
	else
		up = 0;
	if (!up || !better)
		return PMC_CP_NEITHER;
	return up == better ? PMC_CP_IMPROVEMENT : PMC_CP_REGRESSION;
}

double pmc_cp_size_pct(const struct pmc_changepoint *cp)
{
	double r = ratio_of(cp);

	return isfinite(r) && r > 0 ? fabs(r - 1) * 100 : NAN;
}

bool pmc_cp_selected(const struct pmc_changepoint *cp, enum pmc_cp_way way,
		     const struct pmc_cp_select *s)
{
	double size = pmc_cp_size_pct(cp);

	if (!s)
		return true;
	if (s->regressions_only && way != PMC_CP_REGRESSION)
		return false;
	return !(s->min_change > 0 && isfinite(size) && size < s->min_change);
}

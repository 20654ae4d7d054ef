/* The gate decision (gate.h). A gate must not pass when it checked nothing: a limit that
 * matched no metric, a gated metric without a value on one side, or rows all too short
 * of runs for the test are errors (docs/compare.md, "Errors and exit status"). */
#include <errno.h>
#include <stdio.h>

#include "harness/base/error.h"
#include "harness/base/opts.h"
#include "harness/core/gate.h"

int pmc_gate_decide(const struct pmc_comparison *c, const struct pmc_gate_opts *opts,
		    enum pmc_gate_outcome *ret_outcome, enum pmc_gate_reason *ret_reason, char *err,
		    size_t errlen)
{
	enum pmc_gate_outcome outcome = PMC_GATE_PASS;
	enum pmc_gate_reason reason = PMC_GATE_REASON_PASS;

	if (!c || !ret_outcome)
		return -EINVAL;
	if (!PMC_OPTS_VALID(opts, struct pmc_gate_opts)) {
		pmc_err_set(err, errlen,
			 "pmc_gate_decide: options from a newer pmcbench set fields "
			 "this library does not know; build against this version's "
			 "header");
		return -EINVAL;
	}
	if (c->nunchecked) {
		/* A limit the gate never applied must not let it pass. */
		outcome = PMC_GATE_ERROR;
		reason = PMC_GATE_REASON_UNCHECKED;
		if (c->nunchecked == 1)
			pmc_err_set(err, errlen, "%s", c->unchecked[0]);
		else
			pmc_err_set(err, errlen, "%s (and %zu more: see the warnings)",
				 c->unchecked[0], c->nunchecked - 1);
	} else if (c->nmissing) {
		const struct pmc_cmp_row *m = NULL;

		for (size_t i = 0; i < c->nrows && !m; i++)
			if (c->rows[i].kind == PMC_ROW_MISSING)
				m = &c->rows[i];
		outcome = PMC_GATE_ERROR;
		reason = PMC_GATE_REASON_MISSING;
		pmc_err_set(err, errlen,
			 "%zu gated row%s a value on one side (e.g. metric '%s' of '%s' in "
			 "the %s result): the gate cannot check %s; leave the metric out with "
			 "--metric or measure it on both sides",
			 c->nmissing, c->nmissing == 1 ? " lacks" : "s lack", m->metric, m->bench,
			 m->missing_old ? "old" : "new", c->nmissing == 1 ? "it" : "them");
	} else if (c->njudged == 0) {
		/* Every row is inconclusive for want of runs: a pass would say nothing. */
		outcome = PMC_GATE_ERROR;
		reason = PMC_GATE_REASON_UNDETECTABLE;
		pmc_err_set(err, errlen,
			 "nothing could be judged: every row has too few runs (need at least %zu "
			 "per side for the test, or exact counts); record more runs, e.g. "
			 "'pmcbench run -r 10'",
			 c->min_n_test);
	} else if (c->counts[PMC_VERDICT_REGRESSION]) {
		outcome = PMC_GATE_REGRESSION;
		reason = PMC_GATE_REASON_REGRESSION;
	} else if (c->counts[PMC_VERDICT_INCONCLUSIVE] &&
		   PMC_OPTS_GET(opts, fail_on_inconclusive, false)) {
		outcome = PMC_GATE_INCONCLUSIVE;
		reason = PMC_GATE_REASON_INCONCLUSIVE;
	}
	*ret_outcome = outcome;
	if (ret_reason)
		*ret_reason = reason;
	return 0;
}

/* The gate decision (gate.h). The gate judges the gated rows only (docs/compare.md,
 * "What the gate judges"). It must not pass when it checked nothing: a limit that matched
 * no metric, no gated row at all, a gated metric without a value on one side, or a gated
 * row whose runs are too few for the test ever to be significant are errors
 * (docs/compare.md, "Errors and exit status"). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/opts.h"
#include "core/gate.h"
#include "core/result.h"

/* " (and N more gated rows)" after the first of n rows, or nothing when n is 1. */
static void more_rows(char *buf, size_t len, size_t n)
{
	buf[0] = '\0';
	if (n > 1)
		snprintf(buf, len, " (and %zu more gated row%s)", n - 1, n == 2 ? "" : "s");
}

/* Says which gated row cannot detect a change, what it has and what it needs: runs per
 * side, rounds (paired) or processes (a benchmark program), in a family of how many. */
static void undetectable_error(const struct pmc_comparison *c, char *err, size_t errlen)
{
	const struct pmc_cmp_row *u = c->undetectable;
	char more[64], has[64], among[64] = "", fix[96];

	more_rows(more, sizeof(more), c->nundetectable);
	if (u->paired) {
		snprintf(has, sizeof(has), "%zu rounds", u->npairs);
		snprintf(fix, sizeof(fix), "take more rounds, e.g. 'pmcbench run -r %zu'",
			 u->need_n);
	} else if (u->by_process || u->program) {
		snprintf(has, sizeof(has), "%zu+%zu processes",
			 u->by_process ? u->nunits_old : u->old.n,
			 u->by_process ? u->nunits_new : u->new.n);
		snprintf(fix, sizeof(fix),
			 "run the benchmark program with --processes %zu (and -r "
			 "at least as many)",
			 u->need_n);
	} else {
		snprintf(has, sizeof(has), "%zu+%zu runs", u->old.n, u->new.n);
		snprintf(fix, sizeof(fix), "record more, e.g. 'pmcbench run -r %zu'",
			 u->need_n < 10 ? 10 : u->need_n);
	}
	if (u->family > 1)
		snprintf(among, sizeof(among), " among the %zu gated tests", u->family);
	pmc_err_set(err, errlen,
		    "metric '%s' of '%s' has %s%s: too few for any difference to be significant "
		    "at alpha=%g%s; need >= %zu %s: %s, or gate fewer metrics (--metric)",
		    u->metric, u->bench, has, more, c->alpha, among, u->need_n,
		    u->paired			  ? "rounds"
		    : u->by_process || u->program ? "processes per side"
						  : "runs per side",
		    fix);
}

/* Says that row u (and n - 1 more) cannot be gated: each side is one invocation. */
static void one_invocation_error(const struct pmc_cmp_row *u, size_t n, char *err, size_t errlen)
{
	char more[64];

	more_rows(more, sizeof(more), n);
	/* A benchmark program's samples carry their batch size: its designs differ. */
	if ((u->new_nruns && u->new_runs[0].iterations) ||
	    (u->old_nruns && u->old_runs[0].iterations))
		pmc_err_set(err, errlen,
			    "metric '%s' of '%s'%s cannot be gated against a single "
			    "invocation: the samples of all its processes share that "
			    "invocation's conditions, and it drifts between invocations; "
			    "measure both builds in one run ('./bench-new --against ./bench-old "
			    "--threshold %s=+5%% --gate', or two --library), gate exact counts "
			    "(--backend valgrind), or leave it out with --metric",
			    u->metric, u->bench, more, u->metric);
	else
		pmc_err_set(err, errlen,
			    "metric '%s' of '%s'%s cannot be gated against a single "
			    "invocation: its runs share that invocation's conditions, and it "
			    "drifts between invocations; measure both in one invocation "
			    "('pmcbench run -c OLD -c NEW --threshold %s=+5%% --gate'), gate "
			    "exact counts (--backend valgrind), or leave it out with --metric",
			    u->metric, u->bench, more, u->metric);
}

/* Whether the gate judges a count of the work that a time stands for: instructions
 * (counted or simulated, per run or per operation). Page faults or a peak RSS do not
 * say whether a program got slower. */
static bool gates_instructions(const struct pmc_comparison *c)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (c->rows[i].gated && strncmp(c->rows[i].metric, "instructions", 12) == 0 &&
		    (c->rows[i].metric[12] == '\0' || c->rows[i].metric[12] == '/' ||
		     c->rows[i].metric[12] == ':'))
			return true;
	return false;
}

int pmc_gate_decide(const struct pmc_comparison *c, const struct pmc_gate_opts *opts,
		    enum pmc_decision *ret_decision, enum pmc_gate_reason *ret_reason, char *err,
		    size_t errlen)
{
	enum pmc_decision decision = PMC_DECISION_PASS;
	enum pmc_gate_reason reason = PMC_GATE_REASON_PASS;

	if (!c || !ret_decision)
		return -EINVAL;
	if (!PMC_OPTS_VALID(opts, pmc_gate_opts)) {
		pmc_err_set(err, errlen,
			    "pmc_gate_decide: options from a newer pmcbench set fields "
			    "this library does not know; build against this version's "
			    "header");
		return -EINVAL;
	}
	if (c->nunchecked) {
		/* A limit the gate never applied must not let it pass. */
		decision = PMC_DECISION_ERROR;
		reason = PMC_GATE_REASON_UNCHECKED;
		if (c->nunchecked == 1)
			pmc_err_set(err, errlen, "%s", c->unchecked[0]);
		else
			pmc_err_set(err, errlen, "%s (and %zu more: see the warnings)",
				    c->unchecked[0], c->nunchecked - 1);
	} else if (c->nleft_out && !gates_instructions(c)) {
		/* Only drifting metrics of single invocations to gate (times alone, from
		 * another tool's results or --metric), or nothing left that stands for them
		 * (no instructions: a machine without a PMU): the same refusal as when named,
		 * never a pass that could not see the time. */
		one_invocation_error(c->left_out, c->nleft_out, err, errlen);
		decision = PMC_DECISION_ERROR;
		reason = PMC_GATE_REASON_UNDETECTABLE;
	} else if (c->ngated == 0) {
		/* Nothing the gate judges: a pass would say nothing. */
		decision = PMC_DECISION_ERROR;
		reason = PMC_GATE_REASON_UNCHECKED;
		pmc_err_set(
		    err, errlen,
		    "nothing to gate: no compared metric is gated by default (docs/metrics.md) "
		    "or named by a limit; name the metrics to judge, e.g. --threshold "
		    "%s=+5%%",
		    c->nrows ? c->rows[0].metric : "task-clock");
	} else if (c->ngated_missing) {
		const struct pmc_cmp_row *m = NULL;

		for (size_t i = 0; i < c->nrows && !m; i++)
			if (c->rows[i].kind == PMC_ROW_MISSING && c->rows[i].gated)
				m = &c->rows[i];
		decision = PMC_DECISION_ERROR;
		reason = PMC_GATE_REASON_MISSING;
		pmc_err_set(err, errlen,
			    "%zu gated row%s a value on one side (e.g. metric '%s' of '%s' in "
			    "the %s result): the gate cannot check %s; leave the metric out with "
			    "--metric or measure it on both sides",
			    c->ngated_missing, c->ngated_missing == 1 ? " lacks" : "s lack",
			    m->metric, m->bench, m->missing_old ? "old" : "new",
			    c->ngated_missing == 1 ? "it" : "them");
	} else if (c->none_invocation) {
		/* No test can tell a change from the drift between two invocations: a pass
		 * would be a guess (docs/statistics.md, "The unit of replication"). */
		one_invocation_error(c->one_invocation, c->none_invocation, err, errlen);
		decision = PMC_DECISION_ERROR;
		reason = PMC_GATE_REASON_UNDETECTABLE;
	} else if (c->nundetectable) {
		/* With these runs no p can fall below alpha in the gated family: a lone
		 * regression could never fail the gate, so a pass would be empty
		 * (docs/compare.md, "Sample sizes"). */
		undetectable_error(c, err, errlen);
		decision = PMC_DECISION_ERROR;
		reason = PMC_GATE_REASON_UNDETECTABLE;
	} else if (c->gated_counts[PMC_VERDICT_REGRESSION]) {
		decision = PMC_DECISION_REGRESSION;
		reason = PMC_GATE_REASON_REGRESSION;
	} else if (c->gated_counts[PMC_VERDICT_INCONCLUSIVE] &&
		   PMC_OPTS_GET(opts, fail_on_inconclusive, false)) {
		decision = PMC_DECISION_INCONCLUSIVE;
		reason = PMC_GATE_REASON_INCONCLUSIVE;
	}
	*ret_decision = decision;
	if (ret_reason)
		*ret_reason = reason;
	return 0;
}

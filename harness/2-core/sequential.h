/* The sequential stopping rule behind `--runs auto` (docs/statistics.md, "Sequential
 * rounds"): after every round, is the change of a metric decided against its threshold,
 * or are more rounds needed? Looking after every round keeps the error rate at alpha
 * because the interval is a confidence sequence, valid at all rounds at once. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

enum pmc_seq_decision {
	PMC_SEQ_CONTINUE = 0,  /* undecided: run another round */
	PMC_SEQ_REGRESSION,    /* the interval lies wholly beyond the threshold, bad side */
	PMC_SEQ_NO_REGRESSION, /* the interval lies wholly on the good side of it */
	PMC_SEQ_INCONCLUSIVE,  /* undecided after max_rounds */
};

struct pmc_seq_opts {
	double alpha;	   /* the chance that the interval ever misses the true median;
			    * 0: 0.05 */
	size_t max_rounds; /* stop undecided after this many rounds with a value; 0: 100 */
};

struct pmc_seq_result {
	enum pmc_seq_decision decision;
	size_t n;	 /* the rounds the decision used: those up to the one that decided, or
			  * up to max_rounds, or all present ones while continuing */
	double estimate; /* median of the n differences; NAN when n == 0 */
	bool bounded;	 /* the interval is finite (from round pmc_seq_min_rounds() on) */
	double lo, hi;	 /* the confidence sequence's interval for the median difference
			  * after n rounds; NAN when not bounded */
};

/* The order k of the confidence sequence after t rounds, whose interval is [d_(k),
 * d_(t-k+1)] of the sorted differences; 0 while it is unbounded. 0 when alpha is outside
 * (0, 1). */
size_t pmc_seq_order(size_t t, double alpha);

/* The first round at which the interval can be bounded, and so a decision made: 8 at
 * alpha = 0.05, 11 at 0.01. 0 when alpha is outside (0, 1). */
size_t pmc_seq_min_rounds(double alpha);

/* Decides on the differences d[0..n-1] of the rounds so far, in the order they were run
 * (per-round log ratios log(B_i / A_i); NAN for a round without a value, skipped), against
 * threshold_log (the limit as a log ratio: log(1 + limit) when bad = +1, increases are
 * regressions; log(1 - limit) when bad = -1, decreases are). The answer depends only on
 * the differences up to the deciding round, so calling after every round and stopping at
 * the first decision gives the same result as one call with them all. Options may be
 * NULL. Returns 0, or -EINVAL for an infinite difference or threshold, bad not +1 or -1,
 * or bad options, or -ENOMEM. */
int pmc_seq_decide(const double *d, size_t n, double threshold_log, int bad,
		   const struct pmc_seq_opts *opts, struct pmc_seq_result *ret);

struct pmc_result;
struct pmc_thresholds;

/* One gated metric of a sequential A/B run (pmc_seq_check). */
struct pmc_seq_metric {
	const char *bench;  /* the compared benchmark (borrowed from the result) */
	const char *metric; /* the metric id (borrowed from the thresholds) */
	const char *limit;  /* the limit as written ("+5%"), borrowed */
	struct pmc_seq_result res;
};

/* Where a sequential A/B run stands after some rounds. */
struct pmc_seq_check {
	struct pmc_seq_metric *v; /* one per compared benchmark and metric a limit names */
	size_t n;
	size_t undecided; /* of them still PMC_SEQ_CONTINUE (or INCONCLUSIVE at the end) */
	size_t regressions;
	double alpha_each; /* alpha / n: every interval holds at once (Bonferroni) */
};

/* Decides, for every benchmark of r but the reference ref and every metric id that t's
 * --threshold arguments name, on the per-round log ratios log(B_i / ref_i) of the rounds
 * with a positive value on both sides, with pmc_seq_decide at alpha / (number of such
 * pairs) against the limit: log(1 + limit) when increases are bad (the limit's sign, else
 * the metric's direction), log(1 - limit) when decreases are. Undecided pairs are
 * PMC_SEQ_CONTINUE while fewer than max_rounds rounds ran, then PMC_SEQ_INCONCLUSIVE.
 * Returns 0 with *ret (free with pmc_seq_check_clear); -EINVAL with one line in err when
 * no limit names a metric, a limit is absolute (the rule needs a ratio) or a metric has
 * no direction and its limit no sign; -ENOMEM. */
int pmc_seq_check_result(const struct pmc_result *r, size_t ref, const struct pmc_thresholds *t,
			 const struct pmc_seq_opts *opts, struct pmc_seq_check *ret, char *err,
			 size_t errlen);
void pmc_seq_check_clear(struct pmc_seq_check *c);

/* Change points of a series (docs/history.md, "Change points"): E-Divisive means
 * (Matteson and James, JASA 2014) on ranks, each split judged by an analytic test as in
 * Apache Otava (Fleming et al., ICPE 2023): Mann-Whitney's, corrected for the splits the
 * candidate was chosen among. No I/O. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pmc_cp_opts {
	double alpha;	 /* a split is kept when its p-value is at most alpha; 0: 0.001 */
	size_t min_size; /* the fewest points of a segment, at least 2; 0: 4 */
	/* Plain E-Divisive, on the values themselves instead of their ranks and with the
	 * permutation test (the method as published, for comparison in bench/), */
	bool raw;
	size_t permutations; /* of its permutation tests; 0: 1999 */
	uint64_t seed;	     /* of the permutations: the same seed, the same answer */
	/* The values are exact counts (a simulator's, each point without spread): a change
	 * is any step between two levels of at least min_size equal points, with p 0 (there
	 * is no noise to test against). A series of which fewer than half the points lie in
	 * such levels is not piecewise constant after all and goes the rank way. */
	bool exact;
};

struct pmc_changepoint {
	size_t index; /* the first point after the change, 1 .. n-1 */
	/* Where it was first reported, with how many points: first_index differs from index
	 * when the change was placed again as points arrived (docs/history.md, "Stable as
	 * the series grows"); reported_n is n for plain E-Divisive and exact series. */
	size_t first_index, reported_n;
	size_t seg_start; /* the segment before it starts here, */
	size_t seg_end;	  /* and the one after it ends here (exclusive) */
	double q;	  /* the statistic Q of the split, on ranks scaled to (0, 1] */
	/* Its p-value: Mann-Whitney's times the number of splits of its segment (plain:
	 * the permutation p-value, (1 + k) / (1 + permutations)). */
	double p;
	bool exact;	      /* found as a step between two levels of an exact series */
	double before, after; /* the medians of the two segments (exact: the two levels) */
	/* after / before as the Hodges-Lehmann estimate of the shift of the logs, with its
	 * 95% distribution-free interval; NAN when a value is not positive (then the ratio
	 * of the medians, if before is not 0) or a segment is too short for an interval. */
	double ratio, ratio_lo, ratio_hi;
};

/* The change points of x[0..n-1] (finite values, in time order), by index, in *ret
 * (malloc'ed; NULL when there is none) and their number in *ret_n. o may be NULL
 * (defaults). Returns 0, -EINVAL (a value not finite, bad options) or -ENOMEM. */
int pmc_changepoints(const double *x, size_t n, const struct pmc_cp_opts *o,
		     struct pmc_changepoint **ret, size_t *ret_n);

/* A change point that was reported as the series grew and withdrawn later (docs/
 * history.md, "Stable as the series grows"): where it last was (index; first_index and
 * reported_n: where and with how many points it was first reported), and the points
 * the series had when its test with every point since was no longer significant at
 * WITHDRAW times alpha (withdrawn_n), with that p-value. */
struct pmc_cp_withdrawn {
	size_t index, first_index, reported_n, withdrawn_n;
	double p;
};

/* pmc_changepoints, and the change points withdrawn on the way, in *ret_w (malloc'ed;
 * NULL when none) and *ret_nw, in the order they were withdrawn: what a history that
 * reported them must say is gone. Plain E-Divisive and exact series withdraw nothing. */
int pmc_changepoints_withdrawn(const double *x, size_t n, const struct pmc_cp_opts *o,
			       struct pmc_changepoint **ret, size_t *ret_n,
			       struct pmc_cp_withdrawn **ret_w, size_t *ret_nw);

/* Where the current level of x[0..n-1] starts, in *ret_start: past the last change
 * point, or with o->exact the latest level, the last run of values equal to x[n-1]
 * however short (the gate's baseline, docs/history.md, "Gate"). 0 when n is 0. Returns
 * 0 or the errors of pmc_changepoints. */
int pmc_cp_current_level(const double *x, size_t n, const struct pmc_cp_opts *o, size_t *ret_start);

/* The best split of z[0..m-1] by E-Divisive's statistic with alpha = 1: the tau and
 * kappa (min_size <= tau, tau + min_size <= kappa <= m; with fixed_kappa, kappa = m,
 * in O(m log m) time, else O(m^2)) that maximize Q(tau, kappa) = tau (kappa - tau) / kappa * E,
 * where E is twice the mean distance between z[0..tau) and z[tau..kappa) less the mean distance
 * within each. Returns 0, -EINVAL (m < 2 * min_size) or -ENOMEM. */
/* Seam for the tests: the split search of the detector's scan (changepoint.c's best_split
 * and best_split_fixed) alone, on series whose best split is known. */
int pmc_cp_best_split(const double *z, size_t m, size_t min_size, bool fixed_kappa, size_t *ret_tau,
		      size_t *ret_kappa, double *ret_q);

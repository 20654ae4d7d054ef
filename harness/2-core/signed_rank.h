/* Paired samples: the Wilcoxon signed-rank test and the Hodges-Lehmann shift of the Walsh
 * averages with its distribution-free interval (docs/statistics.md, "Paired rounds").
 *
 * Both take differences d[0..n-1], one per round in which both sides were measured; for
 * benchmarks the per-round log ratios log(B_i / A_i), so that the shift is a log ratio
 * and exp() of it a ratio. NAN entries (a round without a value) are skipped; infinite
 * ones are refused. A verdict must use both: significant only when p < alpha and the
 * interval, when there is one, excludes 0 (docs/statistics.md explains why). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct pmc_signed_rank {
	size_t n;      /* differences present (NAN skipped) */
	size_t nzero;  /* of which exactly 0, dropped before ranking (Wilcoxon's convention) */
	double t_plus; /* T+: sum of the mid-ranks of |d| over the positive differences */
	double p;      /* two-sided */
	bool exact;    /* the permutation distribution was counted (at most 50 nonzero
			* differences, ties or not); else the normal approximation */
};

/* Two-sided Wilcoxon signed-rank test of "d is symmetric about 0". Returns 0, or -EINVAL
 * when no difference is present or one is infinite, or -ENOMEM. All differences zero give
 * p = 1. */
int pmc_signed_rank_test(const double *d, size_t n, struct pmc_signed_rank *ret);

/* Hodges-Lehmann estimate of the shift, the median of the Walsh averages (d_i + d_j) / 2,
 * i <= j, and its confidence interval [W_(k), W_(M-k+1)] at the given confidence. Returns
 * 0; -EDOM when there are too few differences for an interval (fewer than 6 at 95%: the
 * shift is set, lo and hi NAN); -EINVAL for no difference, an infinite one or a
 * confidence outside (0, 1); or -ENOMEM. */
int pmc_signed_rank_shift(const double *d, size_t n, double confidence, double *ret_shift,
			  double *ret_lo, double *ret_hi);

/* The smallest number of nonzero differences for which the two-sided p can fall below
 * alpha, 2 / 2^n < alpha: 6 at alpha = 0.05, 8 at 0.01. 0 when alpha is outside (0, 1]. */
size_t pmc_signed_rank_min_n(double alpha);

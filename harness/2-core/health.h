/* Sample health: whether the runs of one metric of one benchmark look like repeated draws
 * of one quantity. Three checks on the values in run order (docs/statistics.md, "Sample
 * health"): a trend over the run order (drift: Mann-Kendall test, Theil-Sen slope),
 * outliers (modified z-scores from the median and MAD) and two modes (the largest gap
 * against the spread on either side). No I/O: pmc_health_describe() renders the phrase
 * that reports print and the result file stores. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* A buffer of this size holds any phrase of pmc_health_describe(). */
#define PMC_HEALTH_DESC_MAX 256

struct pmc_health_opts {
	double alpha;	       /* level of the trend test, in (0, 1); 0: 0.01 */
	double min_effect;     /* a drift, outlier or gap smaller than this share of |median|
				* is never flagged, < 1; 0: 0.01; negative: no such floor */
	size_t min_n_drift;    /* fewer values present: drift not checked; 0: 8 (>= 4) */
	size_t min_n_outliers; /* likewise for outliers; 0: 8 (>= 4) */
	size_t min_n_modes;    /* likewise for modes; 0: 10 (>= 6) */
};

/* Every size that a flag compares with min_effect is relative to the median: with that
 * floor (the default), a metric whose median is 0 is never flagged. */
struct pmc_health {
	size_t n;      /* values present (NAN entries skipped) */
	double median; /* of the present values; NAN when n is 0 */

	/* Drift: a monotone trend of the values over the run order. */
	bool checked_drift; /* n >= min_n_drift; else the fields below are unset (NAN, 0) */
	bool drift;	    /* flagged: p (q once adjusted) < alpha and drift_large */
	bool drift_large;   /* the change over the series >= min_effect |median| */
	bool drift_exact;   /* p from the exact null distribution of S (n <= 50) */
	long long drift_s;  /* Mann-Kendall S: pairs rising minus pairs falling */
	double drift_tau;   /* Kendall's tau-b of value against run index */
	double drift_p;	    /* two-sided p of the trend test */
	double drift_q;	    /* its Benjamini-Hochberg q after pmc_health_adjust(), else NAN */
	/* The size of a significant trend (drift_p < alpha); NAN, and drift_large false,
	 * for any other, which no flag can use. */
	double drift_slope; /* Theil-Sen slope, in the metric's unit per run */
	double drift_rel;   /* drift_slope / |median|; NAN when the median is 0 */
	/* drift_rel * (last run index - first): the change over the series as a share of the
	 * median (+0.041: 4.1% higher at the end); NAN when the median is 0. */
	double drift_total_rel;
	size_t drift_runs; /* runs spanned, first to last present value */

	/* Outliers: a value more than 3.5 robust sigmas (1.4826 MAD) from the median is
	 * mild, more than 10 severe; either must also be min_effect of |median| away. */
	bool checked_outliers;		       /* n >= min_n_outliers */
	bool outliers;			       /* flagged: outliers_severe > 0 */
	size_t outliers_mild, outliers_severe; /* disjoint counts */
	double outlier_sigma;		       /* 1.4826 MAD */
	double outlier_far_rel; /* the severe outlier farthest from the median over the median
				 * (3.0: three times it); NAN when none or the median is 0 */

	/* Modes: the sorted values split at their largest gap leaving >= 20% (and >= 3) on
	 * each side. */
	bool checked_modes;	     /* n >= min_n_modes */
	bool multimodal;	     /* flagged: gap >= 60 / n pooled sds and >= min_effect
				      * |median|, and wider than the data's step (counts) */
	size_t mode_n_lo, mode_n_hi; /* values below and above the gap */
	double mode_lo, mode_hi;     /* the medians of the two sides */
	double mode_gap;	     /* the gap, in the metric's unit */
	double mode_sd;		     /* pooled standard deviation of the two sides */
};

/* Checks the health of values[0..n-1], in run order; NAN entries were not measured and
 * are skipped, but keep their run index (the slope is per run). opts NULL means every
 * default. A check with too few values is not checked (its checked_ flag false), never
 * reported as healthy. Returns 0, -EINVAL for NULL, an infinite value or bad options,
 * -ERANGE when the values spread beyond 1e150, or -ENOMEM; *ret is untouched on failure. */
int pmc_health_check(const double *values, size_t n, const struct pmc_health_opts *opts,
		     struct pmc_health *ret);

/* Controls the false discovery rate of the drift flags of many metrics (every benchmark
 * and metric of a result): sets drift_q of each h[i] whose drift was checked to its
 * Benjamini-Hochberg q-value among them and drift = drift_large && q < alpha (0: 0.01, as
 * pmc_health_check; no larger than the checks' alpha, which sized only the trends
 * significant at it). Call it once over the whole set. Returns 0, -EINVAL, or -ENOMEM
 * (nothing changed). */
int pmc_health_adjust(struct pmc_health *const *h, size_t n, double alpha);

/* Renders the flagged findings of h as one line into buf, "; " between them, e.g.
 * "drifts +4.1% over 20 runs (p=0.0021)", "1 severe outlier (3x the median)",
 * "two modes 20% apart (10 and 10 runs)"; an empty string when nothing is flagged. The
 * phrase has no unit, so it reads the same in every report. Returns 0, -EINVAL, or
 * -ENOSPC when len is too small (buf untouched; PMC_HEALTH_DESC_MAX always suffices). */
int pmc_health_describe(const struct pmc_health *h, char *buf, size_t len);

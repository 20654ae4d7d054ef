/* Statistics with published methods; each function cites its method in stats.c
 * (one set of samples) or stats_rank.c (the rank tests of two).
 * Inputs may hold NAN (not measured): such entries are skipped. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pmc_summary {
	size_t n;
	double mean;   /* Welford's update */
	double stddev; /* sample standard deviation (n - 1); 0 when n == 1 */
	double median;
	double mad; /* median absolute deviation, unscaled */
	double min, max;
	double cv;   /* stddev / |mean|; NAN when mean == 0 */
	bool has_ci; /* the distribution-free CI of the median needs n >= 6 at 95% */
	double ci_lo, ci_hi;
	double confidence;
};

/* Summarises x[0..n-1] (NAN entries skipped). Returns 0, or -EINVAL when no value
 * is present. */
int pmc_summary_compute(const double *x, size_t n, double confidence, struct pmc_summary *ret);

struct pmc_mwu {
	size_t n1, n2;
	double u;   /* U of the first sample */
	double p;   /* two-sided */
	bool exact; /* exact permutation distribution (no ties and <= 50 per side, or
		     * ties and <= 25 per side); else the normal approximation */
};

/* The exact null distributions of Mann-Whitney U kept between tests by a caller that runs
 * many (the comparison, one set per thread: a set is not shared between threads). Each
 * is built when first needed, one per pair of sample sizes up to 50. The library keeps
 * none of its own. */
struct pmc_mwu_tables;

/* An empty set in *ret. Returns 0 or -ENOMEM. */
int pmc_mwu_tables_new(struct pmc_mwu_tables **ret);

/* Frees t and its tables; NULL is allowed. */
void pmc_mwu_tables_free(struct pmc_mwu_tables *t);

/* Two-sided Mann-Whitney U test. tables: where the exact distribution is kept, or NULL
 * to build it for this call only (a few ms at 50 + 50). Returns 0, -EINVAL when a side is
 * empty, or -ENOMEM. */
/* Seam for the tests: the test on unsorted samples with NAN, checked against scipy's
 * values; compare calls pmc_mann_whitney_sorted (stats_priv.h) on the sides it sorted once.
 * */
int pmc_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
		     struct pmc_mwu_tables *tables, struct pmc_mwu *ret);

/* Ratio of medians-like effect: exp of the Hodges-Lehmann shift of log(b) - log(a) with
 * its distribution-free CI at the given confidence; tables as for pmc_mann_whitney.
 * Values must be > 0. Returns 0, -EINVAL for empty or non-positive input, -ENOMEM, or
 * -EDOM when the samples are too small for a CI at that confidence (the point estimate
 * is still set, lo/hi NAN). */
int pmc_ratio_ci(const double *a, size_t na, const double *b, size_t nb, double confidence,
		 struct pmc_mwu_tables *tables, double *ret_ratio, double *ret_lo, double *ret_hi);

/* Benjamini-Hochberg adjusted p-values (q-values) for p[0..n-1]. Returns 0 or -ENOMEM. */
int pmc_bh_adjust(const double *p, size_t n, double *ret_q);

/* Geometric mean of the positive entries; NAN when none. */
double pmc_geomean(const double *x, size_t n);

/* The median of sorted v[0..n-1]: the middle value, or halfway between the two middle
 * ones; NAN when n is 0. Every median of the library is this one. */
double pmc_median_sorted(const double *v, size_t n);

/* The median of the entries of v[0..n-1] that are not NAN (not measured), which it
 * moves and sorts; NAN when there are none. */
double pmc_median(double *v, size_t n);

/* The median of the entries of x[0..n-1] that are not NAN, x left as it is, into *ret.
 * Returns 0, -ENODATA when there are none, or -ENOMEM. */
int pmc_median_of(const double *x, size_t n, double *ret);

/* ---- Shared by the statistics files of this layer (signed_rank.c, sequential.c) ---- */

/* Tail probabilities are compared with alpha/2 with this relative slack, so that a
 * probability equal to alpha/2 in exact arithmetic is not lost to rounding in 1 - conf. */
#define PMC_STATS_TAIL_SLACK 1e-9

/* Sorts v[0..n-1] ascending (a radix sort from 256 values, else an introsort; -0.0
 * before 0.0 in the former), no NAN allowed. */
void pmc_stats_sort(double *v, size_t n);

/* Copies the non-NAN entries of x into buf, or into the heap when there are more than
 * buf_len (the caller frees the result when it is not buf). Returns the buffer, or NULL
 * with *ret_err = -ENOMEM; *ret_n is the number of values kept. */
double *pmc_stats_present(const double *x, size_t n, double *buf, size_t buf_len, size_t *ret_n,
			  int *ret_err);

/* Standard normal upper tail P(Z > z), and the quantile (Wichura's AS 241) for p in
 * (0, 1). */
double pmc_normal_sf(double z);
double pmc_normal_quantile(double p);

/* Doubles mapped to integers in the same order and back, so that a bisection over values
 * ends on an exact double after at most 64 steps. */
int64_t pmc_order_key(double x);
double pmc_order_value(int64_t k);

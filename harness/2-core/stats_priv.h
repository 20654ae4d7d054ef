/* Private to the statistics of one set (stats.c), the rank tests of two (stats_rank.c)
 * and the comparison (compare_stats.c): the present values of an input, sorted, in a
 * caller's buffer when it fits; and the public statistics of stats.h over such values, so
 * that a comparison sorts each side of a row once for its summary, test and interval (a
 * history's pooled baseline of 1,000 samples a row was sorted three times). The public
 * functions sort and call these, so both give the same numbers. */
#pragma once

#include <stddef.h>

struct pmc_mwu;
struct pmc_mwu_tables;
struct pmc_summary;

/* Inputs up to this size are copied to the stack instead of the heap. */
#define STACK_VALUES 64

/* pmc_stats_present, sorted. */
double *pmc_stats_sorted_present(const double *x, size_t n, double *buf, size_t buf_len,
				 size_t *ret_n, int *ret_err);
/* Frees v unless it is the caller's buffer buf. */
void pmc_stats_release(double *v, double *buf);

/* pmc_summary_compute of x[0..n-1], whose present values are v[0..m-1], sorted: the mean
 * is summed in x's order, the rest read from v. */
int pmc_summary_sorted(const double *x, size_t n, const double *v, size_t m, double confidence,
		       struct pmc_summary *ret);

/* pmc_mann_whitney of sorted values without NAN. */
int pmc_mann_whitney_sorted(const double *va, size_t n1, const double *vb, size_t n2,
			    struct pmc_mwu_tables *tables, struct pmc_mwu *ret);

/* pmc_ratio_ci of sorted values without NAN, which it replaces by their logs. */
int pmc_ratio_ci_sorted(double *la, size_t n1, double *lb, size_t n2, double confidence,
			struct pmc_mwu_tables *tables, double *ret_ratio, double *ret_lo,
			double *ret_hi);

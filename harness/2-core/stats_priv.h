/* Private to the statistics of one set (stats.c) and the rank tests of two
 * (stats_rank.c): the present values of an input, sorted, in a caller's buffer when it
 * fits. */
#pragma once

#include <stddef.h>

/* Inputs up to this size are copied to the stack instead of the heap. */
#define STACK_VALUES 64

/* pmc_stats_present, sorted. */
double *pmc_stats_sorted_present(const double *x, size_t n, double *buf, size_t buf_len,
				 size_t *ret_n, int *ret_err);
/* Frees v unless it is the caller's buffer buf. */
void pmc_stats_release(double *v, double *buf);

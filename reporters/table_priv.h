/* Private to the table format: its comparison report lives in table_compare.c, beside
 * the result's table in table.c. */
#pragma once

#include <stddef.h>
#include <stdio.h>

struct pmc_comparison;
struct pmc_report_opts;

/* The table of a comparison, and of one base with n files (pmc_reporter.comparison and
 * .comparisons). */
int pmc_table_comparison(FILE *out, const struct pmc_comparison *c,
			 const struct pmc_report_opts *o);
int pmc_table_comparisons(FILE *out, const struct pmc_comparison *const *cs,
			  const char *const *names, size_t n, const struct pmc_report_opts *o);

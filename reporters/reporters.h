/* Output formats for results of `pmcbench run`. Reporters only read the result model.
 * (Comparison reports live in compare_report.h.) */
#pragma once

#include <stdbool.h>
#include <stdio.h>

struct pmc_result;

struct pmc_report_opts {
	bool median;       /* show medians instead of means */
	double confidence; /* for CIs of the median */
};

/* A perf-stat-like table: per benchmark, per metric the mean (or median), relative
 * spread, unit, running percentage when scaled, derived metrics, and missing counters
 * named as such. Returns 0 or -errno. */
int pmc_report_table(FILE *out, const struct pmc_result *r, const struct pmc_report_opts *o);

/* Markdown version of the table. */
int pmc_report_markdown(FILE *out, const struct pmc_result *r, const struct pmc_report_opts *o);

/* Full summary statistics of every measured metric: n, mean, stddev, median with the
 * CI of the median at `confidence`, MAD, min, max, CV. Returns 0 or -errno. */
int pmc_report_stats(FILE *out, const struct pmc_result *r, double confidence);

/* CSV with libcsv: one row per benchmark, metric and run:
 * benchmark,metric,unit,run,value,status,raw_value,time_enabled,time_running
 * (empty fields where not measured). Returns 0 or -errno. */
int pmc_report_csv(FILE *out, const struct pmc_result *r);

/* The analysis of a result: per benchmark and metric the summary statistics and the
 * status facts every report shows, computed once (docs/architecture.md, "Data flow").
 * The run reporters and the result JSON only read a pmc_analysis; `compare` summarises
 * its sides with the same statistics (compare_stats.c, pmc_summary_sorted). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "counters/reading.h"
#include "core/health.h"
#include "core/stats.h"

struct pmc_result;
struct pmc_benchmark;
struct pmc_metric;

#define PMC_NSTATUS (PMC_STATUS_EXACT + 1)

struct pmc_metric_analysis {
	const struct pmc_metric *m; /* borrowed from the result */
	size_t present;		    /* runs with a measured value */
	bool has_summary;	    /* present > 0: s holds the summary of those runs */
	/* The health of the runs in run order (drift, outliers, modes); in a pmc_analysis
	 * the drift flags are adjusted over the whole result (pmc_health_adjust). */
	struct pmc_health health;
	struct pmc_summary s;
	/* Some run was multiplexed (status scaled): running is the mean share of its
	 * enabled time the counter ran, over the runs that gave a value. */
	bool scaled;
	double running;
	bool all_exact; /* every run has status exact */
	/* A kernel count (pmc_metric_kernel_identical) measured in 2 or more runs; identical:
	 * every run read the same count. */
	bool kernel_count, identical;
	size_t status_count[PMC_NSTATUS]; /* runs per status (counter metrics) */
	/* Hybrid CPUs: the summary of each part's measured runs (m->parts), when it has
	 * some (part_present). */
	bool part_present[PMC_PARTS_MAX];
	struct pmc_summary part[PMC_PARTS_MAX];
	/* A rate (a unit ending in "/s": items/s, a user counter's rate) of a benchmark that
	 * has wall-time/op: its total over the total time of the runs that have both, each
	 * run's time being wall-time/op times its iterations, as Google Benchmark computes
	 * items_per_second. The mean of per-run rates is larger than this (1/x is convex);
	 * NAN for any other metric. */
	double of_totals;
};

struct pmc_bench_analysis {
	const struct pmc_benchmark *b; /* borrowed from the result */
	size_t runs;		       /* the benchmark's runs, or its longest metric */
	size_t failed, timed_out;
	struct pmc_metric_analysis *metrics; /* b->nmetrics entries, in the same order */
};

struct pmc_analysis {
	const struct pmc_result *r;	    /* borrowed: must outlive the analysis */
	double confidence;		    /* of the CI of the median */
	struct pmc_bench_analysis *benches; /* r->nbench entries */
	size_t nbench;
};

/* Analyses every benchmark of r with CIs of the median at confidence (0 < c < 1).
 * On success *ret holds the analysis (free it with pmc_analysis_free). Returns 0,
 * -ENOMEM, or -EINVAL for bad arguments or a malformed result (arrays missing, an
 * infinite value). */
int pmc_analysis_new(const struct pmc_result *r, double confidence, struct pmc_analysis **ret);
void pmc_analysis_free(struct pmc_analysis *a);

/* The benchmark that ran fastest (hyperfine's summary of three or more commands starts
 * from it): the least median of the first primary metric (pmc_result_primary) that every
 * benchmark of a measured; ref when none is measured by all. */
size_t pmc_analysis_fastest(const struct pmc_analysis *a, size_t ref);

/* Whether m is a count the kernel keeps by one per occurrence
 * (pmc_metric_is_kernel_count) of work the program does (one that does not drift with
 * the machine: system and function calls, faults; pmc_metric_drifts), not simulated,
 * measured in 2 or more runs: then
 * *ret_identical says whether every one of its runs was measured, not multiplexed, and
 * read the same value (docs/metrics.md, "Identical runs"). False for any other metric,
 * leaving *ret_identical untouched. */
bool pmc_metric_kernel_identical(const struct pmc_metric *m, bool *ret_identical);

/* The analysis of one metric. Returns 0, or -EINVAL for a malformed metric. */
int pmc_metric_analyze(const struct pmc_metric *m, double confidence,
		       struct pmc_metric_analysis *ret);

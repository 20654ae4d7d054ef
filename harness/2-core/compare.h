/* The comparison engine behind `compare` and `gate`: pairs the benchmarks of two results
 * by name and their metrics by id, tests each pair (Mann-Whitney U, Hodges-Lehmann ratio
 * CI, Benjamini-Hochberg across rows) and gives each a verdict against its threshold.
 * docs/compare.md explains the method and the verdict rules. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/metrics.h"
#include "core/stats.h"
#include "core/threshold.h"
#include "pmcbench/compare.h"

struct pmc_cmp_views;
struct pmc_metric;
struct pmc_result;
struct pmc_run_info;

/* The public functions (pmc_compare, pmc_compare_reference, the row getters) are
 * declared in pmcbench/compare.h; the structs they hide are defined here. */
struct pmc_cmp_row {
	/* Borrowed from the compared results, which must outlive the comparison. */
	const char *bench;     /* the benchmark's name in the new result */
	const char *old_bench; /* its name in the old result (differs only when the single
				* benchmarks of two files were paired) */
	const char *metric;
	/* The compared metrics and the runs of their benchmarks, borrowed like the names
	 * (new_m is NULL when the new benchmark lacks the metric), for the reports that
	 * write the samples themselves (Go's benchmark format). */
	const struct pmc_metric *old_m, *new_m;
	const struct pmc_run_info *old_runs, *new_runs;
	size_t old_nruns, new_nruns;
	size_t block; /* index into pmc_comparison.blocks */
	enum pmc_row_kind kind;
	/* PMC_ROW_EXACT from kernel counts that read the same in every run of each side
	 * (pmc_metric_kernel_identical), not from a simulator's. */
	bool identical;
	bool missing_old; /* PMC_ROW_MISSING: which side has no value */
	bool has_old, has_new;
	struct pmc_summary old, new; /* valid when has_old / has_new */
	/* new/old as a ratio: the Hodges-Lehmann estimate for tested rows, new/old for exact
	 * ones; NAN when it does not exist (old is 0, or a value <= 0 for the log scale). */
	double ratio, ratio_lo, ratio_hi; /* lo/hi NAN when there is no CI */
	/* An endpoint exactly at no change (1) that the test at no change rejects: the
	 * interval excludes it, "(+0.00%, +5.1%]" (docs/statistics.md, "Ties at an
	 * endpoint"). */
	bool lo_open, hi_open;
	double diff;	/* median(new) - median(old), in the metric's unit */
	double p, q;	/* two-sided p, BH q (NAN when not tested or FDR is off) */
	bool mwu_exact; /* p from the exact distribution */
	/* Tested round by round (Wilcoxon signed-rank on the per-round log ratios), over
	 * npairs rounds with a value on both sides; else Mann-Whitney U. */
	bool paired;
	size_t npairs;
	/* The unpaired test and interval were computed over the per-process medians of a
	 * benchmark program's samples, nunits_old + nunits_new processes, not over its runs
	 * (docs/statistics.md, "The unit of replication"). */
	bool by_process;
	size_t nunits_old, nunits_new;
	/* A benchmark program's samples with their processes: more of them means more
	 * processes (--processes), not more samples. */
	bool program;
	/* Not tested: each side's runs come from one invocation (or one process), which
	 * they share, and the metric moves with the machine's conditions between
	 * invocations (pmc_metric_drifts): the ratio of medians is shown, with no interval
	 * and no verdict. */
	bool one_invocation;
	/* Such a row that only the gate's default set would have gated: left out of the
	 * gate (gated is false), so that the work counts of two saved runs are judged. */
	bool left_out;
	/* The smallest p its test can give at these n (every value of one side beyond the
	 * other's, or every round's sign alike); NAN when not tested. */
	double min_p;
	/* The Benjamini-Hochberg family it is adjusted in (docs/statistics.md, "Many
	 * comparisons"): the gated rows, or the others; 1 without FDR. */
	size_t family;
	/* The row alone can come out significant in its family: min_p * family < alpha
	 * (with FDR a lone change's q is its p times the family's size). */
	bool testable;
	/* When it cannot: the runs per side (rounds, processes) that it needs; 0 otherwise. */
	size_t need_n;
	bool significant; /* p (or q) < alpha; exact rows: any difference */
	int bad;	  /* +1 or -1: the direction of change that is a regression; 0 for a
			   * metric without a direction and no signed limit */
	/* Counted less than half of the time on a side (multiplexed): the comparison's
	 * warning may name it, so reports never fold it away. */
	bool multiplexed;
	/* Its limit was asked for (a rule names it, or a default the user set), not the
	 * built-in 5%: reports never fold it away. */
	bool asked;
	bool gated; /* `gate` judges it (docs/compare.md, "What the gate judges") */
	const struct pmc_threshold *threshold;
	double limit_rel; /* the threshold as a fraction of the old median (NAN if none) */
	enum pmc_verdict verdict;
	/* A short note: why the verdict is inconclusive, or what more runs would give
	 * ("need >= 4 runs per side to detect a difference"); NULL when none. */
	const char *why;
};

struct pmc_cmp_block {
	const char *metric; /* borrowed */
	const char *unit;   /* borrowed */
	int better;	    /* enum pmc_better: the registry's, else the old side's */
	bool simulated;	    /* on either side */
	bool derived, cross_group;
	size_t *rows; /* indexes into pmc_comparison.rows, in benchmark order */
	size_t nrows;
	/* Geometric means over the rows with positive medians on both sides; NAN when none. */
	double geo_old, geo_new, geo_ratio;
	size_t geo_n;
	size_t counts[PMC_VERDICT_COUNT];
	size_t nmissing;
};

struct pmc_comparison {
	struct pmc_cmp_row *rows;
	size_t nrows;
	struct pmc_cmp_block *blocks; /* one per metric, in order of first appearance */
	size_t nblocks;
	char **warnings; /* each once, one line each */
	size_t nwarnings;
	size_t counts[PMC_VERDICT_COUNT];     /* over all rows with a verdict */
	size_t nmissing;		      /* rows of kind PMC_ROW_MISSING */
	size_t ncommon, nonly_old, nonly_new; /* benchmarks */
	/* Of the ncommon, those skipped in either result (docs/result-schema.md): they
	 * measured nothing there, so they are not compared, only named in a warning. */
	size_t nskipped;
	double alpha, confidence;
	bool fdr;
	size_t min_n_test; /* per side, for a p below alpha (equal sizes) */
	size_t min_n_ci;   /* per side, for a CI of the median at the confidence */
	/* Gated rows a verdict could come from: exact ones, and tested ones with enough runs
	 * for the test. 0 when every gated row is short of runs: nothing was judged. */
	size_t njudged;
	/* What `gate` decides on: the gated rows, their verdicts, those without a value on
	 * one side, and those whose runs are too few for the test ever to be significant
	 * (the first of them in undetectable). */
	size_t ngated;
	size_t gated_counts[PMC_VERDICT_COUNT];
	size_t ngated_missing;
	size_t nundetectable;
	const struct pmc_cmp_row *undetectable;
	/* Of those, the gated rows not tested because each side is one invocation (the first
	 * in one_invocation): the gate cannot judge them and says how to measure instead. */
	size_t none_invocation;
	const struct pmc_cmp_row *one_invocation;
	/* The rows the default set left out for that reason (the first in left_out): when
	 * nothing else is gated, the gate names them rather than finding nothing to gate. */
	size_t nleft_out;
	const struct pmc_cmp_row *left_out;
	/* The per-row notes, in the style of benchstat: runs per side (rounds, processes)
	 * needed for the test to reach alpha in its family, one string per distinct note,
	 * which rows' why point into; and runs for a CI of the median at the confidence. */
	char **notes;
	size_t nnotes;
	char note_ci[80];
	/* The sizes of the two families (gated, other tested rows). */
	size_t family_gated, family_other;
	/* The --threshold metrics (by id; "*" is not one) and --metric patterns that matched
	 * no row with values on both sides, one line each saying which and why ("threshold
	 * 'instructions=+1%' checked nothing: ..."). Each is also among the warnings; `gate`
	 * turns them into an error. */
	char **unchecked;
	size_t nunchecked;
	/* pmc_compare_builds: the benchmarks by round that the rows borrow, freed with the
	 * comparison; NULL otherwise. */
	struct pmc_cmp_views *views;
};

/* Compares the benchmarks of build new_label in r against their namesakes of build
 * old_label (`pmcbench run --library A.so --library B.so`: docs/microbench.md, "Comparing
 * two builds"): "OLD:x" is paired with "NEW:x", and the row is named x. When r's runs were
 * taken in rounds (r's design), they are paired round by round (the Wilcoxon signed-rank
 * test and the Hodges-Lehmann interval of the per-round log ratios) unless opts->unpaired;
 * a round may hold several samples of one process (its unit of replication: its value is
 * their median), and a round that only one side has is left out, with a warning that
 * counts them. A benchmark of one build only is not compared, and a warning names it. The
 * comparison borrows r's names (keep r alive). Same returns as pmc_compare; -EINVAL for
 * labels that are missing or equal. */
int pmc_compare_builds(const struct pmc_result *r, const char *old_label, const char *new_label,
		       const struct pmc_compare_opts *opts, struct pmc_comparison **ret, char *err,
		       size_t errlen);

/* The smallest n per side (equal sizes) for which the two-sided exact Mann-Whitney
 * p-value can fall below alpha: 2 / C(2n, n) < alpha. 4 at alpha = 0.05. */
size_t pmc_compare_min_n_test(double alpha);

/* The smallest n for which the order-statistic CI of the median, [x(1), x(n)], reaches
 * the confidence: 1 - 2^(1-n) >= confidence. 6 at 95%. */
size_t pmc_compare_min_n_ci(double confidence);

/* The block that answers "which ran faster": the first block of a primary time metric,
 * in pmc_comparison_primary's order (task-clock when it was measured on both sides, else
 * wall-time), whose rows each have a ratio (both sides, not missing, finite, above 0):
 * one row, or several against one reference's samples (pmc_compare_reference: every
 * row's old_m the same). NULL when none does. A report's headline is its only row, or
 * with several hyperfine's summary of them (reporters/compare_cells.c). */
const struct pmc_cmp_block *pmc_comparison_primary_block(const struct pmc_comparison *c);

/* The row that answers "which ran faster" in one line: the only row of the primary block
 * (pmc_comparison_primary_block). NULL when there is none, or when several benchmarks
 * make one line impossible. */
const struct pmc_cmp_row *pmc_comparison_headline(const struct pmc_comparison *c);

/* The primary metrics of c in the order its headline picks them
 * (pmc_metric_primary_order: wall-time first when a benchmark with a CPU time and a
 * wall-time mostly waits on either side, pmc_metric_mostly_waits). Each side's share is
 * of its fastest runs (its minimums), the runs the machine's load disturbed least (J.
 * Chen and J. Revels, "Robust benchmarking in noisy environments", 2016), its switches
 * those of all its runs. */
const char *const *pmc_comparison_primary(const struct pmc_comparison *c);

struct pmc_benchmark;
struct pmc_result;
/* How b used the CPU: the least task-clock (else cpu-time) / the least wall-time of its
 * runs (NAN without both), and its runs' context switches summed (switches false unless
 * every run has them). */
struct pmc_cpu_use pmc_benchmark_cpu_use(const struct pmc_benchmark *b);

/* The primary metrics of b (NULL: nothing known), and of r: wall-time first when b, or
 * one of r's benchmarks, mostly waits (pmc_metric_mostly_waits). */
const char *const *pmc_benchmark_primary(const struct pmc_benchmark *b);
const char *const *pmc_result_primary(const struct pmc_result *r);

/* Comparing two results: thresholds, per-row verdicts and the gate decision
 * (docs/api.md, "Comparing"; the method and the verdict rules are in docs/compare.md).
 * Plain C11. */
#ifndef PMCBENCH_COMPARE_H
#define PMCBENCH_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "pmcbench/common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pmc_result;

/* --- Thresholds ----------------------------------------------------------------- */

/* A set of regression limits, per metric and per benchmark (docs/compare.md). */
struct pmc_thresholds;

/* An empty set in *ret (every metric gets the built-in 5%); free it with
 * pmc_thresholds_free. Returns 0 or -ENOMEM. */
PMC_API int pmc_thresholds_new(struct pmc_thresholds **ret);

/* Loads a thresholds file (schema pmcbench-thresholds/1, docs/compare.md) into t. Its
 * rules rank below limits added with pmc_thresholds_add_arg of the same specificity.
 * Returns 0, -errno for I/O, -ENOMEM, or -EINVAL with one line in err naming the file
 * and the place. */
PMC_API int pmc_thresholds_load(struct pmc_thresholds *t, const char *path, char *err,
				size_t errlen);

/* Adds "METRIC=LIMIT" ("instructions=+1%", "max-rss=+2MiB", "*=5%": METRIC "*" sets the
 * default); a later limit for the same metric replaces an earlier one. Returns 0,
 * -ENOMEM, or -EINVAL with one line in err naming the text, the column and the fix. */
PMC_API int pmc_thresholds_add_arg(struct pmc_thresholds *t, const char *arg, char *err,
				   size_t errlen);

/* Frees a set; NULL is allowed. */
PMC_API void pmc_thresholds_free(struct pmc_thresholds *t);

/* --- Comparing ------------------------------------------------------------------ */

enum pmc_verdict {
	PMC_VERDICT_NO_CHANGE,
	PMC_VERDICT_IMPROVEMENT,
	PMC_VERDICT_REGRESSION,
	PMC_VERDICT_INCONCLUSIVE,
	PMC_VERDICT_COUNT
};

/* "no change", "improvement", "regression", "inconclusive"; "?" for another value. */
PMC_API const char *pmc_verdict_name(enum pmc_verdict v);

enum pmc_row_kind {
	PMC_ROW_TESTED,	 /* both sides have samples: Mann-Whitney U and the ratio CI */
	PMC_ROW_EXACT,	 /* exact counts on both sides, no spread: a simulator's, or kernel
			  * counts identical in every run of each side; compared directly,
			  * no p-value */
	PMC_ROW_MISSING, /* no value on one side (unsupported, denied or absent): no verdict */
};

struct pmc_compare_opts {
	size_t sz;	   /* sizeof(struct pmc_compare_opts) */
	double alpha;	   /* significance level, 0 < alpha < 1; 0 means 0.05 */
	double confidence; /* of every CI, 0 < confidence < 1; 0 means 0.95 */
	bool no_fdr;	   /* judge raw p-values instead of Benjamini-Hochberg q-values */
	bool force;	   /* allow results of different backends or commands, and a simulated
			    * metric against a hardware one */
	const char *const *metrics; /* fnmatch patterns selecting metric ids; NULL: all */
	size_t nmetrics;
	const struct pmc_thresholds *thresholds; /* NULL: the built-in default, 5% */
	/* The two sides as messages name them ("base.json"); NULL: "the old result" and
	 * "the new result". */
	const char *old_name;
	const char *new_name;
	/* pmc_compare_reference: analyse runs taken in rounds (interleaved or duet) as two
	 * independent samples instead of round by round (docs/compare.md, "Paired"). */
	bool unpaired;
};
#define pmc_compare_opts__last_field unpaired

/* The outcome of a comparison: rows (one per benchmark and metric), warnings, counts. */
struct pmc_comparison;
/* One row of a comparison; valid while its comparison lives. */
struct pmc_cmp_row;

/* Compares new_r against old_r, pairing benchmarks by name and metrics by id. On success
 * *ret holds a comparison that borrows names from both results (keep them alive; free it
 * with pmc_comparison_free). Returns -ENODATA when nothing is in common, -EINVAL for a
 * unit mismatch, results of different backends or commands or a simulated metric against
 * a hardware one (each unless force), a threshold that does not suit its metric or bad
 * options, -ERANGE, -ENOMEM; one line in err. */
PMC_API int pmc_compare(const struct pmc_result *old_r, const struct pmc_result *new_r,
			const struct pmc_compare_opts *opts, struct pmc_comparison **ret, char *err,
			size_t errlen);

/* Compares every benchmark of r but the reference (0-based index ref) against the
 * reference, as `pmcbench run -c A -c B` does: each row is named after the compared
 * benchmark. When r's runs were taken in rounds (r's design), each round's two runs are
 * a pair: the Wilcoxon signed-rank test and the Hodges-Lehmann interval of the per-round
 * log ratios, unless opts->unpaired. Same returns as pmc_compare; -EINVAL when ref is out of range
 * or r has fewer than two benchmarks. */
PMC_API int pmc_compare_reference(const struct pmc_result *r, size_t ref,
				  const struct pmc_compare_opts *opts, struct pmc_comparison **ret,
				  char *err, size_t errlen);

/* Frees a comparison; NULL is allowed. */
PMC_API void pmc_comparison_free(struct pmc_comparison *c);

/* The number of rows, and the i-th (NULL when i is out of range). */
PMC_API size_t pmc_comparison_row_count(const struct pmc_comparison *c);
PMC_API const struct pmc_cmp_row *pmc_comparison_row_at(const struct pmc_comparison *c, size_t i);

/* The number of warnings (one line each: differing benchmark sets, environments,
 * multiplexing, ...), and the i-th (NULL when out of range). */
PMC_API size_t pmc_comparison_warning_count(const struct pmc_comparison *c);
PMC_API const char *pmc_comparison_warning_at(const struct pmc_comparison *c, size_t i);

/* How many rows got the verdict v. */
PMC_API size_t pmc_comparison_verdict_count(const struct pmc_comparison *c, enum pmc_verdict v);

/* The benchmark's name (in the new result) and the metric's id of a row. */
PMC_API const char *pmc_cmp_row_bench(const struct pmc_cmp_row *row);
PMC_API const char *pmc_cmp_row_metric(const struct pmc_cmp_row *row);

/* How the row was compared; a PMC_ROW_MISSING row has no verdict. */
PMC_API enum pmc_row_kind pmc_cmp_row_kind(const struct pmc_cmp_row *row);

/* The row's verdict; -ENODATA for a row of kind PMC_ROW_MISSING. */
PMC_API int pmc_cmp_row_verdict(const struct pmc_cmp_row *row, enum pmc_verdict *ret);

/* new/old as a ratio with its confidence interval (lo and hi are NAN when there is no
 * interval); -ENODATA when there is no ratio (a zero or missing old value). */
PMC_API int pmc_cmp_row_ratio(const struct pmc_cmp_row *row, double *ret_ratio, double *ret_lo,
			      double *ret_hi);

/* The two-sided p-value and its Benjamini-Hochberg q-value; NAN when the row was not
 * tested (q: or false discovery control was off). */
PMC_API double pmc_cmp_row_p(const struct pmc_cmp_row *row);
PMC_API double pmc_cmp_row_q(const struct pmc_cmp_row *row);

/* The threshold the row was judged against, as written ("+1%", "2MiB"). */
PMC_API const char *pmc_cmp_row_threshold(const struct pmc_cmp_row *row);

/* --- The gate decision ---------------------------------------------------------- */

/* What a gate, or a session (pmcbench/session.h), decided. These are not exit codes: a
 * program maps them to its own (pmcbench's are in docs/compare.md, "Errors and exit
 * status"). */
enum pmc_decision {
	PMC_DECISION_PASS,
	PMC_DECISION_REGRESSION,
	PMC_DECISION_INCONCLUSIVE,
	PMC_DECISION_ERROR,
};

/* Why the gate decided as it did. */
enum pmc_gate_reason {
	PMC_GATE_REASON_PASS,	      /* judged, nothing regressed */
	PMC_GATE_REASON_REGRESSION,   /* a row regressed beyond its threshold */
	PMC_GATE_REASON_UNCHECKED,    /* a threshold or metric selection checked nothing, or
				       * no compared metric is gated */
	PMC_GATE_REASON_MISSING,      /* a gated row has no value on one side */
	PMC_GATE_REASON_UNDETECTABLE, /* a gated row has too few runs for the test ever to be
				       * significant at alpha */
	PMC_GATE_REASON_INCONCLUSIVE, /* an inconclusive row, with fail_on_inconclusive */
};

struct pmc_gate_opts {
	size_t sz;		   /* sizeof(struct pmc_gate_opts) */
	bool fail_on_inconclusive; /* an inconclusive row fails the gate (PMC_DECISION_INCONCLUSIVE)
				    */
};
#define pmc_gate_opts__last_field fail_on_inconclusive

/* Decides the gate from the gated rows of a comparison (docs/compare.md, "What the gate
 * judges"): an error when a limit checked nothing, no row is gated, a gated row lacks a
 * value or has too few runs for the test to reach alpha; else a regression, else (when
 * asked) inconclusive, else a pass. Writes the decision to *ret_decision, the reason to
 * *ret_reason (may be NULL) and, for an error, one line saying why and what to do into
 * err. Returns 0, or -EINVAL for a NULL comparison or bad options. */
PMC_API int pmc_gate_decide(const struct pmc_comparison *c, const struct pmc_gate_opts *opts,
			    enum pmc_decision *ret_decision, enum pmc_gate_reason *ret_reason,
			    char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* PMCBENCH_COMPARE_H */

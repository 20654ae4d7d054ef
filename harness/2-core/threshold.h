/* Regression thresholds: how large a change of a metric must be before `compare` and
 * `gate` call it a regression or an improvement. docs/compare.md documents the syntax
 * ("instructions=+1%", "task-clock=5%", "max-rss=+2MiB", "*=5%") and the thresholds
 * file (schema pmcbench-thresholds/1). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "pmcbench/compare.h"

/* The threshold used for metrics that nothing else sets: 5%, either way. */
#define PMC_THRESHOLD_DEFAULT_PERCENT 5.0

#define PMC_THRESHOLDS_SCHEMA "pmcbench-thresholds/1"

/* What the number of an absolute threshold was written in; it must suit the metric. */
enum pmc_threshold_unit {
	PMC_TUNIT_PLAIN, /* a count (K/M/G, or a percentage): for metrics in counts */
	PMC_TUNIT_BYTES, /* B, KiB, MiB, GiB: the metric must be in bytes */
	PMC_TUNIT_TIME,	 /* ns, us, ms, s: the metric must be in ns */
};

struct pmc_threshold {
	bool absolute; /* limit is in the metric's unit, else a fraction (0.05 = 5%) */
	double limit;  /* >= 0; bytes for PMC_TUNIT_BYTES, ns for PMC_TUNIT_TIME */
	/* The direction of change of the metric's value that counts as bad: +1 increases,
	 * -1 decreases, 0 when no sign was written (the metric's direction decides). */
	int sign;
	enum pmc_threshold_unit unit;
	char text[32]; /* as written, for reports ("+1%", "2MiB") */
};

/* Parses one limit ("5%", "+1%", "-0.5%", "+2MiB", "10ms", "+1k", "5M"). A bare number
 * has no unit and is refused, as is a limit that is not finite once scaled. Returns 0,
 * or -EINVAL with one line in err naming the text, the column and the fix. */
/* Seam for the tests: pmc_threshold_parse_in of one limit named "threshold 'TEXT'" in its
 * messages, for the tests of the limit syntax alone. */
int pmc_threshold_parse(const char *text, struct pmc_threshold *ret, char *err, size_t errlen);

/* Checks that an absolute threshold suits a metric unit ("count", "ns", "bytes", ...).
 * Returns 0, or -EINVAL with one line in err. */
int pmc_threshold_check_unit(const struct pmc_threshold *t, const char *metric, const char *unit,
			     char *err, size_t errlen);

/* A set of thresholds from --threshold arguments and a thresholds file. */
struct pmc_thresholds;

/* pmc_thresholds_new, pmc_thresholds_add_arg and pmc_thresholds_free are public
 * (pmcbench/compare.h). */

/* Parses one limit as pmc_threshold_parse() does; what names the whole input in the
 * message and col0 is the 0-based column of text within it. */
int pmc_threshold_parse_in(const char *text, const char *what, size_t col0,
			   struct pmc_threshold *ret, char *err, size_t errlen);

/* The rules of a thresholds file, set by its reader (harness/3-formats/thresholds_json.h,
 * which loads the file): the file's default and per-metric limits, and its benchmark
 * entries, added in file order with a pattern and then given a default or per-metric
 * limits. Each returns 0, -ENOMEM, or -EINVAL for an index that was never added. */
int pmc_thresholds_set_file_default(struct pmc_thresholds *t, const struct pmc_threshold *th);
int pmc_thresholds_set_file_metric(struct pmc_thresholds *t, const char *metric,
				   const struct pmc_threshold *th);
int pmc_thresholds_add_file_bench(struct pmc_thresholds *t, const char *pattern, size_t *ret_idx);
int pmc_thresholds_set_bench_default(struct pmc_thresholds *t, size_t idx,
				     const struct pmc_threshold *th);
int pmc_thresholds_set_bench_metric(struct pmc_thresholds *t, size_t idx, const char *metric,
				    const struct pmc_threshold *th);

/* The threshold for a metric of a benchmark, most specific first: a file entry whose
 * benchmark pattern (fnmatch) matches and names the metric; the metric on the command
 * line, then at the top of the file; a matching file entry's default; "*" on the
 * command line, then the file's default; PMC_THRESHOLD_DEFAULT_PERCENT.
 * t may be NULL (the built-in default). The pointer stays valid while t lives. */
const struct pmc_threshold *pmc_thresholds_lookup(const struct pmc_thresholds *t, const char *bench,
						  const char *metric);

/* Where the limit of a metric came from; it decides whether `gate` judges the metric
 * (docs/compare.md, "What the gate judges"). */
enum pmc_threshold_origin {
	PMC_TH_NAMED,	/* a rule names the metric: --threshold ID=, a file's "metrics" */
	PMC_TH_DEFAULT, /* a default the user set: '*=', a file's or a matching entry's "default" */
	PMC_TH_BUILTIN, /* nothing applies: the built-in 5% */
};

/* pmc_thresholds_lookup(), also saying where the limit came from (ret_origin may be
 * NULL). */
const struct pmc_threshold *pmc_thresholds_find(const struct pmc_thresholds *t, const char *bench,
						const char *metric,
						enum pmc_threshold_origin *ret_origin);

/* Whether any rule of t names a metric (a --threshold ID=, or "metrics" anywhere in the
 * file): then `gate` judges only the metrics named and those a default set by the user
 * covers. */
bool pmc_thresholds_names_metrics(const struct pmc_thresholds *t);

/* The --threshold arguments that name a metric (not "*"), in the order first given: how
 * many there are, and the i-th one's metric id (the pointer stays valid while t lives)
 * with its limit in *ret_th. `compare` and `gate` use them to name a limit that checked
 * nothing, such as a misspelt metric id. */
size_t pmc_thresholds_nargs(const struct pmc_thresholds *t);
const char *pmc_thresholds_arg(const struct pmc_thresholds *t, size_t i,
			       const struct pmc_threshold **ret_th);

/* The built-in default threshold. */
/* Seam for the tests: the built-in rule that a lookup without a matching one returns,
 * compared by address. */
const struct pmc_threshold *pmc_threshold_default(void);

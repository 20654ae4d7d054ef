/* Reports of a comparison (harness/compare.h): a benchstat-like table, Markdown for pull
 * requests and $GITHUB_STEP_SUMMARY, and JSON (schema pmcbench-compare/1). Reporters
 * only read the comparison; they never print anywhere but the FILE they are given. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

struct pmc_comparison;

#define PMC_COMPARE_SCHEMA "pmcbench-compare/1"

enum pmc_compare_format {
	PMC_COMPARE_TABLE,
	PMC_COMPARE_MARKDOWN,
	PMC_COMPARE_JSON,
};

/* "table", "markdown" (or "md"), "json". Returns 0, or -EINVAL for another name. */
int pmc_compare_format_parse(const char *name, enum pmc_compare_format *ret);

struct pmc_compare_report_opts {
	const char *old_name; /* labels of the two sides ("base.json"); NULL: "old"/"new" */
	const char *new_name;
	bool gate;     /* a gate decision: show the outcome (pass, regression, ...) */
	int exit_code; /* the outcome behind it: 0 pass, 1 regression, 2 error, 3 inconclusive */
	const char *error; /* the comparison failed with this message (c may be NULL) */
	/* Markdown only: the most rows shown per metric for each of "changed" and "no
	 * change" (0: 1000 and 100); the JSON report always has every row. */
	size_t md_max_changed, md_max_unchanged;
};

/* Writes the report of c (which may be NULL when o->error is set) to out in the format.
 * Returns 0, or -EIO when writing fails, or -ENOMEM. */
int pmc_compare_report(FILE *out, enum pmc_compare_format format, const struct pmc_comparison *c,
		       const struct pmc_compare_report_opts *o);

/* A number in a metric's unit, short and human: "1.235M", "12.3ms", "2.00MiB", "1.234".
 * Writes "-" for NAN. Returns buf. */
char *pmc_compare_format_value(double v, const char *unit, char *buf, size_t len);

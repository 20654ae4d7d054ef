/* Reports: a result or a comparison rendered in a named format ("table", "markdown" or
 * "md", "json", "csv", "gobench", "stats") to a FILE (docs/api.md, "Reports";
 * docs/export.md). Plain C11. */
#ifndef PMCBENCH_REPORT_H
#define PMCBENCH_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "pmcbench/common.h"
#include "pmcbench/compare.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pmc_result;
struct pmc_comparison;

/* Schema of the JSON report of a comparison (docs/compare.md, "JSON report"). */
#define PMC_COMPARE_SCHEMA "pmcbench-compare/1"
/* Schema of the JSON report of one base compared with several files (`pmcbench compare
 * A B C`): the two-file reports in a list (docs/compare.md, "More than two files"). */
#define PMC_COMPARE_SET_SCHEMA "pmcbench-compare-set/1"

struct pmc_report_opts {
	size_t sz; /* sizeof(struct pmc_report_opts); PMC_OPTS sets it */
	/* Reports of a result. */
	bool median;	   /* show medians instead of means */
	double confidence; /* of the CI of the median; 0 means 0.95 */
	/* Reports of a comparison. */
	const char *old_name; /* labels of the two sides ("base.json"); NULL: "old"/"new" */
	const char *new_name;
	bool gate;		    /* a gate decision: show it (pass, regression, ...) */
	enum pmc_decision decision; /* the gate's decision */
	const char *error; /* the comparison failed with this message (it may be NULL then) */
	/* Markdown only: the most rows shown per metric for each of "changed" and "no
	 * change" (0: 1000 and 100); the JSON report always has every row. */
	size_t md_max_changed, md_max_unchanged;
	/* The table leaves out its first line, the headline ("B ran 6.05x slower than A
	 * [5.90x, 6.20x]"), because the caller wrote it already (`pmcbench run` does, before
	 * its run table). */
	bool no_headline;
	/* Table only: wrap the verdicts and the gate's outcome in ANSI colour (SGR)
	 * sequences. The caller decides (a terminal, NO_COLOR unset); off by default. */
	bool color;
	/* Table and Markdown: show every row of a comparison. Otherwise the rows that can
	 * fold (no change, not gated, no note, no warning: docs/compare.md, "Folded rows")
	 * are one line per table ("12 benchmarks without change (~); --all shows them") in
	 * the table, and a collapsed <details> section in Markdown. JSON and CSV always have
	 * every row. */
	bool all_rows;
	/* Table and Markdown: one table per benchmark with a row per metric, instead of one
	 * per metric with a row per benchmark (`compare --row metric`). */
	bool by_benchmark;
	/* Table and the brief table: the most columns a line may take (0: no limit). The
	 * report then uses its narrow layout: columns dropped or moved to a second line,
	 * prose wrapped; only a word longer than the width (a name) still overflows. The
	 * caller decides (COLUMNS, else the terminal's width: docs/cli.md, "Width"). */
	unsigned width;
};
#define pmc_report_opts__last_field width

/* What a format renders. */
enum pmc_report_kind {
	PMC_REPORT_RESULT = 1,
	PMC_REPORT_COMPARISON = 2,
};

/* Looks a format up by name (an alias such as "md" included). On success *ret_name
 * gets its canonical name (static storage) and, when ret_ext is not NULL, the file
 * extension that suits it (".txt", ".md", ".json", ".csv"). Returns 0, -ENOENT for an
 * unknown name, or -EOPNOTSUPP when the format does not render `kind`. */
PMC_API int pmc_report_format(const char *name, enum pmc_report_kind kind, const char **ret_name,
			      const char **ret_ext);

/* Writes the report of r in the named format to out; r is only read. Returns 0,
 * -EINVAL (bad arguments, options or result), -ENOENT or -EOPNOTSUPP (format), -ENOMEM
 * or -EIO, with one line in err. */
PMC_API int pmc_report_result(FILE *out, const char *format, const struct pmc_result *r,
			      const struct pmc_report_opts *opts, char *err, size_t errlen);

/* Writes the report of c in the named format to out; c may be NULL when opts->error
 * says why there is no comparison. Returns as pmc_report_result(). */
PMC_API int pmc_report_comparison(FILE *out, const char *format, const struct pmc_comparison *c,
				  const struct pmc_report_opts *opts, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* PMCBENCH_REPORT_H */

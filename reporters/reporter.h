/* The reporter interface (docs/architecture.md, "Layers"): one entry per output format,
 * one file per format, chosen by one lookup by name. Reporters render; the numbers come
 * from the analysis (harness/2-core/analysis.h) or the comparison. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "pmcbench/report.h"

struct pmc_analysis;
struct pmc_changes;
struct pmc_charts;
struct pmc_history_point;

struct pmc_reporter {
	const char *name;  /* canonical: "table" */
	const char *alias; /* another name it answers to ("md"), or NULL */
	const char *ext;   /* file extension that suits it: ".md" */
	/* A file name ending in ext is written in this format (`--export FILE`,
	 * docs/export.md); one format per extension. */
	bool by_extension;
	/* What the format is, when its name does not say, written after its extension
	 * where extensions are listed: "Go's benchmark format"; or NULL. */
	const char *describe;
	/* Its report on a stream is one document a program reads (json, csv, gobench), so
	 * that any other output beside it (a comparison, the sequential decisions) goes
	 * elsewhere; a report for a reader is not. */
	bool document;
	/* Left out where formats are listed (messages, help texts, completion): the
	 * statistics table, which `run --stats` adds after the table. */
	bool unlisted;
	/* Renders a result: r, with its analysis when the format needs one (else NULL).
	 * o is complete (every field readable) and its confidence resolved. NULL when the
	 * format does not render results. */
	int (*result)(FILE *out, const struct pmc_result *r, const struct pmc_analysis *a,
		      const struct pmc_report_opts *o);
	bool needs_analysis;
	/* Renders a comparison (NULL with o->error set). NULL when the format does not
	 * render comparisons. */
	int (*comparison)(FILE *out, const struct pmc_comparison *c,
			  const struct pmc_report_opts *o);
	/* Renders the comparisons of one base with several files (`compare A B C`): cs[i]
	 * compares names[0] with names[i + 1]; o's old_name and new_name are ignored. NULL
	 * when the format renders only one comparison. */
	int (*comparisons)(FILE *out, const struct pmc_comparison *const *cs,
			   const char *const *names, size_t n, const struct pmc_report_opts *o);
	/* Its comparison holds the samples of two sides at most (Go's benchmark format): a
	 * comparison of more files than two is refused before anything is read. */
	bool two_sides;
	/* The history's outputs (docs/history.md; the model is core/series.h), each NULL
	 * when the format does not render it: the samples of points ps[0..n) (`history
	 * export`); the change points of a selection (`history changes`); the trend charts
	 * of series (`history show --svg`, `history changes --html`), store naming the
	 * history. The points come in parts (pmc_report_points), so that an export holds
	 * one series at a time, never the store. */
	int (*points)(FILE *out, const struct pmc_history_point *ps, size_t n, unsigned part);
	int (*changes)(FILE *out, const struct pmc_changes *c);
	int (*charts)(FILE *out, const struct pmc_charts *cs, const char *store);
};

extern const struct pmc_reporter pmc_reporter_table;
extern const struct pmc_reporter pmc_reporter_json;
extern const struct pmc_reporter pmc_reporter_csv;
extern const struct pmc_reporter pmc_reporter_markdown;
extern const struct pmc_reporter pmc_reporter_stats;
extern const struct pmc_reporter pmc_reporter_brief;
extern const struct pmc_reporter pmc_reporter_gobench;
extern const struct pmc_reporter pmc_reporter_svg;
extern const struct pmc_reporter pmc_reporter_html;

/* run -I: each benchmark's counts per interval of its last run that has them, as a table
 * for a reader (reporters/intervals.c); nothing for a result without. Not a format of its
 * own: the run table follows it. Returns 0 or -EIO. */
int pmc_report_intervals(FILE *out, const struct pmc_result *r);

/* Writes the report of n comparisons of one base with n files in the named format:
 * cs[i] compares names[0] with names[i + 1] (docs/compare.md, "More than two files").
 * Returns as pmc_report_comparison(); -EOPNOTSUPP for a format that renders only one
 * comparison (gobench). */
int pmc_report_comparisons(FILE *out, const char *format, const struct pmc_comparison *const *cs,
			   const char *const *names, size_t n, const struct pmc_report_opts *opts,
			   char *err, size_t errlen);

/* pmc_report_result() with r's analysis (pmc_analysis_new of r), computed once by the
 * caller for every reader (docs/architecture.md, "Data flow"): used when its confidence
 * is the report's, else (and when a is NULL) the reporter's own is computed. -EINVAL
 * when a is not r's. */
int pmc_report_result_analyzed(FILE *out, const char *format, const struct pmc_result *r,
			       const struct pmc_analysis *a, const struct pmc_report_opts *opts,
			       char *err, size_t errlen);

/* The i-th reporter of the registry (reporters[] of report.c), or NULL past the last:
 * for code that must cover every format (tests, the fuzzer). */
/* Seam for the tests: every format of the registry, for the tests and the fuzzer that must
 * cover each. */
const struct pmc_reporter *pmc_reporter_at(size_t i);

/* The reporter named name (or its alias), or NULL. */
const struct pmc_reporter *pmc_reporter_find(const char *name);

/* Which formats pmc_reporter_names() lists. */
enum pmc_reporter_set {
	PMC_REPORTERS_RESULT,	   /* those that render a result (`run --format`) */
	PMC_REPORTERS_COMPARISON,  /* a comparison (`compare --format`) */
	PMC_REPORTERS_COMPARISONS, /* one base compared with several files */
	PMC_REPORTERS_POINTS,	   /* a history's samples (`history export --format`) */
	PMC_REPORTERS_CHANGES,	   /* its change points (`history changes --format`) */
};

/* The names of the listed formats of set, for a message: "table, json, csv, markdown or
 * gobench". Results and points in the registry's order; comparisons and changes with the
 * formats for a reader first, then the documents ("table, markdown, json, csv or
 * gobench"), as compare's help lists them. */
void pmc_reporter_names(enum pmc_reporter_set set, char *buf, size_t len);

/* The reporter a file name asks for by its extension (".json", ".csv", ".md", ".txt" for
 * Go's benchmark format; any case), or NULL when it has none of them. */
const struct pmc_reporter *pmc_reporter_for_path(const char *path);

/* The extensions pmc_reporter_for_path() knows, for a message, each with its format's
 * description: ".json, .csv, .md or .txt (Go's benchmark format)". */
void pmc_reporter_extensions(char *buf, size_t len);

/* The extensions of the formats of set that a file name may ask for, without their
 * descriptions: ".json, .csv or .md" for PMC_REPORTERS_COMPARISONS. */
void pmc_reporter_set_extensions(enum pmc_reporter_set set, char *buf, size_t len);

/* The reporter named format (or its alias) that renders what set names, or NULL. */
const struct pmc_reporter *pmc_reporter_of(enum pmc_reporter_set set, const char *format);

/* The parts of a document of points: the first opens it (CSV's header, JSON's array),
 * the last closes it; one call may be both (PMC_POINTS_ALL: the whole document). n is 0
 * only in a call that is the last, so that JSON's array knows whether it is empty. */
#define PMC_POINTS_FIRST 1u
#define PMC_POINTS_LAST 2u
#define PMC_POINTS_ALL (PMC_POINTS_FIRST | PMC_POINTS_LAST)

/* Write the history's outputs in the named format (one of set PMC_REPORTERS_POINTS,
 * PMC_REPORTERS_CHANGES, or "svg" and "html" for charts): points ps[0..n) as the part
 * `part` of the document (the last flushed, each checked for a write error). Return 0,
 * -ENOENT (no such format of that output), -ENOMEM or -EIO. */
int pmc_report_points(FILE *out, const char *format, const struct pmc_history_point *ps, size_t n,
		      unsigned part);
int pmc_report_changes(FILE *out, const char *format, const struct pmc_changes *c);
int pmc_report_charts(FILE *out, const char *format, const struct pmc_charts *cs,
		      const char *store);

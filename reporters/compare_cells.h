/* Private to the comparison reporters (table.c, markdown.c, json.c): the cells of one
 * row of a comparison, formatted once for the text and the Markdown table, the lines
 * that sum a comparison up, and a line buffer for reports of 100,000 rows. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "pmcbench/compare.h"

struct pmc_comparison;
struct pmc_cmp_row;
struct pmc_report_opts;

/* A growing line buffer: a row is built in memory and written with one fwrite, which is
 * several times cheaper than a stdio call per cell for 100,000 rows. */
struct pmc_sbuf {
	char *p;
	size_t len, cap;
	bool oom;
};

void pmc_sb_put(struct pmc_sbuf *b, const char *s, size_t n);
void pmc_sb_puts(struct pmc_sbuf *b, const char *s);
void pmc_sb_printf(struct pmc_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Writes and empties the buffer; false when writing failed or memory ran out. */
bool pmc_sb_flush(struct pmc_sbuf *b, FILE *out);

struct pmc_cmp_cells {
	char old[128], new[128], change[160], test[64];
	const char *limit;
	const char *verdict;
};

/* The cells of row: each side's median ± the half-width of its CI, the change with its
 * interval ("~" when not significant), the test, the limit and the verdict. */
void pmc_cmp_cells(const struct pmc_comparison *c, const struct pmc_cmp_row *row,
		   struct pmc_cmp_cells *out);

struct pmc_cmp_block;

/* Whether the block gets a geomean row: only over two or more benchmarks. */
bool pmc_cmp_has_geomean(const struct pmc_cmp_block *b);

/* The cells of a block's geomean row: the geometric means of the medians, their ratio
 * labelled as such (it is not a Hodges-Lehmann estimate) and how many benchmarks. */
void pmc_cmp_geomean_cells(const struct pmc_cmp_block *b, struct pmc_cmp_cells *out);

/* "higher is better", "lower is better" or "no direction". */
const char *pmc_cmp_better_text(int better);

/* "1 regression, 0 improvements, ..." (md: the regressions in bold). */
void pmc_cmp_outcome_counts(FILE *out, const struct pmc_comparison *c, bool md);

/* The line that says which test, alpha and CI the comparison used, what the test
 * column shows (q with Benjamini-Hochberg, else p), what "~" means, and what a geomean
 * row is. */
void pmc_cmp_settings_line(FILE *out, const struct pmc_comparison *c);

/* "PASS", "FAIL (regression)", "FAIL (inconclusive)", "ERROR". */
const char *pmc_cmp_decision_name(enum pmc_decision d);

/* The exit status `pmcbench` gives for the report's decision (o->error: an error), which
 * the JSON report records as "exit_code" (docs/compare.md, "JSON report"). */
int pmc_cmp_decision_status(const struct pmc_report_opts *o);

/* A warning the error line repeats word for word (a gate's limit that checked nothing)
 * is shown once, as the error. */
bool pmc_cmp_same_as_error(const char *warning, const struct pmc_report_opts *o);

/* Whether a compact report may fold row away (docs/compare.md, "Folded rows"): a
 * verdict of no change that nothing else draws attention to. Regressions,
 * improvements, inconclusive and missing rows, rows not tested, rows with a note,
 * multiplexed rows and rows whose limit was asked for are always shown; in a gate's
 * report (gate), every row the gate judges too. */
bool pmc_cmp_row_folds(const struct pmc_cmp_row *row, bool gate);

/* name, or fallback when it is NULL. */
const char *pmc_cmp_label(const char *name, const char *fallback);

/* --row metric: the rows of the benchmark whose first row is `first` (a benchmark's rows
 * are consecutive in a comparison) into idx, in the order of their blocks (gated ones
 * first). Returns the index after its last row; idx holds (that - first) entries. */
size_t pmc_cmp_benchmark_rows(const struct pmc_comparison *c, size_t first, size_t *idx);

/* The one line that answers the question first (docs/compare.md, "The headline"):
 * "B ran 6.05x slower than A [5.90x, 6.20x] (task-clock)", from the interval the
 * comparison computed for the ratio (Hodges-Lehmann, of the per-round ratios when
 * paired), or "no significant difference between B and A: 1.01x [0.98x, 1.04x] ...".
 * Writes it with its newline and returns true; false when the comparison has no
 * headline (pmc_comparison_headline). A comparison of the reference (o->old_name) with
 * two or more commands gives hyperfine's summary instead, one line each:
 * "A ran\n  1.23x faster than B [1.20x, 1.26x] (task-clock)\n  ...". */
bool pmc_cmp_headline(const struct pmc_comparison *c, const struct pmc_report_opts *o, char *buf,
		      size_t len);

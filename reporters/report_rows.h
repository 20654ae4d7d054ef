/* Private to the run reporters (table.c, markdown.c): one benchmark's analysis turned
 * into display rows, so that the text table and the Markdown table show the same
 * numbers, statuses and marks. Built in report_rows.c; the numbers come from the analysis
 * (harness/2-core/analysis.h), never computed here. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct pmc_analysis;
struct pmc_bench_analysis;
struct pmc_benchmark;
struct pmc_metric;
struct pmc_report_opts;

struct pmc_report_row {
	const struct pmc_metric *m;
	bool missing;	  /* measured in no run: value holds "<not supported>" and the like */
	bool marked;	  /* a cross-group ratio on its own line: footnote mark after the name */
	char value[64];	  /* "1,234,567", "1.23", "<not counted>" */
	const char *unit; /* "", "ms", "MiB", "%", "GHz", ... */
	char spread[96];  /* "± 1.23%", or "" */
	const char *spread_kind; /* "MAD" where the median's spread is its MAD, else "" */
	char extra[64];		 /* "(62.50%)", "(simulated, exact)", "n=7/10", or a mix */
	char range[112];	 /* "1.2ms … 3.4ms": the smallest and largest run, or "" */
	char comment[128];	 /* the derived metric ("1.23 insn per cycle"), or the status */
	const char *why;	 /* missing rows: the metric's note (why it is missing), or NULL */
	bool scaled;		 /* multiplexed: extra holds the share of time it counted */
	bool denied;		 /* missing because every run was denied */
};

struct pmc_report_block {
	const struct pmc_bench_analysis *ba;
	const struct pmc_benchmark *b;
	size_t runs; /* the benchmark's runs (or its longest metric) */
	size_t failed, timed_out;
	struct pmc_report_row *rows;
	size_t nrows;
	size_t first_trailer; /* rows from here on are wall, user and system time, max RSS */
	bool median;
	double confidence;
	/* Which footnotes the block needs. */
	bool any_spread, any_mad, any_scaled, any_cross, any_partial, any_simulated;
	/* Kernel event counts (tracepoints, uprobes; docs/events.md, "Exact counts"): how
	 * many rows are, how many read the same in every run, the first that did not; and,
	 * past PMC_REPORT_TRACEPOINTS_ALL tracepoints (a glob such as syscalls:sys_enter_*),
	 * how many were left out of the table for counting 0 in every run, or for being
	 * below the top PMC_REPORT_TRACEPOINTS_TOP. The result file keeps them all. */
	size_t nkernel, nidentical;
	const char *first_differing;
	size_t tp_zero_hidden, tp_more_hidden;
	/* The table only: colour the status words (pmc_report_opts.color); set by
	 * pmc_report_each_block, never by the Markdown report. */
	bool color;
	unsigned width; /* pmc_report_opts.width: 0, or the most columns a line may take */
	/* The block of the benchmark before this one in the analysis (NULL for the first),
	 * for a report that says once what the benchmarks share (Markdown's counters not
	 * measured). */
	const struct pmc_report_block *prev;
};

/* The notes under a block that explain its marks, one per line, each after bullet. */
void pmc_report_footnotes(FILE *out, const struct pmc_report_block *blk, const char *bullet);

/* The loop both reporters share: builds each benchmark's block from the analysis and
 * hands it to print, one blank line apart; `empty` is written for a result without
 * benchmarks. Returns 0, -EINVAL, -ENOMEM or -EIO. */
int pmc_report_each_block(FILE *out, const struct pmc_analysis *a, const struct pmc_report_opts *o,
			  const char *empty,
			  void (*print)(FILE *, const struct pmc_report_block *));

/* Up to this many tracepoints are shown as the list gave them; more (a glob) are shown
 * sorted by count, the highest first, without those that counted 0 in every run, at most
 * PMC_REPORT_TRACEPOINTS_TOP of them. */
#define PMC_REPORT_TRACEPOINTS_ALL 12
#define PMC_REPORT_TRACEPOINTS_TOP 25

/* Whether the block has notes under it (the footnotes print something). */
bool pmc_report_has_footnotes(const struct pmc_report_block *blk);

/* The footnote mark of cross-group ratios. */
#define PMC_REPORT_CROSS_MARK "†"

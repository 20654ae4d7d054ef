/* What the files of the comparison engine share (compare.h, docs/compare.md). The engine
 * is cut along its steps:
 *   compare.c          the top level: options, the steps in order, the comparison's
 *                      getters, pmc_compare_reference
 *   compare_pairing.c  benchmarks paired by name and checked, their metrics paired by id
 *                      into rows and blocks
 *   compare_stats.c    each row's summaries, test and interval, over several threads
 *   compare_verdict.c  detectability, Benjamini-Hochberg, verdicts, geomeans, block order
 *   compare_warnings.c the warnings, and the limits and --metric patterns that checked
 *                      nothing
 *   compare_builds.c   pmc_compare_builds: two builds' benchmarks of one result, by round
 * Private to harness/2-core/. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "base/hashmap.h"
#include "core/compare.h"

struct pmc_benchmark;
struct pmc_result;

/* The inputs of a row's statistics. */
struct job {
	const struct pmc_metric *om, *nm;
	size_t na, nn; /* present values */
	bool paired;   /* value i of both metrics is from the same round */
	/* The sides come from two results (pmc_compare), not from one invocation's
	 * commands (pmc_compare_reference), whose runs share its conditions alike. */
	bool two_results;
};

/* A metric id seen anywhere in the compared benchmarks. */
struct slot {
	const char *id;
	bool selected;	 /* passes the --metric filter */
	size_t block;	 /* SIZE_MAX until a row needs it */
	size_t newpos;	 /* index of the metric in the current new benchmark, or SIZE_MAX */
	size_t only_new; /* benchmarks where only the new result has it */
	bool warned_sign, warned_forced;
	/* What became of it, for naming a --threshold or --metric that checked nothing. */
	size_t nvalues;		     /* rows with values on both sides */
	size_t none_side;	     /* rows with values on one side only */
	bool one_side_old;	     /* the first of those has its values in the old result */
	const char *one_side_status; /* why the other side of it has none */
	size_t nno_values;	     /* benchmarks where neither side has a value */
	const char *no_values_status;
};

struct ctx {
	const struct pmc_compare_opts *o;
	const char *old_name, *new_name; /* NULL: "the old result", "the new result" */
	/* A limit names metrics: `gate` judges only those and the defaults' (gated_row()). */
	bool names_metrics;
	/* A simulator's result: its times and sizes measure the simulator, so only its
	 * simulated counts are gated by default. */
	bool simulator;
	struct pmc_comparison *c;
	char *err;
	size_t errlen;
	bool paired;		/* the benchmarks' runs were taken in rounds: pair them */
	struct pmc_hashmap ids; /* metric id -> slot */
	struct slot *slots;	/* grown by pmc_grow */
	size_t nslots;
	struct job *jobs; /* one per row, like the rows (pmc_grow) */
	size_t *pos_slot; /* slot last used at each metric position */
	size_t npos;	  /* room in pos_slot */
	bool *used;	  /* metrics of the current new benchmark already paired */
	size_t capused;
	size_t maxn;	 /* the most samples of any compared metric */
	bool one_result; /* both sides are commands of one result (pmc_compare_reference) */
	/* Rows not tested for one invocation a side (the first's metric), and rows of a
	 * benchmark program's old result without processes, tested run by run. */
	size_t none_invocation, nleft_out, nno_process;
	const char *one_invocation_metric;
	/* Collected for the warnings, which are written once at the end. */
	size_t mux_low;
	double mux_min;
	const char *mux_metric, *mux_bench;
	/* Benchmarks skipped in the old [0] or new [1] result, and the first few of each. */
	size_t nskip[2];
	const struct pmc_benchmark *skip_example[2][3];
	size_t missing_rows[2]; /* rows without a value in the old [0] or new [1] result */
	const char *missing_example[2];
	const char *missing_status[2];
	size_t nonpositive;
	/* The first few of them (indexes into pmc_comparison.rows), named by the warning. */
	size_t nonpositive_rows[4];
};

/* Where a row's statistics failed: in one side's summary, or in the comparison of both;
 * also the side a message names. */
enum { SIDE_OLD, SIDE_NEW, SIDE_BOTH };

/* ---- compare.c ------------------------------------------------------------------------- */

/* pmc_compare, with each round's runs paired when paired, and with one_result when both
 * sides are benchmarks of one result (pmc_compare_reference, pmc_compare_builds). */
int pmc_cmp_results(const struct pmc_result *old_r, const struct pmc_result *new_r,
		    const struct pmc_compare_opts *opts, bool paired, bool one_result,
		    struct pmc_comparison **ret, char *err, size_t errlen);

/* ---- compare_builds.c ------------------------------------------------------------------ */

/* Frees what pmc_compare_builds kept for the rows; NULL is allowed. */
void pmc_cmp_views_free(struct pmc_cmp_views *v);

/* ---- compare_pairing.c ----------------------------------------------------------------- */

/* Pairs the benchmarks of a and b by name into *ret_pair (malloc'd: old index -> new
 * index, SIZE_MAX when unpaired; the caller frees it) and checks the pairs: one backend,
 * the same commands, a baseline not newer than the new result. Returns 0, -EINVAL or
 * -ENODATA with x->err set, or -ENOMEM. */
int pmc_cmp_pair_benchmarks(struct ctx *x, const struct pmc_result *a, const struct pmc_result *b,
			    size_t **ret_pair);

/* Pairs the metrics of each pair of benchmarks into rows, their statistics still to come.
 * Returns 0, -EINVAL or -ENODATA with x->err set (nothing to compare), or -ENOMEM. */
int pmc_cmp_add_rows(struct ctx *x, const struct pmc_result *a, const struct pmc_result *b,
		     const size_t *pair);

/* ---- compare_stats.c ------------------------------------------------------------------- */

/* The smallest two-sided exact p-value of Mann-Whitney U at sizes n1, n2. */
double pmc_cmp_smallest_p(size_t n1, size_t n2);

/* The statistics of every row. Returns 0, or a negative errno with x->err naming the
 * file, benchmark and metric that failed. */
int pmc_cmp_compute_rows(struct ctx *x);

/* ---- compare_verdict.c ----------------------------------------------------------------- */

/* Which rows can detect a change on their own in their family, and what those that
 * cannot need. Sets the families' sizes. Returns 0 or -ENOMEM. */
int pmc_cmp_detectability(struct pmc_comparison *c);

/* The q-values of the tested rows, family by family. Returns 0 or -ENOMEM. */
int pmc_cmp_fdr_adjust(struct pmc_comparison *c);

/* Judges every row and counts the verdicts, overall and of the gated rows. */
void pmc_cmp_judge_rows(struct pmc_comparison *c);

/* Each block's verdict counts and geometric means. Returns 0 or -ENOMEM. */
int pmc_cmp_geomeans(struct pmc_comparison *c);

/* Puts the blocks with a gated row first. Returns 0 or -ENOMEM. */
int pmc_cmp_gated_blocks_first(struct pmc_comparison *c);

/* ---- compare_warnings.c ---------------------------------------------------------------- */

/* Appends msg (taken, freed on failure) to the list of lines *v of *n. */
int pmc_cmp_lines_push(char ***v, size_t *n, char *msg);

/* Adds a warning to c, once however often it is given. Returns 0 or -ENOMEM. */
int pmc_cmp_warn(struct pmc_comparison *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The name of a side's result for messages: its file name, or "the old result". */
const char *pmc_cmp_side_name(const struct ctx *x, int side);

/* "'avx2' (no AVX2 on this CPU)": a skipped benchmark and its reason. */
int pmc_cmp_skipped_name(char *buf, size_t len, const struct pmc_benchmark *b);

/* The warnings gathered while comparing, written once at the end. */
int pmc_cmp_final_warnings(struct ctx *x, const struct pmc_result *a, const struct pmc_result *b);

/* Names each --threshold and --metric that checked nothing (compare_warnings.c). */
int pmc_cmp_check_requests(struct ctx *x);

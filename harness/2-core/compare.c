/* The comparison engine: pairing, per-row statistics, false discovery control, verdicts
 * and warnings. The method (docs/compare.md):
 *  - Mann-Whitney U two-sided p-value (Mann & Whitney 1947) per metric of a benchmark;
 *  - the change as exp of the Hodges-Lehmann shift of the log values, with its
 *    distribution-free CI (Hodges & Lehmann 1963; Bauer 1972), so that it is a ratio;
 *  - Benjamini-Hochberg q-values across every tested row (Benjamini & Hochberg 1995);
 *  - a regression needs significance and the whole CI of the ratio beyond the threshold.
 * Exact rows (counts exact by construction, a simulator's, on both sides) skip the test
 * and compare the values; equal readings of other counters are ties and go to the test.
 *
 * This file holds the top level: the options, the steps in order, and the comparison's
 * getters; the steps live in the files compare_priv.h lists. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/hashmap.h"
#include "base/opts.h"
#include "core/compare.h"
#include "core/compare_priv.h"
#include "core/metrics.h"
#include "core/result.h"
#include "core/stats.h"

static const char *const verdict_names[PMC_VERDICT_COUNT] = {
    [PMC_VERDICT_NO_CHANGE] = "no change",
    [PMC_VERDICT_IMPROVEMENT] = "improvement",
    [PMC_VERDICT_REGRESSION] = "regression",
    [PMC_VERDICT_INCONCLUSIVE] = "inconclusive",
};

const char *pmc_verdict_name(enum pmc_verdict v)
{
	return (unsigned)v < PMC_VERDICT_COUNT ? verdict_names[v] : "?";
}

void pmc_comparison_free(struct pmc_comparison *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nwarnings; i++)
		free(c->warnings[i]);
	free(c->warnings);
	for (size_t i = 0; i < c->nunchecked; i++)
		free(c->unchecked[i]);
	free(c->unchecked);
	for (size_t i = 0; i < c->nnotes; i++)
		free(c->notes[i]);
	free(c->notes);
	for (size_t i = 0; i < c->nblocks; i++)
		free(c->blocks[i].rows);
	free(c->blocks);
	free(c->rows);
	pmc_cmp_views_free(c->views);
	free(c);
}

/* The options with every field there: a shorter struct, from a caller built against an
 * older header, gets the defaults. Returns 0, or -EINVAL with err set. */
static int read_opts(const struct pmc_compare_opts *opts, struct pmc_compare_opts *ret, char *err,
		     size_t errlen)
{
	if (!PMC_OPTS_VALID(opts, pmc_compare_opts)) {
		pmc_err_set(err, errlen,
			    "pmc_compare: options from a newer pmcbench set fields this "
			    "library does not know; build against this version's header");
		return -EINVAL;
	}
	*ret = (struct pmc_compare_opts){
	    .sz = sizeof(*ret),
	    .alpha = PMC_OPTS_GET(opts, alpha, 0),
	    .confidence = PMC_OPTS_GET(opts, confidence, 0),
	    .no_fdr = PMC_OPTS_GET(opts, no_fdr, false),
	    .force = PMC_OPTS_GET(opts, force, false),
	    .metrics = PMC_OPTS_GET(opts, metrics, NULL),
	    .nmetrics = PMC_OPTS_GET(opts, nmetrics, 0),
	    .thresholds = PMC_OPTS_GET(opts, thresholds, NULL),
	    .old_name = PMC_OPTS_GET(opts, old_name, NULL),
	    .new_name = PMC_OPTS_GET(opts, new_name, NULL),
	    .unpaired = PMC_OPTS_GET(opts, unpaired, false),
	};
	if (ret->alpha < 0 || ret->alpha >= 1 || isnan(ret->alpha) || ret->confidence < 0 ||
	    ret->confidence >= 1 || isnan(ret->confidence)) {
		pmc_err_set(err, errlen, "alpha and confidence must lie between 0 and 1");
		return -EINVAL;
	}
	return 0;
}

/* An empty comparison at the options' alpha and confidence; NULL without memory. */
static struct pmc_comparison *comparison_new(const struct pmc_compare_opts *opts)
{
	struct pmc_comparison *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->alpha = opts->alpha > 0 ? opts->alpha : 0.05;
	c->confidence = opts->confidence > 0 ? opts->confidence : 0.95;
	c->fdr = !opts->no_fdr;
	c->min_n_test = pmc_compare_min_n_test(c->alpha);
	c->min_n_ci = pmc_compare_min_n_ci(c->confidence);
	snprintf(c->note_ci, sizeof(c->note_ci), "need >= %zu runs per side for a %g%% interval",
		 c->min_n_ci, c->confidence * 100);
	return c;
}

static void ctx_free(struct ctx *x)
{
	pmc_hashmap_free(&x->ids);
	free(x->slots);
	free(x->jobs);
	free(x->pos_slot);
	free(x->used);
}

/* The steps (compare_priv.h): pair the benchmarks and their metrics into rows; compute
 * each row's statistics; judge the rows in their families; then what spans rows:
 * geomeans, the order of the blocks, the warnings and the requests that checked nothing. */
int pmc_cmp_results(const struct pmc_result *old_r, const struct pmc_result *new_r,
		    const struct pmc_compare_opts *opts, bool paired, bool one_result,
		    struct pmc_comparison **ret, char *err, size_t errlen)
{
	struct ctx x = {.err = err,
			.errlen = errlen,
			.mux_min = NAN,
			.paired = paired,
			.one_result = one_result};
	struct pmc_compare_opts o;
	struct pmc_comparison *c;
	size_t *pair = NULL; /* old index -> new index, SIZE_MAX when unpaired */
	int r;

	if (!old_r || !new_r || !ret)
		return -EINVAL;
	r = read_opts(opts, &o, err, errlen);
	if (r < 0)
		return r;
	c = comparison_new(&o);
	if (!c)
		return -ENOMEM;
	x.o = &o;
	x.c = c;
	x.old_name = o.old_name;
	x.new_name = o.new_name;
	x.names_metrics = pmc_thresholds_names_metrics(o.thresholds);
	if ((r = pmc_hashmap_init(&x.ids, 64)) < 0 ||
	    (r = pmc_cmp_pair_benchmarks(&x, old_r, new_r, &pair)) < 0 ||
	    (r = pmc_cmp_add_rows(&x, old_r, new_r, pair)) < 0 ||
	    (r = pmc_cmp_compute_rows(&x)) < 0 || (r = pmc_cmp_detectability(c)) < 0 ||
	    (c->fdr && (r = pmc_cmp_fdr_adjust(c)) < 0))
		goto out;
	pmc_cmp_judge_rows(c);
	if ((r = pmc_cmp_geomeans(c)) < 0 || (r = pmc_cmp_gated_blocks_first(c)) < 0 ||
	    (r = pmc_cmp_final_warnings(&x, old_r, new_r)) < 0)
		goto out;
	r = pmc_cmp_check_requests(&x);
out:
	ctx_free(&x);
	free(pair);
	if (r < 0) {
		pmc_comparison_free(c);
		return r;
	}
	*ret = c;
	return 0;
}

int pmc_compare(const struct pmc_result *old_r, const struct pmc_result *new_r,
		const struct pmc_compare_opts *opts, struct pmc_comparison **ret, char *err,
		size_t errlen)
{
	return pmc_cmp_results(old_r, new_r, opts, false, false, ret, err, errlen);
}

int pmc_compare_reference(const struct pmc_result *r, size_t ref,
			  const struct pmc_compare_opts *opts, struct pmc_comparison **ret,
			  char *err, size_t errlen)
{
	struct pmc_benchmark *olds, *news;
	struct pmc_result a, b;
	size_t k = 0;
	int rc;

	if (!r || !ret)
		return -EINVAL;
	if (r->nbench < 2 || ref >= r->nbench) {
		pmc_err_set(err, errlen,
			    "reference %zu: the result has %zu benchmark%s; give the number of "
			    "one of them (from 1), and at least two",
			    ref + 1, r->nbench, r->nbench == 1 ? "" : "s");
		return -EINVAL;
	}
	/* Two results that borrow r's benchmarks: the reference's under each other
	 * benchmark's name on the old side, so that the rows pair up by name. The rows
	 * borrow only names and metrics, which r keeps alive. */
	olds = calloc(r->nbench - 1, sizeof(*olds));
	news = calloc(r->nbench - 1, sizeof(*news));
	if (!olds || !news) {
		free(olds);
		free(news);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->nbench; i++) {
		if (i == ref)
			continue;
		olds[k] = r->benchmarks[ref];
		olds[k].name = r->benchmarks[i].name;
		/* Comparing different commands is the point here. */
		olds[k].command = r->benchmarks[i].command;
		news[k++] = r->benchmarks[i];
	}
	a = *r;
	a.benchmarks = olds;
	a.nbench = k;
	a.priv = NULL;
	b = a;
	b.benchmarks = news;
	/* The runs of one round are pairs: the design says they were taken in rounds. */
	rc = pmc_cmp_results(&a, &b, opts,
			     r->design.mode && !(opts && PMC_OPTS_GET(opts, unpaired, false)), true,
			     ret, err, errlen);
	free(olds);
	free(news);
	return rc;
}

size_t pmc_comparison_row_count(const struct pmc_comparison *c)
{
	return c ? c->nrows : 0;
}

const struct pmc_cmp_row *pmc_comparison_row_at(const struct pmc_comparison *c, size_t i)
{
	return c && i < c->nrows ? &c->rows[i] : NULL;
}

size_t pmc_comparison_warning_count(const struct pmc_comparison *c)
{
	return c ? c->nwarnings : 0;
}

const char *pmc_comparison_warning_at(const struct pmc_comparison *c, size_t i)
{
	return c && i < c->nwarnings ? c->warnings[i] : NULL;
}

size_t pmc_comparison_verdict_count(const struct pmc_comparison *c, enum pmc_verdict v)
{
	return c && (unsigned)v < PMC_VERDICT_COUNT ? c->counts[v] : 0;
}

const char *pmc_cmp_row_bench(const struct pmc_cmp_row *row)
{
	return row->bench;
}

const char *pmc_cmp_row_metric(const struct pmc_cmp_row *row)
{
	return row->metric;
}

enum pmc_row_kind pmc_cmp_row_kind(const struct pmc_cmp_row *row)
{
	return row->kind;
}

int pmc_cmp_row_verdict(const struct pmc_cmp_row *row, enum pmc_verdict *ret)
{
	if (row->kind == PMC_ROW_MISSING)
		return -ENODATA;
	*ret = row->verdict;
	return 0;
}

int pmc_cmp_row_ratio(const struct pmc_cmp_row *row, double *ret_ratio, double *ret_lo,
		      double *ret_hi)
{
	if (row->kind == PMC_ROW_MISSING || isnan(row->ratio))
		return -ENODATA;
	if (ret_ratio)
		*ret_ratio = row->ratio;
	if (ret_lo)
		*ret_lo = row->ratio_lo;
	if (ret_hi)
		*ret_hi = row->ratio_hi;
	return 0;
}

double pmc_cmp_row_p(const struct pmc_cmp_row *row)
{
	return row->kind == PMC_ROW_TESTED ? row->p : NAN;
}

double pmc_cmp_row_q(const struct pmc_cmp_row *row)
{
	return row->kind == PMC_ROW_TESTED ? row->q : NAN;
}

const char *pmc_cmp_row_threshold(const struct pmc_cmp_row *row)
{
	return row->threshold ? row->threshold->text : "";
}

/* The smallest measured value of b's metric id, or NAN. */
static double min_or_nan(const struct pmc_benchmark *b, const char *id)
{
	const struct pmc_metric *m = pmc_benchmark_find_metric((struct pmc_benchmark *)b, id);
	double min = NAN;

	for (size_t i = 0; m && i < m->n; i++)
		if (!(m->values[i] >= min))
			min = isnan(m->values[i]) ? min : m->values[i];
	return min;
}

/* The context switches of runs[0..n) into use, summed, when every run has them. */
static void add_switches(struct pmc_cpu_use *use, const struct pmc_run_info *runs, size_t n)
{
	use->switches = n > 0;
	use->voluntary = use->involuntary = 0;
	for (size_t i = 0; i < n && use->switches; i++) {
		use->switches = runs[i].switches;
		use->voluntary += runs[i].voluntary_switches;
		use->involuntary += runs[i].involuntary_switches;
	}
}

struct pmc_cpu_use pmc_benchmark_cpu_use(const struct pmc_benchmark *b)
{
	double cpu = min_or_nan(b, "task-clock"), wall = min_or_nan(b, "wall-time");
	struct pmc_cpu_use use;

	if (isnan(cpu))
		cpu = min_or_nan(b, "cpu-time");
	use.share = wall > 0 ? cpu / wall : NAN;
	add_switches(&use, b->runs, b->nruns);
	return use;
}

const char *const *pmc_benchmark_primary(const struct pmc_benchmark *b)
{
	struct pmc_cpu_use use;

	if (!b)
		return pmc_metric_primary_order(false);
	use = pmc_benchmark_cpu_use(b);
	return pmc_metric_primary_order(pmc_metric_mostly_waits(&use));
}

const char *const *pmc_result_primary(const struct pmc_result *r)
{
	bool waits = false;

	for (size_t i = 0; r && i < r->nbench && !waits; i++) {
		struct pmc_cpu_use use = pmc_benchmark_cpu_use(&r->benchmarks[i]);

		waits = pmc_metric_mostly_waits(&use);
	}
	return pmc_metric_primary_order(waits);
}

/* The row of metric id for benchmark bench, or NULL. */
static const struct pmc_cmp_row *row_of(const struct pmc_comparison *c, const char *id,
					const char *bench)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (strcmp(c->rows[i].metric, id) == 0 && strcmp(c->rows[i].bench, bench) == 0)
			return &c->rows[i];
	return NULL;
}

/* Whether one side of a benchmark mostly waits: its least CPU time (t) over its least
 * wall-time (w), with its runs' switches. */
static bool side_waits(const struct pmc_summary *t, const struct pmc_summary *w,
		       const struct pmc_run_info *runs, size_t nruns)
{
	struct pmc_cpu_use use = {.share = w->min > 0 ? t->min / w->min : NAN};

	add_switches(&use, runs, nruns);
	return pmc_metric_mostly_waits(&use);
}

const char *const *pmc_comparison_primary(const struct pmc_comparison *c)
{
	bool waits = false;

	for (size_t i = 0; c && i < c->nrows && !waits; i++) {
		const struct pmc_cmp_row *t = &c->rows[i], *w;

		/* The CPU time: task-clock, or user+system where it was denied. */
		if (strcmp(t->metric, "task-clock") != 0 &&
		    (strcmp(t->metric, "cpu-time") != 0 || row_of(c, "task-clock", t->bench)))
			continue;
		if (!(w = row_of(c, "wall-time", t->bench)))
			continue;
		waits = (t->has_old && w->has_old &&
			 side_waits(&t->old, &w->old, t->old_runs, t->old_nruns)) ||
			(t->has_new && w->has_new &&
			 side_waits(&t->new, &w->new, t->new_runs, t->new_nruns));
	}
	return pmc_metric_primary_order(waits);
}

/* Whether row has a ratio to say: both sides, not missing, finite and above 0. */
static bool row_has_ratio(const struct pmc_cmp_row *row)
{
	return row->has_old && row->has_new && row->kind != PMC_ROW_MISSING &&
	       isfinite(row->ratio) && row->ratio > 0;
}

/* Whether blk can answer "which ran faster": one row with a ratio, or several that
 * each have one against the one reference's samples (pmc_compare_reference). */
static bool block_answers(const struct pmc_comparison *c, const struct pmc_cmp_block *blk)
{
	const struct pmc_metric *ref = blk->nrows ? c->rows[blk->rows[0]].old_m : NULL;

	if (blk->nrows == 0)
		return false;
	for (size_t j = 0; j < blk->nrows; j++) {
		const struct pmc_cmp_row *row = &c->rows[blk->rows[j]];

		if (!row_has_ratio(row) || (blk->nrows > 1 && (!row->old_m || row->old_m != ref)))
			return false;
	}
	return true;
}

const struct pmc_cmp_block *pmc_comparison_primary_block(const struct pmc_comparison *c)
{
	const char *const *primary = pmc_comparison_primary(c);

	if (!c)
		return NULL;
	for (size_t p = 0; primary[p]; p++)
		for (size_t bi = 0; bi < c->nblocks; bi++)
			if (strcmp(c->blocks[bi].metric, primary[p]) == 0 &&
			    block_answers(c, &c->blocks[bi]))
				return &c->blocks[bi];
	return NULL;
}

const struct pmc_cmp_row *pmc_comparison_headline(const struct pmc_comparison *c)
{
	const struct pmc_cmp_block *blk = pmc_comparison_primary_block(c);

	return blk && blk->nrows == 1 ? &c->rows[blk->rows[0]] : NULL;
}

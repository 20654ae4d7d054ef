/* The comparison's statistics per row (compare_priv.h, docs/statistics.md): each side's
 * summary, then the test and the interval of the change: exact rows compared directly,
 * paired rounds by the signed-rank test, others by Mann-Whitney U and the Hodges-Lehmann
 * ratio (over the processes of a benchmark program), or not tested when each side is one
 * invocation. A large comparison spreads its rows over threads. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/analysis.h"
#include "core/compare.h"
#include "core/compare_priv.h"
#include "core/metrics.h"
#include "core/result.h"
#include "core/signed_rank.h"
#include "core/stats.h"
#include "core/stats_priv.h"

/* Below this many rows per thread, starting threads costs more than it saves. */
#define ROWS_PER_THREAD 4096
#define MAX_THREADS 8

/* C(n, k) in double; +inf once it overflows, which only makes 2/C smaller. */
static double binomial(size_t n, size_t k)
{
	double c = 1.0;

	if (k > n - k)
		k = n - k;
	for (size_t i = 1; i <= k; i++)
		c = c * (double)(n - k + i) / (double)i;
	return c;
}

/* The smallest two-sided exact p-value of Mann-Whitney U at sizes n1, n2: every value
 * of one sample below every value of the other, 2 of the C(n1 + n2, n1) orderings. */
double pmc_cmp_smallest_p(size_t n1, size_t n2)
{
	double p = 2.0 / binomial(n1 + n2, n1);

	return p > 1.0 ? 1.0 : p;
}

size_t pmc_compare_min_n_test(double alpha)
{
	size_t n;

	for (n = 1; n < 1000; n++)
		if (pmc_cmp_smallest_p(n, n) < alpha)
			break;
	return n;
}

size_t pmc_compare_min_n_ci(double confidence)
{
	size_t n;

	/* The widest order-statistic interval, [x(1), x(n)], covers the median with
	 * probability 1 - 2 * 0.5^n (binomial with p = 1/2). */
	for (n = 1; n < 1100; n++)
		if (1.0 - ldexp(1.0, 1 - (int)n) >= confidence - 1e-12)
			break;
	return n;
}

static bool all_exact_status(const struct pmc_metric *m)
{
	if (m->simulated)
		return true;
	if (!m->has_status || m->n == 0)
		return false;
	for (size_t i = 0; i < m->n; i++)
		if (m->status[i] != PMC_STATUS_EXACT && !isnan(m->values[i]))
			return false;
	return true;
}

/* A side is deterministic when its counter is exact by construction (a simulator's,
 * status exact) and its value did not vary. Equal readings of a hardware counter, or of
 * a clock, are not: they are ties of a quantity that can vary, and go to the test like
 * any other (docs/compare.md, "The method"). */
static bool deterministic(const struct pmc_metric *m, const struct pmc_summary *s)
{
	return s->min == s->max && all_exact_status(m);
}

/* A side whose count the kernel keeps by one per occurrence read the same in each of
 * its runs: the work did not vary, and a count that differs between two such sides is
 * a change in the work, with no timing noise to test against (docs/compare.md,
 * "The method", step 2). */
static bool identical_kernel(const struct pmc_metric *m)
{
	bool same = false;

	return pmc_metric_kernel_identical(m, &same) && same;
}

/* The processes a side's samples were taken in (docs/statistics.md, "The unit of
 * replication"): the number of distinct ones when every run records its process, else
 * 0. With out (room for m->n) and tmp (the same), also the median of each process's
 * measured values, in the order the processes first appear; a process without one is
 * left out of the count. */
static size_t process_medians(const struct pmc_metric *m, const struct pmc_run_info *runs,
			      size_t nruns, double *out, double *tmp)
{
	size_t k = 0;
	bool sorted = true;

	if (!m || !runs || m->n != nruns || nruns == 0)
		return 0;
	for (size_t i = 0; i < nruns; i++) {
		if (runs[i].process == 0)
			return 0;
		sorted = sorted && (i == 0 || runs[i - 1].process <= runs[i].process);
	}
	/* Processes in order (a benchmark program's, a history's baseline) are a block
	 * each: the same values in the same order as the search below, in linear time. */
	for (size_t i = 0, j; sorted && i < nruns; i = j) {
		size_t n = 0;

		for (j = i; j < nruns && runs[j].process == runs[i].process; j++)
			if (!isnan(m->values[j]) && tmp)
				tmp[n++] = m->values[j];
		if (!out)
			k++;
		else if (n)
			out[k++] = pmc_median(tmp, n);
	}
	for (size_t i = 0; !sorted && i < nruns; i++) {
		size_t n = 0;
		bool seen = false;

		for (size_t h = 0; h < i && !seen; h++)
			seen = runs[h].process == runs[i].process;
		if (seen)
			continue;
		for (size_t h = i; h < nruns; h++)
			if (runs[h].process == runs[i].process && !isnan(m->values[h]) && tmp)
				tmp[n++] = m->values[h];
		if (!out) {
			k++;
		} else if (n) {
			out[k++] = pmc_median(tmp, n);
		}
	}
	return k;
}

/* Whether a side's runs share one invocation's conditions and nothing else: a command's
 * runs (no batch size, no process), or a benchmark program's samples (a batch size), in
 * one process or in several: they all ran in one invocation of the program, whose
 * conditions they share (docs/statistics.md). Not a history's baseline, whose entries are
 * invocations of their own, nor a file whose runs were recorded as processes of their own
 * and are not a benchmark program's (they are taken as they say). */
static bool one_invocation(const struct pmc_metric *m, const struct pmc_run_info *runs,
			   size_t nruns)
{
	/* One run is too few for any test: the rows say that first. Samples without
	 * their runs say nothing of where they came from. */
	if (!m || m->n != nruns || nruns < 2)
		return false;
	for (size_t i = 0; i < nruns; i++)
		if (runs[i].invocation != runs[0].invocation ||
		    (runs[i].process && !runs[i].iterations &&
		     process_medians(m, runs, nruns, NULL, NULL) > 1))
			return false;
	return true;
}

/* The paired test of a row (docs/statistics.md, "Paired samples"): the per-round log
 * ratios log(new_i) - log(old_i) of the rounds with a value on both sides, in d (room for
 * m->n), their Wilcoxon signed-rank test and Hodges-Lehmann shift. Returns -EDOM when a
 * value is not positive (no log ratio): the caller falls back to the unpaired test. */
static int paired_row(struct pmc_cmp_row *row, const struct job *j, double alpha, double confidence,
		      double *d)
{
	struct pmc_signed_rank sr;
	double shift, lo, hi;
	size_t n = 0;
	int r;

	for (size_t i = 0; i < j->om->n; i++) {
		double a = j->om->values[i], b = j->nm->values[i];

		if (isnan(a) || isnan(b))
			continue;
		if (!(a > 0 && b > 0))
			return -EDOM;
		/* Not log(b / a): a rounded quotient is not exactly antisymmetric, and the
		 * rounds (x, y) and (y, x) must tie in |d| to share a mid-rank. */
		d[n++] = log(b) - log(a);
	}
	if (n == 0)
		return -EDOM;
	r = pmc_signed_rank_test(d, n, &sr);
	if (r < 0)
		return r;
	row->paired = true;
	row->npairs = n;
	row->p = sr.p;
	row->mwu_exact = sr.exact;
	/* The design can detect a change when n nonzero differences could give a p below
	 * alpha. Rounds that differ by nothing count: they are evidence of no change (the
	 * interval of all-zero differences is [0, 0]), not a lack of evidence. */
	row->min_p = ldexp(2.0, -(int)(n < 1024 ? n : 1024));
	row->testable = row->min_p < alpha;
	r = pmc_signed_rank_shift(d, n, confidence, &shift, &lo, &hi);
	if (r < 0 && r != -EDOM)
		return r;
	row->ratio = exp(shift);
	row->ratio_lo = r == -EDOM ? NAN : exp(lo);
	row->ratio_hi = r == -EDOM ? NAN : exp(hi);
	return 0;
}

/* A side's summary, as pmc_metric_analyze (analysis.h) gives it, with its present values
 * left sorted in v for the test and the interval: each side is sorted once a row. */
static int summarize_sorted(const struct pmc_metric *m, double confidence, double *v,
			    struct pmc_summary *ret)
{
	size_t n = pmc_metric_present(m, v);

	if (n == 0)
		return -EINVAL;
	pmc_stats_sort(v, n);
	return pmc_summary_sorted(m->values, m->n, v, n, confidence, ret);
}

/* The statistics of one row; va and vb hold room for the samples of either side, vd for
 * their per-round log ratios; tables keeps the exact distributions of the thread's tests.
 * On failure *ret_side says which samples the failing step read. */
static int compute_row(struct pmc_cmp_row *row, const struct job *j, double alpha,
		       double confidence, double *va, double *vb, double *vd,
		       struct pmc_mwu_tables *tables, int *ret_side)
{
	size_t na = j->na, nn = j->nn;
	int r;

	/* The same summaries the run reports show (analysis.h); va and vb keep the
	 * samples, sorted, for the tests below. */
	*ret_side = SIDE_OLD;
	if (na) {
		r = summarize_sorted(j->om, confidence, va, &row->old);
		if (r < 0)
			return r;
		row->has_old = true;
	}
	*ret_side = SIDE_NEW;
	if (nn) {
		r = summarize_sorted(j->nm, confidence, vb, &row->new);
		if (r < 0)
			return r;
		row->has_new = true;
	}
	*ret_side = SIDE_BOTH;
	if (row->kind == PMC_ROW_MISSING)
		return 0;
	row->diff = row->new.median - row->old.median;
	if (!isfinite(row->diff))
		return -ERANGE;

	/* Values that cannot vary on either side (see deterministic()) leave nothing to
	 * test. */
	if ((deterministic(j->om, &row->old) && deterministic(j->nm, &row->new)) ||
	    (identical_kernel(j->om) && identical_kernel(j->nm))) {
		row->kind = PMC_ROW_EXACT;
		row->identical = !deterministic(j->om, &row->old);
		if (row->old.median != 0)
			row->ratio = row->new.median / row->old.median;
		else if (row->new.median == 0)
			row->ratio = 1.0;
		row->significant = row->diff != 0;
		row->testable = true;
	} else if (j->paired && (r = paired_row(row, j, alpha, confidence, vd)) != -EDOM) {
		row->kind = PMC_ROW_TESTED;
		if (r < 0)
			return r;
	} else if (j->two_results &&
		   (one_invocation(j->om, row->old_runs, row->old_nruns) ||
		    one_invocation(j->nm, row->new_runs, row->new_nruns)) &&
		   pmc_metric_drifts(row->metric)) {
		/* No test can tell a change from the drift of a side that is one invocation:
		 * its runs measure only the noise within it, whatever the other side spans (a
		 * history's entries against one new run of a command). A ratio, without
		 * interval or verdict (docs/statistics.md). */
		row->kind = PMC_ROW_TESTED;
		row->one_invocation = true;
		/* The gate's default set judges what it can: a metric nobody named is left
		 * out rather than refused, so that two saved runs of a command are gated on
		 * their work counts; a limit that names it is still an error (gate.c). */
		if (!row->asked && row->gated) {
			row->gated = false;
			row->left_out = true;
		}
		row->p = NAN;
		row->testable = false;
		if (row->old.median > 0)
			row->ratio = row->new.median / row->old.median;
	} else {
		struct pmc_mwu u;
		size_t po = process_medians(j->om, row->old_runs, row->old_nruns, NULL, NULL);
		size_t pn = process_medians(j->nm, row->new_runs, row->new_nruns, NULL, NULL);

		row->kind = PMC_ROW_TESTED;
		row->program = po && row->new_nruns && row->new_runs[0].iterations;
		/* Processes are the unit: one value each, the median of its samples. When
		 * every process holds one sample and the runs are not a benchmark program's
		 * (a hand-made file), its runs are its processes already, and called runs. */
		if (po >= 2 && pn >= 2 && (row->program || po < na || pn < nn)) {
			na = process_medians(j->om, row->old_runs, row->old_nruns, va, vd);
			nn = process_medians(j->nm, row->new_runs, row->new_nruns, vb, vd);
			row->by_process = true;
			row->nunits_old = na;
			row->nunits_new = nn;
			pmc_stats_sort(va, na);
			pmc_stats_sort(vb, nn);
		}
		r = pmc_mann_whitney_sorted(va, na, vb, nn, tables, &u);
		if (r < 0)
			return r;
		row->p = u.p;
		row->mwu_exact = u.exact;
		row->min_p = pmc_cmp_smallest_p(na, nn);
		row->testable = row->min_p < alpha;
		if (row->old.min > 0 && row->new.min > 0 && na && nn) {
			/* The last use of va and vb, which it turns into logs. */
			r = pmc_ratio_ci_sorted(va, na, vb, nn, confidence, tables, &row->ratio,
						&row->ratio_lo, &row->ratio_hi);
			if (r < 0 && r != -EDOM)
				return r;
			if (r == -EDOM)
				row->ratio_lo = row->ratio_hi = NAN;
		} else if (row->old.median > 0) {
			/* Logs need positive values: the ratio of medians, without a CI. */
			row->ratio = row->new.median / row->old.median;
		}
	}
	if (!row->threshold->absolute)
		row->limit_rel = row->threshold->limit;
	else if (row->old.median > 0)
		row->limit_rel = row->threshold->limit / row->old.median;
	return 0;
}

struct worker {
	struct pmc_comparison *c;
	const struct job *jobs;
	size_t begin, end, maxn;
	int error;
	size_t fail_row; /* the row that failed, when error is set */
	int fail_side;
	pthread_t thread;
};

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	double *va = malloc((w->maxn ? w->maxn : 1) * sizeof(double));
	double *vb = malloc((w->maxn ? w->maxn : 1) * sizeof(double));
	double *vd = malloc((w->maxn ? w->maxn : 1) * sizeof(double));
	/* The thread's own: no state is shared between threads, or kept past the comparison. */
	struct pmc_mwu_tables *tables = NULL;

	w->error = va && vb && vd && pmc_mwu_tables_new(&tables) == 0 ? 0 : -ENOMEM;
	w->fail_row = SIZE_MAX;
	for (size_t i = w->begin; i < w->end && w->error == 0; i++) {
		w->error = compute_row(&w->c->rows[i], &w->jobs[i], w->c->alpha, w->c->confidence,
				       va, vb, vd, tables, &w->fail_side);
		if (w->error)
			w->fail_row = i;
	}
	pmc_mwu_tables_free(tables);
	free(va);
	free(vb);
	free(vd);
	return NULL;
}

static double largest_magnitude(const struct pmc_metric *m)
{
	double big = 0;

	for (size_t i = 0; m && i < m->n; i++)
		if (!isnan(m->values[i]) && fabs(m->values[i]) > big)
			big = fabs(m->values[i]);
	return big;
}

/* Puts the failure of a row's statistics into x->err, naming the file (or both), the
 * benchmark and the metric: a bare "Numerical result out of range" would leave the user
 * to search 100,000 rows. */
static void row_error(struct ctx *x, size_t i, int side, int r)
{
	const struct pmc_cmp_row *row = &x->c->rows[i];
	const struct job *j = &x->jobs[i];
	char where[512];
	double big;

	if (side == SIDE_BOTH)
		snprintf(where, sizeof(where), "%s and %s", pmc_cmp_side_name(x, SIDE_OLD),
			 pmc_cmp_side_name(x, SIDE_NEW));
	else
		snprintf(where, sizeof(where), "%s", pmc_cmp_side_name(x, side));
	if (r != -ERANGE) {
		snprintf(x->err, x->errlen, "%s: metric '%s' of benchmark '%s': %s", where,
			 row->metric, row->bench, strerror(-r));
		return;
	}
	big = side == SIDE_NEW ? largest_magnitude(j->nm) : largest_magnitude(j->om);
	if (side == SIDE_BOTH && largest_magnitude(j->nm) > big)
		big = largest_magnitude(j->nm);
	snprintf(x->err, x->errlen,
		 "%s: metric '%s' of benchmark '%s': its samples (up to %.3g) overflow the "
		 "statistics, whose doubles end near 1.8e308; no measurement is that large: "
		 "check how the file was written",
		 where, row->metric, row->bench, big);
}

/* Rows are independent and the statistics functions reentrant (stats.h), so a large
 * comparison spreads its rows over the online CPUs. */
int pmc_cmp_compute_rows(struct ctx *x)
{
	struct pmc_comparison *c = x->c;
	struct worker w[MAX_THREADS];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t nthreads = 1, started = 0;
	int r = 0;

	if (c->nrows >= ROWS_PER_THREAD * 2 && cpus > 1) {
		nthreads = c->nrows / ROWS_PER_THREAD;
		if (nthreads > (size_t)cpus)
			nthreads = (size_t)cpus;
		if (nthreads > MAX_THREADS)
			nthreads = MAX_THREADS;
	}
	for (size_t t = 0; t < nthreads; t++) {
		w[t] = (struct worker){
		    .c = c,
		    .jobs = x->jobs,
		    .begin = c->nrows * t / nthreads,
		    .end = c->nrows * (t + 1) / nthreads,
		    .maxn = x->maxn,
		};
	}
	/* The first share runs on this thread; a thread that cannot start runs here too. */
	for (size_t t = 1; t < nthreads; t++) {
		if (pthread_create(&w[t].thread, NULL, worker_run, &w[t]) != 0)
			break;
		started = t;
	}
	worker_run(&w[0]);
	for (size_t t = 1; t <= started; t++)
		pthread_join(w[t].thread, NULL);
	for (size_t t = started + 1; t < nthreads; t++)
		worker_run(&w[t]);
	for (size_t t = 0; t < nthreads && !r; t++) {
		r = w[t].error;
		if (r < 0 && r != -ENOMEM && w[t].fail_row != SIZE_MAX)
			row_error(x, w[t].fail_row, w[t].fail_side, r);
		else if (r < 0)
			snprintf(x->err, x->errlen, "out of memory");
	}
	if (r < 0)
		return r;
	/* What the warnings say, gathered once the numbers exist. */
	for (size_t i = 0; i < c->nrows; i++) {
		const struct pmc_cmp_row *row = &c->rows[i];

		if (row->kind != PMC_ROW_TESTED)
			continue;
		if (row->one_invocation) {
			if (x->none_invocation++ == 0)
				x->one_invocation_metric = row->metric;
			x->nleft_out += row->left_out;
			continue;
		}
		if (!row->paired && !row->by_process &&
		    (row->old_nruns && row->old_runs[0].iterations && !row->old_runs[0].process))
			x->nno_process++;
		if (!(row->old.min > 0 && row->new.min > 0) && x->nonpositive++ < 4)
			x->nonpositive_rows[x->nonpositive - 1] = i;
	}
	return 0;
}

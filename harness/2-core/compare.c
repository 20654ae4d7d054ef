/* The comparison engine: pairing, per-row statistics, false discovery control, verdicts
 * and warnings. The method (docs/compare.md):
 *  - Mann-Whitney U two-sided p-value (Mann & Whitney 1947) per metric of a benchmark;
 *  - the change as exp of the Hodges-Lehmann shift of the log values, with its
 *    distribution-free CI (Hodges & Lehmann 1963; Bauer 1972), so that it is a ratio;
 *  - Benjamini-Hochberg q-values across every tested row (Benjamini & Hochberg 1995);
 *  - a regression needs significance and the whole CI of the ratio beyond the threshold.
 * Exact rows (counts exact by construction, a simulator's, on both sides) skip the test
 * and compare the values; equal readings of other counters are ties and go to the test. */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/grow.h"
#include "counters/perf/counters.h"
#include "base/error.h"
#include "base/hashmap.h"
#include "base/opts.h"
#include "base/suggest.h"
#include "core/analysis.h"
#include "core/compare.h"
#include "core/metrics.h"
#include "core/result.h"
#include "core/signed_rank.h"

/* Below this many rows per thread, starting threads costs more than it saves. */
#define ROWS_PER_THREAD 4096
#define MAX_THREADS 8

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
static double smallest_p(size_t n1, size_t n2)
{
	double p = 2.0 / binomial(n1 + n2, n1);

	return p > 1.0 ? 1.0 : p;
}

size_t pmc_compare_min_n_test(double alpha)
{
	size_t n;

	for (n = 1; n < 1000; n++)
		if (smallest_p(n, n) < alpha)
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
	struct slot *slots;
	size_t nslots, capslots;
	size_t caprows;
	struct job *jobs; /* one per row, like the rows */
	size_t *pos_slot; /* slot last used at each metric position */
	size_t npos;
	bool *used; /* metrics of the current new benchmark already paired */
	size_t capused;
	size_t maxn; /* the most samples of any compared metric */
	bool one_result; /* both sides are commands of one result (pmc_compare_reference) */
	/* Rows not tested for one invocation a side (the first's metric), and rows of a
	 * benchmark program's old result without processes, tested run by run. */
	size_t none_invocation, nno_process;
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
};

static int add_warning(struct pmc_comparison *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Appends msg (taken, freed on failure) to the list of lines *v of *n. */
static int lines_push(char ***v, size_t *n, char *msg)
{
	if (pmc_grow(v, *n, sizeof(**v)) < 0) {
		free(msg);
		return -ENOMEM;
	}
	(*v)[(*n)++] = msg;
	return 0;
}

static int add_warning(struct pmc_comparison *c, const char *fmt, ...)
{
	char *msg;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	for (size_t i = 0; i < c->nwarnings; i++) {
		if (strcmp(c->warnings[i], msg) == 0) {
			free(msg);
			return 0;
		}
	}
	return lines_push(&c->warnings, &c->nwarnings, msg);
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
	free(c);
}

static bool selected(const struct pmc_compare_opts *o, const char *id)
{
	if (!o->metrics || o->nmetrics == 0)
		return true;
	for (size_t i = 0; i < o->nmetrics; i++)
		if (fnmatch(o->metrics[i], id, 0) == 0)
			return true;
	return false;
}

static int slot_of(struct ctx *x, const char *id, size_t *ret)
{
	size_t idx;
	int r;

	r = pmc_hashmap_get_or_put(&x->ids, id, x->nslots, &idx);
	if (r < 0)
		return r;
	if (r == 1) {
		if (x->nslots == x->capslots) {
			size_t cap = x->capslots ? x->capslots * 2 : 32;
			struct slot *grown = realloc(x->slots, cap * sizeof(*grown));

			if (!grown)
				return -ENOMEM;
			x->slots = grown;
			x->capslots = cap;
		}
		x->slots[idx] = (struct slot){
		    .id = id,
		    .selected = selected(x->o, id),
		    .block = SIZE_MAX,
		    .newpos = SIZE_MAX,
		};
		x->nslots++;
	}
	*ret = idx;
	return 0;
}

/* The direction of an improvement: the registry's for a metric it knows (result files
 * store "lower" for cpus-utilized, which has none), else the result's. */
static int direction_of(const struct pmc_metric *m)
{
	struct pmc_metric_info info = pmc_metric_lookup(m->id);

	return info.id ? (int)info.direction : m->better;
}

/* Whether `gate` judges this metric of this benchmark (docs/compare.md, "What the gate
 * judges"): a limit that names it, always; else only a metric gated by default, when a
 * default the user set covers it or when no limit names any metric. */
static bool gated_row(const struct ctx *x, const struct pmc_metric *m,
		      enum pmc_threshold_origin origin)
{
	struct pmc_metric_info info = pmc_metric_lookup(m->id);

	if (origin == PMC_TH_NAMED)
		return true;
	if (!info.id || !info.gated || (x->simulator && !m->simulated))
		return false;
	return origin == PMC_TH_DEFAULT || !x->names_metrics;
}

static int block_of(struct ctx *x, struct slot *s, const struct pmc_metric *m, size_t *ret)
{
	struct pmc_comparison *c = x->c;

	if (s->block == SIZE_MAX) {
		struct pmc_cmp_block *b;

		if (pmc_grow(&c->blocks, c->nblocks, sizeof(*c->blocks)) < 0)
			return -ENOMEM;
		b = &c->blocks[c->nblocks];
		memset(b, 0, sizeof(*b));
		b->metric = s->id;
		b->unit = m->unit;
		b->better = direction_of(m);
		b->derived = m->derived;
		b->cross_group = m->cross_group;
		b->geo_old = b->geo_new = b->geo_ratio = NAN;
		s->block = c->nblocks++;
	}
	*ret = s->block;
	return 0;
}

static int block_add_row(struct pmc_cmp_block *b, size_t row)
{
	/* Grow by doubling: the capacity is the next power of two of nrows. */
	if ((b->nrows & (b->nrows - 1)) == 0) {
		size_t cap = b->nrows ? b->nrows * 2 : 4;
		size_t *grown = realloc(b->rows, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		b->rows = grown;
	}
	b->rows[b->nrows++] = row;
	return 0;
}

static struct pmc_cmp_row *new_row(struct ctx *x)
{
	struct pmc_comparison *c = x->c;
	struct pmc_cmp_row *row;

	if (c->nrows == x->caprows) {
		size_t cap = x->caprows ? x->caprows * 2 : 64;
		struct pmc_cmp_row *grown = realloc(c->rows, cap * sizeof(*grown));
		struct job *jobs;

		if (!grown)
			return NULL;
		c->rows = grown;
		jobs = realloc(x->jobs, cap * sizeof(*jobs));
		if (!jobs)
			return NULL;
		x->jobs = jobs;
		x->caprows = cap;
	}
	row = &c->rows[c->nrows];
	memset(row, 0, sizeof(*row));
	row->ratio = row->ratio_lo = row->ratio_hi = NAN;
	row->diff = row->p = row->q = row->limit_rel = NAN;
	return row;
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

/* Returns true when a run of m was scaled from less than half of its enabled time. */
static bool note_multiplexing(struct ctx *x, const struct pmc_metric *m, const char *bench)
{
	bool low = false;

	if (!m->has_status)
		return false;
	for (size_t i = 0; i < m->n; i++) {
		double frac;

		if (m->status[i] != PMC_STATUS_SCALED || m->raw[i].enabled == 0)
			continue;
		frac = (double)m->raw[i].running / (double)m->raw[i].enabled;
		if (frac < 0.5) {
			low = true;
			if (isnan(x->mux_min) || frac < x->mux_min) {
				x->mux_min = frac;
				x->mux_metric = m->id;
				x->mux_bench = bench;
			}
		}
	}
	return low;
}

static const char *missing_reason(const struct pmc_metric *m)
{
	if (!m)
		return "absent";
	if (m->has_status && m->n > 0)
		return pmc_status_name(m->status[0]);
	return "not measured";
}

static size_t count_present(const struct pmc_metric *m)
{
	size_t n = 0;

	if (m)
		for (size_t i = 0; i < m->n; i++)
			n += !isnan(m->values[i]);
	return n;
}

/* Pairs one metric present in the old benchmark with its namesake in the new one (nm is
 * NULL when the new benchmark lacks it) and sets up its row; the statistics come later,
 * in compute_rows(). */
/* Run i of both benchmarks is from round i, and every metric has one value per run. */
static bool same_rounds(const struct pmc_benchmark *ob, const struct pmc_benchmark *nb,
			const struct pmc_metric *om, const struct pmc_metric *nm)
{
	if (!nm || ob->nruns != nb->nruns || om->n != ob->nruns || nm->n != nb->nruns)
		return false;
	for (size_t i = 0; i < ob->nruns; i++)
		if (!ob->runs[i].round || ob->runs[i].round != nb->runs[i].round)
			return false;
	return true;
}

static int compare_metric(struct ctx *x, const struct pmc_benchmark *ob,
			  const struct pmc_benchmark *nb, const struct pmc_metric *om,
			  const struct pmc_metric *nm, struct slot *s)
{
	const struct pmc_compare_opts *o = x->o;
	struct pmc_comparison *c = x->c;
	struct pmc_cmp_row *row;
	size_t na, nn, blk;
	int r;

	na = count_present(om);
	nn = count_present(nm);
	if (na == 0 && nn == 0) {
		/* Measured on neither side: not a row, but a limit set for it checked nothing. */
		if (s->nno_values++ == 0)
			s->no_values_status = missing_reason(om);
		return 0;
	}
	if (nm && om->unit && nm->unit && strcmp(om->unit, nm->unit) != 0) {
		snprintf(x->err, x->errlen,
			 "metric '%s' of benchmark '%s' is in %s in the old result but in %s in "
			 "the new one; compare results written by the same pmcbench version",
			 om->id, nb->name, om->unit, nm->unit);
		return -EINVAL;
	}
	if (nm && om->simulated != nm->simulated && na > 0 && nn > 0) {
		if (!o->force) {
			snprintf(x->err, x->errlen,
				 "metric '%s' of benchmark '%s' is simulated (valgrind) in the %s "
				 "result but counted by hardware in the %s one; compare results "
				 "of the same backend, or pass --force",
				 om->id, nb->name, om->simulated ? "old" : "new",
				 om->simulated ? "new" : "old");
			return -EINVAL;
		}
		if (!s->warned_forced) {
			s->warned_forced = true;
			r = add_warning(c,
					"metric '%s' is simulated on one side and counted by "
					"hardware on the other (--force): the numbers are not "
					"alike",
					om->id);
			if (r < 0)
				return r;
		}
	}
	r = block_of(x, s, om, &blk);
	if (r < 0)
		return r;
	row = new_row(x);
	if (!row)
		return -ENOMEM;
	x->jobs[c->nrows] = (struct job){.om = om,
					 .nm = nm,
					 .na = na,
					 .nn = nn,
					 .paired = x->paired && same_rounds(ob, nb, om, nm),
					 .two_results = !x->one_result};
	if (na > x->maxn)
		x->maxn = na;
	if (nn > x->maxn)
		x->maxn = nn;
	row->bench = nb->name;
	row->old_bench = ob->name;
	row->metric = s->id;
	row->old_m = om;
	row->new_m = nm;
	row->old_runs = ob->runs;
	row->old_nruns = ob->nruns;
	row->new_runs = nb->runs;
	row->new_nruns = nb->nruns;
	row->block = blk;
	if (om->simulated || (nm && nm->simulated))
		c->blocks[blk].simulated = true;
	{
		enum pmc_threshold_origin origin;

		pmc_thresholds_find(o->thresholds, nb->name, om->id, &origin);
		row->gated = gated_row(x, om, origin);
		row->asked = origin != PMC_TH_BUILTIN;
	}

	if (na == 0 || nn == 0) {
		int side = na == 0 ? 0 : 1;

		row->kind = PMC_ROW_MISSING;
		row->missing_old = na == 0;
		if (s->none_side++ == 0) {
			s->one_side_old = na > 0;
			s->one_side_status = missing_reason(na == 0 ? om : nm);
		}
		x->missing_rows[side]++;
		if (!x->missing_example[side]) {
			x->missing_example[side] = s->id;
			x->missing_status[side] = missing_reason(side == 0 ? om : nm);
		}
		row->verdict = PMC_VERDICT_INCONCLUSIVE;
		row->why = "no value on one side";
		c->nrows++;
		return block_add_row(&c->blocks[blk], c->nrows - 1);
	}

	s->nvalues++;
	if ((int)note_multiplexing(x, om, ob->name) | (int)note_multiplexing(x, nm, nb->name)) {
		x->mux_low++;
		row->multiplexed = true;
	}
	{
		const struct pmc_threshold *th =
		    pmc_thresholds_lookup(o->thresholds, nb->name, om->id);
		int better = c->blocks[blk].better;

		r = pmc_threshold_check_unit(th, om->id, om->unit, x->err, x->errlen);
		if (r < 0)
			return r;
		if (better == PMC_NO_DIRECTION && row->gated && !th->sign) {
			/* Gated, it must be able to regress: only a sign can say which way. */
			pmc_err_set(
			    x->err, x->errlen,
			    "threshold %s=%s: metric '%s' has no direction (neither more "
			    "nor less is better); write +%s or -%s to say which change is a "
			    "regression",
			    om->id, th->text, om->id, th->text, th->text);
			return -EINVAL;
		}
		row->threshold = th;
		row->bad = th->sign ? th->sign : -better;
		/* Only a metric of the table has a known direction to contradict. */
		if (th->sign && better && th->sign == better && !s->warned_sign &&
		    pmc_metric_lookup(om->id).id) {
			s->warned_sign = true;
			r = add_warning(c,
					"threshold %s=%s counts %s of %s as a regression, but "
					"%s is better for it",
					om->id, th->text,
					th->sign > 0 ? "an increase" : "a decrease", om->id,
					better > 0 ? "higher" : "lower");
			if (r < 0)
				return r;
		}
	}
	c->nrows++;
	return block_add_row(&c->blocks[blk], c->nrows - 1);
}

/* A side is deterministic when its counter is exact by construction (a simulator's,
 * status exact) and its value did not vary. Equal readings of a hardware or software
 * counter, or of a clock, are not: they are ties of a quantity that can vary, and go to
 * the test like any other (docs/compare.md, "The method"). */
static bool deterministic(const struct pmc_metric *m, const struct pmc_summary *s)
{
	return s->min == s->max && all_exact_status(m);
}

/* The median of v[0..n-1] (n > 0), which it sorts. */
static double median_of(double *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t k = i; k > 0 && v[k - 1] > v[k]; k--) {
			double t = v[k];

			v[k] = v[k - 1];
			v[k - 1] = t;
		}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
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

	if (!m || !runs || m->n != nruns || nruns == 0)
		return 0;
	for (size_t i = 0; i < nruns; i++)
		if (runs[i].process == 0)
			return 0;
	for (size_t i = 0; i < nruns; i++) {
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
			out[k++] = median_of(tmp, n);
		}
	}
	return k;
}

/* Whether a side's runs share one invocation's conditions and nothing else: a command's
 * runs (no batch size, no process) or a benchmark program's samples from one process.
 * A benchmark program's result from before processes were recorded is not: it is tested
 * run by run as it was, with a warning. */
static bool one_invocation(const struct pmc_metric *m, const struct pmc_run_info *runs,
			   size_t nruns)
{
	size_t np = process_medians(m, runs, nruns, NULL, NULL);

	/* One run is too few for any test: the rows say that first. */
	if (np)
		return np == 1 && nruns > 1;
	/* Samples without their runs say nothing of where they came from. */
	if (!m || m->n != nruns || nruns < 2)
		return false;
	for (size_t i = 0; i < nruns; i++)
		if (runs[i].iterations || runs[i].process)
			return false;
	return true;
}

/* Where a row's statistics failed: in one side's summary, or in the comparison of both. */
enum { SIDE_OLD, SIDE_NEW, SIDE_BOTH };

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

/* The statistics of one row; va and vb hold room for the samples of either side, vd for
 * their per-round log ratios. On failure *ret_side says which samples the failing step
 * read. */
static int compute_row(struct pmc_cmp_row *row, const struct job *j, double alpha,
		       double confidence, double *va, double *vb, double *vd, int *ret_side)
{
	size_t na = j->na, nn = j->nn;
	int r;

	/* The same summaries the run reports show (analysis.h); va and vb keep the
	 * samples for the tests below. */
	*ret_side = SIDE_OLD;
	if (na) {
		r = pmc_metric_summarize(j->om, confidence, va, NULL, &row->old);
		if (r < 0)
			return r;
		row->has_old = true;
	}
	*ret_side = SIDE_NEW;
	if (nn) {
		r = pmc_metric_summarize(j->nm, confidence, vb, NULL, &row->new);
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
	if (deterministic(j->om, &row->old) && deterministic(j->nm, &row->new)) {
		row->kind = PMC_ROW_EXACT;
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
	} else if (j->two_results && one_invocation(j->om, row->old_runs, row->old_nruns) &&
		   one_invocation(j->nm, row->new_runs, row->new_nruns) &&
		   pmc_metric_drifts(row->metric)) {
		/* No test can tell a change from the drift between the two invocations: a
		 * ratio, without interval or verdict (docs/statistics.md). */
		row->kind = PMC_ROW_TESTED;
		row->one_invocation = true;
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
		}
		r = pmc_mann_whitney(va, na, vb, nn, &u);
		if (r < 0)
			return r;
		row->p = u.p;
		row->mwu_exact = u.exact;
		row->min_p = smallest_p(na, nn);
		row->testable = row->min_p < alpha;
		if (row->old.min > 0 && row->new.min > 0 && na && nn) {
			r = pmc_ratio_ci(va, na, vb, nn, confidence, &row->ratio, &row->ratio_lo,
					 &row->ratio_hi);
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

	w->error = va && vb && vd ? 0 : -ENOMEM;
	w->fail_row = SIZE_MAX;
	for (size_t i = w->begin; i < w->end && w->error == 0; i++) {
		w->error = compute_row(&w->c->rows[i], &w->jobs[i], w->c->alpha, w->c->confidence,
				       va, vb, vd, &w->fail_side);
		if (w->error)
			w->fail_row = i;
	}
	free(va);
	free(vb);
	free(vd);
	return NULL;
}

static const char *side_name(const struct ctx *x, int side)
{
	if (side == SIDE_OLD)
		return x->old_name ? x->old_name : "the old result";
	return x->new_name ? x->new_name : "the new result";
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
		snprintf(where, sizeof(where), "%s and %s", side_name(x, SIDE_OLD),
			 side_name(x, SIDE_NEW));
	else
		snprintf(where, sizeof(where), "%s", side_name(x, side));
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
static int compute_rows(struct ctx *x)
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
			continue;
		}
		if (!row->paired && !row->by_process &&
		    (row->old_nruns && row->old_runs[0].iterations && !row->old_runs[0].process))
			x->nno_process++;
		if (!(row->old.min > 0 && row->new.min > 0))
			x->nonpositive++;
	}
	return 0;
}

/* Where a change lies against the limits: +1 beyond the upper one, -1 beyond the lower
 * one, 0 inside the band, 2 when it straddles a limit. */
static int place_interval(double lo, double hi, double limit)
{
	if (lo > 1.0 + limit)
		return 1;
	if (hi < 1.0 - limit)
		return -1;
	if (lo >= 1.0 - limit && hi <= 1.0 + limit)
		return 0;
	return 2;
}

static enum pmc_verdict beyond(const struct pmc_cmp_row *row, int side)
{
	if (side == 0)
		return PMC_VERDICT_NO_CHANGE;
	return side == row->bad ? PMC_VERDICT_REGRESSION : PMC_VERDICT_IMPROVEMENT;
}

static void judge(struct pmc_cmp_row *row, double alpha, double confidence, bool fdr)
{
	const struct pmc_threshold *th = row->threshold;
	int side;

	if (row->kind == PMC_ROW_MISSING)
		return;
	if (row->one_invocation) {
		row->verdict = PMC_VERDICT_INCONCLUSIVE;
		row->why = "not tested: each side is one invocation, whose runs share its "
			   "conditions";
		return;
	}
	if (row->kind == PMC_ROW_EXACT) {
		if (row->diff == 0) {
			side = 0;
		} else if (th->absolute) {
			side = row->diff > th->limit ? 1 : row->diff < -th->limit ? -1 : 0;
		} else if (isnan(row->ratio)) {
			side = 1; /* from exactly 0 to more: beyond any relative limit */
		} else {
			side = place_interval(row->ratio, row->ratio, th->limit);
		}
		row->verdict = beyond(row, side);
		return;
	}
	row->significant = row->testable && (fdr ? row->q : row->p) < alpha;
	/* An interval that inverts the test (docs/statistics.md, "Ties at an endpoint"): on
	 * tied data an endpoint of the Moses (or Walsh) interval lands exactly on no change, a
	 * difference of two equal values. Whether no change belongs to the confidence set is
	 * what the test at no change says: when it rejects at the interval's level, that
	 * endpoint is open, "(+0.00%, +5.10%]", and excludes no change. */
	if (!isnan(row->ratio_lo) && row->p < 1.0 - confidence) {
		row->lo_open = row->ratio_lo == 1.0;
		row->hi_open = row->ratio_hi == 1.0;
	}
	/* The verdict must not contradict the interval printed beside it: a change is
	 * significant only when the test says so and its CI, where there is one, excludes no
	 * change (docs/compare.md, "Verdicts"). The exact test and the Moses CI, whose
	 * critical value comes from the tie-corrected normal approximation, can still
	 * disagree on tied data, with no change strictly inside the interval. */
	if (row->significant && !isnan(row->ratio_lo) && !isnan(row->ratio_hi) &&
	    (row->ratio_lo < 1.0 || (row->ratio_lo == 1.0 && !row->lo_open)) &&
	    (row->ratio_hi > 1.0 || (row->ratio_hi == 1.0 && !row->hi_open)))
		row->significant = false;
	if (!row->testable) {
		row->verdict = PMC_VERDICT_INCONCLUSIVE;
		if (!row->why) /* detectability() says what it needs */
			row->why = "too few samples for the test";
		return;
	}
	if (!row->significant) {
		row->verdict = PMC_VERDICT_NO_CHANGE;
		return;
	}
	if (isnan(row->ratio_lo) || isnan(row->ratio_hi) || isnan(row->limit_rel)) {
		row->verdict = PMC_VERDICT_INCONCLUSIVE;
		row->why = isnan(row->limit_rel) ? "no relative scale for the threshold"
						 : "no confidence interval for the change";
		return;
	}
	/* An open endpoint at no change lies just beyond it: beyond a limit of 0%. */
	side = place_interval(row->lo_open ? nextafter(1.0, 2.0) : row->ratio_lo,
			      row->hi_open ? nextafter(1.0, 0.0) : row->ratio_hi, row->limit_rel);
	if (side == 2) {
		row->verdict = PMC_VERDICT_INCONCLUSIVE;
		row->why = "confidence interval crosses the threshold";
		return;
	}
	row->verdict = beyond(row, side);
}

/* The notes and the verdict rules that follow the judgement: per-row notes on too few
 * runs (benchstat's "need >= N samples"), and no verdict with a direction for a metric
 * that has none. */
static void annotate(const struct pmc_comparison *c, struct pmc_cmp_row *row)
{
	if (row->kind != PMC_ROW_TESTED || row->one_invocation)
		return;
	if (!row->testable)
		return; /* its note was set with its family (detectability) */
	if (row->bad == 0 &&
	    (row->verdict == PMC_VERDICT_REGRESSION || row->verdict == PMC_VERDICT_IMPROVEMENT)) {
		/* cpus-utilized and the like: the change is shown, but neither way is worse. */
		row->verdict = PMC_VERDICT_INCONCLUSIVE;
		row->why = "changed, but the metric has no direction; name it with a signed limit";
		return;
	}
	if (!row->why && (!row->old.has_ci || !row->new.has_ci))
		row->why = c->note_ci;
}

/* A tested row with a p: one of a Benjamini-Hochberg family. Rows not tested (one
 * invocation a side) have no p and belong to none. */
static bool in_family(const struct pmc_cmp_row *row, bool gated)
{
	return row->kind == PMC_ROW_TESTED && !row->one_invocation && row->gated == gated;
}

/* Benjamini-Hochberg over one family: the gated rows, which the gate judges, or the
 * others. A regression the gate is asked about is not diluted by rows nobody gated
 * (docs/statistics.md, "Many comparisons"). */
static int fdr_family(struct pmc_comparison *c, bool gated, size_t n)
{
	double *p, *q;
	size_t k = 0;
	int r;

	if (n == 0)
		return 0;
	p = malloc(n * sizeof(*p));
	q = malloc(n * sizeof(*q));
	if (!p || !q) {
		free(p);
		free(q);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->nrows; i++)
		if (in_family(&c->rows[i], gated))
			p[k++] = c->rows[i].p;
	r = pmc_bh_adjust(p, n, q);
	if (r == 0) {
		k = 0;
		for (size_t i = 0; i < c->nrows; i++)
			if (in_family(&c->rows[i], gated))
				c->rows[i].q = q[k++];
	}
	free(p);
	free(q);
	return r;
}

static int fdr_adjust(struct pmc_comparison *c)
{
	int r = fdr_family(c, true, c->family_gated);

	return r < 0 ? r : fdr_family(c, false, c->family_other);
}

/* The note of a row that cannot detect anything, kept once per distinct text. Returns it,
 * or NULL without memory. */
static const char *keep_note(struct pmc_comparison *c, const char *text)
{
	char *copy;

	for (size_t i = 0; i < c->nnotes; i++)
		if (strcmp(c->notes[i], text) == 0)
			return c->notes[i];
	copy = strdup(text);
	if (!copy || lines_push(&c->notes, &c->nnotes, copy) < 0)
		return NULL;
	return copy;
}

/* The smallest n (per side; rounds when paired) at which a lone change can be
 * significant in a family of m: min_p(n) * m < alpha, with min_p of Mann-Whitney U at n
 * + n, 2 / C(2n, n), or of the signed-rank test at n rounds, 2 / 2^n. */
static size_t needed_n(bool paired, size_t m, double alpha)
{
	size_t n;

	for (n = 1; n < 1100; n++)
		if ((paired ? ldexp(2.0, -(int)n) : smallest_p(n, n)) * (double)m < alpha)
			break;
	return n;
}

/* Which rows can detect a change on their own in their family, and what those that
 * cannot need (docs/compare.md, "Sample sizes"). Sets the families' sizes. */
static int detectability(struct pmc_comparison *c)
{
	for (size_t i = 0; i < c->nrows; i++) {
		const struct pmc_cmp_row *row = &c->rows[i];

		c->family_gated += in_family(row, true);
		c->family_other += in_family(row, false);
	}
	for (size_t i = 0; i < c->nrows; i++) {
		struct pmc_cmp_row *row = &c->rows[i];
		const char *unit = row->paired			    ? "rounds"
				   : row->by_process || row->program ? "processes"
								     : "runs";
		char text[200], over[96] = "";

		if (row->kind != PMC_ROW_TESTED || row->one_invocation)
			continue;
		row->family = !c->fdr ? 1 : row->gated ? c->family_gated : c->family_other;
		row->testable = row->min_p * (double)row->family < c->alpha;
		if (row->testable)
			continue;
		row->need_n = needed_n(row->paired, row->family, c->alpha);
		if (row->family > 1)
			snprintf(over, sizeof(over), " among %zu %s tests", row->family,
				 row->gated ? "gated" : "ungated");
		snprintf(text, sizeof(text), "need >= %zu %s%s to detect a difference at alpha=%g%s",
			 row->need_n, unit, row->paired ? "" : " per side", c->alpha, over);
		row->why = keep_note(c, text);
		if (!row->why)
			return -ENOMEM;
	}
	return 0;
}

/* Reports lead with what was gated: the blocks (metrics) with a gated row first, each
 * group in the order the metrics first appeared (issue 18, item 7). */
static int gated_blocks_first(struct pmc_comparison *c)
{
	struct pmc_cmp_block *sorted;
	size_t *to, k = 0;
	bool *gated;

	if (c->nblocks < 2)
		return 0;
	sorted = malloc(c->nblocks * sizeof(*sorted));
	to = malloc(c->nblocks * sizeof(*to));
	gated = calloc(c->nblocks, sizeof(*gated));
	if (!sorted || !to || !gated) {
		free(sorted);
		free(to);
		free(gated);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->nrows; i++)
		gated[c->rows[i].block] |= c->rows[i].gated;
	for (int pass = 1; pass >= 0; pass--)
		for (size_t b = 0; b < c->nblocks; b++)
			if (gated[b] == (bool)pass) {
				to[b] = k;
				sorted[k++] = c->blocks[b];
			}
	for (size_t i = 0; i < c->nrows; i++)
		c->rows[i].block = to[c->rows[i].block];
	memcpy(c->blocks, sorted, c->nblocks * sizeof(*sorted));
	free(sorted);
	free(to);
	free(gated);
	return 0;
}

static int geomeans(struct pmc_comparison *c)
{
	size_t cap = 0;
	double *a = NULL, *b = NULL;

	for (size_t i = 0; i < c->nblocks; i++)
		if (c->blocks[i].nrows > cap)
			cap = c->blocks[i].nrows;
	if (cap) {
		a = malloc(cap * sizeof(*a));
		b = malloc(cap * sizeof(*b));
		if (!a || !b) {
			free(a);
			free(b);
			return -ENOMEM;
		}
	}
	for (size_t i = 0; i < c->nblocks; i++) {
		struct pmc_cmp_block *blk = &c->blocks[i];
		size_t n = 0;

		for (size_t j = 0; j < blk->nrows; j++) {
			const struct pmc_cmp_row *row = &c->rows[blk->rows[j]];

			if (row->kind == PMC_ROW_MISSING) {
				blk->nmissing++;
				continue;
			}
			blk->counts[row->verdict]++;
			/* Only rows with both medians positive take part, so the geomean of
			 * each side runs over the same benchmarks. */
			if (row->old.median > 0 && row->new.median > 0) {
				a[n] = row->old.median;
				b[n] = row->new.median;
				n++;
			}
		}
		blk->geo_n = n;
		if (n) {
			blk->geo_old = pmc_geomean(a, n);
			blk->geo_new = pmc_geomean(b, n);
			blk->geo_ratio = blk->geo_new / blk->geo_old;
		}
	}
	free(a);
	free(b);
	return 0;
}

/* What makes counts of two machines or set-ups differ; "counting" is "user-only" or
 * "user+kernel" (pmcbench run falls back to user space when the kernel is denied);
 * valgrind's tool (callgrind or cachegrind) and version decide what it simulates; the
 * command's environment moves its stack and start-up work (docs/valgrind.md); two formats
 * of one tool print with different precision (perf stat -x, and -j: docs/import.md). */
static const char *const env_keys[] = {"cpu-model",  "kernel",	      "perf_event_paranoid",
				       "counting",   "valgrind-tool", "valgrind-version",
				       "target-env", "imported-from"};

static int env_warning(struct pmc_comparison *c, const struct pmc_result *a,
		       const struct pmc_result *b)
{
	char msg[1024];
	size_t len = 0;

	msg[0] = '\0';
	if (a->backend && b->backend && strcmp(a->backend, b->backend) != 0)
		len += (size_t)snprintf(msg + len, sizeof(msg) - len, "backend '%s' vs '%s'",
					a->backend, b->backend);
	for (size_t i = 0; i < sizeof(env_keys) / sizeof(env_keys[0]) && len < sizeof(msg); i++) {
		const char *va = pmc_result_get_env(a, env_keys[i]);
		const char *vb = pmc_result_get_env(b, env_keys[i]);

		if (!va || !vb || strcmp(va, vb) == 0)
			continue;
		len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%s%s '%.100s' vs '%.100s'",
					len ? "; " : "", env_keys[i], va, vb);
	}
	if (len == 0)
		return 0;
	return add_warning(c,
			   "environments differ (%s): the change may come from the "
			   "machine, not the code",
			   msg);
}

/* User-only (":u") counting on one side and all counting on the other shows as the
 * same event id with and without the modifier. */
static int counting_warning(struct ctx *x)
{
	for (size_t i = 0; i < x->nslots; i++) {
		const char *id = x->slots[i].id;
		size_t len = strlen(id);

		if (len < 3 || (strcmp(id + len - 2, ":u") && strcmp(id + len - 2, ":k")))
			continue;
		{
			char base[256];

			if (len - 2 >= sizeof(base))
				continue;
			memcpy(base, id, len - 2);
			base[len - 2] = '\0';
			if (pmc_hashmap_has(&x->ids, base))
				return add_warning(x->c,
						   "'%s' and '%s' both appear: one side "
						   "counts user space only, the other all; "
						   "they are not compared with each other",
						   base, id);
		}
	}
	return 0;
}

/* "'avx2' (no AVX2 on this CPU)": a skipped benchmark and its reason. */
static int skipped_name(char *buf, size_t len, const struct pmc_benchmark *b)
{
	return snprintf(buf, len, "'%.100s' (%.160s)", b->name,
			*b->skipped ? b->skipped : "no reason given");
}

/* Names the benchmarks skipped in one result, the first three with their reasons: they
 * are in both results but were not measured in this one, so nothing of theirs is compared
 * (docs/compare.md, "What is compared with what"). */
static int skipped_warning(struct ctx *x, int side)
{
	size_t n = x->nskip[side], shown = n < 3 ? n : 3, off = 0;
	char names[3 * 300] = "";

	for (size_t i = 0; i < shown && off < sizeof(names); i++) {
		int k;

		if (i)
			off += (size_t)snprintf(names + off, sizeof(names) - off, ", ");
		if (off >= sizeof(names))
			break;
		k = skipped_name(names + off, sizeof(names) - off, x->skip_example[side][i]);
		off += k > 0 ? (size_t)k : 0;
	}
	if (n == 1)
		return add_warning(x->c, "benchmark %s was skipped in %s and is not compared",
				   names, side_name(x, side));
	return add_warning(x->c, "%zu benchmarks were skipped in %s and are not compared: %s%s", n,
			   side_name(x, side), names, n > shown ? ", ..." : "");
}

static int final_warnings(struct ctx *x, const struct pmc_result *a, const struct pmc_result *b)
{
	struct pmc_comparison *c = x->c;
	int r = 0;

	if (c->nonly_old || c->nonly_new) {
		char skipped[64] = "";

		if (c->nskipped)
			snprintf(skipped, sizeof(skipped), " (%zu of them skipped)", c->nskipped);
		r = add_warning(c,
				"benchmark sets differ: %zu in both%s, %zu only in the old "
				"result, %zu only in the new one; only those in both are "
				"compared",
				c->ncommon, skipped, c->nonly_old, c->nonly_new);
	}
	for (int side = SIDE_NEW; side >= SIDE_OLD; side--)
		if (r == 0 && x->nskip[side])
			r = skipped_warning(x, side);
	if (r == 0)
		r = env_warning(c, a, b);
	if (r == 0)
		r = counting_warning(x);
	if (r == 0 && x->mux_low)
		r = add_warning(c,
				"%zu row%s counts scaled by multiplexing that ran less than "
				"50%% of the time (lowest: %s of '%s' at %.0f%%): their values "
				"are estimates; count fewer events at once",
				x->mux_low, x->mux_low == 1 ? " holds" : "s hold", x->mux_metric,
				x->mux_bench, x->mux_min * 100);
	for (int side = 1; side >= 0; side--)
		if (r == 0 && x->missing_rows[side])
			r = add_warning(
			    c,
			    "%zu row%s no value in the %s result (e.g. '%s': %s) "
			    "and %s not compared",
			    x->missing_rows[side], x->missing_rows[side] == 1 ? " has" : "s have",
			    side ? "new" : "old", x->missing_example[side], x->missing_status[side],
			    x->missing_rows[side] == 1 ? "is" : "are");
	if (r == 0 && x->none_invocation)
		r = add_warning(c,
				"%zu row%s (e.g. %s) %s not tested: each side's runs come from one "
				"invocation, which they share, and %s between invocations with the "
				"machine's load; measure both sides in one invocation (pmcbench run "
				"-c A -c B), run a benchmark program in several processes, or count "
				"exactly (--backend valgrind) (docs/statistics.md, \"The unit of "
				"replication\")",
				x->none_invocation, x->none_invocation == 1 ? "" : "s",
				x->one_invocation_metric, x->none_invocation == 1 ? "is" : "are",
				x->none_invocation == 1 ? "such a metric moves" : "such metrics move");
	if (r == 0 && x->nno_process)
		r = add_warning(c,
				"%zu row%s of a benchmark program whose old result records no "
				"process: tested run by run, though the samples of one process "
				"share its conditions; measure the baseline again with this "
				"version to test at the level of processes",
				x->nno_process, x->nno_process == 1 ? "" : "s");
	if (r == 0 && x->nonpositive)
		r = add_warning(c,
				"%zu row%s zero or negative values: the change has no "
				"confidence interval there",
				x->nonpositive, x->nonpositive == 1 ? " holds" : "s hold");
	for (size_t i = 0; r == 0 && i < x->nslots; i++)
		if (x->slots[i].only_new && x->slots[i].selected)
			r = add_warning(c,
					"metric '%s' is only in the new result (%zu "
					"benchmark%s): no baseline to compare against",
					x->slots[i].id, x->slots[i].only_new,
					x->slots[i].only_new == 1 ? "" : "s");
	return r;
}

/* The slot of the metric at position pos of a benchmark. Benchmarks of one result list
 * their metrics in the same order as a rule, so the slot used at the same position last
 * time is tried before the hash. */
static int slot_at(struct ctx *x, size_t pos, const char *id, struct slot **ret)
{
	size_t idx;
	int r;

	if (pos < x->npos && x->pos_slot[pos] != SIZE_MAX &&
	    strcmp(x->slots[x->pos_slot[pos]].id, id) == 0) {
		*ret = &x->slots[x->pos_slot[pos]];
		return 0;
	}
	r = slot_of(x, id, &idx);
	if (r < 0)
		return r;
	if (pos >= x->npos) {
		size_t n = pos + 16;
		size_t *grown = realloc(x->pos_slot, n * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		for (size_t i = x->npos; i < n; i++)
			grown[i] = SIZE_MAX;
		x->pos_slot = grown;
		x->npos = n;
	}
	x->pos_slot[pos] = idx;
	*ret = &x->slots[idx];
	return 0;
}

static int compare_pair(struct ctx *x, const struct pmc_benchmark *ob,
			const struct pmc_benchmark *nb)
{
	bool indexed = false; /* slots' newpos set for nb's metrics */
	size_t matched = 0;
	struct slot *s;
	int r;

	if (nb->nmetrics > x->capused) {
		bool *grown = realloc(x->used, nb->nmetrics * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		x->used = grown;
		x->capused = nb->nmetrics;
	}
	memset(x->used, 0, nb->nmetrics * sizeof(*x->used));
	for (size_t j = 0; j < ob->nmetrics; j++) {
		const struct pmc_metric *om = &ob->metrics[j], *nm = NULL;
		size_t k = SIZE_MAX;

		r = slot_at(x, j, om->id, &s);
		if (r < 0)
			return r;
		if (j < nb->nmetrics && !x->used[j] && strcmp(nb->metrics[j].id, om->id) == 0) {
			k = j; /* the same position on both sides: no lookup */
		} else {
			if (!indexed) {
				for (size_t t = 0; t < nb->nmetrics; t++) {
					struct slot *ns;

					r = slot_at(x, t, nb->metrics[t].id, &ns);
					if (r < 0)
						return r;
					ns->newpos = t;
				}
				indexed = true;
				r = slot_at(x, j, om->id, &s);
				if (r < 0)
					return r;
			}
			if (s->newpos != SIZE_MAX && !x->used[s->newpos])
				k = s->newpos;
		}
		if (k != SIZE_MAX) {
			x->used[k] = true;
			matched++;
			nm = &nb->metrics[k];
		}
		if (!s->selected)
			continue;
		r = compare_metric(x, ob, nb, om, nm, s);
		if (r < 0)
			return r;
	}
	if (matched == nb->nmetrics && !indexed)
		return 0;
	/* What is left is in the new benchmark only. */
	for (size_t t = 0; t < nb->nmetrics; t++) {
		const struct pmc_metric *nm = &nb->metrics[t];

		r = slot_at(x, t, nm->id, &s);
		if (r < 0)
			return r;
		s->newpos = SIZE_MAX;
		if (!x->used[t] && count_present(nm) > 0)
			s->only_new++;
	}
	return 0;
}

/* " (did you mean 'instructions'?)" for the metric ids close to name, by the rule every
 * suggestion follows (harness/0-base/suggest.h); else "". */
static void suggest(const struct ctx *x, const char *name, char *buf, size_t len)
{
	struct pmc_suggest s;
	size_t at;

	buf[0] = '\0';
	pmc_suggest_init(&s, name, strlen(name));
	for (size_t i = 0; i < x->nslots; i++)
		pmc_suggest_offer(&s, x->slots[i].id, x->slots[i].id);
	if (s.n == 0 || len < 4)
		return;
	memcpy(buf, " (", 3);
	pmc_suggest_format(&s, buf + 2, len - 3);
	at = strlen(buf);
	memcpy(buf + at, ")", 2);
}

/* Why nothing was compared for slot s (NULL: no such metric in the paired benchmarks),
 * as the end of a sentence about id, with the fix. Returns false when s was compared. */
static bool why_unchecked(const struct ctx *x, const char *id, const struct slot *s, char *buf,
			  size_t len)
{
	char hint[96];

	if (s && s->nvalues)
		return false;
	if (!s) {
		suggest(x, id, hint, sizeof(hint));
		if (!hint[0] && strpbrk(id, "*?["))
			snprintf(hint, sizeof(hint),
				 " (a threshold names one metric id; only '*' alone is a pattern)");
		char skipped[96] = "";

		if (x->c->nskipped)
			snprintf(skipped, sizeof(skipped),
				 " (%zu benchmark%s skipped in one of them %s not compared)",
				 x->c->nskipped, x->c->nskipped == 1 ? "" : "s",
				 x->c->nskipped == 1 ? "is" : "are");
		snprintf(buf, len,
			 "no benchmark in both results has a metric '%s'%s%s; fix the name or "
			 "remove it",
			 id, hint, skipped);
	} else if (!s->selected) {
		snprintf(buf, len,
			 "'%s' is left out by --metric; remove the threshold or add --metric %s",
			 id, id);
	} else if (s->none_side) {
		snprintf(buf, len,
			 "'%s' has values in %s only (%s: %s); remove it or measure it on both "
			 "sides",
			 id, side_name(x, s->one_side_old ? SIDE_OLD : SIDE_NEW),
			 side_name(x, s->one_side_old ? SIDE_NEW : SIDE_OLD), s->one_side_status);
	} else if (s->nno_values || !s->only_new) {
		snprintf(buf, len,
			 "'%s' has no measured values in either result (%s); remove it or "
			 "measure it",
			 id, s->no_values_status ? s->no_values_status : "absent");
	} else {
		snprintf(buf, len,
			 "'%s' is only in %s: there is no baseline to compare it against; remove "
			 "it or measure it in both",
			 id, side_name(x, SIDE_NEW));
	}
	return true;
}

static int add_unchecked(struct ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records one --threshold or --metric that checked nothing, and warns about it. */
static int add_unchecked(struct ctx *x, const char *fmt, ...)
{
	struct pmc_comparison *c = x->c;
	char *msg;
	va_list ap;
	int n, r;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	r = lines_push(&c->unchecked, &c->nunchecked, msg);
	return r < 0 ? r : add_warning(c, "%s", msg);
}

/* A --threshold for a metric or a --metric pattern that matched no row with values on
 * both sides checked nothing: a misspelt id, or a metric this machine cannot count. A
 * gate must not pass on a limit it never applied, so each is named (docs/compare.md). */
static int check_requests(struct ctx *x)
{
	const struct pmc_compare_opts *o = x->o;
	size_t nargs = pmc_thresholds_nargs(o->thresholds);
	char why[640];
	int r;

	for (size_t i = 0; i < nargs; i++) {
		const struct pmc_threshold *th;
		const char *id = pmc_thresholds_arg(o->thresholds, i, &th);
		size_t k;
		const struct slot *s = pmc_hashmap_get(&x->ids, id, &k) == 0 ? &x->slots[k] : NULL;

		if (!why_unchecked(x, id, s, why, sizeof(why)))
			continue;
		r = add_unchecked(x, "threshold '%.100s=%s' checked nothing: %s", id, th->text,
				  why);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; o->metrics && i < o->nmetrics; i++) {
		const struct slot *best = NULL;
		int rank = 0;

		/* The matching metric that came closest to being compared decides the reason. */
		for (size_t k = 0; k < x->nslots; k++) {
			const struct slot *s = &x->slots[k];
			int sr = s->nvalues ? 4 : s->none_side ? 3 : s->nno_values ? 2 : 1;

			if (sr > rank && fnmatch(o->metrics[i], s->id, 0) == 0) {
				best = s;
				rank = sr;
			}
		}
		if (rank == 4)
			continue;
		if (best) {
			why_unchecked(x, best->id, best, why, sizeof(why));
		} else {
			char hint[96];

			suggest(x, o->metrics[i], hint, sizeof(hint));
			snprintf(why, sizeof(why),
				 "no metric of a benchmark in both results matches it%s; fix the "
				 "pattern or remove it",
				 hint);
		}
		r = add_unchecked(x, "--metric '%.100s' selected nothing to compare: %s",
				  o->metrics[i], why);
		if (r < 0)
			return r;
	}
	return 0;
}

static bool is_simulator(const struct pmc_result *r)
{
	return r->backend && strcmp(r->backend, "valgrind") == 0;
}

/* Results of two backends count different things (a simulated machine against the real
 * one): an error naming both, unless --force (docs/compare.md, "Mismatched inputs"). */
static int check_backends(struct ctx *x, const struct pmc_result *a, const struct pmc_result *b)
{
	if (!a->backend || !b->backend || strcmp(a->backend, b->backend) == 0 || x->o->force)
		return 0;
	pmc_err_set(x->err, x->errlen,
		    "%s was measured with the %.40s backend and %s with the %.40s backend: their "
		    "counts are not alike%s; compare results of one backend, or pass --force",
		    side_name(x, SIDE_OLD), a->backend, side_name(x, SIDE_NEW), b->backend,
		    is_simulator(a) != is_simulator(b) ? " (simulated against hardware counts)"
						       : "");
	return -EINVAL;
}

/* Benchmarks paired by name that ran different commands compare two programs, not two
 * versions of one: an error, unless --force. */
/* Whether two command lines differ at most in the directory of their first word:
 * "./old/wc -l data" and "/opt/new/wc -l data". */
static bool same_but_directory(const char *a, const char *b)
{
	size_t la = strcspn(a, " \t"), lb = strcspn(b, " \t");
	const char *ba = a, *bb = b;

	for (size_t i = 0; i < la; i++)
		if (a[i] == '/')
			ba = a + i + 1;
	for (size_t i = 0; i < lb; i++)
		if (b[i] == '/')
			bb = b + i + 1;
	return (size_t)(a + la - ba) == (size_t)(b + lb - bb) &&
	       memcmp(ba, bb, (size_t)(a + la - ba)) == 0 && strcmp(a + la, b + lb) == 0;
}

static int check_command(struct ctx *x, const struct pmc_benchmark *ob,
			 const struct pmc_benchmark *nb)
{
	if (!ob->command || !nb->command || strcmp(ob->command, nb->command) == 0 || x->o->force)
		return 0;
	/* A name the user gave (-n wc: not the command itself) is the benchmark's identity
	 * when only the program's directory differs: the same program at two paths
	 * (./old/wc data, ./new/wc data) is compared, and the commands are a note (issue
	 * 19). Other arguments are another workload: an error, as below. */
	if (strcmp(ob->name, ob->command) != 0 && strcmp(nb->name, nb->command) != 0 &&
	    same_but_directory(ob->command, nb->command))
		return add_warning(x->c,
				   "benchmark '%.100s' ran '%.120s' in %s and '%.120s' in %s: "
				   "compared by the name given to both",
				   nb->name, ob->command, side_name(x, SIDE_OLD), nb->command,
				   side_name(x, SIDE_NEW));
	pmc_err_set(x->err, x->errlen,
		    "benchmark '%.100s' ran different commands: '%.120s' in %s, '%.120s' in %s; "
		    "compare results of the same command, or pass --force",
		    nb->name, ob->command, side_name(x, SIDE_OLD), nb->command,
		    side_name(x, SIDE_NEW));
	return -EINVAL;
}

/* A baseline written after the new result suggests the arguments were swapped. Both
 * times are ISO 8601 UTC of one format (docs/result-schema.md), which sort as text. */
static int check_created(struct ctx *x, const struct pmc_result *a, const struct pmc_result *b)
{
	if (!a->created || !b->created || strlen(a->created) != strlen(b->created) ||
	    strcmp(a->created, b->created) <= 0)
		return 0;
	return add_warning(x->c,
			   "%s (the baseline) was created after %s (%.40s, later than %.40s): "
			   "are the arguments swapped?",
			   side_name(x, SIDE_OLD), side_name(x, SIDE_NEW), a->created, b->created);
}

/* A benchmark skipped in either result measured nothing there: it is counted and named
 * (skipped_warning()), never paired. Returns true when ob or nb was skipped. */
static bool skipped_pair(struct ctx *x, const struct pmc_benchmark *ob,
			 const struct pmc_benchmark *nb)
{
	const struct pmc_benchmark *side[2] = {ob, nb};

	if (!ob->skipped && !nb->skipped)
		return false;
	for (int s = SIDE_OLD; s <= SIDE_NEW; s++) {
		if (!side[s]->skipped)
			continue;
		if (x->nskip[s] < 3)
			x->skip_example[s][x->nskip[s]] = side[s];
		x->nskip[s]++;
	}
	x->c->nskipped++;
	return true;
}

static void list_names(char *buf, size_t len, const struct pmc_result *r)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < r->nbench && i < 3 && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s'%.40s'", i ? ", " : "",
					r->benchmarks[i].name);
	if (r->nbench > 3 && off < len)
		snprintf(buf + off, len - off, ", ...");
}

/* pmc_compare, with each round's runs paired when paired (pmc_compare_reference). */
static int compare_results(const struct pmc_result *old_r, const struct pmc_result *new_r,
			   const struct pmc_compare_opts *opts, bool paired, bool one_result,
			   struct pmc_comparison **ret, char *err, size_t errlen)
{
	struct ctx x = {.err = err,
			.errlen = errlen,
			.mux_min = NAN,
			.paired = paired,
			.one_result = one_result};
	struct pmc_compare_opts o;
	struct pmc_hashmap names = {0};
	struct pmc_comparison *c;
	size_t *pair = NULL; /* old index -> new index, SIZE_MAX when unpaired */
	int r;

	if (!old_r || !new_r || !ret)
		return -EINVAL;
	if (!PMC_OPTS_VALID(opts, pmc_compare_opts)) {
		pmc_err_set(err, errlen,
			    "pmc_compare: options from a newer pmcbench set fields this "
			    "library does not know; build against this version's header");
		return -EINVAL;
	}
	/* From here on every field is there: a shorter struct gets the defaults. */
	o = (struct pmc_compare_opts){
	    .sz = sizeof(o),
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
	opts = &o;
	x.o = opts;
	x.old_name = opts->old_name;
	x.new_name = opts->new_name;
	if (opts->alpha < 0 || opts->alpha >= 1 || isnan(opts->alpha) || opts->confidence < 0 ||
	    opts->confidence >= 1 || isnan(opts->confidence)) {
		pmc_err_set(err, errlen, "alpha and confidence must lie between 0 and 1");
		return -EINVAL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	x.c = c;
	c->alpha = opts->alpha > 0 ? opts->alpha : 0.05;
	c->confidence = opts->confidence > 0 ? opts->confidence : 0.95;
	c->fdr = !opts->no_fdr;
	c->min_n_test = pmc_compare_min_n_test(c->alpha);
	c->min_n_ci = pmc_compare_min_n_ci(c->confidence);
	snprintf(c->note_ci, sizeof(c->note_ci), "need >= %zu runs per side for a %g%% interval",
		 c->min_n_ci, c->confidence * 100);
	x.names_metrics = pmc_thresholds_names_metrics(opts->thresholds);
	x.simulator = is_simulator(old_r) || is_simulator(new_r);
	r = check_backends(&x, old_r, new_r);
	if (r < 0)
		goto fail_maps;

	r = pmc_hashmap_init(&names, new_r->nbench);
	if (r < 0)
		goto fail_maps;
	r = pmc_hashmap_init(&x.ids, 64);
	if (r < 0)
		goto fail_maps;
	pair = malloc((old_r->nbench ? old_r->nbench : 1) * sizeof(*pair));
	if (!pair) {
		r = -ENOMEM;
		goto fail_maps;
	}
	for (size_t i = 0; i < new_r->nbench; i++) {
		size_t idx;

		/* The first of duplicate names wins; the loader rejects duplicates anyway. */
		r = pmc_hashmap_get_or_put(&names, new_r->benchmarks[i].name, i, &idx);
		if (r < 0)
			goto fail_maps;
	}
	for (size_t i = 0; i < old_r->nbench; i++) {
		if (pmc_hashmap_get(&names, old_r->benchmarks[i].name, &pair[i]) < 0)
			pair[i] = SIZE_MAX;
		if (pair[i] != SIZE_MAX)
			c->ncommon++;
	}
	if (c->ncommon == 0 && old_r->nbench == 1 && new_r->nbench == 1 && opts->force &&
	    !old_r->benchmarks[0].skipped && !new_r->benchmarks[0].skipped) {
		/* Two runs of one command each (`run -o a.json -- ./old`, `... ./new`) are
		 * an A/B comparison when the user says so: without --force, results of
		 * different commands are an error (check_commands()). */
		pair[0] = 0;
		c->ncommon = 1;
		r = add_warning(c, "comparing the only benchmark of each result: '%s' with '%s'",
				old_r->benchmarks[0].name, new_r->benchmarks[0].name);
		if (r < 0)
			goto fail_maps;
	}
	c->nonly_old = old_r->nbench - c->ncommon;
	c->nonly_new = new_r->nbench - c->ncommon;
	if (c->ncommon == 0 && old_r->nbench == 1 && new_r->nbench == 1) {
		pmc_err_set(err, errlen,
			    "%s and %s measure different benchmarks ('%.100s' and '%.100s'): "
			    "compare results of the same command, or pass --force to compare "
			    "the two anyway",
			    side_name(&x, SIDE_OLD), side_name(&x, SIDE_NEW),
			    old_r->benchmarks[0].name, new_r->benchmarks[0].name);
		r = -EINVAL;
		goto fail_maps;
	}
	if (c->ncommon == 0) {
		char a[160], b[160];

		list_names(a, sizeof(a), old_r);
		list_names(b, sizeof(b), new_r);
		pmc_err_set(err, errlen,
			    "nothing to compare: no benchmark is in both results "
			    "(old: %zu: %s; new: %zu: %s); compare results of the same benchmarks",
			    old_r->nbench, old_r->nbench ? a : "none", new_r->nbench,
			    new_r->nbench ? b : "none");
		r = -ENODATA;
		goto fail_maps;
	}
	for (size_t i = 0; i < old_r->nbench; i++) {
		if (pair[i] != SIZE_MAX &&
		    skipped_pair(&x, &old_r->benchmarks[i], &new_r->benchmarks[pair[i]]))
			pair[i] = SIZE_MAX;
	}
	if (c->nskipped == c->ncommon) {
		int side = x.nskip[SIDE_NEW] ? SIDE_NEW : SIDE_OLD;
		char name[300];

		skipped_name(name, sizeof(name), x.skip_example[side][0]);
		pmc_err_set(
		    err, errlen,
		    "nothing to compare: every benchmark in both results was skipped in one "
		    "of them (e.g. %s in %s); compare results where they ran",
		    name, side_name(&x, side));
		r = -ENODATA;
		goto fail_maps;
	}
	for (size_t i = 0; i < old_r->nbench; i++) {
		if (pair[i] == SIZE_MAX)
			continue;
		r = check_command(&x, &old_r->benchmarks[i], &new_r->benchmarks[pair[i]]);
		if (r < 0)
			goto fail_maps;
	}
	r = check_created(&x, old_r, new_r);
	if (r < 0)
		goto fail_maps;
	for (size_t i = 0; i < old_r->nbench; i++) {
		if (pair[i] == SIZE_MAX)
			continue;
		r = compare_pair(&x, &old_r->benchmarks[i], &new_r->benchmarks[pair[i]]);
		if (r < 0)
			goto fail_maps;
	}
	for (size_t i = 0; i < c->nrows; i++)
		if (c->rows[i].kind == PMC_ROW_MISSING)
			c->nmissing++;
	if (c->nrows == 0) {
		if (opts->metrics && opts->nmetrics)
			pmc_err_set(err, errlen,
				    "nothing to compare: no metric given with --metric "
				    "has values in both results");
		else
			pmc_err_set(err, errlen,
				    "nothing to compare: no metric has values in both "
				    "results");
		r = -ENODATA;
		goto fail_maps;
	}
	if (c->nmissing == c->nrows) {
		pmc_err_set(err, errlen,
			    "nothing to compare: every metric lacks values on one side "
			    "(e.g. '%s' of '%s' in the %s result: %s)",
			    c->rows[0].metric, c->rows[0].bench,
			    c->rows[0].missing_old ? "old" : "new",
			    x.missing_status[c->rows[0].missing_old ? 0 : 1]);
		r = -ENODATA;
		goto fail_maps;
	}
	r = compute_rows(&x);
	if (r == 0)
		r = detectability(c);
	if (r < 0)
		goto fail_maps;
	if (c->fdr) {
		r = fdr_adjust(c);
		if (r < 0)
			goto fail_maps;
	}
	for (size_t i = 0; i < c->nrows; i++) {
		struct pmc_cmp_row *row = &c->rows[i];

		judge(row, c->alpha, c->confidence, c->fdr);
		annotate(c, row);
		if (row->kind != PMC_ROW_MISSING)
			c->counts[row->verdict]++;
		if (!row->gated)
			continue;
		c->ngated++;
		if (row->kind == PMC_ROW_MISSING) {
			c->ngated_missing++;
			continue;
		}
		c->gated_counts[row->verdict]++;
		if (row->one_invocation && c->none_invocation++ == 0)
			c->one_invocation = row;
		if (row->kind == PMC_ROW_TESTED && !row->testable && c->nundetectable++ == 0)
			c->undetectable = row;
		if (row->kind == PMC_ROW_EXACT || (row->kind == PMC_ROW_TESTED && row->testable))
			c->njudged++;
	}
	r = geomeans(c);
	if (r == 0)
		r = gated_blocks_first(c);
	if (r == 0)
		r = final_warnings(&x, old_r, new_r);
	if (r == 0)
		r = check_requests(&x);
	if (r < 0)
		goto fail_maps;
	pmc_hashmap_free(&names);
	pmc_hashmap_free(&x.ids);
	free(x.slots);
	free(x.jobs);
	free(x.pos_slot);
	free(x.used);
	free(pair);
	*ret = c;
	return 0;

fail_maps:
	pmc_hashmap_free(&names);
	pmc_hashmap_free(&x.ids);
	free(x.slots);
	free(x.jobs);
	free(x.pos_slot);
	free(x.used);
	free(pair);
	pmc_comparison_free(c);
	return r;
}

int pmc_compare(const struct pmc_result *old_r, const struct pmc_result *new_r,
		const struct pmc_compare_opts *opts, struct pmc_comparison **ret, char *err,
		size_t errlen)
{
	return compare_results(old_r, new_r, opts, false, false, ret, err, errlen);
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
	rc = compare_results(&a, &b, opts,
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

const struct pmc_cmp_row *pmc_comparison_headline(const struct pmc_comparison *c)
{
	static const char *const primary[] = { "task-clock", "wall-time" };

	if (!c)
		return NULL;
	for (size_t p = 0; p < sizeof(primary) / sizeof(primary[0]); p++) {
		for (size_t bi = 0; bi < c->nblocks; bi++) {
			const struct pmc_cmp_block *blk = &c->blocks[bi];
			const struct pmc_cmp_row *row;

			if (strcmp(blk->metric, primary[p]) != 0)
				continue;
			if (blk->nrows != 1)
				return NULL;
			row = &c->rows[blk->rows[0]];
			if (row->has_old && row->has_new && row->kind != PMC_ROW_MISSING &&
			    isfinite(row->ratio) && row->ratio > 0)
				return row;
		}
	}
	return NULL;
}

/* The sequential stopping rule: a confidence sequence for the median of the per-round
 * differences, checked against the threshold after every round (docs/statistics.md,
 * "Sequential rounds").
 *
 * Method: the confidence sequence for a fixed quantile of S. R. Howard and A. Ramdas,
 * "Sequential estimation of quantiles with applications to A/B-testing and best-arm
 * identification", Bernoulli 28(3):1704-1728, 2022, with the beta-binomial mixture
 * boundary, for the median and a uniform mixing distribution. For the true median mu,
 * S_t = #{i <= t : d_i <= mu} is a Binomial(t, 1/2) random walk (for continuous d; with
 * atoms the closed interval below only covers more often), and the mixture of the
 * likelihood ratios over q ~ Uniform(0, 1),
 *
 *     M_t = integral q^S (1 - q)^(t - S) dq / 2^-t = 2^t / ((t + 1) C(t, S_t)),
 *
 * is a nonnegative martingale with M_0 = 1 (H. Robbins, "Statistical methods related to
 * the law of the iterated logarithm", Ann. Math. Statist. 41(5):1397-1409, 1970), so by
 * Ville's inequality (J. Ville, Etude critique de la notion de collectif, 1939)
 * P(M_t >= 1 / alpha for some t) <= alpha. The counts s with M_t < 1 / alpha are
 * k(t) <= s <= t - k(t) (C(t, s) is symmetric and unimodal in s), so with probability at
 * least 1 - alpha the median lies in [d_(k), d_(t-k+1)] at every round t at once. The
 * only assumption is that the rounds are independent and identically distributed: no
 * normality, no symmetry, no bounded values, no variance to estimate.
 *
 * Reentrant, no shared state. */
#include "core/sequential.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "base/error.h"
#include "core/metrics.h"
#include "core/result.h"
#include "core/stats.h"
#include "core/threshold.h"

#define SEQ_ALPHA 0.05
#define SEQ_MAX_ROUNDS 100

/* Rounds up to this many are sorted on the stack. */
#define SEQ_STACK_VALUES 128

size_t pmc_seq_order(size_t t, double alpha)
{
	if (!(alpha > 0 && alpha < 1))
		return 0;
	/* s is rejected when M_t >= 1 / alpha, i.e. ln C(t, s) <= t ln 2 - ln(t + 1) + ln
	 * alpha. ln C(t, s) grows with s up to t / 2 by ln((t - s) / (s + 1)) a step, and
	 * s = floor(t / 2) is never rejected (M_t < 1 there), so the walk ends by t / 2. */
	double bound = (double)t * M_LN2 - log((double)t + 1) + log(alpha), lc = 0;
	size_t s = 0;

	while (s <= t / 2 && lc <= bound) {
		lc += log((double)(t - s) / (double)(s + 1));
		s++;
	}
	return s;
}

size_t pmc_seq_min_rounds(double alpha)
{
	size_t t = 1;

	if (!(alpha > 0 && alpha < 1))
		return 0;
	while (pmc_seq_order(t, alpha) == 0)
		t++;
	return t;
}

/* Inserts x into the sorted v[0..n-1], which has room for one more. */
static void insert_sorted(double *v, size_t n, double x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(v + lo + 1, v + lo, (n - lo) * sizeof(*v));
	v[lo] = x;
}

int pmc_seq_decide(const double *d, size_t n, double threshold_log, int bad,
		   const struct pmc_seq_opts *opts, struct pmc_seq_result *ret)
{
	double buf[SEQ_STACK_VALUES];
	double *v, alpha;
	size_t max_rounds, present = 0;

	if ((!d && n) || !ret || !isfinite(threshold_log) || (bad != 1 && bad != -1))
		return -EINVAL;
	alpha = opts ? opts->alpha : 0;
	max_rounds = opts ? opts->max_rounds : 0;
	if (alpha == 0)
		alpha = SEQ_ALPHA;
	if (max_rounds == 0)
		max_rounds = SEQ_MAX_ROUNDS;
	if (!(alpha > 0 && alpha < 1))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (isinf(d[i]))
			return -EINVAL;
		present += !isnan(d[i]);
	}
	if (present > max_rounds)
		present = max_rounds;
	v = present <= SEQ_STACK_VALUES ? buf : malloc(present * sizeof(*v));
	if (!v)
		return -ENOMEM;

	struct pmc_seq_result r = {.decision = PMC_SEQ_CONTINUE, .lo = NAN, .hi = NAN};
	size_t t = 0;

	/* Round by round, as the runner would have asked: the first round whose interval
	 * settles the question decides, and later rounds do not reopen it. Stopping at a
	 * time chosen by the data is what a confidence sequence allows. */
	for (size_t i = 0; i < n && t < present; i++) {
		if (isnan(d[i]))
			continue;
		insert_sorted(v, t, d[i]);
		t++;
		size_t k = pmc_seq_order(t, alpha);

		if (k == 0)
			continue;
		r.lo = v[k - 1];
		r.hi = v[t - k];
		/* As compare's verdicts (docs/compare.md): beyond the threshold is strictly
		 * beyond, within includes it. */
		if (bad > 0 ? r.lo > threshold_log : r.hi < threshold_log) {
			r.decision = PMC_SEQ_REGRESSION;
			break;
		}
		if (bad > 0 ? r.hi <= threshold_log : r.lo >= threshold_log) {
			r.decision = PMC_SEQ_NO_REGRESSION;
			break;
		}
	}
	if (r.decision == PMC_SEQ_CONTINUE && t == max_rounds)
		r.decision = PMC_SEQ_INCONCLUSIVE;
	r.n = t;
	r.bounded = !isnan(r.lo);
	r.estimate = pmc_median_sorted(v, t);
	*ret = r;
	if (v != buf)
		free(v);
	return 0;
}

/* ---- A sequential A/B run: every compared benchmark and gated metric ---------------- */

void pmc_seq_check_clear(struct pmc_seq_check *c)
{
	if (!c)
		return;
	free(c->v);
	memset(c, 0, sizeof(*c));
}

/* The direction of change that is a regression of metric id under limit th: +1, -1, or
 * 0 when neither the limit nor the metric says. */
static int bad_direction(const char *id, const struct pmc_threshold *th)
{
	struct pmc_metric_info info = pmc_metric_lookup(id);

	if (th->sign)
		return th->sign;
	return info.id ? -(int)info.direction : 0;
}

/* The per-round log ratios of metric id of b against ref, in a malloc'ed *ret (NULL when
 * there are none); NAN for a round without a positive value on both sides. Returns the
 * rounds, or -ENOMEM. */
static ssize_t round_ratios(const struct pmc_benchmark *ref, const struct pmc_benchmark *b,
			    const char *id, double **ret)
{
	const struct pmc_metric *ma = pmc_benchmark_find_metric(ref, id);
	const struct pmc_metric *mb = pmc_benchmark_find_metric(b, id);
	size_t n = ma && mb ? (ma->n < mb->n ? ma->n : mb->n) : 0;
	double *d = NULL;

	*ret = NULL;
	if (n && !(d = malloc(n * sizeof(*d))))
		return -ENOMEM;
	*ret = d;
	for (size_t i = 0; i < n; i++) {
		double a = ma->values[i], v = mb->values[i];

		/* The runner records run i of every command in round i + 1. */
		d[i] = a > 0 && v > 0 ? log(v) - log(a) : NAN;
	}
	return (ssize_t)n;
}

int pmc_seq_check_result(const struct pmc_result *r, size_t ref, const struct pmc_thresholds *t,
			 const struct pmc_seq_opts *opts, struct pmc_seq_check *ret, char *err,
			 size_t errlen)
{
	size_t nargs = pmc_thresholds_nargs(t), k = 0;
	struct pmc_seq_check c = {0};
	struct pmc_seq_opts o = {0};
	double alpha, *d = NULL;
	int rc = 0;

	if (!r || ref >= r->nbench || !ret)
		return -EINVAL;
	if (nargs == 0) {
		pmc_err_set(err, errlen,
			    "--runs auto decides against limits: name the metrics to decide with "
			    "--threshold METRIC=LIMIT (task-clock=+5%%)");
		return -EINVAL;
	}
	alpha = opts ? opts->alpha : 0;
	o.alpha = alpha > 0 ? alpha : SEQ_ALPHA;
	o.max_rounds = opts ? opts->max_rounds : 0;
	c.n = (r->nbench - 1) * nargs;
	c.alpha_each = o.alpha / (double)c.n;
	o.alpha = c.alpha_each;
	c.v = calloc(c.n, sizeof(*c.v));
	if (!c.v) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nargs; i++) {
		const struct pmc_threshold *th = NULL;
		const char *id = pmc_thresholds_arg(t, i, &th);
		int bad = bad_direction(id, th);

		if (th->absolute) {
			pmc_err_set(err, errlen,
				    "--threshold %s=%s: --runs auto decides on ratios; give the "
				    "limit in %% (%s=+5%%)",
				    id, th->text, id);
			rc = -EINVAL;
			goto out;
		}
		if (bad == 0) {
			pmc_err_set(
			    err, errlen,
			    "--threshold %s=%s: %s has no direction; sign the limit (+ for "
			    "increases, - for decreases) to say which change is a regression",
			    id, th->text, id);
			rc = -EINVAL;
			goto out;
		}
		for (size_t b = 0; b < r->nbench; b++) {
			struct pmc_seq_metric *m;
			ssize_t n;
			double lim = log(bad > 0 ? 1 + th->limit : 1 - th->limit);

			if (b == ref)
				continue;
			m = &c.v[k++];
			*m = (struct pmc_seq_metric){
			    .bench = r->benchmarks[b].name, .metric = id, .limit = th->text};
			if (!isfinite(lim)) {
				pmc_err_set(err, errlen,
					    "--threshold %s=%s: a decrease of 100%% or more cannot "
					    "be decided",
					    id, th->text);
				rc = -EINVAL;
				goto out;
			}
			n = round_ratios(&r->benchmarks[ref], &r->benchmarks[b], id, &d);
			rc = n < 0 ? (int)n : pmc_seq_decide(d, (size_t)n, lim, bad, &o, &m->res);
			free(d);
			d = NULL;
			if (rc < 0) {
				pmc_err_set(err, errlen, "'%s' %s: cannot decide: %s",
					    r->benchmarks[b].name, id, strerror(-rc));
				goto out;
			}
			c.undecided += m->res.decision == PMC_SEQ_CONTINUE ||
				       m->res.decision == PMC_SEQ_INCONCLUSIVE;
			c.regressions += m->res.decision == PMC_SEQ_REGRESSION;
		}
	}
	*ret = c;
	c.v = NULL;
out:
	free(d);
	free(c.v);
	return rc;
}

/* Sample health (health.h); docs/statistics.md, "Sample health", gives the methods,
 * thresholds and measured false-alarm rates.
 *
 * Drift: the Mann-Kendall trend test (H. B. Mann, "Nonparametric tests against trend",
 * Econometrica 13(3):245-259, 1945; M. G. Kendall, Rank Correlation Methods, 4th ed.,
 * Griffin 1975), exact under ties for up to MK_EXACT_MAX values, and the Theil-Sen slope
 * (P. K. Sen, "Estimates of the regression coefficient based on Kendall's tau", JASA
 * 63(324):1379-1389, 1968). Outliers: modified z-scores from the median and the MAD
 * (Iglewicz & Hoaglin 1993). Modes: the largest gap of the sorted sample against the
 * pooled standard deviation of its two sides (after Wainer & Schacht 1978). Everything is
 * deterministic and reentrant; nothing is random.
 */
#include "core/health.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"

#define HEALTH_ALPHA 0.01
#define DEFAULT_MIN_EFFECT 0.01
#define DEFAULT_MIN_N_DRIFT 8
#define DEFAULT_MIN_N_OUTLIERS 8
#define DEFAULT_MIN_N_MODES 10

/* The exact null distribution of S is counted up to this many values (at most 1,225
 * pairs, about 0.1 ms); beyond it the normal approximation is within 0.002 of it. */
#define MK_EXACT_MAX 50

/* Each of the two groups a gap splits the sample into must hold this share of the
 * values, and at least MODE_MIN_GROUP of them: a pair of stray runs is not a mode. */
#define MODE_MIN_SHARE 0.2
#define MODE_MIN_GROUP 3

/* Whole-number samples (counts): a gap narrower than this many units is jitter at the
 * counter's resolution, not a mode (count_jitter). */
#define MODE_MIN_COUNT_GAP 3

/* Two modes when the gap is at least MODE_GAP_K / n pooled standard deviations. In 2 x 10^5
 * lognormal samples with a CV of 30% per n from 10 to 100, the largest admissible gap
 * reached it in at most 0.1% (normal samples: 0.08%; docs/statistics.md). */
#define MODE_GAP_K 60.0

/* Outliers: modified z-scores (robust sigmas from the median) beyond which a value is a
 * mild or a severe outlier. 3.5 is Iglewicz and Hoaglin's labelling rule; a clean
 * lognormal sample of 10 runs (CV 3%) reaches 10 in 0.2% of samples, and a run 3x the
 * median still exceeds it at a CV of 10% (docs/statistics.md). */
#define OUTLIER_MILD 3.5
#define OUTLIER_SEVERE 10.0

/* Values spread wider than this are refused: (n x spread)^2 must not overflow. */
#define MAX_SPREAD 1e150

/* 1 / Phi^-1(3/4): the MAD times this estimates sigma for normal data (F. R. Hampel, "The
 * influence curve and its role in robust estimation", JASA 69(346):383-393, 1974). */
#define MAD_TO_SIGMA 1.4826

/* ---- helpers ---- */

/* Counts, by merge sort, the pairs i < j with y[i] > y[j] (*ret_gt) and with y[i] >= y[j]
 * (*ret_ge) in O(n log n), as W. R. Knight's algorithm for Kendall's tau does ("A
 * computer method for calculating Kendall's tau with ungrouped data", JASA 61(314):
 * 436-439, 1966). y and tmp (room for n values) are scratch: the values end up sorted
 * in one of them. */
static void count_inversions(double *y, double *tmp, size_t n, uint64_t *ret_gt, uint64_t *ret_ge)
{
	double *src = y, *dst = tmp, *swap;
	uint64_t gt = 0, ge = 0;

	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t a = lo, b = lo, i = lo, j = mid, k = lo;

			/* Both runs are sorted: walk the left one once for the right's values. */
			for (size_t r = mid; r < hi; r++) {
				while (a < mid && src[a] <= src[r])
					a++;
				while (b < mid && src[b] < src[r])
					b++;
				gt += mid - a;
				ge += mid - b;
			}
			while (i < mid && j < hi)
				dst[k++] = src[i] <= src[j] ? src[i++] : src[j++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		swap = src;
		src = dst;
		dst = swap;
	}
	*ret_gt = gt;
	*ret_ge = ge;
}

/* The pairs i < j with y[i] >= y[j] alone, as count_inversions counts them but in one
 * pass per merge: a value taken from the right run is at most every value left in the
 * left run. Runs of 8 are sorted first by insertion, each value counting the values
 * before it that are >= it. y and tmp (room for n values) are scratch. */
static uint64_t count_ge(double *y, double *tmp, size_t n)
{
	enum { RUN = 8 };
	double *src = y, *dst = tmp, *swap;
	uint64_t ge = 0;

	for (size_t lo = 0; lo < n; lo += RUN) {
		size_t hi = lo + RUN < n ? lo + RUN : n;

		for (size_t j = lo + 1; j < hi; j++) {
			double v = y[j];
			size_t i = j;

			while (i > lo && y[i - 1] >= v) {
				y[i] = y[i - 1];
				i--;
			}
			y[i] = v;
			ge += j - i;
		}
	}
	for (size_t w = RUN; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi) {
				if (src[i] < src[j]) {
					dst[k++] = src[i++];
				} else {
					ge += mid - i;
					dst[k++] = src[j++];
				}
			}
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		swap = src;
		src = dst;
		dst = swap;
	}
	return ge;
}

/* ---- drift: Mann-Kendall ---- */

/* The null distribution of the inversions below is only needed up to the observed
 * count K (the lower tail), and the coefficients up to K of a product depend only on the
 * factors' coefficients up to K: every polynomial here is cut at K. */

/* poly[0..*deg] *= 1 + q + ... + q^a (one new value among a others, whose rank among them
 * is uniform: the insertion step of the Mahonian numbers, Kendall 1975), as a
 * running window sum. The lower half of these symmetric unimodal polynomials increases,
 * so the subtraction loses nothing there. out has room for K + 1. */
static void mul_window(double *poly, size_t *deg, size_t a, size_t cut, double *out)
{
	size_t d = *deg + a < cut ? *deg + a : cut;
	double run = 0;

	for (size_t k = 0; k <= d; k++) {
		if (k <= *deg)
			run += poly[k];
		if (k > a && k - a - 1 <= *deg)
			run -= poly[k - a - 1];
		out[k] = run;
	}
	memcpy(poly, out, (d + 1) * sizeof(*poly));
	*deg = d;
}

/* poly[0..*deg] *= [a + b choose b]_q, the Gaussian binomial coefficient: the generating
 * function of the inversions between a block of b equal values and a other values
 * (G. E. Andrews, The Theory of Partitions, Addison-Wesley 1976, ch. 3). It is built by
 * [i + j, j] = [i + j - 1, j - 1] + q^j [i + j - 1, j], which only adds, so counts far
 * beyond 2^53 keep their relative precision. rows has room for (b + 1) (K + 1) values,
 * out for K + 1. */
static void mul_gaussian_binomial(double *poly, size_t *deg, size_t a, size_t b, size_t cut,
				  double *rows, double *out)
{
	size_t stride = cut + 1, g = a * b < cut ? a * b : cut, d = *deg + g < cut ? *deg + g : cut;
	const double *gb = rows + b * stride;

	memset(rows, 0, (b + 1) * stride * sizeof(*rows));
	for (size_t j = 0; j <= b; j++)
		rows[j * stride] = 1; /* [j, j] = 1 */
	for (size_t i = 1; i <= a; i++)
		for (size_t j = 1; j <= b; j++) {
			double *cur = rows + j * stride, *prev = rows + (j - 1) * stride;

			for (size_t k = (i * j < cut ? i * j : cut) + 1; k-- > 0;)
				cur[k] = prev[k] + (k >= j ? cur[k - j] : 0);
		}
	for (size_t k = 0; k <= d; k++)
		out[k] = 0;
	for (size_t i = 0; i <= *deg; i++)
		for (size_t k = 0; k <= g && i + k <= d; k++)
			out[i + k] += poly[i] * gb[k];
	memcpy(poly, out, (d + 1) * sizeof(*poly));
	*deg = d;
}

/* Exact two-sided p of the Mann-Kendall test for n values whose sorted copy is sorted,
 * with inv pairs out of run order (i < j, x_i > x_j) among untied pairs. Under the null
 * hypothesis every order of the values is equally likely, so the number of inversions has
 * the q-multinomial distribution [n; t_1, ..., t_g]_q over the sizes t of the groups of
 * tied values (Andrews 1976, ch. 3; without ties it is Kendall's 1975 distribution of
 * S = untied - 2 inv), which is symmetric: p = 2 P(I <= min(inv, untied - inv)). The
 * total, n! / prod t!, is a product of binomial coefficients. */
static int mk_exact_p(const double *sorted, size_t n, uint64_t inv, uint64_t untied, double *ret_p)
{
	size_t cut = (size_t)(inv < untied - inv ? inv : untied - inv), tmax = 1, deg = 0, seen = 0;
	double *poly, *out, *rows, below = 0, total = 1;

	for (size_t i = 0, t; i < n; i += t) {
		for (t = 1; i + t < n && sorted[i + t] == sorted[i];)
			t++;
		tmax = t > tmax ? t : tmax;
	}
	/* A block of b tied values needs b + 1 rows; [a + b, b] = [a + b, a] lets b be the
	 * smaller of the block and the values before it. */
	poly = malloc((cut + 1) * (tmax + 3) * sizeof(*poly));
	if (!poly)
		return -ENOMEM;
	out = poly + cut + 1;
	rows = out + cut + 1;
	poly[0] = 1;
	for (size_t i = 0, t; i < n; i += t) {
		for (t = 1; i + t < n && sorted[i + t] == sorted[i];)
			t++;
		for (size_t j = 1; j <= t; j++)
			total *= (double)(seen + j) / (double)j;
		if (t == 1)
			mul_window(poly, &deg, seen, cut, out);
		else if (t <= seen)
			mul_gaussian_binomial(poly, &deg, seen, t, cut, rows, out);
		else
			mul_gaussian_binomial(poly, &deg, t, seen, cut, rows, out);
		seen += t;
	}
	for (size_t i = 0; i <= deg; i++)
		below += poly[i];
	free(poly);
	*ret_p = fmin(1.0, 2 * below / total);
	return 0;
}

/* Tie-corrected variance of S (Kendall 1975):
 * [n (n - 1) (2n + 5) - sum_t t (t - 1) (2t + 5)] / 18, and sum_t t (t - 1) / 2, the pairs
 * within groups of tied values. */
static double mk_variance(const double *sorted, size_t n, uint64_t *ret_tied_pairs)
{
	double nn = (double)n, var = nn * (nn - 1) * (2 * nn + 5);
	uint64_t tied = 0;

	for (size_t i = 0, t; i < n; i += t) {
		for (t = 1; i + t < n && sorted[i + t] == sorted[i];)
			t++;
		var -= (double)t * (double)(t - 1) * (2.0 * (double)t + 5);
		tied += (uint64_t)t * (t - 1) / 2;
	}
	*ret_tied_pairs = tied;
	return var / 18;
}

/* ---- drift: Theil-Sen ---- */

/* A total order of the doubles as unsigned integers, so that bisection over the keys
 * finds any double in at most 64 steps. */
static uint64_t order_key(double x)
{
	uint64_t u;

	memcpy(&u, &x, sizeof(u));
	return u >> 63 ? ~u : u | (UINT64_C(1) << 63);
}

static double order_value(uint64_t u)
{
	double x;

	u = u >> 63 ? u & ~(UINT64_C(1) << 63) : ~u;
	memcpy(&x, &u, sizeof(x));
	return x;
}

/* Pairs i < j whose slope (x_j - x_i) / (t_j - t_i) is <= s: as t_j > t_i, those with
 * x_j - s t_j <= x_i - s t_i, counted as inversions of y = x - s t. */
static uint64_t slopes_at_most(const double *x, const double *t, size_t n, double s, double *y,
			       double *tmp)
{
	for (size_t i = 0; i < n; i++)
		y[i] = x[i] - s * t[i];
	return count_ge(y, tmp, n);
}

/* The k-th and, when both, the (k+1)-th smallest (from 1) pairwise slope (ret[0], ret[1]),
 * each by bisection over the slope with an O(n log n) count per step (the slope selection
 * of J. Matousek, "Randomized optimal algorithm for slope selection", Information
 * Processing Letters 39(4):183-187, 1991, without its randomization): memory O(n) for any
 * n. range bounds |slope|. The two searches take the same midpoints until their answers
 * part, and a count is made once for both there; each ends where it would alone. */
static void kth_slopes(const double *x, const double *t, size_t n, uint64_t k, bool both,
		       double range, double *y, double *tmp, double ret[2])
{
	uint64_t lo[2], hi[2];
	size_t searches = both ? 2 : 1;

	for (size_t i = 0; i < 2; i++) {
		lo[i] = order_key(-2 * range);
		hi[i] = order_key(2 * range);
	}
	for (;;) {
		bool shared = both && lo[0] == lo[1] && hi[0] == hi[1];
		bool any = false;

		for (size_t i = 0; i < searches; i++) {
			uint64_t mid, c;

			if (hi[i] - lo[i] <= 1)
				continue;
			any = true;
			mid = lo[i] + (hi[i] - lo[i]) / 2;
			c = slopes_at_most(x, t, n, order_value(mid), y, tmp);
			for (size_t j = i; j < (shared ? 2 : i + 1); j++) {
				if (c >= k + j)
					hi[j] = mid;
				else
					lo[j] = mid;
			}
			if (shared)
				break;
		}
		if (!any)
			break;
	}
	for (size_t i = 0; i < searches; i++)
		ret[i] = order_value(hi[i]);
}

/* Theil-Sen: the median of the n (n - 1) / 2 pairwise slopes (Sen 1968). */
static double theil_sen(const double *x, const double *t, size_t n, double range, double *y,
			double *tmp)
{
	uint64_t pairs = (uint64_t)n * (n - 1) / 2;
	double s[2];

	if (range == 0)
		return 0;
	if (pairs % 2) {
		kth_slopes(x, t, n, pairs / 2 + 1, false, range, y, tmp, s);
		return s[0];
	}
	kth_slopes(x, t, n, pairs / 2, true, range, y, tmp, s);
	return s[0] + (s[1] - s[0]) / 2;
}

/* ---- the checks ---- */

struct params {
	double alpha, min_effect;
	size_t min_n_drift, min_n_outliers, min_n_modes;
};

/* Whether d, a distance in the metric's unit, is large enough to flag: at least
 * min_effect of |median|. Sizes are judged relative to the median, so with a floor a
 * median of 0 flags nothing. */
static bool practical(double d, double median, const struct params *p)
{
	if (p->min_effect == 0)
		return true;
	return median != 0 && fabs(d) >= p->min_effect * fabs(median);
}

/* x, t: the m present values and their run indexes; sorted: x sorted; y, tmp: scratch. */
static int check_drift(const double *x, const double *t, const double *sorted, size_t m,
		       const struct params *p, double *y, double *tmp, struct pmc_health *h)
{
	uint64_t gt, ge, tied, pairs = (uint64_t)m * (m - 1) / 2;
	double var, z, span = t[m - 1] - t[0];
	int err;

	memcpy(y, x, m * sizeof(*y));
	count_inversions(y, tmp, m, &gt, &ge);
	/* Increasing pairs (i < j, x_i < x_j) minus decreasing ones (Mann 1945). */
	h->drift_s = (long long)(pairs - ge) - (long long)gt;
	var = mk_variance(sorted, m, &tied);
	/* tau-b: S over the geometric mean of the untied pairs of each variable; the run
	 * index has no ties (Kendall 1975). */
	h->drift_tau =
	    tied < pairs ? (double)h->drift_s / sqrt((double)pairs * (double)(pairs - tied)) : 0;
	if (m <= MK_EXACT_MAX) {
		err = mk_exact_p(sorted, m, gt, pairs - tied, &h->drift_p);
		if (err < 0)
			return err;
		h->drift_exact = true;
	} else if (var > 0 && h->drift_s != 0) {
		/* Normal approximation with a continuity correction of 1, half the step of S
		 * (Kendall 1975). */
		z = ((double)llabs(h->drift_s) - 1) / sqrt(var);
		h->drift_p = fmin(1.0, erfc(z / M_SQRT2));
	} else {
		h->drift_p = 1;
	}
	h->drift_runs = (size_t)span + 1;
	h->checked_drift = true;
	/* Only a significant trend is sized: a flag needs p < alpha, and its q-value after
	 * pmc_health_adjust is no smaller. The slope's selection, some 64 passes over the
	 * values, is most of a check's time. */
	if (!(h->drift_p < p->alpha))
		return 0;
	h->drift_slope = theil_sen(x, t, m, sorted[m - 1] - sorted[0], y, tmp);
	if (h->median != 0) {
		h->drift_rel = h->drift_slope / fabs(h->median);
		h->drift_total_rel = h->drift_rel * span;
	}
	h->drift_large = practical(h->drift_slope * span, h->median, p);
	h->drift = h->drift_large;
	return 0;
}

/* The modified z-score |x - median| / (1.4826 MAD) of B. Iglewicz and D. C. Hoaglin (How
 * to Detect and Handle Outliers, ASQC Basic References in Quality Control 16, 1993):
 * beyond OUTLIER_MILD robust sigmas (their labelling rule) a value is a mild outlier,
 * beyond OUTLIER_SEVERE a severe one; with MAD 0 every other value is. dev: scratch. */
static void check_outliers(const double *sorted, size_t m, const struct params *p, double *dev,
			   struct pmc_health *h)
{
	double far = -1, far_x = NAN, sigma;

	for (size_t i = 0; i < m; i++)
		dev[i] = fabs(sorted[i] - h->median);
	pmc_stats_sort(dev, m);
	sigma = MAD_TO_SIGMA * pmc_median_sorted(dev, m);
	for (size_t i = 0; i < m; i++) {
		double d = fabs(sorted[i] - h->median);

		if (d <= OUTLIER_MILD * sigma || !practical(d, h->median, p))
			continue;
		if (d <= OUTLIER_SEVERE * sigma) {
			h->outliers_mild++;
			continue;
		}
		h->outliers_severe++;
		if (d > far) {
			far = d;
			far_x = sorted[i];
		}
	}
	h->outlier_sigma = sigma;
	h->outlier_far_rel = h->median != 0 && !isnan(far_x) ? far_x / h->median : NAN;
	h->outliers = h->outliers_severe > 0;
	h->checked_outliers = true;
}

/* Whether a gap between whole numbers (event counts: context switches, migrations, page
 * faults) is too small in absolute terms to be a mode: the resolution rule of
 * check_modes, for counts. A counter's unit is its resolution, and a count that moves by
 * one or two (a context switch more when a timer tick or a wake-up lands in the run) is
 * jitter at that resolution, however large it is relative to a small count: 3 and 4
 * context switches are one level, 33% apart. Gaps of at least MODE_MIN_COUNT_GAP units
 * (30 and 40 page faults) are judged as any other. */
static bool count_jitter(const double *sorted, size_t m, double gap)
{
	for (size_t i = 0; i < m; i++)
		if (sorted[i] != floor(sorted[i]))
			return false;
	return gap < MODE_MIN_COUNT_GAP;
}

/* Two modes, by a gap test in the spirit of the "gapping" of H. Wainer and S. Schacht
 * (Psychometrika, 1978): the sorted values are split at their largest gap that leaves
 * each side MODE_MIN_SHARE of them (and MODE_MIN_GROUP), and the gap is compared with the
 * pooled standard deviation of the two sides. The largest spacing of a unimodal sample
 * shrinks as 1/n, so the gap must reach MODE_GAP_K / n of them: a constant calibrated by
 * simulation (docs/statistics.md, tests/health_calibrate.py). A gap no wider than the
 * smallest step between distinct values inside the groups is the data's resolution (an
 * integer count), not a gap; two groups of one value each are two modes. */
static void check_modes(const double *sorted, size_t m, const struct params *p,
			struct pmc_health *h)
{
	size_t least = (size_t)ceil(MODE_MIN_SHARE * (double)m), k = 0;
	double gap = -1, mean_lo = 0, mean_hi = 0, ss = 0, step = 0;

	least = least < MODE_MIN_GROUP ? MODE_MIN_GROUP : least;
	for (size_t i = least; i + least <= m; i++)
		if (sorted[i] - sorted[i - 1] > gap) {
			gap = sorted[i] - sorted[i - 1];
			k = i;
		}
	h->checked_modes = true;
	if (k == 0)
		return;
	for (size_t i = 0; i < m; i++) {
		if (i < k)
			mean_lo += (sorted[i] - mean_lo) / (double)(i + 1);
		else
			mean_hi += (sorted[i] - mean_hi) / (double)(i - k + 1);
		if (i > 0 && i != k && sorted[i] > sorted[i - 1] &&
		    (step == 0 || sorted[i] - sorted[i - 1] < step))
			step = sorted[i] - sorted[i - 1];
	}
	for (size_t i = 0; i < m; i++) {
		double d = sorted[i] - (i < k ? mean_lo : mean_hi);

		ss += d * d;
	}
	h->mode_n_lo = k;
	h->mode_n_hi = m - k;
	h->mode_lo = pmc_median_sorted(sorted, k);
	h->mode_hi = pmc_median_sorted(sorted + k, m - k);
	h->mode_gap = gap;
	h->mode_sd = sqrt(ss / (double)(m - 2));
	h->multimodal = gap > 0 && gap > step && gap * (double)m >= MODE_GAP_K * h->mode_sd &&
			practical(gap, h->median, p) && !count_jitter(sorted, m, gap);
}

int pmc_health_check(const double *values, size_t n, const struct pmc_health_opts *opts,
		     struct pmc_health *ret)
{
	struct pmc_health h = {
	    .median = NAN,
	    .drift_p = NAN,
	    .drift_q = NAN,
	    .drift_slope = NAN,
	    .drift_rel = NAN,
	    .drift_total_rel = NAN,
	    .outlier_sigma = NAN,
	    .outlier_far_rel = NAN,
	    .mode_lo = NAN,
	    .mode_hi = NAN,
	    .mode_gap = NAN,
	    .mode_sd = NAN,
	};
	struct params p;
	double *buf, *x, *t, *sorted, *y, *tmp;
	size_t m = 0;
	int err = 0;

	if ((!values && n) || !ret)
		return -EINVAL;
	if (opts)
		p = (struct params){
		    .alpha = opts->alpha,
		    .min_effect = opts->min_effect,
		    .min_n_drift = opts->min_n_drift,
		    .min_n_outliers = opts->min_n_outliers,
		    .min_n_modes = opts->min_n_modes,
		};
	else
		p = (struct params){0};
	if (!(p.alpha >= 0 && p.alpha < 1) || !(p.min_effect < 1) || isnan(p.min_effect))
		return -EINVAL;
	p.alpha = p.alpha > 0 ? p.alpha : HEALTH_ALPHA;
	p.min_effect = p.min_effect > 0 ? p.min_effect : p.min_effect < 0 ? 0 : DEFAULT_MIN_EFFECT;
	/* Below these the checks mean nothing: 4 values have 24 orders, and at 5 no split
	 * leaves 3 values on each side. */
	p.min_n_drift = p.min_n_drift ? p.min_n_drift : DEFAULT_MIN_N_DRIFT;
	p.min_n_outliers = p.min_n_outliers ? p.min_n_outliers : DEFAULT_MIN_N_OUTLIERS;
	p.min_n_modes = p.min_n_modes ? p.min_n_modes : DEFAULT_MIN_N_MODES;
	if (p.min_n_drift < 4 || p.min_n_outliers < 4 || p.min_n_modes < 6)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (isinf(values[i]))
			return -EINVAL;
		m += !isnan(values[i]);
	}
	h.n = m;
	if (m == 0) {
		*ret = h;
		return 0;
	}
	buf = malloc(5 * m * sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	x = buf;
	t = x + m;
	sorted = t + m;
	y = sorted + m;
	tmp = y + m;
	for (size_t i = 0, j = 0; i < n; i++)
		if (!isnan(values[i])) {
			x[j] = values[i];
			t[j++] = (double)i;
		}
	memcpy(sorted, x, m * sizeof(*x));
	pmc_stats_sort(sorted, m);
	/* Squares of the spread must stay finite (the pooled variance of check_modes). */
	if (!(sorted[m - 1] - sorted[0] <= MAX_SPREAD)) {
		err = -ERANGE;
		goto out;
	}
	h.median = pmc_median_sorted(sorted, m);
	if (m >= p.min_n_drift) {
		err = check_drift(x, t, sorted, m, &p, y, tmp, &h);
		if (err < 0)
			goto out;
	}
	if (m >= p.min_n_outliers)
		check_outliers(sorted, m, &p, y, &h);
	if (m >= p.min_n_modes)
		check_modes(sorted, m, &p, &h);
	*ret = h;
out:
	free(buf);
	return err;
}

int pmc_health_adjust(struct pmc_health *const *h, size_t n, double alpha)
{
	double *p, *q;
	size_t m = 0;
	int err;

	if ((!h && n) || !(alpha >= 0 && alpha < 1))
		return -EINVAL;
	alpha = alpha > 0 ? alpha : HEALTH_ALPHA;
	for (size_t i = 0; i < n; i++) {
		if (!h[i])
			return -EINVAL;
		m += h[i]->checked_drift;
	}
	if (m == 0)
		return 0;
	p = malloc(2 * m * sizeof(*p));
	if (!p)
		return -ENOMEM;
	q = p + m;
	for (size_t i = 0, j = 0; i < n; i++)
		if (h[i]->checked_drift)
			p[j++] = h[i]->drift_p;
	/* Benjamini & Hochberg (1995), as compare does across its rows (stats.c). */
	err = pmc_bh_adjust(p, m, q);
	if (err == 0)
		for (size_t i = 0, j = 0; i < n; i++)
			if (h[i]->checked_drift) {
				h[i]->drift_q = q[j++];
				h[i]->drift = h[i]->drift_large && h[i]->drift_q < alpha;
			}
	free(p);
	return err;
}

/* "0.35%", "4.1%", "120%", "1.2e+04%". */
static void fmt_pct(char *buf, size_t len, double frac)
{
	double pct = 100 * frac, a = fabs(pct);

	snprintf(buf, len,
		 a < 1	    ? "%.2f%%"
		 : a < 10   ? "%.1f%%"
		 : a < 1000 ? "%.0f%%"
			    : "%.2g%%",
		 pct);
}

struct text {
	char s[PMC_HEALTH_DESC_MAX];
	size_t used;
	bool full;
};

static void __attribute__((format(printf, 2, 3))) put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (t->full)
		return;
	va_start(ap, fmt);
	w = vsnprintf(t->s + t->used, sizeof(t->s) - t->used, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= sizeof(t->s) - t->used)
		t->full = true;
	else
		t->used += (size_t)w;
}

int pmc_health_describe(const struct pmc_health *h, char *buf, size_t len)
{
	struct text t = {.s = ""};
	char pct[32];
	double p;

	if (!h || (!buf && len))
		return -EINVAL;
	if (h->drift) {
		p = isnan(h->drift_q) ? h->drift_p : h->drift_q;
		if (isnan(h->drift_total_rel))
			put(&t, "drifts %s", h->drift_slope < 0 ? "down" : "up");
		else {
			fmt_pct(pct, sizeof(pct), fabs(h->drift_total_rel));
			put(&t, "drifts %s%s", h->drift_slope < 0 ? "-" : "+", pct);
		}
		put(&t, " over %zu runs (%s%s%.2g)", h->drift_runs, isnan(h->drift_q) ? "p" : "q",
		    p < 0.001 ? "<" : "=", p < 0.001 ? 0.001 : p);
	}
	if (h->outliers) {
		put(&t, "%s%zu severe outlier%s", t.used ? "; " : "", h->outliers_severe,
		    h->outliers_severe == 1 ? "" : "s");
		/* Below the median the farthest is the smallest ("down to"); one at 0 has no
		 * ratio worth writing ("0x", or 1e-05x of a count that was 0 in one run). */
		if (!isnan(h->outlier_far_rel) && h->outlier_far_rel < 0.001)
			put(&t, " (%s0)", h->outliers_severe == 1 ? "at " : "down to ");
		else if (!isnan(h->outlier_far_rel))
			put(&t, " (%s%.3gx the median)",
			    h->outliers_severe == 1  ? ""
			    : h->outlier_far_rel < 1 ? "down to "
						     : "up to ",
			    h->outlier_far_rel);
	}
	if (h->multimodal) {
		put(&t, "%stwo modes", t.used ? "; " : "");
		if (h->mode_lo > 0) {
			fmt_pct(pct, sizeof(pct), (h->mode_hi - h->mode_lo) / h->mode_lo);
			put(&t, " %s apart", pct);
		}
		put(&t, " (%zu and %zu runs)", h->mode_n_lo, h->mode_n_hi);
	}
	if (t.full || t.used + 1 > len)
		return -ENOSPC;
	memcpy(buf, t.s, t.used + 1);
	return 0;
}

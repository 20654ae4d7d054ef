/* Paired samples: the Wilcoxon signed-rank test (F. Wilcoxon, "Individual comparisons by
 * ranking methods", Biometrics Bulletin 1(6):80-83, 1945) and the Hodges-Lehmann estimate
 * of the shift with the Tukey-Walsh interval (M. Hollander and D. A. Wolfe, Nonparametric
 * Statistical Methods, 2nd ed., Wiley 1999, ch. 3, sec. 3.1-3.3). docs/statistics.md,
 * "Paired rounds", gives the formulas, the conventions and the reference values.
 *
 * Reentrant, no shared state: the distributions are counted per call (at most about
 * 130,000 additions at 50 differences). */
#include "core/signed_rank.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"

/* The exact distribution is counted up to this many nonzero differences, ties or not, as
 * R's wilcox.test (n < 50) and scipy.stats.wilcoxon (n <= 50) do without ties. The counts
 * stay below 2^50 < 2^53, so doubles hold them exactly, and a call costs at most
 * n * n (n + 1) / 2 additions (about 60 us at 50). Past it the corrected normal
 * approximation is within 0.001 of the exact p: 0.0407 against 0.0400 at 50 without
 * ties, 0.0115 against 0.0108 at 50 with heavy ties (tests/signed_rank_reference.py). */
#define SR_EXACT_MAX 50

/* Inputs up to this size are copied to the stack instead of the heap. */
#define SR_STACK_VALUES 64

/* The present entries of d (NAN skipped) as pmc_stats_present copies them; an infinite
 * difference is refused (-EINVAL). */
static double *present(const double *d, size_t n, double *buf, size_t buf_len, size_t *ret_m,
		       int *ret_err)
{
	for (size_t i = 0; i < n; i++) {
		if (isinf(d[i])) {
			*ret_err = -EINVAL;
			return NULL;
		}
	}
	return pmc_stats_present(d, n, buf, buf_len, ret_m, ret_err);
}

static void release(double *v, double *buf)
{
	if (v != buf)
		free(v);
}

/* ---- the test ---- */

/* A block of tied |d|: its size and the doubled mid-rank of its members. */
struct tie_block {
	uint32_t t, w;
};

/* Counts of the doubled statistic 2 T+ over the 2^nn equally likely sign patterns, as
 * the shift algorithm of Streitberg & Roehmel (Statistical Software Newsletter
 * 12(1):10-17, 1986) builds them: a difference of doubled rank w multiplies the
 * generating function by (1 + x^w), i.e. adds the counts shifted by w. Doubled mid-ranks
 * are integers (a block of t ties after s smaller values has doubled mid-rank
 * 2 s + t + 1), so tied data are counted exactly like untied data. Partial sums only
 * grow, so P(2 T+ <= vmax) needs the counts up to vmax only. Returns that lower tail as a
 * count, or -1 when out of memory. */
static double doubled_lower_tail(const struct tie_block *b, size_t nb, size_t vmax)
{
	double *f = calloc(vmax + 1, sizeof(*f)), below = 0;

	if (!f)
		return -1;
	f[0] = 1;
	for (size_t g = 0; g < nb; g++)
		for (uint32_t c = 0; c < b[g].t; c++)
			for (size_t v = vmax; v >= b[g].w; v--)
				f[v] += f[v - b[g].w];
	for (size_t v = 0; v <= vmax; v++)
		below += f[v];
	free(f);
	return below;
}

int pmc_signed_rank_test(const double *d, size_t n, struct pmc_signed_rank *ret)
{
	double buf[SR_STACK_VALUES];
	struct tie_block blocks[SR_EXACT_MAX];
	double *pos, *neg;
	size_t npos = 0, nneg = 0, nzero = 0, nb = 0;
	int err = 0;

	if ((!d && n) || !ret)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (isinf(d[i]))
			return -EINVAL;
		npos += d[i] > 0;
		nneg += d[i] < 0;
		nzero += d[i] == 0;
	}
	if (npos + nneg + nzero == 0)
		return -EINVAL;
	/* The magnitudes of the positive differences in front, of the negative ones behind;
	 * zeros are dropped (Wilcoxon's convention: Hollander & Wolfe 1999, sec. 3.1;
	 * scipy's zero_method='wilcox'). */
	pos = npos + nneg <= SR_STACK_VALUES ? buf : malloc((npos + nneg) * sizeof(*pos));
	if (!pos)
		return -ENOMEM;
	neg = pos + npos;
	for (size_t i = 0, p = 0, q = 0; i < n; i++) {
		if (d[i] > 0)
			pos[p++] = d[i];
		else if (d[i] < 0)
			neg[q++] = -d[i];
	}
	pmc_stats_sort(pos, npos);
	pmc_stats_sort(neg, nneg);

	size_t nn = npos + nneg, seen = 0, i = 0, j = 0;
	uint64_t t2 = 0; /* 2 T+ */
	double ties = 0; /* sum over tie blocks of t^3 - t */

	/* Merge the two sorted magnitude lists into blocks of equal |d|. */
	while (i < npos || j < nneg) {
		double x = j >= nneg || (i < npos && pos[i] <= neg[j]) ? pos[i] : neg[j];
		size_t cp = 0, cn = 0;

		while (i < npos && pos[i] == x) {
			i++;
			cp++;
		}
		while (j < nneg && neg[j] == x) {
			j++;
			cn++;
		}
		size_t t = cp + cn;
		uint64_t w = 2 * (uint64_t)seen + t + 1;

		t2 += cp * w;
		ties += (double)t * (double)t * (double)t - (double)t;
		if (nn <= SR_EXACT_MAX)
			blocks[nb++] = (struct tie_block){(uint32_t)t, (uint32_t)w};
		seen += t;
	}

	struct pmc_signed_rank r = {.n = nn + nzero, .nzero = nzero, .t_plus = (double)t2 / 2};

	if (nn == 0) {
		r.p = 1; /* every difference zero: no evidence of a shift either way */
		r.exact = true;
	} else if (nn <= SR_EXACT_MAX) {
		/* The conditional permutation test: given the |d|, each of the 2^nn sign
		 * patterns is equally likely when d is symmetric about 0, and the distribution
		 * of T+ is symmetric about nn (nn + 1) / 4 whatever the ties, so
		 * p = 2 P(T+ <= min(t, S - t)) = 2 min(P(T+ <= t), P(T+ >= t)). */
		uint64_t s2 = (uint64_t)nn * (nn + 1);
		size_t vmax = (size_t)(t2 < s2 - t2 ? t2 : s2 - t2);
		double below = doubled_lower_tail(blocks, nb, vmax);

		if (below < 0) {
			err = -ENOMEM;
			goto out;
		}
		r.p = fmin(1.0, 2 * ldexp(below, -(int)nn));
		r.exact = true;
	} else {
		/* Normal approximation with the tie-corrected variance
		 * n (n + 1) (2 n + 1) / 24 - sum (t^3 - t) / 48 and a continuity correction of
		 * 1/2 (Hollander & Wolfe 1999, sec. 3.1; scipy.stats.wilcoxon(method='approx',
		 * correction=True)). The variance is positive for nn >= 1. */
		double dn = (double)nn, mu = dn * (dn + 1) / 4;
		double var = dn * (dn + 1) * (2 * dn + 1) / 24 - ties / 48;
		double z = fmax(0, fabs(r.t_plus - mu) - 0.5) / sqrt(var);

		r.p = fmin(1.0, 2 * pmc_normal_sf(z));
		r.exact = false;
	}
	*ret = r;
out:
	release(pos, buf);
	return err;
}

/* ---- the shift and its interval ---- */

/* The Walsh average of sorted v[i] and v[j]. Halving first cannot overflow, and each
 * step rounds monotonically, so W(i, j) is non-decreasing in i and in j, also in floating
 * point: the staircase in walsh_count_le relies on it. W(i, i) is v[i]. */
static double walsh(const double *v, size_t i, size_t j)
{
	return v[i] / 2 + v[j] / 2;
}

/* Number of Walsh averages W(i, j), i <= j, that are <= t, for sorted v: the largest j
 * with W(i, j) <= t does not grow with i, so one pointer walks down once, O(n). */
static uint64_t walsh_count_le(const double *v, size_t n, double t)
{
	uint64_t count = 0;
	size_t j = n; /* one past the largest j with W(i, j) <= t */

	for (size_t i = 0; i < n; i++) {
		while (j > i && walsh(v, i, j - 1) > t)
			j--;
		if (j <= i)
			break; /* W(i, i) > t, and every later average is at least as large */
		count += j - i;
	}
	return count;
}

/* The k-th smallest (1-based) Walsh average: the smallest double t with at least k
 * averages <= t, which is one of them. Bisection over the order of doubles (at most 64
 * steps of O(n)), so memory stays O(n) where the averages number n (n + 1) / 2. */
static double walsh_select(const double *v, size_t n, uint64_t k)
{
	int64_t lo = pmc_order_key(v[0]), hi = pmc_order_key(v[n - 1]);

	while (lo < hi) {
		/* Keys can span more than INT64_MAX: halve in unsigned. */
		int64_t mid = lo + (int64_t)(((uint64_t)hi - (uint64_t)lo) / 2);

		if (walsh_count_le(v, n, pmc_order_value(mid)) >= k)
			hi = mid;
		else
			lo = mid + 1;
	}
	return pmc_order_value(lo) + 0.0; /* -0.0 is ordered before 0.0: report 0 */
}

/* The critical order k of the interval [W_(k), W_(M-k+1)]: the largest k with
 * P(T <= k - 1) <= tail for the signed-rank statistic T of n differences without ties
 * (Hollander & Wolfe 1999, sec. 3.3: the shifts the two-sided test at level 2 tail does
 * not reject), 0 when even k = 1 is too likely. Exact up to SR_EXACT_MAX, counted with
 * ranks 1..n as in doubled_lower_tail; beyond, the normal approximation with the
 * continuity correction of the test, k = floor(n (n + 1) / 4 + z_tail sigma + 1/2).
 * Returns -1 when out of memory. */
static int64_t walsh_critical(size_t n, double tail)
{
	double limit = tail * (1 + PMC_STATS_TAIL_SLACK);
	uint64_t total = (uint64_t)n * (n + 1) / 2, k = 0;

	if (n <= SR_EXACT_MAX) {
		/* P(T <= k - 1) passes tail before k reaches total / 2 (tail < 1/2). */
		size_t vmax = (size_t)(total / 2 + 1);
		double *f = calloc(vmax + 1, sizeof(*f)), run = 0;

		if (!f)
			return -1;
		f[0] = 1;
		for (size_t r = 1; r <= n; r++)
			for (size_t v = vmax; v >= r; v--)
				f[v] += f[v - r];
		while (k <= vmax) {
			run += ldexp(f[k], -(int)n);
			if (run > limit)
				break;
			k++;
		}
		free(f);
	} else {
		double dn = (double)n, mu = dn * (dn + 1) / 4;
		double sigma = sqrt(dn * (dn + 1) * (2 * dn + 1) / 24);
		double kk = floor(mu + pmc_normal_quantile(tail) * sigma + 0.5);

		k = kk > 0 ? (uint64_t)kk : 0;
	}
	if (k > (total + 1) / 2)
		k = (total + 1) / 2;
	return (int64_t)k;
}

int pmc_signed_rank_shift(const double *d, size_t n, double confidence, double *ret_shift,
			  double *ret_lo, double *ret_hi)
{
	double buf[SR_STACK_VALUES];
	double *v;
	size_t m;
	int err = 0;

	if ((!d && n) || !ret_shift || !ret_lo || !ret_hi || !(confidence > 0 && confidence < 1))
		return -EINVAL;
	v = present(d, n, buf, SR_STACK_VALUES, &m, &err);
	if (!v)
		return err;
	if (m == 0) {
		err = -EINVAL;
		goto out;
	}
	pmc_stats_sort(v, m);

	/* Hodges-Lehmann: the median of the M = m (m + 1) / 2 Walsh averages (Hodges &
	 * Lehmann 1963; Hollander & Wolfe 1999, sec. 3.2). Zeros are kept: they are
	 * rounds in which nothing changed, evidence about the shift. */
	uint64_t total = (uint64_t)m * (m + 1) / 2;
	double shift;

	if (total % 2) {
		shift = walsh_select(v, m, total / 2 + 1);
	} else {
		double a = walsh_select(v, m, total / 2), b = walsh_select(v, m, total / 2 + 1);

		shift = a + (b - a) / 2;
	}

	/* The interval from the distribution without ties even when there are ties (or
	 * zeros): the closed interval then covers with at least the confidence, since
	 * jittering tied values apart can only move Walsh averages off the true shift,
	 * never across it (docs/statistics.md, "The paired interval"). */
	int64_t k = walsh_critical(m, (1 - confidence) / 2);

	if (k < 0) {
		err = -ENOMEM;
		goto out;
	}
	*ret_shift = shift;
	if (k == 0) {
		*ret_lo = NAN;
		*ret_hi = NAN;
		err = -EDOM;
	} else {
		*ret_lo = walsh_select(v, m, (uint64_t)k);
		*ret_hi = walsh_select(v, m, total - (uint64_t)k + 1);
	}
out:
	release(v, buf);
	return err;
}

size_t pmc_signed_rank_min_n(double alpha)
{
	size_t n = 1;

	if (!(alpha > 0 && alpha <= 1))
		return 0;
	/* The most extreme pattern, every sign alike, has two-sided p = 2 / 2^n. */
	while (ldexp(2, -(int)n) >= alpha)
		n++;
	return n;
}

/* Statistics of one set of samples, with published methods; docs/statistics.md gives the
 * formulas and defaults. The rank tests of two sets and their intervals are in
 * stats_rank.c.
 *
 * Summary: mean and variance by Welford's update (Welford 1962); median, MAD; CI of the
 * median from order statistics and the binomial distribution (Conover 1999, sec. 3.2).
 * The standard normal distribution the tests use. Many tests: Benjamini & Hochberg (1995).
 *
 * Thread safety: every function is reentrant, and the library keeps no state between
 * calls.
 */
#include "core/stats.h"
#include "core/stats_priv.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- sorting: no function-pointer calls, as a large comparison sorts 100,000 times ---- */

static void insertion_sort(double *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		double x = v[i];
		size_t j = i;

		while (j > 0 && v[j - 1] > x) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

static void sift_down(double *v, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;

		if (child >= n)
			return;
		if (child + 1 < n && v[child + 1] > v[child])
			child++;
		if (!(v[child] > v[root]))
			return;
		double t = v[root];
		v[root] = v[child];
		v[child] = t;
		root = child;
	}
}

static void heap_sort(double *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (size_t end = n; end-- > 1;) {
		double t = v[0];
		v[0] = v[end];
		v[end] = t;
		sift_down(v, 0, end);
	}
}

/* Introsort (Musser 1997): quicksort with median-of-three, heapsort past a depth limit so
 * that no input is quadratic, insertion sort for short ranges. NAN must not be present. */
static void intro_sort(double *v, size_t n, unsigned depth)
{
	while (n > 16) {
		if (depth-- == 0) {
			heap_sort(v, n);
			return;
		}
		double a = v[0], b = v[n / 2], c = v[n - 1];
		double pivot =
		    a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
		size_t i = 0, j = n - 1;

		/* Hoare partition: afterwards v[0..j] <= pivot <= v[j+1..n-1]. */
		for (;;) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i >= j)
				break;
			double t = v[i];
			v[i] = v[j];
			v[j] = t;
			i++;
			j--;
		}
		/* Recurse into the smaller part, loop on the larger: stack depth O(log n). */
		size_t left = j + 1;

		if (left < n - left) {
			intro_sort(v, left, depth);
			v += left;
			n -= left;
		} else {
			intro_sort(v + left, n - left, depth);
			n = left;
		}
	}
	insertion_sort(v, n);
}

/* Below this many values the introsort is as fast as the radix sort's passes. */
#define RADIX_MIN 256

/* A double's bits as an unsigned integer in the same order (no NAN): the sign bit
 * flipped for positive values, every bit for negative ones. */
static inline uint64_t radix_key(double x)
{
	uint64_t u;

	memcpy(&u, &x, sizeof(u));
	return u ^ ((uint64_t)((int64_t)u >> 63) | UINT64_C(1) << 63);
}

/* LSD radix sort of the keys, a byte a pass, through tmp (Knuth TAOCP vol. 3, 5.2.5).
 * Each pass scatters without a comparison, where the introsort's branches mispredict on
 * random values (a row of 1,000 pooled samples: 50-90 us, this 10-30 us); the passes of
 * a byte all keys share, as samples of one quantity share sign, exponent and leading
 * bits, are skipped. */
static void radix_sort(double *v, double *tmp, size_t n)
{
	size_t count[8][256] = {{0}};
	double *src = v, *dst = tmp;

	for (size_t i = 0; i < n; i++) {
		uint64_t k = radix_key(v[i]);

		for (unsigned b = 0; b < 8; b++)
			count[b][(k >> (8 * b)) & 0xff]++;
	}
	for (unsigned b = 0; b < 8; b++) {
		size_t *c = count[b], at = 0;

		if (c[(radix_key(src[0]) >> (8 * b)) & 0xff] == n)
			continue;
		for (unsigned d = 0; d < 256; d++) {
			size_t here = c[d];

			c[d] = at;
			at += here;
		}
		for (size_t i = 0; i < n; i++)
			dst[c[(radix_key(src[i]) >> (8 * b)) & 0xff]++] = src[i];
		double *t = src;

		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
}

void pmc_stats_sort(double *v, size_t n)
{
	unsigned depth = 0;
	double *tmp = n >= RADIX_MIN ? malloc(n * sizeof(*tmp)) : NULL;

	/* Without room for the radix sort's copy, the introsort sorts in place. */
	if (tmp) {
		radix_sort(v, tmp, n);
		free(tmp);
		return;
	}
	for (size_t m = n; m > 1; m >>= 1)
		depth += 2;
	intro_sort(v, n, depth);
}

double *pmc_stats_present(const double *x, size_t n, double *buf, size_t buf_len, size_t *ret_n,
			  int *ret_err)
{
	size_t m = 0;
	double *v = buf;

	for (size_t i = 0; i < n; i++)
		m += !isnan(x[i]);
	if (m > buf_len) {
		v = malloc(m * sizeof(*v));
		if (!v) {
			*ret_err = -ENOMEM;
			return NULL;
		}
	}
	m = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(x[i]))
			v[m++] = x[i];
	*ret_n = m;
	return v;
}

/* pmc_stats_present, sorted. */
double *pmc_stats_sorted_present(const double *x, size_t n, double *buf, size_t buf_len,
				 size_t *ret_n, int *ret_err)
{
	double *v = pmc_stats_present(x, n, buf, buf_len, ret_n, ret_err);

	if (v)
		pmc_stats_sort(v, *ret_n);
	return v;
}

void pmc_stats_release(double *v, double *buf)
{
	if (v != buf)
		free(v);
}

double pmc_median_sorted(const double *v, size_t n)
{
	if (n == 0)
		return NAN;
	if (n % 2)
		return v[n / 2];
	/* a + (b - a) / 2 cannot overflow where (a + b) / 2 can. */
	return v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

double pmc_median(double *v, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]))
			v[k++] = v[i];
	pmc_stats_sort(v, k);
	return pmc_median_sorted(v, k);
}

int pmc_median_of(const double *x, size_t n, double *ret)
{
	double buf[STACK_VALUES], *v;
	size_t m;
	int err = 0;

	v = pmc_stats_sorted_present(x, n, buf, STACK_VALUES, &m, &err);
	if (!v)
		return err;
	if (m)
		*ret = pmc_median_sorted(v, m);
	pmc_stats_release(v, buf);
	return m ? 0 : -ENODATA;
}

/* ---- distributions ---- */

/* Standard normal upper tail P(Z > z). */
double pmc_normal_sf(double z)
{
	return 0.5 * erfc(z / M_SQRT2);
}

/* c[0] + c[1] r + ... + c[7] r^7 */
static double horner8(const double c[8], double r)
{
	double v = c[7];

	for (int i = 6; i >= 0; i--)
		v = v * r + c[i];
	return v;
}

/* Standard normal quantile, Wichura's algorithm AS 241 (PPND16), relative error about
 * 1e-16. Applied Statistics 37(3):477-484, 1988. p must be in (0, 1). The coefficients
 * are the published ones, lowest power first. */
double pmc_normal_quantile(double p)
{
	static const double a[8] = {
	    3.3871328727963666080e0,  1.3314166789178437745e+2, 1.9715909503065514427e+3,
	    1.3731693765509461125e+4, 4.5921953931549871457e+4, 6.7265770927008700853e+4,
	    3.3430575583588128105e+4, 2.5090809287301226727e+3,
	};
	static const double b[8] = {
	    1.0,
	    4.2313330701600911252e+1,
	    6.8718700749205790830e+2,
	    5.3941960214247511077e+3,
	    2.1213794301586595867e+4,
	    3.9307895800092710610e+4,
	    2.8729085735721942674e+4,
	    5.2264952788528545610e+3,
	};
	static const double c[8] = {
	    1.42343711074968357734e0,  4.63033784615654529590e0,  5.76949722146069140550e0,
	    3.64784832476320460504e0,  1.27045825245236838258e0,  2.41780725177450611770e-1,
	    2.27238449892691845833e-2, 7.74545014278341407640e-4,
	};
	static const double d[8] = {
	    1.0,
	    2.05319162663775882187e0,
	    1.67638483018380384940e0,
	    6.89767334985100004550e-1,
	    1.48103976427480074590e-1,
	    1.51986665636164571966e-2,
	    5.47593808499534494600e-4,
	    1.05075007164441684324e-9,
	};
	static const double e[8] = {
	    6.65790464350110377720e0,  5.46378491116411436990e0,  1.78482653991729133580e0,
	    2.96560571828504891230e-1, 2.65321895265761230930e-2, 1.24266094738807843860e-3,
	    2.71155556874348757815e-5, 2.01033439929228813265e-7,
	};
	static const double f[8] = {
	    1.0,
	    5.99832206555887937690e-1,
	    1.36929880922735805310e-1,
	    1.48753612908506148525e-2,
	    7.86869131145613259100e-4,
	    1.84631831751005468180e-5,
	    1.42151175831644588870e-7,
	    2.04426310338993978564e-15,
	};
	double q = p - 0.5, r, v;

	if (fabs(q) <= 0.425) {
		r = 0.180625 - q * q;
		return q * horner8(a, r) / horner8(b, r);
	}
	r = sqrt(-log(q < 0 ? p : 1.0 - p));
	if (r <= 5.0)
		v = horner8(c, r - 1.6) / horner8(d, r - 1.6);
	else
		v = horner8(e, r - 5.0) / horner8(f, r - 5.0);
	return q < 0 ? -v : v;
}

/* Largest j >= 0 with P(B <= j - 1) <= tail for B ~ Binomial(n, 1/2), capped at
 * (n + 1) / 2 so that [x_(j), x_(n-j+1)] stays an interval. The pmf follows the ratio
 * C(n, k+1) / C(n, k) = (n - k) / (k + 1) from 2^-n, which is a normal double up to
 * n = 1022; beyond that the same walk runs in log space. */
static size_t binomial_half_lower(size_t n, double tail)
{
	size_t j = 0, cap = (n + 1) / 2;
	double cdf = 0, limit = tail * (1 + PMC_STATS_TAIL_SLACK);

	if (n <= 1000) {
		double pmf = ldexp(1, -(int)n);

		for (size_t k = 0; k < cap; k++) {
			cdf += pmf;
			if (cdf > limit)
				break;
			j = k + 1;
			pmf *= (double)(n - k) / (double)(k + 1);
		}
		return j;
	}
	double log_pmf = -(double)n * M_LN2;

	for (size_t k = 0; k < cap; k++) {
		cdf += exp(log_pmf);
		if (cdf > limit)
			break;
		j = k + 1;
		log_pmf += log((double)(n - k) / (double)(k + 1));
	}
	return j;
}

/* ---- public functions ---- */

/* The median of |v[i] - med| over sorted v[0..m-1] without sorting the deviations: those
 * of v[0..m/2), each <= med, grow as i falls, and those of v[m/2..m), each >= med (med
 * lies between the middle values), as i rises. Walking out from the middle and taking the
 * smaller of the two next deviations merges the two sorted runs; the median's one or two
 * order statistics are reached halfway, the same values a sort of all of them gives. */
static double mad_sorted(const double *v, size_t m, double med)
{
	size_t lo = m / 2, hi = m / 2; /* next: v[lo - 1] below, v[hi] above */
	double prev = 0, cur = 0;

	for (size_t k = 0; k <= m / 2; k++) {
		bool below = hi == m || (lo > 0 && fabs(v[lo - 1] - med) <= fabs(v[hi] - med));

		prev = cur;
		cur = below ? fabs(v[--lo] - med) : fabs(v[hi++] - med);
	}
	/* cur is the deviation of rank m/2 (from 0), prev the one before it. */
	return m % 2 ? cur : pmc_median_sorted((const double[]){prev, cur}, 2);
}

int pmc_summary_sorted(const double *x, size_t n, const double *v, size_t m, double confidence,
		       struct pmc_summary *ret)
{
	if (m == 0 || !(confidence > 0 && confidence < 1))
		return -EINVAL;
	if (isinf(v[0]) || isinf(v[m - 1]))
		return -EINVAL;

	struct pmc_summary s = {.n = m, .confidence = confidence};
	double mean = 0, m2 = 0;
	size_t k = 0;

	/* Welford's update: the running mean and sum of squared deviations, which unlike
	 * sum(x^2) - n*mean^2 does not cancel catastrophically when the mean is large
	 * compared with the spread (Welford 1962; Knuth TAOCP vol. 2, 4.2.2). Summed in
	 * input order, so the result does not depend on sorting. */
	for (size_t i = 0; i < n; i++) {
		if (isnan(x[i]))
			continue;
		double delta = x[i] - mean;

		k++;
		mean += delta / (double)k;
		m2 += delta * (x[i] - mean);
	}
	s.mean = mean;
	s.stddev = m > 1 ? sqrt(m2 / (double)(m - 1)) : 0;
	s.min = v[0];
	s.max = v[m - 1];
	s.median = pmc_median_sorted(v, m);
	/* Undefined at mean 0; a mean so close to 0 that the ratio overflows is no better. */
	s.cv = s.stddev / fabs(mean);
	if (!isfinite(s.cv))
		s.cv = NAN;
	s.mad = mad_sorted(v, m, s.median);

	/* [x_(j), x_(n-j+1)] covers the median with probability 1 - 2 P(B <= j - 1),
	 * B ~ Binomial(n, 1/2), whatever the distribution (Conover 1999, sec. 3.2): the
	 * narrowest symmetric pair that still reaches the confidence. */
	size_t j = binomial_half_lower(m, (1 - confidence) / 2);

	s.has_ci = j >= 1;
	s.ci_lo = s.has_ci ? v[j - 1] : NAN;
	s.ci_hi = s.has_ci ? v[m - j] : NAN;

	/* Finite inputs can still overflow (|x| near DBL_MAX): never hand out Inf or NaN as
	 * a statistic. */
	if (!isfinite(s.mean) || !isfinite(s.stddev) || !isfinite(s.mad) || !isfinite(s.median))
		return -ERANGE;
	*ret = s;
	return 0;
}

int pmc_summary_compute(const double *x, size_t n, double confidence, struct pmc_summary *ret)
{
	double buf[STACK_VALUES], *v;
	size_t m;
	int err = 0;

	if ((!x && n) || !ret)
		return -EINVAL;
	v = pmc_stats_sorted_present(x, n, buf, STACK_VALUES, &m, &err);
	if (!v)
		return err;
	err = pmc_summary_sorted(x, n, v, m, confidence, ret);
	pmc_stats_release(v, buf);
	return err;
}

struct p_index {
	double p;
	size_t i;
};

static int cmp_p_index(const void *x, const void *y)
{
	const struct p_index *a = x, *b = y;

	if (a->p != b->p)
		return a->p < b->p ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

int pmc_bh_adjust(const double *p, size_t n, double *ret_q)
{
	struct p_index *s;
	size_t m = 0;

	if (n && (!p || !ret_q))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (isnan(p[i]))
			continue;
		if (!(p[i] >= 0 && p[i] <= 1))
			return -EINVAL;
		m++;
	}
	s = malloc((m ? m : 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	m = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i]))
			s[m++] = (struct p_index){p[i], i};
	qsort(s, m, sizeof(*s), cmp_p_index);

	/* q_(i) = min over k >= i of min(1, p_(k) m / k), the step-up of Benjamini &
	 * Hochberg (1995) written as adjusted p-values (as R's p.adjust "BH"); m counts
	 * only the tests performed (NAN entries are not tests). */
	for (size_t i = 0; i < n; i++)
		if (isnan(p[i]))
			ret_q[i] = NAN;
	double run = 1;

	for (size_t r = m; r-- > 0;) {
		double q = s[r].p * (double)m / (double)(r + 1);

		run = fmin(run, q);
		ret_q[s[r].i] = run;
	}
	free(s);
	return 0;
}

double pmc_geomean(const double *x, size_t n)
{
	double mean = 0;
	size_t k = 0;

	if (!x)
		return NAN;
	/* exp of the mean log, accumulated with the same running-mean update as above so
	 * that many values neither overflow a product nor lose precision in a long sum. */
	for (size_t i = 0; i < n; i++) {
		if (!(x[i] > 0 && isfinite(x[i])))
			continue;
		k++;
		mean += (log(x[i]) - mean) / (double)k;
	}
	return k ? exp(mean) : NAN;
}

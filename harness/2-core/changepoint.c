/* Change points (changepoint.h).
 *
 * The candidate split is E-Divisive's (Matteson and James, "A Nonparametric Approach for
 * Multiple Change Point Analysis of Multivariate Data", JASA 2014, eq. 4-6, with
 * alpha = 1): for a split of a segment at tau, with its right side ending at kappa,
 * Q = tau (kappa - tau) / kappa * (2/(tau (kappa - tau)) * between - within X / C(tau, 2)
 * - within Y / C(kappa - tau, 2)), sums of |z_i - z_j|; the candidate maximizes it.
 *
 * The test is analytic, not a permutation test: Fleming et al. ("Hunter: Using Change
 * Point Detection to Hunt for Performance Regressions", ICPE 2023) replaced
 * E-Divisive's permutation test by Student's t-test between the two sides of the
 * candidate, for speed (a permutation test costs R searches of the segment; 1999 x
 * O(m^2) for every change) and determinism. Here the rank analogue of their t-test judges
 * the candidate: Mann-Whitney's U between the two sides, in its normal approximation with
 * the correction for ties (Lehmann, "Nonparametrics: Statistical Methods Based on
 * Ranks", 1975, chapter 1). The candidate is
 * the best of the segment's m - 2 min_size + 1 splits, so its p-value is multiplied by
 * their number (Bonferroni): with no change anywhere in the segment, the chance that any
 * split reaches alpha is at most alpha, which the t-test of one chosen split does not
 * promise. Ranks, because a benchmark series has outliers (a noisy neighbour, a
 * page-cache miss) and its own noise level: on ranks an outlier weighs no more than the
 * largest ordinary point, and the test is the same for every series whatever its scale
 * or spread. Matteson and James's statistic on raw values lets one outlier of 100x carry
 * a whole split.
 *
 * One segment at a time: each segment is split and tested on its own points (binary
 * segmentation), and a final pass places each change point by the two-sample statistic
 * between its neighbours. So a change point depends only on the points between its
 * neighbouring change points: appending points after the last one moves only the last
 * segment, and the answer is the same on every run (Fleming et al., section 4, name both
 * as what a CI needs of E-Divisive: determinism and stability as the series grows).
 *
 * The statistic with kappa fixed at the end of the segment, which the test and the
 * placing use, costs O(m log m): the points join X one at a time, and the sum of the
 * distances of a point to X comes from a Fenwick tree of X's counts and sums in the
 * points' sorted order. The search over kappa too costs O(m^2) and serves plain
 * E-Divisive (raw), which keeps the permutation test of the method as published: the
 * p-value of a split is (1 + k) / (1 + R) for k of R permutations whose best split scores
 * at least the observed one; the permutations stop as soon as k makes the split
 * insignificant. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/changepoint.h"
#include "core/changepoint_priv.h"
#include "core/stats.h"

#define CHANGEPOINT_ALPHA 0.001
#define DEFAULT_PERMUTATIONS 1999
#define DEFAULT_MIN_SIZE 4

static int scratch_room(struct scratch *s, size_t m)
{
	double *b;

	if (m <= s->cap)
		return 0;
	if (m > SIZE_MAX / (4 * sizeof(double)) - 1)
		return -ENOMEM;
	b = realloc(s->buf, 4 * (m + 1) * sizeof(double));
	if (!b)
		return -ENOMEM;
	s->buf = b;
	s->cap = m;
	return 0;
}

/* O(m^2) time, O(m) room: point k joins every Y that reaches it, its distances to the
 * points before it summed once into a prefix column. */
static int best_split(struct scratch *s, const double *z, size_t m, size_t min_size,
		      size_t *ret_tau, size_t *ret_kappa, double *ret_q)
{
	double best = -INFINITY, *col, *between, *wy, *wx;
	size_t bt = 0, bk = 0;
	int r;

	if (min_size < 2 || m < 2 * min_size)
		return -EINVAL;
	r = scratch_room(s, m);
	if (r < 0)
		return r;
	col = s->buf;
	between = col + (m + 1);
	wy = between + (m + 1);
	wx = wy + (m + 1);
	memset(between, 0, 3 * (m + 1) * sizeof(double));
	for (size_t k = 0; k < m; k++) {
		double acc = 0;

		/* col[j]: the distances of z[k] to z[0..j). */
		col[0] = 0;
		for (size_t i = 0; i < k; i++) {
			acc += fabs(z[i] - z[k]);
			col[i + 1] = acc;
		}
		/* X = z[0..k+1) has the pairs of z[0..k) and z[k]'s to them. */
		wx[k + 1] = wx[k] + col[k];
		for (size_t tau = 1; tau <= k; tau++) {
			between[tau] += col[tau];
			wy[tau] += col[k] - col[tau];
		}
		/* kappa = k + 1: every tau with min_size points on each side. */
		for (size_t tau = min_size; tau + min_size <= k + 1; tau++) {
			double n1 = (double)tau, n2 = (double)(k + 1 - tau), e, q;

			e = 2 * between[tau] / (n1 * n2) - 2 * wx[tau] / (n1 * (n1 - 1)) -
			    2 * wy[tau] / (n2 * (n2 - 1));
			q = n1 * n2 / (n1 + n2) * e;
			if (q > best) {
				best = q;
				bt = tau;
				bk = k + 1;
			}
		}
	}
	*ret_tau = bt;
	*ret_kappa = bk;
	*ret_q = best;
	return 0;
}

/* Sorts a[0..m-1], given in the order of their i, by v and then i (so ties keep their
 * order), through tmp of m: a stable merge sort of runs of 16 sorted by insertion, by
 * value alone, without qsort's call a comparison. */
static void sort_ranked(struct ranked *a, size_t m, struct ranked *tmp)
{
	struct ranked *src = a, *dst = tmp, *t;

	for (size_t lo = 0; lo < m; lo += 16) {
		size_t hi = lo + 16 < m ? lo + 16 : m;

		for (size_t i = lo + 1; i < hi; i++) {
			struct ranked e = a[i];
			size_t j = i;

			for (; j > lo && e.v < a[j - 1].v; j--)
				a[j] = a[j - 1];
			a[j] = e;
		}
	}
	for (size_t w = 16; w < m; w *= 2) {
		for (size_t lo = 0; lo < m; lo += 2 * w) {
			size_t mid = lo + w < m ? lo + w : m, hi = lo + 2 * w < m ? lo + 2 * w : m;
			size_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				dst[k++] = src[j].v < src[i].v ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, m * sizeof(*a));
}

static void fixed_free(struct fixed *f)
{
	free(f->sorted);
	free(f->place);
	free(f->tot);
	free(f->cnt);
	free(f->sum);
}

static int fixed_room(struct fixed *f, size_t m)
{
	if (m <= f->cap)
		return 0;
	fixed_free(f);
	*f = (struct fixed){
	    .sorted = malloc(2 * m * sizeof(*f->sorted)), /* and the sort's room */
	    .place = malloc(m * sizeof(size_t)),
	    .tot = malloc(m * sizeof(double)),
	    .cnt = malloc((m + 1) * sizeof(double)),
	    .sum = malloc((m + 1) * sizeof(double)),
	};
	if (!f->sorted || !f->place || !f->tot || !f->cnt || !f->sum) {
		fixed_free(f);
		*f = (struct fixed){0};
		return -ENOMEM;
	}
	f->cap = m;
	return 0;
}

/* The count and the sum of the points of X before place k (Fenwick prefix). */
static void fen_prefix(const struct fixed *f, size_t k, double *ret_cnt, double *ret_sum)
{
	double c = 0, s = 0;

	for (; k > 0; k -= k & -k) {
		c += f->cnt[k];
		s += f->sum[k];
	}
	*ret_cnt = c;
	*ret_sum = s;
}

static void fen_add(struct fixed *f, size_t m, size_t place, double v)
{
	for (size_t k = place + 1; k <= m; k += k & -k) {
		f->cnt[k] += 1;
		f->sum[k] += v;
	}
}

/* The best split of z[0..m-1] with kappa = m, in O(m log m): as z[t] moves from Y to X,
 * between gains its distances to Y and loses those to X, within X gains those to X, and
 * within Y is what the total leaves. The values are taken less their least, so that the
 * sums stay small beside the distances. */
static int best_split_fixed(struct fixed *f, const double *z, size_t m, size_t min_size,
			    size_t *ret_tau, double *ret_q)
{
	double lo, sum = 0, acc = 0, all = 0, between = 0, wx = 0, best = -INFINITY, xs = 0;
	size_t bt = 0;
	int r;

	if (min_size < 2 || m < 2 * min_size)
		return -EINVAL;
	r = fixed_room(f, m);
	if (r < 0)
		return r;
	for (size_t i = 0; i < m; i++)
		f->sorted[i] = (struct ranked){z[i], i};
	sort_ranked(f->sorted, m, f->sorted + m);
	lo = f->sorted[0].v;
	for (size_t k = 0; k < m; k++)
		sum += f->sorted[k].v - lo;
	/* The k-th smallest is v above the k below it (their sum acc) and below the m - 1 - k
	 * above it; all: every pair of the segment once. */
	for (size_t k = 0; k < m; k++) {
		double v = f->sorted[k].v - lo, t;

		t = v * (double)k - acc + (sum - acc - v) - v * (double)(m - 1 - k);
		f->place[f->sorted[k].i] = k;
		f->tot[f->sorted[k].i] = t;
		all += t / 2;
		acc += v;
	}
	memset(f->cnt, 0, (m + 1) * sizeof(double));
	memset(f->sum, 0, (m + 1) * sizeof(double));
	for (size_t t = 0; t + min_size <= m; t++) {
		double v, c_lo, s_lo, d;

		if (t >= min_size) {
			double n1 = (double)t, n2 = (double)(m - t), wy = all - wx - between, e, q;

			e = 2 * between / (n1 * n2) - 2 * wx / (n1 * (n1 - 1)) -
			    2 * wy / (n2 * (n2 - 1));
			q = n1 * n2 / (n1 + n2) * e;
			if (q > best) {
				best = q;
				bt = t;
			}
		}
		/* z[t]'s distances to X: those below it in the sorted order and those above. */
		v = z[t] - lo;
		fen_prefix(f, f->place[t], &c_lo, &s_lo);
		d = v * c_lo - s_lo + (xs - s_lo) - v * ((double)t - c_lo);
		between += f->tot[t] - 2 * d;
		wx += d;
		xs += v;
		fen_add(f, m, f->place[t], v);
	}
	*ret_tau = bt;
	*ret_q = best;
	return 0;
}

int pmc_cp_best_split(const double *z, size_t m, size_t min_size, bool fixed_kappa, size_t *ret_tau,
		      size_t *ret_kappa, double *ret_q)
{
	struct scratch s = {NULL, 0};
	struct fixed f = {0};
	int r;

	if (min_size < 2)
		min_size = 2;
	if (fixed_kappa) {
		r = best_split_fixed(&f, z, m, min_size, ret_tau, ret_q);
		fixed_free(&f);
		if (r == 0)
			*ret_kappa = m;
		return r;
	}
	r = best_split(&s, z, m, min_size, ret_tau, ret_kappa, ret_q);
	free(s.buf);
	return r;
}

/* splitmix64 (Steele, Lea and Flood, OOPSLA 2014): a seeded stream per segment. */
static uint64_t next_u64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) without modulo bias (rejection of the short last block). */
static size_t below(uint64_t *state, size_t n)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % n, v;

	do
		v = next_u64(state);
	while (v >= limit);
	return (size_t)(v % n);
}

/* Mid-ranks of x[0..m-1], scaled to (0, 1], in z, and the sum of t^3 - t over the groups
 * of t tied values in *ret_ties (NULL: not wanted). */
static int ranks(const double *x, size_t m, double *z, double *ret_ties)
{
	double ties = 0;

	struct ranked *r = malloc(2 * m * sizeof(*r) + 1);

	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < m; i++)
		r[i] = (struct ranked){x[i], i};
	sort_ranked(r, m, r + m);
	for (size_t i = 0; i < m;) {
		size_t j = i;

		while (j < m && r[j].v == r[i].v)
			j++;
		/* Ranks i+1 .. j share their mean. */
		for (size_t k = i; k < j; k++)
			z[r[k].i] = ((double)(i + 1 + j) / 2) / (double)m;
		ties += ((double)(j - i) * (double)(j - i) - 1) * (double)(j - i);
		i = j;
	}
	free(r);
	if (ret_ties)
		*ret_ties = ties;
	return 0;
}

/* Mann-Whitney's two-sided p-value, in the normal approximation with the correction for
 * ties and for continuity, of z[0..tau) against z[tau..m), mid-ranks scaled by 1/m with
 * ties the sum of t^3 - t over their groups of ties; 1 when every point ties. */
static double mann_whitney_p(const double *z, size_t m, size_t tau, double ties)
{
	double n1 = (double)tau, n2 = (double)(m - tau), nm = (double)m, r1 = 0, u, var, dev;

	for (size_t i = 0; i < tau; i++)
		r1 += z[i] * nm;
	u = r1 - n1 * (n1 + 1) / 2;
	var = n1 * n2 / 12 * (nm + 1 - ties / (nm * (nm - 1)));
	if (!(var > 0))
		return 1;
	dev = fmax(fabs(u - n1 * n2 / 2) - 0.5, 0);
	return erfc(dev / sqrt(var) / M_SQRT2);
}

/* Whether x[a..b)'s best split on ranks is significant: its Mann-Whitney p-value times
 * the number of splits the candidate was chosen among, in *ret_p. */
int pmc_cp_test(struct cp_ctx *c, size_t a, size_t b, size_t *ret_tau, double *ret_q, double *ret_p)
{
	size_t m = b - a;
	double ties;
	int r = ranks(c->x + a, m, c->z, &ties);

	if (r == 0)
		r = best_split_fixed(&c->f, c->z, m, c->min_size, ret_tau, ret_q);
	if (r < 0)
		return r;
	*ret_p =
	    fmin(1, mann_whitney_p(c->z, m, *ret_tau, ties) * (double)(m - 2 * c->min_size + 1));
	return 0;
}

/* Plain E-Divisive's test of x[a..b): its best split over tau and kappa on the values,
 * the permutation p-value in *ret_p (1 when it cannot reach alpha). */
static int test_permutations(struct cp_ctx *c, size_t a, size_t b, size_t *ret_tau, double *ret_q,
			     double *ret_p)
{
	size_t m = b - a, kappa, t2, k2, hits = 0;
	double q2;
	uint64_t state;
	int r;

	memcpy(c->z, c->x + a, m * sizeof(double));
	r = best_split(&c->s, c->z, m, c->min_size, ret_tau, &kappa, ret_q);
	if (r < 0)
		return r;
	*ret_p = 1;
	if (!(*ret_q > 0))
		return 0;
	state = c->seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(a + 1)) ^
		(0xc2b2ae3d27d4eb4fULL * (uint64_t)m);
	memcpy(c->perm, c->z, m * sizeof(double));
	for (size_t done = 0; done < c->perms; done++) {
		for (size_t i = m - 1; i > 0; i--) {
			size_t j = below(&state, i + 1);
			double t = c->perm[i];

			c->perm[i] = c->perm[j];
			c->perm[j] = t;
		}
		r = best_split(&c->s, c->perm, m, c->min_size, &t2, &k2, &q2);
		if (r < 0)
			return r;
		if (q2 >= *ret_q)
			hits++;
		/* Past this many hits the split cannot reach alpha. */
		if ((double)(hits + 1) > c->alpha * (double)(c->perms + 1))
			return 0;
	}
	*ret_p = (double)(hits + 1) / (double)(c->perms + 1);
	return 0;
}

/* Splits x[a..b) when its best split is significant, then each side; each segment's
 * answer depends on its own points (and the seed) only. */
int pmc_cp_segment(struct cp_ctx *c, size_t a, size_t b)
{
	size_t tau;
	double q, p;
	int r;

	if (b - a < 2 * c->min_size)
		return 0;
	r = c->raw ? test_permutations(c, a, b, &tau, &q, &p) : pmc_cp_test(c, a, b, &tau, &q, &p);
	if (r < 0)
		return r;
	if (!(q > 0) || p > c->alpha)
		return 0;
	r = pmc_cp_add(c, a + tau, c->seen, q, p);
	if (r == 0)
		r = pmc_cp_segment(c, a, a + tau);
	if (r == 0)
		r = pmc_cp_segment(c, a + tau, b);
	return r;
}

static int cmp_cp(const void *a, const void *b)
{
	const struct pmc_changepoint *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

/* The median of x[0..n-1] (core's one median), through the scratch tmp. */
static double median_of(const double *x, size_t n, double *tmp)
{
	memcpy(tmp, x, n * sizeof(double));
	return pmc_median(tmp, n);
}

/* The values of x[a..b) for placing a change point, in c->z: clipped to Tukey's far
 * fences (Q1 - 3 IQR, Q3 + 3 IQR). Ranks find and test a change, but cannot place it
 * between equally separated splits (a point at the edge of both levels ranks between
 * them either way, and the split nearer the middle wins); the values can, and clipped
 * an outlier still cannot pull the place towards it. Ranks when the IQR is 0. */
static int prepare_place(struct cp_ctx *c, size_t a, size_t b)
{
	size_t m = b - a;
	double q1, q3, lo, hi;

	if (c->raw) {
		memcpy(c->z, c->x + a, m * sizeof(double));
		return 0;
	}
	memcpy(c->perm, c->x + a, m * sizeof(double));
	pmc_stats_sort(c->perm, m);
	q1 = c->perm[(m - 1) / 4];
	q3 = c->perm[(3 * (m - 1)) / 4];
	if (!(q3 > q1))
		return ranks(c->x + a, m, c->z, NULL);
	lo = q1 - 3 * (q3 - q1);
	hi = q3 + 3 * (q3 - q1);
	for (size_t i = 0; i < m; i++)
		c->z[i] = fmin(fmax(c->x[a + i], lo), hi);
	return 0;
}

/* The place of a change between a and b by the two-sample statistic (kappa fixed at b)
 * on the clipped values, in *ret_at (left as it is when [a, b) is too short). */
int pmc_cp_place(struct cp_ctx *c, size_t a, size_t b, size_t *ret_at)
{
	size_t tau = *ret_at - a;
	double q;
	int r = prepare_place(c, a, b);

	if (r == 0 && b - a >= 2 * c->min_size)
		r = best_split_fixed(&c->f, c->z, b - a, c->min_size, &tau, &q);
	if (r == 0)
		*ret_at = a + tau;
	return r;
}

/* Places the change points cps[from..ncps), found in [a, b), each between its
 * neighbours there. */
int pmc_cp_place_range(struct cp_ctx *c, size_t from, size_t a, size_t b)
{
	/* None to place: cps may still be NULL, which qsort must not be given (C11 7.22.5). */
	if (from >= c->ncps)
		return 0;
	qsort(c->cps + from, c->ncps - from, sizeof(*c->cps), cmp_cp);
	for (size_t k = from; k < c->ncps; k++) {
		size_t lo = k > from ? c->cps[k - 1].index : a;
		size_t hi = k + 1 < c->ncps ? c->cps[k + 1].index : b;
		int r = pmc_cp_place(c, lo, hi, &c->cps[k].index);

		if (r < 0)
			return r;
	}
	return 0;
}

/* The sum of |z_i - z_j| over the pairs of z[0..m-1], through the scratch tmp. */
static double pair_sum(const double *z, size_t m, double *tmp)
{
	double sum = 0;

	memcpy(tmp, z, m * sizeof(double));
	pmc_stats_sort(tmp, m);
	for (size_t k = 0; k < m; k++)
		sum += tmp[k] * (2 * (double)k + 1 - (double)m);
	return sum;
}

/* The statistic and the test of the change point at a + tau on ranks, between a and b
 * (its neighbours), as a segment's candidate is tested (pmc_cp_test). */
static int test_between(struct cp_ctx *c, size_t a, size_t b, size_t tau, double *ret_q,
			double *ret_p)
{
	size_t m = b - a;
	double ties, n1 = (double)tau, n2 = (double)(m - tau), wx, wy, between, e;
	int r = ranks(c->x + a, m, c->z, &ties);

	if (r < 0)
		return r;
	wx = pair_sum(c->z, tau, c->perm);
	wy = pair_sum(c->z + tau, m - tau, c->perm);
	between = pair_sum(c->z, m, c->perm) - wx - wy;
	e = 2 * between / (n1 * n2) - 2 * wx / (n1 * (n1 - 1)) - 2 * wy / (n2 * (n2 - 1));
	*ret_q = n1 * n2 / (n1 + n2) * e;
	*ret_p = fmin(1, mann_whitney_p(c->z, m, tau, ties) * (double)(m - 2 * c->min_size + 1));
	return 0;
}

/* Describes the two segments each change point separates; for the rank way, its
 * statistic and p-value between them, with every point they hold now. */
static int describe(struct cp_ctx *c)
{
	for (size_t k = 0; k < c->ncps; k++) {
		struct pmc_changepoint *cp = &c->cps[k];
		size_t a = k ? c->cps[k - 1].index : 0;
		size_t b = k + 1 < c->ncps ? c->cps[k + 1].index : c->n;
		int r;

		cp->seg_start = a;
		cp->seg_end = b;
		if (!c->raw && (r = test_between(c, a, b, cp->index - a, &cp->q, &cp->p)) < 0)
			return r;
		cp->before = median_of(c->x + a, cp->index - a, c->perm);
		cp->after = median_of(c->x + cp->index, b - cp->index, c->perm);
		r = pmc_ratio_ci(c->x + a, cp->index - a, c->x + cp->index, b - cp->index, 0.95,
				 NULL, &cp->ratio, &cp->ratio_lo, &cp->ratio_hi);
		if (r == -ENOMEM)
			return r;
		if (r == -EINVAL) {
			cp->ratio = cp->before != 0 ? cp->after / cp->before : NAN;
			cp->ratio_lo = cp->ratio_hi = NAN;
		}
	}
	return 0;
}

int pmc_cp_add(struct cp_ctx *c, size_t index, size_t reported_n, double q, double p)
{
	struct pmc_changepoint *grown = realloc(c->cps, (c->ncps + 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	c->cps = grown;
	c->cps[c->ncps++] = (struct pmc_changepoint){
	    .index = index, .first_index = index, .reported_n = reported_n, .q = q, .p = p};
	return 0;
}

/* The change points of an exact series (o->exact): its levels are the runs of at least
 * min_size equal values, and a change lies between two successive levels of different
 * values, placed at the first point after the earlier level (the first that left it),
 * with the ratio of the two levels as its size and interval. The points between two
 * levels (a blip, a step still too short to be a level) belong to neither. Returns 1
 * when fewer than half of the points lie in levels: the series is not piecewise
 * constant, and the rank way judges it. */
static int exact_changes(struct cp_ctx *c)
{
	size_t covered = 0, prev_start = 0, prev_end = 0;
	bool have_prev = false;

	for (size_t i = 0, j; i < c->n; i = j) {
		for (j = i + 1; j < c->n && c->x[j] == c->x[i]; j++)
			;
		if (j - i < c->min_size)
			continue;
		covered += j - i;
		if (have_prev && c->x[i] != c->x[prev_start]) {
			struct pmc_changepoint *grown =
			    realloc(c->cps, (c->ncps + 1) * sizeof(*grown));
			double a = c->x[prev_start], b = c->x[i];

			if (!grown)
				return -ENOMEM;
			c->cps = grown;
			c->cps[c->ncps++] = (struct pmc_changepoint){
			    .index = prev_end,
			    .first_index = prev_end,
			    .reported_n = i + c->min_size,
			    .q = NAN,
			    .p = 0,
			    .exact = true,
			    .before = a,
			    .after = b,
			    .ratio = a != 0 ? b / a : NAN,
			    .ratio_lo = a != 0 ? b / a : NAN,
			    .ratio_hi = a != 0 ? b / a : NAN,
			};
		}
		have_prev = true;
		prev_start = i;
		prev_end = j;
	}
	if (2 * covered < c->n) {
		free(c->cps);
		c->cps = NULL;
		c->ncps = 0;
		return 1;
	}
	for (size_t k = 0; k < c->ncps; k++) {
		c->cps[k].seg_start = k ? c->cps[k - 1].index : 0;
		c->cps[k].seg_end = k + 1 < c->ncps ? c->cps[k + 1].index : c->n;
	}
	return 0;
}

int pmc_changepoints(const double *x, size_t n, const struct pmc_cp_opts *o,
		     struct pmc_changepoint **ret, size_t *ret_n)
{
	return pmc_changepoints_withdrawn(x, n, o, ret, ret_n, NULL, NULL);
}

int pmc_changepoints_withdrawn(const double *x, size_t n, const struct pmc_cp_opts *o,
			       struct pmc_changepoint **ret, size_t *ret_n,
			       struct pmc_cp_withdrawn **ret_w, size_t *ret_nw)
{
	struct cp_ctx c = {.x = x, .n = n, .seen = n, .wd_on = ret_w != NULL};
	int r;

	if (ret_w) {
		*ret_w = NULL;
		*ret_nw = 0;
	}

	c.alpha = o && o->alpha ? o->alpha : CHANGEPOINT_ALPHA;
	c.perms = o && o->permutations ? o->permutations : DEFAULT_PERMUTATIONS;
	c.min_size = o && o->min_size ? o->min_size : DEFAULT_MIN_SIZE;
	c.seed = o ? o->seed : 0;
	c.raw = o && o->raw;
	if (!(c.alpha > 0 && c.alpha < 1) || c.min_size < 2 || (!x && n))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return -EINVAL;
	if (o && o->exact && !c.raw && (r = exact_changes(&c)) <= 0) {
		if (r < 0) {
			free(c.cps);
			return r;
		}
		*ret = c.cps;
		*ret_n = c.ncps;
		return 0;
	}
	c.z = malloc((n + 1) * sizeof(double));
	c.perm = malloc((n + 1) * sizeof(double));
	if (!c.z || !c.perm)
		r = -ENOMEM;
	else if (!c.raw)
		r = pmc_cp_sequential(&c);
	else if ((r = pmc_cp_segment(&c, 0, n)) == 0)
		r = pmc_cp_place_range(&c, 0, 0, n);
	if (r == 0)
		r = describe(&c);
	pmc_cp_scan_free(&c.scan);
	pmc_cp_split_free(&c.last);
	free(c.s.buf);
	fixed_free(&c.f);
	free(c.z);
	free(c.perm);
	if (r < 0) {
		free(c.cps);
		free(c.wd);
		return r;
	}
	*ret = c.cps;
	*ret_n = c.ncps;
	if (ret_w) {
		*ret_w = c.wd;
		*ret_nw = c.nwd;
	}
	return 0;
}

int pmc_cp_current_level(const double *x, size_t n, const struct pmc_cp_opts *o, size_t *ret_start)
{
	struct pmc_changepoint *cps = NULL;
	size_t ncps = 0, start = n;
	int r;

	if (n == 0) {
		*ret_start = 0;
		return 0;
	}
	if (o && o->exact) {
		while (start > 0 && x[start - 1] == x[n - 1])
			start--;
		*ret_start = start;
		return 0;
	}
	r = pmc_changepoints(x, n, o, &cps, &ncps);
	if (r < 0)
		return r;
	*ret_start = ncps ? cps[ncps - 1].index : 0;
	free(cps);
	return 0;
}

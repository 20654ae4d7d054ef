/* Change points (changepoint.h).
 *
 * The statistic is E-Divisive's (Matteson and James, "A Nonparametric Approach for
 * Multiple Change Point Analysis of Multivariate Data", JASA 2014, eq. 4-6, with
 * alpha = 1): for a split of a segment at tau, with its right side ending at kappa,
 * Q = tau (kappa - tau) / kappa * (2/(tau (kappa - tau)) * between - within X / C(tau, 2)
 * - within Y / C(kappa - tau, 2)), sums of |z_i - z_j|; the candidate maximizes it over
 * tau and kappa, and a permutation test of the segment's points judges it (section 3.2).
 *
 * Two departures, each for a reason the issue gives:
 *  - Ranks. The statistic is computed on the mid-ranks of the segment's values, not on
 *    the values. A benchmark's series has outliers (a noisy neighbour, a page-cache
 *    miss) and its own noise level; on ranks an outlier weighs no more than the largest
 *    ordinary point, and the statistic, its null distribution and hence the test are
 *    the same for every series of a length whatever its scale or spread (distribution
 *    free, ties aside). Matteson and James's statistic on raw values lets one outlier of
 *    100x carry a whole split; winsorizing would need a scale to cut at, ranks need
 *    none. Changes of location, as well as of spread or shape, still move ranks.
 *  - One segment at a time. Each segment is split and tested on its own (binary
 *    segmentation), its permutations seeded by the segment's place and length, and a
 *    final pass places each change point by the two-sample statistic between its
 *    neighbours. So a change point depends only on the points between its neighbouring
 *    change points: appending points after the last one moves only the last segment,
 *    and the answer is the same on every run (Fleming et al., "Hunter", ICPE 2023,
 *    section 4, name both as what a CI needs of E-Divisive: determinism and stability
 *    as the series grows).
 *
 * The p-value of a split is (1 + k) / (1 + R) for k of R permutations whose best split
 * scores at least the observed one (never 0). The permutations stop as soon as k makes
 * the split insignificant, so a segment without a change costs a few permutations. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/changepoint.h"
#include "core/stats.h"

#define DEFAULT_ALPHA 0.001
#define DEFAULT_PERMUTATIONS 1999
#define DEFAULT_MIN_SIZE 4

/* Scratch of one segment's statistic, 4 m doubles: for each tau, the distances between
 * X = z[0..tau) and Y = z[tau..kappa) and within Y, as kappa grows, and within X. */
struct scratch {
	double *buf;
	size_t cap; /* m it has room for */
};

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
		      bool fixed_kappa, size_t *ret_tau, size_t *ret_kappa, double *ret_q)
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
		if (fixed_kappa && k + 1 != m)
			continue;
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

int pmc_cp_best_split(const double *z, size_t m, size_t min_size, bool fixed_kappa, size_t *ret_tau,
		      size_t *ret_kappa, double *ret_q)
{
	struct scratch s = {NULL, 0};
	int r = best_split(&s, z, m, min_size < 2 ? 2 : min_size, fixed_kappa, ret_tau, ret_kappa,
			   ret_q);

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

struct ranked {
	double v;
	size_t i;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Mid-ranks of x[0..m-1], scaled to (0, 1], in z. */
static int ranks(const double *x, size_t m, double *z)
{
	struct ranked *r = malloc(m * sizeof(*r));

	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < m; i++)
		r[i] = (struct ranked){x[i], i};
	qsort(r, m, sizeof(*r), cmp_ranked);
	for (size_t i = 0; i < m;) {
		size_t j = i;

		while (j < m && r[j].v == r[i].v)
			j++;
		/* Ranks i+1 .. j share their mean. */
		for (size_t k = i; k < j; k++)
			z[r[k].i] = ((double)(i + 1 + j) / 2) / (double)m;
		i = j;
	}
	free(r);
	return 0;
}

struct ctx {
	const double *x;
	size_t n;
	double alpha;
	size_t perms, min_size;
	uint64_t seed;
	bool raw;
	struct scratch s;
	double *z, *perm; /* n each */
	struct pmc_changepoint *cps;
	size_t ncps;
};

/* The statistic's input for x[a..b) in c->z[0..b-a). */
static int prepare(struct ctx *c, size_t a, size_t b)
{
	if (c->raw) {
		memcpy(c->z, c->x + a, (b - a) * sizeof(double));
		return 0;
	}
	return ranks(c->x + a, b - a, c->z);
}

/* Splits x[a..b) when its best split is significant, then each side; each segment's
 * answer depends on its own points (and the seed) only. */
static int segment(struct ctx *c, size_t a, size_t b)
{
	size_t m = b - a, tau, kappa, t2, k2, hits = 0, done;
	double q, q2;
	uint64_t state;
	int r;

	if (m < 2 * c->min_size)
		return 0;
	r = prepare(c, a, b);
	if (r == 0)
		r = best_split(&c->s, c->z, m, c->min_size, false, &tau, &kappa, &q);
	if (r < 0)
		return r;
	if (!(q > 0))
		return 0;
	state = c->seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(a + 1)) ^
		(0xc2b2ae3d27d4eb4fULL * (uint64_t)m);
	memcpy(c->perm, c->z, m * sizeof(double));
	for (done = 0; done < c->perms; done++) {
		for (size_t i = m - 1; i > 0; i--) {
			size_t j = below(&state, i + 1);
			double t = c->perm[i];

			c->perm[i] = c->perm[j];
			c->perm[j] = t;
		}
		r = best_split(&c->s, c->perm, m, c->min_size, false, &t2, &k2, &q2);
		if (r < 0)
			return r;
		if (q2 >= q)
			hits++;
		/* Past this many hits the split cannot reach alpha. */
		if ((double)(hits + 1) > c->alpha * (double)(c->perms + 1))
			return 0;
	}
	{
		struct pmc_changepoint *grown = realloc(c->cps, (c->ncps + 1) * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		c->cps = grown;
		c->cps[c->ncps++] = (struct pmc_changepoint){
		    .index = a + tau,
		    .q = q,
		    .p = (double)(hits + 1) / (double)(c->perms + 1),
		};
	}
	r = segment(c, a, a + tau);
	if (r == 0)
		r = segment(c, a + tau, b);
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
static int prepare_place(struct ctx *c, size_t a, size_t b)
{
	size_t m = b - a;
	double q1, q3, lo, hi;

	if (c->raw)
		return prepare(c, a, b);
	memcpy(c->perm, c->x + a, m * sizeof(double));
	pmc_stats_sort(c->perm, m);
	q1 = c->perm[(m - 1) / 4];
	q3 = c->perm[(3 * (m - 1)) / 4];
	if (!(q3 > q1))
		return ranks(c->x + a, m, c->z);
	lo = q1 - 3 * (q3 - q1);
	hi = q3 + 3 * (q3 - q1);
	for (size_t i = 0; i < m; i++)
		c->z[i] = fmin(fmax(c->x[a + i], lo), hi);
	return 0;
}

/* Places each change point between its neighbours by the two-sample statistic (kappa
 * fixed at the next one) on the clipped values, and describes the two segments it
 * separates. */
static int settle(struct ctx *c)
{
	for (size_t k = 0; k < c->ncps; k++) {
		size_t a = k ? c->cps[k - 1].index : 0;
		size_t b = k + 1 < c->ncps ? c->cps[k + 1].index : c->n;
		size_t tau = c->cps[k].index - a, kappa;
		double q;
		int r = prepare_place(c, a, b);

		if (r == 0 && b - a >= 2 * c->min_size)
			r = best_split(&c->s, c->z, b - a, c->min_size, true, &tau, &kappa, &q);
		if (r < 0)
			return r;
		c->cps[k].index = a + tau;
	}
	for (size_t k = 0; k < c->ncps; k++) {
		struct pmc_changepoint *cp = &c->cps[k];
		size_t a = k ? c->cps[k - 1].index : 0;
		size_t b = k + 1 < c->ncps ? c->cps[k + 1].index : c->n;
		int r;

		cp->seg_start = a;
		cp->seg_end = b;
		cp->before = median_of(c->x + a, cp->index - a, c->perm);
		cp->after = median_of(c->x + cp->index, b - cp->index, c->perm);
		r = pmc_ratio_ci(c->x + a, cp->index - a, c->x + cp->index, b - cp->index, 0.95, NULL,
				 &cp->ratio, &cp->ratio_lo, &cp->ratio_hi);
		if (r == -ENOMEM)
			return r;
		if (r == -EINVAL) {
			cp->ratio = cp->before != 0 ? cp->after / cp->before : NAN;
			cp->ratio_lo = cp->ratio_hi = NAN;
		}
	}
	return 0;
}

int pmc_changepoints(const double *x, size_t n, const struct pmc_cp_opts *o,
		     struct pmc_changepoint **ret, size_t *ret_n)
{
	struct ctx c = {.x = x, .n = n};
	int r;

	c.alpha = o && o->alpha ? o->alpha : DEFAULT_ALPHA;
	c.perms = o && o->permutations ? o->permutations : DEFAULT_PERMUTATIONS;
	c.min_size = o && o->min_size ? o->min_size : DEFAULT_MIN_SIZE;
	c.seed = o ? o->seed : 0;
	c.raw = o && o->raw;
	if (!(c.alpha > 0 && c.alpha < 1) || c.min_size < 2 || (!x && n))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return -EINVAL;
	c.z = malloc((n + 1) * sizeof(double));
	c.perm = malloc((n + 1) * sizeof(double));
	r = c.z && c.perm ? segment(&c, 0, n) : -ENOMEM;
	if (r == 0 && c.ncps > 0) {
		qsort(c.cps, c.ncps, sizeof(*c.cps), cmp_cp);
		r = settle(&c);
	}
	free(c.s.buf);
	free(c.z);
	free(c.perm);
	if (r < 0) {
		free(c.cps);
		return r;
	}
	*ret = c.cps;
	*ret_n = c.ncps;
	return 0;
}

/* Change points as the series grows (changepoint_priv.h): the sequential detection, and
 * the looks at a growing segment it makes.
 *
 * The looks: for each split tau, Mann-Whitney's U of the first tau points against the
 * rest is the sum of their mid-ranks less tau (tau + 1) / 2. An appended value v raises the
 * mid-rank of every point above it by 1 and of every point equal to it by 1/2, so each prefix sum
 * gains the number of such points before it: one pass over the segment. The p-value of a split is
 * the one changepoint.c's test gives it (normal approximation, ties and continuity corrected).
 * A look that finds every split far from alpha proves that the next few must fail too
 * (skip_span); those points are only inserted, and one pass adds them all to the sums. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/changepoint.h"
#include "core/changepoint_priv.h"

void pmc_cp_scan_free(struct pmc_cp_scan *s)
{
	free(s->sorted);
	free(s->x);
	free(s->rsum);
	*s = (struct pmc_cp_scan){0};
}

static int room(struct pmc_cp_scan *s, size_t m)
{
	size_t cap = s->cap ? s->cap : 64;
	double *a, *b, *c;

	if (m <= s->cap)
		return 0;
	while (cap < m)
		cap *= 2;
	if (cap > SIZE_MAX / sizeof(double) - 1)
		return -ENOMEM;
	a = realloc(s->sorted, cap * sizeof(double));
	if (a)
		s->sorted = a;
	b = realloc(s->x, cap * sizeof(double));
	if (b)
		s->x = b;
	c = realloc(s->rsum, (cap + 1) * sizeof(double));
	if (c)
		s->rsum = c;
	if (!a || !b || !c)
		return -ENOMEM;
	s->cap = cap;
	return 0;
}

static size_t place_of(const double *sorted, size_t m, double v, bool above);
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int pmc_cp_scan_reset(struct pmc_cp_scan *s, const double *x, size_t m)
{
	int r = room(s, m + 1);

	if (r < 0)
		return r;
	memcpy(s->x, x, m * sizeof(double));
	memcpy(s->sorted, x, m * sizeof(double));
	qsort(s->sorted, m, sizeof(double), cmp_double);
	s->m = m;
	s->done = m;
	s->skip = 0;
	s->tmax = 0;
	s->ties = 0;
	s->rsum[0] = 0;
	for (size_t i = 0; i < m; i++) {
		size_t below = place_of(s->sorted, m, x[i], false);
		size_t upto = place_of(s->sorted, m, x[i], true);

		s->rsum[i + 1] = s->rsum[i] + (double)below + (double)(upto - below + 1) / 2;
	}
	for (size_t i = 0, j; i < m; i = j) {
		for (j = i + 1; j < m && s->sorted[j] == s->sorted[i]; j++)
			;
		s->ties += ((double)(j - i) * (double)(j - i) - 1) * (double)(j - i);
		if (j - i > s->tmax)
			s->tmax = j - i;
	}
	return 0;
}

/* The first place in sorted[0..m) whose value is not below v (at == 1: above v). */
static size_t place_of(const double *sorted, size_t m, double v, bool above)
{
	size_t lo = 0, hi = m;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sorted[mid] < v || (above && sorted[mid] == v))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The last of an append, once the prefixes' sums hold v: v's own mid-rank (past the
 * points below it, the middle of its group of ties), the ties' correction, and v in the
 * sorted copy and the series. below and upto: v's place in the sorted copy. */
static void insert_point(struct pmc_cp_scan *s, size_t m, double v, size_t below, size_t upto)
{
	double eq = (double)(upto - below);

	s->ties += 3 * eq * eq + 3 * eq;
	if (upto - below + 1 > s->tmax)
		s->tmax = upto - below + 1;
	memmove(s->sorted + upto + 1, s->sorted + upto, (m - upto) * sizeof(double));
	s->sorted[upto] = v;
	s->x[m] = v;
	s->m = m + 1;
}

/* The most looks skip_span may prove to fail: at most SKIP_MAX + 1 points wait. */
#define SKIP_MAX 16

/* Two doubles, and two masks of their comparison (GCC's and Clang's vector extension). */
typedef double v2d __attribute__((vector_size(16)));
typedef int64_t v2l __attribute__((vector_size(16)));

/* A point's mid-rank in the segment. */
static double midrank(const struct pmc_cp_scan *s, double v)
{
	size_t below = place_of(s->sorted, s->m, v, false);
	size_t upto = place_of(s->sorted, s->m, v, true);

	return (double)below + (double)(upto - below + 1) / 2;
}

/* Each waiting point p raises the mid-rank of every earlier point above it by 1 and of
 * every one equal to it by 1/2; a waiting point's own mid-rank is its rank among all m.
 * Every sum is of halves, so the same, bit for bit, as one append at a time. */
void pmc_cp_scan_flush(struct pmc_cp_scan *s)
{
	size_t d = s->done, k = s->m - d;
	const double *p = s->x + d;
	int64_t acc = 0; /* in halves: an integer chain, not a floating-point one */

	if (k == 1) {
		double v = p[0];

		for (size_t i = 0; i < d; i++) {
			acc += 2 * (s->x[i] > v) + (s->x[i] == v);
			s->rsum[i + 1] += 0.5 * (double)acc;
		}
	} else if (k > 1) {
		/* Pairs of waiting points, the last padded with NaN (above, equal to nothing),
		 * compared with each earlier point two at a time: 2 (x > p) + (x == p) is
		 * (x > p) + (x >= p), each true lane -1. */
		v2d pairs[(SKIP_MAX + 2) / 2];
		size_t np = (k + 1) / 2;

		for (size_t l = 0; l < np; l++)
			pairs[l] = (v2d){p[2 * l], 2 * l + 1 < k ? p[2 * l + 1] : NAN};
		for (size_t i = 0; i < d; i++) {
			v2d xi = {s->x[i], s->x[i]};
			v2l w = {0, 0};

			for (size_t l = 0; l < np; l++)
				w -= (v2l)(xi > pairs[l]) + (v2l)(xi >= pairs[l]);
			acc += w[0] + w[1];
			s->rsum[i + 1] += 0.5 * (double)acc;
		}
	}
	for (size_t i = d; i < s->m; i++)
		s->rsum[i + 1] = s->rsum[i] + midrank(s, s->x[i]);
	s->done = s->m;
}

/* v into the segment, not yet into rsum. */
static void add_point(struct pmc_cp_scan *s, double v)
{
	size_t m = s->m;

	insert_point(s, m, v, place_of(s->sorted, m, v, false), place_of(s->sorted, m, v, true));
}

int pmc_cp_scan_append(struct pmc_cp_scan *s, double v)
{
	int r = room(s, s->m + 1);

	if (r < 0)
		return r;
	add_point(s, v);
	pmc_cp_scan_flush(s);
	return 0;
}

/* The squared z of Mann-Whitney's test of the split at tau of m points, continuity
 * corrected, from the sum of the mid-ranks of its first tau; spread: m + 1 less the
 * ties' correction. */
static double z2_of(double rsum, size_t tau, size_t m, double spread)
{
	double n1 = (double)tau, n2 = (double)m - n1;
	double dev = fabs(rsum - n1 * (n1 + 1) / 2 - n1 * n2 / 2) - 0.5;

	return dev > 0 ? dev * dev / (n1 * n2 / 12 * spread) : 0;
}

static double spread_of(size_t m, double ties)
{
	double nm = (double)m;

	return nm + 1 - ties / (nm * (nm - 1));
}

/* A look's constants (look_prepare). */
struct look {
	double k, thr, spread, c, h;
};

/* The corrected p-value of a split of z^2 among k splits. */
static double p_of(double z2, double k)
{
	return erfc(sqrt(z2) / M_SQRT2) * k;
}

/* A z^2 below which p_of(z^2, k) is above thr, and by a margin that erfc's rounding
 * cannot close (so any split scoring below it fails, erfc being decreasing): Newton's
 * steps on erfc(x) = thr / k, which, erfc being convex, approach the root from below
 * after the first, taken a millionth short, and checked. 0 when the check fails. */
static double pass_floor(double thr, double k)
{
	double g = thr / k, x = sqrt(fmax(-log(g), 0)), z2;

	for (int i = 0; i < 60; i++) {
		double step = (erfc(x) - g) / (M_2_SQRTPI * exp(-x * x));

		x = fmax(x + step, 0);
		if (fabs(step) < 1e-12 * x)
			break;
	}
	z2 = 2 * x * x * (1 - 1e-6);
	return p_of(z2, k) > thr * (1 + 1e-12) ? z2 : 0;
}

/* The floors of this thread's looks, by the splits' number: a series replayed point by
 * point needs one at every 12% more splits, and a gate or `history changes` replays
 * thousands of series. The floor of k0 splits holds for any k >= k0 (pass_floor), so
 * each is kept for the first number of a class: k itself below 16, else k with all but
 * its top 4 bits cleared (a class spans less than 1/7 more). Only a filter of the
 * exact loop: which floor a look uses never changes its answer. */
#define FLOOR_CLASSES 512
static _Thread_local struct {
	double thr, z2;
} floors[FLOOR_CLASSES];

/* The floor of a look of k (at least 1) splits at thr, and the splits' number it is the
 * floor of, in *ret_k0. */
static double class_floor(double thr, double k, double *ret_k0)
{
	uint64_t n = k < 0x1p62 ? (uint64_t)k : UINT64_C(1) << 62;
	size_t cls = (size_t)n, e = 0;

	if (n >= 16) {
		while ((n >> e) >= 16)
			e++;
		n = (n >> e) << e;				 /* its top 4 bits */
		cls = 16 + (e - 1) * 8 + (size_t)((n >> e) - 8); /* (n >> e) in 8 .. 15 */
	}
	*ret_k0 = (double)n;
	if (cls >= FLOOR_CLASSES)
		return pass_floor(thr, (double)n);
	if (floors[cls].thr != thr) {
		floors[cls].z2 = pass_floor(thr, (double)n);
		floors[cls].thr = thr;
	}
	return floors[cls].z2;
}

/* The first look's loop: the largest z^2 of the splits, and its p-value. */
static bool passes(const struct pmc_cp_scan *s, size_t min_size, double spread, double k,
		   double thr)
{
	double best = 0;

	for (size_t tau = min_size; tau + min_size <= s->m; tau++) {
		double z2 = z2_of(s->rsum[tau], tau, s->m, spread);

		if (z2 > best)
			best = z2;
	}
	return p_of(best, k) <= thr;
}

/* What a look needs before its pass over the splits, for m points and their ties: the
 * splits' number k, the threshold thr, and c, below which a split's dev^2 / (n1 n2) fails.
 * Most looks fail far from alpha: a pass without a division or erfc shows that no split
 * reaches the floor, a z^2 below which a split fails (pass_floor, verified for the splits'
 * number k0 <= k, so for k too: the correction grows with k); only a split at or near it
 * costs the exact loop, which gives the same answer. False when no split can pass. */
static bool look_prepare(struct pmc_cp_scan *s, size_t m, double ties, size_t min_size,
			 double alpha, struct look *l)
{
	l->k = (double)m - 2 * (double)min_size + 1;
	/* A hair looser than the test, which sums the ranks in another order. */
	l->thr = alpha * (1 + 1e-9);
	if (m < 2 * min_size)
		return false;
	l->spread = spread_of(m, ties);
	if (!(l->spread > 0))
		return false;
	if (!(s->floor_k <= l->k && l->k <= 1.125 * s->floor_k && s->floor_thr == l->thr)) {
		s->floor_z2 = class_floor(l->thr, l->k, &s->floor_k);
		s->floor_thr = l->thr;
	}
	/* z2_of's dev^2 against floor n1 n2 spread / 12, its mean n1 (m + 1) / 2 in one
	 * product, a millionth short for rounding. */
	l->c = s->floor_z2 * (1 - 1e-6) * l->spread / 12;
	l->h = ((double)m + 1) / 2;
	return true;
}

/* Whether the split at tau (n1 = tau) of m points is near the floor. */
static inline bool near_floor(const struct look *l, double rsum, double n1, double nm)
{
	double dev = fabs(rsum - n1 * l->h) - 0.5;

	return dev * dev >= l->c * n1 * (nm - n1);
}

/* After a look at m points whose floor is F (a z^2 below which a split fails, for this
 * look's number of splits or fewer, so for every later look's), the most looks after it
 * that can be shown to fail, K, and g, a split's bound: the next K looks fail if every
 * split at tau, with n2 = m - tau, |D| its rank sum less tau (m + 1) / 2 and
 * e = |D| - 1/2, has
 *     (e + j tau / 2)^2 < g tau (n2 + j)   at j = 1 and j = K.
 * Why. An appended point adds to the first tau's rank sum the number of them above it
 * (halves for ties), 0 to tau, and to their mean rank tau / 2: after j points,
 * |D| <= |D| + j tau / 2, and z^2 = (|D| - 1/2)^2 / (tau n2 spread / 12) with n2 + j on the
 * right. The spread (m + 1 less the ties' correction) is at least S at each of the K looks,
 * S its least with every new point in the largest group of ties (the correction grows
 * most so); g = F S / 12, F a millionth short. The left side less the right is convex in
 * j, so below 0 at j = 1 and K it is below 0 between. A split whose left side holds a new
 * point (tau >= m, so n2 <= K, and K >= min_size) has |D| < tau n2 / 2, so
 * z^2 < 3 tau n2 / S <= 3 (m + K) K / S: K stops before that reaches F. */
static size_t skip_span(const struct pmc_cp_scan *s, size_t min_size, double *ret_g)
{
	double f = s->floor_z2 * (1 - 1e-6), t = (double)s->tmax, least = INFINITY;
	size_t k = 0;

	for (size_t j = 1; j <= SKIP_MAX && f > 0; j++) {
		double mj = (double)(s->m + j), tj = t + (double)j;
		double ties = s->ties + (tj * tj * tj - tj) - (t * t * t - t);
		double spread = fmin(least, mj + 1 - ties / (mj * (mj - 1)));

		if (!(spread > 0) || (j >= min_size && !(3 * mj * (double)j < f * spread)))
			break;
		least = spread;
		k = j;
	}
	*ret_g = k ? f * least / 12 : 0;
	return k;
}

/* Whether the split at tau of m points, |D| - 1/2 = e, keeps below the floor for the
 * next k looks (skip_span). */
static inline bool stays_below(double e, double n1, double n2, double k, double g)
{
	double a1 = e + n1 / 2, ak = e + k * n1 / 2;

	return a1 * a1 < g * n1 * (n2 + 1) && ak * ak < g * n1 * (n2 + k);
}

/* The look at the segment, its sums up to date; with prove, also how many of the next
 * looks must fail, in s->skip. */
static bool look(struct pmc_cp_scan *s, size_t min_size, double alpha, bool prove)
{
	struct look l;
	double n1 = (double)min_size, nm = (double)s->m, g = 0, kk;
	size_t k = 0, tau = min_size;
	bool near = false, below = true;

	s->skip = 0;
	if (!look_prepare(s, s->m, s->ties, min_size, alpha, &l))
		return false;
	if (prove)
		k = skip_span(s, min_size, &g);
	kk = (double)k;
	if (k == 0) {
		for (; tau + min_size <= s->m; tau++, n1 += 1)
			near |= near_floor(&l, s->rsum[tau], n1, nm);
	} else {
		for (; tau + min_size <= s->m; tau++, n1 += 1) {
			double e = fabs(s->rsum[tau] - n1 * l.h) - 0.5;

			near |= e * e >= l.c * n1 * (nm - n1);
			below &= stays_below(e, n1, nm - n1, kk, g);
		}
		/* The splits too close to the end to look at now: they will be. */
		for (; tau < s->m; tau++, n1 += 1)
			below &=
			    stays_below(fabs(s->rsum[tau] - n1 * l.h) - 0.5, n1, nm - n1, kk, g);
		if (below) {
			s->skip = k;
			s->skip_alpha = alpha;
			s->skip_min = min_size;
		}
	}
	return near && passes(s, min_size, l.spread, l.k, l.thr);
}

bool pmc_cp_scan_may_pass(struct pmc_cp_scan *s, size_t min_size, double alpha)
{
	pmc_cp_scan_flush(s);
	return look(s, min_size, alpha, false);
}

int pmc_cp_scan_append_look(struct pmc_cp_scan *s, double v, size_t min_size, double alpha,
			    bool *ret_may_pass)
{
	int r = room(s, s->m + 1);

	if (r < 0)
		return r;
	add_point(s, v);
	*ret_may_pass = false;
	if (s->skip && s->skip_alpha == alpha && s->skip_min == min_size) {
		s->skip--;
		return 0;
	}
	pmc_cp_scan_flush(s);
	*ret_may_pass = look(s, min_size, alpha, true);
	return 0;
}

double pmc_cp_scan_p(struct pmc_cp_scan *s, size_t tau, size_t min_size)
{
	double spread;

	pmc_cp_scan_flush(s);
	if (s->m < 2 * min_size || tau < min_size || tau + min_size > s->m)
		return 1;
	spread = spread_of(s->m, s->ties);
	if (!(spread > 0))
		return 1;
	return fmin(1, p_of(z2_of(s->rsum[tau], tau, s->m, spread),
			    (double)s->m - 2 * (double)min_size + 1));
}

void pmc_cp_split_free(struct pmc_cp_split *s)
{
	free(s->sorted);
	free(s->left);
	*s = (struct pmc_cp_split){0};
}

static int split_room(struct pmc_cp_split *s, size_t m)
{
	size_t cap = s->cap ? s->cap : 64;
	double *a, *b;

	if (m <= s->cap)
		return 0;
	while (cap < m)
		cap *= 2;
	if (cap > SIZE_MAX / sizeof(double))
		return -ENOMEM;
	a = realloc(s->sorted, cap * sizeof(double));
	if (a)
		s->sorted = a;
	b = realloc(s->left, cap * sizeof(double));
	if (b)
		s->left = b;
	if (!a || !b)
		return -ENOMEM;
	s->cap = cap;
	return 0;
}

int pmc_cp_split_reset(struct pmc_cp_split *s, const double *x, size_t m, size_t tau)
{
	int r = split_room(s, m + 1);

	if (r < 0)
		return r;
	memcpy(s->sorted, x, m * sizeof(double));
	qsort(s->sorted, m, sizeof(double), cmp_double);
	memcpy(s->left, x, tau * sizeof(double));
	qsort(s->left, tau, sizeof(double), cmp_double);
	s->m = m;
	s->tau = tau;
	s->rsum = 0;
	for (size_t i = 0; i < tau; i++) {
		size_t below = place_of(s->sorted, m, x[i], false);
		size_t upto = place_of(s->sorted, m, x[i], true);

		s->rsum += (double)below + (double)(upto - below + 1) / 2;
	}
	s->ties = 0;
	for (size_t i = 0, j; i < m; i = j) {
		for (j = i + 1; j < m && s->sorted[j] == s->sorted[i]; j++)
			;
		s->ties += ((double)(j - i) * (double)(j - i) - 1) * (double)(j - i);
	}
	return 0;
}

/* As a scan's append, for the one split: v raises each of the first tau above it by 1
 * and each equal to it by 1/2. */
int pmc_cp_split_append(struct pmc_cp_split *s, double v)
{
	size_t below, upto, lb, lu;
	double eq;
	int r = split_room(s, s->m + 1);

	if (r < 0)
		return r;
	below = place_of(s->sorted, s->m, v, false);
	upto = place_of(s->sorted, s->m, v, true);
	lb = place_of(s->left, s->tau, v, false);
	lu = place_of(s->left, s->tau, v, true);
	eq = (double)(upto - below);
	s->rsum += (double)(s->tau - lu) + 0.5 * (double)(lu - lb);
	s->ties += 3 * eq * eq + 3 * eq;
	memmove(s->sorted + upto + 1, s->sorted + upto, (s->m - upto) * sizeof(double));
	s->sorted[upto] = v;
	s->m++;
	return 0;
}

double pmc_cp_split_p(const struct pmc_cp_split *s, size_t min_size)
{
	double spread;

	if (s->m < 2 * min_size || s->tau < min_size || s->tau + min_size > s->m)
		return 1;
	spread = spread_of(s->m, s->ties);
	if (!(spread > 0))
		return 1;
	return fmin(
	    1, p_of(z2_of(s->rsum, s->tau, s->m, spread), (double)s->m - 2 * (double)min_size + 1));
}

/* The last change point is withdrawn when its p-value, with every point since, is above
 * this many times alpha: the evidence that its two sides differ is gone. */
#define WITHDRAW 10

/* The start of the segment before the last change point: the one before it, or 0. */
static size_t before_last(const struct cp_ctx *c)
{
	return c->ncps >= 2 ? c->cps[c->ncps - 2].index : 0;
}

/* The last change point's split: [before it, end) split at it. */
static int reset_last(struct cp_ctx *c, size_t end)
{
	size_t from = before_last(c);

	return pmc_cp_split_reset(&c->last, c->x + from, end - from,
				  c->cps[c->ncps - 1].index - from);
}

/* Reports the change at `at` found in the open segment [a, end) with q and p: the
 * closed segment [a, at) is segmented on its own, the open one starts at `at`, and the
 * last change's split spans [before it, end). */
static int report(struct cp_ctx *c, size_t a, size_t at, size_t end, double q, double p)
{
	size_t from = c->ncps;
	int r;

	c->seen = end;
	r = pmc_cp_segment(c, a, at);

	if (r == 0)
		r = pmc_cp_place_range(c, from, a, at);
	if (r == 0)
		r = pmc_cp_add(c, at, end, q, p);
	if (r == 0)
		r = reset_last(c, end);
	if (r == 0)
		r = pmc_cp_scan_reset(&c->scan, c->x + at, end - at);
	return r;
}

/* Withdraws the last change point, whose p-value with every point since is p: the open
 * segment starts where the one before it started. Remembers it when asked. */
static int withdraw(struct cp_ctx *c, size_t end, double p)
{
	const struct pmc_changepoint *cp = &c->cps[c->ncps - 1];
	size_t a;
	int r;

	if (c->wd_on) {
		struct pmc_cp_withdrawn *grown = realloc(c->wd, (c->nwd + 1) * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		c->wd = grown;
		c->wd[c->nwd++] = (struct pmc_cp_withdrawn){.index = cp->index,
							    .first_index = cp->first_index,
							    .reported_n = cp->reported_n,
							    .withdrawn_n = end,
							    .p = p};
	}
	c->ncps--;
	a = c->ncps ? c->cps[c->ncps - 1].index : 0;
	r = pmc_cp_scan_reset(&c->scan, c->x + a, end - a);
	return r == 0 && c->ncps ? reset_last(c, end) : r;
}

/* Whether n is min_size times a power of two, at least 2. */
static bool doubling(size_t n, size_t min_size)
{
	if (n % min_size)
		return false;
	n /= min_size;
	return n >= 2 && (n & (n - 1)) == 0;
}

/* Places the last change point again between the one before it and end, when the points
 * after it have doubled, if the new place is within 2 min_size of where it is. */
static int replace_last(struct cp_ctx *c, size_t end)
{
	struct pmc_changepoint *cp = &c->cps[c->ncps - 1];
	size_t at = cp->index, w = 2 * c->min_size;
	int r;

	if (!doubling(end - at, c->min_size))
		return 0;
	r = pmc_cp_place(c, before_last(c), end, &at);
	if (r < 0 || at == cp->index || at + w < cp->index || at > cp->index + w)
		return r;
	cp->index = at;
	r = pmc_cp_scan_reset(&c->scan, c->x + at, end - at);
	return r == 0 ? reset_last(c, end) : r;
}

/* The series as a history sees it, one point more at a time (docs/history.md, "Stable
 * as the series grows"), as a sequential change-point model does (Hawkins, Qiu and Kang,
 * "The changepoint model for statistical process control", J. Quality Technology 2003;
 * Ross, Tasoulis and Adams, "Nonparametric monitoring of data streams for changes in
 * location and scale", Technometrics 2011, with Mann-Whitney's statistic): the open
 * segment, from the last change point to the latest point, is tested at every length.
 * A change is reported once its test has passed at min_size successive looks, placed
 * at the same point at each (settled: a chance excursion of the noise, which a test at
 * every length meets more often than one test does, seldom lasts that long). The segment before it
 * is then closed: its own changes, if its test finds any (binary segmentation of fixed points), are
 * reported with it, and the open segment starts at the change. Only the last change
 * point, whose right side is still growing, can change afterwards: placed again when
 * the points after it have doubled (from 2 min_size on), if the new place is within
 * 2 min_size of the old, and withdrawn when its p-value with every point since exceeds
 * WITHDRAW times alpha. So the change points of x[0..n) are those of x[0..n-1), the
 * last perhaps re-placed or withdrawn, and perhaps a new one; every call replays the
 * series, so nothing is remembered between calls. The looks are Mann-Whitney's test of
 * every split (pmc_cp_scan_may_pass, O(m)); the candidate's own test runs only when one
 * passes. */
int pmc_cp_sequential(struct cp_ctx *c)
{
	size_t held = SIZE_MAX, looks = 0;
	int r = pmc_cp_scan_reset(&c->scan, c->x, 0);

	for (size_t end = 1; r == 0 && end <= c->n; end++) {
		size_t a0 = c->ncps ? c->cps[c->ncps - 1].index : 0, a, tau = 0, at;
		double q = 0, p = 1;
		bool may;

		r = pmc_cp_scan_append_look(&c->scan, c->x[end - 1], c->min_size, c->alpha, &may);
		if (r == 0 && c->ncps)
			r = pmc_cp_split_append(&c->last, c->x[end - 1]);
		if (r == 0 && c->ncps &&
		    (p = pmc_cp_split_p(&c->last, c->min_size)) > WITHDRAW * c->alpha) {
			r = withdraw(c, end, p);
			held = SIZE_MAX;
		}
		p = 1;
		if (r == 0 && c->ncps)
			r = replace_last(c, end);
		a = c->ncps ? c->cps[c->ncps - 1].index : 0;
		/* The open segment starts elsewhere: the look was at the one before. */
		if (r == 0 && a != a0)
			may = pmc_cp_scan_may_pass(&c->scan, c->min_size, c->alpha);
		if (r == 0 && may)
			r = pmc_cp_test(c, a, end, &tau, &q, &p);
		if (r < 0 || p > c->alpha || !(q > 0)) {
			held = SIZE_MAX;
			continue;
		}
		/* Significant: where it would be placed, and for how many looks it has been. */
		at = a + tau;
		r = pmc_cp_place(c, a, end, &at);
		looks = at == held ? looks + 1 : 1;
		held = at;
		if (r < 0 || looks < c->min_size)
			continue;
		r = report(c, a, at, end, q, p);
		held = SIZE_MAX;
	}
	return r;
}

/* Change points as the series grows (changepoint_priv.h): the sequential detection, and
 * the looks at a growing segment it makes.
 *
 * The looks: for each split tau, Mann-Whitney's U of the first tau points against the
 * rest is the sum of their mid-ranks less tau (tau + 1) / 2. An appended value v raises the mid-rank of every point above it
 * by 1 and of every point equal to it by 1/2, so each prefix sum gains the number of
 * such points before it: one pass over the segment. The p-value of a split is the one
 * changepoint.c's test gives it (normal approximation, ties and continuity corrected). */
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

int pmc_cp_scan_append(struct pmc_cp_scan *s, double v)
{
	size_t m = s->m, below, upto;
	double acc = 0, eq;
	int r = room(s, m + 1);

	if (r < 0)
		return r;
	below = place_of(s->sorted, m, v, false);
	upto = place_of(s->sorted, m, v, true);
	eq = (double)(upto - below);
	for (size_t i = 0; i < m; i++) {
		acc += s->x[i] > v ? 1 : s->x[i] == v ? 0.5 : 0;
		s->rsum[i + 1] += acc;
	}
	/* Its own mid-rank: past the points below it, the middle of its group of ties. */
	s->rsum[m + 1] = s->rsum[m] + (double)below + (eq + 2) / 2;
	s->ties += 3 * eq * eq + 3 * eq;
	memmove(s->sorted + upto + 1, s->sorted + upto, (m - upto) * sizeof(double));
	s->sorted[upto] = v;
	s->x[m] = v;
	s->m = m + 1;
	return 0;
}

/* The squared z of Mann-Whitney's test of the split at tau, continuity corrected; spread:
 * m + 1 less the ties' correction. */
static double z2_at(const struct pmc_cp_scan *s, size_t tau, double spread)
{
	double n1 = (double)tau, n2 = (double)s->m - n1;
	double dev = fabs(s->rsum[tau] - n1 * (n1 + 1) / 2 - n1 * n2 / 2) - 0.5;

	return dev > 0 ? dev * dev / (n1 * n2 / 12 * spread) : 0;
}

static double spread_of(const struct pmc_cp_scan *s)
{
	double nm = (double)s->m;

	return nm + 1 - s->ties / (nm * (nm - 1));
}

bool pmc_cp_scan_may_pass(const struct pmc_cp_scan *s, size_t min_size, double alpha,
			  size_t *ret_tau)
{
	double nm = (double)s->m, spread, best = 0, p;
	size_t at = 0;

	*ret_tau = 0;
	if (s->m < 2 * min_size)
		return false;
	spread = spread_of(s);
	if (!(spread > 0))
		return false;
	for (size_t tau = min_size; tau + min_size <= s->m; tau++) {
		double z2 = z2_at(s, tau, spread);

		if (z2 > best) {
			best = z2;
			at = tau;
		}
	}
	*ret_tau = at;
	p = erfc(sqrt(best) / M_SQRT2) * (nm - 2 * (double)min_size + 1);
	/* A hair looser than the test, which sums the ranks in another order. */
	return p <= alpha * (1 + 1e-9);
}

double pmc_cp_scan_p(const struct pmc_cp_scan *s, size_t tau, size_t min_size)
{
	double spread;

	if (s->m < 2 * min_size || tau < min_size || tau + min_size > s->m)
		return 1;
	spread = spread_of(s);
	if (!(spread > 0))
		return 1;
	return fmin(1, erfc(sqrt(z2_at(s, tau, spread)) / M_SQRT2) *
			   ((double)s->m - 2 * (double)min_size + 1));
}

/* The last change point is withdrawn when its p-value, with every point since, is above
 * this many times alpha: the evidence that its two sides differ is gone. */
#define WITHDRAW 10

/* Swaps two scans. */
static void scan_swap(struct pmc_cp_scan *a, struct pmc_cp_scan *b)
{
	struct pmc_cp_scan t = *a;

	*a = *b;
	*b = t;
}

/* The start of the segment before the last change point: the one before it, or 0. */
static size_t before_last(const struct cp_ctx *c)
{
	return c->ncps >= 2 ? c->cps[c->ncps - 2].index : 0;
}

/* Reports the change at `at` found in the open segment [a, end) with q and p: the
 * closed segment [a, at) is segmented on its own, the open one starts at `at`, and the
 * last change's scan spans [before it, end). */
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
	if (r < 0)
		return r;
	if (c->ncps == from + 1)
		scan_swap(&c->last, &c->scan);
	else
		r = pmc_cp_scan_reset(&c->last, c->x + before_last(c), end - before_last(c));
	if (r == 0)
		r = pmc_cp_scan_reset(&c->scan, c->x + at, end - at);
	return r;
}

/* Withdraws the last change point: the open segment starts where the one before it
 * started. */
static int withdraw(struct cp_ctx *c, size_t end)
{
	c->ncps--;
	scan_swap(&c->scan, &c->last);
	return c->ncps ? pmc_cp_scan_reset(&c->last, c->x + before_last(c), end - before_last(c))
		       : 0;
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
	return pmc_cp_scan_reset(&c->scan, c->x + at, end - at);
}

/* The series as a history sees it, one point more at a time (docs/history.md, "Stable
 * as the series grows"), as a sequential change-point model does (Hawkins, Qiu and Kang,
 * "The changepoint model for statistical process control", J. Quality Technology 2003;
 * Ross, Tasoulis and Adams, "Nonparametric monitoring of data streams for changes in
 * location and scale", Technometrics 2011, with Mann-Whitney's statistic): the open
 * segment, from the last change point to the latest point, is tested at every length.
 * A change is reported once its test has passed at min_size successive looks, placed
 * at the same point at each (settled: a chance excursion of the noise, which a test at
 * every length meets more often than one test does, seldom lasts that long). The segment before it is then closed: its
 * own changes, if its test finds any (binary segmentation of fixed points), are
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
		size_t a, tau = 0, at, most;
		double q = 0, p = 1;

		r = pmc_cp_scan_append(&c->scan, c->x[end - 1]);
		if (r == 0 && c->ncps)
			r = pmc_cp_scan_append(&c->last, c->x[end - 1]);
		if (r == 0 && c->ncps &&
		    pmc_cp_scan_p(&c->last, c->cps[c->ncps - 1].index - before_last(c),
				  c->min_size) > WITHDRAW * c->alpha) {
			r = withdraw(c, end);
			held = SIZE_MAX;
		}
		if (r == 0 && c->ncps)
			r = replace_last(c, end);
		a = c->ncps ? c->cps[c->ncps - 1].index : 0;
		if (r == 0 && pmc_cp_scan_may_pass(&c->scan, c->min_size, c->alpha, &most))
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

/* What changepoint.c and changepoint_grow.c share (not installed). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Mann-Whitney's test of every split of a segment that grows one point at a time: the
 * sums of the mid-ranks of its first tau points, for every tau, kept as points are
 * appended (O(m) a point), so that a look at the segment costs O(m) where the
 * candidate's own test costs O(m log m). Every sum is of halves, so exact in a double
 * whatever the order it is added in. */
struct pmc_cp_scan {
	double *sorted; /* the segment's values, ascending */
	double *x;	/* and in time order */
	double *rsum;	/* rsum[tau]: the mid-ranks of x[0..tau) summed, tau 0 .. done */
	double ties;	/* the sum of t^3 - t over the groups of t tied values */
	size_t m, cap;
	size_t tmax; /* the largest group of tied values */
	/* The points x[done..m) are appended but not yet in rsum: the looks at them were
	 * shown to fail (pmc_cp_scan_append_look); skip: how many more looks will be. */
	size_t done, skip;
	double skip_alpha; /* and the alpha and min_size the proof was for */
	size_t skip_min;
	/* A z^2 below which a split fails, for floor_k splits or more at floor_thr. */
	double floor_z2, floor_k, floor_thr;
};

void pmc_cp_scan_free(struct pmc_cp_scan *s);
/* x[0..m-1] become its segment (O(m log m)). Returns 0 or -ENOMEM. */
int pmc_cp_scan_reset(struct pmc_cp_scan *s, const double *x, size_t m);
/* Appends v to the segment. Returns 0 or -ENOMEM. */
/* Seam for the tests: the append without the look that pmc_cp_scan_append_look fuses with
 * it, whose sums the tests compare with it. */
int pmc_cp_scan_append(struct pmc_cp_scan *s, double v);
/* Whether some split with min_size points on each side reaches alpha in Mann-Whitney's
 * test corrected as the candidate's (times the m - 2 min_size + 1 splits): the test of
 * the candidate, one of these splits, cannot pass where this does not. */
bool pmc_cp_scan_may_pass(struct pmc_cp_scan *s, size_t min_size, double alpha);
/* Appends v and looks (pmc_cp_scan_may_pass), the answer in *ret_may_pass. A look that
 * shows every split far from alpha also shows, from how far one appended point can move
 * a split's statistic, how many of the next looks must fail: those only append (the
 * points wait outside rsum, one pass adds them at the next look). Returns 0 or -ENOMEM. */
int pmc_cp_scan_append_look(struct pmc_cp_scan *s, double v, size_t min_size, double alpha,
			    bool *ret_may_pass);
/* Brings rsum up to all m points (O(m) for all the points waiting). */
void pmc_cp_scan_flush(struct pmc_cp_scan *s);
/* The p-value of the split at tau so corrected (1 when a side has fewer than min_size). */
/* Seam for the tests: any split's corrected p-value, which the tests compare bit for bit
 * with the full scan's. Flushes first. */
double pmc_cp_scan_p(struct pmc_cp_scan *s, size_t tau, size_t min_size);

/* The same test of one split, at tau, of a segment that grows: what the last change
 * point's withdrawal needs, O(log m) a point (and a move of m values) where a scan's
 * append is O(m). */
struct pmc_cp_split {
	double *sorted; /* the segment's values, ascending */
	double *left;	/* its first tau, ascending */
	double rsum;	/* their mid-ranks summed */
	double ties;	/* as a scan's */
	size_t m, tau, cap;
};

void pmc_cp_split_free(struct pmc_cp_split *s);
/* x[0..m-1] become its segment, split at tau <= m. Returns 0 or -ENOMEM. */
int pmc_cp_split_reset(struct pmc_cp_split *s, const double *x, size_t m, size_t tau);
/* Appends v to the segment. Returns 0 or -ENOMEM. */
int pmc_cp_split_append(struct pmc_cp_split *s, double v);
/* The p-value of its split, as pmc_cp_scan_p's of the same segment at tau. */
double pmc_cp_split_p(const struct pmc_cp_split *s, size_t min_size);

/* Scratch of one segment's statistic, 4 m doubles: for each tau, the distances between
 * X = z[0..tau) and Y = z[tau..kappa) and within Y, as kappa grows, and within X. */
struct scratch {
	double *buf;
	size_t cap; /* m it has room for */
};

struct ranked {
	double v;
	size_t i;
};

/* Scratch of the statistic with kappa fixed, for m points: their sorted order, each
 * one's place in it and its distances to all, and the Fenwick tree of X. */
struct fixed {
	struct ranked *sorted; /* 2 m: the second half the sort's room */
	size_t *place;
	double *tot, *cnt, *sum;
	size_t cap;
};

/* What one call of pmc_changepoints works with. */
struct cp_ctx {
	const double *x;
	size_t n;
	double alpha;
	size_t perms, min_size;
	uint64_t seed;
	bool raw;
	struct scratch s;
	struct fixed f;
	struct pmc_cp_scan scan;  /* the open segment's looks (sequential) */
	struct pmc_cp_split last; /* the two segments around the last change point */
	size_t seen;		  /* the points looked at so far (sequential), else n */
	double *z, *perm;	  /* n each */
	struct pmc_changepoint *cps;
	size_t ncps;
	/* The change points withdrawn as the series grew (sequential), when wd_on. */
	bool wd_on;
	struct pmc_cp_withdrawn *wd;
	size_t nwd;
};

/* Whether x[a..b)'s best split on ranks is significant: its place a + *ret_tau, its
 * statistic, and its Mann-Whitney p-value times the number of splits (changepoint.c). */
int pmc_cp_test(struct cp_ctx *c, size_t a, size_t b, size_t *ret_tau, double *ret_q,
		double *ret_p);
/* Splits x[a..b) while its best split is significant, each side on its own. */
int pmc_cp_segment(struct cp_ctx *c, size_t a, size_t b);
/* The place of a change between a and b on the clipped values, in *ret_at. */
int pmc_cp_place(struct cp_ctx *c, size_t a, size_t b, size_t *ret_at);
/* Places cps[from..ncps), found in [a, b), each between its neighbours. */
int pmc_cp_place_range(struct cp_ctx *c, size_t from, size_t a, size_t b);
/* Appends a change point at index, first reported with reported_n points. */
int pmc_cp_add(struct cp_ctx *c, size_t index, size_t reported_n, double q, double p);
/* The change points of the series as it grows (changepoint_grow.c). */
int pmc_cp_sequential(struct cp_ctx *c);

/* The change-point method on synthetic series with known changes (bench/README.md):
 * precision, recall and position error of harness/2-core/changepoint.c (E-Divisive on
 * ranks) beside plain E-Divisive (the same search and test on the values), the rate of
 * false changes on series without one, and the time each took.
 *
 * Usage: changepoint-accuracy [--series N] [--points M] [--permutations R] [--alpha A]
 *                             [--tolerance T] [--seed S] [--only KIND]
 *                             [--speed] [--threads T]
 *
 * Series (each kind in turn, a fifth of N each), every point level * (1 + cv * noise)
 * with cv drawn from 1% to 5%:
 *   flat      no change;
 *   shift     one shift of 1% to 10% (either way) at a point drawn from the middle 80%;
 *   two       two shifts, at least 20% of the series apart;
 *   outliers  one shift, and 1% of the points 3x to 20x the level;
 *   bimodal   one shift, and noise from two modes 3 cv apart (30% in the upper one).
 * --only KIND makes every series of that kind (--only flat: the false-change rate on many
 * series, which cost little: a series without a change stops after a few permutations).
 * A detected change point within T points (default 5) of a true one not yet matched is a
 * hit; position error is the distance of a hit. Only the C library is used: the noise
 * is a fixed stream (an LCG and Box-Muller), so every run sees the same series.
 *
 * --speed times the ranks method alone (plain E-Divisive's permutation test would take
 * hours at the size): every series is generated first, then detected on T
 * threads (default 2, this machine's CPUs), each taking every T-th series; the wall
 * time of the detection is printed with the accuracy of the ranks method. The issue's
 * size: --speed --series 10000 --points 1000. */
#include <errno.h>
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/changepoint.h"

struct rng {
	uint64_t s;
};

static double uniform(struct rng *r)
{
	r->s = r->s * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((double)(r->s >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(struct rng *r)
{
	return sqrt(-2 * log(uniform(r))) * cos(2 * M_PI * uniform(r));
}

enum kind { FLAT, SHIFT, TWO, OUTLIERS, BIMODAL, NKINDS };
static const char *const kind_names[NKINDS] = {"flat", "shift", "two", "outliers", "bimodal"};

/* A series of kind k in x[0..m), its true change points in cps (returns how many). */
static size_t make(enum kind k, double *x, size_t m, struct rng *r, size_t cps[2])
{
	double cv = 0.01 + 0.04 * uniform(r), level = 1000, shift;
	size_t n = 0, a, b;

	a = (size_t)(0.1 * m + uniform(r) * 0.8 * m);
	if (k == TWO) {
		a = (size_t)(0.1 * m + uniform(r) * 0.3 * m);
		b = a + (size_t)(0.2 * m + uniform(r) * 0.3 * m);
		cps[n++] = a;
		cps[n++] = b;
	} else if (k != FLAT) {
		cps[n++] = a;
	}
	for (size_t i = 0, c = 0; i < m; i++) {
		if (c < n && i == cps[c]) {
			shift = 0.01 + 0.09 * uniform(r);
			level *= uniform(r) < 0.5 ? 1 + shift : 1 / (1 + shift);
			c++;
		}
		x[i] = level * (1 + cv * gauss(r));
		if (k == BIMODAL && uniform(r) < 0.3)
			x[i] += level * 3 * cv;
		if (k == OUTLIERS && uniform(r) < 0.01)
			x[i] = level * (3 + 17 * uniform(r));
	}
	return n;
}

struct tally {
	size_t tp, fp, fn, flat_series, flat_with_change;
	double pos_err_sum;
	size_t pos_err_max;
	double seconds;
};

static void score(struct tally *t, const size_t *truth, size_t nt,
		  const struct pmc_changepoint *found, size_t nf, size_t tol, bool flat)
{
	bool used[2] = {false, false};

	if (flat) {
		t->flat_series++;
		t->flat_with_change += nf > 0;
	}
	for (size_t i = 0; i < nf; i++) {
		size_t best = SIZE_MAX, at = 0;

		for (size_t j = 0; j < nt; j++) {
			size_t d = found[i].index > truth[j] ? found[i].index - truth[j]
							     : truth[j] - found[i].index;

			if (!used[j] && d <= tol && d < best) {
				best = d;
				at = j;
			}
		}
		if (best == SIZE_MAX) {
			t->fp++;
			continue;
		}
		used[at] = true;
		t->tp++;
		t->pos_err_sum += (double)best;
		if (best > t->pos_err_max)
			t->pos_err_max = best;
	}
	for (size_t j = 0; j < nt; j++)
		t->fn += !used[j];
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void print(const char *name, const struct tally *t)
{
	double precision = t->tp + t->fp ? (double)t->tp / (double)(t->tp + t->fp) : NAN;
	double recall = t->tp + t->fn ? (double)t->tp / (double)(t->tp + t->fn) : NAN;

	printf("%-22s %9.3f %7.3f %9.2f %7zu %12zu/%-6zu %9.1f\n", name, precision, recall,
	       t->tp ? t->pos_err_sum / (double)t->tp : NAN, t->pos_err_max, t->flat_with_change,
	       t->flat_series, t->seconds);
}

static void add_tally(struct tally *all, const struct tally *one)
{
	all->tp += one->tp;
	all->fp += one->fp;
	all->fn += one->fn;
	all->flat_series += one->flat_series;
	all->flat_with_change += one->flat_with_change;
	all->pos_err_sum += one->pos_err_sum;
	if (one->pos_err_max > all->pos_err_max)
		all->pos_err_max = one->pos_err_max;
	all->seconds += one->seconds;
}

/* The series of the speed mode, and what one thread of it does. */
struct speed {
	const double *x;
	const size_t (*truth)[2];
	const size_t *nt;
	const enum kind *kinds;
	size_t series, points, tol, threads, first;
	struct pmc_cp_opts o;
	struct tally t[NKINDS + 1];
	size_t found;
	int r;
};

static void *speed_thread(void *arg)
{
	struct speed *sp = arg;

	for (size_t s = sp->first; s < sp->series; s += sp->threads) {
		struct pmc_changepoint *cps = NULL;
		size_t ncps = 0;
		enum kind k = sp->kinds[s];

		sp->r = pmc_changepoints(sp->x + s * sp->points, sp->points, &sp->o, &cps, &ncps);
		if (sp->r < 0)
			return NULL;
		sp->found += ncps;
		score(&sp->t[k], sp->truth[s], sp->nt[s], cps, ncps, sp->tol, k == FLAT);
		free(cps);
	}
	return NULL;
}

static int speed_mode(size_t series, size_t points, size_t tol, size_t threads, uint64_t seed,
		      int only, const struct pmc_cp_opts *o)
{
	double *x = malloc(series * points * sizeof(double)), t0, wall;
	size_t(*truth)[2] = malloc(series * sizeof(*truth)), *nt = malloc(series * sizeof(*nt));
	enum kind *kinds = malloc(series * sizeof(*kinds));
	struct speed *sp = calloc(threads, sizeof(*sp));
	pthread_t *tid = calloc(threads, sizeof(*tid));
	struct tally all[NKINDS + 1];
	size_t found = 0;
	int rc = 2;

	memset(all, 0, sizeof(all));
	if (!x || !truth || !nt || !kinds || !sp || !tid) {
		fprintf(stderr, "changepoint-accuracy: out of memory\n");
		goto cleanup;
	}
	for (size_t s = 0; s < series; s++) {
		struct rng r = {seed * 1000003 + s};

		kinds[s] = only >= 0 ? (enum kind)only : (enum kind)(s % NKINDS);
		nt[s] = make(kinds[s], x + s * points, points, &r, truth[s]);
	}
	t0 = now();
	for (size_t i = 0; i < threads; i++) {
		sp[i] = (struct speed){.x = x,
				       .truth = (const size_t(*)[2])truth,
				       .nt = nt,
				       .kinds = kinds,
				       .series = series,
				       .points = points,
				       .tol = tol,
				       .threads = threads,
				       .first = i,
				       .o = *o};
		if (pthread_create(&tid[i], NULL, speed_thread, &sp[i]) != 0) {
			fprintf(stderr, "changepoint-accuracy: cannot start a thread\n");
			for (size_t j = 0; j < i; j++)
				pthread_join(tid[j], NULL);
			goto cleanup;
		}
	}
	for (size_t i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	wall = now() - t0;
	for (size_t i = 0; i < threads; i++) {
		if (sp[i].r < 0) {
			fprintf(stderr, "changepoint-accuracy: out of memory\n");
			goto cleanup;
		}
		found += sp[i].found;
		for (int k = 0; k < NKINDS; k++) {
			add_tally(&all[k], &sp[i].t[k]);
			add_tally(&all[NKINDS], &sp[i].t[k]);
		}
	}
	printf("%zu series of %zu points, alpha %g, ranks only, %zu threads, tolerance %zu "
	       "points\n",
	       series, points, o->alpha, threads, tol);
	printf("detection: %.2f s wall, %.3f ms per series, %zu change points\n\n", wall,
	       wall * 1e3 / (double)series, found);
	printf("%-22s %9s %7s %9s %7s %19s %9s\n", "series / method", "precision", "recall",
	       "pos. err", "max err", "false (flat)", "seconds");
	for (int k = 0; k <= NKINDS; k++) {
		char name[64];

		if (k < NKINDS && only >= 0 && k != only)
			continue;
		snprintf(name, sizeof(name), "%s, ranks", k < NKINDS ? kind_names[k] : "all");
		all[k].seconds = NAN; /* per kind, the threads' times overlap */
		print(name, &all[k]);
	}
	rc = 0;
cleanup:
	free(x);
	free(truth);
	free(nt);
	free(kinds);
	free(sp);
	free(tid);
	return rc;
}

/* The growth mode (--grow START): each series' prefixes x[0..n) for n = START .. M, one
 * point more each time, as a history sees them. A reported change point is followed from
 * one prefix to the next as a track: matched to the nearest change point of the next
 * prefix within TRACK_WINDOW points (a move when its index differs), withdrawn when none
 * is there. Per true change: its latency, the points from the change to the first prefix
 * with a change point within the tolerance (n - change), and how far that first report
 * lies from the truth and from where the last prefix puts it. */
#define TRACK_WINDOW 20

struct track {
	size_t index, first_index, moves, max_move;
	bool alive, withdrawn, real;
};

struct growth {
	size_t series, flat_series, tracks, moved, withdrawn, moves, max_move;
	size_t false_tracks, flat_tracks, truths, detected, first_off_final, first_early;
	size_t *latency, nlat, *first_err, nfe; /* first_err: |first report - truth| */
	int first_err_min, first_err_max;
	struct tally final;
};

/* Follows the change points of one prefix of n points: tr[0..*ntr) are the tracks. */
static int follow(struct track **tr, size_t *ntr, const struct pmc_changepoint *cps, size_t ncps,
		  const size_t *truth, size_t nt, size_t tol, bool *used)
{
	for (size_t i = 0; i < ncps; i++)
		used[i] = false;
	for (size_t k = 0; k < *ntr; k++) {
		struct track *t = &(*tr)[k];
		size_t best = SIZE_MAX, at = 0;

		if (!t->alive)
			continue;
		for (size_t i = 0; i < ncps; i++) {
			size_t d = cps[i].index > t->index ? cps[i].index - t->index
							   : t->index - cps[i].index;

			if (!used[i] && d <= TRACK_WINDOW && d < best) {
				best = d;
				at = i;
			}
		}
		if (best == SIZE_MAX) {
			t->alive = false;
			t->withdrawn = true;
			continue;
		}
		used[at] = true;
		if (best) {
			t->moves++;
			if (best > t->max_move)
				t->max_move = best;
		}
		t->index = cps[at].index;
	}
	for (size_t i = 0; i < ncps; i++) {
		struct track *grown;
		bool real = false;

		if (used[i])
			continue;
		for (size_t j = 0; j < nt; j++)
			real |= (cps[i].index > truth[j] ? cps[i].index - truth[j]
							 : truth[j] - cps[i].index) <= tol;
		grown = realloc(*tr, (*ntr + 1) * sizeof(**tr));
		if (!grown)
			return -ENOMEM;
		*tr = grown;
		(*tr)[(*ntr)++] = (struct track){.index = cps[i].index,
						 .first_index = cps[i].index,
						 .alive = true,
						 .real = real};
	}
	return 0;
}

/* One thread's share of the growth mode, and what it found. */
struct grow {
	const double *x;
	const size_t (*truth)[2];
	const size_t *nt;
	const enum kind *kinds;
	size_t series, points, tol, threads, first, start;
	struct pmc_cp_opts o;
	/* Per series and true change (2 s + j): latency, first report's signed error, and
	 * whether it is where the last prefix places the change; SIZE_MAX: not reported. */
	size_t *latency;
	long *first_err;
	bool *off_final;
	size_t tracks, moved, withdrawn, moves, max_move, false_tracks, flat_tracks;
	struct tally final;
	int r;
};

static size_t nearest_within(const struct pmc_changepoint *cps, size_t ncps, size_t c, size_t tol)
{
	size_t best = SIZE_MAX, at = SIZE_MAX;

	for (size_t i = 0; i < ncps; i++) {
		size_t d = cps[i].index > c ? cps[i].index - c : c - cps[i].index;

		if (d <= tol && d < best) {
			best = d;
			at = i;
		}
	}
	return at;
}

static int grow_one(struct grow *g, size_t s)
{
	const double *x = g->x + s * g->points;
	const size_t *truth = g->truth[s];
	size_t nt = g->nt[s], ntr = 0, first_at[2] = {SIZE_MAX, SIZE_MAX};
	struct track *tr = NULL;
	bool *used = malloc(g->points * sizeof(bool)), flat = g->kinds[s] == FLAT;
	int r = used ? 0 : -ENOMEM;

	for (size_t n = g->start; r == 0 && n <= g->points; n++) {
		struct pmc_changepoint *cps = NULL;
		size_t ncps = 0;

		r = pmc_changepoints(x, n, &g->o, &cps, &ncps);
		if (r == 0)
			r = follow(&tr, &ntr, cps, ncps, truth, nt, g->tol, used);
		for (size_t j = 0; r == 0 && j < nt; j++) {
			size_t i = nearest_within(cps, ncps, truth[j], g->tol);

			if (truth[j] < g->start || first_at[j] != SIZE_MAX || i == SIZE_MAX)
				continue;
			first_at[j] = cps[i].index;
			g->latency[2 * s + j] = n - truth[j];
			g->first_err[2 * s + j] = (long)cps[i].index - (long)truth[j];
		}
		if (r == 0 && n == g->points) {
			score(&g->final, truth, nt, cps, ncps, g->tol, flat);
			for (size_t j = 0; j < nt; j++) {
				size_t i = nearest_within(cps, ncps, truth[j], g->tol);

				g->off_final[2 * s + j] =
				    first_at[j] != SIZE_MAX &&
				    (i == SIZE_MAX || cps[i].index != first_at[j]);
			}
		}
		free(cps);
	}
	for (size_t k = 0; k < ntr; k++) {
		g->tracks++;
		g->moved += tr[k].moves > 0;
		g->withdrawn += tr[k].withdrawn;
		g->moves += tr[k].moves;
		if (tr[k].max_move > g->max_move)
			g->max_move = tr[k].max_move;
		if (flat)
			g->flat_tracks++;
		else
			g->false_tracks += !tr[k].real;
	}
	free(tr);
	free(used);
	return r;
}

static void *grow_thread(void *arg)
{
	struct grow *g = arg;

	for (size_t s = g->first; s < g->series && g->r == 0; s += g->threads)
		g->r = grow_one(g, s);
	return NULL;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100 * part / whole : NAN;
}

/* Prints what the threads g[0..threads) found over the series of kinds[]. */
static void grow_print(const struct grow *g, size_t threads, const enum kind *kinds)
{
	size_t tracks = 0, moved = 0, withdrawn = 0, moves = 0, max_move = 0, false_tracks = 0;
	size_t flat_tracks = 0, flat = 0, truths = 0, nlat = 0, early = 0, off = 0, late = 0;
	long emin = 0, emax = 0;
	size_t *lat = malloc(2 * g->series * sizeof(size_t));
	struct tally fin = {0};

	for (size_t i = 0; i < threads; i++) {
		tracks += g[i].tracks;
		moved += g[i].moved;
		withdrawn += g[i].withdrawn;
		moves += g[i].moves;
		max_move = g[i].max_move > max_move ? g[i].max_move : max_move;
		false_tracks += g[i].false_tracks;
		flat_tracks += g[i].flat_tracks;
		add_tally(&fin, &g[i].final);
	}
	for (size_t s = 0; s < g->series; s++) {
		flat += kinds[s] == FLAT;
		for (size_t j = 0; j < g->nt[s]; j++) {
			size_t l = g->latency[2 * s + j];
			long e = g->first_err[2 * s + j];

			if (g->truth[s][j] < g->start)
				continue;
			truths++;
			if (l == SIZE_MAX)
				continue;
			lat[nlat++] = l;
			early += e < 0;
			late += e > 0;
			off += g->off_final[2 * s + j];
			emin = e < emin ? e : emin;
			emax = e > emax ? e : emax;
		}
	}
	if (lat)
		qsort(lat, nlat, sizeof(*lat), cmp_size);
	printf("reported change points (tracks): %zu; moved at least once %zu (%.1f%%), %zu moves, "
	       "the largest %zu points; withdrawn %zu (%.1f%%)\n",
	       tracks, moved, pct((double)moved, (double)tracks), moves, max_move, withdrawn,
	       pct((double)withdrawn, (double)tracks));
	printf("true changes after the start: %zu, reported %zu (%.1f%%); latency (points from the "
	       "change to its first report) median %zu, 90th percentile %zu, largest %zu\n",
	       truths, nlat, pct((double)nlat, (double)truths), lat && nlat ? lat[nlat / 2] : 0,
	       lat && nlat ? lat[(nlat * 9) / 10] : 0, lat && nlat ? lat[nlat - 1] : 0);
	printf("first report: early %zu, late %zu (error %ld .. %+ld points), elsewhere than the "
	       "last prefix places it %zu (%.1f%%)\n",
	       early, late, emin, emax, off, pct((double)off, (double)nlat));
	printf("false reports: %zu tracks on %zu series with a change; %zu on %zu flat series "
	       "(%.1f per 1,000)\n",
	       false_tracks, g->series - flat, flat_tracks, flat,
	       flat ? 1000.0 * (double)flat_tracks / (double)flat : NAN);
	printf("the last prefix (%zu points): precision %.3f, recall %.3f, false changes on flat "
	       "series %zu of %zu\n",
	       g->points, fin.tp + fin.fp ? (double)fin.tp / (double)(fin.tp + fin.fp) : NAN,
	       fin.tp + fin.fn ? (double)fin.tp / (double)(fin.tp + fin.fn) : NAN,
	       fin.flat_with_change, fin.flat_series);
	free(lat);
}

static int grow_mode(size_t series, size_t points, size_t start, size_t tol, size_t threads,
		     uint64_t seed, int only, const struct pmc_cp_opts *o)
{
	double *x = malloc(series * points * sizeof(double));
	size_t(*truth)[2] = malloc(series * sizeof(*truth)), *nt = malloc(series * sizeof(*nt));
	size_t *latency = malloc(2 * series * sizeof(size_t));
	long *first_err = calloc(2 * series, sizeof(long));
	bool *off_final = calloc(2 * series, sizeof(bool));
	enum kind *kinds = malloc(series * sizeof(*kinds));
	struct grow *g = calloc(threads, sizeof(*g));
	pthread_t *tid = calloc(threads, sizeof(*tid));
	size_t started = 0;
	int rc = 2;

	if (!x || !truth || !nt || !latency || !first_err || !off_final || !kinds || !g || !tid) {
		fprintf(stderr, "changepoint-accuracy: out of memory\n");
		goto cleanup;
	}
	for (size_t s = 0; s < series; s++) {
		struct rng r = {seed * 1000003 + s};

		kinds[s] = only >= 0 ? (enum kind)only : (enum kind)(s % NKINDS);
		nt[s] = make(kinds[s], x + s * points, points, &r, truth[s]);
		latency[2 * s] = latency[2 * s + 1] = SIZE_MAX;
	}
	for (; started < threads; started++) {
		g[started] = (struct grow){.x = x,
					   .truth = (const size_t(*)[2])truth,
					   .nt = nt,
					   .kinds = kinds,
					   .series = series,
					   .points = points,
					   .tol = tol,
					   .threads = threads,
					   .first = started,
					   .start = start,
					   .o = *o,
					   .latency = latency,
					   .first_err = first_err,
					   .off_final = off_final};
		if (pthread_create(&tid[started], NULL, grow_thread, &g[started]) != 0) {
			fprintf(stderr, "changepoint-accuracy: cannot start a thread\n");
			break;
		}
	}
	for (size_t i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	if (started < threads)
		goto cleanup;
	for (size_t i = 0; i < threads; i++)
		if (g[i].r < 0) {
			fprintf(stderr, "changepoint-accuracy: out of memory\n");
			goto cleanup;
		}
	printf("%zu series of %zu points grown one point at a time from %zu, alpha %g, ranks, "
	       "tolerance %zu points, tracks matched within %d points\n\n",
	       series, points, start, o->alpha, tol, TRACK_WINDOW);
	grow_print(g, threads, kinds);
	rc = 0;
cleanup:
	free(x);
	free(truth);
	free(nt);
	free(latency);
	free(first_err);
	free(off_final);
	free(kinds);
	free(g);
	free(tid);
	return rc;
}

int main(int argc, char **argv)
{
	size_t series = 1000, points = 500, tol = 5, threads = 2, start = 0;
	bool speed = false;
	struct pmc_cp_opts o = {.alpha = 0.001, .permutations = 1999};
	struct tally ours[NKINDS + 1], plain[NKINDS + 1];
	uint64_t seed = 1;
	int only = -1;
	double *x;

	for (int i = 1; i < argc; i += 2) {
		if (strcmp(argv[i], "--speed") == 0) {
			speed = true;
			i--;
		} else if (i + 1 == argc) {
			fprintf(stderr, "changepoint-accuracy: %s needs a value\n", argv[i]);
			return 2;
		} else if (strcmp(argv[i], "--threads") == 0)
			threads = strtoul(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--grow") == 0)
			start = strtoul(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--series") == 0)
			series = strtoul(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--points") == 0)
			points = strtoul(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--permutations") == 0)
			o.permutations = strtoul(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--alpha") == 0)
			o.alpha = strtod(argv[i + 1], NULL);
		else if (strcmp(argv[i], "--tolerance") == 0)
			tol = strtoul(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--seed") == 0)
			seed = strtoull(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--only") == 0) {
			for (int k = 0; k < NKINDS; k++)
				if (strcmp(argv[i + 1], kind_names[k]) == 0)
					only = k;
			if (only < 0) {
				fprintf(stderr, "changepoint-accuracy: unknown kind %s\n",
					argv[i + 1]);
				return 2;
			}
		} else {
			fprintf(stderr, "changepoint-accuracy: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if (points < 20 || series < 1 || threads < 1) {
		fprintf(stderr,
			"changepoint-accuracy: --points >= 20, --series >= 1, --threads >= 1\n");
		return 2;
	}
	if (start && (start < 2 || start > points)) {
		fprintf(stderr, "changepoint-accuracy: --grow START takes 2 .. --points\n");
		return 2;
	}
	if (start)
		return grow_mode(series, points, start, tol, threads, seed, only, &o);
	if (speed)
		return speed_mode(series, points, tol, threads, seed, only, &o);
	x = malloc(points * sizeof(double));
	if (!x)
		return 2;
	memset(ours, 0, sizeof(ours));
	memset(plain, 0, sizeof(plain));
	for (size_t s = 0; s < series; s++) {
		enum kind k = only >= 0 ? (enum kind)only : (enum kind)(s % NKINDS);
		struct rng r = {seed * 1000003 + s};
		size_t truth[2], nt = make(k, x, points, &r, truth);

		for (int method = 0; method < 2; method++) {
			struct tally *t = method ? &plain[k] : &ours[k];
			struct pmc_changepoint *cps = NULL;
			size_t ncps = 0;
			double t0 = now();

			o.raw = method == 1;
			o.seed = s;
			if (pmc_changepoints(x, points, &o, &cps, &ncps) < 0) {
				fprintf(stderr, "changepoint-accuracy: out of memory\n");
				return 2;
			}
			t->seconds += now() - t0;
			score(t, truth, nt, cps, ncps, tol, k == FLAT);
			free(cps);
		}
	}
	for (int k = 0; k < NKINDS; k++) {
		struct tally *all[2] = {&ours[NKINDS], &plain[NKINDS]},
			     *one[2] = {&ours[k], &plain[k]};

		for (int m = 0; m < 2; m++)
			add_tally(all[m], one[m]);
	}
	printf("%zu series of %zu points, alpha %g, %zu permutations, tolerance %zu points\n\n",
	       series, points, o.alpha, o.permutations, tol);
	printf("%-22s %9s %7s %9s %7s %19s %9s\n", "series / method", "precision", "recall",
	       "pos. err", "max err", "false (flat)", "seconds");
	for (int k = 0; k <= NKINDS; k++) {
		char name[64];

		snprintf(name, sizeof(name), "%s, ranks", k < NKINDS ? kind_names[k] : "all");
		print(name, &ours[k]);
		snprintf(name, sizeof(name), "%s, plain", k < NKINDS ? kind_names[k] : "all");
		print(name, &plain[k]);
	}
	free(x);
	return 0;
}

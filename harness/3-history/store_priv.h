/* What the files of the history's store share (history.h, docs/history.md). The store is
 * cut by concern:
 *   store.c           the schema and its migrations; opening and closing a store
 *   store_identity.c  the content hash of a result (its key) and its fingerprint
 *   store_ingest.c    adding a result in one transaction
 *   store_query.c     the conditions of a selection, the entries it selects, samples
 *   store_series.c    the points of the series, read series by series
 *   store_baseline.c  the baseline of a gate
 *   store_baseline_read.c  the entries' benchmarks and points that the baseline reads
 * Private to harness/3-history/. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

struct pmc_result;
struct pmc_history_meta;
struct pmc_history_fp;
struct pmc_history_filter;
struct pmc_history_entry;

struct pmc_history {
	const struct pmc_hist_engine *eng;
	struct pmc_hist_db *db;
	char *display;
	long schema; /* the store's version: an older one is read as it is */
};

/* The parameters of one query: its conditions, or the metrics a gate reads. */
#define MAX_PARAMS 128

static inline int oom(char *err, size_t errlen)
{
	pmc_err_set(err, errlen, "out of memory");
	return -ENOMEM;
}

/* The fingerprint's fields of r, with meta's machine and compiler (meta may be NULL)
 * (store_identity.c). */
void pmc_hist_fp_fields(const struct pmc_result *r, const struct pmc_history_meta *meta,
			struct pmc_history_fp *fp);

/* v at s as "%.17g" writes it, 17 significant digits that read back as the same double:
 * the one text of a number in the content hash and in the stored samples (a result's
 * key must not change). Returns its length (at most 24; s has room for 25 bytes)
 * (store_identity.c). */
size_t pmc_hist_num_text(char *s, double v);

/* One sample of the stored text "v v null v" at *c, advancing *c past it: a number
 * (NAN for null). Returns 0, or -EINVAL when it is not one (store_query.c). */
int pmc_hist_parse_sample(const char **c, double *ret);

/* The stored samples "v v null v" as a new array of n doubles (*ret, free()d by the
 * caller; NULL or not when n is 0), each read as pmc_hist_parse_sample reads it, one
 * space or more between two. Returns 0, -EINVAL when one is not a number, or -ENOMEM
 * (store_query.c). */
int pmc_hist_parse_samples(const char *text, double **ret, size_t *ret_n);

/* The message of a point that pmcbench did not write (samples that are not finite
 * numbers, or a count n that is not theirs), naming h, the entry, the benchmark and the
 * metric (NULL: of the benchmark), and what is wrong. Returns -EBADMSG (store_query.c). */
int pmc_hist_bad_point(const struct pmc_history *h, const char *entry, const char *bench,
		       const char *metric, const char *what, char *err, size_t errlen);

/* Whether text, a point's stored count n, is the number n of its samples read. */
bool pmc_hist_count_is(const char *text, size_t n);

/* The entries a selection picks, with what the store's other tables name each by (ref:
 * its number since schema 3, else its key), and by_ref their indexes in the order of ref. */
struct pmc_hist_entries {
	struct pmc_history_entry *v;
	char **ref;
	size_t *by_ref;
	size_t n;
};

/* The entries f selects (with names, only those with a point of f's benchmark and
 * metric), their tags attached, in the store's order. Returns 0 or -errno with one line in
 * err (store_query.c). */
int pmc_hist_select_entries(struct pmc_history *h, const struct pmc_history_filter *f, bool names,
			    struct pmc_hist_entries *es, char *err, size_t errlen);
void pmc_hist_entries_free(struct pmc_hist_entries *es);
/* The entry of es named ref, or NULL when es does not hold it. */
const struct pmc_history_entry *pmc_hist_entry_of(const struct pmc_hist_entries *es,
						  const char *ref);
/* The order of entries everywhere: by time measured, then by key. */
/* Frees the strings of entry e (store_query.c). */
void pmc_hist_entry_clear(struct pmc_history_entry *e);
int pmc_hist_cmp_entry(const struct pmc_history_entry *a, const struct pmc_history_entry *b);

/* The samples of a stored point: its samples' text, or when that is NULL (a one-sample
 * point of schema 3) its one sample, its median (NULL: not measured), in *ret (n
 * doubles, free()d by the caller). Checks them as a hostile store needs: finite numbers,
 * as many as the count ntext says. Returns 0, -EBADMSG with the message of the point
 * (entry, bench, metric) in err, or -ENOMEM (store_query.c). */
int pmc_hist_point_samples(const struct pmc_history *h, const char *samples, const char *median,
			   const char *ntext, const char *entry, const char *bench,
			   const char *metric, double **ret, size_t *ret_n, char *err,
			   size_t errlen);

/* ---- what a gate's baseline reads (store_baseline_read.c) ---- */

/* The entries a baseline pools, newest first. */
struct baseline_ids {
	char **v;
	char **ref; /* what the other tables name each by: its number (schema 3), or v */
	size_t n;
	long long newest; /* the time of v[0], seconds since the epoch */
};

/* What one entry gives the baseline: its benchmarks with their runs, and the points of
 * the metrics read. Their text goes into one buffer and their samples into another, so
 * that a row costs no allocation of its own; the arrays are reused entry after entry. */
struct bbench {
	size_t name; /* offset into text */
	size_t runs;
};

struct bpoint {
	size_t bench, metric, unit; /* offsets into text */
	int better;
	bool simulated;
	size_t at, n; /* samples: vals[at .. at + n) */
};

struct bentry {
	const char *const *metrics; /* the patterns of the metrics read; NULL: all */
	size_t nmetrics;
	bool literal; /* the patterns are plain names, which the query selects */
	struct bbench *b;
	size_t nb, capb;
	struct bpoint *p;
	size_t np, capp;
	char *text;
	size_t ntext, captext;
	double *vals;
	size_t nvals, capvals;
	/* Where the points are read, for the message of a damaged one. */
	const struct pmc_history *h;
	const char *entry;
	char *err;
	size_t errlen;
};

/* Starts be on entry id of h (its messages into err), and frees what it read. */
void pmc_hist_bentry_start(struct bentry *be, struct pmc_history *h, const char *id, char *err,
			   size_t errlen);
void pmc_hist_bentry_free(struct bentry *be);

/* The points of the metrics read of every entry ids names (schema 3), into bes[i] for
 * ids->v[i], each started. Returns 0 or -errno with one line in err. */
int pmc_hist_baseline_points(struct pmc_history *h, struct bentry *bes,
			     const struct baseline_ids *ids, char *err, size_t errlen);

/* Entry id's benchmarks (ref: what the other tables name it by) into be, with its points
 * unless points_read (pmc_hist_baseline_points read them), sorted by name, the runs
 * checked against the points' samples. Returns 0, -EBADMSG for a damaged entry, or
 * -errno, with one line in err. */
int pmc_hist_bentry_read(struct pmc_history *h, struct bentry *be, const char *id, const char *ref,
			 bool points_read, char *err, size_t errlen);

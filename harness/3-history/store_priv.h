/* What the files of the history's store share (history.h, docs/history.md). The store is
 * cut by concern:
 *   store.c           the schema and its migrations; opening and closing a store
 *   store_identity.c  the content hash of a result (its key) and its fingerprint
 *   store_ingest.c    adding a result in one transaction
 *   store_query.c     the queries of list, show, export and changes
 *   store_baseline.c  the baseline of a gate
 * Private to harness/3-history/. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

struct pmc_result;
struct pmc_history_meta;
struct pmc_history_fp;

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

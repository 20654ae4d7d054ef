/* The selection of `pmcbench compare --filter`: terms over benchmark names and metric
 * ids, all of which must hold, applied to a result before it is compared
 * (docs/compare.md, "Filters"). No I/O: a bad term is an error code and one line. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct pmc_result;

struct pmc_filter_term {
	bool metric; /* the glob is over metric ids, else over benchmark names */
	bool negate; /* "-name:GLOB": the names it matches are left out */
	char *glob;  /* fnmatch(3) pattern */
};

/* Several terms, ANDed; empty selects everything. Zero-initialised is empty. */
struct pmc_filter {
	struct pmc_filter_term *terms;
	size_t n;
};

/* Adds one expression: "name:GLOB" (or "benchmark:GLOB"), "metric:GLOB", either with a
 * '-' before it to leave out what it matches, or a plain GLOB of benchmark names.
 * Returns 0, -ENOMEM, or -EINVAL with one line in err naming the expression and the
 * fix. */
int pmc_filter_add(struct pmc_filter *f, const char *expr, char *err, size_t errlen);

/* Whether every term over benchmark names (over metric ids) selects name (id). */
bool pmc_filter_bench(const struct pmc_filter *f, const char *name);
bool pmc_filter_metric(const struct pmc_filter *f, const char *id);

void pmc_filter_clear(struct pmc_filter *f);

/* A result that borrows r's benchmarks and metrics, only those f selects: what `compare`
 * compares. Free it with pmc_filter_view_free(); r must outlive it and every comparison
 * of it. Returns 0, -ENOMEM, or -ENODATA with one line in err (name: the file, for it)
 * when f selects no benchmark or no metric of r. */
int pmc_filter_view(const struct pmc_filter *f, const struct pmc_result *r, const char *name,
		    struct pmc_result **ret, char *err, size_t errlen);
void pmc_filter_view_free(struct pmc_result *v);

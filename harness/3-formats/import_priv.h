/* What the importers of harness/3-formats/import_*.c share: messages that name the file, the
 * place and the fix; a new result stamped with its source; samples added run by run; strict
 * numbers; lines of text. Private to harness/3-formats/. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "formats/import.h"

struct pmc_benchmark;
struct pmc_metric;

/* One import in progress: the file's name and the caller's message buffer. */
struct pmc_importer {
	const char *file;
	char *err;
	size_t errlen;
};

/* Writes "<file>:<line>: <message>" (line 0: "<file>: <message>") into the importer's
 * buffer; returns -EINVAL. The message ends with what to do. */
int pmc_import_fail(const struct pmc_importer *im, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The same with a column: "<file>:<line>:<column>: <message>" (column 0: none). */
int pmc_import_fail_at(const struct pmc_importer *im, size_t line, size_t column, const char *fmt,
		       ...) __attribute__((format(printf, 4, 5)));

/* A new, empty result in *ret whose backend is backend and whose environment records the
 * source (PMC_IMPORT_ENV_KEY). It has no creation time and no pmcbench version: neither is
 * known. Returns 0 or -ENOMEM. */
int pmc_import_result_new(const char *backend, enum pmc_import_format f, struct pmc_result **ret);

/* Sets v (NAN: not measured) as the sample of run `run` (from 0) of metric id of b,
 * creating the metric when b has none: an id of the metric registry takes the registry's
 * unit and direction, any other id unit and better (PMC_NO_DIRECTION when the source does
 * not say which way is better). Runs before `run` without a sample of it get "not
 * measured". Returns 0, -EEXIST when run `run` already has a sample of it, -ENOMEM. */
int pmc_import_sample(struct pmc_benchmark *b, const char *id, const char *unit, int better,
		      size_t run, double v);

/* Gives every metric of every benchmark of r one sample per run, "not measured" for the
 * runs that had none. Returns 0 or -ENOMEM. */
int pmc_import_pad(struct pmc_result *r);

/* True when s[0..len) is a whole, finite decimal number ("12", "-0.5", "1.5e+03"); its
 * value in *ret. "nan", "inf", hexadecimal and surrounding text are refused: a number
 * that was not written is never made up. Assumes the C locale (pmc_result_load_any). */
bool pmc_import_number(const char *s, size_t len, double *ret);

/* Lines of a text: each call gives the next line without its "\n" (or "\r\n") and its
 * number from 1; false at the end. */
struct pmc_lines {
	const char *p, *end;
	size_t lineno;
};

bool pmc_lines_next(struct pmc_lines *it, const char **ret_line, size_t *ret_len);

/* Converts a time in seconds-based units to ns: the factor of unit ("ns", "us", "ms",
 * "s", and perf's "usec", "msec", "sec"), or 0 for another unit. */
double pmc_import_ns_per(const char *unit, size_t len);

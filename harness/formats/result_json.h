/* The result file: the model of harness/core/result.h as JSON, schema pmcbench-result/1
 * (docs/result-schema.md). */
#pragma once

#include <stddef.h>

struct pmc_result;

/* Writes r to path atomically (temporary file in the same directory, fsync, rename,
 * fsync of the directory): on failure the old file is left as it was. A result that
 * would not load back (samples and runs differ in number, negative counts, ...) is
 * refused with -EINVAL. Returns 0, or -errno with a one-line message in err. */
int pmc_result_save(const struct pmc_result *r, const char *path, char *err, size_t errlen);

/* The JSON text of r (malloc'd, the caller frees), or NULL with errno set (EINVAL
 * for a result pmc_result_save() would refuse). */
char *pmc_result_dumps(const struct pmc_result *r);

/* Loads and validates a result file. On bad input returns -EINVAL (or -errno for I/O)
 * with one line in err naming the file, the place and the fix. */
int pmc_result_load(const char *path, struct pmc_result **ret, char *err, size_t errlen);

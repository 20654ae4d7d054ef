/* The thresholds file (docs/compare.md, "Thresholds file"), schema pmcbench-thresholds/1. */
#pragma once

#include <stddef.h>

struct pmc_thresholds;

/* Loads a thresholds file into t. Its rules rank below --threshold arguments of the same
 * specificity (harness/core/threshold.h). Returns 0, -errno for I/O, -ENOMEM, or -EINVAL
 * with one line in err naming the file and the place. */
int pmc_thresholds_load(struct pmc_thresholds *t, const char *path, char *err, size_t errlen);

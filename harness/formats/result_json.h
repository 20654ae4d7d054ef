/* The result file: the model of harness/core/result.h as JSON, schema pmcbench-result/1
 * (docs/result-schema.md). */
#pragma once

#include <stddef.h>

#include "pmcbench/result.h"

/* pmc_result_load() and pmc_result_save() are declared in pmcbench/result.h. */

/* The JSON text of r in *ret (malloc'd, the caller frees). Returns 0, -EINVAL for a
 * result pmc_result_save() would refuse, or -ENOMEM. */
int pmc_result_dumps(const struct pmc_result *r, char **ret);

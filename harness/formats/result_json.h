/* The result file: the model of harness/core/result.h as JSON, schema pmcbench-result/1
 * (docs/result-schema.md). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "pmcbench/result.h"

/* pmc_result_load() and pmc_result_save() are declared in pmcbench/result.h. */

/* The JSON text of r in *ret (malloc'd, the caller frees). Returns 0, -EINVAL for a
 * result pmc_result_save() would refuse, or -ENOMEM. */
int pmc_result_dumps(const struct pmc_result *r, char **ret);

/* Loads a result from an open stream as pmc_result_load() does from a file, naming it
 * name in messages: a benchmark at a time when the stream can be read again from its
 * start (rereadable: a regular file, fmemopen), else parsed whole. f must be at its
 * start; it is left open. */
int pmc_result_load_stream(FILE *f, bool rereadable, const char *name, struct pmc_result **ret,
			   char *err, size_t errlen);

/* What a JSON value is, for messages ("an object", "a string", "null"): the pmcbench
 * loader's and the importers' words alike. */
typedef struct json_t json_t;
const char *pmc_json_kind(const json_t *v);

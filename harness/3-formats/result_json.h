/* The result file: the model of harness/2-core/result.h as JSON, schema pmcbench-result/1
 * (docs/result-schema.md). */
#pragma once

/* The most a loader reads from one input (a result, or another tool's file): 1 GiB, past
 * any result pmcbench writes (docs/result-schema.md, "Size and speed"), so that a pipe that
 * never ends is refused instead of read forever (issue 19). */
#define PMC_INPUT_MAX (UINT64_C(1) << 30)

/* Checks that st, the file at path, can be read as an input: a regular file or a pipe
 * (a directory, a device such as /dev/zero, a socket cannot). Returns 0, or -EINVAL with
 * one line in err naming the file and the fix. */
struct stat;
int pmc_input_check(const char *path, const struct stat *st, char *err, size_t errlen);

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pmcbench/result.h"

/* pmc_result_load() and pmc_result_save() are declared in pmcbench/result.h. */

/* The JSON text of r in *ret (malloc'd, the caller frees), with r's analysis a
 * (pmc_analysis_new of r), computed once by the caller for every reader
 * (docs/architecture.md, "Data flow"); NULL: analysed here. Returns 0, -EINVAL for a
 * result pmc_result_save() would refuse or an analysis not r's, or -ENOMEM. */
struct pmc_analysis;
int pmc_result_dumps(const struct pmc_result *r, const struct pmc_analysis *a, char **ret);

/* pmc_result_save() with r's analysis, as pmc_result_dumps() takes it. */
int pmc_result_save_analyzed(const struct pmc_result *r, const struct pmc_analysis *a,
			     const char *path, char *err, size_t errlen);

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

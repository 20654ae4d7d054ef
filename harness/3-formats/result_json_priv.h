/* What the files of the result JSON codec share (docs/result-schema.md). The codec is cut
 * by concern:
 *   result_json_check.c   the rules a result must pass before it is written
 *   result_json_write.c   the model as JSON text, a benchmark at a time; saving
 *   result_json_loader.c  the loader: the JSON path of the value at hand, messages, and
 *                         typed readers of members
 *   result_json_metric.c  a metric from its jansson tree: samples, status, raw, parts
 *   result_json_tree.c    a benchmark and the document from their jansson trees
 *   result_json_window.c  loading a file a top-level member and a benchmark at a time
 *   result_json.c         loading a file: the entry points, and the whole document at once
 * Private to harness/3-formats/. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "core/result.h"

#define REGEN "regenerate the file with pmcbench run"

/* ---- Rules both directions apply --------------------------------------------------- */

static inline bool status_failed(enum pmc_status s)
{
	return s == PMC_STATUS_UNSUPPORTED || s == PMC_STATUS_DENIED;
}

/* What kind of quantity a unit measures, for error messages. */
static inline const char *quantity_of(const char *unit)
{
	if (strcmp(unit, "count") == 0)
		return "count";
	if (strcmp(unit, "ns") == 0)
		return "time";
	if (strcmp(unit, "bytes") == 0)
		return "size";
	return "value";
}

/* The raw reading that goes with each status. */
enum raw_kind {
	RAW_NONE,  /* null: the event did not open, nothing was read */
	RAW_COUNT, /* [value, null, null]: a simulated count, which has no times */
	RAW_FULL,  /* [value, time_enabled, time_running] from the kernel */
};

static inline enum raw_kind raw_kind_of(enum pmc_status st)
{
	if (status_failed(st))
		return RAW_NONE;
	return st == PMC_STATUS_EXACT ? RAW_COUNT : RAW_FULL;
}

/* The rules the reader enforces, applied before writing, so that everything saved loads
 * back, and a runner's mistake is reported where it happens rather than by the next
 * compare (result_json_check.c). Returns 0 or -EINVAL with one line in err. */
int pmc_result_check(const struct pmc_result *r, char *err, size_t errlen);

/* ---- The loader: jansson tree -> model ----------------------------------------------- */

/* Where in the document the conversion is, for messages: keys point into the tree. */
struct path_seg {
	const char *key; /* NULL for an array index */
	size_t index;
};

/* The deepest path the schema has is benchmarks[i].metrics.<id>.raw.value[k]. */
#define PATH_DEPTH 8

struct loader {
	const char *file;
	char *err;
	size_t errlen;
	struct path_seg path[PATH_DEPTH];
	unsigned depth;
};

static inline void push_key(struct loader *ld, const char *key)
{
	if (ld->depth < PATH_DEPTH)
		ld->path[ld->depth] = (struct path_seg){.key = key};
	ld->depth++;
}

static inline void push_index(struct loader *ld, size_t index)
{
	if (ld->depth < PATH_DEPTH)
		ld->path[ld->depth] = (struct path_seg){.index = index};
	ld->depth++;
}

static inline void set_index(struct loader *ld, size_t index)
{
	if (ld->depth <= PATH_DEPTH)
		ld->path[ld->depth - 1].index = index;
}

static inline void pop(struct loader *ld)
{
	ld->depth--;
}

/* Reports the first error as "<file>: <path>: <message>"; returns -EINVAL. jansson knows
 * no positions once the tree is built; the path (benchmarks[2].metrics.cycles.samples[3])
 * says where the value is. */
int pmc_loader_fail(struct loader *ld, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Valid JSON, but the wrong type of value for the schema. */
int pmc_loader_wrong_type(struct loader *ld, const json_t *v, const char *expected);

enum need { OPTIONAL, REQUIRED };

/* A string member, copied. An optional one may be absent or null (NULL); a required
 * one must be there and not empty. */
int pmc_loader_string(struct loader *ld, const json_t *obj, const char *key, enum need need,
		      char **ret);

/* An optional boolean member, false when absent. */
int pmc_loader_bool(struct loader *ld, const json_t *obj, const char *key, bool *ret);

/* A whole number from lo to hi; absent is 0 unless required. */
int pmc_loader_int(struct loader *ld, const json_t *obj, const char *key, enum need need, long lo,
		   long hi, int *ret);

/* An optional count from 1 to 2^63 - 1, 0 when absent: integers beyond a double's 53
 * bits stay exact. */
int pmc_loader_count(struct loader *ld, const json_t *obj, const char *key, uint64_t *ret);

/* A member that must hold an object or an array, or NULL when absent and optional. */
int pmc_loader_container(struct loader *ld, const json_t *obj, const char *key, enum need need,
			 json_type type, const json_t **ret);

/* A zeroed array of n elements of size bytes for the model, NULL when n is 0. */
int pmc_loader_array(size_t n, size_t size, void *ret);

/* One metric, id, from obj into m (result_json_metric.c). */
int pmc_metric_from_json(struct loader *ld, const char *id, const json_t *obj,
			 struct pmc_metric *m);

/* One benchmark from obj into b (result_json_tree.c). */
int pmc_benchmark_from_json(struct loader *ld, const json_t *obj, struct pmc_benchmark *b);
/* One more metric of b, id from v, checked as pmc_benchmark_from_json checks each (a
 * benchmark read a metric at a time: its runs are loaded). Returns 0 or as it does. */
int pmc_benchmark_metric_from_json(struct loader *ld, const char *id, const json_t *v,
				   struct pmc_benchmark *b);

/* The schema is checked before anything else, so that a file from a newer version
 * says so instead of failing on some later field. */
int pmc_result_schema_check(struct loader *ld, const json_t *root);

/* The members of the document root other than "benchmarks", into res. */
int pmc_result_head_from_json(struct loader *ld, const json_t *root, struct pmc_result *res);

/* The whole document root into res, checking it as docs/result-schema.md says ("Reading
 * a file: what is checked"). */
int pmc_result_from_json(struct loader *ld, const json_t *root, struct pmc_result *res);

/* ---- Loading a file a benchmark at a time (result_json_window.c) -------------------- */

/* Returned by the windowed loader: give up and parse the whole file. */
#define RETRY_WHOLE 1

/* Loads a result from f a member and a benchmark at a time. Returns 0, -ENOMEM, or
 * RETRY_WHOLE when the file is to be parsed whole instead. */
int pmc_result_load_windowed(FILE *f, struct loader *ld, struct pmc_result *res);

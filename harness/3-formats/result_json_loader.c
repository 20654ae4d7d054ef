/* The result JSON codec's loader (result_json_priv.h): messages that name the file and
 * the JSON path of the value at fault, and the readers of typed members every part of
 * the tree conversion uses. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "formats/result_json.h"
#include "formats/result_json_priv.h"

/* Reports the first error as "<file>: <path>: <message>". jansson knows no positions
 * once the tree is built; the path (benchmarks[2].metrics.cycles.samples[3]) says where
 * the value is. */
int pmc_loader_fail(struct loader *ld, const char *fmt, ...)
{
	unsigned depth = ld->depth < PATH_DEPTH ? ld->depth : PATH_DEPTH;
	char path[320] = "";
	size_t off = 0;
	va_list ap;
	int n;

	if (!ld->err || ld->errlen == 0)
		return -EINVAL;
	for (unsigned i = 0; i < depth && off < sizeof(path); i++) {
		const struct path_seg *s = &ld->path[i];

		if (s->key)
			n = snprintf(path + off, sizeof(path) - off, "%s%.64s", i ? "." : "",
				     s->key);
		else
			n = snprintf(path + off, sizeof(path) - off, "[%zu]", s->index);
		if (n > 0)
			off += (size_t)n;
	}
	n = snprintf(ld->err, ld->errlen, "%s: %s%s", ld->file, path, path[0] ? ": " : "");
	if (n >= 0 && (size_t)n < ld->errlen) {
		va_start(ap, fmt);
		vsnprintf(ld->err + n, ld->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* What a JSON value is, for messages ("found a string"). */
const char *pmc_json_kind(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	default:
		return "null";
	}
}

/* Valid JSON, but the wrong type of value for the schema. */
int pmc_loader_wrong_type(struct loader *ld, const json_t *v, const char *expected)
{
	return pmc_loader_fail(ld, "expected %s, found %s; " REGEN, expected, pmc_json_kind(v));
}

/* A required key that is absent. */
static int missing(struct loader *ld, const char *key)
{
	return pmc_loader_fail(ld, "missing key \"%s\"; " REGEN, key);
}

/* A string member, copied. An optional one may be absent or null (NULL); a required
 * one must be there and not empty. */
int pmc_loader_string(struct loader *ld, const json_t *obj, const char *key, enum need need,
		      char **ret)
{
	const json_t *v = json_object_get(obj, key);
	int rc = 0;

	if (!v)
		return need == REQUIRED ? missing(ld, key) : 0;
	if (need == OPTIONAL && json_is_null(v))
		return 0;
	push_key(ld, key);
	if (!json_is_string(v))
		rc = pmc_loader_wrong_type(ld, v,
					   need == REQUIRED ? "a string" : "a string or null");
	else if (need == REQUIRED && json_string_length(v) == 0)
		rc = pmc_loader_fail(ld, "empty %s; " REGEN, key);
	else if (!(*ret = strdup(json_string_value(v))))
		rc = -ENOMEM;
	pop(ld);
	return rc;
}

/* An optional boolean member, false when absent. */
int pmc_loader_bool(struct loader *ld, const json_t *obj, const char *key, bool *ret)
{
	const json_t *v = json_object_get(obj, key);
	int rc = 0;

	if (!v)
		return 0;
	push_key(ld, key);
	if (json_is_boolean(v))
		*ret = json_is_true(v);
	else
		rc = pmc_loader_wrong_type(ld, v, "true or false");
	pop(ld);
	return rc;
}

/* A whole number from lo to hi; absent is 0 unless required. */
int pmc_loader_int(struct loader *ld, const json_t *obj, const char *key, enum need need, long lo,
		   long hi, int *ret)
{
	const json_t *v = json_object_get(obj, key);
	double d;
	int rc = 0;

	if (!v)
		return need == REQUIRED ? missing(ld, key) : 0;
	push_key(ld, key);
	d = json_number_value(v);
	if (!json_is_number(v))
		rc = pmc_loader_wrong_type(ld, v, "an integer");
	else if (d != floor(d) || d < (double)lo || d > (double)hi)
		rc = pmc_loader_fail(ld, "expected an integer from %ld to %ld, found %.17g; " REGEN,
				     lo, hi, d);
	else
		*ret = (int)d;
	pop(ld);
	return rc;
}

/* An optional whole number from lo (0 or 1) to 2^63 - 1, untouched when absent:
 * integers beyond a double's 53 bits stay exact. */
int pmc_loader_count(struct loader *ld, const json_t *obj, const char *key, int lo, uint64_t *ret)
{
	const json_t *v = json_object_get(obj, key);
	int rc = 0;

	if (!v)
		return 0;
	push_key(ld, key);
	if (json_is_real(v))
		rc = pmc_loader_fail(ld, "expected a whole number from %d, found %.17g; " REGEN, lo,
				     json_real_value(v));
	else if (!json_is_integer(v))
		rc = pmc_loader_wrong_type(ld, v, "a whole number");
	else if (json_integer_value(v) < lo)
		rc = pmc_loader_fail(
		    ld, "expected a whole number from %d, found %" JSON_INTEGER_FORMAT "; " REGEN,
		    lo, json_integer_value(v));
	else
		*ret = (uint64_t)json_integer_value(v);
	pop(ld);
	return rc;
}

/* A member that must hold an object or an array, or NULL when absent and optional. */
int pmc_loader_container(struct loader *ld, const json_t *obj, const char *key, enum need need,
			 json_type type, const json_t **ret)
{
	const json_t *v = json_object_get(obj, key);
	int rc = 0;

	*ret = NULL;
	if (!v)
		return need == REQUIRED ? missing(ld, key) : 0;
	push_key(ld, key);
	if (json_typeof(v) != type)
		rc = pmc_loader_wrong_type(ld, v, type == JSON_OBJECT ? "an object" : "an array");
	else
		*ret = v;
	pop(ld);
	return rc;
}

/* A zeroed array of n elements of size bytes for the model, NULL when n is 0. */
int pmc_loader_array(size_t n, size_t size, void *ret)
{
	void *p = NULL;

	if (n && !(p = calloc(n, size)))
		return -ENOMEM;
	*(void **)ret = p;
	return 0;
}

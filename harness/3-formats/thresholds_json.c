/* The thresholds file (docs/compare.md, "Thresholds file"), schema pmcbench-thresholds/1,
 * read with jansson into the rules of harness/2-core/threshold.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "base/error.h"
#include "core/threshold.h"
#include "formats/thresholds_json.h"

/* Parses a limit string found at place (a path inside the file) of path. */
static int load_limit(json_t *v, const char *path, const char *place, struct pmc_threshold *ret,
		      char *err, size_t errlen)
{
	char what[512];

	snprintf(what, sizeof(what), "%s: %s", path, place);
	if (!json_is_string(v)) {
		pmc_err_set(err, errlen,
			    "%s: expected a string such as \"5%%\", \"+1%%\" or "
			    "\"+2MiB\"",
			    what);
		return -EINVAL;
	}
	/* The column points into the string itself; say so by quoting it. */
	snprintf(what, sizeof(what), "%s: \"%.64s\"", path, json_string_value(v));
	{
		char inner[512];
		int r = pmc_threshold_parse_in(json_string_value(v), what, 0, ret, inner,
					       sizeof(inner));

		if (r < 0) {
			pmc_err_set(err, errlen, "%s (at %s)", inner, place);
			return r;
		}
	}
	return 0;
}

/* Loads an object of METRIC: "LIMIT" into the file's top-level rules (bench SIZE_MAX) or
 * into those of the file's benchmark entry bench. */
static int load_metrics(struct pmc_thresholds *t, size_t bench, json_t *obj, const char *path,
			const char *place, char *err, size_t errlen)
{
	const char *key;
	json_t *v;

	if (!json_is_object(obj)) {
		pmc_err_set(err, errlen,
			    "%s: %s: expected an object of METRIC: \"LIMIT\", e.g. "
			    "{\"instructions\": \"+1%%\"}",
			    path, place);
		return -EINVAL;
	}
	json_object_foreach(obj, key, v)
	{
		struct pmc_threshold th;
		char where[256];
		int r;

		snprintf(where, sizeof(where), "%s.\"%.64s\"", place, key);
		if (key[0] == '\0' || strcmp(key, "*") == 0) {
			pmc_err_set(err, errlen,
				    "%s: %s: not a metric id; set the default with "
				    "\"default\"",
				    path, where);
			return -EINVAL;
		}
		r = load_limit(v, path, where, &th, err, errlen);
		if (r < 0)
			return r;
		r = bench == SIZE_MAX ? pmc_thresholds_set_file_metric(t, key, &th)
				      : pmc_thresholds_set_bench_metric(t, bench, key, &th);
		if (r < 0)
			return r;
	}
	return 0;
}

static int load_bench(struct pmc_thresholds *t, json_t *e, const char *path, size_t pos, char *err,
		      size_t errlen)
{
	bool has_default = false, has_metrics = false;
	char place[64];
	size_t idx;
	const char *key;
	json_t *v;
	int r;

	snprintf(place, sizeof(place), "benchmarks[%zu]", pos);
	if (!json_is_object(e)) {
		pmc_err_set(err, errlen,
			    "%s: %s: expected an object with \"match\" and "
			    "\"metrics\" or \"default\"",
			    path, place);
		return -EINVAL;
	}
	json_object_foreach(e, key, v)
	{
		if (strcmp(key, "match") && strcmp(key, "metrics") && strcmp(key, "default")) {
			pmc_err_set(err, errlen,
				    "%s: %s: unknown key \"%.64s\"; the keys are "
				    "\"match\", \"metrics\" and \"default\"",
				    path, place, key);
			return -EINVAL;
		}
	}
	v = json_object_get(e, "match");
	if (!json_is_string(v) || json_string_value(v)[0] == '\0') {
		pmc_err_set(err, errlen,
			    "%s: %s.match: expected a benchmark name pattern such as "
			    "\"parse_*\"",
			    path, place);
		return -EINVAL;
	}
	r = pmc_thresholds_add_file_bench(t, json_string_value(v), &idx);
	if (r < 0)
		return r;
	v = json_object_get(e, "default");
	if (v) {
		struct pmc_threshold def;
		char where[96];

		snprintf(where, sizeof(where), "%s.default", place);
		r = load_limit(v, path, where, &def, err, errlen);
		if (r < 0)
			return r;
		pmc_thresholds_set_bench_default(t, idx, &def);
		has_default = true;
	}
	v = json_object_get(e, "metrics");
	if (v) {
		char where[96];

		snprintf(where, sizeof(where), "%s.metrics", place);
		r = load_metrics(t, idx, v, path, where, err, errlen);
		if (r < 0)
			return r;
		has_metrics = json_object_size(v) > 0;
	}
	if (!has_default && !has_metrics) {
		pmc_err_set(err, errlen, "%s: %s: sets no limit; add \"metrics\" or \"default\"",
			    path, place);
		return -EINVAL;
	}
	return 0;
}

static int load(struct pmc_thresholds *t, const char *path, char *err, size_t errlen)
{
	json_error_t jerr;
	struct stat st;
	const char *key;
	json_t *root, *v;
	int r = -EINVAL;

	if (!t || !path)
		return -EINVAL;
	/* jansson would report a directory as a read error in the middle of the text. */
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		pmc_err_set(err, errlen, "%s: is a directory; give a thresholds JSON file", path);
		return -EISDIR;
	}
	root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		if (json_error_code(&jerr) == json_error_cannot_open_file) {
			pmc_err_set(err, errlen, "%s: cannot open: %s", path, jerr.text);
			return -ENOENT;
		}
		pmc_err_set(err, errlen, "%s:%d:%d: %s; fix the JSON syntax", path, jerr.line,
			    jerr.column, jerr.text);
		return -EINVAL;
	}
	if (!json_is_object(root)) {
		pmc_err_set(err, errlen, "%s: expected a JSON object with \"schema\": \"%s\"", path,
			    PMC_THRESHOLDS_SCHEMA);
		goto out;
	}
	json_object_foreach(root, key, v)
	{
		if (strcmp(key, "schema") && strcmp(key, "default") && strcmp(key, "metrics") &&
		    strcmp(key, "benchmarks")) {
			pmc_err_set(err, errlen,
				    "%s: unknown key \"%.64s\"; the keys are \"schema\", "
				    "\"default\", \"metrics\" and \"benchmarks\"",
				    path, key);
			goto out;
		}
	}
	v = json_object_get(root, "schema");
	if (v && (!json_is_string(v) || strcmp(json_string_value(v), PMC_THRESHOLDS_SCHEMA))) {
		pmc_err_set(err, errlen,
			    "%s: schema: %s%.64s%s is not supported; this pmcbench "
			    "reads \"%s\"",
			    path, json_is_string(v) ? "\"" : "",
			    json_is_string(v) ? json_string_value(v) : "a non-string",
			    json_is_string(v) ? "\"" : "", PMC_THRESHOLDS_SCHEMA);
		goto out;
	}
	v = json_object_get(root, "default");
	if (v) {
		struct pmc_threshold def;

		r = load_limit(v, path, "default", &def, err, errlen);
		if (r < 0)
			goto out;
		pmc_thresholds_set_file_default(t, &def);
	}
	v = json_object_get(root, "metrics");
	if (v) {
		r = load_metrics(t, SIZE_MAX, v, path, "metrics", err, errlen);
		if (r < 0)
			goto out;
	}
	v = json_object_get(root, "benchmarks");
	if (v) {
		size_t i;
		json_t *e;

		if (!json_is_array(v)) {
			pmc_err_set(err, errlen,
				    "%s: benchmarks: expected an array of {\"match\": "
				    "PATTERN, \"metrics\": {...}}",
				    path);
			r = -EINVAL;
			goto out;
		}
		json_array_foreach(v, i, e)
		{
			r = load_bench(t, e, path, i, err, errlen);
			if (r < 0)
				goto out;
		}
	}
	r = 0;
out:
	json_decref(root);
	return r;
}

int pmc_thresholds_load(struct pmc_thresholds *t, const char *path, char *err, size_t errlen)
{
	int r = load(t, path, err, errlen);

	/* Keys and values are quoted from the file: shown escaped, on one line. */
	if (r < 0)
		pmc_err_escape(err, errlen);
	return r;
}

/* hyperfine's --export-json: one benchmark per command, one run per entry of its "times"
 * (docs/import.md). hyperfine's summaries (mean, stddev, median, min, max, and user and
 * system when they are single numbers) are not runs and are left out. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/metrics.h"
#include "core/result.h"
#include "formats/import_priv.h"
#include "formats/result_json.h"

#define FIX "rerun hyperfine with --export-json FILE"

struct hf {
	struct pmc_importer im;
	size_t index; /* of the entry in "results" */
};

static int fail(struct hf *h, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct hf *h, const char *key, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (key)
		return pmc_import_fail(&h->im, 0, "results[%zu].%s: %s", h->index, key, msg);
	return pmc_import_fail(&h->im, 0, "results[%zu]: %s", h->index, msg);
}

/* A per-run array of key, one entry per run (nruns of them); NULL in *ret when absent. */
static int per_run(struct hf *h, const json_t *e, const char *key, size_t nruns, const json_t **ret)
{
	const json_t *v = json_object_get(e, key);

	*ret = NULL;
	if (!v)
		return 0;
	if (!json_is_array(v))
		return fail(h, key, "expected an array of one value per run, found %s; " FIX,
			    pmc_json_kind(v));
	if (json_array_size(v) != nruns)
		return fail(h, key, "%zu entries for %zu runs (\"times\"); each run has one — " FIX,
			    json_array_size(v), nruns);
	*ret = v;
	return 0;
}

/* Entry i of a per-run array as a non-negative number times factor; NAN for null. */
static int run_value(struct hf *h, const char *key, const json_t *arr, size_t i, double factor,
		     double *ret)
{
	const json_t *v = json_array_get(arr, i);

	if (json_is_null(v)) {
		*ret = NAN;
		return 0;
	}
	if (!json_is_number(v))
		return fail(h, key, "entry %zu: expected a number, found %s; " FIX, i,
			    pmc_json_kind(v));
	if (json_number_value(v) < 0)
		return fail(h, key,
			    "entry %zu: negative value %g; times and sizes cannot be "
			    "negative — " FIX,
			    i, json_number_value(v));
	*ret = json_number_value(v) * factor;
	return 0;
}

/* The exit code of run i: hyperfine writes null for a command killed by a signal (it does
 * not say which). */
static int exit_code(struct hf *h, const json_t *codes, size_t i, int *ret)
{
	const json_t *v = codes ? json_array_get(codes, i) : NULL;

	if (!codes) {
		*ret = 0;
		return 0;
	}
	if (json_is_null(v)) {
		*ret = -1;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 255)
		return fail(h, "exit_codes",
			    "entry %zu: expected an exit code 0..255 or null, found %s; " FIX, i,
			    json_is_integer(v) ? "a number outside 0..255" : pmc_json_kind(v));
	*ret = (int)json_integer_value(v);
	return 0;
}

/* The metrics of hyperfine's per-run arrays, by key: seconds or bytes into pmcbench's ids.
 * hyperfine 1.x writes user and system as the mean over the runs, a single number: a
 * summary, not a run's value, and left out. */
static const struct {
	const char *key, *id;
	double factor;
	bool mean_when_number;
} series[] = {
    {"times", "wall-time", 1e9, false},
    {"user", "user-time", 1e9, true},
    {"system", "system-time", 1e9, true},
    {"memory_usage_byte", "max-rss", 1, false},
};

/* "parameters" (-L, -P): name → value, strings as hyperfine writes them; the benchmark
 * records them as pmcbench's own runs do (docs/result-schema.md). */
static int add_params(struct hf *h, const json_t *e, struct pmc_benchmark *b)
{
	const json_t *params = json_object_get(e, "parameters"), *v;
	const char *key;
	int r;

	if (!params || json_is_null(params))
		return 0;
	if (!json_is_object(params))
		return fail(h, "parameters",
			    "expected an object of the parameters' values, found %s; " FIX,
			    pmc_json_kind(params));
	json_object_foreach((json_t *)params, key, v)
	{
		if (!*key || !json_is_string(v))
			return fail(h, "parameters",
				    "expected a name and a string value for each parameter, found "
				    "%s for '%.40s'; " FIX,
				    pmc_json_kind(v), key);
		if ((r = pmc_benchmark_set_param(b, key, json_string_value(v))) < 0)
			return r;
	}
	return 0;
}

static int add_result(struct hf *h, struct pmc_result *res, const json_t *e)
{
	const json_t *times = json_object_get(e, "times"), *codes, *arr;
	const json_t *cmd = json_object_get(e, "command");
	struct pmc_benchmark *b;
	size_t nruns;
	int r;

	if (!json_is_object(e))
		return fail(h, NULL, "expected an object, found %s; " FIX, pmc_json_kind(e));
	if (!cmd)
		return fail(h, NULL, "no \"command\"; " FIX);
	if (!json_is_string(cmd) || !*json_string_value(cmd))
		return fail(h, "command", "expected the command's name, found %s; " FIX,
			    json_is_string(cmd) ? "an empty string" : pmc_json_kind(cmd));
	if (!times)
		return fail(h, NULL,
			    "no \"times\": without the time of each run, the summaries "
			    "(mean, median, ...) cannot be tested; " FIX);
	if (!json_is_array(times) || json_array_size(times) == 0)
		return fail(h, "times", "expected the time of each run, found %s; " FIX,
			    json_is_array(times) ? "no runs" : pmc_json_kind(times));
	nruns = json_array_size(times);
	if ((r = per_run(h, e, "exit_codes", nruns, &codes)) < 0)
		return r;
	/* "command" is the command line, or the name --command-name gave it: it names the
	 * benchmark, and what ran is not known. */
	r = pmc_result_add_benchmark(res, json_string_value(cmd), NULL, &b);
	if (r == -EEXIST)
		return fail(h, "command",
			    "'%.100s' appears twice; give each command its own name with "
			    "--command-name",
			    json_string_value(cmd));
	if (r < 0)
		return r;
	if ((r = add_params(h, e, b)) < 0)
		return r;
	for (size_t i = 0; i < nruns; i++) {
		int code = 0;

		if ((r = exit_code(h, codes, i, &code)) < 0 ||
		    (r = pmc_benchmark_record_run(b, code, 0, false)) < 0)
			return r;
	}
	for (size_t k = 0; k < sizeof(series) / sizeof(series[0]); k++) {
		const json_t *v = json_object_get(e, series[k].key);

		if (series[k].mean_when_number && json_is_number(v))
			continue;
		if ((r = per_run(h, e, series[k].key, nruns, &arr)) < 0)
			return r;
		if (!arr)
			continue;
		for (size_t i = 0; i < nruns; i++) {
			double x = NAN;

			if ((r = run_value(h, series[k].key, arr, i, series[k].factor, &x)) < 0 ||
			    (r = pmc_import_sample(b, series[k].id, "ns", PMC_LOWER_IS_BETTER, i,
						   x)) < 0)
				return r;
		}
	}
	return 0;
}

int pmc_import_hyperfine(const char *name, const char *text, size_t len, struct pmc_result **ret,
			 char *err, size_t errlen)
{
	struct hf h = {.im = {.file = name, .err = err, .errlen = errlen}};
	struct pmc_result *res = NULL;
	const json_t *results, *e;
	json_error_t jerr;
	json_t *root;
	size_t i;
	int r;

	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		if (json_error_code(&jerr) == json_error_out_of_memory)
			return -ENOMEM;
		return pmc_import_fail_at(
		    &h.im, (size_t)jerr.line, (size_t)jerr.column, "%s; %s — " FIX, jerr.text,
		    json_error_code(&jerr) == json_error_premature_end_of_input
			? "the file is truncated"
			: "the file is not hyperfine's JSON");
	}
	results = json_object_get(root, "results");
	if (!json_is_array(results)) {
		r = pmc_import_fail(&h.im, 0,
				    "results: expected an array of commands, found %s; " FIX,
				    results ? pmc_json_kind(results) : "none");
		goto out;
	}
	if (json_array_size(results) == 0) {
		r = pmc_import_fail(&h.im, 0, "results: no commands; " FIX);
		goto out;
	}
	if ((r = pmc_import_result_new("hyperfine", PMC_IMPORT_HYPERFINE, &res)) < 0)
		goto out;
	json_array_foreach(results, i, e)
	{
		h.index = i;
		if ((r = add_result(&h, res, e)) < 0)
			goto out;
	}
	if ((r = pmc_import_pad(res)) < 0)
		goto out;
	*ret = res;
	res = NULL;
out:
	pmc_result_free(res);
	json_decref(root);
	return r;
}

/* The result JSON codec: a benchmark and the document from their jansson trees
 * (docs/result-schema.md): the runs, the metrics (each by result_json_metric.c), the
 * parameters and skip reason of a benchmark; the schema, tool, environment, design and
 * complexity fits of the document. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/grow.h"
#include "core/result.h"
#include "core/result_priv.h"
#include "formats/result_json.h"
#include "formats/result_json_priv.h"

/* A run's context switches: both counts or neither (not known). */
static int load_switches(struct loader *ld, const json_t *v, struct pmc_run_info *run)
{
	bool vol = json_object_get(v, "voluntary_switches") != NULL;
	int rc;

	if (vol != (json_object_get(v, "involuntary_switches") != NULL))
		return pmc_loader_fail(ld, "a run has %s without %s; " REGEN,
				       vol ? "voluntary_switches" : "involuntary_switches",
				       vol ? "involuntary_switches" : "voluntary_switches");
	if ((rc = pmc_loader_count(ld, v, "voluntary_switches", 0, &run->voluntary_switches)) < 0 ||
	    (rc = pmc_loader_count(ld, v, "involuntary_switches", 0, &run->involuntary_switches)) <
		0)
		return rc;
	run->switches = vol;
	return 0;
}

static int load_runs(struct loader *ld, const json_t *arr, struct pmc_benchmark *b)
{
	const json_t *v;
	size_t i;
	int rc, round = 0, cpu = -1, process = 0;

	push_key(ld, "runs");
	if ((rc = pmc_loader_array(json_array_size(arr), sizeof(*b->runs), &b->runs)) < 0)
		return rc;
	b->nruns = json_array_size(arr);
	push_index(ld, 0);
	json_array_foreach(arr, i, v)
	{
		struct pmc_run_info *run = &b->runs[i];

		set_index(ld, i);
		if (!json_is_object(v))
			return pmc_loader_wrong_type(ld, v, "an object");
		if ((rc = pmc_loader_int(ld, v, "exit_code", REQUIRED, -1, 255, &run->exit_code)) <
			0 ||
		    (rc = pmc_loader_int(ld, v, "signal", OPTIONAL, 0, 127, &run->term_signal)) <
			0 ||
		    (rc = pmc_loader_bool(ld, v, "timed_out", &run->timed_out)) < 0 ||
		    (rc = pmc_loader_int(ld, v, "round", OPTIONAL, 1, INT_MAX, &round)) < 0 ||
		    (rc = pmc_loader_int(ld, v, "process", OPTIONAL, 1, INT_MAX, &process)) < 0 ||
		    (rc = pmc_loader_int(ld, v, "cpu", OPTIONAL, 0, INT_MAX, &cpu)) < 0 ||
		    (rc = pmc_loader_count(ld, v, "iterations", 1, &run->iterations)) < 0 ||
		    (rc = load_switches(ld, v, run)) < 0)
			return rc;
		run->round = (unsigned)round;
		run->process = (unsigned)process;
		run->pinned = cpu >= 0;
		run->cpu = cpu;
		round = 0;
		process = 0;
		cpu = -1;
		if (run->term_signal && run->exit_code != -1)
			return pmc_loader_fail(
			    ld, "a run killed by signal %d has exit_code -1, not %d; " REGEN,
			    run->term_signal, run->exit_code);
	}
	pop(ld);
	pop(ld);
	return 0;
}

/* Metric id of b, from v, into b->metrics[b->nmetrics] (room made by the caller). */
static int one_metric(struct loader *ld, const char *id, const json_t *v, struct pmc_benchmark *b)
{
	int rc;

	if (!*id)
		return pmc_loader_fail(ld, "empty metric id; " REGEN);
	push_key(ld, id);
	if ((rc = pmc_metric_from_json(ld, id, v, &b->metrics[b->nmetrics++])) < 0)
		return rc;
	if (b->metrics[b->nmetrics - 1].n != b->nruns) {
		push_key(ld, "samples");
		return pmc_loader_fail(
		    ld,
		    "%zu samples for %zu runs; every metric has one sample per run "
		    "(null when not measured) — " REGEN,
		    b->metrics[b->nmetrics - 1].n, b->nruns);
	}
	pop(ld);
	return 0;
}

static int load_metrics(struct loader *ld, const json_t *obj, struct pmc_benchmark *b)
{
	const char *id;
	const json_t *v;
	int rc;

	push_key(ld, "metrics");
	if ((rc = pmc_loader_array(json_object_size(obj), sizeof(*b->metrics), &b->metrics)) < 0)
		return rc;
	/* jansson keeps the keys in file order, and refused duplicates while parsing. */
	json_object_foreach((json_t *)obj, id, v)
	{
		if ((rc = one_metric(ld, id, v, b)) < 0)
			return rc;
	}
	pop(ld);
	return 0;
}

int pmc_benchmark_metric_from_json(struct loader *ld, const char *id, const json_t *v,
				   struct pmc_benchmark *b)
{
	int rc;

	push_key(ld, "metrics");
	if (pmc_grow_to(&b->metrics, &b->metrics_cap, b->nmetrics + 1, sizeof(*b->metrics)) < 0)
		return -ENOMEM;
	memset(&b->metrics[b->nmetrics], 0, sizeof(*b->metrics));
	if ((rc = one_metric(ld, id, v, b)) < 0)
		return rc;
	pop(ld);
	return 0;
}

static bool is_build_id(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n % 2 == 0 && strspn(s, "0123456789abcdef") == n;
}

/* "skipped": the reason a benchmark skipped itself, absent when it ran. A skipped
 * benchmark measured nothing, so its runs and metrics must be empty. */
static int load_skipped(struct loader *ld, const json_t *obj, const json_t *runs,
			const json_t *metrics, struct pmc_benchmark *b)
{
	const json_t *v = json_object_get(obj, "skipped");
	int rc = 0;

	if (!v)
		return 0;
	push_key(ld, "skipped");
	if (!json_is_string(v))
		rc = pmc_loader_wrong_type(ld, v, "a string (why the benchmark was skipped)");
	else if (json_array_size(runs) || json_object_size(metrics))
		rc = pmc_loader_fail(
		    ld,
		    "the benchmark was skipped (\"%.100s\") but has %zu runs and %zu "
		    "metrics; a skipped benchmark measured nothing — " REGEN,
		    json_string_value(v), json_array_size(runs), json_object_size(metrics));
	else if (!(b->skipped = strdup(json_string_value(v))))
		rc = -ENOMEM;
	pop(ld);
	return rc;
}

/* "parameters": optional, an object of strings with non-empty names. */
static int load_params(struct loader *ld, const json_t *obj, struct pmc_benchmark *b)
{
	const json_t *params, *v;
	const char *key;
	int rc = pmc_loader_container(ld, obj, "parameters", OPTIONAL, JSON_OBJECT, &params);

	if (rc < 0 || !params)
		return rc;
	push_key(ld, "parameters");
	json_object_foreach((json_t *)params, key, v)
	{
		if (!*key)
			return pmc_loader_fail(ld, "a parameter with an empty name; " REGEN);
		if (!json_is_string(v)) {
			push_key(ld, key);
			return pmc_loader_wrong_type(ld, v, "a string (the parameter's value)");
		}
		rc = pmc_benchmark_set_param(b, key, json_string_value(v));
		if (rc < 0)
			return rc;
	}
	pop(ld);
	return 0;
}

/* "time_unit": the unit a benchmark's times are shown in, absent for each figure's own. */
static int load_time_unit(struct loader *ld, const json_t *obj, struct pmc_benchmark *b)
{
	char *name = NULL;
	int rc = pmc_loader_string(ld, obj, "time_unit", OPTIONAL, &name);

	if (rc < 0 || !name)
		return rc;
	b->time_unit = pmc_time_unit_from_name(name);
	if (b->time_unit < 0) {
		push_key(ld, "time_unit");
		rc =
		    pmc_loader_fail(ld, "a time unit is ns, us, ms or s, not \"%s\"; " REGEN, name);
		b->time_unit = PMC_TIME_AUTO;
	}
	free(name);
	return rc;
}

int pmc_benchmark_from_json(struct loader *ld, const json_t *obj, struct pmc_benchmark *b)
{
	const json_t *runs, *metrics;
	int rc;

	if (!json_is_object(obj))
		return pmc_loader_wrong_type(ld, obj, "an object");
	if ((rc = pmc_loader_string(ld, obj, "name", REQUIRED, &b->name)) < 0 ||
	    (rc = pmc_loader_string(ld, obj, "command", OPTIONAL, &b->command)) < 0 ||
	    (rc = pmc_loader_string(ld, obj, "build_id", OPTIONAL, &b->build_id)) < 0)
		return rc;
	if (b->build_id && !is_build_id(b->build_id)) {
		push_key(ld, "build_id");
		return pmc_loader_fail(
		    ld, "a build-id is lower-case hex digits, not \"%s\"; " REGEN, b->build_id);
	}
	if ((rc = load_params(ld, obj, b)) < 0 || (rc = load_time_unit(ld, obj, b)) < 0)
		return rc;
	if ((rc = pmc_loader_container(ld, obj, "runs", REQUIRED, JSON_ARRAY, &runs)) < 0 ||
	    (rc = pmc_loader_container(ld, obj, "metrics", REQUIRED, JSON_OBJECT, &metrics)) < 0 ||
	    (rc = load_skipped(ld, obj, runs, metrics, b)) < 0 || (rc = load_runs(ld, runs, b)) < 0)
		return rc;
	return load_metrics(ld, metrics, b);
}

static int load_benchmarks(struct loader *ld, const json_t *arr, struct pmc_result *res)
{
	size_t n = json_array_size(arr), i, dup;
	const json_t *v;
	int rc;

	push_key(ld, "benchmarks");
	if ((rc = pmc_loader_array(n, sizeof(*res->benchmarks), &res->benchmarks)) < 0)
		return rc;
	pmc_result_bench_adopt(res, res->benchmarks, n);
	push_index(ld, 0);
	json_array_foreach(arr, i, v)
	{
		set_index(ld, i);
		res->nbench++;
		if ((rc = pmc_benchmark_from_json(ld, v, &res->benchmarks[i])) < 0)
			return rc;
		rc = pmc_result_index(res, &dup);
		if (rc == -EEXIST)
			return pmc_loader_fail(
			    ld,
			    "a second benchmark named \"%s\" (the first is benchmarks[%zu]); "
			    "names must be unique — " REGEN,
			    res->benchmarks[i].name, dup);
		if (rc < 0)
			return rc;
	}
	pop(ld);
	pop(ld);
	return 0;
}

static int load_environment(struct loader *ld, const json_t *obj, struct pmc_result *res)
{
	const char *key;
	const json_t *v;
	int rc;

	push_key(ld, "environment");
	if ((rc = pmc_loader_array(json_object_size(obj), sizeof(*res->env), &res->env)) < 0)
		return rc;
	json_object_foreach((json_t *)obj, key, v)
	{
		struct pmc_env_entry *e = &res->env[res->nenv];

		if (!*key)
			return pmc_loader_fail(ld, "empty key; " REGEN);
		if (!json_is_string(v)) {
			push_key(ld, key);
			return pmc_loader_wrong_type(ld, v, "a string");
		}
		e->key = strdup(key);
		e->value = strdup(json_string_value(v));
		res->nenv++;
		if (!e->key || !e->value)
			return -ENOMEM;
	}
	pop(ld);
	return 0;
}

/* The schema is checked before anything else, so that a file from a newer version
 * says so instead of failing on some later field. */
int pmc_result_schema_check(struct loader *ld, const json_t *root)
{
	static const char prefix[] = "pmcbench-result/";
	const json_t *v = json_object_get(root, "schema");
	const char *s, *version;

	if (!v)
		return pmc_loader_fail(
		    ld, "no \"schema\" key; this is not a pmcbench result file (a result "
			"starts with \"schema\": \"" PMC_RESULT_SCHEMA "\")");
	push_key(ld, "schema");
	if (!json_is_string(v))
		return pmc_loader_wrong_type(ld, v, "a string such as \"" PMC_RESULT_SCHEMA "\"");
	s = json_string_value(v);
	if (strcmp(s, PMC_RESULT_SCHEMA) == 0) {
		pop(ld);
		return 0;
	}
	version = s + strlen(prefix);
	if (strncmp(s, prefix, strlen(prefix)) == 0 && *version &&
	    strspn(version, "0123456789") == strlen(version) && atol(version) > 1)
		return pmc_loader_fail(
		    ld,
		    "schema \"%s\" was written by a newer pmcbench; upgrade pmcbench to "
		    "read it (this one reads " PMC_RESULT_SCHEMA ")",
		    s);
	return pmc_loader_fail(
	    ld,
	    "unknown schema \"%s\"; this is not a pmcbench result file (expected "
	    "\"" PMC_RESULT_SCHEMA "\")",
	    s);
}

/* Builds the model of the members of the document root other than "benchmarks". */
static int load_design(struct loader *ld, const json_t *obj, struct pmc_design *d)
{
	const json_t *cpus;
	int rc, rounds = 0;

	push_key(ld, "design");
	if ((rc = pmc_loader_string(ld, obj, "mode", REQUIRED, &d->mode)) < 0 ||
	    (rc = pmc_loader_int(ld, obj, "rounds", REQUIRED, 0, INT_MAX, &rounds)) < 0 ||
	    (rc = pmc_loader_container(ld, obj, "cpus", OPTIONAL, JSON_ARRAY, &cpus)) < 0 ||
	    (rc = pmc_loader_string(ld, obj, "stopped", OPTIONAL, &d->stopped)) < 0)
		return rc;
	d->rounds = (size_t)rounds;
	if (strcmp(d->mode, "interleaved") != 0 && strcmp(d->mode, "duet") != 0)
		return pmc_loader_fail(
		    ld, "mode \"%s\": expected \"interleaved\" or \"duet\"; " REGEN, d->mode);
	if (cpus) {
		push_key(ld, "cpus");
		for (size_t i = 0; i < 2 && json_array_size(cpus) == 2; i++) {
			const json_t *c = json_array_get(cpus, i);

			if (!json_is_integer(c) || json_integer_value(c) < 0 ||
			    json_integer_value(c) > INT_MAX)
				return pmc_loader_fail(ld, "expected two CPU numbers; " REGEN);
			d->cpus[i] = (int)json_integer_value(c);
		}
		if (json_array_size(cpus) != 2)
			return pmc_loader_fail(ld, "expected two CPU numbers, found %zu; " REGEN,
					       json_array_size(cpus));
		d->ncpus = 2;
		pop(ld);
	}
	pop(ld);
	return 0;
}

/* A fit's finite number (rms: from 0). */
static int get_fit_number(struct loader *ld, const json_t *obj, const char *key, double lo,
			  double *ret)
{
	const json_t *v = json_object_get(obj, key);
	int rc = 0;

	if (!v)
		return pmc_loader_fail(ld, "missing key \"%s\"; " REGEN, key);
	push_key(ld, key);
	if (!json_is_number(v))
		rc = pmc_loader_wrong_type(ld, v, "a number");
	else if (!(json_number_value(v) >= lo) || !isfinite(json_number_value(v)))
		rc = pmc_loader_fail(ld, "expected a number from %g, found %.17g; " REGEN, lo,
				     json_number_value(v));
	else
		*ret = json_number_value(v);
	pop(ld);
	return rc;
}

/* "complexity": an array of fits, each checked as pmc_result_add_fit checks it. */
static int load_fits(struct loader *ld, const json_t *arr, struct pmc_result *res)
{
	int rc = 0;

	push_key(ld, "complexity");
	for (size_t i = 0; rc == 0 && i < json_array_size(arr); i++) {
		const json_t *o = json_array_get(arr, i);
		struct pmc_fit f = {0};
		int points = 0;

		push_index(ld, i);
		if (!json_is_object(o))
			rc = pmc_loader_wrong_type(ld, o, "an object");
		if (rc == 0 &&
		    ((rc = pmc_loader_string(ld, o, "name", REQUIRED, &f.name)) < 0 ||
		     (rc = pmc_loader_string(ld, o, "metric", REQUIRED, &f.metric)) < 0 ||
		     (rc = pmc_loader_string(ld, o, "big_o", REQUIRED, &f.big_o)) < 0 ||
		     (rc = get_fit_number(ld, o, "coef", -HUGE_VAL, &f.coef)) < 0 ||
		     (rc = get_fit_number(ld, o, "rms", 0, &f.rms)) < 0 ||
		     (rc = pmc_loader_int(ld, o, "points", REQUIRED, 2, INT_MAX, &points)) < 0))
			;
		else if (rc == 0 && !pmc_fit_big_o_valid(f.big_o))
			rc = pmc_loader_fail(ld,
					     "big_o \"%s\": expected O(1), O(log n), O(n), "
					     "O(n log n), O(n^2), O(n^3) or O(f(n)); " REGEN,
					     f.big_o);
		f.points = (size_t)points;
		if (rc == 0 && (rc = pmc_result_add_fit(res, &f)) < 0)
			rc = rc == -ENOMEM
				 ? rc
				 : pmc_loader_fail(ld, "a fit without a name or metric; " REGEN);
		free(f.name);
		free(f.metric);
		free(f.big_o);
		if (rc == 0)
			pop(ld);
	}
	if (rc == 0)
		pop(ld);
	return rc;
}

int pmc_result_head_from_json(struct loader *ld, const json_t *root, struct pmc_result *res)
{
	const json_t *tool, *env, *design, *fits;
	int rc;

	if ((rc = pmc_result_schema_check(ld, root)) < 0 ||
	    (rc = pmc_loader_string(ld, root, "backend", REQUIRED, &res->backend)) < 0 ||
	    (rc = pmc_loader_container(ld, root, "tool", OPTIONAL, JSON_OBJECT, &tool)) < 0 ||
	    (rc = pmc_loader_string(ld, root, "created", OPTIONAL, &res->created)) < 0 ||
	    (rc = pmc_loader_container(ld, root, "environment", OPTIONAL, JSON_OBJECT, &env)) < 0)
		return rc;
	if (tool) {
		push_key(ld, "tool");
		if ((rc = pmc_loader_string(ld, tool, "version", OPTIONAL, &res->tool_version)) < 0)
			return rc;
		pop(ld);
	}
	if (env && (rc = load_environment(ld, env, res)) < 0)
		return rc;
	if ((rc = pmc_loader_container(ld, root, "design", OPTIONAL, JSON_OBJECT, &design)) < 0 ||
	    (design && (rc = load_design(ld, design, &res->design)) < 0) ||
	    (rc = pmc_loader_string(ld, root, "incomplete", OPTIONAL, &res->incomplete)) < 0 ||
	    (rc = pmc_loader_container(ld, root, "complexity", OPTIONAL, JSON_ARRAY, &fits)) < 0)
		return rc;
	return fits ? load_fits(ld, fits, res) : 0;
}

/* Builds the model of the document root into res, checking it as docs/result-schema.md
 * says ("Reading a file: what is checked"). */
int pmc_result_from_json(struct loader *ld, const json_t *root, struct pmc_result *res)
{
	const json_t *benchmarks;
	int rc;

	if (!json_is_object(root))
		return pmc_loader_fail(
		    ld,
		    "expected a JSON object, found %s; this is not a pmcbench result "
		    "file",
		    pmc_json_kind(root));
	if ((rc = pmc_result_head_from_json(ld, root, res)) < 0 ||
	    (rc = pmc_loader_container(ld, root, "benchmarks", REQUIRED, JSON_ARRAY, &benchmarks)) <
		0)
		return rc;
	return load_benchmarks(ld, benchmarks, res);
}

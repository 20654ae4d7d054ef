/* The result JSON codec, schema pmcbench-result/1 (docs/result-schema.md).
 *
 * JSON is jansson's job: saving converts the model to jansson trees, a benchmark at a
 * time, and dumps them; loading parses the file with jansson, a top-level member and a
 * benchmark at a time, and converts each tree to the model, checking every rule of the
 * schema on the way. A file that is not valid, or not laid out as expected, is parsed
 * again whole, so that syntax errors come with jansson's line and column and schema
 * errors with the JSON path of the value at fault. jansson is used as it comes: the
 * library installs no allocator hooks (docs/api.md). */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "config.h"
#include "base/atomic_file.h"
#include "base/error.h"
#include "base/utf8.h"
#include "core/metrics.h"
#include "core/analysis.h"
#include "core/result.h"
#include "core/result_priv.h"
#include "formats/json_out.h"
#include "formats/result_json.h"

#define REGEN "regenerate the file with pmcbench run"

static bool status_failed(enum pmc_status s)
{
	return s == PMC_STATUS_UNSUPPORTED || s == PMC_STATUS_DENIED;
}

/* ---- Shared helpers ------------------------------------------------------------- */

/* What kind of quantity a unit measures, for error messages. */
static const char *quantity_of(const char *unit)
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

static enum raw_kind raw_kind_of(enum pmc_status st)
{
	if (status_failed(st))
		return RAW_NONE;
	return st == PMC_STATUS_EXACT ? RAW_COUNT : RAW_FULL;
}

/* ---- Checking a result before writing it -------------------------------------- */

/* The samples of metric id (or of one of its parts) against their status and raw
 * readings. */
static int check_samples(const char *bench, const char *id, const struct pmc_metric *m,
			 char *err, size_t errlen)
{
	for (size_t k = 0; k < m->n; k++) {
		const struct pmc_run_raw *raw = m->has_status ? &m->raw[k] : NULL;
		double v = m->values[k];

		if (isinf(v) || (!m->derived && v < 0)) {
			pmc_err_set(
			    err, errlen,
			    "benchmark \"%s\": metric \"%s\": run %zu has the "
			    "%s %g",
			    bench, id, k, quantity_of(m->unit), v);
			return -EINVAL;
		}
		if (!raw)
			continue;
		if ((unsigned)m->status[k] > PMC_STATUS_EXACT ||
		    pmc_status_has_value(m->status[k]) == (bool)isnan(v) ||
		    raw->running > raw->enabled) {
			pmc_err_set(
			    err, errlen,
			    "benchmark \"%s\": metric \"%s\": run %zu: the value, "
			    "status and raw reading disagree",
			    bench, id, k);
			return -EINVAL;
		}
		/* The kernel keeps counts and times in signed 64 bits (local64_t),
		 * and JSON readers such as jansson read integers that way. */
		if (raw_kind_of(m->status[k]) != RAW_NONE &&
		    (raw->value > INT64_MAX || raw->enabled > INT64_MAX)) {
			pmc_err_set(
			    err, errlen,
			    "benchmark \"%s\": metric \"%s\": run %zu: a raw "
			    "reading above 2^63 - 1, which no kernel reports",
			    bench, id, k);
			return -EINVAL;
		}
	}
	return 0;
}

/* The rules the reader enforces, applied before writing, so that everything saved loads
 * back, and a runner's mistake is reported where it happens rather than by the next
 * compare. */
static int result_check(const struct pmc_result *r, char *err, size_t errlen)
{
	if (!r->backend || !*r->backend) {
		pmc_err_set(err, errlen, "the result has no backend");
		return -EINVAL;
	}
	for (size_t i = 0; i < r->nenv; i++) {
		if (!*r->env[i].key || !pmc_utf8_valid(r->env[i].key)) {
			pmc_err_set(err, errlen, "environment key %zu is empty or not UTF-8", i);
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < r->nbench; i++) {
		const struct pmc_benchmark *b = &r->benchmarks[i];

		if (!b->name || !*b->name) {
			pmc_err_set(err, errlen, "benchmark %zu has no name", i);
			return -EINVAL;
		}
		if (pmc_result_find_benchmark(r, b->name) != b) {
			pmc_err_set(err, errlen,
				    "two benchmarks are named \"%s\"; names must be unique",
				    b->name);
			return -EINVAL;
		}
		for (size_t k = 0; k < b->nparams; k++) {
			if (!*b->params[k].key || !pmc_utf8_valid(b->params[k].key)) {
				pmc_err_set(err, errlen,
					    "benchmark \"%s\": parameter %zu has an empty name or one "
					    "that is not UTF-8",
					    b->name, k);
				return -EINVAL;
			}
		}
		if (b->skipped && (b->nruns || b->nmetrics)) {
			pmc_err_set(err, errlen,
				    "benchmark \"%s\" is skipped but has %zu runs and %zu metrics; "
				    "a skipped benchmark measured nothing",
				    b->name, b->nruns, b->nmetrics);
			return -EINVAL;
		}
		for (size_t k = 0; k < b->nruns; k++) {
			const struct pmc_run_info *run = &b->runs[k];

			if (run->exit_code < -1 || run->exit_code > 255 || run->term_signal < 0 ||
			    run->term_signal > 127 || (run->term_signal && run->exit_code != -1)) {
				pmc_err_set(
				    err, errlen,
				    "benchmark \"%s\": run %zu has exit code %d and signal %d; "
				    "a run killed by a signal has exit code -1",
				    b->name, k, run->exit_code, run->term_signal);
				return -EINVAL;
			}
			if (run->iterations > INT64_MAX) {
				pmc_err_set(err, errlen,
					    "benchmark \"%s\": run %zu has %" PRIu64 " iterations, "
					    "beyond 2^63 - 1",
					    b->name, k, run->iterations);
				return -EINVAL;
			}
		}
		for (size_t j = 0; j < b->nmetrics; j++) {
			const struct pmc_metric *m = &b->metrics[j];

			if (!m->id || !*m->id || !pmc_utf8_valid(m->id) || !m->unit || !*m->unit ||
			    (m->better != PMC_LOWER_IS_BETTER &&
			     m->better != PMC_HIGHER_IS_BETTER)) {
				pmc_err_set(
				    err, errlen,
				    "benchmark \"%s\": metric %zu lacks a UTF-8 id, a unit or a "
				    "direction",
				    b->name, j);
				return -EINVAL;
			}
			if (pmc_benchmark_find_metric(b, m->id) != m) {
				pmc_err_set(err, errlen,
					    "benchmark \"%s\": metric \"%s\" appears twice",
					    b->name, m->id);
				return -EINVAL;
			}
			if (m->n != b->nruns) {
				pmc_err_set(
				    err, errlen,
				    "benchmark \"%s\": metric \"%s\" has %zu samples for %zu runs; "
				    "record one sample per run (NAN when not measured)",
				    b->name, m->id, m->n, b->nruns);
				return -EINVAL;
			}
			if (check_samples(b->name, m->id, m, err, errlen) < 0)
				return -EINVAL;
			if (m->nparts && !m->has_status) {
				pmc_err_set(err, errlen,
					    "benchmark \"%s\": metric \"%s\" has parts but no status",
					    b->name, m->id);
				return -EINVAL;
			}
			for (size_t p = 0; p < m->nparts; p++) {
				const struct pmc_metric *part = &m->parts[p];
				char label[PMC_PMU_NAME_MAX + 256];

				snprintf(label, sizeof(label), "%s (part %s)", m->id,
					 part->id ? part->id : "");
				if (!part->id || !*part->id || !pmc_utf8_valid(part->id) ||
				    part->n != m->n || !part->has_status) {
					pmc_err_set(err, errlen,
						    "benchmark \"%s\": metric \"%s\": a part lacks a "
						    "UTF-8 name, a status or one sample per run",
						    b->name, m->id);
					return -EINVAL;
				}
				if (check_samples(b->name, label, part, err, errlen) < 0)
					return -EINVAL;
			}
		}
	}
	return 0;
}

/* ---- Writing: model -> JSON text ------------------------------------------------ */

/* The text is compact JSON (no spaces), with a line break after each top-level member,
 * each benchmark's head and each metric: jansson reads indentation one character at a
 * time, and JSON_INDENT(1) made loading a third slower for a file half again as large
 * (docs/result-schema.md, "Size and speed"), while a metric per line still reads and
 * diffs well. jansson writes doubles with 17 significant digits (2.15 and later: the
 * shortest form that reads back the same). */
#define DUMP_FLAGS (JSON_COMPACT | JSON_ENCODE_ANY)

/* s as a JSON string. JSON text is UTF-8: a stray byte (a Latin-1 file name in a
 * command, say) becomes U+FFFD rather than making the file unreadable. */
static json_t *string_json(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	json_t *j;
	char *fixed, *q;

	if (!s)
		return json_null();
	if (pmc_utf8_valid(s))
		return json_string(s);
	fixed = malloc(3 * strlen(s) + 1);
	if (!fixed)
		return NULL;
	for (q = fixed; *p;) {
		size_t n = pmc_utf8_len(p);

		if (n) {
			memcpy(q, p, n);
			q += n;
			p += n;
		} else {
			memcpy(q, "\xef\xbf\xbd", 3);
			q += 3;
			p++;
		}
	}
	*q = '\0';
	j = json_string(fixed);
	free(fixed);
	return j;
}

/* A value not measured (NAN) is null. Whole numbers are written as integers, which
 * is how counts and nanoseconds read best; -0 stays a real so that its sign survives. */
static json_t *number_json(double v)
{
	if (isnan(v))
		return json_null();
	if (v == floor(v) && fabs(v) < 9.2e18 && !(v == 0 && signbit(v)))
		return json_integer((json_int_t)v);
	return json_real(v);
}

/* Adds value to obj or arr. jansson takes the value even when that fails, and fails
 * for a NULL value, so a failed constructor ends up here as false. */
static bool put(json_t *obj, const char *key, json_t *value)
{
	return json_object_set_new(obj, key, value) == 0;
}

static bool append(json_t *arr, json_t *value)
{
	return json_array_append_new(arr, value) == 0;
}

/* Adds an empty container to obj and returns it (obj owns it), or NULL. */
static json_t *put_new(json_t *obj, const char *key, json_t *container)
{
	return put(obj, key, container) ? container : NULL;
}

/* An errno by name: numbers differ between architectures. */
static json_t *error_json(int error)
{
	const char *name = strerrorname_np(error);

	return name ? json_string(name) : json_integer(error);
}

/* One status name when every run has the same (the common case), else one per run. */
static json_t *status_json(const struct pmc_metric *m)
{
	json_t *arr;
	size_t k = 1;

	while (k < m->n && m->status[k] == m->status[0])
		k++;
	if (m->n > 0 && k == m->n)
		return json_string(pmc_status_name(m->status[0]));
	arr = json_array();
	for (k = 0; arr && k < m->n; k++) {
		if (!append(arr, json_string(pmc_status_name(m->status[k])))) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

/* The raw readings as three parallel arrays, entry k for run k: jansson makes a value
 * of every number but not of every run, where a [value, enabled, running] triple per
 * run cost an array of its own. A part the run has no reading of is null (table
 * "raw" in docs/result-schema.md). The values are below 2^63 (result_check). */
static json_t *raw_json(const struct pmc_metric *m)
{
	json_t *j = json_object(), *value, *enabled, *running;
	bool ok;

	ok = (value = put_new(j, "value", json_array())) &&
	     (enabled = put_new(j, "time_enabled", json_array())) &&
	     (running = put_new(j, "time_running", json_array()));
	for (size_t k = 0; ok && k < m->n; k++) {
		const struct pmc_run_raw *raw = &m->raw[k];
		enum raw_kind kind = raw_kind_of(m->status[k]);

		ok = append(value, kind == RAW_NONE ? json_null()
						    : json_integer((json_int_t)raw->value)) &&
		     append(enabled, kind == RAW_FULL ? json_integer((json_int_t)raw->enabled)
						      : json_null()) &&
		     append(running, kind == RAW_FULL ? json_integer((json_int_t)raw->running)
						      : json_null());
	}
	if (!ok) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/* A statistic: null where it does not exist (a mean beyond a double). */
static json_t *stat_json(double v)
{
	return isfinite(v) ? number_json(v) : json_null();
}

/* The summary of the measured samples, from the analysis every report reads
 * (docs/result-schema.md, "Metric"): derivable, so never read back. */
static json_t *summary_json(const struct pmc_summary *s)
{
	json_t *j = json_object();
	bool ok;

	ok = put(j, "n", json_integer((json_int_t)s->n)) && put(j, "mean", stat_json(s->mean)) &&
	     put(j, "stddev", stat_json(s->stddev)) && put(j, "median", stat_json(s->median)) &&
	     put(j, "median_ci",
		 s->has_ci ? json_pack("[o, o]", stat_json(s->ci_lo), stat_json(s->ci_hi))
			   : json_null()) &&
	     put(j, "min", stat_json(s->min)) && put(j, "max", stat_json(s->max));
	if (!ok) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/* Hybrid CPUs: {"cpu_core": {"samples": [...], "status": ..., "raw": {...}}, ...}, the
 * count of each core PMU whose sum the metric is (docs/result-schema.md, "parts"). */
static json_t *parts_json(const struct pmc_metric *m)
{
	json_t *j = json_object();
	bool ok = j != NULL;

	for (size_t p = 0; ok && p < m->nparts; p++) {
		const struct pmc_metric *part = &m->parts[p];
		json_t *pj = json_object(), *samples;

		ok = put(j, part->id, pj) && (samples = put_new(pj, "samples", json_array())) &&
		     put(pj, "status", status_json(part)) && put(pj, "raw", raw_json(part));
		for (size_t i = 0; ok && i < part->n; i++)
			ok = append(samples, number_json(part->values[i]));
	}
	if (!ok) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/* A member that holds its default (false, 0) is left out: the reader supplies it, and
 * a file of many benchmarks is a tenth smaller and quicker to load without them. */
static json_t *metric_json(const struct pmc_metric *m, const struct pmc_metric_analysis *ma)
{
	json_t *j = json_object(), *samples;
	char health[PMC_HEALTH_DESC_MAX] = "";
	bool summary = ma && ma->has_summary;
	bool ok;

	/* Derived from the samples, like the reports' warnings; never read back. */
	if (summary && pmc_health_describe(&ma->health, health, sizeof(health)) < 0)
		health[0] = '\0';

	ok =
	    put(j, "unit", string_json(m->unit)) &&
	    put(j, "better", json_string(m->better == PMC_HIGHER_IS_BETTER ? "higher" : "lower")) &&
	    (!m->derived || put(j, "derived", json_true())) &&
	    (!m->simulated || put(j, "simulated", json_true())) &&
	    (!m->cross_group || put(j, "cross_group", json_true())) &&
	    (!m->error || put(j, "error", error_json(m->error))) &&
	    (!m->note || put(j, "note", string_json(m->note))) &&
	    (!m->has_loop_overhead || put(j, "loop_overhead", number_json(m->loop_overhead))) &&
	    (!health[0] || put(j, "health", json_string(health))) &&
	    (!summary || put(j, "summary", summary_json(&ma->s))) &&
	    (samples = put_new(j, "samples", json_array())) &&
	    (!m->has_status || (put(j, "status", status_json(m)) && put(j, "raw", raw_json(m)))) &&
	    (!m->restricted || put(j, "restricted", json_true())) &&
	    (!m->nparts || put(j, "parts", parts_json(m)));
	for (size_t i = 0; ok && i < m->n; i++)
		ok = append(samples, number_json(m->values[i]));
	if (!ok) {
		json_decref(j);
		return NULL;
	}
	return j;
}

static json_t *run_json(const struct pmc_run_info *run)
{
	json_t *j = json_pack("{s:i}", "exit_code", run->exit_code);

	if (j && ((run->term_signal && !put(j, "signal", json_integer(run->term_signal))) ||
		  (run->timed_out && !put(j, "timed_out", json_true())) ||
		  (run->round && !put(j, "round", json_integer(run->round))) ||
		  (run->process && !put(j, "process", json_integer(run->process))) ||
		  (run->pinned && !put(j, "cpu", json_integer(run->cpu))) ||
		  (run->iterations &&
		   !put(j, "iterations", json_integer((json_int_t)run->iterations))))) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/* "parameters": name → value, in the order given; NULL when out of memory. */
static json_t *params_json(const struct pmc_benchmark *b)
{
	json_t *j = json_object();

	for (size_t i = 0; j && i < b->nparams; i++) {
		if (!put(j, b->params[i].key, string_json(b->params[i].value))) {
			json_decref(j);
			return NULL;
		}
	}
	return j;
}

/* A benchmark's members other than its metrics, which are written one per line. */
static json_t *benchmark_head_json(const struct pmc_benchmark *b)
{
	json_t *j = json_object(), *runs;
	bool ok;

	/* A skipped benchmark still has its (empty) runs and metrics: a reader that does not
	 * know "skipped" sees a benchmark that measured nothing, never a number. */
	ok = put(j, "name", string_json(b->name)) && put(j, "command", string_json(b->command)) &&
	     put(j, "build_id", string_json(b->build_id)) &&
	     (!b->nparams || put(j, "parameters", params_json(b))) &&
	     (!b->skipped || put(j, "skipped", string_json(b->skipped))) &&
	     (runs = put_new(j, "runs", json_array()));
	for (size_t i = 0; ok && i < b->nruns; i++)
		ok = append(runs, run_json(&b->runs[i]));
	if (!ok) {
		json_decref(j);
		return NULL;
	}
	return j;
}

static json_t *design_json(const struct pmc_design *d)
{
	json_t *j = json_pack("{s:s, s:I}", "mode", d->mode, "rounds", (json_int_t)d->rounds);

	if (j && d->ncpus == 2 && !put(j, "cpus", json_pack("[i, i]", d->cpus[0], d->cpus[1]))) {
		json_decref(j);
		return NULL;
	}
	if (j && d->stopped && !put(j, "stopped", json_string(d->stopped))) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/* The members of the document before "benchmarks", in the order of
 * docs/result-schema.md. */
static json_t *result_head_json(const struct pmc_result *r)
{
	json_t *j = json_object(), *env;
	bool ok;

	ok = put(j, "schema", json_string(PMC_RESULT_SCHEMA)) &&
	     put(j, "tool",
		 json_pack("{s:s, s:o}", "name", "pmcbench", "version",
			   string_json(r->tool_version))) &&
	     put(j, "created", string_json(r->created)) &&
	     put(j, "backend", string_json(r->backend)) &&
	     (env = put_new(j, "environment", json_object()));
	for (size_t i = 0; ok && i < r->nenv; i++)
		ok = put(env, r->env[i].key, string_json(r->env[i].value));
	if (ok && r->design.mode)
		ok = put(j, "design", design_json(&r->design));
	if (!ok) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/* ---- Saving ----------------------------------------------------------------------- */

/* Where the text goes, and the first error on the way (the errno of a failed write, or
 * ENOMEM): once set, the rest is skipped. */
struct writer {
	FILE *f;
	int error;
};

static void put_text(struct writer *w, const char *s)
{
	if (!w->error && fputs(s, w->f) == EOF)
		w->error = errno ? errno : EIO;
}

/* Writes j compactly and drops it; a NULL j is a constructor that ran out of memory. */
static void put_value(struct writer *w, json_t *j)
{
	if (!j && !w->error)
		w->error = ENOMEM;
	if (j && !w->error && pmc_json_dumpf(j, w->f, DUMP_FLAGS) < 0)
		w->error = errno ? errno : EIO;
	json_decref(j);
}

/* "key":value; keys are UTF-8 (result_check, string_json). */
static void put_member(struct writer *w, const char *key, json_t *value)
{
	put_value(w, json_string(key));
	put_text(w, ":");
	put_value(w, value);
}

/* The members of obj, sep between them, without the braces; obj is dropped. A NULL obj
 * is a constructor that ran out of memory. */
static void put_members(struct writer *w, json_t *obj, const char *sep)
{
	const char *key;
	json_t *v;
	bool first = true;

	if (!obj && !w->error)
		w->error = ENOMEM;
	json_object_foreach(obj, key, v)
	{
		if (!first)
			put_text(w, sep);
		first = false;
		put_member(w, key, json_incref(v));
	}
	json_decref(obj);
}

/* Writes the text of r, which has passed result_check(), one benchmark at a time: the
 * jansson tree of the whole result is never built. Returns 0 or a negative errno. */
static int write_result(const struct pmc_result *r, FILE *f)
{
	struct writer w = {.f = f};
	struct pmc_analysis *a = NULL;
	int rc;

	/* The health of every metric's runs, adjusted over the whole result. */
	rc = pmc_analysis_new(r, 0.95, &a);
	if (rc == -ENOMEM)
		return rc;
	errno = 0;
	put_text(&w, "{");
	put_members(&w, result_head_json(r), ",\n");
	put_text(&w, ",\n\"benchmarks\":[");
	for (size_t i = 0; i < r->nbench && !w.error; i++) {
		const struct pmc_benchmark *b = &r->benchmarks[i];

		put_text(&w, i ? ",\n{" : "\n{");
		put_members(&w, benchmark_head_json(b), ",");
		put_text(&w, ",\"metrics\":{");
		for (size_t j = 0; j < b->nmetrics; j++) {
			put_text(&w, j ? ",\n" : "\n");
			put_member(
			    &w, b->metrics[j].id,
			    metric_json(&b->metrics[j], a ? &a->benches[i].metrics[j] : NULL));
		}
		put_text(&w, "}}");
	}
	put_text(&w, r->nbench ? "\n]}\n" : "]}\n");
	pmc_analysis_free(a);
	return -w.error;
}

int pmc_result_dumps(const struct pmc_result *r, char **ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	rc = result_check(r, NULL, 0);
	if (rc < 0)
		return rc;
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	rc = write_result(r, f);
	if (fclose(f) != 0 || rc < 0) {
		free(buf);
		return -ENOMEM;
	}
	*ret = buf;
	return 0;
}

int pmc_result_save(const struct pmc_result *r, const char *path, char *err, size_t errlen)
{
	struct pmc_atomic_file *af;
	int rc;

	if (!r || !path)
		return -EINVAL;
	rc = result_check(r, err, errlen);
	if (rc < 0) {
		/* Prefix the file name to the checker's message. */
		char msg[512];

		snprintf(msg, sizeof(msg), "%s", err ? err : "");
		pmc_err_set(err, errlen, "cannot write %s: %s", path, msg);
		return rc;
	}
	rc = pmc_atomic_file_open(path, &af, err, errlen);
	if (rc < 0)
		return rc;
	rc = write_result(r, pmc_atomic_file_stream(af));
	if (rc < 0) {
		pmc_atomic_file_abort(af);
		pmc_err_set(err, errlen, "cannot write %s: %s; the previous file is unchanged",
			    path, strerror(-rc));
		return rc;
	}
	return pmc_atomic_file_commit(af, err, errlen);
}

/* ---- Reading: jansson tree -> model --------------------------------------------- */

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

static void push_key(struct loader *ld, const char *key)
{
	if (ld->depth < PATH_DEPTH)
		ld->path[ld->depth] = (struct path_seg){.key = key};
	ld->depth++;
}

static void push_index(struct loader *ld, size_t index)
{
	if (ld->depth < PATH_DEPTH)
		ld->path[ld->depth] = (struct path_seg){.index = index};
	ld->depth++;
}

static void set_index(struct loader *ld, size_t index)
{
	if (ld->depth <= PATH_DEPTH)
		ld->path[ld->depth - 1].index = index;
}

static void pop(struct loader *ld)
{
	ld->depth--;
}

/* Reports the first error as "<file>: <path>: <message>". jansson knows no positions
 * once the tree is built; the path (benchmarks[2].metrics.cycles.samples[3]) says where
 * the value is. */
static int fail(struct loader *ld, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct loader *ld, const char *fmt, ...)
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
static int wrong_type(struct loader *ld, const json_t *v, const char *expected)
{
	return fail(ld, "expected %s, found %s; " REGEN, expected, pmc_json_kind(v));
}

static int missing(struct loader *ld, const char *key)
{
	return fail(ld, "missing key \"%s\"; " REGEN, key);
}

enum need { OPTIONAL, REQUIRED };

/* A string member, copied. An optional one may be absent or null (NULL); a required
 * one must be there and not empty. */
static int get_string(struct loader *ld, const json_t *obj, const char *key, enum need need,
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
		rc = wrong_type(ld, v, need == REQUIRED ? "a string" : "a string or null");
	else if (need == REQUIRED && json_string_length(v) == 0)
		rc = fail(ld, "empty %s; " REGEN, key);
	else if (!(*ret = strdup(json_string_value(v))))
		rc = -ENOMEM;
	pop(ld);
	return rc;
}

/* An optional boolean member, false when absent. */
static int get_bool(struct loader *ld, const json_t *obj, const char *key, bool *ret)
{
	const json_t *v = json_object_get(obj, key);
	int rc = 0;

	if (!v)
		return 0;
	push_key(ld, key);
	if (json_is_boolean(v))
		*ret = json_is_true(v);
	else
		rc = wrong_type(ld, v, "true or false");
	pop(ld);
	return rc;
}

/* A whole number from lo to hi; absent is 0 unless required. */
static int get_int(struct loader *ld, const json_t *obj, const char *key, enum need need, long lo,
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
		rc = wrong_type(ld, v, "an integer");
	else if (d != floor(d) || d < (double)lo || d > (double)hi)
		rc =
		    fail(ld, "expected an integer from %ld to %ld, found %.17g; " REGEN, lo, hi, d);
	else
		*ret = (int)d;
	pop(ld);
	return rc;
}

/* An optional count from 1 to 2^63 - 1, 0 when absent: integers beyond a double's 53
 * bits stay exact. */
static int get_count(struct loader *ld, const json_t *obj, const char *key, uint64_t *ret)
{
	const json_t *v = json_object_get(obj, key);
	int rc = 0;

	if (!v)
		return 0;
	push_key(ld, key);
	if (json_is_real(v))
		rc = fail(ld, "expected a whole number from 1, found %.17g; " REGEN,
			  json_real_value(v));
	else if (!json_is_integer(v))
		rc = wrong_type(ld, v, "a whole number");
	else if (json_integer_value(v) < 1)
		rc = fail(ld,
			  "expected a whole number from 1, found %" JSON_INTEGER_FORMAT "; " REGEN,
			  json_integer_value(v));
	else
		*ret = (uint64_t)json_integer_value(v);
	pop(ld);
	return rc;
}

/* A metric's optional "loop_overhead": a finite number from 0. */
static int get_overhead(struct loader *ld, const json_t *obj, struct pmc_metric *m)
{
	const json_t *v = json_object_get(obj, "loop_overhead");
	int rc = 0;

	if (!v)
		return 0;
	push_key(ld, "loop_overhead");
	if (!json_is_number(v))
		rc = wrong_type(ld, v, "a number");
	else if (!(json_number_value(v) >= 0))
		rc = fail(ld, "expected a number from 0, found %.17g; " REGEN,
			  json_number_value(v));
	else {
		m->has_loop_overhead = true;
		m->loop_overhead = json_number_value(v);
	}
	pop(ld);
	return rc;
}

/* A member that must hold an object or an array, or NULL when absent and optional. */
static int get_container(struct loader *ld, const json_t *obj, const char *key, enum need need,
			 json_type type, const json_t **ret)
{
	const json_t *v = json_object_get(obj, key);
	int rc = 0;

	*ret = NULL;
	if (!v)
		return need == REQUIRED ? missing(ld, key) : 0;
	push_key(ld, key);
	if (json_typeof(v) != type)
		rc = wrong_type(ld, v, type == JSON_OBJECT ? "an object" : "an array");
	else
		*ret = v;
	pop(ld);
	return rc;
}

/* A zeroed array of n elements of size bytes for the model, NULL when n is 0. */
static int alloc_array(size_t n, size_t size, void *ret)
{
	void *p = NULL;

	if (n && !(p = calloc(n, size)))
		return -ENOMEM;
	*(void **)ret = p;
	return 0;
}

/* The errno behind unsupported/denied: a name, null, or (as some writers give it) a
 * number. */
static int load_error(struct loader *ld, const json_t *obj, int *ret)
{
	const json_t *v = json_object_get(obj, "error");
	int rc = 0;

	if (!v || json_is_null(v))
		return 0;
	if (json_is_number(v))
		return get_int(ld, obj, "error", OPTIONAL, 0, 4095, ret);
	push_key(ld, "error");
	if (!json_is_string(v)) {
		rc = wrong_type(ld, v, "an errno name such as \"ENOENT\"");
	} else {
		const char *s = json_string_value(v);
		int e;

		for (e = 1; e < 4096; e++) {
			const char *name = strerrorname_np(e);

			if (name && strcmp(name, s) == 0)
				break;
		}
		if (e < 4096)
			*ret = e;
		else
			rc = fail(ld, "unknown errno name \"%s\"; " REGEN, s);
	}
	pop(ld);
	return rc;
}

static int load_samples(struct loader *ld, const json_t *arr, struct pmc_metric *m)
{
	const json_t *v;
	size_t i;
	int rc;

	push_key(ld, "samples");
	if ((rc = alloc_array(json_array_size(arr), sizeof(*m->values), &m->values)) < 0)
		return rc;
	m->n = json_array_size(arr);
	push_index(ld, 0);
	json_array_foreach(arr, i, v)
	{
		set_index(ld, i);
		if (json_is_null(v))
			m->values[i] = NAN;
		else if (!json_is_number(v))
			return wrong_type(ld, v, "a number or null");
		else
			m->values[i] = json_number_value(v);
		if (m->values[i] < 0 && !m->derived) {
			const char *q = quantity_of(m->unit);

			return fail(ld, "negative %s %g; %ss cannot be negative — " REGEN, q,
				    m->values[i], q);
		}
	}
	pop(ld);
	pop(ld);
	return 0;
}

/* A status name, into ret. */
static int status_from_json(struct loader *ld, const json_t *v, enum pmc_status *ret)
{
	if (!json_is_string(v))
		return wrong_type(ld, v, "a status name");
	if (pmc_status_from_name(json_string_value(v), ret) < 0)
		return fail(ld,
			    "unknown status \"%s\"; expected counted, scaled, not-counted, "
			    "unsupported, denied or exact — " REGEN,
			    json_string_value(v));
	return 0;
}

/* The status of every run: one name for all of them, or an array of one per run. */
static int load_status(struct loader *ld, const json_t *v, struct pmc_metric *m)
{
	const json_t *e;
	size_t i;
	int rc;

	push_key(ld, "status");
	if (!json_is_string(v) && !json_is_array(v))
		return wrong_type(ld, v, "a status name, or an array of one per run");
	if (json_is_array(v) && json_array_size(v) != m->n)
		return fail(ld, "%zu statuses for %zu samples; " REGEN, json_array_size(v), m->n);
	if ((rc = alloc_array(m->n, sizeof(*m->status), &m->status)) < 0)
		return rc;
	if (json_is_string(v)) {
		enum pmc_status st;

		if ((rc = status_from_json(ld, v, &st)) < 0)
			return rc;
		for (size_t k = 0; k < m->n; k++)
			m->status[k] = st;
		pop(ld);
		return 0;
	}
	push_index(ld, 0);
	json_array_foreach(v, i, e)
	{
		set_index(ld, i);
		if ((rc = status_from_json(ld, e, &m->status[i])) < 0)
			return rc;
	}
	pop(ld);
	pop(ld);
	return 0;
}

/* The three parallel arrays of "raw", in the order of struct pmc_run_raw. */
static const char *const raw_parts[] = {"value", "time_enabled", "time_running"};

/* Marks a null entry while loading: a JSON integer is at most 2^63 - 1. */
#define RAW_ABSENT UINT64_MAX

static uint64_t *raw_part(struct pmc_run_raw *raw, size_t part)
{
	return part == 0 ? &raw->value : part == 1 ? &raw->enabled : &raw->running;
}

/* One of the arrays of "raw": one entry per run, a non-negative integer or null. */
static int load_raw_part(struct loader *ld, const json_t *raw, size_t part, struct pmc_metric *m)
{
	const json_t *arr, *v;
	size_t i;
	int rc;

	if ((rc = get_container(ld, raw, raw_parts[part], REQUIRED, JSON_ARRAY, &arr)) < 0)
		return rc;
	push_key(ld, raw_parts[part]);
	if (json_array_size(arr) != m->n)
		return fail(ld, "%zu entries for %zu samples; " REGEN, json_array_size(arr), m->n);
	push_index(ld, 0);
	json_array_foreach(arr, i, v)
	{
		uint64_t *x = raw_part(&m->raw[i], part);

		set_index(ld, i);
		if (json_is_null(v))
			*x = RAW_ABSENT;
		else if (!json_is_number(v))
			return wrong_type(ld, v, "a non-negative integer or null");
		else if (!json_is_integer(v) || json_integer_value(v) < 0)
			return fail(ld,
				    "%s %.17g is not a non-negative integer; raw readings are what "
				    "the kernel returned — " REGEN,
				    raw_parts[part], json_number_value(v));
		else
			*x = (uint64_t)json_integer_value(v);
	}
	pop(ld);
	pop(ld);
	return 0;
}

/* The raw readings, each run's of the shape its status calls for. */
static int load_raw(struct loader *ld, const json_t *raw, struct pmc_metric *m)
{
	static const char *const what[] = {
	    [RAW_NONE] = "no reading",
	    [RAW_COUNT] = "a value without times",
	    [RAW_FULL] = "a value with time_enabled and time_running",
	};
	int rc;

	push_key(ld, "raw");
	if ((rc = alloc_array(m->n, sizeof(*m->raw), &m->raw)) < 0)
		return rc;
	for (size_t part = 0; part < 3; part++)
		if ((rc = load_raw_part(ld, raw, part, m)) < 0)
			return rc;
	for (size_t k = 0; k < m->n; k++) {
		struct pmc_run_raw *x = &m->raw[k];
		bool value = x->value != RAW_ABSENT, enabled = x->enabled != RAW_ABSENT,
		     running = x->running != RAW_ABSENT;
		enum raw_kind kind, want = raw_kind_of(m->status[k]);

		if (enabled != running || (!value && enabled))
			return fail(
			    ld,
			    "run %zu has %s; a reading is a value with time_enabled and "
			    "time_running, a value alone (simulated), or nothing (all null) "
			    "— " REGEN,
			    k,
			    !value    ? "times but no value"
			    : enabled ? "time_enabled but no time_running"
				      : "time_running but no time_enabled");
		kind = !value ? RAW_NONE : enabled ? RAW_FULL : RAW_COUNT;
		if (kind != want)
			return fail(ld,
				    "run %zu has %s, but its status \"%s\" calls for %s — " REGEN,
				    k, what[kind], pmc_status_name(m->status[k]), what[want]);
		if (kind == RAW_FULL && x->running > x->enabled) {
			push_key(ld, "time_running");
			push_index(ld, k);
			return fail(ld,
				    "time_running %" PRIu64 " exceeds time_enabled %" PRIu64
				    "; the kernel never reports that — " REGEN,
				    x->running, x->enabled);
		}
		/* The model holds 0 where the file has null: the status says which is which. */
		for (size_t part = 0; part < 3; part++)
			if (*raw_part(x, part) == RAW_ABSENT)
				*raw_part(x, part) = 0;
	}
	pop(ld);
	return 0;
}

/* Every run's sample against its status: a number exactly when the status has one. */
static int check_loaded_samples(struct loader *ld, const struct pmc_metric *m)
{
	push_key(ld, "samples");
	push_index(ld, 0);
	for (size_t k = 0; k < m->n; k++) {
		enum pmc_status st = m->status[k];

		set_index(ld, k);
		if (pmc_status_has_value(st) && isnan(m->values[k]))
			return fail(ld,
				    "null for a run with status \"%s\", which has a value; " REGEN,
				    pmc_status_name(st));
		if (!pmc_status_has_value(st) && !isnan(m->values[k]))
			return fail(ld,
				    "a number for a run with status \"%s\", which was not "
				    "measured; it must be null — " REGEN,
				    pmc_status_name(st));
	}
	pop(ld);
	pop(ld);
	return 0;
}

/* A counter metric's optional "parts" (hybrid CPUs): one object per core PMU with the
 * samples, status and raw of its count, one per run as the metric's. */
static int load_parts(struct loader *ld, const json_t *obj, struct pmc_metric *m)
{
	const json_t *parts, *v;
	const char *pmu;
	int rc;

	if ((rc = get_container(ld, obj, "parts", OPTIONAL, JSON_OBJECT, &parts)) < 0 || !parts)
		return rc;
	push_key(ld, "parts");
	if (!m->has_status)
		return fail(ld, "parts of a metric without \"status\"; " REGEN);
	if (json_object_size(parts) > PMC_PARTS_MAX)
		return fail(ld, "%zu parts; a CPU has at most %d core PMUs — " REGEN,
			    json_object_size(parts), PMC_PARTS_MAX);
	if ((rc = alloc_array(json_object_size(parts), sizeof(*m->parts), &m->parts)) < 0)
		return rc;
	json_object_foreach((json_t *)parts, pmu, v)
	{
		struct pmc_metric *part = &m->parts[m->nparts++];
		const json_t *samples, *status, *raw;

		push_key(ld, pmu);
		part->better = m->better;
		if (!(part->id = strdup(pmu)) || !(part->unit = strdup(m->unit)))
			return -ENOMEM;
		if (!*pmu)
			return fail(ld, "a part without a PMU name; " REGEN);
		if (!json_is_object(v))
			return wrong_type(ld, v, "an object");
		if ((rc = get_container(ld, v, "samples", REQUIRED, JSON_ARRAY, &samples)) < 0 ||
		    (rc = get_container(ld, v, "raw", REQUIRED, JSON_OBJECT, &raw)) < 0)
			return rc;
		status = json_object_get(v, "status");
		if (!status)
			return fail(ld, "a part without \"status\"; " REGEN);
		if ((rc = load_samples(ld, samples, part)) < 0)
			return rc;
		if (part->n != m->n)
			return fail(ld, "%zu samples for %zu runs; " REGEN, part->n, m->n);
		if ((rc = load_status(ld, status, part)) < 0 || (rc = load_raw(ld, raw, part)) < 0)
			return rc;
		part->has_status = true;
		if ((rc = check_loaded_samples(ld, part)) < 0)
			return rc;
		pop(ld);
	}
	pop(ld);
	return get_bool(ld, obj, "restricted", &m->restricted);
}

static int load_metric(struct loader *ld, const char *id, const json_t *obj, struct pmc_metric *m)
{
	const json_t *samples, *status, *raw;
	char *better = NULL;
	int rc;

	m->better = PMC_LOWER_IS_BETTER;
	if (!(m->id = strdup(id)))
		return -ENOMEM;
	if (!json_is_object(obj))
		return wrong_type(ld, obj, "an object");
	if ((rc = get_string(ld, obj, "unit", REQUIRED, &m->unit)) < 0 ||
	    (rc = get_string(ld, obj, "better", REQUIRED, &better)) < 0)
		return rc;
	if (strcmp(better, "higher") == 0)
		m->better = PMC_HIGHER_IS_BETTER;
	else if (strcmp(better, "lower") != 0) {
		push_key(ld, "better");
		rc = fail(ld, "\"better\" is \"lower\" or \"higher\", not \"%s\"; " REGEN, better);
	}
	free(better);
	status = json_object_get(obj, "status");
	if (rc < 0 || (rc = get_bool(ld, obj, "derived", &m->derived)) < 0 ||
	    (rc = get_bool(ld, obj, "simulated", &m->simulated)) < 0 ||
	    (rc = get_bool(ld, obj, "cross_group", &m->cross_group)) < 0 ||
	    (rc = load_error(ld, obj, &m->error)) < 0 ||
	    (rc = get_string(ld, obj, "note", OPTIONAL, &m->note)) < 0 ||
	    (rc = get_overhead(ld, obj, m)) < 0 ||
	    (rc = get_container(ld, obj, "samples", REQUIRED, JSON_ARRAY, &samples)) < 0 ||
	    (rc = get_container(ld, obj, "raw", OPTIONAL, JSON_OBJECT, &raw)) < 0)
		return rc;
	if (!status != !raw)
		return fail(ld, "\"status\" and \"raw\" come together; " REGEN);
	if ((rc = load_samples(ld, samples, m)) < 0)
		return rc;
	if (!status)
		return 0;
	if ((rc = load_status(ld, status, m)) < 0 || (rc = load_raw(ld, raw, m)) < 0)
		return rc;
	m->has_status = true;
	if ((rc = check_loaded_samples(ld, m)) < 0)
		return rc;
	return load_parts(ld, obj, m);
}

static int load_runs(struct loader *ld, const json_t *arr, struct pmc_benchmark *b)
{
	const json_t *v;
	size_t i;
	int rc, round = 0, cpu = -1, process = 0;

	push_key(ld, "runs");
	if ((rc = alloc_array(json_array_size(arr), sizeof(*b->runs), &b->runs)) < 0)
		return rc;
	b->nruns = json_array_size(arr);
	push_index(ld, 0);
	json_array_foreach(arr, i, v)
	{
		struct pmc_run_info *run = &b->runs[i];

		set_index(ld, i);
		if (!json_is_object(v))
			return wrong_type(ld, v, "an object");
		if ((rc = get_int(ld, v, "exit_code", REQUIRED, -1, 255, &run->exit_code)) < 0 ||
		    (rc = get_int(ld, v, "signal", OPTIONAL, 0, 127, &run->term_signal)) < 0 ||
		    (rc = get_bool(ld, v, "timed_out", &run->timed_out)) < 0 ||
		    (rc = get_int(ld, v, "round", OPTIONAL, 1, INT_MAX, &round)) < 0 ||
		    (rc = get_int(ld, v, "process", OPTIONAL, 1, INT_MAX, &process)) < 0 ||
		    (rc = get_int(ld, v, "cpu", OPTIONAL, 0, INT_MAX, &cpu)) < 0 ||
		    (rc = get_count(ld, v, "iterations", &run->iterations)) < 0)
			return rc;
		run->round = (unsigned)round;
		run->process = (unsigned)process;
		run->pinned = cpu >= 0;
		run->cpu = cpu;
		round = 0;
		process = 0;
		cpu = -1;
		if (run->term_signal && run->exit_code != -1)
			return fail(ld,
				    "a run killed by signal %d has exit_code -1, not %d; " REGEN,
				    run->term_signal, run->exit_code);
	}
	pop(ld);
	pop(ld);
	return 0;
}

static int load_metrics(struct loader *ld, const json_t *obj, struct pmc_benchmark *b)
{
	const char *id;
	const json_t *v;
	int rc;

	push_key(ld, "metrics");
	if ((rc = alloc_array(json_object_size(obj), sizeof(*b->metrics), &b->metrics)) < 0)
		return rc;
	/* jansson keeps the keys in file order, and refused duplicates while parsing. */
	json_object_foreach((json_t *)obj, id, v)
	{
		if (!*id)
			return fail(ld, "empty metric id; " REGEN);
		push_key(ld, id);
		if ((rc = load_metric(ld, id, v, &b->metrics[b->nmetrics++])) < 0)
			return rc;
		if (b->metrics[b->nmetrics - 1].n != b->nruns) {
			push_key(ld, "samples");
			return fail(ld,
				    "%zu samples for %zu runs; every metric has one sample per run "
				    "(null when not measured) — " REGEN,
				    b->metrics[b->nmetrics - 1].n, b->nruns);
		}
		pop(ld);
	}
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
		rc = wrong_type(ld, v, "a string (why the benchmark was skipped)");
	else if (json_array_size(runs) || json_object_size(metrics))
		rc = fail(ld,
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
	int rc = get_container(ld, obj, "parameters", OPTIONAL, JSON_OBJECT, &params);

	if (rc < 0 || !params)
		return rc;
	push_key(ld, "parameters");
	json_object_foreach((json_t *)params, key, v)
	{
		if (!*key)
			return fail(ld, "a parameter with an empty name; " REGEN);
		if (!json_is_string(v)) {
			push_key(ld, key);
			return wrong_type(ld, v, "a string (the parameter's value)");
		}
		rc = pmc_benchmark_set_param(b, key, json_string_value(v));
		if (rc < 0)
			return rc;
	}
	pop(ld);
	return 0;
}

static int load_benchmark(struct loader *ld, const json_t *obj, struct pmc_benchmark *b)
{
	const json_t *runs, *metrics;
	int rc;

	if (!json_is_object(obj))
		return wrong_type(ld, obj, "an object");
	if ((rc = get_string(ld, obj, "name", REQUIRED, &b->name)) < 0 ||
	    (rc = get_string(ld, obj, "command", OPTIONAL, &b->command)) < 0 ||
	    (rc = get_string(ld, obj, "build_id", OPTIONAL, &b->build_id)) < 0)
		return rc;
	if (b->build_id && !is_build_id(b->build_id)) {
		push_key(ld, "build_id");
		return fail(ld, "a build-id is lower-case hex digits, not \"%s\"; " REGEN,
			    b->build_id);
	}
	if ((rc = load_params(ld, obj, b)) < 0)
		return rc;
	if ((rc = get_container(ld, obj, "runs", REQUIRED, JSON_ARRAY, &runs)) < 0 ||
	    (rc = get_container(ld, obj, "metrics", REQUIRED, JSON_OBJECT, &metrics)) < 0 ||
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
	if ((rc = alloc_array(n, sizeof(*res->benchmarks), &res->benchmarks)) < 0)
		return rc;
	pmc_result_bench_adopt(res, res->benchmarks, n);
	push_index(ld, 0);
	json_array_foreach(arr, i, v)
	{
		set_index(ld, i);
		res->nbench++;
		if ((rc = load_benchmark(ld, v, &res->benchmarks[i])) < 0)
			return rc;
		rc = pmc_result_index(res, &dup);
		if (rc == -EEXIST)
			return fail(
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
	if ((rc = alloc_array(json_object_size(obj), sizeof(*res->env), &res->env)) < 0)
		return rc;
	json_object_foreach((json_t *)obj, key, v)
	{
		struct pmc_env_entry *e = &res->env[res->nenv];

		if (!*key)
			return fail(ld, "empty key; " REGEN);
		if (!json_is_string(v)) {
			push_key(ld, key);
			return wrong_type(ld, v, "a string");
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
static int check_schema(struct loader *ld, const json_t *root)
{
	static const char prefix[] = "pmcbench-result/";
	const json_t *v = json_object_get(root, "schema");
	const char *s, *version;

	if (!v)
		return fail(ld, "no \"schema\" key; this is not a pmcbench result file (a result "
				"starts with \"schema\": \"" PMC_RESULT_SCHEMA "\")");
	push_key(ld, "schema");
	if (!json_is_string(v))
		return wrong_type(ld, v, "a string such as \"" PMC_RESULT_SCHEMA "\"");
	s = json_string_value(v);
	if (strcmp(s, PMC_RESULT_SCHEMA) == 0) {
		pop(ld);
		return 0;
	}
	version = s + strlen(prefix);
	if (strncmp(s, prefix, strlen(prefix)) == 0 && *version &&
	    strspn(version, "0123456789") == strlen(version) && atol(version) > 1)
		return fail(ld,
			    "schema \"%s\" was written by a newer pmcbench; upgrade pmcbench to "
			    "read it (this one reads " PMC_RESULT_SCHEMA ")",
			    s);
	return fail(ld,
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
	if ((rc = get_string(ld, obj, "mode", REQUIRED, &d->mode)) < 0 ||
	    (rc = get_int(ld, obj, "rounds", REQUIRED, 0, INT_MAX, &rounds)) < 0 ||
	    (rc = get_container(ld, obj, "cpus", OPTIONAL, JSON_ARRAY, &cpus)) < 0 ||
	    (rc = get_string(ld, obj, "stopped", OPTIONAL, &d->stopped)) < 0)
		return rc;
	d->rounds = (size_t)rounds;
	if (strcmp(d->mode, "interleaved") != 0 && strcmp(d->mode, "duet") != 0)
		return fail(ld, "mode \"%s\": expected \"interleaved\" or \"duet\"; " REGEN,
			    d->mode);
	if (cpus) {
		push_key(ld, "cpus");
		for (size_t i = 0; i < 2 && json_array_size(cpus) == 2; i++) {
			const json_t *c = json_array_get(cpus, i);

			if (!json_is_integer(c) || json_integer_value(c) < 0 ||
			    json_integer_value(c) > INT_MAX)
				return fail(ld, "expected two CPU numbers; " REGEN);
			d->cpus[i] = (int)json_integer_value(c);
		}
		if (json_array_size(cpus) != 2)
			return fail(ld, "expected two CPU numbers, found %zu; " REGEN,
				    json_array_size(cpus));
		d->ncpus = 2;
		pop(ld);
	}
	pop(ld);
	return 0;
}

static int result_head_from_json(struct loader *ld, const json_t *root, struct pmc_result *res)
{
	const json_t *tool, *env, *design;
	int rc;

	if ((rc = check_schema(ld, root)) < 0 ||
	    (rc = get_string(ld, root, "backend", REQUIRED, &res->backend)) < 0 ||
	    (rc = get_container(ld, root, "tool", OPTIONAL, JSON_OBJECT, &tool)) < 0 ||
	    (rc = get_string(ld, root, "created", OPTIONAL, &res->created)) < 0 ||
	    (rc = get_container(ld, root, "environment", OPTIONAL, JSON_OBJECT, &env)) < 0)
		return rc;
	if (tool) {
		push_key(ld, "tool");
		if ((rc = get_string(ld, tool, "version", OPTIONAL, &res->tool_version)) < 0)
			return rc;
		pop(ld);
	}
	if (env && (rc = load_environment(ld, env, res)) < 0)
		return rc;
	if ((rc = get_container(ld, root, "design", OPTIONAL, JSON_OBJECT, &design)) < 0)
		return rc;
	return design ? load_design(ld, design, &res->design) : 0;
}

/* Builds the model of the document root into res, checking it as docs/result-schema.md
 * says ("Reading a file: what is checked"). */
static int result_from_json(struct loader *ld, const json_t *root, struct pmc_result *res)
{
	const json_t *benchmarks;
	int rc;

	if (!json_is_object(root))
		return fail(ld,
			    "expected a JSON object, found %s; this is not a pmcbench result "
			    "file",
			    pmc_json_kind(root));
	if ((rc = result_head_from_json(ld, root, res)) < 0 ||
	    (rc = get_container(ld, root, "benchmarks", REQUIRED, JSON_ARRAY, &benchmarks)) < 0)
		return rc;
	return load_benchmarks(ld, benchmarks, res);
}

/* ---- Loading a file ----------------------------------------------------------------- */

/* Feeds jansson the file through stdio's buffer (jansson asks for 1 KiB at a time), and
 * notes what the messages need: read errors, a byte order mark, whether the file holds
 * anything but white space. */
struct text_source {
	FILE *f;
	int error; /* errno of a failed read, else 0 */
	bool started, bom, any_text;
	uint64_t total; /* bytes read, at most PMC_INPUT_MAX */
};

static size_t read_text(void *buf, size_t len, void *arg)
{
	struct text_source *src = arg;
	unsigned char *p = buf;
	size_t n = fread(buf, 1, len, src->f);

	if (n < len && ferror(src->f)) {
		src->error = errno ? errno : EIO;
		return (size_t)-1;
	}
	src->total += n;
	if (src->total > PMC_INPUT_MAX) {
		src->error = EFBIG;
		return (size_t)-1;
	}
	/* A UTF-8 byte order mark is not JSON, but editors add it: skip it. */
	if (!src->started && n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0) {
		memmove(p, p + 3, n - 3);
		n -= 3;
		src->bom = true;
	}
	src->started = true;
	for (size_t i = 0; i < n && !src->any_text; i++)
		src->any_text = p[i] != ' ' && p[i] != '\t' && p[i] != '\n' && p[i] != '\r';
	return n;
}

/* What to do about a syntax error jansson found. */
static const char *syntax_fix(enum json_error_code code)
{
	switch (code) {
	case json_error_premature_end_of_input:
		return "the file is truncated — " REGEN;
	case json_error_end_of_input_expected:
		return "text follows the end of the result — " REGEN;
	case json_error_duplicate_key:
		return "a key given twice is ambiguous — " REGEN;
	case json_error_numeric_overflow:
		return "numbers must fit in a double, integers in 64 signed bits — " REGEN;
	default:
		return "the file is not valid JSON — " REGEN;
	}
}

/* The messages are one line, shown escaped: a key or a bit of text jansson quotes may
 * hold a control character. */
static void one_line(char *err, size_t errlen)
{
	pmc_err_escape(err, errlen);
}

/* ---- Loading a file one benchmark at a time ---------------------------------------- */

/* jansson has no streaming parser: the tree of a whole result is about eight times the
 * size of its text (a file of 10,000 benchmarks: 31 MB of text, a 245 MiB tree), and
 * compare holds two. So a well-formed file is read one top-level member and one
 * benchmark at a time, each parsed by jansson from a window of the file, converted,
 * and dropped; only the punctuation between them (braces, brackets, colons, commas,
 * white space) is scanned here. Anything this path does not expect (a syntax error, a
 * schema error, "benchmarks" before "schema", a duplicate key, a file that is not
 * seekable) sends the load back to the start, to parse the whole document into one
 * tree: every error is reported by that path, exactly as jansson and the checks above
 * see it. */

#define WINDOW (128u << 10) /* text parsed at once; doubled for a larger value */

/* The window: buf[start, end) holds the file's text from the reading position. */
struct text_window {
	FILE *f;
	char *buf;
	size_t cap, start, end;
	bool eof;
};

/* Returned inside this path: give up and parse the whole file. */
#define RETRY_WHOLE 1

/* Makes at least want bytes from the reading position available, or all that is left. */
static int window_fill(struct text_window *w, size_t want)
{
	size_t n = w->end - w->start;

	if (n >= want || w->eof)
		return 0;
	if (want * 2 > w->cap) {
		char *buf = realloc(w->buf, want * 2);

		if (!buf)
			return -ENOMEM;
		w->buf = buf;
		w->cap = want * 2;
	}
	memmove(w->buf, w->buf + w->start, n);
	w->start = 0;
	w->end = n;
	while (w->end < w->cap && !w->eof) {
		size_t got = fread(w->buf + w->end, 1, w->cap - w->end, w->f);

		w->end += got;
		if (got == 0) {
			if (ferror(w->f))
				return RETRY_WHOLE; /* which reports the read error */
			w->eof = true;
		}
	}
	return 0;
}

/* The next character after white space, not consumed, or EOF. */
static int window_peek(struct text_window *w, int *ret)
{
	char c;
	int rc;

	for (;;) {
		if (w->start == w->end && (rc = window_fill(w, WINDOW)) != 0)
			return rc;
		if (w->start == w->end) {
			*ret = EOF;
			return 0;
		}
		c = w->buf[w->start];
		if (c != ' ' && c != '\t' && c != '\r' && c != '\n')
			break;
		w->start++;
	}
	*ret = (unsigned char)c;
	return 0;
}

/* Consumes the next character after white space if it is one of chars; *ret is the one
 * it was, or RETRY_WHOLE is returned. */
static int window_expect(struct text_window *w, const char *chars, int *ret)
{
	int c, rc;

	if ((rc = window_peek(w, &c)) != 0)
		return rc;
	if (c == EOF || c == '\0' || !strchr(chars, c))
		return RETRY_WHOLE;
	w->start++;
	if (ret)
		*ret = c;
	return 0;
}

/* The metrics' "summary" objects are derived and not read, yet they are a third of a
 * file's text, and jansson would build a tree of each, check it, and drop it: a file of
 * 10,000 benchmarks loaded 45% slower with them. So before jansson parses a benchmark,
 * one pass over its text finds where it ends and blanks each metric's summary member
 * ("summary":{...} with one comma beside it) with spaces: a few byte comparisons each,
 * no tree. The pass reads strings with their escapes (a name holding "summary":{ is
 * a string, not a key), brackets must pair up, and only a literal key "summary" of an
 * object in "metrics" whose value is an object is blanked; anything else is left to
 * jansson as it is. What a skipped summary holds is not checked beyond its brackets and
 * strings, as its values were not checked before. */

enum scan { SCAN_DONE, SCAN_MORE, SCAN_GIVE_UP };

#define SCAN_DEPTH 64 /* deeper text is left to jansson */

static size_t skip_space(const char *s, size_t i, size_t n)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
		i++;
	return i;
}

/* Blanks the summaries of the benchmark object that s starts with (after white space)
 * and sets *ret_end past its '}';
 * SCAN_MORE: it goes on past n; SCAN_GIVE_UP: not an object this pass understands. */
static enum scan blank_summaries(char *s, size_t n, size_t *ret_end)
{
	bool closes_object[SCAN_DEPTH + 1];
	size_t depth = 0, blank_from = 0, blank_depth = 0, i = skip_space(s, 0, n);
	bool metrics_next = false, in_metrics = false;

	if (i == n || s[i] != '{')
		return i == n ? SCAN_MORE : SCAN_GIVE_UP;
	while (i < n) {
		char c = s[i];

		if (c == '"') {
			size_t k, from = i + 1;

			for (i = from; i < n && s[i] != '"'; i++)
				if (s[i] == '\\')
					i++;
			if (i >= n)
				return SCAN_MORE;
			k = skip_space(s, ++i, n);
			if (k >= n)
				return SCAN_MORE;
			if (s[k] != ':' || !closes_object[depth])
				continue;
			/* A key. */
			if (depth == 1)
				metrics_next =
				    i - from - 1 == 7 && memcmp(s + from, "metrics", 7) == 0;
			if (depth == 3 && in_metrics && !blank_depth && i - from - 1 == 7 &&
			    memcmp(s + from, "summary", 7) == 0) {
				k = skip_space(s, k + 1, n);
				if (k >= n)
					return SCAN_MORE;
				if (s[k] == '{') {
					blank_from = from - 1;
					blank_depth = depth;
				}
			}
			continue;
		}
		if (c == '{' || c == '[') {
			if (depth == SCAN_DEPTH)
				return SCAN_GIVE_UP;
			closes_object[++depth] = c == '{';
			if (depth == 2)
				in_metrics = metrics_next && c == '{';
		} else if (c == '}' || c == ']') {
			if (depth == 0 || closes_object[depth] != (c == '}'))
				return SCAN_GIVE_UP;
			if (--depth == 0) {
				*ret_end = i + 1;
				return SCAN_DONE;
			}
			if (depth == blank_depth && blank_depth) {
				/* The summary ends here: blank it with the comma after it, or else
				 * the one before it (it was the last member). */
				size_t to = i + 1, k = skip_space(s, to, n), before = blank_from;

				if (k >= n)
					return SCAN_MORE;
				if (s[k] == ',') {
					to = k + 1;
				} else {
					while (before > 0 && strchr(" \t\r\n", s[before - 1]))
						before--;
					if (before > 0 && s[before - 1] == ',')
						blank_from = before - 1;
				}
				memset(s + blank_from, ' ', to - blank_from);
				blank_depth = 0;
				i = to;
				continue;
			}
		}
		i++;
	}
	return SCAN_MORE;
}

/* Parses the JSON value at the reading position with jansson. A value that jansson finds
 * cut by the end of the window is parsed again from a window twice as large. A
 * benchmark's summaries are blanked first (blank_summaries). */
static int window_value(struct text_window *w, bool benchmark, json_t **ret)
{
	size_t want = WINDOW;
	json_error_t jerr;
	json_t *v;
	int rc;

	for (;;) {
		size_t n, end;
		bool whole = false; /* buf[start, start + n) is the whole value */

		if ((rc = window_fill(w, want)) != 0)
			return rc;
		n = w->end - w->start;
		if (benchmark) {
			switch (blank_summaries(w->buf + w->start, n, &end)) {
			case SCAN_DONE:
				n = end;
				whole = true;
				break;
			case SCAN_MORE:
				if (!w->eof) {
					want = n * 2;
					continue;
				}
				break;
			case SCAN_GIVE_UP:
				benchmark = false;
				break;
			}
		}
		v = json_loadb(w->buf + w->start, n,
			       JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK,
			       &jerr);
		if (!v && json_error_code(&jerr) == json_error_out_of_memory)
			return -ENOMEM;
		/* A value that ends at the very end of the window may go on (a number). */
		if (v && ((size_t)jerr.position < n || w->eof || whole)) {
			w->start += (size_t)jerr.position;
			*ret = v;
			return 0;
		}
		json_decref(v);
		if (w->eof || whole)
			return RETRY_WHOLE;
		want = n * 2;
	}
}

/* The elements of "benchmarks", each parsed, converted and dropped in turn. */
static int window_benchmarks(struct text_window *w, struct loader *ld, struct pmc_result *res)
{
	size_t dup;
	int c, rc;

	if ((rc = window_expect(w, "[", NULL)) != 0 || (rc = window_peek(w, &c)) != 0)
		return rc;
	if (c == ']') {
		w->start++;
		return 0;
	}
	push_key(ld, "benchmarks");
	push_index(ld, 0);
	do {
		struct pmc_benchmark *b;
		json_t *v;

		if ((rc = pmc_result_bench_reserve(res)) < 0 ||
		    (rc = window_value(w, true, &v)) != 0)
			return rc;
		set_index(ld, res->nbench);
		b = &res->benchmarks[res->nbench++];
		memset(b, 0, sizeof(*b));
		rc = load_benchmark(ld, v, b);
		json_decref(v);
		if (rc == -ENOMEM)
			return rc;
		if (rc < 0)
			return RETRY_WHOLE;
		rc = pmc_result_index(res, &dup);
		if (rc == -ENOMEM)
			return rc;
		if (rc < 0)
			return RETRY_WHOLE;
		if ((rc = window_expect(w, ",]", &c)) != 0)
			return rc;
	} while (c == ',');
	pop(ld);
	pop(ld);
	return 0;
}

/* Loads a result from f a member and a benchmark at a time. Returns 0, -ENOMEM, or
 * RETRY_WHOLE when the file is to be parsed whole instead. */
static int load_windowed(FILE *f, struct loader *ld, struct pmc_result *res)
{
	struct text_window w = {.f = f};
	json_t *head = json_object(), *key = NULL, *v;
	bool benchmarks = false;
	int c, rc;

	if (!head)
		return -ENOMEM;
	if ((rc = window_fill(&w, WINDOW)) != 0)
		goto out;
	if (w.end >= 3 && memcmp(w.buf, "\xef\xbb\xbf", 3) == 0)
		w.start = 3;
	if ((rc = window_expect(&w, "{", NULL)) != 0)
		goto out;
	do {
		const char *k;

		if ((rc = window_peek(&w, &c)) != 0)
			goto out;
		if (c != '"') {
			rc = RETRY_WHOLE;
			goto out;
		}
		if ((rc = window_value(&w, false, &key)) != 0 ||
		    (rc = window_expect(&w, ":", NULL)) != 0)
			goto out;
		k = json_string_value(key);
		/* A duplicate key, or a schema this version does not read (or none before the
		 * benchmarks), is for the whole-document path to report. */
		if (json_object_get(head, k) || (benchmarks && strcmp(k, "benchmarks") == 0)) {
			rc = RETRY_WHOLE;
			goto out;
		}
		if (strcmp(k, "benchmarks") == 0) {
			benchmarks = true;
			if (!json_object_get(head, "schema") || check_schema(ld, head) < 0) {
				rc = RETRY_WHOLE;
				goto out;
			}
			if ((rc = window_benchmarks(&w, ld, res)) != 0)
				goto out;
		} else {
			if ((rc = window_value(&w, false, &v)) != 0)
				goto out;
			if (json_object_set_new(head, k, v) < 0) {
				rc = -ENOMEM;
				goto out;
			}
		}
		json_decref(key);
		key = NULL;
		if ((rc = window_expect(&w, ",}", &c)) != 0)
			goto out;
	} while (c == ',');
	if ((rc = window_peek(&w, &c)) != 0)
		goto out;
	if (c != EOF || !benchmarks) {
		rc = RETRY_WHOLE;
		goto out;
	}
	rc = result_head_from_json(ld, head, res);
	if (rc < 0 && rc != -ENOMEM)
		rc = RETRY_WHOLE;
out:
	json_decref(key);
	json_decref(head);
	free(w.buf);
	return rc;
}

/* Parses the whole file into one jansson tree and converts it. */
static int load_file(FILE *f, struct loader *ld, struct pmc_result *res)
{
	struct text_source src = {.f = f};
	json_error_t jerr;
	json_t *root;

	root = json_load_callback(read_text, &src, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
	if (root) {
		int rc = result_from_json(ld, root, res);

		json_decref(root);
		return rc;
	}
	if (src.error)
		return -src.error;
	if (json_error_code(&jerr) == json_error_out_of_memory)
		return -ENOMEM;
	if (!src.any_text) {
		pmc_err_set(ld->err, ld->errlen,
			    "%s: empty file; expected a pmcbench result — regenerate it with "
			    "pmcbench run -o FILE",
			    ld->file);
		return -EINVAL;
	}
	/* jansson counts columns in characters, from 1; the byte order mark was one. */
	pmc_err_set(ld->err, ld->errlen, "%s:%d:%d: %s; %s", ld->file, jerr.line,
		    jerr.column + (src.bom && jerr.line == 1), jerr.text,
		    syntax_fix(json_error_code(&jerr)));
	return -EINVAL;
}

int pmc_result_load_stream(FILE *f, bool rereadable, const char *name, struct pmc_result **ret,
			   char *err, size_t errlen)
{
	struct loader ld = {.file = name, .err = err, .errlen = errlen};
	struct pmc_result *res = NULL;
	int rc;

	if (pmc_result_alloc(&res) < 0)
		return -ENOMEM;
	/* A benchmark at a time when the file can be read again from the start, should
	 * the whole document have to be parsed after all. */
	rc = rereadable ? load_windowed(f, &ld, res) : RETRY_WHOLE;
	if (rc == RETRY_WHOLE) {
		pmc_result_free(res);
		res = NULL;
		if (pmc_result_alloc(&res) < 0) {
			rc = -ENOMEM;
			goto out;
		}
		ld.depth = 0;
		pmc_err_set(err, errlen, "%s", "");
		if (rereadable && fseek(f, 0, SEEK_SET) < 0) {
			rc = -errno;
			goto out;
		}
		clearerr(f);
		rc = load_file(f, &ld, res);
	}
out:
	if (rc < 0) {
		if (rc == -EFBIG)
			pmc_err_set(err, errlen,
				    "%s: more than 1 GiB, larger than any result; is it the right "
				    "file?",
				    name);
		else if (rc != -EINVAL)
			pmc_err_set(err, errlen, "%s: cannot read: %s", name, strerror(-rc));
		pmc_result_free(res);
		one_line(err, errlen);
		return rc;
	}
	*ret = res;
	return 0;
}

int pmc_input_check(const char *path, const struct stat *st, char *err, size_t errlen)
{
	if (S_ISDIR(st->st_mode)) {
		pmc_err_set(
		    err, errlen,
		    "%s: is a directory; give the path of a result file (pmcbench run -o FILE)",
		    path);
		return -EINVAL;
	}
	if (!S_ISREG(st->st_mode) && !S_ISFIFO(st->st_mode)) {
		pmc_err_set(err, errlen,
			    "%s: is not a regular file or a pipe (a device?); give the path of a "
			    "result file (pmcbench run -o FILE)",
			    path);
		return -EINVAL;
	}
	return 0;
}

int pmc_result_load(const char *path, struct pmc_result **ret, char *err, size_t errlen)
{
	struct stat st;
	FILE *f;
	int rc;

	f = fopen(path, "re");
	if (!f) {
		rc = -errno;
		pmc_err_set(err, errlen, "%s: %s; check the file name and its permissions", path,
			    strerror(errno));
		return rc;
	}
	if (fstat(fileno(f), &st) < 0) {
		rc = -errno;
		pmc_err_set(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	rc = pmc_input_check(path, &st, err, errlen);
	if (rc < 0)
		goto out;
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	rc = pmc_result_load_stream(f, S_ISREG(st.st_mode), path, ret, err, errlen);
out:
	fclose(f);
	return rc;
}

/* The result JSON codec's writer (docs/result-schema.md): the model as jansson trees, a
 * benchmark at a time, dumped through the one JSON writer (json_out.h); saving a result
 * atomically. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/atomic_file.h"
#include "base/error.h"
#include "base/utf8.h"
#include "core/analysis.h"
#include "core/intervals.h"
#include "core/metrics.h"
#include "core/result.h"
#include "formats/json_out.h"
#include "formats/result_json.h"
#include "formats/result_json_priv.h"

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
 * "raw" in docs/result-schema.md). The values are below 2^63 (pmc_result_check). */
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
	bool identical = false, kernel = pmc_metric_kernel_identical(m, &identical);
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
	    (!kernel || put(j, "identical_runs", json_boolean(identical))) &&
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

/* A run's "intervals" (run -I): per interval its end and each metric's count in it. */
static json_t *intervals_json(const struct pmc_intervals *iv)
{
	json_t *arr = json_array();

	for (size_t k = 0; arr && k < iv->n; k++) {
		json_t *counts = json_object();
		json_t *one = json_pack("{s:I}", "end_ns", (json_int_t)iv->end_ns[k]);
		bool ok = counts && one;

		for (size_t i = 0; ok && i < iv->nids; i++)
			ok = put(counts, iv->ids[i], number_json(pmc_intervals_get(iv, k, i)));
		if (!ok) {
			json_decref(counts);
			json_decref(one);
		} else if (!put(one, "counts", counts)) {
			ok = false;
			json_decref(one);
		} else {
			ok = append(arr, one); /* takes one, even when it fails */
		}
		if (!ok) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

static json_t *run_json(const struct pmc_run_info *run, const struct pmc_intervals *iv)
{
	json_t *j = json_pack("{s:i}", "exit_code", run->exit_code);

	if (j && ((run->term_signal && !put(j, "signal", json_integer(run->term_signal))) ||
		  (run->timed_out && !put(j, "timed_out", json_true())) ||
		  (run->round && !put(j, "round", json_integer(run->round))) ||
		  (run->process && !put(j, "process", json_integer(run->process))) ||
		  (run->pinned && !put(j, "cpu", json_integer(run->cpu))) ||
		  (run->iterations &&
		   !put(j, "iterations", json_integer((json_int_t)run->iterations))) ||
		  (run->switches && (!put(j, "voluntary_switches",
					  json_integer((json_int_t)run->voluntary_switches)) ||
				     !put(j, "involuntary_switches",
					  json_integer((json_int_t)run->involuntary_switches)))) ||
		  (iv && !put(j, "intervals", intervals_json(iv))))) {
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
	     (!pmc_time_unit_name(b->time_unit) ||
	      put(j, "time_unit", json_string(pmc_time_unit_name(b->time_unit)))) &&
	     (runs = put_new(j, "runs", json_array()));
	for (size_t i = 0; ok && i < b->nruns; i++)
		ok =
		    append(runs, run_json(&b->runs[i], i < b->nintervals ? b->intervals[i] : NULL));
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

/* The complexity fits (docs/result-schema.md, "complexity"). */
static json_t *fits_json(const struct pmc_result *r)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < r->nfits; i++) {
		const struct pmc_fit *f = &r->fits[i];

		if (!append(a, json_pack("{s:o, s:o, s:s, s:o, s:o, s:I}", "name",
					 string_json(f->name), "metric", string_json(f->metric),
					 "big_o", f->big_o, "coef", number_json(f->coef), "rms",
					 number_json(f->rms), "points", (json_int_t)f->points))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
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
	if (ok && r->incomplete)
		ok = put(j, "incomplete", string_json(r->incomplete));
	if (ok && r->nfits)
		ok = put(j, "complexity", fits_json(r));
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

/* "key":value; keys are UTF-8 (pmc_result_check, string_json). */
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

/* Writes the text of r, which has passed pmc_result_check(), one benchmark at a time: the
 * jansson tree of the whole result is never built. given: r's analysis, or NULL to
 * analyse it here (as for one whose CIs are not the file's 95%). Returns 0 or a
 * negative errno. */
static int write_result(const struct pmc_result *r, const struct pmc_analysis *given, FILE *f)
{
	struct writer w = {.f = f};
	struct pmc_analysis *own = NULL;
	const struct pmc_analysis *a = given;
	int rc;

	/* The health of every metric's runs, adjusted over the whole result. */
	if (!a || a->confidence != 0.95) {
		rc = pmc_analysis_new(r, 0.95, &own);
		if (rc == -ENOMEM)
			return rc;
		a = own;
	}
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
	pmc_analysis_free(own);
	return -w.error;
}

int pmc_result_dumps(const struct pmc_result *r, const struct pmc_analysis *a, char **ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	if (a && a->r != r)
		return -EINVAL;
	rc = pmc_result_check(r, NULL, 0);
	if (rc < 0)
		return rc;
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	rc = write_result(r, a, f);
	if (fclose(f) != 0 || rc < 0) {
		free(buf);
		return -ENOMEM;
	}
	*ret = buf;
	return 0;
}

int pmc_result_save(const struct pmc_result *r, const char *path, char *err, size_t errlen)
{
	return pmc_result_save_analyzed(r, NULL, path, err, errlen);
}

int pmc_result_save_analyzed(const struct pmc_result *r, const struct pmc_analysis *a,
			     const char *path, char *err, size_t errlen)
{
	struct pmc_atomic_file *af;
	int rc;

	if (!r || !path || (a && a->r != r))
		return -EINVAL;
	rc = pmc_result_check(r, err, errlen);
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
	rc = write_result(r, a, pmc_atomic_file_stream(af));
	if (rc == -EIO && pmc_atomic_file_write_error(af))
		rc = pmc_atomic_file_write_error(af);
	if (rc < 0) {
		pmc_atomic_file_abort(af);
		pmc_err_set(err, errlen, "cannot write %s: %s; the previous file is unchanged",
			    path, strerror(-rc));
		return rc;
	}
	return pmc_atomic_file_commit(af, err, errlen);
}

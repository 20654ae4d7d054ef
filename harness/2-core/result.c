/* The result model (result.h): suites, benchmarks, metrics and their samples, with a
 * name index for O(1) lookups. Saving and loading live in harness/3-formats/. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "base/grow.h"
#include "base/hashmap.h"
#include "core/intervals.h"
#include "core/metrics.h"
#include "core/result.h"
#include "core/result_priv.h"

struct pmc_result_priv {
	struct pmc_benchmark *bench_array; /* the array bench_cap describes */
	size_t bench_cap;
	struct pmc_hashmap names; /* benchmark name -> index; names borrowed from benchmarks */
	size_t indexed;		  /* benchmarks in the index; it is stale when != nbench */
	struct pmc_env_entry *env_array; /* the array env_cap describes */
	size_t env_cap;
};

/* ---- The model ------------------------------------------------------------------ */

/* Whether an array of n entries (with ptr, cap as kept in the structs of result.h) has
 * no room for one more. A hand-built struct's cap is 0: its arrays are n long, and grow
 * (pmc_grow_to) from there. */
static bool full(const void *ptr, size_t n, size_t cap)
{
	return !ptr || n >= cap;
}

static void metric_clear(struct pmc_metric *m)
{
	free(m->id);
	free(m->unit);
	free(m->values);
	free(m->status);
	free(m->raw);
	free(m->note);
	for (size_t k = 0; k < m->nparts; k++)
		metric_clear(&m->parts[k]);
	free(m->parts);
}

static void benchmark_clear(struct pmc_benchmark *b)
{
	free(b->name);
	free(b->command);
	free(b->build_id);
	free(b->skipped);
	for (size_t i = 0; i < b->nparams; i++) {
		free(b->params[i].key);
		free(b->params[i].value);
	}
	free(b->params);
	free(b->runs);
	for (size_t i = 0; i < b->nintervals; i++)
		pmc_intervals_free(b->intervals[i]);
	free(b->intervals);
	for (size_t i = 0; i < b->nmetrics; i++)
		metric_clear(&b->metrics[i]);
	free(b->metrics);
}

static const char *const time_units[] = {
    [PMC_TIME_NS] = "ns", [PMC_TIME_US] = "us", [PMC_TIME_MS] = "ms", [PMC_TIME_S] = "s"};

const char *pmc_time_unit_name(int unit)
{
	return unit > PMC_TIME_AUTO && unit <= PMC_TIME_S ? time_units[unit] : NULL;
}

int pmc_time_unit_from_name(const char *name)
{
	for (int u = PMC_TIME_NS; name && u <= PMC_TIME_S; u++)
		if (strcmp(name, time_units[u]) == 0)
			return u;
	return -EINVAL;
}

void pmc_result_free(struct pmc_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nbench; i++)
		benchmark_clear(&r->benchmarks[i]);
	free(r->benchmarks);
	for (size_t i = 0; i < r->nenv; i++) {
		free(r->env[i].key);
		free(r->env[i].value);
	}
	free(r->env);
	free(r->backend);
	free(r->tool_version);
	free(r->created);
	free(r->design.mode);
	free(r->design.stopped);
	free(r->incomplete);
	for (size_t i = 0; i < r->nfits; i++) {
		free(r->fits[i].name);
		free(r->fits[i].metric);
		free(r->fits[i].big_o);
	}
	free(r->fits);
	if (r->priv)
		pmc_hashmap_free(&r->priv->names);
	free(r->priv);
	free(r);
}

static char *now_iso8601(void)
{
	char buf[32];
	time_t t = time(NULL);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		return NULL;
	return strdup(buf);
}

int pmc_result_new(const char *backend, struct pmc_result **ret)
{
	struct pmc_result *r;

	if (!backend || !*backend || !ret)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->priv = calloc(1, sizeof(*r->priv));
	r->backend = strdup(backend);
	r->tool_version = strdup(PMC_VERSION);
	r->created = now_iso8601();
	if (!r->priv || !r->backend || !r->tool_version || !r->created) {
		pmc_result_free(r);
		return -ENOMEM;
	}
	*ret = r;
	return 0;
}

bool pmc_fit_big_o_valid(const char *s)
{
	static const char *const names[] = {PMC_FIT_BIG_O};

	for (size_t i = 0; s && i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i]) == 0)
			return true;
	return false;
}

int pmc_result_add_fit(struct pmc_result *r, const struct pmc_fit *f)
{
	struct pmc_fit *v, c = {0};

	if (!r || !f || !f->name || !*f->name || !f->metric || !*f->metric ||
	    !pmc_fit_big_o_valid(f->big_o) || f->points < 2 || !isfinite(f->coef) ||
	    !isfinite(f->rms) || f->rms < 0)
		return -EINVAL;
	v = realloc(r->fits, (r->nfits + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->fits = v;
	c = *f;
	c.name = strdup(f->name);
	c.metric = strdup(f->metric);
	c.big_o = strdup(f->big_o);
	if (!c.name || !c.metric || !c.big_o) {
		free(c.name);
		free(c.metric);
		free(c.big_o);
		return -ENOMEM;
	}
	v[r->nfits++] = c;
	return 0;
}

int pmc_result_set_env(struct pmc_result *r, const char *key, const char *value)
{
	struct pmc_env_entry *env;
	char *v;

	if (!key || !*key || !value)
		return -EINVAL;
	v = strdup(value);
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < r->nenv; i++) {
		if (strcmp(r->env[i].key, key) == 0) {
			free(r->env[i].value);
			r->env[i].value = v;
			return 0;
		}
	}
	if (!r->priv || r->priv->env_array != r->env || full(r->env, r->nenv, r->priv->env_cap)) {
		size_t cap = r->priv && r->priv->env_array == r->env ? r->priv->env_cap : 0;

		if (pmc_grow_to(&r->env, &cap, r->nenv + 1, sizeof(*r->env)) < 0)
			goto err_value;
		if (r->priv) {
			r->priv->env_array = r->env;
			r->priv->env_cap = cap;
		}
	}
	env = r->env;
	env[r->nenv].key = strdup(key);
	if (!env[r->nenv].key)
		goto err_value;
	env[r->nenv].value = v;
	r->nenv++;
	return 0;

err_value:
	free(v);
	return -ENOMEM;
}

const char *pmc_result_get_env(const struct pmc_result *r, const char *key)
{
	for (size_t i = 0; i < r->nenv; i++)
		if (strcmp(r->env[i].key, key) == 0)
			return r->env[i].value;
	return NULL;
}

/* Brings the index up to the n benchmarks of bench. Returns 0, -ENOMEM, or -EEXIST with
 * *ret_dup set to the earlier of two benchmarks with the same name. */
static int index_update(struct pmc_result_priv *pv, const struct pmc_benchmark *bench, size_t n,
			size_t *ret_dup)
{
	if (pv->indexed > n) {
		pmc_hashmap_clear(&pv->names);
		pv->indexed = 0;
	}
	for (size_t k = pv->indexed; k < n; k++) {
		size_t at;
		int rc = pmc_hashmap_get_or_put(&pv->names, bench[k].name, k, &at);

		if (rc < 0)
			return rc;
		if (rc == 0) {
			*ret_dup = at;
			pv->indexed = k;
			return -EEXIST;
		}
	}
	pv->indexed = n;
	return 0;
}

struct pmc_benchmark *pmc_result_find_benchmark(const struct pmc_result *r, const char *name)
{
	const struct pmc_result_priv *pv = r ? r->priv : NULL;
	size_t at;

	if (!r || !name)
		return NULL;
	if (pv && pv->indexed == r->nbench)
		return pmc_hashmap_get(&pv->names, name, &at) == 0 ? &r->benchmarks[at] : NULL;
	/* A struct built by hand (or changed behind our back) has no index. */
	for (size_t i = 0; i < r->nbench; i++)
		if (strcmp(r->benchmarks[i].name, name) == 0)
			return &r->benchmarks[i];
	return NULL;
}

/* Makes room for one more benchmark, growing geometrically so that adding n of them
 * costs O(n). */
int pmc_result_bench_reserve(struct pmc_result *r)
{
	struct pmc_result_priv *pv = r->priv;
	size_t cap = pv->bench_array == r->benchmarks && r->benchmarks ? pv->bench_cap : 0;

	if (pmc_grow_to(&r->benchmarks, &cap, r->nbench + 1, sizeof(*r->benchmarks)) < 0)
		return -ENOMEM;
	pv->bench_array = r->benchmarks;
	pv->bench_cap = cap;
	return 0;
}

int pmc_result_add_benchmark(struct pmc_result *r, const char *name, const char *command,
			     struct pmc_benchmark **ret)
{
	struct pmc_benchmark *b;
	size_t dup;
	int rc;

	if (!r || !name || !*name || !ret)
		return -EINVAL;
	if (!r->priv) {
		r->priv = calloc(1, sizeof(*r->priv));
		if (!r->priv)
			return -ENOMEM;
	}
	rc = index_update(r->priv, r->benchmarks, r->nbench, &dup);
	if (rc == -ENOMEM)
		return rc;
	if (pmc_result_find_benchmark(r, name))
		return -EEXIST;
	if (pmc_result_bench_reserve(r) < 0)
		return -ENOMEM;
	b = &r->benchmarks[r->nbench];
	memset(b, 0, sizeof(*b));
	b->name = strdup(name);
	b->command = command ? strdup(command) : NULL;
	if (!b->name || (command && !b->command)) {
		benchmark_clear(b);
		return -ENOMEM;
	}
	r->nbench++;
	/* Out of memory here only leaves the index stale, and lookups linear. */
	index_update(r->priv, r->benchmarks, r->nbench, &dup);
	*ret = b;
	return 0;
}

int pmc_benchmark_add_run(struct pmc_benchmark *b, const struct pmc_run_info *run)
{
	/* A skipped benchmark ran nothing: a run would invent one. */
	if (b->skipped)
		return -EINVAL;
	if (full(b->runs, b->nruns, b->runs_cap) &&
	    pmc_grow_to(&b->runs, &b->runs_cap, b->nruns + 1, sizeof(*b->runs)) < 0)
		return -ENOMEM;
	b->runs[b->nruns++] = *run;
	return 0;
}

int pmc_benchmark_set_intervals(struct pmc_benchmark *b, size_t run, struct pmc_intervals *iv)
{
	struct pmc_intervals **grown;

	if (run >= b->nruns || (run < b->nintervals && b->intervals[run])) {
		pmc_intervals_free(iv);
		return -EINVAL;
	}
	if (run >= b->nintervals) {
		grown = realloc(b->intervals, b->nruns * sizeof(*grown));
		if (!grown) {
			pmc_intervals_free(iv);
			return -ENOMEM;
		}
		for (size_t i = b->nintervals; i < b->nruns; i++)
			grown[i] = NULL;
		b->intervals = grown;
		b->nintervals = b->nruns;
	}
	b->intervals[run] = iv;
	return 0;
}

struct pmc_metric *pmc_benchmark_find_metric(const struct pmc_benchmark *b, const char *id)
{
	/* Linear: a benchmark has a handful of metrics. */
	for (size_t i = 0; i < b->nmetrics; i++)
		if (strcmp(b->metrics[i].id, id) == 0)
			return &b->metrics[i];
	return NULL;
}

int pmc_benchmark_metric(struct pmc_benchmark *b, const char *id, struct pmc_metric **ret)
{
	struct pmc_metric_info info;
	struct pmc_metric *m;

	if (!b || !id || !*id || !ret || b->skipped)
		return -EINVAL;
	m = pmc_benchmark_find_metric(b, id);
	if (m) {
		*ret = m;
		return 0;
	}
	if (full(b->metrics, b->nmetrics, b->metrics_cap) &&
	    pmc_grow_to(&b->metrics, &b->metrics_cap, b->nmetrics + 1, sizeof(*b->metrics)) < 0)
		return -ENOMEM;
	m = &b->metrics[b->nmetrics];
	memset(m, 0, sizeof(*m));
	info = pmc_metric_lookup(id);
	m->id = strdup(id);
	m->unit = strdup(info.unit);
	if (!m->id || !m->unit) {
		metric_clear(m);
		return -ENOMEM;
	}
	m->better = info.better;
	m->derived = info.derived;
	b->nmetrics++;
	*ret = m;
	return 0;
}

static bool status_failed(enum pmc_status s)
{
	return s == PMC_STATUS_UNSUPPORTED || s == PMC_STATUS_DENIED;
}

int pmc_metric_append(struct pmc_metric *m, double value, const struct pmc_reading *reading)
{
	double *values;

	if (isinf(value))
		return -EINVAL;
	if (reading) {
		/* A number for a reading that holds none would be invented; NAN for one that
		 * holds one would lose it. */
		if (pmc_status_has_value(reading->status) == (bool)isnan(value))
			return -EINVAL;
		if (!m->has_status && m->n > 0)
			return -EINVAL;
	} else if (m->has_status) {
		return -EINVAL;
	}

	/* values, status and raw share one capacity: all three grow together, each from
	 * nothing to the same room (the same need gives the same capacity), and cap is set
	 * only once every array in use has it. */
	if (full(m->values, m->n, m->cap) ||
	    (reading && (full(m->status, m->n, m->cap) || full(m->raw, m->n, m->cap)))) {
		size_t need = m->n < m->cap ? m->cap : m->n + 1, cap = 0, cap_status = 0,
		       cap_raw = 0;

		if (pmc_grow_to(&m->values, &cap, need, sizeof(*m->values)) < 0 ||
		    ((reading || m->status) &&
		     pmc_grow_to(&m->status, &cap_status, need, sizeof(*m->status)) < 0) ||
		    ((reading || m->raw) &&
		     pmc_grow_to(&m->raw, &cap_raw, need, sizeof(*m->raw)) < 0))
			return -ENOMEM;
		m->cap = cap;
	}
	values = m->values;
	if (reading) {
		m->status[m->n] = reading->status;
		m->raw[m->n] = (struct pmc_run_raw){
		    .value = reading->value,
		    .enabled = reading->enabled,
		    .running = reading->running,
		};
		/* The metric's errno stands for every run: it survives only while every run
		 * failed with the same one (or was not counted for the same reason). */
		int e = status_failed(reading->status) || reading->status == PMC_STATUS_NOT_COUNTED
			    ? reading->error
			    : 0;

		if (m->n == 0)
			m->error = e;
		else if (e != m->error)
			m->error = 0;
		m->has_status = true;
	}
	values[m->n++] = value;
	return 0;
}

static int part_of(struct pmc_metric *m, const char *pmu, struct pmc_metric **ret)
{
	static const struct pmc_reading missing = {.status = PMC_STATUS_NOT_COUNTED};
	const char *id = *pmu ? pmu : "unknown";
	struct pmc_metric *p;

	for (size_t k = 0; k < m->nparts; k++) {
		if (strcmp(m->parts[k].id, id) == 0) {
			*ret = &m->parts[k];
			return 0;
		}
	}
	if (m->nparts == PMC_PARTS_MAX)
		return -EINVAL;
	if (!m->parts) {
		m->parts = calloc(PMC_PARTS_MAX, sizeof(*m->parts));
		if (!m->parts)
			return -ENOMEM;
	}
	p = &m->parts[m->nparts];
	memset(p, 0, sizeof(*p));
	p->id = strdup(id);
	p->unit = strdup(m->unit);
	if (!p->id || !p->unit) {
		metric_clear(p);
		memset(p, 0, sizeof(*p));
		return -ENOMEM;
	}
	p->better = m->better;
	m->nparts++;
	/* The runs before this part existed did not count it. */
	while (p->n + 1 < m->n) {
		int r = pmc_metric_append(p, NAN, &missing);

		if (r < 0)
			return r;
	}
	*ret = p;
	return 0;
}

int pmc_metric_append_parts(struct pmc_metric *m, const struct pmc_reading_parts *p)
{
	static const struct pmc_reading missing = {.status = PMC_STATUS_NOT_COUNTED};
	int r;

	if (!m || !p || !m->has_status || m->n == 0)
		return -EINVAL;
	m->restricted |= p->n && p->restricted;
	for (size_t k = 0; k < p->n; k++) {
		const struct pmc_reading *rd = &p->rd[k];
		struct pmc_metric *part;

		r = part_of(m, p->pmu[k], &part);
		if (r == 0 && part->n + 1 == m->n)
			r = pmc_metric_append(
			    part, pmc_status_has_value(rd->status) ? rd->scaled : NAN, rd);
		if (r < 0)
			return r;
	}
	for (size_t k = 0; k < m->nparts; k++) {
		if (m->parts[k].n + 1 == m->n) {
			r = pmc_metric_append(&m->parts[k], NAN, &missing);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

int pmc_metric_describe(struct pmc_metric *m, const char *unit, const char *note)
{
	if (unit && unit[0] && strcmp(m->unit, unit) != 0) {
		char *copy = strdup(unit);

		if (!copy)
			return -ENOMEM;
		free(m->unit);
		m->unit = copy;
	}
	return note && !m->note ? pmc_metric_set_note(m, note) : 0;
}

int pmc_metric_set_note(struct pmc_metric *m, const char *note)
{
	char *copy = NULL;

	if (note) {
		copy = strdup(note);
		if (!copy)
			return -ENOMEM;
	}
	free(m->note);
	m->note = copy;
	return 0;
}

size_t pmc_metric_present(const struct pmc_metric *m, double *out)
{
	size_t k = 0;

	for (size_t i = 0; i < m->n; i++)
		if (!isnan(m->values[i]))
			out[k++] = m->values[i];
	return k;
}

bool pmc_metric_any_value(const struct pmc_metric *m)
{
	for (size_t i = 0; m && i < m->n; i++)
		if (!isnan(m->values[i]))
			return true;
	return false;
}

int pmc_result_alloc(struct pmc_result **ret)
{
	struct pmc_result *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->priv = calloc(1, sizeof(*r->priv));
	if (!r->priv) {
		free(r);
		return -ENOMEM;
	}
	*ret = r;
	return 0;
}

int pmc_result_bench_adopt(struct pmc_result *r, struct pmc_benchmark *array, size_t cap)
{
	r->benchmarks = array;
	r->priv->bench_array = array;
	r->priv->bench_cap = cap;
	return 0;
}

int pmc_result_index(struct pmc_result *r, size_t *ret_dup)
{
	return index_update(r->priv, r->benchmarks, r->nbench, ret_dup);
}

/* ---- The public builders and getters (pmcbench/result.h) ------------------------ */

int pmc_benchmark_record_run(struct pmc_benchmark *b, int exit_code, int term_signal,
			     bool timed_out)
{
	struct pmc_run_info run = {
	    .exit_code = exit_code,
	    .term_signal = term_signal,
	    .timed_out = timed_out,
	};

	if (!b)
		return -EINVAL;
	return pmc_benchmark_add_run(b, &run);
}

int pmc_metric_add_value(struct pmc_metric *m, double value)
{
	if (!m || !isfinite(value))
		return -EINVAL;
	return pmc_metric_append(m, value, NULL);
}

int pmc_metric_add_missing(struct pmc_metric *m)
{
	if (!m)
		return -EINVAL;
	return pmc_metric_append(m, NAN, NULL);
}

int pmc_metric_add_reading(struct pmc_metric *m, const struct pmc_reading *reading)
{
	struct pmc_reading rd;
	double v = NAN;

	if (!m || !reading || (unsigned)reading->status > PMC_STATUS_EXACT)
		return -EINVAL;
	rd = *reading;
	if (rd.status == PMC_STATUS_SCALED) {
		/* Scaling (docs/events.md): value * enabled / running, in double. */
		if (rd.running == 0)
			return -EINVAL;
		v = pmc_reading_scale(rd.value, rd.enabled, rd.running);
	} else if (pmc_status_has_value(rd.status)) {
		v = (double)rd.value;
	}
	rd.scaled = v;
	return pmc_metric_append(m, v, &rd);
}

const char *pmc_result_backend(const struct pmc_result *r)
{
	return r ? r->backend : NULL;
}

size_t pmc_result_env_count(const struct pmc_result *r)
{
	return r ? r->nenv : 0;
}

int pmc_result_env_at(const struct pmc_result *r, size_t i, const char **ret_key,
		      const char **ret_value)
{
	if (!r || i >= r->nenv)
		return -ERANGE;
	if (ret_key)
		*ret_key = r->env[i].key;
	if (ret_value)
		*ret_value = r->env[i].value;
	return 0;
}

size_t pmc_result_benchmark_count(const struct pmc_result *r)
{
	return r ? r->nbench : 0;
}

struct pmc_benchmark *pmc_result_benchmark_at(const struct pmc_result *r, size_t i)
{
	return r && i < r->nbench ? &r->benchmarks[i] : NULL;
}

const char *pmc_benchmark_name(const struct pmc_benchmark *b)
{
	return b ? b->name : NULL;
}

const char *pmc_benchmark_command(const struct pmc_benchmark *b)
{
	return b ? b->command : NULL;
}

int pmc_benchmark_set_param(struct pmc_benchmark *b, const char *name, const char *value)
{
	char *k, *v;

	if (!b || !name || !*name || !value)
		return -EINVAL;
	v = strdup(value);
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < b->nparams; i++) {
		if (strcmp(b->params[i].key, name) == 0) {
			free(b->params[i].value);
			b->params[i].value = v;
			return 0;
		}
	}
	k = strdup(name);
	if (!k || pmc_grow(&b->params, b->nparams, sizeof(*b->params)) < 0) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	b->params[b->nparams++] = (struct pmc_env_entry){.key = k, .value = v};
	return 0;
}

int pmc_benchmark_set_skipped(struct pmc_benchmark *b, const char *reason)
{
	char *copy;

	if (!b || b->nruns || b->nmetrics)
		return -EINVAL;
	copy = strdup(reason ? reason : "");
	if (!copy)
		return -ENOMEM;
	free(b->skipped);
	b->skipped = copy;
	return 0;
}

const char *pmc_benchmark_skipped(const struct pmc_benchmark *b)
{
	return b ? b->skipped : NULL;
}

size_t pmc_benchmark_run_count(const struct pmc_benchmark *b)
{
	return b ? b->nruns : 0;
}

int pmc_benchmark_run_at(const struct pmc_benchmark *b, size_t i, int *ret_exit_code,
			 int *ret_term_signal, bool *ret_timed_out)
{
	if (!b || i >= b->nruns)
		return -ERANGE;
	if (ret_exit_code)
		*ret_exit_code = b->runs[i].exit_code;
	if (ret_term_signal)
		*ret_term_signal = b->runs[i].term_signal;
	if (ret_timed_out)
		*ret_timed_out = b->runs[i].timed_out;
	return 0;
}

size_t pmc_benchmark_metric_count(const struct pmc_benchmark *b)
{
	return b ? b->nmetrics : 0;
}

struct pmc_metric *pmc_benchmark_metric_at(const struct pmc_benchmark *b, size_t i)
{
	return b && i < b->nmetrics ? &b->metrics[i] : NULL;
}

const char *pmc_metric_id(const struct pmc_metric *m)
{
	return m ? m->id : NULL;
}

const char *pmc_metric_unit(const struct pmc_metric *m)
{
	return m ? m->unit : NULL;
}

size_t pmc_metric_sample_count(const struct pmc_metric *m)
{
	return m ? m->n : 0;
}

int pmc_metric_sample_at(const struct pmc_metric *m, size_t i, double *ret)
{
	if (!m || i >= m->n)
		return -ERANGE;
	if (isnan(m->values[i]))
		return -ENODATA;
	*ret = m->values[i];
	return 0;
}

int pmc_metric_status(const struct pmc_metric *m, size_t i, enum pmc_status *ret)
{
	if (!m || i >= m->n)
		return -ERANGE;
	if (!m->has_status)
		return -ENODATA;
	*ret = m->status[i];
	return 0;
}

/* The result JSON codec: one metric from its jansson tree (docs/result-schema.md,
 * "Metric"): its samples, the status and raw reading of each run, and the parts of a
 * hybrid CPU's count, each checked against the others. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/utf8.h"
#include "core/metrics.h"
#include "core/result.h"
#include "formats/result_json_priv.h"

/* A metric's optional "loop_overhead": a finite number from 0. */
static int get_overhead(struct loader *ld, const json_t *obj, struct pmc_metric *m)
{
	const json_t *v = json_object_get(obj, "loop_overhead");
	int rc = 0;

	if (!v)
		return 0;
	push_key(ld, "loop_overhead");
	if (!json_is_number(v))
		rc = pmc_loader_wrong_type(ld, v, "a number");
	else if (!(json_number_value(v) >= 0))
		rc = pmc_loader_fail(ld, "expected a number from 0, found %.17g; " REGEN,
				     json_number_value(v));
	else {
		m->has_loop_overhead = true;
		m->loop_overhead = json_number_value(v);
	}
	pop(ld);
	return rc;
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
		return pmc_loader_int(ld, obj, "error", OPTIONAL, 0, 4095, ret);
	push_key(ld, "error");
	if (!json_is_string(v)) {
		rc = pmc_loader_wrong_type(ld, v, "an errno name such as \"ENOENT\"");
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
			rc = pmc_loader_fail(ld, "unknown errno name \"%s\"; " REGEN, s);
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
	if ((rc = pmc_loader_array(json_array_size(arr), sizeof(*m->values), &m->values)) < 0)
		return rc;
	m->n = json_array_size(arr);
	push_index(ld, 0);
	json_array_foreach(arr, i, v)
	{
		set_index(ld, i);
		if (json_is_null(v))
			m->values[i] = NAN;
		else if (!json_is_number(v))
			return pmc_loader_wrong_type(ld, v, "a number or null");
		else
			m->values[i] = json_number_value(v);
		if (m->values[i] < 0 && !m->derived) {
			const char *q = quantity_of(m->unit);

			return pmc_loader_fail(ld,
					       "negative %s %g; %ss cannot be negative — " REGEN, q,
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
		return pmc_loader_wrong_type(ld, v, "a status name");
	if (pmc_status_from_name(json_string_value(v), ret) < 0)
		return pmc_loader_fail(
		    ld,
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
		return pmc_loader_wrong_type(ld, v, "a status name, or an array of one per run");
	if (json_is_array(v) && json_array_size(v) != m->n)
		return pmc_loader_fail(ld, "%zu statuses for %zu samples; " REGEN,
				       json_array_size(v), m->n);
	if ((rc = pmc_loader_array(m->n, sizeof(*m->status), &m->status)) < 0)
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

	if ((rc = pmc_loader_container(ld, raw, raw_parts[part], REQUIRED, JSON_ARRAY, &arr)) < 0)
		return rc;
	push_key(ld, raw_parts[part]);
	if (json_array_size(arr) != m->n)
		return pmc_loader_fail(ld, "%zu entries for %zu samples; " REGEN,
				       json_array_size(arr), m->n);
	push_index(ld, 0);
	json_array_foreach(arr, i, v)
	{
		uint64_t *x = raw_part(&m->raw[i], part);

		set_index(ld, i);
		if (json_is_null(v))
			*x = RAW_ABSENT;
		else if (!json_is_number(v))
			return pmc_loader_wrong_type(ld, v, "a non-negative integer or null");
		else if (!json_is_integer(v) || json_integer_value(v) < 0)
			return pmc_loader_fail(
			    ld,
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
	if ((rc = pmc_loader_array(m->n, sizeof(*m->raw), &m->raw)) < 0)
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
			return pmc_loader_fail(
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
			return pmc_loader_fail(
			    ld, "run %zu has %s, but its status \"%s\" calls for %s — " REGEN, k,
			    what[kind], pmc_status_name(m->status[k]), what[want]);
		if (kind == RAW_FULL && x->running > x->enabled) {
			push_key(ld, "time_running");
			push_index(ld, k);
			return pmc_loader_fail(ld,
					       "time_running %" PRIu64
					       " exceeds time_enabled %" PRIu64
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
			return pmc_loader_fail(
			    ld, "null for a run with status \"%s\", which has a value; " REGEN,
			    pmc_status_name(st));
		if (!pmc_status_has_value(st) && !isnan(m->values[k]))
			return pmc_loader_fail(
			    ld,
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

	if ((rc = pmc_loader_container(ld, obj, "parts", OPTIONAL, JSON_OBJECT, &parts)) < 0 ||
	    !parts)
		return rc;
	push_key(ld, "parts");
	if (!m->has_status)
		return pmc_loader_fail(ld, "parts of a metric without \"status\"; " REGEN);
	if (json_object_size(parts) > PMC_PARTS_MAX)
		return pmc_loader_fail(ld, "%zu parts; a CPU has at most %d core PMUs — " REGEN,
				       json_object_size(parts), PMC_PARTS_MAX);
	if ((rc = pmc_loader_array(json_object_size(parts), sizeof(*m->parts), &m->parts)) < 0)
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
			return pmc_loader_fail(ld, "a part without a PMU name; " REGEN);
		if (!json_is_object(v))
			return pmc_loader_wrong_type(ld, v, "an object");
		if ((rc = pmc_loader_container(ld, v, "samples", REQUIRED, JSON_ARRAY, &samples)) <
			0 ||
		    (rc = pmc_loader_container(ld, v, "raw", REQUIRED, JSON_OBJECT, &raw)) < 0)
			return rc;
		status = json_object_get(v, "status");
		if (!status)
			return pmc_loader_fail(ld, "a part without \"status\"; " REGEN);
		if ((rc = load_samples(ld, samples, part)) < 0)
			return rc;
		if (part->n != m->n)
			return pmc_loader_fail(ld, "%zu samples for %zu runs; " REGEN, part->n,
					       m->n);
		if ((rc = load_status(ld, status, part)) < 0 || (rc = load_raw(ld, raw, part)) < 0)
			return rc;
		part->has_status = true;
		if ((rc = check_loaded_samples(ld, part)) < 0)
			return rc;
		pop(ld);
	}
	pop(ld);
	return pmc_loader_bool(ld, obj, "restricted", &m->restricted);
}

int pmc_metric_from_json(struct loader *ld, const char *id, const json_t *obj, struct pmc_metric *m)
{
	const json_t *samples, *status, *raw;
	char *better = NULL;
	int rc;

	m->better = PMC_LOWER_IS_BETTER;
	if (!(m->id = strdup(id)))
		return -ENOMEM;
	if (!json_is_object(obj))
		return pmc_loader_wrong_type(ld, obj, "an object");
	if ((rc = pmc_loader_string(ld, obj, "unit", REQUIRED, &m->unit)) < 0 ||
	    (rc = pmc_loader_string(ld, obj, "better", REQUIRED, &better)) < 0)
		return rc;
	/* A unit is printed after every value: it is a word, never a terminal control. */
	if (pmc_utf8_has_control(m->unit)) {
		push_key(ld, "unit");
		rc = pmc_loader_fail(ld, "a unit holds no control characters, not \"%s\"; " REGEN,
				     m->unit);
	}
	if (strcmp(better, "higher") == 0)
		m->better = PMC_HIGHER_IS_BETTER;
	else if (strcmp(better, "lower") != 0) {
		push_key(ld, "better");
		rc = pmc_loader_fail(
		    ld, "\"better\" is \"lower\" or \"higher\", not \"%s\"; " REGEN, better);
	}
	free(better);
	status = json_object_get(obj, "status");
	if (rc < 0 || (rc = pmc_loader_bool(ld, obj, "derived", &m->derived)) < 0 ||
	    (rc = pmc_loader_bool(ld, obj, "simulated", &m->simulated)) < 0 ||
	    (rc = pmc_loader_bool(ld, obj, "cross_group", &m->cross_group)) < 0 ||
	    (rc = load_error(ld, obj, &m->error)) < 0 ||
	    (rc = pmc_loader_string(ld, obj, "note", OPTIONAL, &m->note)) < 0 ||
	    (rc = get_overhead(ld, obj, m)) < 0 ||
	    (rc = pmc_loader_container(ld, obj, "samples", REQUIRED, JSON_ARRAY, &samples)) < 0 ||
	    (rc = pmc_loader_container(ld, obj, "raw", OPTIONAL, JSON_OBJECT, &raw)) < 0)
		return rc;
	if (!status != !raw)
		return pmc_loader_fail(ld, "\"status\" and \"raw\" come together; " REGEN);
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

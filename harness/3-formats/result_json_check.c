/* The result JSON codec's checks of a result before it is written
 * (result_json_priv.h): every rule the reader enforces, so that everything saved loads
 * back. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "base/error.h"
#include "base/utf8.h"
#include "core/metrics.h"
#include "core/result.h"
#include "formats/result_json_priv.h"

/* The samples of metric id (or of one of its parts) against their status and raw
 * readings. */
static int check_samples(const char *bench, const char *id, const struct pmc_metric *m, char *err,
			 size_t errlen)
{
	for (size_t k = 0; k < m->n; k++) {
		const struct pmc_run_raw *raw = m->has_status ? &m->raw[k] : NULL;
		double v = m->values[k];

		if (isinf(v) || (!m->derived && v < 0)) {
			pmc_err_set(err, errlen,
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
			pmc_err_set(err, errlen,
				    "benchmark \"%s\": metric \"%s\": run %zu: the value, "
				    "status and raw reading disagree",
				    bench, id, k);
			return -EINVAL;
		}
		/* The kernel keeps counts and times in signed 64 bits (local64_t),
		 * and JSON readers such as jansson read integers that way. */
		if (raw_kind_of(m->status[k]) != RAW_NONE &&
		    (raw->value > INT64_MAX || raw->enabled > INT64_MAX)) {
			pmc_err_set(err, errlen,
				    "benchmark \"%s\": metric \"%s\": run %zu: a raw "
				    "reading above 2^63 - 1, which no kernel reports",
				    bench, id, k);
			return -EINVAL;
		}
	}
	return 0;
}

int pmc_result_check(const struct pmc_result *r, char *err, size_t errlen)
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
				pmc_err_set(
				    err, errlen,
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
			if (run->switches && (run->voluntary_switches > INT64_MAX ||
					      run->involuntary_switches > INT64_MAX)) {
				pmc_err_set(
				    err, errlen,
				    "benchmark \"%s\": run %zu has %" PRIu64 " voluntary and "
				    "%" PRIu64 " involuntary context switches, beyond 2^63 - 1",
				    b->name, k, run->voluntary_switches, run->involuntary_switches);
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
				pmc_err_set(
				    err, errlen,
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
					pmc_err_set(
					    err, errlen,
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

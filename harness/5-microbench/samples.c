/* Samples into the result model (docs/microbench.md, "Result metrics"): one run per
 * sample, every value per operation, the empty loop's cost beside them. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/perf/events.h"
#include "counters/perf/uprobe.h"
#include "base/error.h"
#include "core/derive.h"
#include "core/metrics.h"
#include "core/result.h"
#include "core/signed_rank.h"
#include "core/stats.h"
#include "microbench/microbench.h"

double pmc_mb_per_op(double batch, uint64_t iters)
{
	return isnan(batch) || iters == 0 ? NAN : batch / (double)iters;
}

/* Whether event e is a uprobe counted on several threads through the uprobe PMU: not
 * measured. Its events inherited by the batch's threads miss the calls of whole threads,
 * even read while those threads live (2 threads of 3 calls per operation read 1.5/op),
 * which a tracefs probe's do not (tests/e2e/t_tracepoints.sh). The list is the parent's;
 * its processes define their own probes as the same user in the same tracefs. */
static bool uprobe_on_threads(const struct pmc_mb_samples *s, const struct pmc_event_list *events,
			      size_t e)
{
	return s->threads > 1 && events->events[e].kind == PMC_EV_UPROBE &&
	       !pmc_uprobe_event_probed(&events->events[e]);
}

static int metric(struct pmc_benchmark *b, const char *id, struct pmc_metric **ret)
{
	return pmc_benchmark_metric(b, id, ret);
}

static int append(struct pmc_benchmark *b, const char *id, double v, const struct pmc_reading *rd)
{
	struct pmc_metric *m;
	int r = metric(b, id, &m);

	return r < 0 ? r : pmc_metric_append(m, v, rd);
}

/* Hybrid CPUs: each core PMU's count of the batch, per operation as the metric is. */
static int append_parts(struct pmc_benchmark *b, const char *id, const struct pmc_reading_parts *p,
			uint64_t iters)
{
	struct pmc_reading_parts per_op = *p;
	struct pmc_metric *m;
	int r = metric(b, id, &m);

	for (size_t k = 0; k < per_op.n; k++)
		per_op.rd[k].scaled = pmc_mb_per_op(per_op.rd[k].scaled, iters);
	return r < 0 ? r : pmc_metric_append_parts(m, &per_op);
}

/* The empty loop's cost per operation, beside a metric's figures: not subtracted from
 * them, since out-of-order execution overlaps the loop's bookkeeping with the body and
 * a difference of two separately timed loops can fall below what the hardware can do
 * (docs/microbench.md, "Overhead"). */
static int set_overhead(struct pmc_benchmark *b, const char *id, double over, uint64_t iters)
{
	struct pmc_metric *m;
	int r;

	if (isnan(over) || iters == 0)
		return 0;
	r = metric(b, id, &m);
	if (r < 0)
		return r;
	m->has_loop_overhead = true;
	m->loop_overhead = over / (double)iters;
	return 0;
}

/* Says in the result when the loop's own cost is a large share of what was measured:
 * the body alone is then near the resolution of the loop. */
static int note_overhead(struct pmc_benchmark *b, const struct pmc_mb_samples *s)
{
	double med = NAN, share;
	struct pmc_metric *m;
	char note[200];
	int r;

	r = pmc_median_of(s->ns, s->n, &med);
	if (r == -ENOMEM)
		return r;
	if (isnan(s->over_ns) || !(med > 0))
		return 0;
	share = s->over_ns / med;
	if (share <= PMC_MB_OVERHEAD_WARN)
		return 0;
	r = metric(b, "wall-time/op", &m);
	if (r < 0)
		return r;
	snprintf(note, sizeof(note),
		 "includes the loop's own %.3g ns/op (%.0f%% of the time, not subtracted); the "
		 "body alone is near the loop's resolution",
		 s->over_ns / (double)s->iters, share > 1 ? 100.0 : share * 100.0);
	return pmc_metric_set_note(m, note);
}

/* The pairs of pmc_mb_empty_like(): per process, the median of its samples' batch times
 * and its empty loop's (each process is a replicate: docs/statistics.md, "The unit of
 * replication"); in one process, each sample and the empty batch measured beside it.
 * d[k] = log(body / empty), NAN where either is missing or not positive; *ret_n pairs,
 * *ret_body and *ret_empty the medians of the two sides. d holds s->n. */
static bool in_processes(const struct pmc_mb_samples *s)
{
	for (size_t i = 1; s->process && i < s->n; i++)
		if (s->process[i] != s->process[0])
			return true;
	return false;
}

static int empty_pairs(const struct pmc_mb_samples *s, double *d, size_t *ret_n, double *ret_body,
		       double *ret_empty)
{
	double *body = calloc(s->n + 1, sizeof(*body)), *empty = calloc(s->n + 1, sizeof(*empty));
	bool procs = in_processes(s);
	size_t n = 0;
	int r = 0;

	if (!body || !empty) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < s->n; i++) {
		size_t k = 0;

		if (procs) {
			/* The first sample of its process gathers the others. */
			bool first = true;

			for (size_t j = 0; j < i && first; j++)
				first = s->process[j] != s->process[i];
			if (!first)
				continue;
			for (size_t j = i; j < s->n; j++)
				if (s->process[j] == s->process[i])
					body[n + k++] = s->ns[j];
			body[n] = pmc_median(&body[n], k);
		} else {
			body[n] = s->ns[i];
		}
		empty[n] = s->over_v[i];
		d[n] = body[n] > 0 && empty[n] > 0 ? log(body[n] / empty[n]) : NAN;
		n++;
	}
	*ret_n = n;
	*ret_body = pmc_median(body, n);
	*ret_empty = pmc_median(empty, n);
out:
	free(body);
	free(empty);
	return r;
}

int pmc_mb_empty_like(const struct pmc_mb_samples *s, char *msg, size_t len)
{
	struct pmc_signed_rank sr;
	double *d, b = NAN, e = NAN, p;
	size_t n = 0;
	int r;

	if (!s->over_v || s->n == 0 || s->skipped)
		return 0;
	d = calloc(s->n, sizeof(*d));
	if (!d)
		return -ENOMEM;
	r = empty_pairs(s, d, &n, &b, &e);
	if (r == 0)
		r = pmc_signed_rank_test(d, n, &sr);
	free(d);
	if (r == -ENOMEM)
		return r;
	/* Too few pairs to tell (the one-sided p of n pairs is at least 2^-n), or none; equal
	 * pairs count, as evidence of no difference (all equal: p = 1). */
	if (r < 0 || sr.n < pmc_signed_rank_min_n(2 * PMC_MB_EMPTY_ALPHA))
		return 0;
	/* One-sided, body slower: half the two-sided p on the side T+ leans to. */
	p = sr.t_plus > (double)(sr.n - sr.nzero) * (double)(sr.n - sr.nzero + 1) / 4
		? sr.p / 2
		: 1 - sr.p / 2;
	if (p < PMC_MB_EMPTY_ALPHA)
		return 0;
	snprintf(msg, len,
		 "indistinguishable from the empty loop: %.3g ns/op against its %.3g (one-sided "
		 "Wilcoxon signed-rank p=%.2g over %zu %s): the compiler may have removed the "
		 "body; keep its result with pmc_do_not_optimize()",
		 b / (double)s->iters, e / (double)s->iters, p, sr.n,
		 in_processes(s) ? "processes" : "pairs of batches");
	return 1;
}

/* Says in the result that the body cannot be told from the empty loop (it replaces the
 * loop's share, which it implies). */
static int note_empty_like(struct pmc_benchmark *b, const struct pmc_mb_samples *s)
{
	char note[300];
	struct pmc_metric *m;
	int r = pmc_mb_empty_like(s, note, sizeof(note));

	if (r <= 0)
		return r;
	r = metric(b, "wall-time/op", &m);
	return r < 0 ? r : pmc_metric_set_note(m, note);
}

/* Says in the result what pmc_pause/pmc_resume cost when it was most of the batch: the
 * figure is then the difference of two large numbers. A sample whose pairs cost more than
 * its whole time was not measured (measure.c leaves it NAN, never a made-up 0): the note
 * says how many, whatever the share. */
static int note_pauses(struct pmc_benchmark *b, const struct pmc_mb_samples *s)
{
	double med = NAN, sub = (double)s->pauses * s->pause_ns, share = 1;
	size_t clamped = 0;
	struct pmc_metric *m;
	char note[360];
	int r;

	if (!s->pauses || !(sub > 0))
		return 0;
	for (size_t i = 0; i < s->n; i++)
		clamped += isnan(s->ns[i]);
	r = pmc_median_of(s->ns, s->n, &med);
	if (r == -ENOMEM)
		return r;
	if (!isnan(med))
		share = sub / (med + sub);
	if (share <= PMC_MB_PAUSE_WARN && !clamped)
		return 0;
	r = metric(b, "wall-time/op", &m);
	if (r < 0)
		return r;
	if (clamped)
		snprintf(note, sizeof(note),
			 "%zu of %zu samples not measured: their %" PRIu64 " pmc_pause/pmc_resume "
			 "pairs at %.3g ns each cost more than the whole batch (below the pairs' "
			 "resolution, clamped: no figure); pause less often, or move the untimed "
			 "work to a per-batch setup",
			 clamped, s->n, s->pauses, s->pause_ns);
	else
		snprintf(note, sizeof(note),
			 "%" PRIu64 " pmc_pause/pmc_resume pairs per batch at %.3g ns each were "
			 "subtracted (%.0f%% of the timed part); pause less often, or move the "
			 "untimed work to a per-batch setup",
			 s->pauses, s->pause_ns, share * 100.0);
	return pmc_metric_set_note(m, note);
}

/* The operations of a batch over all its threads: each ran iters. */
static uint64_t ops_of(const struct pmc_mb_samples *s)
{
	return s->iters * (s->threads > 1 ? s->threads : 1);
}

/* A counter's metric id by its flags: "<name>", "<name>/op" or "<name>/s"; inverted,
 * "1/<name>", "op/<name>" or "time/<name>". */
static void ucounter_id(const struct pmc_mb_ucounter *u, char *id, size_t len)
{
	bool rate = u->flags & PMC_COUNTER_RATE, per_op = !rate && u->flags & PMC_COUNTER_PER_OP;

	if (u->flags & PMC_COUNTER_INVERT)
		snprintf(id, len, "%s/%s", rate ? "time" : per_op ? "op" : "1", u->name);
	else
		snprintf(id, len, "%s%s", u->name, rate ? "/s" : per_op ? "/op" : "");
}

/* A counter's unit by its flags: a time for an inverted rate (ns per count), else a count
 * (in 1024-based steps with PMC_COUNTER_1024), per second for a rate. */
static const char *ucounter_unit(unsigned flags)
{
	bool k1024 = flags & PMC_COUNTER_1024;

	if (flags & PMC_COUNTER_RATE)
		return flags & PMC_COUNTER_INVERT ? "ns" : k1024 ? "count:1024/s" : "count/s";
	return k1024 ? "count:1024" : "count";
}

/* Sample i's value of counter k: the batch's total as set, over the iterations or over
 * the batch's seconds by its flags, then its inverse when asked, last, as Google
 * Benchmark's Finish (src/counter.cc) does (NAN: not set in that batch, a rate of a batch
 * that took no time, the inverse of 0). Then appended to its metric, which gets its unit
 * and direction when new: the registry's for an id it knows (bytes/s), else
 * ucounter_unit's, a rate higher-is-better and its inverse lower (the others the other
 * way round) unless the flags say otherwise. */
static int append_ucounter(struct pmc_benchmark *bm, const struct pmc_mb_samples *s, size_t i,
			   size_t k)
{
	const struct pmc_mb_ucounter *u = &s->uc[k];
	double v = s->uc_values[i * PMC_COUNTERS_MAX + k];
	const struct pmc_metric_info *info = NULL;
	bool rate = u->flags & PMC_COUNTER_RATE, invert = u->flags & PMC_COUNTER_INVERT;
	struct pmc_metric *m;
	char id[sizeof(u->name) + 8];
	int r;

	if (u->flags & PMC_COUNTER_AVG_THREADS && s->threads > 1)
		v /= s->threads;
	if (rate)
		v = s->ns[i] > 0 ? v * 1e9 / s->ns[i] : NAN;
	else if (u->flags & PMC_COUNTER_PER_OP)
		v = pmc_mb_per_op(v, ops_of(s));
	/* 1/rate in s, kept in ns as every time is. */
	if (invert)
		v = v != 0 ? (rate ? 1e9 : 1) / v : NAN;
	ucounter_id(u, id, sizeof(id));
	r = metric(bm, id, &m);
	if (r < 0)
		return r;
	/* Two figures under one id would give a run two samples. */
	if (m->n != i)
		return -EEXIST;
	if (i == 0 && pmc_metric_info_lookup(id, &info) < 0) {
		bool higher = u->flags & PMC_COUNTER_HIGHER_IS_BETTER ||
			      (rate != invert && !(u->flags & PMC_COUNTER_LOWER_IS_BETTER));
		char *unit = strdup(ucounter_unit(u->flags));

		if (!unit)
			return -ENOMEM;
		free(m->unit);
		m->unit = unit;
		m->better = higher ? PMC_HIGHER_IS_BETTER : PMC_LOWER_IS_BETTER;
	}
	return pmc_metric_append(m, v, NULL);
}

int pmc_mb_record_params(const struct pmc_mb_bench *b, struct pmc_benchmark *bm)
{
	char v[24];
	int r = 0;

	for (size_t i = 0; r == 0 && i < b->nargs && b->def.arg_names[i]; i++) {
		snprintf(v, sizeof(v), "%" PRId64, b->args[i]);
		r = pmc_benchmark_set_param(bm, b->def.arg_names[i], v);
	}
	return r;
}

int pmc_mb_record_skipped(const struct pmc_mb_bench *b, const char *message, struct pmc_result *res,
			  char *err, size_t errlen)
{
	struct pmc_benchmark *bm;
	/* Recorded with its reason, and nothing measured (docs/result-schema.md). */
	int r = pmc_result_add_benchmark(res, b->name, NULL, &bm);

	if (r == 0)
		r = pmc_benchmark_set_skipped(bm, message);
	if (r < 0)
		pmc_err_set(err, errlen, "'%s': cannot record the skip: %s", b->name, strerror(-r));
	return r;
}

int pmc_mb_record(const struct pmc_mb_bench *b, const struct pmc_mb_samples *s,
		  const struct pmc_event_list *events, struct pmc_result *res, char *err,
		  size_t errlen)
{
	struct pmc_benchmark *bm;
	size_t nev = events ? events->n : 0;
	char id[PMC_EVENT_NAME_MAX + 8];
	double threads = s->threads > 1 ? s->threads : 1;
	int r;

	if (s->skipped)
		return pmc_mb_record_skipped(b, s->message, res, err, errlen);
	if (nev != s->nev) {
		pmc_err_set(err, errlen, "'%s': %zu counts per sample for %zu events", b->name,
			    s->nev, nev);
		return -EINVAL;
	}
	r = pmc_result_add_benchmark(res, b->name, NULL, &bm);
	if (r == 0)
		bm->time_unit = b->def.unit;
	if (r == 0)
		r = pmc_mb_record_params(b, bm);
	if (r < 0)
		goto fail;
	for (size_t i = 0; i < s->n; i++) {
		struct pmc_run_info info = {.exit_code = 0,
					    .iterations = s->iters,
					    .process = s->process ? s->process[i] : 0};
		double wall = pmc_mb_per_op(s->ns[i], s->iters);

		r = pmc_benchmark_add_run(bm, &info);
		if (r == 0)
			r = append(bm, "wall-time/op", wall, NULL);
		for (size_t e = 0; r == 0 && e < nev; e++) {
			const struct pmc_reading *rd = &s->readings[i * nev + e];
			bool lost = uprobe_on_threads(s, events, e);
			double v = pmc_status_has_value(rd->status) && !lost
				       ? pmc_mb_per_op(rd->scaled, ops_of(s))
				       : NAN;
			struct pmc_metric *m;

			snprintf(id, sizeof(id), "%s/op", events->events[e].name);
			/* Uncore and RAPL: its unit per operation, and what it counts. */
			r = metric(bm, id, &m);
			if (r == 0 && m->n == 0) {
				char note[PMC_EVENT_NOTE_MAX];
				bool has = pmc_event_note(events, e, rd, "the benchmark", note,
							  sizeof(note));

				r = pmc_metric_describe(m, events->events[e].unit,
							has ? note : NULL);
			}
			if (r == 0)
				r = pmc_metric_append(m, v, lost ? NULL : rd);
			if (r == 0 && s->parts && s->parts[i * nev + e].n)
				r = append_parts(bm, id, &s->parts[i * nev + e], ops_of(s));
		}
		/* A throughput needs a time: none for a batch that took none. Its threads
		 * worked at once, each at that rate. */
		if (r == 0 && s->items)
			r = append(bm, "items/s",
				   wall > 0 ? (double)s->items * threads * 1e9 / wall : NAN, NULL);
		if (r == 0 && s->bytes)
			r = append(bm, "bytes/s",
				   wall > 0 ? (double)s->bytes * threads * 1e9 / wall : NAN, NULL);
		for (size_t k = 0; r == 0 && s->uc_values && k < s->nuc; k++) {
			r = append_ucounter(bm, s, i, k);
			if (r == -EEXIST) {
				ucounter_id(&s->uc[k], id, sizeof(id));
				pmc_err_set(err, errlen,
					    "'%s': counter \"%s\" gives the metric '%s', which the "
					    "benchmark already has; name it otherwise",
					    b->name, s->uc[k].name, id);
				return -EINVAL;
			}
		}
		if (r < 0)
			goto fail;
	}
	for (size_t e = 0; r == 0 && s->n && e < nev; e++) {
		snprintf(id, sizeof(id), "%s/op", events->events[e].name);
		if (uprobe_on_threads(s, events, e))
			r = pmc_metric_set_note(pmc_benchmark_find_metric(bm, id),
						PMC_MB_UPROBE_THREADS);
	}
	if (r == 0)
		r = pmc_mb_record_allocs(bm, s, events);
	if (r == 0)
		r = note_overhead(bm, s);
	if (r == 0)
		r = note_empty_like(bm, s);
	/* The pairs' note, when both apply: the larger cost, and the one the user can act on. */
	if (r == 0)
		r = note_pauses(bm, s);
	if (r == 0 && s->n)
		r = set_overhead(bm, "wall-time/op", s->over_ns, s->iters);
	for (size_t e = 0; r == 0 && s->n && e < nev; e++) {
		snprintf(id, sizeof(id), "%s/op", events->events[e].name);
		r = set_overhead(bm, id, s->over_counts[e], s->iters);
	}
	if (r == 0) {
		struct pmc_derive_opts dopts = {
		    .apart = pmc_event_list_apart, .apart_ud = events, .input_suffix = "/op"};

		r = pmc_benchmark_derive(bm, &dopts);
	}
	if (r < 0)
		goto fail;
	return 0;
fail:
	if (r == -ENOMEM)
		pmc_err_set(err, errlen, "out of memory");
	else
		pmc_err_set(err, errlen, "'%s': cannot record the samples: %s", b->name,
			    strerror(-r));
	return r;
}

/* Summaries computed once (analysis.h): the statistics come from stats.c, the status
 * facts from the per-run readings the result keeps (docs/result-schema.md). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis.h"
#include "core/compare.h"
#include "core/metrics.h"
#include "core/result.h"

bool pmc_metric_kernel_identical(const struct pmc_metric *m, bool *ret_identical)
{
	size_t present = 0;
	bool same = true;
	double first = NAN;

	/* A count of the scheduler's (context switches, sched:*) reads the same only when
	 * the machine happened to be as quiet: its equal readings are ties, as in issue 8. */
	if (!m || m->simulated || !pmc_metric_is_kernel_count(m->id) || pmc_metric_drifts(m->id))
		return false;
	for (size_t i = 0; i < m->n; i++) {
		if (isnan(m->values[i])) {
			same = false;
			continue;
		}
		if (present++ == 0)
			first = m->values[i];
		same &= m->values[i] == first;
		/* A multiplexed count is an estimate, whatever it reads. */
		same &= !m->has_status || (m->status && m->status[i] == PMC_STATUS_COUNTED);
	}
	if (present < 2)
		return false;
	if (ret_identical)
		*ret_identical = same;
	return true;
}

int pmc_metric_analyze(const struct pmc_metric *m, double confidence,
		       struct pmc_metric_analysis *ret)
{
	struct pmc_metric_analysis a = {.m = m, .of_totals = NAN};
	double frac = 0;
	size_t nfrac = 0;
	int err;

	if (!m || !ret || (m->n && !m->values))
		return -EINVAL;
	if (m->has_status && m->n && (!m->status || !m->raw))
		return -EINVAL;
	for (size_t i = 0; i < m->n; i++)
		if (!isnan(m->values[i]))
			a.present++;
	if (a.present) {
		err = pmc_summary_compute(m->values, m->n, confidence, &a.s);
		if (err < 0)
			return err;
		a.has_summary = true;
		/* Values too far apart for the checks (-ERANGE) are left unchecked, never
		 * called healthy; only running out of memory fails the analysis. */
		err = pmc_health_check(m->values, m->n, NULL, &a.health);
		if (err == -ENOMEM)
			return err;
	}
	a.kernel_count = pmc_metric_kernel_identical(m, &a.identical);
	if (m->has_status) {
		a.all_exact = m->n > 0;
		for (size_t i = 0; i < m->n; i++) {
			enum pmc_status st = m->status[i];

			if ((unsigned)st < PMC_NSTATUS)
				a.status_count[st]++;
			a.all_exact &= st == PMC_STATUS_EXACT;
			if (isnan(m->values[i]) || m->raw[i].enabled == 0)
				continue;
			a.scaled |= st == PMC_STATUS_SCALED;
			frac += pmc_reading_running_fraction(m->raw[i].enabled, m->raw[i].running);
			nfrac++;
		}
		if (nfrac)
			a.running = frac / (double)nfrac;
		else
			a.scaled = false;
	}
	for (size_t k = 0; k < m->nparts && k < PMC_PARTS_MAX; k++) {
		const struct pmc_metric *p = &m->parts[k];
		bool any = false;

		for (size_t i = 0; i < p->n && !any; i++)
			any = !isnan(p->values[i]);
		if (!any)
			continue;
		err = pmc_summary_compute(p->values, p->n, confidence, &a.part[k]);
		if (err < 0)
			return err;
		a.part_present[k] = true;
	}
	*ret = a;
	return 0;
}

static void bench_analysis_clear(struct pmc_bench_analysis *ba)
{
	if (!ba)
		return;
	free(ba->metrics);
	ba->metrics = NULL;
}

static bool is_rate(const struct pmc_metric *m)
{
	size_t n = m->unit ? strlen(m->unit) : 0;

	return n > 2 && strcmp(m->unit + n - 2, "/s") == 0;
}

/* Every rate's total over the total time (of_totals): a run's time is its wall-time/op
 * times its iterations (one when not recorded), and its total the rate times that time,
 * so that the rate of the whole is not the mean of the runs' rates. */
static void rates_of_totals(struct pmc_bench_analysis *ba)
{
	const struct pmc_benchmark *b = ba->b;
	const struct pmc_metric *t = NULL;

	for (size_t i = 0; i < b->nmetrics && !t; i++)
		if (strcmp(b->metrics[i].id, "wall-time/op") == 0)
			t = &b->metrics[i];
	for (size_t i = 0; t && i < b->nmetrics; i++) {
		const struct pmc_metric *m = &b->metrics[i];
		double total = 0, time = 0;

		if (!is_rate(m))
			continue;
		for (size_t k = 0; k < m->n && k < t->n; k++) {
			double it = k < b->nruns && b->runs && b->runs[k].iterations
					? (double)b->runs[k].iterations
					: 1;

			if (isnan(m->values[k]) || isnan(t->values[k]))
				continue;
			total += m->values[k] * t->values[k] * it;
			time += t->values[k] * it;
		}
		if (time > 0)
			ba->metrics[i].of_totals = total / time;
	}
}

/* The analysis of one benchmark; ret->metrics is allocated (free it with
 * bench_analysis_clear). Returns 0, -ENOMEM or -EINVAL as pmc_analysis_new(). */
static int bench_analyze(const struct pmc_benchmark *b, double confidence,
			 struct pmc_bench_analysis *ret)
{
	struct pmc_bench_analysis ba = {.b = b};
	size_t max_n = 0;
	int err;

	if (!b || !ret || (b->nmetrics && !b->metrics))
		return -EINVAL;
	for (size_t i = 0; i < b->nruns && b->runs; i++) {
		if (b->runs[i].timed_out)
			ba.timed_out++;
		else if (b->runs[i].exit_code != 0 || b->runs[i].term_signal != 0)
			ba.failed++;
	}
	ba.metrics = calloc(b->nmetrics ? b->nmetrics : 1, sizeof(*ba.metrics));
	if (!ba.metrics)
		return -ENOMEM;
	for (size_t i = 0; i < b->nmetrics; i++) {
		err = pmc_metric_analyze(&b->metrics[i], confidence, &ba.metrics[i]);
		if (err < 0)
			goto fail_metric;
		max_n = b->metrics[i].n > max_n ? b->metrics[i].n : max_n;
	}
	ba.runs = b->nruns > max_n ? b->nruns : max_n;
	rates_of_totals(&ba);
	*ret = ba;
	return 0;

fail_metric:
	bench_analysis_clear(&ba);
	return err;
}

void pmc_analysis_free(struct pmc_analysis *a)
{
	if (!a)
		return;
	for (size_t i = 0; a->benches && i < a->nbench; i++)
		bench_analysis_clear(&a->benches[i]);
	free(a->benches);
	free(a);
}

/* One false-discovery control for the drift flags of every metric of the result
 * (docs/statistics.md, "Sample health"). */
static int adjust_health(struct pmc_analysis *a)
{
	struct pmc_health **h;
	size_t n = 0;
	int err;

	for (size_t i = 0; i < a->nbench; i++)
		n += a->benches[i].b->nmetrics;
	h = malloc((n ? n : 1) * sizeof(*h));
	if (!h)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < a->nbench; i++)
		for (size_t k = 0; k < a->benches[i].b->nmetrics; k++)
			if (a->benches[i].metrics[k].has_summary)
				h[n++] = &a->benches[i].metrics[k].health;
	err = pmc_health_adjust(h, n, 0);
	free(h);
	return err;
}

int pmc_analysis_new(const struct pmc_result *r, double confidence, struct pmc_analysis **ret)
{
	struct pmc_analysis *a;
	int err;

	if (!r || !ret || (r->nbench && !r->benchmarks) || !(confidence > 0 && confidence < 1))
		return -EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->r = r;
	a->confidence = confidence;
	a->benches = calloc(r->nbench ? r->nbench : 1, sizeof(*a->benches));
	if (!a->benches) {
		err = -ENOMEM;
		goto fail_alloc;
	}
	for (size_t i = 0; i < r->nbench; i++) {
		err = bench_analyze(&r->benchmarks[i], confidence, &a->benches[i]);
		if (err < 0)
			goto fail_alloc;
		a->nbench++;
	}
	err = adjust_health(a);
	if (err < 0)
		goto fail_alloc;
	*ret = a;
	return 0;

fail_alloc:
	pmc_analysis_free(a);
	return err;
}

/* The median of metric id in ba, NAN when ba has no measured value of it. */
static double bench_median(const struct pmc_bench_analysis *ba, const char *id)
{
	for (size_t k = 0; k < ba->b->nmetrics; k++)
		if (strcmp(ba->metrics[k].m->id, id) == 0)
			return ba->metrics[k].has_summary ? ba->metrics[k].s.median : NAN;
	return NAN;
}

size_t pmc_analysis_fastest(const struct pmc_analysis *a, size_t ref)
{
	const char *const *primary = pmc_result_primary(a->r);

	for (size_t p = 0; primary[p]; p++) {
		double best_med = INFINITY;
		size_t best = ref;
		bool all = true;

		for (size_t i = 0; i < a->nbench && all; i++) {
			double med = bench_median(&a->benches[i], primary[p]);

			all = isfinite(med);
			if (all && med < best_med) {
				best_med = med;
				best = i;
			}
		}
		if (all)
			return best;
	}
	return ref;
}

/* Complexity fits over a definition's benchmarks (docs/microbench.md, "Complexity"), by
 * Google Benchmark's method (src/complexity.cc, MinimalLeastSq and ComputeBigO): the
 * least-squares coefficient of t ≈ coef · f(n) has the closed form
 * coef = Σ t·f(n) / Σ f(n)², and the fit's error is the root mean square of the
 * residuals over the mean of t; O(auto) starts from O(1) and keeps whichever of O(log n)
 * ... O(n^3) has a smaller error. log is log2, as there. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "core/result.h"
#include "core/stats.h"
#include "microbench/microbench.h"

static const char *const big_o_names[] = {PMC_FIT_BIG_O};

static double curve(int complexity, double n)
{
	switch (complexity) {
	case PMC_O_LOG_N:
		return log2(n);
	case PMC_O_N:
		return n;
	case PMC_O_N_LOG_N:
		return n * log2(n);
	case PMC_O_N2:
		return n * n;
	case PMC_O_N3:
		return n * n * n;
	case PMC_O_1:
	default:
		return 1;
	}
}

/* One curve: f(n_i) from the complexity, or from fn when it is set. */
static int fit_one(const int64_t *n, const double *t, size_t k, int complexity,
		   double (*fn)(int64_t), struct pmc_fit *ret)
{
	double sff = 0, stf = 0, mean = 0, sse = 0, coef;

	for (size_t i = 0; i < k; i++) {
		double f = fn ? fn(n[i]) : curve(complexity, (double)n[i]);

		if (!isfinite(f))
			return -EDOM;
		sff += f * f;
		stf += t[i] * f;
		mean += t[i] / (double)k;
	}
	if (!(sff > 0) || !(mean > 0))
		return -EDOM;
	coef = stf / sff;
	for (size_t i = 0; i < k; i++) {
		double e = t[i] - coef * (fn ? fn(n[i]) : curve(complexity, (double)n[i]));

		sse += e * e;
	}
	ret->coef = coef;
	ret->rms = sqrt(sse / (double)k) / mean;
	ret->points = k;
	ret->big_o = (char *)(fn ? big_o_names[6] : big_o_names[complexity - PMC_O_1]);
	return 0;
}

int pmc_mb_fit(const int64_t *n, const double *t, size_t k, int complexity, double (*fn)(int64_t),
	       struct pmc_fit *ret)
{
	struct pmc_fit best = {0}, cur = {0};
	int r;

	if (k < 2 || (!fn && (complexity < PMC_O_1 || complexity > PMC_O_AUTO)))
		return -EINVAL;
	for (size_t i = 0; i < k; i++)
		if (n[i] < 1 || !(t[i] >= 0))
			return -EDOM;
	if (fn || complexity != PMC_O_AUTO) {
		r = fit_one(n, t, k, complexity, fn, &cur);
		if (r == 0)
			*ret = cur;
		return r;
	}
	r = fit_one(n, t, k, PMC_O_1, NULL, &best);
	for (int c = PMC_O_LOG_N; r == 0 && c <= PMC_O_N3; c++)
		if (fit_one(n, t, k, c, NULL, &cur) == 0 && cur.rms < best.rms)
			best = cur;
	if (r == 0)
		*ret = best;
	return r;
}

/* The median of a benchmark's metric over its runs; NAN when it has none. */
static double median_of(const struct pmc_benchmark *b, const char *metric)
{
	const struct pmc_metric *m = pmc_benchmark_find_metric(b, metric);
	struct pmc_summary s;

	if (!m || pmc_summary_compute(m->values, m->n, 0.95, &s) < 0)
		return NAN;
	return s.median;
}

/* Whether a and b are benchmarks of one definition of one build. */
static bool same_def(const struct pmc_mb_bench *a, const struct pmc_mb_bench *b)
{
	return a->def.fn == b->def.fn && strcmp(a->def.name, b->def.name) == 0 &&
	       a->label_len == b->label_len && strncmp(a->name, b->name, a->label_len) == 0;
}

int pmc_mb_complexity(const struct pmc_mb_set *set, struct pmc_result *res, char *err,
		      size_t errlen)
{
	int64_t *n = calloc(set->n + 1, sizeof(*n));
	double *t = calloc(set->n + 1, sizeof(*t));
	bool *done = calloc(set->n + 1, sizeof(*done));
	int r = 0;

	if (!n || !t || !done) {
		r = -ENOMEM;
		pmc_err_set(err, errlen, "out of memory");
		goto out;
	}
	/* A definition's benchmarks are next to each other among those of its build
	 * (expand.c), whose groups hold one benchmark of each build at most. */
	for (size_t i = 0; i < set->n; i++) {
		const struct pmc_bench_def *d = &set->v[i].def;
		const char *metric = NULL;
		struct pmc_fit f = {0};
		char name[512];
		size_t k = 0;

		if (done[i])
			continue;
		for (size_t j = i; j < set->n; j++) {
			const struct pmc_mb_bench *b = &set->v[j];
			const struct pmc_benchmark *bm;
			double v;

			if (b->label_len != set->v[i].label_len ||
			    strncmp(b->name, set->v[i].name, b->label_len) != 0)
				continue; /* another build's */
			if (!same_def(b, &set->v[i]))
				break;
			done[j] = true;
			bm = pmc_result_find_benchmark(res, b->name);
			if ((d->complexity == PMC_O_NONE && !d->complexity_fn) || !bm)
				continue;
			if (d->complexity_arg < 0 || (size_t)d->complexity_arg >= b->nargs) {
				pmc_err_set(err, errlen,
					    "benchmark '%s': complexity over argument %d, but it "
					    "has %zu",
					    d->name, d->complexity_arg + 1, b->nargs);
				r = -EINVAL;
				goto out;
			}
			/* Time under the perf backend; exact instructions under valgrind. */
			metric = metric ? metric
				 : pmc_benchmark_find_metric(bm, "wall-time/op")
				     ? "wall-time/op"
				     : "instructions/op";
			v = median_of(bm, metric);
			if (isnan(v))
				continue;
			n[k] = b->args[d->complexity_arg];
			t[k++] = v;
		}
		/* Fewer than two points fit nothing, as in Google Benchmark. */
		if (k < 2)
			continue;
		r = pmc_mb_fit(n, t, k, d->complexity, d->complexity_fn, &f);
		if (r < 0) {
			pmc_err_set(err, errlen, "benchmark '%s': no complexity fit: %s", d->name,
				    r == -EDOM ? "an argument below 1, or a curve that is 0 or "
						 "not finite at every point"
					       : "a complexity not of enum pmc_complexity");
			goto out;
		}
		/* Of a build: "LABEL:name", as its benchmarks are named. */
		snprintf(name, sizeof(name), "%.*s%s%s", (int)set->v[i].label_len, set->v[i].name,
			 set->v[i].label_len ? ":" : "", d->name);
		f.name = name;
		f.metric = (char *)metric;
		r = pmc_result_add_fit(res, &f);
		if (r < 0) {
			pmc_err_set(err, errlen, "out of memory");
			goto out;
		}
	}
out:
	free(n);
	free(t);
	free(done);
	return r;
}

/* Counting a loop of this program with libpmcbench, through the installed API only:
 * opens task-clock and page-faults on the calling thread, measures a loop ten times,
 * and saves a result file that `pmcbench compare` and `pmcbench gate` read.
 *
 *	cc count.c $(pkg-config --cflags --libs pmcbench) -o count
 *	./count count.json && pmcbench compare count.json count.json
 *
 * Exits 0 when the result was saved, 1 (with one line on stderr) otherwise. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */

#include <pmcbench.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUNS 10
#define EVENTS "task-clock,page-faults"

/* The measured work: fresh pages to fault in, and arithmetic on them. */
static uint64_t work(void)
{
	size_t n = 1u << 20;
	uint64_t *v = malloc(n * sizeof(*v)), x = 1;

	if (!v)
		return 0;
	for (size_t i = 0; i < n; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		v[i] = x;
	}
	x = v[x % n];
	free(v);
	return x;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* One run: counters reset and enabled around the work, then read into the result. */
static int measure(struct pmc_counters *c, const struct pmc_event_list *ev, struct pmc_benchmark *b)
{
	struct pmc_reading rd[8];
	struct pmc_metric *m;
	volatile uint64_t sink;
	double t0, t1;
	int r;

	if ((r = pmc_counters_reset(c)) < 0 || (r = pmc_counters_enable(c)) < 0)
		return r;
	t0 = now_ns();
	sink = work();
	t1 = now_ns();
	(void)sink;
	if ((r = pmc_counters_disable(c)) < 0 || (r = pmc_counters_read(c, rd, sizeof(*rd))) < 0)
		return r;
	for (size_t i = 0; i < pmc_event_list_count(ev); i++) {
		/* A counter this machine cannot count is stored as not measured, never 0. */
		if ((r = pmc_benchmark_metric(b, pmc_event_list_name(ev, i), &m)) < 0 ||
		    (r = pmc_metric_add_reading(m, &rd[i])) < 0)
			return r;
	}
	if ((r = pmc_benchmark_metric(b, "wall-time", &m)) < 0 ||
	    (r = pmc_metric_add_value(m, t1 - t0)) < 0)
		return r;
	return pmc_benchmark_record_run(b, 0, 0, 0);
}

int main(int argc, char **argv)
{
	const char *out = argc > 1 ? argv[1] : "count.json";
	PMC_OPTS(pmc_counters_opts, co, .start_disabled = 1);
	struct pmc_event_list *ev = NULL;
	struct pmc_counters *c = NULL;
	struct pmc_result *res = NULL;
	struct pmc_benchmark *b;
	char err[256] = "";
	int r, status = 1;

	if ((r = pmc_event_list_parse(EVENTS, NULL, &ev, err, sizeof(err))) < 0) {
		fprintf(stderr, "count: %s: %s\n", EVENTS, err);
		return 1;
	}
	if ((r = pmc_counters_open(ev, &co, &c)) < 0) {
		fprintf(stderr, "count: cannot open counters: %s\n", strerror(-r));
		goto out;
	}
	if ((r = pmc_result_new("perf", &res)) < 0 ||
	    (r = pmc_result_add_benchmark(res, "work", "bench/examples/count.c: work()", &b)) < 0) {
		fprintf(stderr, "count: %s\n", strerror(-r));
		goto out;
	}
	for (int run = 0; run < RUNS; run++) {
		if ((r = measure(c, ev, b)) < 0) {
			fprintf(stderr, "count: run %d failed: %s\n", run + 1, strerror(-r));
			goto out;
		}
	}
	if ((r = pmc_result_save(res, out, err, sizeof(err))) < 0) {
		fprintf(stderr, "count: %s\n", err);
		goto out;
	}
	for (size_t i = 0; i < pmc_event_list_count(ev); i++) {
		struct pmc_metric *m = pmc_benchmark_find_metric(b, pmc_event_list_name(ev, i));
		enum pmc_status st;
		double v;

		pmc_metric_status(m, 0, &st);
		if (pmc_metric_sample_at(m, 0, &v) == 0)
			printf("%-12s %14.0f (%s)\n", pmc_metric_id(m), v, pmc_status_name(st));
		else
			printf("%-12s %14s (%s)\n", pmc_metric_id(m), "-", pmc_status_name(st));
	}
	printf("saved %d runs to %s\n", RUNS, out);
	status = 0;
out:
	pmc_result_free(res);
	pmc_counters_close(c);
	pmc_event_list_free(ev);
	return status;
}

/* What one batch edge's counter read costs (bench/README.md, `read-cost`): a group of
 * events (default: the four software events of the default set; argument 3 another
 * list) read with read() (self_read off) and with self_read on, which reads a group on
 * the PMU through its pages with rdpmc and falls back to read() otherwise (a software
 * event never has a counter). Both against a floor measured in the same run:
 * clock_gettime(CLOCK_MONOTONIC) through the vDSO. Prints the medians of REPS
 * repetitions of N reads, alternating, their ratios, and how the self_read counters
 * were actually read. Usage: read-cost [N] [REPS] [EVENTS] */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmcbench.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double per_read(uint64_t t0, uint64_t t1, size_t n)
{
	return (double)(t1 - t0) / (double)n;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000;
	size_t reps = argc > 2 ? strtoul(argv[2], NULL, 10) : 11;
	const char *spec =
	    argc > 3 ? argv[3] : "{task-clock,page-faults,context-switches,cpu-migrations}";
	PMC_OPTS(pmc_counters_opts, po, .self_read = false);
	PMC_OPTS(pmc_counters_opts, so, .self_read = true);
	struct pmc_event_list *list = NULL;
	struct pmc_counters *plain = NULL, *self = NULL;
	struct pmc_reading r[64];
	double *floor_v, *read_v, *self_v, fl, rd, sf;
	uint64_t nself, nsys;
	char err[256] = "";

	if (!n || !reps) {
		fprintf(stderr, "usage: read-cost [N] [REPS] [EVENTS]\n");
		return 2;
	}
	if (pmc_event_list_parse(spec, NULL, &list, err, sizeof(err)) < 0 ||
	    pmc_event_list_count(list) > 64 || pmc_counters_open(list, &po, &plain) < 0 ||
	    pmc_counters_open(list, &so, &self) < 0 ||
	    pmc_counters_opened(plain) != pmc_event_list_count(list)) {
		fprintf(stderr, "read-cost: cannot open every event of %s %s\n", spec, err);
		return 2;
	}
	floor_v = calloc(reps, sizeof(double));
	read_v = calloc(reps, sizeof(double));
	self_v = calloc(reps, sizeof(double));
	if (!floor_v || !read_v || !self_v)
		return 2;
	for (size_t rep = 0; rep < reps; rep++) {
		uint64_t t0, t1;
		struct timespec ts;

		t0 = now_ns();
		for (size_t i = 0; i < n; i++)
			clock_gettime(CLOCK_MONOTONIC, &ts);
		t1 = now_ns();
		floor_v[rep] = per_read(t0, t1, n);
		t0 = now_ns();
		for (size_t i = 0; i < n; i++)
			if (pmc_counters_read(plain, r, sizeof(*r)) < 0)
				return 2;
		t1 = now_ns();
		read_v[rep] = per_read(t0, t1, n);
		t0 = now_ns();
		for (size_t i = 0; i < n; i++)
			if (pmc_counters_read(self, r, sizeof(*r)) < 0)
				return 2;
		t1 = now_ns();
		self_v[rep] = per_read(t0, t1, n);
	}
	pmc_counters_read_counts(self, &nself, &nsys);
	fl = median(floor_v, reps);
	rd = median(read_v, reps);
	sf = median(self_v, reps);
	printf("read-cost: %s, %zu reads x %zu repetitions, medians per read of every group\n",
	       spec, n, reps);
	printf("  floor: clock_gettime (vDSO)   %8.1f ns\n", fl);
	printf("  read()                        %8.1f ns  %6.1fx floor\n", rd, rd / fl);
	printf("  self_read                     %8.1f ns  %6.1fx floor  %.3fx read()\n", sf,
	       sf / fl, sf / rd);
	printf("  self_read's group reads: %llu through the pages (rdpmc), %llu with read()\n",
	       (unsigned long long)nself, (unsigned long long)nsys);
	pmc_counters_close(plain);
	pmc_counters_close(self);
	pmc_event_list_free(list);
	free(floor_v);
	free(read_v);
	free(self_v);
	return 0;
}

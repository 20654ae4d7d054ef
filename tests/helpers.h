/* Helpers shared by the unit tests: constructors of the model and of event lists wrapped
 * so that a failure fails the test at once, `put`, which fills a metric with n distinct
 * samples around a center, assert_contains, assert_close, ARRAY_SIZE and t_spawn_wait (a
 * target run as the valgrind backend runs it). Include after <cmocka.h>. */
#pragma once

#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>

#include "counters/perf/events.h"
#include "core/metrics.h"
#include "core/result.h"
#include "core/threshold.h"
#include "formats/result_json.h"

#define ARRAY_SIZE(x) (sizeof(x) / sizeof((x)[0]))

/* Relative comparison that prints both values on failure. */
#define assert_close(actual, expected, rel)                                                        \
	do {                                                                                       \
		double a_ = (actual), e_ = (expected);                                             \
		if (!(fabs(a_ - e_) <= (rel)*fmax(fabs(e_), 1e-300))) {                            \
			print_error("%s = %.17g, expected %.17g (rel %g)\n", #actual, a_, e_,      \
				    (double)(rel));                                                \
			fail();                                                                    \
		}                                                                                  \
	} while (0)

/* qsort's comparison of doubles. */
static inline int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* Fails the test unless text holds sub; prints both when it does not. */
#define assert_contains(text, sub)                                                                 \
	do {                                                                                       \
		const char *t_ = (text), *s_ = (sub);                                              \
		if (!t_ || !strstr(t_, s_)) {                                                      \
			print_error("--- text:\n%s\n--- does not contain \"%s\"\n",                \
				    t_ ? t_ : "(null)", s_);                                       \
			fail();                                                                    \
		}                                                                                  \
	} while (0)

/* The event list of spec, parsed from the machine's sysfs; its error printed otherwise. */
static inline struct pmc_event_list *t_events(const char *spec)
{
	struct pmc_event_list *l = NULL;
	char err[256];

	if (pmc_event_list_parse(spec, NULL, &l, err, sizeof(err)) != 0)
		print_error("%s: %s\n", spec, err);
	assert_non_null(l);
	return l;
}

static inline struct pmc_result *t_result(const char *backend)
{
	struct pmc_result *r = NULL;

	assert_int_equal(pmc_result_new(backend, &r), 0);
	return r;
}

static inline struct pmc_benchmark *t_bench(struct pmc_result *r, const char *name,
					    const char *command)
{
	struct pmc_benchmark *b = NULL;

	assert_int_equal(pmc_result_add_benchmark(r, name, command, &b), 0);
	return b;
}

static inline struct pmc_metric *t_metric(struct pmc_benchmark *b, const char *id)
{
	struct pmc_metric *m = NULL;

	assert_int_equal(pmc_benchmark_metric(b, id, &m), 0);
	return m;
}

/* The result file's text of r (harness/3-formats: link formats_dep to use it). Not inlined:
 * gcc 12 then mistakes the returned text for a pointer to the local (-Wdangling-pointer). */
__attribute__((noinline, unused)) static char *t_dumps(const struct pmc_result *r)
{
	char *text = NULL;

	assert_int_equal(pmc_result_dumps(r, NULL, &text), 0);
	return text;
}

static inline struct pmc_thresholds *t_thresholds(void)
{
	struct pmc_thresholds *t = NULL;

	assert_int_equal(pmc_thresholds_new(&t), 0);
	return t;
}

/* Appends v[0..n-1] to metric id of benchmark bench (both added as needed); the metric
 * takes the registry's unit and direction. Returns the metric. */
static inline struct pmc_metric *put_values(struct pmc_result *r, const char *bench, const char *id,
					    const double *v, size_t n)
{
	struct pmc_metric_info info = pmc_metric_lookup(id);
	struct pmc_benchmark *b = pmc_result_find_benchmark(r, bench);
	struct pmc_metric *m = t_metric(b ? b : t_bench(r, bench, NULL), id);

	free(m->unit);
	m->unit = strdup(info.unit);
	m->better = info.better;
	for (size_t i = 0; i < n; i++)
		assert_int_equal(pmc_metric_append(m, v[i], NULL), 0);
	return m;
}

/* Adds benchmark bench to r with n runs in rounds 1..n (a design of commands taken in
 * rounds, docs/compare.md "Paired"), and marks r's design interleaved over n rounds.
 * Returns the benchmark; its metrics are added with put_values. */
static inline struct pmc_benchmark *t_rounds_bench(struct pmc_result *r, const char *bench,
						   size_t n)
{
	struct pmc_benchmark *bm = t_bench(r, bench, NULL);

	for (size_t i = 0; i < n; i++) {
		struct pmc_run_info info = {.round = (unsigned)i + 1};

		assert_int_equal(pmc_benchmark_add_run(bm, &info), 0);
	}
	if (!r->design.mode)
		r->design.mode = strdup("interleaved");
	r->design.rounds = n;
	return bm;
}

/* n samples around center, spread relative, all distinct (n missing values when center
 * is NAN), as put_values adds them. */
static inline struct pmc_metric *put(struct pmc_result *r, const char *bench, const char *id,
				     size_t n, double center, double spread)
{
	double *v = calloc(n ? n : 1, sizeof(*v));
	struct pmc_metric *m;

	assert_non_null(v);
	for (size_t i = 0; i < n; i++) {
		double u = n > 1 ? (double)((i * 7 + 3) % n) / (double)(n - 1) * 2 - 1 : 0;

		v[i] = center * (1 + spread * u);
	}
	m = put_values(r, bench, id, v, n);
	free(v);
	return m;
}

/* Runs argv as the valgrind backend runs its targets: without address-space
 * randomisation, standard streams on /dev/null. Returns the wait status. */
static inline int t_spawn_wait(char *const *argv)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);

		personality(ADDR_NO_RANDOMIZE);
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

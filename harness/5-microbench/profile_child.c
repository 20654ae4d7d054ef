/* Profiling a benchmark's loop (docs/microbench.md, "Profiles"): the benchmark program
 * runs itself again with "--profile-child NAME --profile-time S", which runs only that
 * benchmark's loop, batch after batch, for S seconds of its own CPU time, under the
 * sampler (harness/4-profile/record.h). The setup and teardown run once each and take a
 * negligible share of S; they are in the profile under their own names. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "microbench/microbench.h"
#include "profile/profile.h"
#include "profile/record.h"
#include "run/spawn.h"

/* Iterations per batch: enough that the loop's edges are a small share of the samples,
 * few enough that the child checks the time often. */
#define PROFILE_BATCH_NS 10e6

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int pmc_mb_profile_child(const struct pmc_mb_bench *b, double seconds, char *err, size_t errlen)
{
	uint64_t iters = 1;
	double start = cpu_seconds();
	struct pmc_mb_batch_out out = {0};
	void *fixture = NULL;
	int r;

	/* The fixture once; doubling up to a batch of about PROFILE_BATCH_NS, then batches
	 * of that size. */
	pmc_mb_once(b, true, &fixture);
	do {
		r = pmc_mb_batch(b, PMC_MB_BODY, iters, NULL, &fixture, &out, err, errlen);
		free(out.message);
		if (r < 0 || out.skipped)
			break;
		if (out.ns < PROFILE_BATCH_NS && iters < (UINT64_C(1) << 40))
			iters *= 2;
	} while (cpu_seconds() - start < seconds);
	pmc_mb_once(b, false, &fixture);
	return r;
}

int pmc_mb_profile(const struct pmc_mb_bench *b, const struct pmc_mb_profile_opts *o,
		   struct pmc_profile **ret, char *err, size_t errlen)
{
	struct pmc_record_opts ro = {
	    .name = b->name,
	    .show_output = o->show_output,
	    .timeout_s = pmc_mb_timeout(o->timeout_s, o->seconds > 0 ? o->seconds : 1.0),
	    .die_with_parent = true, /* never outlives the benchmark program */
	};
	struct pmc_spawn_result sr;
	char **argv, seconds[32];
	size_t nself = 0;
	int r;

	while (o->self_argv[nself])
		nself++;
	argv = calloc(nself + 5, sizeof(*argv));
	if (!argv)
		return -ENOMEM;
	snprintf(seconds, sizeof(seconds), "%g", o->seconds > 0 ? o->seconds : 1.0);
	memcpy(argv, o->self_argv, nself * sizeof(*argv));
	argv[nself] = (char *)"--profile-child";
	argv[nself + 1] = b->name;
	argv[nself + 2] = (char *)"--profile-time";
	argv[nself + 3] = seconds;
	ro.argv = argv;
	r = pmc_profile_record(&ro, ret, &sr, err, errlen);
	if (r == 0 && (sr.exit_code || sr.term_signal || sr.timed_out)) {
		pmc_err_set(err, errlen, "'%s' failed while it was profiled (%s %d)", b->name,
			    sr.timed_out     ? "timed out;"
			    : sr.term_signal ? "signal"
					     : "exit status",
			    sr.term_signal ? sr.term_signal : sr.exit_code);
		pmc_profile_free(*ret);
		*ret = NULL;
		r = -ECHILD;
	}
	free(argv);
	return r;
}

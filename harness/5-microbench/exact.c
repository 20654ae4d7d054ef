/* Exact counts per operation in a backend's exact mode (docs/microbench.md, "Exact
 * counts: the valgrind backend"), through its operations (counters/backend.h: marks):
 * the benchmark program runs itself again under the backend with counting off; that
 * child runs the benchmark's loop at n and 2n iterations and the empty loop at n and 2n,
 * counting on only between each loop's two edges, and dumps the counts after each.
 * (count(2n) - count(n)) / n cancels every fixed cost exactly (the edges, the toggles,
 * setup and teardown); subtracting the figure of the empty loop of the same form (while
 * (pmc_loop(s)), PMC_LOOP, C++'s range loop: each has its own bookkeeping per iteration)
 * the same way leaves the body alone. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "counters/backend.h"
#include "core/derive.h"
#include "core/result.h"
#include "microbench/microbench.h"
#include "profile/marked.h"
#include "profile/profile.h"
#include "run/spawn.h"

/* n, the batch size: a power of two (so that count / n is exact in a double) up to this,
 * chosen from the instructions of one iteration so that a batch executes at most
 * VG_BUDGET instructions. Counts, unlike times, are the same on every run, and so is n. */
#define VG_MAX_ITERS 1024
#define VG_BUDGET 10000000.0

/* ---- the child, under the backend ---- */

/* The report the child leaves for its parent: one line, "ok N", "skipped MESSAGE" or
 * "error MESSAGE". */
static int write_report(const char *path, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int write_report(const char *path, const char *fmt, ...)
{
	FILE *f = fopen(path, "we");
	va_list ap;
	int r = 0;

	if (!f)
		return -errno;
	va_start(ap, fmt);
	if (vfprintf(f, fmt, ap) < 0)
		r = -EIO;
	va_end(ap);
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	return r;
}

int pmc_mb_exact_child(const struct pmc_backend_ops *be, const struct pmc_mb_bench *b, uint64_t n,
		       const char *report)
{
	static const char *const dumps[PMC_MB_EXACT_DUMPS] = {
	    "body n",	"body 2n",  "empty n",	   "empty 2n",
	    "pairs p1", "pairs p2", "libempty p1", "libempty p2"};
	struct pmc_mb_batch_out first = {0}, out = {0};
	char err[512] = "";
	uint64_t pauses[2] = {0, 0};
	void *fixture = NULL;
	int r;

	/* The fixture once, outside collection; then one uncounted batch warms the caches
	 * and branch predictors the simulator models, and says which form the loop is
	 * written in: the empty loop subtracted is the one of that form. */
	pmc_mb_once(b, true, &fixture);
	r = pmc_mb_batch(b, PMC_MB_BODY, n, NULL, &fixture, &first, err, sizeof(err));
	for (int k = 0; r == 0 && !first.skipped && k < 4; k++) {
		be->mark_zero();
		r = pmc_mb_batch(b, k >= 2 ? first.form : PMC_MB_BODY, k % 2 ? 2 * n : n, be,
				 &fixture, &out, err, sizeof(err));
		free(out.message);
		if (r == 0 && k < 2)
			pauses[k] = out.pauses;
		be->mark_dump(dumps[k]);
	}
	/* What the body's pairs left counted, at as many pairs as it made at n and at 2n: a
	 * pair per iteration less the same loop without them, as for the body. */
	for (int k = 0; r == 0 && !first.skipped && pauses[1] > pauses[0] && k < 4; k++) {
		be->mark_zero();
		r = pmc_mb_pause_batch(b, pauses[k % 2], k >= 2, be, err, sizeof(err));
		be->mark_dump(dumps[4 + k]);
	}
	pmc_mb_once(b, false, &fixture);
	if (r < 0)
		r = write_report(report, "error %s\n", err);
	else if (first.skipped)
		r = write_report(report, "skipped %s\n", first.message ? first.message : "");
	else if (pauses[1] > pauses[0])
		r = write_report(report, "ok %llu %llu %llu\n", (unsigned long long)n,
				 (unsigned long long)pauses[0], (unsigned long long)pauses[1]);
	else
		r = write_report(report, "ok %llu\n", (unsigned long long)n);
	free(first.message);
	return r;
}

int pmc_mb_exact_child_absent(const char *name, const char *program, const char *report)
{
	return write_report(report, "error '%s' is not in this build (%s)\n", name, program);
}

/* ---- the parent ---- */

void pmc_mb_exact_free(struct pmc_mb_exact *x)
{
	if (!x)
		return;
	free(x->message);
	for (size_t i = 0; x->ids && i < x->nmetrics; i++)
		free(x->ids[i]);
	free(x->ids);
	free(x->counts);
	pmc_profile_free(x->profile);
	memset(x, 0, sizeof(*x));
}

/* Reads the child's report into x; -EPROTO when it says nothing we know. */
static int read_report(const char *path, const char *name, const char *under,
		       struct pmc_mb_exact *x, char *err, size_t errlen)
{
	char line[1024], *nl;
	unsigned long long n, p0 = 0, p1 = 0;
	FILE *f = fopen(path, "re");
	int r = 0;

	if (!f || !fgets(line, sizeof(line), f)) {
		if (f)
			fclose(f);
		pmc_err_set(err, errlen, "'%s' under %s ended without a report", name, under);
		return -EPROTO;
	}
	fclose(f);
	nl = strchr(line, '\n');
	if (nl)
		*nl = '\0';
	if (sscanf(line, "ok %llu %llu %llu", &n, &p0, &p1) >= 1 && n > 0 && n <= VG_MAX_ITERS &&
	    p0 <= p1) {
		x->iters = n;
		x->pauses[0] = p0;
		x->pauses[1] = p1;
	} else if (strncmp(line, "skipped ", 8) == 0) {
		x->skipped = true;
		x->message = line[8] ? strdup(line + 8) : NULL;
	} else if (strncmp(line, "error ", 6) == 0) {
		pmc_err_set(err, errlen, "%s", line + 6);
		r = -EINVAL;
	} else {
		pmc_err_set(err, errlen, "'%s' under %s left a report we cannot read: %s", name,
			    under, line);
		r = -EPROTO;
	}
	return r;
}

/* A signal stopped the run (pmc_mb_exact_opts.stop). */
static bool so_stopped(const struct pmc_mb_exact_opts *o)
{
	return o->stop && *o->stop;
}

/* What the messages say the benchmark ran under: the backend's wrapper ("valgrind"). */
static const char *under(const struct pmc_backend_ops *be)
{
	return be->wrapper ? be->wrapper : be->name;
}

/* An empty file for the child's report (in $TMPDIR, else /tmp) into *ret. */
static int report_new(char **ret)
{
	const char *tmp = getenv("TMPDIR");
	int fd;

	if (asprintf(ret, "%s/pmcbench-exact-XXXXXX", tmp && tmp[0] ? tmp : "/tmp") < 0) {
		*ret = NULL;
		return -ENOMEM;
	}
	fd = mkstemp(*ret);
	if (fd < 0) {
		int r = -errno;

		free(*ret);
		*ret = NULL;
		return r;
	}
	close(fd);
	return 0;
}

/* Whether the child wrote its report (it starts empty). */
static bool reported(const char *report)
{
	struct stat st;

	return stat(report, &st) == 0 && st.st_size > 0;
}

/* The command under the backend: this program with the child's options at n. */
static int child_argv(const struct pmc_mb_bench *b, const struct pmc_mb_exact_opts *o, uint64_t n,
		      const char *report, char iters[24], char ***ret)
{
	size_t nself = 0;
	char **target;

	while (o->self_argv[nself])
		nself++;
	target = calloc(nself + 9, sizeof(*target));
	if (!target)
		return -ENOMEM;
	snprintf(iters, 24, "%llu", (unsigned long long)n);
	memcpy(target, o->self_argv, nself * sizeof(*target));
	target[nself] = (char *)"--backend";
	target[nself + 1] = (char *)o->backend->name;
	target[nself + 2] = (char *)"--valgrind-child";
	target[nself + 3] = b->name;
	target[nself + 4] = (char *)"--valgrind-report";
	target[nself + 5] = (char *)report;
	target[nself + 6] = (char *)"--valgrind-iters";
	target[nself + 7] = iters;
	*ret = target;
	return 0;
}

/* How a child that did not finish ended, in err: -ECHILD. */
static int child_failed(const struct pmc_mb_bench *b, const struct pmc_mb_exact_opts *o,
			const struct pmc_backend_run *run, const struct pmc_spawn_result *sr,
			char *err, size_t errlen)
{
	const struct pmc_backend_ops *be = o->backend;
	char why[256] = "";

	if (be->run_failure(run, why, sizeof(why)) < 0)
		why[0] = '\0';
	if (sr->timed_out)
		pmc_err_set(err, errlen, "'%s' under %s timed out after %g s%s", b->name, under(be),
			    pmc_mb_timeout(o->timeout_s, 0),
			    o->timeout_s == 0 ? " (the default; --timeout sets another)" : "");
	else if (sr->term_signal)
		pmc_err_set(err, errlen, "'%s' crashed under %s: killed by signal %d (%s)%s%s",
			    b->name, under(be), sr->term_signal, strsignal(sr->term_signal),
			    why[0] ? ": " : "", why);
	else if (why[0])
		/* The backend's own failure, not the benchmark's. */
		pmc_err_set(err, errlen, "'%s': %s failed (status %d): %s", b->name, under(be),
			    sr->exit_code, why);
	else
		pmc_err_set(err, errlen,
			    "'%s' exited with status %d under %s before it finished (a benchmark "
			    "must not call exit)",
			    b->name, sr->exit_code, under(be));
	return -ECHILD;
}

/* Spawns the backend's command of run, this program's child, and judges how it ended. */
static int spawn_child(const struct pmc_mb_bench *b, const struct pmc_mb_exact_opts *o,
		       const struct pmc_backend_run *run, const char *report, char *err,
		       size_t errlen)
{
	const struct pmc_backend_ops *be = o->backend;
	struct pmc_spawn_opts so = {
	    .argv = be->run_argv(run),
	    .timeout_s = pmc_mb_timeout(o->timeout_s, 0),
	    .no_aslr = true, /* identical runs give identical counts */
	    .show_output = o->show_output,
	    .die_with_parent = true, /* never outlives the benchmark program */
	    /* The signal handler's slot (docs/microbench.md, "Interrupted"). */
	    .running = o->running,
	    .stop = (volatile sig_atomic_t *)o->stop,
	};
	struct pmc_spawn_result sr = {0};
	int r = pmc_spawn_run(&so, &sr);

	if (r == 0 && so_stopped(o)) {
		pmc_err_set(err, errlen, "'%s' was stopped by signal %d", b->name, (int)*o->stop);
		return -EINTR;
	}
	if (r < 0) {
		pmc_err_set(err, errlen, "'%s': cannot run %s: %s", b->name, under(be),
			    strerror(-r));
		return r;
	}
	if (sr.exit_code != 0 || sr.term_signal || sr.timed_out)
		return child_failed(b, o, run, &sr, err, errlen);
	if (!reported(report)) {
		pmc_err_set(err, errlen,
			    "'%s' exited with status 0 under %s before it finished (a benchmark "
			    "must not call exit)",
			    b->name, under(be));
		return -ECHILD;
	}
	return 0;
}

/* The readings of the run's dumps into x (want of them). */
static int read_dumps(const struct pmc_mb_bench *b, const struct pmc_backend_ops *be,
		      const struct pmc_backend_run *run, size_t want, struct pmc_mb_exact *x,
		      char *err, size_t errlen)
{
	char why[512] = "";
	size_t got = be->run_dumps(run);
	int r;

	if (got != want) {
		pmc_err_set(err, errlen, "'%s' under %s wrote %zu of its %zu dumps", b->name,
			    under(be), got, want);
		return -EPROTO;
	}
	x->counts = calloc(want * x->nmetrics, sizeof(*x->counts));
	if (!x->counts)
		return -ENOMEM;
	for (size_t k = 0; k < want; k++)
		for (size_t i = 0; i < x->nmetrics; i++) {
			r = be->run_dump_reading(run, k, i, &x->counts[k * x->nmetrics + i], why,
						 sizeof(why));
			if (r < 0) {
				pmc_err_set(err, errlen, "'%s': %s", b->name, why);
				return r;
			}
		}
	return 0;
}

/* The exact profile of the first dump, the body's loop at n. */
static int loop_profile(const struct pmc_mb_bench *b, const struct pmc_backend_ops *be,
			const struct pmc_backend_run *run, struct pmc_mb_exact *x, char *err,
			size_t errlen)
{
	int r = pmc_profile_marked(be, run, 0, b->name, &x->profile, err, errlen);

	if (r == -ENOENT) {
		pmc_err_set(err, errlen, "'%s' under %s wrote no profile of its loop", b->name,
			    under(be));
		return -EPROTO;
	}
	return r;
}

/* The backend's metrics, by id, into x. */
static int set_metrics(const struct pmc_backend_ops *be, const struct pmc_backend_session *s,
		       struct pmc_mb_exact *x)
{
	size_t n = be->nmetrics(s);

	x->ids = calloc(n + 1, sizeof(*x->ids));
	if (!x->ids)
		return -ENOMEM;
	x->nmetrics = n;
	for (size_t i = 0; i < n; i++)
		if (!(x->ids[i] = strdup(be->metric_id(s, i))))
			return -ENOMEM;
	return 0;
}

/* One run of the child at n under session s: its report and dumps into *x. */
static int run_child(const struct pmc_mb_bench *b, const struct pmc_mb_exact_opts *o,
		     struct pmc_backend_session *s, uint64_t n, struct pmc_mb_exact *x, char *err,
		     size_t errlen)
{
	const struct pmc_backend_ops *be = o->backend;
	struct pmc_backend_run *run = NULL;
	char *report = NULL, **target = NULL, iters[24], why[512] = "";
	int r = report_new(&report);

	if (r < 0) {
		pmc_err_set(err, errlen, "cannot create a file for the child's report: %s",
			    strerror(-r));
		return r;
	}
	r = child_argv(b, o, n, report, iters, &target);
	if (r == 0)
		r = be->run_new(s, true, target, b->name, &run, err, errlen);
	else
		pmc_err_set(err, errlen, "out of memory");
	if (r == 0)
		r = spawn_child(b, o, run, report, err, errlen);
	if (r == 0)
		r = read_report(report, b->name, under(be), x, err, errlen);
	if (r == 0 && !x->skipped && x->iters != n) {
		pmc_err_set(err, errlen, "'%s' under %s ran %llu iterations, not %llu", b->name,
			    under(be), (unsigned long long)x->iters, (unsigned long long)n);
		r = -EPROTO;
	}
	if (r == 0 && !x->skipped && (r = be->run_collect(run, why, sizeof(why))) < 0)
		pmc_err_set(err, errlen, "'%s': %s", b->name, why[0] ? why : strerror(-r));
	if (r == 0 && !x->skipped && (r = set_metrics(be, s, x)) < 0)
		pmc_err_set(err, errlen, "out of memory");
	if (r == 0 && !x->skipped)
		r = read_dumps(b, be, run, x->pauses[1] > x->pauses[0] ? PMC_MB_EXACT_DUMPS : 4, x,
			       err, errlen);
	if (r == 0 && !x->skipped && o->profile)
		r = loop_profile(b, be, run, x, err, errlen);
	be->run_free(run);
	unlink(report);
	free(report);
	free(target);
	return r;
}

/* The batch size for a body whose loop executes ir instructions per iteration. */
static uint64_t batch_size(uint64_t ir)
{
	uint64_t n = 1;

	while (n < VG_MAX_ITERS && (double)(2 * n) * (double)(ir ? ir : 1) <= VG_BUDGET)
		n *= 2;
	return n;
}

/* The instructions of one iteration of the body's loop in the probe at n = 1: the
 * difference of its dumps at 1 and 2 (0 without an "instructions" metric). */
static uint64_t probe_instructions(const struct pmc_mb_exact *p)
{
	for (size_t i = 0; i < p->nmetrics; i++) {
		const struct pmc_reading *v0 = &p->counts[i], *v1 = &p->counts[p->nmetrics + i];

		if (strcmp(p->ids[i], "instructions") == 0 && pmc_status_has_value(v0->status) &&
		    pmc_status_has_value(v1->status))
			return v1->value > v0->value ? v1->value - v0->value : 0;
	}
	return 0;
}

/* The backend's session of marked runs. */
static int exact_session(const struct pmc_mb_exact_opts *o, struct pmc_backend_session **ret,
			 char *err, size_t errlen)
{
	struct pmc_backend_opts bo = {
	    .program = o->program,
	    .marked = true,
	    .wrapper_args = o->profile ? pmc_profile_marked_args(o->backend) : NULL,
	};
	int r = o->backend->mark_check(err, errlen);

	if (r == 0 && (r = o->backend->session_new(&bo, ret)) < 0)
		pmc_err_set(err, errlen, "out of memory");
	return r;
}

int pmc_mb_measure_exact(const struct pmc_mb_bench *b, const struct pmc_mb_exact_opts *o,
			 struct pmc_mb_exact *ret, char *err, size_t errlen)
{
	struct pmc_mb_exact probe = {0}, x = {0};
	struct pmc_mb_exact_opts po;
	struct pmc_backend_session *s = NULL, *ps = NULL;
	int r;

	if (!b || !ret || !o || !o->backend || !o->self_argv || !o->self_argv[0]) {
		pmc_err_set(err, errlen,
			    "no benchmark, no backend, or no command to run it again under one");
		return -EINVAL;
	}
	/* A probe at n = 1 counts one iteration's instructions, which choose n (and needs no
	 * profile). */
	po = *o;
	po.profile = false;
	r = exact_session(&po, &ps, err, errlen);
	if (r == 0)
		r = run_child(b, &po, ps, 1, &probe, err, errlen);
	if (ps)
		o->backend->session_free(ps);
	if (r == 0 && probe.skipped) {
		*ret = probe;
		return 0;
	}
	if (r == 0)
		r = exact_session(o, &s, err, errlen);
	if (r == 0)
		r = run_child(b, o, s, batch_size(probe_instructions(&probe)), &x, err, errlen);
	pmc_mb_exact_free(&probe);
	if (s)
		o->backend->session_free(s);
	if (r < 0) {
		pmc_mb_exact_free(&x);
		return r;
	}
	*ret = x;
	return 0;
}

int pmc_mb_exact_count(const struct pmc_mb_exact *x, size_t metric, uint64_t *ret,
		       uint64_t *ret_below, char *err, size_t errlen)
{
	uint64_t v[PMC_MB_EXACT_DUMPS] = {0};
	int64_t body, empty, pairs, d;
	int nk = x->pauses[1] > x->pauses[0] ? PMC_MB_EXACT_DUMPS : 4;

	if (metric >= x->nmetrics)
		return -EINVAL;
	for (int k = 0; k < nk; k++) {
		const struct pmc_reading *rd = &x->counts[(size_t)k * x->nmetrics + metric];

		/* Not simulated (cache or branch simulation off): absent, never 0. */
		if (!pmc_status_has_value(rd->status))
			return -ENODATA;
		if (rd->value > INT64_MAX) {
			pmc_err_set(err, errlen, "%s: a count above 2^63 - 1", x->ids[metric]);
			return -ERANGE;
		}
		v[k] = rd->value;
	}
	/* Counts fit in int64_t (checked above); so do the differences of two of them. */
	body = (int64_t)v[1] - (int64_t)v[0];
	empty = (int64_t)v[3] - (int64_t)v[2];
	/* The body's extra pairs at 2n left what as many pairs of the pair loop leave. */
	pairs = ((int64_t)v[5] - (int64_t)v[4]) - ((int64_t)v[7] - (int64_t)v[6]);
	if (__builtin_sub_overflow(body, pairs, &body)) {
		pmc_err_set(err, errlen, "%s: the differences of the counts overflow",
			    x->ids[metric]);
		return -ERANGE;
	}
	if (__builtin_sub_overflow(body, empty, &d)) {
		pmc_err_set(err, errlen, "%s: the differences of the counts overflow",
			    x->ids[metric]);
		return -ERANGE;
	}
	/* A cost is never negative: the body's loop may cost less than the empty one when
	 * the compiler folds the loop's bookkeeping into the body's instructions, or the
	 * simulated caches' state differs by a few misses. The caller says so. */
	*ret = d > 0 ? (uint64_t)d : 0;
	if (ret_below)
		*ret_below = d < 0 ? (uint64_t)-d : 0;
	return 0;
}

int pmc_mb_record_exact(const struct pmc_mb_bench *b, const struct pmc_mb_exact *x,
			struct pmc_result *res, char *err, size_t errlen)
{
	struct pmc_run_info info = {.exit_code = 0, .iterations = x->iters};
	struct pmc_benchmark *bm;
	char id[64];
	int r;

	if (x->skipped)
		return pmc_mb_record_skipped(b, x->message, res, err, errlen);
	r = pmc_result_add_benchmark(res, b->name, NULL, &bm);
	if (r == 0)
		r = pmc_mb_record_params(b, bm);
	if (r == 0)
		r = pmc_benchmark_add_run(bm, &info);
	for (size_t i = 0; r == 0 && i < x->nmetrics; i++) {
		struct pmc_reading rd = {.status = PMC_STATUS_EXACT};
		struct pmc_metric *m;
		uint64_t below = 0;
		double v = NAN;

		snprintf(id, sizeof(id), "%s/op", x->ids[i]);
		r = pmc_benchmark_metric(bm, id, &m);
		if (r < 0)
			break;
		m->simulated = true;
		r = pmc_mb_exact_count(x, i, &rd.value, &below, err, errlen);
		if (r == 0 && below) {
			char note[200];

			snprintf(note, sizeof(note),
				 "clamped to 0: the body's loop counted %" PRIu64 " fewer than "
				 "the empty loop over %" PRIu64 " iterations",
				 below, x->iters);
			r = pmc_metric_set_note(m, note);
			if (r < 0)
				break;
		}
		if (r == -ENODATA) {
			/* Not simulated (cache or branch simulation off): absent, never 0. */
			rd = (struct pmc_reading){.status = PMC_STATUS_UNSUPPORTED,
						  .error = ENODATA};
			r = 0;
		} else if (r == 0) {
			/* n is a power of two: the quotient is exact. */
			v = rd.scaled = (double)rd.value / (double)x->iters;
		} else {
			return r;
		}
		r = pmc_metric_append(m, v, &rd);
	}
	if (r == 0) {
		struct pmc_derive_opts dopts = {.input_suffix = "/op"};

		r = pmc_benchmark_derive(bm, &dopts);
	}
	if (r < 0)
		pmc_err_set(err, errlen, "'%s': cannot record the counts: %s", b->name,
			    strerror(-r));
	return r;
}

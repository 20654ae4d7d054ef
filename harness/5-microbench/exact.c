/* Exact counts per operation under valgrind (docs/microbench.md, "Exact counts: the
 * valgrind backend"). The benchmark program runs itself again under callgrind with
 * collection off; that child runs the benchmark's loop at n and 2n iterations and the
 * empty loop at n and 2n, collection on only between each loop's two edges, and dumps the
 * counts after each. (count(2n) - count(n)) / n cancels every fixed cost exactly (the
 * edges, the toggles, setup and teardown); subtracting the figure of the empty loop of
 * the same form (while (pmc_loop(s)), PMC_LOOP, C++'s range loop: each has its own
 * bookkeeping per iteration) the same way leaves the body alone. */
#include <errno.h>
#include <inttypes.h>
#include <glob.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "core/derive.h"
#include "core/result.h"
#include "microbench/microbench.h"
#include "profile/callgrind.h"
#include "profile/profile.h"
#include "run/spawn.h"

#ifdef PMC_HAVE_CALLGRIND_H
#include <valgrind/callgrind.h>
#endif

/* n, the batch size: a power of two (so that count / n is exact in a double) up to this,
 * chosen from the instructions of one iteration so that a batch executes at most
 * VG_BUDGET instructions. Counts, unlike times, are the same on every run, and so is n. */
#define VG_MAX_ITERS 1024
#define VG_BUDGET 10000000.0

void pmc_mb_vg_toggle_collect(void)
{
#ifdef PMC_HAVE_CALLGRIND_H
	CALLGRIND_TOGGLE_COLLECT;
#endif
}

/* Whether the library was built with valgrind's headers, without which the valgrind
 * backend cannot toggle callgrind's collection. */
static bool vg_available(void)
{
#ifdef PMC_HAVE_CALLGRIND_H
	return true;
#else
	return false;
#endif
}

static void vg_zero(void)
{
#ifdef PMC_HAVE_CALLGRIND_H
	CALLGRIND_ZERO_STATS;
#endif
}

static void vg_dump(const char *what)
{
#ifdef PMC_HAVE_CALLGRIND_H
	CALLGRIND_DUMP_STATS_AT(what);
#else
	(void)what;
#endif
}

/* ---- the child, under callgrind ---- */

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

int pmc_mb_valgrind_child(const struct pmc_mb_bench *b, uint64_t n, const char *report)
{
	static const char *const dumps[8] = {"body n",	 "body 2n",  "empty n",	    "empty 2n",
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
	r = pmc_mb_batch(b, PMC_MB_BODY, n, false, &fixture, &first, err, sizeof(err));
	for (int k = 0; r == 0 && !first.skipped && k < 4; k++) {
		vg_zero();
		r = pmc_mb_batch(b, k >= 2 ? first.form : PMC_MB_BODY, k % 2 ? 2 * n : n, true,
				 &fixture, &out, err, sizeof(err));
		free(out.message);
		if (r == 0 && k < 2)
			pauses[k] = out.pauses;
		vg_dump(dumps[k]);
	}
	/* What the body's pairs left counted, at as many pairs as it made at n and at 2n: a
	 * pair per iteration less the same loop without them, as for the body. */
	for (int k = 0; r == 0 && !first.skipped && pauses[1] > pauses[0] && k < 4; k++) {
		vg_zero();
		r = pmc_mb_pause_batch(b, pauses[k % 2], k >= 2, true, err, sizeof(err));
		vg_dump(dumps[4 + k]);
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

int pmc_mb_valgrind_child_absent(const char *name, const char *program, const char *report)
{
	return write_report(report, "error '%s' is not in this build (%s)\n", name, program);
}

/* ---- the parent ---- */

void pmc_mb_exact_free(struct pmc_mb_exact *x)
{
	if (!x)
		return;
	free(x->message);
	pmc_profile_free(x->profile);
	memset(x, 0, sizeof(*x));
}

/* Reads the child's report into x; -EPROTO when it says nothing we know. */
static int read_report(const char *path, const char *name, struct pmc_mb_exact *x, char *err,
		       size_t errlen)
{
	char line[1024], *nl;
	unsigned long long n, p0 = 0, p1 = 0;
	FILE *f = fopen(path, "re");
	int r = 0;

	if (!f || !fgets(line, sizeof(line), f)) {
		if (f)
			fclose(f);
		pmc_err_set(err, errlen, "'%s' under valgrind ended without a report", name);
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
		pmc_err_set(err, errlen, "'%s' under valgrind left a report we cannot read: %s",
			    name, line);
		r = -EPROTO;
	}
	return r;
}

/* A signal stopped the run (pmc_mb_valgrind_opts.stop). */
static bool so_stopped(const struct pmc_mb_valgrind_opts *o)
{
	return o->stop && *o->stop;
}

static int spawn_child(const struct pmc_mb_bench *b, const struct pmc_mb_valgrind_opts *o,
		       uint64_t n, const char *dir, const char *report, char *err, size_t errlen)
{
	struct pmc_valgrind_opts vo = {
	    .outdir = dir,
	    .valgrind = o->valgrind,
	    .tool = PMC_VALGRIND_CALLGRIND,
	    .no_children = true,
	    .collect_atstart_off = true,
	    .extra_args = o->profile ? pmc_callgrind_profile_args() : NULL,
	};
	struct pmc_spawn_result sr = {0};
	char **target = NULL, **argv = NULL, why[256] = "", iters[24];
	size_t nself = 0;
	int r;

	while (o->self_argv[nself])
		nself++;
	target = calloc(nself + 7, sizeof(*target));
	if (!target)
		return -ENOMEM;
	snprintf(iters, sizeof(iters), "%llu", (unsigned long long)n);
	memcpy(target, o->self_argv, nself * sizeof(*target));
	target[nself] = (char *)"--valgrind-child";
	target[nself + 1] = b->name;
	target[nself + 2] = (char *)"--valgrind-report";
	target[nself + 3] = (char *)report;
	target[nself + 4] = (char *)"--valgrind-iters";
	target[nself + 5] = iters;
	r = pmc_valgrind_argv(&vo, target, &argv);
	if (r < 0) {
		pmc_err_set(err, errlen, "'%s': cannot run %s under valgrind: %s", b->name,
			    o->self_argv[0], strerror(-r));
		goto out;
	}
	{
		struct pmc_spawn_opts so = {
		    .argv = argv,
		    .timeout_s = pmc_mb_timeout(o->timeout_s, 0),
		    .no_aslr = true, /* identical runs give identical counts */
		    .show_output = o->show_output,
		    .die_with_parent = true, /* never outlives the benchmark program */
		    /* The signal handler's slot (docs/microbench.md, "Interrupted"). */
		    .running = o->running,
		    .stop = (volatile sig_atomic_t *)o->stop,
		};

		r = pmc_spawn_run(&so, &sr);
	}
	if (r == 0 && so_stopped(o)) {
		pmc_err_set(err, errlen, "'%s' was stopped by signal %d", b->name, (int)*o->stop);
		r = -EINTR;
		goto out;
	}
	if (r < 0) {
		pmc_err_set(err, errlen, "'%s': cannot run valgrind: %s", b->name, strerror(-r));
		goto out;
	}
	if (sr.exit_code != 0 || sr.term_signal || sr.timed_out) {
		if (pmc_valgrind_log_error(dir, why, sizeof(why)) < 0)
			why[0] = '\0';
		if (sr.timed_out)
			pmc_err_set(err, errlen, "'%s' under valgrind timed out after %g s%s",
				    b->name, pmc_mb_timeout(o->timeout_s, 0),
				    o->timeout_s == 0 ? " (the default; --timeout sets another)"
						      : "");
		else if (sr.term_signal)
			pmc_err_set(err, errlen,
				    "'%s' crashed under valgrind: killed by signal %d (%s)%s%s",
				    b->name, sr.term_signal, strsignal(sr.term_signal),
				    why[0] ? ": " : "", why);
		else if (why[0])
			/* valgrind's own failure, not the benchmark's. */
			pmc_err_set(err, errlen, "'%s': valgrind failed (status %d): %s", b->name,
				    sr.exit_code, why);
		else
			pmc_err_set(err, errlen,
				    "'%s' exited with status %d under valgrind before it finished "
				    "(a benchmark must not call exit)",
				    b->name, sr.exit_code);
		r = -ECHILD;
	} else if (access(report, F_OK) < 0) {
		pmc_err_set(err, errlen,
			    "'%s' exited with status 0 under valgrind before it finished (a "
			    "benchmark must not call exit)",
			    b->name);
		r = -ECHILD;
	}
out:
	free(argv);
	free(target);
	return r;
}

/* The exact profile of the first dump, the body's loop at n (callgrind.out.PID.1: the
 * child is one process, and the numbered dumps are in request order). */
static int loop_profile(const struct pmc_mb_bench *b, const char *dir, struct pmc_mb_exact *x,
			char *err, size_t errlen)
{
	char *pattern = NULL;
	glob_t g = {0};
	int r;

	if (asprintf(&pattern, "%s/callgrind.out.*.1", dir) < 0)
		return -ENOMEM;
	if (glob(pattern, 0, NULL, &g) != 0 || g.gl_pathc != 1) {
		pmc_err_set(err, errlen, "'%s' under valgrind wrote no profile of its loop",
			    b->name);
		r = -EPROTO;
	} else {
		r = pmc_callgrind_profile((const char *const *)g.gl_pathv, 1, "Ir", b->name,
					  &x->profile, err, errlen);
	}
	globfree(&g);
	free(pattern);
	return r;
}

/* One run of the child at n: its report and dumps into *x. */
static int run_child(const struct pmc_mb_bench *b, const struct pmc_mb_valgrind_opts *o, uint64_t n,
		     struct pmc_mb_exact *x, char *err, size_t errlen)
{
	char *dir = NULL, *report = NULL;
	size_t ndumps = 0;
	int r;

	r = pmc_valgrind_outdir_new(NULL, &dir);
	if (r < 0) {
		pmc_err_set(err, errlen, "cannot create a directory for valgrind's output: %s",
			    strerror(-r));
		return r;
	}
	if (asprintf(&report, "%s/report", dir) < 0) {
		report = NULL;
		r = -ENOMEM;
		pmc_err_set(err, errlen, "out of memory");
		goto out;
	}
	r = spawn_child(b, o, n, dir, report, err, errlen);
	if (r == 0)
		r = read_report(report, b->name, x, err, errlen);
	if (r == 0 && !x->skipped && x->iters != n) {
		pmc_err_set(err, errlen, "'%s' under valgrind ran %llu iterations, not %llu",
			    b->name, (unsigned long long)x->iters, (unsigned long long)n);
		r = -EPROTO;
	}
	if (r == 0 && !x->skipped) {
		size_t want = x->pauses[1] > x->pauses[0] ? 8 : 4;

		r = pmc_valgrind_collect_dumps(dir, x->counts, want, &ndumps, err, errlen);
		if (r == 0 && ndumps != want) {
			pmc_err_set(err, errlen, "'%s' under valgrind wrote %zu of its %zu dumps",
				    b->name, ndumps, want);
			r = -EPROTO;
		}
	}
	if (r == 0 && !x->skipped && o->profile)
		r = loop_profile(b, dir, x, err, errlen);
out:
	if (report)
		unlink(report);
	pmc_valgrind_outdir_remove(dir);
	free(report);
	free(dir);
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

int pmc_mb_measure_valgrind(const struct pmc_mb_bench *b, const struct pmc_mb_valgrind_opts *o,
			    struct pmc_mb_exact *ret, char *err, size_t errlen)
{
	struct pmc_mb_exact probe = {0}, x = {0};
	uint64_t v0 = 0, v1 = 0;
	int r;

	if (!b || !ret || !o || !o->self_argv || !o->self_argv[0]) {
		pmc_err_set(err, errlen,
			    "no benchmark, or no command to run it again under valgrind");
		return -EINVAL;
	}
	if (!vg_available()) {
		pmc_err_set(err, errlen,
			    "this libpmcbench was built without valgrind's headers "
			    "(valgrind/callgrind.h); install valgrind and rebuild it");
		return -ENOTSUP;
	}
	/* A probe at n = 1 counts one iteration's instructions, which choose n (and needs no
	 * profile). */
	{
		struct pmc_mb_valgrind_opts po = *o;

		po.profile = false;
		r = run_child(b, &po, 1, &probe, err, errlen);
	}
	if (r == 0 && probe.skipped) {
		*ret = probe;
		return 0;
	}
	if (r == 0)
		r = pmc_valgrind_metric_value(&probe.counts[0], PMC_VG_M_INSTRUCTIONS, &v0, err,
					      errlen);
	if (r == 0)
		r = pmc_valgrind_metric_value(&probe.counts[1], PMC_VG_M_INSTRUCTIONS, &v1, err,
					      errlen);
	pmc_mb_exact_free(&probe);
	if (r == 0)
		r = run_child(b, o, batch_size(v1 > v0 ? v1 - v0 : 0), &x, err, errlen);
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
	uint64_t v[8] = {0};
	int64_t body, empty, pairs, d;
	int nk = x->pauses[1] > x->pauses[0] ? 8 : 4, r;

	for (int k = 0; k < nk; k++) {
		r = pmc_valgrind_metric_value(&x->counts[k], metric, &v[k], err, errlen);
		if (r < 0)
			return r;
	}
	/* Counts fit in int64_t (pmc_valgrind_metric_value refuses larger ones); so do the
	 * differences of two of them. */
	body = (int64_t)v[1] - (int64_t)v[0];
	empty = (int64_t)v[3] - (int64_t)v[2];
	/* The body's extra pairs at 2n left what as many pairs of the pair loop leave. */
	pairs = ((int64_t)v[5] - (int64_t)v[4]) - ((int64_t)v[7] - (int64_t)v[6]);
	if (__builtin_sub_overflow(body, pairs, &body)) {
		pmc_err_set(err, errlen, "%s: the differences of the counts overflow",
			    pmc_valgrind_metric_id(metric));
		return -ERANGE;
	}
	if (__builtin_sub_overflow(body, empty, &d)) {
		pmc_err_set(err, errlen, "%s: the differences of the counts overflow",
			    pmc_valgrind_metric_id(metric));
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
	for (size_t i = 0; r == 0 && i < pmc_valgrind_metric_count(); i++) {
		struct pmc_reading rd = {.status = PMC_STATUS_EXACT};
		struct pmc_metric *m;
		uint64_t below = 0;
		double v = NAN;

		snprintf(id, sizeof(id), "%s/op", pmc_valgrind_metric_id(i));
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

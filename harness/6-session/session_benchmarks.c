/* A session's registered benchmarks (session_priv.h): each run in processes of its own,
 * every new start of this program, interleaved across the benchmarks (harness/5-microbench/),
 * or once each in the backend's exact mode (under valgrind); then their samples into the
 * result. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/result.h"
#include "microbench/microbench.h"
#include "session/session_priv.h"

/* One benchmark in the backend's exact mode: exact counts per operation, and with
 * --profile the exact profile of its loop, kept in ps. */
static int run_exact(const struct pmc_mb_bench *b, const struct pmc_mb_exact_opts *vo,
		     struct pmc_result *res, struct pmc_session_profiles *ps, bool *ret_skipped,
		     char **ret_message, const struct pmc_session_printer *pr, char *err,
		     size_t errlen)
{
	struct pmc_mb_exact x = {0};
	int r = pmc_mb_measure_exact(b, vo, &x, err, errlen);

	if (r == 0)
		r = pmc_mb_record_exact(b, &x, res, err, errlen);
	/* A profile that cannot be saved is a warning: the counts stand without it. */
	if (r == 0 && x.profile && ps) {
		pmc_session_profiles_keep(ps, b->name, b->name, x.profile, pr);
		x.profile = NULL; /* the profiles' now, even when it could not be saved */
	}
	*ret_skipped = x.skipped;
	*ret_message = x.message;
	x.message = NULL;
	pmc_mb_exact_free(&x);
	return r;
}

/* The samples process p (from 0) of np takes when n are shared out: the first n % np
 * processes take one more. */
static size_t share(size_t n, size_t np, size_t p)
{
	return n / np + (p < n % np ? 1 : 0);
}

/* What run_all knows of one benchmark while its processes run. */
struct mb_state {
	struct pmc_mb_samples s; /* merged over the processes so far */
	bool done, failed;
};

/* Benchmark b's samples: its definition's repetitions, else -r's. */
static size_t samples_of(const struct pmc_session_cfg *cfg, const struct pmc_mb_bench *b)
{
	return b->def.repetitions ? b->def.repetitions : cfg->mo.samples;
}

/* Benchmark b's processes: --processes', never more than its samples. */
static size_t processes_of(const struct pmc_session_cfg *cfg, const struct pmc_mb_bench *b)
{
	size_t np = cfg->no_fork ? 1 : cfg->processes ? cfg->processes : PMC_SESSION_MB_PROCESSES;

	return np < samples_of(cfg, b) ? np : samples_of(cfg, b);
}

/* Whether the report on stdout writes the notes of wall-time/op (the brief and the
 * detailed tables do, under it). */
static bool report_shows_notes(const struct pmc_session_cfg *cfg)
{
	return cfg->out && cfg->format &&
	       (strcmp(cfg->format, "brief") == 0 || strcmp(cfg->format, "table") == 0);
}

/* Process p of benchmark i: calibrated in the first process, at its batch size in the
 * others; each measures the empty loop beside its samples, the pairs that tell a body
 * from it (pmc_mb_empty_like), and the first one's is the loop's cost reported. */
static int run_process(const struct pmc_session_cfg *cfg, const struct pmc_mb_bench *b, size_t p,
		       size_t np, struct mb_state *st, const struct pmc_event_list *events,
		       char *const *self, char *err, size_t errlen)
{
	struct pmc_mb_opts o = cfg->mo;
	struct pmc_mb_samples s = {0};
	int r;

	o.events = events;
	o.backend = pmc_backend_get(cfg->ro.backend);
	o.user_only_fallback = true;
	o.samples = share(samples_of(cfg, b), np, p);
	o.iters = p ? st->s.iters : cfg->mo.iters; /* 0: calibrated; --min-time Nx */
	o.no_overhead = false;
	o.self_argv = self;
	/* The signal handler's slot (docs/microbench.md, "Interrupted"). */
	o.running = cfg->ro.running;
	o.stop = cfg->ro.stop;
	r = cfg->no_fork ? pmc_mb_measure(b, &o, &s, err, errlen)
			 : pmc_mb_measure_forked(b, &o, &s, err, errlen);
	if (r == 0 && s.skipped) {
		/* A skip ends the benchmark: it measured nothing (docs/result-schema.md). */
		pmc_mb_samples_free(&st->s);
		st->s = s;
		st->done = true;
		return 0;
	}
	if (r == 0 && (r = pmc_mb_samples_merge(&st->s, &s, (unsigned)(p + 1))) < 0)
		snprintf(err, errlen, "'%s': cannot keep the samples of its process %zu: %s",
			 b->name, p + 1, strerror(-r));
	pmc_mb_samples_free(&s);
	return r;
}

static void report_progress(const struct pmc_session_cfg *cfg, const struct pmc_session_progress *p)
{
	if (cfg->progress && !cfg->quiet)
		cfg->progress(p, cfg->progress_ud);
}

/* Marks res incomplete when a signal stopped the run in process p (from 0) of np, which
 * the benchmarks before i had finished. Returns 0 or -ENOMEM. */
static int mark_stopped(struct pmc_result *res, int sig, size_t p, size_t np, size_t i, size_t n)
{
	int k = np > 1 ? asprintf(&res->incomplete,
				  "stopped by signal %d (%s) in process %zu of %zu: each "
				  "benchmark has the runs of its processes that finished",
				  sig, strsignal(sig), p + 1, np)
		       : asprintf(&res->incomplete,
				  "stopped by signal %d (%s) after %zu of %zu benchmarks", sig,
				  strsignal(sig), i, n);

	if (k < 0) {
		res->incomplete = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* The benchmark that runs at position at of round p (from 0): the set's order, with the
 * benchmarks of each group of builds (pmc_mb_set_add_build) rotated by p, so that each
 * build goes first in turn, as the runner rotates commands (harness/3-run/runner.h). */
static size_t in_turn(const struct pmc_mb_set *set, size_t p, size_t at)
{
	size_t lead = at, g;

	/* The members of a group follow its lead, whose group is its size. */
	while (lead > 0 && set->v[lead].group == 0 && set->v[lead].label_len)
		lead--;
	g = set->v[lead].group ? set->v[lead].group : 1;
	return lead + (at - lead + p) % g;
}

/* Which of the session's commands (pmc_session_benchmarks.self, proc_self) runs b: 1 for
 * this program's benchmarks when two builds of a program are compared, else 0. */
static size_t build_of(const struct pmc_session_cfg *cfg, const struct pmc_mb_bench *b)
{
	size_t len = cfg->other_program ? strlen(cfg->labels[0]) : 0;

	return cfg->other_program &&
	       !(b->label_len == len && strncmp(b->name, cfg->labels[0], len) == 0);
}

/* The commands of the builds: one, or two for two builds of a program. */
static size_t nbuilds(const struct pmc_session_cfg *cfg)
{
	return cfg->other_program ? 2 : 1;
}

/* Runs every benchmark in processes of its own, the first process of each benchmark,
 * then the second of each, and so on, so that what changes on the machine meanwhile is
 * spread over all of them (or every one in this process with no_fork; in the exact
 * mode with vo, once each), each through its build's command of sb, whose reads it adds up.
 * One that fails is reported and the others go on. A signal (*cfg->ro.stop) ends the
 * run: the processes that finished are recorded, and res is marked incomplete. Returns
 * the number that failed. */
static size_t run_all(const struct pmc_session_cfg *cfg, const struct pmc_event_list *events,
		      const struct pmc_mb_exact_opts *vo, struct pmc_result *res,
		      struct pmc_session_profiles *ps, struct pmc_session_benchmarks *sb)
{
	const struct pmc_mb_set *set = cfg->benchmarks;
	const struct pmc_session_printer *pr = &cfg->pr;
	size_t np = 1, failed = 0; /* the most processes of a benchmark */
	bool stopped = false;
	struct mb_state *st = calloc(set->n + 1, sizeof(*st));
	char err[1024];
	int r;

	if (!st) {
		pmc_session_say(pr, PMC_SESSION_ERROR, "out of memory");
		return set->n;
	}
	for (size_t i = 0; i < set->n && !vo; i++)
		np = processes_of(cfg, &set->v[i]) > np ? processes_of(cfg, &set->v[i]) : np;
	for (size_t p = 0; p < np && !stopped; p++) {
		for (size_t at = 0; at < set->n && !stopped; at++) {
			size_t i = in_turn(set, p, at);
			const struct pmc_mb_bench *b = &set->v[i];
			/* A benchmark of fewer repetitions than another has fewer processes. */
			size_t bnp = vo ? 1 : processes_of(cfg, b);

			if (st[i].done || p >= bnp)
				continue;
			report_progress(cfg, &(struct pmc_session_progress){.name = b->name,
									    .run = at + 1,
									    .runs = set->n,
									    .process = p + 1,
									    .processes = bnp,
									    .left_s = -1,
									    .median = NAN});
			err[0] = '\0';
			if (vo) {
				struct pmc_mb_exact_opts bvo = *vo;
				bool skipped = false;

				bvo.self_argv = sb->self[build_of(cfg, b)];
				r = run_exact(b, &bvo, res, ps, &skipped, &st[i].s.message, pr, err,
					      sizeof(err));
				st[i].s.skipped = skipped;
				st[i].done = true;
			} else {
				r = run_process(cfg, b, p, bnp, &st[i], events,
						sb->proc_self[build_of(cfg, b)], err, sizeof(err));
			}
			report_progress(cfg, &(struct pmc_session_progress){
						 .done = true, .processes = bnp, .median = NAN});
			if (r == -EINTR) {
				stopped = true;
				if (mark_stopped(res, (int)*cfg->ro.stop, p, bnp, i, set->n) < 0) {
					pmc_session_say(pr, PMC_SESSION_ERROR, "out of memory");
					failed++;
				}
				continue;
			}
			if (r < 0) {
				pmc_session_say(pr, PMC_SESSION_ERROR, "%s", err);
				st[i].failed = st[i].done = true;
				failed++;
			}
		}
	}
	for (size_t i = 0; i < set->n; i++) {
		const struct pmc_mb_bench *b = &set->v[i];

		/* Stopped before its first process finished: nothing to record. */
		if (st[i].failed || (stopped && !st[i].s.n && !st[i].s.skipped))
			goto next;
		if (!vo && pmc_mb_record(b, &st[i].s, events, res, err, sizeof(err)) < 0) {
			pmc_session_say(pr, PMC_SESSION_ERROR, "%s", err);
			failed++;
		} else if (st[i].s.skipped) {
			pmc_session_say(pr, PMC_SESSION_NOTE, "'%s' skipped itself: %s", b->name,
					st[i].s.message ? st[i].s.message : "no reason given");
		} else if (!vo && !report_shows_notes(cfg) &&
			   pmc_mb_empty_like(&st[i].s, err, sizeof(err)) == 1) {
			/* The note of wall-time/op, said once: here when the report does not. */
			pmc_session_say(pr, PMC_SESSION_WARN, "'%s': %s", b->name, err);
		}
	next:
		sb->reads[0] += st[i].s.reads_self;
		sb->reads[1] += st[i].s.reads_sys;
		pmc_mb_samples_free(&st[i].s);
	}
	free(st);
	return failed;
}

/* Two builds, or benchmarks against a reference: round r is the r-th process of every
 * benchmark (under valgrind, the one run), which run_all takes one after the other
 * (in_turn), so the runs of a round pair up across the builds or with the reference's
 * (docs/result-schema.md, "design"). Returns 0 or -ENOMEM. */
static int in_rounds(struct pmc_result *res)
{
	size_t rounds = 0;

	for (size_t i = 0; i < res->nbench; i++)
		for (size_t k = 0; k < res->benchmarks[i].nruns; k++) {
			struct pmc_run_info *run = &res->benchmarks[i].runs[k];

			run->round = run->process ? run->process : 1;
			if (run->round > rounds)
				rounds = run->round;
		}
	res->design.rounds = rounds;
	res->design.mode = strdup("interleaved");
	return res->design.mode ? 0 : -ENOMEM;
}

/* How the counters were read at the batch edges (docs/result-schema.md, "Environment"):
 * counter-read is rdpmc, read or rdpmc+read; counter-reads says how many group reads
 * went each way. */
static int set_read_method(struct pmc_result *res, const struct pmc_session_cfg *cfg,
			   const uint64_t reads[2])
{
	char buf[128];
	const char *method = reads[0] && reads[1] ? "rdpmc+read" : reads[0] ? "rdpmc" : "read";

	if (reads[0] + reads[1] == 0)
		return 0;
	snprintf(buf, sizeof(buf), "%" PRIu64 " rdpmc, %" PRIu64 " read()%s", reads[0], reads[1],
		 cfg->mo.no_self_read ? " (--no-rdpmc)" : "");
	if (pmc_result_set_env(res, "counter-read", method) < 0 ||
	    pmc_result_set_env(res, "counter-reads", buf) < 0)
		return -ENOMEM;
	return 0;
}

/* The command that runs this program again, for the valgrind backend and the
 * benchmarks' processes: its path (what /proc/self/exe links to; under valgrind that
 * link would name valgrind), then "run" and "--library PATH" for each shared object
 * pmcbench runs, each after "-n LABEL" when it is one of two builds, then the nargs
 * options of args (the processes take the user's). Of two builds of a program, build's
 * executable (0: the other program, 1: this one) and "--build-label LABEL" instead: the
 * two name their benchmarks as this program does. */
static int self_argv(const struct pmc_session_cfg *cfg, size_t build, char *const *args,
		     size_t nargs, char ***ret)
{
	char **v = calloc(5 + 4 * cfg->nlibraries + nargs, sizeof(*v));
	char *exe = NULL;
	size_t n = 1;

	if (v)
		exe = cfg->other_program && build == 0 ? strdup(cfg->other_program)
						       : realpath("/proc/self/exe", NULL);
	if (!exe) {
		free(v);
		return -errno;
	}
	v[0] = exe;
	if (cfg->nlibraries)
		v[n++] = (char *)"run";
	for (size_t i = 0; i < cfg->nlibraries; i++) {
		if (cfg->labels) {
			v[n++] = (char *)"-n";
			v[n++] = (char *)cfg->labels[i];
		}
		v[n++] = (char *)"--library";
		v[n++] = (char *)cfg->libraries[i];
	}
	if (cfg->other_program) {
		v[n++] = (char *)"--build-label";
		v[n++] = (char *)cfg->labels[build];
	}
	for (size_t i = 0; i < nargs; i++)
		v[n++] = args[i];
	*ret = v;
	return 0;
}

static void self_argv_free(char **v)
{
	if (v)
		free(v[0]);
	free(v);
}

/* --profile: a profile of each benchmark's loop, saved beside the result. A profile
 * never fails the run (docs/profile.md): every problem is a warning, and the others go
 * on. */
static void profile_all(const struct pmc_session_cfg *cfg, const struct pmc_result *res,
			struct pmc_session_profiles *ps)
{
	const struct pmc_mb_set *set = cfg->benchmarks;
	struct pmc_mb_profile_opts po = {.sz = sizeof(po), .timeout_s = cfg->mo.timeout_s};
	char **self[2] = {NULL, NULL}, err[1024];
	int r = 0;

	for (size_t k = 0; r == 0 && k < nbuilds(cfg); k++)
		r = self_argv(cfg, k, NULL, 0, &self[k]);
	if (r < 0) {
		pmc_session_say(&cfg->pr, PMC_SESSION_WARN,
				"--profile: cannot find this program's path: %s; no profiles are "
				"recorded",
				strerror(-r));
		goto out;
	}
	pmc_session_profiles_open_dir(ps, cfg->output, &cfg->pr);
	for (size_t i = 0; i < set->n; i++) {
		const struct pmc_benchmark *b = pmc_result_find_benchmark(res, set->v[i].name);
		struct pmc_profile *p = NULL;

		/* A benchmark that failed or skipped itself has nothing to profile. */
		if (!b || pmc_benchmark_skipped(b))
			continue;
		po.self_argv = self[build_of(cfg, &set->v[i])];
		r = pmc_mb_profile(&set->v[i], &po, &p, err, sizeof(err));
		if (r == 0)
			pmc_session_profiles_keep(ps, set->v[i].name, set->v[i].name, p, &cfg->pr);
		else if (pmc_session_profile_failed(r, set->v[i].name, err, &cfg->pr))
			break;
	}
out:
	self_argv_free(self[0]);
	self_argv_free(self[1]);
}

/* A backend that marks (pmc_backend_ops.marks: valgrind) runs this program again in the
 * library's exact mode (harness/5-microbench/exact.c), once per benchmark, and profiles
 * each loop in that run; every other backend counts in this program's processes and
 * profiles after. */
static bool exact_mode(const struct pmc_session_cfg *cfg)
{
	return pmc_backend_get(cfg->ro.backend)->marks;
}

int pmc_session_benchmarks_prepare(const struct pmc_session_cfg *cfg,
				   struct pmc_session_benchmarks *b)
{
	bool vg = exact_mode(cfg);
	int r;

	for (size_t k = 0; k < nbuilds(cfg); k++) {
		if (vg && (r = self_argv(cfg, k, NULL, 0, &b->self[k])) < 0) {
			pmc_session_say(&cfg->pr, PMC_SESSION_ERROR,
					"--backend %s: cannot find this program's path: %s",
					pmc_backend_get(cfg->ro.backend)->name, strerror(-r));
			return r;
		}
		if (!vg && !cfg->no_fork &&
		    (r = self_argv(cfg, k, cfg->args, cfg->nargs, &b->proc_self[k])) < 0) {
			pmc_session_say(&cfg->pr, PMC_SESSION_ERROR,
					"cannot find this program's path to start its "
					"processes: %s",
					strerror(-r));
			return r;
		}
	}
	return 0;
}

size_t pmc_session_run_benchmarks(const struct pmc_session_cfg *cfg,
				  struct pmc_session_benchmarks *b,
				  const struct pmc_event_list *events, const char *program,
				  struct pmc_result *result, struct pmc_session_profiles *ps)
{
	struct pmc_mb_exact_opts vo = {
	    .backend = pmc_backend_get(cfg->ro.backend),
	    .self_argv = b->self[0],
	    .program = program,
	    .timeout_s = cfg->mo.timeout_s,
	    .running = cfg->ro.running,
	    .stop = cfg->ro.stop,
	};
	bool vg = exact_mode(cfg);
	/* Only a process of its own can be stopped (its pid in cfg->ro.running): with
	 * no_fork a signal keeps its default action (docs/microbench.md, "Interrupted"). */
	bool guard = cfg->guard && !cfg->no_fork;
	size_t failed;

	/* The exact mode profiles each loop in the run that counts it, exactly. */
	if (vg && cfg->profile) {
		vo.profile = true;
		pmc_session_profiles_open_dir(ps, cfg->output, &cfg->pr); /* a warning on failure */
	}
	if (guard)
		cfg->guard(true, cfg->guard_ud);
	failed = run_all(cfg, events, vg ? &vo : NULL, result, cfg->profile ? ps : NULL, b);
	if (guard)
		cfg->guard(false, cfg->guard_ud);
	if ((cfg->labels || cfg->reference_name) && in_rounds(result) < 0) {
		pmc_session_say(&cfg->pr, PMC_SESSION_ERROR, "out of memory");
		failed++;
	}
	return failed;
}

/* The complexity fits of the definitions that ask for them (docs/microbench.md,
 * "Complexity"), into result and said once each. Returns 0, or -errno after an error
 * message (the fits made so far stay). */
static int fit_all(const struct pmc_session_cfg *cfg, struct pmc_result *result)
{
	char err[1024];
	int r = pmc_mb_complexity(cfg->benchmarks, result, err, sizeof(err));

	if (r < 0)
		pmc_session_say(&cfg->pr, PMC_SESSION_ERROR, "%s", err);
	for (size_t i = 0; !cfg->quiet && i < result->nfits; i++) {
		const struct pmc_fit *f = &result->fits[i];

		pmc_session_say(&cfg->pr, PMC_SESSION_NOTE,
				"'%s' is %s: %s ≈ %.4g · f(n), rms %.1f%%", f->name, f->big_o,
				f->metric, f->coef, f->rms * 100);
	}
	return r;
}

int pmc_session_benchmarks_finish(const struct pmc_session_cfg *cfg,
				  struct pmc_session_benchmarks *b, struct pmc_result *result,
				  struct pmc_session_profiles *ps)
{
	bool vg = exact_mode(cfg);

	b->fit_failed = fit_all(cfg, result) < 0;
	if (!vg && set_read_method(result, cfg, b->reads) < 0) {
		pmc_session_say(&cfg->pr, PMC_SESSION_ERROR, "out of memory");
		return -ENOMEM;
	}
	if (cfg->profile && !vg)
		profile_all(cfg, result, ps);
	return 0;
}

void pmc_session_benchmarks_clear(struct pmc_session_benchmarks *b)
{
	for (size_t k = 0; k < 2; k++) {
		self_argv_free(b->self[k]);
		self_argv_free(b->proc_self[k]);
	}
	*b = (struct pmc_session_benchmarks){0};
}

/* The perf backend (counters/backend.h). Each measured run opens the event groups on the
 * forked child before it execs (enable_on_exec, inherit: docs/events.md, "Kernel ABI
 * facts"), and reads them after wait4, when inherited children have folded their counts
 * in. System-wide events (uncore, RAPL) count CPUs, not the child: the session opens them
 * itself, enables them just before a round is spawned and disables them as soon as it is
 * reaped (docs/events.md, "Uncore and RAPL events"). In a duet each child has counters of
 * its own and both share the round's system-wide reading. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/backend.h"
#include "counters/perf/counters.h"
#include "counters/perf/hybrid.h"

struct pmc_backend_session {
	struct pmc_backend_opts o;
	size_t n; /* events */
	/* Per event: the errno it failed to open with before (this machine cannot count
	 * it), so no run pays for the failed syscalls again. Shared by all runs: the
	 * children only read it, the caller's thread writes it between rounds. */
	int *known_errors;
	/* The list has system-wide events: the children open only the per-task ones, and
	 * sys_rd holds the session's reading of the system-wide ones for the round. */
	bool system_wide;
	struct pmc_counters *sc; /* the round's system-wide events, while it runs */
	struct pmc_reading *sys_rd;
	/* Creating the first software event of a kind, and destroying the last, flips a
	 * kernel static key (perf_swevent_enabled), which patches kernel text on every CPU
	 * with IPIs: about a tenth of a millisecond, twice per run. A disabled copy of the
	 * groups held open on this process for the whole session keeps those keys on, so
	 * the per-run open and close stay cheap. It never counts (never enabled, no
	 * inherit). What it cannot open, no run tries again. */
	struct pmc_counters *keeper;
	/* The caller's syscall table (or the kernel's) with the machine's core PMUs looked
	 * up once (pmc_sys.machine): a run's open in its child neither reads sysfs nor
	 * probes. o.sys points here. */
	struct pmc_sys sys;
	struct pmc_hybrid_machine machine;
};

/* One run's groups, opened in its child. */
struct pmc_backend_run {
	struct pmc_backend_session *s;
	char *const *argv;
	bool measured;
	struct pmc_counters *counters;
	struct pmc_reading *readings;
	struct pmc_reading_parts *parts;
};

/* Remembers the events c could not open (on this machine, not this time). */
static void note_known_errors(struct pmc_backend_session *s, const struct pmc_counters *c,
			      bool system_wide_only)
{
	for (size_t i = 0; i < s->n; i++) {
		enum pmc_status st;
		int e;

		pmc_counters_open_status(c, i, &st, &e);
		if ((!system_wide_only || s->o.events->events[i].system_wide) &&
		    (st == PMC_STATUS_UNSUPPORTED || st == PMC_STATUS_DENIED) && e > 0)
			s->known_errors[i] = e;
	}
}

static int perf_find(char **ret_path, char *err, size_t errlen)
{
	*ret_path = NULL;
	return 0;
}

static void perf_session_free(struct pmc_backend_session *s)
{
	if (!s)
		return;
	pmc_counters_close(s->keeper);
	free(s->known_errors);
	free(s->sys_rd);
	free(s);
}

static int perf_session_new(const struct pmc_backend_opts *o, struct pmc_backend_session **ret)
{
	struct pmc_backend_session *s = calloc(1, sizeof(*s));
	PMC_OPTS(pmc_counters_opts, ko, .start_disabled = true,
		 .user_only_fallback = o->user_only_fallback);
	bool hardware = false;

	if (!s)
		return -ENOMEM;
	s->o = *o;
	s->sys = *(o->sys ? o->sys : pmc_sys_kernel());
	s->o.sys = &s->sys;
	s->n = o->events ? o->events->n : 0;
	s->known_errors = calloc(s->n ? s->n : 1, sizeof(*s->known_errors));
	s->sys_rd = calloc(s->n ? s->n : 1, sizeof(*s->sys_rd));
	if (!s->known_errors || !s->sys_rd) {
		perf_session_free(s);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->n; i++) {
		s->system_wide |= o->events->events[i].system_wide;
		hardware |= pmc_event_is_hardware(&o->events->events[i]);
	}
	/* Only hardware events are planned for the core PMUs (pmc_hybrid_plan). */
	if (hardware && !s->sys.machine) {
		pmc_hybrid_machine_find(&s->sys, &s->machine);
		s->sys.machine = &s->machine;
	}
	if (s->n && pmc_counters_open_sys(o->events, &ko, s->o.sys, &s->keeper) < 0)
		s->keeper = NULL; /* only a speed-up: go on without it */
	if (s->keeper)
		note_known_errors(s, s->keeper, false);
	*ret = s;
	return 0;
}

static size_t perf_nmetrics(const struct pmc_backend_session *s)
{
	return s->n;
}

static const char *perf_metric_id(const struct pmc_backend_session *s, size_t i)
{
	return i < s->n ? s->o.events->events[i].name : NULL;
}

static const struct pmc_event_list *perf_events(const struct pmc_backend_session *s)
{
	return s->o.events;
}

/* Opens the list's system-wide events in the caller and enables them, right before a
 * measured round is spawned. */
static int perf_round_start(struct pmc_backend_session *s, bool measured)
{
	PMC_OPTS(pmc_counters_opts, co, .start_disabled = true, .known_errors = s->known_errors);
	int r;

	s->sc = NULL;
	if (!measured || !s->system_wide)
		return 0;
	r = pmc_counters_open_scope(s->o.events, &co, s->o.sys, PMC_SCOPE_SYSTEM, &s->sc);
	if (r == 0 && (r = pmc_counters_enable(s->sc)) < 0) {
		pmc_counters_close(s->sc);
		s->sc = NULL;
	}
	return r;
}

/* Right after the round is reaped: disables the system-wide events, reads them into
 * sys_rd and closes them. An event that could not open is not tried again. */
static int perf_round_stop(struct pmc_backend_session *s, int r)
{
	int d;

	if (!s->sc)
		return r;
	d = pmc_counters_disable(s->sc);
	if (r == 0)
		r = d;
	if (r == 0)
		r = pmc_counters_read(s->sc, s->sys_rd, sizeof(*s->sys_rd));
	if (r == 0)
		note_known_errors(s, s->sc, true);
	pmc_counters_close(s->sc);
	s->sc = NULL;
	return r;
}

static void perf_run_free(struct pmc_backend_run *run)
{
	if (!run)
		return;
	pmc_counters_close(run->counters);
	free(run->readings);
	free(run->parts);
	free(run);
}

static int perf_run_new(struct pmc_backend_session *s, bool measured, char *const *argv,
			const char *display, struct pmc_backend_run **ret, char *err, size_t errlen)
{
	struct pmc_backend_run *run = calloc(1, sizeof(*run));

	if (run) {
		run->readings = calloc(s->n ? s->n : 1, sizeof(*run->readings));
		run->parts = calloc(s->n ? s->n : 1, sizeof(*run->parts));
	}
	if (!run || !run->readings || !run->parts) {
		perf_run_free(run);
		return -ENOMEM;
	}
	run->s = s;
	run->argv = argv;
	run->measured = measured;
	*ret = run;
	return 0;
}

static char *const *perf_run_argv(const struct pmc_backend_run *run)
{
	return run->argv;
}

/* In the child just before exec: the groups are opened on the child itself, disabled
 * until its exec enables them. */
static int open_in_child(void *ud)
{
	struct pmc_backend_run *run = ud;
	struct pmc_backend_session *s = run->s;
	PMC_OPTS(pmc_counters_opts, co, .inherit = true, .enable_on_exec = true,
		 .known_errors = s->known_errors, .user_only_fallback = s->o.user_only_fallback);

	return pmc_counters_open_scope(s->o.events, &co, s->o.sys,
				       s->system_wide ? PMC_SCOPE_TASK : PMC_SCOPE_ALL,
				       &run->counters);
}

static pmc_backend_child_fn perf_run_in_child(const struct pmc_backend_run *run)
{
	return run->measured ? open_in_child : NULL;
}

/* Reads the run's groups and closes them. */
static int perf_run_collect(struct pmc_backend_run *run, char *why, size_t whylen)
{
	struct pmc_backend_session *s = run->s;
	int r = 0;

	if (run->measured) {
		r = pmc_counters_read(run->counters, run->readings, sizeof(*run->readings));
		for (size_t i = 0; r == 0 && i < s->n; i++)
			pmc_counters_read_parts(run->counters, i, &run->parts[i]);
		/* The system-wide events, read by the session (perf_round_stop). */
		for (size_t i = 0; r == 0 && s->system_wide && i < s->n; i++)
			if (s->o.events->events[i].system_wide)
				run->readings[i] = s->sys_rd[i];
		/* An event that the keeper could open may still fail on the child (say,
		 * refusing inherit): later runs skip it too. */
		if (r == 0)
			note_known_errors(s, run->counters, false);
	}
	pmc_counters_close(run->counters);
	run->counters = NULL;
	return r;
}

static int perf_run_reading(const struct pmc_backend_run *run, size_t i, struct pmc_reading *ret,
			    struct pmc_reading_parts *ret_parts, char *why, size_t whylen)
{
	if (i >= run->s->n)
		return -EINVAL;
	*ret = run->readings[i];
	*ret_parts = run->parts[i];
	return 0;
}

/* The run's groups, read while its command runs (the kernel sums inherited children's
 * counts into a read), with the round's system-wide events. */
static int perf_run_peek(struct pmc_backend_run *run, struct pmc_reading *ret)
{
	struct pmc_backend_session *s = run->s;
	int r;

	if (!run->measured || !run->counters)
		return -EINVAL;
	r = pmc_counters_read(run->counters, ret, sizeof(*ret));
	if (r < 0 || !s->sc)
		return r;
	r = pmc_counters_read(s->sc, s->sys_rd, sizeof(*s->sys_rd));
	for (size_t i = 0; r == 0 && i < s->n; i++)
		if (s->o.events->events[i].system_wide)
			ret[i] = s->sys_rd[i];
	return r;
}

static int perf_run_failure(const struct pmc_backend_run *run, char *buf, size_t len)
{
	return -ENOENT;
}

/* ---- counting on the calling thread (a benchmark program's batches) ---- */

struct pmc_backend_thread {
	struct pmc_counters *c;
	size_t n;
};

static int perf_thread_open(const struct pmc_backend_thread_opts *o,
			    struct pmc_backend_thread **ret)
{
	/* A batch edge reads the groups on the PMU through their pages, without a system
	 * call, where the kernel allows it (docs/microbench.md); asked for at open, as arm64
	 * needs it in the events' attributes. */
	PMC_OPTS(pmc_counters_opts, co, .inherit = o->inherit,
		 .user_only_fallback = o->user_only_fallback, .self_read = o->self_read);
	struct pmc_backend_thread *t = calloc(1, sizeof(*t));
	int r;

	if (!t)
		return -ENOMEM;
	t->n = o->events ? o->events->n : 0;
	r = o->events ? pmc_counters_open_sys(o->events, &co, o->sys, &t->c) : -EINVAL;
	/* Started explicitly: every group counts from here, whatever it was opened as. */
	if (r == 0)
		r = pmc_counters_enable(t->c);
	if (r < 0) {
		pmc_counters_close(t->c);
		free(t);
		return r;
	}
	*ret = t;
	return 0;
}

static int perf_thread_read(struct pmc_backend_thread *t, struct pmc_reading *ret,
			    struct pmc_reading *ret_parts)
{
	int r = pmc_counters_read(t->c, ret, sizeof(*ret));

	for (size_t i = 0; r == 0 && ret_parts && i < t->n; i++)
		for (size_t k = 0; k < pmc_counters_nparts(t->c, i); k++)
			pmc_counters_part_reading(t->c, i, k, &ret_parts[i * PMC_PARTS_MAX + k]);
	return r;
}

static void perf_thread_parts(const struct pmc_backend_thread *t, size_t i,
			      struct pmc_reading_parts *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->n = pmc_counters_nparts(t->c, i);
	ret->restricted = pmc_counters_restricted(t->c, i);
	for (size_t k = 0; k < ret->n; k++) {
		const char *pmu = pmc_counters_part_pmu(t->c, i, k);

		snprintf(ret->pmu[k], sizeof(ret->pmu[k]), "%s", pmu ? pmu : "");
	}
}

static int perf_thread_pause(struct pmc_backend_thread *t, bool pause)
{
	/* By reading the groups on counters through their pages: no system call there. */
	return pmc_counters_pause(t->c, pause);
}

static void perf_thread_read_counts(const struct pmc_backend_thread *t, uint64_t *ret_self,
				    uint64_t *ret_sys)
{
	pmc_counters_read_counts(t->c, ret_self, ret_sys);
}

static void perf_thread_close(struct pmc_backend_thread *t)
{
	if (!t)
		return;
	pmc_counters_close(t->c);
	free(t);
}

/* The kernel counts a benchmark program's batches on its own thread (thread_open): no
 * exact mode, and nothing to mark in a program that runs under no simulator. */
static int perf_mark_check(char *err, size_t errlen)
{
	snprintf(err, errlen,
		 "perf counts a benchmark's batches in its own process: it has no "
		 "exact mode");
	return -EOPNOTSUPP;
}

static void perf_mark_toggle(void)
{
}

static void perf_mark_zero(void)
{
}

static void perf_mark_dump(const char *what)
{
}

static size_t perf_run_dumps(const struct pmc_backend_run *run)
{
	return 0;
}

static int perf_run_dump_reading(const struct pmc_backend_run *run, size_t k, size_t i,
				 struct pmc_reading *ret, char *why, size_t whylen)
{
	return -EINVAL;
}

static int perf_run_dump_file(const struct pmc_backend_run *run, size_t k, char **ret_path)
{
	return -ENOENT;
}

/* The kernel's counters have no version of their own: the kernel's is in the
 * fingerprint, with the events asked for and counted (the session's). */
static void perf_env(const struct pmc_backend_opts *o, struct pmc_backend_env *ret)
{
	*ret = (struct pmc_backend_env){.n = 0};
}

const struct pmc_backend_ops pmc_backend_perf = {
    .name = "perf",
    .takes_events = true,
    .dump_format = PMC_DUMP_NONE, /* no exact mode */
    .env = perf_env,
    .find = perf_find,
    .session_new = perf_session_new,
    .session_free = perf_session_free,
    .nmetrics = perf_nmetrics,
    .metric_id = perf_metric_id,
    .events = perf_events,
    .round_start = perf_round_start,
    .round_stop = perf_round_stop,
    .run_new = perf_run_new,
    .run_argv = perf_run_argv,
    .run_in_child = perf_run_in_child,
    .run_collect = perf_run_collect,
    .run_reading = perf_run_reading,
    .run_peek = perf_run_peek,
    .run_failure = perf_run_failure,
    .run_free = perf_run_free,
    .thread_open = perf_thread_open,
    .thread_read = perf_thread_read,
    .thread_parts = perf_thread_parts,
    .thread_pause = perf_thread_pause,
    .thread_read_counts = perf_thread_read_counts,
    .thread_close = perf_thread_close,
    .mark_check = perf_mark_check,
    .mark_toggle = perf_mark_toggle,
    .mark_zero = perf_mark_zero,
    .mark_dump = perf_mark_dump,
    .run_dumps = perf_run_dumps,
    .run_dump_reading = perf_run_dump_reading,
    .run_dump_file = perf_run_dump_file,
};

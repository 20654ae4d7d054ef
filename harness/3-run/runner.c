/* The runner. Each measured run of the perf backend opens the event groups on the
 * forked child before it execs (enable_on_exec, inherit: docs/events.md, "Kernel ABI facts"),
 * and reads them after wait4, when inherited children have folded their counts in.
 * System-wide events (uncore, RAPL) count CPUs, not the child: the runner opens them
 * itself, enables them just before the command is spawned and disables them as soon as
 * it is reaped (docs/events.md, "Uncore and RAPL events"). A duet
 * runs the two commands of a round at once, one per thread (pmc_spawn_pair), each child
 * with counters of its own. */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters/perf/counters.h"
#include "counters/valgrind/valgrind.h"
#include "base/error.h"
#include "base/path.h"
#include "core/derive.h"
#include "core/result.h"
#include "elf/buildid.h"
#include "run/env.h"
#include "run/runner.h"
#include "run/spawn.h"
#include "run/target_env.h"

struct perf_run {
	const struct pmc_runner_opts *o;
	/* Per event: the errno it failed to open with before (this machine cannot count
	 * it), so no run pays for the failed syscalls again. Shared by all commands: the
	 * children only read it, the runner's thread writes it between rounds. */
	int *known_errors;
	char **envp; /* the commands' environment, for every run */
	/* The list has system-wide events: the children open only the per-task ones, and
	 * sys_rd holds the runner's reading of the system-wide ones for the run. */
	bool system_wide;
	struct pmc_reading *sys_rd;
};

/* One run's groups, opened in its child: one per command running at the same time. */
struct perf_child {
	struct perf_run *pr;
	struct pmc_counters *counters;
};

/* Runs in the child just before exec (pmc_spawn_opts.in_child): the groups are opened
 * on the child itself, disabled until its exec enables them. */
static int open_in_child(void *ud)
{
	struct perf_child *pc = ud;
	const struct pmc_runner_opts *o = pc->pr->o;
	struct pmc_counters_opts co = {
	    .sz = sizeof(co),
	    .pid = 0,
	    .inherit = true,
	    .enable_on_exec = true,
	    .known_errors = pc->pr->known_errors,
	    .user_only_fallback = o->user_only_fallback,
	};

	return pmc_counters_open_scope(o->events, &co, o->sys,
				       pc->pr->system_wide ? PMC_SCOPE_TASK : PMC_SCOPE_ALL,
				       &pc->counters);
}

/* Opens the list's system-wide events in the runner and enables them, right before a
 * measured run is spawned; *ret stays NULL when there are none. Returns 0 or -errno. */
static int sys_start(struct perf_run *pr, bool measured, struct pmc_counters **ret)
{
	const struct pmc_runner_opts *o = pr->o;
	struct pmc_counters_opts co = {
	    .sz = sizeof(co),
	    .start_disabled = true,
	    .known_errors = pr->known_errors,
	};
	int r;

	*ret = NULL;
	if (!measured || !pr->system_wide)
		return 0;
	r = pmc_counters_open_scope(o->events, &co, o->sys, PMC_SCOPE_SYSTEM, ret);
	if (r == 0 && (r = pmc_counters_enable(*ret)) < 0) {
		pmc_counters_close(*ret);
		*ret = NULL;
	}
	return r;
}

/* Right after the run is reaped (r: how spawning it went): disables the system-wide
 * events, reads them into pr->sys_rd and closes them. An event that could not open is
 * not tried again. Returns r, or the read's error. */
static int sys_stop(struct perf_run *pr, struct pmc_counters *sc, int r)
{
	const struct pmc_runner_opts *o = pr->o;
	int d;

	if (!sc)
		return r;
	d = pmc_counters_disable(sc);
	if (r == 0)
		r = d;
	if (r == 0)
		r = pmc_counters_read(sc, pr->sys_rd);
	for (size_t i = 0; r == 0 && i < o->events->n; i++) {
		enum pmc_status st;
		int e;

		pmc_counters_open_status(sc, i, &st, &e);
		if (o->events->events[i].system_wide &&
		    (st == PMC_STATUS_UNSUPPORTED || st == PMC_STATUS_DENIED) && e > 0)
			pr->known_errors[i] = e;
	}
	pmc_counters_close(sc);
	return r;
}

static double timeval_ns(struct timeval tv)
{
	return (double)tv.tv_sec * 1e9 + (double)tv.tv_usec * 1e3;
}

static int append(struct pmc_benchmark *b, const char *id, double value,
		  const struct pmc_reading *reading)
{
	struct pmc_metric *m;
	int r = pmc_benchmark_metric(b, id, &m);

	if (r < 0)
		return r;
	return pmc_metric_append(m, value, reading);
}

/* wait4's figures, which every run of the perf backend has. */
static int record_rusage(struct pmc_benchmark *b, const struct pmc_spawn_result *sr)
{
	int r = append(b, "wall-time", (double)sr->wall_ns, NULL);

	if (r == 0)
		r = append(b, "user-time", timeval_ns(sr->ru.ru_utime), NULL);
	if (r == 0)
		r = append(b, "system-time", timeval_ns(sr->ru.ru_stime), NULL);
	/* ru_maxrss is in KiB on Linux (getrusage(2)). */
	if (r == 0)
		r = append(b, "max-rss", (double)sr->ru.ru_maxrss * 1024.0, NULL);
	return r;
}

static int record_perf(struct pmc_benchmark *b, const struct pmc_event_list *ev,
		       const struct pmc_reading *readings, const struct pmc_reading_parts *parts)
{
	for (size_t i = 0; i < ev->n; i++) {
		const struct pmc_reading *rd = &readings[i];
		double v = pmc_status_has_value(rd->status) ? rd->scaled : NAN;
		struct pmc_metric *m;
		int r = pmc_benchmark_metric(b, ev->events[i].name, &m);

		if (r == 0 && m->n == 0)
			r = pmc_metric_describe_event(m, ev, i, rd, "the command");
		if (r < 0)
			return r;
		/* pmc_metric_append keeps the metric's error: the errno only while every run
		 * so far failed with it. */
		r = pmc_metric_append(m, v, rd);
		/* Hybrid CPUs: each core PMU's count beside the sum. */
		if (r == 0 && (parts[i].n || m->nparts))
			r = pmc_metric_append_parts(m, &parts[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* A metric whose counts contradict each other or do not fit in a result is an error
 * with valgrind.c's words in err; other failures leave err empty. */
static int record_valgrind(struct pmc_benchmark *b, const struct pmc_valgrind_counts *counts,
			   char *err, size_t errlen)
{
	for (size_t i = 0; i < pmc_valgrind_metric_count(); i++) {
		struct pmc_metric *m;
		struct pmc_reading rd;
		int r = pmc_benchmark_metric(b, pmc_valgrind_metric_id(i), &m);

		if (r < 0)
			return r;
		m->simulated = true;
		r = pmc_valgrind_metric_reading(counts, i, &rd, err, errlen);
		if (r == -ENODATA) {
			/* Not simulated in this run (cache or branch simulation off). */
			rd = (struct pmc_reading){ .status = PMC_STATUS_UNSUPPORTED, .error = ENODATA };
			r = pmc_metric_append(m, NAN, &rd);
		} else if (r == 0) {
			r = pmc_metric_append(m, (double)rd.value, &rd);
		}
		if (r < 0)
			return r;
	}
	return 0;
}

static const char *describe_failure(const struct pmc_spawn_result *sr, char *buf, size_t len)
{
	if (sr->timed_out)
		snprintf(buf, len, "timed out and was killed");
	else if (sr->term_signal)
		snprintf(buf, len, "was killed by signal %d (%s)", sr->term_signal,
			 strsignal(sr->term_signal));
	else
		snprintf(buf, len, "exited with status %d", sr->exit_code);
	return buf;
}

/* Keeps the end of what a failed run wrote to stderr in o->tail: its last lines, without
 * the first when the bytes kept start within it (unless it is the only one). */
static void keep_tail(const struct pmc_runner_opts *o, const struct pmc_spawn_result *sr)
{
	struct pmc_runner_tail *t = o->tail;
	const char *s = sr->stderr_tail, *end = s + sr->stderr_tail_len, *start = s;
	bool whole = sr->stderr_bytes == sr->stderr_tail_len;
	size_t len;

	if (!t)
		return;
	*t = (struct pmc_runner_tail){.bytes = sr->stderr_bytes};
	while (end > s && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	if (end == s)
		return;
	for (const char *q = end; q > s; q--) {
		if (q[-1] != '\n')
			continue;
		if (++t->lines == PMC_RUNNER_TAIL_LINES) {
			start = q;
			break;
		}
	}
	if (start == s) {
		t->lines++;
		/* The first line kept began before the bytes kept. */
		if (!whole) {
			const char *nl = memchr(s, '\n', (size_t)(end - s));

			if (nl) {
				start = nl + 1;
				t->lines--;
			} else {
				/* Not from within a UTF-8 character. */
				while (start < end && ((unsigned char)*start & 0xc0) == 0x80)
					start++;
				t->partial = true;
			}
		}
	}
	len = (size_t)(end - start);
	memcpy(t->text, start, len);
	t->text[len] = '\0';
	t->cut = !whole || start != s;
}

/* The spawn options of one run of cmd on the perf backend: a measured run opens its
 * groups into pc. running is the caller's slot for this child, or NULL. */
static struct pmc_spawn_opts perf_spawn_opts(const struct pmc_runner_cmd *cmd, struct perf_run *pr,
					     struct perf_child *pc, bool measured,
					     volatile sig_atomic_t *running)
{
	const struct pmc_runner_opts *o = pr->o;

	*pc = (struct perf_child){.pr = pr};
	return (struct pmc_spawn_opts){
	    .argv = cmd->argv,
	    .path = cmd->path,
	    .input_path = o->input_path,
	    .show_output = o->show_output,
	    .capture_stderr = o->tail != NULL,
	    .timeout_s = o->timeout_s,
	    .running = running,
	    .stop = o->stop,
	    .envp = pr->envp,
	    .in_child = measured ? open_in_child : NULL,
	    .ud = pc,
	};
}

/* After the run (spawning returned r): reads its groups into readings and closes them.
 * On the runner's thread only, as it writes the shared known_errors. Returns r, or the
 * read's error. */
static int perf_finish(struct perf_child *pc, int r, bool measured, struct pmc_reading *readings,
		       struct pmc_reading_parts *parts)
{
	const struct pmc_runner_opts *o = pc->pr->o;

	if (r == 0 && measured) {
		r = pmc_counters_read(pc->counters, readings);
		for (size_t i = 0; r == 0 && i < o->events->n; i++)
			pmc_counters_read_parts(pc->counters, i, &parts[i]);
		/* The system-wide events, read by the runner (sys_stop). */
		for (size_t i = 0; r == 0 && pc->pr->system_wide && i < o->events->n; i++)
			if (o->events->events[i].system_wide)
				readings[i] = pc->pr->sys_rd[i];
		/* An event that the keeper could open may still fail on the child (say,
		 * refusing inherit): later runs skip it too. */
		for (size_t i = 0; r == 0 && i < o->events->n; i++) {
			enum pmc_status st;
			int e;

			pmc_counters_open_status(pc->counters, i, &st, &e);
			if ((st == PMC_STATUS_UNSUPPORTED || st == PMC_STATUS_DENIED) && e > 0)
				pc->pr->known_errors[i] = e;
		}
	}
	pmc_counters_close(pc->counters);
	pc->counters = NULL;
	return r;
}

/* Runs one of the shell commands around the runs (setup, prepare, cleanup: what names
 * it) for cmd, unmeasured. Returns 0, or a negative errno with one line in err. */
static int run_hook(const char *what, const char *script, const struct pmc_runner_cmd *cmd,
		    struct perf_run *pr, char *err, size_t errlen)
{
	char *argv[] = {(char *)"sh", (char *)"-c", (char *)script, NULL};
	const struct pmc_runner_opts *o = pr->o;
	struct pmc_spawn_opts so = {
	    .argv = argv,
	    .show_output = o->show_output,
	    .capture_stderr = o->tail != NULL,
	    .timeout_s = o->timeout_s,
	    .running = o->running,
	    .stop = o->stop,
	    .envp = pr->envp,
	};
	struct pmc_spawn_result sr = {0};
	char how[96];
	int r = pmc_spawn_run(&so, &sr);

	if (r < 0) {
		pmc_err_set(err, errlen, "--%s '%s' for '%s' cannot run: %s", what, script,
			    cmd->display, strerror(-r));
		return r;
	}
	if (sr.exit_code != 0 || sr.term_signal || sr.timed_out) {
		keep_tail(o, &sr);
		pmc_err_set(err, errlen, "--%s '%s' for '%s' %s%s", what, script, cmd->display,
			    describe_failure(&sr, how, sizeof(how)),
			    o->show_output ? "" : "; run it with --show-output to see what it said");
		return -ECHILD;
	}
	return 0;
}

static int run_perf(const struct pmc_runner_cmd *cmd, struct perf_run *pr, bool measured,
		    struct pmc_spawn_result *sr, struct pmc_reading *readings,
		    struct pmc_reading_parts *parts)
{
	struct perf_child pc;
	struct pmc_spawn_opts so = perf_spawn_opts(cmd, pr, &pc, measured, pr->o->running);
	struct pmc_counters *sc;
	int r = sys_start(pr, measured, &sc);

	if (r == 0)
		r = sys_stop(pr, sc, pmc_spawn_run(&so, sr));
	return perf_finish(&pc, r, measured, readings, parts);
}

/* Whether a run of the perf backend may be recorded: r is what running it returned.
 * Returns 0, or a negative errno with one line in err. */
static int check_perf_run(const struct pmc_runner_cmd *cmd, const struct pmc_runner_opts *o, int r,
			  const struct pmc_spawn_result *sr, bool measured, size_t run, char *err,
			  size_t errlen)
{
	char how[96];

	if (r < 0) {
		if (r == -EMFILE || r == -ENFILE)
			pmc_err_set(err, errlen,
				    "out of file descriptors opening counters for '%s' (%s); "
				    "raise the limit with 'ulimit -n' or count fewer events",
				    cmd->display, strerror(-r));
		else
			pmc_err_set(err, errlen, "cannot run '%s': %s", cmd->display, strerror(-r));
		return r;
	}
	if (!o->ignore_failure && (sr->exit_code != 0 || sr->term_signal || sr->timed_out)) {
		keep_tail(o, sr);
		pmc_err_set(err, errlen,
			    "%s run %zu of '%s' %s; %s--ignore-failure records failing runs (an "
			    "error path on purpose)",
			    measured ? "measured" : "warm-up", run, cmd->display,
			    describe_failure(sr, how, sizeof(how)),
			    o->show_output ? ""
					   : "run it with --show-output to see what it said; ");
		return -ECHILD;
	}
	return 0;
}

static int run_valgrind(const struct pmc_runner_cmd *cmd, const struct pmc_runner_opts *o,
			char *const *envp, struct pmc_spawn_result *sr,
			struct pmc_valgrind_counts *counts, char *err, size_t errlen)
{
	struct pmc_valgrind_opts vo = { .sz = sizeof(vo), .valgrind = o->valgrind_path,
					.tool = (enum pmc_valgrind_tool)o->valgrind_tool };
	struct pmc_spawn_opts so = {
		.input_path = o->input_path,
		.show_output = o->show_output,
		.timeout_s = o->timeout_s,
		.running = o->running,
		.stop = o->stop,
		.no_aslr = true, /* identical runs give identical counts */
		/* valgrind hands its environment to the target: normalizing it normalizes the
		 * target's (docs/valgrind.md, "The target's environment"). */
		.envp = envp,
	};
	char **argv = NULL, *dir = NULL, why[256];
	int r;

	r = pmc_valgrind_outdir_new(NULL, &dir);
	if (r < 0) {
		pmc_err_set(err, errlen, "cannot create a directory for valgrind's output: %s",
			strerror(-r));
		return r;
	}
	vo.outdir = dir;
	r = pmc_valgrind_argv(&vo, cmd->argv, &argv);
	if (r < 0) {
		pmc_err_set(err, errlen, "'%s': %s", cmd->display, strerror(-r));
		goto out;
	}
	so.argv = argv;
	r = pmc_spawn_run(&so, sr);
	if (r < 0) {
		pmc_err_set(err, errlen, "'%s': cannot run valgrind: %s", cmd->display, strerror(-r));
		goto out;
	}
	if (sr->exit_code != 0 || sr->term_signal || sr->timed_out) {
		char how[96];

		if (pmc_valgrind_log_error(dir, why, sizeof(why)) < 0)
			why[0] = '\0';
		pmc_err_set(err, errlen, "'%s' under valgrind %s%s%s", cmd->display,
			describe_failure(sr, how, sizeof(how)), why[0] ? ": " : "", why);
		/* A failing run is still counted if valgrind wrote its files. */
	}
	{
		char cerr[512];
		int cr = pmc_valgrind_collect(dir, counts, cerr, sizeof(cerr));

		if (cr < 0) {
			if (sr->exit_code == 0 && !sr->term_signal && !sr->timed_out)
				pmc_err_set(err, errlen, "'%s': valgrind wrote no usable counts: %s",
					cmd->display, cerr);
			r = cr;
		}
	}
out:
	free(argv);
	pmc_valgrind_outdir_remove(dir);
	free(dir);
	return r;
}

/* The message of a run that could not be recorded: the reason the layer below gave
 * (why), else its errno; "out of memory" only when that is what happened. */
static void record_error(char *err, size_t errlen, const struct pmc_runner_cmd *cmd, size_t run,
			 int r, const char *why)
{
	if (why[0])
		pmc_err_set(err, errlen, "run %zu of '%s': %s", run, cmd->display, why);
	else if (r == -ENOMEM)
		pmc_err_set(err, errlen, "out of memory");
	else
		pmc_err_set(err, errlen, "run %zu of '%s': cannot record it: %s", run,
			cmd->display, strerror(-r));
}

/* Records one measured run: its info, then its counts or simulated counts, and wait4's
 * figures. Returns 0, or a negative errno with one line in err. */
static int record_run(struct pmc_benchmark *b, const struct pmc_runner_opts *o,
		      const struct pmc_run_info *info, const struct pmc_spawn_result *sr,
		      const struct pmc_reading *readings, const struct pmc_reading_parts *parts,
		      const struct pmc_valgrind_counts *counts, const struct pmc_runner_cmd *cmd,
		      size_t run, char *err, size_t errlen)
{
	char why[512] = "";
	int r = pmc_benchmark_add_run(b, info);

	if (r == 0 && o->backend == PMC_BACKEND_VALGRIND)
		r = record_valgrind(b, counts, why, sizeof(why));
	else if (r == 0)
		r = record_perf(b, o->events, readings, parts);
	if (r == 0 && o->backend == PMC_BACKEND_PERF)
		r = record_rusage(b, sr);
	if (r < 0)
		record_error(err, errlen, cmd, run, r, why);
	return r;
}

/* One round of a duet (run is its number among the measured or the warm-up rounds, from
 * 1): both commands at once, each pinned to one of the two CPUs, the first command on
 * cpus[0] in odd rounds and on cpus[1] in even ones, the second on the other. Both are
 * waited for before either is judged; the first command's failure is the one reported.
 * readings holds two runs' worth. */
static int duet_round(const struct pmc_runner_cmd *cmds, struct pmc_benchmark *bench,
		      struct perf_run *pr, bool measured, size_t run, const int cpus[2],
		      struct pmc_reading *readings, struct pmc_reading_parts *parts, char *err,
		      size_t errlen)
{
	const struct pmc_runner_opts *o = pr->o;
	struct pmc_spawn_result sr[2] = {0};
	struct perf_child pc[2];
	struct pmc_spawn_opts so[2];
	const struct pmc_spawn_opts *const sop[2] = {&so[0], &so[1]};
	struct pmc_counters *sc;
	int rc[2], r;

	for (size_t c = 0; c < 2; c++) {
		if (o->progress)
			o->progress(o->ud, c, run, measured ? o->runs : o->warmup, !measured);
		/* A slot each, so the caller's handler can stop both. */
		so[c] = perf_spawn_opts(&cmds[c], pr, &pc[c], measured,
					o->running ? &o->running[c] : NULL);
		so[c].pin = true;
		so[c].cpu = cpus[(run - 1 + c) % 2];
	}
	/* One reading of the system-wide events for the round: both commands run in it,
	 * and each run gets it. */
	r = sys_start(pr, measured, &sc);
	if (r == 0)
		r = sys_stop(pr, sc, pmc_spawn_pair(sop, sr, rc));
	for (size_t c = 0; c < 2; c++)
		rc[c] = perf_finish(&pc[c], r < 0 ? r : rc[c], measured,
				    readings + c * o->events->n, parts + c * o->events->n);
	for (size_t c = 0; c < 2; c++) {
		r = check_perf_run(&cmds[c], o, rc[c], &sr[c], measured, run, err, errlen);
		if (r < 0)
			return r;
	}
	for (size_t c = 0; measured && c < 2; c++) {
		struct pmc_run_info info = {.exit_code = sr[c].exit_code,
					    .term_signal = sr[c].term_signal,
					    .timed_out = sr[c].timed_out,
					    .round = (unsigned)run,
					    .pinned = true,
					    .cpu = so[c].cpu};

		r = record_run(&bench[c], o, &info, &sr[c], readings + c * o->events->n,
			       parts + c * o->events->n, NULL, &cmds[c], run, err, errlen);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Above any kernel's NR_CPUS: where the affinity mask stops growing. */
#define MAX_CPUS (1 << 16)

/* How many CPUs this process may run on (sched_getaffinity), and the first two. */
static int allowed_cpus(size_t *ret_n, int first[2])
{
	/* The mask grows until it holds the kernel's: EINVAL says it is too small. */
	for (size_t ncpu = CPU_SETSIZE; ncpu <= MAX_CPUS; ncpu *= 2) {
		cpu_set_t *set = CPU_ALLOC(ncpu);
		size_t size = CPU_ALLOC_SIZE(ncpu), n = 0;

		if (!set)
			return -ENOMEM;
		if (sched_getaffinity(0, size, set) < 0) {
			int e = errno;

			CPU_FREE(set);
			if (e == EINVAL)
				continue;
			return -e;
		}
		for (size_t c = 0; c < ncpu; c++) {
			if (!CPU_ISSET_S(c, size, set))
				continue;
			if (n < 2)
				first[n] = (int)c;
			n++;
		}
		CPU_FREE(set);
		*ret_n = n;
		return 0;
	}
	return -EINVAL;
}

int pmc_runner_check_duet(size_t ncmds, enum pmc_backend backend, int ret_cpus[2], char *err,
			  size_t errlen)
{
	int cpus[2] = {-1, -1}, r;
	size_t n = 0;

	if (backend != PMC_BACKEND_PERF) {
		pmc_err_set(err, errlen,
			    "--duet does not apply to --backend valgrind: simulated counts are "
			    "exact whatever else runs; drop one of the two");
		return -EINVAL;
	}
	if (ncmds != 2) {
		pmc_err_set(err, errlen,
			    "--duet runs two commands at the same time; give exactly two "
			    "(-c A -c B), not %zu",
			    ncmds);
		return -EINVAL;
	}
	r = allowed_cpus(&n, cpus);
	if (r < 0) {
		pmc_err_set(err, errlen,
			    "--duet: cannot read the CPUs this process may use "
			    "(sched_getaffinity): %s",
			    strerror(-r));
		return r;
	}
	if (n < 2) {
		pmc_err_set(err, errlen,
			    "--duet needs two CPUs; this process may use %zu (taskset/cgroup): "
			    "allow it two, e.g. taskset -c 0,1",
			    n);
		return -EINVAL;
	}
	if (ret_cpus) {
		ret_cpus[0] = cpus[0];
		ret_cpus[1] = cpus[1];
	}
	return 0;
}

static int new_benchmarks(const struct pmc_runner_cmd *cmds, size_t n, struct pmc_result *res,
			  size_t *ret_first)
{
	*ret_first = res->nbench;
	for (size_t c = 0; c < n; c++) {
		struct pmc_benchmark *b;
		char *path = NULL;
		int r = pmc_result_add_benchmark(res, cmds[c].name, cmds[c].display, &b);

		for (size_t k = 0; r == 0 && k < cmds[c].nparams; k++)
			r = pmc_benchmark_set_param(b, cmds[c].param_names[k], cmds[c].param_values[k]);
		if (r < 0)
			return r;
		/* The build-id pins the exact binary that was measured; a binary without one
		 * (or a script) simply has none. */
		if (pmc_find_executable(cmds[c].argv[0], &path) == 0) {
			pmc_build_id(path, &b->build_id);
			free(path);
		}
	}
	return 0;
}

/* Command c's setup, prepare or cleanup: its own, else the options'. */
#define HOOK(c, which) (cmds[c].which ? cmds[c].which : o->which)

int pmc_runner_run(const struct pmc_runner_cmd *cmds, size_t ncmds, const struct pmc_runner_opts *o,
		   struct pmc_result *result, char *err, size_t errlen)
{
	size_t first = 0, rounds, taken = 0, nev = o->events ? o->events->n : 0;
	struct pmc_reading *readings = NULL;
	struct pmc_reading_parts *parts = NULL;
	struct perf_run pr = { .o = o };
	struct pmc_counters *keeper = NULL;
	char *env_desc = NULL;
	int r, cpus[2] = {-1, -1};

	if (o->tail)
		*o->tail = (struct pmc_runner_tail){0};
	if (ncmds == 0 || o->runs == 0 ||
	    (o->backend == PMC_BACKEND_PERF && (!o->events || o->events->n == 0))) {
		pmc_err_set(err, errlen, "nothing to run");
		return -EINVAL;
	}
	if (o->duet) {
		r = pmc_runner_check_duet(ncmds, o->backend, cpus, err, errlen);
		if (r < 0)
			return r;
	}
	r = pmc_target_env_build(environ, o->env_inherit, o->env_keep, &pr.envp, &env_desc);
	if (r == -EINVAL) {
		pmc_err_set(err, errlen, "a variable to keep in the environment has an empty "
				"name or one with '='; give names only");
		return r;
	}
	if (r == 0)
		r = pmc_result_set_env(result, "target-env", env_desc);
	free(env_desc);
	if (r == 0)
		r = new_benchmarks(cmds, ncmds, result, &first);
	if (r < 0) {
		pmc_err_set(err, errlen, "out of memory");
		free(pr.envp);
		return r;
	}
	pr.known_errors = calloc(nev ? nev : 1, sizeof(int));
	pr.sys_rd = calloc(nev ? nev : 1, sizeof(*pr.sys_rd));
	for (size_t i = 0; i < nev; i++)
		pr.system_wide |= o->events->events[i].system_wide;
	/* Two runs' worth: a duet reads both of its round's runs. */
	readings = calloc(nev ? 2 * nev : 1, sizeof(*readings));
	parts = calloc(nev ? 2 * nev : 1, sizeof(*parts));
	if (!pr.known_errors || !pr.sys_rd || !readings || !parts) {
		r = -ENOMEM;
		pmc_err_set(err, errlen, "out of memory");
		goto out;
	}

	/* Creating the first software event of a kind, and destroying the last, flips a
	 * kernel static key (perf_swevent_enabled), which patches kernel text on every CPU
	 * with IPIs: about a tenth of a millisecond, twice per run. A disabled copy of the
	 * groups held open on this process for the whole run keeps those keys on, so the
	 * per-run open and close stay cheap. It never counts (never enabled, no inherit).
	 * What it cannot open, no run tries again. */
	if (o->backend == PMC_BACKEND_PERF) {
		struct pmc_counters_opts ko = { .sz = sizeof(ko), .pid = 0, .start_disabled = true,
						.user_only_fallback = o->user_only_fallback };

		if (pmc_counters_open_sys(o->events, &ko, o->sys, &keeper) < 0)
			keeper = NULL; /* only a speed-up: go on without it */
		for (size_t i = 0; keeper && i < nev; i++) {
			enum pmc_status st;
			int e;

			pmc_counters_open_status(keeper, i, &st, &e);
			if ((st == PMC_STATUS_UNSUPPORTED || st == PMC_STATUS_DENIED) && e > 0)
				pr.known_errors[i] = e;
		}
	}

	rounds = o->warmup + o->runs;
	for (size_t c = 0; c < ncmds; c++)
		if (HOOK(c, setup) && (r = run_hook("setup", HOOK(c, setup), &cmds[c], &pr, err,
						    errlen)) < 0)
			goto out;
	for (size_t round = 0; round < rounds; round++) {
		bool measured = round >= o->warmup;
		/* The round's number among the measured or the warm-up rounds, from 1. */
		size_t run = measured ? round - o->warmup + 1 : round + 1;

		if (measured && round > o->warmup && o->round_done &&
		    o->round_done(o->round_ud, result, round - o->warmup))
			break;
		taken = measured ? round - o->warmup + 1 : 0;

		if (o->duet) {
			if (o->stop && *o->stop) {
				pmc_err_set(err, errlen, "interrupted");
				r = -EINTR;
				goto out;
			}
			r = duet_round(cmds, &result->benchmarks[first], &pr, measured, run, cpus,
				       readings, parts, err, errlen);
			if (r < 0)
				goto out;
			continue;
		}
		for (size_t k = 0; k < ncmds; k++) {
			size_t c = (round + k) % ncmds;
			const struct pmc_runner_cmd *cmd = &cmds[c];
			struct pmc_benchmark *b = &result->benchmarks[first + c];
			struct pmc_valgrind_counts counts;
			struct pmc_spawn_result sr = { 0 };
			struct pmc_run_info info;

			if (o->stop && *o->stop) {
				pmc_err_set(err, errlen, "interrupted");
				r = -EINTR;
				goto out;
			}
			if (o->progress)
				o->progress(o->ud, c, run, measured ? o->runs : o->warmup, !measured);
			if (HOOK(c, prepare) && (r = run_hook("prepare", HOOK(c, prepare), cmd, &pr,
							       err, errlen)) < 0)
				goto out;
			if (o->backend == PMC_BACKEND_VALGRIND) {
				err[0] = '\0';
				r = run_valgrind(cmd, o, pr.envp, &sr, &counts, err, errlen);
				if (r < 0 || (err[0] && !o->ignore_failure)) {
					if (!err[0])
						pmc_err_set(err, errlen, "'%s': %s", cmd->display,
							strerror(-r));
					r = r < 0 ? r : -ECHILD;
					goto out;
				}
			} else {
				r = run_perf(cmd, &pr, measured, &sr, readings, parts);
				r = check_perf_run(cmd, o, r, &sr, measured, run, err, errlen);
				if (r < 0)
					goto out;
			}
			if (!measured)
				continue;
			info = (struct pmc_run_info){ .exit_code = sr.exit_code,
						      .term_signal = sr.term_signal,
						      .timed_out = sr.timed_out,
						      /* With several commands, each round's runs
						       * are pairs (docs/compare.md, "Paired"). */
						      .round = ncmds > 1 ? (unsigned)run : 0 };
			r = record_run(b, o, &info, &sr, readings, parts, &counts, cmd, run, err,
				       errlen);
			if (r < 0)
				goto out;
		}
	}
	for (size_t c = 0; c < ncmds; c++)
		if (HOOK(c, cleanup) && (r = run_hook("cleanup", HOOK(c, cleanup), &cmds[c], &pr,
						      err, errlen)) < 0)
			goto out;
	if (ncmds > 1) {
		free(result->design.mode);
		result->design.mode = strdup(o->duet ? "duet" : "interleaved");
		result->design.rounds = taken;
		if (o->duet) {
			result->design.ncpus = 2;
			result->design.cpus[0] = cpus[0];
			result->design.cpus[1] = cpus[1];
		}
		if (!result->design.mode) {
			r = -ENOMEM;
			pmc_err_set(err, errlen, "out of memory");
			goto out;
		}
	}
	for (size_t c = 0; c < ncmds; c++) {
		/* Simulated counts are never multiplexed: no groups to tell apart. */
		PMC_OPTS(pmc_derive_opts, dopts,
			 .events = o->backend == PMC_BACKEND_PERF ? o->events : NULL);

		r = pmc_benchmark_derive(&result->benchmarks[first + c], &dopts);
		if (r < 0) {
			pmc_err_set(err, errlen, "'%s': cannot derive the metrics: %s",
				cmds[c].display, strerror(-r));
			goto out;
		}
	}
	r = 0;
out:
	pmc_counters_close(keeper);
	free(pr.envp);
	free(pr.known_errors);
	free(pr.sys_rd);
	free(readings);
	free(parts);
	return r;
}

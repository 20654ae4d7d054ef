/* The runner: warm-up, repeats, interleaved rounds and duets of commands, each run
 * measured by the backend the options name through its table of operations
 * (counters/backend.h): the backend says what to exec (the command, or a wrapper around
 * it), what the child does before exec, what brackets the spawning of a round and what
 * the run's readings are; the runner spawns, judges the run and records it. A duet runs
 * the two commands of a round at once, one per thread (pmc_spawner_pair). */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters/backend.h"
#include "base/error.h"
#include "base/path.h"
#include "core/derive.h"
#include "core/result.h"
#include "elf/buildid.h"
#include "run/env.h"
#include "run/leftovers.h"
#include "run/run_readings.h"
#include "run/runner.h"
#include "run/spawn.h"
#include "run/target_env.h"
#include "run/ticks.h"

/* What every run of a pmc_runner_run shares. */
struct session {
	const struct pmc_runner_opts *o;
	const struct pmc_backend_ops *b;
	struct pmc_backend_session *s;
	char **envp; /* the commands' environment, for every run */
	/* What every run's spawning shares (spawn.h): one per thread that spawns, two in a
	 * duet. */
	struct pmc_spawner *sp[2];
	const struct pmc_runner_cmd *cmds;
	bool *noted; /* per command: what one of its runs left was noted */
};

/* A note for the caller (pmc_runner_opts.note), when it takes them. */
__attribute__((format(printf, 2, 3))) static void pmc_note(const struct session *x, const char *fmt,
							   ...)
{
	char text[1024];
	va_list ap;

	if (!x->o->note)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	x->o->note(x->o->note_ud, text);
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

/* What to do about a failure, for its message: a run killed at --timeout needs more time
 * (its output would not say why it was slow); another shows what it said. "" when
 * nothing helps. lead: the hint follows the message ("; ..."), else it precedes more
 * ("...; "). */
static const char *failure_hint(const struct pmc_runner_opts *o, const struct pmc_spawn_result *sr,
				bool lead)
{
	if (sr->timed_out)
		return lead ? "; give it a longer --timeout if it needs more time"
			    : "give it a longer --timeout if it needs more time; ";
	if (o->show_output)
		return "";
	return lead ? "; run it with --show-output to see what it said"
		    : "run it with --show-output to see what it said; ";
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

/* Runs one of the shell commands around the runs (setup, prepare, cleanup: what names
 * it) for cmd, unmeasured. Returns 0, or a negative errno with one line in err. */
static int run_hook(const char *what, const char *script, const struct pmc_runner_cmd *cmd,
		    const struct session *x, char *err, size_t errlen)
{
	char *argv[] = {(char *)"sh", (char *)"-c", (char *)script, NULL};
	const struct pmc_runner_opts *o = x->o;
	struct pmc_spawn_opts so = {
	    .argv = argv,
	    .show_output = o->show_output,
	    .capture_stderr = o->tail != NULL,
	    .timeout_s = o->timeout_s,
	    .running = o->running,
	    .stop = o->stop,
	    .envp = x->envp,
	};
	struct pmc_spawn_result sr = {0};
	char how[96];
	int r = pmc_spawner_run(x->sp[0], &so, &sr);

	if (r < 0) {
		pmc_err_set(err, errlen, "--%s '%s' for '%s' cannot run: %s", what, script,
			    cmd->display, strerror(-r));
		return r;
	}
	if (sr.exit_code != 0 || sr.term_signal || sr.timed_out) {
		keep_tail(o, &sr);
		pmc_err_set(err, errlen, "--%s '%s' for '%s' %s%s", what, script, cmd->display,
			    describe_failure(&sr, how, sizeof(how)), failure_hint(o, &sr, true));
		return -ECHILD;
	}
	return 0;
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
		pmc_err_set(err, errlen, "run %zu of '%s': cannot record it: %s", run, cmd->display,
			    strerror(-r));
}

/* The spawn options of one run: what the backend execs, and what its child does before. */
static struct pmc_spawn_opts spawn_opts(const struct pmc_runner_cmd *cmd, const struct session *x,
					struct pmc_backend_run *run, volatile sig_atomic_t *running)
{
	const struct pmc_runner_opts *o = x->o;
	char *const *argv = x->b->run_argv(run);

	return (struct pmc_spawn_opts){
	    .argv = argv,
	    /* The resolved executable is the command's, not a wrapper's. */
	    .path = argv == cmd->argv ? cmd->path : NULL,
	    .input_path = o->input_path,
	    .show_output = o->show_output,
	    .capture_stderr = o->tail != NULL && !x->b->wrapper,
	    .timeout_s = o->timeout_s,
	    .running = running,
	    .stop = o->stop,
	    /* Identical runs give identical simulated counts. */
	    .no_aslr = x->b->simulated,
	    .envp = x->envp,
	    .in_child = x->b->run_in_child(run),
	    .ud = run,
	    /* A target never outlives pmcbench, even killed with SIGKILL. */
	    .die_with_parent = true,
	};
}

/* Ends what the runs of cmds[0..n) (process groups pgids) left running, once their
 * readings are taken, so that nothing they count changes, and notes it the first time
 * for each command. */
static void end_leftovers(struct session *x, const struct pmc_leftovers *before,
			  const struct pmc_runner_cmd *const *cmds, const pid_t *pgids, size_t n)
{
	char names[512];
	bool gone[2] = {false, false};
	size_t ended = pmc_leftovers_end(before, pgids, n, gone, names, sizeof(names));
	/* A duet's are noted as the first command's. */
	const struct pmc_runner_cmd *cmd = cmds[0];

	/* Run i was spawned by sp[i] (one per thread in a duet): a group found empty needs
	 * no second look before its capture file is reused. */
	for (size_t i = 0; i < n && i < 2; i++)
		if (gone[i])
			pmc_spawner_group_gone(x->sp[i], pgids[i]);
	if (!ended || !x->o->note)
		return;
	if (x->noted && x->noted[cmd - x->cmds])
		return;
	if (x->noted)
		x->noted[cmd - x->cmds] = true;
	if (names[0])
		pmc_note(x,
			 "'%s' left running after its run: %s; ended, after the run's readings, "
			 "as whatever its runs leave is",
			 cmd->display, names);
	else
		pmc_note(x,
			 "'%s' left the rest of its process group running after its run; ended, "
			 "after the run's readings, as whatever its runs leave is",
			 cmd->display);
}

/* Whether a run may be recorded: r is how spawning and the round's end went, cr what
 * collecting its readings returned (why: its words). Returns 0, or a negative errno with
 * one line in err. */
static int check_run(const struct pmc_runner_cmd *cmd, const struct session *x,
		     const struct pmc_backend_run *run, int r, int cr, const char *why,
		     const struct pmc_spawn_result *sr, bool measured, size_t n, char *err,
		     size_t errlen)
{
	const struct pmc_runner_opts *o = x->o;
	const char *wrapper = x->b->wrapper;
	bool failed;
	char how[96];

	if (r < 0 || (cr < 0 && !why[0])) {
		r = r < 0 ? r : cr;
		if (wrapper)
			pmc_err_set(err, errlen, "'%s': cannot run %s: %s", cmd->display, wrapper,
				    strerror(-r));
		else if (r == -EMFILE || r == -ENFILE)
			pmc_err_set(err, errlen,
				    "out of file descriptors opening counters for '%s' (%s); "
				    "raise the limit with 'ulimit -n' or count fewer events",
				    cmd->display, strerror(-r));
		else
			pmc_err_set(err, errlen, "cannot run '%s': %s", cmd->display, strerror(-r));
		return r;
	}
	failed = sr->exit_code != 0 || sr->term_signal || sr->timed_out;
	/* A failing run is still recorded with --ignore-failure when it has readings. */
	if (failed && (!o->ignore_failure || cr < 0)) {
		if (wrapper) {
			char said[256];

			if (x->b->run_failure(run, said, sizeof(said)) < 0)
				said[0] = '\0';
			pmc_err_set(err, errlen, "'%s' under %s %s%s%s", cmd->display, wrapper,
				    describe_failure(sr, how, sizeof(how)), said[0] ? ": " : "",
				    said);
		} else {
			keep_tail(o, sr);
			pmc_err_set(
			    err, errlen,
			    "%s run %zu of '%s' %s; %s--ignore-failure records failing runs "
			    "(an error path on purpose)",
			    measured ? "measured" : "warm-up", n, cmd->display,
			    describe_failure(sr, how, sizeof(how)), failure_hint(o, sr, false));
		}
		return cr < 0 ? cr : -ECHILD;
	}
	if (cr < 0) {
		pmc_err_set(err, errlen, "'%s': %s", cmd->display, why);
		return cr;
	}
	return 0;
}

/* A measured run's info: how it ended, its round, and wait4's context switches, which
 * tell a command that waits from one the load preempts (pmc_metric_mostly_waits); under
 * a simulator they would be the simulator's. */
static struct pmc_run_info run_info(const struct session *x, const struct pmc_spawn_result *sr,
				    unsigned round)
{
	bool known = !x->b->simulated && sr->ru.ru_nvcsw >= 0 && sr->ru.ru_nivcsw >= 0;

	return (struct pmc_run_info){
	    .exit_code = sr->exit_code,
	    .term_signal = sr->term_signal,
	    .timed_out = sr->timed_out,
	    .round = round,
	    .switches = known,
	    .voluntary_switches = known ? (uint64_t)sr->ru.ru_nvcsw : 0,
	    .involuntary_switches = known ? (uint64_t)sr->ru.ru_nivcsw : 0,
	};
}

/* Records one measured run: its info, its readings, and wait4's figures. Returns 0, or a
 * negative errno with one line in err. */
static int record_run(struct pmc_benchmark *b, const struct session *x,
		      const struct pmc_run_info *info, const struct pmc_spawn_result *sr,
		      const struct pmc_backend_run *run, const struct pmc_runner_cmd *cmd, size_t n,
		      char *err, size_t errlen)
{
	char why[512] = "";
	int r = pmc_benchmark_add_run(b, info);

	if (r == 0)
		r = pmc_run_record_readings(b, x->b, x->s, run, why, sizeof(why));
	if (r == 0 && !x->b->simulated)
		r = pmc_run_record_rusage(b, sr);
	if (r < 0)
		record_error(err, errlen, cmd, n, r, why);
	return r;
}

/* One run of cmd (n: its number among the measured or the warm-up runs, from 1), judged,
 * and recorded when measured. */
static int one_run(const struct pmc_runner_cmd *cmd, struct pmc_benchmark *b, struct session *x,
		   bool measured, size_t n, unsigned round, char *err, size_t errlen)
{
	const struct pmc_runner_opts *o = x->o;
	struct pmc_spawn_result sr = {0};
	struct pmc_backend_run *run = NULL;
	struct pmc_intervals *iv = NULL;
	struct pmc_run_ticks ticks = {0};
	struct pmc_leftovers before;
	struct pmc_spawn_opts so;
	char why[512] = "";
	int r, cr = 0;

	r = x->b->run_new(x->s, measured, cmd->argv, cmd->display, &run, err, errlen);
	if (r < 0) {
		if (r == -ENOMEM)
			pmc_err_set(err, errlen, "out of memory");
		return r;
	}
	so = spawn_opts(cmd, x, run, o->running);
	if ((measured && o->interval_ms &&
	     pmc_run_ticks_start(&ticks, x->b, x->s, run, o->interval_ms, &so) < 0) ||
	    pmc_leftovers_before(&before) < 0) {
		pmc_run_ticks_free(&ticks);
		x->b->run_free(run);
		pmc_err_set(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r = x->b->round_start(x->s, measured);
	if (r == 0)
		r = x->b->round_stop(x->s, pmc_spawner_run(x->sp[0], &so, &sr));
	if (r == 0)
		cr = x->b->run_collect(run, why, sizeof(why));
	if (r == 0 && cr == 0 && ticks.iv &&
	    (cr = pmc_run_ticks_finish(&ticks, sr.wall_ns, &iv)) < 0)
		snprintf(why, sizeof(why), "cannot read its counters during the run (-I): %s",
			 strerror(-cr));
	if (sr.pid > 0)
		end_leftovers(x, &before, &cmd, &sr.pid, 1);
	pmc_leftovers_free(&before);
	r = check_run(cmd, x, run, r, cr, why, &sr, measured, n, err, errlen);
	if (r == 0 && measured) {
		struct pmc_run_info info = run_info(x, &sr, round);

		r = record_run(b, x, &info, &sr, run, cmd, n, err, errlen);
		if (r == 0 && iv) {
			r = pmc_benchmark_set_intervals(b, b->nruns - 1, iv);
			iv = NULL;
			if (r < 0)
				pmc_err_set(err, errlen, "out of memory");
		}
	}
	pmc_intervals_free(iv);
	pmc_run_ticks_free(&ticks);
	x->b->run_free(run);
	return r;
}

/* One round of a duet (n is its number among the measured or the warm-up rounds, from
 * 1): both commands at once, each pinned to one of the two CPUs, the first command on
 * cpus[0] in odd rounds and on cpus[1] in even ones, the second on the other. Both are
 * waited for before either is judged; the first command's failure is the one reported. */
static int duet_round(const struct pmc_runner_cmd *cmds, struct pmc_benchmark *bench,
		      struct session *x, bool measured, size_t n, const int cpus[2], char *err,
		      size_t errlen)
{
	const struct pmc_runner_opts *o = x->o;
	struct pmc_spawn_result sr[2] = {0};
	struct pmc_backend_run *run[2] = {NULL, NULL};
	struct pmc_spawn_opts so[2];
	const struct pmc_spawn_opts *const sop[2] = {&so[0], &so[1]};
	struct pmc_leftovers before;
	char why[2][512] = {"", ""};
	int rc[2], cr[2] = {0, 0}, r = 0;

	for (size_t c = 0; r == 0 && c < 2; c++) {
		if (o->progress)
			o->progress(o->ud, c, n, measured ? o->runs : o->warmup, !measured);
		r = x->b->run_new(x->s, measured, cmds[c].argv, cmds[c].display, &run[c], err,
				  errlen);
		if (r == -ENOMEM)
			pmc_err_set(err, errlen, "out of memory");
		if (r < 0)
			break;
		/* A slot each, so the caller's handler can stop both. */
		so[c] = spawn_opts(&cmds[c], x, run[c], o->running ? &o->running[c] : NULL);
		so[c].pin = true;
		so[c].cpu = cpus[(n - 1 + c) % 2];
	}
	if (r < 0)
		goto out;
	/* One round of the backend for both: the system-wide events count both commands,
	 * and each run gets their reading. */
	if (pmc_leftovers_before(&before) < 0) {
		pmc_err_set(err, errlen, "out of memory");
		r = -ENOMEM;
		goto out;
	}
	r = x->b->round_start(x->s, measured);
	if (r == 0)
		r = x->b->round_stop(x->s, pmc_spawner_pair(x->sp, sop, sr, rc));
	for (size_t c = 0; c < 2; c++) {
		rc[c] = r < 0 ? r : rc[c];
		if (rc[c] == 0)
			cr[c] = x->b->run_collect(run[c], why[c], sizeof(why[c]));
	}
	{
		const struct pmc_runner_cmd *const both[2] = {&cmds[0], &cmds[1]};
		const pid_t pgids[2] = {r == 0 && rc[0] == 0 ? sr[0].pid : 0,
					r == 0 && rc[1] == 0 ? sr[1].pid : 0};

		end_leftovers(x, &before, both, pgids, 2);
	}
	pmc_leftovers_free(&before);
	for (size_t c = 0; c < 2; c++) {
		r = check_run(&cmds[c], x, run[c], rc[c], cr[c], why[c], &sr[c], measured, n, err,
			      errlen);
		if (r < 0)
			goto out;
	}
	for (size_t c = 0; measured && c < 2; c++) {
		struct pmc_run_info info = run_info(x, &sr[c], (unsigned)n);

		info.pinned = true;
		info.cpu = so[c].cpu;

		r = record_run(&bench[c], x, &info, &sr[c], run[c], &cmds[c], n, err, errlen);
		if (r < 0)
			goto out;
	}
out:
	for (size_t c = 0; c < 2; c++)
		x->b->run_free(run[c]);
	return r;
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
	const struct pmc_backend_ops *b = pmc_backend_get(backend);
	int cpus[2] = {-1, -1}, r;
	size_t n = 0;

	if (!b || b->simulated) {
		pmc_err_set(err, errlen,
			    "--duet does not apply to --backend %s: simulated counts are "
			    "exact whatever else runs; drop one of the two",
			    b ? b->name : "?");
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
			r = pmc_benchmark_set_param(b, cmds[c].param_names[k],
						    cmds[c].param_values[k]);
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
	struct pmc_backend_opts bo = {.events = o->events,
				      .user_only_fallback = o->user_only_fallback,
				      .sys = o->sys,
				      .valgrind_tool = o->valgrind_tool,
				      .program = o->valgrind_path};
	struct session x = {.o = o, .b = pmc_backend_get(o->backend), .cmds = cmds};
	size_t first = 0, rounds, taken = 0;
	char *env_desc = NULL;
	int r, cpus[2] = {-1, -1};

	if (o->tail)
		*o->tail = (struct pmc_runner_tail){0};
	if ((o->nattach || o->system_wide) && o->interval_ms) {
		pmc_err_set(err, errlen,
			    "-I reads the counters of a command pmcbench runs: not "
			    "with attached counting (-p, -a), which counts in windows");
		return -EINVAL;
	}
	if (o->nattach || o->system_wide)
		return pmc_runner_attached(cmds, ncmds, o, result, err, errlen);
	if (ncmds == 0 || o->runs == 0 || !x.b) {
		pmc_err_set(err, errlen, "nothing to run");
		return -EINVAL;
	}
	x.noted = calloc(ncmds, sizeof(*x.noted));
	r = x.noted ? x.b->session_new(&bo, &x.s) : -ENOMEM;
	if (r < 0) {
		pmc_err_set(err, errlen, "out of memory");
		return r;
	}
	if (x.b->nmetrics(x.s) == 0) {
		pmc_err_set(err, errlen, "nothing to run");
		r = -EINVAL;
		goto out;
	}
	if (o->interval_ms && (o->duet || x.b->simulated)) {
		pmc_err_set(err, errlen, "-I reads counters while a command runs: not with %s",
			    o->duet ? "--duet" : "a simulator's counts, which come at its end");
		r = -EINVAL;
		goto out;
	}
	if (o->duet) {
		r = pmc_runner_check_duet(ncmds, o->backend, cpus, err, errlen);
		if (r < 0)
			goto out;
	}
	for (size_t i = 0; i < (o->duet ? 2u : 1u); i++) {
		r = pmc_spawner_new(&x.sp[i]);
		if (r < 0) {
			pmc_err_set(err, errlen, "cannot prepare the runs: %s", strerror(-r));
			goto out;
		}
	}
	r = pmc_target_env_build(environ, o->env_inherit, o->env_keep, &x.envp, &env_desc);
	if (r == -EINVAL) {
		pmc_err_set(err, errlen,
			    "a variable to keep in the environment has an empty "
			    "name or one with '='; give names only");
		goto out;
	}
	if (r == 0)
		r = pmc_result_set_env(result, "target-env", env_desc);
	free(env_desc);
	if (r == 0)
		r = new_benchmarks(cmds, ncmds, result, &first);
	if (r < 0) {
		pmc_err_set(err, errlen, "out of memory");
		goto out;
	}

	rounds = o->warmup + o->runs;
	for (size_t c = 0; c < ncmds; c++)
		if (HOOK(c, setup) &&
		    (r = run_hook("setup", HOOK(c, setup), &cmds[c], &x, err, errlen)) < 0)
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
			r = duet_round(cmds, &result->benchmarks[first], &x, measured, run, cpus,
				       err, errlen);
			if (r < 0)
				goto out;
			continue;
		}
		for (size_t k = 0; k < ncmds; k++) {
			size_t c = (round + k) % ncmds;

			if (o->stop && *o->stop) {
				pmc_err_set(err, errlen, "interrupted");
				r = -EINTR;
				goto out;
			}
			if (o->progress)
				o->progress(o->ud, c, run, measured ? o->runs : o->warmup,
					    !measured);
			if (HOOK(c, prepare) && (r = run_hook("prepare", HOOK(c, prepare), &cmds[c],
							      &x, err, errlen)) < 0)
				goto out;
			/* With several commands, each round's runs are pairs (docs/compare.md,
			 * "Paired"). */
			r = one_run(&cmds[c], &result->benchmarks[first + c], &x, measured, run,
				    ncmds > 1 ? (unsigned)run : 0, err, errlen);
			if (r < 0)
				goto out;
		}
	}
	for (size_t c = 0; c < ncmds; c++)
		if (HOOK(c, cleanup) &&
		    (r = run_hook("cleanup", HOOK(c, cleanup), &cmds[c], &x, err, errlen)) < 0)
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
		struct pmc_derive_opts dopts = {.apart = pmc_event_list_apart,
						.apart_ud = x.b->events(x.s)};

		r = pmc_benchmark_derive(&result->benchmarks[first + c], &dopts);
		if (r < 0) {
			pmc_err_set(err, errlen, "'%s': cannot derive the metrics: %s",
				    cmds[c].display, strerror(-r));
			goto out;
		}
	}
	r = 0;
out:
	pmc_spawner_free(x.sp[0]);
	pmc_spawner_free(x.sp[1]);
	if (x.s)
		x.b->session_free(x.s);
	free(x.noted);
	free(x.envp);
	return r;
}

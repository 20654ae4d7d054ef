/* Attached counting (runner.h, pmc_runner_attached), as perf stat -p PID and -a: the
 * counters are opened once on the running processes' threads or on every CPU
 * (counters/perf/attach.h) and read as consecutive windows, each a run of one benchmark.
 * A window lasts while the load generator runs, or a duration, or until the processes
 * exit; the load generator is spawned as any command is, and never measured itself. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/error.h"
#include "core/derive.h"
#include "core/result.h"
#include "elf/buildid.h"
#include "counters/perf/attach.h"
#include "run/runner.h"
#include "run/spawn.h"
#include "run/target_env.h"

/* What the windows share. */
struct windows {
	const struct pmc_runner_opts *o;
	const struct pmc_runner_cmd *cmd; /* the load generator, or NULL */
	struct pmc_attach *at;
	struct pmc_spawner *sp;
	char **envp;
	int *pidfds; /* per attached process; -1 where pidfd_open failed */
	bool *gone;  /* per attached process: it has exited */
	struct pmc_reading *rd;
};

/* Whether every attached process has exited (kill(pid, 0): a process that is not ours is
 * reaped by its parent; until then a zombie still counts as there, and counts nothing). */
static bool all_gone(struct windows *w)
{
	bool all = w->o->nattach > 0;

	for (size_t i = 0; i < w->o->nattach; i++) {
		if (!w->gone[i] && w->pidfds[i] >= 0) {
			struct pollfd p = {.fd = w->pidfds[i], .events = POLLIN};

			w->gone[i] = poll(&p, 1, 0) > 0;
		} else if (!w->gone[i]) {
			w->gone[i] = kill(w->o->attach_pids[i], 0) < 0 && errno == ESRCH;
		}
		all = all && w->gone[i];
	}
	return all;
}

/* Waits until the duration is over (0: none), every attached process exited, or the
 * caller's stop flag is set; in steps of at most 50 ms, so that a stop is seen soon. */
static void wait_window(struct windows *w, uint64_t t0)
{
	uint64_t end = w->o->duration_s > 0 ? t0 + (uint64_t)(w->o->duration_s * 1e9) : 0;

	for (;;) {
		uint64_t t = pmc_clock_ns();
		int ms = 50;

		if ((end && t >= end) || all_gone(w) || (w->o->stop && *w->o->stop))
			return;
		if (end && end - t < 50000000u)
			ms = (int)((end - t + 999999) / 1000000);
		poll(NULL, 0, ms);
	}
}

/* Runs the load generator once; 0, or -errno with one line in err. */
static int run_load(struct windows *w, size_t n, char *err, size_t errlen)
{
	const struct pmc_runner_opts *o = w->o;
	struct pmc_spawn_opts so = {
	    .argv = w->cmd->argv,
	    .path = w->cmd->path,
	    .input_path = o->input_path,
	    .show_output = o->show_output,
	    .timeout_s = o->timeout_s,
	    .running = o->running,
	    .stop = o->stop,
	    .envp = w->envp,
	    .die_with_parent = true,
	};
	struct pmc_spawn_result sr = {0};
	int r = pmc_spawner_run(w->sp, &so, &sr);

	if (r < 0) {
		pmc_err_set(err, errlen, "cannot run '%s': %s", w->cmd->display, strerror(-r));
		return r;
	}
	if ((sr.exit_code != 0 || sr.term_signal || sr.timed_out) && !o->ignore_failure &&
	    !(o->stop && *o->stop)) {
		char how[96];

		if (sr.timed_out)
			snprintf(how, sizeof(how), "timed out and was killed");
		else if (sr.term_signal)
			snprintf(how, sizeof(how), "was killed by signal %d", sr.term_signal);
		else
			snprintf(how, sizeof(how), "exited with status %d", sr.exit_code);
		pmc_err_set(err, errlen,
			    "window %zu: the command '%s' %s; --ignore-failure keeps such "
			    "windows",
			    n, w->cmd->display, how);
		return -ECHILD;
	}
	return 0;
}

/* Records window n's readings and its length as one run of b. */
static int record_window(struct windows *w, struct pmc_benchmark *b, uint64_t wall_ns)
{
	const struct pmc_event_list *ev = w->o->events;
	struct pmc_run_info info = {0};
	struct pmc_metric *m;
	int r = pmc_benchmark_add_run(b, &info);

	for (size_t i = 0; r == 0 && i < ev->n; i++) {
		const struct pmc_reading *rd = &w->rd[i];

		r = pmc_benchmark_metric(b, ev->events[i].name, &m);
		if (r == 0 && m->n == 0) {
			char note[PMC_EVENT_NOTE_MAX];
			bool has =
			    pmc_event_note(ev, i, rd, "the attached target", note, sizeof(note));

			r = pmc_metric_describe(m, ev->events[i].unit, has ? note : NULL);
		}
		if (r == 0)
			r = pmc_metric_append(
			    m, pmc_status_has_value(rd->status) ? rd->scaled : NAN, rd);
	}
	if (r == 0)
		r = pmc_benchmark_metric(b, "wall-time", &m);
	if (r == 0)
		r = pmc_metric_append(m, (double)wall_ns, NULL);
	return r;
}

/* The benchmark's name: the option's, or the first process's (its /proc comm), or
 * "system-wide". */
static void target_name(const struct pmc_runner_opts *o, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	if (o->attach_name) {
		snprintf(buf, len, "%s", o->attach_name);
		return;
	}
	if (o->system_wide) {
		snprintf(buf, len, "system-wide");
		return;
	}
	snprintf(buf, len, "pid %d", (int)o->attach_pids[0]);
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)o->attach_pids[0]);
	if ((f = fopen(path, "r"))) {
		if (fgets(buf, (int)len, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
	if (!buf[0])
		snprintf(buf, len, "pid %d", (int)o->attach_pids[0]);
}

/* The words for the target and the windows: the fingerprint's, and the benchmark's
 * display ("pid 1234, 1 threads at the start; while 'CMD' ran"). */
static int describe_target(const struct windows *w, struct pmc_result *result,
			   struct pmc_benchmark *b)
{
	const struct pmc_runner_opts *o = w->o;
	char target[512], window[512], *display;
	size_t at = 0;
	int r;

	if (o->system_wide) {
		snprintf(target, sizeof(target), "system-wide, %zu CPUs", pmc_attach_parts(w->at));
	} else {
		at = (size_t)snprintf(target, sizeof(target), "pid");
		for (size_t i = 0; i < o->nattach && at < sizeof(target); i++)
			at += (size_t)snprintf(target + at, sizeof(target) - at, "%s%d",
					       i ? "," : " ", (int)o->attach_pids[i]);
		if (at < sizeof(target))
			snprintf(target + at, sizeof(target) - at, ", %zu thread%s at the start",
				 pmc_attach_parts(w->at), pmc_attach_parts(w->at) == 1 ? "" : "s");
	}
	if (w->cmd)
		snprintf(window, sizeof(window), "while '%s' ran", w->cmd->display);
	else if (o->duration_s > 0)
		snprintf(window, sizeof(window), "%g s", o->duration_s);
	else
		snprintf(window, sizeof(window), "until the process exited");
	r = pmc_result_set_env(result, "attach", target);
	if (r == 0)
		r = pmc_result_set_env(result, "attach-window", window);
	if (r == 0 && asprintf(&display, "%s; %s", target, window) < 0)
		r = -ENOMEM;
	if (r == 0) {
		free(b->command);
		b->command = display;
	}
	/* The build-id pins the binary the first process runs. */
	if (r == 0 && !o->system_wide) {
		char exe[64];

		snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)o->attach_pids[0]);
		pmc_build_id(exe, &b->build_id);
	}
	return r;
}

static int open_pidfds(struct windows *w)
{
	const struct pmc_runner_opts *o = w->o;

	w->pidfds = calloc(o->nattach + 1, sizeof(*w->pidfds));
	w->gone = calloc(o->nattach + 1, sizeof(*w->gone));
	if (!w->pidfds || !w->gone)
		return -ENOMEM;
	for (size_t i = 0; i < o->nattach; i++) {
#ifdef SYS_pidfd_open
		w->pidfds[i] = (int)syscall(SYS_pidfd_open, o->attach_pids[i], 0);
#else
		w->pidfds[i] = -1;
#endif
	}
	return 0;
}

static int check_opts(const struct pmc_runner_cmd *cmds, size_t ncmds,
		      const struct pmc_runner_opts *o, char *err, size_t errlen)
{
	if (o->backend != PMC_BACKEND_PERF || !o->events) {
		pmc_err_set(err, errlen,
			    "-p and -a count with the kernel's counters: --backend valgrind "
			    "cannot attach; drop it");
		return -EINVAL;
	}
	if (ncmds > 1) {
		pmc_err_set(err, errlen,
			    "-p and -a count the target while one command runs (the load); "
			    "give one command, not %zu",
			    ncmds);
		return -EINVAL;
	}
	if (o->runs == 0 || (!cmds && ncmds)) {
		pmc_err_set(err, errlen, "nothing to run");
		return -EINVAL;
	}
	return 0;
}

/* The windows: mark, wait (the load, the duration or the processes' end), read; the
 * measured ones recorded. Stops after a window in which the processes exited. */
static int take_windows(struct windows *w, struct pmc_benchmark *b, char *err, size_t errlen)
{
	const struct pmc_runner_opts *o = w->o;
	size_t total = o->warmup + o->runs;
	int r = 0;

	for (size_t k = 0; k < total; k++) {
		bool measured = k >= o->warmup;
		uint64_t t0;

		if (o->stop && *o->stop) {
			pmc_err_set(err, errlen, "interrupted");
			return -EINTR;
		}
		if (!o->system_wide && all_gone(w)) {
			if (o->note && k < total)
				o->note(o->note_ud,
					"the attached process exited: fewer windows than "
					"asked for were taken");
			break;
		}
		if ((r = pmc_attach_read(w->at, NULL)) < 0)
			break;
		t0 = pmc_clock_ns();
		if (w->cmd)
			r = run_load(w, k + 1, err, errlen);
		else
			wait_window(w, t0);
		if (r < 0)
			return r;
		if (o->stop && *o->stop) {
			pmc_err_set(err, errlen, "interrupted");
			return -EINTR;
		}
		if ((r = pmc_attach_read(w->at, w->rd)) < 0)
			break;
		if (measured && (r = record_window(w, b, pmc_clock_ns() - t0)) < 0) {
			pmc_err_set(err, errlen, "out of memory");
			return r;
		}
	}
	if (r < 0)
		pmc_err_set(err, errlen, "reading the attached counters: %s", strerror(-r));
	return r;
}

int pmc_runner_attached(const struct pmc_runner_cmd *cmds, size_t ncmds,
			const struct pmc_runner_opts *o, struct pmc_result *result, char *err,
			size_t errlen)
{
	struct pmc_attach_opts ao = {.pids = o->attach_pids,
				     .npids = o->nattach,
				     .system_wide = o->system_wide,
				     .user_only_fallback = o->user_only_fallback,
				     .sys = o->sys};
	struct windows w = {.o = o, .cmd = ncmds ? &cmds[0] : NULL};
	struct pmc_benchmark *b = NULL;
	char name[256], *env_desc = NULL;
	int r;

	if ((r = check_opts(cmds, ncmds, o, err, errlen)) < 0)
		return r;
	w.rd = calloc(o->events->n + 1, sizeof(*w.rd));
	if (!w.rd || open_pidfds(&w) < 0) {
		r = -ENOMEM;
		pmc_err_set(err, errlen, "out of memory");
		goto out;
	}
	if ((r = pmc_attach_open(o->events, &ao, &w.at, err, errlen)) < 0)
		goto out;
	if (w.cmd && ((r = pmc_spawner_new(&w.sp)) < 0 ||
		      (r = pmc_target_env_build(environ, o->env_inherit, o->env_keep, &w.envp,
						&env_desc)) < 0)) {
		pmc_err_set(err, errlen, "cannot prepare the command: %s", strerror(-r));
		goto out;
	}
	target_name(o, name, sizeof(name));
	r = pmc_result_add_benchmark(result, name, name, &b);
	if (r == 0)
		r = describe_target(&w, result, b);
	if (r == 0 && env_desc)
		r = pmc_result_set_env(result, "target-env", env_desc);
	if (r < 0) {
		pmc_err_set(err, errlen, "out of memory");
		goto out;
	}
	if ((r = pmc_attach_enable(w.at)) < 0) {
		pmc_err_set(err, errlen, "enabling the attached counters: %s", strerror(-r));
		goto out;
	}
	r = take_windows(&w, b, err, errlen);
	if (r == 0 && b->nruns == 0) {
		pmc_err_set(err, errlen,
			    "the attached process exited before a window could be counted");
		r = -ESRCH;
	}
	if (r == 0) {
		struct pmc_derive_opts dopts = {.apart = pmc_event_list_apart,
						.apart_ud = o->events};

		if ((r = pmc_benchmark_derive(b, &dopts)) < 0)
			pmc_err_set(err, errlen, "cannot derive the metrics: %s", strerror(-r));
	}
out:
	pmc_attach_close(w.at);
	pmc_spawner_free(w.sp);
	for (size_t i = 0; w.pidfds && i < o->nattach; i++)
		if (w.pidfds[i] >= 0)
			close(w.pidfds[i]);
	free(w.pidfds);
	free(w.gone);
	free(w.rd);
	free(w.envp);
	free(env_desc);
	return r;
}

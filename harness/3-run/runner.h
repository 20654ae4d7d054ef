/* The runner: warm-up, repeated and interleaved runs of commands measured by a backend
 * (counters/backend.h: perf's counters, valgrind's simulation, ...), each run recorded in
 * the result model with its readings, wait4 figures and derived metrics. */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "counters/backend.h"
#include "counters/perf/events.h"
#include "counters/perf/sys.h"
#include "run/spawn.h"

struct pmc_result;

/* The slots of pmc_runner_opts.running: one per command that may run at a time (a duet
 * runs two). */
#define PMC_RUNNER_SLOTS 2

struct pmc_runner_cmd {
	const char *name;    /* benchmark name in the result */
	const char *display; /* the command as the user wrote it */
	char *const *argv;   /* NULL-terminated */
	const char *path;    /* the resolved executable (PATH searched once), or NULL */
	/* The command's own setup, prepare and cleanup (pmc_runner_opts), each replacing the
	 * options' when set: a parameter scan substitutes its values in them. */
	const char *setup, *prepare, *cleanup;
	/* The parameters that made this command (run -L), recorded with its benchmark:
	 * nparams names and their values. */
	const char *const *param_names;
	const char *const *param_values;
	size_t nparams;
};

/* The end of what a failed command wrote to its standard error (pmc_runner_opts.tail). */
#define PMC_RUNNER_TAIL_LINES 10
struct pmc_runner_tail {
	/* Its last lines (at most PMC_RUNNER_TAIL_LINES, from its last PMC_SPAWN_TAIL_MAX
	 * bytes), '\n' between them, without the final newline, raw (for the caller to
	 * escape); "" when it wrote nothing. */
	char text[PMC_SPAWN_TAIL_MAX + 1];
	size_t lines;	/* lines in text */
	uint64_t bytes; /* all it wrote to standard error */
	bool cut;	/* text is not all of it */
	bool partial;	/* text starts within a line (a line longer than the bytes kept) */
};

struct pmc_runner_opts {
	size_t sz; /* sizeof(struct pmc_runner_opts) */
	size_t runs, warmup;
	double timeout_s; /* per run; <= 0 none */
	bool show_output;
	const char *input_path;
	bool ignore_failure;		     /* a failing run is recorded, not an error */
	enum pmc_backend backend;	     /* the registry's (counters/backend.h) */
	const struct pmc_event_list *events; /* perf backend */
	bool user_only_fallback;
	const struct pmc_sys *sys; /* NULL: the kernel; with duet, called from two threads */
	int valgrind_tool;	   /* enum pmc_valgrind_tool */
	const char *valgrind_path; /* from the backend's find */
	/* The commands' environment, on both backends (target_env.h): by default a
	 * normalized one (the caller's HOME, PATH and TMPDIR, and those named in env_keep,
	 * NULL-terminated; LC_ALL=C); with env_inherit, the caller's whole environment. The
	 * result's fingerprint records which ("target-env"). */
	bool env_inherit;
	const char *const *env_keep;
	/* Duet runs (docs/compare.md, "Duet runs"): the two commands of each round run at the
	 * same time, each pinned to a CPU of its own, the first command on the first CPU in
	 * odd rounds and on the second in even ones. Needs what pmc_runner_check_duet
	 * checks; the first two CPUs this process may use are taken. */
	bool duet;
	/* Shell commands (sh -c) around the runs, as hyperfine's options: setup once before
	 * each command's first run, prepare before every run of it (warm-ups included),
	 * cleanup once after its last; none is measured, each runs in the commands'
	 * environment with their output settings, and one that fails is an error naming it.
	 * NULL: none. */
	const char *setup, *prepare, *cleanup;
	/* When set (perf backend, without show_output), each command's standard error is
	 * kept in a memory file rather than thrown away (pmc_spawn_opts.capture_stderr), and
	 * when a run, setup, prepare or cleanup fails, the end of what it wrote is put here
	 * for the caller to show beside err; otherwise tail->text is "". */
	struct pmc_runner_tail *tail;
	/* When set and non-zero (e.g. by a signal handler), no further run starts. */
	volatile sig_atomic_t *stop;
	/* When set, PMC_RUNNER_SLOTS entries, each the pid (and process group) of a command
	 * being waited for, else 0 (pmc_spawn_opts.running): a sequential run uses the first,
	 * a duet both. For the caller's signal handler, which stops every non-zero one with
	 * kill(-pid, SIGKILL). */
	volatile sig_atomic_t *running;
	/* Called before each measured or warm-up run, e.g. for a progress line; in a duet,
	 * for both commands before their round. */
	void (*progress)(void *ud, size_t cmd, size_t run, size_t runs, bool warmup);
	void *ud;
	/* Called with round_ud after each measured round (from 1) when set: true ends the
	 * run there, before runs rounds (--runs auto; the result holds the rounds taken). */
	bool (*round_done)(void *round_ud, const struct pmc_result *r, size_t round);
	void *round_ud;
	/* Called with a note for the user when set: what a command's run left running and
	 * was ended (run/leftovers.h), the first time for each command. */
	void (*note)(void *note_ud, const char *text);
	void *note_ud;
	/* Attached counting (pmc_runner_attached; docs/cli.md, run -p and -a): instead of
	 * measuring the commands, count the nattach processes attach_pids names (every thread
	 * each has, and what those start) or, with system_wide, every online CPU, in warmup
	 * + runs consecutive windows, each while the one command runs (a load generator:
	 * spawned, waited for, never measured itself), or for duration_s (> 0), or until
	 * the processes exit. attach_name names the benchmark (NULL: the first process's
	 * name, or "system-wide"). */
	const pid_t *attach_pids;
	size_t nattach;
	bool system_wide;
	double duration_s;
	const char *attach_name;
	/* run -I (docs/metrics.md, "Intervals"): when >= 10, each measured run's counters
	 * are read every interval_ms while its command runs, and the run gets its counts
	 * per interval (pmc_benchmark_set_intervals). Not with duet or a simulating
	 * backend (-EINVAL). 0: none. */
	unsigned interval_ms;
};

/* The shortest interval_ms (perf stat's, too). */
#define PMC_RUNNER_INTERVAL_MIN_MS 10

/* Runs every command opts->warmup + opts->runs times, interleaved (round r starts with
 * command r mod n, so drift and order effects hit all commands alike) or, with duet, the
 * two at once, and adds one benchmark per command to result, with the design of the
 * rounds when there are several commands, and records the commands' environment in
 * result's fingerprint (key "target-env": its policy, names and size, never a value).
 * Returns 0; -EINVAL for a bad name in env_keep or a duet that cannot run; on a failed
 * run (non-zero exit, signal, timeout; unless ignore_failure), a command that cannot be
 * executed, or a failed measurement, returns a negative errno with one line in err
 * naming the command and the run. */
int pmc_runner_run(const struct pmc_runner_cmd *cmds, size_t ncmds, const struct pmc_runner_opts *o,
		   struct pmc_result *result, char *err, size_t errlen);

/* Attached counting, as o's attach fields say, with at most one command (the load
 * generator): one benchmark whose runs are the windows, each with its counts and its
 * wall-time, and the result's fingerprint naming the target ("attach") and the windows
 * ("attach-window"). A window that ends because the processes exited is the last.
 * Returns 0, or -errno with one line in err: -ESRCH (no such process), -EACCES (the kernel
 * refuses the target), -EINVAL (the valgrind backend; several commands), -ECHILD (the
 * command failed, unless ignore_failure), -EINTR (stopped). pmc_runner_run calls it when
 * o names a target. */
int pmc_runner_attached(const struct pmc_runner_cmd *cmds, size_t ncmds,
			const struct pmc_runner_opts *o, struct pmc_result *result, char *err,
			size_t errlen);

/* Checks that a duet can run: two commands, the perf backend, and two CPUs this process
 * may use (sched_getaffinity: taskset and cgroup cpusets narrow it); the first two go to
 * ret_cpus (may be NULL). Returns 0, or -EINVAL (another -errno when the CPUs cannot be
 * read) with one line in err. */
int pmc_runner_check_duet(size_t ncmds, enum pmc_backend backend, int ret_cpus[2], char *err,
			  size_t errlen);

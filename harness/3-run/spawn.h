/* Spawning one run of a command: clone, let the caller open counters in the child
 * before it execs, exec, wait with a timeout, and collect wait4's figures. */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

struct pmc_spawn_opts {
	char *const *argv;	 /* argv[0] is looked up in PATH unless path is given */
	const char *path;	 /* the executable, already resolved, or NULL */
	const char *input_path;	 /* stdin of the target, or NULL for /dev/null */
	bool show_output;	 /* otherwise stdout and stderr go to /dev/null */
	double timeout_s;	 /* <= 0: none */
	bool timeout_by_polling; /* the fallback used where pidfd_open fails; for tests */
	bool no_aslr;		 /* personality(ADDR_NO_RANDOMIZE) in the child */
	/* The target's environment ("NAME=value", NULL-terminated), built before the call
	 * (pmc_target_env_build): the child only hands it to exec. NULL: this process's. */
	char *const *envp;
	/* Above 2: the target's standard output (its stderr still follows show_output);
	 * 0: as show_output says. */
	int stdout_fd;
	/* Without show_output: the target's standard error goes to a memory file instead
	 * of /dev/null, and its last bytes (at most PMC_SPAWN_TAIL_MAX) come back in the
	 * result, for the message of a run that failed. The file never blocks the target
	 * (unlike a pipe) and is kept small while the target runs: all but its last
	 * PMC_SPAWN_TAIL_KEEP bytes are dropped every PMC_SPAWN_TAIL_TICK_MS (a hole punched
	 * in it), so a command that writes gigabytes to stderr costs little memory. */
	bool capture_stderr;
	/* When set, holds the pid (and process group) of the child while it is waited for,
	 * else 0: a signal handler of the caller's can stop it (kill(-pid, SIGKILL)) when the
	 * user interrupts. The library keeps no such state of its own. Two runs at once
	 * (pmc_spawner_pair) need a slot each. */
	volatile sig_atomic_t *running;
	/* When set and non-zero once running holds the child (the caller's handler ran
	 * before it could see the pid), the child's process group is killed at once. */
	volatile sig_atomic_t *stop;
	/* With pin, the child may run on CPU cpu (>= 0) only: sched_setaffinity in the child
	 * before in_child and exec, so its counters and the command start there, and what
	 * the command starts inherits it. A CPU the child cannot be given (offline, absent,
	 * outside this process's cgroup cpuset) fails the run with -EINVAL. Without pin (the
	 * zeroed default) cpu is ignored and the child runs where this process may. */
	bool pin;
	int cpu;
	/* Called in the child just before exec, e.g. to open counters on itself (pid 0).
	 * The child shares the parent's memory and file-descriptor table at that point
	 * (clone with CLONE_VM|CLONE_VFORK|CLONE_FILES, the calling thread waits), so what it
	 * opens or allocates is the parent's once pmc_spawn_run returns; it must not print.
	 * It may take a lock another thread holds only if that thread is sure to release
	 * it (the memory is shared, so it sees the release; a fork's child would not). A
	 * negative return aborts the run and is returned by pmc_spawn_run. */
	int (*in_child)(void *ud);
	void *ud;
	/* The child is killed (SIGKILL) when the thread that started it ends
	 * (PR_SET_PDEATHSIG, kept across exec): a benchmark program's valgrind or profile
	 * child must not outlive the program. */
	bool die_with_parent;
	/* With tick_ms > 0: on_tick(tick_ud, t) on the waiting thread every tick_ms while
	 * the child runs (run -I), t the time since the run's start (as wall_ns), the ticks
	 * at multiples of tick_ms from it (one missed is skipped, not made up). A non-zero
	 * return ends the ticks; the wait goes on. */
	unsigned tick_ms;
	int (*on_tick)(void *tick_ud, uint64_t elapsed_ns);
	void *tick_ud;
};

/* The most of a captured stderr that comes back; what is kept while the target runs;
 * how often the memory file is trimmed (needs pidfd_open, Linux 5.3: without it the
 * file is trimmed only when a timeout makes the wait poll). */
#define PMC_SPAWN_TAIL_MAX 2048
#define PMC_SPAWN_TAIL_KEEP (64 * 1024)
#define PMC_SPAWN_TAIL_TICK_MS 100

struct pmc_spawn_result {
	pid_t pid;	  /* the child's, and its process group's, now reaped */
	int exit_code;	  /* -1 when killed by a signal */
	int term_signal;  /* 0 unless killed by a signal */
	bool timed_out;	  /* killed by us after timeout_s */
	uint64_t wall_ns; /* from the start of the child to its reaping */
	struct rusage ru; /* of the child and all its waited-for descendants */
	/* Our own peak RSS in KiB once the child had exec'd (0: unknown), the peak reset to
	 * our RSS just before the clone. exec keeps the peak of the image it replaces in
	 * ru_maxrss, and the child starts in our memory (CLONE_VM), so an ru.ru_maxrss at
	 * or below it may be ours, not the command's (fs/exec.c, exec_mmap:
	 * setmax_mm_hiwater_rss). */
	long spawner_peak_kb;
	/* How far apart two readings of one RSS may be (KiB): the kernel counts a task's
	 * pages per CPU and folds each CPU's count into the total only past a batch
	 * (mm_struct.rss_stat, lib/percpu_counter.c: percpu_counter_batch is max(32, 2 x
	 * CPUs) pages), so exec's peak and ours may differ by up to batch x CPUs pages. An
	 * ru_maxrss within it of spawner_peak_kb may still be ours. */
	long spawner_peak_slack_kb;
	/* With capture_stderr: the size of all the target wrote to stderr, and its last
	 * stderr_tail_len bytes (at most PMC_SPAWN_TAIL_MAX), NUL-terminated, each NUL
	 * byte of the output as a space; otherwise 0 and "". */
	uint64_t stderr_bytes;
	size_t stderr_tail_len;
	char stderr_tail[PMC_SPAWN_TAIL_MAX + 1];
};

/* Runs one command to completion. Returns 0 when the command ran (whatever its exit
 * status), -ENOENT/-EACCES/-ENOEXEC... when it could not be executed (errno from the
 * child's exec), or another -errno when spawning failed. Only the calling thread waits:
 * other threads may run commands at the same time. */
int pmc_spawn_run(const struct pmc_spawn_opts *opts, struct pmc_spawn_result *ret);

/* What a series of runs on one thread shares, made once instead of per run: /dev/null,
 * the /proc files of the max-rss floor (spawner_peak_kb), the child's stack and the
 * stderr capture file, emptied after each run and made anew when the last run's process
 * group is still alive or something wrote to it since. pmc_spawner_run is pmc_spawn_run
 * through sp, with the same results; one thread at a time may use a spawner, in the
 * process that made it. */
struct pmc_spawner;
int pmc_spawner_new(struct pmc_spawner **ret);
void pmc_spawner_free(struct pmc_spawner *sp); /* NULL: nothing */
int pmc_spawner_run(struct pmc_spawner *sp, const struct pmc_spawn_opts *opts,
		    struct pmc_spawn_result *ret);
/* Tells sp that the process group pgid of its last run has no member left (a kill of it
 * failed with ESRCH), so the next run reuses the capture file without looking again. */
void pmc_spawner_group_gone(struct pmc_spawner *sp, pid_t pgid);

/* For a caller that raised this process's soft RLIMIT_NOFILE (the CLI, for the counters'
 * descriptors, as perf does): every target spawned from then on gets soft instead, the
 * limit it would have had, so raising it changes nothing the command sees (a program
 * that sizes tables by it, or select()s on descriptors, behaves as without pmcbench).
 * 0: the targets inherit this process's. Set it before spawning from several threads. */
void pmc_spawn_set_nofile(rlim_t soft);

/* Runs two commands at the same time and waits for both: opts[1] on a thread started for
 * it, opts[0] on the calling thread, both released together by a barrier once the thread
 * is up, through two distinct spawners, sp[i] for opts[i] (sp NULL: a spawner made for
 * each run). rc[i] is what pmc_spawn_run returned for opts[i] and ret[i] its result (left
 * untouched when rc[i] < 0). Returns 0 once both were waited for, whatever they did;
 * -EINVAL for missing options; or -errno when the thread could not be started, and then
 * neither command ran. */
int pmc_spawner_pair(struct pmc_spawner *const sp[2], const struct pmc_spawn_opts *const opts[2],
		     struct pmc_spawn_result ret[2], int rc[2]);

/* Runs path (argv as given, no PATH search) with a timeout of timeout_s seconds and
 * keeps the first line of its standard output, without the newline, in buf (len > 0).
 * Returns 0; -EIO when it printed nothing, exited non-zero or was killed; or what
 * pmc_spawn_run returns. */
int pmc_spawn_capture_line(const char *path, char *const *argv, double timeout_s, char *buf,
			   size_t len);

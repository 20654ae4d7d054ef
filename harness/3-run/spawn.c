/* One run of a command, or two at once (pmc_spawner_pair, one per thread). The child is
 * made with clone(CLONE_VM|CLONE_VFORK), as glibc's posix_spawn does: no page tables are
 * copied and the calling thread waits until the child has exec'd. Before exec the child
 * may run a hook (the runner opens the counters on the child itself there, disabled until
 * the exec enables them, so nothing the harness does is counted). An exec failure comes
 * back through the shared memory, so "command not found" is told apart from "exited
 * 127". */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "run/spawn.h"

/* Drops all but the last PMC_SPAWN_TAIL_KEEP bytes of the stderr capture file by punching
 * a hole from *punched on: the file's size and the target's offset stay, only its pages
 * go, so a long stream of stderr holds little memory. */
static void trim_capture(int fd, off_t *punched)
{
	struct stat st;
	off_t end;

	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size <= 2 * PMC_SPAWN_TAIL_KEEP)
		return;
	end = (st.st_size - PMC_SPAWN_TAIL_KEEP) & ~(off_t)4095;
	if (end > *punched && fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, *punched,
					end - *punched) == 0)
		*punched = end;
}

/* The next tick's time after now (ticks at t0 + k * tick_ms), calling on_tick when one is
 * due; UINT64_MAX once there are none. */
static uint64_t tick(const struct pmc_spawn_opts *o, uint64_t t0, uint64_t next)
{
	uint64_t t = pmc_clock_ns(), period = (uint64_t)o->tick_ms * 1000000u;

	if (next == UINT64_MAX || t < next)
		return next;
	if (o->on_tick(o->tick_ud, t - t0) != 0)
		return UINT64_MAX;
	while (next <= t)
		next += period;
	return next;
}

/* Waits for the child, killing its process group after o->timeout_s (> 0), and trims the
 * stderr capture file (capture_fd, or -1) while it runs. pidfd: the child's from clone,
 * or -1 (made here when needed); closed here. */
static int wait_child(pid_t pid, int pidfd, const struct pmc_spawn_opts *o, int capture_fd,
		      uint64_t t0, int *ret_status, struct rusage *ru, bool *ret_timed_out)
{
	volatile sig_atomic_t *running = o->running, *stop = o->stop;
	bool timed = o->timeout_s > 0, ticking = o->tick_ms > 0 && o->on_tick;
	uint64_t next_tick = ticking ? t0 + (uint64_t)o->tick_ms * 1000000u : UINT64_MAX;

	*ret_timed_out = false;
	if (running)
		*running = pid;
	/* An interrupt that came before the slot held the pid found nothing to stop. */
	if (stop && *stop)
		kill(-pid, SIGKILL);
	if (timed || capture_fd >= 0 || ticking) {
		int ms = o->timeout_s * 1000 > 2e9 ? 2000000000 : (int)(o->timeout_s * 1000 + 0.5);
		uint64_t deadline = pmc_clock_ns() + (uint64_t)ms * 1000000u;
		bool expired = false;
		off_t punched = 0;

		if (pidfd < 0 && !o->timeout_by_polling)
			pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
		if (pidfd >= 0) {
			for (;;) {
				struct pollfd p = {.fd = pidfd, .events = POLLIN};
				int wait_ms = -1, n;

				if (timed) {
					uint64_t t = pmc_clock_ns();

					expired = t >= deadline;
					if (expired)
						break;
					wait_ms = (int)((deadline - t + 999999) / 1000000);
				}
				if (capture_fd >= 0 &&
				    (wait_ms < 0 || wait_ms > PMC_SPAWN_TAIL_TICK_MS))
					wait_ms = PMC_SPAWN_TAIL_TICK_MS;
				if (next_tick != UINT64_MAX) {
					uint64_t t = pmc_clock_ns();
					int to_tick =
					    t >= next_tick
						? 0
						: (int)((next_tick - t + 999999) / 1000000);

					if (wait_ms < 0 || wait_ms > to_tick)
						wait_ms = to_tick;
				}
				n = poll(&p, 1, wait_ms);
				if (n > 0 || (n < 0 && errno != EINTR))
					break;
				next_tick = tick(o, t0, next_tick);
				trim_capture(capture_fd, &punched);
			}
			close(pidfd);
			pidfd = -1;
		} else if (timed || ticking) {
			/* No pidfd (before Linux 5.3, or filtered by seccomp): poll for the exit
			 * every millisecond rather than lose the timeout or the ticks. */
			struct timespec pause = {0, 1000000};

			for (unsigned i = 1;; i++) {
				siginfo_t si = {0};

				/* WNOWAIT: wait4 below reaps it and collects its rusage. */
				if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT | WNOHANG) <
					0 ||
				    si.si_pid == pid)
					break;
				expired = timed && pmc_clock_ns() >= deadline;
				if (expired)
					break;
				nanosleep(&pause, NULL);
				next_tick = tick(o, t0, next_tick);
				if (i % PMC_SPAWN_TAIL_TICK_MS == 0)
					trim_capture(capture_fd, &punched);
			}
		}
		if (expired) {
			/* The whole process group, so grandchildren do not linger. */
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			*ret_timed_out = true;
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	while (wait4(pid, ret_status, 0, ru) < 0) {
		if (errno != EINTR) {
			if (running)
				*running = 0;
			return -errno;
		}
	}
	if (running)
		*running = 0;
	return 0;
}

/* The last bytes of the capture file into res, NUL bytes as spaces so the tail is a
 * string. Returns the file's size, or -1 when it cannot be told. */
static off_t read_tail(int fd, struct pmc_spawn_result *res)
{
	struct stat st;
	size_t n;
	ssize_t got;

	if (fstat(fd, &st) < 0)
		return -1;
	if (st.st_size <= 0)
		return st.st_size;
	n = (uint64_t)st.st_size < PMC_SPAWN_TAIL_MAX ? (size_t)st.st_size : PMC_SPAWN_TAIL_MAX;
	got = pread(fd, res->stderr_tail, n, st.st_size - (off_t)n);
	if (got < 0)
		got = 0;
	for (ssize_t i = 0; i < got; i++)
		if (res->stderr_tail[i] == '\0')
			res->stderr_tail[i] = ' ';
	res->stderr_tail[got] = '\0';
	res->stderr_tail_len = (size_t)got;
	res->stderr_bytes = (uint64_t)st.st_size;
	return st.st_size;
}

/* The soft RLIMIT_NOFILE the targets get (pmc_spawn_set_nofile); 0: this process's. */
static rlim_t target_nofile;

void pmc_spawn_set_nofile(rlim_t soft)
{
	target_nofile = soft;
}

struct child_args {
	const struct pmc_spawn_opts *o;
	int in_fd, null_fd;
	int err_fd;	 /* the target's stderr without show_output: null_fd or the capture file */
	cpu_set_t *cpus; /* with o->pin: the one CPU, allocated by the parent */
	size_t cpus_size;
	pid_t parent;	  /* with o->die_with_parent */
	volatile int err; /* written by the child, read by the parent after it resumes */
};

/* The child: runs on its own stack in the parent's memory while the calling thread is
 * suspended, so it only makes system calls (and the in_child hook). Not instrumented by
 * AddressSanitizer: its stack is not one ASan knows, and the check it puts before _exit
 * (__asan_handle_no_return) prints a warning of a "false positive" on every child that
 * fails before its exec. */
#if defined(__SANITIZE_ADDRESS__)
#define PMC_NO_ASAN __attribute__((no_sanitize_address))
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PMC_NO_ASAN __attribute__((no_sanitize_address))
#endif
#endif
#ifndef PMC_NO_ASAN
#define PMC_NO_ASAN
#endif
PMC_NO_ASAN static int child(void *p)
{
	struct child_args *a = p;
	const struct pmc_spawn_opts *o = a->o;
	int r;

	/* Its own process group, so a timeout or Ctrl-C stops everything it starts. */
	setpgid(0, 0);
	/* A parent that ended before the call is seen after it. */
	if (o->die_with_parent && prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		goto fail;
	if (o->die_with_parent && getppid() != a->parent) {
		a->err = -ESRCH;
		_exit(127);
	}
	/* Pinned before the hook, so its counters and the command start on that CPU. */
	if (a->cpus && sched_setaffinity(0, a->cpus_size, a->cpus) < 0)
		goto fail;
	if (o->in_child) {
		r = o->in_child(o->ud);
		if (r < 0) {
			a->err = r;
			_exit(127);
		}
		/* What the hook opened is in the shared table, so the parent has it. From
		 * here on the table is the child's own copy: its dup2 calls must not touch the
		 * parent's descriptors, and exec closes its copies of the close-on-exec ones. */
		if (unshare(CLONE_FILES) < 0)
			goto fail;
	}
	if (dup2(a->in_fd, STDIN_FILENO) < 0)
		goto fail;
	if (!o->show_output &&
	    (dup2(a->null_fd, STDOUT_FILENO) < 0 || dup2(a->err_fd, STDERR_FILENO) < 0))
		goto fail;
	if (o->stdout_fd > STDERR_FILENO && dup2(o->stdout_fd, STDOUT_FILENO) < 0)
		goto fail;
	if (o->no_aslr)
		personality(ADDR_NO_RANDOMIZE);
	if (target_nofile) {
		/* After the hook, which opens counters under our raised limit. Rlimits are the
		 * child's own (no CLONE_THREAD); its descriptors above the limit stay open. */
		struct rlimit rl;

		if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
			goto fail;
		rl.rlim_cur = target_nofile < rl.rlim_max ? target_nofile : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			goto fail;
	}
	/* execvpe searches this process's PATH, as execvp does, whatever envp holds. */
	if (o->path)
		execve(o->path, o->argv, o->envp ? o->envp : environ);
	else
		execvpe(o->argv[0], o->argv, o->envp ? o->envp : environ);
fail:
	a->err = -errno;
	_exit(127);
}

/* The child's stack: one per spawner, and a spawner per thread that spawns, since another
 * thread may be running a command of its own at the same time. */
#define STACK_SIZE (256 * 1024)
/* Above any kernel's NR_CPUS (8192 at most today): a bigger number is a mistake, and its
 * mask would be a large allocation. */
#define MAX_CPU (1 << 16)

/* What a series of runs shares (pmc_spawner_new): opened once, not per run. */
struct pmc_spawner {
	int null_fd;
	/* /proc/self/clear_refs and /proc/self/statm, kept open: each run writes the one
	 * and reads the other again (a read at offset 0 of a proc file makes it anew), so
	 * only the path lookups are saved; -1 where /proc cannot be opened. */
	int clear_refs_fd, statm_fd;
	long page_kb;
	long rss_before; /* our RSS in pages as the run's peak was reset, or -1 */
	char *stack;	 /* the child's, reused: the parent waits until the child has exec'd */
	/* The stderr capture file of the last run, emptied for the next (-1: none yet). It
	 * is made anew when something may still write to it (capture_pgid below). */
	int capture_fd;
	pid_t capture_pgid; /* the process group of the run that had it, or 0 */
	long peak_slack_kb; /* pmc_spawn_result.spawner_peak_slack_kb, found once */
	pid_t pid;	    /* this process's (the /proc/self files above are its own too) */
};

/* pmc_spawn_result.spawner_peak_slack_kb for this machine. */
static long rss_slack_kb(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN), page = sysconf(_SC_PAGESIZE);
	long batch;

	if (cpus < 1)
		cpus = 1;
	if (page < 1)
		page = 4096;
	batch = 2 * cpus > 32 ? 2 * cpus : 32;
	return batch * cpus * (page / 1024);
}

void pmc_spawner_free(struct pmc_spawner *sp)
{
	if (!sp)
		return;
	if (sp->stack && sp->stack != MAP_FAILED)
		munmap(sp->stack, STACK_SIZE);
	if (sp->capture_fd >= 0)
		close(sp->capture_fd);
	if (sp->statm_fd >= 0)
		close(sp->statm_fd);
	if (sp->clear_refs_fd >= 0)
		close(sp->clear_refs_fd);
	if (sp->null_fd >= 0)
		close(sp->null_fd);
	free(sp);
}

int pmc_spawner_new(struct pmc_spawner **ret)
{
	struct pmc_spawner *sp = calloc(1, sizeof(*sp));
	int r;

	if (!sp)
		return -ENOMEM;
	sp->clear_refs_fd = sp->statm_fd = sp->capture_fd = -1;
	sp->peak_slack_kb = rss_slack_kb();
	sp->pid = getpid();
	sp->page_kb = sysconf(_SC_PAGESIZE) / 1024;
	if (sp->page_kb < 1)
		sp->page_kb = 4;
	sp->null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (sp->null_fd < 0) {
		r = -errno;
		goto fail;
	}
	/* Where /proc cannot do it, the peak stays (clear_refs) or is unknown (statm),
	 * which only makes more commands' max-rss "not measured". */
	sp->clear_refs_fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
	sp->statm_fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	/* Pages are touched only as used, and kept from run to run. */
	sp->stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
	if (sp->stack == MAP_FAILED) {
		r = -errno;
		goto fail;
	}
	*ret = sp;
	return 0;
fail:
	pmc_spawner_free(sp);
	return r;
}

/* This process's resident set in pages, the second field of /proc/self/statm (proc(5)),
 * or -1 when it cannot be read. */
static long own_rss_pages(const struct pmc_spawner *sp)
{
	char buf[128], *end;
	long pages;
	ssize_t n;

	if (sp->statm_fd < 0)
		return -1;
	n = pread(sp->statm_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	strtol(buf, &end, 10);
	pages = strtol(end, &end, 10);
	return end > buf && pages >= 0 ? pages : -1;
}

/* Lowers this process's recorded peak RSS to its current RSS (clear_refs "5":
 * proc(5)), so that a child's exec keeps our RSS of now, not the largest we ever had,
 * in its ru_maxrss; the RSS of now is kept for own_peak_rss_kb. */
static void reset_own_peak(struct pmc_spawner *sp)
{
	sp->rss_before = own_rss_pages(sp);
	if (sp->clear_refs_fd >= 0 && write(sp->clear_refs_fd, "5", 1) < 0) {
		/* nothing: the peak stays, see pmc_spawner_new */
	}
}

/* The peak RSS in KiB that the child's exec kept from our memory, read once it has
 * exec'd; 0 when it cannot be read. exec keeps the larger of our recorded peak and our
 * RSS of then (fs/exec.c, exec_mmap: setmax_mm_hiwater_rss), and the reset made the
 * peak our RSS of the reset (task_mmu.c, reset_mm_hiwater_rss). Between the two only the
 * child ran in our memory, touching its stack and unmapping nothing; only a fall of the
 * RSS (an unmap, or reclaim) records a peak (update_hiwater_rss). So the peak exec kept
 * is the larger of our RSS at the reset and now, which VmHWM of /proc/self/status says
 * too; statm costs a fraction of the time (status is made whole for each read). Reclaim
 * of our pages within that window could leave the peak above both, by what it took. */
static long own_peak_rss_kb(const struct pmc_spawner *sp)
{
	long now = own_rss_pages(sp);

	if (now < 0 || sp->rss_before < 0)
		return 0;
	return (now > sp->rss_before ? now : sp->rss_before) * sp->page_kb;
}

/* The capture file for the next run: the last one emptied, or a new one when the last
 * run's process group still has members (a background process of the command may still
 * write to it) or something wrote to it since (a descendant that left the group), so
 * no run's tail shows another's output. Returns the descriptor or -errno. */
static int capture_file(struct pmc_spawner *sp)
{
	struct stat st;

	if (sp->capture_fd >= 0 &&
	    ((sp->capture_pgid > 0 && (kill(-sp->capture_pgid, 0) == 0 || errno != ESRCH)) ||
	     fstat(sp->capture_fd, &st) < 0 || st.st_size != 0)) {
		close(sp->capture_fd);
		sp->capture_fd = -1;
	}
	sp->capture_pgid = 0;
	if (sp->capture_fd < 0) {
		sp->capture_fd = memfd_create("pmc-stderr", MFD_CLOEXEC);
		if (sp->capture_fd < 0)
			return -errno;
	}
	return sp->capture_fd;
}

void pmc_spawner_group_gone(struct pmc_spawner *sp, pid_t pgid)
{
	/* A group with no member is no more: none can join it, and a process that made a
	 * new one with that number (a pid reused) never had the file. */
	if (sp && pgid > 0 && sp->capture_pgid == pgid)
		sp->capture_pgid = 0;
}

/* Empties the capture file after its run: size and offset (the target's stderr shared
 * it) back to 0. size: its size as read_tail found it, or -1. One that cannot be emptied
 * is dropped. */
static void empty_capture(struct pmc_spawner *sp, off_t size)
{
	struct stat st;

	if (size < 0)
		size = fstat(sp->capture_fd, &st) == 0 ? st.st_size : -1;
	if (size == 0 && lseek(sp->capture_fd, 0, SEEK_CUR) == 0)
		return;
	if (ftruncate(sp->capture_fd, 0) < 0 || lseek(sp->capture_fd, 0, SEEK_SET) != 0) {
		close(sp->capture_fd);
		sp->capture_fd = -1;
	}
}

int pmc_spawn_run(const struct pmc_spawn_opts *o, struct pmc_spawn_result *ret)
{
	struct pmc_spawner *sp;
	int r;

	if (!o || !o->argv || !o->argv[0] || (o->pin && (o->cpu < 0 || o->cpu >= MAX_CPU)))
		return -EINVAL;
	r = pmc_spawner_new(&sp);
	if (r < 0)
		return r;
	r = pmc_spawner_run(sp, o, ret);
	pmc_spawner_free(sp);
	return r;
}

int pmc_spawner_run(struct pmc_spawner *sp, const struct pmc_spawn_opts *o,
		    struct pmc_spawn_result *ret)
{
	struct child_args a = {.o = o, .in_fd = -1, .null_fd = -1, .err_fd = -1};
	struct pmc_spawn_result res = {0};
	off_t capture_size = -1;
	/* CLONE_FILES hands what the in_child hook opens to the parent. */
	int flags = CLONE_VM | CLONE_VFORK | SIGCHLD | (o && o->in_child ? CLONE_FILES : 0);
	int status = 0, capture_fd = -1, pidfd = -1, r;
	bool polls;
	uint64_t t0;
	pid_t pid;

	if (!sp || !o || !o->argv || !o->argv[0] || (o->pin && (o->cpu < 0 || o->cpu >= MAX_CPU)))
		return -EINVAL;
	a.null_fd = sp->null_fd;
	a.in_fd = o->input_path ? open(o->input_path, O_RDONLY | O_CLOEXEC) : a.null_fd;
	if (a.in_fd < 0)
		return -errno;
	/* A memory file rather than a pipe: nothing has to read it while the target runs,
	 * and the target never blocks on it. */
	if (o->capture_stderr && !o->show_output) {
		capture_fd = capture_file(sp);
		if (capture_fd < 0) {
			r = capture_fd;
			goto out;
		}
	}
	a.err_fd = capture_fd >= 0 ? capture_fd : a.null_fd;
	if (o->pin) {
		/* Allocated here: the child only makes system calls. Sized for the CPU, so a
		 * machine with more than CPU_SETSIZE CPUs works too. */
		a.cpus = CPU_ALLOC((size_t)o->cpu + 1);
		if (!a.cpus) {
			r = -ENOMEM;
			goto out;
		}
		a.cpus_size = CPU_ALLOC_SIZE((size_t)o->cpu + 1);
		CPU_ZERO_S(a.cpus_size, a.cpus);
		CPU_SET_S((size_t)o->cpu, a.cpus_size, a.cpus);
	}
	/* The wait polls the child's pidfd (wait_child): the clone makes it, which saves a
	 * pidfd_open. */
	polls = (o->timeout_s > 0 || capture_fd >= 0 || (o->tick_ms > 0 && o->on_tick)) &&
		!o->timeout_by_polling;
	/* The clock starts before the clone: the parent resumes only once the child has
	 * exec'd, and by then a short command may already have finished on another CPU.
	 * The child's few syscalls before exec are counted in wall time, not in its counters. */
	reset_own_peak(sp);
	t0 = pmc_clock_ns();
	a.parent = sp->pid;
	pid = clone(child, sp->stack + STACK_SIZE, flags | (polls ? CLONE_PIDFD : 0), &a, &pidfd);
	if (pid < 0 && polls) {
		/* A kernel before 5.2, or a filter, that refuses CLONE_PIDFD: the wait makes
		 * its own, or polls without. */
		pidfd = -1;
		pid = clone(child, sp->stack + STACK_SIZE, flags, &a);
	}
	if (pid < 0) {
		r = -errno;
		goto out;
	}
	/* Its process group (setpgid in the child) may outlive it: see capture_file. */
	if (capture_fd >= 0)
		sp->capture_pgid = pid;
	if (a.err) {
		if (pidfd >= 0)
			close(pidfd);
		waitpid(pid, NULL, 0);
		r = a.err;
		goto out;
	}
	/* The child has exec'd (CLONE_VFORK): the peak its exec kept is the one read now,
	 * before ours can fall (a free that gives pages back does not record the peak). */
	res.spawner_peak_kb = own_peak_rss_kb(sp);
	res.spawner_peak_slack_kb = res.spawner_peak_kb ? sp->peak_slack_kb : 0;
	res.pid = pid;
	r = wait_child(pid, pidfd, o, capture_fd, t0, &status, &res.ru, &res.timed_out);
	res.wall_ns = pmc_clock_ns() - t0;
	if (r < 0)
		goto out;
	if (WIFSIGNALED(status)) {
		res.exit_code = -1;
		res.term_signal = WTERMSIG(status);
	} else {
		res.exit_code = WEXITSTATUS(status);
	}
	if (capture_fd >= 0)
		capture_size = read_tail(capture_fd, &res);
	*ret = res;
out:
	CPU_FREE(a.cpus);
	if (capture_fd >= 0 && sp->capture_fd == capture_fd)
		empty_capture(sp, capture_size);
	if (a.in_fd >= 0 && a.in_fd != a.null_fd)
		close(a.in_fd);
	return r;
}

struct pair_half {
	struct pmc_spawner *sp;
	const struct pmc_spawn_opts *o;
	struct pmc_spawn_result res;
	pthread_barrier_t *start;
	int rc;
};

static void *pair_half_run(void *p)
{
	struct pair_half *h = p;

	pthread_barrier_wait(h->start);
	h->rc = h->sp ? pmc_spawner_run(h->sp, h->o, &h->res) : pmc_spawn_run(h->o, &h->res);
	return NULL;
}

int pmc_spawner_pair(struct pmc_spawner *const sp[2], const struct pmc_spawn_opts *const opts[2],
		     struct pmc_spawn_result ret[2], int rc[2])
{
	pthread_barrier_t start;
	struct pair_half h[2];
	pthread_t thread;
	int r;

	if (!opts || !opts[0] || !opts[1] || !ret || !rc || (sp && (!sp[0] || !sp[1])) ||
	    (sp && sp[0] == sp[1]))
		return -EINVAL;
	for (int i = 0; i < 2; i++)
		h[i] = (struct pair_half){.sp = sp ? sp[i] : NULL, .o = opts[i], .start = &start};
	r = pthread_barrier_init(&start, NULL, 2);
	if (r)
		return -r;
	/* One new thread, not two: if it cannot start, nothing waits at the barrier and
	 * nothing has run. The barrier leaves out the thread's start-up, so the two clones
	 * follow each other closely. */
	r = pthread_create(&thread, NULL, pair_half_run, &h[1]);
	if (r) {
		pthread_barrier_destroy(&start);
		return -r;
	}
	pair_half_run(&h[0]);
	pthread_join(thread, NULL);
	pthread_barrier_destroy(&start);
	for (int i = 0; i < 2; i++) {
		rc[i] = h[i].rc;
		if (h[i].rc == 0)
			ret[i] = h[i].res;
	}
	return 0;
}

int pmc_spawn_capture_line(const char *path, char *const *argv, double timeout_s, char *buf,
			   size_t len)
{
	/* A memory file rather than a pipe: the output is read after the child is reaped,
	 * and a pipe would block a child that writes more than its capacity. */
	int fd = memfd_create("pmc-capture", MFD_CLOEXEC), r;
	struct pmc_spawn_opts o = {
	    .argv = argv,
	    .path = path,
	    .timeout_s = timeout_s,
	};
	struct pmc_spawn_result res;
	ssize_t n;

	if (!path || !argv || !buf || len == 0)
		return -EINVAL;
	if (fd < 0)
		return -errno;
	o.stdout_fd = fd;
	r = pmc_spawn_run(&o, &res);
	if (r < 0)
		goto out;
	if (res.exit_code != 0) {
		r = -EIO;
		goto out;
	}
	n = pread(fd, buf, len - 1, 0);
	if (n < 0) {
		r = -errno;
		goto out;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	r = buf[0] ? 0 : -EIO;
out:
	close(fd);
	return r;
}

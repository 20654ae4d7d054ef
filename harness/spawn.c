/* One run of a command. The child is forked, parks on a pipe until the parent has
 * opened counters on it (so nothing the harness does is counted: the counters are
 * enabled by the exec itself), then execs. An exec failure comes back through a
 * close-on-exec pipe, so "command not found" is told apart from "exited 127". */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pmc_spawn.h"

/* Read by signal handlers: the child (and process group) being waited for. */
static volatile sig_atomic_t running_child;

pid_t pmc_spawn_running(void)
{
	return (pid_t)running_child;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Runs in the child between fork and exec: only async-signal-safe calls. */
static __attribute__((noreturn)) void child(const struct pmc_spawn_opts *o, int in_fd,
					     int null_fd, const int go[2], const int err[2])
{
	int go_fd = go[0], err_fd = err[1];
	char c;
	int e;

	/* The parent's ends: while the child holds the write end of `go`, its read would
	 * never see the end of file that releases it. */
	close(go[1]);
	close(err[0]);
	setpgid(0, 0);
	if (dup2(in_fd, STDIN_FILENO) < 0)
		goto fail;
	if (!o->show_output &&
	    (dup2(null_fd, STDOUT_FILENO) < 0 || dup2(null_fd, STDERR_FILENO) < 0))
		goto fail;
	if (o->no_aslr)
		personality(ADDR_NO_RANDOMIZE);
	/* Wait until the parent has opened the counters: it closes its end of the pipe. */
	while (read(go_fd, &c, 1) < 0 && errno == EINTR)
		;
	if (o->path)
		execv(o->path, o->argv);
	else
		execvp(o->argv[0], o->argv);
fail:
	e = errno;
	if (write(err_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

static int wait_child(pid_t pid, double timeout_s, bool polling, int *ret_status,
		      struct rusage *ru, bool *ret_timed_out)
{
	*ret_timed_out = false;
	running_child = pid;
	if (timeout_s > 0) {
		int pidfd = polling ? -1 : (int)syscall(SYS_pidfd_open, pid, 0);
		int ms = timeout_s * 1000 > 2e9 ? 2000000000 : (int)(timeout_s * 1000 + 0.5);

		bool expired = false;

		if (pidfd >= 0) {
			struct pollfd p = { .fd = pidfd, .events = POLLIN };
			int n;

			do
				n = poll(&p, 1, ms);
			while (n < 0 && errno == EINTR);
			close(pidfd);
			expired = n == 0;
		} else {
			/* No pidfd (before Linux 5.3, or filtered by seccomp): poll for the exit
			 * every millisecond rather than lose the timeout. */
			uint64_t deadline = now_ns() + (uint64_t)ms * 1000000u;
			struct timespec tick = { 0, 1000000 };

			for (;;) {
				siginfo_t si = { 0 };

				/* WNOWAIT: wait4 below reaps it and collects its rusage. */
				if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT | WNOHANG) < 0 ||
				    si.si_pid == pid)
					break;
				expired = now_ns() >= deadline;
				if (expired)
					break;
				nanosleep(&tick, NULL);
			}
		}
		if (expired) {
			/* The whole process group, so grandchildren do not linger. */
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			*ret_timed_out = true;
		}
	}
	while (wait4(pid, ret_status, 0, ru) < 0) {
		if (errno != EINTR) {
			running_child = 0;
			return -errno;
		}
	}
	running_child = 0;
	return 0;
}

/* The fast path when nothing has to happen between fork and exec: posix_spawn, which
 * glibc implements with CLONE_VM|CLONE_VFORK, so no page tables are copied, and which
 * returns exec's errno itself. */
static int spawn_direct(const struct pmc_spawn_opts *o, int in_fd, int null_fd,
			struct pmc_spawn_result *res)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int status = 0, r;
	uint64_t t0;
	pid_t pid;

	if (posix_spawn_file_actions_init(&fa) != 0)
		return -ENOMEM;
	if (posix_spawnattr_init(&attr) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return -ENOMEM;
	}
	r = posix_spawn_file_actions_adddup2(&fa, in_fd, STDIN_FILENO);
	if (r == 0 && !o->show_output)
		r = posix_spawn_file_actions_adddup2(&fa, null_fd, STDOUT_FILENO);
	if (r == 0 && !o->show_output)
		r = posix_spawn_file_actions_adddup2(&fa, null_fd, STDERR_FILENO);
	/* Its own process group, so a timeout kills the command and all it started. */
	if (r == 0)
		r = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
	if (r == 0)
		r = posix_spawnattr_setpgroup(&attr, 0);
	if (r != 0) {
		r = -r;
		goto out;
	}
	t0 = now_ns();
	if (o->path)
		r = posix_spawn(&pid, o->path, &fa, &attr, o->argv, environ);
	else
		r = posix_spawnp(&pid, o->argv[0], &fa, &attr, o->argv, environ);
	if (r != 0) {
		r = -r;
		goto out;
	}
	r = wait_child(pid, o->timeout_s, o->timeout_by_polling, &status, &res->ru, &res->timed_out);
	res->wall_ns = now_ns() - t0;
	if (r < 0)
		goto out;
	if (WIFSIGNALED(status)) {
		res->exit_code = -1;
		res->term_signal = WTERMSIG(status);
	} else {
		res->exit_code = WEXITSTATUS(status);
	}
out:
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	return r;
}

struct vfork_args {
	const struct pmc_spawn_opts *o;
	int in_fd, null_fd;
	volatile int err; /* written by the child, read by the parent after it resumes */
};

/* The child of spawn_in_child: runs on its own stack in the parent's memory while the
 * parent is suspended. */
static int vfork_child(void *p)
{
	struct vfork_args *a = p;
	const struct pmc_spawn_opts *o = a->o;
	int r;

	setpgid(0, 0);
	r = o->in_child(o->ud);
	if (r < 0) {
		a->err = r;
		_exit(127);
	}
	/* What the hook opened is in the shared table, so the parent has it. From here on
	 * the table is the child's own copy: its dup2 calls must not touch the parent's
	 * descriptors, and exec closes its copies of the close-on-exec ones. */
	if (unshare(CLONE_FILES) < 0 || dup2(a->in_fd, STDIN_FILENO) < 0)
		goto fail;
	if (!o->show_output &&
	    (dup2(a->null_fd, STDOUT_FILENO) < 0 || dup2(a->null_fd, STDERR_FILENO) < 0))
		goto fail;
	if (o->no_aslr)
		personality(ADDR_NO_RANDOMIZE);
	if (o->path)
		execv(o->path, o->argv);
	else
		execvp(o->argv[0], o->argv);
fail:
	a->err = -errno;
	_exit(127);
}

/* Counters opened by the child on itself just before exec: clone with CLONE_VM and
 * CLONE_VFORK copies no page tables (the cost of fork that posix_spawn avoids too),
 * and CLONE_FILES hands the descriptors it opens to the parent. */
static int spawn_in_child(const struct pmc_spawn_opts *o, int in_fd, int null_fd,
			  struct pmc_spawn_result *res)
{
	/* The parent is suspended while the child uses it, so one stack serves every run
	 * of this (single-threaded) harness. */
	static char stack[256 * 1024] __attribute__((aligned(64)));
	struct vfork_args a = { .o = o, .in_fd = in_fd, .null_fd = null_fd };
	int status = 0, r;
	uint64_t t0;
	pid_t pid;

	/* The clock starts before the clone: the parent resumes only once the child has
	 * exec'd, and by then a short command may already have finished on another CPU.
	 * The child's few syscalls before exec are counted in wall time, not in its counters. */
	t0 = now_ns();
	pid = clone(vfork_child, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | CLONE_FILES | SIGCHLD,
		    &a);
	if (pid < 0)
		return -errno;
	if (a.err) {
		waitpid(pid, NULL, 0);
		return a.err;
	}
	r = wait_child(pid, o->timeout_s, o->timeout_by_polling, &status, &res->ru, &res->timed_out);
	res->wall_ns = now_ns() - t0;
	if (r < 0)
		return r;
	if (WIFSIGNALED(status)) {
		res->exit_code = -1;
		res->term_signal = WTERMSIG(status);
	} else {
		res->exit_code = WEXITSTATUS(status);
	}
	return 0;
}

int pmc_spawn_run(const struct pmc_spawn_opts *o, struct pmc_spawn_result *ret)
{
	int go[2] = { -1, -1 }, err[2] = { -1, -1 };
	int in_fd = -1, null_fd = -1, status = 0, child_errno = 0, r;
	struct pmc_spawn_result res = { 0 };
	uint64_t t0;
	ssize_t n;
	pid_t pid;

	if (!o || !o->argv || !o->argv[0])
		return -EINVAL;
	null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null_fd < 0)
		return -errno;
	in_fd = o->input_path ? open(o->input_path, O_RDONLY | O_CLOEXEC) : null_fd;
	if (in_fd < 0) {
		r = -errno;
		goto out_null;
	}
	if (o->in_child || (!o->before_exec && !o->no_aslr)) {
		r = o->in_child ? spawn_in_child(o, in_fd, null_fd, &res)
				: spawn_direct(o, in_fd, null_fd, &res);
		if (r == 0)
			*ret = res;
		goto out_pipes;
	}
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
		r = -errno;
		goto out_pipes;
	}
	pid = fork();
	if (pid < 0) {
		r = -errno;
		goto out_pipes;
	}
	if (pid == 0)
		child(o, in_fd, null_fd, go, err);
	close_fd(&go[0]);
	close_fd(&err[1]);
	/* Both sides set the group, so a kill of the group never races the child. */
	setpgid(pid, pid);

	if (o->before_exec) {
		r = o->before_exec(o->ud, pid);
		if (r < 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			goto out_pipes;
		}
	}

	t0 = now_ns();
	close_fd(&go[1]);
	do
		n = read(err[0], &child_errno, sizeof(child_errno));
	while (n < 0 && errno == EINTR);
	r = wait_child(pid, o->timeout_s, o->timeout_by_polling, &status, &res.ru, &res.timed_out);
	res.wall_ns = now_ns() - t0;
	if (r < 0)
		goto out_pipes;
	if (n == (ssize_t)sizeof(child_errno)) {
		r = -(child_errno ? child_errno : ENOEXEC);
		goto out_pipes;
	}
	if (WIFSIGNALED(status)) {
		res.exit_code = -1;
		res.term_signal = WTERMSIG(status);
	} else {
		res.exit_code = WEXITSTATUS(status);
	}
	*ret = res;
	r = 0;

out_pipes:
	close_fd(&go[0]);
	close_fd(&go[1]);
	close_fd(&err[0]);
	close_fd(&err[1]);
	if (in_fd != null_fd)
		close_fd(&in_fd);
out_null:
	close_fd(&null_fd);
	return r;
}

/* One run of a command. The child is forked, parks on a pipe until the parent has
 * opened counters on it (so nothing the harness does is counted: the counters are
 * enabled by the exec itself), then execs. An exec failure comes back through a
 * close-on-exec pipe, so "command not found" is told apart from "exited 127". */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spawn.h"

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
	execvp(o->argv[0], o->argv);
fail:
	e = errno;
	if (write(err_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

static int wait_child(pid_t pid, double timeout_s, int *ret_status, struct rusage *ru,
		      bool *ret_timed_out)
{
	*ret_timed_out = false;
	if (timeout_s > 0) {
		int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
		int ms = timeout_s * 1000 > 2e9 ? 2000000000 : (int)(timeout_s * 1000 + 0.5);

		if (pidfd >= 0) {
			struct pollfd p = { .fd = pidfd, .events = POLLIN };
			int n;

			do
				n = poll(&p, 1, ms);
			while (n < 0 && errno == EINTR);
			close(pidfd);
			if (n == 0) {
				/* The whole process group, so grandchildren do not linger. */
				kill(-pid, SIGKILL);
				kill(pid, SIGKILL);
				*ret_timed_out = true;
			}
		}
	}
	while (wait4(pid, ret_status, 0, ru) < 0) {
		if (errno != EINTR)
			return -errno;
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
	r = wait_child(pid, o->timeout_s, &status, &res.ru, &res.timed_out);
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

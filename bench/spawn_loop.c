/* The floor for per-run overhead: N plain spawn-and-wait runs of a command, nothing
 * else: posix_spawn (glibc: clone with CLONE_VM|CLONE_VFORK, the cheapest way to start
 * a process) and wait4. bench/run_overhead.sh compares `pmcbench run -r N` with it.
 * Usage: spawn-loop N COMMAND [ARGS...] */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n;
	int null_fd = open("/dev/null", O_RDWR);
	posix_spawn_file_actions_t fa;
	extern char **environ;

	if (argc < 3 || (n = strtol(argv[1], NULL, 10)) <= 0 || null_fd < 0) {
		fprintf(stderr, "usage: spawn-loop N COMMAND [ARGS...]\n");
		return 2;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, null_fd, 0);
	posix_spawn_file_actions_adddup2(&fa, null_fd, 1);
	posix_spawn_file_actions_adddup2(&fa, null_fd, 2);
	for (long i = 0; i < n; i++) {
		struct rusage ru;
		int status;
		pid_t pid;

		if (posix_spawnp(&pid, argv[2], &fa, NULL, argv + 2, environ) != 0)
			return 1;
		if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			return 1;
	}
	return 0;
}

/* The floor for per-run overhead: N plain fork/exec/wait4 runs of a command, nothing
 * else. bench/run_overhead.sh compares `pmcbench run -r N` against it.
 * Usage: spawn-loop N COMMAND [ARGS...] */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n;
	int null_fd = open("/dev/null", O_RDWR);

	if (argc < 3 || (n = strtol(argv[1], NULL, 10)) <= 0 || null_fd < 0) {
		fprintf(stderr, "usage: spawn-loop N COMMAND [ARGS...]\n");
		return 2;
	}
	for (long i = 0; i < n; i++) {
		struct rusage ru;
		int status;
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid == 0) {
			dup2(null_fd, 0);
			dup2(null_fd, 1);
			dup2(null_fd, 2);
			execvp(argv[2], argv + 2);
			_exit(127);
		}
		if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			return 1;
	}
	return 0;
}

/* runas UID COMMAND [ARGS...]: runs COMMAND as UID (and its group of the same number),
 * with no supplementary groups and no capabilities left, for the tests of what an
 * unprivileged user may count (tests/guest/t_pmu.sh). The guest's busybox has no su. */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t uid;

	if (argc < 3) {
		fprintf(stderr, "usage: runas UID COMMAND [ARGS...]\n");
		return 2;
	}
	uid = (uid_t)strtoul(argv[1], NULL, 10);
	if (setgroups(0, NULL) < 0 || setgid((gid_t)uid) < 0 || setuid(uid) < 0) {
		perror("runas");
		return 2;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}

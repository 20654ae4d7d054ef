/* What a run leaves running (harness/3-run/leftovers.h): with this process the
 * subreaper, an orphaned grandchild (as `sh -c 'sleep 92 &'` leaves) and a member of the
 * run's process group are ended and named; a child this process had before the run is
 * never touched; nothing left means nothing ended. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "run/leftovers.h"

/* A "run": a child leading its own group that forks a grandchild (which pauses, in the
 * group) and exits; the grandchild's pid comes back through a pipe. The child is reaped
 * here, as the runner reaps its target. */
static pid_t run_leaving_one(pid_t *ret_pgid)
{
	int fds[2];
	pid_t child, grandchild = 0;

	assert_int_equal(pipe(fds), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pid_t g;

		setpgid(0, 0);
		g = fork();
		if (g == 0) {
			for (;;)
				pause();
		}
		if (write(fds[1], &g, sizeof(g)) != sizeof(g))
			_exit(1);
		_exit(0);
	}
	setpgid(child, child);
	close(fds[1]);
	assert_int_equal(read(fds[0], &grandchild, sizeof(grandchild)), sizeof(grandchild));
	close(fds[0]);
	assert_int_equal(waitpid(child, NULL, 0), child);
	*ret_pgid = child;
	return grandchild;
}

static void orphan_is_ended_and_named(void **state)
{
	struct pmc_leftovers before;
	char names[256], want[64];
	pid_t pgid, orphan;
	bool gone = true;

	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	assert_int_equal(pmc_leftovers_before(&before), 0);
	assert_int_equal(before.n, 0);
	orphan = run_leaving_one(&pgid);
	assert_true(pmc_leftovers_end(&before, &pgid, 1, &gone, names, sizeof(names)) >= 1);
	/* The group had a member to end. */
	assert_false(gone);
	snprintf(want, sizeof(want), "(pid %d)", (int)orphan);
	assert_non_null(strstr(names, want));
	/* Reaped: no longer a child, and gone. */
	assert_int_equal(waitpid(orphan, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	assert_int_equal(kill(orphan, 0), -1);
	pmc_leftovers_free(&before);
	/* Nothing left: nothing ended, and the group is gone. */
	assert_int_equal(pmc_leftovers_end(NULL, &pgid, 1, &gone, names, sizeof(names)), 0);
	assert_string_equal(names, "");
	assert_true(gone);
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
}

static void child_from_before_the_run_is_kept(void **state)
{
	struct pmc_leftovers before;
	char names[256];
	pid_t keep, pgid, orphan;
	int status;

	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	keep = fork();
	assert_true(keep >= 0);
	if (keep == 0) {
		for (;;)
			pause();
	}
	assert_int_equal(pmc_leftovers_before(&before), 0);
	assert_int_equal(before.n, 1);
	orphan = run_leaving_one(&pgid);
	assert_true(pmc_leftovers_end(&before, &pgid, 1, NULL, names, sizeof(names)) >= 1);
	assert_int_equal(kill(orphan, 0), -1);
	assert_int_equal(waitpid(keep, &status, WNOHANG), 0);
	kill(keep, SIGKILL);
	assert_int_equal(waitpid(keep, &status, 0), keep);
	pmc_leftovers_free(&before);
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
}

/* Without the subreaper the orphan goes to init, out of sight: the run's process group,
 * which it is still in, is ended all the same. A pidfd tells when it has ended (it is
 * not this process's to wait for); the poll's bound only stops a failing test. */
static void without_subreaper_the_group_is_ended(void **state)
{
	struct pmc_leftovers before = {0};
	struct pollfd p = {.events = POLLIN};
	char names[256];
	pid_t pgid, orphan;

	orphan = run_leaving_one(&pgid);
	p.fd = (int)syscall(SYS_pidfd_open, orphan, 0);
	if (p.fd < 0) {
		kill(orphan, SIGKILL);
		skip();
	}
	assert_int_equal(pmc_leftovers_end(&before, &pgid, 1, NULL, names, sizeof(names)), 1);
	assert_string_equal(names, "");
	assert_int_equal(poll(&p, 1, 60000), 1);
	close(p.fd);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(orphan_is_ended_and_named),
	    cmocka_unit_test(child_from_before_the_run_is_kept),
	    cmocka_unit_test(without_subreaper_the_group_is_ended),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

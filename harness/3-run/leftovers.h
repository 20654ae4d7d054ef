/* What a run leaves running (docs/cli.md notes, issue 35): a command that daemonizes
 * (`sh -c 'sleep 92 &'`, a setsid grandchild) would outlive its run and load the
 * machine during the next ones. A process that made itself the child subreaper
 * (PR_SET_CHILD_SUBREAPER, as `pmcbench run` does) becomes the parent of every orphan its
 * runs leave; after a run's readings are taken the runner ends them, and the rest of the
 * run's process group, naming what it ended. Without the subreaper only the process group
 * is ended. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The children this process had before a run (a --setup's server, a caller's own), which
 * are never ended. */
struct pmc_leftovers {
	pid_t *v;
	size_t n;
};

/* Takes the children this process has now into *before (empty, without allocating,
 * when it has none: the common case costs one waitid()). Returns 0 or -ENOMEM. */
int pmc_leftovers_before(struct pmc_leftovers *before);

void pmc_leftovers_free(struct pmc_leftovers *before);

/* Ends what the runs whose process groups are pgids[0..n) left: every child of this
 * process not in before (and its process group if it leads one), until none is left,
 * and the rest of each group, with SIGKILL, reaping them. names gets "sleep (pid 123),
 * sh (pid 124)" for those it ended (at most len bytes), or "" when none had a name to
 * give; returns how many processes it ended (a group whose members it cannot see counts
 * as one), 0 when nothing was left. ret_gone (n entries, or NULL): whether group i had no
 * member left to end (ESRCH), so that no process of it can write anything any more. */
size_t pmc_leftovers_end(const struct pmc_leftovers *before, const pid_t *pgids, size_t n,
			 bool *ret_gone, char *names, size_t len);

/* The threads of a running process from /proc (threads.h). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/grow.h"
#include "counters/perf/threads.h"

int pmc_proc_new_threads(const char *proc_root, pid_t pid, const pid_t *known, size_t nknown,
			 pid_t **ret)
{
	char path[512];
	pid_t *tids = NULL;
	size_t n = 0, cap = 0;
	struct dirent *d;
	DIR *dir;

	*ret = NULL;
	snprintf(path, sizeof(path), "%s/%d/task", proc_root ? proc_root : "/proc", (int)pid);
	if (!(dir = opendir(path)))
		return errno == ENOENT ? -ESRCH : -errno;
	while ((d = readdir(dir))) {
		char *end;
		long tid = strtol(d->d_name, &end, 10);
		bool seen = false;

		if (*end || end == d->d_name || tid <= 0 || tid > INT_MAX)
			continue;
		for (size_t i = 0; i < nknown && !seen; i++)
			seen = known[i] == (pid_t)tid;
		if (seen)
			continue;
		if (pmc_grow_to(&tids, &cap, n + 1, sizeof(*tids)) < 0) {
			free(tids);
			closedir(dir);
			return -ENOMEM;
		}
		tids[n++] = (pid_t)tid;
	}
	closedir(dir);
	*ret = tids;
	return (int)n;
}

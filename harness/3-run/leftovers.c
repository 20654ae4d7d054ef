/* Ending what a run leaves running (leftovers.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/grow.h"
#include "run/leftovers.h"

/* Whether this process has a child at all, exited or not (ECHILD says none). */
static bool has_children(void)
{
	siginfo_t si = {0};

	return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0;
}

static int add_pid(pid_t **v, size_t *n, pid_t pid)
{
	if (pmc_grow(v, *n, sizeof(**v)) < 0)
		return -ENOMEM;
	(*v)[(*n)++] = pid;
	return 0;
}

/* Field 4 of /proc/PID/stat (the parent) and field 3 (the state), after the command
 * name, which may hold spaces and parentheses: the last ')' ends it. */
static int read_stat(pid_t pid, pid_t *ret_ppid, char *ret_state)
{
	char path[64], buf[512], *p;
	ssize_t len;
	int fd, ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -EIO;
	buf[len] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %d", ret_state, &ppid) != 2)
		return -EIO;
	*ret_ppid = ppid;
	return 0;
}

/* The children of this process: each thread's /proc/self/task/TID/children (an orphan
 * is given to one of the threads), or, where the kernel has no such file
 * (CONFIG_PROC_CHILDREN), every process of /proc whose parent is this one. */
static int list_children(pid_t **ret, size_t *ret_n)
{
	pid_t *v = NULL, self = getpid();
	size_t n = 0;
	bool have_files = false;
	struct dirent *e;
	DIR *d = opendir("/proc/self/task");

	while (d && (e = readdir(d))) {
		char path[300];
		FILE *f;
		int pid;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/children", e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		have_files = true;
		while (fscanf(f, "%d", &pid) == 1)
			if (add_pid(&v, &n, (pid_t)pid) < 0)
				goto err_nomem_file;
		fclose(f);
		continue;
	err_nomem_file:
		fclose(f);
		closedir(d);
		free(v);
		return -ENOMEM;
	}
	if (d)
		closedir(d);
	if (!have_files && (d = opendir("/proc"))) {
		while ((e = readdir(d))) {
			pid_t pid = (pid_t)atoi(e->d_name), ppid;
			char state;

			if (pid > 0 && read_stat(pid, &ppid, &state) == 0 && ppid == self &&
			    add_pid(&v, &n, pid) < 0) {
				closedir(d);
				free(v);
				return -ENOMEM;
			}
		}
		closedir(d);
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

int pmc_leftovers_before(struct pmc_leftovers *before)
{
	*before = (struct pmc_leftovers){0};
	if (!has_children())
		return 0;
	return list_children(&before->v, &before->n);
}

void pmc_leftovers_free(struct pmc_leftovers *before)
{
	if (!before)
		return;
	free(before->v);
	*before = (struct pmc_leftovers){0};
}

static bool had(const struct pmc_leftovers *before, pid_t pid)
{
	for (size_t i = 0; before && i < before->n; i++)
		if (before->v[i] == pid)
			return true;
	return false;
}

/* Appends "COMM (pid N)" to names. */
static void name_one(pid_t pid, char *names, size_t len)
{
	char path[64], comm[64] = "?";
	size_t used = strlen(names);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	if (used < len)
		snprintf(names + used, len - used, "%s%s (pid %d)", used ? ", " : "", comm,
			 (int)pid);
}

size_t pmc_leftovers_end(const struct pmc_leftovers *before, const pid_t *pgids, size_t n,
			 bool *ret_gone, char *names, size_t len)
{
	size_t ended = 0;
	bool groups_done = false;

	if (len)
		names[0] = '\0';
	/* Each pass ends the children found; their own children are then this process's
	 * (the subreaper's), found by the next pass. */
	for (int pass = 0; pass < 64; pass++) {
		pid_t *v = NULL;
		size_t nv = 0, live = 0;

		if (has_children() && list_children(&v, &nv) < 0)
			nv = 0;
		for (size_t i = 0; i < nv; i++) {
			pid_t ppid;
			char state = '?';

			if (had(before, v[i])) {
				v[i] = 0;
				continue;
			}
			/* An orphan that already exited is only reaped. */
			if (read_stat(v[i], &ppid, &state) == 0 && state == 'Z') {
				waitpid(v[i], NULL, WNOHANG);
				v[i] = 0;
				continue;
			}
			name_one(v[i], names, len);
			live++;
		}
		if (!groups_done) {
			/* What is left of the runs' groups, the members under a live parent
			 * too; a group only of members this process cannot see is counted. */
			for (size_t g = 0; g < n; g++) {
				int k = pgids[g] > 0 ? kill(-pgids[g], SIGKILL) : -1;

				if (ret_gone)
					ret_gone[g] = pgids[g] > 0 && k < 0 && errno == ESRCH;
				if (k == 0 && !live)
					ended++;
			}
			groups_done = true;
		}
		for (size_t i = 0; i < nv; i++) {
			if (!v[i])
				continue;
			if (getpgid(v[i]) == v[i])
				kill(-v[i], SIGKILL);
			kill(v[i], SIGKILL);
			while (waitpid(v[i], NULL, 0) < 0 && errno == EINTR)
				;
			ended++;
		}
		free(v);
		if (!live)
			break;
	}
	return ended;
}

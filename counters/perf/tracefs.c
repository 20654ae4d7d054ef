/* tracefs: finding (and, for root, mounting) it, and reading tracepoint names and ids. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/grow.h"
#include "counters/perf/tracefs.h"

/* 0 when dir/events is a readable directory, else -errno. */
static int has_events(const char *dir)
{
	char path[4096];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/events", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (access(path, R_OK | X_OK) < 0)
		return -errno;
	return 0;
}

static void access_message(const char *dir, char *err, size_t errlen)
{
	pmc_err_set(err, errlen,
		    "tracefs at %s is not readable by this user (uid %u): tracepoints need "
		    "root, or CAP_PERFMON and read access to tracefs; run as root (sudo), or "
		    "make it readable: sudo mount -o remount,mode=755 %s",
		    dir, (unsigned)geteuid(), dir);
}

int pmc_tracefs_find(const char *root, bool may_mount, char *ret, size_t len, char *err,
		     size_t errlen)
{
	static const char *const roots[] = {PMC_TRACEFS_ROOT, PMC_TRACEFS_DEBUG_ROOT};
	int r, first = 0;

	if (root) {
		r = has_events(root);
		if (r == -EACCES || r == -EPERM)
			access_message(root, err, errlen);
		else if (r < 0)
			pmc_err_set(err, errlen, "no tracefs at %s (%s/events is missing)", root,
				    root);
		if (r == -EACCES || r == -EPERM)
			return -EACCES;
		if (r < 0)
			return -ENOENT;
		snprintf(ret, len, "%s", root);
		return 0;
	}
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		r = has_events(roots[i]);
		if (r == 0) {
			snprintf(ret, len, "%s", roots[i]);
			return 0;
		}
		if ((r == -EACCES || r == -EPERM) && !first) {
			first = 1;
			access_message(roots[i], err, errlen);
		}
	}
	if (first)
		return -EACCES;
	/* Not mounted (many VMs boot without it). Root may mount it, as perf would ask. */
	if (may_mount && geteuid() == 0 &&
	    mount("nodev", PMC_TRACEFS_ROOT, "tracefs", 0, NULL) == 0 &&
	    has_events(PMC_TRACEFS_ROOT) == 0) {
		snprintf(ret, len, "%s", PMC_TRACEFS_ROOT);
		return 0;
	}
	if (geteuid() != 0)
		pmc_err_set(err, errlen,
			    "tracefs is not mounted, and tracepoints need root or CAP_PERFMON; "
			    "run as root, or mount it first: sudo mount -t tracefs nodev %s",
			    PMC_TRACEFS_ROOT);
	else
		pmc_err_set(err, errlen,
			    "tracefs is not mounted and mounting it at %s failed (%s); mount "
			    "it: mount -t tracefs nodev %s (a kernel built with CONFIG_TRACING "
			    "has it)",
			    PMC_TRACEFS_ROOT, strerror(errno), PMC_TRACEFS_ROOT);
	return -ENOENT;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void pmc_tracefs_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int pmc_tracefs_names(const char *root, const char *sys, char ***ret, size_t *ret_n)
{
	char path[4096];
	char **names = NULL;
	size_t n = 0;
	struct dirent *de;
	DIR *d;
	int r = 0;

	if (snprintf(path, sizeof(path), "%s/events%s%s", root, sys ? "/" : "", sys ? sys : "") >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	if (sys && (!*sys || strchr(sys, '/') || sys[0] == '.'))
		return -ENOENT;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		bool dir = de->d_type == DT_DIR;

		if (de->d_name[0] == '.')
			continue;
		if (de->d_type == DT_UNKNOWN) {
			struct stat st;

			dir = fstatat(dirfd(d), de->d_name, &st, 0) == 0 && S_ISDIR(st.st_mode);
		}
		if (!dir)
			continue; /* enable, filter, header_page, ... */
		if (pmc_grow(&names, n, sizeof(*names)) < 0 || !(names[n] = strdup(de->d_name))) {
			r = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (r < 0) {
		pmc_tracefs_names_free(names, n);
		return r;
	}
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	*ret = names;
	*ret_n = n;
	return 0;
}

int pmc_tracefs_event_id(const char *root, const char *sys, const char *event, uint64_t *ret)
{
	char path[4096], buf[32], *end;
	ssize_t got;
	int fd;
	unsigned long long v;

	if (strchr(sys, '/') || strchr(event, '/') || sys[0] == '.' || event[0] == '.')
		return -ENOENT;
	if (snprintf(path, sizeof(path), "%s/events/%s/%s/id", root, sys, event) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got <= 0)
		return got < 0 ? -errno : -EINVAL;
	buf[got] = '\0';
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (end == buf || errno || (*end && *end != '\n'))
		return -EINVAL;
	*ret = v;
	return 0;
}

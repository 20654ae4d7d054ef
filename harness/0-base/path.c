/* execvp's PATH lookup (path.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/path.h"

/* Whether path names a file that execve could run: a regular file the caller may
 * execute. Returns 0, -ENOENT or -EACCES (which execve gives for directories too). */
static int check_executable(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return errno == EACCES ? -EACCES : -ENOENT;
	if (!S_ISREG(st.st_mode) || faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) < 0)
		return -EACCES;
	return 0;
}

int pmc_find_executable(const char *name, char **ret_path)
{
	const char *path;
	char *found = NULL;
	bool denied = false;
	char defpath[256];
	int rc;

	if (!name || !*name)
		return -ENOENT;
	if (strchr(name, '/')) {
		rc = check_executable(name);
		if (rc < 0)
			return rc;
		if (!(found = strdup(name)))
			return -ENOMEM;
		*ret_path = found;
		return 0;
	}
	/* As execvp: PATH, or the system's default when unset; an empty entry is the
	 * current directory; a file found but not executable (EACCES) does not stop the
	 * search, but is the error when nothing better is found. */
	path = getenv("PATH");
	if (!path) {
		if (confstr(_CS_PATH, defpath, sizeof(defpath)) == 0)
			snprintf(defpath, sizeof(defpath), "/bin:/usr/bin");
		path = defpath;
	}
	for (const char *p = path;; p++) {
		const char *colon = strchrnul(p, ':');
		int len = (int)(colon - p);

		free(found);
		if (asprintf(&found, "%.*s%s%s", len, p, len ? "/" : "", name) < 0)
			return -ENOMEM;
		rc = check_executable(found);
		if (rc == 0) {
			*ret_path = found;
			return 0;
		}
		if (rc == -EACCES)
			denied = true;
		if (!*colon)
			break;
		p = colon;
	}
	free(found);
	return denied ? -EACCES : -ENOENT;
}

int pmc_script_interpreter_check(const char *path, char *interp, size_t len)
{
	char line[256];
	size_t start, end;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n < 2 || line[0] != '#' || line[1] != '!')
		return 0;
	line[n] = '\0';
	/* The kernel's parse (fs/binfmt_script.c): blanks after "#!", then the program up
	 * to a blank or the end of the line. */
	for (start = 2; line[start] == ' ' || line[start] == '\t'; start++)
		;
	for (end = start; line[end] && !strchr(" \t\n", line[end]); end++)
		;
	if (end == start)
		return 0;
	snprintf(interp, len, "%.*s", (int)(end - start), line + start);
	return check_executable(interp);
}

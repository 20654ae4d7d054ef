/* Resolving uprobe events (uprobes.h): libraries through the program interpreter's
 * --list (glibc's ld.so prints "NAME => PATH (ADDRESS)" for each library it would load,
 * which is what ldd shows), symbols through libelf; then their tracefs probes. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "counters/perf/events.h"
#include "counters/perf/uprobe.h"
#include "elf/probe.h"
#include "run/uprobes.h"

extern char **environ;

/* The output of `INTERP --list PROGRAM` into a malloc'd string. */
static int ldso_list(const char *program, char **ret, char *err, size_t errlen)
{
	char interp[PATH_MAX], *out = NULL;
	size_t len = 0, cap = 0;
	int pipefd[2], status, r = 0;
	pid_t pid;

	r = pmc_elf_interp(program, interp, sizeof(interp));
	if (r < 0) {
		pmc_err_set(err, errlen,
			    "%s %s, so no library name can be resolved for it; give the "
			    "library's path (uprobe:/path/to/lib.so:SYMBOL)",
			    program,
			    r == -ENOENT ? "is linked statically" : "cannot be read as ELF");
		return -EINVAL;
	}
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid == 0) {
		char *argv[] = {interp, "--list", (char *)program, NULL};
		int null = open("/dev/null", O_WRONLY);

		/* Only async-signal-safe calls between fork and exec. */
		if (dup2(pipefd[1], 1) < 0 || (null >= 0 && dup2(null, 2) < 0))
			_exit(127);
		execve(interp, argv, environ);
		_exit(127);
	}
	r = pid < 0 ? -errno : 0;
	close(pipefd[1]);
	if (r < 0) {
		close(pipefd[0]);
		pmc_err_set(err, errlen, "cannot run %s --list %s: %s", interp, program,
			    strerror(-r));
		return -EINVAL;
	}
	for (;;) {
		ssize_t got;

		if (len + 4096 + 1 > cap) {
			char *t = realloc(out, cap = cap ? 2 * cap : 8192);

			if (!t) {
				r = -ENOMEM;
				break;
			}
			out = t;
		}
		got = read(pipefd[0], out + len, cap - len - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (r < 0 || !out) {
		free(out);
		return r < 0 ? r : -ENOMEM;
	}
	out[len] = '\0';
	*ret = out;
	return 0;
}

/* Whether the file name base is the library lib: the same name, or lib followed by
 * ".so" or "-" ("libc" is libc.so.6, "libstdc++" libstdc++.so.6). */
static bool is_library(const char *base, const char *lib)
{
	size_t n = strlen(lib);

	return strcmp(base, lib) == 0 ||
	       (strncmp(base, lib, n) == 0 && (strncmp(base + n, ".so", 3) == 0 || base[n] == '-'));
}

/* The path of library lib in the --list output, into ret. */
static int find_library(const char *list, const char *lib, char *ret, size_t len)
{
	for (const char *line = list; *line;) {
		const char *end = strchr(line, '\n'), *arrow;
		size_t l = end ? (size_t)(end - line) : strlen(line);
		char buf[PATH_MAX + 64], *name, *path, *sp;

		if (l < sizeof(buf)) {
			memcpy(buf, line, l);
			buf[l] = '\0';
			name = buf + strspn(buf, " \t");
			arrow = strstr(name, " => ");
			if (arrow) {
				buf[arrow - buf] = '\0';
				path = (char *)arrow + 4;
			} else {
				path = name; /* the interpreter: "/lib64/ld-linux-x86-64.so.2
						(0x...)" */
			}
			if ((sp = strstr(path, " (")))
				*sp = '\0';
			if (path[0] == '/') {
				const char *base =
				    strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
				const char *pbase = strrchr(path, '/') + 1;

				if (is_library(base, lib) || is_library(pbase, lib)) {
					snprintf(ret, len, "%s", path);
					return 0;
				}
			}
		}
		line += l + (end ? 1 : 0);
	}
	return -ENOENT;
}

int pmc_uprobes_resolve(struct pmc_event_list *list, const char *program, char *err, size_t errlen)
{
	char *libs = NULL, self[PATH_MAX];
	int r = 0;

	if (!program) {
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (n <= 0)
			return -errno;
		self[n] = '\0';
		program = self;
	}
	for (size_t i = 0; list && i < list->n && r == 0; i++) {
		struct pmc_event *ev = &list->events[i];
		char path[PATH_MAX], msg[512];
		uint64_t off;

		if (ev->kind != PMC_EV_UPROBE || ev->probe_resolved)
			continue;
		if (strchr(ev->probe_path, '/')) {
			if (!realpath(ev->probe_path, path)) {
				pmc_err_set(err, errlen, "%s: %s: %s", ev->name, ev->probe_path,
					    strerror(errno));
				r = -EINVAL;
				break;
			}
		} else {
			if (!libs && (r = ldso_list(program, &libs, msg, sizeof(msg))) < 0) {
				pmc_err_set(err, errlen, "%s: %s", ev->name, msg);
				break;
			}
			if (find_library(libs, ev->probe_path, path, sizeof(path)) < 0) {
				pmc_err_set(err, errlen,
					    "%s: %s does not load a library '%s' (see 'ldd %s'); "
					    "name one it loads, or give the file's path",
					    ev->name, program, ev->probe_path, program);
				r = -EINVAL;
				break;
			}
		}
		if (strlen(path) >= sizeof(ev->probe_path)) {
			pmc_err_set(err, errlen, "%s: the path %s is too long for a uprobe here",
				    ev->name, path);
			r = -EINVAL;
			break;
		}
		r = pmc_elf_symbol_offset(path, ev->probe_symbol, &off, msg, sizeof(msg));
		if (r < 0) {
			pmc_err_set(err, errlen, "%s: %s", ev->name, msg);
			r = r == -ENOMEM ? r : -EINVAL;
			break;
		}
		snprintf(ev->probe_path, sizeof(ev->probe_path), "%s", path);
		ev->config2 = off;
		ev->probe_resolved = true;
	}
	free(libs);
	return r;
}

int pmc_uprobes_probe(struct pmc_event_list *list, const struct pmc_sys *sys, bool benchmarks,
		      struct pmc_uprobe_set **ret, char *note, size_t notelen)
{
	char why[1024] = "";
	int r;

	*ret = NULL;
	if (notelen)
		note[0] = '\0';
	r = pmc_uprobe_set_create(list, sys, ret, why, sizeof(why));
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		pmc_err_set(note, notelen,
			    "uprobe events count through the uprobe PMU, not tracefs probes (%s): "
			    "%s; run as root with tracefs mounted",
			    why,
			    benchmarks
				? "the calls on a multithreaded benchmark's threads are missed "
				  "there, and not measured"
				: "threads and child processes that the measured program starts "
				  "fail there (pthread_create, fork: EFAULT), count programs that "
				  "start none");
	return 0;
}

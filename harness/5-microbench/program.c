/* Another build of a benchmark program (program.h): its names, asked for through the
 * child protocol, and its benchmarks as this program describes them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/grow.h"
#include "base/hashmap.h"
#include "microbench/microbench.h"
#include "microbench/program.h"
#include "run/spawn.h"

void pmc_mb_program_names_free(char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

/* The last line of what a program wrote to stderr (its complaint about an option it does
 * not know, a library it cannot load), into buf; "" when it wrote none. */
static void last_line(const char *tail, char *buf, size_t len)
{
	size_t n = strlen(tail);
	const char *s;

	while (n && (tail[n - 1] == '\n' || tail[n - 1] == ' '))
		n--;
	s = tail + n;
	while (s > tail && s[-1] != '\n')
		s--;
	snprintf(buf, len, "%.*s", (int)(tail + n - s), s);
}

/* The program's output, whole, from the memory file fd, NUL-terminated. Returns 0 or
 * -errno. */
static int read_output(int fd, char **ret)
{
	struct stat st;
	char *buf;
	ssize_t n;

	if (fstat(fd, &st) < 0)
		return -errno;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return -ENOMEM;
	n = pread(fd, buf, (size_t)st.st_size, 0);
	if (n < 0) {
		free(buf);
		return -errno;
	}
	buf[n] = '\0';
	*ret = buf;
	return 0;
}

/* The names after the protocol line of out, each malloc'ed, into *ret_names. Returns 0 or
 * -ENOMEM. */
static int split_names(char *out, char ***ret_names, size_t *ret_n)
{
	char **names = NULL, *save = NULL;
	size_t n = 0;

	for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (pmc_grow(&names, n, sizeof(*names)) < 0 || !(names[n] = strdup(line))) {
			pmc_mb_program_names_free(names, n);
			return -ENOMEM;
		}
		n++;
	}
	*ret_names = names;
	*ret_n = n;
	return 0;
}

int pmc_mb_program_parse_list(const char *path, char *out, char ***ret_names, size_t *ret_n,
			      char *err, size_t errlen)
{
	char proto[PMC_MB_PROTOCOL_MAX], *nl;
	int r;

	pmc_mb_protocol(proto);
	nl = strchr(out, '\n');
	if (nl)
		*nl = '\0';
	if (strcmp(out, proto) != 0) {
		if (strncmp(out, "pmcbench-child ", 15) == 0)
			pmc_err_set(
			    err, errlen,
			    "%s speaks another child protocol ('%.80s'; this program: '%s'): "
			    "build both against one libpmcbench",
			    path, out, proto);
		else
			pmc_err_set(
			    err, errlen,
			    "%s: not a benchmark program of this libpmcbench: asked for its "
			    "benchmarks (--process-list), it did not answer with the line "
			    "'%s'",
			    path, proto);
		return -EPROTO;
	}
	r = split_names(nl ? nl + 1 : out + strlen(out), ret_names, ret_n);
	if (r < 0)
		pmc_err_set(err, errlen, "out of memory");
	return r;
}

int pmc_mb_program_list(const char *path, const char *filter, char ***ret_names, size_t *ret_n,
			char *err, size_t errlen)
{
	char *argv[] = {(char *)path, (char *)"--process-list", (char *)"--filter", (char *)filter,
			NULL};
	/* A memory file, as pmc_spawn_capture_line's: the output is read once the program
	 * is reaped, and a pipe would block one that writes more than its capacity. */
	int fd = memfd_create("pmc-list", MFD_CLOEXEC), r;
	struct pmc_spawn_opts so = {
	    .argv = argv,
	    .path = path,
	    .timeout_s = PMC_MB_PROGRAM_LIST_TIMEOUT,
	    .capture_stderr = true,
	    .die_with_parent = true,
	};
	struct pmc_spawn_result sr;
	char why[256], *out = NULL;

	if (fd < 0) {
		r = -errno;
		pmc_err_set(err, errlen, "%s: cannot ask it for its benchmarks: %s", path,
			    strerror(-r));
		return r;
	}
	if (!filter)
		argv[2] = NULL;
	so.stdout_fd = fd;
	r = pmc_spawn_run(&so, &sr);
	if (r < 0) {
		pmc_err_set(err, errlen, "%s: cannot run it: %s", path, strerror(-r));
		goto out;
	}
	last_line(sr.stderr_tail, why, sizeof(why));
	if (sr.timed_out || sr.term_signal || sr.exit_code != 0) {
		if (sr.timed_out)
			pmc_err_set(
			    err, errlen,
			    "%s: not a benchmark program of this libpmcbench: asked for its "
			    "benchmarks (--process-list), it did not answer in %g s",
			    path, PMC_MB_PROGRAM_LIST_TIMEOUT);
		else
			pmc_err_set(
			    err, errlen,
			    "%s: not a benchmark program of this libpmcbench: asked for its "
			    "benchmarks (--process-list), it %s %d%s%s%s; rebuild it against "
			    "this libpmcbench",
			    path, sr.term_signal ? "was killed by signal" : "exited with status",
			    sr.term_signal ? sr.term_signal : sr.exit_code, why[0] ? " ('" : "",
			    why, why[0] ? "')" : "");
		r = -EPROTO;
		goto out;
	}
	r = read_output(fd, &out);
	if (r < 0) {
		pmc_err_set(err, errlen, "%s: cannot read its benchmarks: %s", path, strerror(-r));
		goto out;
	}
	r = pmc_mb_program_parse_list(path, out, ret_names, ret_n, err, errlen);
out:
	free(out);
	close(fd);
	return r;
}

int pmc_mb_set_of_names(const struct pmc_mb_set *like, char *const *names, size_t n,
			struct pmc_mb_set *ret)
{
	struct pmc_mb_set s = {0};
	struct pmc_hashmap mine = {0};
	size_t k;
	int r = pmc_hashmap_init(&mine, like->n);

	for (size_t i = 0; r == 0 && i < like->n; i++)
		r = pmc_hashmap_put(&mine, like->v[i].name, i);
	s.v = r == 0 ? calloc(n + 1, sizeof(*s.v)) : NULL;
	if (!s.v)
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < n; i++, s.n++) {
		struct pmc_mb_bench *b = &s.v[i];

		if (pmc_hashmap_get(&mine, names[i], &k) == 0) {
			*b = like->v[k];
		} else {
			/* Nothing but its name: the definition is the other program's. */
			*b = (struct pmc_mb_bench){0};
			b->def.name = "";
		}
		b->name = strdup(names[i]);
		if (!b->name)
			r = -ENOMEM;
	}
	s.cap = s.n;
	pmc_hashmap_free(&mine);
	if (r < 0) {
		pmc_mb_set_free(&s);
		return r;
	}
	*ret = s;
	return 0;
}

/* Atomic replacement of a file (atomic_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/atomic_file.h"
#include "base/error.h"

struct pmc_atomic_file {
	char *path; /* the target, as the caller named it */
	char *dest; /* the file written: path with its symlinks followed */
	char *dir;  /* dest's directory, synced after the rename */
	char *tmp;  /* the temporary file, unlinked unless committed */
	FILE *f;    /* writes to fd through stream_write(), or to buf when direct */
	int fd;
	int error;   /* errno of the first failed write, else 0 */
	bool direct; /* dest is written in place at the commit (a device, a FIFO, stdout) */
	char *buf;   /* a direct target's text until the commit */
	size_t len;
};

static void atomic_file_free(struct pmc_atomic_file *af)
{
	if (af->f)
		fclose(af->f);
	if (af->fd >= 0)
		close(af->fd);
	if (af->tmp)
		unlink(af->tmp);
	free(af->buf);
	free(af->tmp);
	free(af->dir);
	free(af->dest);
	free(af->path);
	free(af);
}

enum target_kind {
	TARGET_NEW,	/* nothing there yet: created */
	TARGET_REPLACE, /* a regular file (or a directory, which the rename refuses) */
	TARGET_DIRECT,	/* anything else: written in place, never replaced */
};

/* Whether the link *cur lives in /proc (its directory's real path says so: /dev/fd is
 * a link to /proc/self/fd); if so, *cur becomes that real path. */
static bool in_proc(char **cur)
{
	const char *slash = strrchr(*cur, '/');
	char *dir, *real, *joined = NULL;
	bool yes;

	dir = slash ? strndup(*cur, slash == *cur ? 1 : (size_t)(slash - *cur)) : strdup(".");
	real = dir ? realpath(dir, NULL) : NULL;
	yes = real && strncmp(real, "/proc/", 6) == 0;
	if (yes) {
		if (asprintf(&joined, "%s/%s", real, slash ? slash + 1 : *cur) < 0)
			joined = NULL;
		free(*cur);
		*cur = joined;
	}
	free(real);
	free(dir);
	return yes;
}

/* Follows path's symlinks one lstat() at a time, as a shell's redirection would, to the
 * file to write (*ret_dest, malloc'd), what it is and, for a regular file, its mode.
 * A link under /proc (/dev/stdout, /dev/fd/N) stands for a descriptor, whose target
 * may have no name (a pipe): it is opened, never resolved. A dangling link's target is
 * created, as `>` would. */
static int resolve_target(const char *path, char **ret_dest, enum target_kind *ret_kind,
			  mode_t *ret_mode)
{
	char *cur = strdup(path);
	struct stat st;

	for (int hops = 0; cur; hops++) {
		char link[PATH_MAX], *next;
		const char *slash;
		ssize_t n;

		if (lstat(cur, &st) < 0) {
			if (errno != ENOENT)
				goto err;
			*ret_kind = TARGET_NEW;
			*ret_dest = cur;
			return 0;
		}
		if (!S_ISLNK(st.st_mode))
			break;
		if (in_proc(&cur)) {
			*ret_kind = TARGET_DIRECT;
			*ret_dest = cur;
			return cur ? 0 : -ENOMEM;
		}
		if (hops == 40) {
			errno = ELOOP;
			goto err;
		}
		n = readlink(cur, link, sizeof(link) - 1);
		if (n < 0)
			goto err;
		link[n] = '\0';
		slash = strrchr(cur, '/');
		if (link[0] == '/' || !slash)
			next = strdup(link);
		else if (asprintf(&next, "%.*s/%s", (int)(slash - cur), cur, link) < 0)
			next = NULL;
		free(cur);
		cur = next;
	}
	if (!cur)
		return -ENOMEM;
	*ret_dest = cur;
	*ret_kind = S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) ? TARGET_REPLACE : TARGET_DIRECT;
	*ret_mode = st.st_mode;
	return 0;

err:;
	int rc = -errno;

	free(cur);
	return rc;
}

/* Creates a file with a fresh name from tmpl ("...XXXXXX") with open(O_EXCL) and mode
 * 0666, so that the kernel applies the umask: mkstemp() would give 0600, and reading the
 * umask means changing it, which a library must not do to its caller's process. */
static int create_temp(char *tmpl)
{
	static const char chars[] =
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	size_t len = strlen(tmpl);
	struct timespec ts;
	uint64_t x;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	x = ((uint64_t)ts.tv_nsec << 16) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 32) ^
	    (uint64_t)(uintptr_t)tmpl;
	for (int attempt = 0; attempt < 100; attempt++) {
		int fd;

		for (size_t i = len - 6; i < len; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			tmpl[i] = chars[(x >> 33) % (sizeof(chars) - 1)];
		}
		fd = open(tmpl, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	errno = EEXIST;
	return -1;
}

/* The stream's writes, which keep the errno of a failure: stdio reports only that one
 * happened (ferror), and the commit says which (a full disk, a file too large). */
static ssize_t stream_write(void *cookie, const char *buf, size_t len)
{
	struct pmc_atomic_file *af = cookie;
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(af->fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!af->error)
				af->error = n < 0 ? errno : EIO;
			return 0; /* stdio's sign of an error */
		}
		done += (size_t)n;
	}
	return (ssize_t)len;
}

/* Allocates af for path and resolves its target; 0, or -errno with err set. */
static int atomic_file_new(const char *path, struct pmc_atomic_file **ret, enum target_kind *kind,
			   mode_t *mode, char *err, size_t errlen)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	struct pmc_atomic_file *af;
	int rc;

	if (!path || !*path || (slash && slash[1] == '\0')) {
		pmc_err_set(err, errlen, "cannot write \"%s\": not a file name", path ? path : "");
		return -EINVAL;
	}
	af = calloc(1, sizeof(*af));
	if (!af || !(af->path = strdup(path)))
		goto err_nomem;
	af->fd = -1;
	if (strcmp(path, "-") == 0) {
		*kind = TARGET_DIRECT;
		af->direct = true;
		*ret = af;
		return 0;
	}
	rc = resolve_target(path, &af->dest, kind, mode);
	if (rc == -ENOMEM)
		goto err_nomem;
	if (rc < 0) {
		pmc_err_set(err, errlen, "cannot write %s: %s; check the path and its links", path,
			    strerror(-rc));
		atomic_file_free(af);
		return rc;
	}
	af->direct = *kind == TARGET_DIRECT;
	slash = strrchr(af->dest, '/');
	if (slash)
		af->dir =
		    slash == af->dest ? strdup("/") : strndup(af->dest, (size_t)(slash - af->dest));
	else
		af->dir = strdup(".");
	if (!af->dir)
		goto err_nomem;
	*ret = af;
	return 0;

err_nomem:
	if (af)
		atomic_file_free(af);
	pmc_err_set(err, errlen, "cannot write %s: out of memory", path);
	return -ENOMEM;
}

/* Creates the temporary file beside af->dest; 0, or -errno with err set. */
static int open_temp(struct pmc_atomic_file *af, char *err, size_t errlen)
{
	const char *slash = strrchr(af->dest, '/');
	int rc;

	if (asprintf(&af->tmp, "%s/.%s.XXXXXX", af->dir, slash ? slash + 1 : af->dest) < 0) {
		af->tmp = NULL;
		pmc_err_set(err, errlen, "cannot write %s: out of memory", af->path);
		return -ENOMEM;
	}
	/* The temporary file lives in the target's directory so that rename() replaces the
	 * old file in one step. */
	af->fd = create_temp(af->tmp);
	if (af->fd < 0) {
		rc = -errno;
		pmc_err_set(err, errlen,
			    "cannot write %s: cannot create a file in %s: %s; check that the "
			    "directory exists and is writable",
			    af->path, af->dir, strerror(errno));
		free(af->tmp);
		af->tmp = NULL;
		return rc;
	}
	return 0;
}

int pmc_atomic_file_open(const char *path, struct pmc_atomic_file **ret, char *err, size_t errlen)
{
	struct pmc_atomic_file *af;
	enum target_kind kind;
	mode_t mode = 0;
	int rc;

	rc = atomic_file_new(path, &af, &kind, &mode, err, errlen);
	if (rc < 0)
		return rc;
	if (af->direct) {
		/* Nothing is written before the commit, so an abort leaves a device or a
		 * FIFO's reader without half a file, and a FIFO is opened only once its
		 * text is ready. */
		af->f = open_memstream(&af->buf, &af->len);
	} else {
		rc = open_temp(af, err, errlen);
		if (rc < 0) {
			atomic_file_free(af);
			return rc;
		}
		/* A replaced file keeps its permissions, but never its set-id, sticky or
		 * execute bits: the new file holds data. */
		if (kind == TARGET_REPLACE && S_ISREG(mode))
			(void)fchmod(af->fd, mode & 0666);
		af->f = fopencookie(af, "w", (cookie_io_functions_t){.write = stream_write});
	}
	if (!af->f) {
		rc = -errno;
		pmc_err_set(err, errlen, "cannot write %s: %s", path, strerror(-rc));
		atomic_file_free(af);
		return rc;
	}
	*ret = af;
	return 0;
}

int pmc_atomic_file_check(const char *path, char *err, size_t errlen)
{
	struct pmc_atomic_file *af;
	enum target_kind kind;
	mode_t mode = 0;
	int rc;

	rc = atomic_file_new(path, &af, &kind, &mode, err, errlen);
	if (rc < 0)
		return rc;
	if (!af->direct) {
		/* Creating the temporary file is the only sure test: a directory may pass
		 * access(W_OK) and refuse new files (/proc, read-only mounts as root). */
		rc = open_temp(af, err, errlen);
	} else if (af->dest && access(af->dest, W_OK) < 0) {
		rc = -errno;
		pmc_err_set(err, errlen, "cannot write %s: %s", path, strerror(errno));
	}
	atomic_file_free(af);
	return rc;
}

int pmc_atomic_file_write_error(const struct pmc_atomic_file *af)
{
	return af && af->error ? -af->error : 0;
}

FILE *pmc_atomic_file_stream(struct pmc_atomic_file *af)
{
	return af->f;
}

void pmc_atomic_file_abort(struct pmc_atomic_file *af)
{
	if (af)
		atomic_file_free(af);
}

/* The descriptor of this process that a /proc path names (/proc/PID/fd/N), or -1. */
static int own_fd(const char *dest)
{
	int pid, fd, end = 0;

	if (sscanf(dest, "/proc/%d/fd/%d%n", &pid, &fd, &end) == 2 && dest[end] == '\0' &&
	    pid == (int)getpid())
		return fd;
	return -1;
}

/* Writes a direct target's text in place: standard output, a descriptor of this
 * process (written through it, so that its offset and O_APPEND hold), or the device or
 * FIFO opened now. */
static int commit_direct(struct pmc_atomic_file *af, char *err, size_t errlen)
{
	int fd = -1, rc = 0;
	bool opened = false;

	errno = 0;
	if (fclose(af->f) != 0 || af->error)
		rc = af->error ? -af->error : errno ? -errno : -EIO;
	af->f = NULL;
	if (rc == 0 && !af->dest) {
		fd = STDOUT_FILENO;
		if (fflush(stdout) != 0)
			rc = errno ? -errno : -EIO;
	} else if (rc == 0 && (fd = own_fd(af->dest)) < 0) {
		fd = open(af->dest, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		opened = fd >= 0;
		if (fd < 0)
			rc = -errno;
	}
	for (size_t done = 0; rc == 0 && done < af->len;) {
		ssize_t n = write(fd, af->buf + done, af->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			rc = n < 0 ? -errno : -EIO;
		else
			done += (size_t)n;
	}
	if (opened && close(fd) != 0 && rc == 0 && errno != EINTR)
		rc = -errno;
	if (rc < 0)
		pmc_err_set(err, errlen, "cannot write %s: %s",
			    af->dest ? af->path : "to standard output", strerror(-rc));
	atomic_file_free(af);
	return rc;
}

int pmc_atomic_file_commit(struct pmc_atomic_file *af, char *err, size_t errlen)
{
	int dfd, rc;

	if (af->direct)
		return commit_direct(af, err, errlen);
	errno = 0;
	rc = fflush(af->f);
	if (rc != 0 || ferror(af->f) || af->error) {
		errno = af->error ? af->error : errno ? errno : EIO;
		goto err_write;
	}
	if (fsync(af->fd) < 0)
		goto err_write;
	fclose(af->f);
	af->f = NULL;
	rc = close(af->fd);
	af->fd = -1;
	if (rc != 0 || rename(af->tmp, af->dest) < 0)
		goto err_write;
	free(af->tmp);
	af->tmp = NULL;

	/* Make the rename itself durable. Some file systems cannot sync a directory
	 * (EINVAL); the file is in place either way. */
	rc = 0;
	dfd = open(af->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		if (fsync(dfd) < 0 && errno != EINVAL && errno != ENOTSUP) {
			rc = -errno;
			pmc_err_set(err, errlen, "wrote %s, but syncing %s failed: %s", af->path,
				    af->dir, strerror(errno));
		}
		close(dfd);
	}
	atomic_file_free(af);
	return rc;

err_write:
	rc = errno ? -errno : -EIO;
	pmc_err_set(err, errlen, "cannot write %s: %s; the previous file is unchanged", af->path,
		    strerror(-rc));
	atomic_file_free(af);
	return rc;
}

/* Atomic replacement of a file (atomic_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
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
	char *path; /* the target */
	char *dir;  /* its directory, synced after the rename */
	char *tmp;  /* the temporary file, unlinked unless committed */
	FILE *f;    /* writes to fd through stream_write() */
	int fd;
	int error; /* errno of the first failed write, else 0 */
};

static void atomic_file_free(struct pmc_atomic_file *af)
{
	if (af->f)
		fclose(af->f);
	if (af->fd >= 0)
		close(af->fd);
	if (af->tmp)
		unlink(af->tmp);
	free(af->tmp);
	free(af->dir);
	free(af->path);
	free(af);
}

/* Creates a file with a fresh name from tmpl ("...XXXXXX") with open(O_EXCL) and mode
 * 0666, so that the kernel applies the umask: mkstemp() would give 0600, and reading the
 * umask means changing it, which a library must not do to its caller's process. */
static int create_temp(char *tmpl)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
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

int pmc_atomic_file_open(const char *path, struct pmc_atomic_file **ret, char *err, size_t errlen)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	struct pmc_atomic_file *af;
	struct stat st;
	int fd, rc;

	if (!path || !*path || (slash && slash[1] == '\0')) {
		pmc_err_set(err, errlen, "cannot write \"%s\": not a file name", path ? path : "");
		return -EINVAL;
	}
	af = calloc(1, sizeof(*af));
	if (!af)
		goto err_nomem;
	af->fd = -1;
	af->path = strdup(path);
	if (slash)
		af->dir = slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
	else
		af->dir = strdup(".");
	if (!af->path || !af->dir ||
	    asprintf(&af->tmp, "%s/.%s.XXXXXX", af->dir, slash ? slash + 1 : path) < 0) {
		af->tmp = NULL;
		goto err_nomem;
	}

	/* The temporary file lives in the target's directory so that rename() replaces the
	 * old file in one step. */
	fd = create_temp(af->tmp);
	if (fd < 0) {
		rc = -errno;
		pmc_err_set(err, errlen,
			"cannot write %s: cannot create a file in %s: %s; check that the directory "
			"exists and is writable",
			path, af->dir, strerror(errno));
		free(af->tmp);
		af->tmp = NULL;
		atomic_file_free(af);
		return rc;
	}
	/* A replaced file keeps its mode. */
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		(void)fchmod(fd, st.st_mode & 07777);
	af->fd = fd;
	af->f = fopencookie(af, "w", (cookie_io_functions_t){.write = stream_write});
	if (!af->f) {
		rc = -errno;
		pmc_err_set(err, errlen, "cannot write %s: %s", path, strerror(-rc));
		atomic_file_free(af);
		return rc;
	}
	*ret = af;
	return 0;

err_nomem:
	if (af)
		atomic_file_free(af);
	pmc_err_set(err, errlen, "cannot write %s: out of memory", path);
	return -ENOMEM;
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

int pmc_atomic_file_commit(struct pmc_atomic_file *af, char *err, size_t errlen)
{
	int dfd, rc;

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
	if (rc != 0 || rename(af->tmp, af->path) < 0)
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

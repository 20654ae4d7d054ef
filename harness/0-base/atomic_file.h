/* Replacing a file atomically: the text goes to a temporary file in the target's
 * directory, which is synced and renamed over the target, and the directory is synced,
 * so that a reader (or a crash) sees the old file or the new one, never a part
 * (docs/result-schema.md). A symlink is followed to the file it names (a dangling one's
 * target is created), which is replaced. Anything that is not a regular file or a
 * directory (a device, a FIFO, a socket, a descriptor named through /proc such as
 * /dev/stdout) is never replaced: the text is written into it at the commit, and "-"
 * is standard output. Open, write to the stream, then commit or abort:
 *
 *	struct pmc_atomic_file *af;
 *	if (pmc_atomic_file_open(path, &af, err, errlen) < 0) ...
 *	fprintf(pmc_atomic_file_stream(af), ...);
 *	return pmc_atomic_file_commit(af, err, errlen);
 */
#pragma once

#include <stddef.h>
#include <stdio.h>

struct pmc_atomic_file;

/* Creates the temporary file beside the file path names, with the permissions a
 * regular target has, at most 0666 (for a new file, the mode open() would give it
 * under the umask); for a target written in place, nothing is opened yet. Returns 0
 * and *ret, or -errno with one line in err naming path and the fix. */
int pmc_atomic_file_open(const char *path, struct pmc_atomic_file **ret, char *err, size_t errlen);

/* Whether path could be opened and committed, touching nothing: the temporary file is
 * created and removed, a target written in place must be writable (a FIFO is not
 * opened, which would be its reader's end of file). Returns 0, or -errno with err. */
int pmc_atomic_file_check(const char *path, char *err, size_t errlen);

/* The stream to write the new text to; owned by af. */
FILE *pmc_atomic_file_stream(struct pmc_atomic_file *af);

/* Flushes, syncs and renames the temporary file over the target, then syncs the
 * directory; frees af either way. A failed write of the stream (ferror) or a failed
 * step fails the commit and leaves the target as it was. Returns 0, or -errno with one
 * line in err. */
int pmc_atomic_file_commit(struct pmc_atomic_file *af, char *err, size_t errlen);

/* -errno of the first write of the stream that failed (ENOSPC, EFBIG), or 0: stdio's
 * ferror() says only that one did. */
int pmc_atomic_file_write_error(const struct pmc_atomic_file *af);

/* Drops the temporary file and frees af (NULL is fine); the target is untouched. */
void pmc_atomic_file_abort(struct pmc_atomic_file *af);

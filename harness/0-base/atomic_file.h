/* Replacing a file atomically: the text goes to a temporary file in the target's
 * directory, which is synced and renamed over the target, and the directory is synced,
 * so that a reader (or a crash) sees the old file or the new one, never a part
 * (docs/result-schema.md). Open, write to the stream, then commit or abort:
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

/* Creates the temporary file beside path, with the mode the target has (or, for a new
 * file, the mode open() would give it under the umask). Returns 0 and *ret, or -errno
 * with one line in err naming path and the fix. */
int pmc_atomic_file_open(const char *path, struct pmc_atomic_file **ret, char *err,
			 size_t errlen);

/* The stream to write the new text to; owned by af. */
FILE *pmc_atomic_file_stream(struct pmc_atomic_file *af);

/* Flushes, syncs and renames the temporary file over the target, then syncs the
 * directory; frees af either way. A failed write of the stream (ferror) or a failed
 * step fails the commit and leaves the target as it was. Returns 0, or -errno with one
 * line in err. */
int pmc_atomic_file_commit(struct pmc_atomic_file *af, char *err, size_t errlen);

/* Drops the temporary file and frees af (NULL is fine); the target is untouched. */
void pmc_atomic_file_abort(struct pmc_atomic_file *af);

/* libFuzzer target: the pipe from a benchmark's processes to the parent
 * (harness/5-microbench/child.c, child_pipe.h), read as the parent reads it: the input
 * is what up to four processes wrote, one after the other, each read with
 * pmc_mb_samples_read and merged into one sample set as the parent merges them
 * (pmc_mb_samples_merge, process 1, 2, ...). Each set read is written again and read
 * back, and writing that must give the same bytes: what the parent keeps of a message
 * is what it would send. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "microbench/child_pipe.h"
#include "microbench/microbench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

#define MAX_PROCESSES 4

/* A memory file holding n bytes of data, at its start; -1 when it cannot be made. */
static int memfile(const void *data, size_t n)
{
	int fd = memfd_create("pmc-fuzz-pipe", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if ((n && write(fd, data, n) != (ssize_t)n) || lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The bytes of s as the pipe carries them, into *ret (malloc'ed) and *ret_n. */
static int written(const struct pmc_mb_samples *s, char **ret, size_t *ret_n)
{
	int fd = memfd_create("pmc-fuzz-pipe-w", MFD_CLOEXEC);
	off_t len;

	if (fd < 0)
		return -1;
	if (pmc_mb_samples_write(fd, s) != 0 || (len = lseek(fd, 0, SEEK_CUR)) < 0 ||
	    !(*ret = malloc((size_t)len + 1)) || pread(fd, *ret, (size_t)len, 0) != len) {
		close(fd);
		return -1;
	}
	*ret_n = (size_t)len;
	close(fd);
	return 0;
}

/* write(read(write(s))) == write(s). */
static void round_trip(const struct pmc_mb_samples *s)
{
	struct pmc_mb_samples again = {0};
	char *a = NULL, *b = NULL, err[256];
	size_t na = 0, nb = 0;
	int fd;

	if (written(s, &a, &na) < 0)
		goto out;
	fd = memfile(a, na);
	if (fd < 0)
		goto out;
	if (pmc_mb_samples_read(fd, &again, 0, err, sizeof(err)) != 0)
		abort(); /* what the parent read, written, reads */
	close(fd);
	if (written(&again, &b, &nb) < 0)
		goto out;
	if (na != nb || memcmp(a, b, na) != 0)
		abort();
out:
	pmc_mb_samples_free(&again);
	free(a);
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct pmc_mb_samples all = {0};
	int fd = memfile(data, n);

	if (fd < 0)
		return 0;
	for (unsigned p = 1; p <= MAX_PROCESSES; p++) {
		struct pmc_mb_samples s = {0};
		char err[512] = "";
		int r = pmc_mb_samples_read(fd, &s, 0, err, sizeof(err));

		if (r < 0)
			break;
		round_trip(&s);
		r = pmc_mb_samples_merge(&all, &s, p);
		pmc_mb_samples_free(&s);
		if (r < 0)
			break;
	}
	pmc_mb_samples_free(&all);
	close(fd);
	return 0;
}

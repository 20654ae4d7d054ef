/* The pipe from a benchmark's process to the parent (child.c; docs/microbench.md,
 * "Isolation"): a header, then the samples as they are in memory, or the child's error
 * and its words. Both ends are one build, or two that speak one protocol
 * (pmc_mb_protocol); the parent still checks what it reads, as a child may die mid-write
 * or be another program. Private to the layer and its fuzz target. */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct pmc_mb_samples;

/* Writes s to fd, all or nothing. Returns 0, or -EIO (short write), -errno. */
int pmc_mb_samples_write(int fd, const struct pmc_mb_samples *s);

/* Writes the child's failure (error: -errno) and its words msg to fd. Returns 0 or as
 * pmc_mb_samples_write. */
int pmc_mb_error_write(int fd, int error, const char *msg);

/* Reads samples into *ret, or the child's error (-errno with its words in err), by the
 * deadline (CLOCK_MONOTONIC ns; 0: none; -ETIMEDOUT after it). Returns 0, -EIO for data
 * cut short or out of bounds, -ENOMEM, -errno. Free *ret with pmc_mb_samples_free. */
int pmc_mb_samples_read(int fd, struct pmc_mb_samples *ret, uint64_t deadline, char *err,
			size_t errlen);

/* The pipe from a benchmark's process to the parent (harness/5-microbench/child_pipe.h):
 * samples read back as written, and a header that promises more than the pipe carries
 * refused as short data, without the memory it promised. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "counters/reading.h"
#include "microbench/child_pipe.h"
#include "microbench/microbench.h"

/* A memory file with s written to it, at its start. */
static int written(const struct pmc_mb_samples *s)
{
	int fd = memfd_create("pmc-test-pipe", MFD_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(pmc_mb_samples_write(fd, s), 0);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

static void test_samples_read_back_as_written(void **state)
{
	double ns[3] = {10.5, 11, 12.25}, over[1] = {3};
	struct pmc_reading rd[3] = {{.value = 100}, {.value = 101}, {.value = 102}};
	struct pmc_mb_samples s = {.iters = 1000,
				   .n = 3,
				   .nev = 1,
				   .ns = ns,
				   .readings = rd,
				   .over_ns = 1.5,
				   .over_counts = over,
				   .message = (char *)"why"};
	struct pmc_mb_samples got = {0};
	char err[256] = "";
	int fd;

	(void)state;
	fd = written(&s);
	assert_int_equal(pmc_mb_samples_read(fd, &got, 0, err, sizeof(err)), 0);
	close(fd);
	assert_int_equal(got.iters, 1000);
	assert_int_equal(got.n, 3);
	assert_int_equal(got.nev, 1);
	assert_true(got.ns[2] == 12.25);
	assert_int_equal(got.readings[1].value, 101);
	assert_true(got.over_counts[0] == 3);
	assert_string_equal(got.message, "why");
	assert_null(got.parts);
	pmc_mb_samples_free(&got);
}

/* The fuzzer's input (tests/fuzz/corpus/mb_pipe/oom_header_promises_gigabytes.bin): a
 * header of 2^24 samples of 4096 events and nothing after it made the parent allocate
 * their 3 TB of readings before reading one (-ENOMEM, or an abort under ASan). */
static void test_a_header_promising_more_than_comes_is_short_data(void **state)
{
	struct pmc_mb_samples empty = {.iters = 1}, got = {0};
	uint64_t n = UINT64_C(1) << 24, nev = 4096;
	char err[256] = "";
	int fd;

	(void)state;
	fd = written(&empty); /* the header alone: no samples, no events */
	/* The header's n and nev (after its magic and iters). */
	assert_int_equal(pwrite(fd, &n, sizeof(n), 16), (ssize_t)sizeof(n));
	assert_int_equal(pwrite(fd, &nev, sizeof(nev), 24), (ssize_t)sizeof(nev));
	assert_int_equal(pmc_mb_samples_read(fd, &got, 0, err, sizeof(err)), -EIO);
	close(fd);
	assert_null(got.ns);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_samples_read_back_as_written),
	    cmocka_unit_test(test_a_header_promising_more_than_comes_is_short_data),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

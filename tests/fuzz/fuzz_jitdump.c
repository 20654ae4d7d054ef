/* libFuzzer target: the jitdump a JIT writes of itself, jit-PID.dump
 * (harness/4-profile/jitdump.c), read as the recorder reads it while the file grows: the
 * input's first byte says how much of the rest the file held at the first lookups (the
 * split falls anywhere, inside a record too), the whole rest is the file at the second.
 * Lookups are at every aligned 8-byte word of the input taken as an address (a load's
 * code_addr among them), each without a time and at the word after it as a time. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/jitdump.h"
#include "tests/fuzz/fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

static uint64_t word(const uint8_t *data, size_t n, size_t at)
{
	uint64_t v = 0;

	if (at + sizeof(v) <= n)
		memcpy(&v, data + at, sizeof(v));
	return v;
}

/* A name found is read whole (ASan sees a freed or unterminated one); a load without a
 * name names nothing. */
static void lookups(struct pmc_jitdump *j, const uint8_t *data, size_t n)
{
	for (size_t at = 0; at + 8 <= n && at < 64 * 8; at += 8) {
		uint64_t a = word(data, n, at), t = word(data, n, at + 8);
		const char *name;

		for (uint64_t d = 0; d < 3; d++) {
			if ((name = pmc_jitdump_lookup(j, a + d - 1, 0)) && !*name)
				abort();
			if ((name = pmc_jitdump_lookup(j, a + d - 1, t)) && !*name)
				abort();
		}
	}
	if (pmc_jitdump_problem(j) && strchr(pmc_jitdump_problem(j), '\n'))
		abort(); /* a problem is one line */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct pmc_jitdump *j = NULL;
	size_t split;

	const char *path = fuzz_dir_file("jit-1.dump");

	if (!path)
		return 0;
	if (n == 0)
		return 0;
	split = (size_t)data[0] * (n - 1) / 255;
	data++;
	n--;
	if (fuzz_write(path, "we", data, split) < 0 || pmc_jitdump_new(path, &j) < 0)
		return 0;
	lookups(j, data, n);
	if (fuzz_write(path, "ae", data + split, n - split) == 0)
		lookups(j, data, n);
	pmc_jitdump_free(j);
	return 0;
}

/* libFuzzer target: the perf map a JIT writes of itself, /tmp/perf-PID.map
 * (harness/4-profile/jit_map.c), read as the profiler reads it while the file grows: the
 * input's first part is the file when the first lookups miss, the whole input the file
 * after the process wrote more (the split falls anywhere, inside a line too). Every
 * lookup is at an address the input's lines name, so that hits, misses and overlaps are
 * all reached. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile/jit_map.h"
#include "tests/fuzz/fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

/* Looks up, near the address a line names, what the map holds; a name found is read
 * whole (ASan sees a freed or unterminated one). */
static void lookup(unsigned long long a, void *ud)
{
	for (unsigned long long d = 0; d < 3; d++) {
		const char *name = pmc_jit_map_lookup(ud, a + d - 1);

		if (name && strlen(name) == 0)
			abort(); /* a line without a name is skipped */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct pmc_jit_map *j = NULL;
	size_t split;

	const char *path = fuzz_dir_file("perf-1.map");
	char dir[128];

	if (!path)
		return 0;
	/* The map's directory: the path but its last part. */
	snprintf(dir, sizeof(dir), "%.*s", (int)(strrchr(path, '/') - path), path);
	if (n == 0)
		return 0;
	/* The first byte says where the file stood at the first lookups. */
	split = (size_t)data[0] * (n - 1) / 255;
	data++;
	n--;
	if (fuzz_write(path, "we", data, split) < 0 || pmc_jit_map_new(1, dir, &j) < 0)
		return 0;
	fuzz_line_addresses(data, n, 32, lookup, j);
	if (fuzz_write(path, "ae", data + split, n - split) == 0)
		fuzz_line_addresses(data, n, 32, lookup, j);
	pmc_jit_map_free(j);
	return 0;
}

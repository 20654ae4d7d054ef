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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

static char dir[64];
static char path[96];

static void cleanup(void)
{
	unlink(path);
	rmdir(dir);
}

static int write_part(const char *mode, const uint8_t *data, size_t n)
{
	FILE *f = fopen(path, mode);

	if (!f)
		return -1;
	if (n && fwrite(data, 1, n, f) != n) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

/* Looks up, near the start of each of the first 32 lines, the addresses a line names;
 * a name found is read whole (ASan sees a freed or unterminated one). */
static void lookups(struct pmc_jit_map *j, const uint8_t *data, size_t n)
{
	char line[64];
	size_t i = 0;

	for (int k = 0; k < 32 && i < n; k++) {
		size_t len = 0;
		unsigned long long a;

		while (i < n && data[i] != '\n' && len < sizeof(line) - 1)
			line[len++] = (char)data[i++];
		line[len] = '\0';
		while (i < n && data[i++] != '\n')
			;
		a = strtoull(line, NULL, 16);
		for (unsigned long long d = 0; d < 3; d++) {
			const char *name = pmc_jit_map_lookup(j, a + d - 1);

			if (name && strlen(name) == 0)
				abort(); /* a line without a name is skipped */
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct pmc_jit_map *j = NULL;
	size_t split;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/pmc-fuzz-jit-XXXXXX");
		if (!mkdtemp(dir)) {
			dir[0] = '\0';
			return 0;
		}
		snprintf(path, sizeof(path), "%s/perf-1.map", dir);
		atexit(cleanup);
	}
	if (n == 0)
		return 0;
	/* The first byte says where the file stood at the first lookups. */
	split = (size_t)data[0] * (n - 1) / 255;
	data++;
	n--;
	if (write_part("we", data, split) < 0 || pmc_jit_map_new(1, dir, &j) < 0)
		return 0;
	lookups(j, data, n);
	if (write_part("ae", data + split, n - split) == 0)
		lookups(j, data, n);
	pmc_jit_map_free(j);
	return 0;
}

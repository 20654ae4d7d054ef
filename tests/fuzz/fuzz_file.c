/* One temporary file per fuzzing process (fuzz_file.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/fuzz/fuzz_file.h"

static char path[64];
static char dir[64], dir_path[128];

static void remove_file(void)
{
	if (path[0])
		unlink(path);
}

static void remove_dir(void)
{
	unlink(dir_path);
	rmdir(dir);
}

const char *fuzz_file(const uint8_t *data, size_t n, const char *suffix)
{
	FILE *f;

	if (!path[0]) {
		int fd;

		snprintf(path, sizeof(path), "/tmp/pmc-fuzz-XXXXXX%s", suffix);
		fd = mkstemps(path, (int)strlen(suffix));
		if (fd < 0) {
			path[0] = '\0';
			return NULL;
		}
		close(fd);
		atexit(remove_file);
	}
	f = fopen(path, "we");
	if (!f)
		return NULL;
	if (n && fwrite(data, 1, n, f) != n) {
		fclose(f);
		return NULL;
	}
	return fclose(f) == 0 ? path : NULL;
}

const char *fuzz_dir_file(const char *name)
{
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/pmc-fuzz-dir-XXXXXX");
		if (!mkdtemp(dir)) {
			dir[0] = '\0';
			return NULL;
		}
		atexit(remove_dir);
	}
	snprintf(dir_path, sizeof(dir_path), "%s/%s", dir, name);
	return dir_path;
}

int fuzz_write(const char *file, const char *mode, const uint8_t *data, size_t n)
{
	FILE *f = fopen(file, mode);

	if (!f)
		return -1;
	if (n && fwrite(data, 1, n, f) != n) {
		fclose(f);
		return -1;
	}
	return fclose(f) == 0 ? 0 : -1;
}

void fuzz_line_addresses(const uint8_t *data, size_t n, int max,
			 void (*fn)(unsigned long long addr, void *ud), void *ud)
{
	char line[64];
	size_t i = 0;

	for (int k = 0; k < max && i < n; k++) {
		size_t len = 0;

		while (i < n && data[i] != '\n' && len < sizeof(line) - 1)
			line[len++] = (char)data[i++];
		line[len] = '\0';
		while (i < n && data[i++] != '\n')
			;
		fn(strtoull(line, NULL, 16), ud);
	}
}

/* One temporary file per fuzzing process (fuzz_file.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/fuzz/fuzz_file.h"

static char path[64];

static void remove_file(void)
{
	if (path[0])
		unlink(path);
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

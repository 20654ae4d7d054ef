/* libFuzzer target: the files valgrind leaves in a run's directory, read for the metrics
 * (counters/valgrind/valgrind_outputs.c): callgrind's and cachegrind's output files,
 * summed (pmc_valgrind_collect) and, for callgrind's numbered dumps, read one by one
 * (pmc_valgrind_collect_dumps), every metric of what was read, and valgrind's logs
 * (pmc_valgrind_log_error). The input is up to 8 files, split at lines "----": each
 * file's first line is its name (callgrind.out.PID[.N], cachegrind.out.PID,
 * valgrind.log.PID; a byte outside [A-Za-z0-9._-] is read as '_'), the rest its text. */
#include <stdint.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters/valgrind/valgrind.h"
#include "counters/reading.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

#define MAX_FILES 8
#define MAX_DUMPS 4

static char dir[64];

static void empty_dir(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char path[160];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
}

static void cleanup(void)
{
	empty_dir();
	rmdir(dir);
}

/* Writes the file whose name line starts data[0..n). */
static void write_file(const uint8_t *data, size_t n)
{
	char name[64], path[160];
	size_t len = 0, i = 0;
	FILE *f;

	while (i < n && data[i] != '\n' && len < sizeof(name) - 1) {
		char c = (char)data[i++];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '-' || c == '_' || (c == '.' && len > 0);

		name[len++] = ok ? c : '_';
	}
	name[len] = '\0';
	while (i < n && data[i++] != '\n')
		;
	if (!len)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "we");
	if (!f)
		return;
	if (i < n)
		fwrite(data + i, 1, n - i, f);
	fclose(f);
}

static void metrics(const struct pmc_valgrind_counts *c)
{
	char err[256];

	for (size_t i = 0; i < pmc_valgrind_metric_count(); i++) {
		struct pmc_reading rd;
		uint64_t v;

		pmc_valgrind_metric_value(c, i, &v, err, sizeof(err));
		pmc_valgrind_metric_reading(c, i, &rd, err, sizeof(err));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	static const char sep[] = "\n----\n";
	struct pmc_valgrind_counts sum, dumps[MAX_DUMPS];
	const uint8_t *p = data, *end = data + n;
	char err[512], why[160];
	size_t ndumps = 0;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/pmc-fuzz-vg-XXXXXX");
		if (!mkdtemp(dir)) {
			dir[0] = '\0';
			return 0;
		}
		atexit(cleanup);
	}
	empty_dir();
	for (int k = 0; k < MAX_FILES && p < end; k++) {
		const uint8_t *s = memmem(p, (size_t)(end - p), sep, sizeof(sep) - 1);
		const uint8_t *stop = s ? s + 1 : end;

		write_file(p, (size_t)(stop - p));
		p = s ? s + sizeof(sep) - 1 : end;
	}
	err[0] = '\0';
	if (pmc_valgrind_collect(dir, &sum, err, sizeof(err)) == 0)
		metrics(&sum);
	else if (!err[0])
		abort(); /* every error names what was wrong */
	err[0] = '\0';
	if (pmc_valgrind_collect_dumps(dir, dumps, MAX_DUMPS, &ndumps, err, sizeof(err)) == 0) {
		if (ndumps > MAX_DUMPS)
			abort();
		for (size_t i = 0; i < ndumps; i++)
			metrics(&dumps[i]);
	} else if (!err[0]) {
		abort();
	}
	if (pmc_valgrind_log_error(dir, why, sizeof(why)) == 0 && strlen(why) >= sizeof(why))
		abort();
	return 0;
}

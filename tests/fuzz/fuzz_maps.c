/* libFuzzer target: /proc/PID/maps as the profiler reads it for a task that was running
 * before sampling began (pmc_maps_load_proc, harness/4-profile/maps.c): the input is the
 * maps file of a fake /proc. Addresses are resolved as kernel frames only, so that no
 * path the input names is opened. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile/maps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

static char root[64];
static char maps[96];

static void cleanup(void)
{
	char dir[96];

	unlink(maps);
	snprintf(dir, sizeof(dir), "%s/1", root);
	rmdir(dir);
	rmdir(root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct pmc_maps *m = NULL;
	struct pmc_resolved res;
	FILE *f;

	if (!root[0]) {
		char dir[96];

		snprintf(root, sizeof(root), "/tmp/pmc-fuzz-proc-XXXXXX");
		if (!mkdtemp(root)) {
			root[0] = '\0';
			return 0;
		}
		snprintf(dir, sizeof(dir), "%s/1", root);
		snprintf(maps, sizeof(maps), "%s/1/maps", root);
		if (mkdir(dir, 0700) < 0)
			return 0;
		atexit(cleanup);
	}
	f = fopen(maps, "we");
	if (!f)
		return 0;
	if (n && fwrite(data, 1, n, f) != n) {
		fclose(f);
		return 0;
	}
	if (fclose(f) != 0 || pmc_maps_new(&m) < 0)
		return 0;
	/* The kernel frame is named without the machine's /proc/kallsyms: read for every
	 * input, its 200,000 lines would be the whole run (test_maps tests kallsyms). */
	if (pmc_maps_set_kallsyms(m, "/nonexistent/kallsyms") == 0 &&
	    pmc_maps_load_proc(m, 1, root) == 0)
		pmc_maps_resolve(m, 1, 0xffffffff81000000u, true, &res);
	pmc_maps_free(m);
	return 0;
}

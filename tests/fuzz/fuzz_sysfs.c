/* libFuzzer target: a PMU's sysfs files as the event parser reads them (counters/perf/
 * sysfs.c, events.c, events_list.c's CPU lists), in a fake sysfs holding one PMU "fz".
 * The input's first lines are its files, in the order of `files` below (a file past the
 * input's last line does not exist); what follows is an event list, parsed with the
 * fixed ones of `specs` that reach every file. `pmcbench list`'s walk of the PMUs
 * (pmc_pmu_events_list) reads the same tree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "counters/perf/events.h"
#include "pmcbench/events.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

static const char *const files[] = {
    "type",	      "format/event",	   "format/umask",
    "format/cmask",   "events/ev",	   "events/ev.scale",
    "events/ev.unit", "events/ev.per-pkg", "cpumask",
};
#define NFILES (sizeof(files) / sizeof(files[0]))
static const char *const specs[] = {"fz/ev/", "fz/event=0x3c,umask=1,cmask=2/",
				    "fz/ev,cmask=0xff/:u", "{fz/ev/,fz/umask=3/}"};

static char root[64];

static void path_of(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/fz/%s", root, name);
}

static void cleanup(void)
{
	char p[160];

	for (size_t i = 0; i < NFILES; i++) {
		path_of(p, sizeof(p), files[i]);
		unlink(p);
	}
	path_of(p, sizeof(p), "events");
	rmdir(p);
	path_of(p, sizeof(p), "format");
	rmdir(p);
	path_of(p, sizeof(p), "");
	rmdir(p);
	rmdir(root);
}

static int make_root(void)
{
	char p[160];

	snprintf(root, sizeof(root), "/tmp/pmc-fuzz-sysfs-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	atexit(cleanup);
	path_of(p, sizeof(p), "");
	if (mkdir(p, 0700) < 0)
		return -1;
	path_of(p, sizeof(p), "events");
	if (mkdir(p, 0700) < 0)
		return -1;
	path_of(p, sizeof(p), "format");
	return mkdir(p, 0700);
}

/* File i holds the bytes [from, to) and the newline the kernel ends it with; NULL
 * from: it does not exist. */
static void put_file(size_t i, const uint8_t *from, const uint8_t *to)
{
	char p[160];
	FILE *f;

	path_of(p, sizeof(p), files[i]);
	unlink(p);
	if (!from || !(f = fopen(p, "we")))
		return;
	fwrite(from, 1, (size_t)(to - from), f);
	fputc('\n', f);
	fclose(f);
}

static void parse(const char *spec, const struct pmc_event_list_opts *o)
{
	struct pmc_event_list *l = NULL;
	char err[512];

	if (pmc_event_list_parse(spec, o, &l, err, sizeof(err)) < 0)
		return;
	for (size_t i = 0; i < pmc_event_list_count(l); i++) {
		struct pmc_event_desc d = {.sz = sizeof(d)};

		if (pmc_event_list_describe(l, i, &d) < 0 || !d.name)
			abort();
	}
	pmc_event_list_free(l);
}

static int count_cpu(int cpu, void *ud)
{
	if (cpu < 0 || cpu > 65535)
		abort();
	++*(size_t *)ud;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct pmc_event_list_opts o = {.sz = sizeof(o)};
	struct pmc_pmu_events pe = {0};
	const uint8_t *p = data, *end = data + n, *cpumask = NULL, *cpumask_end = NULL;
	char *spec;

	if (!root[0] && make_root() < 0)
		return 0;
	o.sysfs_root = root;
	/* A file's line may hold any byte but '\n', a NUL too (the parsers read to it). */
	for (size_t i = 0; i < NFILES; i++) {
		const uint8_t *nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;

		if (!nl) {
			put_file(i, NULL, NULL);
			continue;
		}
		put_file(i, p, nl);
		if (i == NFILES - 1) {
			cpumask = p;
			cpumask_end = nl;
		}
		p = nl + 1;
	}
	if (!(spec = malloc((size_t)(end - p) + 1)))
		return 0;
	memcpy(spec, p, (size_t)(end - p));
	spec[end - p] = '\0';
	parse(spec, &o);
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		parse(specs[i], &o);
	if (pmc_pmu_events_list(root, &pe) == 0)
		pmc_pmu_events_free(&pe);
	free(spec);
	/* The CPU list alone, as attach.c reads /sys/devices/system/cpu/online. */
	if (cpumask) {
		char *list = strndup((const char *)cpumask, (size_t)(cpumask_end - cpumask));
		size_t count = 0;

		if (list && pmc_cpu_list_each(list, count_cpu, &count) == 0 &&
		    count != pmc_cpu_list_count(list))
			abort();
		free(list);
	}
	return 0;
}

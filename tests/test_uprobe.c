/* Uprobe events as tracefs probes (counters/perf/uprobe.h) against an emulated tracefs
 * (fake_tracefs.h) and PMU (fake_pmu.h): the definition lines written, the ids read, the
 * tracepoint attributes opened, the probes deleted at the end and after a failure, a gone
 * pmcbench's probes deleted, and the uprobe PMU kept, with a note, where tracefs cannot
 * take probes. */
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include "tests/test_main.h"

#include "counters/perf/counters.h"
#include "counters/perf/events.h"
#include "counters/perf/uprobe.h"
#include "run/uprobes.h"
#include "tests/fake_pmu.h"
#include "tests/fake_tracefs.h"
#include "tests/helpers.h"

#define UPROBE_TYPE 8

static struct fake_pmu fake;
static struct fake_tracefs tfs;
static char sysfs[160], prog[160], group[64];

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* A sysfs with the uprobe PMU (type 8, retprobe at config:0), a file to probe, and an
 * emulated tracefs behind the emulated PMU, which keeps probes in use busy. */
static int setup(void **state)
{
	static const struct fake_pmu_config cfg = {
	    .counters = 4, .tracepoints = true, .privileged = true};
	char path[256];

	(void)state;
	fake_pmu_init(&fake, &cfg);
	if (fake_tracefs_init(&tfs, &fake.sys) < 0)
		return -1;
	tfs.pmu = &fake;
	snprintf(sysfs, sizeof(sysfs), "%s/sysfs", tfs.root);
	if (mkdir(sysfs, 0755) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/uprobe", sysfs);
	if (mkdir(path, 0755) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/uprobe/format", sysfs);
	if (mkdir(path, 0755) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/uprobe/type", sysfs);
	put_file(path, "8\n");
	snprintf(path, sizeof(path), "%s/uprobe/format/retprobe", sysfs);
	put_file(path, "config:0\n");
	snprintf(prog, sizeof(prog), "%s/prog", tfs.root);
	put_file(prog, "not an ELF file: the kernel reads it only when a probe is hit\n");
	snprintf(group, sizeof(group), "pmcbench_%ld", (long)getpid());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fake_tracefs_remove(&tfs);
	return 0;
}

/* The events of spec, resolved by hand: FILE is prog, offset 0x1130 + 16 i. */
static struct pmc_event_list *uprobes(const char *spec)
{
	PMC_OPTS(pmc_event_list_opts, lo, .sysfs_root = sysfs);
	struct pmc_event_list *l = NULL;
	char err[512] = "";

	if (pmc_event_list_parse(spec, &lo, &l, err, sizeof(err)) < 0)
		fail_msg("%s: %s", spec, err);
	for (size_t i = 0; i < l->n; i++) {
		if (l->events[i].kind != PMC_EV_UPROBE)
			continue;
		if (strcmp(l->events[i].probe_path, "PROG") == 0)
			snprintf(l->events[i].probe_path, sizeof(l->events[i].probe_path), "%s",
				 prog);
		l->events[i].config2 = 0x1130 + 16 * i;
		l->events[i].probe_resolved = true;
	}
	return l;
}

/* Line i written to uprobe_events, and what the emulated kernel answered. */
static void assert_line(size_t i, const char *want, int result)
{
	assert_true(i < tfs.nlines);
	if (strcmp(tfs.lines[i], want) != 0)
		fail_msg("line %zu is '%s', expected '%s'", i, tfs.lines[i], want);
	assert_int_equal(tfs.results[i], result);
}

/* The number in the name of the probe line i names: its e<N>_ prefix. */
static unsigned probe_number(size_t line)
{
	const char *e = strstr(tfs.lines[line], "/e");

	assert_non_null(e);
	return (unsigned)strtoul(e + 2, NULL, 10);
}

static uint64_t id_of(const char *event)
{
	char path[PATH_MAX + 160];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tfs.root, group, event);
	f = fopen(path, "r");
	if (!f)
		return 0;
	assert_int_equal(fscanf(f, "%llu", &v), 1);
	fclose(f);
	return v;
}

/* A call probe and a return probe: a deletion of the name first (a killed pmcbench of
 * this pid may have left it), then the definition the kernel's syntax asks for; each
 * event becomes a tracepoint on its probe's id; the counters open it inherited with no
 * pointer in config1; at the end the probes are deleted and the events are as before. */
static void test_probes_defined_opened_deleted(void **state)
{
	struct pmc_event_list *l = uprobes("uprobe:PROG:mark,uprobe:PROG:mark%return");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0, .inherit = true);
	struct pmc_uprobe_set *set = NULL;
	struct pmc_counters *c = NULL;
	char want[1024], name[2][64], listing[4096];
	unsigned n;

	(void)state;
	assert_int_equal(pmc_uprobe_set_create(l, &fake.sys, &set, NULL, 0), 0);
	assert_non_null(set);
	assert_string_equal(pmc_uprobe_set_group(set), group);
	assert_string_equal(pmc_uprobe_set_tracefs(set), tfs.root);
	assert_int_equal(tfs.nlines, 4);
	n = probe_number(1);
	for (size_t i = 0; i < 2; i++) {
		snprintf(name[i], sizeof(name[i]), "e%u_mark", n + (unsigned)i);
		snprintf(want, sizeof(want), "-:%s/%s", group, name[i]);
		assert_line(2 * i, want, -ENOENT);
		snprintf(want, sizeof(want), "%c:%s/%s %s:0x%zx", i ? 'r' : 'p', group, name[i],
			 prog, 0x1130 + 16 * i);
		assert_line(2 * i + 1, want, 0);
		assert_int_equal(l->events[i].type, PERF_TYPE_TRACEPOINT);
		assert_int_equal(l->events[i].config, id_of(name[i]));
		assert_int_equal(l->events[i].config2, 0);
	}
	assert_int_equal(l->events[0].config, 2000);
	assert_int_equal(l->events[1].config, 2001);
	snprintf(want, sizeof(want), "p:%s/%s %s:0x%016x\nr:%s/%s %s:0x%016x\n", group, name[0],
		 prog, 0x1130, group, name[1], prog, 0x1140);
	assert_string_equal(fake_tracefs_listing(&tfs, listing, sizeof(listing)), want);

	assert_int_equal(pmc_counters_open_sys(l, &o, &fake.sys, &c), 0);
	assert_int_equal(pmc_counters_opened(c), 2);
	assert_int_equal(fake.nlog, 2);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(fake.log[i].attr.type, PERF_TYPE_TRACEPOINT);
		assert_int_equal(fake.log[i].attr.config, 2000 + i);
		assert_int_equal(fake.log[i].attr.config1, 0);
		assert_int_equal(fake.log[i].attr.config2, 0);
		assert_int_equal(fake.log[i].attr.inherit, 1);
	}
	pmc_counters_close(c);

	pmc_uprobe_set_free(set);
	assert_int_equal(tfs.nlines, 6);
	snprintf(want, sizeof(want), "-:%s/%s", group, name[1]);
	assert_line(4, want, 0);
	snprintf(want, sizeof(want), "-:%s/%s", group, name[0]);
	assert_line(5, want, 0);
	assert_string_equal(fake_tracefs_listing(&tfs, listing, sizeof(listing)), "");
	assert_int_equal(id_of(name[0]), 0);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(l->events[i].type, UPROBE_TYPE);
		assert_int_equal(l->events[i].config, i); /* the retprobe bit */
		assert_int_equal(l->events[i].config2, 0x1130 + 16 * i);
	}
	pmc_event_list_free(l);
}

/* The second probe's file is gone: the kernel refuses it (ENOENT), the first probe is
 * deleted again, the events keep their uprobe PMU attributes, and the message names the
 * event and the line. Other events of the list are left alone. */
static void test_failed_probe_deletes_the_others(void **state)
{
	char spec[512], gone[200], err[1024] = "", listing[256], want[512];
	struct pmc_event_list *l;
	struct pmc_uprobe_set *set = (struct pmc_uprobe_set *)&set;

	(void)state;
	snprintf(gone, sizeof(gone), "%s/gone", tfs.root);
	snprintf(spec, sizeof(spec), "task-clock,uprobe:PROG:first,uprobe:%s:second", gone);
	l = uprobes(spec);
	assert_int_equal(pmc_uprobe_set_create(l, &fake.sys, &set, err, sizeof(err)), -ENOENT);
	assert_null(set);
	assert_contains(err, "second: the kernel refused the probe 'p:");
	assert_contains(err, "/uprobe_events: No such file or directory");
	assert_int_equal(tfs.nlines, 5);
	assert_int_equal(tfs.results[1], 0); /* first defined */
	assert_int_equal(tfs.results[3], -ENOENT);
	snprintf(want, sizeof(want), "-:%s/e%u_first", group, probe_number(1));
	assert_line(4, want, 0); /* and deleted */
	assert_string_equal(fake_tracefs_listing(&tfs, listing, sizeof(listing)), "");
	assert_int_equal(l->events[0].type, PERF_TYPE_SOFTWARE);
	for (size_t i = 1; i < 3; i++) {
		assert_int_equal(l->events[i].type, UPROBE_TYPE);
		assert_int_equal(l->events[i].config2, 0x1130 + 16 * i);
	}
	pmc_event_list_free(l);
}

/* A probe still in use when the set is freed stays (the kernel answers EBUSY), and the
 * events are given back all the same; nothing is defined for a list without uprobes. */
static void test_probe_in_use_stays(void **state)
{
	struct pmc_event_list *l = uprobes("uprobe:PROG:mark");
	PMC_OPTS(pmc_counters_opts, o, .pid = 0, .inherit = true);
	struct pmc_uprobe_set *set = NULL;
	struct pmc_counters *c = NULL;
	char listing[1024], del[128];

	(void)state;
	assert_int_equal(pmc_uprobe_set_create(l, &fake.sys, &set, NULL, 0), 0);
	assert_int_equal(pmc_counters_open_sys(l, &o, &fake.sys, &c), 0);
	pmc_uprobe_set_free(set);
	assert_int_equal(tfs.results[tfs.nlines - 1], -EBUSY);
	assert_non_null(strstr(fake_tracefs_listing(&tfs, listing, sizeof(listing)), group));
	assert_int_equal(l->events[0].type, UPROBE_TYPE);
	pmc_counters_close(c);
	snprintf(del, sizeof(del), "%s", tfs.lines[tfs.nlines - 1]);
	assert_int_equal(fake_tracefs_write(&tfs, tfs.root, del), 0);
	pmc_event_list_free(l);

	l = uprobes("task-clock");
	set = (struct pmc_uprobe_set *)&set;
	tfs.nlines = 0;
	assert_int_equal(pmc_uprobe_set_create(l, &fake.sys, &set, NULL, 0), 0);
	assert_null(set);
	assert_int_equal(tfs.nlines, 0);
	pmc_event_list_free(l);
}

/* A pid no process has: a child that has exited and been reaped. */
static pid_t gone_pid(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

/* Probes of a pmcbench that no longer exists are deleted before new ones are defined;
 * those of a live process (pid 1), and of other tools' groups, are left alone. */
static void test_gone_pmcbench_probes_deleted(void **state)
{
	struct pmc_event_list *l = uprobes("uprobe:PROG:mark");
	struct pmc_uprobe_set *set = NULL;
	char line[512], listing[4096];
	pid_t gone = gone_pid();

	(void)state;
	snprintf(line, sizeof(line), "p:pmcbench_%ld/e7_malloc %s:0x10", (long)gone, prog);
	assert_int_equal(fake_tracefs_write(&tfs, tfs.root, line), 0);
	snprintf(line, sizeof(line), "r:pmcbench_1/e0_free %s:0x20", prog);
	assert_int_equal(fake_tracefs_write(&tfs, tfs.root, line), 0);
	snprintf(line, sizeof(line), "p:probe_prog/mark %s:0x30", prog);
	assert_int_equal(fake_tracefs_write(&tfs, tfs.root, line), 0);
	assert_int_equal(pmc_uprobe_set_create(l, &fake.sys, &set, NULL, 0), 0);
	snprintf(line, sizeof(line), "-:pmcbench_%ld/e7_malloc", (long)gone);
	assert_line(3, line, 0);
	fake_tracefs_listing(&tfs, listing, sizeof(listing));
	snprintf(line, sizeof(line), "pmcbench_%ld/", (long)gone);
	assert_null(strstr(listing, line));
	assert_non_null(strstr(listing, "r:pmcbench_1/e0_free "));
	assert_non_null(strstr(listing, "p:probe_prog/mark "));
	assert_non_null(strstr(listing, group));
	pmc_uprobe_set_free(set);
	assert_null(strstr(fake_tracefs_listing(&tfs, listing, sizeof(listing)), group));
	pmc_event_list_free(l);
}

/* Where tracefs cannot take probes the list stays as it was: no uprobe_events (a kernel
 * without CONFIG_UPROBE_EVENTS), no tracefs at all, or a path with white space (the
 * kernel splits a definition at spaces). */
static void test_no_tracefs_no_probes(void **state)
{
	struct pmc_event_list *l = uprobes("uprobe:PROG:mark");
	struct pmc_sys sys = fake.sys;
	struct pmc_uprobe_set *set = NULL;
	char path[200], err[1024] = "";

	(void)state;
	snprintf(path, sizeof(path), "%s/uprobe_events", tfs.root);
	assert_int_equal(rename(path, prog), 0);
	assert_int_equal(pmc_uprobe_set_create(l, &fake.sys, &set, err, sizeof(err)), -ENOENT);
	assert_contains(err, "/uprobe_events: No such file or directory (a kernel without "
			     "CONFIG_UPROBE_EVENTS)");
	assert_int_equal(rename(prog, path), 0);
	sys.tracefs_root = sysfs; /* no events/ */
	assert_int_equal(pmc_uprobe_set_create(l, &sys, &set, err, sizeof(err)), -ENOENT);
	assert_contains(err, "no tracefs at");
	assert_int_equal(tfs.nlines, 0);
	assert_null(set);
	assert_int_equal(l->events[0].type, UPROBE_TYPE);
	pmc_event_list_free(l);

	put_file(prog, "x\n");
	snprintf(path, sizeof(path), "%s/a b", tfs.root);
	put_file(path, "x\n");
	/* A path the list cannot spell, but realpath() can give through a symbolic link. */
	l = uprobes("uprobe:PROG:mark");
	snprintf(l->events[0].probe_path, sizeof(l->events[0].probe_path), "%s", path);
	assert_int_equal(pmc_uprobe_set_create(l, &fake.sys, &set, err, sizeof(err)), -EINVAL);
	assert_contains(err, "b has white space, which a probe in uprobe_events cannot name");
	assert_int_equal(tfs.nlines, 0);
	pmc_event_list_free(l);
}

/* The session's step (run/uprobes.h): probes where tracefs takes them, no note; else the
 * uprobe PMU, with a note that says why and what fails there. */
static void test_session_note_without_tracefs(void **state)
{
	struct pmc_event_list *l = uprobes("uprobe:PROG:mark");
	struct pmc_sys sys = fake.sys;
	struct pmc_uprobe_set *set = NULL;
	char note[1024];

	(void)state;
	assert_int_equal(pmc_uprobes_probe(l, &fake.sys, false, &set, note, sizeof(note)), 0);
	assert_non_null(set);
	assert_string_equal(note, "");
	assert_int_equal(l->events[0].type, PERF_TYPE_TRACEPOINT);
	pmc_uprobe_set_free(set);
	sys.tracefs_root = sysfs;
	assert_int_equal(pmc_uprobes_probe(l, &sys, false, &set, note, sizeof(note)), 0);
	assert_null(set);
	assert_contains(note, "uprobe events count through the uprobe PMU, not tracefs probes "
			      "(no tracefs at");
	assert_contains(note, "(pthread_create, fork: EFAULT)");
	assert_int_equal(l->events[0].type, UPROBE_TYPE);
	/* A benchmark program's: what it loses there is its threads' calls. */
	assert_int_equal(pmc_uprobes_probe(l, &sys, true, &set, note, sizeof(note)), 0);
	assert_null(set);
	assert_contains(note, "the calls on a multithreaded benchmark's threads are missed there, "
			      "and not measured; run as root with tracefs mounted");
	pmc_event_list_free(l);
}

/* The emulation refuses what the kernel refuses, so that the tests above mean something:
 * bad names, a missing or non-numeric offset, a missing file or a directory, a name
 * defined twice, a deletion of what does not exist, a command it does not know. */
static void test_fake_tracefs_is_strict(void **state)
{
	char line[512];
	/* Each line is before, then a file (the probed one, or "D" for the tracefs
	 * directory), then after. */
	static const struct {
		const char *before, *file, *after;
		int r;
	} cases[] = {
	    {"p:pmc-bench/x ", "P", ":0x10", -EINVAL},
	    {"p:g/1x ", "P", ":0x10", -EINVAL},
	    {"p:g/x ", "P", ":0xZZ", -EINVAL},
	    {"p:g/x ", "P", "", -EINVAL},
	    {"p:g/x ", "D", "/nosuch:0x10", -ENOENT},
	    {"p:g/x ", "D", ":0x10", -EINVAL},
	    {"q:g/x ", "P", ":0x10", -EINVAL},
	    {"p:g/x ", "P", ":0x10", 0},
	    {"p:g/x ", "P", ":0x20", -EEXIST},
	    {"-:g/y", "", "", -ENOENT},
	    {"-:g/x", "", "", 0},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *file = cases[i].file[0] == 'P'   ? prog
				   : cases[i].file[0] == 'D' ? tfs.root
							     : "";
		int r;

		snprintf(line, sizeof(line), "%s%s%s", cases[i].before, file, cases[i].after);
		r = fake_tracefs_write(&tfs, tfs.root, line);
		if (r != cases[i].r)
			fail_msg("'%s': %d, expected %d", line, r, cases[i].r);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_probes_defined_opened_deleted, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_failed_probe_deletes_the_others, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_probe_in_use_stays, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_gone_pmcbench_probes_deleted, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_tracefs_no_probes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_session_note_without_tracefs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fake_tracefs_is_strict, setup, teardown),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

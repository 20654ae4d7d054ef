/* The event-list parser: every kind of event, aliases, groups, modifiers, sysfs PMU
 * events (a fake sysfs tree and the real msr/tsc), and errors with their columns. */
#include <errno.h>
#include <ftw.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "counters/perf/events.h"
#include "counters/reading.h"
#include "counters/perf/sysfs.h"
#include "pmcbench/events.h"

#define CACHE(id, op, res)                                                                         \
	((uint64_t)PERF_COUNT_HW_CACHE_##id | (uint64_t)PERF_COUNT_HW_CACHE_OP_##op << 8 |         \
	 (uint64_t)PERF_COUNT_HW_CACHE_RESULT_##res << 16)

static char fake_root[256];
static char fake_tracefs[300]; /* fake_root-tracefs: a tracefs tree of a few tracepoints */

/* Parses spec (which must succeed) with the given sysfs root. */
static struct pmc_event_list *parse_ok(const char *spec, const char *root)
{
	PMC_OPTS(pmc_event_list_opts, o, .sysfs_root = root, .tracefs_root = fake_tracefs);
	struct pmc_event_list *l = NULL;
	char err[256] = "";
	int r = pmc_event_list_parse(spec, &o, &l, err, sizeof(err));

	if (r != 0)
		print_error("parsing \"%s\": %s\n", spec, err);
	assert_int_equal(r, 0);
	assert_non_null(l);
	return l;
}

/* Splits "column N: message" into N and the message. */
static const char *split_error(const char *err, size_t *ret_column)
{
	unsigned long col = 0;
	int used = 0;

	if (sscanf(err, "column %lu: %n", &col, &used) != 1 || used == 0)
		fail_msg("error without a column: \"%s\"", err);
	*ret_column = col;
	return err + used;
}

static void expect_single(const char *spec, const char *name, enum pmc_event_kind kind,
			  uint32_t type, uint64_t config)
{
	struct pmc_event_list *l = parse_ok(spec, fake_root);

	assert_int_equal(l->n, 1);
	assert_int_equal(l->ngroups, 1);
	assert_string_equal(l->events[0].name, name);
	assert_int_equal(l->events[0].kind, kind);
	assert_int_equal(l->events[0].type, type);
	assert_int_equal(l->events[0].config, config);
	assert_true(l->events[0].leader);
	assert_false(l->events[0].exclude_user);
	assert_false(l->events[0].exclude_kernel);
	assert_false(l->events[0].exclude_hv);
	pmc_event_list_free(l);
}

static void test_generic_hardware(void **state)
{
	expect_single("cycles", "cycles", PMC_EV_HARDWARE, PERF_TYPE_HARDWARE,
		      PERF_COUNT_HW_CPU_CYCLES);
	expect_single("cpu-cycles", "cycles", PMC_EV_HARDWARE, PERF_TYPE_HARDWARE,
		      PERF_COUNT_HW_CPU_CYCLES);
	expect_single("instructions", "instructions", PMC_EV_HARDWARE, PERF_TYPE_HARDWARE,
		      PERF_COUNT_HW_INSTRUCTIONS);
	expect_single("cache-references", "cache-references", PMC_EV_HARDWARE, PERF_TYPE_HARDWARE,
		      PERF_COUNT_HW_CACHE_REFERENCES);
	expect_single("cache-misses", "cache-misses", PMC_EV_HARDWARE, PERF_TYPE_HARDWARE,
		      PERF_COUNT_HW_CACHE_MISSES);
	expect_single("branches", "branches", PMC_EV_HARDWARE, PERF_TYPE_HARDWARE,
		      PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
	expect_single("branch-instructions", "branches", PMC_EV_HARDWARE, PERF_TYPE_HARDWARE,
		      PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
	expect_single("branch-misses", "branch-misses", PMC_EV_HARDWARE, PERF_TYPE_HARDWARE,
		      PERF_COUNT_HW_BRANCH_MISSES);
	expect_single("bus-cycles", "bus-cycles", PMC_EV_HARDWARE, PERF_TYPE_HARDWARE,
		      PERF_COUNT_HW_BUS_CYCLES);
	expect_single("stalled-cycles-frontend", "stalled-cycles-frontend", PMC_EV_HARDWARE,
		      PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND);
	expect_single("stalled-cycles-backend", "stalled-cycles-backend", PMC_EV_HARDWARE,
		      PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND);
	expect_single("ref-cycles", "ref-cycles", PMC_EV_HARDWARE, PERF_TYPE_HARDWARE,
		      PERF_COUNT_HW_REF_CPU_CYCLES);
	/* perf matches the names case-insensitively; the metric id stays canonical. */
	expect_single("CYCLES", "cycles", PMC_EV_HARDWARE, PERF_TYPE_HARDWARE,
		      PERF_COUNT_HW_CPU_CYCLES);
}

static void test_cache_events(void **state)
{
	expect_single("L1-dcache-loads", "L1-dcache-loads", PMC_EV_HW_CACHE, PERF_TYPE_HW_CACHE,
		      CACHE(L1D, READ, ACCESS));
	expect_single("L1-dcache-load-misses", "L1-dcache-load-misses", PMC_EV_HW_CACHE,
		      PERF_TYPE_HW_CACHE, 0x10000);
	expect_single("L1-dcache-stores", "L1-dcache-stores", PMC_EV_HW_CACHE, PERF_TYPE_HW_CACHE,
		      0x100);
	expect_single("L1-dcache-store-misses", "L1-dcache-store-misses", PMC_EV_HW_CACHE,
		      PERF_TYPE_HW_CACHE, 0x10100);
	expect_single("L1-icache-loads", "L1-icache-loads", PMC_EV_HW_CACHE, PERF_TYPE_HW_CACHE,
		      CACHE(L1I, READ, ACCESS));
	expect_single("L1-icache-load-misses", "L1-icache-load-misses", PMC_EV_HW_CACHE,
		      PERF_TYPE_HW_CACHE, 0x10001);
	expect_single("LLC-loads", "LLC-loads", PMC_EV_HW_CACHE, PERF_TYPE_HW_CACHE, 0x2);
	expect_single("LLC-load-misses", "LLC-load-misses", PMC_EV_HW_CACHE, PERF_TYPE_HW_CACHE,
		      0x10002);
	expect_single("LLC-stores", "LLC-stores", PMC_EV_HW_CACHE, PERF_TYPE_HW_CACHE, 0x102);
	expect_single("LLC-store-misses", "LLC-store-misses", PMC_EV_HW_CACHE, PERF_TYPE_HW_CACHE,
		      0x10102);
	expect_single("dTLB-loads", "dTLB-loads", PMC_EV_HW_CACHE, PERF_TYPE_HW_CACHE, 0x3);
	expect_single("dTLB-load-misses", "dTLB-load-misses", PMC_EV_HW_CACHE, PERF_TYPE_HW_CACHE,
		      0x10003);
	expect_single("dTLB-stores", "dTLB-stores", PMC_EV_HW_CACHE, PERF_TYPE_HW_CACHE, 0x103);
	expect_single("dTLB-store-misses", "dTLB-store-misses", PMC_EV_HW_CACHE, PERF_TYPE_HW_CACHE,
		      0x10103);
	expect_single("iTLB-loads", "iTLB-loads", PMC_EV_HW_CACHE, PERF_TYPE_HW_CACHE, 0x4);
	expect_single("iTLB-load-misses", "iTLB-load-misses", PMC_EV_HW_CACHE, PERF_TYPE_HW_CACHE,
		      0x10004);
	expect_single("branch-loads", "branch-loads", PMC_EV_HW_CACHE, PERF_TYPE_HW_CACHE, 0x5);
	expect_single("branch-load-misses", "branch-load-misses", PMC_EV_HW_CACHE,
		      PERF_TYPE_HW_CACHE, 0x10005);
	expect_single("node-loads", "node-loads", PMC_EV_HW_CACHE, PERF_TYPE_HW_CACHE, 0x6);
	expect_single("node-load-misses", "node-load-misses", PMC_EV_HW_CACHE, PERF_TYPE_HW_CACHE,
		      0x10006);
	expect_single("LLC-prefetch-misses", "LLC-prefetch-misses", PMC_EV_HW_CACHE,
		      PERF_TYPE_HW_CACHE, CACHE(LL, PREFETCH, MISS));
}

static void test_software_events(void **state)
{
	expect_single("task-clock", "task-clock", PMC_EV_SOFTWARE, PERF_TYPE_SOFTWARE,
		      PERF_COUNT_SW_TASK_CLOCK);
	expect_single("cpu-clock", "cpu-clock", PMC_EV_SOFTWARE, PERF_TYPE_SOFTWARE,
		      PERF_COUNT_SW_CPU_CLOCK);
	expect_single("page-faults", "page-faults", PMC_EV_SOFTWARE, PERF_TYPE_SOFTWARE,
		      PERF_COUNT_SW_PAGE_FAULTS);
	expect_single("faults", "page-faults", PMC_EV_SOFTWARE, PERF_TYPE_SOFTWARE,
		      PERF_COUNT_SW_PAGE_FAULTS);
	expect_single("minor-faults", "minor-faults", PMC_EV_SOFTWARE, PERF_TYPE_SOFTWARE,
		      PERF_COUNT_SW_PAGE_FAULTS_MIN);
	expect_single("major-faults", "major-faults", PMC_EV_SOFTWARE, PERF_TYPE_SOFTWARE,
		      PERF_COUNT_SW_PAGE_FAULTS_MAJ);
	expect_single("context-switches", "context-switches", PMC_EV_SOFTWARE, PERF_TYPE_SOFTWARE,
		      PERF_COUNT_SW_CONTEXT_SWITCHES);
	expect_single("cs", "context-switches", PMC_EV_SOFTWARE, PERF_TYPE_SOFTWARE,
		      PERF_COUNT_SW_CONTEXT_SWITCHES);
	expect_single("cpu-migrations", "cpu-migrations", PMC_EV_SOFTWARE, PERF_TYPE_SOFTWARE,
		      PERF_COUNT_SW_CPU_MIGRATIONS);
	expect_single("migrations", "cpu-migrations", PMC_EV_SOFTWARE, PERF_TYPE_SOFTWARE,
		      PERF_COUNT_SW_CPU_MIGRATIONS);
	expect_single("alignment-faults", "alignment-faults", PMC_EV_SOFTWARE, PERF_TYPE_SOFTWARE,
		      PERF_COUNT_SW_ALIGNMENT_FAULTS);
	expect_single("emulation-faults", "emulation-faults", PMC_EV_SOFTWARE, PERF_TYPE_SOFTWARE,
		      PERF_COUNT_SW_EMULATION_FAULTS);
}

static void test_raw_events(void **state)
{
	expect_single("r1a8", "r1a8", PMC_EV_RAW, PERF_TYPE_RAW, 0x1a8);
	expect_single("r00C0", "r00c0", PMC_EV_RAW, PERF_TYPE_RAW, 0xc0);
	expect_single("rffffffffffffffff", "rffffffffffffffff", PMC_EV_RAW, PERF_TYPE_RAW,
		      UINT64_MAX);
}

/* Every name the builtin table lists parses, to a canonical name that is itself a
 * builtin name parsing to the same attribute; every name the issue asks for is there. */
static void test_builtin_table(void **state)
{
	static const char *const required[] = {
	    "cycles",
	    "cpu-cycles",
	    "instructions",
	    "cache-references",
	    "cache-misses",
	    "branches",
	    "branch-instructions",
	    "branch-misses",
	    "bus-cycles",
	    "stalled-cycles-frontend",
	    "stalled-cycles-backend",
	    "ref-cycles",
	    "L1-dcache-loads",
	    "L1-dcache-load-misses",
	    "L1-dcache-stores",
	    "L1-dcache-store-misses",
	    "L1-icache-loads",
	    "L1-icache-load-misses",
	    "LLC-loads",
	    "LLC-load-misses",
	    "LLC-stores",
	    "LLC-store-misses",
	    "dTLB-loads",
	    "dTLB-load-misses",
	    "dTLB-stores",
	    "dTLB-store-misses",
	    "iTLB-loads",
	    "iTLB-load-misses",
	    "branch-loads",
	    "branch-load-misses",
	    "node-loads",
	    "node-load-misses",
	    "task-clock",
	    "cpu-clock",
	    "page-faults",
	    "faults",
	    "minor-faults",
	    "major-faults",
	    "context-switches",
	    "cs",
	    "cpu-migrations",
	    "migrations",
	    "alignment-faults",
	    "emulation-faults",
	};
	size_t n = pmc_event_builtin_count(), hw = 0, cache = 0, sw = 0;

	for (size_t r = 0; r < sizeof(required) / sizeof(required[0]); r++) {
		bool found = false;

		for (size_t i = 0; i < n && !found; i++)
			found = strcmp(pmc_event_builtin_name(i), required[r]) == 0;
		if (!found)
			print_error("missing builtin event %s\n", required[r]);
		assert_true(found);
	}
	for (size_t i = 0; i < n; i++) {
		const char *kind = pmc_event_builtin_kind(i);
		struct pmc_event_list *a = parse_ok(pmc_event_builtin_name(i), fake_root);
		struct pmc_event_list *b = parse_ok(a->events[0].name, fake_root);

		assert_string_equal(b->events[0].name, a->events[0].name);
		assert_int_equal(b->events[0].type, a->events[0].type);
		assert_int_equal(b->events[0].config, a->events[0].config);
		if (strcmp(kind, "hardware") == 0) {
			hw++;
			assert_int_equal(a->events[0].kind, PMC_EV_HARDWARE);
		} else if (strcmp(kind, "hardware-cache") == 0) {
			cache++;
			assert_int_equal(a->events[0].kind, PMC_EV_HW_CACHE);
		} else {
			assert_string_equal(kind, "software");
			sw++;
			assert_int_equal(a->events[0].kind, PMC_EV_SOFTWARE);
			assert_false(pmc_event_is_hardware(&a->events[0]));
		}
		if (a->events[0].kind != PMC_EV_SOFTWARE)
			assert_true(pmc_event_is_hardware(&a->events[0]));
		pmc_event_list_free(a);
		pmc_event_list_free(b);
	}
	assert_int_equal(hw, 14);
	assert_int_equal(cache, 32);
	assert_int_equal(sw, 12);
	assert_null(pmc_event_builtin_name(n));
	assert_null(pmc_event_builtin_kind(n));
}

static void test_groups_and_modifiers(void **state)
{
	struct pmc_event_list *l = parse_ok("cycles,instructions,{cache-references,cache-misses}:u,"
					    "task-clock:k",
					    fake_root);
	static const struct {
		const char *name;
		size_t group;
		bool leader, xu, xk, xh;
	} want[] = {
	    {"cycles", 0, true, false, false, false},
	    {"instructions", 1, true, false, false, false},
	    {"cache-references:u", 2, true, false, true, true},
	    {"cache-misses:u", 2, false, false, true, true},
	    {"task-clock:k", 3, true, true, false, true},
	};

	assert_int_equal(l->n, 5);
	assert_int_equal(l->ngroups, 4);
	for (size_t i = 0; i < 5; i++) {
		assert_string_equal(l->events[i].name, want[i].name);
		assert_int_equal(l->events[i].group, want[i].group);
		assert_int_equal(l->events[i].leader, want[i].leader);
		assert_int_equal(l->events[i].exclude_user, want[i].xu);
		assert_int_equal(l->events[i].exclude_kernel, want[i].xk);
		assert_int_equal(l->events[i].exclude_hv, want[i].xh);
	}
	pmc_event_list_free(l);

	/* Modifiers on members, spaces around items, and both levels. */
	l = parse_ok(" { branches:u , branch-misses:u } , faults:uk ", fake_root);
	assert_int_equal(l->n, 3);
	assert_int_equal(l->ngroups, 2);
	assert_string_equal(l->events[0].name, "branches:u");
	assert_string_equal(l->events[1].name, "branch-misses:u");
	assert_false(l->events[1].leader);
	assert_string_equal(l->events[2].name, "page-faults:uk");
	assert_false(l->events[2].exclude_user);
	assert_false(l->events[2].exclude_kernel);
	assert_true(l->events[2].exclude_hv);
	pmc_event_list_free(l);

	/* The same modifier on the group and its event agrees. */
	l = parse_ok("{cycles:k,instructions}:k", fake_root);
	assert_string_equal(l->events[0].name, "cycles:k");
	assert_string_equal(l->events[1].name, "instructions:k");
	assert_true(l->events[1].exclude_user);
	assert_false(l->events[1].weak);
	pmc_event_list_free(l);

	/* :W makes a weak group, names nothing, and leaves its events' own levels; with a
	 * level it applies both. */
	l = parse_ok("{cycles:u,instructions}:W,{branches,branch-misses}:uW,task-clock", fake_root);
	assert_string_equal(l->events[0].name, "cycles:u");
	assert_true(l->events[0].exclude_kernel);
	assert_string_equal(l->events[1].name, "instructions");
	assert_false(l->events[1].exclude_kernel);
	assert_true(l->events[0].weak && l->events[1].weak);
	assert_string_equal(l->events[2].name, "branches:u");
	assert_true(l->events[2].weak && l->events[3].weak && l->events[3].exclude_kernel);
	assert_false(l->events[4].weak);
	pmc_event_list_free(l);
}

/* What a program linking the library sees of a list: the accessors and the description
 * agree with the parse, a smaller (older) description struct is filled only as far as
 * it reaches, and bad indexes are refused. */
static void test_public_accessors(void **state)
{
	struct pmc_event_list *l = parse_ok("{cycles,instructions}:u,task-clock", fake_root);
	struct pmc_event_desc d = {.sz = sizeof(d)};
	struct {
		struct pmc_event_desc d;
		char canary[8];
	} small;

	assert_int_equal(pmc_event_list_count(l), 3);
	assert_int_equal(pmc_event_list_group_count(l), 2);
	assert_string_equal(pmc_event_list_name(l, 1), "instructions:u");
	assert_null(pmc_event_list_name(l, 3));
	assert_int_equal(pmc_event_list_group(l, 1), 0);
	assert_int_equal(pmc_event_list_group(l, 2), 1);
	assert_int_equal(pmc_event_list_group(l, 3), SIZE_MAX);
	assert_true(pmc_event_list_is_leader(l, 0));
	assert_false(pmc_event_list_is_leader(l, 1));
	assert_true(pmc_event_list_is_leader(l, 2));
	assert_true(pmc_event_list_is_hardware(l, 0));
	assert_false(pmc_event_list_is_hardware(l, 2));
	assert_false(pmc_event_list_is_hardware(l, 3));

	assert_int_equal(pmc_event_list_describe(l, 1, &d), 0);
	assert_string_equal(d.name, "instructions:u");
	assert_int_equal(d.kind, PMC_EV_HARDWARE);
	assert_string_equal(pmc_event_kind_name(d.kind), "hardware");
	assert_int_equal(d.type, PERF_TYPE_HARDWARE);
	assert_int_equal(d.config, PERF_COUNT_HW_INSTRUCTIONS);
	assert_false(d.exclude_user);
	assert_true(d.exclude_kernel);
	assert_true(d.exclude_hv);
	assert_int_equal(d.group, 0);
	assert_false(d.leader);
	assert_true(d.hardware);
	assert_int_equal(pmc_event_list_describe(l, 3, &d), -EINVAL);
	d.sz = 0;
	assert_int_equal(pmc_event_list_describe(l, 0, &d), -EINVAL);

	/* An older caller knowing only sz, name and kind. */
	memset(&small, 0x5a, sizeof(small));
	small.d.sz = offsetof(struct pmc_event_desc, type);
	assert_int_equal(pmc_event_list_describe(l, 2, &small.d), 0);
	assert_string_equal(small.d.name, "task-clock");
	assert_int_equal(small.d.kind, PMC_EV_SOFTWARE);
	assert_int_equal(small.d.sz, offsetof(struct pmc_event_desc, type));
	assert_int_equal(((unsigned char *)&small.d)[offsetof(struct pmc_event_desc, type)], 0x5a);
	assert_string_equal(pmc_event_kind_name(PMC_EV_PMU), "pmu");
	assert_string_equal(pmc_event_kind_name((enum pmc_event_kind)99), "unknown");
	pmc_event_list_free(l);
	assert_int_equal(pmc_event_list_count(NULL), 0);
}

/* Options from a newer program: an unknown tail that is zero is accepted, one that is
 * set is refused, with words. */
static void test_opts_versions(void **state)
{
	struct {
		struct pmc_event_list_opts o;
		uint64_t future;
	} big = {.o = {.sz = sizeof(big)}};
	struct pmc_event_list *l = NULL;
	char err[256];

	assert_int_equal(pmc_event_list_parse("cycles", &big.o, &l, err, sizeof(err)), 0);
	pmc_event_list_free(l);
	l = NULL;
	big.future = 1;
	assert_int_equal(pmc_event_list_parse("cycles", &big.o, &l, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "newer"));
	assert_null(l);
	big.o.sz = 2;
	assert_int_equal(pmc_event_list_parse("cycles", &big.o, &l, err, sizeof(err)), -EINVAL);
}

/* ---- a fake sysfs tree ---- */

/* rel is under fake_root, or under fake_tracefs when it starts with '@'. */
static void fake_path(char *path, size_t len, const char *rel)
{
	if (rel[0] == '@')
		snprintf(path, len, "%s%s", fake_tracefs, rel + 1);
	else
		snprintf(path, len, "%s/%s", fake_root, rel);
}

static void write_file(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	fake_path(path, sizeof(path), rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void make_dir(const char *rel)
{
	char path[512];

	fake_path(path, sizeof(path), rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static int setup_sysfs(void **state)
{
	snprintf(fake_root, sizeof(fake_root), "/tmp/pmc-test-sysfs-XXXXXX");
	if (!mkdtemp(fake_root))
		return -1;
	make_dir("fakecpu");
	make_dir("fakecpu/events");
	make_dir("fakecpu/format");
	write_file("fakecpu/type", "42\n");
	write_file("fakecpu/events/cycles", "event=0x3c\n");
	write_file("fakecpu/events/inst", "event=0xc0,umask=0x01\n");
	write_file("fakecpu/events/broken", "nosuchterm=1\n");
	write_file("fakecpu/events/offcore", "event=0xb7,umask=?\n");
	write_file("fakecpu/events/cycles.scale", "1\n");
	write_file("fakecpu/format/event", "config:0-7\n");
	write_file("fakecpu/format/umask", "config:8-15\n");
	write_file("fakecpu/format/edge", "config:18\n");
	write_file("fakecpu/format/split", "config1:0-3,8-11\n");
	write_file("fakecpu/format/ldlat", "config2:0-15\n");
	write_file("fakecpu/format/c3", "config3:0-7\n");
	write_file("fakecpu/format/garbage", "bits 0 to 7\n");
	make_dir("soft");
	write_file("soft/type", "1\n");
	make_dir("uprobe");
	make_dir("uprobe/format");
	write_file("uprobe/type", "8\n");
	write_file("uprobe/format/retprobe", "config:0\n");
	write_file("uprobe/format/ref_ctr_offset", "config:32-63\n");
	/* tracefs: events/<subsystem>/<event>/id, with the files beside them that are not
	 * tracepoints (enable, filter, header_page). */
	snprintf(fake_tracefs, sizeof(fake_tracefs), "%s-tracefs", fake_root);
	make_dir("@");
	make_dir("@/events");
	write_file("@/events/enable", "0\n");
	write_file("@/events/header_page", "x\n");
	make_dir("@/events/syscalls");
	write_file("@/events/syscalls/enable", "0\n");
	write_file("@/events/syscalls/filter", "none\n");
	make_dir("@/events/syscalls/sys_enter_getpid");
	write_file("@/events/syscalls/sys_enter_getpid/id", "309\n");
	make_dir("@/events/syscalls/sys_exit_getpid");
	write_file("@/events/syscalls/sys_exit_getpid/id", "308\n");
	make_dir("@/events/syscalls/sys_enter_openat");
	write_file("@/events/syscalls/sys_enter_openat/id", "640\n");
	make_dir("@/events/sched");
	make_dir("@/events/sched/sched_switch");
	write_file("@/events/sched/sched_switch/id", "70\n");
	/* A subsystem of 300 tracepoints, more than one group holds. */
	make_dir("@/events/many");
	for (int i = 0; i < 300; i++) {
		char rel[128], id[16];

		snprintf(rel, sizeof(rel), "@/events/many/ev%03d", i);
		make_dir(rel);
		snprintf(rel, sizeof(rel), "@/events/many/ev%03d/id", i);
		snprintf(id, sizeof(id), "%d\n", 1000 + i);
		write_file(rel, id);
	}
	return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int teardown_sysfs(void **state)
{
	nftw(fake_tracefs, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return nftw(fake_root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* What `pmcbench list` shows of sysfs: every named event as pmu/event/ (companions such
 * as cycles.scale left out), and the PMUs without named events apart. */
static void test_pmu_events_list(void **state)
{
	struct pmc_pmu_events pe;

	assert_int_equal(pmc_pmu_events_list(fake_root, &pe), 0);
	assert_int_equal(pe.nevents, 4);
	assert_string_equal(pe.events[0], "fakecpu/broken/");
	assert_string_equal(pe.events[1], "fakecpu/cycles/");
	assert_string_equal(pe.events[2], "fakecpu/inst/");
	assert_string_equal(pe.events[3], "fakecpu/offcore/");
	assert_int_equal(pe.nbare, 2);
	assert_string_equal(pe.bare[0], "soft");
	assert_string_equal(pe.bare[1], "uprobe");
	pmc_pmu_events_free(&pe);
	assert_null(pe.events);
	assert_int_equal(pmc_pmu_events_list("/nonexistent-sysfs-root", &pe), -ENOENT);
}

static void test_sysfs_events(void **state)
{
	struct pmc_event_list *l;

	expect_single("fakecpu/cycles/", "fakecpu/cycles/", PMC_EV_PMU, 42, 0x3c);
	expect_single("fakecpu/inst/", "fakecpu/inst/", PMC_EV_PMU, 42, 0x1c0);
	expect_single("fakecpu/event=0xc0,umask=2/", "fakecpu/event=0xc0,umask=2/", PMC_EV_PMU, 42,
		      0x2c0);
	/* A term after an alias overrides the alias's value for that term, as in perf. */
	expect_single("fakecpu/inst,umask=0x3/", "fakecpu/inst,umask=0x3/", PMC_EV_PMU, 42, 0x3c0);
	/* An alias with a parameter (umask=?) takes it from the event's terms, in any
	 * order; without it the error names the term and the way to give it. */
	expect_single("fakecpu/offcore,umask=0x3/", "fakecpu/offcore,umask=0x3/", PMC_EV_PMU, 42,
		      0x3b7);
	expect_single("fakecpu/umask=0x2,offcore/", "fakecpu/umask=0x2,offcore/", PMC_EV_PMU, 42,
		      0x2b7);
	/* A bare format term means 1. */
	expect_single("fakecpu/event=1,edge/", "fakecpu/event=1,edge/", PMC_EV_PMU, 42,
		      1 | 1u << 18);
	expect_single("fakecpu/config=0x1234/", "fakecpu/config=0x1234/", PMC_EV_PMU, 42, 0x1234);

	/* A format split over two ranges: low 4 value bits at 0-3, the next 4 at 8-11. */
	l = parse_ok("fakecpu/split=0xab,ldlat=300/", fake_root);
	assert_int_equal(l->events[0].config, 0);
	assert_int_equal(l->events[0].config1, 0xa0b);
	assert_int_equal(l->events[0].config2, 300);
	assert_true(pmc_event_is_hardware(&l->events[0]));
	pmc_event_list_free(l);

	/* Modifiers after a PMU event, with or without ':', and PMU events in groups. */
	l = parse_ok("{fakecpu/cycles/u,fakecpu/inst/:k},soft/config=1/", fake_root);
	assert_int_equal(l->n, 3);
	assert_int_equal(l->ngroups, 2);
	assert_string_equal(l->events[0].name, "fakecpu/cycles/:u");
	assert_true(l->events[0].exclude_kernel);
	assert_string_equal(l->events[1].name, "fakecpu/inst/:k");
	assert_true(l->events[1].exclude_user);
	assert_int_equal(l->events[2].type, 1);
	assert_false(pmc_event_is_hardware(&l->events[2]));
	pmc_event_list_free(l);
}

static void test_sysfs_format_parse(void **state)
{
	struct pmc_sysfs_format f;
	uint64_t cfg[3] = {0, 0, UINT64_MAX};

	assert_int_equal(pmc_sysfs_format_parse("config:0-63", &f), 0);
	assert_int_equal(pmc_sysfs_format_width(&f), 64);
	assert_int_equal(pmc_sysfs_format_apply(&f, UINT64_MAX, cfg), 0);
	assert_int_equal(cfg[0], UINT64_MAX);
	assert_int_equal(pmc_sysfs_format_parse("config2:4-7,60-63", &f), 0);
	assert_int_equal(f.field, 2);
	assert_int_equal(pmc_sysfs_format_apply(&f, 0x5a, cfg), 0);
	/* Bits 4-7 become 0xa, 60-63 become 0x5, the rest of config2 is kept. */
	assert_int_equal(cfg[2],
			 (UINT64_MAX & ~UINT64_C(0xf0000000000000f0)) | 0xa0 | UINT64_C(0x5) << 60);
	assert_int_equal(pmc_sysfs_format_apply(&f, 0x100, cfg), -ERANGE);
	assert_int_equal(pmc_sysfs_format_parse("config3:0-7", &f), -EOPNOTSUPP);
	assert_int_equal(pmc_sysfs_format_parse("config:7-3", &f), -EINVAL);
	assert_int_equal(pmc_sysfs_format_parse("config:0-64", &f), -EINVAL);
	assert_int_equal(pmc_sysfs_format_parse("config:", &f), -EINVAL);
	assert_int_equal(pmc_sysfs_format_parse("config:1,", &f), -EINVAL);
	assert_int_equal(pmc_sysfs_format_parse("cfg:1", &f), -EINVAL);
}

/* The real msr PMU: its tsc event counts even without a hardware PMU (docs/events.md). */
static void test_real_msr_tsc(void **state)
{
	struct pmc_event_list *l;
	unsigned type = 0;
	FILE *f = fopen(PMC_SYSFS_ROOT "/msr/type", "r");

	if (!f) {
		print_message("skipped: this machine has no msr PMU in sysfs\n");
		skip();
	}
	assert_int_equal(fscanf(f, "%u", &type), 1);
	fclose(f);
	l = parse_ok("{msr/tsc/,task-clock}", NULL);
	assert_int_equal(l->n, 2);
	assert_int_equal(l->ngroups, 1);
	assert_string_equal(l->events[0].name, "msr/tsc/");
	assert_int_equal(l->events[0].kind, PMC_EV_PMU);
	assert_int_equal(l->events[0].type, type);
	assert_int_equal(l->events[0].config, 0);
	assert_true(pmc_event_is_hardware(&l->events[0]));
	assert_string_equal(l->events[1].name, "task-clock");
	pmc_event_list_free(l);
}

/* ---- errors ---- */

static void expect_error(const char *spec, const char *root, size_t column, const char *needle)
{
	PMC_OPTS(pmc_event_list_opts, o, .sysfs_root = root);
	struct pmc_event_list *l = (struct pmc_event_list *)&o;
	char err[256] = "";
	int r = pmc_event_list_parse(spec, &o, &l, err, sizeof(err));
	size_t col = 0;
	const char *msg = r < 0 ? split_error(err, &col) : "";

	if (r != -EINVAL || col != column || !strstr(msg, needle))
		print_error("spec \"%s\": r=%d %s\n", spec, r, err);
	assert_int_equal(r, -EINVAL);
	assert_int_equal(col, column);
	assert_non_null(strstr(msg, needle));
	assert_null(strchr(err, '\n'));
	/* Left untouched on failure. */
	assert_ptr_equal(l, (struct pmc_event_list *)&o);
}

static void test_syntax_errors(void **state)
{
	expect_error("", fake_root, 1, "empty event list");
	expect_error("   ", fake_root, 1, "empty event list");
	expect_error("cycles,", fake_root, 7, "trailing comma");
	expect_error("cycles, ", fake_root, 7, "trailing comma");
	expect_error("cycles,,instructions", fake_root, 8, "empty event name");
	expect_error(",cycles", fake_root, 1, "empty event name");
	expect_error("{cycles,instructions", fake_root, 1, "unbalanced '{'");
	expect_error("{cycles,", fake_root, 1, "unbalanced '{'");
	expect_error("cycles}", fake_root, 7, "unbalanced '}'");
	expect_error("}", fake_root, 1, "unbalanced '}'");
	expect_error("{cycles}}", fake_root, 9, "unbalanced '}'");
	expect_error("{cycles,{instructions}}", fake_root, 9, "nested group");
	expect_error("{}", fake_root, 1, "empty group");
	expect_error("{cycles,}", fake_root, 9, "empty event name");
	expect_error("cycles:x", fake_root, 8, "unknown modifier 'x'");
	expect_error("cycles:W", fake_root, 7, "applies to a group");
	expect_error("fakecpu/offcore/", fake_root, 1, "needs a value for 'umask'");
	expect_error("{cycles:W,instructions}", fake_root, 8, "applies to a group");
	expect_error("{cycles:u,instructions}:kW", fake_root, 24, "conflicts");
	expect_error("cycles:up", fake_root, 9, "unknown modifier 'p'");
	expect_error("cycles:", fake_root, 7, "empty modifier");
	expect_error("cycles:,instructions", fake_root, 7, "empty modifier");
	expect_error("cycles:u:k", fake_root, 9, "unexpected ':'");
	expect_error("{cycles}:z", fake_root, 10, "unknown modifier 'z'");
	expect_error("{cycles:u,instructions}:k", fake_root, 24, "conflicts");
	expect_error("cycles instructions", fake_root, 8, "unexpected 'i'");
	expect_error("cycles\tinstructions", fake_root, 7,
		     "control character 0x09 in the event list; separate events with commas");
	expect_error(":u", fake_root, 1, "empty event name");
}

static void test_unknown_event_suggestions(void **state)
{
	expect_error("cylces", fake_root, 1, "did you mean 'cycles'");
	expect_error("instructions,brnach-misses", fake_root, 14, "'branch-misses'");
	expect_error("{cycles,instrutions}", fake_root, 9, "'instructions'");
	expect_error("task-clok:u", fake_root, 1, "'task-clock'");
	expect_error("L1-dcache-load-mises", fake_root, 1, "'L1-dcache-load-misses'");
	/* A bare name that a PMU in sysfs has is suggested as pmu/name/. */
	expect_error("inst", fake_root, 1, "'fakecpu/inst/'");
	/* Nothing close: say where to look. */
	expect_error("zzzzzzzzzzzz", fake_root, 1, "pmcbench list");
	/* "rcycles" reads as a typo, not as a raw code with a bad digit. */
	expect_error("rcycles", fake_root, 1, "'cycles'");
}

/* The message of a list, for the cases that are not one error at one column. */
static void expect_message(const char *spec, const char *want)
{
	PMC_OPTS(pmc_event_list_opts, o, .sysfs_root = fake_root);
	struct pmc_event_list *l = (struct pmc_event_list *)&o;
	char err[1024] = "";

	assert_int_equal(pmc_event_list_parse(spec, &o, &l, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, want);
	assert_ptr_equal(l, (struct pmc_event_list *)&o);
}

/* Every unknown name at once, each with its column and suggestions, in groups too; an
 * error that stops the parse after them comes after them. */
static void test_every_unknown_event_is_named(void **state)
{
	expect_message("cyles,task-clok",
		       "column 1: 2 unknown events: 'cyles' (did you mean 'cycles' or "
		       "'fakecpu/cycles/'?), 'task-clok' at column 7 (did you mean 'task-clock'?)");
	expect_message("cyles,{instructions,task-clok:u},zzzzzzzzzzzz",
		       "column 1: 3 unknown events: 'cyles' (did you mean 'cycles' or "
		       "'fakecpu/cycles/'?), "
		       "'task-clok' at column 21 (did you mean 'task-clock'?), 'zzzzzzzzzzzz' at "
		       "column 34; run 'pmcbench list' to see the known events");
	expect_message(
	    "cyles,task-clock,",
	    "column 1: unknown event 'cyles'; did you mean 'cycles' or 'fakecpu/cycles/'?; "
	    "then column 17: "
	    "trailing comma; remove it or add an event after it");
	/* Many: the count says how many, the list is cut. */
	{
		char spec[2048] = "", err[1024] = "";
		struct pmc_event_list *l = NULL;

		for (int i = 0; i < 100; i++)
			strcat(spec, i ? ",cyles" : "cyles");
		assert_int_equal(pmc_event_list_parse(spec, NULL, &l, err, sizeof(err)), -EINVAL);
		assert_null(l);
		assert_true(strncmp(err, "column 1: 100 unknown events: 'cyles' (", 39) == 0);
		assert_non_null(strstr(err, ", ..."));
	}
}

static void test_raw_errors(void **state)
{
	expect_error("r12g4", fake_root, 4, "'g' is not a hex digit");
	expect_error("r0x10", fake_root, 3, "without 0x");
	expect_error("r12345678901234567", fake_root, 1, "64 bits");
}

static void test_pmu_errors(void **state)
{
	expect_error("nosuchpmu/foo/", fake_root, 1, "unknown PMU 'nosuchpmu'");
	expect_error("fakcpu/cycles/", fake_root, 1, "did you mean 'fakecpu'");
	expect_error("cycles,fakecpu/cycles", fake_root, 8, "unterminated");
	expect_error("/tsc/", fake_root, 1, "empty PMU name");
	expect_error("fakecpu//", fake_root, 1, "empty PMU event");
	expect_error("fakecpu/cycels/", fake_root, 9, "did you mean 'cycles'");
	expect_error("fakecpu/event=1,nosuch=2/", fake_root, 17,
		     "no event or format term 'nosuch'");
	expect_error("fakecpu/event=zz/", fake_root, 9, "bad value 'zz'");
	expect_error("fakecpu/event=/", fake_root, 9, "bad value");
	expect_error("fakecpu/umask=0x100/", fake_root, 9, "does not fit");
	expect_error("fakecpu/event=1,,umask=1/", fake_root, 17, "empty term");
	expect_error("fakecpu/c3=1/", fake_root, 9, "config3");
	expect_error("fakecpu/garbage=1/", fake_root, 9, "not 'configN:bits'");
	expect_error("fakecpu/config/", fake_root, 9, "needs a value");
	expect_error("fakecpu/broken/", fake_root, 9, "in sysfs event fakecpu/broken/");
	expect_error("fakecpu/../", fake_root, 9, "bad term name");
	expect_error("../fakecpu/cycles/", fake_root, 1, "unknown PMU");
	expect_error("fakecpu/cycles/x", fake_root, 16, "unknown modifier 'x'");
	expect_error("msr/tsc/", "/nonexistent-sysfs-root", 1, "unknown PMU 'msr'");
}

static void test_bad_arguments(void **state)
{
	PMC_OPTS(pmc_event_list_opts, o, .sysfs_root = fake_root);
	struct pmc_event_list *l = NULL;
	char err[256], tiny[8], longname[400];
	size_t col = 0;

	assert_int_equal(pmc_event_list_parse(NULL, NULL, &l, err, sizeof(err)), -EINVAL);
	assert_string_equal(split_error(err, &col), "no event list given");
	assert_int_equal(col, 1);
	assert_int_equal(pmc_event_list_parse("cycles", NULL, NULL, err, sizeof(err)), -EINVAL);
	/* No message buffer, or a tiny one: still an error code, no crash. */
	assert_int_equal(pmc_event_list_parse("cylces", &o, &l, NULL, 0), -EINVAL);
	assert_int_equal(pmc_event_list_parse("cylces", &o, &l, tiny, sizeof(tiny)), -EINVAL);
	assert_string_equal(tiny, "column ");
	assert_null(l);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	expect_error(longname, fake_root, 1, "too long");
	longname[0] = 'r';
	longname[1] = '1';
	expect_error(longname, fake_root, 1, "too long");
}

/* Random input from the characters that matter to the grammar never crashes, and
 * every answer is either a well-formed list or an error with a column inside the input
 * (or just after it) and a one-line message. */
static void test_fuzz(void **state)
{
	static const char alphabet[] = ",,,{}::/=uukr0x1fc-aesy \t\n";
	static const char *const words[] = {
	    "cycles", "task-clock", "fakecpu/", "inst", "event=", "r1", "{", "}", ":u", ",", "/"};
	unsigned seed = 12345;
	char spec[64];

	for (int iter = 0; iter < 20000; iter++) {
		PMC_OPTS(pmc_event_list_opts, o, .sysfs_root = fake_root,
			 .tracefs_root = fake_tracefs);
		struct pmc_event_list *l = NULL;
		char err[300] = "";
		size_t col = 0;
		const char *msg;
		size_t len = 0, want = (seed = seed * 1103515245 + 12345) >> 16 & 31;
		int r;

		while (len < want) {
			seed = seed * 1103515245 + 12345;
			if ((seed >> 16) % 3 == 0) {
				const char *w =
				    words[(seed >> 8) % (sizeof(words) / sizeof(*words))];

				if (len + strlen(w) >= sizeof(spec))
					break;
				memcpy(spec + len, w, strlen(w));
				len += strlen(w);
			} else {
				spec[len++] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
			}
		}
		spec[len] = '\0';
		r = pmc_event_list_parse(spec, &o, &l, err, sizeof(err));
		if (r == 0) {
			assert_true(l->n >= 1);
			assert_true(l->ngroups >= 1 && l->ngroups <= l->n);
			for (size_t i = 0; i < l->n; i++) {
				assert_true(l->events[i].group < l->ngroups);
				assert_int_equal(l->events[i].leader,
						 i == 0 ||
						     l->events[i - 1].group != l->events[i].group);
				assert_true(strlen(l->events[i].name) > 0);
			}
			pmc_event_list_free(l);
		} else {
			msg = split_error(err, &col);
			if (r != -EINVAL || col < 1 || col > len + 1 || !msg[0] ||
			    strchr(err, '\n'))
				print_error("spec \"%s\": r=%d %s\n", spec, r, err);
			assert_int_equal(r, -EINVAL);
			assert_true(col >= 1 && col <= len + 1);
			assert_true(msg[0] != '\0');
			assert_null(strchr(err, '\n'));
		}
	}
}

/* An event list comes from the command line or a script: the message that quotes it
 * shows its control characters escaped, so that it cannot forge a line or drive the
 * terminal. */
static void test_errors_quote_the_list_escaped(void **state)
{
	struct pmc_event_list *l = NULL;
	char err[256];

	(void)state;
	assert_int_not_equal(
	    pmc_event_list_parse("cyc\x1b]0;t\x07\nPASS\x7f", NULL, &l, err, sizeof(err)), 0);
	assert_null(l);
	assert_null(strchr(err, '\x1b'));
	assert_null(strchr(err, '\n'));
	assert_null(strchr(err, '\x7f'));
	if (!strstr(err, "column 4: control character 0x1b")) {
		print_error("message: %s\n", err);
		fail();
	}
}

/* ---- tracepoints and uprobes ---- */

/* Parses spec, which must fail; returns the message after its column. */
static const char *parse_fails(const char *spec, const char *tracefs, char *err, size_t len)
{
	PMC_OPTS(pmc_event_list_opts, o, .sysfs_root = fake_root, .tracefs_root = tracefs);
	struct pmc_event_list *l = NULL;
	size_t col;

	assert_int_equal(pmc_event_list_parse(spec, &o, &l, err, len), -EINVAL);
	assert_null(l);
	assert_null(strchr(err, '\n'));
	return split_error(err, &col);
}

static void test_tracepoints(void **state)
{
	struct pmc_event_list *l;

	l = parse_ok("sched:sched_switch", fake_root);
	assert_int_equal(l->n, 1);
	assert_string_equal(l->events[0].name, "sched:sched_switch");
	assert_int_equal(l->events[0].kind, PMC_EV_TRACEPOINT);
	assert_int_equal(l->events[0].type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(l->events[0].config, 70);
	assert_true(l->events[0].no_user_fallback);
	assert_false(pmc_event_is_hardware(&l->events[0]));
	assert_string_equal(pmc_event_kind_name(PMC_EV_TRACEPOINT), "tracepoint");
	pmc_event_list_free(l);

	/* A glob: sorted by name, the exits and the files beside them left out, one weak
	 * group; the modifier applies to each. */
	l = parse_ok("syscalls:sys_enter_*:u,cycles", fake_root);
	assert_int_equal(l->n, 3);
	assert_int_equal(l->ngroups, 2);
	assert_string_equal(l->events[0].name, "syscalls:sys_enter_getpid:u");
	assert_int_equal(l->events[0].config, 309);
	assert_string_equal(l->events[1].name, "syscalls:sys_enter_openat:u");
	assert_int_equal(l->events[1].config, 640);
	assert_true(l->events[0].leader);
	assert_false(l->events[1].leader);
	assert_int_equal(l->events[0].group, l->events[1].group);
	assert_true(l->events[0].weak && l->events[1].weak);
	assert_true(l->events[1].exclude_kernel);
	assert_false(l->events[1].exclude_user);
	assert_string_equal(l->events[2].name, "cycles");
	assert_int_equal(l->events[2].group, 1);
	pmc_event_list_free(l);

	/* Globs on both sides, and '?'. */
	l = parse_ok("*:sys_?xit_getpid", fake_root);
	assert_int_equal(l->n, 1);
	assert_string_equal(l->events[0].name, "syscalls:sys_exit_getpid");
	pmc_event_list_free(l);

	/* Inside a group the tracepoints stay in it, not weak. */
	l = parse_ok("{task-clock,syscalls:*}", fake_root);
	assert_int_equal(l->n, 4);
	assert_int_equal(l->ngroups, 1);
	assert_true(l->events[0].leader);
	for (size_t i = 1; i < 4; i++) {
		assert_int_equal(l->events[i].group, 0);
		assert_false(l->events[i].leader);
		assert_false(l->events[i].weak);
	}
	pmc_event_list_free(l);

	/* Hundreds: groups of at most 128, each led by its first event. */
	l = parse_ok("many:*,task-clock", fake_root);
	assert_int_equal(l->n, 301);
	assert_int_equal(l->ngroups, 4);
	assert_int_equal(l->events[0].group, 0);
	assert_int_equal(l->events[127].group, 0);
	assert_int_equal(l->events[128].group, 1);
	assert_true(l->events[128].leader);
	assert_false(l->events[129].leader);
	assert_int_equal(l->events[299].group, 2);
	assert_string_equal(l->events[299].name, "many:ev299");
	assert_int_equal(l->events[299].config, 1299);
	assert_int_equal(l->events[300].group, 3);
	pmc_event_list_free(l);
}

static void test_tracepoint_errors(void **state)
{
	char err[512];
	const char *msg;

	msg = parse_fails("syscalls:sys_entr_*", fake_tracefs, err, sizeof(err));
	assert_non_null(strstr(msg, "'syscalls:sys_entr_*' matches no tracepoint"));
	msg = parse_fails("sycalls:sys_enter_getpid", fake_tracefs, err, sizeof(err));
	assert_non_null(strstr(msg, "unknown tracepoint subsystem 'sycalls'"));
	assert_non_null(strstr(msg, "did you mean 'syscalls'"));
	msg = parse_fails("syscalls:sys_enter_getpdi", fake_tracefs, err, sizeof(err));
	assert_non_null(strstr(msg, "unknown tracepoint 'syscalls:sys_enter_getpdi'"));
	assert_non_null(strstr(msg, "did you mean 'syscalls:sys_enter_getpid'"));
	msg = parse_fails("nosuch*:x", fake_tracefs, err, sizeof(err));
	assert_non_null(strstr(msg, "matches no tracepoint"));
	/* A misspelt builtin with a modifier is still an unknown event. */
	msg = parse_fails("cyclse:u", fake_tracefs, err, sizeof(err));
	assert_non_null(strstr(msg, "unknown event 'cyclse'"));
	assert_non_null(strstr(msg, "did you mean 'cycles'"));
	msg = parse_fails("sched:sched_switch:x", fake_tracefs, err, sizeof(err));
	assert_non_null(strstr(msg, "unknown modifier 'x'"));
	msg = parse_fails("sched:sched_switch:W", fake_tracefs, err, sizeof(err));
	assert_non_null(strstr(msg, "weak group"));
	/* No tracefs there: one line saying so. */
	msg = parse_fails("sched:sched_switch", "/nonexistent-tracefs", err, sizeof(err));
	assert_non_null(strstr(msg, "no tracefs at /nonexistent-tracefs"));
}

static void test_uprobes(void **state)
{
	struct pmc_event_list *l;
	char err[512];
	const char *msg;

	l = parse_ok("uprobe:libc:malloc,uprobe:/usr/lib/libx.so.1:free%return:u", fake_root);
	assert_int_equal(l->n, 2);
	assert_int_equal(l->ngroups, 2);
	assert_int_equal(l->events[0].kind, PMC_EV_UPROBE);
	assert_int_equal(l->events[0].type, 8);
	assert_int_equal(l->events[0].config, 0);
	assert_string_equal(l->events[0].name, "uprobe:libc:malloc");
	assert_string_equal(l->events[0].probe_path, "libc");
	assert_string_equal(l->events[0].probe_symbol, "malloc");
	assert_false(l->events[0].probe_resolved);
	assert_false(pmc_event_is_hardware(&l->events[0]));
	/* %return sets the retprobe format bit (config:0 here). */
	assert_int_equal(l->events[1].config, 1);
	assert_string_equal(l->events[1].name, "uprobe:/usr/lib/libx.so.1:free%return:u");
	assert_string_equal(l->events[1].probe_path, "/usr/lib/libx.so.1");
	assert_string_equal(l->events[1].probe_symbol, "free");
	assert_true(l->events[1].exclude_kernel);
	pmc_event_list_free(l);

	msg = parse_fails("uprobe:libc", fake_tracefs, err, sizeof(err));
	assert_non_null(strstr(msg, "incomplete uprobe 'uprobe:libc'; write uprobe:FILE:SYMBOL"));
	msg = parse_fails("uprobe:libc:%return", fake_tracefs, err, sizeof(err));
	assert_non_null(strstr(msg, "names no symbol"));
	msg = parse_fails("uprobe:libc:mal-loc", fake_tracefs, err, sizeof(err));
	assert_non_null(strstr(msg, "bad character '-'"));
	{
		PMC_OPTS(pmc_event_list_opts, o, .sysfs_root = "/nonexistent-sysfs");
		struct pmc_event_list *none = NULL;

		assert_int_equal(
		    pmc_event_list_parse("uprobe:libc:malloc", &o, &none, err, sizeof(err)),
		    -EINVAL);
		assert_non_null(strstr(err, "no uprobe PMU"));
	}
}

/* A control character is no separator: "cycles\n" (a script's stray newline) and a tab
 * are refused, naming the column, never stored as part of an event's name. */
static void test_control_characters_are_refused(void **state)
{
	static const struct {
		const char *spec, *want;
	} cases[] = {
	    {"cycles\n", "column 7: control character 0x0a"},
	    {"task-clock,\tpage-faults", "column 12: control character 0x09"},
	    {"{cycles,instructions\r}", "column 21: control character 0x0d"},
	    {"page-faults\x7f", "column 12: control character 0x7f"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pmc_event_list *l = NULL;
		char err[256] = "";

		assert_int_equal(pmc_event_list_parse(cases[i].spec, NULL, &l, err, sizeof(err)),
				 -EINVAL);
		assert_null(l);
		if (!strstr(err, cases[i].want)) {
			print_error("spec %zu: message: %s\n", i, err);
			fail();
		}
	}
}

/* What the engine says of its events for the model (events.h): which two were read in
 * different windows, and the note of a system-wide one. */
static void test_what_the_events_say(void **state)
{
	struct pmc_event_list *l = NULL;
	struct pmc_reading rd = {.status = PMC_STATUS_COUNTED};
	char note[PMC_EVENT_NOTE_MAX];

	(void)state;
	assert_int_equal(pmc_event_list_parse("{cycles,instructions},branches,{page-faults,"
					      "task-clock}:W",
					      NULL, &l, NULL, 0),
			 0);
	assert_false(pmc_event_list_apart("cycles", "instructions", l));
	assert_true(pmc_event_list_apart("cycles", "branches", l));
	/* A weak group may have been split. */
	assert_true(pmc_event_list_apart("page-faults", "task-clock", l));
	assert_false(pmc_event_list_apart("cycles", "wall-time", l));
	assert_false(pmc_event_list_apart("cycles", "instructions", NULL));
	/* A task's event has no note; a system-wide one counts its CPUs, apart from the
	 * task's events of its group; denied, it says what it needs. */
	assert_false(pmc_event_note(l, 0, &rd, "the command", note, sizeof(note)));
	assert_false(pmc_event_note(l, l->n, &rd, "the command", note, sizeof(note)));
	l->events[1].system_wide = true;
	snprintf(l->events[1].cpus, sizeof(l->events[1].cpus), "0,18");
	assert_true(pmc_event_note(l, 1, &rd, "the command", note, sizeof(note)));
	assert_string_equal(note, "system-wide: counts all its PMU sees on CPUs 0,18 (the PMU's "
				  "cpumask; for RAPL and uncore PMUs, their whole packages) while "
				  "the command runs, not only the command; opened apart from its "
				  "group, which cannot hold a task's events and a CPU's");
	rd = (struct pmc_reading){.status = PMC_STATUS_DENIED, .error = EACCES};
	assert_true(pmc_event_note(l, 1, &rd, "the command", note, sizeof(note)));
	assert_string_equal(note, "system-wide: denied: counting CPUs 0,18 needs CAP_PERFMON (or "
				  "CAP_SYS_ADMIN) or perf_event_paranoid 0 or less");
	pmc_event_list_free(l);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_generic_hardware),
	    cmocka_unit_test(test_every_unknown_event_is_named),
	    cmocka_unit_test(test_cache_events),
	    cmocka_unit_test(test_software_events),
	    cmocka_unit_test(test_raw_events),
	    cmocka_unit_test(test_builtin_table),
	    cmocka_unit_test(test_groups_and_modifiers),
	    cmocka_unit_test(test_public_accessors),
	    cmocka_unit_test(test_opts_versions),
	    cmocka_unit_test(test_sysfs_events),
	    cmocka_unit_test(test_pmu_events_list),
	    cmocka_unit_test(test_sysfs_format_parse),
	    cmocka_unit_test(test_real_msr_tsc),
	    cmocka_unit_test(test_syntax_errors),
	    cmocka_unit_test(test_unknown_event_suggestions),
	    cmocka_unit_test(test_raw_errors),
	    cmocka_unit_test(test_pmu_errors),
	    cmocka_unit_test(test_bad_arguments),
	    cmocka_unit_test(test_fuzz),
	    cmocka_unit_test(test_errors_quote_the_list_escaped),
	    cmocka_unit_test(test_tracepoints),
	    cmocka_unit_test(test_tracepoint_errors),
	    cmocka_unit_test(test_uprobes),
	    cmocka_unit_test(test_control_characters_are_refused),
	    cmocka_unit_test(test_what_the_events_say),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, setup_sysfs, teardown_sysfs);
}

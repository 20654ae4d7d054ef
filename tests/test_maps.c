/* harness/4-profile/maps.c: address spaces rebuilt from MMAP, COMM (exec), FORK and EXIT
 * records and from /proc/PID/maps, and addresses named through them: a shared object
 * loaded into this process, the PIE and the position-dependent program of known
 * functions running as children (tests/targets/symtarget.c), their stripped copy, this
 * process's libc; build-id mismatches; the special objects. */
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "counters/perf/sample.h"
#include "elf/buildid.h"
#include "profile/maps.h"
#include "tests/sym_child.h"

static struct pmc_maps *maps_new(void)
{
	struct pmc_maps *m = NULL;

	assert_int_equal(pmc_maps_new(&m), 0);
	assert_non_null(m);
	return m;
}

static void mmap_rec(struct pmc_maps *m, uint32_t pid, uint64_t addr, uint64_t len, uint64_t pgoff,
		     const char *file, const uint8_t *bid, uint32_t bid_len)
{
	struct pmc_record r = {.type = PMC_RECORD_MMAP, .pid = pid, .tid = pid};

	r.mmap.addr = addr;
	r.mmap.len = len;
	r.mmap.pgoff = pgoff;
	r.mmap.prot = 5;
	r.mmap.filename = file;
	r.mmap.build_id = bid;
	r.mmap.build_id_size = bid_len;
	assert_int_equal(pmc_maps_apply(m, &r), 0);
}

static void task_rec(struct pmc_maps *m, enum pmc_record_type type, uint32_t pid, uint32_t ppid)
{
	struct pmc_record r = {.type = type, .pid = pid, .tid = pid};

	r.task.ppid = ppid;
	r.task.ptid = ppid;
	assert_int_equal(pmc_maps_apply(m, &r), 0);
}

static void exec_rec(struct pmc_maps *m, uint32_t pid, bool exec)
{
	struct pmc_record r = {.type = PMC_RECORD_COMM, .pid = pid, .tid = pid};

	r.comm.comm = "x";
	r.comm.exec = exec;
	assert_int_equal(pmc_maps_apply(m, &r), 0);
}

/* Maps the mapping of this process holding addr into m as an MMAP record would. */
static void seed_self(struct pmc_maps *m, uint64_t addr, const uint8_t *bid, uint32_t bid_len,
		      char *path, size_t pathlen)
{
	uint64_t start = 0, end = 0, pgoff = 0;

	proc_mapping(getpid(), addr, &start, &end, &pgoff, path, pathlen);
	mmap_rec(m, (uint32_t)getpid(), start, end - start, pgoff, path, bid, bid_len);
}

static void expect(struct pmc_maps *m, uint32_t pid, uint64_t ip, const char *sym, const char *obj)
{
	struct pmc_resolved r;

	pmc_maps_resolve(m, pid, ip, false, &r);
	if (sym) {
		if (!r.symbol)
			print_error("%#" PRIx64 ": no symbol (object %s, offset %#" PRIx64 ")\n",
				    ip, r.object, r.offset);
		assert_non_null(r.symbol);
		assert_string_equal(r.symbol, sym);
		assert_int_equal(r.offset, 0);
	} else {
		assert_null(r.symbol);
	}
	assert_false(r.build_id_mismatch);
	if (obj)
		assert_string_equal(r.object, obj);
}

static void *lib_open(uint64_t *alpha, uint64_t *beta)
{
	void *h = dlopen(PMC_TEST_SYM_LIB, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		print_error("%s\n", dlerror());
	assert_non_null(h);
	*alpha = (uint64_t)(uintptr_t)dlsym(h, "pmc_sym_lib_alpha");
	*beta = (uint64_t)(uintptr_t)dlsym(h, "pmc_sym_lib_beta");
	assert_true(*alpha && *beta);
	return h;
}

static void names_shared_object_functions(void **state)
{
	struct pmc_maps *m = maps_new();
	uint32_t me = (uint32_t)getpid();
	uint64_t a, b;
	char path[4096];
	void *h = lib_open(&a, &b);

	(void)state;
	seed_self(m, a, NULL, 0, path, sizeof(path));
	seed_self(m, b, NULL, 0, path, sizeof(path));
	expect(m, me, a, "pmc_sym_lib_alpha", path);
	expect(m, me, a + 1, "pmc_sym_lib_alpha", path);
	expect(m, me, a + 7, "pmc_sym_lib_alpha", path);
	expect(m, me, b, "pmc_sym_lib_beta", path);
	expect(m, me, b + 5, "pmc_sym_lib_beta", path);
	assert_int_equal(pmc_maps_problem_count(m), 0);
	pmc_maps_free(m);
	dlclose(h);
}

static size_t unhex(const char *hex, uint8_t *out)
{
	size_t n = strlen(hex) / 2;

	for (size_t i = 0; i < n; i++)
		assert_int_equal(sscanf(hex + 2 * i, "%2hhx", &out[i]), 1);
	return n;
}

/* The record's build-id is the kernel's word on what was mapped: the same one names, a
 * different one (the file rebuilt since) names nothing, and says so once. */
static void build_id_mismatch_names_nothing(void **state)
{
	struct pmc_maps *m = maps_new();
	uint32_t me = (uint32_t)getpid();
	struct pmc_resolved r;
	uint8_t bid[20];
	uint64_t a, b;
	char path[4096];
	char *hex = NULL;
	size_t n;
	void *h = lib_open(&a, &b);

	(void)state;
	assert_int_equal(pmc_build_id(PMC_TEST_SYM_LIB, &hex), 0);
	n = unhex(hex, bid);
	assert_true(n > 0 && n <= 20);
	seed_self(m, a, bid, (uint32_t)n, path, sizeof(path));
	expect(m, me, a + 2, "pmc_sym_lib_alpha", path);
	pmc_maps_free(m);

	m = maps_new();
	bid[0] ^= 0xff;
	seed_self(m, a, bid, (uint32_t)n, path, sizeof(path));
	pmc_maps_resolve(m, me, a + 2, false, &r);
	assert_null(r.symbol);
	assert_true(r.build_id_mismatch);
	assert_string_equal(r.object, path);
	pmc_maps_resolve(m, me, b, false, &r);
	assert_true(r.build_id_mismatch);
	assert_int_equal(pmc_maps_problem_count(m), 1);
	assert_non_null(strstr(pmc_maps_problem(m, 0), "build-id"));
	assert_non_null(strstr(pmc_maps_problem(m, 0), "libpmc-symlib.so"));
	assert_null(pmc_maps_problem(m, 1));
	pmc_maps_free(m);
	free(hex);
	dlclose(h);
}

/* A running program seeded from the real /proc/PID/maps, as one already running when
 * sampling starts is. */
static void names_running_program(const char *path)
{
	struct pmc_maps *m = maps_new();
	struct sym_child c;

	sym_child_start(path, &c);
	assert_int_equal(pmc_maps_load_proc(m, (uint32_t)c.pid, NULL), 0);
	expect(m, (uint32_t)c.pid, c.alpha, "pmc_sym_alpha", path);
	expect(m, (uint32_t)c.pid, c.alpha + 3, "pmc_sym_alpha", path);
	expect(m, (uint32_t)c.pid, c.beta, "pmc_sym_beta", path);
	expect(m, (uint32_t)c.pid, c.beta + 6, "pmc_sym_beta", path);
	sym_child_stop(&c);
	assert_int_equal(pmc_maps_problem_count(m), 0);
	pmc_maps_free(m);
}

static void names_pie_program(void **state)
{
	(void)state;
	names_running_program(PMC_TEST_SYM_PIE);
}

static void names_non_pie_program(void **state)
{
	(void)state;
	names_running_program(PMC_TEST_SYM_NOPIE);
}

/* The stripped copy of the PIE gives its object and the function's ELF address, the same
 * one the unstripped PIE names, and never a name. */
static void stripped_program_gives_object_and_offset(void **state)
{
	struct pmc_maps *m = maps_new(), *full = maps_new();
	struct sym_child c;
	struct pmc_resolved r, rf;
	uint64_t start = 0, end = 0, pgoff = 0;
	char path[4096];

	(void)state;
	if (!*PMC_TEST_SYM_STRIPPED)
		skip();
	sym_child_start(PMC_TEST_SYM_STRIPPED, &c);
	assert_int_equal(pmc_maps_load_proc(m, (uint32_t)c.pid, NULL), 0);
	pmc_maps_resolve(m, (uint32_t)c.pid, c.alpha + 2, false, &r);
	proc_mapping(c.pid, c.alpha, &start, &end, &pgoff, path, sizeof(path));
	sym_child_stop(&c);
	assert_null(r.symbol);
	assert_false(r.build_id_mismatch);
	assert_string_equal(r.object, PMC_TEST_SYM_STRIPPED);
	assert_true(r.offset > 2);
	/* The same address in a mapping of the unstripped PIE, same layout: its name. */
	mmap_rec(full, 1, start, end - start, pgoff, PMC_TEST_SYM_PIE, NULL, 0);
	pmc_maps_resolve(full, 1, c.alpha, false, &rf);
	assert_string_equal(rf.symbol, "pmc_sym_alpha");
	pmc_maps_free(m);
	pmc_maps_free(full);
}

/* This process's libc, from its own /proc/self/maps: .dynsym names getpid, perhaps by
 * one of its aliases. */
static void names_libc_function(void **state)
{
	struct pmc_maps *m = maps_new();
	uint64_t ip = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "getpid");
	struct pmc_resolved r;

	(void)state;
	assert_true(ip != 0);
	assert_int_equal(pmc_maps_load_proc(m, (uint32_t)getpid(), NULL), 0);
	pmc_maps_resolve(m, (uint32_t)getpid(), ip, false, &r);
	if (!r.symbol)
		print_error("getpid at %#" PRIx64 " in %s: no symbol\n", ip, r.object);
	assert_non_null(r.symbol);
	assert_true(strcmp(r.symbol, "getpid") == 0 || strcmp(r.symbol, "__getpid") == 0 ||
		    strcmp(r.symbol, "__GI___getpid") == 0);
	assert_non_null(strstr(r.object, "libc"));
	pmc_maps_free(m);
}

/* This process's vdso, read from its own memory, names its functions. */
static void names_vdso_function(void **state)
{
	struct pmc_maps *m = maps_new();
	uint64_t base = getauxval(AT_SYSINFO_EHDR);
	bool found = false;

	(void)state;
	if (!base)
		skip();
	assert_int_equal(pmc_maps_load_proc(m, (uint32_t)getpid(), NULL), 0);
	for (uint64_t off = 0; off < 8192 && !found; off++) {
		struct pmc_resolved r;

		pmc_maps_resolve(m, (uint32_t)getpid(), base + off, false, &r);
		assert_string_equal(r.object, "[vdso]");
		found = r.symbol && strstr(r.symbol, "clock_gettime");
	}
	assert_true(found);
	assert_int_equal(pmc_maps_problem_count(m), 0);
	pmc_maps_free(m);
}

static void expect_special(struct pmc_maps *m, uint32_t pid, uint64_t ip, const char *obj,
			   uint64_t offset)
{
	struct pmc_resolved r;

	pmc_maps_resolve(m, pid, ip, false, &r);
	assert_null(r.symbol);
	assert_string_equal(r.object, obj);
	assert_int_equal(r.offset, offset);
}

/* FORK gives the child a copy, not a share; a thread creation (pid == ppid) and EXIT
 * change nothing; exec empties the task's address space. */
static void fork_copies_and_exec_clears(void **state)
{
	struct pmc_maps *m = maps_new();

	(void)state;
	mmap_rec(m, 10, 0x1000, 0x1000, 0, "[stack]", NULL, 0);
	task_rec(m, PMC_RECORD_FORK, 11, 10);
	expect_special(m, 11, 0x1800, "[stack]", 0x800);
	mmap_rec(m, 10, 0x4000, 0x1000, 0x4000, "//anon", NULL, 0);
	expect_special(m, 10, 0x4010, "[anon]", 0x4010);
	expect_special(m, 11, 0x4010, "[unknown]", 0x4010);
	task_rec(m, PMC_RECORD_FORK, 10, 10);
	expect_special(m, 10, 0x4010, "[anon]", 0x4010);
	exec_rec(m, 11, false);
	expect_special(m, 11, 0x1800, "[stack]", 0x800);
	exec_rec(m, 11, true);
	expect_special(m, 11, 0x1800, "[unknown]", 0x1800);
	expect_special(m, 10, 0x1800, "[stack]", 0x800);
	task_rec(m, PMC_RECORD_EXIT, 10, 1);
	expect_special(m, 10, 0x1800, "[stack]", 0x800);
	/* A pid reused by a new child of another parent takes that parent's maps. */
	task_rec(m, PMC_RECORD_FORK, 10, 11);
	expect_special(m, 10, 0x1800, "[unknown]", 0x1800);
	pmc_maps_free(m);
}

/* A mapping replaces what it overlaps, and what is left of an old one keeps its file
 * offsets. */
static void new_mapping_replaces_overlap(void **state)
{
	struct pmc_maps *m = maps_new();
	struct pmc_resolved r;

	(void)state;
	mmap_rec(m, 5, 0x10000, 0x5000, 0x2000, "[stack]", NULL, 0);
	mmap_rec(m, 5, 0x12000, 0x1000, 0, "[vdso]", NULL, 0);
	expect_special(m, 5, 0x11000, "[stack]", 0x3000);
	expect_special(m, 5, 0x12004, "[vdso]", 4);
	expect_special(m, 5, 0x13000, "[stack]", 0x5000);
	expect_special(m, 5, 0x14fff, "[stack]", 0x6fff);
	expect_special(m, 5, 0x15000, "[unknown]", 0x15000);
	mmap_rec(m, 5, 0xf000, 0x2000, 0, "[vsyscall]", NULL, 0);
	expect_special(m, 5, 0x10800, "[vsyscall]", 0x1800);
	expect_special(m, 5, 0x11000, "[stack]", 0x3000);
	mmap_rec(m, 5, 0x10000, 0x10000, 0, "//anon", NULL, 0);
	expect_special(m, 5, 0x12004, "[anon]", 0x2004);
	expect_special(m, 5, 0xf004, "[vsyscall]", 4);
	/* Empty and wrapping mappings are not the kernel's: ignored. */
	mmap_rec(m, 5, 0x12000, 0, 0, "[vdso]", NULL, 0);
	mmap_rec(m, 5, UINT64_MAX - 10, 100, 0, "[vdso]", NULL, 0);
	expect_special(m, 5, 0x12004, "[anon]", 0x2004);
	pmc_maps_resolve(m, 5, 0x12004, true, &r);
	assert_string_equal(r.object, "[kernel]");
	assert_null(r.symbol);
	expect_special(m, 99, 0x12004, "[unknown]", 0x12004);
	pmc_maps_free(m);
}

/* A file that cannot be read gives its name and file offset, and one note. */
static void unreadable_object_noted_once(void **state)
{
	struct pmc_maps *m = maps_new();

	(void)state;
	mmap_rec(m, 3, 0x400000, 0x10000, 0x1000, "/nonexistent/libgone.so", NULL, 0);
	expect_special(m, 3, 0x400010, "/nonexistent/libgone.so", 0x1010);
	expect_special(m, 3, 0x400020, "/nonexistent/libgone.so", 0x1020);
	mmap_rec(m, 3, 0x500000, 0x1000, 0, PMC_TEST_SRCDIR "/test_maps.c", NULL, 0);
	expect_special(m, 3, 0x500010, PMC_TEST_SRCDIR "/test_maps.c", 0x10);
	assert_int_equal(pmc_maps_problem_count(m), 2);
	assert_non_null(strstr(pmc_maps_problem(m, 0), "libgone.so"));
	assert_non_null(strstr(pmc_maps_problem(m, 1), "not an ELF file"));
	pmc_maps_free(m);
}

static void parses_proc_maps(void **state)
{
	struct pmc_maps *m = maps_new();

	(void)state;
	assert_int_equal(pmc_maps_load_proc(m, 4242, PMC_TEST_SRCDIR "/data/proc"), 0);
	/* Only executable mappings, each with its file offset. */
	expect_special(m, 4242, 0x55d0c0a00010, "[unknown]", 0x55d0c0a00010);
	expect_special(m, 4242, 0x55d0c0a01010, "/opt/app/bin/app", 0x1010);
	expect_special(m, 4242, 0x55d0c1000010, "[unknown]", 0x55d0c1000010);
	expect_special(m, 4242, 0x7f0000000010, "[anon]", 0x7f0000000010 - 0x7f0000000000);
	expect_special(m, 4242, 0x7f1000000010, "/opt/my lib/libsp ace.so", 0x4010);
	expect_special(m, 4242, 0x7f2000000010, "/opt/app/lib/old.so (deleted)", 0x10);
	expect_special(m, 4242, 0x7ffd00000010, "[vdso]", 0x10);
	expect_special(m, 4242, 0xffffffffff600010, "[vsyscall]", 0x10);
	assert_int_equal(pmc_maps_problem_count(m), 3);

	/* A file that is not maps changes nothing. */
	assert_int_equal(pmc_maps_load_proc(m, 4243, PMC_TEST_SRCDIR "/data/proc"), -EINVAL);
	expect_special(m, 4243, 0x55d0c0a01010, "[unknown]", 0x55d0c0a01010);
	assert_int_equal(pmc_maps_load_proc(m, 4244, PMC_TEST_SRCDIR "/data/proc"), -ENOENT);
	pmc_maps_free(m);
}

/* Writes text to dir/perf-PID.map (appending when append). */
static void write_perf_map(const char *dir, uint32_t pid, const char *text, bool append)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/perf-%u.map", dir, (unsigned)pid);
	assert_non_null(f = fopen(path, append ? "a" : "w"));
	fputs(text, f);
	fclose(f);
}

/* JIT code named from /tmp/perf-PID.map as perf names it: anonymous memory (mapped or
 * not), the latest line where two cover an address, lines added while the process runs,
 * an unfinished last line left for later, malformed lines skipped; a file mapping is
 * named by its file, never by the map; exec forgets the old program's map. */
static void perf_map_names_jit_code(void **state)
{
	char dir[] = "/tmp/pmc-jitmap-XXXXXX", path[300];
	struct pmc_maps *m = maps_new();
	struct pmc_resolved r;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(pmc_maps_set_jit_dir(m, dir), 0);
	mmap_rec(m, 42, 0x7f0000000000, 0x10000, 0, "//anon", NULL, 0);
	mmap_rec(m, 42, 0x400000, 0x1000, 0, "/nonexistent/prog", NULL, 0);
	/* No map yet: the anonymous object and its offset. */
	expect(m, 42, 0x7f0000000010, NULL, "[anon]");
	write_perf_map(dir, 42,
		       "7f0000000000 40 py::collatz_len:/tmp/c.py\n"
		       "garbage line\n"
		       "0x7f0000000100 0x20 LazyCompile:*spin spin.js:3\n"
		       "7f0000000000 10 recompiled\n"
		       "400000 1000 not_the_file\n"
		       "7f0000001000 10 unfin",
		       false);
	expect(m, 42, 0x7f0000000010, "py::collatz_len:/tmp/c.py", "[anon]");
	expect(m, 42, 0x7f0000000008, "recompiled", "[anon]");
	expect(m, 42, 0x7f000000011f, "LazyCompile:*spin spin.js:3", "[anon]");
	expect(m, 42, 0x7f0000000120, NULL, "[anon]");
	pmc_maps_resolve(m, 42, 0x400010, false, &r);
	assert_null(r.symbol);
	assert_string_equal(r.object, "/nonexistent/prog");
	/* The unfinished line, finished, and code outside every MMAP record. */
	expect(m, 42, 0x7f0000001004, NULL, "[anon]");
	write_perf_map(dir, 42, "ished\n7e0000000000 100 stub_outside\n", true);
	expect(m, 42, 0x7f0000001004, "unfinished", "[anon]");
	pmc_maps_resolve(m, 42, 0x7e0000000010, false, &r);
	assert_string_equal(r.symbol, "stub_outside");
	assert_false(r.unmapped);
	/* exec: another program, whose map is read afresh. */
	exec_rec(m, 42, true);
	mmap_rec(m, 42, 0x7f0000000000, 0x10000, 0, "//anon", NULL, 0);
	write_perf_map(dir, 42, "7f0000000000 40 after_exec\n", false);
	expect(m, 42, 0x7f0000000010, "after_exec", "[anon]");
	/* Another process has no map: nothing named. */
	mmap_rec(m, 43, 0x7f0000000000, 0x10000, 0, "//anon", NULL, 0);
	expect(m, 43, 0x7f0000000010, NULL, "[anon]");
	snprintf(path, sizeof(path), "%s/perf-42.map", dir);
	unlink(path);
	rmdir(dir);
	pmc_maps_free(m);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(names_shared_object_functions),
	    cmocka_unit_test(build_id_mismatch_names_nothing),
	    cmocka_unit_test(names_pie_program),
	    cmocka_unit_test(names_non_pie_program),
	    cmocka_unit_test(stripped_program_gives_object_and_offset),
	    cmocka_unit_test(names_libc_function),
	    cmocka_unit_test(names_vdso_function),
	    cmocka_unit_test(fork_copies_and_exec_clears),
	    cmocka_unit_test(new_mapping_replaces_overlap),
	    cmocka_unit_test(unreadable_object_noted_once),
	    cmocka_unit_test(parses_proc_maps),
	    cmocka_unit_test(perf_map_names_jit_code),
	};

	pmc_maps_free(NULL);
	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

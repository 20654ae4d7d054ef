/* harness/4-profile/jitdump.c, and its use by maps.c: JIT code named from hand-written
 * jitdumps (the layout of perf's tools/perf/util/jitdump.h), found by the mapping of a
 * file jit-PID.dump; a later load at one address replacing an earlier one from its
 * timestamp on; moves; a record still being written; the end of the file; and bad files,
 * each refused with one line naming the file, never read out of bounds. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "counters/perf/sample.h"
#include "profile/jitdump.h"
#include "profile/maps.h"

/* A dump being written, in memory. */
struct dump {
	unsigned char b[4096];
	size_t n;
};

static void put(struct dump *d, const void *p, size_t n)
{
	assert_true(d->n + n <= sizeof(d->b));
	memcpy(d->b + d->n, p, n);
	d->n += n;
}

static void put32(struct dump *d, uint32_t v)
{
	put(d, &v, sizeof(v));
}

static void put64(struct dump *d, uint64_t v)
{
	put(d, &v, sizeof(v));
}

static void header(struct dump *d, uint32_t magic, uint32_t version, uint32_t size, uint64_t flags)
{
	put32(d, magic);
	put32(d, version);
	put32(d, size);
	put32(d, 62); /* EM_X86_64 */
	put32(d, 0);
	put32(d, 42);
	put64(d, 1000);
	put64(d, flags);
	for (uint32_t i = 40; i < size; i++)
		put(d, "", 1); /* a longer header of a later revision */
}

/* A JIT_CODE_LOAD record with 4 bytes of code. */
static void code_load(struct dump *d, uint64_t time, uint64_t addr, uint64_t size, const char *name)
{
	put32(d, 0);
	put32(d, (uint32_t)(56 + strlen(name) + 1 + 4));
	put64(d, time);
	put32(d, 42);
	put32(d, 42);
	put64(d, addr);
	put64(d, addr);
	put64(d, size);
	put64(d, 7);
	put(d, name, strlen(name) + 1);
	put(d, "\x90\x90\x90\xc3", 4);
}

static void code_move(struct dump *d, uint64_t time, uint64_t from, uint64_t to, uint64_t size)
{
	put32(d, 1);
	put32(d, 64);
	put64(d, time);
	put32(d, 42);
	put32(d, 42);
	put64(d, to);
	put64(d, from);
	put64(d, to);
	put64(d, size);
	put64(d, 7);
}

static void other_record(struct dump *d, uint32_t id, uint32_t size, uint64_t time)
{
	put32(d, id);
	put32(d, size);
	put64(d, time);
	for (uint32_t i = 16; i < size; i++)
		put(d, "\xff", 1);
}

static char dir[] = "/tmp/pmc-jitdump-XXXXXX";
static char path[64];

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/jit-42.dump", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return rmdir(dir);
}

/* Writes bytes [from, to) of d to the file (from 0: anew). */
static void write_file(const struct dump *d, size_t from, size_t to)
{
	FILE *f = fopen(path, from ? "a" : "w");

	assert_non_null(f);
	assert_int_equal(fwrite(d->b + from, 1, to - from, f), to - from);
	assert_int_equal(fclose(f), 0);
}

static struct pmc_jitdump *dump_of(const struct dump *d)
{
	struct pmc_jitdump *j = NULL;

	write_file(d, 0, d->n);
	assert_int_equal(pmc_jitdump_new(path, &j), 0);
	return j;
}

static void expect_name(struct pmc_jitdump *j, uint64_t ip, uint64_t time, const char *name)
{
	const char *got = pmc_jitdump_lookup(j, ip, time);

	if (!name) {
		assert_null(got);
		return;
	}
	if (!got)
		print_error("%#llx at %llu: no name, expected %s\n", (unsigned long long)ip,
			    (unsigned long long)time, name);
	assert_non_null(got);
	assert_string_equal(got, name);
}

/* Only jit-PID.dump of the mapping's own process is a jitdump. */
static void dump_file_names(void **state)
{
	(void)state;
	assert_true(pmc_jitdump_is("/home/u/.debug/jit/java-jit-x/jit-42.dump", 42));
	assert_true(pmc_jitdump_is("jit-42.dump", 42));
	assert_false(pmc_jitdump_is("/tmp/jit-42.dump", 43));
	assert_false(pmc_jitdump_is("/tmp/jit-42.dump.old", 42));
	assert_false(pmc_jitdump_is("/tmp/jit-.dump", 0));
	assert_false(pmc_jitdump_is("/tmp/xjit-42.dump", 42));
	assert_false(pmc_jitdump_is("/tmp/jit-99999999999999999999.dump", 42));
	assert_false(pmc_jitdump_is(NULL, 42));
}

/* Loads name their code; a later load at one address names it from its timestamp on; a
 * move takes its name to the new address; other records are skipped by their size. */
static void loads_named_by_time(void **state)
{
	struct dump d = {0};
	struct pmc_jitdump *j;

	(void)state;
	header(&d, 0x4A695444, 1, 48, 0);
	code_load(&d, 2000, 0x7f0000001000, 0x40, "py::first:/tmp/a.py");
	other_record(&d, 2, 40, 2500); /* JIT_CODE_DEBUG_INFO */
	code_load(&d, 3000, 0x7f0000002000, 0x10, "stub");
	code_load(&d, 5000, 0x7f0000001000, 0x20, "py::again");
	code_move(&d, 6000, 0x7f0000002000, 0x7f0000003000, 0x10);
	j = dump_of(&d);
	assert_null(pmc_jitdump_problem(j));
	expect_name(j, 0x7f0000001010, 2500, "py::first:/tmp/a.py");
	expect_name(j, 0x7f0000001010, 5000, "py::again");
	expect_name(j, 0x7f0000001010, 9000, "py::again");
	/* Past the later load's end, the earlier one is the only one that covers it. */
	expect_name(j, 0x7f0000001030, 9000, "py::first:/tmp/a.py");
	expect_name(j, 0x7f0000001040, 9000, NULL);
	/* Without a time, the latest in the file. */
	expect_name(j, 0x7f0000001010, 0, "py::again");
	/* A sample stamped before every load of its code: the clocks disagree; the first. */
	expect_name(j, 0x7f0000001010, 1500, "py::first:/tmp/a.py");
	expect_name(j, 0x7f0000003008, 7000, "stub");
	expect_name(j, 0x7f0000002008, 7000, "stub"); /* the old copy's load stays */
	expect_name(j, 0x7f0000000fff, 7000, NULL);
	assert_null(pmc_jitdump_problem(j));
	pmc_jitdump_free(j);
}

/* The file grows while the process runs: a record cut short waits for its end; a sample
 * later than the last read reads on; JIT_CODE_CLOSE ends the reading. */
static void reads_while_it_grows(void **state)
{
	struct dump d = {0};
	struct pmc_jitdump *j = NULL;
	size_t half;

	(void)state;
	header(&d, 0x4A695444, 1, 40, 0);
	code_load(&d, 2000, 0x1000, 0x10, "one");
	half = d.n;
	code_load(&d, 3000, 0x2000, 0x10, "two");
	write_file(&d, 0, 20); /* not even the header */
	assert_int_equal(pmc_jitdump_new(path, &j), 0);
	expect_name(j, 0x1000, 0, NULL);
	write_file(&d, 20, half + 30); /* "two" cut in its middle */
	expect_name(j, 0x1000, 0, "one");
	expect_name(j, 0x2000, 0, NULL);
	write_file(&d, half + 30, d.n);
	expect_name(j, 0x2000, 0, "two");
	/* Stamped times: a sample before the last read does not read on (the loads before
	 * it were written by then), one after it does. */
	half = d.n;
	code_load(&d, 3500, 0x3000, 0x10, "three");
	write_file(&d, half, d.n);
	expect_name(j, 0x3000, 1, NULL);
	expect_name(j, 0x3000, UINT64_MAX, "three");
	/* Nothing after JIT_CODE_CLOSE is read. */
	half = d.n;
	other_record(&d, 3, 16, 4000);
	code_load(&d, 5000, 0x4000, 0x10, "after_close");
	write_file(&d, half, d.n);
	expect_name(j, 0x4000, 0, NULL);
	expect_name(j, 0x4000, UINT64_MAX, NULL);
	assert_null(pmc_jitdump_problem(j));
	pmc_jitdump_free(j);
}

/* The CPU's own stamps (JITDUMP_FLAGS_ARCH_TIMESTAMP) are no clock of the samples': the
 * latest load names the code whatever the sample's time. */
static void arch_timestamps_take_the_latest(void **state)
{
	struct dump d = {0};
	struct pmc_jitdump *j;

	(void)state;
	header(&d, 0x4A695444, 1, 40, 1);
	code_load(&d, 900000, 0x1000, 0x10, "old");
	code_load(&d, 100, 0x1000, 0x10, "new");
	j = dump_of(&d);
	expect_name(j, 0x1008, 500, "new");
	expect_name(j, 0x1008, 0, "new");
	pmc_jitdump_free(j);
}

static void expect_refused(const struct dump *d, const char *why)
{
	struct pmc_jitdump *j = dump_of(d);
	const char *p;

	expect_name(j, 0x1000, 0, NULL);
	p = pmc_jitdump_problem(j);
	if (!p || !strstr(p, why) || !strstr(p, path) || strchr(p, '\n'))
		print_error("problem: %s, expected one line with %s\n", p ? p : "(none)", why);
	assert_non_null(p);
	assert_non_null(strstr(p, why));
	assert_non_null(strstr(p, path));
	assert_null(strchr(p, '\n'));
	pmc_jitdump_free(j);
}

/* Files this reader does not read, and broken records: one line each. */
static void bad_files_said_once(void **state)
{
	struct dump d;
	struct pmc_jitdump *j;

	(void)state;
	d = (struct dump){0};
	header(&d, 0x12345678, 1, 40, 0);
	code_load(&d, 1, 0x1000, 0x10, "x");
	expect_refused(&d, "not a jitdump (magic 0x12345678");
	d = (struct dump){0};
	header(&d, 0x4454694A, 1, 40, 0);
	expect_refused(&d, "other byte order");
	d = (struct dump){0};
	header(&d, 0x4A695444, 2, 40, 0);
	expect_refused(&d, "jitdump version 2");
	d = (struct dump){0};
	header(&d, 0x4A695444, 1, 40, 0);
	d.b[8] = 12; /* total_size 12 */
	expect_refused(&d, "header says it is 12 bytes");
	d = (struct dump){0};
	header(&d, 0x4A695444, 1, 40, 0);
	other_record(&d, 7, 8, 1);
	expect_refused(&d, "record at byte 40 (type 7) says it is 8 bytes");
	d = (struct dump){0};
	header(&d, 0x4A695444, 1, 40, 0);
	other_record(&d, 0, 56, 1); /* a code load without room for a name */
	expect_refused(&d, "(type 0) says it is 56 bytes");
	d = (struct dump){0};
	header(&d, 0x4A695444, 1, 40, 0);
	other_record(&d, 0, 60, 1); /* a name of 0xff bytes without its end */
	expect_refused(&d, "name without its end");
	/* Loads before a broken record keep their names. */
	d = (struct dump){0};
	header(&d, 0x4A695444, 1, 40, 0);
	code_load(&d, 1, 0x1000, 0x10, "kept");
	other_record(&d, 1, 20, 2); /* a move too short for its fields */
	j = dump_of(&d);
	expect_name(j, 0x1000, 0, "kept");
	assert_non_null(pmc_jitdump_problem(j));
	pmc_jitdump_free(j);
	/* A directory, or a missing file, is not read (and no problem while missing). */
	assert_int_equal(pmc_jitdump_new(dir, &j), 0);
	expect_name(j, 0x1000, 0, NULL);
	assert_non_null(strstr(pmc_jitdump_problem(j), "not a regular file"));
	pmc_jitdump_free(j);
	assert_int_equal(pmc_jitdump_new("/nonexistent/jit-1.dump", &j), 0);
	expect_name(j, 0x1000, 0, NULL);
	assert_null(pmc_jitdump_problem(j));
	pmc_jitdump_free(j);
	assert_int_equal(pmc_jitdump_new(NULL, &j), -EINVAL);
}

static void mmap_rec(struct pmc_maps *m, uint32_t pid, uint64_t addr, uint64_t len,
		     const char *file)
{
	struct pmc_record r = {.type = PMC_RECORD_MMAP, .pid = pid, .tid = pid};

	r.mmap.addr = addr;
	r.mmap.len = len;
	r.mmap.prot = 5;
	r.mmap.filename = file;
	assert_int_equal(pmc_maps_apply(m, &r), 0);
}

static void expect_resolved(struct pmc_maps *m, uint32_t pid, uint64_t ip, uint64_t time,
			    const char *sym)
{
	struct pmc_resolved r;

	pmc_maps_at(m, time);
	pmc_maps_resolve(m, pid, ip, false, &r);
	if (sym) {
		assert_non_null(r.symbol);
		assert_string_equal(r.symbol, sym);
		assert_string_equal(r.object, "[anon]");
	} else {
		assert_null(r.symbol);
	}
}

/* The recorder's side: the mapping of jit-PID.dump by process PID makes its dump name
 * that process's anonymous code, by the sample's time; another process's mapping of it,
 * a fork's child and an exec do not; a bad dump is one note. */
static void maps_name_code_from_the_mapped_dump(void **state)
{
	struct dump d = {0};
	struct pmc_maps *m = NULL;
	struct pmc_record exec = {.type = PMC_RECORD_COMM, .pid = 42, .tid = 42};
	struct pmc_record fork = {.type = PMC_RECORD_FORK, .pid = 50, .tid = 50};

	(void)state;
	header(&d, 0x4A695444, 1, 40, 0);
	code_load(&d, 2000, 0x7f0000001000, 0x40, "first");
	code_load(&d, 5000, 0x7f0000001000, 0x40, "second");
	write_file(&d, 0, d.n);
	assert_int_equal(pmc_maps_new(&m), 0);
	assert_int_equal(pmc_maps_set_jit_dir(m, dir), 0); /* no perf map there */
	mmap_rec(m, 42, 0x7f0000000000, 0x10000, "//anon");
	expect_resolved(m, 42, 0x7f0000001010, 3000, NULL);
	mmap_rec(m, 42, 0x7e0000000000, 0x1000, path);
	mmap_rec(m, 43, 0x7f0000000000, 0x10000, "//anon");
	mmap_rec(m, 43, 0x7e0000000000, 0x1000, path);
	expect_resolved(m, 42, 0x7f0000001010, 3000, "first");
	expect_resolved(m, 42, 0x7f0000001010, 6000, "second");
	expect_resolved(m, 42, 0x7f0000001010, 0, "second");
	expect_resolved(m, 43, 0x7f0000001010, 3000, NULL);
	/* A fork's child has the parent's mappings but is another process. */
	fork.task.ppid = 42;
	assert_int_equal(pmc_maps_apply(m, &fork), 0);
	expect_resolved(m, 50, 0x7f0000001010, 3000, NULL);
	assert_int_equal(pmc_maps_problem_count(m), 0);
	exec.comm.exec = true;
	assert_int_equal(pmc_maps_apply(m, &exec), 0);
	mmap_rec(m, 42, 0x7f0000000000, 0x10000, "//anon");
	expect_resolved(m, 42, 0x7f0000001010, 3000, NULL);
	/* A bad dump: noted once, however many samples it fails to name. */
	d.b[4] = 9;
	write_file(&d, 0, d.n);
	mmap_rec(m, 42, 0x7e0000000000, 0x1000, path);
	expect_resolved(m, 42, 0x7f0000001010, 3000, NULL);
	expect_resolved(m, 42, 0x7f0000001010, 4000, NULL);
	assert_int_equal(pmc_maps_problem_count(m), 1);
	assert_non_null(strstr(pmc_maps_problem(m, 0), "jitdump version 9"));
	pmc_maps_free(m);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(dump_file_names),
	    cmocka_unit_test(loads_named_by_time),
	    cmocka_unit_test(reads_while_it_grows),
	    cmocka_unit_test(arch_timestamps_take_the_latest),
	    cmocka_unit_test(bad_files_said_once),
	    cmocka_unit_test(maps_name_code_from_the_mapped_dump),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, setup, teardown);
}

/* Source lines of a profile (harness/4-profile/profile_lines.h, reporters/profile_lines.h):
 * the address table aggregates (function, address), survives a save and load with every
 * field, is absent from files without it, refuses damaged entries, and the report merges
 * addresses by line and inlined function, sorts by weight and refuses what it cannot show
 * (no table, unknown function, no line table) with distinct codes. */
#include <errno.h>
#include <limits.h>
#include <link.h>
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

#include "profile/lines.h"
#include "profile/profile.h"
#include "profile/profile_lines.h"
#include "reporters/profile_lines.h"
#include "tests/helpers.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/pmc-test-lines-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* A sampled profile with its table: main -> outer (leaf, 70 + 15 + 10 + 5 weight at four
 * addresses: two of them one line of inner_a, one a line of outer, one without a line),
 * main -> libc's memcpy (leaf, no line table). */
static struct pmc_profile *sample_profile(uint32_t ids[4])
{
	struct pmc_profile_info in = {
	    .kind = PMC_PROFILE_SAMPLED, .event = "cpu-clock", .unit = "ns", .freq = 1000};
	struct pmc_profile_lines *t;
	struct pmc_profile *p = NULL;
	uint32_t st[2];
	const struct pmc_profile_line a = {.file = "/src/t.c",
					   .line = 10,
					   .inlined = "inner_a",
					   .call_file = "/src/t.c",
					   .call_line = 30},
				      b = {.file = "/src/t.c", .line = 31};

	assert_int_equal(pmc_profile_new(&in, &p), 0);
	assert_int_equal(pmc_profile_frame_id(p, "main", "/bin/t", 0, &ids[0]), 0);
	assert_int_equal(pmc_profile_frame_id(p, "outer", "/bin/t", 0, &ids[1]), 0);
	assert_int_equal(pmc_profile_frame_id(p, "memcpy", "/lib/libc.so.6", 0, &ids[2]), 0);
	assert_int_equal(pmc_profile_frame_id(p, "caller_only", "/bin/t", 0, &ids[3]), 0);
	st[0] = ids[0];
	st[1] = ids[1];
	assert_int_equal(pmc_profile_add(p, st, 2, 100, 10, false), 0);
	st[1] = ids[2];
	assert_int_equal(pmc_profile_add(p, st, 2, 50, 5, false), 0);
	assert_int_equal(pmc_profile_lines_new(&t), 0);
	pmc_profile_set_lines(p, t);
	assert_ptr_equal(pmc_profile_lines(p), t);
	/* (outer, 0x1000) twice: one entry. */
	assert_int_equal(pmc_profile_lines_add(t, ids[1], 0x1000, 40, 4), 0);
	assert_int_equal(pmc_profile_lines_add(t, ids[1], 0x1000, 30, 3), 0);
	assert_int_equal(pmc_profile_lines_add(t, ids[1], 0x1004, 15, 2), 0);
	assert_int_equal(pmc_profile_lines_add(t, ids[1], 0x1010, 10, 1), 0);
	assert_int_equal(pmc_profile_lines_add(t, ids[1], 0x1020, 5, 1), 0);
	assert_int_equal(pmc_profile_lines_add(t, ids[2], 0x9000, 50, 5), 0);
	assert_int_equal(pmc_profile_lines_count(t), 5);
	assert_int_equal(pmc_profile_lines_get(t, 0)->weight, 70);
	assert_int_equal(pmc_profile_lines_get(t, 0)->samples, 7);
	assert_int_equal(pmc_profile_lines_set_source(t, 0, &a), 0);
	assert_int_equal(pmc_profile_lines_set_source(t, 1, &a), 0);
	assert_int_equal(pmc_profile_lines_set_source(t, 2, &b), 0);
	/* One copy of each string: equal sources are equal pointers. */
	assert_ptr_equal(pmc_profile_lines_get(t, 0)->file, pmc_profile_lines_get(t, 2)->file);
	return p;
}

static void same_lines(const struct pmc_profile *p, const struct pmc_profile *q)
{
	const struct pmc_profile_lines *a = pmc_profile_lines(p), *b = pmc_profile_lines(q);

	assert_non_null(b);
	assert_int_equal(pmc_profile_lines_count(a), pmc_profile_lines_count(b));
	for (size_t i = 0; i < pmc_profile_lines_count(a); i++) {
		const struct pmc_profile_line *x = pmc_profile_lines_get(a, i),
					      *y = pmc_profile_lines_get(b, i);

		assert_int_equal(x->frame, y->frame);
		assert_int_equal(x->address, y->address);
		assert_int_equal(x->weight, y->weight);
		assert_int_equal(x->samples, y->samples);
		assert_int_equal(x->line, y->line);
		assert_int_equal(x->call_line, y->call_line);
		assert_int_equal(!x->file, !y->file);
		assert_int_equal(!x->inlined, !y->inlined);
		assert_int_equal(!x->call_file, !y->call_file);
		if (x->file)
			assert_string_equal(x->file, y->file);
		if (x->inlined)
			assert_string_equal(x->inlined, y->inlined);
		if (x->call_file)
			assert_string_equal(x->call_file, y->call_file);
	}
}

static void table_round_trip(void **state)
{
	uint32_t ids[4];
	struct pmc_profile *p = sample_profile(ids), *q = NULL;
	char path[128], err[256] = "";

	(void)state;
	snprintf(path, sizeof(path), "%s/p.json", dir);
	assert_int_equal(pmc_profile_save(p, path, err, sizeof(err)), 0);
	assert_int_equal(pmc_profile_load(path, &q, err, sizeof(err)), 0);
	same_lines(p, q);
	pmc_profile_free(q);
	/* An empty table stays a table: kept, with nothing in it. */
	{
		struct pmc_profile_lines *t;

		assert_int_equal(pmc_profile_lines_new(&t), 0);
		pmc_profile_set_lines(p, t);
	}
	assert_int_equal(pmc_profile_save(p, path, err, sizeof(err)), 0);
	assert_int_equal(pmc_profile_load(path, &q, err, sizeof(err)), 0);
	assert_non_null(pmc_profile_lines(q));
	assert_int_equal(pmc_profile_lines_count(pmc_profile_lines(q)), 0);
	pmc_profile_free(q);
	/* Without a table, the file has no "lines" and loads without one. */
	pmc_profile_set_lines(p, NULL);
	assert_int_equal(pmc_profile_save(p, path, err, sizeof(err)), 0);
	assert_int_equal(pmc_profile_load(path, &q, err, sizeof(err)), 0);
	assert_null(pmc_profile_lines(q));
	pmc_profile_free(q);
	pmc_profile_free(p);
}

/* Writes text to dir/bad.json and loads it: -EINVAL with want in the one-line message. */
static void refused(const char *text, const char *want)
{
	struct pmc_profile *q = NULL;
	char path[128], err[512] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/bad.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(pmc_profile_load(path, &q, err, sizeof(err)), -EINVAL);
	assert_null(q);
	assert_contains(err, want);
	assert_null(strchr(err, '\n'));
}

#define BASE                                                                                       \
	"{\"schema\": \"pmcbench-profile/1\", \"kind\": \"sampled\", \"event\": \"cpu-clock\", "   \
	"\"unit\": \"ns\", \"freq\": 99, \"samples\": 3, \"lost\": 0, \"unresolved\": 0, "         \
	"\"frames\": [{\"symbol\": \"main\", \"object\": \"/x\"}], \"total\": 5, "                 \
	"\"stacks\": [{\"frames\": [0], \"weight\": 5, \"samples\": 3}], "

static void damaged_tables_are_refused(void **state)
{
	(void)state;
	refused(BASE "\"lines\": 3}", "lines: expected an array");
	refused(BASE "\"lines\": [{\"frame\": 1, \"address\": 4, \"weight\": 5, \"samples\": 3}]}",
		"lines[0].frame: 1 is not a frame id");
	refused(BASE "\"lines\": [{\"frame\": 0, \"weight\": 5, \"samples\": 3}]}",
		"lines[0].address: missing");
	refused(BASE "\"lines\": [{\"frame\": 0, \"address\": 4, \"weight\": 5, \"samples\": 3, "
		     "\"file\": \"a.c\"}]}",
		"lines[0].line: missing");
	refused(BASE "\"lines\": [{\"frame\": 0, \"address\": 4, \"weight\": 5, \"samples\": 3},"
		     " {\"frame\": 0, \"address\": 4, \"weight\": 1, \"samples\": 1}]}",
		"lines[1]: repeats");
}

/* The report of p's lines of fn into a string (NULL: the call failed with *rc). */
static char *report(const struct pmc_profile *p, const char *fn, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*rc = pmc_profile_report_lines(f, p, fn);
	fclose(f);
	if (*rc < 0) {
		assert_int_equal(len, 0);
		free(buf);
		return NULL;
	}
	return buf;
}

static void report_merges_lines_by_weight(void **state)
{
	uint32_t ids[4];
	struct pmc_profile *p = sample_profile(ids);
	char *out, *a, *b, *c;
	int rc;

	(void)state;
	out = report(p, "outer", &rc);
	assert_int_equal(rc, 0);
	/* 0x1000 and 0x1004 are one line of inner_a (85 of 100), then line 31 of outer
	 * itself (10), then an address no line table covers (5). */
	a = strstr(out, "t.c:10");
	b = strstr(out, "t.c:31");
	c = strstr(out, "[no line table]");
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	assert_true(a < b && b < c);
	assert_contains(out, "85.0%");
	assert_contains(out, "inner_a (inlined at t.c:30)");
	assert_contains(out, "total (3 lines)");
	assert_contains(out, "self 66.7% of the profile");
	assert_null(strstr(b, "inlined at"));
	free(out);
	free(report(p, "outre", &rc));
	assert_int_equal(rc, -ENOENT);
	/* Samples ended in memcpy, at addresses no line table covers: nothing invented. */
	free(report(p, "memcpy", &rc));
	assert_int_equal(rc, -ENOEXEC);
	/* Given a line, memcpy's one address is one line: "1 line", not "1 lines". */
	assert_int_equal(pmc_profile_lines_get(pmc_profile_lines(p), 4)->address, 0x9000);
	assert_int_equal(
	    pmc_profile_lines_set_source(pmc_profile_lines(p), 4,
					 &(struct pmc_profile_line){.file = "/src/m.c", .line = 7}),
	    0);
	out = report(p, "memcpy", &rc);
	assert_int_equal(rc, 0);
	assert_contains(out, "total (1 line)\n");
	free(out);
	pmc_profile_set_lines(p, NULL);
	free(report(p, "outer", &rc));
	assert_int_equal(rc, -ENODATA);
	pmc_profile_free(p);
}

/* The main program's load bias (dl_iterate_phdr lists it first). */
static int first_bias(struct dl_phdr_info *info, size_t size, void *ud)
{
	(void)size;
	*(uintptr_t *)ud = info->dlpi_addr;
	return 1;
}

/* Addresses of this test program in three compilation units (this file, profile_lines.c
 * and profile.c, linked in from libpmc-profile), looked up in one pass: each gets its own
 * unit's file, as when the program is opened once for all of them (lines.c opens an
 * object with uncompressed DWARF again for each unit, so that one unit's line table at a
 * time is in memory). */
static void lines_resolve_across_units(void **state)
{
	struct pmc_profile_info in = {
	    .kind = PMC_PROFILE_SAMPLED, .event = "cpu-clock", .unit = "ns", .freq = 1000};
	struct {
		const char *name, *file;
		uintptr_t at;
	} fns[] = {
	    {"sample_profile", "tests/test_profile_lines.c", (uintptr_t)&sample_profile},
	    {"pmc_profile_lines_new", "4-profile/profile_lines.c",
	     (uintptr_t)&pmc_profile_lines_new},
	    {"pmc_profile_new", "4-profile/profile.c", (uintptr_t)&pmc_profile_new},
	};
	struct pmc_profile_lines *t;
	struct pmc_profile *p = NULL;
	char exe[PATH_MAX];
	uintptr_t bias = 0;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	(void)state;
	assert_true(n > 0);
	exe[n] = 0;
	dl_iterate_phdr(first_bias, &bias);
	assert_int_equal(pmc_profile_new(&in, &p), 0);
	assert_int_equal(pmc_profile_lines_new(&t), 0);
	pmc_profile_set_lines(p, t);
	for (size_t i = 0; i < ARRAY_SIZE(fns); i++) {
		uint32_t id;

		assert_int_equal(pmc_profile_frame_id(p, fns[i].name, exe, 0, &id), 0);
		assert_int_equal(pmc_profile_lines_add(t, id, fns[i].at - bias + 4, 10, 1), 0);
	}
	assert_int_equal(pmc_lines_resolve(p), 0);
	assert_int_equal(pmc_profile_lines_count(t), ARRAY_SIZE(fns));
	for (size_t i = 0; i < ARRAY_SIZE(fns); i++) {
		char name[128];
		const struct pmc_profile_line *l = NULL;

		for (size_t j = 0; j < pmc_profile_lines_count(t); j++) {
			const struct pmc_profile_line *e = pmc_profile_lines_get(t, j);

			if (!strcmp(pmc_profile_frame_name(p, e->frame, name, sizeof(name)),
				    fns[i].name))
				l = e;
		}
		assert_non_null(l);
		if (!l->file || strlen(l->file) < strlen(fns[i].file) ||
		    strcmp(l->file + strlen(l->file) - strlen(fns[i].file), fns[i].file) != 0 ||
		    !l->line)
			fail_msg("%s: %s:%u, not in %s", fns[i].name, l->file ? l->file : "(none)",
				 l->line, fns[i].file);
	}
	pmc_profile_free(p);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(table_round_trip),
	    cmocka_unit_test(damaged_tables_are_refused),
	    cmocka_unit_test(report_merges_lines_by_weight),
	    cmocka_unit_test(lines_resolve_across_units),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, setup, teardown);
}

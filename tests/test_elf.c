/* harness/1-elf/section.c and harness/5-microbench/library.c: the "pmc_bench" section of a
 * shared object (tests/targets/benchlib.c), and what is not one. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "elf/section.h"
#include "microbench/library.h"

static void finds_the_benchmark_section(void **state)
{
	struct pmc_elf_section sec = {0};
	char err[512] = "";

	(void)state;
	assert_int_equal(
	    pmc_elf_find_section(PMC_TEST_BENCHLIB, PMC_BENCH_SECTION, &sec, err, sizeof(err)), 0);
	/* Two definitions, each as big as this build's, in a section of their own. */
	assert_int_equal(sec.entsize, sizeof(struct pmc_bench_def));
	assert_true(sec.size >= 2 * sizeof(struct pmc_bench_def));
	assert_int_equal(sec.size % sizeof(struct pmc_bench_def), 0);
	assert_true(sec.addr > 0);
}

static void rejects_what_has_no_benchmarks(void **state)
{
	struct pmc_elf_section sec = {.addr = 7};
	struct pmc_mb_library lib = {0};
	char err[512] = "";

	(void)state;
	/* A C source: not ELF. */
	assert_int_equal(pmc_elf_find_section(PMC_TEST_SRCDIR "/test_elf.c", PMC_BENCH_SECTION,
					      &sec, err, sizeof(err)),
			 -ENOEXEC);
	assert_non_null(strstr(err, "not an ELF file"));
	assert_int_equal(sec.addr, 7);
	/* An ELF program without the section. */
	assert_int_equal(
	    pmc_elf_find_section(PMC_TEST_WORK, PMC_BENCH_SECTION, &sec, err, sizeof(err)),
	    pmc_elf_find_section(PMC_TEST_WORK, ".text", &sec, err, sizeof(err)) == 0 ? -ENOENT
										      : -ENOEXEC);
	assert_int_equal(
	    pmc_elf_find_section(PMC_TEST_BENCHLIB, "no-such-section", &sec, err, sizeof(err)),
	    -ENOENT);
	assert_non_null(strstr(err, "no-such-section"));
	assert_int_equal(
	    pmc_elf_find_section("/nonexistent/x.so", PMC_BENCH_SECTION, &sec, err, sizeof(err)),
	    -ENOENT);
	assert_int_equal(pmc_mb_library_open(PMC_TEST_SRCDIR "/test_elf.c", &lib, err, sizeof(err)),
			 -ENOEXEC);
	assert_null(lib.handle);
}

/* This test program does not export the API (no -rdynamic), so the object's reference to
 * pmc_loop_edge cannot resolve: dlopen fails and its own message is kept. */
static void a_failed_load_says_why(void **state)
{
	struct pmc_mb_library lib = {0};
	char err[1024] = "";

	(void)state;
	assert_int_equal(pmc_mb_library_open(PMC_TEST_BENCHLIB, &lib, err, sizeof(err)), -ELIBBAD);
	assert_non_null(strstr(err, "cannot load"));
	assert_non_null(strstr(err, "undefined symbol"));
	assert_null(lib.handle);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(finds_the_benchmark_section),
	    cmocka_unit_test(rejects_what_has_no_benchmarks),
	    cmocka_unit_test(a_failed_load_says_why),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* One name for one function whichever backend saw it (harness/4-profile/names.h): the
 * sampler's mangled C++ symbols are valgrind's demangled names, symbol versions go, and
 * whatever ran main is one root "(below main)" in every profile, so that a sampled and an
 * exact profile of one program match function by function and stack by stack. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "profile/names.h"
#include "profile/profile.h"

/* The name sym becomes, or sym itself when it stays. */
static void expect_name(const char *sym, const char *want)
{
	char *got = (char *)0x1;

	assert_int_equal(pmc_profile_symbol_name(sym, &got), 0);
	if (!strcmp(sym, want) && got)
		fail_msg("%s: renamed to %s", sym, got);
	assert_string_equal(got ? got : sym, want);
	free(got);
}

static void symbol_names(void **state)
{
	(void)state;
	/* C++ as valgrind prints it: parameters, templates, clones. */
	expect_name("_ZN6shapes5Mixer4spinEm", "shapes::Mixer::spin(unsigned long)");
	expect_name("_ZN6shapes5twiceIlEET_S1_m", "long shapes::twice<long>(long, unsigned long)");
	expect_name("_ZN6shapesL4stepEm", "shapes::step(unsigned long)");
	expect_name("_ZNKSt6vectorIiSaIiEE4sizeEv",
		    "std::vector<int, std::allocator<int> >::size() const");
	expect_name("_ZN3foo3barEv.cold", "foo::bar() [clone .cold]");
	/* A versioned C++ symbol loses its version, then demangles. */
	expect_name("_ZNSo3putEc@@GLIBCXX_3.4", "std::ostream::put(char)");
	/* Symbol versions, as valgrind prints .dynsym names. */
	expect_name("memcpy@@GLIBC_2.14", "memcpy");
	expect_name("_IO_file_xsputn@GLIBC_2.2.5", "_IO_file_xsputn");
	/* Not versions: a PLT stub is other code, a bare or odd "@" is part of the name. */
	expect_name("printf@plt", "printf@plt");
	expect_name("@", "@");
	expect_name("f@", "f@");
	expect_name("f@v 1", "f@v 1");
	/* C names stay, even one that starts like the ABI's prefix but does not parse. */
	expect_name("main", "main");
	expect_name("_Zfoo", "_Zfoo");
	expect_name("_Z", "_Z");
	/* Below main, from either backend and any glibc. */
	expect_name("__libc_start_call_main", "(below main)");
	expect_name("__libc_start_main", "(below main)");
	expect_name("__libc_start_main@@GLIBC_2.34", "(below main)");
	expect_name("__libc_start_main_impl", "(below main)");
	expect_name("__libc_start_main_alias_2", "(below main)");
	expect_name("_start", "(below main)");
	expect_name("generic_start_main.isra.0", "(below main)");
	expect_name("(below main)", "(below main)");
	expect_name("_start_thread", "_start_thread");
	expect_name("start_thread", "start_thread");
	expect_name("__libc_start_mainly", "__libc_start_mainly");
}

static struct pmc_profile *new_profile(enum pmc_profile_kind kind)
{
	struct pmc_profile_info in = {.kind = kind,
				      .event = kind == PMC_PROFILE_EXACT ? "Ir" : "cpu-clock",
				      .unit = kind == PMC_PROFILE_EXACT ? "instructions" : "ns"};
	struct pmc_profile *p = NULL;

	assert_int_equal(pmc_profile_new(&in, &p), 0);
	return p;
}

/* Adds a stack of symbols, root first ("sym@object", the object "prog" without one). */
static void add(struct pmc_profile *p, uint64_t w, const char *stack)
{
	char buf[512], *save = NULL;
	uint32_t ids[16], depth = 0;

	snprintf(buf, sizeof(buf), "%s", stack);
	for (char *t = strtok_r(buf, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
		char *at = strrchr(t, '#');

		if (at)
			*at = '\0';
		assert_int_equal(pmc_profile_frame_id(p, t, at ? at + 1 : "prog", 0, &ids[depth++]),
				 0);
	}
	assert_int_equal(pmc_profile_add(p, ids, depth, w, 1, false), 0);
}

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The stacks' display names, "a;b;c w" each, sorted. */
static char *stacks_text(const struct pmc_profile *p)
{
	size_t n = pmc_profile_stack_count(p), len = 0;
	char **lines = calloc(n, sizeof(*lines)), *out = calloc(1, 4096);

	assert_non_null(lines);
	assert_non_null(out);
	for (size_t i = 0; i < n; i++) {
		const struct pmc_profile_stack *s = pmc_profile_stack(p, i);
		char line[512] = "", name[256];

		for (uint32_t d = 0; d < s->depth; d++) {
			strcat(line, d ? ";" : "");
			strcat(line, pmc_profile_frame_name(p, s->frames[d], name, sizeof(name)));
		}
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " %llu",
			 (unsigned long long)s->weight);
		lines[i] = strdup(line);
	}
	qsort(lines, n, sizeof(*lines), line_cmp);
	for (size_t i = 0; i < n; i++) {
		int r = snprintf(out + len, 4096 - len, "%s\n", lines[i]);

		len += (size_t)r;
		free(lines[i]);
	}
	free(lines);
	return out;
}

/* An exact profile as callgrind names it and a sampled one as the frame-pointer walk
 * sees it: one root, the same stacks, the same functions. */
static void one_root_both_backends(void **state)
{
	struct pmc_profile *e = new_profile(PMC_PROFILE_EXACT);
	struct pmc_profile *s = new_profile(PMC_PROFILE_SAMPLED);
	struct pmc_profile_fn *fns = NULL;
	struct pmc_profile_delta *d = NULL;
	size_t n = 0, nd = 0;
	char *te, *ts;

	(void)state;
	/* callgrind: ld.so's entry (no symbol in Debian's ld.so), the program's _start and
	 * __libc_start_call_main as "(below main)", __libc_start_main versioned. */
	add(e, 100,
	    "_dl_start_user#ld.so;(below main);__libc_start_main@@GLIBC_2.34#libc;"
	    "(below main)#libc;main;_ZN6shapes5Mixer4spinEm");
	add(e, 3,
	    "_dl_start_user#ld.so;(below main);__libc_start_main@@GLIBC_2.34#libc;"
	    "(below main)#libc;exit#libc");
	add(e, 5, "_dl_start_user#ld.so;_dl_start#ld.so");
	/* The sampler: mangled, and only __libc_start_call_main below main. */
	add(s, 1000, "__libc_start_call_main#libc;main;_ZN6shapes5Mixer4spinEm");
	add(s, 10, "__libc_start_call_main#libc;exit#libc");
	add(s, 10,
	    "_start;__libc_start_main_impl#libc;__libc_start_call_main#libc;main;"
	    "_ZN6shapes5Mixer4spinEm");
	te = stacks_text(e);
	ts = stacks_text(s);
	assert_string_equal(te, "(below main);exit 3\n"
				"(below main);main;shapes::Mixer::spin(unsigned long) 100\n"
				"_dl_start_user;_dl_start 5\n");
	assert_string_equal(ts, "(below main);exit 10\n"
				"(below main);main;shapes::Mixer::spin(unsigned long) 1010\n");
	/* The frames "(below main)" took the place of are on no stack: no function. */
	assert_int_equal(pmc_profile_functions(e, &fns, &n), 0);
	assert_int_equal(n, 6);
	for (size_t i = 0; i < n; i++)
		assert_string_not_equal(fns[i].name, "__libc_start_main@@GLIBC_2.34");
	pmc_profile_functions_free(fns, n);
	/* The diff matches the C++ function across the backends. */
	assert_int_equal(pmc_profile_diff(s, e, &d, &nd), 0);
	for (size_t i = 0; i < nd; i++)
		if (!strcmp(d[i].name, "shapes::Mixer::spin(unsigned long)")) {
			assert_int_equal(d[i].old_self, 1010);
			assert_int_equal(d[i].new_self, 100);
		}
	pmc_profile_deltas_free(d, nd);
	free(te);
	free(ts);
	pmc_profile_free(e);
	pmc_profile_free(s);
}

/* A DWARF unwind that ends inside what ran main (the stack copy ends in
 * __libc_start_main) reached main: its stack is whole, not cut. One that ends before
 * main stays cut. */
static void reaching_below_main_is_whole(void **state)
{
	struct pmc_profile *p = new_profile(PMC_PROFILE_SAMPLED);
	uint32_t ids[3];

	(void)state;
	assert_int_equal(pmc_profile_frame_id(p, "__libc_start_call_main", "libc", 0, &ids[0]), 0);
	assert_int_equal(pmc_profile_frame_id(p, "main", "prog", 0, &ids[1]), 0);
	assert_int_equal(pmc_profile_frame_id(p, "hot", "prog", 0, &ids[2]), 0);
	assert_int_equal(pmc_profile_add(p, ids, 3, 7, 1, true), 0);
	assert_int_equal(pmc_profile_truncated(p), 0);
	assert_int_equal(pmc_profile_add(p, ids + 1, 2, 5, 1, true), 0);
	assert_int_equal(pmc_profile_truncated(p), 5);
	pmc_profile_free(p);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(symbol_names),
	    cmocka_unit_test(one_root_both_backends),
	    cmocka_unit_test(reaching_below_main_is_whole),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

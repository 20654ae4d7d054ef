/* harness/4-profile/record.c: a sample's call chain as a stack (pmc_profile_add_sample).
 * A frame-pointer chain that walks into data (code built without frame pointers keeps
 * other values in rbp) is cut at its first address that no mapping holds and marked
 * truncated, as is a chain at the kernel's depth limit, kernel frames included; no frame
 * reaches the profile with an offset its file cannot hold, so that the profile of such a
 * run is always saved. */
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
#include "profile/maps.h"
#include "profile/profile.h"
#include "profile/record.h"
#include "tests/helpers.h"

#define PID 4242
/* The program's code: [0x400000, 0x402000) at file offset 0x1000; the files do not exist,
 * so their frames are the object and the file offset, which the tests can check. */
#define PROG_START 0x400000u
#define PROG_PGOFF 0x1000u
#define LIB_START 0x7f0000000000u
/* Anonymous memory whose perf map names main at MAIN, start_thread and helper after it:
 * named frames without an ELF file to read. */
#define ANON_START 0x7e0000000000u
#define MAIN (ANON_START + 0x10)
#define THREAD_START (ANON_START + 0x110)
#define HELPER (ANON_START + 0x210)

struct fixture {
	struct pmc_maps *m;
	struct pmc_profile *p;
	char dir[64];
};

static void mmap_rec(struct pmc_maps *m, uint64_t addr, uint64_t len, uint64_t pgoff,
		     const char *file)
{
	struct pmc_record r = {.type = PMC_RECORD_MMAP, .pid = PID, .tid = PID};

	r.mmap.addr = addr;
	r.mmap.len = len;
	r.mmap.pgoff = pgoff;
	r.mmap.prot = 5;
	r.mmap.filename = file;
	assert_int_equal(pmc_maps_apply(m, &r), 0);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct pmc_profile_info in = {
	    .kind = PMC_PROFILE_SAMPLED, .event = "cpu-clock", .unit = "ns", .freq = 4000};

	assert_non_null(f);
	assert_int_equal(pmc_maps_new(&f->m), 0);
	/* The kernel's symbols hidden, unless a test gives its own. */
	assert_int_equal(pmc_maps_set_kallsyms(f->m, "/nonexistent/kallsyms"), 0);
	assert_int_equal(pmc_profile_new(&in, &f->p), 0);
	mmap_rec(f->m, PROG_START, 0x2000, PROG_PGOFF, "/nonexistent/prog");
	mmap_rec(f->m, LIB_START, 0x1000, 0, "/nonexistent/libc.so.6");
	mmap_rec(f->m, ANON_START, 0x1000, 0, "//anon");
	snprintf(f->dir, sizeof(f->dir), "/tmp/pmc-test-record-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	assert_int_equal(pmc_maps_set_jit_dir(f->m, f->dir), 0);
	{
		char path[128];
		FILE *mf;

		snprintf(path, sizeof(path), "%s/perf-%d.map", f->dir, PID);
		assert_non_null(mf = fopen(path, "w"));
		fprintf(mf, "%llx 100 main\n%llx 100 start_thread\n%llx 100 helper\n",
			(unsigned long long)ANON_START, (unsigned long long)ANON_START + 0x100,
			(unsigned long long)ANON_START + 0x200);
		fclose(mf);
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char path[128];

	snprintf(path, sizeof(path), "%s/perf-%d.map", f->dir, PID);
	unlink(path);
	rmdir(f->dir);
	pmc_profile_free(f->p);
	pmc_maps_free(f->m);
	free(f);
	return 0;
}

/* One sample of period 1000 with the chain ips (leaf first, nkernel kernel frames). */
static int add(struct fixture *f, const uint64_t *ips, uint32_t nips, uint32_t nkernel,
	       uint32_t max_stack, uint64_t *unresolved)
{
	struct pmc_record r = {.type = PMC_RECORD_SAMPLE, .pid = PID, .tid = PID};

	r.sample.ip = ips[0];
	r.sample.period = 1000;
	r.sample.ips = ips;
	r.sample.nips = nips;
	r.sample.nkernel = nkernel;
	r.sample.kernel = nkernel > 0;
	return pmc_profile_add_sample(f->p, f->m, &r, max_stack, unresolved);
}

/* The only stack of the profile. */
static const struct pmc_profile_stack *only_stack(const struct fixture *f)
{
	assert_int_equal(pmc_profile_stack_count(f->p), 1);
	return pmc_profile_stack(f->p, 0);
}

static void assert_frame(const struct fixture *f, uint32_t id, const char *object, uint64_t offset)
{
	const struct pmc_profile_frame *fr = pmc_profile_frame(f->p, id);

	assert_non_null(fr);
	assert_null(fr->symbol);
	assert_string_equal(fr->object, object);
	assert_int_equal(fr->offset, offset);
}

/* Every frame is a real address: the whole chain, root first, nothing dropped; whole
 * (not truncated) because its outermost frame is main, an entry point. */
static void whole_chain_is_kept(void **state)
{
	struct fixture *f = *state;
	const uint64_t ips[] = {PROG_START + 0x10, PROG_START + 0x120, LIB_START + 0x30, MAIN};
	const struct pmc_profile_stack *s;
	uint64_t unresolved = 0;

	assert_int_equal(add(f, ips, 4, 0, 127, &unresolved), 0);
	s = only_stack(f);
	assert_int_equal(s->depth, 4);
	assert_false(s->truncated);
	assert_string_equal(pmc_profile_frame(f->p, s->frames[0])->symbol, "main");
	/* Return addresses are looked up one byte earlier; the leaf is not. */
	assert_frame(f, s->frames[1], "/nonexistent/libc.so.6", 0x2f);
	assert_frame(f, s->frames[2], "/nonexistent/prog", PROG_PGOFF + 0x11f);
	assert_frame(f, s->frames[3], "/nonexistent/prog", PROG_PGOFF + 0x10);
	assert_int_equal(unresolved, 3);
}

/* Truncation said as it is (issue 34): a frame-pointer chain whose outermost user frame
 * is not where a stack starts was cut, whatever made the walk stop, even with every
 * frame kept; one that reaches main or a thread's start routine is whole. */
static void chain_short_of_an_entry_point_is_cut(void **state)
{
	struct fixture *f = *state;
	const uint64_t to_lib[] = {PROG_START + 0x10, LIB_START + 0x30};
	const uint64_t to_helper[] = {PROG_START + 0x10, HELPER};
	const uint64_t to_thread[] = {PROG_START + 0x10, THREAD_START};
	const uint64_t kernel_only[] = {0xffffffff81000000u};

	assert_int_equal(add(f, to_lib, 2, 0, 127, NULL), 0);
	assert_int_equal(add(f, to_helper, 2, 0, 127, NULL), 0);
	assert_int_equal(add(f, to_thread, 2, 0, 127, NULL), 0);
	assert_int_equal(add(f, kernel_only, 1, 1, 127, NULL), 0);
	assert_int_equal(pmc_profile_stack_count(f->p), 4);
	/* An unnamed root, and a named one that is no entry point: cut. */
	assert_true(pmc_profile_stack(f->p, 0)->truncated);
	assert_true(pmc_profile_stack(f->p, 1)->truncated);
	assert_string_equal(pmc_profile_frame(f->p, pmc_profile_stack(f->p, 1)->frames[0])->symbol,
			    "helper");
	/* A thread's start routine: whole. */
	assert_false(pmc_profile_stack(f->p, 2)->truncated);
	/* No user frame at all (a sample in the kernel): whole. */
	assert_false(pmc_profile_stack(f->p, 3)->truncated);
	assert_int_equal(pmc_profile_truncated(f->p), 2000);
}

/* A sample in the hypervisor or a guest (the kernel dropped no frame of the task for it)
 * is one frame that says so, never an address resolved against the task's maps. */
static void hypervisor_or_guest_sample_says_so(void **state)
{
	struct fixture *f = *state;
	struct pmc_record r = {.type = PMC_RECORD_SAMPLE, .pid = PID, .tid = PID};
	const struct pmc_profile_stack *s;
	const struct pmc_profile_frame *fr;
	uint64_t unresolved = 0;

	r.sample.ip = PROG_START + 0x10; /* in the task's mapping, yet not the task's */
	r.sample.period = 1000;
	r.sample.foreign = true;
	assert_int_equal(pmc_profile_add_sample(f->p, f->m, &r, 127, &unresolved), 0);
	s = only_stack(f);
	assert_int_equal(s->depth, 1);
	fr = pmc_profile_frame(f->p, s->frames[0]);
	assert_string_equal(fr->object, "[hypervisor or guest]");
	assert_int_equal(fr->offset, 0);
	assert_int_equal(unresolved, 0);
}

/* A walk through a linked list: rbp held a node, whose next pointer and key the kernel
 * read as the next frame and a return address. The chain stops before the first address
 * outside every mapping, even when later ones look real, and is marked cut. */
static void chain_into_data_is_cut_and_marked(void **state)
{
	struct fixture *f = *state;
	const uint64_t ips[] = {PROG_START + 0x10, PROG_START + 0x120, 0x5e3779b97f4a7c15u,
				PROG_START + 0x200, 0x12345678u};
	const struct pmc_profile_stack *s;
	uint64_t unresolved = 0;

	assert_int_equal(add(f, ips, 5, 0, 127, &unresolved), 0);
	s = only_stack(f);
	assert_int_equal(s->depth, 2);
	assert_true(s->truncated);
	assert_frame(f, s->frames[0], "/nonexistent/prog", PROG_PGOFF + 0x11f);
	assert_frame(f, s->frames[1], "/nonexistent/prog", PROG_PGOFF + 0x10);
	/* Cut frames are not counted as unresolved: they are not in the profile. */
	assert_int_equal(unresolved, 2);
	assert_int_equal(pmc_profile_frame_count(f->p), 2);
}

/* The failure: a "return address" beyond 2^63 became a frame whose offset no
 * JSON reader reads back, and the profile could not be saved. Now it is cut; a return
 * address of 0 ends the chain (the outermost frame's), which is whole; the profile saves
 * and loads. */
static void offset_beyond_2_63_never_reaches_the_file(void **state)
{
	struct fixture *f = *state;
	const uint64_t big[] = {PROG_START + 0x10, 0x8000000000000010u, PROG_START + 0x120};
	const uint64_t zero[] = {MAIN + 0x20, 0};
	char path[] = "/tmp/pmc-test-record-XXXXXX", err[512] = "";
	struct pmc_profile *back = NULL;
	int fd;

	assert_int_equal(add(f, big, 3, 0, 127, NULL), 0);
	assert_int_equal(add(f, zero, 2, 0, 127, NULL), 0);
	assert_int_equal(pmc_profile_stack_count(f->p), 2);
	for (size_t i = 0; i < 2; i++)
		assert_int_equal(pmc_profile_stack(f->p, i)->depth, 1);
	/* The 0 ends a chain whose outermost frame (the leaf, in main) is an entry. */
	assert_true(pmc_profile_stack(f->p, 0)->truncated);
	assert_false(pmc_profile_stack(f->p, 1)->truncated);
	for (uint32_t i = 0; i < pmc_profile_frame_count(f->p); i++)
		assert_true(pmc_profile_frame(f->p, i)->offset <= PMC_PROFILE_OFFSET_MAX);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	if (pmc_profile_save(f->p, path, err, sizeof(err)) != 0)
		print_error("%s\n", err);
	assert_int_equal(pmc_profile_load(path, &back, err, sizeof(err)), 0);
	assert_int_equal(pmc_profile_stack_count(back), 2);
	pmc_profile_free(back);
	unlink(path);
}

/* The leaf is where the task was, whatever the address: kept, as the bare "[unknown]"
 * object when its offset could not be written; so is the user address where a sample
 * in the kernel entered it, which is no return address either. */
static void leaf_is_kept_whatever_its_address(void **state)
{
	struct fixture *f = *state;
	const uint64_t leaf[] = {0xffff800000001234u};
	const uint64_t entry[] = {0xffffffff81000000u, 0xffffffff81000100u, 0x1000u,
				  PROG_START + 0x120, MAIN};
	const struct pmc_profile_stack *s;

	assert_int_equal(add(f, leaf, 1, 0, 127, NULL), 0);
	s = only_stack(f);
	assert_int_equal(s->depth, 1);
	assert_frame(f, s->frames[0], "[unknown]", 0);

	assert_int_equal(add(f, entry, 5, 2, 127, NULL), 0);
	assert_int_equal(pmc_profile_stack_count(f->p), 2);
	s = pmc_profile_stack(f->p, 1);
	/* main, prog's caller, the unmapped user address (as it is: not a return address),
	 * one [kernel] frame for the two kernel ones. */
	assert_int_equal(s->depth, 4);
	assert_false(s->truncated);
	assert_frame(f, s->frames[1], "/nonexistent/prog", PROG_PGOFF + 0x11f);
	assert_frame(f, s->frames[2], "[unknown]", 0x1000);
	assert_string_equal(pmc_profile_frame(f->p, s->frames[3])->object, "[kernel]");
}

/* The kernel stops at max_stack addresses, its own included: such a chain was cut even
 * when every frame is real (a deep recursion). */
static void chain_at_the_depth_limit_is_marked(void **state)
{
	struct fixture *f = *state;
	uint64_t ips[8];
	uint64_t unresolved = 0;

	for (size_t i = 0; i < ARRAY_SIZE(ips); i++)
		ips[i] = PROG_START + 0x100 + 0x10 * i;
	/* Below the limit and up to main: whole. At the limit the kernel stopped wherever
	 * it was: cut. */
	ips[6] = MAIN;
	assert_int_equal(add(f, ips, 7, 0, 8, &unresolved), 0);
	assert_false(pmc_profile_stack(f->p, 0)->truncated);
	ips[6] = PROG_START + 0x160;
	assert_int_equal(add(f, ips, 8, 0, 8, &unresolved), 0);
	assert_true(pmc_profile_stack(f->p, 1)->truncated);
	assert_int_equal(pmc_profile_stack(f->p, 1)->depth, 8);
	/* Two kernel frames and six user ones: eight addresses, the limit. */
	ips[0] = 0xffffffff81000000u;
	ips[1] = 0xffffffff81000100u;
	assert_int_equal(add(f, ips, 8, 2, 8, &unresolved), 0);
	assert_true(pmc_profile_stack(f->p, 2)->truncated);
	assert_int_equal(pmc_profile_stack(f->p, 2)->depth, 7);
	/* 0: no limit known; up to main, whole. */
	ips[7] = MAIN;
	assert_int_equal(add(f, ips + 2, 6, 0, 0, &unresolved), 0);
	assert_false(pmc_profile_stack(f->p, 3)->truncated);
}

/* Where the kernel shows its symbols each kernel frame is its function (return addresses
 * one byte earlier, as user ones); where it hides them, the kernel's part is one
 * [kernel] frame, and the maps say why once. */
static void kernel_frames_are_named_where_kallsyms_is_readable(void **state)
{
	struct fixture *f = *state;
	char path[] = "/tmp/pmc-test-kallsyms-XXXXXX";
	const uint64_t ips[] = {0xffffffff81000010u, 0xffffffff81000100u, PROG_START + 0x10};
	const struct pmc_profile_stack *s;
	size_t n0;
	FILE *out;
	int fd;

	fd = mkstemp(path);
	assert_true(fd >= 0);
	out = fdopen(fd, "w");
	assert_non_null(out);
	fputs("ffffffff81000000 T _text\nffffffff81000000 T do_work\n"
	      "ffffffff81000050 d some_data\nffffffff81000100 t helper\n"
	      "ffffffff81000200 T last_fn\n",
	      out);
	fclose(out);
	assert_int_equal(pmc_maps_set_kallsyms(f->m, path), 0);
	assert_int_equal(add(f, ips, 3, 2, 127, NULL), 0);
	s = only_stack(f);
	assert_int_equal(s->depth, 3);
	assert_string_equal(pmc_profile_frame(f->p, s->frames[1])->symbol, "do_work");
	assert_string_equal(pmc_profile_frame(f->p, s->frames[2])->symbol, "do_work");
	assert_string_equal(pmc_profile_frame(f->p, s->frames[1])->object, "[kernel]");
	/* The problems so far: prog has no file. */
	n0 = pmc_maps_problem_count(f->m);
	for (size_t i = 0; i < n0; i++)
		assert_null(strstr(pmc_maps_problem(f->m, i), "kernel"));

	/* Every address 0: hidden (kptr_restrict). */
	out = fopen(path, "w");
	assert_non_null(out);
	fputs("0000000000000000 T _text\n0000000000000000 t helper\n", out);
	fclose(out);
	assert_int_equal(pmc_maps_set_kallsyms(f->m, path), 0);
	assert_int_equal(add(f, ips, 3, 2, 127, NULL), 0);
	assert_int_equal(add(f, ips, 3, 2, 127, NULL), 0);
	assert_int_equal(pmc_profile_stack_count(f->p), 2);
	s = pmc_profile_stack(f->p, 1);
	assert_int_equal(s->depth, 2);
	assert_int_equal(s->samples, 2);
	assert_null(pmc_profile_frame(f->p, s->frames[1])->symbol);
	assert_string_equal(pmc_profile_frame(f->p, s->frames[1])->object, "[kernel]");
	assert_int_equal(pmc_maps_problem_count(f->m), n0 + 1);
	assert_non_null(strstr(pmc_maps_problem(f->m, n0), "kptr_restrict"));
	unlink(path);
}

static void refuses_what_is_not_a_sample(void **state)
{
	struct fixture *f = *state;
	struct pmc_record r = {.type = PMC_RECORD_MMAP, .pid = PID};
	const uint64_t ips[] = {PROG_START};

	assert_int_equal(pmc_profile_add_sample(f->p, f->m, &r, 127, NULL), -EINVAL);
	r.type = PMC_RECORD_SAMPLE;
	r.sample.ips = ips;
	r.sample.nips = 1;
	r.sample.nkernel = 2;
	assert_int_equal(pmc_profile_add_sample(f->p, f->m, &r, 127, NULL), -EINVAL);
	assert_int_equal(pmc_profile_stack_count(f->p), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(whole_chain_is_kept, setup, teardown),
	    cmocka_unit_test_setup_teardown(chain_short_of_an_entry_point_is_cut, setup, teardown),
	    cmocka_unit_test_setup_teardown(hypervisor_or_guest_sample_says_so, setup, teardown),
	    cmocka_unit_test_setup_teardown(chain_into_data_is_cut_and_marked, setup, teardown),
	    cmocka_unit_test_setup_teardown(offset_beyond_2_63_never_reaches_the_file, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(leaf_is_kept_whatever_its_address, setup, teardown),
	    cmocka_unit_test_setup_teardown(chain_at_the_depth_limit_is_marked, setup, teardown),
	    cmocka_unit_test_setup_teardown(kernel_frames_are_named_where_kallsyms_is_readable,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(refuses_what_is_not_a_sample, setup, teardown),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

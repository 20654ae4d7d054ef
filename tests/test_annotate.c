/* Instruction-level annotation (harness/4-profile/annotate.h, harness/1-elf/disasm.h,
 * reporters/profile_annotate.h): samples go to the instruction whose bytes hold their
 * address, the rest is counted outside; known bytes disassemble to known instructions on
 * both machines; the report's shares add up to the whole, the hottest lines are marked
 * and a narrow terminal cuts the instruction's text. */
#include <errno.h>
#include <gelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "elf/disasm.h"
#include "profile/annotate.h"
#include "profile/profile.h"
#include "reporters/profile_annotate.h"

/* Three instructions: 0x100 (3 bytes), 0x103 (5), 0x108 (2). */
static void three_insns(struct pmc_annotation_insn in[3])
{
	memset(in, 0, 3 * sizeof(*in));
	in[0] = (struct pmc_annotation_insn){.address = 0x100, .size = 3};
	in[1] = (struct pmc_annotation_insn){.address = 0x103, .size = 5};
	in[2] = (struct pmc_annotation_insn){.address = 0x108, .size = 2};
}

static void samples_go_to_the_instruction_holding_them(void **state)
{
	struct pmc_annotation_insn in[3];
	const struct pmc_annotate_sample s[] = {
	    {0x100, 10, 1}, {0x104, 5, 1}, /* inside the second: its own */
	    {0x103, 7, 2},  {0x109, 3, 1}, /* the third's last byte */
	    {0x10a, 20, 4},		   /* just past the end */
	    {0xff, 1, 1},		   /* just before the start */
	};
	uint64_t out = 99, out_samples = 99;

	(void)state;
	three_insns(in);
	assert_int_equal(
	    pmc_annotate_attribute(in, 3, s, sizeof(s) / sizeof(s[0]), &out, &out_samples), 0);
	assert_int_equal(in[0].weight, 10);
	assert_int_equal(in[0].samples, 1);
	assert_int_equal(in[1].weight, 12);
	assert_int_equal(in[1].samples, 3);
	assert_int_equal(in[2].weight, 3);
	assert_int_equal(in[2].samples, 1);
	assert_int_equal(out, 21);
	assert_int_equal(out_samples, 5);
	/* No instruction at all: everything outside. */
	assert_int_equal(pmc_annotate_attribute(in, 0, s, 2, &out, &out_samples), 0);
	assert_int_equal(out, 15);
	assert_int_equal(out_samples, 2);
}

static void a_wrapping_sum_is_refused(void **state)
{
	struct pmc_annotation_insn in[3];
	const struct pmc_annotate_sample s[] = {{0x100, UINT64_MAX, 1}, {0x101, 1, 1}};
	uint64_t out, out_samples;

	(void)state;
	three_insns(in);
	assert_int_equal(pmc_annotate_attribute(in, 3, s, 2, &out, &out_samples), -EOVERFLOW);
}

static void known_bytes_disassemble(void **state)
{
	/* movq %rdi, %rax; one byte that is no instruction (0x06 in 64-bit mode); retq */
	static const uint8_t x86[] = {0x48, 0x89, 0xf8, 0x06, 0xc3};
	/* ret, little-endian */
	static const uint8_t arm[] = {0xc0, 0x03, 0x5f, 0xd6};
	struct pmc_insn *in = NULL;
	size_t n = 0;

	(void)state;
	if (!pmc_disasm_available()) {
		/* Not built with Capstone, or its library cannot be loaded: either says why. */
		assert_non_null(pmc_disasm_error());
		assert_int_equal(pmc_disasm(EM_X86_64, x86, sizeof(x86), 0x1000, &in, &n), -ENOSYS);
		skip();
	}
	/* Loaded at the first call (dlopen), not linked. */
	assert_true(pmc_disasm_built());
	assert_null(pmc_disasm_error());
	assert_int_equal(pmc_disasm(EM_X86_64, x86, sizeof(x86), 0x1000, &in, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(in[0].address, 0x1000);
	assert_int_equal(in[0].size, 3);
	assert_string_equal(in[0].text, "movq %rdi, %rax");
	assert_int_equal(in[1].address, 0x1003);
	assert_int_equal(in[1].size, 1);
	assert_string_equal(in[1].text, ".byte 0x06");
	assert_int_equal(in[2].address, 0x1004);
	assert_string_equal(in[2].text, "retq");
	free(in);
	assert_int_equal(pmc_disasm(EM_AARCH64, arm, sizeof(arm), 0x400, &in, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(in[0].size, 4);
	assert_string_equal(in[0].text, "ret");
	free(in);
	assert_int_equal(pmc_disasm(EM_RISCV, arm, sizeof(arm), 0, &in, &n), -EPROTONOSUPPORT);
}

/* The report of a in p at width columns, in a new string. */
static char *report(const struct pmc_profile *p, const struct pmc_annotation *a, unsigned width)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	assert_int_equal(pmc_profile_report_annotate(out, p, a, width), 0);
	assert_int_equal(fclose(out), 0);
	return text;
}

/* Whether text has the row of the instruction at address addr: shares, mark, and the
 * instruction's text padded to text_w, then the source. */
static void assert_row(const char *text, const char *shares, unsigned addr, const char *insn,
		       int text_w, const char *source)
{
	char row[256];

	snprintf(row, sizeof(row), "\n%s %7x  %-*s  %s\n", shares, addr, text_w, insn, source);
	if (!strstr(text, row))
		fail_msg("no row '%s' in:\n%s", row, text);
}

/* A profile of 200 ns: f's self 100 of it, the annotation's instructions 60 + 30 + 10,
 * lines 7 (two instructions: 70) and 8 (30). */
static void report_shares_and_hot_lines(void **state)
{
	struct pmc_profile_info info = {
	    .kind = PMC_PROFILE_SAMPLED, .event = "cpu-clock", .unit = "ns", .freq = 1000};
	struct pmc_annotation_insn in[4] = {
	    {.address = 0x100,
	     .size = 10,
	     .text = "movabsq $0x5851f42d4c957f2d, %r8",
	     .file = "/s/f.c",
	     .line = 6},
	    {.address = 0x10a,
	     .size = 4,
	     .text = "imulq %r8, %rcx",
	     .file = "/s/f.c",
	     .line = 7,
	     .weight = 60,
	     .samples = 6},
	    {.address = 0x10e,
	     .size = 3,
	     .text = "addq %rdi, %rcx",
	     .file = "/s/f.c",
	     .line = 8,
	     .weight = 30,
	     .samples = 3},
	    {.address = 0x111,
	     .size = 2,
	     .text = "jne 0x10a",
	     .file = "/s/f.c",
	     .line = 7,
	     .weight = 10,
	     .samples = 1},
	};
	struct pmc_annotation a = {.function = "f",
				   .object = "/bin/t",
				   .start = 0x100,
				   .size = 19,
				   .insns = in,
				   .n = 4,
				   .self = 100,
				   .weight = 100,
				   .samples = 10};
	struct pmc_profile *p = NULL;
	uint32_t ids[2];
	char *text;

	(void)state;
	assert_int_equal(pmc_profile_new(&info, &p), 0);
	assert_int_equal(pmc_profile_frame_id(p, "main", "/bin/t", 0, &ids[0]), 0);
	assert_int_equal(pmc_profile_frame_id(p, "f", "/bin/t", 0, &ids[1]), 0);
	assert_int_equal(pmc_profile_add(p, ids, 2, 100, 10, false), 0);
	assert_int_equal(pmc_profile_add(p, ids, 1, 100, 10, false), 0);
	text = report(p, &a, 0);
	assert_non_null(strstr(text, "self 50.0% of the profile"));
	assert_non_null(strstr(text, "Hottest source lines (*): f.c:7 70.0%, f.c:8 30.0%\n"));
	assert_row(text, "                 ", 0x100, "movabsq $0x5851f42d4c957f2d, %r8", 32,
		   "f.c:6");
	assert_row(text, "  60.0%   30.0% *", 0x10a, "imulq %r8, %rcx", 32, "f.c:7");
	assert_row(text, "  30.0%   15.0% *", 0x10e, "addq %rdi, %rcx", 32, "f.c:8");
	assert_row(text, "  10.0%   5.00% *", 0x111, "jne 0x10a", 32, "f.c:7");
	assert_non_null(strstr(text, "\n   100%   50.0%   total: 100ns in 10 samples at 3 of 4 "
				     "instructions\n"));
	assert_null(strstr(text, "Not shown"));
	free(text);

	/* 60 columns: the instruction's text gets what the others leave (27 before it, 7
	 * after), cut with "..."; 30 columns: no less than 16. */
	a.outside = 25;
	a.outside_samples = 2;
	text = report(p, &a, 60);
	assert_row(text, "                 ", 0x100, "movabsq $0x5851f42d4c95...", 26, "f.c:6");
	assert_row(text, "  60.0%   30.0% *", 0x10a, "imulq %r8, %rcx", 26, "f.c:7");
	free(text);
	text = report(p, &a, 30);
	assert_row(text, "                 ", 0x100, "movabsq $0x58...", 16, "f.c:6");
	/* The note wrapped to the width. */
	assert_non_null(strstr(text, "\nNot shown: 25ns of its self\n  weight (2 samples) ended"));
	free(text);
	pmc_profile_free(p);
}

/* The top of a regression's explanation: the heaviest instructions first, ties by
 * address, at most top, none without samples; in text and in Markdown. */
static void top_instructions_heaviest_first(void **state)
{
	struct pmc_annotation_insn in[4] = {
	    {.address = 0x100, .size = 3, .text = "movq %rdi, %rax", .file = "/s/f.c", .line = 6},
	    {.address = 0x103,
	     .size = 4,
	     .text = "imulq %r8, %rcx",
	     .file = "/s/f.c",
	     .line = 7,
	     .weight = 30,
	     .samples = 3,
	     .inlined = "chain"},
	    {.address = 0x107,
	     .size = 3,
	     .text = "addq %rdi, %rcx",
	     .file = "/s/f.c",
	     .line = 8,
	     .weight = 60,
	     .samples = 6},
	    {.address = 0x10a,
	     .size = 2,
	     .text = "ret",
	     .file = "/s/f.c",
	     .line = 9,
	     .weight = 30,
	     .samples = 1},
	};
	struct pmc_annotation a = {.function = "f_x",
				   .object = "/bin/t",
				   .start = 0x100,
				   .size = 12,
				   .insns = in,
				   .n = 4,
				   .self = 120,
				   .weight = 120,
				   .samples = 10};
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	(void)state;
	assert_non_null(out);
	assert_int_equal(
	    pmc_profile_report_annotate_top(out, &a, 5, PMC_ANNOTATE_TOP_TEXT, "the new profile"),
	    0);
	assert_int_equal(fclose(out), 0);
	assert_string_equal(text, "  hottest instructions of f_x in the new profile (share of its "
				  "samples):\n"
				  "     50.0%  107  addq %rdi, %rcx  f.c:8\n"
				  "     25.0%  103  imulq %r8, %rcx  f.c:7 (chain)\n"
				  "     25.0%  10a  ret              f.c:9\n");
	free(text);
	text = NULL;
	assert_non_null(out = open_memstream(&text, &len));
	assert_int_equal(pmc_profile_report_annotate_top(out, &a, 1, PMC_ANNOTATE_TOP_MARKDOWN,
							 "the new profile"),
			 0);
	assert_int_equal(fclose(out), 0);
	assert_string_equal(text, "\nHottest instructions of `f_x` in the new profile (share of "
				  "its samples):\n\n"
				  "| share | address | instruction | source line |\n"
				  "|---:|---|---|---|\n"
				  "| 50.0% | `107` | `addq %rdi, %rcx` | f.c:8 |\n");
	free(text);
	/* A flame graph's tooltip: the rows under a line that says what they are. */
	text = NULL;
	assert_non_null(out = open_memstream(&text, &len));
	assert_int_equal(
	    pmc_profile_report_annotate_top(out, &a, 2, PMC_ANNOTATE_TOP_TOOLTIP, NULL), 0);
	assert_int_equal(fclose(out), 0);
	assert_string_equal(text, "hottest instructions (share of its samples):\n"
				  "   50.0%  107  addq %rdi, %rcx  f.c:8\n"
				  "   25.0%  103  imulq %r8, %rcx  f.c:7 (chain)\n");
	free(text);
	/* No samples at any instruction: nothing. */
	for (size_t i = 0; i < 4; i++)
		in[i].weight = 0;
	a.weight = 0;
	text = NULL;
	assert_non_null(out = open_memstream(&text, &len));
	assert_int_equal(pmc_profile_report_annotate_top(out, &a, 3, PMC_ANNOTATE_TOP_TEXT, NULL),
			 0);
	assert_int_equal(fclose(out), 0);
	assert_int_equal(len, 0);
	free(text);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(samples_go_to_the_instruction_holding_them),
	    cmocka_unit_test(a_wrapping_sum_is_refused),
	    cmocka_unit_test(known_bytes_disassemble),
	    cmocka_unit_test(report_shares_and_hot_lines),
	    cmocka_unit_test(top_instructions_heaviest_first),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

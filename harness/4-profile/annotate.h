/* A function's instructions with the samples that ended at each (docs/profile.md,
 * "Instructions", report --annotate): the profile's per-address weights (its line table,
 * profile_lines.h) laid over the function's code, read from its object's ELF file at the
 * symbol's address range and disassembled (harness/1-elf/disasm.h), with each
 * instruction's source line from the object's line table (lines.h). */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct pmc_profile;

/* An instruction's text: room for Capstone's (harness/1-elf/disasm.h, PMC_INSN_TEXT). */
#define PMC_ANNOTATE_TEXT 200

struct pmc_annotation_insn {
	uint64_t address;
	uint8_t size;		      /* bytes */
	char text[PMC_ANNOTATE_TEXT]; /* "mnemonic operands" */
	uint64_t weight, samples;     /* of the samples that ended at it */
	char *file;		      /* its source file; NULL: no line table covers it */
	uint32_t line;
	char *inlined; /* the innermost function inlined there, NULL: none */
};

struct pmc_annotation {
	char *function; /* the display name asked for */
	char *object;	/* the object's path */
	uint64_t start, size;
	uint16_t machine; /* ELF e_machine */
	struct pmc_annotation_insn *insns;
	size_t n;
	uint64_t self;		  /* the function's self weight in the profile */
	uint64_t weight, samples; /* the part of it at its instructions (the shares' whole) */
	/* Its self weight and samples at addresses of no instruction here: a function of
	 * the same name in another object or at another address, or a file changed since
	 * the recording. */
	uint64_t outside, outside_samples;
};

/* A weight at an address, as the line table keeps them. */
struct pmc_annotate_sample {
	uint64_t address, weight, samples;
};

/* Adds each of the m samples to the instruction of insns (n, sorted by address) whose
 * bytes hold its address, and the others to *ret_outside and *ret_outside_samples (both
 * set). Returns 0, or -EOVERFLOW when a sum would wrap. */
int pmc_annotate_attribute(struct pmc_annotation_insn *insns, size_t n,
			   const struct pmc_annotate_sample *s, size_t m, uint64_t *ret_outside,
			   uint64_t *ret_outside_samples);

/* The annotation of the function of p named fn (a display name) into *ret: of the object
 * and symbol where most of its samples ended. Returns 0; -ENODATA when p keeps no
 * addresses (an exact, imported or older profile); -ENOENT when no function of p is
 * named fn (err left as it was) or its object's file is gone (err says so); -ESRCH when no sample
 * ended in it (only a caller); -EMEDIUMTYPE when its code is in no file ("[kernel]", "[vdso]", JIT
 * code); -ESTALE when the file's function at its hottest address is not the one recorded (changed
 * since the recording); -ENOSYS when the build has no disassembler; -EPROTONOSUPPORT for another
 * machine than x86-64 and AArch64; -errno of reading the object, or -ENOEXEC, each with one line in
 * err; -ENOMEM. */
int pmc_profile_annotate(const struct pmc_profile *p, const char *fn, struct pmc_annotation **ret,
			 char *err, size_t errlen);

void pmc_annotation_free(struct pmc_annotation *a);

/* The functions a flame graph's tooltips annotate (docs/profile.md, "Flame graphs"): those
 * whose self weight is at least this share of the profile, in percent, at most this many. */
#define PMC_ANNOTATE_HOT_SHARE 1.0
#define PMC_ANNOTATE_HOT_FUNCTIONS 20

/* The annotations of p's functions whose self weight is at least min_share percent of its
 * total, heaviest first, at most max, into *ret (*ret_n of them; NULL and 0 for none). A
 * function pmc_profile_annotate cannot annotate (its code in no file, the file gone or
 * changed, no disassembler, a profile that keeps no addresses) is left out. Only the
 * instructions with samples have a source line: the one the recording found (the
 * profile's line table), no object's line table being read again. Returns 0 or -ENOMEM. */
int pmc_profile_annotate_hot(const struct pmc_profile *p, double min_share, size_t max,
			     struct pmc_annotation ***ret, size_t *ret_n);
void pmc_annotations_free(struct pmc_annotation **a, size_t n);

/* DWARF call graphs (docs/profile.md, "DWARF call graphs"): the user stack of a sample
 * taken with pmc_sample_opts.stack_user (counters/perf/sample.h), unwound as perf's
 * --call-graph dwarf does, with elfutils' libdwfl through the CFI (.eh_frame, and
 * .debug_frame where there is one) of each object the task had mapped (maps.h). The
 * sample's registers start the walk and every memory read is served from its copy of the
 * stack: what the copy does not hold ends the walk, and no frame is guessed (libdwfl's
 * frame-pointer fallback for code without CFI is never let run).
 *
 *	pmc_unwinder_new(maps, &u);
 *	for each record, in time order: pmc_maps_apply(maps, rec); pmc_unwinder_apply(u, rec);
 *	    a sample: pmc_unwind_sample(u, rec, ips, cap, &n, &end);
 *	pmc_unwinder_free(u);
 *
 * One libdwfl session per process, its objects reported as their addresses are met, and
 * dropped when the process execs or exits. */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct pmc_maps;
struct pmc_record;
struct pmc_unwinder;

/* Why an unwind stopped. */
enum pmc_unwind_end {
	PMC_UNWIND_WHOLE = 0,	/* at the outermost frame: its CFI says it has no caller */
	PMC_UNWIND_NO_REGS,	/* the sample has no user registers (a kernel thread) or
				 * is a 32-bit task's: only its ip is known */
	PMC_UNWIND_STACK_SHORT, /* the walk needed the stack past the copy, which the
				 * copy's size cut: a larger size goes further */
	PMC_UNWIND_NO_CFI,	/* an address in no mapped file, in a file that cannot be read
				 * or was rebuilt since, or without CFI for it */
	PMC_UNWIND_BAD_STACK,	/* the CFI led outside the stack's copy or to no address: a
				 * stack the CFI does not describe (hand-written code) */
	PMC_UNWIND_MAX_DEPTH,	/* cap frames and more */
};

/* Returns 0, -EINVAL or -ENOMEM. The unwinder reads m, which must outlive it. */
int pmc_unwinder_new(struct pmc_maps *m, struct pmc_unwinder **ret);
void pmc_unwinder_free(struct pmc_unwinder *u);

/* Follows the records that replace an address space: a COMM of an exec, a FORK of a
 * process, an EXIT. Call it for each record after pmc_maps_apply(). */
void pmc_unwinder_apply(struct pmc_unwinder *u, const struct pmc_record *rec);

/* Unwinds a sample's user stack into ips, leaf first: the user ip of the sample (where
 * the task was, or where it entered the kernel), then each caller's return address, at
 * most cap of them; *ret_n is the count (0: no user registers), *ret_end why it stopped.
 * Returns 0, -EINVAL (not a sample), -ENOMEM. */
int pmc_unwind_sample(struct pmc_unwinder *u, const struct pmc_record *rec, uint64_t *ips,
		      size_t cap, size_t *ret_n, enum pmc_unwind_end *ret_end);

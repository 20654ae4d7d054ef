/* Off-CPU time (docs/profile.md, "Off-CPU time"): each switch-out of a thread, with the
 * stack where it waits, paired with the next time it runs again, so that the stack weighs
 * the nanoseconds the thread spent off its CPU. The records come in time order (the
 * sampler's flush sorts those of every CPU); a thread that exits, or is still waiting
 * when the recording ends, counts until then.
 *
 *	pmc_offcpu_out(oc, p, tid, t0, frames, depth, task, cut);  switch-out sample
 *	pmc_offcpu_in(oc, p, tid, t1);                             it runs again: t1 - t0
 *	pmc_offcpu_finish(oc, p, end);                             those still waiting
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct pmc_profile;
struct pmc_offcpu;

/* Returns a new, empty pairing, or NULL (errno ENOMEM). */
struct pmc_offcpu *pmc_offcpu_new(void);
void pmc_offcpu_free(struct pmc_offcpu *oc);

/* Thread tid left its CPU at time, waiting in frames (root first, depth >= 1, ids of p)
 * for task (an id of p, or PMC_PROFILE_NO_TASK); truncated: the chain was cut. Kept until
 * the thread runs again. A thread that left again without having been seen running (a
 * lost record) has its first wait counted until this one. Returns 0 or -errno of
 * pmc_profile_add_task (-ENOMEM, -EINVAL, -EOVERFLOW). */
int pmc_offcpu_out(struct pmc_offcpu *oc, struct pmc_profile *p, uint32_t tid, uint64_t time,
		   const uint32_t *frames, uint32_t depth, uint32_t task, bool truncated);

/* Thread tid runs again (a switch-in) or exited at time: its wait, if one is pending, is
 * added to p with weight time minus its switch-out's (0 when the CPUs' clocks put this
 * earlier) and 1 sample. Returns 0, or -errno as pmc_offcpu_out. */
int pmc_offcpu_in(struct pmc_offcpu *oc, struct pmc_profile *p, uint32_t tid, uint64_t time);

/* The recording ended at time end: every wait still pending counts until then. Returns
 * 0, or -errno as pmc_offcpu_out. */
int pmc_offcpu_finish(struct pmc_offcpu *oc, struct pmc_profile *p, uint64_t end);

/* Waits added to the profile so far, and those pending now. */
/* Seam for the tests: the counts that say no wait was lost or counted twice, which the
 * profile alone does not show. */
uint64_t pmc_offcpu_waits(const struct pmc_offcpu *oc);
uint64_t pmc_offcpu_pending(const struct pmc_offcpu *oc);

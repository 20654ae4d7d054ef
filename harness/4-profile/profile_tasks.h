/* A profile's views by task (docs/profile.md, "Tasks"): its stacks grouped by thread
 * name, process or thread, as `perf report --sort comm`, `pid` and `tid` group them, each
 * group with its weight and its stacks as a profile of their own, so that every view by
 * function (pmc_profile_functions, the report's table) reads a group as it reads a
 * profile. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

enum pmc_profile_by {
	PMC_PROFILE_BY_COMM = 0, /* thread name: threads of one name together */
	PMC_PROFILE_BY_PID,	 /* process */
	PMC_PROFILE_BY_TID,	 /* thread */
	PMC_PROFILE_BY_OBJECT,	 /* the object (executable, shared object, [kernel]) of the
				  * stack's leaf: where the self weight is, as perf report
				  * --sort dso; needs no tasks */
};

/* "comm", "pid", "tid", "object" (or perf's "dso") to a grouping: 0, or -EINVAL. */
int pmc_profile_by_parse(const char *s, enum pmc_profile_by *ret);

struct pmc_profile_group {
	/* The name: by comm, the thread name; by tid, the thread's names heaviest first
	 * ("live-alpha" or, renamed while sampled, "live-alpha, prog"); by pid, its main
	 * thread's names (a thread's when the main thread is not among the tasks). NULL:
	 * not known, or (kept false) the stacks whose task was not kept. By object, the
	 * object's path or bracketed name. */
	char *name;
	bool kept;
	uint32_t pid, tid; /* by pid or tid (by pid: tid 0) */
	size_t threads;	   /* distinct threads with weight */
	uint64_t weight, samples;
	struct pmc_profile *p; /* the group's stacks, tasks merged; p's information */
};

/* p's stacks grouped by `by`, heaviest first (then by pid, tid, name); groups of weight 0
 * are left out. A profile that keeps no tasks gives one group, not kept. Returns 0,
 * -EINVAL or -ENOMEM. */
int pmc_profile_group_by(const struct pmc_profile *p, enum pmc_profile_by by,
			 struct pmc_profile_group **ret, size_t *ret_n);
void pmc_profile_groups_free(struct pmc_profile_group *g, size_t n);

/* The exact profile of a marked run (counters/backend.h: marks, dump_format), whichever
 * backend made it: a benchmark program's exact mode (harness/5-microbench/exact.c) asks
 * for it here and names no backend's format. The backend says what its dumps' files are
 * (counters/ has no profile model); which reader turns them into a profile, and what its
 * wrapper is asked for so that they hold one, is this layer's (marked.c). */
#pragma once

#include <stddef.h>

struct pmc_backend_ops;
struct pmc_backend_run;
struct pmc_profile;

/* What a marked session of be asks its wrapper for (pmc_backend_opts.wrapper_args) so
 * that each dump also holds an exact profile: NULL-terminated, static; NULL when be's
 * dumps have no file to profile. */
const char *const *pmc_profile_marked_args(const struct pmc_backend_ops *be);

/* The exact profile of dump k of run, a collected run of such a session of be, of the
 * instructions executed, named name (may be NULL), into *ret. Returns 0; -ENOENT when
 * the dump left no file (no message); -EOPNOTSUPP with one line in err when be's dumps
 * have no file to profile; or the reader's -errno with one line in err. */
int pmc_profile_marked(const struct pmc_backend_ops *be, const struct pmc_backend_run *run,
		       size_t k, const char *name, struct pmc_profile **ret, char *err,
		       size_t errlen);

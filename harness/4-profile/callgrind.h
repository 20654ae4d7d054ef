/* Exact profiles from callgrind's output files (docs/profile.md, "Exact profiles"):
 * every function's cost of one event (Ir: instructions), in the call stacks callgrind
 * kept apart (run with --separate-callers=N: each function's cost per chain of up to N
 * callers), so that the costs of all stacks add up to the run's total exactly. */
#pragma once

#include <stddef.h>

struct pmc_profile;

/* The callgrind options that make the output files this parser turns into stacks; for
 * pmc_valgrind_opts.extra_args. NULL-terminated, static. */
const char *const *pmc_callgrind_profile_args(void);

/* Reads the callgrind output files (one per process or dump; their costs add up) and
 * builds an exact profile of event ("Ir", or another event of their "events:" line).
 * name is the benchmark's (may be NULL). Returns 0; -EINVAL with one line in err naming
 * the file and the line for an output it cannot read; -errno when a file cannot be
 * opened; -ENOENT when event is not in the files. */
int pmc_callgrind_profile(const char *const *files, size_t n, const char *event, const char *name,
			  struct pmc_profile **ret, char *err, size_t errlen);

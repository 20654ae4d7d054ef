/* What every part of the pmcbench API shares: the export macro, the version, and the
 * rules for options structs and errors (docs/api.md, "Conventions"). Plain C11. */
#ifndef PMCBENCH_COMMON_H
#define PMCBENCH_COMMON_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the functions libpmcbench exports; everything else is built hidden. */
#if defined(__GNUC__) && __GNUC__ >= 4
#define PMC_API __attribute__((visibility("default")))
#else
#define PMC_API
#endif

#define PMCBENCH_VERSION_MAJOR 0
#define PMCBENCH_VERSION_MINOR 1
#define PMCBENCH_VERSION_PATCH 0

/* Result files this version writes and reads (docs/result-schema.md). */
#define PMCBENCH_RESULT_SCHEMA "pmcbench-result/1"

/* The library's version as "MAJOR.MINOR.PATCH"; may differ from the header's when a
 * program runs against a newer shared library. */
PMC_API const char *pmc_version(void);

/* Errors: every function that can fail returns 0 on success and a negative errno on
 * failure, and hands its results out through ret_ pointers, which it leaves untouched
 * on failure. Where a failure deserves words, the function also takes a message buffer
 * as its last two parameters (char *err, size_t errlen; NULL and 0 are allowed) and
 * writes one line into it naming the input, the place and the fix. Destructors accept
 * NULL. The library never prints, never exits and keeps no process-wide state.
 *
 * Options: every options struct begins with `size_t sz`, which the caller sets to
 * sizeof the struct it was compiled with, so that the struct can grow without breaking
 * programs built against an older header. PMC_OPTS declares one with its size set and
 * the given fields; a NULL options pointer means every default:
 *
 *	PMC_OPTS(pmc_compare_opts, o, .alpha = 0.01);
 *	pmc_compare(old, new, &o, &cmp, err, sizeof(err));
 *
 * A newer program's options passed to an older library are accepted only when every
 * field the library does not know is zero; otherwise the call fails with -EINVAL. */
#define PMC_OPTS(TYPE, NAME, ...)                                                                  \
	struct TYPE NAME = {.sz = sizeof(struct TYPE), __VA_ARGS__}

#ifdef __cplusplus
}
#endif

#endif /* PMCBENCH_COMMON_H */

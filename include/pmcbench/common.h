/* What every part of the pmcbench API shares: the export macro, the version, and the
 * rules for options structs and errors (docs/api.md, "Conventions"). Plain C11. */
#ifndef PMCBENCH_COMMON_H
#define PMCBENCH_COMMON_H

#include <stddef.h>
#include <string.h>

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
 * programs built against an older header, and is followed by a line naming its last
 * field, `#define <struct name>__last_field <field>`, which a new field at the end
 * updates. PMC_OPTS declares one, zero-filled, with its size set and the given fields;
 * a NULL options pointer means every default, a zero field its default:
 *
 *	PMC_OPTS(pmc_compare_opts, o, .alpha = 0.01);
 *	pmc_compare(old, new, &o, &cmp, err, sizeof(err));
 *
 * A library given a smaller struct (an older program's) uses the defaults of the fields
 * beyond it. It accepts a larger one (a newer program's) only when every byte past the
 * last field it knows is zero, padding included, and fails with -EINVAL otherwise: a
 * field it cannot honour is never ignored silently. */

/* The end of TYPE's last field: where a newer field, or the struct's tail padding,
 * begins. */
#define PMC_OPTS_END(TYPE)                                                                         \
	(offsetof(struct TYPE, TYPE##__last_field) + sizeof(((struct TYPE *)0)->TYPE##__last_field))

/* Zeroes the bytes of *PTR, a struct TYPE, past its last field: its tail padding, which
 * a later version may turn into fields and which an initializer need not zero (clang -O0
 * leaves the stack's bytes there). For an options struct set up without PMC_OPTS: one
 * inside another struct, or returned by a function. */
#define PMC_OPTS_ZERO_TAIL(TYPE, PTR)                                                              \
	memset((char *)(PTR) + PMC_OPTS_END(TYPE), 0, sizeof(struct TYPE) - PMC_OPTS_END(TYPE))

/* Declares NAME of type struct TYPE with every byte zero but sz and the fields given:
 * zeroed, then assigned, then its tail zeroed again, since copying the compound literal
 * may bring the literal's padding with it. A statement sequence rather than one
 * initializer, since plain C11 has no statement expression. */
#define PMC_OPTS(TYPE, NAME, ...)                                                                  \
	struct TYPE NAME;                                                                          \
	memset(&NAME, 0, sizeof(struct TYPE));                                                     \
	NAME = (struct TYPE){.sz = sizeof(struct TYPE), __VA_ARGS__};                              \
	PMC_OPTS_ZERO_TAIL(TYPE, &NAME)

/* The unit a benchmark's times are shown in (Google Benchmark's ->Unit): the result keeps
 * them in ns whatever it is; PMC_TIME_AUTO shows each figure in its own. */
enum pmc_time_unit {
	PMC_TIME_AUTO = 0,
	PMC_TIME_NS,
	PMC_TIME_US,
	PMC_TIME_MS,
	PMC_TIME_S,
};

#ifdef __cplusplus
}
#endif

#endif /* PMCBENCH_COMMON_H */

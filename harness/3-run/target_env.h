/* The environment a measured command runs in (docs/valgrind.md, "The target's
 * environment"). By default a small, normalized one, so that exact counts do not depend
 * on which variables the caller happens to have: the kernel copies the environment onto
 * the new program's stack, so its size moves the stack and everything the program does
 * with addresses on it, and the C library scans it at start-up. */
#pragma once

#include <stdbool.h>

/* The names passed from the caller's environment by default, when it has them. */
#define PMC_TARGET_ENV_KEPT "HOME", "PATH", "TMPDIR"
/* Set whatever the caller's locale, unless LC_ALL itself is kept: the locale changes what
 * the C library does (collation, number formats, the locale files it loads). */
#define PMC_TARGET_ENV_FIXED "LC_ALL=C"

/* Builds the target's environment from env (the caller's "NAME=value" strings,
 * NULL-terminated). With inherit: all of env, as it is. Otherwise: the variables named in
 * PMC_TARGET_ENV_KEPT and in keep (NULL-terminated, may be NULL) that env has, with the
 * caller's values (the first of a name given twice, as getenv takes), plus
 * PMC_TARGET_ENV_FIXED for a name not among them; sorted by name, so the caller's order
 * does not matter. *ret_envp is one malloc'ed block (pointers, then text) for free().
 * *ret_desc (malloc'ed) describes it for the result's fingerprint, names and sizes but
 * never values: "normalized: HOME, LC_ALL=C, PATH; 3 variables, 187 bytes" or
 * "inherited: 31 variables, 2873 bytes". Returns 0; -EINVAL for a name in keep that is
 * empty or holds '='; -ENOMEM. Outputs are untouched on failure. */
int pmc_target_env_build(char *const *env, bool inherit, const char *const *keep, char ***ret_envp,
			 char **ret_desc);

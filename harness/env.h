/* The environment fingerprint stored with every result, and the build-id of the
 * measured executable (read with libelf). */
#pragma once

#include <stddef.h>

struct pmc_result;

/* Fills r's environment: kernel, cpu-model, pmus, perf_event_paranoid, nmi-watchdog,
 * governor, smt, aslr, hypervisor, cpus, hostname. Keys that cannot be read are left
 * out. Returns 0 or -ENOMEM. */
int pmc_env_collect(struct pmc_result *r);

/* The GNU build-id of the ELF file at path as lower-case hex (malloc'd), or NULL with
 * errno set (ENOENT, ENOEXEC when not ELF, ENODATA when it has no build-id). */
char *pmc_build_id(const char *path);

/* Resolves a command name the way execvp would (PATH search unless it has a '/').
 * Returns the malloc'd path of an executable file, or NULL with errno set: ENOENT
 * (not found) or EACCES (found but not executable). */
char *pmc_find_executable(const char *name);

/* The environment fingerprint stored with every result. */
#pragma once

#include <stddef.h>

#include "counters/valgrind/valgrind.h"

struct pmc_result;

/* Fills r's environment: kernel, cpu-model, pmus, perf_event_paranoid, nmi-watchdog,
 * governor, smt, aslr, hypervisor, cpus, hostname. Keys that cannot be read are left
 * out. Returns 0 or -ENOMEM. */
int pmc_env_collect(struct pmc_result *r);

/* Records which valgrind counted (keys "valgrind-tool": callgrind or cachegrind, and
 * "valgrind-version": `valgrind --version`, when it answers): counts differ between the
 * tools and between valgrind releases. valgrind is its absolute path. Returns 0 or
 * -ENOMEM; a valgrind that does not tell its version is left out, not an error. */
int pmc_env_valgrind(struct pmc_result *r, const char *valgrind, enum pmc_valgrind_tool tool);

/* Records which compiler built the measured binaries (key "compiler"): the strings of
 * each one's ELF .comment section ("GCC: (Debian 12.2.0-14) 12.2.0"; a clang binary also
 * names the GCC that built the C library's start files), each once, "; " between them,
 * in the order of paths[0..n). A path that is NULL, not ELF or without the section
 * adds nothing, and with none the key is left out: never guessed. Returns 0 or -ENOMEM. */
int pmc_env_compiler(struct pmc_result *r, const char *const *paths, size_t n);

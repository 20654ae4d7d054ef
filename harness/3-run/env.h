/* The environment fingerprint stored with every result. */
#pragma once

#include <stddef.h>

struct pmc_backend_ops;
struct pmc_backend_opts;
struct pmc_result;

/* Fills r's environment: kernel, cpu-model, pmus, perf_event_paranoid, nmi-watchdog,
 * governor, smt, aslr, hypervisor, cpus, hostname. Keys that cannot be read are left
 * out. Returns 0 or -ENOMEM. */
int pmc_env_collect(struct pmc_result *r);

/* Records what the backend be tells of itself under session options o
 * (pmc_backend_ops.env: valgrind's "valgrind-tool" and "valgrind-version"), its version
 * from program (find's path; NULL: none recorded): counts differ between these. Returns
 * 0 or -ENOMEM; a program that does not tell its version is left out, not an error. */
int pmc_env_backend(struct pmc_result *r, const struct pmc_backend_ops *be,
		    const struct pmc_backend_opts *o, const char *program);

/* Records which compiler built the measured binaries (key "compiler"): the strings of
 * each one's ELF .comment section ("GCC: (Debian 12.2.0-14) 12.2.0"; a clang binary also
 * names the GCC that built the C library's start files), each once, "; " between them,
 * in the order of paths[0..n). A path that is NULL, not ELF or without the section
 * adds nothing, and with none the key is left out: never guessed. Returns 0 or -ENOMEM. */
int pmc_env_compiler(struct pmc_result *r, const char *const *paths, size_t n);

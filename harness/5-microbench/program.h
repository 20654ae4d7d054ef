/* Another build of a benchmark program (`./new --against ./old`, docs/microbench.md,
 * "Comparing two builds"): an executable this program cannot load (glibc does not
 * dlopen one), so it is asked for its benchmarks' names and started, as this program's
 * own processes are, with the child protocol (PMC_MB_PROTOCOL). */
#pragma once

#include <stddef.h>

struct pmc_mb_set;

/* How long another program may take to list its benchmarks: it only expands its
 * definitions, so only a program that is no benchmark program at all (one that waits for
 * input, say) reaches it. */
#define PMC_MB_PROGRAM_LIST_TIMEOUT 60.0

/* Runs path with "--process-list" (and "--filter FILTER" when filter is not NULL), which a
 * benchmark program answers with its protocol line (pmc_mb_protocol) and then its
 * benchmarks' names, one per line, and sets *ret_names (each malloc'ed, as the array) and
 * *ret_n. Returns 0; -EPROTO when path is no benchmark program of this protocol (it
 * failed, or answered another line: a program linked with another libpmcbench), or what
 * pmc_spawn_run returns (-ENOENT, -EACCES, -ENOEXEC...), each with one line in err
 * naming path. */
int pmc_mb_program_list(const char *path, const char *filter, char ***ret_names, size_t *ret_n,
			char *err, size_t errlen);
void pmc_mb_program_names_free(char **names, size_t n);

/* What pmc_mb_program_list makes of the program's output out (NUL-terminated, changed in
 * place): the protocol line, then the names into *ret_names and *ret_n. Returns 0,
 * -EPROTO with one line in err naming path when the first line is not this protocol's,
 * -ENOMEM. */
int pmc_mb_program_parse_list(const char *path, char *out, char ***ret_names, size_t *ret_n,
			      char *err, size_t errlen);

/* The benchmarks of another build, known by their names alone, into *ret: each that like
 * (this program's set, unlabelled) has too is described by like's benchmark (its
 * definition: arguments' names, threads, complexity), the others by their name only (no
 * definition: neither parameters nor a complexity fit). Returns 0 or -ENOMEM. Free with
 * pmc_mb_set_free. */
int pmc_mb_set_of_names(const struct pmc_mb_set *like, char *const *names, size_t n,
			struct pmc_mb_set *ret);

/* Benchmarks that live in a shared object without a main (`pmcbench run --library`,
 * docs/microbench.md, "Benchmarks in a shared object"): the object's "pmc_bench" section,
 * found with libelf, then the object loaded and the section located in memory. */
#pragma once

#include <stddef.h>

#include "pmcbench/microbench.h"

struct pmc_mb_library {
	void *handle; /* dlopen's */
	const struct pmc_bench_def *begin, *end;
};

/* Reads path's PMC_BENCH_SECTION with libelf, dlopens path (RTLD_NOW | RTLD_LOCAL: the
 * symbols it needs, pmc_loop_edge and the rest of the API, must resolve now, from the
 * program that loads it) and sets ret->begin/end to the section's loaded address range:
 * the link map's l_addr plus the section's sh_addr. Returns 0, -ENOEXEC (not ELF, not a
 * shared object, an unreadable section), -ENOENT (no benchmarks), -ELIBBAD (dlopen failed:
 * its dlerror() text in err) or another -errno, each with one line in err. Close with
 * pmc_mb_library_close. */
int pmc_mb_library_open(const char *path, struct pmc_mb_library *ret, char *err, size_t errlen);
void pmc_mb_library_close(struct pmc_mb_library *l);

/* Sections of ELF shared objects (libelf): where `pmcbench run --library` finds the
 * benchmarks a shared object registered (docs/microbench.md, "Benchmarks in a shared
 * object"). */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct pmc_elf_section {
	uint64_t addr;	  /* sh_addr: the section's address relative to the load base */
	uint64_t size;	  /* bytes */
	uint64_t entsize; /* the first entry's leading size_t (struct pmc_bench_def.sz) */
};

/* Finds the section called name in the ELF shared object at path and sets *ret. Returns
 * 0, -ENOEXEC when the file is not ELF or not a shared object (ET_DYN), -ENOENT when it
 * has no such section or the section is empty, -errno of open, or -ENOSYS when libelf
 * is unusable; each with one line in err. */
int pmc_elf_find_section(const char *path, const char *name, struct pmc_elf_section *ret, char *err,
			 size_t errlen);

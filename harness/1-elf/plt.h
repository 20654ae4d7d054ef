/* The PLT stubs of an ELF file as symbols, named as perf and objdump name them
 * ("memcpy@plt"), for the symbol reader of this layer (symbols.c). */
#pragma once

#include <gelf.h>
#include <libelf.h>
#include <stdint.h>

/* Called for each stub: its ELF virtual address, its size and its name ("memcpy@plt").
 * Returns 0 or -ENOMEM (which stops the walk). */
typedef int (*pmc_plt_add_fn)(void *ud, uint64_t addr, uint64_t size, const char *name);

/* Walks the stubs of elf: one per relocation of .rela.plt (.rel.plt), in its order, at
 * x86-64's .plt.sec (IBT: no header) or after .plt's header, or after arm64's 32-byte
 * header; the relocation's symbol (in the table its sh_link names) gives the name. A file
 * of another machine, or without such sections, has none. Returns 0 or -ENOMEM. */
int pmc_plt_symbols(Elf *elf, const GElf_Ehdr *eh, pmc_plt_add_fn add, void *ud);

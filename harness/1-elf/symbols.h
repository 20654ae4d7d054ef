/* Function symbols of ELF files through libelf (docs/profile.md, "Symbols"): the
 * .symtab and .dynsym of an executable or shared object, with the program headers that
 * turn a file offset (what an MMAP2 record gives) into the ELF virtual address the
 * symbols use, so that PIE and ASLR need no guess. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pmc_symtab;

/* Loads the function symbols (STT_FUNC, STT_GNU_IFUNC; sized or up to the next symbol;
 * STT_NOTYPE ones in an executable section, those without a size as labels that name
 * only what no function covers), and the PLT stubs ("memcpy@plt", plt.h) of the ELF file
 * at path from .symtab and .dynsym, and, when the file is stripped, from its separate debug file:
 * by build-id under /usr/lib/debug/.build-id, else by .gnu_debuglink (its CRC checked)
 * beside the file, in its .debug/ directory or under /usr/lib/debug. Returns 0;
 * -ENOENT (or another -errno of open); -ENOEXEC when it is not ELF; -ENOMEM. A file
 * without any symbol loads (lookups then find nothing). One line in err on failure. */
int pmc_symtab_load(const char *path, struct pmc_symtab **ret, char *err, size_t errlen);

/* pmc_symtab_load() of an ELF image in memory (size bytes, copied), such as the vdso
 * mapped into every process; name is how messages call it. No debug file is searched. */
int pmc_symtab_load_image(const void *image, size_t size, const char *name, struct pmc_symtab **ret,
			  char *err, size_t errlen);

/* The GNU build-id as lower-case hex, or NULL when the file has none. */
/* Seam for the tests: the build-id a symbol table read, compared with the one the
 * environment fingerprint reads. */
const char *pmc_symtab_build_id(const struct pmc_symtab *t);

/* Whether the file's build-id is the given raw one (an MMAP2 record's): false when they
 * differ or the file has none. */
bool pmc_symtab_build_id_is(const struct pmc_symtab *t, const uint8_t *id, size_t len);

/* The ELF virtual address at file offset off, from the PT_LOAD segment holding it.
 * Returns 0 or -ENOENT when no segment maps that offset. */
int pmc_symtab_vaddr(const struct pmc_symtab *t, uint64_t off, uint64_t *ret_vaddr);

/* The function containing vaddr, or NULL; *ret_off (may be NULL) is vaddr - its start.
 * The name is the symbol's, as the file spells it (not demangled). */
const char *pmc_symtab_lookup(const struct pmc_symtab *t, uint64_t vaddr, uint64_t *ret_off);

/* pmc_symtab_lookup(), with the function's start and size (either may be NULL): the
 * addresses its samples and its code lie in (report --annotate). */
const char *pmc_symtab_lookup_range(const struct pmc_symtab *t, uint64_t vaddr, uint64_t *ret_start,
				    uint64_t *ret_size);

/* Function symbols loaded. */
/* Seam for the tests: how many function symbols were loaded, which no lookup shows. */
size_t pmc_symtab_count(const struct pmc_symtab *t);

void pmc_symtab_free(struct pmc_symtab *t);

/* What a uprobe needs from an ELF file (docs/events.md, "Function calls"): the file offset
 * of a function symbol (the uprobe PMU's probe_offset), and the program interpreter that
 * resolves a program's libraries. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The file offset of the defined function symbol name (exactly as the file spells it:
 * malloc, _Znwm) in the ELF file at path, from .symtab, else .dynsym, through the PT_LOAD
 * segment holding it. Returns 0; -ENOENT with one line in err when the file does not
 * have it (a stripped file keeps only its exported symbols in .dynsym); -ENOEXEC (not
 * ELF) or -errno of open, with one line. */
int pmc_elf_symbol_offset(const char *path, const char *name, uint64_t *ret_off, char *err,
			  size_t errlen);

/* The program interpreter (PT_INTERP, "/lib64/ld-linux-x86-64.so.2") of the executable at
 * path into ret. Returns 0, -ENOENT when it has none (a static program), -ENOEXEC or
 * -errno of open. */
int pmc_elf_interp(const char *path, char *ret, size_t len);

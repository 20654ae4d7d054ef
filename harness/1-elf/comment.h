/* The `.comment` section of ELF files (libelf): the compilers and tools that built a
 * binary, as they wrote themselves into it ("GCC: (Debian 12.2.0-14) 12.2.0"). */
#pragma once

#include <stddef.h>

/* The strings of the `.comment` section of the ELF file at path, each NUL-terminated,
 * one after another in the section's order, empty ones left out, in *ret (malloc'd, the
 * caller frees) with their bytes in *ret_len. Returns 0, -ENOENT (or another -errno of
 * open), -ENOEXEC when the file is not ELF, -ENODATA when it has no such section or only
 * empty strings in it, -ENOMEM, or -ENOSYS when libelf is unusable. */
int pmc_elf_comment(const char *path, char **ret, size_t *ret_len);

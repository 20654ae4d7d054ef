/* The machine code of an ELF file at a range of its virtual addresses (libelf), for
 * report --annotate (docs/profile.md, "Instructions"): the bytes a function's symbol
 * covers, read from the file's executable section that holds them. */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct pmc_elf_code {
	uint16_t machine; /* e_machine: EM_X86_64, EM_AARCH64, ... */
	uint64_t addr;	  /* the ELF virtual address of bytes[0] */
	uint8_t *bytes;	  /* owned; free() */
	size_t size;
};

/* Reads size bytes at ELF virtual address addr of the file at path into *ret. Returns
 * 0; -errno of open, -ENOEXEC when it is not ELF, -ENOENT when no executable section
 * with file data holds the whole range (a stripped debug file, a range past the code),
 * -ENOMEM; each but -ENOMEM with one line in err. */
int pmc_elf_read_code(const char *path, uint64_t addr, uint64_t size, struct pmc_elf_code *ret,
		      char *err, size_t errlen);

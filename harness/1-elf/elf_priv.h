/* Opening an ELF file, shared by the build-id, section and symbol readers of this layer
 * (open.c). */
#pragma once

#include <gelf.h>
#include <libelf.h>
#include <stddef.h>

struct pmc_elf_file {
	int fd;
	Elf *elf;
	GElf_Ehdr eh;
};

/* Opens path read-only as an ELF file into *ret. shown is path as messages quote it.
 * Returns 0; -ENOSYS when libelf is unusable, -errno of open, -ENOEXEC when the file is
 * not ELF; each with one line in err. Close with pmc_elf_close. */
int pmc_elf_open(const char *path, const char *shown, struct pmc_elf_file *ret, char *err,
		 size_t errlen);
/* Ends the ELF descriptor and closes the file; harmless twice. */
void pmc_elf_close(struct pmc_elf_file *f);

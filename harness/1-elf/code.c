/* Reading a function's machine code from its ELF file (code.h). */
#include "elf/code.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "elf/elf_priv.h"

/* The executable section with file data holding [addr, addr + size), or NULL. */
static Elf_Scn *code_section(Elf *elf, uint64_t addr, uint64_t size, GElf_Shdr *ret_sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, ret_sh))
			return NULL;
		if (ret_sh->sh_type == SHT_PROGBITS && (ret_sh->sh_flags & SHF_EXECINSTR) &&
		    ret_sh->sh_addr <= addr && addr - ret_sh->sh_addr <= ret_sh->sh_size &&
		    size <= ret_sh->sh_size - (addr - ret_sh->sh_addr))
			return scn;
	}
	return NULL;
}

int pmc_elf_read_code(const char *path, uint64_t addr, uint64_t size, struct pmc_elf_code *ret,
		      char *err, size_t errlen)
{
	struct pmc_elf_file f;
	Elf_Data *d;
	GElf_Shdr sh;
	Elf_Scn *scn;
	uint8_t *bytes;
	int rc;

	if (!path || !ret || size == 0)
		return -EINVAL;
	if ((rc = pmc_elf_open(path, path, &f, err, errlen)) < 0)
		return rc;
	rc = -ENOENT;
	scn = code_section(f.elf, addr, size, &sh);
	/* ELF_C_READ gives the section's bytes as the file holds them (ELF_T_BYTE). */
	d = scn ? elf_rawdata(scn, NULL) : NULL;
	if (!d || !d->d_buf || d->d_size != sh.sh_size) {
		pmc_err_set(err, errlen,
			    "%s: no code at 0x%llx-0x%llx (no executable section holds it)", path,
			    (unsigned long long)addr, (unsigned long long)(addr + size));
		goto out;
	}
	rc = -ENOMEM;
	if (!(bytes = malloc(size)))
		goto out;
	memcpy(bytes, (const uint8_t *)d->d_buf + (addr - sh.sh_addr), size);
	*ret = (struct pmc_elf_code){
	    .machine = f.eh.e_machine, .addr = addr, .bytes = bytes, .size = size};
	rc = 0;
out:
	pmc_elf_close(&f);
	return rc;
}

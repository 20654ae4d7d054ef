/* A named section of an ELF shared object, read with libelf (section.h). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "elf/elf_priv.h"
#include "elf/section.h"

/* The first entry's leading size field (struct pmc_bench_def.sz), in the object's class
 * and byte order; 0 when the section has no file data (SHT_NOBITS) or is too short. The
 * field is a constant, so the file holds its value: no relocation applies to it. */
static uint64_t first_size(Elf *elf, Elf_Scn *scn)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	const unsigned char *p;
	int cls = gelf_getclass(elf);
	size_t w = cls == ELFCLASS64 ? 8 : 4;
	GElf_Ehdr eh;
	uint64_t v = 0;

	if (!d || !d->d_buf || d->d_size < w || !gelf_getehdr(elf, &eh))
		return 0;
	p = d->d_buf;
	for (size_t i = 0; i < w; i++) {
		size_t k = eh.e_ident[EI_DATA] == ELFDATA2MSB ? i : w - 1 - i;

		v = v << 8 | p[k];
	}
	return v;
}

int pmc_elf_find_section(const char *path, const char *name, struct pmc_elf_section *ret, char *err,
			 size_t errlen)
{
	struct pmc_elf_file f;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *elf;
	int rc;

	if (!path || !name || !ret)
		return -EINVAL;
	rc = pmc_elf_open(path, path, &f, err, errlen);
	if (rc < 0)
		return rc;
	elf = f.elf;
	if (f.eh.e_type != ET_DYN) {
		pmc_err_set(err, errlen, "%s: not an ELF shared object (ELF type %u)", path,
			    (unsigned)f.eh.e_type);
		rc = -ENOEXEC;
		goto out;
	}
	if (elf_getshdrstrndx(elf, &shstrndx) < 0) {
		pmc_err_set(err, errlen, "%s: no section headers: %s", path, elf_errmsg(-1));
		rc = -ENOEXEC;
		goto out;
	}
	rc = -ENOENT;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh) || !(n = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(n, name) != 0)
			continue;
		if (sh.sh_size == 0 || !(sh.sh_flags & SHF_ALLOC))
			break;
		ret->addr = sh.sh_addr;
		ret->size = sh.sh_size;
		ret->entsize = first_size(elf, scn);
		rc = 0;
		break;
	}
	if (rc == -ENOENT)
		pmc_err_set(err, errlen, "%s: no section '%s', or an empty one", path, name);
out:
	pmc_elf_close(&f);
	return rc;
}

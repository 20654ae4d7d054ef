/* Symbols' file offsets and the program interpreter, for uprobes (probe.h). */
#include <errno.h>
#include <gelf.h>
#include <string.h>

#include "base/error.h"
#include "elf/elf_priv.h"
#include "elf/probe.h"

/* The defined function named name in the symbol table of section scn into *ret. */
static int find_in(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, const char *name, GElf_Sym *ret)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	if (!data)
		return -ENOENT;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		const char *sname;
		int type;

		if (!gelf_getsym(data, (int)i, &s) || s.st_shndx == SHN_UNDEF || s.st_value == 0)
			continue;
		type = GELF_ST_TYPE(s.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		sname = elf_strptr(elf, sh->sh_link, s.st_name);
		if (sname && strcmp(sname, name) == 0) {
			*ret = s;
			return 0;
		}
	}
	return -ENOENT;
}

int pmc_elf_symbol_offset(const char *path, const char *name, uint64_t *ret_off, char *err,
			  size_t errlen)
{
	static const Elf64_Word tables[] = {SHT_SYMTAB, SHT_DYNSYM};
	struct pmc_elf_file f;
	GElf_Sym sym;
	size_t nph;
	int r = -ENOENT;

	r = pmc_elf_open(path, path, &f, err, errlen);
	if (r < 0)
		return r;
	r = -ENOENT;
	for (size_t t = 0; t < 2 && r < 0; t++) {
		Elf_Scn *scn = NULL;

		while (r < 0 && (scn = elf_nextscn(f.elf, scn))) {
			GElf_Shdr sh;

			if (gelf_getshdr(scn, &sh) && sh.sh_type == tables[t])
				r = find_in(f.elf, scn, &sh, name, &sym);
		}
	}
	if (r < 0) {
		pmc_err_set(err, errlen,
			    "%s has no function symbol '%s' (a stripped file keeps only the "
			    "symbols it exports); check the name with 'nm -D %s', or probe a "
			    "build with its symbol table",
			    path, name, path);
		goto out;
	}
	r = -ENOENT;
	if (elf_getphdrnum(f.elf, &nph) == 0) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(f.elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
			    !(ph.p_flags & PF_X) || sym.st_value < ph.p_vaddr ||
			    sym.st_value >= ph.p_vaddr + ph.p_filesz)
				continue;
			*ret_off = sym.st_value - ph.p_vaddr + ph.p_offset;
			r = 0;
			break;
		}
	}
	if (r < 0)
		pmc_err_set(err, errlen,
			    "%s: symbol '%s' is in no executable segment of the file, so it "
			    "cannot be probed",
			    path, name);
out:
	pmc_elf_close(&f);
	return r;
}

int pmc_elf_interp(const char *path, char *ret, size_t len)
{
	struct pmc_elf_file f;
	size_t nph;
	int r;

	r = pmc_elf_open(path, path, &f, NULL, 0);
	if (r < 0)
		return r;
	r = -ENOENT;
	if (elf_getphdrnum(f.elf, &nph) == 0) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			size_t size;
			char *image;

			if (!gelf_getphdr(f.elf, (int)i, &ph) || ph.p_type != PT_INTERP)
				continue;
			image = elf_rawfile(f.elf, &size);
			if (!image || ph.p_offset >= size || ph.p_filesz > size - ph.p_offset ||
			    ph.p_filesz == 0 || ph.p_filesz >= len ||
			    memchr(image + ph.p_offset, '\0', ph.p_filesz) == NULL) {
				r = -ENOEXEC;
				break;
			}
			memcpy(ret, image + ph.p_offset, ph.p_filesz);
			r = 0;
			break;
		}
	}
	pmc_elf_close(&f);
	return r;
}

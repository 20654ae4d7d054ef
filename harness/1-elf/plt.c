/* PLT stubs as symbols (plt.h). The layout is the linkers' (binutils' elf_x86_64 and
 * aarch64 back ends): x86-64 lays a 16-byte header, then a 16-byte stub per .rela.plt
 * relocation, in its order; with IBT (-z ibtplt, or -fcf-protection objects) the stubs
 * that code calls move to .plt.sec, 16 bytes each and no header, and .plt keeps the lazy
 * binding's. arm64 has a 32-byte header and 16-byte stubs. Relocations without a symbol
 * (IRELATIVE) keep their place and have no name. */
#include "elf/plt.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct plt_sections {
	GElf_Shdr plt, plt_sec, rel;
	Elf_Scn *rel_scn;
	bool has_plt, has_plt_sec, has_rel;
};

static void find_sections(Elf *elf, struct plt_sections *s)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".plt") && sh.sh_type == SHT_PROGBITS) {
			s->plt = sh;
			s->has_plt = true;
		} else if (!strcmp(name, ".plt.sec") && sh.sh_type == SHT_PROGBITS) {
			s->plt_sec = sh;
			s->has_plt_sec = true;
		} else if ((!strcmp(name, ".rela.plt") && sh.sh_type == SHT_RELA) ||
			   (!strcmp(name, ".rel.plt") && sh.sh_type == SHT_REL)) {
			s->rel = sh;
			s->rel_scn = scn;
			s->has_rel = true;
		}
	}
}

/* The symbol index of relocation i of data d (SHT_RELA or SHT_REL), or -1. */
static long rel_symbol(Elf_Data *d, Elf64_Word type, int i)
{
	if (type == SHT_RELA) {
		GElf_Rela r;

		return gelf_getrela(d, i, &r) ? (long)GELF_R_SYM(r.r_info) : -1;
	} else {
		GElf_Rel r;

		return gelf_getrel(d, i, &r) ? (long)GELF_R_SYM(r.r_info) : -1;
	}
}

int pmc_plt_symbols(Elf *elf, const GElf_Ehdr *eh, pmc_plt_add_fn add, void *ud)
{
	struct plt_sections s = {0};
	uint64_t base, stub = 16, end;
	Elf_Data *rd, *symd;
	Elf_Scn *symscn;
	GElf_Shdr symsh;
	size_t n, entsize;
	int rc;

	if (eh->e_machine != EM_X86_64 && eh->e_machine != EM_AARCH64)
		return 0;
	find_sections(elf, &s);
	if (!s.has_rel || !s.has_plt || !(symscn = elf_getscn(elf, s.rel.sh_link)) ||
	    !gelf_getshdr(symscn, &symsh) || !(symd = elf_getdata(symscn, NULL)) ||
	    !(rd = elf_getdata(s.rel_scn, NULL)))
		return 0;
	if (s.has_plt_sec && eh->e_machine == EM_X86_64) {
		base = s.plt_sec.sh_addr;
		end = s.plt_sec.sh_addr + s.plt_sec.sh_size;
	} else {
		base = s.plt.sh_addr + (eh->e_machine == EM_AARCH64 ? 32 : 16);
		end = s.plt.sh_addr + s.plt.sh_size;
	}
	entsize =
	    gelf_fsize(elf, s.rel.sh_type == SHT_RELA ? ELF_T_RELA : ELF_T_REL, 1, EV_CURRENT);
	if (!entsize)
		return 0;
	n = rd->d_size / entsize;
	for (size_t i = 0; i < n && base + stub * (i + 1) <= end; i++) {
		long k = rel_symbol(rd, s.rel.sh_type, (int)i);
		const char *name;
		char buf[512];
		GElf_Sym sym;

		if (k <= 0 || !gelf_getsym(symd, (int)k, &sym) ||
		    !(name = elf_strptr(elf, symsh.sh_link, sym.st_name)) || !*name)
			continue;
		snprintf(buf, sizeof(buf), "%s@plt", name);
		if ((rc = add(ud, base + stub * i, stub, buf)) < 0)
			return rc;
	}
	return 0;
}

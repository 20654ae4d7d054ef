/* Addresses to source lines (lines.h): each object reported to its own offline Dwfl
 * (dwfl_report_offline, as eu-addr2line does), its line table read with
 * dwfl_module_getsrc, and the inline chain from the DIEs whose ranges hold the address:
 * the innermost DW_TAG_inlined_subroutine names the inlined function (through its abstract
 * origin) and its DW_AT_call_file/DW_AT_call_line the call site (DWARF 5, 3.3.8.2). */
#include "profile/lines.h"
#include "profile/debuginfo.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/profile.h"
#include "profile/profile_lines.h"

/* One object's Dwfl; NULL module: the file could not be read as ELF. */
struct object {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf_Addr bias; /* Dwfl address = ELF virtual address + bias */
	Dwarf_Die fn;	 /* the function DIE of the last address looked up, if have_fn */
	bool have_fn;
	Dwarf_Die cu; /* the unit cu_at found by its ranges last, if have_cu */
	bool have_cu;
};

static char *debuginfo_path;
static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = pmc_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &debuginfo_path,
};

static int object_open(const char *path, struct object *o)
{
	*o = (struct object){0};
	if (!(o->dwfl = dwfl_begin(&offline_callbacks)))
		return -ENOMEM;
	dwfl_report_begin(o->dwfl);
	o->mod = dwfl_report_offline(o->dwfl, path, path, -1);
	dwfl_report_end(o->dwfl, NULL, NULL);
	if (o->mod && !dwfl_module_getelf(o->mod, &o->bias))
		o->mod = NULL;
	return 0;
}

/* path made absolute with the compilation's directory (a line table names files as the
 * compiler was given them, "../src/a.c"), into buf; path itself when it cannot be. */
static const char *absolute(const char *path, const char *comp_dir, char *buf, size_t len)
{
	int n;

	if (!path || path[0] == '/' || !comp_dir || comp_dir[0] != '/')
		return path;
	n = snprintf(buf, len, "%s/%s", comp_dir, path);
	return n > 0 && (size_t)n < len ? buf : path;
}

/* The file of entry idx of the CU's file table, or NULL. */
static const char *cu_file(Dwarf_Die *cu, Dwarf_Word idx)
{
	Dwarf_Files *files;
	size_t n;

	if (dwarf_getsrcfiles(cu, &files, &n) != 0 || idx >= n)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

/* The function DIE (DW_TAG_subprogram) under parent whose ranges hold pc, looking into
 * namespaces, where C++ compilers may put definitions (never into types: a member's
 * definition with code is outside its class, DW_AT_specification naming the declaration;
 * measured: looking into C structures was a third of the lookups' time on CPython). */
static bool subprogram_at(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *ret)
{
	Dwarf_Die d;

	if (dwarf_child(parent, &d) != 0)
		return false;
	do {
		int tag = dwarf_tag(&d);

		if (tag == DW_TAG_subprogram && dwarf_haspc(&d, pc) > 0) {
			*ret = d;
			return true;
		}
		if (tag == DW_TAG_namespace && subprogram_at(&d, pc, ret))
			return true;
	} while (dwarf_siblingof(&d, &d) == 0);
	return false;
}

/* The compilation unit that holds addr (a Dwfl address), *ret_bias its DWARF bias.
 * libdw finds it through .debug_aranges, which clang does not write (elfutils 0.188
 * then answers "address out of range", where binutils' addr2line reads the units'
 * ranges): without them, the units' own ranges are searched, the last one found first. */
static Dwarf_Die *cu_at(struct object *o, Dwarf_Addr addr, Dwarf_Addr *ret_bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(o->mod, addr, ret_bias);
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf *dw;

	if (cu)
		return cu;
	if (!(dw = dwfl_module_getdwarf(o->mod, ret_bias)))
		return NULL;
	if (o->have_cu && dwarf_haspc(&o->cu, addr - *ret_bias) > 0)
		return &o->cu;
	o->have_cu = false;
	while (dwarf_next_unit(dw, off, &next, &hsize, NULL, NULL, NULL, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, &o->cu) &&
		    dwarf_tag(&o->cu) == DW_TAG_compile_unit &&
		    dwarf_haspc(&o->cu, addr - *ret_bias) > 0) {
			o->have_cu = true;
			return &o->cu;
		}
		off = next;
	}
	return NULL;
}

/* The innermost inlined function at addr (a Dwfl address) and its call site into l
 * (buf holds the call site's file). From the function that holds addr (o's last one when
 * it still does: a function's addresses come in runs), down through the lexical blocks
 * and inlined subroutines whose ranges hold it: the walk dwarf_getscopes does, without
 * its walk of the whole compilation unit per address (measured: most of the lookup's
 * time on a large program). */
static void inline_of(struct object *o, Dwarf_Addr addr, struct pmc_profile_line *l, char *buf,
		      size_t len)
{
	Dwarf_Addr dwbias, pc;
	Dwarf_Die *cu = cu_at(o, addr, &dwbias), cur, child, inl;
	bool found = false, deeper = true;
	Dwarf_Attribute a;
	Dwarf_Word w;

	if (!cu)
		return;
	pc = addr - dwbias;
	if (!o->have_fn || dwarf_haspc(&o->fn, pc) <= 0) {
		o->have_fn = subprogram_at(cu, pc, &o->fn);
		if (!o->have_fn)
			return;
	}
	cur = o->fn;
	while (deeper && dwarf_child(&cur, &child) == 0) {
		deeper = false;
		do {
			int tag = dwarf_tag(&child);

			if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block) &&
			    dwarf_haspc(&child, pc) > 0) {
				if (tag == DW_TAG_inlined_subroutine) {
					inl = child;
					found = true;
				}
				cur = child;
				deeper = true;
				break;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	if (!found)
		return;
	l->inlined = dwarf_diename(&inl);
	if (dwarf_attr(&inl, DW_AT_call_file, &a) && dwarf_formudata(&a, &w) == 0)
		l->call_file = absolute(
		    cu_file(cu, w), dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a)), buf, len);
	if (l->call_file && dwarf_attr(&inl, DW_AT_call_line, &a) && dwarf_formudata(&a, &w) == 0 &&
	    w <= UINT32_MAX)
		l->call_line = (uint32_t)w;
}

/* The source of vaddr in o into l (file NULL: no line table covers it); its strings may
 * be in bufs. */
static void source_of(struct object *o, uint64_t vaddr, struct pmc_profile_line *l,
		      char bufs[2][PATH_MAX])
{
	Dwarf_Addr addr = vaddr + o->bias, dwbias;
	const char *file = NULL, *comp_dir = NULL;
	Dwarf_Attribute a;
	Dwarf_Line *dline;
	Dwarf_Die *cu;
	Dwfl_Line *dl;
	int line = 0;

	if (!o->mod)
		return;
	if ((dl = dwfl_module_getsrc(o->mod, addr))) {
		file = dwfl_lineinfo(dl, NULL, &line, NULL, NULL, NULL);
		comp_dir = dwfl_line_comp_dir(dl);
	} else if ((cu = cu_at(o, addr, &dwbias)) &&
		   (dline = dwarf_getsrc_die(cu, addr - dwbias)) &&
		   dwarf_lineno(dline, &line) == 0) {
		/* No .debug_aranges (cu_at): the unit's own line table. */
		file = dwarf_linesrc(dline, NULL, NULL);
		comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));
	}
	if (!file || line <= 0)
		return;
	l->file = absolute(file, comp_dir, bufs[0], PATH_MAX);
	l->line = (uint32_t)line;
	inline_of(o, addr, l, bufs[1], PATH_MAX);
}

struct pmc_lines_object {
	struct object o;
	char bufs[2][PATH_MAX];
};

int pmc_lines_object_open(const char *path, struct pmc_lines_object **ret)
{
	struct pmc_lines_object *lo = calloc(1, sizeof(*lo));

	if (!lo)
		return -ENOMEM;
	if (object_open(path, &lo->o) < 0) {
		free(lo);
		return -ENOMEM;
	}
	*ret = lo;
	return 0;
}

void pmc_lines_object_source(struct pmc_lines_object *lo, uint64_t vaddr,
			     struct pmc_profile_line *ret)
{
	ret->file = ret->inlined = ret->call_file = NULL;
	ret->line = ret->call_line = 0;
	source_of(&lo->o, vaddr, ret, lo->bufs);
}

void pmc_lines_object_close(struct pmc_lines_object *lo)
{
	if (!lo)
		return;
	dwfl_end(lo->o.dwfl);
	free(lo);
}

/* Entries by object, then address: a function's addresses in a row, so that inline_of
 * finds its DIE once per function. */
struct order {
	const char *object; /* interned by the profile: equal objects are equal pointers */
	uint64_t address;
	size_t i;
};

static int order_cmp(const void *a, const void *b)
{
	const struct order *x = a, *y = b;

	if (x->object != y->object)
		return (uintptr_t)x->object < (uintptr_t)y->object ? -1 : 1;
	if (x->address != y->address)
		return x->address < y->address ? -1 : 1;
	return 0;
}

/* Whether o's DWARF is in compressed sections (SHF_COMPRESSED, as Debian's -dbg files
 * have it): libelf inflates them whole when they are opened, so opening the object again
 * would cost that each time. Read from the file libdw took them from (the section headers
 * of the open one say what they are once inflated). */
static bool compressed_dwarf(struct object *o)
{
	const char *main_file = NULL, *debug_file = NULL, *path;
	Dwarf_Addr dwbias;
	Elf_Scn *scn = NULL;
	bool compressed = false;
	GElf_Shdr sh;
	Elf *elf;
	int fd;

	if (!o->mod || !dwfl_module_getdwarf(o->mod, &dwbias))
		return false;
	dwfl_module_info(o->mod, NULL, NULL, NULL, NULL, NULL, &main_file, &debug_file);
	path = debug_file ? debug_file : main_file;
	if (!path || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return true; /* not known: opened once, as before */
	if ((elf = elf_begin(fd, ELF_C_READ, NULL)))
		while (!compressed && (scn = elf_nextscn(elf, scn)))
			compressed = gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED);
	elf_end(elf);
	close(fd);
	return compressed || !elf;
}

/* The offset of the compilation unit that holds vaddr in o, or (Dwarf_Off)-1. */
static Dwarf_Off cu_offset(struct object *o, uint64_t vaddr)
{
	Dwarf_Addr dwbias;
	Dwarf_Die *cu = o->mod ? cu_at(o, vaddr + o->bias, &dwbias) : NULL;

	return cu ? dwarf_dieoffset(cu) : (Dwarf_Off)-1;
}

int pmc_lines_resolve(struct pmc_profile *p)
{
	struct pmc_profile_lines *t = pmc_profile_lines(p);
	size_t n = pmc_profile_lines_count(t), k = 0;
	struct object o = {0};
	const char *open_path = NULL;
	Dwarf_Off open_cu = (Dwarf_Off)-1;
	bool per_unit = false;
	struct order *ord = NULL;
	char(*bufs)[PATH_MAX] = NULL;
	int rc = -ENOMEM;

	if (!n)
		return 0;
	if (!(ord = malloc(n * sizeof(*ord))) || !(bufs = malloc(2 * sizeof(*bufs))))
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct pmc_profile_line *e = pmc_profile_lines_get(t, i);
		const struct pmc_profile_frame *f = pmc_profile_frame(p, e->frame);

		/* Pseudo-objects ("[vdso]", "[anon]") are no file to read. */
		if (f && f->object[0] != '[')
			ord[k++] =
			    (struct order){.object = f->object, .address = e->address, .i = i};
	}
	if (k)
		qsort(ord, k, sizeof(*ord), order_cmp);
	for (size_t j = 0; j < k; j++) {
		struct pmc_profile_line src = {0};
		Dwarf_Off cu;

		if (ord[j].object != open_path) {
			dwfl_end(o.dwfl);
			open_path = ord[j].object;
			if (object_open(open_path, &o) < 0)
				goto out;
			per_unit = !compressed_dwarf(&o);
			open_cu = per_unit ? cu_offset(&o, ord[j].address) : (Dwarf_Off)-1;
		} else if (per_unit && (cu = cu_offset(&o, ord[j].address)) != open_cu) {
			/* The next unit: libdw keeps every line table it read until the end
			 * of its Dwarf, and the addresses come in order, so the object is
			 * opened again for each unit (libpython3.11's tables: 13 MB, most of
			 * record's peak RSS, docs/profile.md "Recording"); not where that
			 * would inflate compressed sections again. */
			dwfl_end(o.dwfl);
			if (object_open(open_path, &o) < 0)
				goto out;
			open_cu = cu;
		}
		source_of(&o, ord[j].address, &src, bufs);
		if (src.file && pmc_profile_lines_set_source(t, ord[j].i, &src) < 0)
			goto out;
	}
	rc = 0;
out:
	dwfl_end(o.dwfl);
	free(ord);
	free(bufs);
	return rc;
}

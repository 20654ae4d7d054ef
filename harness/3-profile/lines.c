/* Addresses to source lines (lines.h): each object reported to its own offline Dwfl
 * (dwfl_report_offline, as eu-addr2line does), its line table read with
 * dwfl_module_getsrc, and the inline chain with dwarf_getscopes: the innermost
 * DW_TAG_inlined_subroutine scope names the inlined function (through its abstract
 * origin) and its DW_AT_call_file/DW_AT_call_line the call site (DWARF 5, 3.3.8.2). */
#include "profile/lines.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "profile/profile.h"
#include "profile/profile_lines.h"

/* One object's Dwfl; NULL module: the file could not be read as ELF. */
struct object {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf_Addr bias; /* Dwfl address = ELF virtual address + bias */
};

static char *debuginfo_path;
static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
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

/* The innermost inlined function at addr (a Dwfl address) and its call site into l
 * (buf holds the call site's file). */
static void inline_of(Dwfl_Module *mod, Dwarf_Addr addr, struct pmc_profile_line *l, char *buf,
		      size_t len)
{
	Dwarf_Addr dwbias;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &dwbias), *scopes = NULL;
	int n;

	if (!cu || (n = dwarf_getscopes(cu, addr - dwbias, &scopes)) <= 0)
		return;
	/* Innermost first: lexical blocks, then inlined subroutines, then the subprogram
	 * they were inlined into, which ends the search. */
	for (int i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);
		Dwarf_Attribute a;
		Dwarf_Word w;

		if (tag == DW_TAG_subprogram)
			break;
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		l->inlined = dwarf_diename(&scopes[i]);
		if (dwarf_attr(&scopes[i], DW_AT_call_file, &a) && dwarf_formudata(&a, &w) == 0)
			l->call_file = absolute(cu_file(cu, w),
						dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a)),
						buf, len);
		if (l->call_file && dwarf_attr(&scopes[i], DW_AT_call_line, &a) &&
		    dwarf_formudata(&a, &w) == 0 && w <= UINT32_MAX)
			l->call_line = (uint32_t)w;
		break;
	}
	free(scopes);
}

/* The source of vaddr in o into l (file NULL: no line table covers it); its strings may
 * be in bufs. */
static void source_of(const struct object *o, uint64_t vaddr, struct pmc_profile_line *l,
		      char bufs[2][PATH_MAX])
{
	Dwarf_Addr addr = vaddr + o->bias;
	Dwfl_Line *dl;
	const char *file;
	int line = 0;

	if (!o->mod || !(dl = dwfl_module_getsrc(o->mod, addr)) ||
	    !(file = dwfl_lineinfo(dl, NULL, &line, NULL, NULL, NULL)) || line <= 0)
		return;
	l->file = absolute(file, dwfl_line_comp_dir(dl), bufs[0], PATH_MAX);
	l->line = (uint32_t)line;
	inline_of(o->mod, addr, l, bufs[1], PATH_MAX);
}

int pmc_lines_resolve(struct pmc_profile *p)
{
	struct pmc_profile_lines *t = pmc_profile_lines(p);
	struct pmc_hashmap byobj = {0};
	struct object *objs = NULL;
	size_t n = pmc_profile_lines_count(t), nobjs = 0;
	char(*bufs)[PATH_MAX] = NULL;
	int rc = -ENOMEM;

	if (!n)
		return 0;
	/* At most one object per entry. */
	if (!(objs = calloc(n, sizeof(*objs))) || !(bufs = malloc(2 * sizeof(*bufs))) ||
	    pmc_hashmap_init(&byobj, 16) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct pmc_profile_line *e = pmc_profile_lines_get(t, i);
		const struct pmc_profile_frame *f = pmc_profile_frame(p, e->frame);
		struct pmc_profile_line src = {0};
		size_t oi;
		int r;

		/* Pseudo-objects ("[vdso]", "[anon]") are no file to read. */
		if (!f || f->object[0] == '[')
			continue;
		r = pmc_hashmap_get_or_put(&byobj, f->object, nobjs, &oi);
		if (r < 0)
			goto out;
		if (r == 1 && object_open(f->object, &objs[nobjs++]) < 0)
			goto out;
		source_of(&objs[oi], e->address, &src, bufs);
		if (src.file && pmc_profile_lines_set_source(t, i, &src) < 0)
			goto out;
	}
	rc = 0;
out:
	for (size_t i = 0; i < nobjs; i++)
		dwfl_end(objs[i].dwfl);
	free(objs);
	free(bufs);
	pmc_hashmap_free(&byobj);
	return rc;
}

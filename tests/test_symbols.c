/* harness/1-elf/symbols.c: function symbols of a PIE, a position-dependent executable, a
 * stripped one (with and without its debug file), the file offset to virtual address
 * conversion of PT_LOAD, the build-id, and files that are not ELF or are broken. The
 * addresses come from the running programs (tests/targets/symtarget.c), not from a tool
 * that reads symbols. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "tests/test_main.h"
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <unistd.h>

#include "elf/buildid.h"
#include "elf/symbols.h"
#include "elf/symbols_priv.h"
#include "tests/sym_child.h"

static struct pmc_symtab *load(const char *path, const char *debug_root)
{
	struct pmc_symtab *t = NULL;
	char err[512] = "";
	int rc = pmc_symtab_load_debug(path, debug_root, &t, err, sizeof(err));

	if (rc != 0)
		print_error("%s: %d %s\n", path, rc, err);
	assert_int_equal(rc, 0);
	assert_non_null(t);
	return t;
}

/* The ELF virtual address of live address addr of the child, through its mapping. */
static uint64_t child_vaddr(const struct pmc_symtab *t, const struct sym_child *c, uint64_t addr)
{
	uint64_t start = 0, end = 0, pgoff = 0, v = 0;
	char path[4096];

	proc_mapping(c->pid, addr, &start, &end, &pgoff, path, sizeof(path));
	assert_int_equal(pmc_symtab_vaddr(t, addr - start + pgoff, &v), 0);
	return v;
}

static void expect_name(const struct pmc_symtab *t, uint64_t vaddr, const char *name)
{
	uint64_t off = 99;

	assert_string_equal(pmc_symtab_lookup(t, vaddr, &off), name);
	assert_int_equal(off, 0);
	/* Inside the function, past its first instruction. */
	assert_string_equal(pmc_symtab_lookup(t, vaddr + 1, &off), name);
	assert_int_equal(off, 1);
	assert_string_equal(pmc_symtab_lookup(t, vaddr + 9, &off), name);
	assert_int_equal(off, 9);
}

static void names_functions_of(const char *path, bool pie)
{
	struct sym_child c;
	struct pmc_symtab *t = load(path, "/nonexistent");
	uint64_t va, vb;

	sym_child_start(path, &c);
	va = child_vaddr(t, &c, c.alpha);
	vb = child_vaddr(t, &c, c.beta);
	sym_child_stop(&c);
	/* A position-dependent program runs at its link-time addresses; a PIE is moved. */
	if (!pie) {
		assert_int_equal(va, c.alpha);
		assert_int_equal(vb, c.beta);
	}
	expect_name(t, va, "pmc_sym_alpha");
	expect_name(t, vb, "pmc_sym_beta");
	assert_true(pmc_symtab_count(t) >= 3); /* alpha, beta, main at least */
	assert_null(pmc_symtab_lookup(t, 0, NULL));
	assert_null(pmc_symtab_lookup(t, UINT64_MAX, NULL));
	pmc_symtab_free(t);
}

static void names_pie_functions(void **state)
{
	(void)state;
	names_functions_of(PMC_TEST_SYM_PIE, true);
}

static void names_non_pie_functions(void **state)
{
	(void)state;
	names_functions_of(PMC_TEST_SYM_NOPIE, false);
}

static void unhex(const char *hex, uint8_t *out, size_t *len)
{
	size_t n = strlen(hex) / 2;

	for (size_t i = 0; i < n; i++)
		assert_int_equal(sscanf(hex + 2 * i, "%2hhx", &out[i]), 1);
	*len = n;
}

static void reads_the_build_id(void **state)
{
	struct pmc_symtab *t = load(PMC_TEST_SYM_PIE, NULL);
	char *id = NULL;
	uint8_t raw[64];
	size_t n = 0;

	(void)state;
	/* The same reading as the build-id of a measured binary. */
	assert_int_equal(pmc_build_id(PMC_TEST_SYM_PIE, &id), 0);
	assert_non_null(pmc_symtab_build_id(t));
	assert_string_equal(pmc_symtab_build_id(t), id);
	unhex(id, raw, &n);
	assert_true(n >= 8);
	assert_true(pmc_symtab_build_id_is(t, raw, n));
	assert_false(pmc_symtab_build_id_is(t, raw, n - 1));
	raw[n - 1] ^= 1;
	assert_false(pmc_symtab_build_id_is(t, raw, n));
	free(id);
	pmc_symtab_free(t);
}

/* The stripped PIE names nothing of its own (its .dynsym holds only what it imports), but
 * the offset still turns into the right virtual address: the unstripped PIE, the same
 * code, names it. */
static void stripped_binary_gives_addresses_not_names(void **state)
{
	struct pmc_symtab *s, *full;
	struct sym_child c;
	uint64_t va;

	(void)state;
	if (!*PMC_TEST_SYM_STRIPPED)
		skip();
	s = load(PMC_TEST_SYM_STRIPPED, "/nonexistent");
	full = load(PMC_TEST_SYM_PIE, NULL);
	sym_child_start(PMC_TEST_SYM_STRIPPED, &c);
	va = child_vaddr(s, &c, c.alpha);
	sym_child_stop(&c);
	assert_null(pmc_symtab_lookup(s, va, NULL));
	assert_null(pmc_symtab_lookup(s, va + 1, NULL));
	assert_string_equal(pmc_symtab_lookup(full, va, NULL), "pmc_sym_alpha");
	assert_string_equal(pmc_symtab_build_id(s), pmc_symtab_build_id(full));
	pmc_symtab_free(s);
	pmc_symtab_free(full);
}

/* A debug file where the build-id points (<root>/.build-id/xx/rest.debug) gives the
 * stripped binary its names back. */
static void stripped_binary_names_from_its_debug_file(void **state)
{
	char root[] = "/tmp/pmc-symtest-XXXXXX";
	char dir[256], file[512];
	struct pmc_symtab *s, *full;
	const char *id;
	struct sym_child c;
	uint64_t va;

	(void)state;
	if (!*PMC_TEST_SYM_STRIPPED)
		skip();
	full = load(PMC_TEST_SYM_PIE, NULL);
	id = pmc_symtab_build_id(full);
	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/.build-id", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/.build-id/%.2s", root, id);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(file, sizeof(file), "%s/%s.debug", dir, id + 2);
	assert_int_equal(symlink(PMC_TEST_SYM_DEBUG, file), 0);

	s = load(PMC_TEST_SYM_STRIPPED, root);
	sym_child_start(PMC_TEST_SYM_STRIPPED, &c);
	va = child_vaddr(s, &c, c.beta);
	sym_child_stop(&c);
	expect_name(s, va, "pmc_sym_beta");

	unlink(file);
	snprintf(dir, sizeof(dir), "%s/.build-id/%.2s", root, id);
	rmdir(dir);
	snprintf(dir, sizeof(dir), "%s/.build-id", root);
	rmdir(dir);
	rmdir(root);
	pmc_symtab_free(s);
	pmc_symtab_free(full);
}

static void write_file(const char *path, const void *buf, size_t n);
static unsigned char *read_all(const char *path, size_t *len);

/* Without a debug file where the build-id points, the .gnu_debuglink finds the one beside
 * the binary; a debug file whose CRC is not the link's is not used. */
static void stripped_binary_names_through_its_debuglink(void **state)
{
	char tmp[] = "/tmp/pmc-symlink-XXXXXX";
	char bin[512], dbg[512];
	unsigned char *image;
	size_t len;
	struct pmc_symtab *s;
	struct sym_child c;
	uint64_t va;

	(void)state;
	if (!*PMC_TEST_SYM_LINKED)
		skip();
	s = load(PMC_TEST_SYM_LINKED, "/nonexistent");
	sym_child_start(PMC_TEST_SYM_LINKED, &c);
	va = child_vaddr(s, &c, c.beta);
	sym_child_stop(&c);
	expect_name(s, va, "pmc_sym_beta");
	pmc_symtab_free(s);

	/* A copy of the binary (a symbolic link would lead back to the real directory)
	 * beside another file of the debug file's name. */
	assert_non_null(mkdtemp(tmp));
	snprintf(bin, sizeof(bin), "%s/pmc-sym-linked", tmp);
	snprintf(dbg, sizeof(dbg), "%s/pmc-sym-pie.debug", tmp);
	image = read_all(PMC_TEST_SYM_LINKED, &len);
	write_file(bin, image, len);
	free(image);
	assert_int_equal(symlink(PMC_TEST_SYM_NOPIE, dbg), 0);
	s = load(bin, "/nonexistent");
	assert_null(pmc_symtab_lookup(s, va, NULL));
	pmc_symtab_free(s);
	unlink(dbg);
	unlink(bin);
	rmdir(tmp);
}

/* An assembly function (an untyped symbol with a size in .text) is named; an untyped
 * label without a size is not a function. */
static void untyped_code_symbols_with_a_size_are_functions(void **state)
{
	struct pmc_symtab *t = load(PMC_TEST_SYM_PIE, NULL);
	struct sym_child c;
	uint64_t va, off = 99;

	(void)state;
	sym_child_start(PMC_TEST_SYM_PIE, &c);
	va = child_vaddr(t, &c, c.untyped);
	sym_child_stop(&c);
	assert_string_equal(pmc_symtab_lookup(t, va, &off), "pmc_sym_untyped");
	assert_int_equal(off, 0);
	assert_string_equal(pmc_symtab_lookup(t, va + 10, &off), "pmc_sym_untyped");
	/* Past its 11 bytes: the label, untyped and unsized, which names what no function
	 * covers as perf names it (ld.so's _start). */
	assert_string_equal(pmc_symtab_lookup(t, va + 11, &off), "pmc_sym_label");
	assert_int_equal(off, 0);
	pmc_symtab_free(t);
}

/* The GOT slot each x86-64 PLT stub of section data jumps through (jmp *disp32(%rip),
 * ff 25, after an endbr64 and a bnd prefix in .plt.sec), found by decoding the stubs
 * rather than by the linker's layout, and checked against the name the symbol table
 * gives the stub: the .rela.plt relocation of that slot's symbol, "NAME@plt". Returns
 * how many stubs were checked. */
static int check_stubs(const struct pmc_symtab *t, Elf *elf, const GElf_Shdr *plt,
		       const unsigned char *code, Elf_Data *rel, Elf_Data *dynsym, size_t dynstr)
{
	int checked = 0;

	for (uint64_t at = 0; at + 6 <= plt->sh_size; at++) {
		uint64_t stub = plt->sh_addr + (at & ~(uint64_t)15), slot, off = 99;
		int32_t disp;
		char want[300];

		if (code[at] != 0xff || code[at + 1] != 0x25)
			continue;
		memcpy(&disp, code + at + 2, 4);
		slot = plt->sh_addr + at + 6 + (uint64_t)(int64_t)disp;
		for (size_t i = 0; i < rel->d_size / sizeof(Elf64_Rela); i++) {
			GElf_Rela r;
			GElf_Sym s;

			assert_non_null(gelf_getrela(rel, (int)i, &r));
			if (r.r_offset != slot)
				continue;
			assert_non_null(gelf_getsym(dynsym, (int)GELF_R_SYM(r.r_info), &s));
			snprintf(want, sizeof(want), "%s@plt", elf_strptr(elf, dynstr, s.st_name));
			assert_string_equal(pmc_symtab_lookup(t, stub, &off), want);
			assert_int_equal(off, 0);
			assert_string_equal(pmc_symtab_lookup(t, stub + 15, &off), want);
			assert_int_equal(off, 15);
			checked++;
		}
	}
	return checked;
}

/* PLT stubs are named as perf and objdump name them: printf@plt, read@plt, fflush@plt of
 * symtarget.c, in .plt (the PIE and the position-dependent build) and in .plt.sec (IBT's
 * layout, -z ibtplt). */
static void plt_stubs_are_named(void **state)
{
	const char *paths[] = {PMC_TEST_SYM_PIE, PMC_TEST_SYM_NOPIE, PMC_TEST_SYM_IBT};

	(void)state;
#ifndef __x86_64__
	skip();
#endif
	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	for (size_t k = 0; k < sizeof(paths) / sizeof(paths[0]); k++) {
		struct pmc_symtab *t;
		Elf_Data *rel = NULL, *dynsym = NULL;
		Elf_Scn *scn = NULL;
		size_t shstrndx, dynstr = 0;
		int fd, checked = 0;
		bool has_sec = false;
		Elf *elf;

		if (!*paths[k])
			continue; /* no -z ibtplt */
		t = load(paths[k], NULL);
		assert_true((fd = open(paths[k], O_RDONLY)) >= 0);
		assert_non_null(elf = elf_begin(fd, ELF_C_READ, NULL));
		assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *name;

			assert_non_null(gelf_getshdr(scn, &sh));
			name = elf_strptr(elf, shstrndx, sh.sh_name);
			if (!strcmp(name, ".rela.plt"))
				rel = elf_getdata(scn, NULL);
			if (sh.sh_type == SHT_DYNSYM) {
				dynsym = elf_getdata(scn, NULL);
				dynstr = sh.sh_link;
			}
			has_sec = has_sec || !strcmp(name, ".plt.sec");
		}
		assert_non_null(rel);
		assert_non_null(dynsym);
		/* The IBT build has its stubs in .plt.sec, the others in .plt. */
		assert_true(has_sec == (k == 2));
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *name;
			Elf_Data *d;

			assert_non_null(gelf_getshdr(scn, &sh));
			name = elf_strptr(elf, shstrndx, sh.sh_name);
			if (strcmp(name, has_sec ? ".plt.sec" : ".plt") != 0)
				continue;
			assert_non_null(d = elf_getdata(scn, NULL));
			checked += check_stubs(t, elf, &sh, d->d_buf, rel, dynsym, dynstr);
		}
		/* printf (or puts), read, fflush at least. */
		assert_true(checked >= 3);
		elf_end(elf);
		close(fd);
		pmc_symtab_free(t);
	}
}

/* The vdso of this process, read from memory, names its functions. */
static void vdso_image_has_its_functions(void **state)
{
	const unsigned char *base = (const void *)getauxval(AT_SYSINFO_EHDR);
	struct pmc_symtab *t = NULL;
	char err[256] = "";
	bool named = false;

	(void)state;
	if (!base)
		skip();
	assert_int_equal(pmc_symtab_load_image(base, 8192, "[vdso]", &t, err, sizeof(err)), 0);
	assert_true(pmc_symtab_count(t) > 0);
	for (uint64_t v = 0; v < 8192 && !named; v++) {
		const char *n = pmc_symtab_lookup(t, v, NULL);

		named = n && strstr(n, "clock_gettime");
	}
	assert_true(named);
	pmc_symtab_free(t);
	/* Not ELF: an error, not a crash. */
	assert_int_equal(pmc_symtab_load_image("nope", 4, "[x]", &t, err, sizeof(err)), -ENOEXEC);
}

static void vaddr_outside_segments_is_enoent(void **state)
{
	struct pmc_symtab *t = load(PMC_TEST_SYM_PIE, NULL);
	uint64_t v = 7;

	(void)state;
	assert_int_equal(pmc_symtab_vaddr(t, UINT64_MAX - 1, &v), -ENOENT);
	assert_int_equal(v, 7);
	pmc_symtab_free(t);
}

static void write_file(const char *path, const void *buf, size_t n)
{
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static unsigned char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	unsigned char *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* A load of a broken file either fails with -ENOEXEC, leaving *ret alone, or gives a
 * table that answers every question without reading out of bounds. */
static int load_any(const char *path)
{
	struct pmc_symtab *t = (struct pmc_symtab *)(uintptr_t)1;
	char err[512] = "";
	int rc = pmc_symtab_load_debug(path, "/nonexistent", &t, err, sizeof(err));

	if (rc < 0) {
		assert_int_equal(rc, -ENOEXEC);
		assert_ptr_equal(t, (struct pmc_symtab *)(uintptr_t)1);
		assert_true(err[0] != '\0');
		return rc;
	}
	for (uint64_t a = 0; a < 0x10000; a += 0x101) {
		uint64_t v;

		if (pmc_symtab_vaddr(t, a, &v) == 0)
			(void)pmc_symtab_lookup(t, v, NULL);
		(void)pmc_symtab_lookup(t, a, NULL);
	}
	(void)pmc_symtab_build_id(t);
	pmc_symtab_free(t);
	return 0;
}

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

static void broken_files_are_errors_not_crashes(void **state)
{
	char tmp[] = "/tmp/pmc-symtest-XXXXXX";
	char path[512], err[512] = "";
	struct pmc_symtab *t = NULL;
	unsigned char *elf, *buf;
	size_t len, failed = 0;
	uint32_t seed = 12345;

	(void)state;
	assert_non_null(mkdtemp(tmp));
	snprintf(path, sizeof(path), "%s/f", tmp);

	assert_int_equal(pmc_symtab_load("/nonexistent/x", &t, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/x"));
	assert_int_equal(pmc_symtab_load(PMC_TEST_SRCDIR "/test_symbols.c", &t, err, sizeof(err)),
			 -ENOEXEC);
	assert_non_null(strstr(err, "not an ELF file"));
	assert_null(t);
	write_file(path, "", 0);
	assert_int_equal(load_any(path), -ENOEXEC);

	elf = read_all(PMC_TEST_SYM_PIE, &len);
	buf = malloc(len);
	assert_non_null(buf);
	/* Truncated: the section headers are at the end of the file, so every cut loses
	 * them, or the ELF header itself. */
	for (size_t cut = 0; cut < len; cut += cut < 128 ? 7 : 997) {
		write_file(path, elf, cut);
		assert_int_equal(load_any(path), -ENOEXEC);
	}
	write_file(path, elf, len - 1);
	assert_int_equal(load_any(path), -ENOEXEC);
	/* The ELF magic followed by noise. */
	for (int k = 0; k < 50; k++) {
		memcpy(buf, elf, 16);
		for (size_t i = 16; i < 4096 && i < len; i++)
			buf[i] = (unsigned char)lcg(&seed);
		write_file(path, buf, len < 4096 ? len : 4096);
		load_any(path);
	}
	/* The real file with a few bytes changed, anywhere: headers, tables, strings. */
	for (int k = 0; k < 300; k++) {
		memcpy(buf, elf, len);
		for (int j = 0; j < 8; j++)
			buf[lcg(&seed) % len] = (unsigned char)lcg(&seed);
		write_file(path, buf, len);
		failed += load_any(path) < 0;
	}
	/* Most changes hit code or padding, which loads; the run must not crash either way. */
	assert_true(failed < 300);
	unlink(path);
	rmdir(tmp);
	free(buf);
	free(elf);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(names_pie_functions),
	    cmocka_unit_test(names_non_pie_functions),
	    cmocka_unit_test(reads_the_build_id),
	    cmocka_unit_test(stripped_binary_gives_addresses_not_names),
	    cmocka_unit_test(stripped_binary_names_from_its_debug_file),
	    cmocka_unit_test(stripped_binary_names_through_its_debuglink),
	    cmocka_unit_test(untyped_code_symbols_with_a_size_are_functions),
	    cmocka_unit_test(plt_stubs_are_named),
	    cmocka_unit_test(vdso_image_has_its_functions),
	    cmocka_unit_test(vaddr_outside_segments_is_enoent),
	    cmocka_unit_test(broken_files_are_errors_not_crashes),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

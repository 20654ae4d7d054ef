/* Function symbols of an ELF file (symbols.h), read with libelf. Every size, index and
 * offset read from the file is checked by libelf (gelf_getsym and elf_strptr against the
 * section's data, elf_getdata against the file) or here, since the files profiled are
 * whatever a task mapped. ELF_C_READ copies what it reads: a file truncated while it is
 * read cannot fault as a mapping of it would. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/grow.h"
#include "elf/buildid_priv.h"
#include "elf/elf_priv.h"
#include "elf/plt.h"
#include "elf/symbols.h"
#include "elf/symbols_priv.h"

struct sym {
	uint64_t addr, size;
	uint64_t bound;	 /* the end of the symbol's section, 0 when unknown */
	size_t name;	 /* offset into the name pool while loading */
	const char *str; /* the name, once the pool stops moving */
	unsigned rank;	 /* binding: 0 global or unique, 1 weak, 2 local */
	bool label;	 /* untyped and unsized: names what no function covers */
};

struct seg {
	uint64_t off, filesz, vaddr;
};

struct pmc_symtab {
	struct sym *syms;
	size_t n, cap;
	char *pool;
	size_t pool_len, pool_cap;
	struct seg *segs;
	size_t nsegs;
	char *build_id;
	bool has_debug; /* symbols came from a separate debug file */
};

/* The CRC-32 of ISO 3309 (zlib's crc32), which .gnu_debuglink carries, of the whole file
 * behind fd. Returns 0 or -errno. */
static int pmc_crc32_fd(int fd, uint32_t *ret)
{
	static uint32_t table[256];
	unsigned char buf[65536];
	uint32_t crc = 0xffffffffu;
	ssize_t n;

	if (!table[1])
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;

			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (ssize_t i = 0; i < n; i++)
			crc = table[(crc ^ buf[i]) & 0xff] ^ (crc >> 8);
	}
	*ret = crc ^ 0xffffffffu;
	return 0;
}

static int add_sym(struct pmc_symtab *t, const GElf_Sym *s, const char *name, uint64_t bound)
{
	size_t len = strlen(name) + 1;
	struct sym *y;
	int rc;

	if ((rc = pmc_grow_to(&t->syms, &t->cap, t->n + 1, sizeof(*t->syms))) < 0 ||
	    (rc = pmc_grow_to(&t->pool, &t->pool_cap, t->pool_len + len, 1)) < 0)
		return rc;
	memcpy(t->pool + t->pool_len, name, len);
	y = &t->syms[t->n++];
	y->addr = s->st_value;
	/* A size running past the end of the address space is the file's error: cut it. */
	y->size = s->st_size <= UINT64_MAX - s->st_value ? s->st_size : UINT64_MAX - s->st_value;
	y->bound = bound;
	y->name = t->pool_len;
	y->str = NULL;
	y->label = GELF_ST_TYPE(s->st_info) == STT_NOTYPE && s->st_size == 0;
	switch (GELF_ST_BIND(s->st_info)) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		y->rank = 0;
		break;
	case STB_WEAK:
		y->rank = 1;
		break;
	default:
		y->rank = 2;
	}
	t->pool_len += len;
	return 0;
}

/* Adds the defined function symbols of one SHT_SYMTAB or SHT_DYNSYM section. Returns 0,
 * -ENOEXEC when the section's data cannot be read (a truncated or corrupt file), or
 * -ENOMEM. */
static int load_section(struct pmc_symtab *t, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n, entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);

	if (sh->sh_size == 0)
		return 0;
	if (!d || !d->d_buf || sh->sh_entsize == 0 || entsize == 0)
		return -ENOEXEC;
	n = d->d_size / entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		GElf_Shdr ssh;
		Elf_Scn *sscn;
		const char *name;
		uint64_t bound = 0;
		int type, rc;
		bool in_section;

		if (!gelf_getsym(d, (int)i, &s))
			return -ENOEXEC;
		type = GELF_ST_TYPE(s.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE) ||
		    s.st_shndx == SHN_UNDEF || s.st_value == 0)
			continue;
		/* Only an ordinary section index names a section; SHN_ABS and the other
		 * reserved indexes leave the end unknown. */
		in_section = s.st_shndx < SHN_LORESERVE && (sscn = elf_getscn(elf, s.st_shndx)) &&
			     gelf_getshdr(sscn, &ssh) && ssh.sh_addr <= s.st_value &&
			     s.st_value - ssh.sh_addr < ssh.sh_size;
		/* Assembly entry points are often untyped (ld.so's _dl_start_user): an
		 * untyped symbol is code when it lies in code. Without a size it is a label
		 * (ld.so's _start), which names only what no function covers, as perf names
		 * it (pmc_symtab_lookup). */
		if (type == STT_NOTYPE && (!in_section || !(ssh.sh_flags & SHF_EXECINSTR)))
			continue;
		name = elf_strptr(elf, sh->sh_link, s.st_name);
		if (!name || !*name)
			continue;
		if (in_section)
			bound = ssh.sh_addr + ssh.sh_size;
		if ((rc = add_sym(t, &s, name, bound)) < 0)
			return rc;
	}
	return 0;
}

/* Adds the symbols of every SHT_SYMTAB (and, unless symtab_only, SHT_DYNSYM) section of
 * elf; *ret_has_symtab says whether there was a non-empty SHT_SYMTAB. */
static int load_symbols(struct pmc_symtab *t, Elf *elf, bool symtab_only, bool *ret_has_symtab)
{
	Elf_Scn *scn = NULL;
	bool has = false;
	size_t shnum;
	int rc;

	if (elf_getshdrnum(elf, &shnum) < 0)
		return -ENOEXEC;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return -ENOEXEC;
		if (sh.sh_type == SHT_SYMTAB && sh.sh_size > 0)
			has = true;
		else if (sh.sh_type != SHT_DYNSYM || symtab_only)
			continue;
		if ((rc = load_section(t, elf, scn, &sh)) < 0)
			return rc;
	}
	if (ret_has_symtab)
		*ret_has_symtab = has;
	return 0;
}

static int load_segments(struct pmc_symtab *t, Elf *elf)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) < 0)
		return -ENOEXEC;
	if (n == 0)
		return 0;
	t->segs = calloc(n, sizeof(*t->segs));
	if (!t->segs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			return -ENOEXEC;
		if (ph.p_type != PT_LOAD || ph.p_filesz == 0 ||
		    ph.p_filesz > UINT64_MAX - ph.p_offset || ph.p_filesz > UINT64_MAX - ph.p_vaddr)
			continue;
		t->segs[t->nsegs++] = (struct seg){ph.p_offset, ph.p_filesz, ph.p_vaddr};
	}
	return 0;
}

static unsigned leading_underscores(const char *s)
{
	unsigned n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* Address order; among symbols at one address the one that names it, first: a sized
 * one, then global before weak before local, then the fewest leading underscores (the
 * public name rather than an internal alias), then the shortest, then byte order. The
 * rule depends on nothing but the symbols, so every load names an address alike. */
static int cmp_sym(const void *pa, const void *pb)
{
	const struct sym *a = pa, *b = pb;
	unsigned ua, ub;
	size_t la, lb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if ((a->size == 0) != (b->size == 0))
		return a->size == 0 ? 1 : -1;
	if (a->label != b->label)
		return a->label ? 1 : -1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	ua = leading_underscores(a->str);
	ub = leading_underscores(b->str);
	if (ua != ub)
		return ua < ub ? -1 : 1;
	la = strlen(a->str);
	lb = strlen(b->str);
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(a->str, b->str);
}

/* Sorts, keeps the best symbol of each address, and gives a symbol without a size the
 * bytes up to the next symbol (a function's: the next that is no label) or the end of its
 * section, whichever comes first. */
static void finish(struct pmc_symtab *t)
{
	size_t k = 0;

	for (size_t i = 0; i < t->n; i++)
		t->syms[i].str = t->pool + t->syms[i].name;
	if (t->n)
		qsort(t->syms, t->n, sizeof(*t->syms), cmp_sym);
	for (size_t i = 0; i < t->n; i++)
		if (k == 0 || t->syms[k - 1].addr != t->syms[i].addr)
			t->syms[k++] = t->syms[i];
	t->n = k;
	for (size_t i = 0; i < t->n; i++) {
		struct sym *s = &t->syms[i];
		uint64_t end = s->bound;

		size_t j = i + 1;

		if (s->size)
			continue;
		while (!s->label && j < t->n && t->syms[j].label)
			j++;
		if (j < t->n && (end == 0 || t->syms[j].addr < end))
			end = t->syms[j].addr;
		/* Without a section the end is unknown: the symbol then covers nothing
		 * rather than everything up to a far neighbour. */
		if (s->bound && end > s->addr)
			s->size = end - s->addr;
	}
}

/* Adds the .symtab of the ELF file at path when it is the debug file of t: its build-id is
 * t's, or (want_crc) its CRC-32 is the one the debuglink gives. Anything else adds
 * nothing: a debug file is optional, and a wrong one must not name addresses. Returns 0
 * or -ENOMEM. */
static int add_debug_file(struct pmc_symtab *t, const char *path, bool want_crc, uint32_t crc)
{
	struct pmc_elf_file f;
	char err[8], *id = NULL;
	size_t before = t->n, pool_before = t->pool_len;
	uint32_t got;
	int rc = 0;

	if (pmc_elf_open(path, path, &f, err, sizeof(err)) < 0)
		return 0;
	if (want_crc ? pmc_crc32_fd(f.fd, &got) < 0 || got != crc
		     : pmc_build_id_elf(f.elf, &id) < 0 || strcmp(id, t->build_id) != 0)
		goto out;
	rc = load_symbols(t, f.elf, true, NULL);
	/* A corrupt debug file adds nothing; only running out of memory is an error. */
	if (rc == -ENOEXEC) {
		t->n = before;
		t->pool_len = pool_before;
		rc = 0;
	}
	if (rc == 0 && t->n > before)
		t->has_debug = true;
out:
	free(id);
	pmc_elf_close(&f);
	return rc;
}

/* The file name and CRC-32 of elf's .gnu_debuglink section (the name, NUL-terminated,
 * padded to 4 bytes, then the CRC in the file's byte order). Returns 0 or -ENOENT. */
static int read_debuglink(Elf *elf, const GElf_Ehdr *eh, char *name, size_t len, uint32_t *ret_crc)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return -ENOENT;
	while ((scn = elf_nextscn(elf, scn))) {
		const unsigned char *b;
		Elf_Data *d;
		GElf_Shdr sh;
		const char *sname;
		size_t n, at;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sname = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(sname, ".gnu_debuglink") != 0)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return -ENOENT;
		b = d->d_buf;
		n = strnlen((const char *)b, d->d_size);
		at = (n + 4) & ~(size_t)3;
		/* A name that is a path would leave the directories searched. */
		if (n == 0 || n >= len || at + 4 > d->d_size || memchr(b, '/', n))
			return -ENOENT;
		memcpy(name, b, n + 1);
		*ret_crc = eh->e_ident[EI_DATA] == ELFDATA2MSB
			       ? (uint32_t)b[at] << 24 | (uint32_t)b[at + 1] << 16 |
				     (uint32_t)b[at + 2] << 8 | b[at + 3]
			       : (uint32_t)b[at + 3] << 24 | (uint32_t)b[at + 2] << 16 |
				     (uint32_t)b[at + 1] << 8 | b[at];
		return 0;
	}
	return -ENOENT;
}

/* Adds the symbols of a stripped file's separate debug file, found as gdb and perf find
 * it: by build-id, <root>/.build-id/xx/rest.debug; else by its .gnu_debuglink, in the
 * file's own directory, its .debug/ subdirectory, then <root>/DIR. path is NULL for an
 * image that is no file (it has no directory to search). */
static int load_debug_files(struct pmc_symtab *t, Elf *elf, const GElf_Ehdr *eh, const char *path,
			    const char *root)
{
	char file[4096], link[256], *real = NULL, *slash;
	uint32_t crc;
	int n, rc = 0;

	if (t->build_id && strlen(t->build_id) >= 4) {
		n = snprintf(file, sizeof(file), "%s/.build-id/%.2s/%s.debug", root, t->build_id,
			     t->build_id + 2);
		if (n > 0 && (size_t)n < sizeof(file) &&
		    ((rc = add_debug_file(t, file, false, 0)) < 0 || t->has_debug))
			return rc;
	}
	if (!path || read_debuglink(elf, eh, link, sizeof(link), &crc) < 0)
		return 0;
	if (!(real = realpath(path, NULL)))
		return errno == ENOMEM ? -ENOMEM : 0;
	slash = strrchr(real, '/');
	*slash = '\0';
	/* A debuglink that names the file itself (<dir>/<link> is the file) is skipped. */
	for (int i = 0; i < 3 && rc == 0 && !t->has_debug; i++) {
		if (i == 0 && strcmp(link, slash + 1) == 0)
			continue;
		n = snprintf(file, sizeof(file), "%s%s%s/%s", i == 2 ? root : "", real,
			     i == 1 ? "/.debug" : "", link);
		if (n > 0 && (size_t)n < sizeof(file))
			rc = add_debug_file(t, file, true, crc);
	}
	free(real);
	return rc;
}

/* Whether the header tables the ELF header points to lie inside the file's size bytes.
 * libelf skips a section header table past the end of a file as if there were none,
 * which would make a truncated file look like one without symbols. */
static bool tables_fit(const GElf_Ehdr *eh, uint64_t size)
{
	uint64_t n;

	/* e_shnum 0 with a table: the count is in section 0 (extended numbering). */
	n = eh->e_shnum ? eh->e_shnum : 1;
	if (eh->e_shoff && (eh->e_shoff > size || n * eh->e_shentsize > size - eh->e_shoff))
		return false;
	if (eh->e_phoff &&
	    (eh->e_phoff > size || (uint64_t)eh->e_phnum * eh->e_phentsize > size - eh->e_phoff))
		return false;
	return true;
}

/* A PLT stub (plt.h) as a local function symbol: a name of its own is every symbol's. */
static int add_plt(void *ud, uint64_t addr, uint64_t size, const char *name)
{
	GElf_Sym s = {
	    .st_value = addr, .st_size = size, .st_info = GELF_ST_INFO(STB_LOCAL, STT_FUNC)};

	return add_sym(ud, &s, name, 0);
}

/* The symbols of an open ELF image of size bytes into *ret; path is the file it was
 * read from (NULL for an image in memory), q how messages name it. */
static int load_elf(Elf *elf, const GElf_Ehdr *eh, uint64_t size, const char *path, const char *q,
		    const char *debug_root, struct pmc_symtab **ret, char *err, size_t errlen)
{
	struct pmc_symtab *t;
	bool has_symtab = false;
	int rc;

	if (!tables_fit(eh, size)) {
		pmc_err_set(err, errlen,
			    "%s: a truncated ELF file (its header tables end past the end of the "
			    "file); rebuild or reinstall it",
			    q);
		return -ENOEXEC;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		pmc_err_set(err, errlen, "%s: out of memory", q);
		return -ENOMEM;
	}
	rc = pmc_build_id_elf(elf, &t->build_id);
	if (rc < 0 && rc != -ENODATA)
		goto fail;
	if ((rc = load_segments(t, elf)) < 0 ||
	    (rc = load_symbols(t, elf, false, &has_symtab)) < 0 ||
	    (rc = pmc_plt_symbols(elf, eh, add_plt, t)) < 0)
		goto fail;
	if (!has_symtab &&
	    (rc = load_debug_files(t, elf, eh, path, debug_root ? debug_root : PMC_DEBUG_ROOT)) < 0)
		goto fail;
	finish(t);
	*ret = t;
	return 0;

fail:
	if (rc == -ENOMEM)
		pmc_err_set(err, errlen, "%s: out of memory reading its symbols", q);
	else {
		int e = elf_errno();

		pmc_err_set(err, errlen,
			    "%s: a truncated or corrupt ELF file (%s); rebuild or reinstall it", q,
			    e ? elf_errmsg(e) : "bad headers or symbol tables");
	}
	pmc_symtab_free(t);
	return rc;
}

int pmc_symtab_load_debug(const char *path, const char *debug_root, struct pmc_symtab **ret,
			  char *err, size_t errlen)
{
	char q[PMC_QUOTE_SIZE(256)];
	struct pmc_elf_file f;
	struct stat st;
	int rc;

	if (!path || !ret)
		return -EINVAL;
	pmc_quote(q, sizeof(q), path);
	rc = pmc_elf_open(path, q, &f, err, errlen);
	if (rc < 0)
		return rc;
	if (fstat(f.fd, &st) < 0 || st.st_size < 0) {
		rc = -errno;
		pmc_err_set(err, errlen, "%s: %s", q, strerror(errno));
	} else {
		rc = load_elf(f.elf, &f.eh, (uint64_t)st.st_size, path, q, debug_root, ret, err,
			      errlen);
	}
	pmc_elf_close(&f);
	return rc;
}

int pmc_symtab_load_image(const void *image, size_t size, const char *name, struct pmc_symtab **ret,
			  char *err, size_t errlen)
{
	char q[PMC_QUOTE_SIZE(256)];
	GElf_Ehdr eh;
	char *copy;
	Elf *elf;
	int rc;

	if (!image || !name || !ret)
		return -EINVAL;
	pmc_quote(q, sizeof(q), name);
	if (elf_version(EV_CURRENT) == EV_NONE) {
		pmc_err_set(err, errlen, "libelf: %s", elf_errmsg(-1));
		return -ENOSYS;
	}
	/* A copy: libelf may translate the image in place, and the symbols must not depend
	 * on memory the caller keeps. */
	copy = malloc(size ? size : 1);
	if (!copy) {
		pmc_err_set(err, errlen, "%s: out of memory", q);
		return -ENOMEM;
	}
	memcpy(copy, image, size);
	elf = elf_memory(copy, size);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		pmc_err_set(err, errlen, "%s: not an ELF image", q);
		rc = -ENOEXEC;
	} else {
		rc = load_elf(elf, &eh, size, NULL, q, NULL, ret, err, errlen);
	}
	if (elf)
		elf_end(elf);
	free(copy);
	return rc;
}

int pmc_symtab_load(const char *path, struct pmc_symtab **ret, char *err, size_t errlen)
{
	return pmc_symtab_load_debug(path, NULL, ret, err, errlen);
}

const char *pmc_symtab_build_id(const struct pmc_symtab *t)
{
	return t ? t->build_id : NULL;
}

bool pmc_symtab_build_id_is(const struct pmc_symtab *t, const uint8_t *id, size_t len)
{
	static const char hex[] = "0123456789abcdef";

	if (!t || !t->build_id || !id || len == 0 || strlen(t->build_id) != 2 * len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (t->build_id[2 * i] != hex[id[i] >> 4] ||
		    t->build_id[2 * i + 1] != hex[id[i] & 15])
			return false;
	return true;
}

int pmc_symtab_vaddr(const struct pmc_symtab *t, uint64_t off, uint64_t *ret_vaddr)
{
	if (!t || !ret_vaddr)
		return -EINVAL;
	for (size_t i = 0; i < t->nsegs; i++) {
		const struct seg *s = &t->segs[i];

		if (off >= s->off && off - s->off < s->filesz) {
			*ret_vaddr = s->vaddr + (off - s->off);
			return 0;
		}
	}
	return -ENOENT;
}

const char *pmc_symtab_lookup(const struct pmc_symtab *t, uint64_t vaddr, uint64_t *ret_off)
{
	uint64_t start;
	const char *name = pmc_symtab_lookup_range(t, vaddr, &start, NULL);

	if (name && ret_off)
		*ret_off = vaddr - start;
	return name;
}

const char *pmc_symtab_lookup_range(const struct pmc_symtab *t, uint64_t vaddr, uint64_t *ret_start,
				    uint64_t *ret_size)
{
	size_t lo = 0, hi;
	const struct sym *s;

	if (!t || t->n == 0)
		return NULL;
	/* The last symbol starting at or below vaddr. */
	hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	s = &t->syms[lo - 1];
	/* A label inside a function is no name of its own: the function's first. */
	if (s->label) {
		size_t i = lo - 1;

		while (i > 0 && t->syms[i].label)
			i--;
		if (!t->syms[i].label && vaddr - t->syms[i].addr < t->syms[i].size)
			s = &t->syms[i];
	}
	if (vaddr - s->addr >= s->size)
		return NULL;
	if (ret_start)
		*ret_start = s->addr;
	if (ret_size)
		*ret_size = s->size;
	return s->str;
}

size_t pmc_symtab_count(const struct pmc_symtab *t)
{
	return t ? t->n : 0;
}

void pmc_symtab_free(struct pmc_symtab *t)
{
	if (!t)
		return;
	free(t->syms);
	free(t->pool);
	free(t->segs);
	free(t->build_id);
	free(t);
}

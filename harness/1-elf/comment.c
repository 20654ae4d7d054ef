/* The `.comment` section of an ELF file, read with libelf (comment.h). Compilers and
 * linkers each append their identification string to it (GCC's ident, clang's version,
 * lld's "Linker:"), and the static linker merges the copies from every object into one
 * of each (SHF_MERGE | SHF_STRINGS: the System V gABI, "Sections"); strip(1) keeps it. */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "elf/comment.h"
#include "elf/elf_priv.h"

/* The section's strings without the empty ones, into *ret. */
static int strings_of(const char *d, size_t size, char **ret, size_t *ret_len)
{
	char *out = malloc(size + 1);
	size_t len = 0;

	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < size;) {
		size_t n = strnlen(d + i, size - i);

		if (n > 0) {
			memcpy(out + len, d + i, n);
			out[len + n] = '\0';
			len += n + 1;
		}
		i += n + 1;
	}
	if (len == 0) {
		free(out);
		return -ENODATA;
	}
	*ret = out;
	*ret_len = len;
	return 0;
}

int pmc_elf_comment(const char *path, char **ret, size_t *ret_len)
{
	struct pmc_elf_file f;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	char err[256];
	int rc;

	rc = pmc_elf_open(path, path, &f, err, sizeof(err));
	if (rc < 0)
		return rc;
	rc = -ENODATA;
	if (elf_getshdrstrndx(f.elf, &shstrndx) < 0)
		goto out;
	while ((scn = elf_nextscn(f.elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(name = elf_strptr(f.elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".comment") != 0)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf && d->d_size > 0)
			rc = strings_of(d->d_buf, d->d_size, ret, ret_len);
		break;
	}
out:
	pmc_elf_close(&f);
	return rc;
}

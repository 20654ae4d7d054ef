/* Opening an ELF file for reading, the one way the elf layer does it (elf_priv.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "elf/elf_priv.h"

int pmc_elf_open(const char *path, const char *shown, struct pmc_elf_file *ret, char *err,
		 size_t errlen)
{
	struct pmc_elf_file f = {.fd = -1};

	if (elf_version(EV_CURRENT) == EV_NONE) {
		pmc_err_set(err, errlen, "libelf: %s", elf_errmsg(-1));
		return -ENOSYS;
	}
	f.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f.fd < 0) {
		int e = errno;

		pmc_err_set(err, errlen, "%s: %s", shown, strerror(e));
		return -e;
	}
	f.elf = elf_begin(f.fd, ELF_C_READ, NULL);
	if (!f.elf || elf_kind(f.elf) != ELF_K_ELF || !gelf_getehdr(f.elf, &f.eh)) {
		pmc_err_set(err, errlen, "%s: not an ELF file", shown);
		pmc_elf_close(&f);
		return -ENOEXEC;
	}
	*ret = f;
	return 0;
}

void pmc_elf_close(struct pmc_elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
}

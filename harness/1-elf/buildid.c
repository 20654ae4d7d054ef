/* The GNU build-id of an ELF file, read with libelf (buildid.h). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/buildid.h"
#include "elf/buildid_priv.h"
#include "elf/elf_priv.h"

/* Looks for an NT_GNU_BUILD_ID note in one note section or segment. Returns 0 with the
 * id as hex in *ret, -ENODATA when there is none, or -ENOMEM. */
static int build_id_in(Elf_Data *data, char **ret)
{
	GElf_Nhdr nhdr;
	size_t off = 0, name_off, desc_off, next;

	while ((next = gelf_getnote(data, off, &nhdr, &name_off, &desc_off)) > 0) {
		const unsigned char *base = data->d_buf;

		if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_namesz == sizeof(ELF_NOTE_GNU) &&
		    memcmp(base + name_off, ELF_NOTE_GNU, sizeof(ELF_NOTE_GNU)) == 0 &&
		    nhdr.n_descsz > 0) {
			char *hex = malloc(nhdr.n_descsz * 2 + 1);

			if (!hex)
				return -ENOMEM;
			for (size_t i = 0; i < nhdr.n_descsz; i++)
				snprintf(hex + 2 * i, 3, "%02x", base[desc_off + i]);
			*ret = hex;
			return 0;
		}
		off = next;
	}
	return -ENODATA;
}

int pmc_build_id_elf(Elf *elf, char **ret)
{
	char *id = NULL;
	Elf_Scn *scn = NULL;
	size_t nphdr;
	int rc = -ENODATA;

	/* Section headers first; a binary stripped of them still has the PT_NOTE segment
	 * the loader maps, which is what the kernel and perf read. */
	while (rc == -ENODATA && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;

		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == SHT_NOTE &&
		    (data = elf_getdata(scn, NULL)))
			rc = build_id_in(data, &id);
	}
	if (rc == -ENODATA && elf_getphdrnum(elf, &nphdr) == 0) {
		for (size_t i = 0; rc == -ENODATA && i < nphdr; i++) {
			GElf_Phdr phdr;
			Elf_Data *data;

			if (gelf_getphdr(elf, (int)i, &phdr) && phdr.p_type == PT_NOTE &&
			    (data = elf_getdata_rawchunk(elf, (int64_t)phdr.p_offset, phdr.p_filesz,
							 ELF_T_NHDR)))
				rc = build_id_in(data, &id);
		}
	}
	if (rc < 0)
		return rc;
	*ret = id;
	return 0;
}

int pmc_build_id(const char *path, char **ret)
{
	struct pmc_elf_file f;
	char *id = NULL;
	int rc;

	if (!path || !ret)
		return -EINVAL;
	rc = pmc_elf_open(path, path, &f, NULL, 0);
	if (rc < 0)
		return rc;
	rc = pmc_build_id_elf(f.elf, &id);
	pmc_elf_close(&f);
	if (rc < 0)
		return rc;
	*ret = id;
	return 0;
}

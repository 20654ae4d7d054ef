/* libdw's debug files found on this machine only (debuginfo.h). */
#include "profile/debuginfo.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whether the ELF file open on fd has the build-id bits (len bytes). */
static bool has_build_id(int fd, const unsigned char *bits, int len)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *id = NULL;
	bool same;

	if (!elf)
		return false;
	same = dwelf_elf_gnu_build_id(elf, &id) == len && memcmp(id, bits, (size_t)len) == 0;
	elf_end(elf);
	return same;
}

/* The debuglink's file in the three places gdb looks, its build-id the module's. */
static int find_by_debuglink(const char *file_name, const char *link, const unsigned char *bits,
			     int len, char **ret_name)
{
	char *real = realpath(file_name, NULL), *slash, cand[PATH_MAX];
	int fd = -1;

	if (!real || !(slash = strrchr(real, '/'))) {
		free(real);
		return -1;
	}
	*slash = '\0';
	for (int i = 0; i < 3 && fd < 0; i++) {
		int n = snprintf(cand, sizeof(cand), "%s%s%s/%s", i == 2 ? "/usr/lib/debug" : "",
				 real, i == 1 ? "/.debug" : "", link);

		/* A debuglink that names the file itself is not its debug file. */
		if (n <= 0 || (size_t)n >= sizeof(cand) || (i == 0 && !strcmp(link, slash + 1)))
			continue;
		if ((fd = open(cand, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		if (!has_build_id(fd, bits, len)) {
			close(fd);
			fd = -1;
		} else if (!(*ret_name = strdup(cand))) {
			close(fd);
			fd = -1;
			break;
		}
	}
	free(real);
	return fd;
}

int pmc_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		       const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
		       char **debuginfo_file_name)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int len, fd;

	if ((urls && *urls) || (len = dwfl_module_build_id(mod, &bits, &vaddr)) <= 0)
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
						    debuglink_file, debuglink_crc,
						    debuginfo_file_name);
	fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
					  debuglink_crc, debuginfo_file_name);
	if (fd >= 0 || !file_name || !debuglink_file || strchr(debuglink_file, '/'))
		return fd;
	return find_by_debuglink(file_name, debuglink_file, bits, len, debuginfo_file_name);
}

/* Build-ids of ELF files (libelf): they say which binary a result measured. */
#pragma once

/* The GNU build-id of the ELF file at path as lower-case hex in *ret (malloc'd, the
 * caller frees). Returns 0, -ENOENT (or another -errno of open), -ENOEXEC when the file
 * is not ELF, -ENODATA when it has no build-id. */
int pmc_build_id(const char *path, char **ret);

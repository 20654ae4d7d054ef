/* Build-ids of ELF files (libelf): they say which binary a result measured. */
#pragma once

/* The GNU build-id of the ELF file at path as lower-case hex (malloc'd), or NULL with
 * errno set (ENOENT, ENOEXEC when not ELF, ENODATA when it has no build-id). */
char *pmc_build_id(const char *path);

/* The build-id reading of buildid.c on an ELF file that is already open, shared with
 * symbols.c so that the build-id is read in one place. */
#pragma once

#include <libelf.h>

/* The GNU build-id of elf as lower-case hex in *ret (malloc'd). Returns 0, -ENODATA when
 * the file has none, or -ENOMEM. */
int pmc_build_id_elf(Elf *elf, char **ret);

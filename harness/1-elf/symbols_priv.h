/* pmc_symtab_load() with the root of the debug-file tree as a parameter, so that tests
 * can put a debug file where a stripped binary's build-id points without writing under
 * /usr/lib/debug. */
#pragma once

#include <stddef.h>

struct pmc_symtab;

/* The directory whose ".build-id/xx/rest.debug" files pmc_symtab_load() reads. */
#define PMC_DEBUG_ROOT "/usr/lib/debug"

/* pmc_symtab_load() with debug files under debug_root (NULL: PMC_DEBUG_ROOT). */
int pmc_symtab_load_debug(const char *path, const char *debug_root, struct pmc_symtab **ret,
			  char *err, size_t errlen);

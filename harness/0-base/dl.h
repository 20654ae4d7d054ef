/* Libraries loaded when first needed (dlopen) instead of linked: Capstone, libsqlite3 and
 * libpq, whose relocations every start of pmcbench would pay otherwise (issue 37). Each
 * module keeps a table of the functions it calls and fills it through pmc_dl_load. */
#pragma once

#include <stddef.h>

/* The name of function f, for a table's list of names: { LIST(PMC_DL_NAME) }. */
#define PMC_DL_NAME(f) #f,

/* Opens soname (RTLD_NOW | RTLD_LOCAL; never closed, as a linked library would not be)
 * and sets *slots[i] to its function names[i], for each of the n. 0, or -ENOENT with why
 * it failed (dlerror's words, or the first function missing) in why. */
int pmc_dl_load(const char *soname, const char *const *names, void **const *slots, size_t n,
		char *why, size_t whylen);

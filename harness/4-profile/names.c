/* One name for one function whichever backend saw it (names.h).
 *
 * The demangler is libiberty's cplus_demangle_v3 (Debian's libiberty-dev, a static
 * archive), not libstdc++'s __cxa_demangle: both are the same cp-demangle.c of GCC, and
 * valgrind carries a copy of it too, so with valgrind's options (DMGL_PARAMS |
 * DMGL_ANSI, coregrind/m_demangle) the sampler's names are the exact profiles' names
 * byte for byte. The archive's cp-demangle.o is the only member linked (safe-ctype and
 * the rest of libiberty stay out), it carries GCC's linking exception ("unlimited
 * permission to link the compiled version of this file into combinations with other
 * programs"), and libpmcbench stays a C library: __cxa_demangle would make libstdc++ a
 * run-time dependency of every program that links it. elfutils has no demangler of its
 * own (its tools call __cxa_demangle). */
#include <errno.h>
#include <libiberty/demangle.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "profile/names.h"

/* Where a symbol version starts ("name@VERSION", "name@@VERSION": the default version,
 * as binutils and valgrind print .dynsym names), or the end of s. "@plt" is a PLT stub,
 * other code than the function, and stays. */
static size_t version_at(const char *s)
{
	const char *at = strchr(s, '@'), *v;
	size_t len = strlen(s);

	if (!at || at == s)
		return len;
	v = at[1] == '@' ? at + 2 : at + 1;
	if (!*v || !strcmp(v, "plt") ||
	    strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		      "0123456789_.") != strlen(v))
		return len;
	return (size_t)(at - s);
}

/* Whether s names a function below main, as valgrind tells them (its
 * VG_(get_fnname_kind): crt1's _start and glibc's __libc_start_main, to which 3.18 added
 * glibc 2.34's __libc_start_call_main): GCC's clones ("_start.cold") and glibc 2.34's
 * symbols of __libc_start_main ("__libc_start_main_impl", "__libc_start_main_alias_2")
 * included, which valgrind misses. */
static bool below_main(const char *s)
{
	static const char *const names[] = {"_start", "__libc_start_main", "__libc_start_call_main",
					    "generic_start_main", PMC_PROFILE_BELOW_MAIN};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = strlen(names[i]);

		if (!strncmp(s, names[i], n) && (s[n] == '\0' || s[n] == '.'))
			return true;
	}
	return !strncmp(s, "__libc_start_main_", strlen("__libc_start_main_"));
}

bool pmc_profile_entry_point(const char *name)
{
	static const char *const names[] = {"main",   "start_thread", "clone",	     "__clone",
					    "clone3", "__clone3",     "thread_start"};

	if (!name)
		return false;
	if (!strcmp(name, PMC_PROFILE_BELOW_MAIN) || below_main(name))
		return true;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

int pmc_profile_symbol_name(const char *sym, char **ret)
{
	size_t end = version_at(sym);
	char *base = NULL, *dem = NULL;
	const char *name = sym;

	*ret = NULL;
	if (sym[end]) {
		base = strndup(sym, end);
		if (!base)
			return -ENOMEM;
		name = base;
	}
	/* Only the ABI's prefix: demangling a C name that happens to parse would rename it. */
	if (name[0] == '_' && name[1] == 'Z') {
		dem = cplus_demangle_v3(name, DMGL_PARAMS | DMGL_ANSI);
		if (dem)
			name = dem;
		/* NULL: not a mangled name after all, or no memory; the name stays. */
	}
	if (below_main(name) && (name != sym || strcmp(name, PMC_PROFILE_BELOW_MAIN))) {
		free(base);
		free(dem);
		*ret = strdup(PMC_PROFILE_BELOW_MAIN);
		return *ret ? 0 : -ENOMEM;
	}
	if (name == sym)
		return 0;
	if (name == dem) {
		free(base);
		*ret = dem;
	} else {
		*ret = base;
	}
	return 0;
}

/* Libraries loaded when first needed (dl.h). */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>

#include "base/dl.h"

int pmc_dl_load(const char *soname, const char *const *names, void **const *slots, size_t n,
		char *why, size_t whylen)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	const char *err;

	if (!h) {
		err = dlerror();
		snprintf(why, whylen, "%s", err ? err : soname);
		return -ENOENT;
	}
	for (size_t i = 0; i < n; i++) {
		*slots[i] = dlsym(h, names[i]);
		if (!*slots[i]) {
			snprintf(why, whylen, "%s has no %s", soname, names[i]);
			return -ENOENT;
		}
	}
	return 0;
}

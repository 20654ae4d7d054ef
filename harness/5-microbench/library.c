/* A shared object's registered benchmarks, in memory (library.h). */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

#include "base/error.h"
#include "elf/section.h"
#include "microbench/library.h"

int pmc_mb_library_open(const char *path, struct pmc_mb_library *ret, char *err, size_t errlen)
{
	struct pmc_elf_section sec;
	struct link_map *lm = NULL;
	uintptr_t base;
	void *h;
	int r;

	if (!path || !ret)
		return -EINVAL;
	r = pmc_elf_find_section(path, PMC_BENCH_SECTION, &sec, err, errlen);
	if (r == -ENOENT)
		pmc_err_set(err, errlen,
			    "%s: no benchmarks (no '%s' section); register them with "
			    "PMC_BENCHMARK(fn)",
			    path, PMC_BENCH_SECTION);
	if (r < 0)
		return r;
	/* The leading size of a definition: at least the fields every version has (sz,
	 * name, fn), and no more than the section. pmc_mb_expand checks each one again. */
	if (sec.entsize < offsetof(struct pmc_bench_def, setup) || sec.entsize > sec.size) {
		pmc_err_set(err, errlen,
			    "%s: section '%s' does not hold benchmark definitions (entry size "
			    "%llu of %llu bytes)",
			    path, PMC_BENCH_SECTION, (unsigned long long)sec.entsize,
			    (unsigned long long)sec.size);
		return -ENOEXEC;
	}
	/* dlopen needs a path with a '/' to take the file rather than search the library
	 * path for its name. */
	if (!strchr(path, '/')) {
		char rel[4096];

		if (strlen(path) + 3 > sizeof(rel)) {
			pmc_err_set(err, errlen, "%s: path too long", path);
			return -ENAMETOOLONG;
		}
		strcpy(rel, "./");
		strcat(rel, path);
		h = dlopen(rel, RTLD_NOW | RTLD_LOCAL);
	} else {
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	}
	if (!h) {
		const char *e = dlerror();

		pmc_err_set(err, errlen, "cannot load %s: %s", path, e ? e : "dlopen failed");
		return -ELIBBAD;
	}
	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || !lm) {
		const char *e = dlerror();

		pmc_err_set(err, errlen, "%s: no link map: %s", path, e ? e : "dlinfo failed");
		dlclose(h);
		return -ELIBBAD;
	}
	base = (uintptr_t)lm->l_addr + (uintptr_t)sec.addr;
	ret->handle = h;
	ret->begin = (const struct pmc_bench_def *)base;
	ret->end = (const struct pmc_bench_def *)(base + (uintptr_t)sec.size);
	return 0;
}

void pmc_mb_library_close(struct pmc_mb_library *l)
{
	if (l && l->handle)
		dlclose(l->handle);
	if (l)
		*l = (struct pmc_mb_library){0};
}

/* libFuzzer target: the ELF symbol reader (harness/1-elf/symbols.c, through libelf), which
 * reads every object a profiled program maps: its symbols, build-id and PT_LOAD
 * segments. */
#include <stdint.h>

#include "elf/symbols.h"
#include "tests/fuzz/fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct pmc_symtab *t = NULL;
	const char *path = fuzz_file(data, n, ".elf");
	char err[512];
	uint64_t vaddr = 0, off = 0;

	if (!path || pmc_symtab_load(path, &t, err, sizeof(err)) != 0)
		return 0;
	(void)pmc_symtab_build_id(t);
	(void)pmc_symtab_count(t);
	if (pmc_symtab_vaddr(t, 0x40, &vaddr) == 0)
		(void)pmc_symtab_lookup(t, vaddr, &off);
	(void)pmc_symtab_lookup(t, 0x1000, &off);
	pmc_symtab_free(t);
	return 0;
}

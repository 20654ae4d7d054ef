/* libFuzzer target: /proc/kallsyms (harness/4-profile/kallsyms.c), the input as the file.
 * A table read is looked up at every address its lines name, one below and one above,
 * and each name found is read whole (ASan sees one freed or unterminated). A table is
 * refused with a reason, which must then be set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/kallsyms.h"
#include "tests/fuzz/fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

/* Looks up, near the address a line names, what the table holds; a name found is read
 * whole (ASan sees a freed or unterminated one). */
static void lookup(unsigned long long a, void *ud)
{
	for (unsigned long long d = 0; d < 3; d++) {
		const char *name = pmc_kallsyms_lookup(ud, a + d - 1);

		if (name && strlen(name) == 0)
			abort(); /* a line without a name is skipped */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct pmc_kallsyms *k = NULL;
	const char *path = fuzz_file(data, n, ".kallsyms");
	char why[256] = "";
	int rc;

	if (!path)
		return 0;
	rc = pmc_kallsyms_load(path, &k, why, sizeof(why));
	if (rc < 0) {
		if (!why[0] || k)
			abort(); /* a refusal says why and returns no table */
		return 0;
	}
	fuzz_line_addresses(data, n, 64, lookup, k);
	pmc_kallsyms_lookup(k, 0);
	pmc_kallsyms_lookup(k, UINT64_MAX);
	pmc_kallsyms_free(k);
	return 0;
}

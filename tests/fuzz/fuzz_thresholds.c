/* libFuzzer target: the thresholds file (thresholds_json.c) and a lookup in what it
 * loaded. */
#include <stdint.h>

#include "core/threshold.h"
#include "formats/thresholds_json.h"
#include "tests/fuzz/fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct pmc_thresholds *t = NULL;
	const char *path = fuzz_file(data, n, ".json");
	char err[512];

	if (!path || pmc_thresholds_new(&t) < 0)
		return 0;
	if (pmc_thresholds_load(t, path, err, sizeof(err)) == 0)
		(void)pmc_thresholds_lookup(t, "parse_json", "instructions");
	pmc_thresholds_free(t);
	return 0;
}

/* libFuzzer target: pmcbench's result JSON loader (result_json.c), from a stream. */
#include <stdint.h>
#include <stdio.h>

#include "formats/result_json.h"
#include "pmcbench/result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct pmc_result *res = NULL;
	char err[512];
	FILE *f;

	if (n == 0)
		return 0;
	f = fmemopen((void *)data, n, "r");
	if (!f)
		return 0;
	if (pmc_result_load_stream(f, true, "fuzz.json", &res, err, sizeof(err)) == 0)
		pmc_result_free(res);
	fclose(f);
	return 0;
}

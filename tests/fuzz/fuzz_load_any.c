/* libFuzzer target: pmc_result_load_any, which tells the format by the content and runs
 * pmcbench's loader or one of the importers (Google Benchmark, hyperfine, perf stat, Go). */
#include <stdint.h>

#include "formats/import.h"
#include "pmcbench/result.h"
#include "tests/fuzz/fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct pmc_result *res = NULL;
	const char *path = fuzz_file(data, n, ".in");
	char err[512];

	if (path && pmc_result_load_any(path, &res, err, sizeof(err)) == 0)
		pmc_result_free(res);
	return 0;
}

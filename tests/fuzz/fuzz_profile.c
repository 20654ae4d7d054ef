/* libFuzzer target: the profile file pmcbench report reads (pmc_profile_load,
 * harness/4-profile/profile_json.c), the other tools' profiles it reads too, told by their
 * content (pmc_profile_load_any: folded stacks, perf script's output,
 * harness/4-profile/profile_import.c and perf_script.c), and callgrind's output files that
 * the valgrind backend turns into exact profiles (pmc_callgrind_profile,
 * harness/4-profile/callgrind.c): the same bytes are given to all three. */
#include <stdint.h>

#include "profile/callgrind.h"
#include "profile/profile.h"
#include "profile/profile_import.h"
#include "tests/fuzz/fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct pmc_profile *p = NULL;
	const char *path = fuzz_file(data, n, ".in");
	char err[512];

	if (!path)
		return 0;
	if (pmc_profile_load(path, &p, err, sizeof(err)) == 0)
		pmc_profile_free(p);
	p = NULL;
	if (pmc_profile_load_any(path, &p, NULL, err, sizeof(err)) == 0)
		pmc_profile_free(p);
	p = NULL;
	if (pmc_callgrind_profile(&path, 1, "Ir", "fuzz", &p, err, sizeof(err)) == 0)
		pmc_profile_free(p);
	return 0;
}

/* libFuzzer target: another build's answer to --process-list (harness/5-microbench/
 * program.c): its protocol line, then its benchmarks' names, one per line, made into the
 * benchmarks this program runs of it (pmc_mb_set_of_names) beside a set that has some
 * of those names. An input whose first line is "=" stands for this build's protocol line
 * (pmc_mb_protocol), so that the seeds stay valid when the protocol's sizes change. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "microbench/microbench.h"
#include "microbench/program.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	static struct pmc_mb_bench mine[] = {{.name = (char *)"copy/64"}, {.name = (char *)"sum"}};
	const struct pmc_mb_set like = {.v = mine, .n = 2, .cap = 2};
	char proto[PMC_MB_PROTOCOL_MAX], err[512] = "", **names = NULL, *out;
	struct pmc_mb_set set = {0};
	size_t skip = 0, plen, nnames = 0;
	int r;

	pmc_mb_protocol(proto);
	plen = strlen(proto);
	if (n >= 1 && data[0] == '=' && (n == 1 || data[1] == '\n'))
		skip = 1;
	out = malloc(plen + n + 1);
	if (!out)
		return 0;
	if (skip)
		memcpy(out, proto, plen);
	else
		plen = 0;
	memcpy(out + plen, data + skip, n - skip);
	out[plen + n - skip] = '\0';
	r = pmc_mb_program_parse_list("./other", out, &names, &nnames, err, sizeof(err));
	if (r < 0) {
		if (!err[0] || names)
			abort(); /* a refusal says why and returns no names */
	} else {
		for (size_t i = 0; i < nnames; i++)
			if (!names[i][0] || strchr(names[i], '\n'))
				abort(); /* one non-empty name per line */
		if (pmc_mb_set_of_names(&like, names, nnames, &set) == 0) {
			if (set.n != nnames)
				abort();
			pmc_mb_set_free(&set);
		}
		pmc_mb_program_names_free(names, nnames);
	}
	free(out);
	return 0;
}

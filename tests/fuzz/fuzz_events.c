/* libFuzzer target: perf's event list syntax (counters/perf/events.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmcbench/events.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct pmc_event_list *l = NULL;
	char *spec = malloc(n + 1), err[512];

	if (!spec)
		return 0;
	memcpy(spec, data, n);
	spec[n] = '\0';
	if (pmc_event_list_parse(spec, NULL, &l, err, sizeof(err)) == 0)
		pmc_event_list_free(l);
	free(spec);
	return 0;
}

/* The scales of the base units (units.h). K, M and G are decimal (counts:
 * "instructions=+5M"); KiB, MiB and GiB are binary bytes; Ki, Mi and Gi binary counts,
 * shown only (a user counter's PMC_COUNTER_1024); times scale ns, the unit of every time
 * metric. */
#include <string.h>

#include "core/units.h"

#define SHOWN PMC_SCALE_SHOWN
#define THRESHOLD PMC_SCALE_THRESHOLD
#define IMPORT PMC_SCALE_IMPORT

/* Per base, the scales the reports write come first and in order (pmc_scales_shown); the
 * other spellings a reader accepts follow them. */
static const struct pmc_scale scales[] = {
    {PMC_UNIT_COUNT, "", "items/s", "/s", 1, SHOWN},
    {PMC_UNIT_COUNT, "k", "k items/s", "k/s", 1e3, SHOWN | THRESHOLD},
    {PMC_UNIT_COUNT, "M", "M items/s", "M/s", 1e6, SHOWN | THRESHOLD},
    {PMC_UNIT_COUNT, "G", "G items/s", "G/s", 1e9, SHOWN | THRESHOLD},
    {PMC_UNIT_COUNT, "T", NULL, "T/s", 1e12, SHOWN},
    {PMC_UNIT_COUNT, "P", NULL, "P/s", 1e15, SHOWN},
    {PMC_UNIT_COUNT, "K", NULL, NULL, 1e3, THRESHOLD},

    {PMC_UNIT_COUNT_1024, "", NULL, "/s", 1, SHOWN},
    {PMC_UNIT_COUNT_1024, "Ki", NULL, "Ki/s", 1024.0, SHOWN},
    {PMC_UNIT_COUNT_1024, "Mi", NULL, "Mi/s", 1024.0 * 1024.0, SHOWN},
    {PMC_UNIT_COUNT_1024, "Gi", NULL, "Gi/s", 1024.0 * 1024.0 * 1024.0, SHOWN},
    {PMC_UNIT_COUNT_1024, "Ti", NULL, "Ti/s", 1024.0 * 1024.0 * 1024.0 * 1024.0, SHOWN},

    {PMC_UNIT_BYTES, "B", "B/s", NULL, 1, SHOWN | THRESHOLD},
    {PMC_UNIT_BYTES, "KiB", "KiB/s", NULL, 1024.0, SHOWN | THRESHOLD},
    {PMC_UNIT_BYTES, "MiB", "MiB/s", NULL, 1024.0 * 1024.0, SHOWN | THRESHOLD},
    {PMC_UNIT_BYTES, "GiB", "GiB/s", NULL, 1024.0 * 1024.0 * 1024.0, SHOWN | THRESHOLD},
    {PMC_UNIT_BYTES, "TiB", "TiB/s", NULL, 1024.0 * 1024.0 * 1024.0 * 1024.0, SHOWN},

    {PMC_UNIT_NS, "ns", NULL, NULL, 1, SHOWN | THRESHOLD | IMPORT},
    {PMC_UNIT_NS, "us", NULL, NULL, 1e3, SHOWN | THRESHOLD | IMPORT},
    {PMC_UNIT_NS, "ms", NULL, NULL, 1e6, SHOWN | THRESHOLD | IMPORT},
    {PMC_UNIT_NS, "s", NULL, NULL, 1e9, SHOWN | THRESHOLD | IMPORT},
    {PMC_UNIT_NS, "\xc2\xb5s", NULL, NULL, 1e3, THRESHOLD}, /* µs */
    /* perf stat's and hyperfine's spellings (docs/import.md). */
    {PMC_UNIT_NS, "usec", NULL, NULL, 1e3, IMPORT},
    {PMC_UNIT_NS, "msec", NULL, NULL, 1e6, IMPORT},
    {PMC_UNIT_NS, "sec", NULL, NULL, 1e9, IMPORT},
    {PMC_UNIT_NS, "seconds", NULL, NULL, 1e9, IMPORT},
};

#define NSCALES (sizeof(scales) / sizeof(scales[0]))

const struct pmc_scale *pmc_scales_shown(enum pmc_unit_base base, size_t *ret_n)
{
	size_t i = 0, n = 0;

	while (i < NSCALES && scales[i].base != base)
		i++;
	while (i + n < NSCALES && scales[i + n].base == base && (scales[i + n].uses & SHOWN))
		n++;
	*ret_n = n;
	return &scales[i];
}

const struct pmc_scale *pmc_scale_find(const char *s, size_t len, unsigned use)
{
	for (size_t i = 0; i < NSCALES; i++)
		if ((scales[i].uses & use) && strlen(scales[i].suffix) == len &&
		    memcmp(scales[i].suffix, s, len) == 0)
			return &scales[i];
	return NULL;
}

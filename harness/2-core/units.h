/* The scales of the base units, in one table (units.c): how a count, a size in bytes or a
 * time in ns is written with a suffix ("12.3M", "3.45 MiB", "1.23 ms", "5.00 k items/s")
 * and read back ("+1k", "+2MiB" and "10ms" in a threshold; "msec" and "usec" in another
 * tool's output). Each suffix says who writes or reads it, so that the reports, the
 * threshold parser and the importers take their scales from one place. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The base unit a scale multiplies: the units of the metric registry ("count", "bytes",
 * "ns"). */
enum pmc_unit_base {
	PMC_UNIT_COUNT,
	/* A count shown in 1024-based steps (Ki, Mi, Gi: a user counter's PMC_COUNTER_1024,
	 * Google Benchmark's kIs1024); unit "count:1024". */
	PMC_UNIT_COUNT_1024,
	PMC_UNIT_BYTES,
	PMC_UNIT_NS,
};

/* Who uses a suffix. */
enum {
	PMC_SCALE_SHOWN = 1 << 0,     /* the reports write it (one per factor) */
	PMC_SCALE_THRESHOLD = 1 << 1, /* a threshold reads it (docs/compare.md, "Thresholds") */
	PMC_SCALE_IMPORT = 1 << 2,    /* an importer reads it in another tool's output */
};

struct pmc_scale {
	enum pmc_unit_base base;
	const char *suffix; /* "k", "MiB", "ms"; "" for a count's own scale */
	/* A rate at this scale, per second ("k items/s", "MiB/s"), as the reports write the
	 * throughput of the microbenchmarks; NULL when they write none. */
	const char *rate;
	/* A count per second at this scale ("M/s", "Ki/s"), as the reports write a user
	 * counter's rate (unit "count/s"); NULL for the other bases. */
	const char *per_s;
	double factor; /* in the base unit: 1e3, 1048576, 1e6 */
	unsigned uses; /* PMC_SCALE_* */
};

/* The scales of base that the reports write, smallest first, each a step (1000 or 1024)
 * times the one before; *ret_n of them. */
const struct pmc_scale *pmc_scales_shown(enum pmc_unit_base base, size_t *ret_n);

/* The scale whose suffix is s[0..len) among those used as `use` (a PMC_SCALE_* bit);
 * NULL when there is none. */
const struct pmc_scale *pmc_scale_find(const char *s, size_t len, unsigned use);

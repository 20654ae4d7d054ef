/* What the reports of one profile (profile_report.c) and of two (profile_diff_report.c)
 * share. */
#pragma once

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

static inline int finish(FILE *out)
{
	return ferror(out) ? -EIO : 0;
}

static inline double pct(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : NAN;
}

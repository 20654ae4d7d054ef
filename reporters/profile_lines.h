/* `report --lines FUNC` (docs/profile.md, "Source lines"): one function's samples by
 * source line, from the profile's line table (harness/4-profile/profile_lines.h). */
#pragma once

#include <stdio.h>

struct pmc_profile;

/* The source lines of fn (a display name, as the text report shows it): a header (the
 * function, its self share of the profile and weight), then one row per source line
 * (its share of fn's self weight, weight, samples, FILE:LINE, the innermost function
 * inlined there and its call site), sorted by weight, the addresses no line table
 * covers in one row, and fn's total. Returns 0; -ENODATA when p keeps no source lines;
 * -ENOENT when no function of p is named fn; -ENOEXEC when samples ended in fn but no
 * line table covers any of their addresses (stripped, built without -g; nothing is
 * printed); -ENOMEM or -EIO. */
int pmc_profile_report_lines(FILE *out, const struct pmc_profile *p, const char *fn);

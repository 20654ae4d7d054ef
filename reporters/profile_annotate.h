/* `report --annotate FUNC` (docs/profile.md, "Instructions"): one function's
 * instructions with their shares and source lines, from an annotation
 * (harness/3-profile/annotate.h). */
#pragma once

#include <stdio.h>

struct pmc_profile;
struct pmc_annotation;

/* The instructions that mark the hottest source lines: those of the lines that weigh
 * most, at most this many lines. */
#define PMC_ANNOTATE_HOT_LINES 3

/* a (of profile p) as text: a header (the function, its object and address range, its
 * self share of the profile and weight; the hottest source lines, each with its share),
 * one row per instruction (its share of the function's samples, its share of the
 * profile, '*' when its source line is one of the hottest, its address, its
 * instruction, its FILE:LINE and the function inlined there), its total, and a note of
 * the samples that ended at no instruction shown. Rows fit width columns (0: no limit)
 * by cutting the instruction's text. Returns 0 or -EIO. */
int pmc_profile_report_annotate(FILE *out, const struct pmc_profile *p,
				const struct pmc_annotation *a, unsigned width);

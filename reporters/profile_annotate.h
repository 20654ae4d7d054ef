/* `report --annotate FUNC` (docs/profile.md, "Instructions"): one function's
 * instructions with their shares and source lines, from an annotation
 * (harness/4-profile/annotate.h). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
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

/* How the top instructions are written: as text, as Markdown, or as the lines of a
 * flame graph's tooltip (plain text, its XML escaping left to the graph). */
enum pmc_annotate_top_form {
	PMC_ANNOTATE_TOP_TEXT,
	PMC_ANNOTATE_TOP_MARKDOWN,
	PMC_ANNOTATE_TOP_TOOLTIP,
};

/* The instructions a flame graph's tooltip shows per function. */
#define PMC_ANNOTATE_TOOLTIP_INSNS 5

/* The top instructions of a that weigh most (those with samples, at most top), for the
 * explanation of a regression (docs/profile.md, "Profiles in the gate") and a flame
 * graph's tooltips ("Flame graphs"): a line naming the function (the tooltip's: saying
 * what the rows are, the function being the tooltip's), then one row per instruction (its
 * share of the function's samples, its address, its instruction, its FILE:LINE); a
 * Markdown table in that form. which: the profile the samples are of ("the new profile"),
 * or NULL. Writes nothing when no instruction has samples. Returns 0, -ENOMEM or -EIO. */
int pmc_profile_report_annotate_top(FILE *out, const struct pmc_annotation *a, size_t top,
				    enum pmc_annotate_top_form form, const char *which);

/* The source lines of a sampled profile (docs/profile.md, "Source lines"): for each
 * function the samples ended in (the leaf frame) and each address within its object,
 * the weight and samples taken there, and where the object's DWARF line table puts the
 * address (lines.h looks it up while the recorded objects are still on disk). The
 * profile owns its table (pmc_profile_set_lines); profiles without one (exact ones,
 * imported ones, files written before the table was kept) have none. */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct pmc_profile;

struct pmc_profile_line {
	uint32_t frame;	  /* the leaf's frame id (profile.h) */
	uint64_t address; /* relative to the frame's object's ELF virtual addresses */
	uint64_t weight, samples;
	/* The source line of the address; file NULL: no line table covers it */
	const char *file;
	uint32_t line;
	/* The innermost function inlined at the address (NULL: none) and where it was
	 * inlined (call_file NULL: not said) */
	const char *inlined;
	const char *call_file;
	uint32_t call_line;
};

struct pmc_profile_lines;

int pmc_profile_lines_new(struct pmc_profile_lines **ret);
void pmc_profile_lines_free(struct pmc_profile_lines *t);

/* Adds weight and samples to (frame, address). Returns 0, -EOVERFLOW (the weight would
 * wrap) or -ENOMEM. */
int pmc_profile_lines_add(struct pmc_profile_lines *t, uint32_t frame, uint64_t address,
			  uint64_t weight, uint64_t samples);

size_t pmc_profile_lines_count(const struct pmc_profile_lines *t);
const struct pmc_profile_line *pmc_profile_lines_get(const struct pmc_profile_lines *t, size_t i);

/* Sets the source of entry i from src's file, line, inlined, call_file and call_line
 * (strings copied). Returns 0, -EINVAL or -ENOMEM. */
int pmc_profile_lines_set_source(struct pmc_profile_lines *t, size_t i,
				 const struct pmc_profile_line *src);

/* The profile's table, NULL when it has none; pmc_profile_set_lines gives it one (the
 * profile owns it from then, and frees a previous one). Both in profile.c. */
struct pmc_profile_lines *pmc_profile_lines(const struct pmc_profile *p);
void pmc_profile_set_lines(struct pmc_profile *p, struct pmc_profile_lines *t);

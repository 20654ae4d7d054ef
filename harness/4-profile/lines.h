/* Source lines of a sampled profile's addresses through elfutils' libdwfl (docs/profile.md,
 * "Source lines"): looked up when the recording ends, while the objects the kernel
 * mapped are still the files on disk (maps.h checked their build-ids as samples were
 * named), so that the profile answers `report --lines` on its own, after a rebuild or on
 * another machine. */
#pragma once

#include <stdint.h>

struct pmc_profile;
struct pmc_profile_line;

/* Sets the source of every entry of p's line table (profile_lines.h) whose object is a
 * file with a DWARF line table, its own or a separate debug file's (.gnu_debuglink,
 * /usr/lib/debug/.build-id, as gdb finds them): the line the address belongs to, and the
 * innermost function inlined there with its call site. Entries of objects without one
 * (stripped, built without -g) keep no source: nothing is guessed. Each object is read
 * once. Returns 0 (also when p has no table) or -ENOMEM. */
int pmc_lines_resolve(struct pmc_profile *p);

/* One object's line table, for the lookups of report --annotate (every instruction of a
 * function, sampled or not). A file that cannot be read opens, and answers no line. */
struct pmc_lines_object;
/* Returns 0 or -ENOMEM. */
int pmc_lines_object_open(const char *path, struct pmc_lines_object **ret);
/* The source of ELF virtual address vaddr into ret's file, line, inlined, call_file and
 * call_line (file NULL: no line table covers it); its strings live until the next call
 * or the close. */
void pmc_lines_object_source(struct pmc_lines_object *lo, uint64_t vaddr,
			     struct pmc_profile_line *ret);
void pmc_lines_object_close(struct pmc_lines_object *lo);

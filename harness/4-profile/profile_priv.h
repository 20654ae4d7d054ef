/* What the profile model (profile.c) and its analysis (profile_analysis.c) share: the
 * profile's layout and the display name of a frame. */
#pragma once

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/hashmap.h"
#include "profile/profile.h"

/* The blocks of an arena (profile.c). */
struct block;

struct arena {
	struct block *head;
	size_t next_cap;
};

struct pmc_profile {
	struct pmc_profile_info info;
	struct arena arena;
	struct pmc_hashmap strings;   /* symbol and object text -> unused */
	struct pmc_hashmap symbols;   /* a symbol as given -> its name here (names.h) */
	const char *below_main;	      /* the interned PMC_PROFILE_BELOW_MAIN, once used */
	struct pmc_hashmap frame_ids; /* frame key -> id */
	struct pmc_hashmap stack_ids; /* stack key -> index */
	struct pmc_hashmap task_ids;  /* task key -> id */
	struct pmc_profile_task *tasks;
	size_t ntasks, tasks_cap;
	struct pmc_profile_frame *frames;
	size_t nframes, frames_cap;
	struct pmc_profile_stack *stacks;
	size_t nstacks, stacks_cap;
	uint64_t total;
	struct pmc_profile_lines *lines; /* NULL: no source-line table (profile_lines.h) */
};

/* A frame's display name into buf (snprintf's return): the symbol; a pseudo-object
 * ("[kernel]", "[vdso]", "[anon]", "[unknown]") as itself, since its offsets name no
 * place in a file; else the object's base name and the offset, one row per address as
 * perf shows them. */
static inline int format_name(const struct pmc_profile_frame *f, char *buf, size_t len)
{
	const char *base;

	if (f->symbol)
		return snprintf(buf, len, "%s", f->symbol);
	if (f->object[0] == '[')
		return snprintf(buf, len, "%s", f->object);
	base = strrchr(f->object, '/');
	base = base && base[1] ? base + 1 : f->object;
	return snprintf(buf, len, "%s+0x%" PRIx64, base, f->offset);
}

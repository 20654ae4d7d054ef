/* File names from names of the user's (benchmark names, commands): readable, safe in any
 * directory, and distinct for distinct names (docs/profile.md, "Profiles in the gate").
 *
 *	"work"                  → "work"
 *	"./new/wc data.txt"     → "new-wc-data.txt_f20c9a60"
 *	"../x"                  → "x_f2be8f5c"
 *
 * The readable part keeps [A-Za-z0-9._-]; every other run of bytes (a '/', a space,
 * non-ASCII, control bytes, "..") becomes one '-', and separators are trimmed from both
 * ends, so the name never starts with '.' or '-' and never holds "..". Whenever that
 * changed the name (an empty one too), or cut it at PMC_SLUG_MAX bytes, or the name
 * itself ends as a suffix would, '_' and 8 hex digits of a hash of the whole name follow:
 * a name kept as it is never ends that way, so it cannot meet a changed one, and two
 * changed ones meet only when both their readable parts and their 32-bit hashes do. */
#pragma once

#include <stddef.h>

/* Bytes of the readable part, at most. */
#define PMC_SLUG_MAX 64
/* The size of a buffer that holds any slug: the readable part, '_', 8 hex, NUL. */
#define PMC_SLUG_SIZE (PMC_SLUG_MAX + 10)

/* Writes the slug of name (NUL-terminated, any bytes) into buf, which holds
 * PMC_SLUG_SIZE bytes, and returns buf. The same name always gives the same slug. */
char *pmc_slug(const char *name, char buf[PMC_SLUG_SIZE]);

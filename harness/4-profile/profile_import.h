/* Other tools' profiles in (docs/profile.md, "Other tools' profiles"): `pmcbench report`
 * reads pmcbench's profile files, folded stacks (FlameGraph's "frame;frame;frame COUNT"
 * lines, as stackcollapse-perf.pl and `report --folded` write them) and the text `perf
 * script` prints of a `perf record -g` file, told apart by their content, so that a perf
 * user's profiles can be reported and diffed against pmcbench's. */
#pragma once

#include <stddef.h>

struct pmc_profile;

enum pmc_profile_format {
	PMC_PROFILE_FORMAT_PMCBENCH = 0, /* "pmcbench-profile/1" JSON (profile_json.c) */
	PMC_PROFILE_FORMAT_FOLDED,	 /* folded stacks (profile_import.c) */
	PMC_PROFILE_FORMAT_PERF_SCRIPT,	 /* perf script's default output (perf_script.c) */
};

/* Loads the profile at path (a file or a pipe) in whichever of the formats its content
 * is: a first character '{' is pmcbench's JSON; a first line (after blank ones and '#'
 * comments) "COMMAND PID TIME: [PERIOD] EVENT:" perf script's; one that ends in a space
 * and a count folded stacks. *ret_format (may be NULL) says which. A file in none of
 * them, or malformed, fails with -EINVAL and one line in err naming the file, the line and
 * the fix; -errno when it cannot be read. */
int pmc_profile_load_any(const char *path, struct pmc_profile **ret,
			 enum pmc_profile_format *ret_format, char *err, size_t errlen);

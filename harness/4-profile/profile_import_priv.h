/* What the readers of other tools' profiles share (profile_import.h): a text file read
 * a line at a time from its stream, with its line number for messages. (The importers of
 * results, harness/3-formats/import.c, walk a whole file in memory; perf script's output
 * of a long run is hundreds of megabytes, and a pipe is read once.) */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct pmc_profile;

struct pmc_profile_lines {
	FILE *f;
	const char *path;
	char *line; /* the current line, without its end ("\n", "\r\n") */
	size_t len, cap;
	unsigned long no; /* its number, from 1 */
	bool again;	  /* give the current line once more (the one detection read) */
};

/* The next line into l->line. Returns 1, 0 at the end of the file, -EINVAL for a line
 * with a NUL byte (not text), -errno of reading. */
int pmc_profile_lines_next(struct pmc_profile_lines *l);

/* Whether line is a sample's first line in perf script's default output
 * ("COMMAND PID [CPU] TIME: [PERIOD] EVENT: ...", the command padded to 16 columns
 * without -g). */
bool pmc_perf_script_is_header(const char *line);
/* Whether line is perf script --show-lost-events' line of a LOST record, its count into
 * *ret (may be NULL). */
bool pmc_perf_script_lost(const char *line, uint64_t *ret);

/* The readers, from the line detection stopped at (l->again set): a new profile in
 * *ret, or -EINVAL with one line in err ("path:line: what; the fix"), -ENOMEM, -errno. */
int pmc_profile_read_folded(struct pmc_profile_lines *l, struct pmc_profile **ret, char *err,
			    size_t errlen);
int pmc_profile_read_perf_script(struct pmc_profile_lines *l, struct pmc_profile **ret, char *err,
				 size_t errlen);

/* Lines that fit a terminal of a given width (pmc_report_opts.width; docs/cli.md,
 * "Width"): the reports' prose and the CLI's messages are wrapped here, in one place. */
#pragma once

#include <stddef.h>
#include <stdio.h>

/* Writes text (any number of lines) to out, each line broken at spaces so that it
 * takes at most width columns (0: as it is); a continuation keeps the line's indent plus
 * two spaces. A word longer than the width stays whole. SGR colour sequences take no
 * column. */
void pmc_report_wrap(FILE *out, const char *text, unsigned width);

/* Columns a UTF-8 string takes on a terminal: one per code point. */
size_t pmc_report_width(const char *s);

/* The comparison options of `compare`, `gate` and `run` (cli_compare_opts.c), as the
 * comparing commands and their reports (cli_compare.c) read them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/cli.h"
#include "core/filter.h"

struct pmc_thresholds;

struct pmc_cli_compare_opts {
	double alpha, confidence;
	char **metrics;
	size_t nmetrics;
	const char *format; /* a format of pmcbench/report.h, by its canonical name */
	char *output;
	struct pmc_thresholds *thresholds;
	bool no_fdr, fail_on_inconclusive, force, unpaired;
	enum { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } color; /* --color */
	const char *first_given; /* the first option that judges a comparison, or NULL */
	FILE *out; /* the report's stream; NULL: stdout */
	struct pmc_cli_exports exports; /* compare, gate: --export */
	/* The profiles of both sides (cli_profile.h): a regression is explained with them.
	 * profile_ref: the old side's benchmark in a reference comparison. */
	const struct pmc_cli_profiles *old_profiles, *new_profiles;
	const char *profile_ref;
	/* Every row of a comparison (--all); else the rows without change fold. */
	bool all_rows;
	bool by_benchmark;	  /* compare --row metric: a table per benchmark */
	struct pmc_filter filter; /* compare --filter */
};

/* --report FILE (and compare's and gate's -o, its other name). 0 or -ENOMEM. */
int pmc_cli_compare_opts_set_output(struct pmc_cli_compare_opts *o, const char *path);

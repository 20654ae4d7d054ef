/* `pmcbench history` (cli_history.c) and its bisect (cli_history_bisect.c). */
#pragma once

#include <stddef.h>

/* history bisect's options (docs/history.md, "Bisect"). */
struct pmc_cli_bisect_opts {
	const char *good, *bad; /* commits */
	const char *build;	/* run by sh -c at each commit */
	const char *threshold;	/* gate's METRIC=LIMIT */
	const char *backend;	/* run's --backend, or NULL */
	size_t runs;		/* 0: 6 */
};

/* Runs the bisect of COMMAND (argv[0..argc)) in the git checkout of the working
 * directory; prints the first bad commit and its change. Returns the exit code. */
int pmc_cli_history_bisect(int argc, char **argv, struct pmc_cli_bisect_opts *o);

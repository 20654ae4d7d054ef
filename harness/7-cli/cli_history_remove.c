/* `pmcbench history remove ENTRY...`: a bad run out of the history, by its entry key. */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/cli_history.h"
#include "history/history.h"

int pmc_cli_hist_remove(int argc, char **argv, struct hopts *o)
{
	struct pmc_history *h = NULL;
	char err[1024];
	int code = PMC_EXIT_ERROR;

	if (argc < 1) {
		pmc_cli_error("history remove needs the key of an entry ('pmcbench history list' "
			      "shows them)");
		return PMC_EXIT_ERROR;
	}
	/* Not PMC_HISTORY_WRITE: removing from a store that is not there creates none, and an
	 * older schema is written as it is. */
	if (pmc_cli_hist_open(o, 0, &h) < 0)
		return PMC_EXIT_ERROR;
	/* Each in its own transaction: the ones before an error stay removed, and say so. */
	for (int i = 0; i < argc; i++) {
		char id[65], when[32], b[PMC_QUOTE_SIZE(64)];
		char *commit = NULL;
		int64_t t = 0;

		if (pmc_history_remove(h, argv[i], id, &commit, &t, err, sizeof(err)) < 0) {
			pmc_cli_error("%s", err);
			goto out;
		}
		pmc_history_time_text(t, when);
		printf("%.12s: removed (measured %s, commit %s)\n", id, when,
		       q(b, sizeof(b), commit));
		free(commit);
	}
	code = fflush(stdout) == 0 ? PMC_EXIT_OK : PMC_EXIT_ERROR;
out:
	pmc_history_close(h);
	return code;
}

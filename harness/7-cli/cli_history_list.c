/* `pmcbench history list`: the entries a selection picks, oldest first. */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/cli_history.h"
#include "history/history.h"

int pmc_cli_hist_list(int argc, char **argv, struct hopts *o)
{
	struct pmc_history *h = NULL;
	struct pmc_history_entry *es = NULL;
	size_t n = 0;
	char err[1024];
	int code = PMC_EXIT_ERROR;

	if (argc > 0) {
		pmc_cli_error("history list takes no arguments, got '%s'; select with --benchmark, "
			      "--branch, ...",
			      argv[0]);
		return PMC_EXIT_ERROR;
	}
	if (pmc_cli_hist_open(o, 0, &h) < 0)
		return PMC_EXIT_ERROR;
	/* list reads the entries only: damage in the points would go unseen, and the
	 * entries listed be ones that show, changes and gate cannot read. */
	if (pmc_history_check(h, err, sizeof(err)) < 0 ||
	    pmc_history_list(h, &o->f, &es, &n, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		goto out;
	}
	printf("%-20s  %-12s  %-16s  %-16s  %-16s  %-12s  %s\n", "measured", "commit", "branch",
	       "machine", "fingerprint", "entry", "tags");
	for (size_t i = 0; i < n; i++) {
		char when[32], b1[PMC_QUOTE_SIZE(64)], b2[PMC_QUOTE_SIZE(64)],
		    b4[PMC_QUOTE_SIZE(256)], b5[PMC_QUOTE_SIZE(64)], b6[PMC_QUOTE_SIZE(64)],
		    b7[PMC_QUOTE_SIZE(64)];

		/* Every field comes from the store, which may come from anywhere. */
		pmc_history_time_text(es[i].t, when);
		printf("%-20s  %-12.12s  %-16s  %-16s  %-16s  %-12.12s  %s\n", when,
		       q(b5, sizeof(b5), es[i].commit), q(b1, sizeof(b1), es[i].branch),
		       q(b2, sizeof(b2), es[i].machine), q(b6, sizeof(b6), es[i].fingerprint),
		       q(b7, sizeof(b7), es[i].id),
		       *es[i].tags ? q(b4, sizeof(b4), es[i].tags) : "-");
	}
	printf("%zu entr%s in %s\n", n, n == 1 ? "y" : "ies", pmc_history_display(h));
	code = fflush(stdout) == 0 ? PMC_EXIT_OK : PMC_EXIT_ERROR;
	if (n == 0 && o->f.benchmark) {
		char b1[PMC_QUOTE_SIZE(128)], near[512];

		pmc_cli_hist_near_benchmark(h, &o->f, near, sizeof(near));
		if (*near)
			pmc_cli_note("no entry has benchmark '%s'; %s",
				     q(b1, sizeof(b1), o->f.benchmark), near);
	}
out:
	pmc_history_entries_free(es, n);
	pmc_history_close(h);
	return code;
}

/* `pmcbench history gate RESULT`: the result judged against the last K results of its
 * fingerprint, pooled as the baseline (each series from its current level), through the comparison
 * and gate of `pmcbench gate` (its options and exit codes). */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/cli_history.h"
#include "core/result.h"
#include "core/threshold.h"
#include "formats/import.h"
#include "history/history.h"
#include "session/session.h"

#define DEFAULT_LAST 10

int pmc_cli_hist_gate(int argc, char **argv, struct hopts *o, struct pmc_cli_compare_opts *co)
{
	const struct pmc_history_meta meta = {.compiler = o->compiler, .machine = o->machine};
	struct pmc_history *h = NULL;
	struct pmc_result *r = NULL, *base = NULL;
	const char **read = NULL; /* the metrics the baseline reads */
	size_t nentries = 0, nread = 0;
	char err[1024], name[512], fp[17];
	int code = PMC_EXIT_ERROR;

	if (argc != 1) {
		pmc_cli_error("history gate judges one result file, got %d; try 'pmcbench help "
			      "history'",
			      argc);
		return PMC_EXIT_ERROR;
	}
	if (o->format && pmc_cli_compare_opts_set_format(co, o->format) < 0)
		return PMC_EXIT_ERROR;
	if (pmc_result_load_any(argv[0], &r, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		return PMC_EXIT_ERROR;
	}
	if (pmc_cli_hist_open(o, 0, &h) < 0)
		goto out;
	/* With --metric the comparison compares only the metrics selected, and speaks of
	 * those a --threshold names: the baseline needs no other (reading every metric of
	 * K entries is most of a gate's time). */
	if (co->s.nmetrics) {
		size_t nargs = pmc_thresholds_nargs(co->s.thresholds);

		read = calloc(co->s.nmetrics + nargs, sizeof(*read));
		if (!read) {
			pmc_cli_error("out of memory");
			goto out;
		}
		for (size_t i = 0; i < co->s.nmetrics; i++)
			read[nread++] = co->s.metrics[i];
		for (size_t i = 0; i < nargs; i++)
			read[nread++] = pmc_thresholds_arg(co->s.thresholds, i, NULL);
	}
	if (pmc_history_baseline(h, r, &meta, o->branch, o->last ? o->last : DEFAULT_LAST, read,
				 nread, &base, &nentries, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		goto out;
	}
	pmc_history_fingerprint(r, &meta, fp);
	if (!base) {
		pmc_cli_error(
		    "%s holds no earlier result of %s's benchmarks on its fingerprint %s%s%s; "
		    "add results of this machine first ('pmcbench history add')",
		    pmc_history_display(h), argv[0], fp, o->branch ? " on branch " : "",
		    o->branch ? o->branch : "");
		goto out;
	}
	snprintf(name, sizeof(name), "history (last %zu on %s)", nentries, fp);
	code = pmc_cli_exit_status(
	    0, pmc_session_compare_results(base, name, r, argv[0], &co->s, true, &pmc_cli_printer));
out:
	free(read);
	pmc_result_free(base);
	pmc_result_free(r);
	pmc_history_close(h);
	return code;
}

/* `pmcbench history export`: the samples a selection picks, as CSV (a row per sample)
 * or JSON (an object per point), by a reporter of the registry (reporters/points.h),
 * written series by series as the store reads them: memory holds one, never the store. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/atomic_file.h"
#include "cli/cli.h"
#include "cli/cli_history.h"
#include "history/history.h"
#include "reporters/reporter.h"
#include "session/session.h"

/* Where the series go, and whether the document has begun. */
struct out {
	FILE *f;
	const char *format;
	bool started;
};

static int export_series(void *ud, const struct pmc_history_point *ps, size_t n)
{
	struct out *w = ud;
	unsigned part = w->started ? 0 : PMC_POINTS_FIRST;

	if (n == 0)
		return 0;
	w->started = true;
	return pmc_report_points(w->f, w->format, ps, n, part);
}

int pmc_cli_hist_export(int argc, char **argv, struct hopts *o)
{
	struct pmc_history *h = NULL;
	struct pmc_history_entry *es = NULL;
	struct pmc_atomic_file *af = NULL;
	struct out w = {stdout, o->format ? o->format : "csv", false};
	const char *format = w.format;
	size_t nes = 0;
	char err[1024];
	int code = PMC_EXIT_ERROR, r;

	if (argc > 0) {
		pmc_cli_error(
		    "history export takes no arguments, got '%s'; select with --benchmark, "
		    "--metric, ...",
		    argv[0]);
		return PMC_EXIT_ERROR;
	}
	if (!pmc_reporter_of(PMC_REPORTERS_POINTS, format)) {
		char names[128];

		pmc_reporter_names(PMC_REPORTERS_POINTS, names, sizeof(names));
		pmc_cli_error("--format '%s': history export writes %s", format, names);
		return PMC_EXIT_ERROR;
	}
	if (o->output && pmc_session_check_path(&pmc_cli_printer, "--output", o->output) < 0)
		return PMC_EXIT_ERROR;
	if (pmc_cli_hist_open(o, 0, &h) < 0)
		return PMC_EXIT_ERROR;
	if (o->output) {
		if (pmc_atomic_file_open(o->output, &af, err, sizeof(err)) < 0) {
			pmc_cli_error("%s", err);
			goto out;
		}
		w.f = pmc_atomic_file_stream(af);
	}
	/* A store that fails part of the way leaves the output unfinished, -o's file not
	 * written: the error is the last line, exit 2. */
	err[0] = '\0';
	r = pmc_history_series(h, &o->f, export_series, &w, &es, &nes, err, sizeof(err));
	if (r < 0 && err[0]) {
		pmc_cli_error("%s", err);
		if (af)
			pmc_atomic_file_abort(af);
		goto out;
	}
	if (r == 0)
		r = pmc_report_points(w.f, format, NULL, 0,
				      PMC_POINTS_LAST | (w.started ? 0 : PMC_POINTS_FIRST));
	if (af) {
		if (r == -EIO && pmc_atomic_file_write_error(af))
			r = pmc_atomic_file_write_error(af);
		if (r < 0 && r != -ENOMEM)
			pmc_cli_error("%s: %s", o->output, strerror(-r));
		if (r < 0)
			pmc_atomic_file_abort(af);
		else if ((r = pmc_atomic_file_commit(af, err, sizeof(err))) < 0)
			pmc_cli_error("%s", err);
		af = NULL;
	} else if (fflush(stdout) != 0) {
		r = -EIO;
	}
	if (r < 0) {
		if (r == -ENOMEM)
			pmc_cli_error("out of memory");
		else if (!af && !o->output)
			pmc_cli_error("cannot write to standard output");
		goto out;
	}
	code = PMC_EXIT_OK;
out:
	pmc_history_entries_free(es, nes);
	pmc_history_close(h);
	return code;
}

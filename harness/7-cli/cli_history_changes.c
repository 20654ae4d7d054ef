/* `pmcbench history changes`: the change points of every series a selection picks
 * (core/series.h), judged by core/changepoint_judge.h (--new-since, --regressions-only,
 * --min-change), rendered by a reporter of the registry (table, Markdown, JSON), and with
 * --html a page of them and their charts (reporters/charts.h). */
#include <errno.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/cli_history.h"
#include "core/series.h"
#include "history/history.h"
#include "reporters/charts.h"
#include "reporters/reporter.h"
#include "session/session.h"

/* The first time of a new change (--new-since): TIME itself, or just after the last
 * measurement of COMMIT. Returns 0, or -1 after an error line. */
static int new_from(struct pmc_history *h, const char *since, int64_t *ret)
{
	char err[1024];
	int64_t t;

	if (pmc_cli_hist_parse_when(since, &t) == 0) {
		*ret = t;
		return 0;
	}
	if (pmc_history_commit_time(h, since, true, &t, err, sizeof(err)) < 0) {
		pmc_cli_error("--new-since '%s' is no time (YYYY-MM-DD[THH:MM:SS]), and %s", since,
			      err);
		return -1;
	}
	*ret = t + 1;
	return 0;
}

/* What each series read adds to: the change points, and the charts with --html. */
struct each {
	const struct hopts *o;
	struct pmc_changes *c;
	struct pmc_charts *charts;
};

/* One series, as the store reads it: its change points, rows and chart. Returns 0, or
 * -errno after an error line. */
static int each_series(void *ud, const struct pmc_history_point *ps, size_t n)
{
	struct each *ea = ud;
	struct pmc_series s;
	int r = pmc_cli_hist_series(ps, n, ea->o, &s);

	if (r == 0 && (pmc_changes_add(ea->c, &s) < 0 ||
		       (ea->o->html && pmc_charts_add(ea->charts, &s) < 0))) {
		pmc_cli_error("out of memory");
		r = -ENOMEM;
	}
	pmc_series_clear(&s);
	return r;
}

int pmc_cli_hist_changes(int argc, char **argv, struct hopts *o)
{
	const char *format = o->format ? o->format : "table";
	struct pmc_history *h = NULL;
	struct pmc_history_entry *es = NULL;
	struct pmc_charts charts = {0};
	struct pmc_changes c = {.new_since = o->new_since, .select = o->select};
	struct each ea = {o, &c, &charts};
	size_t nes = 0;
	char err[1024];
	int code = PMC_EXIT_ERROR, r;

	if (argc > 0) {
		pmc_cli_error("history changes takes no arguments, got '%s'; select with "
			      "--benchmark, --metric, ...",
			      argv[0]);
		return PMC_EXIT_ERROR;
	}
	if (!pmc_reporter_of(PMC_REPORTERS_CHANGES, format)) {
		char names[128];

		pmc_reporter_names(PMC_REPORTERS_CHANGES, names, sizeof(names));
		pmc_cli_error("--format '%s': history changes writes %s", format, names);
		return PMC_EXIT_ERROR;
	}
	if (o->html && pmc_session_check_path(&pmc_cli_printer, "--html", o->html) < 0)
		return PMC_EXIT_ERROR;
	if (pmc_cli_hist_open(o, 0, &h) < 0)
		goto out;
	if (o->new_since && new_from(h, o->new_since, &c.from) < 0)
		goto out;
	/* Series by series: memory holds one, its rows and charts, never the store. */
	err[0] = '\0';
	if (pmc_history_series(h, &o->f, each_series, &ea, &es, &nes, err, sizeof(err)) < 0) {
		if (err[0]) /* else each_series said what went wrong */
			pmc_cli_error("%s", err);
		goto out;
	}
	if (o->html &&
	    pmc_cli_hist_write_charts(o->html, &charts, "html", pmc_history_display(h)) < 0)
		goto out;
	c.store = pmc_history_display(h);
	r = pmc_report_changes(stdout, format, &c);
	if (r < 0) {
		pmc_cli_error(r == -ENOMEM ? "out of memory" : "cannot write to standard output");
		goto out;
	}
	code = o->new_since && pmc_changes_regressions(&c) ? PMC_EXIT_REGRESSION : PMC_EXIT_OK;
out:
	pmc_changes_clear(&c);
	pmc_charts_clear(&charts);
	pmc_history_entries_free(es, nes);
	pmc_history_close(h);
	return code;
}

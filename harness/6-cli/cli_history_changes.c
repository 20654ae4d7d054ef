/* `pmcbench history changes`: the change points of every series a selection picks,
 * judged by core/changepoint_judge.h (--new-since, --regressions-only, --min-change),
 * rendered by reporters/changes.h (table, Markdown, JSON), and with --html a page of them
 * and their charts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "cli/cli.h"
#include "cli/cli_history.h"
#include "core/changepoint.h"
#include "core/changepoint_judge.h"
#include "history/history.h"
#include "reporters/changes.h"
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

struct rows {
	struct pmc_change_row *v;
	size_t n;
};

/* The rows of the change points of s that o selects, whose first point after the change
 * is at or after from (0: any). Returns 0, or -ENOMEM after an error line. */
static int add_rows(struct rows *rs, const struct series *s, const struct hopts *o,
		    int64_t from)
{
	for (size_t k = 0; k < s->ncps; k++) {
		const struct pmc_changepoint *cp = &s->cps[k];
		const struct pmc_history_point *at = &s->ps[s->at[cp->index]];
		const struct pmc_history_point *prev = &s->ps[s->at[cp->index - 1]];
		enum pmc_cp_way way = pmc_cp_way(cp, pmc_cp_metric_better(at->metric, at->better));
		struct pmc_change_row *r;

		if ((from && at->e.t < from) || !pmc_cp_selected(cp, way, &o->select))
			continue;
		if (pmc_grow(&rs->v, rs->n, sizeof(*rs->v)) < 0) {
			pmc_cli_error("out of memory");
			return -ENOMEM;
		}
		r = &rs->v[rs->n++];
		*r = (struct pmc_change_row){
		    .benchmark = at->benchmark,
		    .metric = at->metric,
		    .unit = at->unit,
		    .machine = at->e.machine,
		    .backend = at->e.backend,
		    .fingerprint = at->e.fingerprint,
		    .branch = at->e.branch,
		    .entry = at->e.id,
		    .commit_before = prev->e.commit,
		    .commit = at->e.commit,
		    .points = s->nx,
		    .cp = *cp,
		    .way = way,
		};
		when_text(at->e.t, r->measured);
	}
	return 0;
}

/* Each series of ps[0..n): its rows, and its chart with --html. Returns 0, or -errno
 * after an error line. */
static int each_series(const struct pmc_history_point *ps, size_t n, const struct hopts *o,
		       int64_t from, struct rows *rs, struct charts *charts, size_t *ret_nseries)
{
	for (size_t i = 0; i < n;) {
		struct series s;
		size_t j = i + 1;
		int r;

		while (j < n && pmc_history_same_series(&ps[i], &ps[j]))
			j++;
		r = pmc_cli_hist_series_changes(&ps[i], j - i, o, &s);
		if (r == 0)
			r = add_rows(rs, &s, o, from);
		if (r == 0 && o->html)
			r = pmc_cli_hist_charts_add(charts, &s);
		pmc_cli_hist_series_clear(&s);
		if (r < 0)
			return r;
		(*ret_nseries)++;
		i = j;
	}
	return 0;
}

int pmc_cli_hist_changes(int argc, char **argv, struct hopts *o)
{
	const char *format = o->format ? o->format : "table";
	struct pmc_history *h = NULL;
	struct pmc_history_point *ps = NULL;
	struct charts charts = {NULL, 0};
	struct rows rows = {NULL, 0};
	struct pmc_changes c = {0};
	size_t n = 0, nseries = 0;
	int64_t from = 0;
	char err[1024];
	int code = PMC_EXIT_ERROR, r;

	if (argc > 0) {
		pmc_cli_error("history changes takes no arguments, got '%s'; select with "
			      "--benchmark, --metric, ...",
			      argv[0]);
		return PMC_EXIT_ERROR;
	}
	if (!pmc_changes_format_known(format)) {
		pmc_cli_error("--format '%s': history changes writes table, markdown or json",
			      format);
		return PMC_EXIT_ERROR;
	}
	if (o->html && pmc_session_check_path(&pmc_cli_printer, "--html", o->html) < 0)
		return PMC_EXIT_ERROR;
	if (pmc_cli_hist_open(o, 0, &h) < 0)
		goto out;
	if (o->new_since && new_from(h, o->new_since, &from) < 0)
		goto out;
	if (pmc_history_points(h, &o->f, &ps, &n, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		goto out;
	}
	if (each_series(ps, n, o, from, &rows, &charts, &nseries) < 0)
		goto out;
	if (o->html &&
	    pmc_cli_hist_write_charts(o->html, &charts, true, pmc_history_display(h)) < 0)
		goto out;
	c = (struct pmc_changes){
	    .rows = rows.v,
	    .n = rows.n,
	    .nseries = nseries,
	    .store = pmc_history_display(h),
	    .new_since = o->new_since,
	    .select = o->select,
	};
	r = pmc_changes_write(stdout, format, &c);
	if (r < 0 || fflush(stdout) != 0) {
		pmc_cli_error(r == -ENOMEM ? "out of memory" : "cannot write to standard output");
		goto out;
	}
	code = o->new_since && pmc_changes_regressions(&c) ? PMC_EXIT_REGRESSION : PMC_EXIT_OK;
out:
	free(rows.v);
	pmc_cli_hist_charts_clear(&charts);
	pmc_history_points_free(ps, n);
	pmc_history_close(h);
	return code;
}

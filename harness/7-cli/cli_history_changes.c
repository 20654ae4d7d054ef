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
	char **names; /* the benchmark, metric and unit of each row, its own */
	size_t nnames;
};

/* A copy of s that rs owns, or NULL when out of memory. */
static const char *keep(struct rows *rs, const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d || pmc_grow(&rs->names, rs->nnames, sizeof(*rs->names)) < 0) {
		free(d);
		return NULL;
	}
	rs->names[rs->nnames++] = d;
	return d;
}

static void rows_free(struct rows *rs)
{
	for (size_t i = 0; i < rs->nnames; i++)
		free(rs->names[i]);
	free(rs->names);
	free(rs->v);
}

/* The rows of the change points of s that o selects, whose first point after the change
 * is at or after from (0: any). The series' points go when it is read: the rows keep
 * copies of its names, and borrow the entries' strings, which stay. Returns 0, or -ENOMEM
 * after an error line. */
static int add_rows(struct rows *rs, const struct series *s, const struct hopts *o, int64_t from)
{
	const char *bench = NULL, *metric = NULL, *unit = NULL;

	for (size_t k = 0; k < s->ncps; k++) {
		const struct pmc_changepoint *cp = &s->cps[k];
		const struct pmc_history_point *at = &s->ps[s->at[cp->index]];
		const struct pmc_history_point *prev = &s->ps[s->at[cp->index - 1]];
		enum pmc_cp_way way = pmc_cp_way(cp, pmc_cp_metric_better(at->metric, at->better));
		struct pmc_change_row *r;

		if ((from && at->e.t < from) || !pmc_cp_selected(cp, way, &o->select))
			continue;
		if (!bench && (!(bench = keep(rs, at->benchmark)) ||
			       !(metric = keep(rs, at->metric)) || !(unit = keep(rs, at->unit))))
			goto oom;
		if (pmc_grow(&rs->v, rs->n, sizeof(*rs->v)) < 0)
			goto oom;
		r = &rs->v[rs->n++];
		*r = (struct pmc_change_row){
		    .benchmark = bench,
		    .metric = metric,
		    .unit = unit,
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
oom:
	pmc_cli_error("out of memory");
	return -ENOMEM;
}

/* What each series read adds to: its rows, and its chart with --html. */
struct each {
	const struct hopts *o;
	int64_t from;
	struct rows *rs;
	struct charts *charts;
	size_t nseries;
};

/* One series, as the store reads it: its change points, rows and chart. Returns 0, or
 * -errno after an error line. */
static int each_series(void *ud, const struct pmc_history_point *ps, size_t n)
{
	struct each *ea = ud;
	struct series s;
	int r = pmc_cli_hist_series_changes(ps, n, ea->o, &s);

	if (r == 0)
		r = add_rows(ea->rs, &s, ea->o, ea->from);
	if (r == 0 && ea->o->html)
		r = pmc_cli_hist_charts_add(ea->charts, &s);
	pmc_cli_hist_series_clear(&s);
	ea->nseries++;
	return r;
}

int pmc_cli_hist_changes(int argc, char **argv, struct hopts *o)
{
	const char *format = o->format ? o->format : "table";
	struct pmc_history *h = NULL;
	struct pmc_history_entry *es = NULL;
	struct charts charts = {NULL, 0};
	struct rows rows = {NULL, 0};
	struct each ea = {o, 0, &rows, &charts, 0};
	struct pmc_changes c = {0};
	size_t nes = 0;
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
	if (o->new_since && new_from(h, o->new_since, &ea.from) < 0)
		goto out;
	/* Series by series: memory holds one, its rows and charts, never the store. */
	err[0] = '\0';
	if (pmc_history_series(h, &o->f, each_series, &ea, &es, &nes, err, sizeof(err)) < 0) {
		if (err[0]) /* else each_series said what went wrong */
			pmc_cli_error("%s", err);
		goto out;
	}
	if (o->html &&
	    pmc_cli_hist_write_charts(o->html, &charts, true, pmc_history_display(h)) < 0)
		goto out;
	c = (struct pmc_changes){
	    .rows = rows.v,
	    .n = rows.n,
	    .nseries = ea.nseries,
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
	rows_free(&rows);
	pmc_cli_hist_charts_clear(&charts);
	pmc_history_entries_free(es, nes);
	pmc_history_close(h);
	return code;
}

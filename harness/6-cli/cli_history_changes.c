/* `pmcbench history changes`: the change points of every series a selection picks, as a
 * table or JSON, and with --html a page of them and their charts. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_history.h"
#include "core/changepoint.h"
#include "formats/json_out.h"
#include "history/history.h"
#include "reporters/format.h"
#include "session/session.h"

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* The commits the change lies between: after the point before it, up to its own. */
static void commit_range(const struct series *s, const struct pmc_changepoint *cp, char *buf,
			 size_t len)
{
	const struct pmc_history_point *before = &s->ps[s->at[cp->index - 1]];
	const struct pmc_history_point *at = &s->ps[s->at[cp->index]];

	snprintf(buf, len, "%.12s..%.12s", before->e.commit ? before->e.commit : "?",
		 at->e.commit ? at->e.commit : "?");
}

static int change_json(json_t *all, const struct series *s, const struct pmc_changepoint *cp)
{
	const struct pmc_history_point *at = &s->ps[s->at[cp->index]];
	const struct pmc_history_point *prev = &s->ps[s->at[cp->index - 1]];
	json_t *c = json_object();
	char when[32];

	if (!c || json_array_append_new(all, c) < 0)
		return -ENOMEM;
	when_text(at->e.t, when);
	json_object_set_new(c, "benchmark", jstr(at->benchmark));
	json_object_set_new(c, "metric", jstr(at->metric));
	json_object_set_new(c, "unit", jstr(at->unit));
	json_object_set_new(c, "machine", jstr(at->e.machine));
	json_object_set_new(c, "fingerprint", jstr(at->e.fingerprint));
	json_object_set_new(c, "points", json_integer((json_int_t)s->nx));
	json_object_set_new(c, "index", json_integer((json_int_t)cp->index));
	json_object_set_new(c, "entry", jstr(at->e.id));
	json_object_set_new(c, "measured", json_string(when));
	json_object_set_new(c, "commit_before", jstr(prev->e.commit));
	json_object_set_new(c, "commit", jstr(at->e.commit));
	json_object_set_new(c, "branch", jstr(at->e.branch));
	json_object_set_new(c, "before", jnum(cp->before));
	json_object_set_new(c, "after", jnum(cp->after));
	json_object_set_new(c, "ratio", jnum(cp->ratio));
	json_object_set_new(c, "ratio_lo", jnum(cp->ratio_lo));
	json_object_set_new(c, "ratio_hi", jnum(cp->ratio_hi));
	json_object_set_new(c, "p", jnum(cp->p));
	json_object_set_new(c, "q", jnum(cp->q));
	return 0;
}

static void change_line(const struct series *s, const struct pmc_changepoint *cp)
{
	const struct pmc_history_point *at = &s->ps[s->at[cp->index]];
	char range[40], when[32], change[128], b1[PMC_FMT_MAX], b2[PMC_FMT_MAX];
	char q1[PMC_QUOTE_SIZE(64)], q2[PMC_QUOTE_SIZE(64)], q3[PMC_QUOTE_SIZE(64)];

	when_text(at->e.t, when);
	commit_range(s, cp, range, sizeof(range));
	pmc_cli_hist_change_text(cp, change, sizeof(change));
	pmc_fmt_short(cp->before, at->unit, b1, sizeof(b1));
	pmc_fmt_short(cp->after, at->unit, b2, sizeof(b2));
	printf("%-24s  %-16s  %-12s  %-26s  %-20s  %-28s  %-10s  %-10s  %.2g\n",
	       q(q1, sizeof(q1), at->benchmark), q(q2, sizeof(q2), at->metric),
	       q(q3, sizeof(q3), at->e.machine), range, when, change, b1, b2, cp->p);
}

int pmc_cli_hist_changes(int argc, char **argv, struct hopts *o)
{
	const char *format = o->format ? o->format : "table";
	struct pmc_history *h = NULL;
	struct pmc_history_point *ps = NULL;
	struct charts charts = {NULL, 0};
	json_t *all = NULL;
	size_t n = 0, nseries = 0, nchanges = 0;
	char err[1024];
	int code = PMC_EXIT_ERROR;

	if (argc > 0) {
		pmc_cli_error("history changes takes no arguments, got '%s'; select with "
			      "--benchmark, --metric, ...",
			      argv[0]);
		return PMC_EXIT_ERROR;
	}
	if (strcmp(format, "table") != 0 && strcmp(format, "json") != 0) {
		pmc_cli_error("--format '%s': history changes writes table or json", format);
		return PMC_EXIT_ERROR;
	}
	if (o->html && pmc_session_check_path(&pmc_cli_printer, "--html", o->html) < 0)
		return PMC_EXIT_ERROR;
	if (strcmp(format, "json") == 0 && !(all = json_array())) {
		pmc_cli_error("out of memory");
		return PMC_EXIT_ERROR;
	}
	if (pmc_cli_hist_open(o, 0, &h) < 0)
		goto out;
	if (pmc_history_points(h, &o->f, &ps, &n, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		goto out;
	}
	if (!all)
		printf("%-24s  %-16s  %-12s  %-26s  %-20s  %-28s  %-10s  %-10s  %s\n", "benchmark",
		       "metric", "machine", "commits", "measured", "change (95% interval)",
		       "before", "after", "p");
	for (size_t i = 0; i < n;) {
		struct series s;
		size_t j = i + 1;

		while (j < n && pmc_history_same_series(&ps[i], &ps[j]))
			j++;
		if (pmc_cli_hist_series_changes(&ps[i], j - i, o, &s) < 0) {
			pmc_cli_hist_series_clear(&s);
			goto out;
		}
		nseries++;
		nchanges += s.ncps;
		for (size_t k = 0; k < s.ncps; k++) {
			if (!all) {
				change_line(&s, &s.cps[k]);
			} else if (change_json(all, &s, &s.cps[k]) < 0) {
				pmc_cli_error("out of memory");
				pmc_cli_hist_series_clear(&s);
				goto out;
			}
		}
		if (o->html && pmc_cli_hist_charts_add(&charts, &s) < 0) {
			pmc_cli_hist_series_clear(&s);
			goto out;
		}
		pmc_cli_hist_series_clear(&s);
		i = j;
	}
	if (o->html &&
	    pmc_cli_hist_write_charts(o->html, &charts, true, pmc_history_display(h)) < 0)
		goto out;
	if (all) {
		if (pmc_json_dumpf(all, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) < 0 ||
		    putchar('\n') == EOF) {
			pmc_cli_error("cannot write to standard output");
			goto out;
		}
	} else {
		printf("%zu change point%s in %zu series of %s\n", nchanges,
		       nchanges == 1 ? "" : "s", nseries, pmc_history_display(h));
	}
	code = fflush(stdout) == 0 ? PMC_EXIT_OK : PMC_EXIT_ERROR;
out:
	pmc_cli_hist_charts_clear(&charts);
	json_decref(all);
	pmc_history_points_free(ps, n);
	pmc_history_close(h);
	return code;
}

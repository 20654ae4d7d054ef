/* What show and changes share: the change points of one series, and its trend chart
 * (reporters/trend.h) in an SVG file or an HTML page of a suite. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/atomic_file.h"
#include "base/grow.h"
#include "cli/cli.h"
#include "cli/cli_history.h"
#include "core/changepoint.h"
#include "reporters/changes.h"
#include "reporters/escape.h"
#include "reporters/format.h"
#include "reporters/trend.h"

#define TITLE_MAX 512

void pmc_cli_hist_series_clear(struct series *s)
{
	free(s->x);
	free(s->at);
	free(s->cps);
	memset(s, 0, sizeof(*s));
}

/* Whether the series at ps[0..n) is of exact counts: a simulator's, every point's
 * samples equal. */
static bool series_exact(const struct pmc_history_point *ps, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		double v = NAN;

		if (!ps[i].simulated)
			return false;
		for (size_t k = 0; k < ps[i].n; k++) {
			if (isnan(ps[i].samples[k]))
				continue;
			if (!isnan(v) && ps[i].samples[k] != v)
				return false;
			v = ps[i].samples[k];
		}
	}
	return n > 0;
}

/* The change points of the series at ps[0..n). Returns 0, or -errno after an error line. */
int pmc_cli_hist_series_changes(const struct pmc_history_point *ps, size_t n, const struct hopts *o,
				struct series *s)
{
	int r;

	struct pmc_cp_opts cp = o->cp;

	memset(s, 0, sizeof(*s));
	s->ps = ps;
	s->n = n;
	s->x = malloc((n + 1) * sizeof(double));
	s->at = malloc((n + 1) * sizeof(size_t));
	if (!s->x || !s->at) {
		pmc_cli_error("out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (isfinite(ps[i].median)) {
			s->x[s->nx] = ps[i].median;
			s->at[s->nx++] = i;
		}
	cp.exact = series_exact(ps, n);
	r = pmc_changepoints(s->x, s->nx, &cp, &s->cps, &s->ncps);
	if (r < 0) {
		pmc_cli_error("%s", r == -ENOMEM ? "out of memory"
						 : "the change-point options are not valid");
		return r;
	}
	return 0;
}

void pmc_cli_hist_charts_clear(struct charts *cs)
{
	for (size_t i = 0; i < cs->n; i++) {
		free(cs->v[i].pts);
		free(cs->v[i].labels);
		free(cs->v[i].whens);
		free(cs->v[i].cps);
		free(cs->v[i].title);
	}
	free(cs->v);
	cs->v = NULL;
	cs->n = 0;
}

/* Adds the chart of s, taking its change points. Returns 0, or -ENOMEM after an error line. */
int pmc_cli_hist_charts_add(struct charts *cs, struct series *s)
{
	struct chart *c;
	const struct pmc_history_point *first = s->nx ? &s->ps[s->at[0]] : &s->ps[0];

	if (pmc_grow(&cs->v, cs->n, sizeof(*cs->v)) < 0)
		goto oom;
	c = &cs->v[cs->n];
	memset(c, 0, sizeof(*c));
	c->pts = calloc(s->nx + 1, sizeof(*c->pts));
	c->labels = calloc(s->nx + 1, sizeof(*c->labels));
	c->whens = calloc(s->nx + 1, sizeof(*c->whens));
	c->title = malloc(TITLE_MAX);
	cs->n++;
	if (!c->pts || !c->labels || !c->whens || !c->title)
		goto oom;
	for (size_t i = 0; i < s->nx; i++) {
		const struct pmc_history_point *p = &s->ps[s->at[i]];
		double lo = INFINITY, hi = -INFINITY;

		for (size_t k = 0; k < p->n; k++)
			if (!isnan(p->samples[k])) {
				lo = fmin(lo, p->samples[k]);
				hi = fmax(hi, p->samples[k]);
			}
		when_text(p->e.t, c->whens[i]);
		snprintf(c->labels[i], sizeof(c->labels[i]), "%.12s",
			 p->e.commit ? p->e.commit : c->whens[i]);
		c->pts[i] = (struct pmc_trend_point){
		    .label = c->labels[i],
		    .when = c->whens[i],
		    .median = p->median,
		    .lo = isfinite(lo) ? lo : NAN,
		    .hi = isfinite(hi) ? hi : NAN,
		};
	}
	snprintf(c->title, TITLE_MAX, "%s %s on %s (%s)", first->benchmark, first->metric,
		 first->e.machine ? first->e.machine : "?", first->e.fingerprint);
	c->cps = s->cps;
	s->cps = NULL;
	c->t = (struct pmc_trend){
	    .title = c->title,
	    .unit = first->unit,
	    .pts = c->pts,
	    .n = s->nx,
	    .cps = c->cps,
	    .ncps = s->ncps,
	};
	return 0;
oom:
	pmc_cli_error("out of memory");
	return -ENOMEM;
}

static void html_change_rows(FILE *f, const struct charts *cs)
{
	for (size_t i = 0; i < cs->n; i++) {
		const struct pmc_trend *t = &cs->v[i].t;

		for (size_t k = 0; k < t->ncps; k++) {
			const struct pmc_changepoint *cp = &t->cps[k];
			char change[128], p[PMC_FMT_MAX];

			pmc_changes_text(cp, change, sizeof(change));
			p[pmc_fmt_stat_to(p, cp->p)] = '\0';
			fputs("<tr><td><a href=\"#chart", f);
			fprintf(f, "%zu\">", i);
			pmc_escape_xml(f, t->title, SIZE_MAX);
			fputs("</a></td><td>", f);
			pmc_escape_xml(f, t->pts[cp->index - 1].label, SIZE_MAX);
			fputs("..", f);
			pmc_escape_xml(f, t->pts[cp->index].label, SIZE_MAX);
			fputs("</td><td>", f);
			pmc_escape_xml(f, t->pts[cp->index].when, SIZE_MAX);
			fputs("</td><td>", f);
			pmc_escape_xml(f, change, SIZE_MAX);
			fprintf(f, "</td><td>%s</td></tr>\n", p);
		}
	}
}

/* The charts into path, atomically: an SVG file, or with html a page of the change
 * points and every chart. Returns 0, or -errno after an error line. */
int pmc_cli_hist_write_charts(const char *path, const struct charts *cs, bool html,
			      const char *store)
{
	struct pmc_atomic_file *af;
	char err[1024];
	FILE *f;
	int r = 0;

	if (pmc_atomic_file_open(path, &af, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		return -EIO;
	}
	f = pmc_atomic_file_stream(af);
	if (!html) {
		struct pmc_trend *ts = calloc(cs->n + 1, sizeof(*ts));

		if (!ts) {
			pmc_atomic_file_abort(af);
			pmc_cli_error("out of memory");
			return -ENOMEM;
		}
		for (size_t i = 0; i < cs->n; i++)
			ts[i] = cs->v[i].t;
		r = pmc_trend_svg(f, ts, cs->n, true);
		free(ts);
	} else {
		fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		      "<title>pmcbench history: change points</title><style>"
		      "body{font:14px sans-serif;margin:24px} table{border-collapse:collapse}"
		      " td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}"
		      "</style></head><body>\n<h1>Change points</h1>\n<p>",
		      f);
		pmc_escape_xml(f, store, SIZE_MAX);
		fprintf(f,
			": %zu series</p>\n<table id=\"changes\"><tr><th>series</th><th>commits"
			"</th><th>measured</th><th>change (95%% interval)</th><th>p</th></tr>\n",
			cs->n);
		html_change_rows(f, cs);
		fputs("</table>\n", f);
		for (size_t i = 0; i < cs->n && r == 0; i++) {
			fprintf(f, "<div id=\"chart%zu\">\n", i);
			r = pmc_trend_svg(f, &cs->v[i].t, 1, false);
			fputs("</div>\n", f);
		}
		fputs("</body></html>\n", f);
	}
	if (r < 0 || ferror(f)) {
		r = pmc_atomic_file_write_error(af) ? pmc_atomic_file_write_error(af)
						     : r < 0 ? r : -EIO;
		pmc_atomic_file_abort(af);
		pmc_cli_error("%s: cannot write the chart: %s", path, strerror(-r));
		return -EIO;
	}
	if (pmc_atomic_file_commit(af, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		return -EIO;
	}
	return 0;
}

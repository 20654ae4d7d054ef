/* The trend charts of series (charts.h) and the two formats that draw them: svg (the
 * charts one under the other) and html (a page of their change points and the charts).
 * Titles that two charts share get what tells them apart. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "reporters/charts.h"
#include "reporters/reporter.h"
#include "reporters/trend.h"

#define TITLE_MAX 512

void pmc_charts_clear(struct pmc_charts *cs)
{
	for (size_t i = 0; i < cs->n; i++) {
		free(cs->v[i].pts);
		free(cs->v[i].labels);
		free(cs->v[i].whens);
		free(cs->v[i].cps);
		free(cs->v[i].title);
		free(cs->v[i].subtitle);
		free(cs->v[i].unit);
	}
	for (size_t i = 0; i < cs->nskipped; i++)
		free(cs->skipped[i]);
	free(cs->v);
	free(cs->skipped);
	memset(cs, 0, sizeof(*cs));
}

/* "work wall-time on box (perf)": what is measured where, without a hash. */
static void chart_title(const struct pmc_history_point *p, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s on %s (%s)", p->benchmark, p->metric,
		 p->e.machine ? p->e.machine : "?", p->e.backend ? p->e.backend : "?");
}

/* The rest of the fingerprint: "kernel 6.1.0, cpu Xeon, compiler GCC 12.2.0". */
static void chart_subtitle(const struct pmc_history_entry *e, char *buf, size_t len)
{
	const char *names[] = {"kernel", "cpu", "compiler", "environment"};
	const char *vals[] = {e->kernel, e->cpu, e->compiler, e->target_env};
	size_t at = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < sizeof(vals) / sizeof(vals[0]) && at < len; k++)
		if (vals[k] && *vals[k])
			at += (size_t)snprintf(buf + at, len - at, "%s%s %s", at ? ", " : "",
					       names[k], vals[k]);
}

static int skip_unmeasured(struct pmc_charts *cs, const struct pmc_series *s)
{
	char *title = malloc(TITLE_MAX);

	if (!title || pmc_grow(&cs->skipped, cs->nskipped, sizeof(*cs->skipped)) < 0) {
		free(title);
		return -ENOMEM;
	}
	chart_title(&s->ps[0], title, TITLE_MAX);
	cs->skipped[cs->nskipped++] = title;
	return 0;
}

/* The points of c from s's values. */
static void chart_points(struct pmc_chart *c, const struct pmc_series *s)
{
	for (size_t i = 0; i < s->nx; i++) {
		const struct pmc_history_point *p = &s->ps[s->at[i]];
		double lo = INFINITY, hi = -INFINITY;

		for (size_t k = 0; k < p->n; k++)
			if (!isnan(p->samples[k])) {
				lo = fmin(lo, p->samples[k]);
				hi = fmax(hi, p->samples[k]);
			}
		pmc_history_time_text(p->e.t, c->whens[i]);
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
}

int pmc_charts_add(struct pmc_charts *cs, const struct pmc_series *s)
{
	struct pmc_chart *c;
	const struct pmc_history_point *first;

	if (s->nx == 0)
		return skip_unmeasured(cs, s);
	first = &s->ps[s->at[0]];
	if (pmc_grow(&cs->v, cs->n, sizeof(*cs->v)) < 0)
		return -ENOMEM;
	c = &cs->v[cs->n++];
	memset(c, 0, sizeof(*c));
	c->pts = calloc(s->nx + 1, sizeof(*c->pts));
	c->labels = calloc(s->nx + 1, sizeof(*c->labels));
	c->whens = calloc(s->nx + 1, sizeof(*c->whens));
	c->cps = malloc((s->ncps + 1) * sizeof(*c->cps));
	c->title = malloc(TITLE_MAX);
	c->subtitle = malloc(TITLE_MAX);
	c->unit = strdup(first->unit ? first->unit : "");
	if (!c->pts || !c->labels || !c->whens || !c->cps || !c->title || !c->subtitle || !c->unit)
		return -ENOMEM;
	chart_points(c, s);
	if (s->ncps)
		memcpy(c->cps, s->cps, s->ncps * sizeof(*c->cps));
	chart_title(first, c->title, TITLE_MAX);
	chart_subtitle(&first->e, c->subtitle, TITLE_MAX);
	c->e = first->e;
	c->t = (struct pmc_trend){
	    .title = c->title,
	    .subtitle = c->subtitle[0] ? c->subtitle : NULL,
	    .id = first->e.fingerprint,
	    .unit = c->unit,
	    .pts = c->pts,
	    .n = s->nx,
	    .cps = c->cps,
	    .ncps = s->ncps,
	};
	return 0;
}

/* A chart's title as drawn: its own, and what tells it apart from the charts of the same
 * title. */
struct shown {
	char title[TITLE_MAX];
	const struct pmc_history_entry *e;
};

static int cmp_title(const void *a, const void *b)
{
	const struct shown *x = *(const struct shown *const *)a,
			   *y = *(const struct shown *const *)b;

	return strcmp(x->title, y->title);
}

/* Field k of e's fingerprint: kernel, cpu, compiler, environment, the fingerprint. */
static const char *fp_field(const struct pmc_history_entry *e, size_t k)
{
	const char *v[] = {e->kernel, e->cpu, e->compiler, e->target_env, e->fingerprint};

	return v[k] ? v[k] : "";
}

/* Appends to each title of g[0..n) (one title) the fields of the fingerprint that
 * differ among them, "(kernel 6.1, compiler gcc 12)"; the fingerprint itself only when
 * nothing else does. */
static void tell_apart(struct shown **g, size_t n)
{
	static const char *const names[] = {"kernel", "cpu", "compiler", "environment",
					    "fingerprint"};

	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(g[i]->title), told = 0;

		for (size_t k = 0; k < 5; k++) {
			bool differs = false;

			for (size_t j = 1; j < n && !differs; j++)
				differs = strcmp(fp_field(g[0]->e, k), fp_field(g[j]->e, k)) != 0;
			if (!differs || (k == 4 && told))
				continue;
			len += (size_t)snprintf(
			    g[i]->title + len, len < TITLE_MAX ? TITLE_MAX - len : 0, "%s%s %s",
			    told++ ? ", " : " - ", names[k], fp_field(g[i]->e, k));
			if (len >= TITLE_MAX)
				break;
		}
	}
}

/* The titles of cs's charts as drawn, in shown[0..cs->n). Returns 0 or -ENOMEM. */
static int unique_titles(const struct pmc_charts *cs, struct shown *shown)
{
	struct shown **by = malloc((cs->n + 1) * sizeof(*by));

	if (!by)
		return -ENOMEM;
	for (size_t i = 0; i < cs->n; i++) {
		snprintf(shown[i].title, TITLE_MAX, "%s", cs->v[i].title);
		shown[i].e = &cs->v[i].e;
		by[i] = &shown[i];
	}
	qsort(by, cs->n, sizeof(*by), cmp_title);
	for (size_t i = 0; i < cs->n;) {
		size_t j = i + 1;

		while (j < cs->n && strcmp(by[i]->title, by[j]->title) == 0)
			j++;
		if (j - i > 1)
			tell_apart(by + i, j - i);
		i = j;
	}
	free(by);
	return 0;
}

/* cs's trends with their titles as drawn, or NULL when out of memory; free both. */
static struct pmc_trend *trends(const struct pmc_charts *cs, struct shown **ret_shown)
{
	struct shown *shown = calloc(cs->n + 1, sizeof(*shown));
	struct pmc_trend *ts = calloc(cs->n + 1, sizeof(*ts));

	if (!shown || !ts || unique_titles(cs, shown) < 0) {
		free(shown);
		free(ts);
		return NULL;
	}
	for (size_t i = 0; i < cs->n; i++) {
		ts[i] = cs->v[i].t;
		ts[i].title = shown[i].title;
	}
	*ret_shown = shown;
	return ts;
}

static int svg_charts(FILE *out, const struct pmc_charts *cs, const char *store)
{
	struct shown *shown = NULL;
	struct pmc_trend *ts = trends(cs, &shown);
	int r;

	(void)store;
	if (!ts)
		return -ENOMEM;
	r = pmc_trend_svg(out, ts, cs->n, true);
	free(ts);
	free(shown);
	return r;
}

static int html_charts(FILE *out, const struct pmc_charts *cs, const char *store)
{
	struct shown *shown = NULL;
	struct pmc_trend *ts = trends(cs, &shown);
	int r;

	if (!ts)
		return -ENOMEM;
	r = pmc_trend_html(out, ts, cs->n, store, (const char *const *)cs->skipped, cs->nskipped);
	free(ts);
	free(shown);
	return r;
}

const struct pmc_reporter pmc_reporter_svg = {
    .name = "svg",
    .ext = ".svg",
    .document = true,
    .charts = svg_charts,
};

const struct pmc_reporter pmc_reporter_html = {
    .name = "html",
    .ext = ".html",
    .document = true,
    .charts = html_charts,
};

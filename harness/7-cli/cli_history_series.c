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

static int skip_unmeasured(struct charts *cs, const struct series *s)
{
	char *title = malloc(TITLE_MAX);

	if (!title || pmc_grow(&cs->skipped, cs->nskipped, sizeof(*cs->skipped)) < 0) {
		free(title);
		pmc_cli_error("out of memory");
		return -ENOMEM;
	}
	chart_title(&s->ps[0], title, TITLE_MAX);
	cs->skipped[cs->nskipped++] = title;
	return 0;
}

int pmc_cli_hist_charts_add(struct charts *cs, struct series *s)
{
	struct chart *c;
	const struct pmc_history_point *first;

	if (s->nx == 0)
		return skip_unmeasured(cs, s);
	first = &s->ps[s->at[0]];
	if (pmc_grow(&cs->v, cs->n, sizeof(*cs->v)) < 0)
		goto oom;
	c = &cs->v[cs->n];
	memset(c, 0, sizeof(*c));
	c->pts = calloc(s->nx + 1, sizeof(*c->pts));
	c->labels = calloc(s->nx + 1, sizeof(*c->labels));
	c->whens = calloc(s->nx + 1, sizeof(*c->whens));
	c->title = malloc(TITLE_MAX);
	c->subtitle = malloc(TITLE_MAX);
	c->unit = strdup(first->unit ? first->unit : "");
	cs->n++;
	if (!c->pts || !c->labels || !c->whens || !c->title || !c->subtitle || !c->unit)
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
	chart_title(first, c->title, TITLE_MAX);
	chart_subtitle(&first->e, c->subtitle, TITLE_MAX);
	c->e = first->e;
	c->cps = s->cps;
	s->cps = NULL;
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
oom:
	pmc_cli_error("out of memory");
	return -ENOMEM;
}

static int cmp_title(const void *a, const void *b)
{
	const struct chart *x = *(const struct chart *const *)a,
			   *y = *(const struct chart *const *)b;

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
static void tell_apart(struct chart **g, size_t n)
{
	static const char *const names[] = {"kernel", "cpu", "compiler", "environment",
					    "fingerprint"};

	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(g[i]->title), told = 0;

		for (size_t k = 0; k < 5; k++) {
			bool differs = false;

			for (size_t j = 1; j < n && !differs; j++)
				differs = strcmp(fp_field(&g[0]->e, k), fp_field(&g[j]->e, k)) != 0;
			if (!differs || (k == 4 && told))
				continue;
			len += (size_t)snprintf(
			    g[i]->title + len, len < TITLE_MAX ? TITLE_MAX - len : 0, "%s%s %s",
			    told++ ? ", " : " - ", names[k], fp_field(&g[i]->e, k));
			if (len >= TITLE_MAX)
				break;
		}
	}
}

/* Titles two charts share get what tells them apart. Returns 0 or -ENOMEM. */
static int unique_titles(struct charts *cs)
{
	struct chart **by = malloc((cs->n + 1) * sizeof(*by));

	if (!by)
		return -ENOMEM;
	for (size_t i = 0; i < cs->n; i++)
		by[i] = &cs->v[i];
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

int pmc_cli_hist_write_charts(const char *path, struct charts *cs, bool html, const char *store)
{
	struct pmc_atomic_file *af;
	struct pmc_trend *ts = NULL;
	char err[1024];
	FILE *f;
	int r = 0;

	if (!html && cs->n == 0) {
		pmc_cli_error("%s: nothing to draw: %s was never measured (every sample not "
			      "measured); no chart written",
			      path, cs->nskipped ? cs->skipped[0] : "the series");
		return -ENODATA;
	}
	if (unique_titles(cs) < 0 || !(ts = calloc(cs->n + 1, sizeof(*ts)))) {
		pmc_cli_error("out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < cs->n; i++)
		ts[i] = cs->v[i].t;
	if (pmc_atomic_file_open(path, &af, err, sizeof(err)) < 0) {
		free(ts);
		pmc_cli_error("%s", err);
		return -EIO;
	}
	f = pmc_atomic_file_stream(af);
	if (html)
		r = pmc_trend_html(f, ts, cs->n, store, (const char *const *)cs->skipped,
				   cs->nskipped);
	else
		r = pmc_trend_svg(f, ts, cs->n, true);
	free(ts);
	if (r < 0 || ferror(f)) {
		r = pmc_atomic_file_write_error(af) ? pmc_atomic_file_write_error(af)
		    : r < 0			    ? r
						    : -EIO;
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

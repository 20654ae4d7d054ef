/* A history's series, their change points and the rows of `history changes` (series.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/grow.h"
#include "core/series.h"

bool pmc_history_same_series(const struct pmc_history_point *a, const struct pmc_history_point *b)
{
	return strcmp(a->benchmark, b->benchmark) == 0 && strcmp(a->metric, b->metric) == 0 &&
	       strcmp(a->e.fingerprint, b->e.fingerprint) == 0;
}

void pmc_history_time_text(int64_t t, char buf[32])
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void pmc_series_clear(struct pmc_series *s)
{
	free(s->x);
	free(s->at);
	free(s->cps);
	free(s->wd);
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

int pmc_series_changes(const struct pmc_history_point *ps, size_t n, const struct pmc_cp_opts *o,
		       struct pmc_series *s)
{
	struct pmc_cp_opts cp = *o;

	memset(s, 0, sizeof(*s));
	s->ps = ps;
	s->n = n;
	s->x = malloc((n + 1) * sizeof(double));
	s->at = malloc((n + 1) * sizeof(size_t));
	if (!s->x || !s->at)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (isfinite(ps[i].median)) {
			s->x[s->nx] = ps[i].median;
			s->at[s->nx++] = i;
		}
	cp.exact = series_exact(ps, n);
	return pmc_changepoints_withdrawn(s->x, s->nx, &cp, &s->cps, &s->ncps, &s->wd, &s->nwd);
}

/* A copy of s (NULL: "") that c owns, or NULL when out of memory. */
static const char *keep(struct pmc_changes *c, const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d || pmc_grow(&c->names, c->nnames, sizeof(*c->names)) < 0) {
		free(d);
		return NULL;
	}
	c->names[c->nnames++] = d;
	return d;
}

/* Adds the withdrawals of s whose withdrawing point is at or after c->from; bench and
 * metric: its names as c keeps them, or NULL until one is needed. */
static int add_withdrawn(struct pmc_changes *c, const struct pmc_series *s, const char **bench,
			 const char **metric)
{
	for (size_t k = 0; k < s->nwd; k++) {
		const struct pmc_cp_withdrawn *w = &s->wd[k];
		const struct pmc_history_point *at = &s->ps[s->at[w->index]];
		const struct pmc_history_point *prev = &s->ps[s->at[w->index - 1]];
		const struct pmc_history_point *rep = &s->ps[s->at[w->reported_n - 1]];
		const struct pmc_history_point *gone = &s->ps[s->at[w->withdrawn_n - 1]];
		struct pmc_withdrawn_row *g;

		if (c->from && gone->e.t < c->from)
			continue;
		if (!*bench &&
		    (!(*bench = keep(c, at->benchmark)) || !(*metric = keep(c, at->metric))))
			return -ENOMEM;
		if (pmc_grow(&c->gone, c->ngone, sizeof(*c->gone)) < 0)
			return -ENOMEM;
		g = &c->gone[c->ngone++];
		*g = (struct pmc_withdrawn_row){
		    .benchmark = *bench,
		    .metric = *metric,
		    .machine = at->e.machine,
		    .commit_before = prev->e.commit,
		    .commit = at->e.commit,
		    .reported_at = rep->e.commit,
		    .withdrawn_at = gone->e.commit,
		    .w = *w,
		};
		pmc_history_time_text(gone->e.t, g->withdrawn_measured);
	}
	return 0;
}

int pmc_changes_add(struct pmc_changes *c, const struct pmc_series *s)
{
	const char *bench = NULL, *metric = NULL, *unit = NULL;

	c->nseries++;
	if (add_withdrawn(c, s, &bench, &metric) < 0)
		return -ENOMEM;
	for (size_t k = 0; k < s->ncps; k++) {
		const struct pmc_changepoint *cp = &s->cps[k];
		const struct pmc_history_point *at = &s->ps[s->at[cp->index]];
		const struct pmc_history_point *prev = &s->ps[s->at[cp->index - 1]];
		enum pmc_cp_way way = pmc_cp_way(cp, pmc_cp_metric_better(at->metric, at->better));
		struct pmc_change_row *r;

		if ((c->from && at->e.t < c->from) || !pmc_cp_selected(cp, way, &c->select))
			continue;
		if (!bench &&
		    (!(bench = keep(c, at->benchmark)) || !(metric = keep(c, at->metric))))
			return -ENOMEM;
		if (!unit && !(unit = keep(c, at->unit)))
			return -ENOMEM;
		if (pmc_grow(&c->rows, c->n, sizeof(*c->rows)) < 0)
			return -ENOMEM;
		r = &c->rows[c->n++];
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
		pmc_history_time_text(at->e.t, r->measured);
	}
	return 0;
}

void pmc_changes_clear(struct pmc_changes *c)
{
	for (size_t i = 0; i < c->nnames; i++)
		free(c->names[i]);
	free(c->names);
	free(c->rows);
	free(c->gone);
	c->names = NULL;
	c->rows = NULL;
	c->gone = NULL;
	c->n = c->nnames = c->ngone = 0;
}

size_t pmc_changes_regressions(const struct pmc_changes *c)
{
	size_t k = 0;

	for (size_t i = 0; i < c->n; i++)
		k += c->rows[i].way == PMC_CP_REGRESSION;
	return k;
}

const char *pmc_changes_verdict(const struct pmc_changes *c)
{
	if (!c->new_since)
		return NULL;
	return pmc_changes_regressions(c) ? "regression" : "pass";
}

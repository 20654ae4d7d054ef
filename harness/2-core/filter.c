/* `compare --filter` (filter.h): parsing the terms and a borrowing view of a result. The
 * view is taken before the comparison, as benchstat's -filter is, so that what is left
 * out is not compared at all: its rows are neither shown nor counted in the
 * Benjamini-Hochberg families of the rest (docs/compare.md, "Filters"). */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/grow.h"
#include "core/filter.h"
#include "core/result.h"

int pmc_filter_add(struct pmc_filter *f, const char *expr, char *err, size_t errlen)
{
	static const struct {
		const char *key;
		bool metric;
	} keys[] = {{"name", false}, {"benchmark", false}, {"metric", true}};
	const char *colon = strchr(expr, ':'), *glob = expr;
	struct pmc_filter_term t = {0};

	if (expr[0] == '\0') {
		pmc_err_set(err, errlen,
			    "filter '': empty; give name:GLOB, metric:GLOB or a glob of benchmark "
			    "names");
		return -EINVAL;
	}
	if (colon) {
		const char *key = expr;
		size_t klen;
		bool found = false;

		if (key[0] == '-') {
			t.negate = true;
			key++;
		}
		klen = (size_t)(colon - key);
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			if (strlen(keys[i].key) == klen && strncmp(keys[i].key, key, klen) == 0) {
				t.metric = keys[i].metric;
				found = true;
			}
		}
		if (!found) {
			pmc_err_set(err, errlen,
				    "filter '%s': unknown key '%.*s'; use name:GLOB, metric:GLOB "
				    "(a '-' before either leaves out what it matches), or name:%s "
				    "for a benchmark name with a colon",
				    expr, (int)klen, key, expr);
			return -EINVAL;
		}
		glob = colon + 1;
		if (glob[0] == '\0') {
			pmc_err_set(err, errlen,
				    "filter '%s': no pattern after '%.*s:'; give one, such as "
				    "%.*s:'*sort*'",
				    expr, (int)klen, key, (int)klen, key);
			return -EINVAL;
		}
	}
	t.glob = strdup(glob);
	if (!t.glob || pmc_grow(&f->terms, f->n, sizeof(*f->terms)) < 0) {
		free(t.glob);
		return -ENOMEM;
	}
	f->terms[f->n++] = t;
	return 0;
}

static bool holds(const struct pmc_filter *f, bool metric, const char *s)
{
	for (size_t i = 0; f && i < f->n; i++) {
		const struct pmc_filter_term *t = &f->terms[i];

		if (t->metric == metric && (fnmatch(t->glob, s, 0) == 0) == t->negate)
			return false;
	}
	return true;
}

bool pmc_filter_bench(const struct pmc_filter *f, const char *name)
{
	return holds(f, false, name);
}

bool pmc_filter_metric(const struct pmc_filter *f, const char *id)
{
	return holds(f, true, id);
}

void pmc_filter_clear(struct pmc_filter *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->terms[i].glob);
	free(f->terms);
	f->terms = NULL;
	f->n = 0;
}

void pmc_filter_view_free(struct pmc_result *v)
{
	if (!v)
		return;
	for (size_t i = 0; v->benchmarks && i < v->nbench; i++)
		free(v->benchmarks[i].metrics);
	free(v->benchmarks);
	free(v);
}

int pmc_filter_view(const struct pmc_filter *f, const struct pmc_result *r, const char *name,
		    struct pmc_result **ret, char *err, size_t errlen)
{
	struct pmc_result *v = calloc(1, sizeof(*v));
	size_t nmetrics = 0, first = 0;

	if (!v)
		return -ENOMEM;
	*v = *r;
	/* No name index: it would point into r's array, not this one. */
	v->priv = NULL;
	v->nbench = 0;
	v->benchmarks = calloc(r->nbench ? r->nbench : 1, sizeof(*v->benchmarks));
	if (!v->benchmarks)
		goto fail_memory;
	for (size_t i = 0; i < r->nbench; i++) {
		const struct pmc_benchmark *b = &r->benchmarks[i];
		struct pmc_benchmark *nb;

		if (!pmc_filter_bench(f, b->name))
			continue;
		if (v->nbench == 0)
			first = i;
		nb = &v->benchmarks[v->nbench++];
		*nb = *b;
		nb->nmetrics = 0;
		nb->metrics_cap = 0;
		nb->metrics = malloc((b->nmetrics ? b->nmetrics : 1) * sizeof(*nb->metrics));
		if (!nb->metrics)
			goto fail_memory;
		for (size_t j = 0; j < b->nmetrics; j++)
			if (pmc_filter_metric(f, b->metrics[j].id))
				nb->metrics[nb->nmetrics++] = b->metrics[j];
		nmetrics += nb->nmetrics;
	}
	if (v->nbench == 0 || nmetrics == 0) {
		/* The names it could have selected, for the fix: the metrics of the first
		 * benchmark selected, else the benchmarks. */
		const struct pmc_benchmark *b = v->nbench ? &r->benchmarks[first] : NULL;
		size_t n = b ? b->nmetrics : r->nbench, o = 0;
		char names[200] = "";

		for (size_t i = 0; i < n && i < 4 && o < sizeof(names); i++)
			o += (size_t)snprintf(names + o, sizeof(names) - o, "%s'%s'", i ? ", " : "",
					      b ? b->metrics[i].id : r->benchmarks[i].name);
		if (n > 4 && o < sizeof(names))
			snprintf(names + o, sizeof(names) - o, ", ...");
		if (b)
			pmc_err_set(err, errlen,
				    "filter selects no metric of %s (benchmark '%s' has %s); "
				    "change the metric: terms",
				    name, b->name, n ? names : "none");
		else
			pmc_err_set(err, errlen,
				    "filter selects no benchmark of %s (it has %s); change the "
				    "name: terms or the glob",
				    name, n ? names : "none");
		pmc_filter_view_free(v);
		return -ENODATA;
	}
	*ret = v;
	return 0;

fail_memory:
	pmc_filter_view_free(v);
	return -ENOMEM;
}

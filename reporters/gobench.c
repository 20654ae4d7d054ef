/* Go's benchmark format (https://go.dev/design/14313-benchmark-format, docs/export.md), which
 * benchstat reads as it is: one line per run, "Benchmark<name> <N> <value> <unit> ...",
 * with every metric measured in that run; configuration lines (key: value) above them;
 * "Unit <unit> better=... assume=exact" lines for what the units mean. Only the samples
 * are written: benchstat computes its own statistics from them. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/grow.h"
#include "base/hashmap.h"
#include "core/compare.h"
#include "core/metrics.h"
#include "core/result.h"
#include "reporters/compare_cells.h"
#include "reporters/escape.h"
#include "reporters/format.h"
#include "reporters/reporter.h"

/* ---- Units ------------------------------------------------------------------------ */

/* The Go unit of metric id (unit `unit`), malloc'd, or NULL (ENOMEM). Amounts that grow
 * with the work (counts, times, sizes) are per operation, as Go's units are ("/op");
 * rates and ratios are not. Time is "ns" so that benchstat tidies it to "sec" as it does
 * Go's own ns/op (docs/export.md, "Units"). */
static char *go_unit(const char *id, const char *unit)
{
	size_t len = strlen(id);
	char *text = NULL, *escaped;
	int n;

	/* A microbenchmark's "<id>/op" is already per operation. */
	if (len > 3 && strcmp(id + len - 3, "/op") == 0)
		len -= 3;
	if (!unit)
		unit = "count";
	/* A user counter's 1024-based steps are the terminal's only: Go's units have none. */
	if (strcmp(unit, "count:1024") == 0)
		unit = "count";
	else if (strcmp(unit, "count:1024/s") == 0)
		unit = "count/s";
	if (strcmp(unit, "ns") == 0 && len == 9 && strncmp(id, "wall-time", 9) == 0)
		n = asprintf(&text, "ns/op");
	else if (strcmp(unit, "ns") == 0)
		n = asprintf(&text, "%.*s-ns/op", (int)len, id);
	else if (strcmp(unit, "count") == 0)
		n = asprintf(&text, "%.*s/op", (int)len, id);
	else if (strcmp(unit, "bytes") == 0)
		n = asprintf(&text, "%.*s-B/op", (int)len, id);
	else if (strcmp(unit, "ratio") == 0)
		n = asprintf(&text, "%.*s", (int)len, id);
	else if (strcmp(unit, "percent") == 0)
		n = asprintf(&text, "%.*s-%%", (int)len, id);
	else if (strlen(unit) == len && strncasecmp(id, unit, len) == 0)
		/* The metric is named after its unit (items/s, bytes/s, ghz). */
		n = asprintf(&text, "%s", strcmp(unit, "bytes/s") == 0 ? "B/s" : unit);
	else if (strcmp(unit, "bytes/s") == 0)
		n = asprintf(&text, "%.*s-B/s", (int)len, id);
	else
		n = asprintf(&text, "%.*s-%s", (int)len, id, unit);
	if (n < 0)
		return NULL;
	escaped = pmc_escape_go_name(text);
	free(text);
	return escaped;
}

/* The direction of an improvement: the registry's for a known metric (which knows the
 * ratios without one), else what the file says. */
static int direction(const struct pmc_metric *m)
{
	struct pmc_metric_info info = pmc_metric_lookup(m->id);

	return info.id ? (int)info.direction : m->better;
}

/* The units of the whole output in order of first appearance, for the Unit lines. */
struct units {
	struct pmc_hashmap index; /* unit -> entry */
	struct unit_entry {
		char *name;
		int better;
		bool exact; /* every metric written in this unit is simulated (valgrind) */
	} * v;		    /* grown by pmc_grow */
	size_t n;
};

static int units_add(struct units *u, const char *name, const struct pmc_metric *m)
{
	size_t at;
	int r;

	if (pmc_hashmap_get(&u->index, name, &at) == 0) {
		u->v[at].exact &= m->simulated;
		return 0;
	}
	if (pmc_grow(&u->v, u->n, sizeof(*u->v)) < 0)
		return -ENOMEM;
	u->v[u->n] = (struct unit_entry){
	    .name = strdup(name), .better = direction(m), .exact = m->simulated};
	if (!u->v[u->n].name)
		return -ENOMEM;
	r = pmc_hashmap_put(&u->index, u->v[u->n].name, u->n);
	if (r < 0) {
		free(u->v[u->n].name);
		return r;
	}
	u->n++;
	return 0;
}

static void units_free(struct units *u)
{
	for (size_t i = 0; i < u->n; i++)
		free(u->v[i].name);
	free(u->v);
	pmc_hashmap_free(&u->index);
}

/* "Unit ns/op better=lower": benchstat then knows which way is an improvement, and that
 * simulated counts are exact (repeating them adds no confidence). */
static void put_unit_lines(FILE *out, const struct units *u)
{
	for (size_t i = 0; i < u->n; i++) {
		const struct unit_entry *e = &u->v[i];

		if (e->better == 0 && !e->exact)
			continue;
		fprintf(out, "Unit %s", e->name);
		if (e->better)
			fprintf(out, " better=%s", e->better > 0 ? "higher" : "lower");
		if (e->exact)
			fputs(" assume=exact", out);
		fputc('\n', out);
	}
}

/* ---- Names ------------------------------------------------------------------------ */

/* Escaped benchmark names made unique as Go's testing package makes them ("#01"), for
 * two names that differ only in what escaping changes. */
struct names {
	struct pmc_hashmap index;
	char **v;
	size_t n;
};

/* Adds the Go name of name to ns; *ret points to it. */
static int names_add(struct names *ns, const char *name, const char **ret)
{
	char *esc = pmc_escape_go_name(name), *unique = esc;
	int r;

	if (!esc || pmc_grow(&ns->v, ns->n, sizeof(*ns->v)) < 0) {
		free(esc);
		return -ENOMEM;
	}
	for (unsigned k = 1; unique && pmc_hashmap_has(&ns->index, unique); k++) {
		if (unique != esc)
			free(unique);
		if (asprintf(&unique, "%s#%02u", esc, k) < 0)
			unique = NULL;
	}
	if (unique != esc)
		free(esc);
	if (!unique)
		return -ENOMEM;
	r = pmc_hashmap_put(&ns->index, unique, ns->n);
	if (r < 0) {
		free(unique);
		return r;
	}
	ns->v[ns->n++] = unique;
	*ret = unique;
	return 0;
}

static void names_free(struct names *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
	pmc_hashmap_free(&ns->index);
}

/* ---- Lines ------------------------------------------------------------------------ */

/* The metrics of one benchmark as written: each with its Go unit, or NULL for one left
 * out (its unit is another metric's of the same benchmark). */
struct columns {
	const struct pmc_metric **m;
	char **unit;
	size_t n;
};

static void columns_free(struct columns *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->unit[i]);
	free(c->m);
	free(c->unit);
	c->n = 0;
}

/* Fills c with the metrics m[0..n-1] that have a measured value (a NULL entry is a metric
 * the side lacks) and adds their units to u. */
static int columns_build(struct columns *c, const struct pmc_metric *const *m, size_t n,
			 struct units *u)
{
	int r = 0;

	c->n = 0;
	c->m = calloc(n ? n : 1, sizeof(*c->m));
	c->unit = calloc(n ? n : 1, sizeof(*c->unit));
	if (!c->m || !c->unit)
		return -ENOMEM;
	for (size_t i = 0; i < n && r == 0; i++) {
		char *name;
		bool taken = false;

		if (!m[i] || !pmc_metric_any_value(m[i]))
			continue;
		name = go_unit(m[i]->id, m[i]->unit);
		if (!name)
			return -ENOMEM;
		for (size_t k = 0; k < c->n && !taken; k++)
			taken = c->unit[k] && strcmp(c->unit[k], name) == 0;
		if (taken) {
			free(name);
			continue;
		}
		c->m[c->n] = m[i];
		c->unit[c->n++] = name;
		r = units_add(u, name, m[i]);
	}
	return r;
}

/* One line per run with a measured value: "Benchmark<name> <N> <value> <unit> ...". N is
 * the run's iterations when known (a microbenchmark's batch), else 1: a run of a command
 * is one operation. */
static void put_runs(FILE *out, const char *name, const struct columns *c,
		     const struct pmc_run_info *runs, size_t nruns)
{
	size_t most = nruns;

	for (size_t i = 0; i < c->n; i++)
		most = c->m[i]->n > most ? c->m[i]->n : most;
	for (size_t k = 0; k < most; k++) {
		unsigned long long iters = k < nruns && runs[k].iterations ? runs[k].iterations : 1;
		bool any = false;

		for (size_t i = 0; i < c->n; i++) {
			const struct pmc_metric *m = c->m[i];
			char v[PMC_FMT_MAX];

			if (k >= m->n || isnan(m->values[k]))
				continue;
			if (!any)
				fprintf(out, "Benchmark%s\t%llu", name, iters);
			any = true;
			pmc_fmt_exact_to(v, m->values[k]);
			fprintf(out, "\t%s %s", v, c->unit[i]);
		}
		if (any)
			fputc('\n', out);
	}
}

static void put_comment(FILE *out, const char *what, const char *text)
{
	fprintf(out, "# %s: ", what);
	pmc_escape_go_text(out, text);
	fputc('\n', out);
}

/* A configuration line: the key is ours and valid (lower case, no space). */
static void put_config(FILE *out, const char *key, const char *value)
{
	fprintf(out, "%s: ", key);
	pmc_escape_go_text(out, value);
	fputc('\n', out);
}

static int gobench_finish(FILE *out, struct pmc_fmt_locale *loc, int r)
{
	pmc_fmt_locale_restore(loc);
	if (r == 0 && (fflush(out) != 0 || ferror(out)))
		r = errno ? -errno : -EIO;
	return r;
}

/* ---- A result --------------------------------------------------------------------- */

/* Configuration lines are what benchstat groups results by (all keys, by default), so
 * only what makes two results incomparable is one: the backend, the architecture and the
 * CPU (Go writes goarch and cpu). The rest of the environment (the host, the kernel, when)
 * differs between any two runs worth comparing and would split benchstat's tables: it is
 * written as comments. */
static void put_result_head(FILE *out, const struct pmc_result *r)
{
	const char *v;

	fprintf(out, "# pmcbench%s%s result%s%s; Go's benchmark format (docs/export.md)\n",
		r->tool_version ? " " : "", r->tool_version ? r->tool_version : "",
		r->created ? " of " : "", r->created ? r->created : "");
	put_config(out, "backend", r->backend);
	if ((v = pmc_result_get_env(r, "arch")))
		put_config(out, "arch", v);
	if ((v = pmc_result_get_env(r, "cpu-model")))
		put_config(out, "cpu", v);
	for (size_t i = 0; i < r->nenv; i++)
		if (strcmp(r->env[i].key, "arch") != 0 && strcmp(r->env[i].key, "cpu-model") != 0)
			put_comment(out, r->env[i].key, r->env[i].value);
}

static int gobench_result(FILE *out, const struct pmc_result *r, const struct pmc_analysis *a,
			  const struct pmc_report_opts *o)
{
	struct pmc_fmt_locale loc = {0};
	struct units u = {0};
	struct names ns = {0};
	struct columns *cols;
	const char **name;
	int rc = 0;

	cols = calloc(r->nbench ? r->nbench : 1, sizeof(*cols));
	name = calloc(r->nbench ? r->nbench : 1, sizeof(*name));
	if (!cols || !name || pmc_fmt_locale_c(&loc) < 0) {
		rc = -ENOMEM;
		goto out;
	}
	errno = 0;
	/* The units first: their lines come before the results. */
	for (size_t i = 0; i < r->nbench && rc == 0; i++) {
		const struct pmc_benchmark *b = &r->benchmarks[i];
		const struct pmc_metric **m = calloc(b->nmetrics ? b->nmetrics : 1, sizeof(*m));

		if (!m) {
			rc = -ENOMEM;
			break;
		}
		for (size_t j = 0; j < b->nmetrics; j++)
			m[j] = &b->metrics[j];
		rc = columns_build(&cols[i], m, b->nmetrics, &u);
		free(m);
		if (rc == 0)
			rc = names_add(&ns, b->name, &name[i]);
	}
	if (rc < 0)
		goto out;
	put_result_head(out, r);
	put_unit_lines(out, &u);
	for (size_t i = 0; i < r->nbench; i++) {
		const struct pmc_benchmark *b = &r->benchmarks[i];

		if (b->skipped) {
			fprintf(out, "# Benchmark%s skipped itself: ", name[i]);
			pmc_escape_go_text(out, *b->skipped ? b->skipped : "no reason given");
			fputc('\n', out);
			continue;
		}
		put_runs(out, name[i], &cols[i], b->runs, b->nruns);
	}
out:
	for (size_t i = 0; cols && i < r->nbench; i++)
		columns_free(&cols[i]);
	free(cols);
	free(name);
	names_free(&ns);
	units_free(&u);
	return gobench_finish(out, &loc, rc);
}

/* ---- A comparison ----------------------------------------------------------------- */

/* The rows of one benchmark pair: consecutive in a comparison, which pairs benchmark by
 * benchmark. */
struct group {
	size_t first, n;
	const char *name; /* Go name */
	struct columns side[2];
};

/* Both sides' samples of every compared row, under "side: old" and "side: new" and the
 * new benchmark's name (so that a pair has one name), for `benchstat -col side FILE`. */
static int gobench_comparison(FILE *out, const struct pmc_comparison *c,
			      const struct pmc_report_opts *o)
{
	struct pmc_fmt_locale loc = {0};
	struct units u = {0};
	struct names ns = {0};
	struct group *g = NULL;
	const struct pmc_metric **m = NULL;
	size_t ng = 0;
	int rc = 0;

	if (pmc_fmt_locale_c(&loc) < 0)
		return -ENOMEM;
	errno = 0;
	fprintf(out, "# pmcbench comparison of ");
	pmc_escape_go_text(out, pmc_cmp_label(o->old_name, "old"));
	fprintf(out, " (side old) and ");
	pmc_escape_go_text(out, pmc_cmp_label(o->new_name, "new"));
	fprintf(out, " (side new); Go's benchmark format: benchstat -col side FILE "
		     "(docs/export.md)\n");
	if (!c) {
		put_comment(out, "error", o->error ? o->error : "no comparison");
		return gobench_finish(out, &loc, 0);
	}
	g = calloc(c->nrows ? c->nrows : 1, sizeof(*g));
	m = calloc(c->nrows ? c->nrows : 1, sizeof(*m));
	if (!g || !m) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < c->nrows && rc == 0; i++) {
		const struct pmc_cmp_row *row = &c->rows[i];

		if (ng && strcmp(c->rows[g[ng - 1].first].bench, row->bench) == 0 &&
		    strcmp(c->rows[g[ng - 1].first].old_bench, row->old_bench) == 0) {
			g[ng - 1].n++;
			continue;
		}
		g[ng] = (struct group){.first = i, .n = 1};
		rc = names_add(&ns, row->bench, &g[ng].name);
		ng++;
	}
	for (size_t k = 0; k < ng && rc == 0; k++) {
		for (int side = 0; side < 2 && rc == 0; side++) {
			for (size_t i = 0; i < g[k].n; i++) {
				const struct pmc_cmp_row *row = &c->rows[g[k].first + i];

				m[i] = side == 0 ? row->old_m : row->new_m;
			}
			rc = columns_build(&g[k].side[side], m, g[k].n, &u);
		}
	}
	if (rc < 0)
		goto out;
	put_unit_lines(out, &u);
	for (int side = 0; side < 2; side++) {
		put_config(out, "side", side == 0 ? "old" : "new");
		for (size_t k = 0; k < ng; k++) {
			const struct pmc_cmp_row *row = &c->rows[g[k].first];

			if (side == 0)
				put_runs(out, g[k].name, &g[k].side[0], row->old_runs,
					 row->old_nruns);
			else
				put_runs(out, g[k].name, &g[k].side[1], row->new_runs,
					 row->new_nruns);
		}
	}
out:
	for (size_t k = 0; g && k < ng; k++) {
		columns_free(&g[k].side[0]);
		columns_free(&g[k].side[1]);
	}
	free(g);
	free(m);
	names_free(&ns);
	units_free(&u);
	return gobench_finish(out, &loc, rc);
}

const struct pmc_reporter pmc_reporter_gobench = {
    .name = "gobench",
    .ext = ".txt",
    .by_extension = true,
    .describe = "Go's benchmark format",
    .document = true,
    .result = gobench_result,
    .comparison = gobench_comparison,
    .two_sides = true,
};

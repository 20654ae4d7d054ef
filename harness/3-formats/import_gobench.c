/* Go's benchmark format (go test -bench, the "Go benchmark data format" proposal, golang.org
 * design 14313): each result line "BenchmarkName-8  N  value unit  value unit ..." is one
 * run of its benchmark; "key: value" configuration lines describe the results after them;
 * "Unit unit key=value ..." lines say which way is better for a unit; every other line is
 * ignored, as the format says (docs/import.md). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "core/metrics.h"
#include "core/result.h"
#include "formats/import_priv.h"

#define FIX "save the output of go test -bench (with -count 10) to the file as it is printed"

#define MAX_FIELDS 128

/* How a unit of the format becomes a metric: ns/op is pmcbench's wall-time/op, MB/s its
 * bytes/s (Go's MB is 10^6 bytes); B/op and allocs/op, the testing package's allocation
 * counts, keep their names; any other unit is its own metric id, in unit "count", with
 * no direction unless a Unit line gives one. */
static const struct {
	const char *go, *id, *unit;
	int better;
	double factor;
} known_units[] = {
    {"ns/op", "wall-time/op", "ns", PMC_LOWER_IS_BETTER, 1},
    {"sec/op", "wall-time/op", "ns", PMC_LOWER_IS_BETTER, 1e9},
    {"MB/s", "bytes/s", "bytes/s", PMC_HIGHER_IS_BETTER, 1e6},
    {"B/s", "bytes/s", "bytes/s", PMC_HIGHER_IS_BETTER, 1},
    {"B/op", "B/op", "bytes", PMC_LOWER_IS_BETTER, 1},
    {"allocs/op", "allocs/op", "count", PMC_LOWER_IS_BETTER, 1},
};

struct field {
	const char *s;
	size_t len;
};

struct unit_better {
	char *id;
	int better;
};

struct go {
	struct pmc_importer im;
	struct pmc_result *res;
	size_t line;
	char *pkg;   /* of the results that follow ("pkg: ..."), or NULL */
	char **pkgs; /* the package of each benchmark, by index */
	size_t npkgs;
	struct unit_better *units;
	size_t nunits;
};

/* Splits a line at runs of white space, as Go's strings.Fields. */
static size_t split(const char *line, size_t len, struct field *f, size_t max)
{
	size_t n = 0, i = 0;

	while (i < len) {
		size_t start;

		while (i < len && isspace((unsigned char)line[i]))
			i++;
		if (i == len)
			break;
		start = i;
		while (i < len && !isspace((unsigned char)line[i]))
			i++;
		if (n < max)
			f[n] = (struct field){line + start, i - start};
		n++;
	}
	return n;
}

static bool field_is(const struct field *f, const char *s)
{
	return f->len == strlen(s) && memcmp(f->s, s, f->len) == 0;
}

/* The id of a unit of the format, with its unit, direction and scale. */
static void map_unit(const struct field *u, char *id, size_t idlen, const char **ret_unit,
		     int *ret_better, double *ret_factor)
{
	for (size_t i = 0; i < sizeof(known_units) / sizeof(known_units[0]); i++) {
		if (field_is(u, known_units[i].go)) {
			snprintf(id, idlen, "%s", known_units[i].id);
			*ret_unit = known_units[i].unit;
			*ret_better = known_units[i].better;
			*ret_factor = known_units[i].factor;
			return;
		}
	}
	snprintf(id, idlen, "%.*s", (int)u->len, u->s);
	*ret_unit = "count";
	*ret_better = PMC_NO_DIRECTION;
	*ret_factor = 1;
}

/* "key: value": key starts with a lower-case letter and has no space nor upper-case
 * letter; white space (or nothing) follows the colon. */
static bool config_line(const char *line, size_t len, size_t *ret_colon)
{
	size_t i;

	if (len == 0 || !islower((unsigned char)line[0]))
		return false;
	for (i = 0; i < len && line[i] != ':'; i++)
		if (isspace((unsigned char)line[i]) || isupper((unsigned char)line[i]))
			return false;
	if (i == len || (i + 1 < len && line[i + 1] != ' ' && line[i + 1] != '\t'))
		return false;
	*ret_colon = i;
	return true;
}

static int config(struct go *g, const char *line, size_t len, size_t colon)
{
	static const struct {
		const char *key, *env;
	} env_keys[] = {{"cpu", "cpu-model"}, {"goos", "goos"}, {"goarch", "goarch"}};
	size_t v = colon + 1;
	char value[256];

	while (v < len && isspace((unsigned char)line[v]))
		v++;
	snprintf(value, sizeof(value), "%.*s", (int)(len - v), line + v);
	if (colon == 3 && memcmp(line, "pkg", 3) == 0) {
		free(g->pkg);
		g->pkg = strdup(value);
		return g->pkg ? 0 : -ENOMEM;
	}
	for (size_t i = 0; i < sizeof(env_keys) / sizeof(env_keys[0]); i++)
		if (colon == strlen(env_keys[i].key) && memcmp(line, env_keys[i].key, colon) == 0 &&
		    *value && !pmc_result_get_env(g->res, env_keys[i].env))
			return pmc_result_set_env(g->res, env_keys[i].env, value);
	return 0;
}

/* "Unit <unit> better=lower|higher assume=..." */
static int unit_line(struct go *g, const struct field *f, size_t n)
{
	const char *unit;
	double factor;
	char id[256];
	int better = PMC_NO_DIRECTION, dflt;

	if (n < 2)
		return pmc_import_fail(&g->im, g->line,
				       "a Unit line names a unit: Unit <unit> "
				       "key=value ...; " FIX);
	for (size_t i = 2; i < n && i < MAX_FIELDS; i++) {
		const char *eq = memchr(f[i].s, '=', f[i].len);

		if (!eq)
			return pmc_import_fail(&g->im, g->line,
					       "'%.*s' is not key=value; write Unit <unit> "
					       "better=lower (or higher)",
					       (int)f[i].len, f[i].s);
		if ((size_t)(eq - f[i].s) != 6 || memcmp(f[i].s, "better", 6) != 0)
			continue; /* assume=exact and others: not used here */
		if (field_is(&f[i], "better=lower"))
			better = PMC_LOWER_IS_BETTER;
		else if (field_is(&f[i], "better=higher"))
			better = PMC_HIGHER_IS_BETTER;
		else
			return pmc_import_fail(&g->im, g->line,
					       "'%.*s': better is lower or higher; write "
					       "better=lower or better=higher",
					       (int)f[i].len, f[i].s);
	}
	if (better == PMC_NO_DIRECTION)
		return 0;
	map_unit(&f[1], id, sizeof(id), &unit, &dflt, &factor);
	if (pmc_grow(&g->units, g->nunits, sizeof(*g->units)) < 0)
		return -ENOMEM;
	g->units[g->nunits].id = strdup(id);
	if (!g->units[g->nunits].id)
		return -ENOMEM;
	g->units[g->nunits++].better = better;
	return 0;
}

static bool same_pkg(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* One result line: one run of its benchmark. */
static int result_line(struct go *g, const struct field *f, size_t n)
{
	struct pmc_benchmark *b;
	char name[512], *end;
	size_t run;
	int r;

	if (n == 1 || (n >= 2 && f[1].len >= 3 && memcmp(f[1].s, "---", 3) == 0))
		return 0; /* the name printed before a benchmark's output, or its FAIL/SKIP */
	if (n < 4 || n % 2 != 0 || n > MAX_FIELDS)
		return pmc_import_fail(&g->im, g->line,
				       "%zu fields; a result line is <name> <iterations> <value> "
				       "<unit> [<value> <unit>...] — " FIX,
				       n);
	if (f[0].len >= sizeof(name))
		return pmc_import_fail(&g->im, g->line, "benchmark name longer than %zu bytes",
				       sizeof(name) - 1);
	snprintf(name, sizeof(name), "%.*s", (int)f[0].len, f[0].s);
	for (size_t i = 0; i < f[1].len; i++)
		if (!isdigit((unsigned char)f[1].s[i]))
			return pmc_import_fail(&g->im, g->line,
					       "'%.*s': the iteration count '%.*s' is not a "
					       "whole number; " FIX,
					       (int)f[0].len, f[0].s, (int)f[1].len, f[1].s);
	if (strtoull(f[1].s, &end, 10) == 0)
		return pmc_import_fail(&g->im, g->line, "'%s': 0 iterations; " FIX, name);
	b = pmc_result_find_benchmark(g->res, name);
	if (!b) {
		if ((r = pmc_result_add_benchmark(g->res, name, NULL, &b)) < 0)
			return r;
		if (pmc_grow(&g->pkgs, g->npkgs, sizeof(*g->pkgs)) < 0)
			return -ENOMEM;
		g->pkgs[g->npkgs] = g->pkg ? strdup(g->pkg) : NULL;
		if (g->pkg && !g->pkgs[g->npkgs])
			return -ENOMEM;
		g->npkgs++;
	} else if (!same_pkg(g->pkgs[b - g->res->benchmarks], g->pkg)) {
		return pmc_import_fail(
		    &g->im, g->line,
		    "'%s' of package %.100s was already seen in package %.100s; "
		    "names must be unique in a file — give each package a file "
		    "of its own (go test -bench . ./PKG)",
		    name, g->pkg ? g->pkg : "(none)",
		    g->pkgs[b - g->res->benchmarks] ? g->pkgs[b - g->res->benchmarks] : "(none)");
	}
	run = b->nruns;
	if ((r = pmc_benchmark_record_run(b, 0, 0, false)) < 0)
		return r;
	for (size_t i = 2; i < n; i += 2) {
		const char *unit;
		double v, factor;
		char id[256];
		int better;

		if (!pmc_import_number(f[i].s, f[i].len, &v))
			return pmc_import_fail(
			    &g->im, g->line, "'%s': '%.*s' (of %.*s) is not a number; " FIX, name,
			    (int)f[i].len, f[i].s, (int)f[i + 1].len, f[i + 1].s);
		map_unit(&f[i + 1], id, sizeof(id), &unit, &better, &factor);
		r = pmc_import_sample(b, id, unit, better, run, v * factor);
		if (r == -EEXIST)
			return pmc_import_fail(&g->im, g->line,
					       "'%s': %.*s given twice in one line; " FIX, name,
					       (int)f[i + 1].len, f[i + 1].s);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The directions Unit lines gave, for the metrics the registry does not know. */
static void apply_units(struct go *g)
{
	for (size_t u = 0; u < g->nunits; u++) {
		const struct pmc_metric_info *info;

		if (pmc_metric_info_lookup(g->units[u].id, &info) == 0)
			continue;
		for (size_t i = 0; i < g->res->nbench; i++) {
			struct pmc_metric *m =
			    pmc_benchmark_find_metric(&g->res->benchmarks[i], g->units[u].id);

			if (m)
				m->better = g->units[u].better;
		}
	}
}

int pmc_import_go(const char *name, const char *text, size_t len, struct pmc_result **ret,
		  char *err, size_t errlen)
{
	struct go g = {.im = {.file = name, .err = err, .errlen = errlen}};
	struct pmc_lines it = {.p = text, .end = text + len};
	struct field f[MAX_FIELDS];
	const char *line;
	size_t n, colon;
	int r;

	if (memchr(text, '\0', len))
		return pmc_import_fail(&g.im, 0,
				       "holds a NUL byte: not Go's benchmark format; " FIX);
	if ((r = pmc_import_result_new("go", PMC_IMPORT_GO, &g.res)) < 0)
		return r;
	while (pmc_lines_next(&it, &line, &n)) {
		size_t nf;

		g.line = it.lineno;
		if (config_line(line, n, &colon)) {
			r = config(&g, line, n, colon);
		} else if (n >= 9 && memcmp(line, "Benchmark", 9) == 0 &&
			   (n == 9 || isupper((unsigned char)line[9]) || line[9] == '/' ||
			    line[9] == '-' || isspace((unsigned char)line[9]))) {
			nf = split(line, n, f, MAX_FIELDS);
			r = result_line(&g, f, nf);
		} else if (n > 5 && memcmp(line, "Unit", 4) == 0 &&
			   isspace((unsigned char)line[4])) {
			nf = split(line, n, f, MAX_FIELDS);
			r = unit_line(&g, f, nf);
		}
		if (r < 0)
			goto out;
	}
	if (g.res->nbench == 0) {
		r = pmc_import_fail(
		    &g.im, 0,
		    "no result lines (BenchmarkName <iterations> <value> <unit> ...); "
		    "" FIX);
		goto out;
	}
	if ((r = pmc_import_pad(g.res)) < 0)
		goto out;
	apply_units(&g);
	*ret = g.res;
	g.res = NULL;
out:
	for (size_t i = 0; i < g.npkgs; i++)
		free(g.pkgs[i]);
	free(g.pkgs);
	for (size_t i = 0; i < g.nunits; i++)
		free(g.units[i].id);
	free(g.units);
	free(g.pkg);
	pmc_result_free(g.res);
	return r;
}

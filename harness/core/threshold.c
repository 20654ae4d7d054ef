/* Regression thresholds: parsing of limits, of --threshold arguments and of the
 * thresholds file, and the lookup of the limit that applies to one benchmark's metric. */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "harness/core/threshold.h"

struct metric_rule {
	char *metric;
	struct pmc_threshold th;
};

struct bench_rule {
	char *pattern;
	bool has_default;
	struct pmc_threshold def;
	struct metric_rule *metrics;
	size_t nmetrics;
};

struct pmc_thresholds {
	struct metric_rule *cli; /* --threshold METRIC=LIMIT, one per metric */
	size_t ncli;
	bool has_cli_default;
	struct pmc_threshold cli_default;

	struct metric_rule *file; /* top-level "metrics" of the file */
	size_t nfile;
	bool has_file_default;
	struct pmc_threshold file_default;
	struct bench_rule *benches; /* "benchmarks", in file order */
	size_t nbenches;
};

static const struct pmc_threshold builtin_default = {
    .absolute = false,
    .limit = PMC_THRESHOLD_DEFAULT_PERCENT / 100.0,
    .sign = 0,
    .unit = PMC_TUNIT_PLAIN,
    .text = "5%",
};

const struct pmc_threshold *pmc_threshold_default(void)
{
	return &builtin_default;
}

struct suffix {
	const char *name;
	double factor;
	bool relative;
	enum pmc_threshold_unit unit;
};

/* K, M and G are decimal (counts: "instructions=+5M"); KiB, MiB and GiB are binary
 * bytes; times are converted to ns, the unit of every time metric. */
static const struct suffix suffixes[] = {
    {"%", 0.01, true, PMC_TUNIT_PLAIN},
    {"k", 1e3, false, PMC_TUNIT_PLAIN},
    {"K", 1e3, false, PMC_TUNIT_PLAIN},
    {"M", 1e6, false, PMC_TUNIT_PLAIN},
    {"G", 1e9, false, PMC_TUNIT_PLAIN},
    {"B", 1.0, false, PMC_TUNIT_BYTES},
    {"KiB", 1024.0, false, PMC_TUNIT_BYTES},
    {"MiB", 1024.0 * 1024.0, false, PMC_TUNIT_BYTES},
    {"GiB", 1024.0 * 1024.0 * 1024.0, false, PMC_TUNIT_BYTES},
    {"ns", 1.0, false, PMC_TUNIT_TIME},
    {"us", 1e3, false, PMC_TUNIT_TIME},
    {"\xc2\xb5s", 1e3, false, PMC_TUNIT_TIME}, /* µs */
    {"ms", 1e6, false, PMC_TUNIT_TIME},
    {"s", 1e9, false, PMC_TUNIT_TIME},
};

#define LIMIT_EXAMPLES "write a limit such as 5%, +1%, -2%, +2MiB, 10ms or +1000"

/* Parses the limit in text; what and col0 only shape the message: what names the whole
 * input, col0 is the 0-based column of text within it. */
static int parse_limit(const char *text, const char *what, size_t col0, struct pmc_threshold *ret,
		       char *err, size_t errlen)
{
	struct pmc_threshold th = {0};
	const char *p = text;
	char *end;
	double v;

	if (*p == '+' || *p == '-') {
		th.sign = *p == '+' ? 1 : -1;
		p++;
	}
	/* strtod would also take "inf", "nan", hex and leading blanks: demand a plain
	 * decimal number. */
	if (!((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9'))) {
		snprintf(err, errlen, "%s: column %zu: expected a number; %s", what,
			 col0 + (size_t)(p - text) + 1, LIMIT_EXAMPLES);
		return -EINVAL;
	}
	errno = 0;
	v = strtod(p, &end);
	if (errno || !isfinite(v) || (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))) {
		snprintf(err, errlen, "%s: column %zu: '%s' is not a usable number; %s", what,
			 col0 + (size_t)(p - text) + 1, p, LIMIT_EXAMPLES);
		return -EINVAL;
	}
	if (*end == '\0') {
		th.absolute = true;
		th.limit = v;
		th.unit = PMC_TUNIT_PLAIN;
	} else {
		const struct suffix *s = NULL;

		for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
			if (strcmp(end, suffixes[i].name) == 0)
				s = &suffixes[i];
		if (!s) {
			snprintf(err, errlen,
				 "%s: column %zu: unknown unit '%s'; use %%, K, M, G, B, KiB, MiB, "
				 "GiB, ns, us, ms or s",
				 what, col0 + (size_t)(end - text) + 1, end);
			return -EINVAL;
		}
		th.absolute = !s->relative;
		th.limit = v * s->factor;
		th.unit = s->unit;
	}
	if (!th.absolute && th.limit >= 1.0 && th.sign < 0) {
		/* A value cannot fall by 100% or more without going negative. */
		snprintf(err, errlen,
			 "%s: column %zu: a decrease of %s can never happen; use a "
			 "limit below 100%%",
			 what, col0 + 1, text);
		return -EINVAL;
	}
	if (strlen(text) >= sizeof(th.text)) {
		snprintf(err, errlen, "%s: column %zu: limit too long; %s", what, col0 + 1,
			 LIMIT_EXAMPLES);
		return -EINVAL;
	}
	strcpy(th.text, text);
	*ret = th;
	return 0;
}

int pmc_threshold_parse(const char *text, struct pmc_threshold *ret, char *err, size_t errlen)
{
	char what[96];

	if (!text || !ret)
		return -EINVAL;
	snprintf(what, sizeof(what), "threshold '%.64s'", text);
	return parse_limit(text, what, 0, ret, err, errlen);
}

int pmc_threshold_check_unit(const struct pmc_threshold *t, const char *metric, const char *unit,
			     char *err, size_t errlen)
{
	static const char *const names[] = {"a plain number", "a size in bytes", "a time"};
	const char *need = NULL;

	if (!t->absolute || t->unit == PMC_TUNIT_PLAIN)
		return 0;
	if (t->unit == PMC_TUNIT_BYTES)
		need = "bytes";
	else if (t->unit == PMC_TUNIT_TIME)
		need = "ns";
	if (unit && need && strcmp(unit, need) == 0)
		return 0;
	snprintf(err, errlen,
		 "threshold %s=%s is %s, but metric '%s' is in %s; give a limit in %s or a "
		 "percentage",
		 metric, t->text, names[t->unit], metric, unit ? unit : "no unit",
		 unit ? unit : "its unit");
	return -EINVAL;
}

struct pmc_thresholds *pmc_thresholds_new(void)
{
	return calloc(1, sizeof(struct pmc_thresholds));
}

static void metric_rules_free(struct metric_rule *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(r[i].metric);
	free(r);
}

void pmc_thresholds_free(struct pmc_thresholds *t)
{
	if (!t)
		return;
	metric_rules_free(t->cli, t->ncli);
	metric_rules_free(t->file, t->nfile);
	for (size_t i = 0; i < t->nbenches; i++) {
		free(t->benches[i].pattern);
		metric_rules_free(t->benches[i].metrics, t->benches[i].nmetrics);
	}
	free(t->benches);
	free(t);
}

/* Sets metric's rule in *rules, replacing an earlier one for the same metric. */
static int rules_set(struct metric_rule **rules, size_t *n, const char *metric,
		     const struct pmc_threshold *th)
{
	struct metric_rule *grown;
	char *id;

	for (size_t i = 0; i < *n; i++) {
		if (strcmp((*rules)[i].metric, metric) == 0) {
			(*rules)[i].th = *th;
			return 0;
		}
	}
	id = strdup(metric);
	if (!id)
		return -ENOMEM;
	grown = realloc(*rules, (*n + 1) * sizeof(**rules));
	if (!grown) {
		free(id);
		return -ENOMEM;
	}
	*rules = grown;
	grown[*n].metric = id;
	grown[*n].th = *th;
	(*n)++;
	return 0;
}

int pmc_thresholds_add_arg(struct pmc_thresholds *t, const char *arg, char *err, size_t errlen)
{
	struct pmc_threshold th;
	const char *eq;
	char what[160];
	char *metric;
	int r;

	if (!t || !arg)
		return -EINVAL;
	snprintf(what, sizeof(what), "--threshold '%.120s'", arg);
	eq = strrchr(arg, '=');
	if (!eq || eq == arg) {
		snprintf(err, errlen,
			 "%s: column %zu: expected METRIC=LIMIT, e.g. instructions=+1%% or "
			 "'*=5%%'",
			 what, eq ? (size_t)1 : strlen(arg) + 1);
		return -EINVAL;
	}
	r = parse_limit(eq + 1, what, (size_t)(eq + 1 - arg), &th, err, errlen);
	if (r < 0)
		return r;
	metric = strndup(arg, (size_t)(eq - arg));
	if (!metric)
		return -ENOMEM;
	if (strcmp(metric, "*") == 0) {
		t->has_cli_default = true;
		t->cli_default = th;
		r = 0;
	} else {
		r = rules_set(&t->cli, &t->ncli, metric, &th);
	}
	free(metric);
	return r;
}

/* Parses a limit string found at place (a path inside the file) of path. */
static int load_limit(json_t *v, const char *path, const char *place, struct pmc_threshold *ret,
		      char *err, size_t errlen)
{
	char what[512];

	snprintf(what, sizeof(what), "%s: %s", path, place);
	if (!json_is_string(v)) {
		snprintf(err, errlen,
			 "%s: expected a string such as \"5%%\", \"+1%%\" or "
			 "\"+2MiB\"",
			 what);
		return -EINVAL;
	}
	/* The column points into the string itself; say so by quoting it. */
	snprintf(what, sizeof(what), "%s: \"%.64s\"", path, json_string_value(v));
	{
		char inner[512];
		int r = parse_limit(json_string_value(v), what, 0, ret, inner, sizeof(inner));

		if (r < 0) {
			snprintf(err, errlen, "%s (at %s)", inner, place);
			return r;
		}
	}
	return 0;
}

static int load_metrics(json_t *obj, const char *path, const char *place,
			struct metric_rule **rules, size_t *n, char *err, size_t errlen)
{
	const char *key;
	json_t *v;

	if (!json_is_object(obj)) {
		snprintf(err, errlen,
			 "%s: %s: expected an object of METRIC: \"LIMIT\", e.g. "
			 "{\"instructions\": \"+1%%\"}",
			 path, place);
		return -EINVAL;
	}
	json_object_foreach(obj, key, v)
	{
		struct pmc_threshold th;
		char where[256];
		int r;

		snprintf(where, sizeof(where), "%s.\"%.64s\"", place, key);
		if (key[0] == '\0' || strcmp(key, "*") == 0) {
			snprintf(err, errlen,
				 "%s: %s: not a metric id; set the default with "
				 "\"default\"",
				 path, where);
			return -EINVAL;
		}
		r = load_limit(v, path, where, &th, err, errlen);
		if (r < 0)
			return r;
		r = rules_set(rules, n, key, &th);
		if (r < 0)
			return r;
	}
	return 0;
}

static int load_bench(struct pmc_thresholds *t, json_t *e, const char *path, size_t idx, char *err,
		      size_t errlen)
{
	struct bench_rule *grown, *b;
	char place[64];
	const char *key;
	json_t *v;
	int r;

	snprintf(place, sizeof(place), "benchmarks[%zu]", idx);
	if (!json_is_object(e)) {
		snprintf(err, errlen,
			 "%s: %s: expected an object with \"match\" and "
			 "\"metrics\" or \"default\"",
			 path, place);
		return -EINVAL;
	}
	json_object_foreach(e, key, v)
	{
		if (strcmp(key, "match") && strcmp(key, "metrics") && strcmp(key, "default")) {
			snprintf(err, errlen,
				 "%s: %s: unknown key \"%.64s\"; the keys are "
				 "\"match\", \"metrics\" and \"default\"",
				 path, place, key);
			return -EINVAL;
		}
	}
	v = json_object_get(e, "match");
	if (!json_is_string(v) || json_string_value(v)[0] == '\0') {
		snprintf(err, errlen,
			 "%s: %s.match: expected a benchmark name pattern such as "
			 "\"parse_*\"",
			 path, place);
		return -EINVAL;
	}
	grown = realloc(t->benches, (t->nbenches + 1) * sizeof(*t->benches));
	if (!grown)
		return -ENOMEM;
	t->benches = grown;
	b = &t->benches[t->nbenches];
	memset(b, 0, sizeof(*b));
	b->pattern = strdup(json_string_value(v));
	if (!b->pattern)
		return -ENOMEM;
	t->nbenches++;
	v = json_object_get(e, "default");
	if (v) {
		char where[96];

		snprintf(where, sizeof(where), "%s.default", place);
		r = load_limit(v, path, where, &b->def, err, errlen);
		if (r < 0)
			return r;
		b->has_default = true;
	}
	v = json_object_get(e, "metrics");
	if (v) {
		char where[96];

		snprintf(where, sizeof(where), "%s.metrics", place);
		r = load_metrics(v, path, where, &b->metrics, &b->nmetrics, err, errlen);
		if (r < 0)
			return r;
	}
	if (!b->has_default && b->nmetrics == 0) {
		snprintf(err, errlen, "%s: %s: sets no limit; add \"metrics\" or \"default\"", path,
			 place);
		return -EINVAL;
	}
	return 0;
}

int pmc_thresholds_load(struct pmc_thresholds *t, const char *path, char *err, size_t errlen)
{
	json_error_t jerr;
	struct stat st;
	const char *key;
	json_t *root, *v;
	int r = -EINVAL;

	if (!t || !path)
		return -EINVAL;
	/* jansson would report a directory as a read error in the middle of the text. */
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: is a directory; give a thresholds JSON file", path);
		return -EISDIR;
	}
	root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		if (json_error_code(&jerr) == json_error_cannot_open_file) {
			snprintf(err, errlen, "%s: cannot open: %s", path, jerr.text);
			return -ENOENT;
		}
		snprintf(err, errlen, "%s:%d:%d: %s; fix the JSON syntax", path, jerr.line,
			 jerr.column, jerr.text);
		return -EINVAL;
	}
	if (!json_is_object(root)) {
		snprintf(err, errlen, "%s: expected a JSON object with \"schema\": \"%s\"", path,
			 PMC_THRESHOLDS_SCHEMA);
		goto out;
	}
	json_object_foreach(root, key, v)
	{
		if (strcmp(key, "schema") && strcmp(key, "default") && strcmp(key, "metrics") &&
		    strcmp(key, "benchmarks")) {
			snprintf(err, errlen,
				 "%s: unknown key \"%.64s\"; the keys are \"schema\", "
				 "\"default\", \"metrics\" and \"benchmarks\"",
				 path, key);
			goto out;
		}
	}
	v = json_object_get(root, "schema");
	if (v && (!json_is_string(v) || strcmp(json_string_value(v), PMC_THRESHOLDS_SCHEMA))) {
		snprintf(err, errlen,
			 "%s: schema: %s%.64s%s is not supported; this pmcbench "
			 "reads \"%s\"",
			 path, json_is_string(v) ? "\"" : "",
			 json_is_string(v) ? json_string_value(v) : "a non-string",
			 json_is_string(v) ? "\"" : "", PMC_THRESHOLDS_SCHEMA);
		goto out;
	}
	v = json_object_get(root, "default");
	if (v) {
		r = load_limit(v, path, "default", &t->file_default, err, errlen);
		if (r < 0)
			goto out;
		t->has_file_default = true;
	}
	v = json_object_get(root, "metrics");
	if (v) {
		r = load_metrics(v, path, "metrics", &t->file, &t->nfile, err, errlen);
		if (r < 0)
			goto out;
	}
	v = json_object_get(root, "benchmarks");
	if (v) {
		size_t i;
		json_t *e;

		if (!json_is_array(v)) {
			snprintf(err, errlen,
				 "%s: benchmarks: expected an array of {\"match\": "
				 "PATTERN, \"metrics\": {...}}",
				 path);
			r = -EINVAL;
			goto out;
		}
		json_array_foreach(v, i, e)
		{
			r = load_bench(t, e, path, i, err, errlen);
			if (r < 0)
				goto out;
		}
	}
	r = 0;
out:
	json_decref(root);
	return r;
}

size_t pmc_thresholds_nargs(const struct pmc_thresholds *t)
{
	return t ? t->ncli : 0;
}

const char *pmc_thresholds_arg(const struct pmc_thresholds *t, size_t i,
			       const struct pmc_threshold **ret_th)
{
	if (!t || i >= t->ncli)
		return NULL;
	if (ret_th)
		*ret_th = &t->cli[i].th;
	return t->cli[i].metric;
}

static const struct pmc_threshold *rules_find(const struct metric_rule *r, size_t n,
					      const char *metric)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(r[i].metric, metric) == 0)
			return &r[i].th;
	return NULL;
}

const struct pmc_threshold *pmc_thresholds_lookup(const struct pmc_thresholds *t, const char *bench,
						  const char *metric)
{
	const struct pmc_threshold *bench_default = NULL, *th;

	if (!t)
		return &builtin_default;
	for (size_t i = 0; i < t->nbenches; i++) {
		const struct bench_rule *b = &t->benches[i];

		if (fnmatch(b->pattern, bench, 0) != 0)
			continue;
		th = rules_find(b->metrics, b->nmetrics, metric);
		if (th)
			return th;
		if (b->has_default && !bench_default)
			bench_default = &b->def;
	}
	th = rules_find(t->cli, t->ncli, metric);
	if (th)
		return th;
	th = rules_find(t->file, t->nfile, metric);
	if (th)
		return th;
	if (bench_default)
		return bench_default;
	if (t->has_cli_default)
		return &t->cli_default;
	if (t->has_file_default)
		return &t->file_default;
	return &builtin_default;
}

/* Google Benchmark's JSON (--benchmark_format=json on standard output, --benchmark_out=FILE):
 * one benchmark per run name, one run per repetition (docs/import.md). Aggregates (mean,
 * median, stddev, cv, BigO, RMS) summarise the repetitions and are never taken for runs. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "base/grow.h"
#include "core/metrics.h"
#include "core/result.h"
#include "formats/import_priv.h"
#include "formats/result_json.h"

#define FIX "rerun the benchmark program with --benchmark_out=FILE or --benchmark_format=json"

/* Google Benchmark writes a counter that is not a number as a bare NaN, Infinity or
 * -Infinity, which JSON does not have and jansson refuses. Outside strings those words
 * become null before parsing: a value that was not measured, never a number. Lines stay
 * as they were; "null" is one character longer than "NaN", so where each NaN was replaced
 * is kept to give syntax errors the column of the original text. */
struct widened {
	size_t line;
	size_t pos; /* offset just after the "null" in the rewritten text */
};

struct cleaned {
	char *text;
	size_t len;
	struct widened *nans;
	size_t nnans;
};

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.';
}

/* Whether word starts at text[i] as a token of its own. */
static bool bare_word(const char *text, size_t len, size_t i, const char *word)
{
	size_t n = strlen(word);

	return i + n <= len && memcmp(text + i, word, n) == 0 &&
	       (i == 0 || !ident_char(text[i - 1])) && (i + n == len || !ident_char(text[i + n]));
}

static int clean_nonfinite(const char *text, size_t len, struct cleaned *ret)
{
	static const struct {
		const char *word, *with;
	} words[] = {{"-Infinity", "null     "}, {"Infinity", "null    "}, {"NaN", "null"}};
	struct cleaned c = {0};
	size_t cap = len + len / 8 + 16, line = 1;
	bool in_string = false;

	c.text = malloc(cap);
	if (!c.text)
		return -ENOMEM;
	for (size_t i = 0; i < len;) {
		size_t k = sizeof(words) / sizeof(words[0]);

		if (pmc_grow_to(&c.text, &cap, c.len + 16, 1) < 0)
			goto fail_nomem;
		if (in_string) {
			if (text[i] == '\\' && i + 1 < len)
				c.text[c.len++] = text[i++];
			else if (text[i] == '"')
				in_string = false;
		} else if (text[i] == '"') {
			in_string = true;
		} else {
			for (k = 0; k < sizeof(words) / sizeof(words[0]); k++)
				if (bare_word(text, len, i, words[k].word))
					break;
		}
		if (k < sizeof(words) / sizeof(words[0])) {
			size_t n = strlen(words[k].with);

			memcpy(c.text + c.len, words[k].with, n);
			c.len += n;
			i += strlen(words[k].word);
			if (strcmp(words[k].word, "NaN") == 0) {
				if (pmc_grow(&c.nans, c.nnans, sizeof(*c.nans)) < 0)
					goto fail_nomem;
				c.nans[c.nnans++] = (struct widened){.line = line, .pos = c.len};
			}
			continue;
		}
		if (text[i] == '\n')
			line++;
		c.text[c.len++] = text[i++];
	}
	*ret = c;
	return 0;

fail_nomem:
	free(c.text);
	free(c.nans);
	return -ENOMEM;
}

/* The column of a jansson error in the original text: one less for each NaN widened
 * before it on its line. */
static int original_column(const struct cleaned *c, const json_error_t *e)
{
	int col = e->column;

	for (size_t i = 0; i < c->nnans; i++)
		if (c->nans[i].line == (size_t)e->line && c->nans[i].pos <= (size_t)e->position)
			col--;
	return col;
}

/* ---- From the tree to the model ----------------------------------------------------- */

/* Where in the document a value is, for messages: benchmarks[3].real_time. */
struct gb {
	struct pmc_importer im;
	struct pmc_result *res;
	size_t index;	 /* of the entry in "benchmarks" */
	const char *key; /* of the entry's member at fault, or NULL */
};

static int fail(struct gb *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct gb *g, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (g->key)
		return pmc_import_fail(&g->im, 0, "benchmarks[%zu].%s: %s", g->index, g->key, msg);
	return pmc_import_fail(&g->im, 0, "benchmarks[%zu]: %s", g->index, msg);
}

/* A string member (NULL when absent); a member of another type is an error. */
static int get_string(struct gb *g, const json_t *e, const char *key, const char **ret)
{
	const json_t *v = json_object_get(e, key);

	*ret = NULL;
	if (!v)
		return 0;
	if (!json_is_string(v)) {
		g->key = key;
		return fail(g, "expected a string, found %s; " FIX, pmc_json_kind(v));
	}
	*ret = json_string_value(v);
	return 0;
}

static int get_bool(struct gb *g, const json_t *e, const char *key, bool *ret)
{
	const json_t *v = json_object_get(e, key);

	*ret = false;
	if (!v)
		return 0;
	if (!json_is_boolean(v)) {
		g->key = key;
		return fail(g, "expected true or false, found %s; " FIX, pmc_json_kind(v));
	}
	*ret = json_is_true(v);
	return 0;
}

/* The benchmark an entry belongs to: its run_name (Google Benchmark 1.5 and later), else
 * its name, kept whole: "BM_sort/1024/threads:2". */
static int entry_name(struct gb *g, const json_t *e, const char **ret)
{
	const char *name;
	int r;

	if ((r = get_string(g, e, "run_name", &name)) < 0)
		return r;
	if (!name && (r = get_string(g, e, "name", &name)) < 0)
		return r;
	if (!name) {
		g->key = NULL;
		return fail(g, "no \"name\"; " FIX);
	}
	if (!*name) {
		g->key = "name";
		return fail(g, "empty benchmark name; " FIX);
	}
	*ret = name;
	return 0;
}

enum entry_kind { ITERATION, AGGREGATE };

static int entry_kind(struct gb *g, const json_t *e, enum entry_kind *ret)
{
	const char *type;
	int r;

	if ((r = get_string(g, e, "run_type", &type)) < 0)
		return r;
	if (!type) {
		/* Before run_type (Google Benchmark 1.4), aggregates had aggregate_name. */
		*ret = json_object_get(e, "aggregate_name") ? AGGREGATE : ITERATION;
		return 0;
	}
	if (strcmp(type, "iteration") == 0) {
		*ret = ITERATION;
		return 0;
	}
	if (strcmp(type, "aggregate") == 0) {
		*ret = AGGREGATE;
		return 0;
	}
	g->key = "run_type";
	return fail(g, "unknown run_type \"%.40s\", expected \"iteration\" or \"aggregate\"; " FIX,
		    type);
}

/* Members of a run that are not counters. */
static bool metadata(const char *key)
{
	static const char *const keys[] = {
	    "name",
	    "run_name",
	    "run_type",
	    "family_index",
	    "per_family_instance_index",
	    "repetitions",
	    "repetition_index",
	    "threads",
	    "iterations",
	    "real_time",
	    "cpu_time",
	    "time_unit",
	    "bytes_per_second",
	    "items_per_second",
	    "label",
	    "error_occurred",
	    "error_message",
	    "skipped",
	    "skip_message",
	    "aggregate_name",
	    "aggregate_unit",
	    "big_o",
	    "rms",
	    "complexity",
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(keys[i], key) == 0)
			return true;
	return false;
}

/* A number member scaled by factor into *ret; NAN when it is null (a NaN or an infinity
 * in the file) or, when optional, absent. A negative time or rate is an error. */
static int get_value(struct gb *g, const json_t *e, const char *key, bool required,
		     bool nonnegative, double factor, double *ret)
{
	const json_t *v = json_object_get(e, key);

	g->key = key;
	*ret = NAN;
	if (!v) {
		if (required)
			return fail(g, "missing; every repetition has one — " FIX);
		return 0;
	}
	if (json_is_null(v))
		return 0;
	if (!json_is_number(v))
		return fail(g, "expected a number, found %s; " FIX, pmc_json_kind(v));
	*ret = json_number_value(v) * factor;
	if (nonnegative && *ret < 0)
		return fail(g, "negative value %g; times and rates cannot be negative — " FIX,
			    json_number_value(v));
	return 0;
}

static int add(struct gb *g, struct pmc_benchmark *b, const char *id, const char *unit, size_t run,
	       double v)
{
	int r = pmc_import_sample(b, id, unit, PMC_NO_DIRECTION, run, v);

	if (r == -EEXIST)
		return fail(g,
			    "counter '%.60s' collides with the metric pmcbench names %s; rename "
			    "the counter",
			    g->key, id);
	return r;
}

/* One repetition of a benchmark: its times, throughputs and counters. */
static int add_run(struct gb *g, const json_t *e, struct pmc_benchmark *b, size_t run)
{
	const char *unit, *key;
	double factor, v;
	json_t *value;
	int r;

	if ((r = get_string(g, e, "time_unit", &unit)) < 0)
		return r;
	g->key = "time_unit";
	if (!unit)
		return fail(g, "missing; " FIX);
	factor = pmc_import_ns_per(unit, strlen(unit));
	if (factor == 0)
		return fail(g, "unknown time unit \"%.20s\", expected ns, us, ms or s; " FIX, unit);
	if ((r = get_value(g, e, "real_time", true, true, factor, &v)) < 0 ||
	    (r = add(g, b, "wall-time/op", "ns", run, v)) < 0 ||
	    (r = get_value(g, e, "cpu_time", true, true, factor, &v)) < 0 ||
	    (r = add(g, b, "cpu-time/op", "ns", run, v)) < 0 ||
	    (r = get_value(g, e, "bytes_per_second", false, true, 1, &v)) < 0 ||
	    (!isnan(v) && (r = add(g, b, "bytes/s", "bytes/s", run, v)) < 0) ||
	    (r = get_value(g, e, "items_per_second", false, true, 1, &v)) < 0 ||
	    (!isnan(v) && (r = add(g, b, "items/s", "items/s", run, v)) < 0))
		return r;
	/* User counters: every other member that is a number, or null (not a number). Their
	 * flags (rate, per iteration, ...) are not in the file: unit "count", no direction. */
	json_object_foreach((json_t *)e, key, value)
	{
		if (metadata(key) || !(json_is_number(value) || json_is_null(value)))
			continue;
		g->key = key;
		v = json_is_null(value) ? NAN : json_number_value(value);
		if ((r = add(g, b, key, "count", run, v)) < 0)
			return r;
	}
	return 0;
}

/* Repetitions that measured nothing: failed ones (SkipWithError) and ones that skipped
 * themselves (SkipWithMessage, Google Benchmark 1.8), with the first message of each. */
struct unmeasured {
	size_t errors, skips;
	const char *error, *skip;
};

/* A benchmark some of whose repetitions measured nothing says why on its metrics. */
static int note_unmeasured(struct pmc_benchmark *b, const struct unmeasured *u)
{
	char note[400];
	int r;

	if (u->errors)
		snprintf(note, sizeof(note), "%zu of %zu repetitions reported an error: %.300s",
			 u->errors, b->nruns, u->error && *u->error ? u->error : "no message");
	else if (u->skips)
		snprintf(note, sizeof(note), "%zu repetitions skipped themselves: %.300s", u->skips,
			 u->skip && *u->skip ? u->skip : "no message");
	else
		return 0;
	for (size_t i = 0; i < b->nmetrics; i++)
		if ((r = pmc_metric_set_note(&b->metrics[i], note)) < 0)
			return r;
	return 0;
}

/* "2024-05-02T11:14:03+02:00" as UTC ("2024-05-02T09:14:03Z"), or NULL. */
static char *utc_date(const char *s)
{
	int y, mo, d, h, mi, sec, oh = 0, om = 0, n = 0;
	char sign = 'Z', buf[32];
	struct tm tm = {0};
	time_t t;

	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6)
		return NULL;
	s += n;
	if ((*s == '+' || *s == '-') && sscanf(s + 1, "%2d:%2d", &oh, &om) == 2)
		sign = *s;
	else if (strcmp(s, "Z") != 0)
		return NULL;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	t = timegm(&tm);
	if (t == (time_t)-1)
		return NULL;
	t += (sign == '+' ? -1 : 1) * (time_t)(oh * 3600 + om * 60);
	if (!gmtime_r(&t, &tm) || strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		return NULL;
	return strdup(buf);
}

static int load_context(struct gb *g, const json_t *ctx)
{
	const json_t *v;
	char buf[32];
	int r = 0;

	if (!json_is_object(ctx))
		return 0;
	v = json_object_get(ctx, "date");
	if (json_is_string(v))
		g->res->created = utc_date(json_string_value(v));
	v = json_object_get(ctx, "host_name");
	if (json_is_string(v) && *json_string_value(v))
		r = pmc_result_set_env(g->res, "hostname", json_string_value(v));
	v = json_object_get(ctx, "num_cpus");
	if (r == 0 && json_is_integer(v)) {
		snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
		r = pmc_result_set_env(g->res, "cpus", buf);
	}
	return r;
}

static int from_tree(struct gb *g, const json_t *root)
{
	const json_t *benches = json_object_get(root, "benchmarks"), *e;
	struct unmeasured *none = NULL;
	struct pmc_benchmark *b;
	size_t i;
	int r;

	if (!json_is_object(root))
		return pmc_import_fail(&g->im, 0, "expected an object, found %s; " FIX,
				       pmc_json_kind(root));
	if (!benches)
		return pmc_import_fail(&g->im, 0, "no \"benchmarks\"; " FIX);
	if (!json_is_array(benches))
		return pmc_import_fail(&g->im, 0, "benchmarks: expected an array, found %s; " FIX,
				       pmc_json_kind(benches));
	if ((r = load_context(g, json_object_get(root, "context"))) < 0)
		return r;
	/* The repetitions, in file order; the benchmarks in the order they first appear. */
	json_array_foreach(benches, i, e)
	{
		enum entry_kind kind;
		bool error, skipped;
		const char *name, *msg;
		struct unmeasured *u;

		g->index = i;
		g->key = NULL;
		if (!json_is_object(e)) {
			r = fail(g, "expected an object, found %s; " FIX, pmc_json_kind(e));
			goto out;
		}
		if ((r = entry_name(g, e, &name)) < 0 || (r = entry_kind(g, e, &kind)) < 0)
			goto out;
		if (kind == AGGREGATE)
			continue;
		if ((r = get_bool(g, e, "error_occurred", &error)) < 0 ||
		    (r = get_bool(g, e, "skipped", &skipped)) < 0)
			goto out;
		b = pmc_result_find_benchmark(g->res, name);
		if (!b) {
			if ((r = pmc_result_add_benchmark(g->res, name, NULL, &b)) < 0)
				goto out;
			/* none has an entry per benchmark, added in step from an empty result. */
			if (pmc_grow(&none, g->res->nbench - 1, sizeof(*none)) < 0) {
				r = -ENOMEM;
				goto out;
			}
			none[g->res->nbench - 1] = (struct unmeasured){0};
		}
		u = &none[b - g->res->benchmarks];
		if (skipped) {
			/* Not a run: the benchmark decided not to run here. */
			if ((r = get_string(g, e, "skip_message", &msg)) < 0)
				goto out;
			if (u->skips++ == 0)
				u->skip = msg;
			continue;
		}
		/* A repetition that failed measured nothing: a run without values. The model
		 * says "failed" with an exit code; Google Benchmark writes none, and 1 stands
		 * for it. */
		if ((r = pmc_benchmark_record_run(b, error ? 1 : 0, 0, false)) < 0)
			goto out;
		if (error) {
			/* The times exist, not measured, to carry the note of why. */
			if ((r = get_string(g, e, "error_message", &msg)) < 0 ||
			    (r = pmc_import_sample(b, "wall-time/op", "ns", PMC_LOWER_IS_BETTER,
						   b->nruns - 1, NAN)) < 0 ||
			    (r = pmc_import_sample(b, "cpu-time/op", "ns", PMC_LOWER_IS_BETTER,
						   b->nruns - 1, NAN)) < 0)
				goto out;
			if (u->errors++ == 0)
				u->error = msg;
			continue;
		}
		if ((r = add_run(g, e, b, b->nruns - 1)) < 0)
			goto out;
	}
	/* Every aggregate summarises repetitions of a benchmark in the file: a file of
	 * aggregates alone has no runs to test. */
	json_array_foreach(benches, i, e)
	{
		enum entry_kind kind;
		const char *name;

		g->index = i;
		if ((r = entry_name(g, e, &name)) < 0 || (r = entry_kind(g, e, &kind)) < 0)
			goto out;
		if (kind == AGGREGATE && !pmc_result_find_benchmark(g->res, name)) {
			g->key = NULL;
			r = fail(g,
				 "benchmark '%.100s' has only aggregates (mean, median, stddev, "
				 "...) and no repetitions: a summary cannot be tested; rerun "
				 "with --benchmark_repetitions=10 and without "
				 "--benchmark_report_aggregates_only",
				 name);
			goto out;
		}
	}
	if (g->res->nbench == 0) {
		r = pmc_import_fail(&g->im, 0, "no benchmark runs in \"benchmarks\"; " FIX);
		goto out;
	}
	if ((r = pmc_import_pad(g->res)) < 0)
		goto out;
	for (i = 0; i < g->res->nbench; i++) {
		b = &g->res->benchmarks[i];
		/* Skipped on every repetition: a benchmark that did not run here. */
		if (b->nruns == 0) {
			if ((r = pmc_benchmark_set_skipped(b, none[i].skip)) < 0)
				goto out;
			continue;
		}
		if ((r = note_unmeasured(b, &none[i])) < 0)
			goto out;
	}
out:
	free(none);
	return r;
}

int pmc_import_gbench(const char *name, const char *text, size_t len, struct pmc_result **ret,
		      char *err, size_t errlen)
{
	struct gb g = {.im = {.file = name, .err = err, .errlen = errlen}};
	struct cleaned c = {0};
	json_error_t jerr;
	json_t *root;
	int r;

	if ((r = clean_nonfinite(text, len, &c)) < 0)
		return r;
	root = json_loadb(c.text, c.len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		if (json_error_code(&jerr) == json_error_out_of_memory)
			r = -ENOMEM;
		else
			r = pmc_import_fail_at(
			    &g.im, (size_t)jerr.line, (size_t)original_column(&c, &jerr),
			    "%s; %s — " FIX, jerr.text,
			    json_error_code(&jerr) == json_error_premature_end_of_input
				? "the file is truncated"
				: "the file is not Google Benchmark's JSON");
		goto out;
	}
	if ((r = pmc_import_result_new("google-benchmark", PMC_IMPORT_GBENCH, &g.res)) < 0)
		goto out;
	r = from_tree(&g, root);
	if (r < 0) {
		pmc_result_free(g.res);
		goto out;
	}
	*ret = g.res;
out:
	json_decref(root);
	free(c.text);
	free(c.nans);
	return r;
}

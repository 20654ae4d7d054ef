/* Regression thresholds: parsing of limits, of --threshold arguments and of the
 * thresholds file, and the lookup of the limit that applies to one benchmark's metric. */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/grow.h"
#include "base/hashmap.h"
#include "core/threshold.h"
#include "core/units.h"

struct metric_rule {
	char *metric;
	struct pmc_threshold th;
};

/* The rules of one scope, in the order given, indexed by metric id so that setting and
 * finding a rule stay constant-time: a thresholds file may name 100,000 metrics. */
struct rule_set {
	struct metric_rule *v; /* grown by pmc_grow */
	size_t n;
	struct pmc_hashmap idx; /* metric id -> index in v; keys borrowed from v */
};

struct bench_rule {
	char *pattern;
	bool has_default;
	struct pmc_threshold def;
	struct rule_set metrics;
	/* A pattern without *, ?, [ or \ is a name: the next rule with the same name, in
	 * file order (SIZE_MAX: none); found through pmc_thresholds.literal. */
	size_t next_same;
};

struct pmc_thresholds {
	struct rule_set cli; /* --threshold METRIC=LIMIT, one per metric */
	bool has_cli_default;
	struct pmc_threshold cli_default;

	struct rule_set file; /* top-level "metrics" of the file */
	bool has_file_default;
	struct pmc_threshold file_default;
	struct bench_rule *benches; /* "benchmarks", in file order */
	size_t nbenches;
	/* Compiled once (issue 19, item 7): the rules whose pattern is a plain name, by name
	 * (the first of each name; the others through next_same), and the indexes of the
	 * rules with a glob, in file order. A benchmark's rules are then its name's chain and
	 * the globs that match it, not every pattern of the file. */
	struct pmc_hashmap literal;
	size_t *globs, nglobs;
	size_t *chain_tail; /* per first rule of a name: the last of its chain */
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

/* The threshold's kind of unit for a scale's base. */
static enum pmc_threshold_unit tunit_of(enum pmc_unit_base base)
{
	return base == PMC_UNIT_BYTES ? PMC_TUNIT_BYTES
	       : base == PMC_UNIT_NS  ? PMC_TUNIT_TIME
				      : PMC_TUNIT_PLAIN;
}

#define LIMIT_EXAMPLES "write a limit such as 5%, +1%, -2%, +2MiB, 10ms or +1k"

/* Parses the limit in text; what and col0 only shape the message: what names the whole
 * input, col0 is the 0-based column of text within it. */
int pmc_threshold_parse_in(const char *text, const char *what, size_t col0,
			   struct pmc_threshold *ret, char *err, size_t errlen)
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
		pmc_err_set(err, errlen, "%s: column %zu: expected a number; %s", what,
			    col0 + (size_t)(p - text) + 1, LIMIT_EXAMPLES);
		return -EINVAL;
	}
	errno = 0;
	v = strtod(p, &end);
	if (errno || !isfinite(v) || (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))) {
		pmc_err_set(err, errlen, "%s: column %zu: '%s' is not a usable number; %s", what,
			    col0 + (size_t)(p - text) + 1, p, LIMIT_EXAMPLES);
		return -EINVAL;
	}
	if (*end == '\0') {
		/* A bare number was silently absolute in the metric's unit: task-clock=5 was
		 * 5 ns where 5% was meant. Say which (docs/compare.md, "Thresholds"). */
		int len = (int)(end - p);

		pmc_err_set(
		    err, errlen,
		    "%s: column %zu: '%s' has no unit; write %.*s%% for a relative limit, or "
		    "give an absolute one its unit (%.*sns, %.*sms, %.*sKiB, or %.*sk for a count)",
		    what, col0 + (size_t)(p - text) + 1, text, len, p, len, p, len, p, len, p, len,
		    p);
		return -EINVAL;
	} else {
		bool percent = strcmp(end, "%") == 0;
		const struct pmc_scale *s =
		    percent ? NULL : pmc_scale_find(end, strlen(end), PMC_SCALE_THRESHOLD);

		if (!percent && !s) {
			pmc_err_set(
			    err, errlen,
			    "%s: column %zu: unknown unit '%s'; use %%, K, M, G, B, KiB, MiB, "
			    "GiB, ns, us, ms or s",
			    what, col0 + (size_t)(end - text) + 1, end);
			return -EINVAL;
		}
		th.absolute = !percent;
		th.limit = v * (percent ? 0.01 : s->factor);
		th.unit = percent ? PMC_TUNIT_PLAIN : tunit_of(s->base);
	}
	if (!isfinite(th.limit)) {
		/* 1e308G is a finite number times 1e9: an infinite limit can never be
		 * exceeded, so the metric could never regress. */
		pmc_err_set(err, errlen,
			    "%s: column %zu: '%s' is too large: the limit overflows a double; %s",
			    what, col0 + 1, text, LIMIT_EXAMPLES);
		return -EINVAL;
	}
	if (!th.absolute && th.limit >= 1.0 && th.sign < 0) {
		/* A value cannot fall by 100% or more without going negative. */
		pmc_err_set(err, errlen,
			    "%s: column %zu: a decrease of %s can never happen; use a "
			    "limit below 100%%",
			    what, col0 + 1, text);
		return -EINVAL;
	}
	if (strlen(text) >= sizeof(th.text)) {
		pmc_err_set(err, errlen, "%s: column %zu: limit too long; %s", what, col0 + 1,
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
	return pmc_threshold_parse_in(text, what, 0, ret, err, errlen);
}

int pmc_threshold_check_unit(const struct pmc_threshold *t, const char *metric, const char *unit,
			     char *err, size_t errlen)
{
	static const char *const names[] = {"a count", "a size in bytes", "a time"};
	const char *need = NULL;

	if (!t->absolute)
		return 0;
	if (t->unit == PMC_TUNIT_PLAIN) {
		/* K, M and G scale a count: 5k ns would be a time written without its unit. */
		if (!unit || (strcmp(unit, "ns") != 0 && strcmp(unit, "bytes") != 0))
			return 0;
		pmc_err_set(err, errlen,
			    "threshold %s=%s is a count, but metric '%s' is in %s; give a limit in "
			    "%s or a percentage",
			    metric, t->text, metric, unit,
			    strcmp(unit, "ns") ? "B, KiB, MiB or GiB" : "ns, us, ms or s");
		return -EINVAL;
	}
	if (t->unit == PMC_TUNIT_BYTES)
		need = "bytes";
	else if (t->unit == PMC_TUNIT_TIME)
		need = "ns";
	if (unit && need && strcmp(unit, need) == 0)
		return 0;
	pmc_err_set(err, errlen,
		    "threshold %s=%s is %s, but metric '%s' is in %s; give a limit in %s or a "
		    "percentage",
		    metric, t->text, names[t->unit], metric, unit ? unit : "no unit",
		    unit ? unit : "its unit");
	return -EINVAL;
}

int pmc_thresholds_new(struct pmc_thresholds **ret)
{
	struct pmc_thresholds *t;

	if (!ret)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	*ret = t;
	return 0;
}

static void rules_free(struct rule_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].metric);
	free(s->v);
	pmc_hashmap_free(&s->idx);
}

void pmc_thresholds_free(struct pmc_thresholds *t)
{
	if (!t)
		return;
	rules_free(&t->cli);
	rules_free(&t->file);
	for (size_t i = 0; i < t->nbenches; i++) {
		free(t->benches[i].pattern);
		rules_free(&t->benches[i].metrics);
	}
	free(t->benches);
	pmc_hashmap_free(&t->literal);
	free(t->globs);
	free(t->chain_tail);
	free(t);
}

/* Sets metric's rule in s, replacing an earlier one for the same metric. */
static int rules_set(struct rule_set *s, const char *metric, const struct pmc_threshold *th)
{
	size_t at;
	char *id;
	int r;

	if (pmc_hashmap_get(&s->idx, metric, &at) == 0) {
		s->v[at].th = *th;
		return 0;
	}
	if (pmc_grow(&s->v, s->n, sizeof(*s->v)) < 0)
		return -ENOMEM;
	id = strdup(metric);
	if (!id)
		return -ENOMEM;
	r = pmc_hashmap_put(&s->idx, id, s->n);
	if (r < 0) {
		free(id);
		return r;
	}
	s->v[s->n].metric = id;
	s->v[s->n].th = *th;
	s->n++;
	return 0;
}

static int add_arg(struct pmc_thresholds *t, const char *arg, char *err, size_t errlen)
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
		pmc_err_set(err, errlen,
			    "%s: column %zu: expected METRIC=LIMIT, e.g. instructions=+1%% or "
			    "'*=5%%'",
			    what, eq ? (size_t)1 : strlen(arg) + 1);
		return -EINVAL;
	}
	r = pmc_threshold_parse_in(eq + 1, what, (size_t)(eq + 1 - arg), &th, err, errlen);
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
		r = rules_set(&t->cli, metric, &th);
	}
	free(metric);
	return r;
}

int pmc_thresholds_add_arg(struct pmc_thresholds *t, const char *arg, char *err, size_t errlen)
{
	int r = add_arg(t, arg, err, errlen);

	/* The message quotes the argument: shown escaped. */
	if (r < 0)
		pmc_err_escape(err, errlen);
	return r;
}

int pmc_thresholds_set_file_default(struct pmc_thresholds *t, const struct pmc_threshold *th)
{
	t->has_file_default = true;
	t->file_default = *th;
	return 0;
}

int pmc_thresholds_set_file_metric(struct pmc_thresholds *t, const char *metric,
				   const struct pmc_threshold *th)
{
	return rules_set(&t->file, metric, th);
}

/* Files rule idx (its pattern set) under its name, or among the globs. */
static int index_pattern(struct pmc_thresholds *t, size_t idx)
{
	const char *pat = t->benches[idx].pattern;
	size_t first;
	int r;

	/* One entry per rule, rules being added one at a time (pmc_grow's contract). */
	if (pmc_grow(&t->chain_tail, idx, sizeof(*t->chain_tail)) < 0)
		return -ENOMEM;
	t->chain_tail[idx] = SIZE_MAX;
	if (strpbrk(pat, "*?[\\")) {
		if (pmc_grow(&t->globs, t->nglobs, sizeof(*t->globs)) < 0)
			return -ENOMEM;
		t->globs[t->nglobs++] = idx;
		return 0;
	}
	r = pmc_hashmap_get_or_put(&t->literal, pat, idx, &first);
	if (r < 0)
		return r;
	if (r == 1) {
		t->chain_tail[idx] = idx;
	} else {
		t->benches[t->chain_tail[first]].next_same = idx;
		t->chain_tail[first] = idx;
	}
	return 0;
}

int pmc_thresholds_add_file_bench(struct pmc_thresholds *t, const char *pattern, size_t *ret_idx)
{
	struct bench_rule *b;
	char *copy = strdup(pattern);
	int r;

	if (!copy)
		return -ENOMEM;
	if (pmc_grow(&t->benches, t->nbenches, sizeof(*t->benches)) < 0) {
		free(copy);
		return -ENOMEM;
	}
	b = &t->benches[t->nbenches];
	memset(b, 0, sizeof(*b));
	b->pattern = copy;
	b->next_same = SIZE_MAX;
	r = index_pattern(t, t->nbenches);
	if (r < 0) {
		free(copy);
		return r;
	}
	*ret_idx = t->nbenches++;
	return 0;
}

int pmc_thresholds_set_bench_default(struct pmc_thresholds *t, size_t idx,
				     const struct pmc_threshold *th)
{
	if (idx >= t->nbenches)
		return -EINVAL;
	t->benches[idx].has_default = true;
	t->benches[idx].def = *th;
	return 0;
}

int pmc_thresholds_set_bench_metric(struct pmc_thresholds *t, size_t idx, const char *metric,
				    const struct pmc_threshold *th)
{
	if (idx >= t->nbenches)
		return -EINVAL;
	return rules_set(&t->benches[idx].metrics, metric, th);
}

size_t pmc_thresholds_nargs(const struct pmc_thresholds *t)
{
	return t ? t->cli.n : 0;
}

const char *pmc_thresholds_arg(const struct pmc_thresholds *t, size_t i,
			       const struct pmc_threshold **ret_th)
{
	if (!t || i >= t->cli.n)
		return NULL;
	if (ret_th)
		*ret_th = &t->cli.v[i].th;
	return t->cli.v[i].metric;
}

static const struct pmc_threshold *rules_find(const struct rule_set *s, const char *metric)
{
	size_t at;

	return pmc_hashmap_get(&s->idx, metric, &at) == 0 ? &s->v[at].th : NULL;
}

const struct pmc_threshold *pmc_thresholds_find(const struct pmc_thresholds *t, const char *bench,
						const char *metric,
						enum pmc_threshold_origin *ret_origin)
{
	const struct pmc_threshold *bench_default = NULL, *th;
	enum pmc_threshold_origin origin = PMC_TH_NAMED;

	if (!t) {
		th = &builtin_default;
		origin = PMC_TH_BUILTIN;
		goto out;
	}
	{
		/* The rules that match bench, in file order: its name's chain merged with the
		 * globs that match it. */
		size_t lit = SIZE_MAX, g = 0;

		if (pmc_hashmap_get(&t->literal, bench, &lit) < 0)
			lit = SIZE_MAX;
		for (;;) {
			const struct bench_rule *b;

			while (g < t->nglobs && fnmatch(t->benches[t->globs[g]].pattern, bench, 0))
				g++;
			if (lit == SIZE_MAX && g == t->nglobs)
				break;
			if (g == t->nglobs || (lit != SIZE_MAX && lit < t->globs[g])) {
				b = &t->benches[lit];
				lit = b->next_same;
			} else {
				b = &t->benches[t->globs[g++]];
			}
			th = rules_find(&b->metrics, metric);
			if (th)
				goto out;
			if (b->has_default && !bench_default)
				bench_default = &b->def;
		}
	}
	th = rules_find(&t->cli, metric);
	if (!th)
		th = rules_find(&t->file, metric);
	if (th)
		goto out;
	origin = PMC_TH_DEFAULT;
	if (bench_default)
		th = bench_default;
	else if (t->has_cli_default)
		th = &t->cli_default;
	else if (t->has_file_default)
		th = &t->file_default;
	else {
		th = &builtin_default;
		origin = PMC_TH_BUILTIN;
	}
out:
	if (ret_origin)
		*ret_origin = origin;
	return th;
}

const struct pmc_threshold *pmc_thresholds_lookup(const struct pmc_thresholds *t, const char *bench,
						  const char *metric)
{
	return pmc_thresholds_find(t, bench, metric, NULL);
}

bool pmc_thresholds_names_metrics(const struct pmc_thresholds *t)
{
	if (!t)
		return false;
	if (t->cli.n || t->file.n)
		return true;
	for (size_t i = 0; i < t->nbenches; i++)
		if (t->benches[i].metrics.n)
			return true;
	return false;
}

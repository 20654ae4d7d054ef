/* Registered definitions expanded into benchmarks: argument dimensions, their cartesian
 * product, names and the filter (docs/microbench.md, "Arguments"). */
#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/grow.h"
#include "base/hashmap.h"
#include "microbench/microbench.h"

#define MAX_VALUES 4096 /* per dimension: more is surely a mistake in the spec */

static int parse_int(const char *s, const char **end, int64_t *ret)
{
	char *e;
	long long v;

	errno = 0;
	v = strtoll(s, &e, 0);
	if (errno || e == s)
		return -EINVAL;
	*end = e;
	*ret = v;
	return 0;
}

static int push(int64_t **v, size_t *n, int64_t x)
{
	if (*n >= MAX_VALUES)
		return -E2BIG;
	if (pmc_grow(v, *n, sizeof(**v)) < 0)
		return -ENOMEM;
	(*v)[(*n)++] = x;
	return 0;
}

int pmc_mb_args_parse(const char *spec, int64_t **ret, size_t *ret_n, char *err, size_t errlen)
{
	const char *p = spec, *dots;
	int64_t *v = NULL, lo, hi, step = 1;
	size_t n = 0;
	char op = '+';
	int r;

	if (!spec || !*spec) {
		pmc_err_set(err, errlen,
			    "empty argument spec; give a list \"8,64\" or a range "
			    "\"1..16\", \"8..4096*8\", \"0..100+25\"");
		return -EINVAL;
	}
	dots = strstr(spec, "..");
	if (!dots) {
		for (;;) {
			int64_t x;

			if (parse_int(p, &p, &x) < 0 || (*p && *p != ','))
				goto bad;
			r = push(&v, &n, x);
			if (r < 0)
				goto fail;
			if (!*p)
				break;
			p++;
		}
		goto done;
	}
	if (parse_int(p, &p, &lo) < 0 || p != dots || parse_int(dots + 2, &p, &hi) < 0)
		goto bad;
	if (*p == '*' || *p == '+') {
		op = *p;
		if (parse_int(p + 1, &p, &step) < 0)
			goto bad;
	}
	if (*p || hi < lo || (op == '+' && step <= 0) || (op == '*' && (step <= 1 || lo <= 0)))
		goto bad;
	for (int64_t x = lo; x <= hi;) {
		r = push(&v, &n, x);
		if (r < 0)
			goto fail;
		if ((op == '+' && x > INT64_MAX - step) || (op == '*' && x > INT64_MAX / step))
			break;
		x = op == '+' ? x + step : x * step;
	}
	/* A geometric range ends at its end, as Google Benchmark's Range does: the sizes a
	 * user names as the end are the ones they mean to see ("8..8388608*8" stops at 8 MiB,
	 * not at 2 MiB). A dense one stops at the last step, as its DenseRange does. */
	if (op == '*' && v[n - 1] < hi && (r = push(&v, &n, hi)) < 0)
		goto fail;
done:
	*ret = v;
	*ret_n = n;
	return 0;
bad:
	free(v);
	pmc_err_set(err, errlen,
		    "argument spec \"%s\": expected a list \"8,64,512\" or a range "
		    "LO..HI with LO <= HI, optionally *FACTOR (> 1, LO > 0) or +STEP (> 0)",
		    spec);
	return -EINVAL;
fail:
	free(v);
	if (r == -E2BIG) {
		pmc_err_set(err, errlen, "argument spec \"%s\" gives more than %d values", spec,
			    MAX_VALUES);
		return -EINVAL;
	}
	pmc_err_set(err, errlen, "out of memory");
	return r;
}

void pmc_mb_set_free(struct pmc_mb_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].name);
	free(s->v);
	for (size_t i = 0; i < s->nbad; i++)
		free(s->bad[i]);
	free(s->bad);
	memset(s, 0, sizeof(*s));
}

/* The benchmarks of s from `from` on go (a definition left out). */
static void truncate_set(struct pmc_mb_set *s, size_t from)
{
	for (size_t i = from; i < s->n; i++)
		free(s->v[i].name);
	s->n = from;
}

/* Adds "file:line: why; skipped" to s->bad. Returns 0 or -ENOMEM. */
static int add_bad(struct pmc_mb_set *s, const struct pmc_bench_def *d, const char *why)
{
	char line[640];

	if (d->file)
		snprintf(line, sizeof(line), "%s:%d: %s; skipped", d->file, d->line, why);
	else
		snprintf(line, sizeof(line), "%s; skipped", why);
	if (pmc_grow(&s->bad, s->nbad, sizeof(*s->bad)) < 0)
		return -ENOMEM;
	if (!(s->bad[s->nbad] = strdup(line)))
		return -ENOMEM;
	s->nbad++;
	return 0;
}

/* The next definition: each is placed at its own sz rounded up to a pointer, as
 * PMC_BENCHMARK_OPTS aligns it, so a program built against another version of the
 * header still walks right. */
static const struct pmc_bench_def *next_def(const struct pmc_bench_def *d)
{
	size_t a = sizeof(void *), step = (d->sz + a - 1) / a * a;

	return (const struct pmc_bench_def *)(const void *)((const char *)d + step);
}

static int add_bench1(struct pmc_mb_set *s, const struct pmc_bench_def *def, const int64_t *args,
		      size_t nargs, unsigned threads);

#define MAX_THREADS 1024

/* One benchmark per thread count of def->threads (checked by expand_def), else one. */
static int add_bench(struct pmc_mb_set *s, const struct pmc_bench_def *def, const int64_t *args,
		     size_t nargs)
{
	int64_t *t = NULL;
	size_t nt = 0;
	int r;

	if (!def->threads)
		return add_bench1(s, def, args, nargs, 0);
	r = pmc_mb_args_parse(def->threads, &t, &nt, NULL, 0);
	for (size_t i = 0; r == 0 && i < nt; i++)
		r = add_bench1(s, def, args, nargs, (unsigned)t[i]);
	free(t);
	return r;
}

static int add_bench1(struct pmc_mb_set *s, const struct pmc_bench_def *def, const int64_t *args,
		      size_t nargs, unsigned threads)
{
	struct pmc_mb_bench *b;
	size_t len = strlen(def->name) + 1 + nargs * 22 + (threads ? 20 : 0);
	char *name;

	for (size_t i = 0; i < nargs && def->arg_names[i]; i++)
		len += strlen(def->arg_names[i]) + 1;

	if (pmc_grow_to(&s->v, &s->cap, s->n + 1, sizeof(*s->v)) < 0)
		return -ENOMEM;
	name = malloc(len);
	if (!name)
		return -ENOMEM;
	b = &s->v[s->n];
	memset(b, 0, sizeof(*b));
	size_t used = (size_t)snprintf(name, len, "%s", def->name);

	/* Named dimensions read as Google Benchmark names them: name/n:64/k:8. */
	for (size_t i = 0; i < nargs; i++) {
		if (def->arg_names[i])
			used += (size_t)snprintf(name + used, len - used, "/%s:%" PRId64,
						 def->arg_names[i], args[i]);
		else
			used += (size_t)snprintf(name + used, len - used, "/%" PRId64, args[i]);
		b->args[i] = args[i];
	}
	/* As Google Benchmark names them: name/args/threads:N. */
	if (threads)
		snprintf(name + used, len - used, "/threads:%u", threads);
	b->name = name;
	b->def = *def;
	b->nargs = nargs;
	b->threads = threads;
	s->n++;
	return 0;
}

/* The tuples of def->arg_tuples ("1,16; 64,256"), each nd values, added in order; nd
 * 0 takes the first tuple's length. Returns 0, -EINVAL with one line in err, -ENOMEM. */
static int add_tuples(struct pmc_mb_set *s, const struct pmc_bench_def *def, size_t nd, char *err,
		      size_t errlen)
{
	const char *p = def->arg_tuples;
	int64_t cur[PMC_BENCH_MAX_ARGS];
	size_t k = 0, ntuple = 0;

	for (;;) {
		char *e;
		long long x;

		while (*p == ' ' || *p == '\t')
			p++;
		errno = 0;
		x = strtoll(p, &e, 0);
		if (errno || e == p || k == PMC_BENCH_MAX_ARGS || (nd && k == nd))
			goto bad;
		cur[k++] = x;
		p = e;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p != ';' && *p)
			goto bad;
		if (!nd)
			nd = k;
		if (k != nd)
			goto bad;
		if (add_bench(s, def, cur, nd) < 0) {
			pmc_err_set(err, errlen, "out of memory");
			return -ENOMEM;
		}
		ntuple++;
		k = 0;
		if (!*p++)
			return 0;
	}
bad:
	pmc_err_set(err, errlen,
		    "benchmark '%s', tuple %zu of \"%s\": expected tuples \"1,16; 64,256\" of "
		    "%zu integers each (one per dimension, at most %d)",
		    def->name, ntuple + 1, def->arg_tuples, nd ? nd : k, PMC_BENCH_MAX_ARGS);
	return -EINVAL;
}

/* Every combination of the dimensions, the last one varying fastest, then the tuples. */
static int expand_def(struct pmc_mb_set *s, const struct pmc_bench_def *def, char *err,
		      size_t errlen)
{
	int64_t *vals[PMC_BENCH_MAX_ARGS] = {0}, cur[PMC_BENCH_MAX_ARGS];
	size_t nv[PMC_BENCH_MAX_ARGS] = {0}, idx[PMC_BENCH_MAX_ARGS] = {0}, nd = 0, nn = 0;
	char why[384];
	int r = 0;

	while (nd < PMC_BENCH_MAX_ARGS && def->args[nd])
		nd++;
	while (nn < PMC_BENCH_MAX_ARGS && def->arg_names[nn]) {
		const char *a = def->arg_names[nn++];

		if (!a[0] || strpbrk(a, "/:")) {
			pmc_err_set(
			    err, errlen,
			    "benchmark '%s': argument name \"%s\" is empty or has '/' or ':'",
			    def->name, a);
			return -EINVAL;
		}
	}
	if (def->threads) {
		int64_t *t = NULL;
		size_t nt = 0;

		r = pmc_mb_args_parse(def->threads, &t, &nt, why, sizeof(why));
		for (size_t i = 0; r == 0 && i < nt; i++)
			if (t[i] < 1 || t[i] > MAX_THREADS) {
				snprintf(why, sizeof(why), "%" PRId64 " threads; give 1 to %d",
					 t[i], MAX_THREADS);
				r = -EINVAL;
			}
		free(t);
		if (r < 0) {
			pmc_err_set(err, errlen, "benchmark '%s', threads: %s", def->name, why);
			return r;
		}
	}
	if (def->arg_tuples && !nd) {
		r = add_tuples(s, def, 0, err, errlen);
		nd = r == 0 ? s->v[s->n - 1].nargs : 0;
		if (r == 0 && nn && nn != nd)
			goto bad_names;
		return r;
	}
	if (nn && nn != nd)
		goto bad_names;
	for (size_t i = 0; i < nd; i++) {
		r = pmc_mb_args_parse(def->args[i], &vals[i], &nv[i], why, sizeof(why));
		if (r < 0) {
			pmc_err_set(err, errlen, "benchmark '%s', argument %zu: %s", def->name,
				    i + 1, why);
			goto out;
		}
	}
	for (;;) {
		size_t k;

		for (size_t i = 0; i < nd; i++)
			cur[i] = vals[i][idx[i]];
		r = add_bench(s, def, cur, nd);
		if (r < 0) {
			pmc_err_set(err, errlen, "out of memory");
			goto out;
		}
		for (k = nd; k > 0; k--) {
			if (++idx[k - 1] < nv[k - 1])
				break;
			idx[k - 1] = 0;
		}
		if (k == 0)
			break;
	}
	if (def->arg_tuples)
		r = add_tuples(s, def, nd, err, errlen);
out:
	for (size_t i = 0; i < nd; i++)
		free(vals[i]);
	return r;
bad_names:
	pmc_err_set(err, errlen, "benchmark '%s': %zu argument names for %zu dimensions", def->name,
		    nn, nd);
	return -EINVAL;
}

/* A definition and its place in the section. */
struct def_at {
	struct pmc_bench_def def;
	size_t index;
};

/* Source order: by file, then line; definitions without them (an older header) after,
 * in section order. */
static int cmp_source_order(const void *a, const void *b)
{
	const struct def_at *x = a, *y = b;
	int c;

	if (!x->def.file != !y->def.file)
		return x->def.file ? -1 : 1;
	if (x->def.file && (c = strcmp(x->def.file, y->def.file)) != 0)
		return c;
	if (x->def.line != y->def.line)
		return x->def.line < y->def.line ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Adds definition k of defs (expanded) to all, or, when it is bad or gives a name already
 * given, to all->bad. names maps each kept name to its definition; mine is scratch for
 * the names of this one. Returns 0 or -ENOMEM. */
static int add_def(struct pmc_mb_set *all, const struct def_at *defs, size_t k,
		   struct pmc_hashmap *names, struct pmc_hashmap *mine)
{
	const struct pmc_bench_def *def = &defs[k].def;
	size_t from = all->n, other;
	char why[512];
	int r;

	if (!def->fn || !def->name || !def->name[0] || strchr(def->name, '/')) {
		snprintf(why, sizeof(why), "benchmark '%.100s': %s",
			 def->name ? def->name : "(null)",
			 !def->fn ? "no function" : "a name that is empty or holds '/'");
		return add_bad(all, def, why);
	}
	if (def->unit < PMC_TIME_AUTO || def->unit > PMC_TIME_S) {
		snprintf(why, sizeof(why),
			 "benchmark '%.100s': unit %d is not one of PMC_TIME_NS, _US, _MS, _S",
			 def->name, def->unit);
		return add_bad(all, def, why);
	}
	r = expand_def(all, def, why, sizeof(why));
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		truncate_set(all, from);
		return add_bad(all, def, why);
	}
	/* Names through hash maps: a quadratic scan was seconds for 60,000 benchmarks. */
	pmc_hashmap_clear(mine);
	for (size_t i = from; i < all->n; i++) {
		const char *name = all->v[i].name;

		r = pmc_hashmap_get_or_put(mine, name, i, NULL);
		if (r < 0)
			return r;
		if (r == 0)
			snprintf(why, sizeof(why),
				 "benchmark '%.200s' is named twice by this definition's "
				 "arguments; give it different arguments",
				 name);
		else if (pmc_hashmap_get(names, name, &other) == 0 && defs[other].def.file)
			snprintf(why, sizeof(why),
				 "benchmark '%.200s' is also registered at %.200s:%d; give them "
				 "different names",
				 name, defs[other].def.file, defs[other].def.line);
		else if (pmc_hashmap_has(names, name))
			snprintf(why, sizeof(why),
				 "two benchmarks are named '%.200s'; give them different names",
				 name);
		else
			continue;
		truncate_set(all, from);
		return add_bad(all, def, why);
	}
	for (size_t i = from; i < all->n; i++)
		if ((r = pmc_hashmap_put(names, all->v[i].name, k)) < 0)
			return r;
	return 0;
}

/* Whether the benchmark named bench ("name/args", "LABEL:name/args") may be one of the
 * definition named def's: a superset, which the caller narrows by the whole name. */
static bool may_name(const char *bench, const char *def)
{
	const char *colon = strchr(bench, ':'), *slash = strchr(bench, '/');
	size_t n = strlen(def);

	if (strncmp(bench, def, n) == 0 && (bench[n] == '\0' || bench[n] == '/'))
		return true;
	/* A label is everything before a ':' that comes before the first '/'. */
	return colon && (!slash || colon < slash) && may_name(colon + 1, def);
}

static int expand(const struct pmc_bench_def *begin, const struct pmc_bench_def *end,
		  const char *filter, const char *only, struct pmc_mb_set *ret, char *err,
		  size_t errlen)
{
	struct pmc_mb_set all = {0}, kept = {0};
	struct pmc_hashmap names = {0}, mine = {0};
	struct def_at *defs = NULL;
	size_t ndefs = 0;
	regex_t re;
	bool have_re = false;
	/* Google Benchmark's negative filter: "-RE" keeps the names RE does not match. */
	bool negate = filter && filter[0] == '-';
	int r = 0;

	if (filter) {
		int rc = regcomp(&re, filter + negate, REG_EXTENDED | REG_NOSUB);

		if (rc != 0) {
			char why[256];

			regerror(rc, &re, why, sizeof(why));
			pmc_err_set(err, errlen, "--filter '%s': %s", filter, why);
			return -EINVAL;
		}
		have_re = true;
	}
	for (const struct pmc_bench_def *d = begin; d && d < end; d = next_def(d)) {
		struct pmc_bench_def def = {0};

		/* Fields the registering program did not know stay zero. A size that is not
		 * one stops the walk: the next definition is found by it. */
		if (d->sz < offsetof(struct pmc_bench_def, setup) || d->sz > 4096) {
			pmc_err_set(err, errlen,
				    "a benchmark definition of size %zu: not made by "
				    "PMC_BENCHMARK; rebuild the program",
				    d->sz);
			r = -EINVAL;
			goto out;
		}
		memcpy(&def, d, d->sz < sizeof(def) ? d->sz : sizeof(def));
		/* One benchmark's process expands its own definition only. */
		if (only && def.name && !may_name(only, def.name))
			continue;
		if (pmc_grow(&defs, ndefs, sizeof(*defs)) < 0) {
			r = -ENOMEM;
			goto oom;
		}
		defs[ndefs] = (struct def_at){def, ndefs};
		ndefs++;
	}
	if (ndefs) /* qsort's array may not be NULL, even empty (C11 7.22.5) */
		qsort(defs, ndefs, sizeof(*defs), cmp_source_order);
	r = pmc_hashmap_init(&names, ndefs * 4);
	if (r == 0)
		r = pmc_hashmap_init(&mine, 16);
	for (size_t i = 0; r == 0 && i < ndefs; i++)
		r = add_def(&all, defs, i, &names, &mine);
	if (r < 0)
		goto oom;
	kept.v = all.n ? calloc(all.n, sizeof(*kept.v)) : NULL;
	if (all.n && !kept.v) {
		r = -ENOMEM;
		goto oom;
	}
	kept.cap = all.n;
	for (size_t i = 0; i < all.n; i++) {
		if (have_re && (regexec(&re, all.v[i].name, 0, NULL, 0) == 0) == negate)
			continue;
		/* Google Benchmark's habit: a definition named DISABLED_... is kept out. */
		if (strncmp(all.v[i].def.name, "DISABLED_", 9) == 0)
			continue;
		kept.v[kept.n++] = all.v[i];
		all.v[i].name = NULL; /* moved */
	}
	kept.bad = all.bad;
	kept.nbad = all.nbad;
	all.bad = NULL;
	all.nbad = 0;
	*ret = kept;
	kept = (struct pmc_mb_set){0};
	goto out;
oom:
	pmc_err_set(err, errlen, "out of memory");
out:
	pmc_hashmap_free(&names);
	pmc_hashmap_free(&mine);
	free(defs);
	pmc_mb_set_free(&kept);
	pmc_mb_set_free(&all);
	if (have_re)
		regfree(&re);
	return r;
}

int pmc_mb_expand(const struct pmc_bench_def *begin, const struct pmc_bench_def *end,
		  const char *filter, struct pmc_mb_set *ret, char *err, size_t errlen)
{
	return expand(begin, end, filter, NULL, ret, err, errlen);
}

int pmc_mb_expand_named(const struct pmc_bench_def *begin, const struct pmc_bench_def *end,
			const char *name, struct pmc_mb_set *ret, char *err, size_t errlen)
{
	return expand(begin, end, NULL, name, ret, err, errlen);
}

/* "LABEL:name" for every benchmark of s, and "build 'LABEL': " before its bad lines.
 * Returns 0 or -ENOMEM (the names done so far stay done). */
static int label_set(struct pmc_mb_set *s, const char *label)
{
	size_t len = strlen(label);

	for (size_t i = 0; i < s->n; i++) {
		char *name;

		if (asprintf(&name, "%s:%s", label, s->v[i].name) < 0)
			return -ENOMEM;
		free(s->v[i].name);
		s->v[i].name = name;
		s->v[i].label_len = len;
		s->v[i].group = 0;
	}
	for (size_t i = 0; i < s->nbad; i++) {
		char *line;

		if (asprintf(&line, "build '%s': %s", label, s->bad[i]) < 0)
			return -ENOMEM;
		free(s->bad[i]);
		s->bad[i] = line;
	}
	return 0;
}

/* The name of b without its build's label. */
static const char *unlabeled(const struct pmc_mb_bench *b)
{
	return b->label_len ? b->name + b->label_len + 1 : b->name;
}

int pmc_mb_set_add_build(struct pmc_mb_set *dst, struct pmc_mb_set *src, const char *label)
{
	struct pmc_hashmap names = {0};
	struct pmc_mb_bench *v = NULL;
	bool *used = NULL;
	size_t n = 0, idx;
	int r;

	if (!label || !label[0] || strchr(label, ':'))
		return -EINVAL;
	r = label_set(src, label);
	if (r == 0)
		r = pmc_hashmap_init(&names, src->n);
	for (size_t i = 0; r == 0 && i < src->n; i++)
		r = pmc_hashmap_put(&names, unlabeled(&src->v[i]), i);
	v = r == 0 ? calloc(dst->n + src->n + 1, sizeof(*v)) : NULL;
	used = v ? calloc(src->n + 1, sizeof(*used)) : NULL;
	if (r == 0 && !used)
		r = -ENOMEM;
	for (size_t i = 0, g; r == 0 && i < dst->n; i += g) {
		size_t lead = n;

		/* The first build's benchmarks each lead a group of one. */
		g = dst->v[i].group ? dst->v[i].group : 1;
		memcpy(v + n, dst->v + i, g * sizeof(*v));
		n += g;
		v[lead].group = g;
		if (pmc_hashmap_get(&names, unlabeled(&dst->v[i]), &idx) == 0) {
			v[n++] = src->v[idx];
			used[idx] = true;
			v[lead].group++;
		}
	}
	for (size_t i = 0; r == 0 && i < src->n; i++)
		if (!used[i]) {
			v[n] = src->v[i];
			v[n++].group = 1;
		}
	for (size_t i = 0; r == 0 && i < src->nbad; i++) {
		r = pmc_grow(&dst->bad, dst->nbad, sizeof(*dst->bad));
		if (r == 0)
			dst->bad[dst->nbad++] = src->bad[i];
		src->bad[i] = NULL;
	}
	if (r == 0) {
		/* The names moved to v. */
		free(dst->v);
		dst->v = v;
		dst->n = dst->cap = n;
		v = NULL;
		free(src->v);
		src->v = NULL;
		src->n = src->cap = 0;
		pmc_mb_set_free(src);
	}
	free(v);
	free(used);
	pmc_hashmap_free(&names);
	return r;
}

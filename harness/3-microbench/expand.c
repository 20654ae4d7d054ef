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
	s->v = NULL;
	s->n = 0;
	s->cap = 0;
}

/* The next definition: each is placed at its own sz rounded up to a pointer, as
 * PMC_BENCHMARK_OPTS aligns it, so a program built against another version of the
 * header still walks right. */
static const struct pmc_bench_def *next_def(const struct pmc_bench_def *d)
{
	size_t a = sizeof(void *), step = (d->sz + a - 1) / a * a;

	return (const struct pmc_bench_def *)(const void *)((const char *)d + step);
}

static int add_bench(struct pmc_mb_set *s, const struct pmc_bench_def *def, const int64_t *args,
		     size_t nargs)
{
	struct pmc_mb_bench *b;
	size_t len = strlen(def->name) + 1 + nargs * 22;
	char *name;

	if (pmc_grow_to(&s->v, &s->cap, s->n + 1, sizeof(*s->v)) < 0)
		return -ENOMEM;
	name = malloc(len);
	if (!name)
		return -ENOMEM;
	b = &s->v[s->n];
	memset(b, 0, sizeof(*b));
	size_t used = (size_t)snprintf(name, len, "%s", def->name);

	for (size_t i = 0; i < nargs; i++) {
		used += (size_t)snprintf(name + used, len - used, "/%" PRId64, args[i]);
		b->args[i] = args[i];
	}
	b->name = name;
	b->def = *def;
	b->nargs = nargs;
	s->n++;
	return 0;
}

/* Every combination of the dimensions, the last one varying fastest. */
static int expand_def(struct pmc_mb_set *s, const struct pmc_bench_def *def, char *err,
		      size_t errlen)
{
	int64_t *vals[PMC_BENCH_MAX_ARGS] = {0}, cur[PMC_BENCH_MAX_ARGS];
	size_t nv[PMC_BENCH_MAX_ARGS] = {0}, idx[PMC_BENCH_MAX_ARGS] = {0}, nd = 0;
	char why[384];
	int r = 0;

	while (nd < PMC_BENCH_MAX_ARGS && def->args[nd])
		nd++;
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
out:
	for (size_t i = 0; i < nd; i++)
		free(vals[i]);
	return r;
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

int pmc_mb_expand(const struct pmc_bench_def *begin, const struct pmc_bench_def *end,
		  const char *filter, struct pmc_mb_set *ret, char *err, size_t errlen)
{
	struct pmc_mb_set all = {0}, kept = {0};
	struct pmc_hashmap names = {0};
	struct def_at *defs = NULL;
	size_t ndefs = 0;
	regex_t re;
	bool have_re = false;
	int r = 0;

	if (filter) {
		int rc = regcomp(&re, filter, REG_EXTENDED | REG_NOSUB);

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

		/* Fields the registering program did not know stay zero. */
		if (d->sz < offsetof(struct pmc_bench_def, setup) || d->sz > 4096) {
			pmc_err_set(err, errlen,
				    "a benchmark definition of size %zu: not made by "
				    "PMC_BENCHMARK; rebuild the program",
				    d->sz);
			r = -EINVAL;
			goto out;
		}
		memcpy(&def, d, d->sz < sizeof(def) ? d->sz : sizeof(def));
		if (!def.name || !def.name[0] || !def.fn || strchr(def.name, '/')) {
			pmc_err_set(err, errlen, "benchmark '%s': no function or a bad name",
				    def.name ? def.name : "(null)");
			r = -EINVAL;
			goto out;
		}
		if (pmc_grow(&defs, ndefs, sizeof(*defs)) < 0) {
			pmc_err_set(err, errlen, "out of memory");
			r = -ENOMEM;
			goto out;
		}
		defs[ndefs] = (struct def_at){def, ndefs};
		ndefs++;
	}
	qsort(defs, ndefs, sizeof(*defs), cmp_source_order);
	for (size_t i = 0; i < ndefs; i++) {
		r = expand_def(&all, &defs[i].def, err, errlen);
		if (r < 0)
			goto out;
	}
	/* Names through the hash map: a quadratic scan was seconds for 60,000 benchmarks. */
	r = pmc_hashmap_init(&names, all.n);
	for (size_t i = 0; r == 0 && i < all.n; i++) {
		r = pmc_hashmap_get_or_put(&names, all.v[i].name, i, NULL);
		if (r == 0) {
			pmc_err_set(err, errlen,
				    "two benchmarks are named '%s'; give "
				    "them different names or arguments",
				    all.v[i].name);
			r = -EINVAL;
			goto out;
		}
		r = r == 1 ? 0 : r;
	}
	if (r < 0) {
		pmc_err_set(err, errlen, "out of memory");
		goto out;
	}
	kept.v = all.n ? calloc(all.n, sizeof(*kept.v)) : NULL;
	if (all.n && !kept.v) {
		pmc_err_set(err, errlen, "out of memory");
		r = -ENOMEM;
		goto out;
	}
	kept.cap = all.n;
	for (size_t i = 0; i < all.n; i++) {
		if (have_re && regexec(&re, all.v[i].name, 0, NULL, 0) != 0)
			continue;
		kept.v[kept.n++] = all.v[i];
		all.v[i].name = NULL; /* moved */
	}
	*ret = kept;
	kept = (struct pmc_mb_set){0};
out:
	pmc_hashmap_free(&names);
	free(defs);
	pmc_mb_set_free(&kept);
	pmc_mb_set_free(&all);
	if (have_re)
		regfree(&re);
	return r;
}

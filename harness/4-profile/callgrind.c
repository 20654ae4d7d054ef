/* Exact profiles from callgrind's output (docs/profile.md, "Exact profiles (valgrind)").
 *
 * With --separate-callers=N callgrind keeps a function's cost apart for each chain of up
 * to N callers, and names each such context "leaf'caller'caller's caller'..." in its fn=
 * lines (valgrind manual, callgrind "Avoiding cycles"; the writer is print_mangled_fn in
 * callgrind/dump.c). The cost lines under a fn= line are that context's self cost, so a
 * context reversed is a stack, its self cost is the stack's weight, and the weights of
 * all stacks add up to the file's "totals:" line exactly (checked per part below).
 *
 * The files are read with the one reader of valgrind's format, which the valgrind
 * backend also uses (counters/valgrind/valgrind_format.h: lines, name compression, cost
 * lines); what they mean for a profile is here. The cost line after a calls= line is the
 * inclusive cost of the call, already counted as the callee's self cost, and is skipped;
 * so is the position line after jump= and jcnd=.
 *
 * A function whose name contains an apostrophe is cut into two frames there: the format
 * gives no way to tell it from a context separator. The weights stay exact. */
#include "profile/callgrind.h"
#include "counters/valgrind/valgrind_format.h"
#include "base/error.h"
#include "base/grow.h"
#include "base/hashmap.h"
#include "profile/profile.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Callers kept per context. Measured (docs/profile.md, "Exact profiles"): CPython
 * recursing 18 Python calls deep needs about 100 C callers; with 30, 16% of its
 * instructions were in cut chains, with 50 9%, with 100 none, for 1.4x the run time of
 * 30. The stacks of C benchmarks are far shorter and cost the same at any N. A context of
 * N + 1 functions whose outermost one is not a root is marked truncated. */
#define CALLERS 100
#define STR2(x) #x
#define STR(x) STR2(x)

static const char *const profile_args[] = {
    "--separate-callers=" STR(CALLERS),
    "--dump-instr=no", /* costs per line are enough: the profile sums them per function */
    "--compress-strings=yes",
    NULL,
};

const char *const *pmc_callgrind_profile_args(void)
{
	return profile_args;
}

/* ---- what all files add up to ----------------------------------------------------- */

struct gctx {
	char *key; /* "object\nleaf\ncaller\n...\noutermost" */
	uint64_t weight;
	uint32_t depth;
};

struct strlist {
	char **v;
	size_t n, cap;
};

struct cg {
	struct pmc_hashmap ctx_ids;   /* gctx key -> index */
	struct pmc_hashmap chain_obj; /* "leaf\ncaller..." (inside a gctx key) -> object */
	struct pmc_hashmap name_obj;  /* function name -> object, the first seen */
	struct pmc_hashmap obj_ids;   /* object name -> index */
	struct gctx *ctxs;
	size_t nctxs, ctxs_cap;
	struct strlist objs, names;
};

static int strlist_add(struct strlist *l, char *s)
{
	if (pmc_grow_to(&l->v, &l->cap, l->n + 1, sizeof(*l->v)) < 0)
		return -ENOMEM;
	l->v[l->n++] = s;
	return 0;
}

static void strlist_free(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

static void cg_free(struct cg *g)
{
	for (size_t i = 0; i < g->nctxs; i++)
		free(g->ctxs[i].key);
	free(g->ctxs);
	strlist_free(&g->objs);
	strlist_free(&g->names);
	pmc_hashmap_free(&g->ctx_ids);
	pmc_hashmap_free(&g->chain_obj);
	pmc_hashmap_free(&g->name_obj);
	pmc_hashmap_free(&g->obj_ids);
}

/* The index of the object named name (len bytes); callgrind's "???" is no object. */
static int obj_intern(struct cg *g, const char *name, size_t len, size_t *ret)
{
	char *s;
	int r;

	if (len == 3 && memcmp(name, "???", 3) == 0) {
		name = "[unknown]";
		len = strlen(name);
	}
	s = strndup(name, len);
	if (!s)
		return -ENOMEM;
	r = pmc_hashmap_get_or_put(&g->obj_ids, s, g->objs.n, ret);
	if (r == 1 && strlist_add(&g->objs, s) == 0)
		return 0;
	if (r == 1)
		r = -ENOMEM; /* the key stays in the map: drop the map's view of it */
	free(s);
	return r < 0 ? r : 0;
}

/* ---- one file --------------------------------------------------------------------- */

/* A function context of one file, by its index in the reader's table of names. */
struct fdef {
	const char *text; /* the context, "leaf'caller'...": the reader's */
	uint64_t weight;
	size_t ob;   /* object of the weight; SIZE_MAX: none yet */
	bool costed; /* cost lines were read for it (maybe all 0 for this event) */
};

struct cgf {
	struct cg *g;
	struct pmc_vgf_reader *rd;
	const char *path, *event;
	char *err;
	size_t errlen;
	struct fdef *fns; /* per function name of the file */
	size_t nfns, fns_cap;
	size_t *obs; /* per object name of the file: its index in g->objs */
	size_t nobs, obs_cap;
	size_t npos;	       /* subpositions at the start of a cost line */
	long col;	       /* column of the event; -1: not in this part */
	size_t ncolumns;       /* events of this part */
	size_t cur_fn, cur_ob; /* SIZE_MAX: none */
	bool have_events, in_part, skip_next;
	uint64_t part_sum;
};

/* The context's stack joined by '\n', leaf first: the apostrophes become separators, and
 * the recursion level callgrind appends to the leaf ("fib'2'main": --separate-recs) is
 * dropped, as the callers already show the recursion. */
static char *chain_of(const char *text)
{
	char *s = malloc(strlen(text) + 1), *o = s;
	size_t comp = 0;

	if (!s)
		return NULL;
	while (*text) {
		const char *e = strchr(text, '\'');
		size_t len = e ? (size_t)(e - text) : strlen(text);
		bool digits = len > 0;

		for (size_t i = 0; i < len; i++)
			digits = digits && isdigit((unsigned char)text[i]);
		if (!(comp == 1 && digits)) {
			if (o != s)
				*o++ = '\n';
			memcpy(o, text, len);
			o += len;
		}
		comp++;
		text += len;
		if (*text)
			text++;
	}
	*o = '\0';
	return s;
}

/* Adds the context's weight so far to the total of all files. */
static int flush(struct cgf *f, struct fdef *d)
{
	struct cg *g = f->g;
	const char *obj;
	char *chain, *key;
	size_t idx, olen;
	uint32_t depth = 1;
	int r;

	/* A context that ran, even at no cost of this event, is kept: it tells the
	 * objects of callers and which functions are roots (build). */
	if (!d->costed)
		return 0;
	obj = d->ob == SIZE_MAX ? "[unknown]" : g->objs.v[d->ob];
	chain = chain_of(d->text);
	if (!chain)
		return -ENOMEM;
	olen = strlen(obj);
	key = malloc(olen + 1 + strlen(chain) + 1);
	if (!key) {
		free(chain);
		return -ENOMEM;
	}
	memcpy(key, obj, olen);
	key[olen] = '\n';
	strcpy(key + olen + 1, chain);
	for (const char *c = chain; *c; c++)
		depth += *c == '\n';
	r = pmc_hashmap_get(&g->ctx_ids, key, &idx);
	if (r == 0) {
		free(key);
		if (__builtin_add_overflow(g->ctxs[idx].weight, d->weight, &g->ctxs[idx].weight))
			r = -EOVERFLOW;
	} else if (pmc_grow_to(&g->ctxs, &g->ctxs_cap, g->nctxs + 1, sizeof(*g->ctxs)) < 0 ||
		   pmc_hashmap_put(&g->ctx_ids, key, g->nctxs) < 0) {
		free(key);
		r = -ENOMEM;
	} else {
		g->ctxs[g->nctxs++] =
		    (struct gctx){.key = key, .weight = d->weight, .depth = depth};
		r = 0;
		/* Where the callers of other contexts live: this chain's object. */
		if (d->ob != SIZE_MAX &&
		    pmc_hashmap_get_or_put(&g->chain_obj, key + olen + 1, d->ob, NULL) < 0)
			r = -ENOMEM;
		if (r == 0 && d->ob != SIZE_MAX) {
			char *leaf = strndup(chain, strcspn(chain, "\n"));
			int q = 0;

			if (!leaf)
				r = -ENOMEM;
			else if ((q = pmc_hashmap_get_or_put(&g->name_obj, leaf, d->ob, NULL)) == 1)
				r = strlist_add(&g->names, leaf);
			else
				free(leaf);
			if (r == 0 && q < 0)
				r = q;
		}
	}
	free(chain);
	if (r == -EOVERFLOW)
		pmc_err_set(f->err, f->errlen, "%s: the %s cost of one context is above 2^64 - 1",
			    f->path, f->event);
	d->weight = 0;
	return r;
}

/* A function position: sets *ret to the context's index, which it adds when new. */
static int fn_spec(struct cgf *f, const char *value, size_t *ret)
{
	const char *name;
	size_t idx;
	int r = pmc_vgf_name(f->rd, PMC_VGF_FN, value, &idx, &name);

	if (r < 0)
		return r;
	if (idx == f->nfns) {
		if (pmc_grow_to(&f->fns, &f->fns_cap, f->nfns + 1, sizeof(*f->fns)) < 0)
			return -ENOMEM;
		f->fns[f->nfns++] = (struct fdef){.text = name, .ob = SIZE_MAX};
	}
	*ret = idx;
	return 0;
}

/* An object position: sets *ret to the object's index among all files' objects. */
static int ob_spec(struct cgf *f, const char *value, size_t *ret)
{
	const char *name;
	size_t idx;
	int r = pmc_vgf_name(f->rd, PMC_VGF_OB, value, &idx, &name);

	if (r < 0)
		return r;
	if (idx == f->nobs) {
		if (pmc_grow_to(&f->obs, &f->obs_cap, f->nobs + 1, sizeof(*f->obs)) < 0)
			return -ENOMEM;
		r = obj_intern(f->g, name, strlen(name), &f->obs[f->nobs]);
		if (r < 0)
			return r;
		f->nobs++;
	}
	*ret = f->obs[idx];
	return 0;
}

static int events_line(struct cgf *f, const char *s)
{
	const char *tok;
	size_t len;

	if (f->in_part)
		return pmc_vgf_bad(f->rd, "a new 'events:' line before the part's 'totals:' line",
				   s);
	f->col = -1;
	f->ncolumns = 0;
	while ((tok = pmc_vgf_token(&s, &len))) {
		if (strlen(f->event) == len && memcmp(tok, f->event, len) == 0 && f->col < 0)
			f->col = (long)f->ncolumns;
		f->ncolumns++;
	}
	if (f->ncolumns == 0)
		return pmc_vgf_bad(f->rd, "an empty 'events:' line", s);
	if (f->col < 0) {
		char q[PMC_QUOTE_SIZE(40)];

		pmc_err_set(f->err, f->errlen,
			    "%s:%u: no event \"%s\" in the 'events:' line; profile one of its "
			    "events, or run callgrind with the simulation that counts it",
			    f->path, pmc_vgf_line_number(f->rd), pmc_quote(q, sizeof(q), f->event));
		return -ENOENT;
	}
	f->have_events = f->in_part = true;
	f->part_sum = 0;
	f->cur_fn = f->cur_ob = SIZE_MAX;
	return 0;
}

/* The end of a part: its costs must add up to its totals, or a line was misread. */
static int totals_line(struct cgf *f, const char *s)
{
	uint64_t v;
	int r;

	if (!f->in_part)
		return pmc_vgf_bad(f->rd, "a 'totals:' line outside a part", s);
	r = pmc_vgf_cost_line(f->rd, s, 0, f->ncolumns, f->col, &v);
	if (r < 0)
		return r;
	f->in_part = false;
	if (v != f->part_sum) {
		pmc_err_set(f->err, f->errlen,
			    "%s:%u: the %s costs add up to %llu but 'totals:' says %llu; the file "
			    "is damaged",
			    f->path, pmc_vgf_line_number(f->rd), f->event,
			    (unsigned long long)f->part_sum, (unsigned long long)v);
		return -EINVAL;
	}
	return 0;
}

/* "positions:": which subpositions start a cost line. */
static int positions_line(struct cgf *f, const struct pmc_vgf_line *l)
{
	const char *s = l->value, *tok;
	size_t len;

	f->npos = 0;
	while ((tok = pmc_vgf_token(&s, &len))) {
		if (!((len == 5 && memcmp(tok, "instr", 5) == 0) ||
		      (len == 4 && memcmp(tok, "line", 4) == 0) ||
		      (len == 2 && memcmp(tok, "bb", 2) == 0)))
			return pmc_vgf_bad(f->rd, "an unknown position", l->text);
		f->npos++;
	}
	return 0;
}

/* A cost line: the self cost of the current context, unless it is a call's. */
static int cost(struct cgf *f, const char *line)
{
	struct fdef *d;
	uint64_t v;
	int r;

	if (!f->in_part)
		return pmc_vgf_bad(f->rd, "a cost line before the 'events:' line", line);
	r = pmc_vgf_cost_line(f->rd, line, f->npos, f->ncolumns, f->col, &v);
	if (r < 0)
		return r;
	if (f->skip_next) {
		f->skip_next = false;
		return 0;
	}
	if (f->cur_fn == SIZE_MAX)
		return pmc_vgf_bad(f->rd, "a cost line before any 'fn=' line", line);
	d = &f->fns[f->cur_fn];
	if (d->ob != f->cur_ob && d->weight > 0) {
		r = flush(f, d);
		if (r < 0)
			return r;
	}
	d->ob = f->cur_ob;
	d->costed = true;
	if (__builtin_add_overflow(d->weight, v, &d->weight) ||
	    __builtin_add_overflow(f->part_sum, v, &f->part_sum)) {
		pmc_err_set(f->err, f->errlen, "%s:%u: the %s costs pass 2^64 - 1", f->path,
			    pmc_vgf_line_number(f->rd), f->event);
		return -EOVERFLOW;
	}
	return 0;
}

static int spec_line(struct cgf *f, const struct pmc_vgf_line *l)
{
	size_t idx;
	int r;

	if (pmc_vgf_is(l, PMC_VGF_SPEC, "fn")) {
		r = fn_spec(f, l->value, &idx);
		if (r == 0)
			f->cur_fn = idx;
		return r;
	}
	if (pmc_vgf_is(l, PMC_VGF_SPEC, "cfn") || pmc_vgf_is(l, PMC_VGF_SPEC, "jfn") ||
	    pmc_vgf_is(l, PMC_VGF_SPEC, "frfn"))
		return fn_spec(f, l->value, &idx);
	if (pmc_vgf_is(l, PMC_VGF_SPEC, "ob")) {
		r = ob_spec(f, l->value, &idx);
		if (r == 0)
			f->cur_ob = idx;
		return r;
	}
	if (pmc_vgf_is(l, PMC_VGF_SPEC, "cob"))
		return ob_spec(f, l->value, &idx);
	/* Source files: the profile is per function, so only the form matters. */
	if (pmc_vgf_is(l, PMC_VGF_SPEC, "fl") || pmc_vgf_is(l, PMC_VGF_SPEC, "fi") ||
	    pmc_vgf_is(l, PMC_VGF_SPEC, "fe") || pmc_vgf_is(l, PMC_VGF_SPEC, "cfi") ||
	    pmc_vgf_is(l, PMC_VGF_SPEC, "cfl") || pmc_vgf_is(l, PMC_VGF_SPEC, "jfi"))
		return pmc_vgf_name(f->rd, PMC_VGF_FL, l->value, NULL, NULL);
	if (pmc_vgf_is(l, PMC_VGF_SPEC, "calls") || pmc_vgf_is(l, PMC_VGF_SPEC, "jump") ||
	    pmc_vgf_is(l, PMC_VGF_SPEC, "jcnd")) {
		/* The next line is the call's inclusive cost (calls=) or the jump's source
		 * position (jump=, jcnd=): never self cost. */
		f->skip_next = true;
		return 0;
	}
	if (pmc_vgf_is(l, PMC_VGF_SPEC, "ln") || pmc_vgf_is(l, PMC_VGF_SPEC, "rec"))
		return 0;
	return pmc_vgf_bad(f->rd, "not a line of callgrind's format", l->text);
}

static int line(struct cgf *f, const struct pmc_vgf_line *l)
{
	switch (l->kind) {
	case PMC_VGF_HEADER:
		if (pmc_vgf_is(l, PMC_VGF_HEADER, "events"))
			return events_line(f, l->value);
		if (pmc_vgf_is(l, PMC_VGF_HEADER, "totals"))
			return totals_line(f, l->value);
		if (pmc_vgf_is(l, PMC_VGF_HEADER, "positions"))
			return positions_line(f, l);
		/* Any other header (version, creator, pid, cmd, part, desc, summary, event):
		 * nothing the stacks need. */
		return 0;
	case PMC_VGF_SPEC:
		return spec_line(f, l);
	case PMC_VGF_COST:
		return cost(f, l->text);
	default:
		return pmc_vgf_bad(f->rd, "not a line of callgrind's format", l->text);
	}
}

static int read_file(struct cg *g, const char *path, const char *event, char *err, size_t errlen)
{
	struct cgf f = {.g = g,
			.path = path,
			.event = event,
			.err = err,
			.errlen = errlen,
			.npos = 1, /* "positions: line" when the header does not say */
			.col = -1,
			.cur_fn = SIZE_MAX,
			.cur_ob = SIZE_MAX};
	struct pmc_vgf_line l;
	int r;

	r = pmc_vgf_open(path, err, errlen, &f.rd);
	if (r < 0)
		return r;
	/* A cut line is not read: "events: I" is not a missing "Ir". */
	while ((r = pmc_vgf_next(f.rd, &l)) > 0 && !l.cut)
		if ((r = line(&f, &l)) < 0)
			goto out;
	if (r < 0 || (r = pmc_vgf_finish(f.rd)) < 0)
		goto out;
	r = -EINVAL;
	if (!f.have_events)
		pmc_err_set(err, errlen, "%s: no 'events:' line; is it callgrind's output?", path);
	else if (f.in_part || f.skip_next)
		pmc_err_set(err, errlen, "%s: no 'totals:' line at the end (truncated file?)",
			    path);
	else
		r = 0;
	for (size_t i = 0; r == 0 && i < f.nfns; i++)
		r = flush(&f, &f.fns[i]);
out:
	pmc_vgf_close(f.rd);
	free(f.fns);
	free(f.obs);
	return r;
}

/* ---- the profile ------------------------------------------------------------------ */

/* Callgrind names a function without a symbol by its address in its object
 * ("0x000000000001ab70", maybe followed by " [PLT]"): get_fn_node in callgrind/fn.c. */
static bool unknown_fn(const char *name, size_t len, uint64_t *offset)
{
	size_t i = 2;
	uint64_t v = 0;

	if (len < 3 || name[0] != '0' || name[1] != 'x')
		return false;
	for (; i < len && isxdigit((unsigned char)name[i]); i++) {
		if (v >> 60)
			return false;
		v = v * 16 + (uint64_t)(isdigit((unsigned char)name[i])
					    ? name[i] - '0'
					    : tolower((unsigned char)name[i]) - 'a' + 10);
	}
	/* An address no profile file can hold is kept as the name it is. */
	if (i == 2 || (i < len && name[i] != ' ') || v > PMC_PROFILE_OFFSET_MAX)
		return false;
	*offset = v;
	return true;
}

static int build(struct cg *g, struct pmc_profile *p)
{
	uint32_t *frames = NULL;
	size_t cap = 0;
	bool flat = true;
	int r = 0;

	/* Files without contexts (--separate-callers=0, --mangle-names=no) have leaves
	 * only: every stack is cut. */
	for (size_t c = 0; c < g->nctxs && flat; c++)
		flat = g->ctxs[c].depth == 1;

	for (size_t c = 0; c < g->nctxs && r == 0; c++) {
		struct gctx *x = &g->ctxs[c];
		const char *names = strchr(x->key, '\n') + 1, *s = names;
		const char *starts[CALLERS + 64];
		const char **st = starts;
		const char **heap = NULL;
		char *leaf_obj;
		uint32_t depth = x->depth;
		bool truncated;

		if (x->weight == 0)
			continue;
		if (depth > sizeof(starts) / sizeof(starts[0])) {
			heap = malloc(depth * sizeof(*heap));
			if (!heap)
				return -ENOMEM;
			st = heap;
		}
		if (pmc_grow_to(&frames, &cap, depth, sizeof(*frames)) < 0) {
			free(heap);
			r = -ENOMEM;
			break;
		}
		for (uint32_t i = 0; i < depth; i++) {
			st[i] = s;
			s += strcspn(s, "\n");
			if (*s)
				s++;
		}
		leaf_obj = strndup(x->key, (size_t)(names - 1 - x->key));
		if (!leaf_obj)
			r = -ENOMEM;
		for (uint32_t i = 0; i < depth && r == 0; i++) {
			const char *name = st[i], *obj = "[unknown]";
			size_t len = strcspn(name, "\n"), oi;
			char *sym = NULL;
			uint64_t off = 0;

			/* A caller's object: that of the context that is the rest of this
			 * chain (the caller's own, when it was not cut), else that of any
			 * context of the function. */
			if (i == 0) {
				obj = leaf_obj;
			} else if (pmc_hashmap_get(&g->chain_obj, name, &oi) == 0) {
				obj = g->objs.v[oi];
			} else {
				char *nm = strndup(name, len);

				if (!nm) {
					r = -ENOMEM;
					break;
				}
				if (pmc_hashmap_get(&g->name_obj, nm, &oi) == 0)
					obj = g->objs.v[oi];
				free(nm);
			}
			if (!unknown_fn(name, len, &off) && !(sym = strndup(name, len)))
				r = -ENOMEM;
			if (r == 0)
				r = pmc_profile_frame_id(p, sym, obj, off, &frames[depth - 1 - i]);
			free(sym);
		}
		free(leaf_obj);
		/* A whole chain ends at a root, a function that also ran with no caller at
		 * all (the entry point, a thread's start): one that does not was cut at N
		 * callers, or callgrind lost track of the stack (longjmp, signals). */
		truncated = flat || !pmc_hashmap_has(&g->chain_obj, st[depth - 1]);
		if (r == 0)
			r = pmc_profile_add(p, frames, depth, x->weight, 0, truncated);
		free(heap);
	}
	free(frames);
	return r;
}

int pmc_callgrind_profile(const char *const *files, size_t n, const char *event, const char *name,
			  struct pmc_profile **ret, char *err, size_t errlen)
{
	struct cg g = {0};
	struct pmc_profile *p = NULL;
	struct pmc_profile_info info;
	int r;

	if (!files || n == 0 || !event || !*event || !ret)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (!files[i])
			return -EINVAL;
		r = read_file(&g, files[i], event, err, errlen);
		if (r < 0)
			goto fail_read;
	}
	info = (struct pmc_profile_info){
	    .kind = PMC_PROFILE_EXACT,
	    .event = event,
	    .unit = strcmp(event, "Ir") == 0 ? "instructions" : "events",
	    .name = name,
	};
	r = pmc_profile_new(&info, &p);
	if (r < 0)
		goto fail_read;
	r = build(&g, p);
	if (r == -EOVERFLOW)
		pmc_err_set(err, errlen, "%s: the %s costs of the files pass 2^64 - 1", files[0],
			    event);
	if (r < 0)
		goto fail_build;
	cg_free(&g);
	*ret = p;
	return 0;
fail_build:
	pmc_profile_free(p);
fail_read:
	cg_free(&g);
	return r;
}

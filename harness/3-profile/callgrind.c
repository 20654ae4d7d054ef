/* Exact profiles from callgrind's output (docs/profile.md, "Exact profiles (valgrind)").
 *
 * With --separate-callers=N callgrind keeps a function's cost apart for each chain of up
 * to N callers, and names each such context "leaf'caller'caller's caller'..." in its fn=
 * lines (valgrind manual, callgrind "Avoiding cycles"; the writer is print_mangled_fn in
 * callgrind/dump.c). The cost lines under a fn= line are that context's self cost, so a
 * context reversed is a stack, its self cost is the stack's weight, and the weights of
 * all stacks add up to the file's "totals:" line exactly (checked per part below).
 *
 * The format (valgrind manual, "Callgrind Format Specification"): name compression
 * "spec=(id) name" defines an id, "spec=(id)" uses it; fn=, cfn=, jfn= and frfn= share
 * one table, ob= and cob= another. The cost line after a calls= line is the inclusive
 * cost of the call, already counted as the callee's self cost, and is skipped; so is the
 * position line after jump= and jcnd=.
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

struct fdef {
	char *key;  /* "(id)" or the name itself when the file does not compress names */
	char *text; /* the context: "leaf'caller'..." */
	uint64_t weight;
	size_t ob;   /* object of the weight; SIZE_MAX: none yet */
	bool costed; /* cost lines were read for it (maybe all 0 for this event) */
};

struct cgf {
	struct cg *g;
	const char *path, *event;
	unsigned line;
	char *err;
	size_t errlen;
	struct pmc_hashmap fn_ids, ob_ids; /* key -> index into fns / object index */
	struct fdef *fns;
	size_t nfns, fns_cap;
	struct strlist ob_keys;
	size_t npos;	       /* subpositions at the start of a cost line */
	long col;	       /* column of the event; -1: not in this part */
	size_t ncolumns;       /* events of this part */
	size_t cur_fn, cur_ob; /* SIZE_MAX: none */
	bool have_events, in_part, skip_next;
	uint64_t part_sum;
};

static int bad(struct cgf *f, const char *what, const char *text)
{
	char q[PMC_QUOTE_SIZE(80)];

	pmc_err_set(f->err, f->errlen, "%s:%u: %s: \"%s\"; is it callgrind's output?", f->path,
		    f->line, what, pmc_quote(q, sizeof(q), text));
	return -EINVAL;
}

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

/* "(id) name", "(id)" or "name" after "spec=". Returns 0 with the key ("(id)" or the
 * name) and the name (NULL for a bare reference), or -EINVAL. */
static int split_name(struct cgf *f, const char *s, const char **key, size_t *keylen,
		      const char **name)
{
	while (*s == ' ' || *s == '\t')
		s++;
	if (s[0] == '(' && isdigit((unsigned char)s[1])) {
		const char *p = s + 1;

		while (isdigit((unsigned char)*p))
			p++;
		if (*p != ')')
			return bad(f, "a compressed name without its ')'", s);
		*key = s;
		*keylen = (size_t)(p + 1 - s);
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		*name = *p ? p : NULL;
		return 0;
	}
	if (!*s)
		return bad(f, "an empty name", s);
	*key = *name = s;
	*keylen = strlen(s);
	return 0;
}

/* A function position: defines or looks up the context; sets *ret to its index. */
static int fn_spec(struct cgf *f, const char *s, size_t *ret)
{
	const char *key, *name;
	size_t keylen, idx;
	char *k;
	int r;

	r = split_name(f, s, &key, &keylen, &name);
	if (r < 0)
		return r;
	k = strndup(key, keylen);
	if (!k)
		return -ENOMEM;
	if (pmc_hashmap_get(&f->fn_ids, k, &idx) == 0) {
		free(k);
		/* A redefinition must not change the context: costs already read are its. */
		if (name && strcmp(name, f->fns[idx].text) != 0)
			return bad(f, "a compressed name defined twice", s);
		*ret = idx;
		return 0;
	}
	if (!name) {
		free(k);
		return bad(f, "a compressed name used before its definition", s);
	}
	if (pmc_grow_to(&f->fns, &f->fns_cap, f->nfns + 1, sizeof(*f->fns)) < 0) {
		free(k);
		return -ENOMEM;
	}
	f->fns[f->nfns] = (struct fdef){.key = k, .text = strdup(name), .ob = SIZE_MAX};
	if (!f->fns[f->nfns].text) {
		free(k);
		return -ENOMEM;
	}
	f->nfns++;
	if (pmc_hashmap_put(&f->fn_ids, k, f->nfns - 1) < 0)
		return -ENOMEM;
	*ret = f->nfns - 1;
	return 0;
}

/* An object position: sets *ret to the object's index. */
static int ob_spec(struct cgf *f, const char *s, size_t *ret)
{
	const char *key, *name;
	size_t keylen, idx;
	char *k;
	int r;

	r = split_name(f, s, &key, &keylen, &name);
	if (r < 0)
		return r;
	k = strndup(key, keylen);
	if (!k)
		return -ENOMEM;
	if (pmc_hashmap_get(&f->ob_ids, k, &idx) == 0) {
		free(k);
		if (name && strcmp(name, f->g->objs.v[idx]) != 0 &&
		    !(strcmp(name, "???") == 0 && strcmp(f->g->objs.v[idx], "[unknown]") == 0))
			return bad(f, "a compressed name defined twice", s);
		*ret = idx;
		return 0;
	}
	if (!name) {
		free(k);
		return bad(f, "a compressed name used before its definition", s);
	}
	r = obj_intern(f->g, name, strlen(name), &idx);
	if (r == 0)
		r = strlist_add(&f->ob_keys, k);
	if (r < 0) {
		free(k);
		return r;
	}
	if (pmc_hashmap_put(&f->ob_ids, k, idx) < 0)
		return -ENOMEM;
	*ret = idx;
	return 0;
}

/* A cost line: subpositions, then up to one cost per event. Sets *ret to the event's. */
static int cost_line(struct cgf *f, const char *s, size_t npos, uint64_t *ret)
{
	const char *tok, *line = s;
	size_t len, i = 0;
	uint64_t v = 0, mine = 0;

	while ((tok = pmc_vgf_token(&s, &len))) {
		if (i < npos) {
			if (pmc_vgf_subposition(tok, len) < 0)
				return bad(f, "not a position", line);
		} else {
			int r = pmc_vgf_count(tok, len, &v);

			if (r == -EOVERFLOW) {
				pmc_err_set(f->err, f->errlen, "%s:%u: a cost above 2^64 - 1",
					    f->path, f->line);
				return r;
			}
			if (r < 0)
				return bad(f, "not a cost", line);
			if (i - npos >= f->ncolumns)
				return bad(f, "more costs than events", line);
			if ((long)(i - npos) == f->col)
				mine = v;
		}
		i++;
	}
	if (i < npos)
		return bad(f, "a cost line without its position", line);
	*ret = mine;
	return 0;
}

static int events_line(struct cgf *f, const char *s)
{
	const char *tok;
	size_t len;

	if (f->in_part)
		return bad(f, "a new 'events:' line before the part's 'totals:' line", s);
	f->col = -1;
	f->ncolumns = 0;
	while ((tok = pmc_vgf_token(&s, &len))) {
		if (strlen(f->event) == len && memcmp(tok, f->event, len) == 0 && f->col < 0)
			f->col = (long)f->ncolumns;
		f->ncolumns++;
	}
	if (f->ncolumns == 0)
		return bad(f, "an empty 'events:' line", s);
	if (f->col < 0) {
		char q[PMC_QUOTE_SIZE(40)];

		pmc_err_set(f->err, f->errlen,
			    "%s:%u: no event \"%s\" in the 'events:' line; profile one of its "
			    "events, or run callgrind with the simulation that counts it",
			    f->path, f->line, pmc_quote(q, sizeof(q), f->event));
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
		return bad(f, "a 'totals:' line outside a part", s);
	r = cost_line(f, s, 0, &v);
	if (r < 0)
		return r;
	f->in_part = false;
	if (v != f->part_sum) {
		pmc_err_set(f->err, f->errlen,
			    "%s:%u: the %s costs add up to %llu but 'totals:' says %llu; the file "
			    "is damaged",
			    f->path, f->line, f->event, (unsigned long long)f->part_sum,
			    (unsigned long long)v);
		return -EINVAL;
	}
	return 0;
}

static bool spec(const char *line, const char *name, const char **rest)
{
	size_t n = strlen(name);

	if (strncmp(line, name, n) == 0 && line[n] == '=') {
		*rest = line + n + 1;
		return true;
	}
	return false;
}

static int body_line(struct cgf *f, char *line)
{
	const char *rest;
	uint64_t v;
	size_t idx;
	int r;

	if (spec(line, "fn", &rest)) {
		r = fn_spec(f, rest, &idx);
		if (r == 0)
			f->cur_fn = idx;
		return r;
	}
	if (spec(line, "cfn", &rest) || spec(line, "jfn", &rest) || spec(line, "frfn", &rest))
		return fn_spec(f, rest, &idx);
	if (spec(line, "ob", &rest)) {
		r = ob_spec(f, rest, &idx);
		if (r == 0)
			f->cur_ob = idx;
		return r;
	}
	if (spec(line, "cob", &rest))
		return ob_spec(f, rest, &idx);
	/* Source files: the profile is per function, so only the form matters. */
	if (spec(line, "fl", &rest) || spec(line, "fi", &rest) || spec(line, "fe", &rest) ||
	    spec(line, "cfi", &rest) || spec(line, "cfl", &rest) || spec(line, "jfi", &rest)) {
		const char *key, *name;
		size_t keylen;

		return split_name(f, rest, &key, &keylen, &name);
	}
	if (spec(line, "calls", &rest) || spec(line, "jump", &rest) || spec(line, "jcnd", &rest)) {
		/* The next line is the call's inclusive cost (calls=) or the jump's source
		 * position (jump=, jcnd=): never self cost. */
		f->skip_next = true;
		return 0;
	}
	if (spec(line, "ln", &rest) || spec(line, "rec", &rest))
		return 0;
	if (isdigit((unsigned char)line[0]) || line[0] == '+' || line[0] == '-' || line[0] == '*') {
		if (!f->in_part)
			return bad(f, "a cost line before the 'events:' line", line);
		r = cost_line(f, line, f->npos, &v);
		if (r < 0)
			return r;
		if (f->skip_next) {
			f->skip_next = false;
			return 0;
		}
		if (f->cur_fn == SIZE_MAX)
			return bad(f, "a cost line before any 'fn=' line", line);
		{
			struct fdef *d = &f->fns[f->cur_fn];

			if (d->ob != f->cur_ob && d->weight > 0) {
				r = flush(f, d);
				if (r < 0)
					return r;
			}
			d->ob = f->cur_ob;
			d->costed = true;
			if (__builtin_add_overflow(d->weight, v, &d->weight) ||
			    __builtin_add_overflow(f->part_sum, v, &f->part_sum)) {
				pmc_err_set(f->err, f->errlen, "%s:%u: the %s costs pass 2^64 - 1",
					    f->path, f->line, f->event);
				return -EOVERFLOW;
			}
		}
		return 0;
	}
	return bad(f, "not a line of callgrind's format", line);
}

static int header_line(struct cgf *f, char *line, bool *handled)
{
	const char *p = line;

	*handled = true;
	if (pmc_vgf_starts_with(line, "events:"))
		return events_line(f, line + strlen("events:"));
	if (pmc_vgf_starts_with(line, "totals:"))
		return totals_line(f, line + strlen("totals:"));
	if (pmc_vgf_starts_with(line, "positions:")) {
		const char *s = line + strlen("positions:"), *tok;
		size_t len;

		f->npos = 0;
		while ((tok = pmc_vgf_token(&s, &len))) {
			if (!((len == 5 && memcmp(tok, "instr", 5) == 0) ||
			      (len == 4 && memcmp(tok, "line", 4) == 0) ||
			      (len == 2 && memcmp(tok, "bb", 2) == 0)))
				return bad(f, "an unknown position", line);
			f->npos++;
		}
		return 0;
	}
	/* Any other "key: value" header line (version, creator, pid, cmd, part, desc,
	 * summary, event): nothing the stacks need. */
	if (isalpha((unsigned char)*p)) {
		while (isalnum((unsigned char)*p) || *p == '_')
			p++;
		if (*p == ':')
			return 0;
	}
	*handled = false;
	return 0;
}

static void cgf_free(struct cgf *f)
{
	for (size_t i = 0; i < f->nfns; i++) {
		free(f->fns[i].key);
		free(f->fns[i].text);
	}
	free(f->fns);
	strlist_free(&f->ob_keys);
	pmc_hashmap_free(&f->fn_ids);
	pmc_hashmap_free(&f->ob_ids);
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
	bool newline = true, handled;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *fp;
	int r = 0;

	fp = fopen(path, "re");
	if (!fp) {
		r = -errno;
		pmc_err_set(err, errlen, "%s: cannot open: %s", path, strerror(-r));
		return r;
	}
	while ((len = getline(&line, &cap, fp)) > 0) {
		f.line++;
		newline = line[len - 1] == '\n';
		if (!newline)
			break; /* a cut line is not read: "events: I" is not a missing "Ir" */
		line[--len] = '\0';
		if (len > 0 && line[len - 1] == '\r')
			line[--len] = '\0';
		if (line[0] == '\0' || line[0] == '#')
			continue;
		r = header_line(&f, line, &handled);
		if (r == 0 && !handled)
			r = body_line(&f, line);
		if (r < 0)
			goto out;
	}
	if (ferror(fp)) {
		r = -EIO;
		pmc_err_set(err, errlen, "%s: read error", path);
		goto out;
	}
	r = -EINVAL;
	if (f.line == 0)
		pmc_err_set(err, errlen, "%s: empty file", path);
	else if (!newline)
		pmc_err_set(err, errlen, "%s:%u: truncated: the last line is incomplete", path,
			    f.line);
	else if (!f.have_events)
		pmc_err_set(err, errlen, "%s: no 'events:' line; is it callgrind's output?", path);
	else if (f.in_part || f.skip_next)
		pmc_err_set(err, errlen, "%s: no 'totals:' line at the end (truncated file?)",
			    path);
	else
		r = 0;
	for (size_t i = 0; r == 0 && i < f.nfns; i++)
		r = flush(&f, &f.fns[i]);
out:
	free(line);
	fclose(fp);
	cgf_free(&f);
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

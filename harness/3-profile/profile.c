/* The profile model (profile.h, docs/profile.md): interned frames and stacks, and the
 * views every reader shares (functions, diff, attribution). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hashmap.h"
#include "profile/names.h"
#include "profile/profile.h"
#include "profile/profile_lines.h"

/* Strings, frame sequences and hash keys live in blocks that never move, so that the
 * hash maps may borrow their keys and the stacks' frame pointers stay valid; each block
 * is twice the size of the previous one (geometric growth, few allocations). */
struct block {
	struct block *next;
	size_t used, cap;
	_Alignas(8) unsigned char data[];
};

struct arena {
	struct block *head;
	size_t next_cap;
};

static void *arena_alloc(struct arena *a, size_t n)
{
	struct block *b = a->head;

	n = (n + 7) & ~(size_t)7;
	if (!b || b->cap - b->used < n) {
		size_t cap = a->next_cap ? a->next_cap : 4096;

		while (cap < n)
			cap *= 2;
		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->next = a->head;
		b->used = 0;
		b->cap = cap;
		a->head = b;
		a->next_cap = cap < ((size_t)64 << 20) ? cap * 2 : cap;
	}
	b->used += n;
	return b->data + b->used - n;
}

/* Gives back the last allocation of n bytes (a key that was already interned). */
static void arena_unalloc(struct arena *a, size_t n)
{
	a->head->used -= (n + 7) & ~(size_t)7;
}

static void arena_free(struct arena *a)
{
	while (a->head) {
		struct block *next = a->head->next;

		free(a->head);
		a->head = next;
	}
}

struct pmc_profile {
	struct pmc_profile_info info;
	struct arena arena;
	struct pmc_hashmap strings;   /* symbol and object text -> unused */
	struct pmc_hashmap symbols;   /* a symbol as given -> its name here (names.h) */
	const char *below_main;	      /* the interned PMC_PROFILE_BELOW_MAIN, once used */
	struct pmc_hashmap frame_ids; /* frame key -> id */
	struct pmc_hashmap stack_ids; /* stack key -> index */
	struct pmc_hashmap task_ids;  /* task key -> id */
	struct pmc_profile_task *tasks;
	size_t ntasks, tasks_cap;
	struct pmc_profile_frame *frames;
	size_t nframes, frames_cap;
	struct pmc_profile_stack *stacks;
	size_t nstacks, stacks_cap;
	uint64_t total;
	struct pmc_profile_lines *lines; /* NULL: no source-line table (profile_lines.h) */
};

static char *dup_or_null(const char *s, int *rc)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*rc = -ENOMEM;
	return d;
}

int pmc_profile_new(const struct pmc_profile_info *info, struct pmc_profile **ret)
{
	struct pmc_profile *p;
	int rc = 0;

	if (!info || !info->event || !info->unit || !ret ||
	    (info->kind != PMC_PROFILE_SAMPLED && info->kind != PMC_PROFILE_EXACT))
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->info = *info;
	p->info.event = dup_or_null(info->event, &rc);
	p->info.unit = dup_or_null(info->unit, &rc);
	p->info.name = dup_or_null(info->name, &rc);
	if (rc < 0) {
		pmc_profile_free(p);
		return rc;
	}
	*ret = p;
	return 0;
}

void pmc_profile_free(struct pmc_profile *p)
{
	if (!p)
		return;
	free((char *)p->info.event);
	free((char *)p->info.unit);
	free((char *)p->info.name);
	pmc_hashmap_free(&p->strings);
	pmc_hashmap_free(&p->symbols);
	pmc_hashmap_free(&p->frame_ids);
	pmc_hashmap_free(&p->stack_ids);
	pmc_hashmap_free(&p->task_ids);
	free(p->tasks);
	free(p->frames);
	free(p->stacks);
	pmc_profile_lines_free(p->lines);
	arena_free(&p->arena);
	free(p);
}

const struct pmc_profile_info *pmc_profile_info(const struct pmc_profile *p)
{
	return &p->info;
}

void pmc_profile_set_throttled(struct pmc_profile *p, uint64_t throttled)
{
	p->info.throttled = throttled;
}

void pmc_profile_set_partial(struct pmc_profile *p, bool partial)
{
	p->info.partial = partial;
}

struct pmc_profile_lines *pmc_profile_lines(const struct pmc_profile *p)
{
	return p->lines;
}

void pmc_profile_set_lines(struct pmc_profile *p, struct pmc_profile_lines *t)
{
	if (p->lines != t)
		pmc_profile_lines_free(p->lines);
	p->lines = t;
}

void pmc_profile_set_counts(struct pmc_profile *p, uint64_t samples, uint64_t lost,
			    uint64_t unresolved)
{
	p->info.samples = samples;
	p->info.lost = lost;
	p->info.unresolved = unresolved;
}

/* The one copy of s (object paths and symbols repeat in many frames); the map's value is
 * the copy's address, since get() gives values, not keys. */
static const char *intern_str(struct pmc_profile *p, const char *s)
{
	size_t v;
	char *copy;
	size_t n;

	if (pmc_hashmap_get(&p->strings, s, &v) == 0)
		return (const char *)(uintptr_t)v;
	n = strlen(s) + 1;
	copy = arena_alloc(&p->arena, n);
	if (!copy)
		return NULL;
	memcpy(copy, s, n);
	if (pmc_hashmap_put(&p->strings, copy, (size_t)(uintptr_t)copy) < 0)
		return NULL;
	return copy;
}

/* The interned name of a symbol as a backend gave it (names.h), worked out once per
 * distinct symbol: the sampler names every frame of every sample. */
static const char *intern_symbol(struct pmc_profile *p, const char *symbol)
{
	const char *name, *key;
	char *made;
	size_t v;

	if (pmc_hashmap_get(&p->symbols, symbol, &v) == 0)
		return (const char *)(uintptr_t)v;
	if (pmc_profile_symbol_name(symbol, &made) < 0)
		return NULL;
	name = intern_str(p, made ? made : symbol);
	key = made ? intern_str(p, symbol) : name;
	free(made);
	if (!name || !key || pmc_hashmap_put(&p->symbols, key, (size_t)(uintptr_t)name) < 0)
		return NULL;
	if (!strcmp(name, PMC_PROFILE_BELOW_MAIN))
		p->below_main = name;
	return name;
}

/* Writes id into a key with no NUL byte: six bits a byte, the last byte marked with
 * 0x80 (the others are 1..64), so that ids are self-delimiting. */
static size_t put_id(unsigned char *k, uint64_t id)
{
	size_t n = 0;

	while (id >= 64) {
		k[n++] = (unsigned char)(1 + (id & 63));
		id >>= 6;
	}
	k[n++] = (unsigned char)(0x80 | id);
	return n;
}

int pmc_profile_frame_id(struct pmc_profile *p, const char *symbol, const char *object,
			 uint64_t offset, uint32_t *ret_id)
{
	const char *sym = NULL, *obj;
	unsigned char *key;
	size_t klen, id;
	int rc;

	if (!p || !object || !ret_id || (symbol && !*symbol))
		return -EINVAL;
	if (!symbol && offset > PMC_PROFILE_OFFSET_MAX)
		return -ERANGE;
	if (p->nframes >= UINT32_MAX)
		return -ENOMEM;
	/* Room first, so that a frame in the map always has its entry in the array. */
	if (pmc_grow_to(&p->frames, &p->frames_cap, p->nframes + 1, sizeof(*p->frames)) < 0)
		return -ENOMEM;
	obj = intern_str(p, object);
	if (!obj)
		return -ENOMEM;
	if (symbol) {
		sym = intern_symbol(p, symbol);
		if (!sym)
			return -ENOMEM;
		offset = 0;
	}
	/* Key: 's' or 'u', then the interned pointers (or the offset) as ids. */
	key = arena_alloc(&p->arena, 1 + 2 * 11 + 1);
	if (!key)
		return -ENOMEM;
	klen = 0;
	key[klen++] = sym ? 's' : 'u';
	klen += put_id(key + klen, (uint64_t)(uintptr_t)obj);
	klen += put_id(key + klen, sym ? (uint64_t)(uintptr_t)sym : offset);
	key[klen] = 0;
	rc = pmc_hashmap_get_or_put(&p->frame_ids, (const char *)key, p->nframes, &id);
	if (rc <= 0)
		arena_unalloc(&p->arena, 1 + 2 * 11 + 1);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		*ret_id = (uint32_t)id;
		return 0;
	}
	p->frames[p->nframes] =
	    (struct pmc_profile_frame){.symbol = sym, .object = obj, .offset = offset};
	*ret_id = (uint32_t)p->nframes++;
	return 0;
}

int pmc_profile_task_id(struct pmc_profile *p, uint32_t pid, uint32_t tid, const char *comm,
			uint32_t *ret_id)
{
	const char *c = NULL;
	unsigned char *key;
	size_t klen = 0, id;
	int rc;

	if (!p || !ret_id || (comm && !*comm))
		return -EINVAL;
	if (pmc_grow_to(&p->tasks, &p->tasks_cap, p->ntasks + 1, sizeof(*p->tasks)) < 0 ||
	    (comm && !(c = intern_str(p, comm))))
		return -ENOMEM;
	/* Key: pid, tid and the interned comm (0: none) as ids. */
	key = arena_alloc(&p->arena, 3 * 11 + 1);
	if (!key)
		return -ENOMEM;
	klen += put_id(key + klen, pid);
	klen += put_id(key + klen, tid);
	klen += put_id(key + klen, (uint64_t)(uintptr_t)c);
	key[klen] = 0;
	rc = pmc_hashmap_get_or_put(&p->task_ids, (const char *)key, p->ntasks, &id);
	if (rc <= 0)
		arena_unalloc(&p->arena, 3 * 11 + 1);
	if (rc < 0)
		return rc;
	if (rc == 1)
		p->tasks[p->ntasks++] =
		    (struct pmc_profile_task){.pid = pid, .tid = tid, .comm = c};
	*ret_id = (uint32_t)id;
	return 0;
}

size_t pmc_profile_task_count(const struct pmc_profile *p)
{
	return p->ntasks;
}

const struct pmc_profile_task *pmc_profile_task(const struct pmc_profile *p, uint32_t id)
{
	return id < p->ntasks ? &p->tasks[id] : NULL;
}

int pmc_profile_add(struct pmc_profile *p, const uint32_t *frames, uint32_t depth, uint64_t weight,
		    uint64_t samples, bool truncated)
{
	return pmc_profile_add_task(p, frames, depth, PMC_PROFILE_NO_TASK, weight, samples,
				    truncated);
}

int pmc_profile_add_task(struct pmc_profile *p, const uint32_t *frames, uint32_t depth,
			 uint32_t task, uint64_t weight, uint64_t samples, bool truncated)
{
	size_t kmax, fbytes, klen = 0, idx;
	unsigned char *key;
	uint32_t *copy;
	int rc;

	if (!p || !frames || depth == 0 || (task != PMC_PROFILE_NO_TASK && task >= p->ntasks))
		return -EINVAL;
	for (uint32_t i = 0; i < depth; i++)
		if (frames[i] >= p->nframes)
			return -EINVAL;
	/* Whatever ran main is one root whichever part of it a backend saw (names.h): the
	 * frames under the last "(below main)" are left out. A stack that reaches it is
	 * whole, even when its unwind ended further down (a DWARF stack copy that ends
	 * inside __libc_start_main): what was cut is what is left out anyway. */
	if (p->below_main)
		for (uint32_t i = depth; i-- > 0;)
			if (p->frames[frames[i]].symbol == p->below_main) {
				frames += i;
				depth -= i;
				truncated = false;
				break;
			}
	if (p->total + weight < p->total)
		return -EOVERFLOW;
	if (pmc_grow_to(&p->stacks, &p->stacks_cap, p->nstacks + 1, sizeof(*p->stacks)) < 0)
		return -ENOMEM;
	/* The frames and the key in one allocation: the frames (aligned) first. */
	fbytes = (size_t)depth * sizeof(*copy);
	kmax = (size_t)depth * 6 + 1 + 7;
	copy = arena_alloc(&p->arena, fbytes + kmax);
	if (!copy)
		return -ENOMEM;
	key = (unsigned char *)copy + fbytes;
	/* A kept task leads the key, after 'T', a byte no id is written with. */
	if (task != PMC_PROFILE_NO_TASK) {
		key[klen++] = 'T';
		klen += put_id(key + klen, task);
	}
	for (uint32_t i = 0; i < depth; i++)
		klen += put_id(key + klen, frames[i]);
	key[klen] = 0;
	rc = pmc_hashmap_get_or_put(&p->stack_ids, (const char *)key, p->nstacks, &idx);
	if (rc <= 0)
		arena_unalloc(&p->arena, fbytes + kmax);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		struct pmc_profile_stack *s = &p->stacks[idx];

		if (s->weight + weight < s->weight || s->samples + samples < s->samples)
			return -EOVERFLOW;
		s->weight += weight;
		s->samples += samples;
		s->truncated = s->truncated || truncated;
		p->total += weight;
		return 0;
	}
	/* Nothing was allocated after the new key: give back the room it did not use
	 * (the same address comes out again). */
	arena_unalloc(&p->arena, fbytes + kmax);
	arena_alloc(&p->arena, fbytes + klen + 1);
	memcpy(copy, frames, (size_t)depth * sizeof(*copy));
	p->stacks[p->nstacks++] = (struct pmc_profile_stack){.frames = copy,
							     .depth = depth,
							     .weight = weight,
							     .samples = samples,
							     .truncated = truncated,
							     .task = task};
	p->total += weight;
	return 0;
}

size_t pmc_profile_frame_count(const struct pmc_profile *p)
{
	return p->nframes;
}

const struct pmc_profile_frame *pmc_profile_frame(const struct pmc_profile *p, uint32_t id)
{
	return id < p->nframes ? &p->frames[id] : NULL;
}

size_t pmc_profile_stack_count(const struct pmc_profile *p)
{
	return p->nstacks;
}

const struct pmc_profile_stack *pmc_profile_stack(const struct pmc_profile *p, size_t i)
{
	return i < p->nstacks ? &p->stacks[i] : NULL;
}

uint64_t pmc_profile_total(const struct pmc_profile *p)
{
	return p->total;
}

uint64_t pmc_profile_samples(const struct pmc_profile *p)
{
	uint64_t n = 0;

	/* No overflow: pmc_profile_add refuses a stack's count that would wrap, and a
	 * profile holds fewer samples than 2^64 in any run. */
	for (size_t i = 0; i < p->nstacks; i++)
		n += p->stacks[i].samples;
	return n;
}

uint64_t pmc_profile_truncated(const struct pmc_profile *p)
{
	uint64_t w = 0;

	/* No overflow: the weights of all stacks add up to total, which fits. */
	for (size_t i = 0; i < p->nstacks; i++)
		if (p->stacks[i].truncated)
			w += p->stacks[i].weight;
	return w;
}

/* A frame's display name into buf (snprintf's return): the symbol; a pseudo-object
 * ("[kernel]", "[vdso]", "[anon]", "[unknown]") as itself, since its offsets name no
 * place in a file; else the object's base name and the offset, one row per address as
 * perf shows them. */
static int format_name(const struct pmc_profile_frame *f, char *buf, size_t len)
{
	const char *base;

	if (f->symbol)
		return snprintf(buf, len, "%s", f->symbol);
	if (f->object[0] == '[')
		return snprintf(buf, len, "%s", f->object);
	base = strrchr(f->object, '/');
	base = base && base[1] ? base + 1 : f->object;
	return snprintf(buf, len, "%s+0x%" PRIx64, base, f->offset);
}

const char *pmc_profile_frame_name(const struct pmc_profile *p, uint32_t id, char *buf, size_t len)
{
	const struct pmc_profile_frame *f = pmc_profile_frame(p, id);

	if (!len)
		return buf;
	if (!f)
		snprintf(buf, len, "[unknown]");
	else
		format_name(f, buf, len);
	return buf;
}

/* ---- Views by display name ------------------------------------------------------- */

/* The display name of frame f as a new string. */
static char *display_name(const struct pmc_profile_frame *f)
{
	int n = format_name(f, NULL, 0);
	char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;

	if (s)
		format_name(f, s, (size_t)n + 1);
	return s;
}

void pmc_profile_functions_free(struct pmc_profile_fn *fns, size_t n)
{
	if (!fns)
		return;
	for (size_t i = 0; i < n; i++)
		free(fns[i].name);
	free(fns);
}

static int fn_cmp(const void *a, const void *b)
{
	const struct pmc_profile_fn *x = a, *y = b;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

int pmc_profile_functions(const struct pmc_profile *p, struct pmc_profile_fn **ret, size_t *ret_n)
{
	struct pmc_hashmap byname = {0};
	struct pmc_profile_fn *fns = NULL;
	size_t *fn_of = NULL, *seen = NULL;
	size_t n = 0;
	int rc = -ENOMEM;

	if (!p || !ret || !ret_n)
		return -EINVAL;
	fn_of = malloc((p->nframes + 1) * sizeof(*fn_of));
	fns = calloc(p->nframes + 1, sizeof(*fns));
	if (!fn_of || !fns || pmc_hashmap_init(&byname, p->nframes) < 0)
		goto out;
	/* Frames with one display name (one symbol in two objects, the unresolved
	 * addresses of one object) are one function. */
	for (size_t i = 0; i < p->nframes; i++) {
		char *name = display_name(&p->frames[i]);
		size_t idx;
		int r;

		if (!name)
			goto out;
		r = pmc_hashmap_get_or_put(&byname, name, n, &idx);
		if (r < 0) {
			free(name);
			goto out;
		}
		if (r == 1) {
			fns[n].name = name;
			/* The object of the function's first frame (the lowest id). */
			fns[n].object = (char *)p->frames[i].object;
			n++;
		} else {
			free(name);
		}
		fn_of[i] = idx;
	}
	seen = malloc((n + 1) * sizeof(*seen));
	if (!seen)
		goto out;
	for (size_t f = 0; f < n; f++)
		seen[f] = SIZE_MAX;
	for (size_t s = 0; s < p->nstacks; s++) {
		const struct pmc_profile_stack *st = &p->stacks[s];

		fns[fn_of[st->frames[st->depth - 1]]].self += st->weight;
		fns[fn_of[st->frames[st->depth - 1]]].self_samples += st->samples;
		/* A recursive function is on the stack once for its total. */
		for (uint32_t d = 0; d < st->depth; d++) {
			size_t f = fn_of[st->frames[d]];

			if (seen[f] != s) {
				seen[f] = s;
				fns[f].total += st->weight;
			}
		}
	}
	/* A frame on no stack (one that "(below main)" took the place of) is no function. */
	size_t kept = 0;

	for (size_t f = 0; f < n; f++) {
		if (seen[f] != SIZE_MAX)
			fns[kept++] = fns[f];
		else
			free(fns[f].name);
	}
	n = kept;
	if (n)
		qsort(fns, n, sizeof(*fns), fn_cmp);
	*ret = fns;
	*ret_n = n;
	fns = NULL;
	rc = 0;
out:
	if (fns)
		for (size_t i = 0; i < n; i++)
			free(fns[i].name);
	free(fns);
	free(seen);
	free(fn_of);
	pmc_hashmap_free(&byname);
	return rc;
}

void pmc_profile_deltas_free(struct pmc_profile_delta *d, size_t n)
{
	if (!d)
		return;
	for (size_t i = 0; i < n; i++)
		free(d[i].name);
	free(d);
}

static int delta_abs_cmp(const void *a, const void *b)
{
	const struct pmc_profile_delta *x = a, *y = b;
	double ax = fabs(x->delta), ay = fabs(y->delta);

	if (ax != ay)
		return ax > ay ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* By the change of self weight, largest first (two exact profiles of one event). */
static int delta_count_cmp(const void *a, const void *b)
{
	const struct pmc_profile_delta *x = a, *y = b;
	uint64_t ax =
	    x->new_self > x->old_self ? x->new_self - x->old_self : x->old_self - x->new_self;
	uint64_t ay =
	    y->new_self > y->old_self ? y->new_self - y->old_self : y->old_self - y->new_self;

	if (ax != ay)
		return ax > ay ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int delta_part_cmp(const void *a, const void *b)
{
	const struct pmc_profile_delta *x = a, *y = b;

	if (x->delta != y->delta)
		return x->delta > y->delta ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Every function of either profile with its self weight and share on each side,
 * matched by display name; delta = new_share - old_share. Shares need a total: an empty
 * profile has none (-EINVAL). */
static int match(const struct pmc_profile *old_p, const struct pmc_profile *new_p,
		 bool allow_empty, struct pmc_profile_delta **ret, size_t *ret_n)
{
	struct pmc_profile_fn *of = NULL, *nf = NULL;
	size_t on = 0, nn = 0, n = 0;
	struct pmc_hashmap byname = {0};
	struct pmc_profile_delta *d = NULL;
	double ot, nt;
	int rc;

	if (!old_p || !new_p || !ret || !ret_n)
		return -EINVAL;
	if (!allow_empty && (!old_p->total || !new_p->total))
		return -EINVAL;
	/* An empty profile's functions all weigh 0: a share of 0 of a total taken as 1. */
	ot = old_p->total ? (double)old_p->total : 1;
	nt = new_p->total ? (double)new_p->total : 1;
	rc = pmc_profile_functions(old_p, &of, &on);
	if (rc < 0)
		goto out;
	rc = pmc_profile_functions(new_p, &nf, &nn);
	if (rc < 0)
		goto out;
	rc = -ENOMEM;
	d = calloc(on + nn + 1, sizeof(*d));
	if (!d || pmc_hashmap_init(&byname, on + nn) < 0)
		goto out;
	for (size_t i = 0; i < on; i++) {
		if (pmc_hashmap_put(&byname, of[i].name, n) < 0)
			goto out;
		d[n].name = of[i].name;
		of[i].name = NULL; /* moved */
		d[n].old_self = of[i].self;
		d[n].old_samples = of[i].self_samples;
		d[n].old_share = (double)of[i].self / ot;
		n++;
	}
	for (size_t i = 0; i < nn; i++) {
		size_t idx;

		if (pmc_hashmap_get(&byname, nf[i].name, &idx) < 0) {
			idx = n++;
			d[idx].name = nf[i].name;
			nf[i].name = NULL;
		}
		d[idx].new_self = nf[i].self;
		d[idx].new_samples = nf[i].self_samples;
		d[idx].new_share = (double)nf[i].self / nt;
	}
	for (size_t i = 0; i < n; i++)
		d[i].delta = d[i].new_share - d[i].old_share;
	*ret = d;
	*ret_n = n;
	d = NULL;
	rc = 0;
out:
	pmc_hashmap_free(&byname);
	pmc_profile_deltas_free(d, n);
	pmc_profile_functions_free(of, on);
	pmc_profile_functions_free(nf, nn);
	return rc;
}

bool pmc_profile_diff_absolute(const struct pmc_profile *old_p, const struct pmc_profile *new_p)
{
	return old_p && new_p && old_p->info.kind == PMC_PROFILE_EXACT &&
	       new_p->info.kind == PMC_PROFILE_EXACT &&
	       strcmp(old_p->info.event, new_p->info.event) == 0;
}

int pmc_profile_diff(const struct pmc_profile *old_p, const struct pmc_profile *new_p,
		     struct pmc_profile_delta **ret, size_t *ret_n)
{
	struct pmc_profile_delta *d;
	size_t n;
	int rc = match(old_p, new_p, true, &d, &n);

	if (rc < 0)
		return rc;
	qsort(d, n, sizeof(*d),
	      pmc_profile_diff_absolute(old_p, new_p) ? delta_count_cmp : delta_abs_cmp);
	*ret = d;
	*ret_n = n;
	return 0;
}

/* The 95% interval of a sampled share: Wilson's score interval of k samples among n
 * (Wilson 1927; it stays inside [0, 1] and is sound for k near 0 or n, where most
 * functions of a profile are), moved by the difference between the share of weight and
 * k / n (the same at a fixed sampling period), and clamped to [0, 1]. */
static void share_interval(double share, uint64_t k, uint64_t n, double *lo, double *hi)
{
	const double z = 1.959963984540054, z2 = z * z;
	double p, c, h;

	if (!n) {
		*lo = 0;
		*hi = 1;
		return;
	}
	p = (double)k / (double)n;
	c = (p + z2 / (2.0 * (double)n)) / (1.0 + z2 / (double)n);
	h = z / (1.0 + z2 / (double)n) *
	    sqrt(p * (1.0 - p) / (double)n + z2 / (4.0 * (double)n * (double)n));
	*lo = fmax(0.0, share - (p - (c - h)));
	*hi = fmin(1.0, share + (c + h - p));
}

/* The events a time profile samples and the metrics that measure time, without "/op"
 * or modifiers (docs/profile.md, "Profiles in the gate"). */
static const char *const time_events[] = {"cpu-clock", "task-clock", "cycles"};
static const char *const time_metrics[] = {"task-clock", "cpu-clock", "wall-time", "user-time",
					   "cycles"};
/* Callgrind's events and the metrics the valgrind backend reports for them. */
static const struct {
	const char *event, *metric;
} exact_events[] = {{"Ir", "instructions"}};

/* The length of an id without "/op" and without a modifier (":u", ":k", ...). */
static size_t base_len(const char *id)
{
	size_t n = strcspn(id, ":");

	if (n > 3 && strncmp(id + n - 3, "/op", 3) == 0)
		n -= 3;
	return n;
}

static bool in_list(const char *id, size_t len, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(list[i]) == len && strncmp(list[i], id, len) == 0)
			return true;
	return false;
}

enum pmc_profile_fit pmc_profile_fits_metric(const struct pmc_profile *p, const char *metric)
{
	size_t ml, el;
	const char *ev;

	if (!p || !metric)
		return PMC_PROFILE_FIT_NONE;
	ev = p->info.event;
	ml = base_len(metric);
	el = base_len(ev);
	if (p->info.kind == PMC_PROFILE_EXACT) {
		for (size_t i = 0; i < sizeof(exact_events) / sizeof(exact_events[0]); i++)
			if (strlen(exact_events[i].event) == el &&
			    strncmp(exact_events[i].event, ev, el) == 0 &&
			    strlen(exact_events[i].metric) == ml &&
			    strncmp(exact_events[i].metric, metric, ml) == 0)
				return PMC_PROFILE_FIT_EXACT;
		return PMC_PROFILE_FIT_NONE;
	}
	if (el == ml && strncmp(ev, metric, ml) == 0)
		return PMC_PROFILE_FIT_SAMPLED;
	if (in_list(ev, el, time_events, sizeof(time_events) / sizeof(time_events[0])) &&
	    in_list(metric, ml, time_metrics, sizeof(time_metrics) / sizeof(time_metrics[0])))
		return PMC_PROFILE_FIT_SAMPLED;
	return PMC_PROFILE_FIT_NONE;
}

int pmc_profile_attribute(const struct pmc_profile *old_p, const struct pmc_profile *new_p,
			  double old_value, double new_value, struct pmc_profile_delta **ret,
			  size_t *ret_n)
{
	struct pmc_profile_delta *d;
	double change = new_value - old_value;
	uint64_t on, nn;
	bool sampled;
	size_t n;
	int rc;

	if (!isfinite(old_value) || !isfinite(new_value) || !isfinite(change))
		return -EINVAL;
	if (change == 0)
		return -EDOM;
	rc = match(old_p, new_p, false, &d, &n);
	if (rc < 0)
		return rc;
	sampled =
	    old_p->info.kind == PMC_PROFILE_SAMPLED || new_p->info.kind == PMC_PROFILE_SAMPLED;
	on = pmc_profile_samples(old_p);
	nn = pmc_profile_samples(new_p);
	/* Each function's estimated amount of the metric is its share of the profile
	 * times the metric's total; its part is its amount's change over the total's. */
	for (size_t i = 0; i < n; i++) {
		struct pmc_profile_delta *x = &d[i];
		double ol, oh, nl, nh, a, b;

		x->delta = (x->new_share * new_value - x->old_share * old_value) / change;
		x->lo = x->hi = x->delta;
		x->clear = true;
		if (!sampled)
			continue;
		/* A side with an exact profile (one may be exact, the other sampled) has
		 * exact shares. */
		ol = oh = x->old_share;
		nl = nh = x->new_share;
		if (old_p->info.kind == PMC_PROFILE_SAMPLED)
			share_interval(x->old_share, x->old_samples, on, &ol, &oh);
		if (new_p->info.kind == PMC_PROFILE_SAMPLED)
			share_interval(x->new_share, x->new_samples, nn, &nl, &nh);
		/* The part is increasing in the new share and decreasing in the old one (for
		 * positive values): its bounds are at the shares' opposite bounds. */
		a = (nl * new_value - oh * old_value) / change;
		b = (nh * new_value - ol * old_value) / change;
		x->lo = fmin(a, b);
		x->hi = fmax(a, b);
		x->clear = x->old_samples + x->new_samples >= PMC_PROFILE_ATTRIBUTE_MIN_SAMPLES &&
			   (x->lo > 0 || x->hi < 0);
	}
	qsort(d, n, sizeof(*d), delta_part_cmp);
	*ret = d;
	*ret_n = n;
	return 0;
}

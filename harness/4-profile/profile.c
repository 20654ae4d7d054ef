/* The profile model (profile.h, docs/profile.md): interned frames and stacks, tasks and
 * the source-line table; its views (functions, diff, attribution) are in
 * profile_analysis.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hashmap.h"
#include "profile/names.h"
#include "profile/profile.h"
#include "profile/profile_lines.h"
#include "profile/profile_priv.h"

/* Strings, frame sequences and hash keys live in blocks that never move, so that the
 * hash maps may borrow their keys and the stacks' frame pointers stay valid; each block
 * is twice the size of the previous one (geometric growth, few allocations). */
struct block {
	struct block *next;
	size_t used, cap;
	_Alignas(8) unsigned char data[];
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

void pmc_profile_set_lost_known(struct pmc_profile *p, bool known)
{
	p->info.lost_unknown = !known;
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

void pmc_profile_set_timeline(struct pmc_profile *p, const struct pmc_profile_timeline *t)
{
	p->info.timeline = *t;
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

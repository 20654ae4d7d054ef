/* The string-keyed hash map (hashmap.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"

/* FNV-1a: short names and metric ids hash well and fast. */
static size_t hash_str(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)h;
}

int pmc_hashmap_init(struct pmc_hashmap *m, size_t expect)
{
	size_t cap = 16;

	while (cap < expect * 2)
		cap *= 2;
	memset(m, 0, sizeof(*m));
	m->keys = calloc(cap, sizeof(*m->keys));
	m->vals = calloc(cap, sizeof(*m->vals));
	if (!m->keys || !m->vals) {
		pmc_hashmap_free(m);
		return -ENOMEM;
	}
	m->cap = cap;
	return 0;
}

void pmc_hashmap_free(struct pmc_hashmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

void pmc_hashmap_clear(struct pmc_hashmap *m)
{
	if (m->keys)
		memset(m->keys, 0, m->cap * sizeof(*m->keys));
	m->n = 0;
}

/* The slot holding key, or the free slot where it would go; m->cap > 0. */
static size_t slot_of(const struct pmc_hashmap *m, const char *key)
{
	size_t i = hash_str(key) & (m->cap - 1);

	while (m->keys[i] && strcmp(m->keys[i], key) != 0)
		i = (i + 1) & (m->cap - 1);
	return i;
}

/* Keeps the table at most half full, so that probes stay short. */
static int reserve_one(struct pmc_hashmap *m)
{
	struct pmc_hashmap bigger;

	if (m->cap && (m->n + 1) * 2 <= m->cap)
		return 0;
	if (pmc_hashmap_init(&bigger, m->n + 1) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++) {
		if (m->keys[i]) {
			size_t s = slot_of(&bigger, m->keys[i]);

			bigger.keys[s] = m->keys[i];
			bigger.vals[s] = m->vals[i];
			bigger.n++;
		}
	}
	pmc_hashmap_free(m);
	*m = bigger;
	return 0;
}

int pmc_hashmap_get(const struct pmc_hashmap *m, const char *key, size_t *ret)
{
	size_t s;

	if (!m->cap)
		return -ENOENT;
	s = slot_of(m, key);
	if (!m->keys[s])
		return -ENOENT;
	*ret = m->vals[s];
	return 0;
}

bool pmc_hashmap_has(const struct pmc_hashmap *m, const char *key)
{
	return m->cap && m->keys[slot_of(m, key)];
}

int pmc_hashmap_get_or_put(struct pmc_hashmap *m, const char *key, size_t val, size_t *ret)
{
	size_t s;

	if (reserve_one(m) < 0)
		return -ENOMEM;
	s = slot_of(m, key);
	if (m->keys[s]) {
		if (ret)
			*ret = m->vals[s];
		return 0;
	}
	m->keys[s] = key;
	m->vals[s] = val;
	m->n++;
	if (ret)
		*ret = val;
	return 1;
}

int pmc_hashmap_put(struct pmc_hashmap *m, const char *key, size_t val)
{
	size_t s;

	if (reserve_one(m) < 0)
		return -ENOMEM;
	s = slot_of(m, key);
	if (!m->keys[s]) {
		m->keys[s] = key;
		m->n++;
	}
	m->vals[s] = val;
	return 0;
}

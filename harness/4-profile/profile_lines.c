/* The source-line table of a profile (profile_lines.h): entries found by (frame,
 * address) through a hash map of their keys, source file names kept once each. */
#include "profile/profile_lines.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hashmap.h"

struct entry {
	struct pmc_profile_line l;
	char *key; /* "FRAME:ADDRESS" in hex: the map's borrowed key */
};

struct pmc_profile_lines {
	struct entry *e;
	size_t n, cap;
	struct pmc_hashmap index;   /* key -> entry */
	struct pmc_hashmap strings; /* file and function names -> unused (their copies) */
	char **str;
	size_t nstr, str_cap;
};

int pmc_profile_lines_new(struct pmc_profile_lines **ret)
{
	struct pmc_profile_lines *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	*ret = t;
	return 0;
}

void pmc_profile_lines_free(struct pmc_profile_lines *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->e[i].key);
	for (size_t i = 0; i < t->nstr; i++)
		free(t->str[i]);
	free(t->e);
	free(t->str);
	pmc_hashmap_free(&t->index);
	pmc_hashmap_free(&t->strings);
	free(t);
}

int pmc_profile_lines_add(struct pmc_profile_lines *t, uint32_t frame, uint64_t address,
			  uint64_t weight, uint64_t samples)
{
	char key[32];
	size_t idx;
	int r;

	if (!t)
		return -EINVAL;
	snprintf(key, sizeof(key), "%" PRIx32 ":%" PRIx64, frame, address);
	if (pmc_hashmap_get(&t->index, key, &idx) == 0) {
		struct pmc_profile_line *l = &t->e[idx].l;

		if (l->weight + weight < l->weight || l->samples + samples < l->samples)
			return -EOVERFLOW;
		l->weight += weight;
		l->samples += samples;
		return 0;
	}
	if (pmc_grow_to(&t->e, &t->cap, t->n + 1, sizeof(*t->e)) < 0)
		return -ENOMEM;
	t->e[t->n] = (struct entry){
	    .l = {.frame = frame, .address = address, .weight = weight, .samples = samples},
	    .key = strdup(key)};
	if (!t->e[t->n].key)
		return -ENOMEM;
	r = pmc_hashmap_put(&t->index, t->e[t->n].key, t->n);
	if (r < 0) {
		free(t->e[t->n].key);
		return r;
	}
	t->n++;
	return 0;
}

size_t pmc_profile_lines_count(const struct pmc_profile_lines *t)
{
	return t ? t->n : 0;
}

const struct pmc_profile_line *pmc_profile_lines_get(const struct pmc_profile_lines *t, size_t i)
{
	return t && i < t->n ? &t->e[i].l : NULL;
}

/* The table's one copy of s (NULL stays NULL); *rc -ENOMEM when it cannot be made. */
static const char *intern(struct pmc_profile_lines *t, const char *s, int *rc)
{
	size_t v;
	char *copy;

	if (!s || *rc < 0)
		return NULL;
	if (pmc_hashmap_get(&t->strings, s, &v) == 0)
		return t->str[v];
	if (pmc_grow_to(&t->str, &t->str_cap, t->nstr + 1, sizeof(*t->str)) < 0 ||
	    !(copy = strdup(s))) {
		*rc = -ENOMEM;
		return NULL;
	}
	if (pmc_hashmap_put(&t->strings, copy, t->nstr) < 0) {
		free(copy);
		*rc = -ENOMEM;
		return NULL;
	}
	t->str[t->nstr++] = copy;
	return copy;
}

int pmc_profile_lines_set_source(struct pmc_profile_lines *t, size_t i,
				 const struct pmc_profile_line *src)
{
	struct pmc_profile_line *l;
	const char *file, *inlined, *call_file;
	int rc = 0;

	if (!t || !src || i >= t->n)
		return -EINVAL;
	file = intern(t, src->file, &rc);
	inlined = intern(t, src->inlined, &rc);
	call_file = intern(t, src->call_file, &rc);
	if (rc < 0)
		return rc;
	l = &t->e[i].l;
	l->file = file;
	l->line = file ? src->line : 0;
	l->inlined = inlined;
	l->call_file = call_file;
	l->call_line = call_file ? src->call_line : 0;
	return 0;
}

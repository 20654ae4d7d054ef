/* A hash map from strings to indexes, with open addressing (linear probing) and FNV-1a:
 * the result model's benchmark index and compare's pairing of benchmarks and metrics.
 * Keys are borrowed: the caller keeps each key's text alive and unchanged while it is in
 * the map. A zeroed struct is an empty map. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct pmc_hashmap {
	const char **keys; /* cap entries, NULL where free */
	size_t *vals;
	size_t cap; /* 0 or a power of two */
	size_t n;
};

/* Makes m an empty map with room for expect keys before it grows. Returns 0 or -ENOMEM
 * (m is then an empty map that pmc_hashmap_free() accepts). */
int pmc_hashmap_init(struct pmc_hashmap *m, size_t expect);
/* Frees m's tables (not the keys) and leaves it an empty map. */
void pmc_hashmap_free(struct pmc_hashmap *m);
/* Forgets every key, keeping the tables. */
void pmc_hashmap_clear(struct pmc_hashmap *m);

/* Sets *ret to key's value. Returns 0, or -ENOENT (*ret untouched). */
int pmc_hashmap_get(const struct pmc_hashmap *m, const char *key, size_t *ret);
/* True when key is in m. */
bool pmc_hashmap_has(const struct pmc_hashmap *m, const char *key);
/* Finds key, or inserts it with value val; *ret (may be NULL) is the value now stored.
 * Returns 1 when inserted, 0 when found, -ENOMEM. */
int pmc_hashmap_get_or_put(struct pmc_hashmap *m, const char *key, size_t val, size_t *ret);
/* Sets key's value, inserting it or replacing the old one. Returns 0 or -ENOMEM. */
int pmc_hashmap_put(struct pmc_hashmap *m, const char *key, size_t val);

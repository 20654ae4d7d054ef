/* Lookups in a hash table built once per benchmark (docs/microbench.md, "Untimed work"):
 * the table of n keys is a fixture, built by setup_once before the first batch and freed
 * by teardown_once after the last, rather than once per batch. Each iteration looks up
 * one key, half of them present; items/s is lookups per second, and the counter "hits"
 * (hits/op) the share of lookups that found their key. */
#include <pmcbench.h>
#include <stdint.h>
#include <stdlib.h>

struct table {
	uint64_t *slots; /* open addressing, linear probing; 0 is an empty slot */
	size_t mask;
	uint64_t *queries; /* what the loop looks up, in turn */
	size_t nq;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdu;
	x ^= x >> 33;
	return x;
}

static void insert(struct table *t, uint64_t key)
{
	size_t i = mix(key) & t->mask;

	while (t->slots[i] && t->slots[i] != key)
		i = (i + 1) & t->mask;
	t->slots[i] = key;
}

static int find(const struct table *t, uint64_t key)
{
	size_t i = mix(key) & t->mask;

	for (; t->slots[i]; i = (i + 1) & t->mask)
		if (t->slots[i] == key)
			return 1;
	return 0;
}

static void free_table(struct table *t)
{
	if (t) {
		free(t->slots);
		free(t->queries);
	}
	free(t);
}

/* Untimed, once: n keys 1, 3, 5, ... at a load of at most one half; the queries are the
 * keys and as many absent ones (the even numbers). */
static void build(struct pmc_state *s)
{
	size_t n = (size_t)pmc_arg(s, 0), cap = 2;
	struct table *t = calloc(1, sizeof(*t));

	while (cap < 2 * n)
		cap *= 2;
	if (t) {
		t->slots = calloc(cap, sizeof(*t->slots));
		t->queries = malloc(2 * n * sizeof(*t->queries));
	}
	if (!t || !t->slots || !t->queries) {
		free_table(t);
		return;
	}
	t->mask = cap - 1;
	t->nq = 2 * n;
	for (size_t i = 0; i < n; i++)
		insert(t, 2 * i + 1);
	for (size_t i = 0; i < t->nq; i++)
		t->queries[i] = mix(i) % (2 * n) + 1;
	pmc_set_fixture(s, t);
}

static void destroy(struct pmc_state *s)
{
	free_table(pmc_fixture(s));
}

static void lookup(struct pmc_state *s)
{
	const struct table *t = pmc_fixture(s);
	size_t q = 0;
	int found = 0;

	if (!t) {
		pmc_skip(s, "out of memory");
		return;
	}
	pmc_set_items_per_iter(s, 1);
	while (pmc_loop(s)) {
		found += find(t, t->queries[q]);
		q = q + 1 == t->nq ? 0 : q + 1;
	}
	/* A figure of its own: the share of lookups that found their key (half). */
	pmc_set_counter(s, "hits", found, PMC_COUNTER_PER_OP | PMC_COUNTER_HIGHER_IS_BETTER);
}
PMC_BENCHMARK_OPTS(lookup, .args = {"1024..1048576*32"}, .arg_names = {"keys"}, .setup_once = build,
		   .teardown_once = destroy);

int main(int argc, char **argv)
{
	return pmc_main(argc, argv);
}

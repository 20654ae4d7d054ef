/* Summing n values held in a linked list against the same values in an array. The list's
 * nodes sit in one block but are linked in a shuffled order, so each step of the walk
 * jumps somewhere else in memory and the hardware prefetcher cannot follow; the array is
 * read in order. Past the caches, cache-misses/op tells the story on a machine with a
 * PMU; wall-time/op and items/s tell it everywhere. */
#include <pmcbench.h>
#include <stdint.h>
#include <stdlib.h>

struct node {
	struct node *next;
	uint64_t value;
};

struct walk_data {
	struct node *nodes; /* the list's nodes, in memory order */
	struct node *head;
	uint64_t *values; /* the same values, in the list's order */
};

static void free_data(struct walk_data *d)
{
	if (d) {
		free(d->nodes);
		free(d->values);
	}
	free(d);
}

/* Untimed: a random permutation (Fisher-Yates with xorshift64, fixed seed) gives the
 * order in which the nodes are linked. */
static void make_data(struct pmc_state *s)
{
	size_t n = (size_t)pmc_arg(s, 0);
	struct walk_data *d = calloc(1, sizeof(*d));
	size_t *perm = malloc(n * sizeof(*perm));
	uint64_t x = 88172645463325252u;

	if (d) {
		d->nodes = malloc(n * sizeof(*d->nodes));
		d->values = malloc(n * sizeof(*d->values));
	}
	if (!perm || !d || !d->nodes || !d->values) {
		free(perm);
		free_data(d);
		pmc_set_user_data(s, NULL);
		return;
	}
	for (size_t i = 0; i < n; i++)
		perm[i] = i;
	for (size_t i = n; i > 1; i--) {
		size_t j, t;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = (size_t)(x % i);
		t = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = t;
	}
	for (size_t i = 0; i < n; i++) {
		struct node *nd = &d->nodes[perm[i]];

		nd->value = i * 2654435761u;
		nd->next = i + 1 < n ? &d->nodes[perm[i + 1]] : NULL;
		d->values[i] = nd->value;
	}
	d->head = &d->nodes[perm[0]];
	free(perm);
	pmc_set_user_data(s, d);
}

static void drop_data(struct pmc_state *s)
{
	free_data(pmc_user_data(s));
}

static void walk_list(struct pmc_state *s)
{
	const struct walk_data *d = pmc_user_data(s);

	if (!d) {
		pmc_skip(s, "out of memory");
		return;
	}
	pmc_set_items_per_iter(s, (uint64_t)pmc_arg(s, 0));
	while (pmc_loop(s)) {
		uint64_t sum = 0;

		for (const struct node *nd = d->head; nd; nd = nd->next)
			sum += nd->value;
		pmc_do_not_optimize(sum);
	}
}
PMC_BENCHMARK_OPTS(walk_list, .args = {"1024..1048576*32"}, .setup = make_data,
		   .teardown = drop_data);

static void walk_array(struct pmc_state *s)
{
	const struct walk_data *d = pmc_user_data(s);
	size_t n = (size_t)pmc_arg(s, 0);

	if (!d) {
		pmc_skip(s, "out of memory");
		return;
	}
	pmc_set_items_per_iter(s, n);
	while (pmc_loop(s)) {
		uint64_t sum = 0;

		for (size_t i = 0; i < n; i++)
			sum += d->values[i];
		pmc_do_not_optimize(sum);
	}
}
PMC_BENCHMARK_OPTS(walk_array, .args = {"1024..1048576*32"}, .setup = make_data,
		   .teardown = drop_data);

int main(int argc, char **argv)
{
	return pmc_main(argc, argv);
}

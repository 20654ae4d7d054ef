/* A profile's call trees (profile_tree.h): each stack's display names, root first, put
 * into a tree of paths as they are (caller) or reversed from a function up (callee). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hashmap.h"
#include "profile/profile_tree.h"

struct pmc_profile_tree {
	struct pmc_profile_tree_node *v;
	size_t n;
	char **names; /* the display names the nodes point to */
	size_t nnames;
};

/* While building: each node's name id and parent, and the entries under the root by
 * name id (the callee tree has one per function). */
struct builder {
	struct pmc_profile_tree *t;
	uint32_t *name_of_node;
	size_t *root_child; /* by name id */
};

int pmc_profile_tree_kind_parse(const char *s, enum pmc_profile_tree_kind *ret)
{
	if (strcmp(s, "caller") == 0)
		*ret = PMC_PROFILE_TREE_CALLER;
	else if (strcmp(s, "callee") == 0)
		*ret = PMC_PROFILE_TREE_CALLEE;
	else
		return -EINVAL;
	return 0;
}

void pmc_profile_tree_free(struct pmc_profile_tree *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nnames; i++)
		free(t->names[i]);
	free(t->names);
	free(t->v);
	free(t);
}

size_t pmc_profile_tree_count(const struct pmc_profile_tree *t)
{
	return t ? t->n : 0;
}

const struct pmc_profile_tree_node *pmc_profile_tree_node(const struct pmc_profile_tree *t,
							  size_t i)
{
	return t && i < t->n ? &t->v[i] : NULL;
}

/* The child of parent named id, made when it is not there yet; -ENOMEM. */
static int child(struct builder *b, size_t parent, uint32_t id, size_t *ret)
{
	struct pmc_profile_tree *t = b->t;
	size_t c;

	if (parent == 0) {
		c = b->root_child[id];
	} else {
		for (c = t->v[parent].first_child; c != PMC_PROFILE_TREE_NONE;
		     c = t->v[c].next_sibling)
			if (b->name_of_node[c] == id)
				break;
	}
	if (c == PMC_PROFILE_TREE_NONE) {
		if (pmc_grow(&t->v, t->n, sizeof(*t->v)) < 0 ||
		    pmc_grow(&b->name_of_node, t->n, sizeof(*b->name_of_node)) < 0)
			return -ENOMEM;
		c = t->n++;
		t->v[c] = (struct pmc_profile_tree_node){.name = t->names[id],
							 .first_child = PMC_PROFILE_TREE_NONE,
							 .next_sibling = t->v[parent].first_child};
		b->name_of_node[c] = id;
		t->v[parent].first_child = c;
		if (parent == 0)
			b->root_child[id] = c;
	}
	*ret = c;
	return 0;
}

/* Adds the path ids[from], ids[from + step], ... (count names) with a stack's weight;
 * self: the weight is the self weight of the path's first node (callee entries) or of
 * its last (caller paths). */
static int add_path(struct builder *b, const uint32_t *ids, size_t from, int step, size_t count,
		    const struct pmc_profile_stack *st, bool self_first)
{
	size_t at = 0;

	b->t->v[0].weight += st->weight;
	b->t->v[0].samples += st->samples;
	for (size_t k = 0; k < count; k++) {
		size_t i = step > 0 ? from + k : from - k;
		int r = child(b, at, ids[i], &at);

		if (r < 0)
			return r;
		b->t->v[at].weight += st->weight;
		b->t->v[at].samples += st->samples;
		if (self_first ? k == 0 : k + 1 == count)
			b->t->v[at].self += st->weight;
	}
	return 0;
}

/* A child as it is sorted: no state outside the array, so trees build in any thread. */
struct kid {
	size_t id;
	uint64_t weight;
	const char *name;
};

/* Heaviest first, then by name. */
static int by_weight(const void *a, const void *b)
{
	const struct kid *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Every node's children in the order they are shown. */
static int sort_children(struct pmc_profile_tree *t)
{
	struct kid *kids = malloc((t->n + 1) * sizeof(*kids));

	if (!kids)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		size_t k = 0;

		for (size_t c = t->v[i].first_child; c != PMC_PROFILE_TREE_NONE;
		     c = t->v[c].next_sibling)
			kids[k++] = (struct kid){c, t->v[c].weight, t->v[c].name};
		if (k < 2)
			continue;
		qsort(kids, k, sizeof(*kids), by_weight);
		t->v[i].first_child = kids[0].id;
		for (size_t j = 0; j < k; j++)
			t->v[kids[j].id].next_sibling =
			    j + 1 < k ? kids[j + 1].id : PMC_PROFILE_TREE_NONE;
	}
	free(kids);
	return 0;
}

/* The display names of p's frames as ids into t->names (one id per name), and the id of
 * PMC_PROFILE_TRUNCATED_FRAME. */
static int name_frames(const struct pmc_profile *p, struct pmc_profile_tree *t, uint32_t *name_of,
		       uint32_t *ret_cut, uint32_t *ret_function, const char *function)
{
	size_t nf = pmc_profile_frame_count(p);
	struct pmc_hashmap ids = {0};
	int rc = -ENOMEM;

	t->names = calloc(nf + 2, sizeof(*t->names));
	if (!t->names || pmc_hashmap_init(&ids, nf + 1) < 0)
		goto out;
	*ret_function = UINT32_MAX;
	for (size_t i = 0; i <= nf; i++) {
		char buf[512];
		const struct pmc_profile_frame *fr =
		    i < nf ? pmc_profile_frame(p, (uint32_t)i) : NULL;
		/* A symbol longer than the buffer is its own name. */
		char *name = !fr ? strdup(PMC_PROFILE_TRUNCATED_FRAME)
			     : fr->symbol && strlen(fr->symbol) >= sizeof(buf)
				 ? strdup(fr->symbol)
				 : strdup(pmc_profile_frame_name(p, (uint32_t)i, buf, sizeof(buf)));
		size_t id;
		int r;

		if (!name)
			goto out;
		r = pmc_hashmap_get_or_put(&ids, name, t->nnames, &id);
		if (r < 0) {
			free(name);
			goto out;
		}
		if (r == 1)
			t->names[t->nnames++] = name;
		else
			free(name);
		if (fr)
			name_of[i] = (uint32_t)id;
		else
			*ret_cut = (uint32_t)id;
		if (function && strcmp(t->names[id], function) == 0 && fr)
			*ret_function = (uint32_t)id;
	}
	rc = 0;
out:
	pmc_hashmap_free(&ids);
	return rc;
}

/* One stack into the tree: ids[0..len) its names, root first ([truncated] first when
 * cut); seen[id] == mark for the names already counted in this stack. */
static int add_stack(struct builder *b, const struct pmc_profile_tree_opts *o, const uint32_t *ids,
		     size_t len, size_t first, uint32_t function, uint32_t *seen, uint32_t mark,
		     const struct pmc_profile_stack *st)
{
	bool added = false;

	if (o->kind == PMC_PROFILE_TREE_CALLER) {
		size_t from = 0;

		if (function != UINT32_MAX) {
			for (from = first; from < len && ids[from] != function; from++)
				;
			if (from == len)
				return 0;
		}
		return add_path(b, ids, from, 1, len - from, st, false);
	}
	if (!o->children) {
		if (function != UINT32_MAX && ids[len - 1] != function)
			return 0;
		return add_path(b, ids, len - 1, -1, len, st, true);
	}
	/* Each function of the stack from its outermost call, once. */
	for (size_t i = first; i < len; i++) {
		int r;

		if (seen[ids[i]] == mark || (function != UINT32_MAX && ids[i] != function))
			continue;
		seen[ids[i]] = mark;
		r = add_path(b, ids, i, -1, i + 1, st, false);
		if (r < 0)
			return r;
		if (i + 1 == len)
			b->t->v[b->root_child[ids[i]]].self += st->weight;
		/* add_path gave the weight to the root once per function: once per stack. */
		if (added) {
			b->t->v[0].weight -= st->weight;
			b->t->v[0].samples -= st->samples;
		}
		added = true;
	}
	return 0;
}

int pmc_profile_tree_build(const struct pmc_profile *p, const struct pmc_profile_tree_opts *o,
			   struct pmc_profile_tree **ret)
{
	static const struct pmc_profile_tree_opts defaults;
	size_t nf, ns, maxd = 0;
	struct builder b = {0};
	uint32_t *name_of = NULL, *ids = NULL, *seen = NULL, cut = 0, function = UINT32_MAX;
	int rc = -ENOMEM;

	if (!p || !ret)
		return -EINVAL;
	if (!o)
		o = &defaults;
	nf = pmc_profile_frame_count(p);
	ns = pmc_profile_stack_count(p);
	for (size_t s = 0; s < ns; s++)
		if (pmc_profile_stack(p, s)->depth > maxd)
			maxd = pmc_profile_stack(p, s)->depth;
	b.t = calloc(1, sizeof(*b.t));
	name_of = malloc((nf + 1) * sizeof(*name_of));
	ids = malloc((maxd + 2) * sizeof(*ids));
	if (!b.t || !name_of || !ids)
		goto out;
	rc = name_frames(p, b.t, name_of, &cut, &function, o->function);
	if (rc < 0)
		goto out;
	rc = -ENOENT;
	if (o->function && function == UINT32_MAX)
		goto out;
	rc = -ENOMEM;
	seen = malloc(b.t->nnames * sizeof(*seen));
	b.root_child = malloc(b.t->nnames * sizeof(*b.root_child));
	if (!seen || !b.root_child || pmc_grow(&b.t->v, 0, sizeof(*b.t->v)) < 0 ||
	    pmc_grow(&b.name_of_node, 0, sizeof(*b.name_of_node)) < 0)
		goto out;
	for (size_t i = 0; i < b.t->nnames; i++) {
		seen[i] = UINT32_MAX;
		b.root_child[i] = PMC_PROFILE_TREE_NONE;
	}
	b.t->v[0] = (struct pmc_profile_tree_node){.first_child = PMC_PROFILE_TREE_NONE,
						   .next_sibling = PMC_PROFILE_TREE_NONE};
	b.name_of_node[0] = UINT32_MAX;
	b.t->n = 1;
	for (size_t s = 0; s < ns; s++) {
		const struct pmc_profile_stack *st = pmc_profile_stack(p, s);
		size_t len = 0;

		if (!st->weight)
			continue;
		/* A cut chain's callers are missing: [truncated] stands for them. */
		if (st->truncated)
			ids[len++] = cut;
		for (uint32_t d = 0; d < st->depth; d++)
			ids[len++] = name_of[st->frames[d]];
		rc = add_stack(&b, o, ids, len, st->truncated ? 1 : 0, function, seen, (uint32_t)s,
			       st);
		if (rc < 0)
			goto out;
	}
	rc = -ENOENT;
	if (o->function && b.t->n == 1)
		goto out;
	rc = sort_children(b.t);
	if (rc < 0)
		goto out;
	*ret = b.t;
	b.t = NULL;
out:
	pmc_profile_tree_free(b.t);
	free(b.name_of_node);
	free(b.root_child);
	free(seen);
	free(ids);
	free(name_of);
	return rc;
}

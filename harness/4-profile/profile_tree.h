/* A profile's call trees by display name (docs/profile.md, "Call trees"), as perf report
 * -g caller and -g callee draw them: the caller tree from the stacks' roots down, callers
 * above the functions they call; the callee tree (reversed) from each function up to its
 * callers, which answers "who calls memcmp?". */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

enum pmc_profile_tree_kind {
	PMC_PROFILE_TREE_CALLER = 0, /* top-down: the roots, then what each calls */
	PMC_PROFILE_TREE_CALLEE,     /* bottom-up: each function, then who called it */
};

/* "caller" or "callee" to a kind: 0, or -EINVAL. */
int pmc_profile_tree_kind_parse(const char *s, enum pmc_profile_tree_kind *ret);

struct pmc_profile_tree_opts {
	enum pmc_profile_tree_kind kind;
	/* NULL: every function. Else the tree of this function only (by display name): the
	 * caller tree of what it calls, the callee tree of who calls it; a stack it is on
	 * twice (recursion) counts from its outermost call, once. */
	const char *function;
	/* The callee tree's entries weigh a function's total (with what it calls, as perf
	 * report --children), each stack counted once from the function's outermost call;
	 * else its self weight (the stacks whose leaf it is). */
	bool children;
};

/* A node: the root (node 0, no name: the whole profile) or a function on a path. */
#define PMC_PROFILE_TREE_NONE SIZE_MAX
struct pmc_profile_tree_node {
	const char *name; /* display name, or PMC_PROFILE_TRUNCATED_FRAME above a cut chain;
			   * NULL for the root */
	uint64_t weight;  /* the weight of the stacks through this path */
	uint64_t self;	  /* caller tree: of the stacks that end here; callee tree: the
			   * entry's self weight (0 below the entries) */
	uint64_t samples; /* the samples of weight (exact profiles: 0) */
	size_t first_child, next_sibling; /* children heaviest first, then by name */
};

struct pmc_profile_tree;

/* Builds the tree of p that o asks for (NULL: the whole caller tree). Returns 0, -ENOENT
 * (o->function is on no stack of p), -EINVAL or -ENOMEM. */
int pmc_profile_tree_build(const struct pmc_profile *p, const struct pmc_profile_tree_opts *o,
			   struct pmc_profile_tree **ret);
void pmc_profile_tree_free(struct pmc_profile_tree *t);
size_t pmc_profile_tree_count(const struct pmc_profile_tree *t);
const struct pmc_profile_tree_node *pmc_profile_tree_node(const struct pmc_profile_tree *t,
							  size_t i);

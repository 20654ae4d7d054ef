/* Views of a profile by task (profile_tasks.h): groups of tasks, each with its stacks as
 * a profile of their own. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hashmap.h"
#include "profile/profile_tasks.h"

int pmc_profile_by_parse(const char *s, enum pmc_profile_by *ret)
{
	static const char *const names[] = {"comm", "pid", "tid", "object"};

	for (size_t i = 0; s && i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i]) == 0) {
			*ret = (enum pmc_profile_by)i;
			return 0;
		}
	if (s && strcmp(s, "dso") == 0) {
		*ret = PMC_PROFILE_BY_OBJECT;
		return 0;
	}
	return -EINVAL;
}

void pmc_profile_groups_free(struct pmc_profile_group *g, size_t n)
{
	if (!g)
		return;
	for (size_t i = 0; i < n; i++) {
		free(g[i].name);
		pmc_profile_free(g[i].p);
	}
	free(g);
}

/* A task's group key, a new string (NULL: out of memory): a thread name ('c', or 'n'
 * when not known), a pid, a pid and tid. */
static char *group_key(const struct pmc_profile_task *t, enum pmc_profile_by by)
{
	char *k = NULL;
	int n;

	if (by == PMC_PROFILE_BY_COMM)
		n = asprintf(&k, "%c%s", t->comm ? 'c' : 'n', t->comm ? t->comm : "");
	else if (by == PMC_PROFILE_BY_PID)
		n = asprintf(&k, "%u", (unsigned)t->pid);
	else
		n = asprintf(&k, "%u/%u", (unsigned)t->pid, (unsigned)t->tid);
	return n < 0 ? NULL : k;
}

/* Appends comm to the ", "-separated list *name unless it is there. -ENOMEM. */
static int add_name(char **name, const char *comm)
{
	size_t have = *name ? strlen(*name) : 0, len = strlen(comm);
	char *s;

	for (const char *at = *name; at && (at = strstr(at, comm)); at += len)
		if ((at == *name || at[-1] == ' ') && (at[len] == ',' || !at[len]))
			return 0;
	s = realloc(*name, have + (have ? 2 : 0) + len + 1);
	if (!s)
		return -ENOMEM;
	if (have)
		memcpy(s + have, ", ", 2), have += 2;
	memcpy(s + have, comm, len + 1);
	*name = s;
	return 0;
}

static int group_cmp(const void *a, const void *b)
{
	const struct pmc_profile_group *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	if (x->kept != y->kept)
		return x->kept ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

/* A task as its group's names and threads are worked out. */
struct ranked {
	uint64_t weight;
	uint32_t id, group;
	uint32_t pid, tid;
};

/* Heaviest first, then by id: names are listed in this order. */
static int by_weight(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* By group, then thread: a thread is counted once, whatever names it had. */
static int by_thread(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The groups' names and thread counts. r holds the tasks of the groups (group of those
 * in none: UINT32_MAX); sorted here. */
static int name_groups(const struct pmc_profile *p, enum pmc_profile_by by,
		       struct pmc_profile_group *g, size_t ng, struct ranked *r, size_t nr)
{
	bool *named = NULL;

	qsort(r, nr, sizeof(*r), by_weight);
	for (size_t k = 0; k < nr; k++) {
		const struct pmc_profile_task *t = pmc_profile_task(p, r[k].id);

		/* By pid a process is named by its main thread, weighed or not. */
		if (r[k].group != UINT32_MAX && t->comm &&
		    (by != PMC_PROFILE_BY_PID || t->tid == t->pid) &&
		    (r[k].weight || by == PMC_PROFILE_BY_PID) &&
		    add_name(&g[r[k].group].name, t->comm) < 0)
			return -ENOMEM;
	}
	if (by == PMC_PROFILE_BY_PID) {
		/* A process whose main thread is no task: its threads' names. */
		if (!(named = calloc(ng + 1, sizeof(*named))))
			return -ENOMEM;
		for (size_t i = 0; i < ng; i++)
			named[i] = g[i].name != NULL;
		for (size_t k = 0; k < nr; k++) {
			const struct pmc_profile_task *t = pmc_profile_task(p, r[k].id);

			if (r[k].group != UINT32_MAX && !named[r[k].group] && t->comm &&
			    r[k].weight && add_name(&g[r[k].group].name, t->comm) < 0) {
				free(named);
				return -ENOMEM;
			}
		}
		free(named);
	}
	qsort(r, nr, sizeof(*r), by_thread);
	for (size_t k = 0, counted = 0; k < nr; k++) {
		if (k == 0 || by_thread(&r[k - 1], &r[k]) != 0)
			counted = 0;
		if (r[k].group != UINT32_MAX && r[k].weight && !counted) {
			g[r[k].group].threads++;
			counted = 1;
		}
	}
	return 0;
}

/* Each group's stacks into its own profile: the stacks in the order of their groups
 * (first), then each group's frames made as its stacks need them. */
static int fill_groups(const struct pmc_profile *p, struct pmc_profile_group *g, size_t ng,
		       const uint32_t *group_of_stack)
{
	size_t ns = pmc_profile_stack_count(p), nf = pmc_profile_frame_count(p);
	size_t *first = calloc(ng + 2, sizeof(*first)), *order = malloc((ns + 1) * sizeof(*order));
	uint32_t *map = malloc((nf + 1) * sizeof(*map)), *ids = NULL;
	size_t *stamp = calloc(nf + 1, sizeof(*stamp)), ids_cap = 0;
	int rc = -ENOMEM;

	if (!first || !order || !map || !stamp)
		goto out;
	for (size_t s = 0; s < ns; s++)
		first[group_of_stack[s] + 2]++;
	for (size_t i = 0; i < ng; i++)
		first[i + 2] += first[i + 1];
	for (size_t s = 0; s < ns; s++)
		order[first[group_of_stack[s] + 1]++] = s;
	for (size_t i = 0; i < ng; i++) {
		if ((rc = pmc_profile_new(pmc_profile_info(p), &g[i].p)) < 0)
			goto out;
		for (size_t k = first[i]; k < first[i + 1]; k++) {
			const struct pmc_profile_stack *st = pmc_profile_stack(p, order[k]);

			rc = -ENOMEM;
			if (pmc_grow_to(&ids, &ids_cap, st->depth, sizeof(*ids)) < 0)
				goto out;
			for (uint32_t d = 0; d < st->depth; d++) {
				uint32_t f = st->frames[d];
				const struct pmc_profile_frame *fr = pmc_profile_frame(p, f);

				/* stamp: the group (+1) the frame was last made in */
				if (stamp[f] != i + 1) {
					rc = pmc_profile_frame_id(g[i].p, fr->symbol, fr->object,
								  fr->offset, &map[f]);
					if (rc < 0)
						goto out;
					stamp[f] = i + 1;
				}
				ids[d] = map[f];
			}
			rc = pmc_profile_add(g[i].p, ids, st->depth, st->weight, st->samples,
					     st->truncated);
			if (rc < 0)
				goto out;
			g[i].weight += st->weight;
			g[i].samples += st->samples;
		}
	}
	rc = 0;
out:
	free(ids);
	free(stamp);
	free(map);
	free(order);
	free(first);
	return rc;
}

/* Heaviest first (then by name), groups of weight 0 left out, into *ret. */
static void keep_weighed(struct pmc_profile_group *g, size_t *ng)
{
	size_t kept = 0;

	for (size_t i = 0; i < *ng; i++) {
		if (g[i].weight)
			g[kept++] = g[i];
		else {
			free(g[i].name);
			pmc_profile_free(g[i].p);
		}
	}
	*ng = kept;
	if (kept)
		qsort(g, kept, sizeof(*g), group_cmp);
}

/* By the object of each stack's leaf (perf's --sort dso). */
static int group_by_object(const struct pmc_profile *p, struct pmc_profile_group **ret,
			   size_t *ret_n)
{
	size_t ns = pmc_profile_stack_count(p), ng = 0;
	struct pmc_hashmap keys = {0};
	struct pmc_profile_group *g = calloc(ns + 1, sizeof(*g));
	uint32_t *group_of_stack = malloc((ns + 1) * sizeof(*group_of_stack));
	int rc = -ENOMEM;

	if (!g || !group_of_stack)
		goto out;
	for (size_t s = 0; s < ns; s++) {
		const struct pmc_profile_stack *st = pmc_profile_stack(p, s);
		const char *object = pmc_profile_frame(p, st->frames[st->depth - 1])->object;
		size_t idx;
		int put;

		if (!(g[ng].name = strdup(object)))
			goto out;
		put = pmc_hashmap_get_or_put(&keys, g[ng].name, ng, &idx);
		if (put < 0)
			goto out;
		if (put == 0) {
			free(g[ng].name);
			g[ng].name = NULL;
		} else {
			g[ng++].kept = true;
		}
		group_of_stack[s] = (uint32_t)idx;
	}
	if ((rc = fill_groups(p, g, ng, group_of_stack)) < 0)
		goto out;
	keep_weighed(g, &ng);
	*ret = g;
	*ret_n = ng;
	g = NULL;
	rc = 0;
out:
	pmc_hashmap_free(&keys);
	pmc_profile_groups_free(g, g ? ng + 1 : 0);
	free(group_of_stack);
	return rc;
}

int pmc_profile_group_by(const struct pmc_profile *p, enum pmc_profile_by by,
			 struct pmc_profile_group **ret, size_t *ret_n)
{
	size_t nt, ns, ng = 0;
	struct pmc_hashmap keys = {0};
	struct pmc_profile_group *g = NULL;
	struct ranked *r = NULL;
	uint32_t *group_of_task = NULL, *group_of_stack = NULL, nokept = UINT32_MAX;
	char **key_text = NULL;
	int rc = -ENOMEM;

	if (!p || !ret || !ret_n || by > PMC_PROFILE_BY_OBJECT)
		return -EINVAL;
	if (by == PMC_PROFILE_BY_OBJECT)
		return group_by_object(p, ret, ret_n);
	nt = pmc_profile_task_count(p);
	ns = pmc_profile_stack_count(p);
	/* At most a group per task, and one of the stacks without a task. */
	g = calloc(nt + 1, sizeof(*g));
	r = calloc(nt + 1, sizeof(*r));
	key_text = calloc(nt + 1, sizeof(*key_text));
	group_of_task = malloc((nt + 1) * sizeof(*group_of_task));
	group_of_stack = malloc((ns + 1) * sizeof(*group_of_stack));
	if (!g || !r || !key_text || !group_of_task || !group_of_stack)
		goto out;
	for (size_t t = 0; t < nt; t++) {
		r[t] = (struct ranked){.id = (uint32_t)t,
				       .pid = pmc_profile_task(p, (uint32_t)t)->pid,
				       .tid = pmc_profile_task(p, (uint32_t)t)->tid};
		group_of_task[t] = UINT32_MAX;
	}
	for (size_t s = 0; s < ns; s++) {
		const struct pmc_profile_stack *st = pmc_profile_stack(p, s);

		if (st->task != PMC_PROFILE_NO_TASK)
			r[st->task].weight += st->weight;
	}
	/* Groups of the tasks with weight; a task without any is only a name. */
	for (size_t t = 0; t < nt; t++) {
		const struct pmc_profile_task *task = pmc_profile_task(p, (uint32_t)t);
		size_t idx;
		int put;

		if (!r[t].weight)
			continue;
		if (!(key_text[ng] = group_key(task, by)))
			goto out;
		put = pmc_hashmap_get_or_put(&keys, key_text[ng], ng, &idx);
		if (put < 0)
			goto out;
		if (put == 0) {
			free(key_text[ng]);
			key_text[ng] = NULL;
		} else {
			g[ng] = (struct pmc_profile_group){
			    .kept = true,
			    .pid = by == PMC_PROFILE_BY_COMM ? 0 : task->pid,
			    .tid = by == PMC_PROFILE_BY_TID ? task->tid : 0};
			ng++;
		}
		group_of_task[t] = (uint32_t)idx;
	}
	/* The tasks without weight name the groups they fall in. */
	for (size_t t = 0; t < nt; t++) {
		char *key;
		size_t idx;

		if (group_of_task[t] == UINT32_MAX) {
			if (!(key = group_key(pmc_profile_task(p, (uint32_t)t), by)))
				goto out;
			if (pmc_hashmap_get(&keys, key, &idx) == 0)
				group_of_task[t] = (uint32_t)idx;
			free(key);
		}
		r[t].group = group_of_task[t];
	}
	for (size_t s = 0; s < ns; s++) {
		const struct pmc_profile_stack *st = pmc_profile_stack(p, s);

		if (st->task != PMC_PROFILE_NO_TASK) {
			group_of_stack[s] = group_of_task[st->task];
			continue;
		}
		if (nokept == UINT32_MAX)
			nokept = (uint32_t)ng++;
		group_of_stack[s] = nokept;
	}
	if ((rc = name_groups(p, by, g, ng, r, nt)) < 0 ||
	    (rc = fill_groups(p, g, ng, group_of_stack)) < 0)
		goto out;
	/* Groups of weight 0 (stacks of weight 0 only) show nothing. */
	keep_weighed(g, &ng);
	*ret = g;
	*ret_n = ng;
	g = NULL;
	rc = 0;
out:
	pmc_profile_groups_free(g, ng);
	for (size_t i = 0; key_text && i < nt; i++)
		free(key_text[i]);
	free(key_text);
	free(group_of_stack);
	free(group_of_task);
	free(r);
	pmc_hashmap_free(&keys);
	return rc;
}

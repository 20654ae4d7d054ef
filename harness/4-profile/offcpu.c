/* Off-CPU time: switch-outs paired with switch-ins (offcpu.h). One slot per thread seen,
 * found through a map keyed by the tid in decimal; a slot's stack is a copy of the frame
 * ids, so the records it came from may be forgotten. */
#include "profile/offcpu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hashmap.h"
#include "profile/profile.h"

struct wait {
	char key[12]; /* the tid in decimal: the map's key */
	bool pending; /* off CPU since out */
	bool truncated;
	uint32_t task, depth, cap;
	uint64_t out;
	uint32_t *frames;
};

struct pmc_offcpu {
	struct pmc_hashmap ids; /* tid -> index into waits */
	struct wait **waits;
	size_t n, cap;
	uint64_t added;
};

struct pmc_offcpu *pmc_offcpu_new(void)
{
	return calloc(1, sizeof(struct pmc_offcpu));
}

void pmc_offcpu_free(struct pmc_offcpu *oc)
{
	if (!oc)
		return;
	for (size_t i = 0; i < oc->n; i++) {
		free(oc->waits[i]->frames);
		free(oc->waits[i]);
	}
	free(oc->waits);
	pmc_hashmap_free(&oc->ids);
	free(oc);
}

/* The slot of tid; NULL when there is none and make is false, or out of memory. */
static struct wait *wait_of(struct pmc_offcpu *oc, uint32_t tid, bool make)
{
	char key[12];
	struct wait *w;
	size_t i;

	snprintf(key, sizeof(key), "%u", (unsigned)tid);
	if (pmc_hashmap_get(&oc->ids, key, &i) == 0)
		return oc->waits[i];
	if (!make || pmc_grow_to(&oc->waits, &oc->cap, oc->n + 1, sizeof(*oc->waits)) < 0 ||
	    !(w = calloc(1, sizeof(*w))))
		return NULL;
	memcpy(w->key, key, sizeof(key));
	if (pmc_hashmap_put(&oc->ids, w->key, oc->n) < 0) {
		free(w);
		return NULL;
	}
	oc->waits[oc->n++] = w;
	return w;
}

/* The pending wait of w, ended at time, into p. */
static int settle(struct pmc_offcpu *oc, struct pmc_profile *p, struct wait *w, uint64_t time)
{
	int r;

	if (!w->pending)
		return 0;
	w->pending = false;
	r = pmc_profile_add_task(p, w->frames, w->depth, w->task, time > w->out ? time - w->out : 0,
				 1, w->truncated);
	if (r == 0)
		oc->added++;
	return r;
}

int pmc_offcpu_out(struct pmc_offcpu *oc, struct pmc_profile *p, uint32_t tid, uint64_t time,
		   const uint32_t *frames, uint32_t depth, uint32_t task, bool truncated)
{
	struct wait *w;
	int r;

	if (!depth || !frames)
		return -EINVAL;
	if (!(w = wait_of(oc, tid, true)))
		return -ENOMEM;
	if ((r = settle(oc, p, w, time)) < 0)
		return r;
	if (depth > w->cap) {
		uint32_t *f = realloc(w->frames, depth * sizeof(*f));

		if (!f)
			return -ENOMEM;
		w->frames = f;
		w->cap = depth;
	}
	memcpy(w->frames, frames, depth * sizeof(*frames));
	w->depth = depth;
	w->task = task;
	w->truncated = truncated;
	w->out = time;
	w->pending = true;
	return 0;
}

int pmc_offcpu_in(struct pmc_offcpu *oc, struct pmc_profile *p, uint32_t tid, uint64_t time)
{
	struct wait *w = wait_of(oc, tid, false);

	return w ? settle(oc, p, w, time) : 0;
}

int pmc_offcpu_finish(struct pmc_offcpu *oc, struct pmc_profile *p, uint64_t end)
{
	int r;

	for (size_t i = 0; i < oc->n; i++)
		if ((r = settle(oc, p, oc->waits[i], end)) < 0)
			return r;
	return 0;
}

uint64_t pmc_offcpu_waits(const struct pmc_offcpu *oc)
{
	return oc->added;
}

uint64_t pmc_offcpu_pending(const struct pmc_offcpu *oc)
{
	uint64_t n = 0;

	for (size_t i = 0; i < oc->n; i++)
		n += oc->waits[i]->pending;
	return n;
}

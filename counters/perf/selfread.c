/* Reads of the calling thread's counters through their mmap pages (selfread.h). The
 * read loop follows the one documented over struct perf_event_mmap_page in the kernel's
 * include/uapi/linux/perf_event.h (and libperf's perf_mmap__read_self), widened to a
 * group: every member's lock is taken before and checked after all of them are read. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "counters/perf/selfread.h"
#include "counters/perf/sys.h"
#include "base/grow.h"

/* The kernel writes the page from the CPU the event counts on, between two increments
 * of lock, while this thread is interrupted; a compiler barrier is all a reader on that
 * CPU needs (the uapi's barrier()). */
#define BARRIER() __atomic_signal_fence(__ATOMIC_SEQ_CST)

typedef const volatile struct perf_event_mmap_page page_t;

struct sr_group {
	int leader_fd;
	size_t n;
	uint64_t *ids;
	page_t **pages;
	/* held[k]: page k's offset may not match its counter until the kernel writes the
	 * page again (pmc_selfread_hold); hold[k] is its lock as it was then. */
	bool *held;
	uint32_t *hold;
};

struct pmc_selfread {
	const struct pmc_sys *sys;
	size_t page;
	struct sr_group *groups;
	size_t ngroups;
	uint64_t *vals;	 /* one group's values while it is read */
	uint32_t *locks; /* and its pages' locks at the start of the window */
	size_t nvals;
};

uint64_t pmc_selfread_extend(uint64_t offset, uint64_t raw, unsigned width)
{
	if (width < 64) {
		uint64_t sign = UINT64_C(1) << (width - 1);

		raw &= (sign << 1) - 1;
		raw = (raw ^ sign) - sign;
	}
	return offset + raw;
}

uint64_t pmc_selfread_delta(uint64_t cyc, uint64_t time_offset, uint32_t mult, uint16_t shift)
{
	uint64_t quot = cyc >> shift, rem = cyc & ((UINT64_C(1) << shift) - 1);

	return time_offset + quot * mult + ((rem * mult) >> shift);
}

int pmc_selfread_new(const struct pmc_sys *sys, struct pmc_selfread **ret)
{
	struct pmc_selfread *sr;
	long page = sysconf(_SC_PAGESIZE);

	if (!sys || !sys->rdpmc || !sys->tsc || !sys->mmap || !sys->munmap || page <= 0)
		return -EOPNOTSUPP;
	sr = calloc(1, sizeof(*sr));
	if (!sr)
		return -ENOMEM;
	sr->sys = sys;
	sr->page = (size_t)page;
	*ret = sr;
	return 0;
}

static void unmap_pages(struct pmc_selfread *sr, page_t **pages, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (pages[k])
			sr->sys->munmap(sr->sys->ctx, (void *)pages[k], sr->page);
}

int pmc_selfread_add(struct pmc_selfread *sr, const int *fds, const uint64_t *ids, size_t n)
{
	struct sr_group *g;
	page_t **pages;
	uint64_t *idcopy;
	bool *held;
	uint32_t *hold;

	if (!sr || n == 0)
		return 0;
	pages = calloc(n, sizeof(*pages));
	idcopy = calloc(n, sizeof(*idcopy));
	held = calloc(n, sizeof(*held));
	hold = calloc(n, sizeof(*hold));
	if (!pages || !idcopy || !held || !hold)
		goto nomem;
	for (size_t k = 0; k < n; k++) {
		void *p = NULL;

		/* One page, no ring: the kernel maps the control page alone (perf_mmap() with
		 * no data pages), and writes it at every scheduling of the event. */
		if (sr->sys->mmap(sr->sys->ctx, fds[k], sr->page, &p) < 0)
			goto not_kept;
		pages[k] = p;
		/* Decided on the page as mapped: x86 sets cap_user_rdpmc when its rdpmc
		 * setting allowed it as the event was created, and never for a software
		 * event. */
		if (!pages[k]->cap_user_rdpmc)
			goto not_kept;
		idcopy[k] = ids[k];
		/* perf_mmap() writes the page with perf_event_update_userpage(): on a counter
		 * now, the event may have been read since it was put there, and then the
		 * page is as after a reset (pmc_selfread_hold). Off one, it is written
		 * again, consistently, when the event is put on one. */
		if (pages[k]->index) {
			held[k] = true;
			hold[k] = pages[k]->lock;
		}
	}
	/* vals and locks have room for the largest group, nvals entries each. */
	if (n > sr->nvals) {
		size_t vcap = sr->nvals, lcap = sr->nvals;

		if (pmc_grow_to(&sr->vals, &vcap, n, sizeof(*sr->vals)) < 0 ||
		    pmc_grow_to(&sr->locks, &lcap, n, sizeof(*sr->locks)) < 0)
			goto nomem_mapped;
		sr->nvals = vcap;
	}
	if (pmc_grow(&sr->groups, sr->ngroups, sizeof(*sr->groups)) < 0)
		goto nomem_mapped;
	g = &sr->groups[sr->ngroups++];
	g->leader_fd = fds[0];
	g->n = n;
	g->ids = idcopy;
	g->pages = pages;
	g->held = held;
	g->hold = hold;
	return 1;

not_kept:
	unmap_pages(sr, pages, n);
	free(pages);
	free(idcopy);
	free(held);
	free(hold);
	return 0;
nomem_mapped:
	unmap_pages(sr, pages, n);
nomem:
	free(pages);
	free(idcopy);
	free(held);
	free(hold);
	return -ENOMEM;
}

void pmc_selfread_hold(struct pmc_selfread *sr)
{
	for (size_t i = 0; sr && i < sr->ngroups; i++) {
		struct sr_group *g = &sr->groups[i];

		for (size_t k = 0; k < g->n; k++) {
			g->held[k] = true;
			g->hold[k] = g->pages[k]->lock;
		}
	}
}

/* One try at the group: 1 when g's values are in sr->vals and its times in *enabled and
 * *running, and no page changed meanwhile; 0 when one did (try again); -EAGAIN when this
 * read must be a read(). */
static int read_once(struct pmc_selfread *sr, const struct sr_group *g, uint64_t *enabled,
		     uint64_t *running)
{
	const struct pmc_sys *sys = sr->sys;
	page_t *lead = g->pages[0];
	uint64_t cyc, time_offset, cycles = 0, mask = ~UINT64_C(0);
	uint32_t mult;
	uint16_t shift;

	/* Each member's lock is read before any of the fields and checked after all of
	 * them, so every count is taken inside one window in which no page changed. */
	for (size_t k = 0; k < g->n; k++)
		sr->locks[k] = g->pages[k]->lock;
	BARRIER();
	*enabled = lead->time_enabled;
	*running = lead->time_running;
	/* Without the clock conversion the page's times are those of the event's last
	 * scheduling, not of now: read() gives now's. */
	if (!lead->cap_user_time)
		return -EAGAIN;
	mult = lead->time_mult;
	shift = lead->time_shift;
	time_offset = lead->time_offset;
	if (lead->cap_user_time_short) {
		cycles = lead->time_cycles;
		mask = lead->time_mask;
	}
	cyc = sys->tsc(sys->ctx);
	for (size_t k = 0; k < g->n; k++) {
		/* Not written since the page stopped matching the counter: read() knows. */
		if (g->held[k] && sr->locks[k] == g->hold[k])
			return -EAGAIN;
	}
	for (size_t k = 0; k < g->n; k++) {
		page_t *pg = g->pages[k];
		uint32_t idx = pg->index;
		unsigned width = pg->pmc_width;
		uint64_t offset = (uint64_t)pg->offset;

		/* Not on a counter right now (descheduled by multiplexing, disabled, or
		 * another core type's PMU), or no longer allowed: the kernel has the count. */
		if (!pg->cap_user_rdpmc || idx == 0 || width == 0 || width > 64)
			return -EAGAIN;
		sr->vals[k] = pmc_selfread_extend(offset, sys->rdpmc(sys->ctx, idx - 1), width);
	}
	BARRIER();
	for (size_t k = 0; k < g->n; k++)
		if (g->pages[k]->lock != sr->locks[k])
			return 0;
	if (shift > 32)
		return -EAGAIN;
	/* A cycle counter narrower than 64 bits (cap_user_time_short) is widened from the
	 * page's time_cycles; with the defaults this is cyc itself. */
	cyc = cycles + ((cyc - cycles) & mask);
	{
		uint64_t delta = pmc_selfread_delta(cyc, time_offset, mult, shift);

		/* Since the page was written the group has been enabled and, being on a
		 * counter (index), running. */
		*enabled += delta;
		*running += delta;
	}
	return 1;
}

bool pmc_selfread_kept(const struct pmc_selfread *sr, int leader_fd)
{
	for (size_t i = 0; sr && i < sr->ngroups; i++)
		if (sr->groups[i].leader_fd == leader_fd)
			return true;
	return false;
}

ssize_t pmc_selfread_group(struct pmc_selfread *sr, int leader_fd, uint64_t *buf, size_t len)
{
	struct sr_group *g = NULL;
	uint64_t enabled = 0, running = 0;

	if (!sr)
		return -EAGAIN;
	for (size_t i = 0; i < sr->ngroups && !g; i++)
		if (sr->groups[i].leader_fd == leader_fd)
			g = &sr->groups[i];
	if (!g || len < (3 + 2 * g->n) * sizeof(*buf))
		return -EAGAIN;
	for (unsigned t = 0; t < PMC_SELFREAD_TRIES; t++) {
		int r = read_once(sr, g, &enabled, &running);

		if (r < 0)
			return r;
		if (r == 0)
			continue; /* a page changed during the window: read it again */
		for (size_t k = 0; k < g->n; k++)
			g->held[k] = false; /* every page was written since */
		buf[0] = g->n;
		buf[1] = enabled;
		buf[2] = running;
		for (size_t k = 0; k < g->n; k++) {
			buf[3 + 2 * k] = sr->vals[k];
			buf[4 + 2 * k] = g->ids[k];
		}
		return (ssize_t)((3 + 2 * g->n) * sizeof(*buf));
	}
	return -EAGAIN;
}

void pmc_selfread_free(struct pmc_selfread *sr)
{
	if (!sr)
		return;
	for (size_t i = 0; i < sr->ngroups; i++) {
		unmap_pages(sr, sr->groups[i].pages, sr->groups[i].n);
		free(sr->groups[i].pages);
		free(sr->groups[i].ids);
		free(sr->groups[i].held);
		free(sr->groups[i].hold);
	}
	free(sr->groups);
	free(sr->vals);
	free(sr->locks);
	free(sr);
}

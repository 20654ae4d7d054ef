/* The sampler's store (sample_priv.h): records copied out of the rings with the kernel's
 * head/tail protocol (struct perf_event_mmap_page in include/uapi/linux/perf_event.h),
 * checked by sample_record.c, and handed out in time order, all of them (a replay) or as
 * perf's rounds allow (a flush, which gives their memory back). */
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "counters/perf/sample_priv.h"

/* Room for size bytes in the store, 8-byte aligned. */
static void *store_alloc(struct pmc_sampler *s, size_t size)
{
	size_t words = (size + 7) / 8;
	struct chunk *c = s->last;

	if (!c || c->cap - c->used < words) {
		size_t cap = CHUNK_BYTES / 8;

		if (cap < words)
			cap = words;
		c = malloc(sizeof(*c) + cap * 8);
		if (!c)
			return NULL;
		c->next = NULL;
		c->used = 0;
		c->cap = cap;
		if (s->last)
			s->last->next = c;
		else
			s->chunks = c;
		s->last = c;
	}
	c->used += words;
	c->round = s->round;
	return &c->data[c->used - words];
}

/* Checks a copied record (sample_record.c), which may shrink, gives the store back
 * what it no longer needs, counts it and indexes the ones a replay hands out. -EIO:
 * malformed. */
static int take_record(struct pmc_sampler *s, struct perf_event_header *h)
{
	size_t words = (h->size + 7u) / 8;
	struct record_check c;
	int r;

	if ((r = pmc_sample_record_check(&s->layout, h, &c)) < 0)
		return r;
	/* h is the store's last allocation: its tail goes back. */
	s->last->used -= words - (h->size + 7u) / 8;
	s->samples += c.sample;
	s->throttled += c.throttle;
	s->lost += c.lost;
	if (!c.index)
		return 0;
	if (pmc_grow_to(&s->index, &s->index_cap, s->nindex + 1, sizeof(*s->index)) < 0)
		return -ENOMEM;
	s->index[s->nindex++] =
	    (struct entry){h, c.time, s->round, s->seq++, c.nkernel, c.stack_size};
	if (c.time > s->max_time)
		s->max_time = c.time;
	return 0;
}

/* Copies len bytes from ring position pos, wrapping at the end of the data. */
static void ring_copy(const unsigned char *data, size_t size, uint64_t pos, void *dst, size_t len)
{
	size_t off = pos & (size - 1), first = len < size - off ? len : size - off;

	memcpy(dst, data + off, first);
	memcpy((unsigned char *)dst + first, data, len - first);
}

static int drain(struct pmc_sampler *s, struct ring *r)
{
	struct perf_event_mmap_page *pg = r->base;
	const unsigned char *data = (const unsigned char *)r->base + s->page;
	uint64_t head, tail;
	int n = 0, err = 0;

	if (r->dead)
		return 0;
	/* The kernel writes the data before it publishes data_head: load it with acquire
	 * so the reads below see the data. */
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	tail = pg->data_tail;
	while (tail != head) {
		struct perf_event_header h;
		void *copy;

		if (head - tail < sizeof(h) || head - tail > s->data_size) {
			err = -EIO;
			break;
		}
		ring_copy(data, s->data_size, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail) {
			err = -EIO;
			break;
		}
		copy = store_alloc(s, h.size);
		if (!copy) {
			err = -ENOMEM;
			break;
		}
		/* A record straddling the ring's end becomes contiguous here. */
		ring_copy(data, s->data_size, tail, copy, h.size);
		err = take_record(s, copy);
		if (err < 0)
			break;
		tail += h.size;
		n++;
	}
	if (err == -EIO)
		r->dead = true;
	/* The copies are done before the kernel may overwrite the space: release. */
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return err < 0 ? err : n;
}

int pmc_sampler_poll(struct pmc_sampler *s, int timeout_ms)
{
	struct pollfd *fds;
	int r, n = 0, err = 0;

	if (!s)
		return -EINVAL;
	/* Every record read by the polls before this one was in its ring when this one
	 * starts, and a record is written at once with the time it is stamped: whatever
	 * this poll reads from any ring comes after those, so a flush may hand them out
	 * (perf's FINISHED_ROUND, tools/perf/util/ordered-events.c). */
	s->bound = s->max_time;
	s->round++;
	fds = calloc(s->nrings ? s->nrings : 1, sizeof(*fds));
	if (!fds)
		return -ENOMEM;
	for (size_t i = 0; i < s->nrings; i++)
		fds[i] = (struct pollfd){.fd = s->rings[i].fd, .events = POLLIN};
	/* POLLHUP once the task exited is normal: the rings still hold its last records. */
	r = s->sys->poll(s->sys->ctx, fds, (unsigned)s->nrings, timeout_ms);
	free(fds);
	if (r < 0)
		return r;
	for (size_t i = 0; i < s->nrings; i++) {
		r = drain(s, &s->rings[i]);
		if (r < 0 && !err)
			err = r;
		else if (r > 0)
			n += r;
	}
	return err ? err : n;
}

static int by_time(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Hands out the first n records of the index, sorted; *ret_done: how many fn took. */
static int hand_out(struct pmc_sampler *s, size_t n, pmc_record_fn fn, void *ud, size_t *ret_done)
{
	struct pmc_record rec;
	size_t i;
	int r = 0;

	for (i = 0; i < n && r == 0; i++) {
		pmc_sample_record_parse(&s->layout, s->index[i].rec, s->index[i].nkernel,
					s->index[i].stack_size, &rec);
		r = fn(&rec, ud);
	}
	*ret_done = i;
	return r;
}

int pmc_sampler_replay(struct pmc_sampler *s, pmc_record_fn fn, void *ud)
{
	size_t done;

	if (!s || !fn)
		return -EINVAL;
	if (s->nindex)
		qsort(s->index, s->nindex, sizeof(*s->index), by_time);
	return hand_out(s, s->nindex, fn, ud, &done);
}

int pmc_sampler_flush(struct pmc_sampler *s, bool all, pmc_record_fn fn, void *ud)
{
	uint64_t oldest = UINT64_MAX;
	size_t n = 0, done;
	int r;

	if (!s || !fn)
		return -EINVAL;
	if (s->nindex)
		qsort(s->index, s->nindex, sizeof(*s->index), by_time);
	while (n < s->nindex && (all || s->index[n].time <= s->bound))
		n++;
	r = hand_out(s, n, fn, ud, &done);
	/* What fn took is forgotten, even the record that stopped it (no index yet: none). */
	if (s->nindex)
		memmove(s->index, s->index + done, (s->nindex - done) * sizeof(*s->index));
	s->nindex -= done;
	for (size_t i = 0; i < s->nindex; i++)
		if (s->index[i].round < oldest)
			oldest = s->index[i].round;
	/* Chunks hold the rounds in order: those older than every record left go back. The
	 * one being filled is emptied instead. */
	while (s->chunks && s->chunks->round < oldest) {
		struct chunk *c = s->chunks;

		if (c == s->last) {
			c->used = 0;
			break;
		}
		s->chunks = c->next;
		free(c);
	}
	return r;
}

void pmc_sample_store_free(struct pmc_sampler *s)
{
	struct chunk *c, *next;

	for (c = s->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	s->chunks = s->last = NULL;
	free(s->index);
	s->index = NULL;
	s->nindex = s->index_cap = 0;
}

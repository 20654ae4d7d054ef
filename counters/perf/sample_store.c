/* The sampler's store (sample_priv.h): records copied out of the rings with the kernel's
 * head/tail protocol (struct perf_event_mmap_page in include/uapi/linux/perf_event.h),
 * checked by sample_record.c, and handed out in time order, all of them (a replay) or as
 * perf's rounds allow (a flush, which gives their memory back). */
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/grow.h"
#include "counters/perf/sample_priv.h"

/* The store's memory: its chunks and its index. */
static size_t store_bytes(const struct pmc_sampler *s)
{
	return s->store_bytes + s->index_cap * sizeof(*s->index);
}

/* Room for size bytes in the store, 8-byte aligned; NULL with errno ENOBUFS when the
 * store would pass its bound (the record stays in its ring), ENOMEM. */
static void *store_alloc(struct pmc_sampler *s, size_t size)
{
	size_t words = (size + 7) / 8;
	struct chunk *c = s->last;

	if (!c || c->cap - c->used < words) {
		size_t cap = CHUNK_BYTES / 8;

		if (cap < words)
			cap = words;
		/* The first chunk is always allowed: a bound below one record reads on. */
		if (s->chunks && store_bytes(s) + sizeof(*c) + cap * 8 > s->store_max) {
			errno = ENOBUFS;
			return NULL;
		}
		c = malloc(sizeof(*c) + cap * 8);
		if (!c) {
			errno = ENOMEM;
			return NULL;
		}
		c->next = NULL;
		c->used = 0;
		c->cap = cap;
		s->store_bytes += sizeof(*c) + cap * 8;
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

/* Copies the ring's complete records into the store; *ret_full: the store's bound left
 * some in the ring. Returns the records copied or -errno. */
static int drain(struct pmc_sampler *s, struct ring *r, bool *ret_full)
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
		if (!copy && errno == ENOBUFS) {
			*ret_full = true;
			break;
		}
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

/* Whether the store has passed its bound: no chunk can be added. */
static bool store_full(const struct pmc_sampler *s)
{
	return s->chunks && store_bytes(s) + sizeof(struct chunk) + CHUNK_BYTES > s->store_max;
}

int pmc_sampler_poll(struct pmc_sampler *s, int timeout_ms)
{
	struct pollfd *fds;
	uint64_t before;
	bool full = false;
	int r, n = 0, err = 0;

	if (!s)
		return -EINVAL;
	fds = calloc(s->nrings ? s->nrings : 1, sizeof(*fds));
	if (!fds)
		return -ENOMEM;
	for (size_t i = 0; i < s->nrings; i++)
		fds[i] = (struct pollfd){.fd = s->rings[i].fd, .events = POLLIN};
	/* The store full: the rings wait for a flush (the kernel drops what does not fit
	 * meanwhile, and counts it), rather than this loop spin on rings that stay ready. */
	pthread_mutex_lock(&s->lock);
	if (store_full(s) && timeout_ms > 0) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += timeout_ms / 1000;
		until.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		while (store_full(s) && pthread_cond_timedwait(&s->freed, &s->lock, &until) == 0)
			;
		timeout_ms = 0;
	}
	pthread_mutex_unlock(&s->lock);
	/* POLLHUP once the task exited is normal: the rings still hold its last records. */
	r = s->sys->poll(s->sys->ctx, fds, (unsigned)s->nrings, timeout_ms);
	free(fds);
	if (r < 0)
		return r;
	pthread_mutex_lock(&s->lock);
	before = s->max_time;
	s->round++;
	for (size_t i = 0; i < s->nrings; i++) {
		r = drain(s, &s->rings[i], &full);
		if (r < 0 && !err)
			err = r;
		else if (r > 0)
			n += r;
	}
	/* Every record this poll read was in its ring when it started, and a record is
	 * written at once with the time it is stamped: whatever a later poll reads comes
	 * after what the polls before this one read, so a flush may hand those out (perf's
	 * FINISHED_ROUND, tools/perf/util/ordered-events.c). Not so when this poll left
	 * records in a ring: they may be older than what it read from the others. */
	if (full)
		s->full++;
	else
		s->bound = before;
	pthread_mutex_unlock(&s->lock);
	return err ? err : n;
}

static int by_time(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Hands out the n records of list, sorted; *ret_done: how many fn took. */
static int hand_out(const struct pmc_sampler *s, const struct entry *list, size_t n,
		    pmc_record_fn fn, void *ud, size_t *ret_done)
{
	struct pmc_record rec;
	size_t i;
	int r = 0;

	for (i = 0; i < n && r == 0; i++) {
		pmc_sample_record_parse(&s->layout, list[i].rec, list[i].nkernel,
					list[i].stack_size, &rec);
		r = fn(&rec, ud);
	}
	*ret_done = i;
	return r;
}

int pmc_sampler_replay(struct pmc_sampler *s, pmc_record_fn fn, void *ud)
{
	size_t done;
	int r;

	if (!s || !fn)
		return -EINVAL;
	pthread_mutex_lock(&s->lock);
	if (s->nindex)
		qsort(s->index, s->nindex, sizeof(*s->index), by_time);
	r = hand_out(s, s->index, s->nindex, fn, ud, &done);
	pthread_mutex_unlock(&s->lock);
	return r;
}

/* Gives back the chunks that hold none of the records left in the index. Chunks hold the
 * rounds in order: those older than every record left go back; the one being filled is
 * emptied instead. Under the lock. */
static void store_release(struct pmc_sampler *s)
{
	uint64_t oldest = UINT64_MAX;

	for (size_t i = 0; i < s->nindex; i++)
		if (s->index[i].round < oldest)
			oldest = s->index[i].round;
	while (s->chunks && s->chunks->round < oldest) {
		struct chunk *c = s->chunks;

		if (c == s->last) {
			c->used = 0;
			break;
		}
		s->chunks = c->next;
		s->store_bytes -= sizeof(*c) + c->cap * 8;
		free(c);
	}
	pthread_cond_broadcast(&s->freed);
}

int pmc_sampler_flush(struct pmc_sampler *s, bool all, pmc_record_fn fn, void *ud)
{
	struct entry *out = NULL;
	size_t n = 0, kept = 0, done;
	int r;

	if (!s || !fn)
		return -EINVAL;
	/* The records to hand out leave the index under the lock, in one pass that keeps
	 * the others in their order; they are sorted and handed out without it, while a
	 * poll may add records (into other chunks: the ones these are in stay until the
	 * release below). */
	pthread_mutex_lock(&s->lock);
	/* With the store full, a ring may hold a record older than the bound can pass, for
	 * which no room is left: everything stored goes, as perf's ordered events give up
	 * their order before their memory (OE_FLUSH__HALF, tools/perf/util/ordered-events.c).
	 * A record read later may then be older than one handed out. */
	all = all || store_full(s);
	for (size_t i = 0; i < s->nindex; i++)
		n += all || s->index[i].time <= s->bound;
	if (n && !(out = malloc(n * sizeof(*out)))) {
		pthread_mutex_unlock(&s->lock);
		return -ENOMEM;
	}
	n = 0;
	for (size_t i = 0; i < s->nindex; i++) {
		if (all || s->index[i].time <= s->bound)
			out[n++] = s->index[i];
		else
			s->index[kept++] = s->index[i];
	}
	s->nindex = kept;
	pthread_mutex_unlock(&s->lock);
	if (n)
		qsort(out, n, sizeof(*out), by_time);
	r = hand_out(s, out, n, fn, ud, &done);
	pthread_mutex_lock(&s->lock);
	/* What fn took is forgotten, even the record that stopped it (fn's error is
	 * returned); the records after that one go back to the index, unless there is no
	 * memory to put them back. */
	if (done < n &&
	    pmc_grow_to(&s->index, &s->index_cap, s->nindex + n - done, sizeof(*s->index)) == 0) {
		memcpy(s->index + s->nindex, out + done, (n - done) * sizeof(*out));
		s->nindex += n - done;
	}
	store_release(s);
	pthread_mutex_unlock(&s->lock);
	free(out);
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
	s->store_bytes = 0;
	free(s->index);
	s->index = NULL;
	s->nindex = s->index_cap = 0;
}

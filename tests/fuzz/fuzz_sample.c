/* libFuzzer target: the sampler's reading of perf ring buffers (counters/perf/sample.c):
 * records copied out of the ring with the kernel's head/tail protocol, wrapping at its
 * end, checked, and parsed into struct pmc_record by a replay. The input (sample_ring.h)
 * is what a kernel could have written into the data area; the sampler reads it through
 * a syscall table (counters/perf/sys.h) whose one event's mmap is a buffer of ours, the path
 * the real sampler takes over the kernel's. With SAMPLE_RING_DWARF, samples carry user
 * registers and a stack copy (DWARF call graphs), which the check makes smaller. */
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters/perf/sample.h"
#include "tests/fuzz/sample_ring.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

struct ring {
	void *base;
	size_t len;
};

static int ev_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		   unsigned long flags)
{
	return 100;
}

static int ev_ioctl(void *ctx, int fd, unsigned long request, unsigned long arg)
{
	return 0;
}

static ssize_t ev_read(void *ctx, int fd, void *buf, size_t len)
{
	return -ENOSYS;
}

static int ev_close(void *ctx, int fd)
{
	return 0;
}

static int ev_mmap(void *ctx, int fd, size_t len, void **ret)
{
	struct ring *r = ctx;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	r->base = aligned_alloc(page, len);
	if (!r->base)
		return -ENOMEM;
	memset(r->base, 0, len);
	r->len = len;
	*ret = r->base;
	return 0;
}

static int ev_munmap(void *ctx, void *addr, size_t len)
{
	free(addr);
	return 0;
}

static int ev_poll(void *ctx, struct pollfd *fds, unsigned nfds, int timeout_ms)
{
	for (unsigned i = 0; i < nfds; i++)
		fds[i].revents = POLLIN;
	return (int)nfds;
}

static int ev_online(void *ctx, char *buf, size_t len)
{
	snprintf(buf, len, "0\n");
	return 0;
}

static volatile uint64_t sink;

/* Reads every field a profile reads, as the profile reader does: strings to their NUL,
 * build-ids to their size, call chains to nips. */
static int touch(const struct pmc_record *rec, void *ud)
{
	uint64_t h = rec->pid ^ rec->tid ^ rec->time ^ rec->cpu;

	switch (rec->type) {
	case PMC_RECORD_SAMPLE:
		if (rec->sample.nkernel > rec->sample.nips ||
		    (rec->sample.nips && !rec->sample.ips))
			__builtin_trap();
		for (uint32_t i = 0; i < rec->sample.nips; i++)
			h += rec->sample.ips[i];
		if ((rec->sample.nregs && !rec->sample.regs) ||
		    (rec->sample.stack_dyn_size && !rec->sample.stack) ||
		    rec->sample.stack_dyn_size > rec->sample.stack_size)
			__builtin_trap();
		for (uint32_t i = 0; i < rec->sample.nregs; i++)
			h += rec->sample.regs[i];
		for (uint64_t i = 0; i < rec->sample.stack_dyn_size; i++)
			h += rec->sample.stack[i];
		h += rec->sample.ip + rec->sample.period;
		break;
	case PMC_RECORD_MMAP:
		h += strlen(rec->mmap.filename) + rec->mmap.addr + rec->mmap.len;
		if (rec->mmap.build_id_size > 20)
			__builtin_trap();
		for (uint32_t i = 0; rec->mmap.build_id && i < rec->mmap.build_id_size; i++)
			h += rec->mmap.build_id[i];
		break;
	case PMC_RECORD_COMM:
		h += strlen(rec->comm.comm);
		break;
	case PMC_RECORD_FORK:
	case PMC_RECORD_EXIT:
		h += rec->task.ppid + rec->task.ptid;
		break;
	case PMC_RECORD_LOST:
		h += rec->lost.lost;
		break;
	case PMC_RECORD_SWITCH: /* record --off-cpu's context switches */
		h += rec->sw.out + 2u * rec->sw.preempt;
		break;
	default:
		__builtin_trap(); /* a type the sampler does not hand out */
	}
	sink += h;
	return 0;
}

/* Publishes [from, to) of the input at ring positions tail + from ..., as the kernel
 * writes records (wrapping at the data area's end), then data_head. */
static void publish(struct perf_event_mmap_page *pg, unsigned char *area, size_t size,
		    uint64_t tail, const uint8_t *bytes, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		area[(tail + i) & (size - 1)] = bytes[i];
	__atomic_store_n(&pg->data_head, tail + to, __ATOMIC_RELEASE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct ring ring = {0};
	const struct pmc_sys sys = {
	    .event_open = ev_open,
	    .ioctl = ev_ioctl,
	    .read = ev_read,
	    .close = ev_close,
	    .ctx = &ring,
	    .mmap = ev_mmap,
	    .munmap = ev_munmap,
	    .poll = ev_poll,
	    .online_cpus = ev_online,
	};
	struct pmc_sample_opts o = {
	    .sz = sizeof(o),
	    .event = "cpu-clock",
	    .pages = SAMPLE_RING_PAGES,
	    .sys = &sys,
	};
	struct pmc_sampler *s = NULL;
	struct perf_event_mmap_page *pg;
	unsigned char *area;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size, len, split;
	uint64_t tail;
	uint8_t flags;

	if (n < SAMPLE_RING_HEADER)
		return 0;
	flags = data[0];
	o.no_callchain = !(flags & (SAMPLE_RING_CALLCHAIN | SAMPLE_RING_DWARF));
	o.stack_user = flags & SAMPLE_RING_DWARF ? 64 : 0;
	if (pmc_sampler_open(&o, 0, &s, NULL, 0) < 0)
		return 0;
	pg = ring.base;
	area = (unsigned char *)ring.base + page;
	size = ring.len - page;
	tail = (uint64_t)data[1] | (uint64_t)data[2] << 8;
	if (flags & SAMPLE_RING_HIGH_TAIL)
		tail = UINT64_MAX - tail;
	data += SAMPLE_RING_HEADER;
	n -= SAMPLE_RING_HEADER;
	len = n < size ? n : size;
	split = flags & SAMPLE_RING_SPLIT ? (size_t)data[-2] | (size_t)data[-1] << 8 : len;
	if (split > len)
		split = len;
	pg->data_tail = tail;
	publish(pg, area, size, tail, data, 0, split);
	pmc_sampler_poll(s, 0);
	if (split < len) {
		publish(pg, area, size, tail, data, split, len);
		pmc_sampler_poll(s, 0);
	}
	/* The reader frees exactly what it read, never more than was published. */
	if (pg->data_tail - tail > len)
		__builtin_trap();
	pmc_sampler_replay(s, touch, NULL);
	sink += pmc_sampler_samples(s) + pmc_sampler_lost(s);
	pmc_sampler_close(s);
	return 0;
}

/* The sampler's records (sample_priv.h): checked and made smaller as they are copied out
 * of the rings, parsed as the replay hands them out. The layouts are the kernel's:
 * include/uapi/linux/perf_event.h (enum perf_event_type) and perf_event_open(2). */
#include <errno.h>
#include <string.h>

#include "counters/perf/sample_priv.h"

/* The smallest body (after the header, before sample_id) of each record type read. */
static size_t min_body(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_MMAP:
		return 8 + 24 + 1;
	case PERF_RECORD_MMAP2:
		return 8 + 24 + 24 + 8 + 1;
	case PERF_RECORD_COMM:
		return 8 + 1;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		return 24;
	case PERF_RECORD_LOST:
		return 16;
	default:
		return 0;
	}
}

/* Where a sample's variable fields start, in u64 words of its body; 0: absent (word 0 is
 * the ip). */
struct sample_at {
	size_t chain; /* nr, then ips[nr] */
	size_t regs;  /* abi, then one word per bit of the mask unless abi is NONE */
	size_t stack; /* size, then data[size] and dyn_size unless size is 0 */
	size_t end;   /* the words the fields take */
};

/* Walks a sample's body of nw words in the order perf_event_open(2) gives its fields:
 * ip, {pid, tid}, time, {cpu, res}, period, [nr, ips[nr]], [abi, regs[weight(mask)]],
 * [size, data[size], dyn_size]. -EIO when a field runs past the record, an abi is
 * unknown, a stack size is no multiple of 8 (the kernel's are: perf_copy_attr) or
 * dyn_size exceeds size. */
static int sample_walk(const struct sample_layout *l, const uint64_t *w, size_t nw,
		       struct sample_at *at)
{
	size_t i = 5;

	*at = (struct sample_at){0};
	if (nw < i)
		return -EIO;
	if (l->sample_type & PERF_SAMPLE_CALLCHAIN) {
		if (i >= nw || w[i] > nw - i - 1)
			return -EIO;
		at->chain = i;
		i += 1 + w[i];
	}
	if (l->sample_type & PERF_SAMPLE_REGS_USER) {
		if (i >= nw)
			return -EIO;
		at->regs = i;
		switch (w[i++]) {
		case PERF_SAMPLE_REGS_ABI_NONE:
			break;
		case PERF_SAMPLE_REGS_ABI_32:
		case PERF_SAMPLE_REGS_ABI_64:
			if (l->nregs > nw - i)
				return -EIO;
			i += l->nregs;
			break;
		default:
			return -EIO;
		}
	}
	if (l->sample_type & PERF_SAMPLE_STACK_USER) {
		uint64_t size;

		if (i >= nw)
			return -EIO;
		at->stack = i;
		size = w[i++];
		/* A stack of size 0 (no user registers: a kernel thread) has no data and no
		 * dyn_size (perf_output_sample_ustack). */
		if (size) {
			if (size % 8 || size / 8 >= nw - i || w[i + size / 8] > size)
				return -EIO;
			i += size / 8 + 1;
		}
	}
	at->end = i;
	return 0;
}

/* Removes the kernel's context markers from a sample's call chain at w[at], in place,
 * and counts its kernel frames: returns the frames left. */
static uint64_t chain_clean(uint64_t *w, uint32_t *ret_nkernel)
{
	uint64_t nr = w[0], *ips = &w[1], n = 0;
	bool kernel = false, foreign = false;
	uint32_t nkernel = 0;

	for (uint64_t i = 0; i < nr; i++) {
		if (ips[i] >= (uint64_t)PERF_CONTEXT_MAX) {
			/* The kernel's part, the task's part, or one of the hypervisor or a
			 * guest, whose frames are dropped. */
			kernel = ips[i] == (uint64_t)PERF_CONTEXT_KERNEL;
			foreign = ips[i] != (uint64_t)PERF_CONTEXT_KERNEL &&
				  ips[i] != (uint64_t)PERF_CONTEXT_USER;
			continue;
		}
		if (foreign)
			continue;
		ips[n++] = ips[i];
		nkernel += kernel;
	}
	w[0] = n;
	*ret_nkernel = nkernel;
	return n;
}

/* Checks a sample and makes it smaller: the call chain without its markers, the stack
 * copy without the bytes the kernel set aside but could not fill (a program near the top
 * of its stack fills a few hundred of 8192), the fields after each moved up. */
static int sample_check(const struct sample_layout *l, struct perf_event_header *h,
			struct record_check *ret)
{
	uint64_t *w = (uint64_t *)(h + 1);
	struct sample_at at;
	int r;

	if ((r = sample_walk(l, w, (h->size - sizeof(*h)) / 8, &at)) < 0)
		return r;
	ret->time = w[2];
	if (at.chain) {
		uint64_t nr = w[at.chain], n = chain_clean(&w[at.chain], &ret->nkernel);
		size_t gone = (size_t)(nr - n), rest = at.chain + 1 + (size_t)nr;

		if (gone) {
			memmove(&w[rest - gone], &w[rest], (at.end - rest) * 8);
			at.regs -= at.regs ? gone : 0;
			at.stack -= at.stack ? gone : 0;
			at.end -= gone;
		}
	}
	if (at.stack && w[at.stack]) {
		uint64_t size = w[at.stack], dyn = w[at.stack + 1 + size / 8];
		uint64_t kept = (dyn + 7) / 8 * 8;

		ret->stack_size = (uint32_t)size;
		if (kept < size) {
			/* Nothing copied: a size of 0, which has no dyn_size. */
			w[at.stack] = kept;
			if (kept)
				w[at.stack + 1 + kept / 8] = dyn;
			at.end = at.stack + 1 + (kept ? 1 + kept / 8 : 0);
		}
	}
	h->size = (uint16_t)(sizeof(*h) + at.end * 8);
	return 0;
}

int pmc_sample_record_check(const struct sample_layout *l, struct perf_event_header *h,
			    struct record_check *ret)
{
	const uint64_t *w = (const uint64_t *)(h + 1);
	size_t body = h->size - sizeof(*h);

	*ret = (struct record_check){0};
	if (h->type == PERF_RECORD_SAMPLE) {
		ret->index = ret->sample = true;
		return sample_check(l, h, ret);
	}
	/* The kernel stopped sampling for the rest of a tick: samples are missing, which
	 * the profile must say (time, id, stream_id, then sample_id). */
	if (h->type == PERF_RECORD_THROTTLE && body >= 24 + SAMPLE_ID_SIZE)
		ret->throttle = true;
	/* A context switch has no body but its sample_id (off-CPU time). */
	if (h->type == PERF_RECORD_SWITCH) {
		if (body < SAMPLE_ID_SIZE)
			return -EIO;
		memcpy(&ret->time, (const char *)h + h->size - 16, 8);
		ret->index = true;
		return 0;
	}
	if (min_body(h->type) == 0)
		return 0; /* THROTTLE, KSYMBOL, ...: not replayed */
	if (body < min_body(h->type) + SAMPLE_ID_SIZE)
		return -EIO;
	memcpy(&ret->time, (const char *)h + h->size - 16, 8);
	if (h->type == PERF_RECORD_LOST)
		ret->lost = w[1];
	if (h->type == PERF_RECORD_MMAP2 && (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) &&
	    ((const uint8_t *)h)[sizeof(*h) + 32] > 20)
		return -EIO;
	/* The file or command name must end inside the record. */
	if (h->type == PERF_RECORD_MMAP || h->type == PERF_RECORD_MMAP2 ||
	    h->type == PERF_RECORD_COMM) {
		size_t start = h->type == PERF_RECORD_COMM   ? 8
			       : h->type == PERF_RECORD_MMAP ? 32
							     : 64;

		if (!memchr((const char *)(h + 1) + start, '\0', body - SAMPLE_ID_SIZE - start))
			return -EIO;
	}
	ret->index = true;
	return 0;
}

static void sample_parse(const struct sample_layout *l, const struct perf_event_header *h,
			 uint32_t nkernel, uint32_t stack_size, struct pmc_record *out)
{
	const unsigned char *b = (const unsigned char *)(h + 1);
	const uint64_t *w = (const uint64_t *)b;
	struct sample_at at;

	out->type = PMC_RECORD_SAMPLE;
	out->sample.ip = w[0];
	memcpy(&out->pid, b + 8, 4);
	memcpy(&out->tid, b + 12, 4);
	out->time = w[2];
	memcpy(&out->cpu, b + 24, 4);
	out->sample.period = w[4];
	out->sample.kernel = (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	switch (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) {
	case PERF_RECORD_MISC_HYPERVISOR:
	case PERF_RECORD_MISC_GUEST_KERNEL:
	case PERF_RECORD_MISC_GUEST_USER:
		out->sample.foreign = true;
		break;
	default:
		break;
	}
	/* Checked when it was copied: the walk cannot fail. */
	if (sample_walk(l, w, (h->size - sizeof(*h)) / 8, &at) < 0)
		return;
	if (at.chain) {
		out->sample.nips = (uint32_t)w[at.chain];
		out->sample.ips = out->sample.nips ? &w[at.chain + 1] : NULL;
		out->sample.nkernel = nkernel;
	}
	if (at.regs) {
		out->sample.regs_abi = (uint32_t)w[at.regs];
		out->sample.regs_mask = l->regs_mask;
		if (out->sample.regs_abi != PERF_SAMPLE_REGS_ABI_NONE) {
			out->sample.regs = &w[at.regs + 1];
			out->sample.nregs = l->nregs;
		}
	}
	if (at.stack)
		out->sample.stack_size = stack_size;
	if (at.stack && w[at.stack]) {
		out->sample.stack_dyn_size = w[at.stack + 1 + w[at.stack] / 8];
		if (out->sample.stack_dyn_size)
			out->sample.stack = (const uint8_t *)&w[at.stack + 1];
	}
}

void pmc_sample_record_parse(const struct sample_layout *l, const struct perf_event_header *h,
			     uint32_t nkernel, uint32_t stack_size, struct pmc_record *out)
{
	const unsigned char *b = (const unsigned char *)(h + 1), *id;
	const uint64_t *w = (const uint64_t *)b;

	memset(out, 0, sizeof(*out));
	if (h->type == PERF_RECORD_SAMPLE) {
		sample_parse(l, h, nkernel, stack_size, out);
		return;
	}
	id = (const unsigned char *)h + h->size - SAMPLE_ID_SIZE;
	memcpy(&out->pid, id, 4);
	memcpy(&out->tid, id + 4, 4);
	memcpy(&out->time, id + 8, 8);
	memcpy(&out->cpu, id + 16, 4);
	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		size_t fn;

		out->type = PMC_RECORD_MMAP;
		memcpy(&out->mmap.addr, b + 8, 8);
		memcpy(&out->mmap.len, b + 16, 8);
		memcpy(&out->mmap.pgoff, b + 24, 8);
		if (h->type == PERF_RECORD_MMAP) {
			fn = 32;
		} else {
			if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
				out->mmap.build_id_size = b[32];
				out->mmap.build_id = b + 36;
			} else {
				memcpy(&out->mmap.maj, b + 32, 4);
				memcpy(&out->mmap.min, b + 36, 4);
				memcpy(&out->mmap.ino, b + 40, 8);
			}
			memcpy(&out->mmap.prot, b + 56, 4);
			memcpy(&out->mmap.flags, b + 60, 4);
			fn = 64;
		}
		out->mmap.filename = (const char *)b + fn;
		break;
	}
	case PERF_RECORD_COMM:
		out->type = PMC_RECORD_COMM;
		out->comm.comm = (const char *)b + 8;
		out->comm.exec = h->misc & PERF_RECORD_MISC_COMM_EXEC;
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		out->type = h->type == PERF_RECORD_FORK ? PMC_RECORD_FORK : PMC_RECORD_EXIT;
		/* The body's pid and tid are the task's (the trailer's are the writer's). */
		memcpy(&out->pid, b, 4);
		memcpy(&out->task.ppid, b + 4, 4);
		memcpy(&out->tid, b + 8, 4);
		memcpy(&out->task.ptid, b + 12, 4);
		break;
	case PERF_RECORD_LOST:
		out->type = PMC_RECORD_LOST;
		out->lost.lost = w[1];
		break;
	case PERF_RECORD_SWITCH:
		out->type = PMC_RECORD_SWITCH;
		out->sw.out = h->misc & PERF_RECORD_MISC_SWITCH_OUT;
		out->sw.preempt = h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT;
		break;
	}
}

/* Inside the sampler: its events and rings (counters/perf/sample.c), the store of the
 * records copied out of the rings and their hand-out in time order (sample_store.c); the
 * records are checked, made smaller and parsed by sample_record.c, against the layout of
 * the sample_type the events were opened with (perf_event_open(2), "PERF_RECORD_SAMPLE"). */
#pragma once

#include <linux/perf_event.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters/perf/events.h"
#include "counters/perf/sample.h"

/* What every record but a sample ends with (sample_id_all): {pid, tid}, time, {cpu, res}. */
#define SAMPLE_ID_SIZE 24

/* What a sample holds, from the attributes it was opened with. */
struct sample_layout {
	uint64_t sample_type;
	uint64_t regs_mask; /* attr.sample_regs_user */
	uint32_t nregs;	    /* its bits */
};

/* The store's chunks: large enough for the biggest record (64 KiB), small enough that
 * those a flush empties go back to the allocator soon. */
#define CHUNK_BYTES (256 * 1024)

struct ring {
	int fd;
	int cpu;
	void *base; /* the mapping: the control page, then the data */
	bool dead;  /* a malformed record was met: no longer read */
};

/* The store: records copied out of the rings into chunks that are never moved, so the
 * pointers a replay hands out stay valid; a chunk goes back once a flush has handed out
 * every record in it (chunks are filled in poll order, so those are the oldest). */
struct chunk {
	struct chunk *next;
	size_t used, cap;
	uint64_t round;	 /* the last poll that stored a record here */
	uint64_t data[]; /* 8-byte aligned, as the records' u64 fields need */
};

/* A record not yet flushed. */
struct entry {
	const struct perf_event_header *rec;
	uint64_t time;
	uint64_t round;	     /* the poll that read it */
	size_t seq;	     /* arrival order: equal times keep it */
	uint32_t nkernel;    /* kernel frames of a sample's call chain, markers removed */
	uint32_t stack_size; /* the stack copy the kernel set aside (record_check) */
};

struct pmc_sampler {
	const struct pmc_sys *sys;
	struct ring *rings;
	size_t nrings;
	/* Attached: the events of the process's other threads, each writing into the ring of
	 * its CPU, and the threads they sample. */
	int *extra;
	size_t nextra, extra_cap;
	pid_t *tids;
	size_t ntids, tids_cap;
	size_t page, data_size, map_len;
	struct pmc_event_generic ev; /* the event sampled */
	uint64_t freq;
	struct sample_layout layout; /* the sample_type and user registers asked for */
	uint32_t stack_user;
	bool build_id;	   /* attr.build_id was accepted */
	bool monotonic;	   /* attr.clockid CLOCK_MONOTONIC was accepted */
	bool mmap_refused; /* a ring's mmap was refused (locked memory) */
	/* One thread may poll while another flushes (sample.h): the lock guards the store,
	 * the index and the counts below; a flush hands its records out without it. The
	 * condition wakes a poller that waits for a flush to give memory back. */
	pthread_mutex_t lock;
	pthread_cond_t freed;
	struct chunk *chunks, *last;
	size_t store_bytes, store_max; /* the chunks' bytes, and the bound of the store's */
	struct entry *index;	       /* the records not yet flushed */
	size_t nindex, index_cap, seq;
	/* Polls so far, the latest time they read, and what a flush may hand out: the
	 * records up to the latest time that the polls before the last complete one read
	 * (perf's rounds); a poll that left records in a ring (the store was full) is not
	 * complete. */
	uint64_t round, max_time, bound;
	uint64_t samples, lost, throttled;
	uint64_t full; /* polls that left records in a ring: the store was full */
};

/* What the check of one record found, for the store's index and counts. */
struct record_check {
	bool index;    /* handed out by a replay */
	bool sample;   /* a PERF_RECORD_SAMPLE */
	bool throttle; /* a PERF_RECORD_THROTTLE */
	uint64_t lost; /* a PERF_RECORD_LOST's count */
	uint64_t time;
	uint32_t nkernel;    /* kernel frames of a sample's call chain, markers removed */
	uint32_t stack_size; /* the stack the kernel set aside (stack_user), before the
			      * record was made smaller */
};

/* Checks a record copied out of a ring, in place: a sample's call chain loses the
 * kernel's PERF_CONTEXT_* markers, and its stack copy the bytes past what the kernel
 * could copy (dyn_size), so h->size may shrink. Returns 0, or -EIO when the record is
 * malformed. */
int pmc_sample_record_check(const struct sample_layout *l, struct perf_event_header *h,
			    struct record_check *ret);

/* The record as the replay hands it out. */
void pmc_sample_record_parse(const struct sample_layout *l, const struct perf_event_header *h,
			     uint32_t nkernel, uint32_t stack_size, struct pmc_record *out);

/* Reading: the records of every ring copied into the store (pmc_sampler_poll); the
 * store's memory given back (pmc_sampler_close). */
void pmc_sample_store_free(struct pmc_sampler *s);

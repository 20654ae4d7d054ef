/* Inside the sampler (counters/perf/sample.c): the records copied out of the rings are
 * checked, made smaller and parsed by sample_record.c, against the layout of the
 * sample_type the events were opened with (perf_event_open(2), "PERF_RECORD_SAMPLE"). */
#pragma once

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters/perf/sample.h"

/* What every record but a sample ends with (sample_id_all): {pid, tid}, time, {cpu, res}. */
#define SAMPLE_ID_SIZE 24

/* What a sample holds, from the attributes it was opened with. */
struct sample_layout {
	uint64_t sample_type;
	uint64_t regs_mask; /* attr.sample_regs_user */
	uint32_t nregs;	    /* its bits */
};

/* What the check of one record found, for the store's index and counts. */
struct record_check {
	bool index;	    /* handed out by a replay */
	bool sample;	    /* a PERF_RECORD_SAMPLE */
	bool throttle;	    /* a PERF_RECORD_THROTTLE */
	uint64_t lost;	    /* a PERF_RECORD_LOST's count */
	uint64_t time;
	uint32_t nkernel;   /* kernel frames of a sample's call chain, markers removed */
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

/* The fuzz_sample target's input, shared with the seed generator (sample_seed.c): a
 * header, then the bytes of a perf ring buffer's data area from data_tail on, as the
 * kernel wrote them (include/uapi/linux/perf_event.h records, each with sample_id_all). */
#pragma once

#include <stdint.h>

/* header[0]: the flags below; header[1..2]: where data_tail starts in the ring (little
 * endian), so records straddle its end; header[3..4]: with SAMPLE_RING_SPLIT, how many
 * bytes the first publication of data_head covers (a second poll reads the rest). */
#define SAMPLE_RING_HEADER 5
#define SAMPLE_RING_CALLCHAIN 0x01 /* the event samples call chains */
#define SAMPLE_RING_HIGH_TAIL 0x02 /* data_tail just below 2^64: the positions wrap */
#define SAMPLE_RING_SPLIT 0x04	   /* data_head is published in two steps */
/* DWARF call graphs: samples carry user registers and a stack copy of up to 64 bytes
 * (sample_stack_user), after a call chain. */
#define SAMPLE_RING_DWARF 0x08
/* Data pages of the ring: 2 pages of 4 KiB, so the seeds fill a ring and wrap. */
#define SAMPLE_RING_PAGES 2

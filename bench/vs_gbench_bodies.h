/* The bodies bench/vs_gbench.sh measures with both tools, defined once in
 * vs_gbench_bodies.c: one object file, compiled by cc and linked into vs_gbench_pmc.c's
 * program and into vs_gbench_gb.cc's, so that both time the same machine code on data at
 * the same page offsets. Each body has a state, its _init (outside the timed loop: it
 * returns the body's state, a static of that file) and the _op of one iteration, a
 * function the loops of the two tools call. */
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct vs_lcg;
struct vs_copy;
struct vs_hash;
struct vs_sort;

struct vs_lcg *vs_lcg_init(void);
struct vs_copy *vs_copy_init(void);
struct vs_hash *vs_hash_init(void);
struct vs_sort *vs_sort_init(void);

/* An LCG of 1 step and of 1000 dependent steps. */
void lcg_1_op(struct vs_lcg *s);
void lcg_1000_op(struct vs_lcg *s);
/* memcpy of 64 B, 4 KiB and 1 MiB between two static buffers. */
void memcpy_64_op(struct vs_copy *s);
void memcpy_4k_op(struct vs_copy *s);
void memcpy_1m_op(struct vs_copy *s);
/* A lookup in a half-full open-addressing hash table of 2048 keys, every one a hit. */
void hash_lookup_op(struct vs_hash *s);
/* qsort of 1000 ints, the copy of its unsorted input included. */
void qsort_1000_op(struct vs_sort *s);

#ifdef __cplusplus
}
#endif

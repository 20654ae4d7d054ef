/* The bodies of bench/vs_gbench.sh (vs_gbench_bodies.h). They used to be inline in a
 * header that each tool's program compiled on its own, gcc for pmcbench's and g++ for
 * Google Benchmark's; the two compilers laid the same source out differently around each
 * tool's loop (bench/README.md, "vs_gbench.sh": the hash lookup took 22 instructions
 * per lookup in one program and 24 in the other), so the tools did not time the same
 * code. Here every _op is a function of this one object file, aligned to 64 bytes, and
 * every datum a static of it aligned to a page, so both programs run the same
 * instructions on data at the same offsets within their pages and cache lines. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/vs_gbench_bodies.h"

/* Not inlined into a loop of either tool, and at the same alignment in both programs. */
#define VS_OP __attribute__((noinline, aligned(64)))
#define VS_PAGE __attribute__((aligned(4096)))

/* KEEP(v): v was used, and all memory may have been read and written: the asm of
 * pmc_do_not_optimize and of Google Benchmark's DoNotOptimize of a const value. */
#define KEEP(v) __asm__ volatile("" : : "r,m"(v) : "memory")

/* The LCG: read at run time, so that the compiler cannot fold steps together. Each step
 * (a multiply and an add) depends on the previous one, and x carries over from one
 * iteration to the next, so the iterations chain too. */
static volatile uint64_t lcg_mul = 6364136223846793005u, lcg_add = 1442695040888963407u;

struct vs_lcg {
	uint64_t a, b, x;
};
static struct vs_lcg lcg_state VS_PAGE;

struct vs_lcg *vs_lcg_init(void)
{
	lcg_state.a = lcg_mul;
	lcg_state.b = lcg_add;
	lcg_state.x = 1;
	return &lcg_state;
}

VS_OP void lcg_1_op(struct vs_lcg *s)
{
	s->x = s->x * s->a + s->b;
	KEEP(s->x);
}

VS_OP void lcg_1000_op(struct vs_lcg *s)
{
	uint64_t x = s->x, a = s->a, b = s->b;

	for (int i = 0; i < 1000; i++)
		x = x * a + b;
	s->x = x;
	KEEP(s->x);
}

/* memcpy between two static 1 MiB buffers (page-aligned, written once before the first
 * use so that their pages exist); KEEP's memory clobber makes every copy happen. */
#define VS_BUF (1u << 20)
static unsigned char vs_src[VS_BUF] VS_PAGE;
static unsigned char vs_dst[VS_BUF] VS_PAGE;

struct vs_copy {
	unsigned char *dst;
	const unsigned char *src;
};
static struct vs_copy copy_state VS_PAGE;

struct vs_copy *vs_copy_init(void)
{
	static int done;

	if (!done) {
		memset(vs_src, 0xa5, VS_BUF);
		memset(vs_dst, 0, VS_BUF);
		done = 1;
	}
	copy_state.dst = vs_dst;
	copy_state.src = vs_src;
	return &copy_state;
}

VS_OP void memcpy_64_op(struct vs_copy *s)
{
	memcpy(s->dst, s->src, 64);
	KEEP(s->dst);
}

VS_OP void memcpy_4k_op(struct vs_copy *s)
{
	memcpy(s->dst, s->src, 4096);
	KEEP(s->dst);
}

VS_OP void memcpy_1m_op(struct vs_copy *s)
{
	memcpy(s->dst, s->src, VS_BUF);
	KEEP(s->dst);
}

/* A hash-table lookup: 2048 distinct random 64-bit keys in 4096 slots (half full, 64
 * KiB), open addressing with linear probing, multiplicative hash. Each iteration looks
 * up the next key, in the order they were inserted (random with respect to the slots);
 * every lookup hits. */
#define HT_BITS 12
#define HT_CAP (1u << HT_BITS)
#define HT_KEYS 2048u

struct ht_slot {
	uint64_t key, val; /* key 0: empty */
};
static struct ht_slot ht_table[HT_CAP] VS_PAGE;
static uint64_t ht_keys[HT_KEYS] VS_PAGE;

static inline uint64_t ht_home(uint64_t key)
{
	return (key * 0x9e3779b97f4a7c15u) >> (64 - HT_BITS);
}

static inline uint64_t ht_find(uint64_t key)
{
	for (uint64_t i = ht_home(key);; i = (i + 1) & (HT_CAP - 1)) {
		if (ht_table[i].key == key)
			return ht_table[i].val;
		if (ht_table[i].key == 0)
			return 0;
	}
}

struct vs_hash {
	uint64_t sum;
	unsigned next;
};
static struct vs_hash hash_state VS_PAGE;

struct vs_hash *vs_hash_init(void)
{
	static int done;

	if (!done) {
		uint64_t x = 88172645463325252u; /* xorshift64: distinct, never 0 */

		for (unsigned k = 0; k < HT_KEYS; k++) {
			uint64_t i;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			for (i = ht_home(x); ht_table[i].key != 0; i = (i + 1) & (HT_CAP - 1))
				;
			ht_table[i].key = x;
			ht_table[i].val = k + 1;
			ht_keys[k] = x;
		}
		done = 1;
	}
	hash_state.sum = 0;
	hash_state.next = 0;
	return &hash_state;
}

VS_OP void hash_lookup_op(struct vs_hash *s)
{
	s->sum += ht_find(ht_keys[s->next]);
	s->next = (s->next + 1) & (HT_KEYS - 1);
	KEEP(s->sum);
}

/* qsort of 1000 random ints: each iteration copies the same unsorted input into the
 * array it sorts, so the copy (4000 bytes) is part of the operation. */
#define SORT_N 1000
static int sort_input[SORT_N] VS_PAGE, sort_work[SORT_N] VS_PAGE;

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

struct vs_sort {
	int *work;
};
static struct vs_sort sort_state VS_PAGE;

struct vs_sort *vs_sort_init(void)
{
	static int done;

	if (!done) {
		uint32_t x = 2463534242u; /* xorshift32 */

		for (int i = 0; i < SORT_N; i++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			sort_input[i] = (int)(x >> 1);
		}
		done = 1;
	}
	sort_state.work = sort_work;
	return &sort_state;
}

VS_OP void qsort_1000_op(struct vs_sort *s)
{
	memcpy(s->work, sort_input, sizeof(sort_input));
	qsort(s->work, SORT_N, sizeof(int), cmp_int);
	KEEP(s->work);
}

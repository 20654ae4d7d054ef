/* pmc-prof-nofp: an ordinary -O2 program built without frame pointers, for the profiler's
 * tests of broken call chains (tests/e2e/t_profile.sh):
 *
 *   pmc-prof-nofp ROUNDS     ROUNDS lookups in linked lists, and as many deep recursions
 *
 * walk() keeps a list node in rbp while it calls mix(), so a sample in mix() hands the
 * kernel a "frame" that is a node: its next pointer and its random key are read as the
 * next frame and a return address, and the walk goes on through the list. deep() recurses
 * 300 levels, beyond the kernel's 127 addresses of a chain. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct node {
	struct node *next;
	uint64_t key;
	uint64_t val;
};

/* Global, so that the symbol table names them (a static one could be renamed). */
uint64_t mix(uint64_t k, uint64_t v);
uint64_t walk(const struct node *n, const struct node *m, uint64_t a);
uint64_t lookup(struct node **heads, size_t nh, uint64_t k);
uint64_t deep(unsigned d, struct node **heads, size_t nh);

/* GCC's noipa: the callers may not assume which registers mix() leaves alone, as with a
 * function of another file, so they keep what lives across the call in rbx, rbp, r12...
 * (clang does no such interprocedural register allocation by default). */
#if defined(__has_attribute)
#if __has_attribute(noipa)
#define NOIPA __attribute__((noipa))
#endif
#endif
#ifndef NOIPA
#define NOIPA __attribute__((noinline))
#endif

static uint64_t rng = 88172645463325252u;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

NOIPA uint64_t mix(uint64_t k, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		k = (k ^ (v >> 7)) * 0x9e3779b97f4a7c15u + (uint64_t)i;
	return k;
}

/* Two lists side by side: both cursors live across the calls. */
__attribute__((noinline)) uint64_t walk(const struct node *n, const struct node *m, uint64_t a)
{
	uint64_t s = 0;

	for (; n && m; n = n->next, m = m->next)
		s += mix(n->key, a) ^ mix(m->val, s);
	return s;
}

__attribute__((noinline)) uint64_t lookup(struct node **heads, size_t nh, uint64_t k)
{
	return walk(heads[k % nh], heads[(k >> 8) % nh], k);
}

/* Not a tail call: the result is mixed after the call returns. */
__attribute__((noinline)) uint64_t deep(unsigned d, struct node **heads, size_t nh)
{
	uint64_t x;

	if (d == 0)
		return lookup(heads, nh, next_random());
	x = deep(d - 1, heads, nh);
	return x ^ (x >> (d % 13)) ^ d;
}

int main(int argc, char **argv)
{
	size_t nh = 64, per = 1000;
	struct node **heads = calloc(nh, sizeof(*heads));
	uint64_t h = 0;
	long rounds;

	if (argc != 2 || !heads) {
		fprintf(stderr, "usage: pmc-prof-nofp ROUNDS\n");
		return 2;
	}
	rounds = strtol(argv[1], NULL, 10);
	for (size_t i = 0; i < nh; i++)
		for (size_t j = 0; j < per; j++) {
			struct node *n = malloc(sizeof(*n));

			if (!n)
				return 1;
			n->key = next_random();
			n->val = next_random();
			n->next = heads[i];
			heads[i] = n;
		}
	for (long i = 0; i < rounds; i++) {
		h += lookup(heads, nh, next_random());
		h += deep(300, heads, nh);
	}
	/* The result is used, so the work is not optimized away. */
	printf("%llu\n", (unsigned long long)(h & 0xff));
	return 0;
}

/* pmc-prof-lines: two helpers inlined into one hot function, for `report --lines`
 * (tests/e2e/t_profile_lines.sh). Built -O2 -g:
 *
 *   pmc-prof-lines ROUNDS     ROUNDS rounds of outer(): inner_a's loop, then inner_b's
 *
 * The function tables name only outer (and main): the helpers have no code of their own.
 * Their work is told apart by the line table and the inline chain alone. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Global, so that the symbol table names it (a static one could be renamed or inlined). */
uint64_t outer(uint64_t rounds);

static inline __attribute__((always_inline)) uint64_t inner_a(uint64_t x)
{
	/* A multiply chain: each step waits for the previous one. */
	for (int i = 0; i < 2000; i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}

static inline __attribute__((always_inline)) uint64_t inner_b(uint64_t x)
{
	/* A shift-xor chain, unlike inner_a's so that the two stay apart. */
	for (int i = 0; i < 2000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

__attribute__((noinline)) uint64_t outer(uint64_t rounds)
{
	uint64_t a = 1, b = 2;

	for (uint64_t r = 0; r < rounds; r++) {
		a = inner_a(a + r);
		b = inner_b(b + a);
	}
	return a ^ b;
}

int main(int argc, char **argv)
{
	uint64_t rounds = argc > 1 ? strtoull(argv[1], NULL, 10) : 100000;

	printf("%llu\n", (unsigned long long)outer(rounds));
	return 0;
}

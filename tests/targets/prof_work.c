/* pmc-prof-work: a target whose time is split between two functions in a known ratio,
 * for the profiler's tests (tests/e2e/t_profile.sh):
 *
 *   pmc-prof-work HOT COLD [SLICES]   HOT rounds of the body in prof_hot, COLD in prof_cold
 *
 * SLICES (1 by default) splits the work into that many turns of prof_hot then prof_cold,
 * so that a change of the machine's load while it runs slows both alike: their shares of
 * the time stay HOT : COLD.
 *
 * Both functions run the same body (a chain of dependent multiply-adds, no memory
 * access, inlined), so their shares of the time and of the instructions are HOT : COLD, and
 * moving work from one to the other moves nothing else. Built with frame pointers and
 * without inlining, so the call chains and the two names survive. */
#include <stdio.h>
#include <stdlib.h>

#define BODY_STEPS 1000

/* Global, so that the symbol table names them (a static one could be renamed). */
unsigned long prof_hot(unsigned long rounds, unsigned long x);
unsigned long prof_cold(unsigned long rounds, unsigned long x);

/* Inlined into both, so that the samples fall in prof_hot and prof_cold themselves. */
static inline __attribute__((always_inline)) unsigned long chain(unsigned long x)
{
	for (int i = 0; i < BODY_STEPS; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

/* Called once at the start of each, so that neither is a leaf function and the frame is
 * set up before the loop: compilers set up no frame in a leaf even with
 * -fno-omit-frame-pointer, and clang sets it up only on the paths that call (shrink
 * wrapping); the call chain of a sample without one would skip its caller. */
__attribute__((noinline)) static unsigned long mix(unsigned long x)
{
	return x ^ (x >> 7);
}

__attribute__((noinline)) unsigned long prof_hot(unsigned long rounds, unsigned long x)
{
	x = mix(x);
	for (unsigned long r = 0; r < rounds; r++)
		x = chain(x);
	return x;
}

__attribute__((noinline)) unsigned long prof_cold(unsigned long rounds, unsigned long x)
{
	x = mix(x);
	for (unsigned long r = 0; r < rounds; r++)
		x = chain(x);
	return x;
}

int main(int argc, char **argv)
{
	unsigned long hot, cold, slices = 1, x = 1;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: pmc-prof-work HOT COLD [SLICES]\n");
		return 2;
	}
	hot = strtoul(argv[1], NULL, 10);
	cold = strtoul(argv[2], NULL, 10);
	if (argc == 4)
		slices = strtoul(argv[3], NULL, 10);
	if (slices == 0) {
		fprintf(stderr, "pmc-prof-work: SLICES must be at least 1\n");
		return 2;
	}
	/* Each slice's share, the remainder spread over the first slices: HOT and COLD in all. */
	for (unsigned long s = 0; s < slices; s++) {
		x = prof_hot(hot / slices + (s < hot % slices), x);
		x = prof_cold(cold / slices + (s < cold % slices), x);
	}
	/* The result is used, so the work is not optimized away. */
	printf("%lu\n", x & 0xff);
	return 0;
}

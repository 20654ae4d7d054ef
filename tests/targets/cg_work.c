/* pmc-cg-work: known work in two functions, for the exact profiles of callgrind's output
 * (tests/test_callgrind_profile.c). cg_heavy runs three times the loop iterations of
 * cg_light, both called from main; built -O1 -g -fno-inline so that each is a function
 * of its own under its own name.
 *
 *   pmc-cg-work [LIGHT]   cg_heavy(100000), then cg_light(LIGHT) (default 100000)
 */
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) void cg_light(unsigned long n);
__attribute__((noinline)) void cg_heavy(unsigned long n);

/* The same loop body in both, so that their instruction counts are in the ratio of
 * their iterations. */
__attribute__((noinline)) void cg_light(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

__attribute__((noinline)) void cg_heavy(unsigned long n)
{
	for (unsigned long i = 0; i < 3 * n; i++)
		sink += i;
}

int main(int argc, char **argv)
{
	unsigned long light = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;

	cg_heavy(100000);
	cg_light(light);
	return 0;
}

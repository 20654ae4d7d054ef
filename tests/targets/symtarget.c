/* A program with known functions for tests/test_symbols.c and tests/test_maps.c: it
 * prints the addresses of pmc_sym_alpha and pmc_sym_beta, then waits for its standard
 * input to close, so that the test can read its /proc/PID/maps meanwhile. Built as a PIE,
 * a non-PIE and a stripped PIE (tests/targets/meson.build). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

int pmc_sym_alpha(int n);
int pmc_sym_beta(int n);

/* noinline and a loop: each function has a body of its own, longer than a few bytes, so
 * that an address inside it can be tested. */
__attribute__((noinline)) int pmc_sym_alpha(int n)
{
	volatile int acc = 0;

	for (int i = 0; i < n; i++)
		acc += i * 3 + 1;
	return acc;
}

__attribute__((noinline)) int pmc_sym_beta(int n)
{
	volatile int acc = 1;

	for (int i = 0; i < n; i++)
		acc = acc * 5 + i;
	return acc;
}

int main(void)
{
	char c;

	printf("%" PRIxPTR " %" PRIxPTR " %d\n", (uintptr_t)pmc_sym_alpha, (uintptr_t)pmc_sym_beta,
	       pmc_sym_alpha(3) + pmc_sym_beta(3));
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}

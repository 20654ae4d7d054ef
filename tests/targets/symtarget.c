/* A program with known functions for tests/test_symbols.c and tests/test_maps.c: it
 * prints the addresses of pmc_sym_alpha, pmc_sym_beta and pmc_sym_untyped, then waits for
 * its standard input to close, so that the test can read its /proc/PID/maps meanwhile.
 * Built as a PIE, a non-PIE and a stripped PIE, with and without a debuglink
 * (tests/targets/meson.build). */
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

/* An assembly function as hand-written entry points are (ld.so's _dl_start_user): an
 * untyped symbol with a size in .text, then an untyped label without one, which names no
 * function. */
__asm__(".text\n"
	".globl pmc_sym_untyped\n"
	"pmc_sym_untyped:\n"
	"\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tret\n"
	".size pmc_sym_untyped, .-pmc_sym_untyped\n"
	".globl pmc_sym_label\n"
	"pmc_sym_label:\n"
	"\tret\n");
extern char pmc_sym_untyped[];

int main(void)
{
	char c;

	printf("%" PRIxPTR " %" PRIxPTR " %d %" PRIxPTR "\n", (uintptr_t)pmc_sym_alpha,
	       (uintptr_t)pmc_sym_beta, pmc_sym_alpha(3) + pmc_sym_beta(3),
	       (uintptr_t)pmc_sym_untyped);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}

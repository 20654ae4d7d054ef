/* pmc-prof-dwarf: an ordinary -O2 program without frame pointers whose hot leaf is deep,
 * for the DWARF call graphs' tests (tests/e2e/t_profile.sh):
 *
 *   pmc-prof-dwarf ROUNDS     ROUNDS rounds of main -> run -> mid -> hot_b (a loop of
 *                             arithmetic), then main -> copier -> memcpy (libc's)
 *
 * Without frame pointers the kernel's walk cannot find run and mid (rbp is a register
 * like any other), nor copier above libc's memcpy; the CFI of .eh_frame can. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Global, so that the symbol table names them; noipa (GCC) keeps each a real call whose
 * caller cannot assume what it clobbers, as a function of another file. */
#if defined(__has_attribute)
#if __has_attribute(noipa)
#define NOIPA __attribute__((noipa))
#endif
#endif
#ifndef NOIPA
#define NOIPA __attribute__((noinline))
#endif

uint64_t hot_b(uint64_t n);
uint64_t mid(uint64_t n);
uint64_t run(uint64_t n);
uint64_t copier(unsigned char *dst, const unsigned char *src, size_t len, unsigned times);

volatile uint64_t sink;

NOIPA uint64_t hot_b(uint64_t n)
{
	uint64_t x = n | 1;

	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}

/* Work after each call: no call is a tail call, so every caller is on the stack. */
NOIPA uint64_t mid(uint64_t n)
{
	uint64_t r = hot_b(n);

	sink = r;
	return r ^ n;
}

NOIPA uint64_t run(uint64_t n)
{
	uint64_t r = mid(n);

	sink = r;
	return r + n;
}

NOIPA uint64_t copier(unsigned char *dst, const unsigned char *src, size_t len, unsigned times)
{
	uint64_t s = 0;

	for (unsigned i = 0; i < times; i++) {
		memcpy(dst, src, len);
		s += dst[i % len];
	}
	return s;
}

int main(int argc, char **argv)
{
	size_t len = 4 << 20;
	unsigned char *a, *b;
	uint64_t h = 0;
	long rounds;

	if (argc != 2) {
		fprintf(stderr, "usage: pmc-prof-dwarf ROUNDS\n");
		return 2;
	}
	rounds = strtol(argv[1], NULL, 10);
	a = malloc(len);
	b = malloc(len);
	if (!a || !b)
		return 1;
	memset(a, 1, len);
	for (long i = 0; i < rounds; i++) {
		h += run(1000000);
		h += copier(b, a, len, 2);
	}
	printf("%llu\n", (unsigned long long)(h & 0xff));
	free(a);
	free(b);
	return 0;
}

/* pmu-work: work whose instruction count is known exactly, for the tests against a real
 * PMU driver (tests/guest/t_pmu.sh, run in the arm64 guest by ci/guest/run.sh).
 *
 *   pmu-work loop N        N iterations of a loop of exactly 2 instructions (3 in the
 *                          build with PMU_WORK_EXTRA_NOP, pmu-work-nop: a change
 *                          that costs one instruction per iteration)
 *   pmu-work phases A B    phase_a: A iterations, then phase_b: B iterations, each of
 *                          the 2-instruction loop (for sampled shares)
 *
 * The loops are inline assembly, so the compiler cannot change their size; the program
 * is linked statically, so what runs before main is the same at every run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(PMU_WORK_EXTRA_NOP)
#define EXTRA "nop\n\t"
#else
#define EXTRA ""
#endif
#if defined(__aarch64__)
#define LOOP "1: " EXTRA "subs %0, %0, #1\n\tb.ne 1b"
#elif defined(__x86_64__)
#define LOOP "1: " EXTRA "dec %0\n\tjnz 1b"
#else
#error "pmu-work: no loop for this architecture"
#endif

/* The loop runs n >= 1 times: the count is decremented before it is tested. */
static inline __attribute__((always_inline)) void loop2(unsigned long n)
{
	__asm__ __volatile__(LOOP : "+r"(n) : : "cc");
}

/* Out of line, so that a sample's address names the phase it was taken in. */
__attribute__((noinline)) void phase_a(unsigned long n);
__attribute__((noinline)) void phase_b(unsigned long n);
void phase_a(unsigned long n)
{
	loop2(n);
}

void phase_b(unsigned long n)
{
	loop2(n);
}

static unsigned long count(const char *s)
{
	char *end;
	unsigned long n = strtoul(s, &end, 0);

	if (*s == '\0' || *end != '\0' || n == 0) {
		fprintf(stderr, "pmu-work: '%s' is not a count of at least 1\n", s);
		exit(2);
	}
	return n;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "loop") == 0)
		loop2(count(argv[2]));
	else if (argc == 4 && strcmp(argv[1], "phases") == 0) {
		phase_a(count(argv[2]));
		phase_b(count(argv[3]));
	} else {
		fprintf(stderr, "usage: pmu-work loop N | phases A B\n");
		return 2;
	}
	return 0;
}

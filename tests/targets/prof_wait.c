/* Off-CPU time's target (tests/e2e/t_offcpu.sh): asleep 4 x 50 ms in waits_here and
 * 10 ms in waits_less, each a nanosleep in a function of its own that the call chain
 * names (frame pointers, no inlining), so that waits_here holds 4/5 of the time off CPU.
 * Arguments, both optional: HERE_MS (each of waits_here's four naps, 50) and LESS_MS
 * (waits_less's nap, 10), for a diff of two profiles where one function waits longer. */
#include <stdlib.h>
#include <time.h>

/* Global, so that their names stay as written. */
void waits_here(void);
void waits_less(void);

static long here_ms = 50, less_ms = 10;

static void nap(long ms)
{
	struct timespec ts = {ms / 1000, ms % 1000 * 1000000L};

	while (nanosleep(&ts, &ts) != 0)
		;
}

__attribute__((noinline)) void waits_here(void)
{
	for (int i = 0; i < 4; i++)
		nap(here_ms);
}

__attribute__((noinline)) void waits_less(void)
{
	nap(less_ms);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		here_ms = atol(argv[1]);
	if (argc > 2)
		less_ms = atol(argv[2]);
	waits_here();
	waits_less();
	return 0;
}

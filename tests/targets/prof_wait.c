/* Off-CPU time's target (tests/e2e/t_profile.sh): asleep 4 x 50 ms in waits_here and
 * 10 ms in waits_less, each a nanosleep in a function of its own that the call chain
 * names (frame pointers, no inlining), so that waits_here holds 4/5 of the time off CPU. */
#include <time.h>

/* Global, so that their names stay as written. */
void waits_here(void);
void waits_less(void);

static void nap(long ms)
{
	struct timespec ts = {0, ms * 1000000L};

	while (nanosleep(&ts, &ts) != 0)
		;
}

__attribute__((noinline)) void waits_here(void)
{
	for (int i = 0; i < 4; i++)
		nap(50);
}

__attribute__((noinline)) void waits_less(void)
{
	nap(10);
}

int main(void)
{
	waits_here();
	waits_less();
	return 0;
}

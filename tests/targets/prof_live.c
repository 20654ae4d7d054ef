/* pmc-prof-live: a target that runs until it is stopped, for the profiler's tests of live
 * and partial recordings (tests/e2e/t_profile.sh: Ctrl-C during record, record -p, the
 * per-thread views):
 *
 *   pmc-prof-live MARKER ROUNDS
 *
 * Two threads, named live-alpha and live-beta (their comm), run live_alpha and
 * live_beta, each in a loop of its own. Once both have done ROUNDS rounds (so that a
 * profiler attached from the start has samples of both), MARKER is created: a test waits
 * for the file, not for a time. Then both go on until the process is killed, or for ten
 * minutes at most, so that a failed test leaves nothing running. */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define BODY_STEPS 100000
#define MAX_SECONDS 600

static atomic_ulong rounds[2];

/* A chain of dependent multiply-adds: no memory access, the same in both. */
static inline __attribute__((always_inline)) unsigned long chain(unsigned long x)
{
	for (int i = 0; i < BODY_STEPS; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

/* Global and not inlined, so that the symbol table names them. */
unsigned long live_alpha(unsigned long x);
unsigned long live_beta(unsigned long x);

__attribute__((noinline)) unsigned long live_alpha(unsigned long x)
{
	return chain(x);
}

__attribute__((noinline)) unsigned long live_beta(unsigned long x)
{
	return chain(x ^ 1);
}

static void *run(void *arg)
{
	int which = (int)(size_t)arg;
	volatile unsigned long sink = 0;
	time_t end = time(NULL) + MAX_SECONDS;

	pthread_setname_np(pthread_self(), which ? "live-beta" : "live-alpha");
	while (time(NULL) < end) {
		sink = which ? live_beta(sink) : live_alpha(sink);
		atomic_fetch_add(&rounds[which], 1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[2];
	unsigned long want;
	struct timespec nap = {0, 10 * 1000 * 1000};
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: pmc-prof-live MARKER ROUNDS\n");
		return 2;
	}
	want = strtoul(argv[2], NULL, 10);
	for (size_t i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, run, (void *)i) != 0)
			return 1;
	while (atomic_load(&rounds[0]) < want || atomic_load(&rounds[1]) < want)
		nanosleep(&nap, NULL);
	fd = open(argv[1], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return 1;
	close(fd);
	for (size_t i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	return 0;
}

/* pmc-work: a target program with known, controllable work, for the kernel, valgrind
 * and end-to-end tests.
 *
 *   pmc-work loop N          N iterations of a fixed loop body
 *   pmc-work fork K N        K children, each running `loop N`; the parent waits
 *   pmc-work touch PAGES     writes to PAGES fresh pages (one page fault each)
 *   pmc-work spin MS         burns MS milliseconds of its own CPU time
 *   pmc-work sleep MS        sleeps MS milliseconds
 *   pmc-work exit CODE       exits with CODE
 *   pmc-work kill SIG        kills itself with SIG
 *   pmc-work echo            copies stdin to stdout
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

/* Kept out of line so its size in instructions is the same wherever it is called. */
__attribute__((noinline)) static void loop(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

/* CPU time, so that `spin` does the same work however loaded the machine is. */
static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static unsigned long arg(int argc, char **argv, int i)
{
	if (i >= argc) {
		fprintf(stderr, "pmc-work: missing argument\n");
		exit(2);
	}
	return strtoul(argv[i], NULL, 0);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: pmc-work loop|fork|touch|spin|sleep|exit|kill|echo ...\n");
		return 2;
	}
	if (strcmp(argv[1], "loop") == 0) {
		loop(arg(argc, argv, 2));
	} else if (strcmp(argv[1], "fork") == 0) {
		unsigned long k = arg(argc, argv, 2), n = arg(argc, argv, 3);

		for (unsigned long c = 0; c < k; c++) {
			pid_t pid = fork();

			if (pid < 0)
				return 1;
			if (pid == 0) {
				loop(n);
				_exit(0);
			}
		}
		while (wait(NULL) > 0)
			;
	} else if (strcmp(argv[1], "touch") == 0) {
		unsigned long pages = arg(argc, argv, 2);
		long psz = sysconf(_SC_PAGESIZE);
		char *p = mmap(NULL, pages * (size_t)psz, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		for (unsigned long i = 0; i < pages; i++)
			p[i * (size_t)psz] = 1;
	} else if (strcmp(argv[1], "spin") == 0) {
		double end = cpu_ms() + (double)arg(argc, argv, 2);

		while (cpu_ms() < end)
			loop(1000);
	} else if (strcmp(argv[1], "sleep") == 0) {
		usleep((useconds_t)arg(argc, argv, 2) * 1000);
	} else if (strcmp(argv[1], "exit") == 0) {
		return (int)arg(argc, argv, 2);
	} else if (strcmp(argv[1], "kill") == 0) {
		raise((int)arg(argc, argv, 2));
	} else if (strcmp(argv[1], "echo") == 0) {
		int c;

		while ((c = getchar()) != EOF)
			putchar(c);
	} else {
		fprintf(stderr, "pmc-work: unknown mode '%s'\n", argv[1]);
		return 2;
	}
	return 0;
}

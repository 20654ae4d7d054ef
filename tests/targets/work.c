/* pmc-work: a target program with known, controllable work, for the kernel, valgrind
 * and end-to-end tests.
 *
 *   pmc-work loop N          N iterations of a fixed loop body
 *   pmc-work fork K N        K children, each running `loop N`; the parent waits
 *   pmc-work spread N        calls mark() N times in all: first a forked child the
 *                            rest of N / 3, then N / 3 on each of two threads at once;
 *                            exits 1 when the child or a thread cannot be started
 *                            (uprobes: docs/events.md, "Function calls")
 *   pmc-work touch PAGES     writes to PAGES fresh pages (one page fault each)
 *   pmc-work spin MS         burns MS milliseconds of its own CPU time
 *   pmc-work sleep MS        sleeps MS milliseconds
 *   pmc-work clock N         reads CLOCK_MONOTONIC N times (in the vdso, no system call)
 *   pmc-work getpid N        makes N getpid() system calls
 *   pmc-work phases N MS     N getpid() calls, a sleep of MS milliseconds, N more: two
 *                            bursts of work apart in time (run -I)
 *   pmc-work open N FILE     opens (and closes) FILE N times: N openat() system calls
 *   pmc-work exit CODE       exits with CODE
 *   pmc-work kill SIG        kills itself with SIG
 *   pmc-work echo            copies stdin to stdout
 *   pmc-work cpu             prints the CPU it runs on and the CPUs it may run on
 *                            ("1 1", "0 0,1"); exits 64 + that CPU when it may run on
 *                            one only (so a run's exit status says where it was
 *                            pinned), else 0
 *   pmc-work meet FIFO r|w   opens the named pipe FIFO for reading or writing, which
 *                            blocks until another process opens its other end, and
 *                            passes one byte: returns only if the two overlapped in
 *                            time; exits 0 once the byte went through
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
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

/* What `spread` counts the calls of: out of line, so that each call is one. */
__attribute__((noinline)) static void mark(void)
{
	sink++;
}

static void *marks(void *n)
{
	for (uintptr_t i = 0; i < (uintptr_t)n; i++)
		mark();
	return NULL;
}

/* mark() n times: the rest of n / 3 in a child, waited for (two processes calling a
 * uprobe at once can lose calls: docs/events.md, "Function calls"), then n / 3 on each of
 * two threads at once. */
static int spread(unsigned long n)
{
	pthread_t t[2];
	int status, r;
	pid_t pid = fork();

	if (pid < 0) {
		perror("pmc-work: fork");
		return 1;
	}
	if (pid == 0) {
		marks((void *)(uintptr_t)(n - 2 * (n / 3)));
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return 1;
	for (int i = 0; i < 2; i++)
		if ((r = pthread_create(&t[i], NULL, marks, (void *)(uintptr_t)(n / 3))) != 0) {
			fprintf(stderr, "pmc-work: pthread_create: %s\n", strerror(r));
			return 1;
		}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
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
		fprintf(stderr,
			"usage: pmc-work "
			"loop|fork|spread|touch|spin|sleep|clock|exit|kill|echo|cpu|meet ...\n");
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
	} else if (strcmp(argv[1], "spread") == 0) {
		return spread(arg(argc, argv, 2));
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
	} else if (strcmp(argv[1], "clock") == 0 && argc == 3) {
		struct timespec ts;
		unsigned long n = strtoul(argv[2], NULL, 10);

		for (unsigned long i = 0; i < n; i++)
			clock_gettime(CLOCK_MONOTONIC, &ts);
	} else if (strcmp(argv[1], "getpid") == 0) {
		unsigned long n = arg(argc, argv, 2);

		/* syscall(): never a value cached by the C library. */
		for (unsigned long i = 0; i < n; i++)
			sink += (unsigned long)syscall(SYS_getpid);
	} else if (strcmp(argv[1], "phases") == 0 && argc == 4) {
		unsigned long n = arg(argc, argv, 2);

		for (int phase = 0; phase < 2; phase++) {
			if (phase)
				usleep((useconds_t)arg(argc, argv, 3) * 1000);
			for (unsigned long i = 0; i < n; i++)
				sink += (unsigned long)syscall(SYS_getpid);
		}
	} else if (strcmp(argv[1], "open") == 0 && argc == 4) {
		unsigned long n = arg(argc, argv, 2);

		for (unsigned long i = 0; i < n; i++) {
			int fd = open(argv[3], O_RDONLY | O_CLOEXEC);

			if (fd < 0) {
				perror(argv[3]);
				return 1;
			}
			close(fd);
		}
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
	} else if (strcmp(argv[1], "cpu") == 0) {
		cpu_set_t set;
		int n = 0, one = -1;

		if (sched_getaffinity(0, sizeof(set), &set) < 0)
			return 1;
		printf("%d ", sched_getcpu());
		for (int c = 0; c < CPU_SETSIZE; c++) {
			if (!CPU_ISSET(c, &set))
				continue;
			printf("%s%d", n ? "," : "", c);
			one = c;
			n++;
		}
		printf("\n");
		if (fflush(stdout) != 0)
			return 1;
		return n == 1 && one < 64 ? 64 + one : 0;
	} else if (strcmp(argv[1], "meet") == 0) {
		bool writer;
		char byte = 'x';
		int fd;

		if (argc < 4 || (strcmp(argv[3], "r") != 0 && strcmp(argv[3], "w") != 0)) {
			fprintf(stderr, "pmc-work: meet FIFO r|w\n");
			return 2;
		}
		writer = argv[3][0] == 'w';
		fd = open(argv[2], writer ? O_WRONLY : O_RDONLY);
		if (fd < 0)
			return 1;
		if (writer ? write(fd, &byte, 1) != 1 : read(fd, &byte, 1) != 1)
			return 1;
		close(fd);
	} else {
		fprintf(stderr, "pmc-work: unknown mode '%s'\n", argv[1]);
		return 2;
	}
	return 0;
}

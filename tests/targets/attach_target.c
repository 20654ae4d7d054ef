/* The process that `pmcbench run -p` attaches to in tests/e2e/t_attach.sh: a server with
 * exact work per request.
 *
 *   pmc-attach-target N IN OUT READY
 *
 * opens the named pipes IN and OUT (read-write, so that neither open waits for the other
 * end), creates the file READY, then serves requests until IN reaches end of file or
 * holds a 'q': for every byte read from IN, a new thread makes exactly N getpid() system
 * calls and ends, and then one byte is written to OUT. A client that writes a byte to IN
 * and reads one from OUT has made the server do exactly N getpid() calls, in a thread
 * created after any attach. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static unsigned long calls;
static volatile unsigned long sink;

static void *work(void *arg)
{
	(void)arg;
	/* syscall(): never a value cached by the C library. */
	for (unsigned long i = 0; i < calls; i++)
		sink += (unsigned long)syscall(SYS_getpid);
	return NULL;
}

int main(int argc, char **argv)
{
	int in, out, ready;
	char c;

	if (argc != 5) {
		fprintf(stderr, "usage: pmc-attach-target N IN OUT READY\n");
		return 2;
	}
	calls = strtoul(argv[1], NULL, 10);
	in = open(argv[2], O_RDWR | O_CLOEXEC);
	out = open(argv[3], O_RDWR | O_CLOEXEC);
	if (in < 0 || out < 0) {
		perror("open");
		return 1;
	}
	ready = open(argv[4], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (ready < 0) {
		perror(argv[4]);
		return 1;
	}
	close(ready);
	while (read(in, &c, 1) == 1 && c != 'q') {
		pthread_t t;

		if (pthread_create(&t, NULL, work, NULL) != 0 || pthread_join(t, NULL) != 0)
			return 1;
		if (write(out, "x", 1) != 1)
			return 1;
	}
	return 0;
}

/* An LD_PRELOAD shim that makes this machine look like GitHub's hosted runners to an
 * unprivileged user: kernel.perf_event_paranoid=4 (Debian's and Ubuntu's level above 3),
 * where perf_event_open fails with EACCES for every event, task-clock included. pmcbench
 * issues the syscall through libc's syscall(2) (counters/perf/sys.c), in its own process, in
 * the child it clones before exec and in the processes of a benchmark program, which all
 * inherit LD_PRELOAD; so this shim fails it there, and reads of
 * /proc/sys/kernel/perf_event_paranoid through fopen say "4". Everything else goes to
 * libc. Built without sanitizers, so it can be preloaded into any program (the
 * e2e test, tests/e2e/t_denied.sh, says how under ASan). */
/* Both fopen and fopen64 are defined here: without this, <stdio.h> would make fopen a
 * name of fopen64 (the build's _FILE_OFFSET_BITS=64). */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"

/* The build hides every symbol (-fvisibility=hidden); these must interpose libc's. */
#define SHIM __attribute__((visibility("default")))

SHIM long syscall(long nr, ...);
SHIM FILE *fopen(const char *path, const char *mode);
SHIM FILE *fopen64(const char *path, const char *mode);

/* The next definition of name (libc's) into *fn: dlsym gives an object pointer, which ISO
 * C does not convert to a function pointer, so it is copied. */
static void next_of(const char *name, void *fn, size_t size)
{
	void *p = dlsym(RTLD_NEXT, name);

	memcpy(fn, &p, size);
}

long syscall(long nr, ...)
{
	static long (*next)(long, ...);
	long a[6];
	va_list ap;

	if (nr == SYS_perf_event_open) {
		errno = EACCES;
		return -1;
	}
	/* syscall(2) takes up to six arguments and, like glibc's, passes them on as
	 * words whatever the call uses. */
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!next)
		next_of("syscall", &next, sizeof(next));
	return next(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static FILE *paranoid_file(void)
{
	static char text[] = "4\n";

	return fmemopen(text, strlen(text), "r");
}

FILE *fopen(const char *path, const char *mode)
{
	static FILE *(*next)(const char *, const char *);

	if (path && strcmp(path, PARANOID_PATH) == 0)
		return paranoid_file();
	if (!next)
		next_of("fopen", &next, sizeof(next));
	return next(path, mode);
}

FILE *fopen64(const char *path, const char *mode)
{
	static FILE *(*next)(const char *, const char *);

	if (path && strcmp(path, PARANOID_PATH) == 0)
		return paranoid_file();
	if (!next)
		next_of("fopen64", &next, sizeof(next));
	return next(path, mode);
}

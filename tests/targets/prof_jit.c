/* JIT code as a JIT writes it (tests/e2e/t_profile.sh, test_record_names_jit_code): a
 * page of anonymous executable memory with a tiny counting loop copied in, named in this
 * process's own perf map, /tmp/perf-PID.map ("START SIZE NAME"), as Python's -X perf and
 * node's --perf-basic-prof write theirs; then the loop runs for about SECONDS of CPU time.
 * Usage: pmc-prof-jit SECONDS PIDFILE (the pid is written there, so that the test removes
 * the map). Exits 77 on an architecture it has no code for. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
/* loop: dec %rdi; jnz loop; ret */
static const unsigned char code[] = {0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3};
#elif defined(__aarch64__)
/* loop: subs x0, x0, #1; b.ne loop; ret */
static const uint32_t code[] = {0xf1000400, 0x54ffffe1, 0xd65f03c0};
#endif

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.5;
	char path[64];
	void *page;
	FILE *f;

	if (argc != 3) {
		fprintf(stderr, "usage: pmc-prof-jit SECONDS PIDFILE\n");
		return 2;
	}
#if !defined(__x86_64__) && !defined(__aarch64__)
	return 77;
#else
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 1;
	memcpy(page, code, sizeof(code));
	__builtin___clear_cache((char *)page, (char *)page + sizeof(code));
	if (mprotect(page, 4096, PROT_READ | PROT_EXEC) != 0)
		return 1;
	if (!(f = fopen(argv[2], "w")))
		return 1;
	fprintf(f, "%ld\n", (long)getpid());
	fclose(f);
	snprintf(path, sizeof(path), "/tmp/perf-%ld.map", (long)getpid());
	if (!(f = fopen(path, "w")))
		return 1;
	fprintf(f, "%lx %zx pmc_jit_spin\n", (unsigned long)(uintptr_t)page, sizeof(code));
	fclose(f);
	{
		void (*spin)(unsigned long);
		double end = cpu_seconds() + secs;

		memcpy(&spin, &page, sizeof(spin));
		while (cpu_seconds() < end)
			spin(1000000);
	}
	return 0;
#endif
}

/* A multithreaded benchmark whose kernel events per operation are known exactly, for the
 * reads of inherited counters after the threads are joined (tests/e2e/t_tracepoints.sh,
 * docs/microbench.md, "Threads"): every operation of every thread enters getppid three
 * times, so syscalls:sys_enter_getppid/op is 3 whatever the number of threads. */
#include <pmcbench.h>
#include <sys/syscall.h>
#include <unistd.h>

static void getppid_3(struct pmc_state *s)
{
	/* syscall(2) rather than getppid(3): a C library may answer without the kernel. */
	while (pmc_loop(s)) {
		syscall(SYS_getppid);
		syscall(SYS_getppid);
		syscall(SYS_getppid);
	}
}
PMC_BENCHMARK_OPTS(getppid_3, .threads = "1,2,4");

/* A function of the program itself, called three times per operation: the uprobe
 * uprobe:PROGRAM:mark counts 3/op on one thread, and is not measured on several. */
void mark(void);

__attribute__((noinline)) void mark(void)
{
	__asm__ volatile("");
}

static void mark_3(struct pmc_state *s)
{
	while (pmc_loop(s)) {
		mark();
		mark();
		mark();
	}
}
PMC_BENCHMARK_OPTS(mark_3, .threads = "1,2");

int main(int argc, char **argv)
{
	return pmc_main(argc, argv);
}

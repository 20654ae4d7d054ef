/* The real kernel behind struct pmc_sys: thin wrappers that turn the libc convention
 * (-1 and errno) into the engine's (-errno). glibc has no perf_event_open wrapper, so
 * it goes through syscall(2) as perf_event_open(2) shows. */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "counters/perf/sys.h"

static int kernel_event_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
			     int group_fd, unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);

	return fd < 0 ? -errno : (int)fd;
}

static int kernel_ioctl(void *ctx, int fd, unsigned long request, unsigned long arg)
{
	int r = ioctl(fd, request, arg);

	return r < 0 ? -errno : r;
}

static ssize_t kernel_read(void *ctx, int fd, void *buf, size_t len)
{
	ssize_t n;

	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

static int kernel_close(void *ctx, int fd)
{
	/* Linux releases the descriptor even when close() fails with EINTR, so no retry. */
	return close(fd) < 0 ? -errno : 0;
}

static int kernel_mmap(void *ctx, int fd, size_t len, void **ret)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		return -errno;
	*ret = p;
	return 0;
}

static int kernel_munmap(void *ctx, void *addr, size_t len)
{
	return munmap(addr, len) < 0 ? -errno : 0;
}

static int kernel_poll(void *ctx, struct pollfd *fds, unsigned nfds, int timeout_ms)
{
	int r = poll(fds, nfds, timeout_ms);

	/* A signal ends the wait early; the caller drains the rings either way. */
	if (r < 0 && errno == EINTR)
		return 0;
	return r < 0 ? -errno : r;
}

static int kernel_online_cpus(void *ctx, char *buf, size_t len)
{
	int fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC), err = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	do
		n = read(fd, buf, len - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		err = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return err;
}

#if defined(__x86_64__)
/* RDPMC reads the counter ECX names (the page's index - 1: general-purpose counters
 * from 0, fixed ones with bit 30 set) into EDX:EAX; RDTSC the time-stamp counter. */
static uint64_t kernel_rdpmc(void *ctx, unsigned counter)
{
	uint32_t lo, hi;

	(void)ctx;
	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return (uint64_t)hi << 32 | lo;
}

static uint64_t kernel_tsc(void *ctx)
{
	uint32_t lo, hi;

	(void)ctx;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}
#define KERNEL_RDPMC kernel_rdpmc
#define KERNEL_TSC kernel_tsc
#elif defined(__aarch64__)
/* arm64 user reads (Documentation/arm64/perf.rst, "Userspace PMU counter access"): the
 * page's index is the counter's number + 1, 32 for the cycle counter PMCCNTR_EL0 and
 * 1-31 for the event counters PMEVCNTR<n>_EL0; the system register's number is part of
 * the instruction, hence a case per counter. The time base is the virtual counter
 * CNTVCT_EL0, the clock the kernel describes in the page (arch_perf_update_userpage). */
#define PMEVCNTR(n)                                                                                \
	case n:                                                                                    \
		__asm__ __volatile__("mrs %0, pmevcntr" #n "_el0" : "=r"(v));                      \
		break
static uint64_t kernel_rdpmc(void *ctx, unsigned counter)
{
	uint64_t v = 0;

	(void)ctx;
	switch (counter) {
		PMEVCNTR(0);
		PMEVCNTR(1);
		PMEVCNTR(2);
		PMEVCNTR(3);
		PMEVCNTR(4);
		PMEVCNTR(5);
		PMEVCNTR(6);
		PMEVCNTR(7);
		PMEVCNTR(8);
		PMEVCNTR(9);
		PMEVCNTR(10);
		PMEVCNTR(11);
		PMEVCNTR(12);
		PMEVCNTR(13);
		PMEVCNTR(14);
		PMEVCNTR(15);
		PMEVCNTR(16);
		PMEVCNTR(17);
		PMEVCNTR(18);
		PMEVCNTR(19);
		PMEVCNTR(20);
		PMEVCNTR(21);
		PMEVCNTR(22);
		PMEVCNTR(23);
		PMEVCNTR(24);
		PMEVCNTR(25);
		PMEVCNTR(26);
		PMEVCNTR(27);
		PMEVCNTR(28);
		PMEVCNTR(29);
		PMEVCNTR(30);
	case 31:
		__asm__ __volatile__("mrs %0, pmccntr_el0" : "=r"(v));
		break;
	}
	return v;
}
#undef PMEVCNTR

static uint64_t kernel_tsc(void *ctx)
{
	uint64_t v;

	(void)ctx;
	/* isb: the counter is read after every instruction before it (as the kernel's
	 * __arch_counter_get_cntvct does). */
	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v)::"memory");
	return v;
}
#define KERNEL_RDPMC kernel_rdpmc
#define KERNEL_TSC kernel_tsc
#else
/* Other architectures read every counter with read(). */
#define KERNEL_RDPMC NULL
#define KERNEL_TSC NULL
#endif

static const struct pmc_sys kernel_sys = {
    .event_open = kernel_event_open,
    .ioctl = kernel_ioctl,
    .read = kernel_read,
    .close = kernel_close,
    .ctx = NULL,
    .mmap = kernel_mmap,
    .munmap = kernel_munmap,
    .poll = kernel_poll,
    .online_cpus = kernel_online_cpus,
    .rdpmc = KERNEL_RDPMC,
    .tsc = KERNEL_TSC,
};

const struct pmc_sys *pmc_sys_kernel(void)
{
	return &kernel_sys;
}

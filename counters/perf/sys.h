/* The syscall layer under the counter engine. Every perf_event_open, ioctl, read and
 * close the engine makes goes through one of these tables, so unit tests can put an
 * emulated PMU (tests/fake_pmu.c) in place of the kernel. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct perf_event_attr;
struct pollfd;
struct pmc_hybrid_machine;

/* Each function returns what the syscall returns on success and -errno on failure. */
struct pmc_sys {
	int (*event_open)(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			  unsigned long flags);
	int (*ioctl)(void *ctx, int fd, unsigned long request, unsigned long arg);
	ssize_t (*read)(void *ctx, int fd, void *buf, size_t len);
	int (*close)(void *ctx, int fd);
	void *ctx;
	/* For sampling (counters/perf/sample.h). A table may leave these NULL; the sampler
	 * then fails with -EOPNOTSUPP. */
	/* mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0): the event's ring
	 * buffer, into *ret. */
	int (*mmap)(void *ctx, int fd, size_t len, void **ret);
	int (*munmap)(void *ctx, void *addr, size_t len);
	/* poll(2): the number of fds with events, 0 on timeout. */
	int (*poll)(void *ctx, struct pollfd *fds, unsigned nfds, int timeout_ms);
	/* The text of /sys/devices/system/cpu/online ("0-3,6"), NUL-terminated, into buf;
	 * so tests can choose the CPUs. */
	int (*online_cpus)(void *ctx, char *buf, size_t len);
	/* For reads without a system call (counters/perf/selfread.h): the event's page is mapped
	 * with mmap above, len one page. A table may leave these NULL; the counters are then
	 * read with read(). */
	/* The rdpmc instruction: the raw value of hardware counter `counter` (the page's
	 * index - 1), as wide as the page's pmc_width. Only called while the page says the
	 * kernel allows it (cap_user_rdpmc, index not 0). */
	uint64_t (*rdpmc)(void *ctx, unsigned counter);
	/* The cycle counter the page's time_mult, time_shift and time_offset convert to the
	 * kernel's clock (cap_user_time): the time-stamp counter on x86. */
	uint64_t (*tsc)(void *ctx);
	/* Where this machine's PMUs are described (NULL: PMC_SYSFS_ROOT), so tests can
	 * give an emulated PMU the sysfs tree that goes with it (hybrid CPUs). */
	const char *sysfs_root;
	/* The core PMUs found under sysfs_root and how the kernel takes their types
	 * (counters/perf/hybrid.h), looked up once by a caller that opens the same list
	 * again and again (pmc_hybrid_machine_find), so that each open neither reads sysfs
	 * nor probes; NULL: looked up at every open. */
	const struct pmc_hybrid_machine *machine;
	/* Uprobe events as tracefs probes (counters/perf/uprobe.h): the tracefs to use
	 * (NULL: found as counters/perf/tracefs.h says), and the write of one line into its
	 * uprobe_events (NULL: the file's, opened for appending: never truncated, which
	 * would delete every probe on the machine), so tests can emulate the kernel's
	 * parser (tests/fake_tracefs.c). Returns 0 or -errno, as write(2) fails. */
	const char *tracefs_root;
	int (*probe_write)(void *ctx, const char *tracefs, const char *line);
	void *probe_ctx;
};

/* The real kernel. Its rdpmc and tsc are the x86-64 instructions; on other
 * architectures they are NULL (docs/events.md, "Reading the counters"). */
const struct pmc_sys *pmc_sys_kernel(void);

/* The syscall layer under the counter engine. Every perf_event_open, ioctl, read and
 * close the engine makes goes through one of these tables, so unit tests can put an
 * emulated PMU (tests/fake_pmu.c) in place of the kernel. */
#pragma once

#include <stddef.h>
#include <sys/types.h>

struct perf_event_attr;

/* Each function returns what the syscall returns on success and -errno on failure. */
struct pmc_sys {
	int (*event_open)(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
			  int group_fd, unsigned long flags);
	int (*ioctl)(void *ctx, int fd, unsigned long request, unsigned long arg);
	ssize_t (*read)(void *ctx, int fd, void *buf, size_t len);
	int (*close)(void *ctx, int fd);
	void *ctx;
};

/* The real kernel. */
const struct pmc_sys *pmc_sys_kernel(void);

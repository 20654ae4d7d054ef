/* JIT code named by a jitdump, as a runtime writes one (tests/e2e/t_profile.sh,
 * test_record_names_jitdump_code; the format of perf's tools/perf/util/jitdump.h): the
 * program creates DIR/jit-PID.dump, writes its header, maps it PROT_EXEC (the marker the
 * kernel reports to the profiler), copies a counting loop into an executable page, writes
 * a JIT_CODE_LOAD record naming it pmc_jit_first and runs it for half of SECONDS of CPU
 * time; then compiles it again at the same address, named pmc_jit_second by a later load,
 * and runs it for the other half; then a JIT_CODE_CLOSE. Usage: pmc-prof-jitdump SECONDS
 * DIR. Exits 77 on an architecture it has no code for. */
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
/* loop: dec %rdi; jnz loop; ret */
static const unsigned char code[] = {0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3};
#define MACHINE EM_X86_64
#elif defined(__aarch64__)
/* loop: subs x0, x0, #1; b.ne loop; ret */
static const uint32_t code[] = {0xf1000400, 0x54ffffe1, 0xd65f03c0};
#define MACHINE EM_AARCH64
#endif

static uint64_t stamp(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#ifdef MACHINE
struct header {
	uint32_t magic, version, total_size, elf_mach, pad1, pid;
	uint64_t timestamp, flags;
};

struct code_load {
	uint32_t id, total_size;
	uint64_t timestamp;
	uint32_t pid, tid;
	uint64_t vma, code_addr, code_size, code_index;
};

static int put(int fd, const void *buf, size_t n)
{
	return write(fd, buf, n) == (ssize_t)n ? 0 : -1;
}

/* The code at page, written there now and named name: written before it runs. */
static int load(int fd, void *page, const char *name, uint64_t index)
{
	struct code_load r = {.id = 0, .pid = (uint32_t)getpid()};

	if (mprotect(page, 4096, PROT_READ | PROT_WRITE) != 0)
		return -1;
	memcpy(page, code, sizeof(code));
	__builtin___clear_cache((char *)page, (char *)page + sizeof(code));
	if (mprotect(page, 4096, PROT_READ | PROT_EXEC) != 0)
		return -1;
	r.total_size = (uint32_t)(sizeof(r) + strlen(name) + 1 + sizeof(code));
	r.timestamp = stamp(CLOCK_MONOTONIC);
	r.tid = (uint32_t)syscall(SYS_gettid);
	r.vma = r.code_addr = (uint64_t)(uintptr_t)page;
	r.code_size = sizeof(code);
	r.code_index = index;
	if (put(fd, &r, sizeof(r)) < 0 || put(fd, name, strlen(name) + 1) < 0)
		return -1;
	return put(fd, code, sizeof(code));
}

static void run(void *page, double secs)
{
	void (*spin)(unsigned long);
	double end = (double)stamp(CLOCK_PROCESS_CPUTIME_ID) / 1e9 + secs;

	memcpy(&spin, &page, sizeof(spin));
	while ((double)stamp(CLOCK_PROCESS_CPUTIME_ID) / 1e9 < end)
		spin(1000000);
}
#endif

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: pmc-prof-jitdump SECONDS DIR\n");
		return 2;
	}
#ifndef MACHINE
	return 77;
#else
	double secs = atof(argv[1]);
	struct header h = {.magic = 0x4A695444,
			   .version = 1,
			   .total_size = sizeof(h),
			   .elf_mach = MACHINE,
			   .pid = (uint32_t)getpid()};
	uint32_t close_rec[4] = {3, 16};
	char path[4096];
	void *page, *marker;
	int fd;

	snprintf(path, sizeof(path), "%s/jit-%ld.dump", argv[2], (long)getpid());
	if ((fd = open(path, O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0644)) < 0)
		return 1;
	h.timestamp = stamp(CLOCK_MONOTONIC);
	if (put(fd, &h, sizeof(h)) < 0)
		return 1;
	/* The marker: an executable mapping of the dump, which the kernel reports. */
	marker = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (marker == MAP_FAILED || page == MAP_FAILED)
		return 1;
	if (load(fd, page, "pmc_jit_first", 1) < 0)
		return 1;
	run(page, secs / 2);
	if (load(fd, page, "pmc_jit_second", 2) < 0)
		return 1;
	run(page, secs / 2);
	{
		uint64_t t = stamp(CLOCK_MONOTONIC);

		memcpy(&close_rec[2], &t, sizeof(t));
	}
	if (put(fd, close_rec, sizeof(close_rec)) < 0)
		return 1;
	munmap(marker, 4096);
	return close(fd) == 0 ? 0 : 1;
#endif
}

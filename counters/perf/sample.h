/* Sampling with perf_event_open (docs/profile.md, "Sampling"): one sampling event per
 * online CPU on a task and the tasks it starts (inherit=1: the kernel refuses to mmap an
 * inherited per-task event, so the events are per CPU, as perf record's are), each with
 * its own ring buffer of 1 + 2^n pages, read with the kernel's head/tail protocol
 * (acquire load of data_head, copy, release store of data_tail) through the syscall
 * layer (counters/perf/sys.h), so tests can put an emulated PMU with a ring buffer in place of
 * the kernel (tests/fake_pmu.c).
 *
 *	pmc_sampler_open(&opts, pid, &s, err, sizeof(err));  on a stopped or pre-exec task
 *	while (running) pmc_sampler_poll(s, 100);            copies records out of the rings
 *	pmc_sampler_poll(s, 0);                              once the task was reaped
 *	pmc_sampler_replay(s, fn, ud);                       every record, in time order
 *	pmc_sampler_close(s);
 *
 * The sampler never prints; what it could not do comes back as -errno and one line in
 * err. Lost samples (PERF_RECORD_LOST) are counted, never hidden. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "counters/perf/sys.h"

/* The default sampling frequency, perf record's. */
#define PMC_SAMPLE_DEFAULT_FREQ 4000

struct pmc_sample_opts {
	size_t sz; /* sizeof(struct pmc_sample_opts) */
	/* The event sampled, in perf's syntax for a generic event: "cycles", "cpu-clock",
	 * "task-clock", ... NULL: "cycles" when the machine has it, else "cpu-clock" (what
	 * samples on a VM without a PMU); the choice is in pmc_sampler_event(). */
	const char *event;
	uint64_t freq;	      /* samples per second (attr.freq = 1); 0: the default */
	uint64_t period;      /* instead of freq: one sample every period events */
	bool no_callchain;    /* leave PERF_SAMPLE_CALLCHAIN out: leaf functions only */
	bool exclude_kernel;  /* count user space only (":u"); perf_event_paranoid >= 2 needs it */
	/* Data pages per CPU, a power of two; 0: as perf record sizes them, what
	 * perf_event_mlock_kb lets an unprivileged user lock per CPU (128 pages of 4 KiB at
	 * its default of 516 KiB), at most 256. */
	unsigned pages;
	bool enable_on_exec;  /* disabled until the task execs (a pre-exec child) */
	const struct pmc_sys *sys; /* NULL: the kernel */
	/* Where sys/kernel/perf_event_max_sample_rate and perf_event_mlock_kb are read;
	 * NULL: "/proc". A frequency above the maximum sample rate is lowered to it, as
	 * perf record does: pmc_sampler_freq() says the rate used. */
	const char *proc_root;
};

enum pmc_record_type {
	PMC_RECORD_SAMPLE = 1,
	PMC_RECORD_MMAP, /* PERF_RECORD_MMAP2 (and PERF_RECORD_MMAP, without build-id) */
	PMC_RECORD_COMM,
	PMC_RECORD_FORK,
	PMC_RECORD_EXIT,
	PMC_RECORD_LOST,
};

/* One record, parsed. Pointers point into the sampler's store and stay valid until
 * pmc_sampler_close(). Every record carries pid, tid, time and cpu (sample_id_all). */
struct pmc_record {
	enum pmc_record_type type;
	uint32_t pid, tid;
	uint64_t time; /* ns, the perf clock */
	uint32_t cpu;
	union {
		struct {
			uint64_t ip;
			uint64_t period; /* events (ns for cpu-clock) this sample stands for */
			/* The call chain, leaf first, the kernel's context markers
			 * (PERF_CONTEXT_*) removed: ips[0 .. nkernel) are kernel addresses,
			 * ips[nkernel .. nips) user ones. nips is 0 without call chains.
			 * Frames the kernel marked as the hypervisor's or a guest's are left
			 * out: they are not the task's. */
			const uint64_t *ips;
			uint32_t nips, nkernel;
			bool kernel; /* ip is a kernel address (PERF_RECORD_MISC_KERNEL) */
			/* ip is in the hypervisor or a guest (PERF_RECORD_MISC_HYPERVISOR,
			 * _GUEST_KERNEL, _GUEST_USER): no address of the task. */
			bool foreign;
		} sample;
		struct {
			uint64_t addr, len, pgoff;
			uint32_t prot, flags;
			const char *filename; /* "//anon", "[vdso]", "/usr/lib/..." */
			const uint8_t *build_id; /* PERF_RECORD_MISC_MMAP_BUILD_ID, else NULL */
			uint32_t build_id_size;
			uint32_t maj, min;
			uint64_t ino;
		} mmap;
		struct {
			const char *comm;
			bool exec; /* PERF_RECORD_MISC_COMM_EXEC: the task exec'd */
		} comm;
		struct {
			uint32_t ppid, ptid;
		} task; /* FORK and EXIT */
		struct {
			uint64_t lost; /* samples the kernel dropped: the ring was full */
		} lost;
	};
};

struct pmc_sampler;

/* Opens the sampling events on task pid (0: the calling task) on every online CPU, and
 * maps their rings. Returns 0; -ENOENT/-EOPNOTSUPP when the event cannot sample here;
 * -EACCES/-EPERM when perf_event_paranoid or capabilities forbid it (err says which);
 * -EINVAL for bad options; -ENOMEM. */
int pmc_sampler_open(const struct pmc_sample_opts *opts, pid_t pid, struct pmc_sampler **ret,
		     char *err, size_t errlen);

/* Waits up to timeout_ms (0: not at all) for a ring to fill past its watermark, then
 * copies every complete record of every ring into the store and frees the space.
 * Returns the records copied, or -errno. */
int pmc_sampler_poll(struct pmc_sampler *s, int timeout_ms);

/* Calls fn for every stored record in time order (stable for equal times); a non-zero
 * return stops the replay and is returned. */
typedef int (*pmc_record_fn)(const struct pmc_record *rec, void *ud);
int pmc_sampler_replay(struct pmc_sampler *s, pmc_record_fn fn, void *ud);

/* The event sampled ("cpu-clock"), its unit for a sample's period ("ns" or "events"), the
 * frequency asked for (0 with a period), samples and lost samples so far. */
const char *pmc_sampler_event(const struct pmc_sampler *s);
const char *pmc_sampler_unit(const struct pmc_sampler *s);
uint64_t pmc_sampler_freq(const struct pmc_sampler *s);
uint64_t pmc_sampler_samples(const struct pmc_sampler *s);
uint64_t pmc_sampler_lost(const struct pmc_sampler *s);
/* Times the kernel throttled the sampling event (PERF_RECORD_THROTTLE: samples came
 * faster than perf_cpu_time_max_percent allows, and it stopped sampling for the rest of
 * a tick): the profile misses those samples. */
uint64_t pmc_sampler_throttled(const struct pmc_sampler *s);

void pmc_sampler_close(struct pmc_sampler *s);

/* Sampling with perf_event_open (docs/profile.md, "Sampling"): one sampling event per
 * online CPU on a task and the tasks it starts (inherit=1: the kernel refuses to mmap an
 * inherited per-task event, so the events are per CPU, as perf record's are), each with
 * its own ring buffer of 1 + 2^n pages, read with the kernel's head/tail protocol
 * (acquire load of data_head, copy, release store of data_tail) through the syscall
 * layer (counters/perf/sys.h), so tests can put an emulated PMU with a ring buffer in place of
 * the kernel (tests/fake_pmu.c).
 *
 *	pmc_sampler_open(&opts, pid, &s, err, sizeof(err));  on a stopped or pre-exec task
 *	while (running) {
 *		pmc_sampler_poll(s, 100);                    copies records out of the rings
 *		pmc_sampler_flush(s, false, fn, ud);         those no later poll can precede
 *	}
 *	pmc_sampler_poll(s, 0);                              once the task was reaped
 *	pmc_sampler_flush(s, true, fn, ud);                  the rest, in time order
 *	pmc_sampler_close(s);
 *
 * Flushing as it goes keeps the memory a recording takes to what two polls read, whatever
 * its length; pmc_sampler_replay() instead hands out what is stored and keeps it.
 *
 * One thread may poll while another flushes, as perf record only copies the rings and
 * leaves the naming of the samples to perf report: a slow consumer of the records (one
 * that reads /proc/kallsyms or an object's CFI the first time it needs them) then delays
 * nothing but the store's release, and the rings keep being emptied. The store holds at
 * most store_max bytes; past that a poll leaves records in the rings (the kernel drops
 * what no longer fits and says so, PERF_RECORD_LOST) and waits for a flush, which then
 * hands out everything stored, at the risk of a record read later being older.
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

/* DWARF call graphs (pmc_sample_opts.stack_user): perf record's default copy of the user
 * stack per sample, and the largest the kernel takes (perf_copy_attr: below USHRT_MAX, a
 * multiple of 8, as a sample's size is a u16). */
#define PMC_SAMPLE_STACK_DEFAULT 8192
#define PMC_SAMPLE_STACK_MAX 65528

struct pmc_sample_opts {
	size_t sz; /* sizeof(struct pmc_sample_opts) */
	/* The event sampled, in perf's syntax for a generic event: "cycles", "cpu-clock",
	 * "task-clock", ... NULL: "cycles" when the machine has it, else "cpu-clock" (what
	 * samples on a VM without a PMU); the choice is in pmc_sampler_event(). */
	const char *event;
	uint64_t freq;	   /* samples per second (attr.freq = 1); 0: the default */
	uint64_t period;   /* instead of freq: one sample every period events */
	bool no_callchain; /* leave PERF_SAMPLE_CALLCHAIN out: leaf functions only */
	/* DWARF call graphs, as perf record --call-graph dwarf,SIZE: each sample carries the
	 * task's user registers (PERF_SAMPLE_REGS_USER, pmc_sampler_regs_mask()) and the
	 * first stack_user bytes of its user stack (PERF_SAMPLE_STACK_USER), for an unwinder
	 * to walk with the objects' CFI; the kernel's call chain then holds its own frames
	 * only (exclude_callchain_user). A multiple of 8, at most PMC_SAMPLE_STACK_MAX (else
	 * -EINVAL); 0: frame-pointer chains from the kernel. x86-64 and arm64 only (-EOPNOTSUPP).
	 */
	uint32_t stack_user;
	bool exclude_kernel; /* count user space only (":u"); perf_event_paranoid >= 2 needs it */
	/* Data pages per CPU, a power of two; 0: as perf record sizes them, what
	 * perf_event_mlock_kb lets an unprivileged user lock per CPU (128 pages of 4 KiB at
	 * its default of 516 KiB), at most 256; with stack_user four times that, within 16
	 * MiB over all CPUs, where the kernel lets this user lock it (else perf's size). */
	unsigned pages;
	bool enable_on_exec; /* disabled until the task execs (a pre-exec child) */
	/* pid is a running process to attach to, as perf record -p: every thread it has
	 * (listed in PROC/PID/task, under proc_root), each with inherit so that the threads
	 * and processes it starts later are sampled too; the events of one CPU share its
	 * ring (PERF_EVENT_IOC_SET_OUTPUT). */
	bool attach;
	const struct pmc_sys *sys; /* NULL: the kernel */
	/* Where sys/kernel/perf_event_max_sample_rate and perf_event_mlock_kb are read;
	 * NULL: "/proc". A frequency above the maximum sample rate is lowered to it, as
	 * perf record does: pmc_sampler_freq() says the rate used. */
	const char *proc_root;
	/* The most bytes of records copied out of the rings and not yet flushed; 0:
	 * PMC_SAMPLE_STORE_DEFAULT. */
	size_t store_max;
	/* Off-CPU time (docs/profile.md, "Off-CPU time"), instead of event, freq and period:
	 * every switch-out of the task, a sample of the tracepoint sched:sched_switch (period
	 * 1, its call chain where the task waits), and PERF_RECORD_SWITCH records
	 * (attr.context_switch) that say when it runs again. The tracepoint's id is read from
	 * tracefs under tracefs_root (NULL: found, or mounted, as pmc_tracefs_find does). The
	 * kernel is never excluded (a tracepoint fires in the kernel); exclude_kernel leaves
	 * its frames out of the call chains. */
	bool off_cpu;
	const char *tracefs_root;
};

/* The store's default bound: two seconds of DWARF samples at 4000 Hz on 4 CPUs (8 KiB
 * each), what a consumer that falls behind at the start may need. */
#define PMC_SAMPLE_STORE_DEFAULT ((size_t)256 << 20)

enum pmc_record_type {
	PMC_RECORD_SAMPLE = 1,
	PMC_RECORD_MMAP, /* PERF_RECORD_MMAP2 (and PERF_RECORD_MMAP, without build-id) */
	PMC_RECORD_COMM,
	PMC_RECORD_FORK,
	PMC_RECORD_EXIT,
	PMC_RECORD_LOST,
	PMC_RECORD_SWITCH, /* PERF_RECORD_SWITCH: the task left (out) or took a CPU */
};

/* One record, parsed. Pointers point into the sampler's store and stay valid until
 * pmc_sampler_close(), or the next pmc_sampler_flush(). Every record carries pid, tid, time and cpu
 * (sample_id_all). */
struct pmc_record {
	enum pmc_record_type type;
	uint32_t pid, tid;
	uint64_t time; /* ns, CLOCK_MONOTONIC (else the perf clock: pmc_sampler_monotonic) */
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
			/* With stack_user: the user registers (PERF_SAMPLE_REGS_USER) at the
			 * sample, or where the task entered the kernel, one u64 per bit of
			 * regs_mask from the lowest (asm/perf_regs.h numbers them); regs_abi is
			 * PERF_SAMPLE_REGS_ABI_64, _32, or _NONE (a kernel thread: no
			 * registers, nregs 0, and no stack). */
			const uint64_t *regs;
			uint64_t regs_mask;
			uint32_t nregs, regs_abi;
			/* The copy of the user stack from the stack pointer up: stack_dyn_size
			 * bytes at stack (NULL when 0); the kernel set aside stack_size, what
			 * was asked unless the record's 64 KiB limit lowered it. A copy shorter
			 * than stack_size ended at the stack's top (it holds the whole stack);
			 * one as long may have been cut: the unwinder knows which. */
			const uint8_t *stack;
			uint64_t stack_size, stack_dyn_size;
		} sample;
		struct {
			uint64_t addr, len, pgoff;
			uint32_t prot, flags;
			const char *filename;	 /* "//anon", "[vdso]", "/usr/lib/..." */
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
		struct {
			bool out;     /* PERF_RECORD_MISC_SWITCH_OUT: it left the CPU */
			bool preempt; /* ... while runnable (PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) */
		} sw;
	};
};

struct pmc_sampler;

/* Opens the sampling events on task pid (0: the calling task; with opts.attach, every
 * thread of process pid) on every online CPU, and maps their rings. Returns 0;
 * -ENOENT/-EOPNOTSUPP when the event cannot sample here; -EACCES/-EPERM when
 * perf_event_paranoid or capabilities forbid it (err says which); -ESRCH when there is no
 * process pid to attach to; -EINVAL for bad options; -ENOMEM. */
int pmc_sampler_open(const struct pmc_sample_opts *opts, pid_t pid, struct pmc_sampler **ret,
		     char *err, size_t errlen);

/* Waits up to timeout_ms (0: not at all) for a ring to fill past its watermark, then
 * copies every complete record of every ring into the store and frees the space; with
 * the store full (store_max), it copies what fits, and waits up to timeout_ms for a
 * flush to give memory back before it copies more. Returns the records copied, or
 * -errno. May run on one thread while pmc_sampler_flush() runs on another. */
int pmc_sampler_poll(struct pmc_sampler *s, int timeout_ms);

/* Calls fn for every stored record in time order (stable for equal times); a non-zero
 * return stops the replay and is returned. The records stay stored. */
typedef int (*pmc_record_fn)(const struct pmc_record *rec, void *ud);
/* Seam for the tests: the stored records handed out again, so that a test reads what a
 * recording kept without the flushes' timing. */
int pmc_sampler_replay(struct pmc_sampler *s, pmc_record_fn fn, void *ud);

/* Calls fn, in time order, for the stored records that no record a later poll reads can
 * come before: those up to the latest time that the polls before the last one read, as
 * perf orders its records in rounds (all: every stored record, once no poll will
 * follow). Then forgets them and gives their memory back; the pointers handed out by
 * this call, and by earlier replays, are valid until the next flush. A non-zero return
 * of fn stops the flush and is returned (the records up to that one are forgotten).
 * fn runs without the store's lock: a poll on another thread goes on meanwhile; one
 * thread at a time flushes. */
int pmc_sampler_flush(struct pmc_sampler *s, bool all, pmc_record_fn fn, void *ud);

/* The event sampled ("cpu-clock"), its unit for a sample's period ("ns" or "events"), the
 * frequency asked for (0 with a period), samples and lost samples so far. */
const char *pmc_sampler_event(const struct pmc_sampler *s);
const char *pmc_sampler_unit(const struct pmc_sampler *s);
uint64_t pmc_sampler_freq(const struct pmc_sampler *s);
/* The user registers each sample carries with stack_user (asm/perf_regs.h bits: perf's
 * set for unwinding, every x86-64 general register, flags, cs and ss), 0 without. */
/* Seam for the tests: the registers asked of the kernel for --call-graph dwarf, which the
 * tests check per architecture. */
uint64_t pmc_sampler_regs_mask(const struct pmc_sampler *s);
/* Whether the records' times are CLOCK_MONOTONIC's (attr.clockid, Linux 4.1), as a JIT's
 * jitdump stamps its records; false: the kernel's perf clock, which no process reads. */
bool pmc_sampler_monotonic(const struct pmc_sampler *s);
uint64_t pmc_sampler_samples(const struct pmc_sampler *s);
uint64_t pmc_sampler_lost(const struct pmc_sampler *s);
/* Times the kernel throttled the sampling event (PERF_RECORD_THROTTLE: samples came
 * faster than perf_cpu_time_max_percent allows, and it stopped sampling for the rest of
 * a tick): the profile misses those samples. */
uint64_t pmc_sampler_throttled(const struct pmc_sampler *s);
/* Polls that found the store full (store_max) and left records in the rings. */
uint64_t pmc_sampler_store_full(const struct pmc_sampler *s);

void pmc_sampler_close(struct pmc_sampler *s);

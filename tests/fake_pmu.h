/* An emulated PMU behind struct pmc_sys, for unit tests of the counter engine on
 * machines without one. It follows the kernel where the engine depends on it:
 *
 * - N hardware counters. A group whose hardware events need more than N fails at the
 *   member that does not fit with EINVAL, as x86's validate_group() does. Optionally
 *   fixed counters for cycles and instructions, and an NMI watchdog that holds the fixed
 *   cycles counter at run time only (cfg.fixed_counters, cfg.nmi_watchdog).
 * - A kernel version (cfg.kernel): before 4.13 inherit with PERF_FORMAT_GROUP is EINVAL.
 * - Reads with PERF_FORMAT_GROUP on a leader, or without it on any event
 *   ({value, time_enabled, time_running, id}).
 * - cfg.need_exclude_guest: hardware events need exclude_guest (EOPNOTSUPP), as on
 *   Apple's M1.
 * - Time passes only in fake_pmu_tick(), in quanta of FAKE_PMU_QUANTUM_NS. In each
 *   quantum the enabled hardware groups are scheduled in creation order, starting one
 *   further each quantum (the kernel's rotation), until one does not fit; a scheduled
 *   group adds the quantum to time_running and fake_pmu_rate() to each value. So with
 *   3 groups of 2 events on 4 counters, each group runs exactly 2 quanta out of 3.
 * - Pinned groups (attr.pinned, or every hardware group with cfg.pinned) are scheduled
 *   first; one that does not fit goes into an error state and reads 0 bytes.
 * - Software events always run. With exclude_kernel, context switches, CPU migrations
 *   and cgroup switches count nothing (the kernel records them in kernel mode and
 *   perf_exclude_event() drops them); faults count (the task's are user-mode ones) and
 *   the clocks count time whatever the exclude bits say.
 * - perf_event_paranoid as the kernel applies it to an unprivileged caller: >= 2 denies
 *   counting kernel space (EACCES unless exclude_kernel), >= 3 (Debian) denies every
 *   perf_event_open; cfg.privileged (CAP_PERFMON) lifts both.
 * - A group member on another CPU or task than its leader, and an event on neither a
 *   task nor a CPU (pid -1, cpu -1), fail with EINVAL, as perf_event_open() refuses them.
 *   A CPU-wide event (pid -1) needs paranoid <= 0 or cfg.privileged (EACCES); an exited
 *   task is ESRCH (cfg.gone_pid), another user's EACCES (cfg.foreign_pid).
 * - EMFILE once cfg.max_fds descriptors are open; ENOENT for hardware, cache and raw
 *   events with cfg.no_pmu; EINVAL for a hardware event with cfg.einval_config;
 *   optionally an msr-like PMU (cfg.msr_type) that cannot exclude privilege levels.
 * - Group reads return {value, id} pairs leader first in attach order, or reversed
 *   with cfg.reverse_ids; ids are handed out in decreasing order.
 * - Sampling (counters/perf/sample.h): the online CPUs are cfg.online ("0" when NULL);
 *   attr.build_id fails with EINVAL under cfg.no_build_id (kernels before 5.12). An
 *   event mmaps 1 + 2^n pages: a struct perf_event_mmap_page (data_offset, data_size)
 *   then the data ring; mmap of an inherited event not bound to a CPU fails with EINVAL,
 *   as the kernel refuses it. Records are written only when a test calls
 *   fake_pmu_emit() or a builder below, at data_head, wrapping at the ring's end, and
 *   data_head is advanced with a release store. A record that does not fit in the space
 *   the reader has freed (data_tail) is dropped and counted; the next record that fits
 *   together with a PERF_RECORD_LOST is preceded by that LOST record, as the kernel's
 *   perf_output_begin() does. poll() reports POLLIN on a ring with unread data and
 *   POLLHUP on every event after fake_pmu_hangup() (the task exited); it never waits.
 *   PERF_EVENT_IOC_SET_OUTPUT points an event at another's ring as the kernel's
 *   perf_event_set_output() allows: EBADF when the target is no event; EINVAL for a
 *   target on another CPU (or, not bound to one, of another task), with another clock or
 *   write direction, without a ring, or for an event with a ring of its own mapped.
 * - Self-monitoring (fake_pmu_selfmon.c, counters/perf/selfread.h): a counting event maps its
 *   control page alone (one page, no ring). The page is written as the kernel's
 *   perf_event_update_userpage() does, lock bumped before and after: when the event is
 *   put on or taken off a counter at a quantum, when it is mapped, enabled, disabled or
 *   reset, and when its counter overflowed (the PMI, emulated at the next quantum, so a
 *   reader in between sees the counter wrapped). A hardware event on a counter has index
 *   = its counter + 1 (general-purpose counters from 0, the fixed ones as rdpmc names
 *   them, 1 << 30 | n: instructions 0, cycles 1), offset such that offset + the counter
 *   sign-extended from pmc_width is its value when the counter was armed (at -pmc_left,
 *   as a counting event is) since the event was last read; a read() or a reset reads the
 *   counter, and a page written after that (by the reset, or a mapping) has offset =
 *   the count less the counter zero-extended, as the kernel's prev_count then is; index
 *   is 0 off a counter, for software events and without rdpmc. cap_user_rdpmc follows
 *   cfg.rdpmc (x86's sysfs rdpmc) as the event was created. The times are the kernel's
 *   at the write, with time_mult, time_shift and time_offset converting a fake TSC
 *   (2.56 GHz, starting at 2^40, so that a reader that multiplies before shifting
 *   overflows) and, with cfg.tsc_bits, a TSC that narrow (cap_user_time_short,
 *   time_cycles, time_mask). The fake rdpmc returns the counter and counts a fault
 *   (rdpmc_faults) when rdpmc is not allowed (setting 0, or 1 without a mapping of an
 *   rdpmc event) and a stale read (rdpmc_stale) for a counter no event is on; both
 *   return garbage, so a reader that uses them gets wrong numbers. on_rdpmc runs once
 *   inside the next rdpmc, before it reads: a concurrent update.
 * - Hybrid and big.LITTLE CPUs (cfg.ncores > 0): several core PMUs, each with its type,
 *   its CPUs and its own counters (and fixed counters, nmi_watchdog, as above); without
 *   them, one PMU on every CPU. The task runs on one CPU at a time (fake_pmu_run_on(),
 *   CPU 0 at first); in a quantum only the groups of the core PMU owning that CPU are
 *   scheduled: the others' time counts as enabled, not running, as the kernel's event
 *   filter (x86 hybrid, arm_pmu) leaves them. Legacy hardware and cache events without a
 *   PMU type in config bits 32-63 go to cfg.legacy_core, raw events to the core PMU of
 *   type PERF_TYPE_RAW (else cfg.legacy_core), as kernel/events/core.c perf_init_event()
 *   routes them. A PMU type in bits 32-63 (PERF_PMU_TYPE_SHIFT) picks that core PMU,
 *   ENOENT when no core PMU has it. With cfg.no_extended_type (kernels before the
 *   extended type: x86 before 5.13, arm64 before 6.6), a hardware event with those bits
 *   is EINVAL (config beyond PERF_COUNT_HW_MAX) and a cache event's bits are ignored
 *   (the kernel reads only its low three bytes): it silently goes to cfg.legacy_core. A
 *   group cannot span core PMUs (EINVAL), and an event bound to a CPU its PMU does not
 *   own fails with ENOENT. Every event of a core PMU (generic, raw, or of the PMU's own
 *   type) takes a counter, and its page an index, only while scheduled on a CPU of its
 *   PMU; fake_pmu_run_on() to a CPU of another type schedules at once, as a migration
 *   does: the old type's events leave their counters, their pages written with index 0
 *   (arch/x86/events/core.c, x86_pmu_del(): perf_event_index() is 0 for a stopped
 *   event), and the new type's take theirs. rdpmc reads the counters of the PMU of the
 *   task's CPU (a stale read for a number none of its events is on). */
#pragma once

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "counters/perf/sys.h"

#define FAKE_PMU_MAX_EVENTS 128
#define FAKE_PMU_MAX_LOG 512
#define FAKE_PMU_FD_BASE 1000
#define FAKE_PMU_QUANTUM_NS UINT64_C(1000000)
#define FAKE_PMU_MAX_CORES 3

/* A core PMU of a hybrid or big.LITTLE CPU, as sysfs lists it. */
struct fake_pmu_core {
	const char *name;  /* "cpu_core" */
	uint32_t type;	   /* its perf_event_attr.type */
	uint64_t cpus;	   /* bit c: CPU c is of this type */
	unsigned counters; /* its general-purpose counters */
};

struct fake_pmu_config {
	unsigned counters; /* hardware counters */
	bool no_pmu;	   /* hardware, cache and raw events fail with ENOENT */
	int paranoid;	   /* emulated perf_event_paranoid */
	bool privileged;   /* CAP_PERFMON: paranoid does not apply */
	int max_fds;	   /* EMFILE when this many are open; 0: no limit */
	bool pinned;	   /* every hardware group is pinned */
	bool reverse_ids;  /* group reads list the events in reverse order */
	/* A hardware event with einval_config fails with EINVAL, alone or in a group (a
	 * config this PMU rejects). */
	bool einval;
	uint64_t einval_config;
	uint32_t enoent_hw_mask; /* bit c: generic hardware event config c fails, ENOENT */
	int read_error;		 /* a positive errno every read fails with; 0: none */
	/* Nonzero: a PMU of this type that counts like a software one but, like the msr
	 * PMU, refuses exclude_user/kernel/hv with EINVAL. */
	uint32_t msr_type;
	/* /sys/devices/system/cpu/online; NULL: "0". When set, an event bound to a CPU it
	 * does not list fails with EINVAL, as for a CPU that does not exist. */
	const char *online;
	bool no_build_id; /* attr.build_id fails with EINVAL */
	bool tracepoints; /* PERF_TYPE_TRACEPOINT events open (any id); else ENOENT */
	/* PERF_SAMPLE_STACK_USER fails with ENOSYS, as on an architecture without
	 * perf_user_stack_dump (perf_copy_attr). */
	bool no_stack_user;
	/* The emulated kernel's version, FAKE_PMU_KERNEL(4, 12); 0: a recent one. Before
	 * 4.13, inherit together with PERF_FORMAT_GROUP fails with EINVAL. */
	unsigned kernel;
	/* Like Apple's M1 PMU driver: a hardware event without exclude_guest fails with
	 * EOPNOTSUPP. */
	bool need_exclude_guest;
	/* Like Intel's fixed counters: one for instructions and one for cycles besides the
	 * `counters` general-purpose ones. With nmi_watchdog the kernel's watchdog holds
	 * the fixed cycles counter at run time (it is pinned), though a group is validated
	 * at open against an empty PMU, as x86's validate_group() does. */
	bool fixed_counters;
	bool nmi_watchdog;
	/* arm_pmu's validate_group() (drivers/perf/arm_pmu.c, validate_event): an event in
	 * state OFF (opened disabled) that is not to be enabled on exec takes no counter
	 * in the check at open, so a disabled leader is left out; x86 counts the leader
	 * whatever its state. */
	bool arm_validate;
	/* perf_event_max_sample_rate: attr.freq above it fails with EINVAL; 0: none. */
	uint64_t max_sample_rate;
	/* perf_mmap()'s accounting when mlock_kb is set: each user may lock mlock_kb per
	 * online CPU in rings, and past that memlock_kb more (RLIMIT_MEMLOCK); beyond,
	 * mmap fails with EPERM unless ipc_lock (CAP_IPC_LOCK; CAP_PERFMON, privileged,
	 * does not lift it) or paranoid is -1. */
	uint64_t mlock_kb, memlock_kb;
	bool ipc_lock;
	/* Nonzero: the pid of a task that has exited (ESRCH for it). */
	pid_t gone_pid;
	/* Nonzero: the pid of another user's task: unprivileged, perf_event_open() refuses it
	 * with EACCES, as perf_check_permission() does when the caller may not ptrace it
	 * (PTRACE_MODE_READ_REALCREDS); cfg.privileged lifts it, as CAP_PERFMON does. */
	pid_t foreign_pid;
	/* A hardware event with this config gets EBUSY (another tool holds what it needs
	 * exclusively, as with intel_pt or an exclusive event); busy: whether it is set. */
	bool busy;
	uint64_t busy_config;
	/* Like older ARM PMU drivers: a hardware event with an exclude bit set gets EPERM
	 * (a setting the PMU cannot honour, not a permission). */
	bool eperm_exclude;
	/* x86's /sys/bus/event_source/devices/cpu/rdpmc: 0 (this zero default; the kernel
	 * boots with 1) no rdpmc; 1 rdpmc while the task maps the page of an event created
	 * under 1 or 2; 2 always. */
	int rdpmc;
	unsigned pmc_width; /* bits of a hardware counter; 0: 48 */
	/* Events from arming a counter to its overflow; 0: 2^(pmc_width - 1) - 1, the
	 * kernel's max_period for a counting event. */
	uint64_t pmc_left;
	/* Like Intel's core PMU from Ice Lake on (PERF_METRICS; arch/x86/events/intel/core.c):
	 * raw events slots (event 0, umask 0x04) on fixed counter 3 and the topdown metric
	 * events (event 0, umask 0x80-0x87) on no counter. intel_pmu_hw_config() refuses
	 * (EINVAL) a topdown event with config1, config2 or counter flags, and a metric
	 * event that samples, or whose leader is not a slots event or samples. rdpmc of a
	 * metric event's index (1 << 29) gives the PERF_METRICS register (four fractions
	 * packed in bytes, counted in rdpmc_metrics), and a read() of the group resets fixed
	 * counter 3 and PERF_METRICS (intel_update_topdown_event()) without writing the pages,
	 * so slots' offset + its counter is no longer its count. */
	bool perf_metrics;
	bool no_user_time; /* pages without cap_user_time (a TSC the kernel distrusts) */
	unsigned tsc_bits; /* a TSC this wide, with cap_user_time_short; 0: 64 */
	/* Hybrid CPUs (see above); ncores 0: one PMU of `counters` on every CPU. */
	struct fake_pmu_core cores[FAKE_PMU_MAX_CORES];
	unsigned ncores;
	unsigned legacy_core;  /* where legacy hardware and cache events go */
	bool no_extended_type; /* config bits 32-63 do not name a PMU (older kernels) */
	/* Nonzero: a RAPL-like `power` PMU of this type (arch/x86/events/rapl.c): sysfs
	 * gives it cpumask power_cpumask ("0" when NULL) and events energy-cores (0x01)
	 * and energy-pkg (0x02) with their .scale (2^-32) and .unit ("Joules"). It counts
	 * CPUs, not tasks: an event with cpu < 0 (per task) or another config fails with
	 * EINVAL as rapl_pmu_event_init() refuses it, so does an exclude bit (the PMU has
	 * PERF_PMU_CAP_NO_EXCLUDE); a CPU-wide open is refused by the paranoid check above
	 * (EACCES at >= 1 unprivileged). Enabled, it counts every quantum like a software
	 * event, whatever the task does. */
	uint32_t power_type;
	const char *power_cpumask;
};

#define FAKE_PMU_KERNEL(a, b) ((unsigned)(a) << 16 | (unsigned)(b) << 8)

struct fake_pmu_event {
	bool used;
	struct perf_event_attr attr;
	pid_t pid;
	int cpu;
	int leader;   /* slot of the group leader (itself for a leader) */
	unsigned seq; /* creation order */
	uint64_t id;
	bool enabled;
	bool error_state; /* pinned and could not be scheduled */
	uint64_t value, time_enabled, time_running;
	void *ring; /* the mmapped pages, kept until munmap even after close */
	size_t ring_len;
	/* PERF_EVENT_IOC_SET_OUTPUT: 1 + the slot of the event whose ring this one writes
	 * into; 0: its own. */
	int output;
	uint64_t pending_lost; /* records dropped since the last LOST record */
	/* Self-monitoring: created while cfg.rdpmc allowed rdpmc; on a counter (rdpmc's
	 * number for it); the counter and the value when it was armed. */
	bool rdpmc_ok, on_counter;
	unsigned counter;
	uint64_t raw0, v0;
	/* The kernel's prev_count was last set by reading the counter (a read() or a
	 * reset: x86_perf_event_update() stores rdpmc's zero-extended value), not by
	 * arming it (x86_perf_event_set_period(): -left, sign-extended). */
	bool prev_read;
	int core; /* the core PMU it counts on; -1: none (software, msr) */
};

struct fake_pmu_open {
	struct perf_event_attr attr;
	pid_t pid;
	int cpu;
	int group_fd;
	unsigned long flags;
	int result; /* fd or -errno */
};

struct fake_pmu {
	struct pmc_sys sys; /* give &f->sys to the engine */
	struct fake_pmu_config cfg;
	struct fake_pmu_event ev[FAKE_PMU_MAX_EVENTS];
	unsigned rotation, next_seq;
	int nopen;
	struct fake_pmu_open log[FAKE_PMU_MAX_LOG];
	size_t nlog;
	unsigned reads, ioctls, closes, bad_closes;
	unsigned mmaps, munmaps;
	bool hangup;
	uint64_t locked_kb;   /* what the rings mapped now take */
	unsigned set_outputs; /* PERF_EVENT_IOC_SET_OUTPUT calls that succeeded */
	/* Runs after each successful open, with on_open_ud: the kernel changing under the
	 * caller between two opens (a sysctl lowered, say). */
	void (*on_open)(struct fake_pmu *f, void *ud);
	void *on_open_ud;
	/* Self-monitoring: the TSC; rdpmc calls, faults, stale reads; page writes. */
	uint64_t tsc;
	unsigned rdpmcs, rdpmc_faults, rdpmc_stale, page_writes, rdpmc_metrics;
	void (*on_rdpmc)(struct fake_pmu *f, void *ud);
	void *on_rdpmc_ud;
	int cpu; /* the CPU the counted task runs on */
};

void fake_pmu_init(struct fake_pmu *f, const struct fake_pmu_config *cfg);

/* Lets n quanta of time pass for the task being counted. */
void fake_pmu_tick(struct fake_pmu *f, unsigned n);

/* The counted task moves to cpu: the next quanta run there. */
void fake_pmu_run_on(struct fake_pmu *f, int cpu);

/* The next n quanta run on cpu. */
void fake_pmu_tick_on(struct fake_pmu *f, int cpu, unsigned n);

/* What an event on core PMU `core` adds per quantum it runs (hybrid configurations):
 * distinct for each core PMU and event. */
uint64_t fake_pmu_core_rate(const struct fake_pmu *f, unsigned core, uint64_t config);

/* A sysfs tree for cfg in a new temporary directory (its path into root, PATH_MAX): each
 * core PMU with type, cpus, events/{cycles,instructions} and format/{event,umask}; a
 * "cpu" PMU instead when cfg has no cores; "software" (type 1); "msr" when cfg.msr_type.
 * Returns 0 or -errno. fake_pmu_sysfs_remove() deletes it. */
int fake_pmu_sysfs(const struct fake_pmu_config *cfg, char *root);
void fake_pmu_sysfs_remove(const char *root);

/* The counted task execs: events opened with enable_on_exec are enabled. */
void fake_pmu_exec(struct fake_pmu *f);

/* What an event adds to its value per quantum it runs: distinct for each event. */
uint64_t fake_pmu_rate(uint32_t type, uint64_t config);

/* With cfg.perf_metrics: whether a is the slots event, or a topdown metric event. */
bool fake_pmu_is_slots(const struct fake_pmu *f, const struct perf_event_attr *a);
bool fake_pmu_is_metric(const struct fake_pmu *f, const struct perf_event_attr *a);

/* The slot of an open fd, or NULL. */
struct fake_pmu_event *fake_pmu_lookup(struct fake_pmu *f, int fd);

/* Number of open attempts for (type, config) in the log. */
size_t fake_pmu_open_attempts(const struct fake_pmu *f, uint32_t type, uint64_t config);

/* Sampling. The fields every record carries with sample_id_all (the CPU is the ring's). */
struct fake_pmu_id {
	uint32_t pid, tid;
	uint64_t time;
};

/* The mapped ring of the sampling event on cpu, or NULL. */
struct perf_event_mmap_page *fake_pmu_ring(struct fake_pmu *f, int cpu);

/* Moves an empty ring's data_head and data_tail to pos, so the next record can straddle
 * the ring's end. */
void fake_pmu_ring_seek(struct fake_pmu *f, int cpu, uint64_t pos);

/* Writes one complete record (header included) into cpu's ring as the kernel would.
 * Returns 0; -ENOSPC when it was dropped (and counted as lost); -ENOENT without ring. */
int fake_pmu_emit(struct fake_pmu *f, int cpu, const void *rec, size_t size);

/* Writes len bytes into cpu's ring as they are, with no check: for corrupt records. */
int fake_pmu_emit_raw(struct fake_pmu *f, int cpu, const void *bytes, size_t len);

/* Builders of records laid out by the event's sample_type (IP, TID, TIME, CPU, PERIOD,
 * CALLCHAIN as set) and sample_id_all; each returns what fake_pmu_emit() returns. chain
 * is written as given, PERF_CONTEXT_* markers included. */
int fake_pmu_sample(struct fake_pmu *f, int cpu, const struct fake_pmu_id *id, uint16_t misc,
		    uint64_t ip, uint64_t period, const uint64_t *chain, unsigned nchain);
/* PERF_RECORD_MMAP2; build_id NULL: maj 8, min 1, ino 1234 instead. */
int fake_pmu_mmap2(struct fake_pmu *f, int cpu, const struct fake_pmu_id *id, uint64_t addr,
		   uint64_t len, uint64_t pgoff, const char *filename, const uint8_t *build_id,
		   unsigned build_id_size);
int fake_pmu_comm(struct fake_pmu *f, int cpu, const struct fake_pmu_id *id, const char *comm,
		  bool exec);
/* type PERF_RECORD_FORK or PERF_RECORD_EXIT; id->pid/tid are the child's. */
/* A PERF_RECORD_THROTTLE (or _UNTHROTTLE) of cpu's sampling event, as the kernel writes
 * when samples take more CPU time than perf_cpu_time_max_percent allows. */
int fake_pmu_throttle(struct fake_pmu *f, int cpu, const struct fake_pmu_id *id, bool unthrottle);
int fake_pmu_task(struct fake_pmu *f, int cpu, uint32_t type, const struct fake_pmu_id *id,
		  uint32_t ppid, uint32_t ptid);

/* The task exited: poll() reports POLLHUP. */
void fake_pmu_hangup(struct fake_pmu *f);

/* Self-monitoring (fake_pmu_selfmon.c). */
#define FAKE_PMU_TSC_START (UINT64_C(1) << 40)
#define FAKE_PMU_TSC_PER_QUANTUM UINT64_C(2560000) /* 2.56 GHz */
/* A PMI on the counter of event fd (-1: on every counter) now: it is armed again
 * (offset and counter change, index does not) and its page written. */
void fake_pmu_rearm(struct fake_pmu *f, int fd);
/* The counter event fd is on, as rdpmc would read it (without counting a call); 0 when
 * it is on none. */
uint64_t fake_pmu_counter(struct fake_pmu *f, int fd);
/* Hooks of fake_pmu.c: set up; the quantum's groups are about to run (scheduled[] by
 * leader slot); the quantum ran; before and after an ioctl; an event closed. */
void fake_pmu_selfmon_init(struct fake_pmu *f);
void fake_pmu_selfmon_sched(struct fake_pmu *f, const bool *scheduled);
void fake_pmu_selfmon_ran(struct fake_pmu *f);
void fake_pmu_selfmon_anchor(struct fake_pmu *f);
void fake_pmu_selfmon_sync(struct fake_pmu *f);
/* Writes e's page (when mapped) as perf_event_update_userpage() does. */
void fake_pmu_selfmon_write(struct fake_pmu *f, struct fake_pmu_event *e);

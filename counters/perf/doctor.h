/* The facts behind `pmcbench doctor`: can this machine count, and if not, why. Pure
 * collection (reads /proc and sysfs, probes a few events) with no printing, so the
 * runner can reuse the one-sentence explanation for its "unsupported" note. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct pmc_sys;

/* Where to look; NULL (or a NULL member) means the real machine. Tests point these at
 * a fake tree and an emulated PMU. */
struct pmc_doctor_opts {
	const char *proc_root;	   /* NULL: "/proc" */
	const char *sysfs_root;	   /* NULL: "/sys/bus/event_source/devices" */
	const struct pmc_sys *sys; /* NULL: the kernel (for the probes) */
};

#define PMC_DOCTOR_PROBES 4

/* One probe: the event opened alone on the calling thread, like `perf stat -e EVENT`. */
struct pmc_doctor_probe {
	char event[32]; /* "cycles", "instructions", "task-clock", "msr/tsc/" */
	bool hardware;	/* needs a PMU beyond the kernel's software one */
	bool tried;	/* false when the event does not exist here (e.g. no msr PMU) */
	int error;	/* 0 when it opened, else the positive errno of perf_event_open */
	bool user_only; /* opened only after retrying with exclude_kernel (:u) */
};

struct pmc_doctor {
	/* sysfs event_source devices */
	bool sysfs_readable;
	char pmus[512];	       /* their names, ", "-separated ("" when none) */
	bool cpu_pmu;	       /* a CPU PMU is registered (type PERF_TYPE_RAW, or "cpu*") */
	char cpu_pmu_name[64]; /* its name, "" when none */
	/* /proc/sys/kernel */
	int paranoid; /* perf_event_paranoid; meaningful when has_paranoid */
	bool has_paranoid;
	int nmi_watchdog; /* 1 on (it holds a hardware counter), 0 off, -1 unknown */
	/* /proc/self/status */
	bool caps_known;
	bool cap_perfmon;   /* CAP_PERFMON (38) in the effective set */
	bool cap_sys_admin; /* CAP_SYS_ADMIN (21) in the effective set */
	int seccomp;	    /* 0 off, 1 strict, 2 filter, -1 unknown */
	uid_t euid;
	/* /proc/cpuinfo */
	int hypervisor; /* 1 when the CPU flags say "hypervisor" (a VM), 0 not, -1 unknown */
	/* probes, in this order: cycles, instructions, task-clock, msr/tsc/ */
	struct pmc_doctor_probe probes[PMC_DOCTOR_PROBES];
	size_t nprobes;
	/* The errno of the first hardware probe that failed (cycles, then instructions),
	 * 0 when both opened. */
	int hw_error;
};

/* Collects the facts into *ret. Missing files leave their fields at "unknown" rather
 * than failing. Returns 0, or -EINVAL for bad arguments. */
int pmc_doctor_collect(const struct pmc_doctor_opts *opts, struct pmc_doctor *ret);

/* True when hardware events (cycles and instructions) open here. */
bool pmc_doctor_hw_ok(const struct pmc_doctor *d);

/* What a perf_event_paranoid level allows an unprivileged user, in a few words. */
const char *pmc_doctor_paranoid_meaning(int level);

/* Writes into buf (always NUL-terminated, cut at size) one plain sentence, without a
 * trailing period or newline, explaining why a hardware event failed to open with err
 * (positive or negative errno) on the machine d describes, and what to do; for
 * example "no hardware PMU: this looks like a virtual machine (hypervisor flag set)
 * whose hypervisor exposes no PMU; software events work". err == 0 gives
 * "hardware counters are available". Returns buf. */
const char *pmc_doctor_hw_reason(const struct pmc_doctor *d, int err, char *buf, size_t size);

/* Kernel event counts without a PMU (docs/events.md, "Tracepoints", "Function calls"):
 * where tracefs is (or why not: one line), whether the tracepoint and uprobe PMUs are
 * registered (their types), and what opening syscalls:sys_enter_getpid on this process
 * gives (0: it opens; an errno; -1 when not tried). */
struct pmc_doctor_kernel {
	char tracefs[256];
	char tracefs_why[512];
	int tracepoint_type, uprobe_type; /* -1: not registered */
	bool uprobe_retprobe;		  /* the uprobe PMU has the retprobe format */
	int tracepoint_error;
};
void pmc_doctor_kernel_collect(struct pmc_doctor_kernel *ret);

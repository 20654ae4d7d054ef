/* The counter engine (public API in pmcbench/counters.h): opens groups of perf events on
 * a task, enables, reads them by id and closes them, and gives every event a status
 * (docs/events.md, "Event status"). This header adds what stays inside the tree: the
 * variants that take the syscall layer, so tests can put an emulated PMU in place of the
 * kernel. */
#pragma once

#include "counters/perf/events.h"
#include "counters/reading.h"
#include "counters/perf/sys.h"
#include "pmcbench/counters.h"

/* pmc_counters_open through sys (NULL: the kernel). */
int pmc_counters_open_sys(const struct pmc_event_list *events, const struct pmc_counters_opts *opts,
			  const struct pmc_sys *sys, struct pmc_counters **ret);

/* Which events of a list pmc_counters_open_scope opens (docs/events.md, "Uncore and
 * RAPL events"): all, only the per-task ones, or only the system-wide ones (uncore,
 * RAPL: opened on the CPUs of their PMU's cpumask). An event left out reads as
 * not counted, error 0, so readings of two scopes can be merged by index. */
enum pmc_counters_scope { PMC_SCOPE_ALL, PMC_SCOPE_TASK, PMC_SCOPE_SYSTEM };

int pmc_counters_open_scope(const struct pmc_event_list *events,
			    const struct pmc_counters_opts *opts, const struct pmc_sys *sys,
			    enum pmc_counters_scope scope, struct pmc_counters **ret);

/* Hybrid CPUs (docs/events.md, "Hybrid CPUs"): event i was opened as parts, one per core
 * PMU it counts on, and pmc_counters_read gives their sum. The number of parts (0: opened
 * as one event, as on any other machine), part k's PMU ("cpu_core"; "" when the kernel
 * chose it), whether the event counts only on some core types (never extrapolated), and
 * part k's reading from the last read (its raw figures and its status by the rule). */
size_t pmc_counters_nparts(const struct pmc_counters *c, size_t i);
const char *pmc_counters_part_pmu(const struct pmc_counters *c, size_t i, size_t k);
bool pmc_counters_restricted(const struct pmc_counters *c, size_t i);
int pmc_counters_part_reading(const struct pmc_counters *c, size_t i, size_t k,
			      struct pmc_reading *ret);
/* All of it at once for event i, into *ret (ret->n 0 when it was not split). */
void pmc_counters_read_parts(const struct pmc_counters *c, size_t i, struct pmc_reading_parts *ret);

/* pmc_event_list_probe through sys (NULL: the kernel), reading perf_event_paranoid under
 * proc_root (NULL: "/proc"). */
int pmc_event_list_probe_sys(struct pmc_event_list *list, const struct pmc_probe_opts *opts,
			     const struct pmc_sys *sys, const char *proc_root,
			     struct pmc_probe_report **ret, char *err, size_t errlen);

/* Reads the groups opened on the calling thread (pid 0, no inherit) through their mmap
 * pages from now on, where the kernel allows rdpmc for every event of a group
 * (counters/perf/selfread.h); each read of such a group falls back to read() while it is not
 * on the PMU. On a hybrid CPU the groups are those opened per core PMU: each is read so
 * while the thread is on its core type, with read() otherwise. Returns the number of
 * groups that will be read so (0: none can, or the counters are not the calling
 * thread's, or sys has no rdpmc), or -ENOMEM. */
int pmc_counters_self_read(struct pmc_counters *c);

/* Pauses every event (pause true) or resumes it (docs/microbench.md, "Untimed work"):
 * what counts from the pause to the resume is in no later reading, counts and enabled and
 * running times alike. A group read through its pages (pmc_counters_self_read) is read at
 * both ends and the difference left out of its later reads: no system call while it is
 * on a counter. Any other group (a software event, rdpmc not allowed, a split group, a
 * system-wide event) is disabled and enabled again with ioctl(). A reset forgets what
 * the pauses left out. Returns 0 or -errno. */
int pmc_counters_pause(struct pmc_counters *c, bool pause);

/* Events held open for a session, where the kernel sets something up for the first
 * perf event of a kind and undoes it at the last close. A tracepoint's perf probe is
 * registered when the first event on it opens and unregistered, after an RCU grace
 * period, when the last one closes (docs/events.md, "Tracepoints";
 * kernel/trace/trace_event_perf.c, perf_trace_event_reg()), some milliseconds each. A
 * software event other than the clocks turns on a static key, patching the kernel's code
 * on every CPU (IPIs), and off again at its last close (kernel/events/core.c,
 * sw_perf_event_init()). A run opens its counters on the child and closes them after
 * it, and the session probes the events before the runs, so each would pay that. One
 * disabled event of each such kind, held by this process for the whole session, keeps
 * them set up: the other opens then only take a reference. They count nothing (never
 * enabled). Returns 0 with *ret (NULL when the list has none), or -ENOMEM; an event that
 * does not open is left out (the run reports its status). Not held, because the kernel
 * keeps it a second after the last close: the scheduler's perf hooks, whose enabling by
 * the machine's first task counter waits for an RCU grace period (kernel/events/core.c,
 * account_event()), so only an invocation's first open (the probe's) may wait. */
struct pmc_event_hold;
int pmc_events_hold(const struct pmc_event_list *list, struct pmc_event_hold **ret);
/* Closes what pmc_events_hold opened. Accepts NULL. */
void pmc_events_release(struct pmc_event_hold *h);

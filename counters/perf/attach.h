/* Attached counting (docs/events.md, "Attached counting"), as perf stat -p and -a: an
 * event list opened on every thread of running processes, or on every online CPU, one
 * counter engine (counters.h) per thread or CPU, and read as windows: what every event
 * counted since the last read, each thread's or CPU's part scaled by its own running
 * fraction and the parts summed. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "counters/perf/events.h"
#include "counters/perf/sys.h"
#include "counters/reading.h"

struct pmc_attach_opts {
	/* The processes to count (every thread each has when opened, and, through inherit,
	 * the threads and children those start later) ... */
	const pid_t *pids;
	size_t npids;
	/* ... or every online CPU (pid -1, one engine per CPU), whoever runs there. */
	bool system_wide;
	bool user_only_fallback;   /* as pmc_counters_opts */
	const struct pmc_sys *sys; /* NULL: the kernel */
	const char *proc_root;	   /* where /proc is (tests); NULL: "/proc" */
};

struct pmc_attach;

/* Opens the list's events on what o names, disabled. Returns 0 with *ret; else -errno
 * with one line in err: -ESRCH (no such process), -EACCES (the kernel refuses: another
 * user's process without the ptrace right, or every CPU without CAP_PERFMON or
 * perf_event_paranoid <= 0; the line says which), -EINVAL (nothing to attach to),
 * -EMFILE/-ENFILE, -ENOMEM. */
int pmc_attach_open(const struct pmc_event_list *events, const struct pmc_attach_opts *o,
		    struct pmc_attach **ret, char *err, size_t errlen);

/* The engines opened: one per thread attached, or per CPU. */
size_t pmc_attach_parts(const struct pmc_attach *a);

/* Starts or stops every part's counting. 0 or -errno. */
int pmc_attach_enable(struct pmc_attach *a);
int pmc_attach_disable(struct pmc_attach *a);

/* Reads every part; with out (one entry per event of the list), what each event counted
 * since the previous read (or since the open): per part the difference of its value,
 * time enabled and time running, extrapolated by that part's running fraction when it
 * was multiplexed, then summed (scaled: any part was; not counted: a part was enabled
 * but never ran, its share unknown). A thread that did not run in the window adds
 * nothing: a per-task event's times advance only while its task runs. out NULL: only
 * marks the start of a window. 0 or -errno. */
int pmc_attach_read(struct pmc_attach *a, struct pmc_reading *out);

/* Closes every descriptor. Accepts NULL. */
void pmc_attach_close(struct pmc_attach *a);

/* The threads of a running process, as /proc lists them: what attaching to a process
 * opens its events on (the sampler, counters/perf/sample.c; attached counting,
 * counters/perf/attach.c). */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/* The threads of process pid listed in PROC/pid/task (proc_root NULL: "/proc") that are
 * not among known[0..nknown), into *ret (malloc'd; NULL when none). Returns their count,
 * or -errno: -ESRCH when there is no such process, -ENOMEM. */
int pmc_proc_new_threads(const char *proc_root, pid_t pid, const pid_t *known, size_t nknown,
			 pid_t **ret);

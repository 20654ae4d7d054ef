/* tracefs: where the kernel names its tracepoints (events/<subsystem>/<event>/id), for
 * the tracepoint events of perf's list syntax, `pmcbench list tracepoint` and doctor
 * (docs/events.md, "Tracepoints"). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where tracefs is looked for, in order (Documentation/trace/ftrace.rst). */
#define PMC_TRACEFS_ROOT "/sys/kernel/tracing"
#define PMC_TRACEFS_DEBUG_ROOT "/sys/kernel/debug/tracing"

/* Finds the tracefs holding events/: root when given (tests; never mounted), else
 * PMC_TRACEFS_ROOT then PMC_TRACEFS_DEBUG_ROOT. When neither has events/ and may_mount is
 * set and the caller is root, mounts tracefs at PMC_TRACEFS_ROOT (what `mount -t tracefs
 * nodev /sys/kernel/tracing` does). Writes the directory into ret. Returns 0; -ENOENT
 * when there is none (err: how to mount it); -EACCES when it is not readable by this user
 * (err: what is missing and the fix). */
int pmc_tracefs_find(const char *root, bool may_mount, char *ret, size_t len, char *err,
		     size_t errlen);

/* Sorted names of the subsystems (sys NULL) or of the events of subsystem sys: the
 * directories under <root>/events[/<sys>]. Returns 0 with a malloc'd array (free with
 * pmc_tracefs_names_free), or -errno (-ENOENT: no such subsystem). */
int pmc_tracefs_names(const char *root, const char *sys, char ***ret, size_t *ret_n);
void pmc_tracefs_names_free(char **names, size_t n);

/* The id of tracepoint sys:event (<root>/events/<sys>/<event>/id), the config of a
 * PERF_TYPE_TRACEPOINT event. Returns 0, or -errno (-ENOENT: no such tracepoint). */
int pmc_tracefs_event_id(const char *root, const char *sys, const char *event, uint64_t *ret);

/* Uprobe events as tracefs probes (docs/events.md, "Function calls"), as perf probe makes
 * them (tools/perf/util/probe-file.c): a probe defined in tracefs's uprobe_events
 * (Documentation/trace/uprobetracer.rst) is a tracepoint, opened as PERF_TYPE_TRACEPOINT
 * with its id. The uprobe PMU's event instead points config1 at the file's path in the
 * opener's memory, and the kernel reads that pointer again in every thread or child that
 * inherits the event (perf_uprobe_init() in the new task), where the string may not be:
 * a measured program's pthread_create and fork then fail with EFAULT. A tracepoint
 * inherits with no pointer. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct pmc_event;
struct pmc_event_list;
struct pmc_sys;
struct pmc_uprobe_set;

/* The probes' group is this prefix and the pid of the process that made them. */
#define PMC_UPROBE_GROUP_PREFIX "pmcbench_"

/* Defines a probe for each resolved uprobe event of list, in group pmcbench_<pid> of the
 * tracefs sys names (sys NULL: the kernel's), and makes each event a tracepoint on its
 * probe (type PERF_TYPE_TRACEPOINT, config its id) until pmc_uprobe_set_free(). First
 * deletes the probes of pmcbench processes that no longer exist (killed before they
 * could). Returns 0 with *ret (NULL when list has no resolved uprobe event), or -errno
 * with err saying why, the list as it was and no probe left: -ENOENT no tracefs or no
 * uprobe_events in it, -EACCES not writable by this user, else what the kernel answered
 * the definition of a probe (-EINVAL a path it cannot take). */
int pmc_uprobe_set_create(struct pmc_event_list *list, const struct pmc_sys *sys,
			  struct pmc_uprobe_set **ret, char *err, size_t errlen);

/* Deletes the probes and gives their events back their uprobe PMU attributes; call it
 * once every counter on them is closed (the kernel keeps a probe in use, EBUSY: the
 * next pmcbench deletes it) and before the list is freed. Accepts NULL. */
void pmc_uprobe_set_free(struct pmc_uprobe_set *set);

/* The tracefs the probes are in, and the group's name ("pmcbench_1234"). */
/* Seam for the tests: where the set wrote its probes, to read them back in the emulated
 * tracefs. */
const char *pmc_uprobe_set_tracefs(const struct pmc_uprobe_set *set);
/* Seam for the tests: the group the set chose, to check its definition lines. */
const char *pmc_uprobe_set_group(const struct pmc_uprobe_set *set);

/* Whether ev is a uprobe event counting through a tracefs probe now, whose inherited
 * copies count every thread's calls, rather than through the uprobe PMU. */
bool pmc_uprobe_event_probed(const struct pmc_event *ev);

/* Uprobe events made ready to open (docs/events.md, "Function calls"): a library named
 * in uprobe:LIBRARY:SYMBOL found through the measured program's own dynamic linking, the
 * symbol's file offset read from the file, and a tracefs probe for each. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct pmc_event_list;
struct pmc_sys;
struct pmc_uprobe_set;

/* Resolves every uprobe event of list not resolved yet: a FILE with a '/' is that file;
 * a library name ("libc", "libc.so.6", "libstdc++") is the library program loads (what
 * its program interpreter's --list gives, as ldd does; program NULL: this process's own
 * executable). Sets each event's path and config2 (probe_offset). Returns 0; -EINVAL
 * with one line in err naming the event, the file and the fix (a library the program
 * does not load, a file without the symbol); -ENOMEM. */
int pmc_uprobes_resolve(struct pmc_event_list *list, const char *program, char *err, size_t errlen);

/* Makes the resolved uprobe events of list tracepoints on tracefs probes
 * (counters/perf/uprobe.h), which the measured program's threads and children inherit;
 * sys as for the counters (NULL: the kernel). Returns 0 with *ret, the probes to free
 * once the counters are closed; *ret NULL when list needs none, or when tracefs cannot
 * take them (not mounted, not writable), and then note says why and that the events
 * count through the uprobe PMU, with its limit for commands or for benchmark programs
 * (benchmarks) (else note is ""). -ENOMEM. */
int pmc_uprobes_probe(struct pmc_event_list *list, const struct pmc_sys *sys, bool benchmarks,
		      struct pmc_uprobe_set **ret, char *note, size_t notelen);

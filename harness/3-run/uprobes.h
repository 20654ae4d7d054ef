/* Uprobe events made ready to open (docs/events.md, "Function calls"): a library named
 * in uprobe:LIBRARY:SYMBOL found through the measured program's own dynamic linking, and
 * the symbol's file offset read from the file. */
#pragma once

#include <stddef.h>

struct pmc_event_list;

/* Resolves every uprobe event of list not resolved yet: a FILE with a '/' is that file;
 * a library name ("libc", "libc.so.6", "libstdc++") is the library program loads (what
 * its program interpreter's --list gives, as ldd does; program NULL: this process's own
 * executable). Sets each event's path and config2 (probe_offset). Returns 0; -EINVAL
 * with one line in err naming the event, the file and the fix (a library the program
 * does not load, a file without the symbol); -ENOMEM. */
int pmc_uprobes_resolve(struct pmc_event_list *list, const char *program, char *err, size_t errlen);

/* An emulated tracefs for uprobe probes (counters/perf/uprobe.h), in a temporary
 * directory: events/ and uprobe_events, written through struct pmc_sys's probe_write as
 * the kernel's uprobe_events parses a write (kernel/trace/trace_uprobe.c,
 * trace_uprobe_create() and create_or_delete_trace_uprobe(); names as
 * kernel/trace/trace_probe.c's traceprobe_parse_event_name() takes them):
 *
 * - "p:GRP/EVENT PATH:OFFSET" and "r:..." define a probe, "-:GRP/EVENT" deletes one; a
 *   missing GRP is "uprobes"; one trailing newline is allowed, an empty line is nothing.
 * - GRP and EVENT: C identifiers ([A-Za-z_][A-Za-z0-9_]*), GRP at most 63 bytes, EVENT at
 *   most 64; else EINVAL. A command other than p, r and -, or no ':' after it, EINVAL.
 * - PATH:OFFSET split at the last ':'; OFFSET a number (strtoul base 0, all of it), else
 *   EINVAL; PATH must exist (ENOENT) and be a regular file (EINVAL).
 * - Defining GRP/EVENT again: EEXIST (the kernel appends a second probe to the event
 *   when the types agree, which this does not emulate: pmcbench must never reach it).
 * - Deleting an event that does not exist: ENOENT; one a tracepoint event of pmu (when
 *   set) is open on: EBUSY, as the kernel keeps a probe in use.
 * - A defined probe gets events/GRP/EVENT/id (ids from 2000 up) and a line in
 *   uprobe_events as the kernel lists it ("p:GRP/EVENT PATH:0x%016lx"); a deleted one
 *   loses both (and events/GRP when it was the group's last).
 * - Not emulated: events without a name, fetch arguments, reference counters
 *   (EOPNOTSUPP). */
#pragma once

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

struct fake_pmu;
struct pmc_sys;

#define FAKE_TRACEFS_MAX_LOG 64

struct fake_tracefs {
	char root[128]; /* under $TMPDIR: a short path, so that tests can build on it */
	uint64_t next_id;
	struct fake_pmu *pmu; /* NULL: no probe is ever busy */
	/* Every line written, in order, and what the write returned (0 or -errno). */
	char lines[FAKE_TRACEFS_MAX_LOG][512];
	int results[FAKE_TRACEFS_MAX_LOG];
	size_t nlines;
};

/* A new tracefs in a temporary directory (events/, an empty uprobe_events), its writes
 * emulated for sys (tracefs_root, probe_write, probe_ctx), if sys is not NULL. Returns 0
 * or -errno. fake_tracefs_remove() deletes the directory. */
int fake_tracefs_init(struct fake_tracefs *t, struct pmc_sys *sys);
void fake_tracefs_remove(struct fake_tracefs *t);

/* struct pmc_sys's probe_write: ctx is the struct fake_tracefs. */
int fake_tracefs_write(void *ctx, const char *tracefs, const char *line);

/* The text of uprobe_events, into buf. */
const char *fake_tracefs_listing(const struct fake_tracefs *t, char *buf, size_t len);

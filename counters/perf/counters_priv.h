/* Inside the counter engine: the layout of struct pmc_counters and its three kinds, each a
 * table of operations (struct counters_ops) chosen when the object is opened. The plain
 * engine (counters_plain.c) opens, enables, reads and closes groups of perf events; the
 * hybrid one (counters_hybrid.c) opens a list split over the core PMUs of a hybrid CPU as
 * a plain engine and sums each event's parts; the system-wide one (counters_syswide.c)
 * opens a list's per-task events as an engine of their own and each uncore or RAPL event
 * on the CPUs of its cpumask. The public functions of pmcbench/counters.h (counters.c)
 * go through the table and never ask which kind an object is. */
#pragma once

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <string.h>

#include "counters/perf/counters.h"

#define READ_FORMAT                                                                                \
	(PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |                     \
	 PERF_FORMAT_TOTAL_TIME_RUNNING)
/* Without group reads (kernels before 4.13 with inherit): value, enabled, running, id. */
#define READ_FORMAT_ONE (READ_FORMAT & ~(uint64_t)PERF_FORMAT_GROUP)

struct slot {
	int fd; /* -1 when not open */
	uint64_t id;
	enum pmc_status status; /* COUNTED once open; UNSUPPORTED or DENIED when it failed */
	int error;
	bool user_only;
	bool topdown; /* an Intel topdown event: its group is never read with rdpmc */
	/* Paused by reading (pmc_counters_pause): value, enabled and running as read at the
	 * last pause, and what every pause so far added to them, taken off each read. */
	uint64_t at_pause[3], paused[3];
};

struct group {
	size_t *members; /* indices into slots, in list order; the first open one leads */
	size_t n;
	int leader_fd; /* split: the first open member's, to tell that one is open */
	/* A weak group (:W) whose events did not fit the PMU together: each member is
	 * opened, enabled and read on its own, as perf does. */
	bool split;
};

/* The options as used: defaults filled in for what the caller's struct does not hold. */
struct open_opts {
	pid_t pid;
	int cpu; /* -1: any */
	bool inherit, enable_on_exec, start_disabled, user_only_fallback;
	bool self_read; /* the groups will be read through their mmap pages */
	const int *known_errors;
};

struct counters_ops;

/* One object whatever its kind: the fields every kind uses, then each kind's own (zero
 * in an object of another kind). */
struct pmc_counters {
	const struct counters_ops *ops; /* the kind it was opened as */
	const struct pmc_sys *sys;
	struct open_opts opts;
	size_t n;			/* events of the caller's list */
	struct pmc_reading *tmp;	/* read results, copied out only on success */
	uint64_t reads_self, reads_sys; /* group reads through the pages, and read()s */
	/* Plain (counters_plain.c): a slot per event, the groups, a group read's buffer. */
	struct slot *slots;
	struct group *groups;
	size_t ngroups;
	size_t *member_store;
	uint64_t *buf; /* one group read: nr, enabled, running, {value, id}[nr] */
	size_t buf_words;
	/* The kernel refused inherit with group reads (before Linux 4.13): every event is
	 * opened and read on its own format, as perf's "switching off group read". */
	bool no_group_read;
	/* Groups read through their mmap pages (selfread.h; NULL: every read is a read())
	 * and how each group read went. */
	struct pmc_selfread *sr;
	/* Hybrid CPUs (counters_hybrid.c, counters/perf/hybrid.h): the plan, the plain engine
	 * opened on its list, and that engine's readings of the last read. */
	struct pmc_hybrid *hy;
	struct pmc_counters *inner;
	struct pmc_reading *parts;
	/* Uncore and RAPL (counters_syswide.c; docs/events.md, "Uncore and RAPL events"): the
	 * list's per-task events are opened as an engine of their own (task; NULL when there
	 * are none), and each system-wide event once per CPU of its cpumask, outside any
	 * group. */
	struct syswide *sw;
};

/* One system-wide event: a descriptor per CPU of its cpumask (pid -1, no inherit). */
struct cpu_wide {
	size_t n;
	int *fd;
	uint64_t *id;
	enum pmc_status status;
	int error;
};

struct syswide {
	struct pmc_event_list tasks; /* the per-task events, regrouped */
	struct pmc_counters *task;
	size_t *task_idx;    /* per event: its index in tasks; SIZE_MAX: not there */
	struct cpu_wide *cw; /* per event; n 0 and status not-counted when per-task */
	double *scale;	     /* per event */
	struct pmc_reading *task_rd;
};

/* What each kind of engine does with an object opened as it; every operation is set in
 * each table. Event indices are below c->n (counters.c checks them). */
struct counters_ops {
	/* Reads every event into c->tmp: 0 or -errno. */
	int (*read)(struct pmc_counters *c);
	/* Enables, disables or resets (request) every event. */
	int (*ioctl)(struct pmc_counters *c, unsigned long request);
	/* pmc_counters_pause. */
	int (*pause)(struct pmc_counters *c, bool pause);
	/* How many events opened, and event i's status and error at open. */
	size_t (*opened)(const struct pmc_counters *c);
	void (*open_status)(const struct pmc_counters *c, size_t i, enum pmc_status *ret_status,
			    int *ret_error);
	/* pmc_counters_self_read. */
	int (*self_read)(struct pmc_counters *c);
	/* The reads of the engines inside this one (pmc_counters_read_counts): zeroes when
	 * there are none. */
	void (*inner_read_counts)(const struct pmc_counters *c, uint64_t *ret_self,
				  uint64_t *ret_sys);
	/* Hybrid parts of event i (pmc_counters_nparts): how many; part k's PMU and reading
	 * from the last read (either may be NULL), -EINVAL when there is no part k; whether
	 * it counts on some core types only. */
	size_t (*nparts)(const struct pmc_counters *c, size_t i);
	int (*part)(const struct pmc_counters *c, size_t i, size_t k, const char **ret_pmu,
		    struct pmc_reading *ret_rd);
	bool (*restricted)(const struct pmc_counters *c, size_t i);
	/* Closes and frees what this kind holds; pmc_counters_close frees the rest. */
	void (*free)(struct pmc_counters *c);
};

extern const struct counters_ops pmc_counters_plain_ops, pmc_counters_hybrid_ops,
    pmc_counters_syswide_ops;

/* Shared by the kinds (counters.c). */

/* Whether an open that failed with err stops the run (the process or the machine is out
 * of something) rather than giving the event a status. */
bool pmc_counters_fatal_errno(int err);
/* The status an event that failed to open with err gets. */
enum pmc_status pmc_counters_status_of_errno(int err);
/* Closes *fd when open and sets it to -1. */
int pmc_counters_sys_close(struct pmc_counters *c, int *fd);
/* Reads the caller's options, of any version of the struct, into c->opts. */
int pmc_counters_copy_opts(struct pmc_counters *c, const struct pmc_counters_opts *opts);
/* The options of an engine opened on the list another kind made: c's, with known for
 * known_errors, into *ret. */
void pmc_counters_inner_opts(const struct pmc_counters *c, const int *known,
			     struct pmc_counters_opts *ret);
/* Enables, disables or resets (request) every event of c, whatever it was opened as. */
int pmc_counters_ioctl(struct pmc_counters *c, unsigned long request);

/* Opening each kind: the plain engine (counters_plain.c) opens the list as groups,
 * neither split over core PMUs nor system-wide; the hybrid one (counters_hybrid.c) opens
 * events as hy plans them (and owns hy, even on failure); the system-wide one
 * (counters_syswide.c) a list with uncore or RAPL events (pmc_syswide_needed), or one
 * scope of any list. */
int pmc_counters_open_plain(const struct pmc_event_list *events,
			    const struct pmc_counters_opts *opts, const struct pmc_sys *sys,
			    struct pmc_counters **ret);
int pmc_hybrid_open(const struct pmc_event_list *events, const struct pmc_counters_opts *opts,
		    const struct pmc_sys *sys, struct pmc_hybrid *hy, struct pmc_counters **ret);
bool pmc_syswide_needed(const struct pmc_event_list *events);
int pmc_syswide_open(const struct pmc_event_list *events, const struct pmc_counters_opts *opts,
		     const struct pmc_sys *sys, enum pmc_counters_scope scope,
		     struct pmc_counters **ret);

/* The attributes that count ev (what it is, the privilege levels it excludes), read as
 * read_format; the caller sets how it is opened (disabled, inherit, pinned, ...). */
static inline void event_attr(const struct pmc_event *ev, uint64_t read_format,
			      struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = ev->type;
	attr->config = ev->config;
	attr->config1 = ev->config1;
	attr->config2 = ev->config2;
	/* The uprobe PMU's uprobe_path: a pointer to the file's path, which the kernel copies
	 * when the event is opened (kernel/events/core.c, perf_uprobe_init()); a tracefs
	 * probe's tracepoint needs none (counters/perf/uprobe.h). */
	if (ev->kind == PMC_EV_UPROBE && ev->type != PERF_TYPE_TRACEPOINT)
		attr->config1 = (uint64_t)(uintptr_t)ev->probe_path;
	attr->read_format = read_format;
	attr->exclude_user = ev->exclude_user;
	attr->exclude_kernel = ev->exclude_kernel;
	attr->exclude_hv = ev->exclude_hv;
}

/* The reading of an event that has no value this time: its status and why. */
static inline void set_missing(struct pmc_reading *r, enum pmc_status status, int error)
{
	memset(r, 0, sizeof(*r));
	r->status = status;
	r->error = error;
	r->scaled = NAN;
}

/* docs/events.md, "Scaling": an event multiplexed onto the PMU for part of the time it was
 * enabled is extrapolated as value * enabled / running (perf stat does the same). */
static inline void set_value(struct pmc_reading *r, uint64_t value, uint64_t enabled,
			     uint64_t running)
{
	memset(r, 0, sizeof(*r));
	pmc_reading_set(r, value, enabled, running);
}

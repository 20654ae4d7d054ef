/* The counter engine: opens groups of perf events on a task, enables, reads them by id
 * and closes them, and gives every event a status (docs/events.md, "Event status"). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "counters/events.h"
#include "counters/reading.h"
#include "counters/sys.h"

struct pmc_counters_opts {
	size_t sz; /* sizeof(struct pmc_counters_opts), so the struct can grow */
	const struct pmc_sys *sys; /* NULL: the kernel */
	pid_t pid;  /* 0: the calling thread */
	int cpu;    /* -1: any CPU */
	bool inherit;        /* count children and threads created after opening */
	bool enable_on_exec; /* leaders start disabled and are enabled by the task's exec */
	bool start_disabled; /* leaders start disabled (implied by enable_on_exec) */
	/* Optional, one entry per event: a positive errno means "do not try to open this
	 * event, it failed with that errno before"; 0 means open it. Lets a runner report
	 * an unsupported event once and not pay for failed syscalls on every run. */
	const int *known_errors;
	/* Like perf: when an event that counts kernel space is denied (EACCES/EPERM, as with
	 * perf_event_paranoid >= 2), retry it counting user space only and say so in
	 * pmc_reading.user_only. */
	bool user_only_fallback;
};

struct pmc_counters;

/* Opens every event of the list, group by group, leader first. An event that the
 * kernel rejects is given its status (unsupported or denied) and its group is reopened
 * without it, so one missing member does not sink its group. Returns 0 (even when
 * every event is unsupported: see pmc_counters_opened()), -EMFILE/-ENFILE when out of
 * file descriptors, -ENOMEM, or -EINVAL for bad arguments. */
int pmc_counters_open(const struct pmc_event_list *events, const struct pmc_counters_opts *opts,
		      struct pmc_counters **ret);

/* Number of events that opened. */
size_t pmc_counters_opened(const struct pmc_counters *c);

/* The status and errno an event got when opening (status COUNTED means it opened). */
void pmc_counters_open_status(const struct pmc_counters *c, size_t i, enum pmc_status *ret_status,
			      int *ret_error);

/* Enable, disable or reset every group (PERF_IOC_FLAG_GROUP). Return 0 or -errno. */
int pmc_counters_enable(struct pmc_counters *c);
int pmc_counters_disable(struct pmc_counters *c);
int pmc_counters_reset(struct pmc_counters *c);

/* Reads every group once (PERF_FORMAT_GROUP|ID|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING)
 * and fills out[0..n-1] in the order of the event list, matching values by id.
 * Returns 0 or -errno. */
int pmc_counters_read(struct pmc_counters *c, struct pmc_reading *out);

/* Closes every descriptor. Accepts NULL and half-opened objects. */
void pmc_counters_close(struct pmc_counters *c);

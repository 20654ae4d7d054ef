/* Counting groups: the events of a list opened with perf_event_open on a task or on the
 * calling thread, group by group, then enabled, read and closed; every event has a status
 * (docs/events.md, "Event status"). Plain C11. */
#ifndef PMCBENCH_COUNTERS_H
#define PMCBENCH_COUNTERS_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmcbench/common.h"
#include "pmcbench/events.h"

#ifdef __cplusplus
extern "C" {
#endif

enum pmc_status {
	PMC_STATUS_COUNTED,	/* ran the whole time it was enabled */
	PMC_STATUS_SCALED,	/* multiplexed: 0 < running < enabled */
	PMC_STATUS_NOT_COUNTED, /* opened, but never ran (running == 0, or a 0-byte read) */
	PMC_STATUS_UNSUPPORTED, /* ENOENT, EOPNOTSUPP, ENODEV, EINVAL for a lone event */
	PMC_STATUS_DENIED,	/* EACCES, EPERM */
	PMC_STATUS_EXACT,	/* simulated counters (valgrind backend) */
};

/* "counted", "scaled", "not-counted", "unsupported", "denied", "exact"; "unknown". */
PMC_API const char *pmc_status_name(enum pmc_status status);
/* Sets *ret to the status a name above stands for. Returns 0, or -EINVAL. */
PMC_API int pmc_status_from_name(const char *name, enum pmc_status *ret);
/* True when a reading with this status holds a number (counted, scaled, exact). */
PMC_API bool pmc_status_has_value(enum pmc_status status);

/* One read of one event. */
struct pmc_reading {
	enum pmc_status status;
	uint64_t value;	  /* raw count as read */
	uint64_t enabled; /* time_enabled, ns */
	uint64_t running; /* time_running, ns */
	double scaled;	  /* value * enabled / running; NaN when there is no value */
	int error;	  /* positive errno behind unsupported or denied; with not-counted,
			   * PMC_ERROR_NO_FIT, EBUSY (the PMU was busy) or 0; else 0 */
	bool user_only;	  /* opened with exclude_kernel after EACCES/EPERM (see opts) */
};

/* The error of a not-counted event that opens alone but does not fit the PMU together
 * with the rest of its group (too many counters, or PMUs that cannot share a group); a
 * weak group (":W") is split into single events instead. */
#define PMC_ERROR_NO_FIT ENOSPC

struct pmc_counters;

struct pmc_counters_opts {
	size_t sz;
	pid_t pid;   /* the task to count; 0: the calling thread; -1: all, with on_cpu only */
	bool on_cpu; /* count only while the task runs on cpu; false: on any CPU */
	int cpu;
	bool inherit;	     /* count children and threads created after opening */
	bool enable_on_exec; /* leaders start disabled and are enabled by the task's exec */
	bool start_disabled; /* leaders start disabled (implied by enable_on_exec) */
	/* NULL, or one entry per event: a positive errno means "do not try this event, it
	 * failed with that errno before" (it gets that status); 0 means open it. */
	const int *known_errors;
	/* Like perf: when an event that counts kernel space is denied (EACCES/EPERM, as with
	 * perf_event_paranoid >= 2), retry it counting user space only and say so in
	 * pmc_reading.user_only. */
	bool user_only_fallback;
	/* Counters of the calling thread (pid 0, no inherit): read each group through its
	 * events' mmap pages with rdpmc, without a system call, while the kernel allows it
	 * and the group is on the PMU; read() otherwise (docs/events.md, "Reading the
	 * counters"). */
	bool self_read;
};
#define pmc_counters_opts__last_field self_read

/* Opens every event of the list, group by group, leader first, on the task opts names
 * (NULL opts: the calling thread, any CPU, enabled at once). An event the kernel rejects
 * gets its status (unsupported or denied) and its group is reopened without it; one that
 * does not fit with its group is not counted (PMC_ERROR_NO_FIT), or, in a weak group,
 * the group's events are opened one by one. Kernels that refuse inherit with group
 * reads (before 4.13) and PMUs that need exclude_guest (Apple M1) are handled as perf
 * does. Returns
 * 0 (even when no event opened: see pmc_counters_opened), -EMFILE/-ENFILE when out of
 * file descriptors, -ENOMEM, or -EINVAL for bad arguments. Close *ret with
 * pmc_counters_close; the list must outlive it. */
PMC_API int pmc_counters_open(const struct pmc_event_list *events,
			      const struct pmc_counters_opts *opts, struct pmc_counters **ret);

/* Number of events that opened. */
PMC_API size_t pmc_counters_opened(const struct pmc_counters *c);

/* The status and positive errno event i got when opening (COUNTED and 0: it opened).
 * Out of range: UNSUPPORTED and EINVAL. Either pointer may be NULL. */
PMC_API void pmc_counters_open_status(const struct pmc_counters *c, size_t i,
				      enum pmc_status *ret_status, int *ret_error);

/* Enable, disable or reset every group at once (PERF_IOC_FLAG_GROUP). Return 0 or
 * -errno. */
PMC_API int pmc_counters_enable(struct pmc_counters *c);
PMC_API int pmc_counters_disable(struct pmc_counters *c);
PMC_API int pmc_counters_reset(struct pmc_counters *c);

/* Reads every group once and fills out[0..n-1] (n = the list's event count) in list
 * order, out's elements being reading_sz bytes each: pass sizeof(out[0]), so that
 * struct pmc_reading can grow at its end (an older program's smaller struct gets the
 * fields it knows; a newer program's larger one gets zero in the fields this library
 * does not fill). Returns 0, -EINVAL (a NULL argument, or reading_sz below the first
 * release's struct) or -errno (out untouched). */
PMC_API int pmc_counters_read(struct pmc_counters *c, struct pmc_reading *out, size_t reading_sz);

/* How many group reads so far went through the mmap pages (rdpmc) and how many through
 * read() (an event read on its own counts as one). Either pointer may be NULL. */
PMC_API void pmc_counters_read_counts(const struct pmc_counters *c, uint64_t *ret_self,
				      uint64_t *ret_sys);

/* Closes every descriptor and frees c. Accepts NULL. */
PMC_API void pmc_counters_close(struct pmc_counters *c);

/* ---- probing: what this machine can count ---- */

struct pmc_probe_opts {
	size_t sz;
	/* Keep events that may count only user space as they are (denied), instead of
	 * renaming them with ":u" as perf does. */
	bool no_user_only_fallback;
};
#define pmc_probe_opts__last_field no_user_only_fallback

/* What pmc_event_list_probe found. Opaque. */
struct pmc_probe_report;

/* Opens the list's events once on the calling thread, reads them, and reports which
 * cannot be counted here (with their errno) and which the kernel lets count only user
 * space (perf_event_paranoid >= 2): those are changed in the list to count user space
 * and renamed with ":u" ("cycles" -> "cycles:u"), so no result calls a user-only count
 * a full one. Returns 0 with *ret (free with pmc_probe_report_free), or -errno with one
 * line in err (out of file descriptors, memory). */
PMC_API int pmc_event_list_probe(struct pmc_event_list *list, const struct pmc_probe_opts *opts,
				 struct pmc_probe_report **ret, char *err, size_t errlen);

/* Number of events that cannot be counted here (unsupported or denied). */
PMC_API size_t pmc_probe_report_missing(const struct pmc_probe_report *r);
/* Number of events renamed to count user space only. */
PMC_API size_t pmc_probe_report_user_only(const struct pmc_probe_report *r);
/* The positive errno of the first event that cannot be counted, 0 when none. */
PMC_API int pmc_probe_report_first_error(const struct pmc_probe_report *r);
/* Event i (list order): its status when opened (unsupported, denied, or counted), its
 * positive errno (0 when it opened) and whether it fell back to user space. Any pointer
 * may be NULL. Returns 0, or -EINVAL when i is out of range. */
PMC_API int pmc_probe_report_event_at(const struct pmc_probe_report *r, size_t i,
				      enum pmc_status *ret_status, int *ret_error,
				      bool *ret_user_only);
/* perf_event_paranoid when the probe ran, or -ENOENT when it could not be read. */
PMC_API int pmc_probe_report_paranoid(const struct pmc_probe_report *r, int *ret_level);
/* Frees a report. Accepts NULL. */
PMC_API void pmc_probe_report_free(struct pmc_probe_report *r);

#ifdef __cplusplus
}
#endif

#endif /* PMCBENCH_COUNTERS_H */

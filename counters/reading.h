/* What one read of one event gives: its status (docs/events.md, "Statuses") and the
 * raw value with the kernel's enabled and running times. Shared by the counter engine,
 * the valgrind backend and the result model, without the engine's syscall layer. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

enum pmc_status {
	PMC_STATUS_COUNTED,     /* ran the whole time it was enabled */
	PMC_STATUS_SCALED,      /* multiplexed: 0 < running < enabled */
	PMC_STATUS_NOT_COUNTED, /* opened, but never ran (running == 0, or a 0-byte read) */
	PMC_STATUS_UNSUPPORTED, /* ENOENT, EOPNOTSUPP, ENODEV, EINVAL for a lone event */
	PMC_STATUS_DENIED,      /* EACCES, EPERM */
	PMC_STATUS_EXACT,       /* simulated counters (valgrind backend) */
};

/* "counted", "scaled", "not-counted", "unsupported", "denied", "exact". */
const char *pmc_status_name(enum pmc_status status);
/* Returns 0 and sets *ret, or -EINVAL for an unknown name. */
int pmc_status_from_name(const char *name, enum pmc_status *ret);
/* True when the reading holds a number (counted, scaled, exact). */
bool pmc_status_has_value(enum pmc_status status);

struct pmc_reading {
	enum pmc_status status;
	uint64_t value;   /* raw count as read */
	uint64_t enabled; /* time_enabled, ns */
	uint64_t running; /* time_running, ns */
	double scaled;    /* value * enabled / running; meaningful only when a value exists */
	int error;        /* positive errno behind unsupported or denied, else 0 */
	bool user_only;   /* opened with exclude_kernel after EACCES/EPERM (see opts) */
};


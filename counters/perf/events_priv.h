/* Private to the perf backend's event files: the built-in table's entries, which the
 * list-syntax parser (events.c) resolves names against (events_table.c). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "counters/perf/events.h"

struct pmc_event_builtin {
	const char *name;
	const char *canonical;
	enum pmc_event_kind kind;
	uint32_t type;
	uint64_t config;
};

/* The built-in event named name[0..len), matched case-insensitively as perf does, or
 * NULL. */
const struct pmc_event_builtin *pmc_event_builtin_find(const char *name, size_t len);

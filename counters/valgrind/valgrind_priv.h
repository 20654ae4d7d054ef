/* Private to the valgrind backend's files: the names of the files a run writes (its
 * command line names them, valgrind_outputs.c reads and removes them), the largest count
 * a result holds, and the event names of the output files. */
#pragma once

#include <stdint.h>

#include "counters/valgrind/valgrind.h"

#define CALLGRIND_PREFIX "callgrind.out."
#define CACHEGRIND_PREFIX "cachegrind.out."
#define LOG_PREFIX "valgrind.log."

/* The largest count a result holds (a JSON integer, docs/result-schema.md). */
#define COUNT_MAX ((uint64_t)INT64_MAX)

/* Indexed by enum pmc_valgrind_event (valgrind_outputs.c). */
extern const char *const pmc_valgrind_event_names[PMC_VG_EV_COUNT];

/* What one read of one event gives: its status (docs/events.md, "Statuses") and the raw
 * value with the kernel's enabled and running times (struct pmc_reading, public in
 * pmcbench/counters.h). Shared by the counter engine, the valgrind backend and the
 * result model, without the engine's syscall layer. */
#pragma once

#include "pmcbench/counters.h"

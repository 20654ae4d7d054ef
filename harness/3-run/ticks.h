/* run -I: a measured run's counters read at every tick of its wait (pmc_spawn_opts.
 * on_tick) and turned into counts per interval (core/intervals.h). */
#pragma once

#include <stdint.h>

#include "counters/backend.h"
#include "core/intervals.h"
#include "run/spawn.h"

struct pmc_run_ticks {
	const struct pmc_backend_ops *b;
	struct pmc_backend_session *s;
	struct pmc_backend_run *run;
	struct pmc_intervals *iv;
	struct pmc_reading *buf; /* one reading per metric */
	int error;		 /* the first failed read, 0 */
};

/* Prepares t for run (of session s of backend b) and sets so's ticks to every ms
 * milliseconds. Returns 0 or -ENOMEM; t is then for pmc_run_ticks_free either way. */
int pmc_run_ticks_start(struct pmc_run_ticks *t, const struct pmc_backend_ops *b,
			struct pmc_backend_session *s, struct pmc_backend_run *run, unsigned ms,
			struct pmc_spawn_opts *so);

/* Once the run's readings are collected: ends the last interval at wall_ns with them.
 * Returns 0 with the intervals moved to *ret (for pmc_benchmark_set_intervals), or the
 * error of a read at a tick, -EINVAL or -ENOMEM. */
int pmc_run_ticks_finish(struct pmc_run_ticks *t, uint64_t wall_ns, struct pmc_intervals **ret);

void pmc_run_ticks_free(struct pmc_run_ticks *t);

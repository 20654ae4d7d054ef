/* The recording of one run's readings into the result model, which the runner
 * (runner.c) does for every measured run. */
#pragma once

#include <stddef.h>

#include "counters/backend.h"
#include "run/spawn.h"

struct pmc_benchmark;

/* The run's readings into b, one metric per backend metric of session s (with its parts
 * on a hybrid CPU; an uncore or RAPL event's unit and note from the event list at its
 * first run). A metric whose counts contradict each other or do not fit in a result is
 * an error with the backend's words in why; other failures (-ENOMEM) leave why empty.
 * Returns 0 or a negative errno. */
int pmc_run_record_readings(struct pmc_benchmark *b, const struct pmc_backend_ops *be,
			    const struct pmc_backend_session *s, const struct pmc_backend_run *run,
			    char *why, size_t whylen);

/* wait4's figures into b, which every run of a backend that is not simulated has:
 * wall-time, user-time, system-time and max-rss (not measured, with a note saying why,
 * when the command's peak is not above pmcbench's own). Returns 0 or -ENOMEM. */
int pmc_run_record_rusage(struct pmc_benchmark *b, const struct pmc_spawn_result *sr);

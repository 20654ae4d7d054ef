/* The derived metrics of a benchmark (ipc, miss rates, ...), computed per run from the
 * registry's formulas (harness/2-core/metrics.h, docs/metrics.md). */
#pragma once

#include <stddef.h>

#include <stdbool.h>

struct pmc_benchmark;

struct pmc_derive_opts {
	/* Whether the backend read the events named num and den (without modifier tails
	 * beyond the event's own) in different windows, as perf's groups are
	 * (pmc_event_list_apart, with the run's event list as ud): a ratio of such events is
	 * flagged cross_group, since multiplexing skews it. NULL: never (simulated counts,
	 * which are never multiplexed). */
	bool (*apart)(const char *num, const char *den, const void *ud);
	const void *apart_ud;
	/* Appended to the inputs' ids: with "/op" (microbenchmarks, docs/microbench.md),
	 * ipc is instructions/op over cycles/op. The derived id has no suffix, since a
	 * ratio of two per-operation counts is the ratio itself. NULL: none. */
	const char *input_suffix;
};

/* Adds to b every derived metric of the registry whose inputs b holds, with one sample
 * per run: scale * num / den where both inputs were measured in that run and den > 0,
 * NAN where not (never 0 or an estimate). A metric is added only when at least one run
 * has a value. Inputs pair up by modifier (instructions:u / cycles:u is ipc:u); times
 * from wait4 have none (cpus-utilized:u is task-clock:u / wall-time). Call it once, after
 * the last run: a derived metric already present is left as it is. Returns 0, -EINVAL
 * for bad options, -ENOMEM (b then holds the metrics added so far). */
int pmc_benchmark_derive(struct pmc_benchmark *b, const struct pmc_derive_opts *opts);

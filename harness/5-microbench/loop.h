/* The harness's half of a benchmark's loop, shared by the batch (measure.c), its threads
 * (threads.c) and the state its function is handed (state.c); private to the layer. */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters/reading.h"
#include "microbench/microbench.h"

struct pmc_backend_ops;
struct pmc_backend_thread;
struct pmc_event_list;

enum phase { IDLE, RUNNING, DONE };

/* The harness's half of struct pmc_state. */
struct pmc_run_ctx {
	const struct pmc_mb_bench *b;
	uint64_t iters;
	enum phase phase;
	pmc_mb_clock_fn clock;
	void *clock_ud;
	/* During calibration only: the CPU-time clock read at the edges (NULL: not read). */
	pmc_mb_clock_fn cpu_clock;
	void *cpu_clock_ud;
	uint64_t cpu0, cpu1;
	/* The counters on this thread, through the backend's table (counters/backend.h);
	 * NULL: no counters. */
	const struct pmc_backend_ops *be;
	struct pmc_backend_thread *counters;
	struct pmc_reading *r0, *r1; /* reads at the batch's start and end */
	/* Hybrid CPUs: per event, its parts' PMUs (n 0: not split; thread_parts), and the
	 * parts' readings at the two edges, PMC_PARTS_MAX per event (counters/reading.h);
	 * all NULL when no event was split. */
	struct pmc_reading_parts *split;
	struct pmc_reading *p0, *p1;
	const struct pmc_event_list *events; /* for each event's sysfs scale */
	size_t nev;
	uint64_t t0, t1;
	int form;  /* the batch's loop form (enum pmc_loop_form), set at its start */
	int error; /* a failed read inside the loop */
	/* The exact mode: the backend that counts between the two edges, toggled there
	 * (pmc_backend_ops.mark_toggle, exact.c); NULL: none. */
	const struct pmc_backend_ops *marks;
	uint64_t items, bytes;
	bool skipped;
	char *message;
	void *user;
	void *fixture; /* from setup_once to teardown_once */
	/* pmc_pause/pmc_resume in the running batch: how many pairs, the clocks when the
	 * last pause began, and the time spent paused; ended_paused: the loop ended paused. */
	uint64_t pauses, pause_t, pause_cpu, paused_ns, paused_cpu;
	bool paused, ended_paused;
	/* The pause loop (measure_pauses): pairs per batch. */
	uint64_t pause_pairs;
	/* pmc_set_counter: the names so far (over every batch) and the running batch's
	 * values; uc_bad: the first bad name or one too many, as an error. */
	struct pmc_mb_ucounter uc[PMC_COUNTERS_MAX];
	size_t nuc;
	double ucv[PMC_COUNTERS_MAX];
	char uc_bad[160];
	/* A thread of a multithreaded batch (threads.c): its index, the count, and the
	 * barrier its loop's start waits at; threads_ns: the batch's time, the mean of the
	 * threads' (NAN: one thread). */
	pthread_barrier_t *barrier;
	unsigned thread_index, nthreads;
	double threads_ns;
	/* pmc_set_iteration_time in the running batch: the sum in ns, and whether it was
	 * called (of a multithreaded batch: by every thread). */
	double manual_ns;
	bool manual_set;
	/* The memory manager's totals (allocations, bytes) at the timed region's start and
	 * at the last pause, and what the pauses took; alloc_on: one was read at the start
	 * (alloc.c). */
	uint64_t alloc0[2], alloc_pause[2], alloc_paused[2];
	bool alloc_on;
};

/* Counter flag of allocs and alloc-bytes, the memory manager's (alloc.c): outside enum
 * pmc_counter_flags, carried to the result, where it names the source. */
#define PMC_MB_COUNTER_ALLOC (1u << 24)

/* The memory manager's reads (alloc.c, docs/microbench.md, "Allocations"): at the timed
 * region's start, at a pause and a resume, and at its end, where the differences become
 * the counters allocs and alloc-bytes of c's batch. No-ops without a memory manager. */
void pmc_mb_alloc_start(struct pmc_run_ctx *c);
void pmc_mb_alloc_pause(struct pmc_run_ctx *c);
void pmc_mb_alloc_resume(struct pmc_run_ctx *c);
void pmc_mb_alloc_end(struct pmc_run_ctx *c);

/* One read of c's counters into rd and, when parts is not NULL, the parts of each split
 * event (hybrid CPUs) into parts. 0 without counters. */
int pmc_mb_counters_read(const struct pmc_run_ctx *c, struct pmc_reading *rd,
			 struct pmc_reading *parts);

/* fn on c->b->threads threads at once (threads.c). Returns 0 or -errno with one line in
 * err; sets *ret_left to what a thread's state had left when its function returned. */
int pmc_mb_run_threads(struct pmc_run_ctx *c, pmc_bench_fn fn, uint64_t *ret_left, char *err,
		       size_t errlen);

/* docs/events.md, "Scaling", applied to a batch's difference of two reads a and b, into
 * d: a batch that was multiplexed for part of its time is extrapolated as perf does. */
void pmc_mb_batch_reading(const struct pmc_reading *a, const struct pmc_reading *b,
			  struct pmc_reading *d);

/* A split event e's batch (hybrid CPUs) from c's parts at the two edges, into d, and its
 * parts into out (may be NULL): each part's difference, then their sum by the engine's
 * rule (docs/events.md, "Hybrid CPUs"). */
void pmc_mb_hybrid_batch(const struct pmc_run_ctx *c, size_t e, struct pmc_reading *d,
			 struct pmc_reading_parts *out);

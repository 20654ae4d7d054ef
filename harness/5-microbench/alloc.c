/* The allocation counter of the benchmark's process (pmc_register_memory_manager,
 * docs/microbench.md, "Allocations"): read at the edges of each thread's timed region and
 * around its pauses, and given as the counters allocs/op and alloc-bytes/op. */
#include <math.h>
#include <string.h>

#include "counters/perf/events.h"
#include "counters/perf/uprobe.h"
#include "core/result.h"
#include "microbench/loop.h"

/* Set once, before any benchmark runs (pmcbench-alloc's constructor, or main). */
static pmc_alloc_read_fn memory_manager;

void pmc_register_memory_manager(pmc_alloc_read_fn read)
{
	memory_manager = read;
}

/* The registered counter's totals into v (allocations, bytes; bytes UINT64_MAX when it
 * counts none). Returns false without one. */
static bool read_manager(uint64_t v[2])
{
	if (!memory_manager)
		return false;
	v[0] = 0;
	/* Left alone by a counter without bytes: not measured. */
	v[1] = UINT64_MAX;
	memory_manager(&v[0], &v[1]);
	return true;
}

void pmc_mb_alloc_start(struct pmc_run_ctx *c)
{
	c->alloc_on = read_manager(c->alloc0);
	c->alloc_paused[0] = c->alloc_paused[1] = 0;
}

void pmc_mb_alloc_pause(struct pmc_run_ctx *c)
{
	if (c->alloc_on)
		read_manager(c->alloc_pause);
}

void pmc_mb_alloc_resume(struct pmc_run_ctx *c)
{
	uint64_t v[2];

	if (!c->alloc_on || !read_manager(v))
		return;
	c->alloc_paused[0] += v[0] - c->alloc_pause[0];
	if (v[1] != UINT64_MAX && c->alloc_pause[1] != UINT64_MAX)
		c->alloc_paused[1] += v[1] - c->alloc_pause[1];
}

/* A counter of c's batch, marked as the memory manager's. */
static void set_counter(struct pmc_run_ctx *c, const char *name, double value)
{
	struct pmc_state s = {.left = 0, .ctx = c};

	pmc_set_counter(&s, name, value,
			PMC_COUNTER_PER_OP | PMC_COUNTER_LOWER_IS_BETTER | PMC_MB_COUNTER_ALLOC);
}

void pmc_mb_alloc_end(struct pmc_run_ctx *c)
{
	uint64_t v[2];

	if (!c->alloc_on || !read_manager(v) || c->uc_bad[0])
		return;
	set_counter(c, "allocs", (double)(v[0] - c->alloc0[0] - c->alloc_paused[0]));
	if (v[1] != UINT64_MAX && c->alloc0[1] != UINT64_MAX)
		set_counter(c, "alloc-bytes", (double)(v[1] - c->alloc0[1] - c->alloc_paused[1]));
}

/* The uprobes of --allocs that count allocating calls (docs/events.md, "Presets"). */
static const char *const alloc_probes[] = {"uprobe:libc:malloc", "uprobe:libc:calloc",
					   "uprobe:libc:realloc"};
#define NPROBES (sizeof(alloc_probes) / sizeof(alloc_probes[0]))

/* The events of alloc_probes in events, into at[] (false when one is not there). */
static bool find_probes(const struct pmc_event_list *events, size_t at[NPROBES])
{
	for (size_t p = 0; p < NPROBES; p++) {
		size_t e = 0;

		while (events && e < events->n &&
		       strcmp(events->events[e].name, alloc_probes[p]) != 0)
			e++;
		if (!events || e == events->n)
			return false;
		at[p] = e;
	}
	return true;
}

/* A metric of n samples, none measured, with the note saying why. */
static int not_measured(struct pmc_benchmark *bm, const char *id, size_t n, const char *why)
{
	struct pmc_metric *m;
	int r = pmc_benchmark_metric(bm, id, &m);

	for (size_t i = 0; r == 0 && i < n; i++)
		r = pmc_metric_append(m, NAN, NULL);
	return r == 0 ? pmc_metric_set_note(m, why) : r;
}

/* Whether every uprobe of --allocs counts through a tracefs probe (counters/perf/uprobe.h). */
static bool probed(const struct pmc_event_list *events, const size_t *at)
{
	for (size_t p = 0; p < NPROBES; p++)
		if (!pmc_uprobe_event_probed(&events->events[at[p]]))
			return false;
	return true;
}

int pmc_mb_record_allocs(struct pmc_benchmark *bm, const struct pmc_mb_samples *s,
			 const struct pmc_event_list *events)
{
	uint64_t ops = s->iters * (s->threads > 1 ? s->threads : 1);
	bool counted = false, bytes = false;
	struct pmc_metric *m;
	size_t at[NPROBES];
	int r = 0;

	for (size_t k = 0; k < s->nuc && s->uc_values; k++) {
		if (!(s->uc[k].flags & PMC_MB_COUNTER_ALLOC))
			continue;
		bool is_bytes = strcmp(s->uc[k].name, "alloc-bytes") == 0;

		counted = true;
		bytes |= is_bytes;
		r = pmc_benchmark_metric(bm, is_bytes ? "alloc-bytes/op" : "allocs/op", &m);
		if (r == 0)
			r = pmc_metric_set_note(m, PMC_MB_ALLOC_NOTE);
		if (r < 0)
			return r;
	}
	if (counted)
		return bytes ? 0 : not_measured(bm, "alloc-bytes/op", s->n, PMC_MB_ALLOC_NO_BYTES);
	if (!find_probes(events, at))
		return 0;
	/* No counter in the process: the calls from the uprobes, the bytes not measured; on
	 * several threads the uprobe PMU's miss calls (PMC_MB_UPROBE_THREADS). */
	if (s->threads > 1 && !probed(events, at)) {
		r = not_measured(bm, "allocs/op", s->n, PMC_MB_ALLOC_UPROBE_THREADS);
		return r == 0
			   ? not_measured(bm, "alloc-bytes/op", s->n, PMC_MB_ALLOC_UPROBE_NO_BYTES)
			   : r;
	}
	r = pmc_benchmark_metric(bm, "allocs/op", &m);
	for (size_t i = 0; r == 0 && i < s->n; i++) {
		double v = 0;

		for (size_t p = 0; p < NPROBES; p++) {
			const struct pmc_reading *rd = &s->readings[i * s->nev + at[p]];

			v += pmc_status_has_value(rd->status) ? rd->scaled : NAN;
		}
		r = pmc_metric_append(m, pmc_mb_per_op(v, ops), NULL);
	}
	if (r == 0)
		r = pmc_metric_set_note(m, PMC_MB_ALLOC_UPROBE_NOTE);
	return r == 0 ? not_measured(bm, "alloc-bytes/op", s->n, PMC_MB_ALLOC_UPROBE_NO_BYTES) : r;
}

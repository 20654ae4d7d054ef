/* The state a benchmark's function is handed (include/pmcbench/microbench.h): the edges
 * of its loop, where the counters and clocks are read (docs/microbench.md, "The loop"),
 * its pauses, its own counters, and what it asks of its benchmark (arguments, fixture,
 * thread, items and bytes per iteration, a skip). The batch that calls it is measure.c's. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/backend.h"
#include "microbench/loop.h"
#include "microbench/microbench.h"

/* Start: counters first, then the clock; end: the clock, then the counters, so each
 * measures as little of the other as it can. */
bool pmc_loop_edge_form(struct pmc_state *s, int form)
{
	struct pmc_run_ctx *c = s->ctx;
	int r;

	switch (c->phase) {
	case IDLE:
		c->form = form >= PMC_FORM_WHILE && form <= PMC_FORM_RANGE ? form : PMC_FORM_WHILE;
		if ((r = pmc_mb_counters_read(c, c->r0, c->p0)) < 0) {
			c->error = r;
			c->phase = DONE;
			return false;
		}
		/* The threads of a batch start their clocks together. */
		if (c->barrier)
			pthread_barrier_wait(c->barrier);
		c->phase = RUNNING;
		pmc_mb_alloc_start(c);
		if (c->cpu_clock)
			c->cpu0 = c->cpu_clock(c->cpu_clock_ud);
		c->t0 = c->clock(c->clock_ud);
		/* This call is the first iteration. */
		s->left = c->iters - 1;
		if (c->marks)
			c->marks->mark_toggle();
		return true;
	case RUNNING:
		if (c->paused) {
			c->ended_paused = true;
			pmc_resume(s);
		}
		if (c->marks)
			c->marks->mark_toggle();
		c->t1 = c->clock(c->clock_ud);
		if (c->cpu_clock)
			c->cpu1 = c->cpu_clock(c->cpu_clock_ud);
		/* Inside the counters' reads, as the clocks: what those do is not the body's. */
		pmc_mb_alloc_end(c);
		c->phase = DONE;
		if ((r = pmc_mb_counters_read(c, c->r1, c->p1)) < 0)
			c->error = r;
		return false;
	case DONE:
	default:
		return false;
	}
}

bool pmc_loop_edge(struct pmc_state *s)
{
	return pmc_loop_edge_form(s, PMC_FORM_WHILE);
}

/* A pause mirrors the batch's end (clocks, then counters) and a resume its start
 * (counters, then clocks), so the paused stretch is measured as a batch's edges are. The
 * counters are disabled in between: their counts and times stop, hybrid parts included. */
void pmc_pause(struct pmc_state *s)
{
	struct pmc_run_ctx *c = s && s->ctx ? s->ctx : NULL;

	if (!c || c->phase != RUNNING || c->paused)
		return;
	if (c->marks)
		c->marks->mark_toggle();
	c->pause_t = c->clock(c->clock_ud);
	pmc_mb_alloc_pause(c);
	if (c->cpu_clock)
		c->pause_cpu = c->cpu_clock(c->cpu_clock_ud);
	if (c->counters)
		c->be->thread_pause(c->counters, true);
	c->paused = true;
	c->pauses++;
}

void pmc_resume(struct pmc_state *s)
{
	struct pmc_run_ctx *c = s && s->ctx ? s->ctx : NULL;

	if (!c || c->phase != RUNNING || !c->paused)
		return;
	if (c->counters)
		c->be->thread_pause(c->counters, false);
	pmc_mb_alloc_resume(c);
	if (c->cpu_clock)
		c->paused_cpu += c->cpu_clock(c->cpu_clock_ud) - c->pause_cpu;
	c->paused_ns += c->clock(c->clock_ud) - c->pause_t;
	c->paused = false;
	if (c->marks)
		c->marks->mark_toggle();
}

void pmc_set_counter(struct pmc_state *s, const char *name, double value, unsigned flags)
{
	struct pmc_run_ctx *c = s && s->ctx ? s->ctx : NULL;
	size_t k = 0, len = name ? strlen(name) : 0;

	if (!c || c->uc_bad[0])
		return;
	if (!len || len >= sizeof(c->uc[0].name) || strchr(name, '/')) {
		snprintf(c->uc_bad, sizeof(c->uc_bad),
			 "counter name \"%.64s\" is empty, longer than 63 characters or has '/'",
			 name ? name : "(null)");
		return;
	}
	while (k < c->nuc && strcmp(c->uc[k].name, name) != 0)
		k++;
	if (k == PMC_COUNTERS_MAX) {
		snprintf(c->uc_bad, sizeof(c->uc_bad), "counter \"%s\" is one more than %d", name,
			 PMC_COUNTERS_MAX);
		return;
	}
	if (k == c->nuc) {
		memcpy(c->uc[k].name, name, len + 1);
		c->nuc++;
	}
	c->uc[k].flags = flags;
	c->ucv[k] = flags & PMC_COUNTER_PER_ITERATION ? value * (double)c->iters : value;
}

unsigned pmc_thread_index(const struct pmc_state *s)
{
	return s && s->ctx ? s->ctx->thread_index : 0;
}

unsigned pmc_threads(const struct pmc_state *s)
{
	return s && s->ctx && s->ctx->nthreads ? s->ctx->nthreads : 1;
}

uint64_t pmc_iterations(const struct pmc_state *s)
{
	return s && s->ctx ? s->ctx->iters : 0;
}

void pmc_set_fixture(struct pmc_state *s, void *data)
{
	if (s && s->ctx)
		s->ctx->fixture = data;
}

void *pmc_fixture(const struct pmc_state *s)
{
	return s && s->ctx ? s->ctx->fixture : NULL;
}

int64_t pmc_arg(const struct pmc_state *s, size_t i)
{
	const struct pmc_mb_bench *b = s && s->ctx ? s->ctx->b : NULL;

	return b && i < b->nargs ? b->args[i] : 0;
}

void pmc_set_items_per_iter(struct pmc_state *s, uint64_t items)
{
	if (s && s->ctx)
		s->ctx->items = items;
}

void pmc_set_bytes_per_iter(struct pmc_state *s, uint64_t bytes)
{
	if (s && s->ctx)
		s->ctx->bytes = bytes;
}

void pmc_set_iteration_time(struct pmc_state *s, double seconds)
{
	struct pmc_run_ctx *c = s ? s->ctx : NULL;

	if (!c || !c->b || !c->b->def.use_manual_time || !(seconds >= 0) || !isfinite(seconds))
		return;
	c->manual_ns += seconds * 1e9;
	c->manual_set = true;
}

void pmc_skip(struct pmc_state *s, const char *message)
{
	if (!s || !s->ctx || s->ctx->skipped)
		return;
	s->ctx->skipped = true;
	/* Out of memory loses the reason, never the skip. */
	s->ctx->message = message ? strdup(message) : NULL;
}

void pmc_set_user_data(struct pmc_state *s, void *data)
{
	if (s && s->ctx)
		s->ctx->user = data;
}

void *pmc_user_data(const struct pmc_state *s)
{
	return s && s->ctx ? s->ctx->user : NULL;
}

void pmc_do_not_optimize_ptr(const volatile void *p)
{
	(void)p;
}

/* Multithreaded benchmarks (docs/microbench.md, "Threads"): a batch's function on several
 * threads at once, each with its own state, started together at a barrier, and what they
 * did summed into the batch's context. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "microbench/loop.h"

/* Where a batch's threads wait until every one of them exists: go 1 runs them, -1
 * (one could not be created) ends them unrun, so that none waits for it at the barrier. */
struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int go;
};

static void gate_open(struct gate *g, int go)
{
	pthread_mutex_lock(&g->lock);
	g->go = go;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

/* One thread of a multithreaded batch. */
struct thread_arg {
	struct pmc_run_ctx ctx;
	pmc_bench_fn fn;
	struct gate *gate;
	uint64_t left; /* its state's left when the function returned */
	pthread_t tid;
	bool started;
};

static void *thread_main(void *p)
{
	struct thread_arg *a = p;
	struct pmc_state s = {.left = 0, .ctx = &a->ctx};
	int go;

	pthread_mutex_lock(&a->gate->lock);
	while (!(go = a->gate->go))
		pthread_cond_wait(&a->gate->cond, &a->gate->lock);
	pthread_mutex_unlock(&a->gate->lock);
	if (go < 0)
		return NULL;
	if (!a->ctx.skipped)
		a->fn(&s);
	/* A thread that never started its loop (a skip, an error) still lets the others
	 * past the barrier; the batch then fails or is skipped. */
	if (a->ctx.phase == IDLE)
		pthread_barrier_wait(a->ctx.barrier);
	a->left = s.left;
	return NULL;
}

/* What the threads of a batch did, into c (docs/microbench.md, "Threads"): the batch's
 * time is the mean of the threads' timed parts (Google Benchmark's real time), the
 * pauses and the calibration's CPU time those of thread 0 (the calling one), user
 * counters summed by name, the first skip or misuse. Sets *ret_left. */
static void gather_threads(struct pmc_run_ctx *c, struct thread_arg *a, unsigned n,
			   uint64_t *ret_left)
{
	bool manual = c->b->def.use_manual_time;
	double sum = 0;
	uint64_t pauses = 0;

	c->phase = DONE;
	*ret_left = 0;
	for (unsigned i = 0; i < n; i++) {
		struct pmc_run_ctx *t = &a[i].ctx;

		if (t->skipped && !c->skipped) {
			c->skipped = true;
			c->message = t->message;
			t->message = NULL;
		}
		free(t->message);
		if (t->uc_bad[0] && !c->uc_bad[0])
			memcpy(c->uc_bad, t->uc_bad, sizeof(c->uc_bad));
		c->ended_paused |= t->ended_paused;
		if (t->phase != DONE || a[i].left) {
			c->phase = t->phase == DONE ? RUNNING : t->phase;
			*ret_left = a[i].left;
		}
		if (!c->items)
			c->items = t->items;
		if (!c->bytes)
			c->bytes = t->bytes;
		sum += manual ? t->manual_ns : (double)(t->t1 - t->t0 - t->paused_ns);
		pauses += t->pauses;
		for (size_t k = 0; k < t->nuc; k++) {
			size_t j = 0;

			while (j < c->nuc && strcmp(c->uc[j].name, t->uc[k].name) != 0)
				j++;
			if (j == PMC_COUNTERS_MAX)
				continue;
			if (j == c->nuc)
				c->uc[c->nuc++] = t->uc[k];
			if (!isnan(t->ucv[k]))
				c->ucv[j] = isnan(c->ucv[j]) ? t->ucv[k] : c->ucv[j] + t->ucv[k];
		}
	}
	c->threads_ns = sum / n;
	c->manual_set = true;
	for (unsigned i = 0; i < n; i++)
		c->manual_set &= a[i].ctx.manual_set;
	c->pauses = (pauses + n / 2) / n;
	c->form = a[0].ctx.form;
	c->cpu0 = a[0].ctx.cpu0;
	c->cpu1 = a[0].ctx.cpu1;
	c->paused_cpu = a[0].ctx.paused_cpu;
}

/* fn on c->b->threads threads at once, the calling one thread 0, each with its own state
 * and a copy of the batch's context without the counters: those are read around the
 * whole batch (opened with inherit, so that the threads' counts fold in when they end),
 * and a thread's pauses stop its clock only. Returns 0 or -errno with one line in err. */
int pmc_mb_run_threads(struct pmc_run_ctx *c, pmc_bench_fn fn, uint64_t *ret_left, char *err,
		       size_t errlen)
{
	unsigned n = c->b->threads;
	struct thread_arg *a = calloc(n, sizeof(*a));
	struct gate gate = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
	pthread_barrier_t bar;
	int r = 0;

	if (!a || pthread_barrier_init(&bar, NULL, n) != 0) {
		free(a);
		pmc_err_set(err, errlen, "'%s': cannot start %u threads: out of memory", c->b->name,
			    n);
		return -ENOMEM;
	}
	if ((r = pmc_mb_counters_read(c, c->r0, c->p0)) < 0) {
		pmc_err_set(err, errlen, "'%s': cannot read the counters: %s", c->b->name,
			    strerror(-r));
		goto out;
	}
	for (unsigned i = 0; i < n; i++) {
		a[i].ctx = *c;
		a[i].ctx.counters = NULL;
		a[i].ctx.p0 = a[i].ctx.p1 = NULL;
		a[i].ctx.marks = NULL;
		a[i].ctx.message = NULL;
		a[i].ctx.barrier = &bar;
		a[i].ctx.thread_index = i;
		a[i].ctx.nthreads = n;
		/* What setup counted is the calling context's, once; the threads add theirs. */
		for (size_t k = 0; k < PMC_COUNTERS_MAX; k++)
			a[i].ctx.ucv[k] = NAN;
		if (i)
			a[i].ctx.cpu_clock = NULL;
		a[i].fn = fn;
		a[i].gate = &gate;
	}
	for (unsigned i = 1; i < n && r == 0; i++) {
		r = -pthread_create(&a[i].tid, NULL, thread_main, &a[i]);
		a[i].started = r == 0;
	}
	gate_open(&gate, r == 0 ? 1 : -1);
	if (r == 0)
		thread_main(&a[0]);
	for (unsigned i = 1; i < n; i++)
		if (a[i].started)
			pthread_join(a[i].tid, NULL);
	if (r < 0) {
		for (unsigned i = 0; i < n; i++)
			free(a[i].ctx.message);
		pmc_err_set(err, errlen, "'%s': cannot start %u threads: %s", c->b->name, n,
			    strerror(-r));
		goto out;
	}
	gather_threads(c, a, n, ret_left);
	/* pthread_join returns once the kernel clears a thread's tid (mm_release), which can
	 * precede its perf_event_exit_task; the read still has its counts: a read of an
	 * inherited event adds the live children's, and sync_child_event moves an exiting
	 * one's into the parent under the same child_mutex (kernel/events/core.c,
	 * __perf_event_read_value, perf_child_detach). */
	if ((r = pmc_mb_counters_read(c, c->r1, c->p1)) < 0)
		c->error = r;
	r = 0;
out:
	pthread_barrier_destroy(&bar);
	free(a);
	return r;
}

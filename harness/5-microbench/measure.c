/* The loop and its measurement (docs/microbench.md, "The loop", "Calibration",
 * "Overhead"): a batch is one call of the benchmark's function, whose pmc_loop() runs
 * the harness's count of iterations; clocks and counters are read at the batch's two
 * edges only. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "counters/backend.h"
#include "counters/perf/events.h"
#include "base/error.h"
#include "core/stats.h"
#include "microbench/loop.h"
#include "microbench/microbench.h"

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

static uint64_t monotonic_ns(void *ud)
{
	(void)ud;
	return clock_ns(CLOCK_MONOTONIC);
}

/* The calling thread's CPU time: what calibration grows the batch on. */
static uint64_t thread_cpu_ns(void *ud)
{
	(void)ud;
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

int pmc_mb_counters_read(const struct pmc_run_ctx *c, struct pmc_reading *rd,
			 struct pmc_reading *parts)
{
	return c->counters ? c->be->thread_read(c->counters, rd, parts) : 0;
}

/* The process's CPU time, every thread's: what a benchmark with
 * measure_process_cpu_time is timed by. */
static uint64_t process_cpu_ns(void *ud)
{
	(void)ud;
	return clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

/* The loop whose cost every result reports beside its figures: the benchmarks' loop with a body
 * that only makes the compiler reload s->left, as pmc_do_not_optimize's clobber does. */
static void empty_loop(struct pmc_state *s)
{
	while (pmc_loop(s))
		pmc_clobber_memory();
}

/* The same for PMC_LOOP; also the C++ range loop's when its program gave none (its count
 * is a local too). */
static void empty_loop_local(struct pmc_state *s)
{
	PMC_LOOP(s)
	{
		pmc_clobber_memory();
	}
}

pmc_bench_fn pmc_mb_empty_fn(const struct pmc_mb_bench *b, int form)
{
	const struct pmc_bench_def *d = &b->def;

	switch (form) {
	case PMC_FORM_RANGE:
		if (d->empty_range)
			return d->empty_range;
		/* fall through */
	case PMC_FORM_LOCAL:
		return d->empty_local ? d->empty_local : empty_loop_local;
	default:
		return d->empty ? d->empty : empty_loop;
	}
}

/* One batch of fn at c->iters, setup and teardown around it, outside the edges. Sets
 * *ret_ns and, with counters, out[0..nev-1]. */
static int run_batch(struct pmc_run_ctx *c, pmc_bench_fn fn, const struct pmc_bench_def *def,
		     size_t nev, double *ret_ns, struct pmc_reading *out,
		     struct pmc_reading_parts *pout, char *err, size_t errlen)
{
	struct pmc_state s = {.left = 0, .ctx = c};
	/* The benchmark's own function on its threads; its empty and pause loops on one. */
	bool threaded = def && c->b && c->b->threads > 1;
	int r;

	/* Each batch's setup starts from nothing: the last teardown freed what it had. */
	c->user = NULL;
	for (size_t k = 0; k < PMC_COUNTERS_MAX; k++)
		c->ucv[k] = NAN;
	if (def && def->setup)
		def->setup(&s);
	c->phase = IDLE;
	c->error = 0;
	c->pauses = c->paused_ns = c->paused_cpu = 0;
	c->paused = c->ended_paused = false;
	c->threads_ns = NAN;
	c->manual_ns = 0;
	c->manual_set = false;
	s.left = 0;
	if (threaded && !c->skipped) {
		r = pmc_mb_run_threads(c, fn, &s.left, err, errlen);
		if (r < 0) {
			if (def->teardown)
				def->teardown(&s);
			return r;
		}
	} else if (!c->skipped) {
		fn(&s);
	}
	if (def && def->teardown)
		def->teardown(&s);
	if (c->skipped)
		return 0;
	if (c->error) {
		pmc_err_set(err, errlen, "'%s': cannot read the counters: %s", c->b->name,
			    strerror(-c->error));
		return c->error;
	}
	if (c->uc_bad[0]) {
		pmc_err_set(err, errlen, "'%s': %s", c->b->name, c->uc_bad);
		return -EINVAL;
	}
	if (c->ended_paused) {
		pmc_err_set(err, errlen, "'%s' ended its loop paused; call pmc_resume() first",
			    c->b->name);
		return -EINVAL;
	}
	if (c->phase != DONE || s.left) {
		pmc_err_set(err, errlen,
			    "'%s' %s; run `while (pmc_loop(s)) { ... }` to its end, "
			    "or call pmc_skip()",
			    c->b->name,
			    c->phase == IDLE ? "returned without running its loop"
					     : "left its loop before the end");
		return -EINVAL;
	}
	if (def && def->use_manual_time && !c->manual_set) {
		pmc_err_set(err, errlen,
			    "'%s' uses manual time but never called pmc_set_iteration_time(); "
			    "call it in every iteration, or drop use_manual_time",
			    c->b->name);
		return -EINVAL;
	}
	/* The process's CPU time, every thread's, as the metric cpu-time/op. */
	if (def && def->measure_process_cpu_time && c->cpu_clock)
		pmc_set_counter(&s, "cpu-time", (double)(c->cpu1 - c->cpu0 - c->paused_cpu),
				PMC_COUNTER_PER_OP | PMC_COUNTER_LOWER_IS_BETTER);
	*ret_ns = threaded			? c->threads_ns
		  : def && def->use_manual_time ? c->manual_ns
						: (double)(c->t1 - c->t0 - c->paused_ns);
	for (size_t e = 0; c->counters && e < nev; e++) {
		if (c->split && c->split[e].n)
			pmc_mb_hybrid_batch(c, e, &out[e], pout ? &pout[e] : NULL);
		else
			pmc_mb_batch_reading(&c->r0[e], &c->r1[e], &out[e]);
		/* The difference of raw counts, like the engine's read, is in the unit of the
		 * event's sysfs scale (RAPL: joules) only once scaled. */
		if (c->events && pmc_status_has_value(out[e].status))
			out[e].scaled *= pmc_event_scale(&c->events->events[e]);
	}
	return 0;
}

/* The definition's setup_once or teardown_once, when it has one. */
static void run_once(struct pmc_run_ctx *c, pmc_bench_fn fn)
{
	struct pmc_state s = {.left = 0, .ctx = c};

	if (fn)
		fn(&s);
}

void pmc_mb_once(const struct pmc_mb_bench *b, bool up, void **fixture)
{
	struct pmc_run_ctx c = {.b = b, .clock = monotonic_ns, .fixture = *fixture};

	run_once(&c, up ? b->def.setup_once : b->def.teardown_once);
	*fixture = c.fixture;
}

int pmc_mb_batch(const struct pmc_mb_bench *b, int loop, uint64_t iters,
		 const struct pmc_backend_ops *marks, void **fixture, struct pmc_mb_batch_out *ret,
		 char *err, size_t errlen)
{
	struct pmc_run_ctx c = {.b = b, .iters = iters, .clock = monotonic_ns, .marks = marks};
	bool empty = loop != PMC_MB_BODY;
	double ns = 0;
	int r;

	memset(ret, 0, sizeof(*ret));
	/* The marks switch counting at one thread's edges: they cannot count a batch of
	 * several. */
	if (marks && b->threads > 1) {
		pmc_err_set(err, errlen,
			    "'%s' runs on %u threads, which the %s backend cannot count "
			    "apart; leave it out with --filter",
			    b->name, b->threads, marks->name);
		return -ENOTSUP;
	}
	if (fixture)
		c.fixture = *fixture;
	else if (!empty)
		run_once(&c, b->def.setup_once);
	r = run_batch(&c, empty ? pmc_mb_empty_fn(b, loop) : b->def.fn, empty ? NULL : &b->def, 0,
		      &ns, NULL, NULL, err, errlen);
	if (fixture)
		*fixture = c.fixture;
	else if (!empty)
		run_once(&c, b->def.teardown_once);
	ret->skipped = c.skipped;
	ret->message = c.message;
	if (r == 0) {
		ret->ns = ns;
		ret->pauses = c.pauses;
		ret->form = c.form;
	}
	return r;
}

/* Google Benchmark's rule (benchmark_runner.cc, PredictNumItersNeeded): grow tenfold
 * while a batch is under a tenth of the target, else aim 40% past it. */
static uint64_t next_iters(uint64_t n, double ns, double target_ns, uint64_t max)
{
	double mult = ns > 0 && ns / target_ns > 0.1 ? target_ns * 1.4 / ns : 10.0;
	double next = (double)n * mult;
	uint64_t v = next >= (double)max ? max : (uint64_t)next;

	return v > n ? v : n + 1;
}

void pmc_mb_samples_free(struct pmc_mb_samples *s)
{
	if (!s)
		return;
	free(s->ns);
	free(s->readings);
	free(s->parts);
	free(s->over_counts);
	free(s->over_v);
	free(s->message);
	free(s->process);
	free(s->uc_values);
	memset(s, 0, sizeof(*s));
}

/* The empty loop at the benchmark's batch size, as many times as it has samples: the
 * medians become the overhead (docs/microbench.md, "Overhead"). */
static int measure_overhead(struct pmc_run_ctx *c, pmc_bench_fn empty, struct pmc_mb_samples *s,
			    char *err, size_t errlen)
{
	size_t n = s->n, nev = s->nev;
	double *t = calloc(n + 1, sizeof(*t)), *col = calloc(n + 1, sizeof(*col));
	struct pmc_reading *rd = calloc(n * nev + 1, sizeof(*rd));
	int r = 0;

	if (!t || !col || !rd) {
		pmc_err_set(err, errlen, "out of memory");
		r = -ENOMEM;
		goto out;
	}
	/* One unrecorded batch first: the code and data of the empty loop warm up. */
	for (size_t i = 0; i <= n && r == 0; i++)
		r = run_batch(c, empty, NULL, nev, &t[i > 0 ? i - 1 : 0],
			      &rd[(i > 0 ? i - 1 : 0) * nev], NULL, err, errlen);
	if (r < 0)
		goto out;
	/* Each sample's own empty batch, before the median sorts them. */
	free(s->over_v);
	s->over_v = malloc(n * sizeof(*s->over_v) + 1);
	if (!s->over_v) {
		pmc_err_set(err, errlen, "out of memory");
		r = -ENOMEM;
		goto out;
	}
	memcpy(s->over_v, t, n * sizeof(*t));
	s->over_ns = pmc_median(t, n);
	for (size_t e = 0; e < nev; e++) {
		for (size_t i = 0; i < n; i++)
			col[i] = c->counters ? rd[i * nev + e].scaled : NAN;
		s->over_counts[e] = pmc_median(col, n);
	}
out:
	free(t);
	free(col);
	free(rd);
	return r;
}

/* What a benchmark's pmc_pause/pmc_resume pairs cost: k pairs in one iteration, k the
 * benchmark's pairs per batch, so the batch holds what the benchmark's did. */
static void pause_loop(struct pmc_state *s)
{
	uint64_t k = s->ctx->pause_pairs;

	while (pmc_loop(s))
		for (uint64_t i = 0; i < k; i++) {
			pmc_pause(s);
			pmc_resume(s);
		}
}

/* A pair per iteration, in a loop whose bookkeeping is empty_loop's (the same loop in the
 * same file, around calls): their difference is what the pairs leave counted. */
static void pair_loop(struct pmc_state *s)
{
	while (pmc_loop(s)) {
		pmc_pause(s);
		pmc_resume(s);
	}
}

int pmc_mb_pause_batch(const struct pmc_mb_bench *b, uint64_t pairs, bool empty,
		       const struct pmc_backend_ops *marks, char *err, size_t errlen)
{
	struct pmc_run_ctx c = {.b = b, .iters = pairs, .clock = monotonic_ns, .marks = marks};
	double ns = 0;

	return run_batch(&c, empty ? empty_loop : pair_loop, NULL, 0, &ns, NULL, NULL, err, errlen);
}

/* The cost of one pause/resume pair (docs/microbench.md, "Untimed work"), measured as the
 * empty loop is: one unrecorded batch, then as many as there are samples, each of the
 * benchmark's `pairs` pairs with the counters as they were; the median batch over pairs.
 * What the two clock reads of a pair leave in the timed part (the code after the first
 * and before the second, the counters' system calls) would otherwise count as the
 * benchmark's. Sets *ret_ns. */
static int measure_pauses(struct pmc_run_ctx *c, uint64_t pairs, size_t n, size_t nev,
			  double *ret_ns, char *err, size_t errlen)
{
	double *t = calloc(n + 1, sizeof(*t));
	struct pmc_reading *rd = calloc(nev + 1, sizeof(*rd));
	uint64_t iters = c->iters;
	int r = 0;

	if (!t || !rd) {
		pmc_err_set(err, errlen, "out of memory");
		r = -ENOMEM;
		goto out;
	}
	c->iters = 1;
	c->pause_pairs = pairs;
	for (size_t i = 0; i <= n && r == 0; i++)
		r = run_batch(c, pause_loop, NULL, nev, &t[i > 0 ? i - 1 : 0], rd, NULL, err,
			      errlen);
	c->iters = iters;
	if (r == 0)
		*ret_ns = pmc_median(t, n) / (double)pairs;
out:
	free(t);
	free(rd);
	return r;
}

const struct pmc_mb_opts pmc_mb_opts_defaults = {.warmup = 1};

double pmc_mb_min_time(const struct pmc_mb_bench *b, const struct pmc_mb_opts *o)
{
	double t = b->def.min_time > 0 ? b->def.min_time : o ? o->min_time_s : 0;

	/* A negative or NaN one stays, for pmc_mb_measure to refuse. */
	return t != 0 ? t : 0.01;
}

/* Hybrid CPUs: the parts' PMUs of each event, and room for the parts' readings at a
 * batch's edges and in every sample, when some event is split. */
static int open_parts(struct pmc_run_ctx *c, struct pmc_mb_samples *s)
{
	bool any = false;

	c->split = calloc(s->nev, sizeof(*c->split));
	if (!c->split)
		return -ENOMEM;
	for (size_t e = 0; e < s->nev; e++) {
		c->be->thread_parts(c->counters, e, &c->split[e]);
		any |= c->split[e].n > 0;
	}
	if (!any) {
		free(c->split);
		c->split = NULL;
		return 0;
	}
	c->p0 = calloc(s->nev * PMC_PARTS_MAX, sizeof(*c->p0));
	c->p1 = calloc(s->nev * PMC_PARTS_MAX, sizeof(*c->p1));
	s->parts = calloc(s->n * s->nev, sizeof(*s->parts));
	return c->p0 && c->p1 && s->parts ? 0 : -ENOMEM;
}

static void close_counters(struct pmc_run_ctx *c)
{
	if (c->counters)
		c->be->thread_close(c->counters);
	c->counters = NULL;
	free(c->split);
	free(c->p0);
	free(c->p1);
	c->split = NULL;
	c->p0 = c->p1 = NULL;
}

int pmc_mb_measure(const struct pmc_mb_bench *b, const struct pmc_mb_opts *o,
		   struct pmc_mb_samples *ret, char *err, size_t errlen)
{
	const struct pmc_event_list *events;
	struct pmc_run_ctx c = {.b = b};
	struct pmc_mb_samples s = {0};
	size_t warmup;
	double target_ns, ns = 0;
	uint64_t max;
	pmc_bench_fn empty;
	uint64_t *pauses = NULL; /* per sample */
	bool once = false;	 /* setup_once ran */
	int r = 0;

	if (!b || !ret) {
		pmc_err_set(err, errlen, "no benchmark, or nowhere to put its samples");
		return -EINVAL;
	}
	o = o ? o : &pmc_mb_opts_defaults;
	/* 0 means the default, except for warmup, which may be none. */
	s.n = o->samples;
	s.n = s.n ? s.n : 10;
	warmup = o->warmup;
	target_ns = pmc_mb_min_time(b, o) * 1e9;
	max = o->max_iters;
	max = max ? max : UINT64_C(1000000000000);
	events = o->events;
	c.clock = o->clock;
	c.clock_ud = o->clock_ud;
	if (!c.clock)
		c.clock = monotonic_ns;
	empty = o->empty;
	if (!(target_ns > 0) || !isfinite(target_ns)) {
		pmc_err_set(err, errlen, "'%s': no samples, or a target time that is not positive",
			    b->name);
		return -EINVAL;
	}
	s.nev = events ? pmc_event_list_count(events) : 0;
	s.ns = calloc(s.n, sizeof(*s.ns));
	s.readings = calloc(s.n * s.nev + 1, sizeof(*s.readings));
	s.over_counts = calloc(s.nev + 1, sizeof(*s.over_counts));
	c.r0 = calloc(s.nev + 1, sizeof(*c.r0));
	c.r1 = calloc(s.nev + 1, sizeof(*c.r1));
	pauses = calloc(s.n, sizeof(*pauses));
	if (!s.ns || !s.readings || !s.over_counts || !c.r0 || !c.r1 || !pauses) {
		pmc_err_set(err, errlen, "out of memory");
		r = -ENOMEM;
		goto fail;
	}
	s.over_ns = NAN;
	for (size_t e = 0; e < s.nev; e++)
		s.over_counts[e] = NAN;
	if (s.nev) {
		/* A multithreaded benchmark's threads fold their counts into these when they
		 * end (inherit), before the batch's end read. */
		bool inherit = b->threads > 1;
		struct pmc_backend_thread_opts to = {
		    .events = events,
		    .user_only_fallback = o->user_only_fallback,
		    .inherit = inherit,
		    .self_read = !inherit && !o->no_self_read,
		    .sys = o->sys,
		};

		c.be = o->backend ? o->backend : &pmc_backend_perf;
		r = c.be->thread_open(&to, &c.counters);
		c.nev = s.nev;
		c.events = events;
		if (r == 0)
			r = open_parts(&c, &s);
		if (r < 0) {
			pmc_err_set(err, errlen, "'%s': cannot open the counters: %s", b->name,
				    strerror(-r));
			goto fail;
		}
	}

	/* Calibration: its batches are the first warm-up. It grows the batch on CPU time, as
	 * Google Benchmark does: a batch that was preempted took longer on the wall clock
	 * but not on the CPU, so one preemption no longer stops the growth early; a body
	 * that waits in every batch grows on the wall clock (below). An
	 * injected wall clock without a CPU clock (tests) calibrates on the wall clock. */
	/* The fixture's time is no batch's: before the first and after the last. */
	c.iters = b->def.iterations ? b->def.iterations : o->iters;
	run_once(&c, b->def.setup_once);
	once = true;
	/* The CPU clock: the injected one, or with measure_process_cpu_time the process's;
	 * then it is read at every batch's edges, the samples' too (cpu-time/op). */
	c.cpu_clock = o->cpu_clock;
	c.cpu_clock_ud = o->cpu_clock_ud;
	if (!c.cpu_clock && b->def.measure_process_cpu_time)
		c.cpu_clock = process_cpu_ns;
	if (c.iters == 0) {
		if (!c.cpu_clock && c.clock == monotonic_ns)
			c.cpu_clock = thread_cpu_ns;
		bool waited = false; /* the last batch waited more than it computed */

		c.iters = 1;
		for (;;) {
			double cpu, judged;
			bool waits;

			r = run_batch(&c, b->def.fn, &b->def, s.nev, &ns, s.readings, NULL, err,
				      errlen);
			cpu = c.cpu_clock ? (double)(c.cpu1 - c.cpu0 - c.paused_cpu) : ns;
			/* A body that sleeps or waits (I/O, another thread) uses a small share of
			 * the wall time on the CPU in every batch, a preempted batch in one:
			 * two such batches in a row grow the batch on the wall clock, which then
			 * reaches the target long before the CPU time would (a usleep(200) body
			 * grown on CPU time took seconds per sample). */
			waits = c.cpu_clock && ns > 2 * cpu;
			judged = b->def.use_real_time || b->def.use_manual_time || (waits && waited)
				     ? ns
				     : cpu;
			waited = waits;
			if (r < 0 || c.skipped || judged >= target_ns || c.iters >= max)
				break;
			c.iters = next_iters(c.iters, judged, target_ns, max);
		}
	}
	if (!b->def.measure_process_cpu_time)
		c.cpu_clock = NULL;
	for (size_t i = 0; i < warmup && r == 0 && !c.skipped; i++)
		r = run_batch(&c, b->def.fn, &b->def, s.nev, &ns, s.readings, NULL, err, errlen);
	for (size_t i = 0; i < s.n && r == 0 && !c.skipped; i++) {
		r = run_batch(&c, b->def.fn, &b->def, s.nev, &s.ns[i], &s.readings[i * s.nev],
			      s.parts ? &s.parts[i * s.nev] : NULL, err, errlen);
		pauses[i] = c.pauses;
		s.pauses = c.pauses > s.pauses ? c.pauses : s.pauses;
		if (r == 0 && c.nuc && !s.uc_values) {
			s.uc_values = malloc(s.n * PMC_COUNTERS_MAX * sizeof(double));
			if (!s.uc_values) {
				pmc_err_set(err, errlen, "out of memory");
				r = -ENOMEM;
			}
			for (size_t k = 0; s.uc_values && k < s.n * PMC_COUNTERS_MAX; k++)
				s.uc_values[k] = NAN;
		}
		if (s.uc_values) {
			for (size_t k = 0; k < PMC_COUNTERS_MAX; k++)
				s.uc_values[i * PMC_COUNTERS_MAX + k] = c.ucv[k];
		}
	}
	if (r < 0)
		goto fail;
	/* Each sample's pairs at their measured cost come off its time; a sample they cost
	 * more than was not measured (NAN, said in the result: samples.c), never 0. A manual
	 * time is the benchmark's own, with no pair in it. */
	if (s.pauses && !c.skipped && !b->def.use_manual_time) {
		r = measure_pauses(&c, s.pauses, s.n, s.nev, &s.pause_ns, err, errlen);
		if (r < 0)
			goto fail;
		for (size_t i = 0; i < s.n; i++) {
			double sub = (double)pauses[i] * s.pause_ns;

			s.ns[i] = s.ns[i] > sub ? s.ns[i] - sub : NAN;
		}
	}
	s.iters = c.iters;
	s.threads = b->threads;
	memcpy(s.uc, c.uc, sizeof(s.uc));
	s.nuc = c.nuc;
	s.items = c.items;
	s.bytes = c.bytes;
	s.skipped = c.skipped;
	s.message = c.message;
	c.message = NULL;
	if (!s.skipped && !o->no_overhead) {
		/* The empty loop of the form the benchmark's loop is written in. */
		r = measure_overhead(&c, empty ? empty : pmc_mb_empty_fn(b, c.form), &s, err,
				     errlen);
		if (r < 0)
			goto fail;
	}
	run_once(&c, b->def.teardown_once);
	if (c.counters)
		c.be->thread_read_counts(c.counters, &s.reads_self, &s.reads_sys);
	close_counters(&c);
	free(pauses);
	free(c.r0);
	free(c.r1);
	*ret = s;
	return 0;
fail:
	if (once)
		run_once(&c, b->def.teardown_once);
	close_counters(&c);
	free(pauses);
	free(c.r0);
	free(c.r1);
	free(c.message);
	pmc_mb_samples_free(&s);
	return r;
}

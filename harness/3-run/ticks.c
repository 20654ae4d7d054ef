/* Reading a run's counters at its ticks (ticks.h). */
#include <errno.h>
#include <stdlib.h>

#include "run/ticks.h"

static int on_tick(void *ud, uint64_t elapsed_ns)
{
	struct pmc_run_ticks *t = ud;
	int r = t->b->run_peek(t->run, t->buf);

	if (r == 0)
		r = pmc_intervals_add(t->iv, elapsed_ns, t->buf);
	if (r < 0)
		t->error = r;
	return r;
}

int pmc_run_ticks_start(struct pmc_run_ticks *t, const struct pmc_backend_ops *b,
			struct pmc_backend_session *s, struct pmc_backend_run *run, unsigned ms,
			struct pmc_spawn_opts *so)
{
	size_t n = b->nmetrics(s);
	const char **ids = calloc(n ? n : 1, sizeof(*ids));
	int r;

	*t = (struct pmc_run_ticks){.b = b, .s = s, .run = run};
	t->buf = calloc(n ? n : 1, sizeof(*t->buf));
	if (!ids || !t->buf) {
		free(ids);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		ids[i] = b->metric_id(s, i);
	r = pmc_intervals_new(ids, n, &t->iv);
	free(ids);
	if (r < 0)
		return r;
	so->tick_ms = ms;
	so->on_tick = on_tick;
	so->tick_ud = t;
	return 0;
}

int pmc_run_ticks_finish(struct pmc_run_ticks *t, uint64_t wall_ns, struct pmc_intervals **ret)
{
	char why[256];
	int r = t->error;

	for (size_t i = 0; r == 0 && i < t->iv->nids; i++) {
		struct pmc_reading_parts parts;

		r = t->b->run_reading(t->run, i, &t->buf[i], &parts, why, sizeof(why));
	}
	/* The last interval: from the last tick to the reaping, partial. */
	if (r == 0 && (t->iv->n == 0 || wall_ns > t->iv->end_ns[t->iv->n - 1]))
		r = pmc_intervals_add(t->iv, wall_ns, t->buf);
	if (r < 0)
		return r;
	*ret = t->iv;
	t->iv = NULL;
	return 0;
}

void pmc_run_ticks_free(struct pmc_run_ticks *t)
{
	pmc_intervals_free(t->iv);
	free(t->buf);
	t->iv = NULL;
	t->buf = NULL;
}

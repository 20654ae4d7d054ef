/* Events held open for a session, so that each run's opens only take a reference to
 * what the kernel sets up for the first (why: counters.h, pmc_events_hold()). */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>

#include "counters/perf/counters_priv.h"

struct pmc_event_hold {
	const struct pmc_sys *sys;
	int *fds;
	size_t n;
};

/* Whether the kernel sets something up for the first open of ev and undoes it at the
 * last close: a tracepoint's perf probe, a software event's static key (all but the two
 * clocks, which are PMUs of their own). */
static bool held(const struct pmc_event *ev)
{
	return ev->kind == PMC_EV_TRACEPOINT ||
	       (ev->type == PERF_TYPE_SOFTWARE && ev->config != PERF_COUNT_SW_CPU_CLOCK &&
		ev->config != PERF_COUNT_SW_TASK_CLOCK);
}

int pmc_events_hold(const struct pmc_event_list *list, struct pmc_event_hold **ret)
{
	const struct pmc_sys *sys = pmc_sys_kernel();
	struct pmc_event_hold *h;
	size_t nheld = 0;

	*ret = NULL;
	for (size_t i = 0; list && i < list->n; i++)
		nheld += held(&list->events[i]);
	if (nheld == 0)
		return 0;
	h = calloc(1, sizeof(*h));
	if (!h || !(h->fds = calloc(nheld, sizeof(*h->fds)))) {
		free(h);
		return -ENOMEM;
	}
	h->sys = sys;
	for (size_t i = 0; i < list->n; i++) {
		struct perf_event_attr attr;
		int fd;

		if (!held(&list->events[i]))
			continue;
		event_attr(&list->events[i], 0, &attr);
		attr.disabled = 1;
		/* The key is the event's whatever it counts: user space only, so that
		 * perf_event_paranoid 2 lets anyone hold it. */
		if (list->events[i].kind != PMC_EV_TRACEPOINT)
			attr.exclude_kernel = attr.exclude_hv = 1;
		fd = sys->event_open(sys->ctx, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0)
			h->fds[h->n++] = fd;
	}
	*ret = h;
	return 0;
}

void pmc_events_release(struct pmc_event_hold *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->n; i++)
		h->sys->close(h->sys->ctx, h->fds[i]);
	free(h->fds);
	free(h);
}

/* Tracepoints held registered for a session, so that each run's opens only take a
 * reference to their probes (why: counters.h, pmc_tracepoints_hold()). */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>

#include "counters/perf/counters_priv.h"

struct pmc_tracepoint_hold {
	const struct pmc_sys *sys;
	int *fds;
	size_t n;
};

int pmc_tracepoints_hold(const struct pmc_event_list *list, struct pmc_tracepoint_hold **ret)
{
	const struct pmc_sys *sys = pmc_sys_kernel();
	struct pmc_tracepoint_hold *h;
	size_t ntp = 0;

	*ret = NULL;
	for (size_t i = 0; list && i < list->n; i++)
		ntp += list->events[i].kind == PMC_EV_TRACEPOINT;
	if (ntp == 0)
		return 0;
	h = calloc(1, sizeof(*h));
	if (!h || !(h->fds = calloc(ntp, sizeof(*h->fds)))) {
		free(h);
		return -ENOMEM;
	}
	h->sys = sys;
	for (size_t i = 0; i < list->n; i++) {
		struct perf_event_attr attr;
		int fd;

		if (list->events[i].kind != PMC_EV_TRACEPOINT)
			continue;
		event_attr(&list->events[i], 0, &attr);
		attr.disabled = 1;
		fd = sys->event_open(sys->ctx, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0)
			h->fds[h->n++] = fd;
	}
	*ret = h;
	return 0;
}

void pmc_tracepoints_release(struct pmc_tracepoint_hold *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->n; i++)
		h->sys->close(h->sys->ctx, h->fds[i]);
	free(h->fds);
	free(h);
}

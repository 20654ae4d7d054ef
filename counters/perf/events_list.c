/* A parsed event list and its events: the getters of the public API, appending lists,
 * what an event needs (a hardware PMU or not), its scale and the CPUs it is opened on. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "counters/perf/events.h"

bool pmc_event_is_hardware(const struct pmc_event *ev)
{
	switch (ev->kind) {
	case PMC_EV_SOFTWARE:
	case PMC_EV_TRACEPOINT:
	case PMC_EV_UPROBE:
		return false;
	case PMC_EV_PMU:
		return ev->type != PERF_TYPE_SOFTWARE;
	default:
		return true;
	}
}

bool pmc_event_kernel_recorded(uint32_t type, uint64_t config)
{
	/* Faults are recorded with the faulting context's registers (arch/x86/mm/fault.c,
	 * mm/memory.c mm_account_fault()), so :u counts those taken in user mode; the clocks
	 * count time, which no exclude bit filters. */
	return type == PERF_TYPE_SOFTWARE &&
	       (config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
		config == PERF_COUNT_SW_CPU_MIGRATIONS ||
		config == 11 /* PERF_COUNT_SW_CGROUP_SWITCHES, Linux 5.13 */);
}

void pmc_event_list_free(struct pmc_event_list *list)
{
	if (!list)
		return;
	free(list->events);
	free(list);
}

int pmc_event_list_append(struct pmc_event_list *dst, const struct pmc_event_list *src)
{
	struct pmc_event *tmp;

	if (!dst || !src)
		return -EINVAL;
	if (src->n == 0)
		return 0;
	if (src->n > SIZE_MAX / sizeof(*tmp) - dst->n)
		return -ENOMEM;
	tmp = realloc(dst->events, (dst->n + src->n) * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	dst->events = tmp;
	for (size_t i = 0; i < src->n; i++) {
		tmp[dst->n + i] = src->events[i];
		tmp[dst->n + i].group += dst->ngroups;
	}
	dst->n += src->n;
	dst->ngroups += src->ngroups;
	return 0;
}

int pmc_cpu_list_each(const char *list, int (*fn)(int cpu, void *ud), void *ud)
{
	const char *s = list;

	if (!list || !*list)
		return -EINVAL;
	while (*s) {
		char *end;
		long lo = strtol(s, &end, 10), hi = lo;
		int r;

		if (end == s || lo < 0 || lo > 65535)
			return -EINVAL;
		s = end;
		if (*s == '-') {
			hi = strtol(++s, &end, 10);
			if (end == s || hi < lo || hi > 65535)
				return -EINVAL;
			s = end;
		}
		for (long c = lo; c <= hi; c++)
			if ((r = fn((int)c, ud)) < 0)
				return r;
		if (*s == ',')
			s++;
		else if (*s)
			return -EINVAL;
	}
	return 0;
}

static int count_cpu(int cpu, void *ud)
{
	(void)cpu;
	++*(size_t *)ud;
	return 0;
}

size_t pmc_cpu_list_count(const char *list)
{
	size_t n = 0;

	return pmc_cpu_list_each(list, count_cpu, &n) == 0 ? n : 0;
}

double pmc_event_scale(const struct pmc_event *ev)
{
	return ev->scale > 0 ? ev->scale : 1.0;
}

/* ---- reading a list ---- */

static const struct pmc_event *event_at(const struct pmc_event_list *list, size_t i)
{
	return list && i < list->n ? &list->events[i] : NULL;
}

size_t pmc_event_list_count(const struct pmc_event_list *list)
{
	return list ? list->n : 0;
}

size_t pmc_event_list_group_count(const struct pmc_event_list *list)
{
	return list ? list->ngroups : 0;
}

const char *pmc_event_list_name(const struct pmc_event_list *list, size_t i)
{
	const struct pmc_event *ev = event_at(list, i);

	return ev ? ev->name : NULL;
}

size_t pmc_event_list_group(const struct pmc_event_list *list, size_t i)
{
	const struct pmc_event *ev = event_at(list, i);

	return ev ? ev->group : SIZE_MAX;
}

bool pmc_event_list_is_leader(const struct pmc_event_list *list, size_t i)
{
	const struct pmc_event *ev = event_at(list, i);

	return ev && ev->leader;
}

bool pmc_event_list_is_hardware(const struct pmc_event_list *list, size_t i)
{
	const struct pmc_event *ev = event_at(list, i);

	return ev && pmc_event_is_hardware(ev);
}

int pmc_event_list_describe(const struct pmc_event_list *list, size_t i, struct pmc_event_desc *ret)
{
	const struct pmc_event *ev = event_at(list, i);
	struct pmc_event_desc d;

	if (!ev || !ret || ret->sz < sizeof(ret->sz))
		return -EINVAL;
	memset(&d, 0, sizeof(d));
	d.sz = ret->sz;
	d.name = ev->name;
	d.kind = ev->kind;
	d.type = ev->type;
	d.config = ev->config;
	d.config1 = ev->config1;
	d.config2 = ev->config2;
	d.exclude_user = ev->exclude_user;
	d.exclude_kernel = ev->exclude_kernel;
	d.exclude_hv = ev->exclude_hv;
	d.group = ev->group;
	d.leader = ev->leader;
	d.hardware = pmc_event_is_hardware(ev);
	/* An older caller's smaller struct gets the fields it knows. */
	memcpy(ret, &d, ret->sz < sizeof(d) ? ret->sz : sizeof(d));
	return 0;
}

const char *pmc_event_kind_name(enum pmc_event_kind kind)
{
	switch (kind) {
	case PMC_EV_HARDWARE:
		return "hardware";
	case PMC_EV_HW_CACHE:
		return "hardware-cache";
	case PMC_EV_SOFTWARE:
		return "software";
	case PMC_EV_RAW:
		return "raw";
	case PMC_EV_PMU:
		return "pmu";
	case PMC_EV_TRACEPOINT:
		return "tracepoint";
	case PMC_EV_UPROBE:
		return "uprobe";
	}
	return "unknown";
}

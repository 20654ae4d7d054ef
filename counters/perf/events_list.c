/* A parsed event list and its events: the getters of the public API, appending lists,
 * what an event needs (a hardware PMU or not), its scale and the CPUs it is opened on. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/perf/events.h"
#include "counters/reading.h"

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

static const struct pmc_event *find_named(const struct pmc_event_list *l, const char *name)
{
	for (size_t i = 0; l && i < l->n; i++)
		if (strcmp(l->events[i].name, name) == 0)
			return &l->events[i];
	return NULL;
}

bool pmc_event_list_apart(const char *a, const char *b, const void *list)
{
	const struct pmc_event *ea = find_named(list, a), *eb = find_named(list, b);

	/* A weak group may have been split into single events, each in its own window. */
	return ea && eb && (ea->group != eb->group || ea->weak);
}

bool pmc_event_note(const struct pmc_event_list *list, size_t i, const struct pmc_reading *rd,
		    const char *what, char *buf, size_t len)
{
	const struct pmc_event *ev = i < list->n ? &list->events[i] : NULL;
	bool grouped = false;

	if (!ev || !ev->system_wide)
		return false;
	if (rd->status == PMC_STATUS_DENIED && rd->error == EACCES) {
		/* The kernel's perf_allow_cpu(): CPU-wide events need CAP_PERFMON (or
		 * CAP_SYS_ADMIN) while perf_event_paranoid is above 0. */
		snprintf(buf, len,
			 "system-wide: denied: counting CPUs %s needs CAP_PERFMON (or "
			 "CAP_SYS_ADMIN) or perf_event_paranoid 0 or less",
			 ev->cpus);
		return true;
	}
	/* A group cannot hold a task's events and a CPU's: the engine opened it apart. */
	for (size_t j = 0; j < list->n; j++)
		grouped |= list->events[j].group == ev->group && !list->events[j].system_wide;
	snprintf(buf, len,
		 "system-wide: counts all its PMU sees on CPUs %s (the PMU's cpumask; for RAPL "
		 "and uncore PMUs, their whole packages) while %s runs, not only %s%s",
		 ev->cpus, what, what,
		 grouped ? "; opened apart from its group, which cannot hold a task's events "
			   "and a CPU's"
			 : "");
	return true;
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

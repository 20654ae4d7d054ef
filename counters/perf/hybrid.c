/* Hybrid and big.LITTLE CPUs: which PMUs are core PMUs, how a list is opened across them,
 * and how the parts of one event become one count (hybrid.h, docs/events.md). */
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters/perf/hybrid.h"
#include "counters/perf/sysfs.h"

static bool is_core_pmu(const char *root, const char *name)
{
	char path[PATH_MAX];

	if (strcmp(name, "cpu") == 0 || strcmp(name, "cpum_cf") == 0)
		return true;
	if (snprintf(path, sizeof(path), "%s/%s/cpus", root ? root : PMC_SYSFS_ROOT, name) >=
	    (int)sizeof(path))
		return false;
	return access(path, F_OK) == 0;
}

/* The core PMUs under root (NULL: PMC_SYSFS_ROOT) by perf's rule (tools/perf/util/pmu.c,
 * is_pmu_core()): "cpu", "cpum_cf", or any PMU with a `cpus` file; ordered by type, so
 * the PMU legacy events go to on x86 (type PERF_TYPE_RAW) comes first. An unreadable
 * root gives none. Returns 0, or -E2BIG beyond PMC_CORE_PMUS_MAX. */
static int pmc_core_pmus_find(const char *root, struct pmc_core_pmus *ret)
{
	struct pmc_core_pmus p = {.n = 0};
	char **names = NULL;
	size_t n = 0;
	int r = 0;

	if (pmc_sysfs_names(root, NULL, NULL, &names, &n) < 0) {
		*ret = p;
		return 0;
	}
	for (size_t i = 0; i < n && r == 0; i++) {
		uint32_t type;
		size_t at;

		if (strlen(names[i]) >= PMC_PMU_NAME_MAX || !is_core_pmu(root, names[i]) ||
		    pmc_sysfs_pmu_type(root, names[i], &type) < 0)
			continue;
		if (p.n == PMC_CORE_PMUS_MAX) {
			r = -E2BIG;
			break;
		}
		/* Insertion by type. */
		for (at = p.n; at > 0 && p.pmu[at - 1].type > type; at--)
			p.pmu[at] = p.pmu[at - 1];
		snprintf(p.pmu[at].name, sizeof(p.pmu[at].name), "%s", names[i]);
		p.pmu[at].type = type;
		p.n++;
	}
	pmc_sysfs_names_free(names, n);
	if (r == 0)
		*ret = p;
	return r;
}

/* perf's probe (tools/perf/util/pmus.c, perf_pmus__supports_extended_type()): the kernel
 * takes config bits 32-63 as the PMU type when `cycles` opens that way on every core PMU. */
static bool pmc_hybrid_probe_extended(const struct pmc_core_pmus *pmus, const struct pmc_sys *sys)
{
	if (pmus->n < 2)
		return false;
	for (size_t k = 0; k < pmus->n; k++) {
		struct perf_event_attr attr;
		int fd;

		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_HARDWARE;
		attr.config = PERF_COUNT_HW_CPU_CYCLES | (uint64_t)pmus->pmu[k].type
							     << PERF_PMU_TYPE_SHIFT;
		attr.disabled = 1;
		/* User space only, so perf_event_paranoid 2 does not decide the answer. A
		 * cache event would not do: older kernels ignore its high bits and open it. */
		attr.exclude_kernel = 1;
		attr.exclude_hv = 1;
		fd = sys->event_open(sys->ctx, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			/* Apple's PMUs refuse events that do not exclude the guest, which
			 * perf's probe learned to retry (is_event_supported()). */
			attr.exclude_guest = 1;
			fd = sys->event_open(sys->ctx, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		}
		if (fd < 0)
			return false;
		sys->close(sys->ctx, fd);
	}
	return true;
}

enum target {
	T_ASIS,	  /* not a core PMU's: software, msr, uncore */
	T_EXPAND, /* a generic event with the extended type: one part per core PMU */
	T_ONE,	  /* one core PMU's only (pmu says which, -1 unknown) */
};

static int pmu_of_type(const struct pmc_core_pmus *p, uint32_t type)
{
	for (size_t k = 0; k < p->n; k++)
		if (p->pmu[k].type == type)
			return (int)k;
	return -1;
}

/* What becomes of one event, and on which PMU a T_ONE event counts. */
static enum target target_of(const struct pmc_hybrid *h, const struct pmc_event *ev, int *ret_pmu)
{
	*ret_pmu = -1;
	switch (ev->kind) {
	case PMC_EV_HARDWARE:
	case PMC_EV_HW_CACHE:
		if (h->extended)
			return T_EXPAND;
		/* Without the extended type the kernel sends it to the PMU registered as
		 * PERF_TYPE_RAW (x86's cpu_core), or, on ARM, to the first that takes it. */
		*ret_pmu = pmu_of_type(&h->pmus, PERF_TYPE_RAW);
		return T_ONE;
	case PMC_EV_RAW:
		/* A raw code is an encoding of one PMU (the same code can name different
		 * events on cpu_core and cpu_atom, so a sum would add an unrelated count):
		 * opened once as PERF_TYPE_RAW, as perf does since 6.5 (parse-events.y,
		 * event_legacy_raw: parse_events_add_numeric() with wildcard false), it
		 * reaches the PMU registered with that type (x86's cpu_core) or, where none
		 * is, the first that takes it (kernel/events/core.c, perf_init_event()). */
		*ret_pmu = pmu_of_type(&h->pmus, PERF_TYPE_RAW);
		return T_ONE;
	case PMC_EV_PMU:
		*ret_pmu = pmu_of_type(&h->pmus, ev->type);
		return *ret_pmu >= 0 ? T_ONE : T_ASIS;
	default:
		return T_ASIS;
	}
}

static int push(struct pmc_hybrid *h, const struct pmc_event *ev, size_t group, bool *first,
		int pmu, size_t orig)
{
	struct pmc_event *e = &h->list.events[h->list.n];

	*e = *ev;
	e->group = group;
	e->leader = *first;
	*first = false;
	h->part_pmu[h->list.n] = pmu;
	if (h->nparts[orig] < PMC_CORE_PMUS_MAX)
		h->part[orig][h->nparts[orig]++] = h->list.n;
	h->list.n++;
	return 0;
}

/* The part of generic event ev on core PMU k: its config with the PMU's extended type. */
static struct pmc_event part_on(const struct pmc_hybrid *h, const struct pmc_event *ev, size_t k)
{
	struct pmc_event e = *ev;

	e.config = (ev->config & PERF_HW_EVENT_MASK) | (uint64_t)h->pmus.pmu[k].type
							   << PERF_PMU_TYPE_SHIFT;
	return e;
}

/* One group of the caller's list (events [from, to) in list order) into h->list: as it is
 * when it stays on one core PMU, else one group per core PMU, and the events of no core
 * PMU in one group of their own (a software event in a core PMU's group would count only
 * while the task is on that PMU's CPUs). */
static void plan_group(struct pmc_hybrid *h, const struct pmc_event_list *list, const size_t *idx,
		       size_t nidx)
{
	const size_t npmu = h->pmus.n;
	bool on[PMC_CORE_PMUS_MAX + 1] = {false}; /* the last: "unknown core type" */
	size_t ntargets = 0;
	bool first;

	for (size_t j = 0; j < nidx; j++) {
		const struct pmc_event *ev = &list->events[idx[j]];
		int pmu;
		enum target t = target_of(h, ev, &pmu);

		if (t == T_EXPAND)
			for (size_t k = 0; k < npmu; k++)
				on[k] = true;
		else if (t == T_ONE)
			on[pmu >= 0 ? (size_t)pmu : PMC_CORE_PMUS_MAX] = true;
		h->split[idx[j]] = t != T_ASIS;
		h->restricted[idx[j]] = t == T_ONE;
	}
	for (size_t k = 0; k <= PMC_CORE_PMUS_MAX; k++)
		ntargets += on[k];
	if (ntargets <= 1) {
		/* One PMU (or none): the group as written, expanded events included (a lone
		 * expanded event is a group per PMU, so it never gets here). */
		first = true;
		for (size_t j = 0; j < nidx; j++) {
			const struct pmc_event *ev = &list->events[idx[j]];
			int pmu;
			enum target t = target_of(h, ev, &pmu);

			if (t == T_ONE) {
				push(h, ev, h->list.ngroups, &first, pmu, idx[j]);
			} else {
				push(h, ev, h->list.ngroups, &first, -1, idx[j]);
			}
		}
		h->list.ngroups++;
		return;
	}
	for (size_t k = 0; k <= PMC_CORE_PMUS_MAX; k++) {
		if (!on[k])
			continue;
		first = true;
		for (size_t j = 0; j < nidx; j++) {
			const struct pmc_event *ev = &list->events[idx[j]];
			int pmu;
			enum target t = target_of(h, ev, &pmu);
			size_t at = pmu >= 0 ? (size_t)pmu : PMC_CORE_PMUS_MAX;

			if (t == T_EXPAND && k < npmu) {
				struct pmc_event e = part_on(h, ev, k);

				push(h, &e, h->list.ngroups, &first, (int)k, idx[j]);
			} else if (t == T_ONE && at == k) {
				push(h, ev, h->list.ngroups, &first, pmu, idx[j]);
			}
		}
		h->list.ngroups++;
	}
	first = true;
	for (size_t j = 0; j < nidx; j++) {
		const struct pmc_event *ev = &list->events[idx[j]];
		int pmu;

		if (target_of(h, ev, &pmu) == T_ASIS) {
			push(h, ev, h->list.ngroups, &first, -1, idx[j]);
		}
	}
	if (!first)
		h->list.ngroups++;
}

void pmc_hybrid_free(struct pmc_hybrid *h)
{
	if (!h)
		return;
	free(h->list.events);
	free(h->nparts);
	free(h->part);
	free(h->part_pmu);
	free(h->restricted);
	free(h->split);
	free(h);
}

int pmc_hybrid_machine_find(const struct pmc_sys *sys, struct pmc_hybrid_machine *ret)
{
	*ret = (struct pmc_hybrid_machine){.extended = false};
	/* More core PMUs than we take (E2BIG): the list is opened as it is. */
	if (pmc_core_pmus_find(sys->sysfs_root, &ret->pmus) < 0)
		ret->pmus.n = 0;
	ret->extended = pmc_hybrid_probe_extended(&ret->pmus, sys);
	return 0;
}

void pmc_hybrid_machine_share(const struct pmc_event_list *list, const struct pmc_sys **sys,
			      struct pmc_sys *copy, struct pmc_hybrid_machine *machine)
{
	bool hardware = false;

	for (size_t i = 0; list && i < list->n; i++)
		hardware |= pmc_event_is_hardware(&list->events[i]);
	if (*sys || !hardware)
		return;
	*copy = *pmc_sys_kernel();
	pmc_hybrid_machine_find(copy, machine);
	copy->machine = machine;
	*sys = copy;
}

int pmc_hybrid_plan(const struct pmc_event_list *list, const struct pmc_sys *sys,
		    struct pmc_hybrid **ret)
{
	struct pmc_hybrid *h;
	size_t *idx = NULL, cap, nidx;
	bool any = false;
	int r;

	*ret = NULL;
	/* Software events count the same on every CPU: no need to look. */
	for (size_t i = 0; i < list->n && !any; i++)
		any = pmc_event_is_hardware(&list->events[i]);
	if (!any)
		return 0;
	any = false;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	if (sys->machine) {
		h->pmus = sys->machine->pmus;
		h->extended = sys->machine->extended;
		r = 0;
	} else {
		r = pmc_core_pmus_find(sys->sysfs_root, &h->pmus);
	}
	if (r < 0 || h->pmus.n < 2) {
		pmc_hybrid_free(h);
		return r == -E2BIG ? 0 : r;
	}
	if (!sys->machine)
		h->extended = pmc_hybrid_probe_extended(&h->pmus, sys);
	for (size_t i = 0; i < list->n && !any; i++) {
		int pmu;

		any = target_of(h, &list->events[i], &pmu) != T_ASIS;
	}
	if (!any) {
		pmc_hybrid_free(h);
		return 0;
	}
	/* At most one part per core PMU for each event. */
	cap = list->n * h->pmus.n + 1;
	h->n = list->n;
	h->list.events = calloc(cap, sizeof(*h->list.events));
	h->part_pmu = calloc(cap, sizeof(*h->part_pmu));
	h->nparts = calloc(list->n + 1, sizeof(*h->nparts));
	h->part = calloc(list->n + 1, sizeof(*h->part));
	h->restricted = calloc(list->n + 1, sizeof(*h->restricted));
	h->split = calloc(list->n + 1, sizeof(*h->split));
	idx = calloc(list->n + 1, sizeof(*idx));
	if (!h->list.events || !h->part_pmu || !h->nparts || !h->part || !h->restricted ||
	    !h->split || !idx) {
		free(idx);
		pmc_hybrid_free(h);
		return -ENOMEM;
	}
	for (size_t g = 0; g < list->ngroups; g++) {
		nidx = 0;
		for (size_t i = 0; i < list->n; i++)
			if (list->events[i].group == g)
				idx[nidx++] = i;
		if (nidx)
			plan_group(h, list, idx, nidx);
	}
	free(idx);
	*ret = h;
	return 0;
}

static bool failed(enum pmc_status s)
{
	return s == PMC_STATUS_UNSUPPORTED || s == PMC_STATUS_DENIED;
}

void pmc_reading_combine(struct pmc_reading *parts, size_t n, bool restricted,
			 struct pmc_reading *sum)
{
	uint64_t value = 0, running = 0, enabled = UINT64_MAX;
	size_t opened = 0, timed = 0;
	const struct pmc_reading *first_failed = NULL;
	bool user_only = false;

	for (size_t k = 0; k < n; k++) {
		const struct pmc_reading *p = &parts[k];

		if (failed(p->status)) {
			if (!first_failed)
				first_failed = p;
			continue;
		}
		opened++;
		user_only |= p->user_only;
		value += p->value;
		running += p->running;
		/* A pinned part the PMU could not schedule reads nothing, not even its time:
		 * what ran on its CPUs is lost. */
		if (p->enabled == 0 && p->running == 0)
			continue;
		timed++;
		if (p->enabled < enabled)
			enabled = p->enabled;
	}
	memset(sum, 0, sizeof(*sum));
	sum->scaled = NAN;
	if (opened == 0) {
		sum->status = first_failed ? first_failed->status : PMC_STATUS_NOT_COUNTED;
		sum->error = first_failed ? first_failed->error : 0;
		return;
	}
	/* A part that could not count leaves its core type's work out: the sum is of the
	 * others, and says so, rather than an extrapolation over the missing type. */
	restricted |= first_failed != NULL || timed < opened;
	sum->user_only = user_only;
	sum->value = value;
	if (timed == 0 || running == 0) {
		sum->status = PMC_STATUS_NOT_COUNTED;
		sum->enabled = timed ? enabled : 0;
	} else {
		sum->enabled = enabled;
		/* The parts were enabled and read one after the other, so their enabled
		 * times differ by that much: the shortest is the window all of them saw. */
		sum->running = running < enabled ? running : enabled;
		if (restricted || running >= enabled) {
			sum->status = PMC_STATUS_COUNTED;
			sum->scaled = (double)value;
		} else {
			sum->status = PMC_STATUS_SCALED;
			sum->scaled = pmc_reading_scale(value, enabled, running);
		}
	}
	for (size_t k = 0; k < n; k++) {
		struct pmc_reading *p = &parts[k];

		if (failed(p->status))
			continue;
		if (p->running == 0 || sum->status == PMC_STATUS_NOT_COUNTED) {
			p->status = PMC_STATUS_NOT_COUNTED;
			p->scaled = NAN;
			continue;
		}
		/* Each part by the sum's fraction: the parts share the window. */
		p->status = sum->status;
		p->scaled = sum->status == PMC_STATUS_SCALED
				? pmc_reading_scale(p->value, sum->enabled, sum->running)
				: (double)p->value;
	}
}

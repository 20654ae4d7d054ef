/* The system-wide engine (counters_priv.h, struct counters_ops), for lists with uncore and
 * RAPL events (docs/events.md, "Uncore and RAPL events"): their per-task events are opened as an
 * engine of their own, regrouped without the system-wide ones (which can share no group with a
 * task's events), and each system-wide event once per CPU of its PMU's cpumask, outside any group;
 * a read sums each system-wide event's CPUs and applies its sysfs scale. Also what opens one scope
 * of a list (pmc_counters_open_scope). */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "counters/perf/counters_priv.h"

bool pmc_syswide_needed(const struct pmc_event_list *events)
{
	for (size_t i = 0; i < events->n; i++)
		if (events->events[i].system_wide || events->events[i].scale > 0)
			return true;
	return false;
}

struct cpu_open {
	struct pmc_counters *c;
	struct perf_event_attr *attr;
	struct cpu_wide *cw;
};

static int open_on_cpu(int cpu, void *ud)
{
	struct cpu_open *o = ud;
	struct cpu_wide *cw = o->cw;
	int fd;

	fd = o->c->sys->event_open(o->c->sys->ctx, o->attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return fd;
	cw->fd[cw->n++] = fd;
	return o->c->sys->ioctl(o->c->sys->ctx, fd, PERF_EVENT_IOC_ID,
				(unsigned long)&cw->id[cw->n - 1]);
}

/* Opens a system-wide event on each CPU of its cpumask: pid -1, no inherit, no group.
 * The kernel never enables a CPU-wide event on exec (enable_on_exec belongs to a task's
 * context), so unless the caller wants counting from now on it starts disabled and
 * waits for pmc_counters_enable. Unprivileged under perf_event_paranoid >= 1 the kernel
 * refuses CPU-wide events (EACCES: denied); a PMU that counts only CPUs refuses a
 * per-task one, which is why it is never opened so. */
static int open_cpu_wide(struct pmc_counters *c, const struct pmc_event *ev, struct cpu_wide *cw,
			 int known)
{
	struct perf_event_attr attr;
	struct cpu_open o = {.c = c, .attr = &attr, .cw = cw};
	size_t ncpus;
	int r;

	cw->status = PMC_STATUS_COUNTED;
	if (known > 0) {
		cw->status = pmc_counters_status_of_errno(known);
		cw->error = known;
		return 0;
	}
	ncpus = pmc_cpu_list_count(ev->cpus);
	if (ncpus == 0)
		return -EINVAL;
	cw->fd = malloc(ncpus * sizeof(*cw->fd));
	cw->id = calloc(ncpus, sizeof(*cw->id));
	if (!cw->fd || !cw->id)
		return -ENOMEM;
	event_attr(ev, READ_FORMAT_ONE, &attr);
	attr.disabled = c->opts.start_disabled || c->opts.enable_on_exec;
	r = pmc_cpu_list_each(ev->cpus, open_on_cpu, &o);
	if (r < 0) {
		for (size_t k = 0; k < cw->n; k++)
			pmc_counters_sys_close(c, &cw->fd[k]);
		cw->n = 0;
		if (pmc_counters_fatal_errno(-r))
			return r;
		cw->status = pmc_counters_status_of_errno(-r);
		cw->error = -r;
	}
	return 0;
}

/* A list with system-wide events (or opened for one scope): its per-task events are
 * opened as a list of their own, regrouped without the system-wide ones (which can share
 * no group with a task's events: docs/events.md, "Uncore and RAPL events"), and the
 * system-wide events each on their CPUs. */
int pmc_syswide_open(const struct pmc_event_list *events, const struct pmc_counters_opts *opts,
		     const struct pmc_sys *sys, enum pmc_counters_scope scope,
		     struct pmc_counters **ret)
{
	struct pmc_counters_opts o;
	struct pmc_counters *c;
	struct syswide *sw;
	size_t *newgroup = NULL;
	int *known = NULL, r;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->ops = &pmc_counters_syswide_ops;
	c->sys = sys;
	c->n = events->n;
	r = pmc_counters_copy_opts(c, opts);
	if (r < 0)
		goto fail;
	c->sw = sw = calloc(1, sizeof(*sw));
	c->tmp = calloc(c->n ? c->n : 1, sizeof(*c->tmp));
	if (!sw || !c->tmp) {
		r = -ENOMEM;
		goto fail;
	}
	sw->task_idx = calloc(c->n ? c->n : 1, sizeof(*sw->task_idx));
	sw->cw = calloc(c->n ? c->n : 1, sizeof(*sw->cw));
	sw->scale = calloc(c->n ? c->n : 1, sizeof(*sw->scale));
	sw->task_rd = calloc(c->n ? c->n : 1, sizeof(*sw->task_rd));
	sw->tasks.events = calloc(c->n ? c->n : 1, sizeof(*sw->tasks.events));
	known = calloc(c->n ? c->n : 1, sizeof(*known));
	newgroup = malloc((events->ngroups ? events->ngroups : 1) * sizeof(*newgroup));
	if (!sw->task_idx || !sw->cw || !sw->scale || !sw->task_rd || !sw->tasks.events || !known ||
	    !newgroup) {
		r = -ENOMEM;
		goto fail;
	}
	for (size_t g = 0; g < events->ngroups; g++)
		newgroup[g] = SIZE_MAX;
	for (size_t i = 0; i < c->n; i++) {
		const struct pmc_event *ev = &events->events[i];
		struct pmc_event *t;

		sw->scale[i] = pmc_event_scale(ev);
		sw->task_idx[i] = SIZE_MAX;
		sw->cw[i].status = PMC_STATUS_NOT_COUNTED; /* out of the scope asked for */
		if (ev->system_wide || scope == PMC_SCOPE_SYSTEM)
			continue;
		if (ev->group >= events->ngroups) {
			r = -EINVAL;
			goto fail;
		}
		t = &sw->tasks.events[sw->tasks.n];
		*t = *ev;
		if (newgroup[ev->group] == SIZE_MAX)
			newgroup[ev->group] = sw->tasks.ngroups++;
		t->group = newgroup[ev->group];
		t->leader = i == 0 || sw->tasks.n == 0 ||
			    sw->tasks.events[sw->tasks.n - 1].group != t->group;
		known[sw->tasks.n] = c->opts.known_errors ? c->opts.known_errors[i] : 0;
		sw->task_idx[i] = sw->tasks.n++;
	}
	if (sw->tasks.n) {
		pmc_counters_inner_opts(c, known, &o);
		r = pmc_counters_open_sys(&sw->tasks, &o, sys, &sw->task);
		if (r < 0)
			goto fail;
	}
	for (size_t i = 0; i < c->n && scope != PMC_SCOPE_TASK; i++) {
		if (!events->events[i].system_wide)
			continue;
		r = open_cpu_wide(c, &events->events[i], &sw->cw[i],
				  c->opts.known_errors ? c->opts.known_errors[i] : 0);
		if (r < 0)
			goto fail;
	}
	free(known);
	free(newgroup);
	*ret = c;
	return 0;
fail:
	free(known);
	free(newgroup);
	pmc_counters_close(c);
	return r;
}

static size_t syswide_opened(const struct pmc_counters *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++) {
		enum pmc_status st;

		pmc_counters_open_status(c, i, &st, NULL);
		n += st == PMC_STATUS_COUNTED;
	}
	return n;
}

static void syswide_open_status(const struct pmc_counters *c, size_t i, enum pmc_status *ret_status,
				int *ret_error)
{
	if (c->sw->task_idx[i] != SIZE_MAX) {
		pmc_counters_open_status(c->sw->task, c->sw->task_idx[i], ret_status, ret_error);
		return;
	}
	*ret_status = c->sw->cw[i].status;
	*ret_error = c->sw->cw[i].error;
}

static int ioctl_cpu_wide(struct pmc_counters *c, unsigned long request)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < c->n; i++)
		for (size_t k = 0; r == 0 && k < c->sw->cw[i].n; k++)
			if (c->sw->cw[i].fd[k] >= 0)
				r = c->sys->ioctl(c->sys->ctx, c->sw->cw[i].fd[k], request, 0);
	return r;
}

/* Enables, disables or resets the per-task engine and every CPU of the system-wide
 * events. */
static int syswide_ioctl(struct pmc_counters *c, unsigned long request)
{
	int r = c->sw->task ? pmc_counters_ioctl(c->sw->task, request) : 0;

	return r < 0 ? r : ioctl_cpu_wide(c, request);
}

/* The per-task engine pauses as it does (by reading, where it can); every CPU's
 * system-wide event is disabled and enabled again. */
static int syswide_pause(struct pmc_counters *c, bool pause)
{
	int r = c->sw->task ? pmc_counters_pause(c->sw->task, pause) : 0;

	return r < 0 ? r
		     : ioctl_cpu_wide(c, pause ? PERF_EVENT_IOC_DISABLE : PERF_EVENT_IOC_ENABLE);
}

/* A system-wide event: each CPU's count read on its own, scaled by its own times and
 * summed, as perf stat aggregates CPUs (tools/perf/util/stat.c, process_counter_values():
 * perf_counts_values__scale() of each, then the sums of the values and times), so a CPU
 * multiplexed more than another is extrapolated by its own fraction. The raw value and
 * the times are the sums, and the running fraction the sums' (perf prints that one for
 * an aggregate). Scaled when any CPU was; not counted when a CPU's event never ran, its
 * share of the sum being unknown (perf stat: "<not counted>"). Its sysfs scale is
 * applied by the caller. */
static int read_cpu_wide(struct pmc_counters *c, size_t i, struct pmc_reading *rd)
{
	const struct cpu_wide *cw = &c->sw->cw[i];
	uint64_t value = 0, enabled = 0, running = 0, buf[4];
	bool scaled = false, unknown = false;
	double sum = 0;

	if (cw->status != PMC_STATUS_COUNTED) {
		set_missing(rd, cw->status, cw->error);
		return 0;
	}
	for (size_t k = 0; k < cw->n; k++) {
		ssize_t got = c->sys->read(c->sys->ctx, cw->fd[k], buf, sizeof(buf));

		c->reads_sys++;
		if (got < 0)
			return (int)got;
		if (got == 0) {
			set_missing(rd, PMC_STATUS_NOT_COUNTED, 0);
			return 0;
		}
		if (got != sizeof(buf) || buf[3] != cw->id[k])
			return -EIO;
		value += buf[0];
		enabled += buf[1];
		running += buf[2];
		unknown = unknown || buf[2] == 0;
		scaled = scaled || buf[2] < buf[1];
		sum += buf[2] < buf[1] && buf[2]
			   ? (double)buf[0] * ((double)buf[1] / (double)buf[2])
			   : (double)buf[0];
	}
	set_value(rd, value, enabled, running);
	if (unknown) {
		rd->status = PMC_STATUS_NOT_COUNTED;
		rd->scaled = NAN;
	} else {
		rd->status = scaled ? PMC_STATUS_SCALED : PMC_STATUS_COUNTED;
		rd->scaled = sum;
	}
	return 0;
}

static int syswide_read(struct pmc_counters *c)
{
	struct syswide *sw = c->sw;
	int r = sw->task ? pmc_counters_read(sw->task, sw->task_rd, sizeof(*sw->task_rd)) : 0;

	if (r < 0)
		return r;
	for (size_t i = 0; i < c->n; i++) {
		struct pmc_reading *rd = &c->tmp[i];

		if (sw->task_idx[i] != SIZE_MAX)
			*rd = sw->task_rd[sw->task_idx[i]];
		else if ((r = read_cpu_wide(c, i, rd)) < 0)
			return r;
		/* sysfs's .scale turns the count into its unit (RAPL: joules). */
		if (pmc_status_has_value(rd->status))
			rd->scaled *= sw->scale[i];
	}
	return 0;
}

/* The per-task engine holding event i and its index there; NULL when i is system-wide
 * (never split over core PMUs). */
static const struct pmc_counters *task_event(const struct pmc_counters *c, size_t *i)
{
	if (c->sw->task_idx[*i] == SIZE_MAX)
		return NULL;
	*i = c->sw->task_idx[*i];
	return c->sw->task;
}

static int syswide_self_read(struct pmc_counters *c)
{
	return c->sw->task ? pmc_counters_self_read(c->sw->task) : 0;
}

static void syswide_inner_read_counts(const struct pmc_counters *c, uint64_t *ret_self,
				      uint64_t *ret_sys)
{
	*ret_self = *ret_sys = 0;
	if (c->sw->task)
		pmc_counters_read_counts(c->sw->task, ret_self, ret_sys);
}

static size_t syswide_nparts(const struct pmc_counters *c, size_t i)
{
	const struct pmc_counters *t = task_event(c, &i);

	return t ? t->ops->nparts(t, i) : 0;
}

static int syswide_part(const struct pmc_counters *c, size_t i, size_t k, const char **ret_pmu,
			struct pmc_reading *ret_rd)
{
	const struct pmc_counters *t = task_event(c, &i);

	return t ? t->ops->part(t, i, k, ret_pmu, ret_rd) : -EINVAL;
}

static bool syswide_restricted(const struct pmc_counters *c, size_t i)
{
	const struct pmc_counters *t = task_event(c, &i);

	return t && t->ops->restricted(t, i);
}

static void syswide_free(struct pmc_counters *c)
{
	struct syswide *sw = c->sw;

	if (!sw)
		return;
	for (size_t i = 0; sw->cw && i < c->n; i++) {
		for (size_t k = 0; k < sw->cw[i].n; k++)
			pmc_counters_sys_close(c, &sw->cw[i].fd[k]);
		free(sw->cw[i].fd);
		free(sw->cw[i].id);
	}
	pmc_counters_close(sw->task);
	free(sw->tasks.events);
	free(sw->task_idx);
	free(sw->cw);
	free(sw->scale);
	free(sw->task_rd);
	free(sw);
}

const struct counters_ops pmc_counters_syswide_ops = {
    .read = syswide_read,
    .ioctl = syswide_ioctl,
    .pause = syswide_pause,
    .opened = syswide_opened,
    .open_status = syswide_open_status,
    .self_read = syswide_self_read,
    .inner_read_counts = syswide_inner_read_counts,
    .nparts = syswide_nparts,
    .part = syswide_part,
    .restricted = syswide_restricted,
    .free = syswide_free,
};

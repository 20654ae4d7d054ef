/* The counter engine's object (pmcbench/counters.h): one struct pmc_counters whatever the
 * list needs, opened as one of three kinds, each a table of operations chosen at open
 * (counters_priv.h, struct counters_ops) as libperf's evsel is one object over a cpu map
 * and a thread map: a list as it is (counters_plain.c), split over the core PMUs of a
 * hybrid CPU (counters_hybrid.c), or with uncore and RAPL events counted per CPU
 * (counters_syswide.c). The public functions here check their arguments and hand on to
 * the object's table; none asks which kind it has. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/perf/counters_priv.h"
#include "counters/perf/hybrid.h"
#include "base/opts.h"

/* Errors that say nothing about one event but about the process or the machine: the
 * run cannot go on, so they are returned instead of becoming a status. */
bool pmc_counters_fatal_errno(int err)
{
	return err == EMFILE || err == ENFILE || err == ENOMEM || err == ESRCH || err == EFAULT ||
	       err == EBADF;
}

/* EBUSY (another tool holds the PMU, or what the event needs, exclusively) says
 * nothing about the event: not counted this time, tried again next time. */
enum pmc_status pmc_counters_status_of_errno(int err)
{
	if (err == EBUSY)
		return PMC_STATUS_NOT_COUNTED;
	return err == EACCES || err == EPERM ? PMC_STATUS_DENIED : PMC_STATUS_UNSUPPORTED;
}

int pmc_counters_sys_close(struct pmc_counters *c, int *fd)
{
	int r = 0;

	if (*fd >= 0)
		r = c->sys->close(c->sys->ctx, *fd);
	*fd = -1;
	return r;
}

/* Reads the caller's options, of any version of the struct (harness/0-base/opts.h). */
int pmc_counters_copy_opts(struct pmc_counters *c, const struct pmc_counters_opts *opts)
{
	if (!PMC_OPTS_VALID(opts, pmc_counters_opts))
		return -EINVAL;
	c->opts.pid = PMC_OPTS_GET(opts, pid, 0);
	c->opts.cpu = PMC_OPTS_GET(opts, on_cpu, false) ? PMC_OPTS_GET(opts, cpu, -1) : -1;
	c->opts.inherit = PMC_OPTS_GET(opts, inherit, false);
	c->opts.enable_on_exec = PMC_OPTS_GET(opts, enable_on_exec, false);
	c->opts.start_disabled = PMC_OPTS_GET(opts, start_disabled, false);
	c->opts.known_errors = PMC_OPTS_GET(opts, known_errors, NULL);
	c->opts.user_only_fallback = PMC_OPTS_GET(opts, user_only_fallback, false);
	c->opts.self_read = PMC_OPTS_GET(opts, self_read, false);
	/* An event counts a task, a CPU, or a task on a CPU: perf_event_alloc() refuses
	 * neither (pid -1, cpu -1) with EINVAL, which is the caller's mistake, not every
	 * event's status. */
	if (c->opts.cpu < -1 || (c->opts.pid == -1 && c->opts.cpu == -1))
		return -EINVAL;
	return 0;
}

int pmc_counters_open(const struct pmc_event_list *events, const struct pmc_counters_opts *opts,
		      struct pmc_counters **ret)
{
	return pmc_counters_open_sys(events, opts, NULL, ret);
}

/* The options of an engine opened on the list another kind made (hybrid parts, the task's
 * events of a list with system-wide ones): c's, with known_errors for that list. Zeroed
 * first and set field by field, so that the padding PMC_OPTS_VALID checks is zero. */
void pmc_counters_inner_opts(const struct pmc_counters *c, const int *known,
			     struct pmc_counters_opts *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->sz = sizeof(*ret);
	ret->pid = c->opts.pid;
	ret->on_cpu = c->opts.cpu >= 0;
	ret->cpu = c->opts.cpu;
	ret->inherit = c->opts.inherit;
	ret->enable_on_exec = c->opts.enable_on_exec;
	ret->start_disabled = c->opts.start_disabled;
	ret->user_only_fallback = c->opts.user_only_fallback;
	ret->self_read = c->opts.self_read;
	ret->known_errors = known;
}

int pmc_counters_open_sys(const struct pmc_event_list *events, const struct pmc_counters_opts *opts,
			  const struct pmc_sys *sys, struct pmc_counters **ret)
{
	return pmc_counters_open_scope(events, opts, sys, PMC_SCOPE_ALL, ret);
}

int pmc_counters_open_scope(const struct pmc_event_list *events,
			    const struct pmc_counters_opts *opts, const struct pmc_sys *sys,
			    enum pmc_counters_scope scope, struct pmc_counters **ret)
{
	struct pmc_hybrid *hy = NULL;
	int r;

	if (!events || !ret || (events->n && !events->events))
		return -EINVAL;
	if (!PMC_OPTS_VALID(opts, pmc_counters_opts))
		return -EINVAL;
	sys = sys ? sys : pmc_sys_kernel();
	if (scope != PMC_SCOPE_ALL || pmc_syswide_needed(events))
		return pmc_syswide_open(events, opts, sys, scope, ret);
	r = pmc_hybrid_plan(events, sys, &hy);
	if (r < 0)
		return r;
	if (hy)
		return pmc_hybrid_open(events, opts, sys, hy, ret);
	return pmc_counters_open_plain(events, opts, sys, ret);
}

size_t pmc_counters_opened(const struct pmc_counters *c)
{
	return c ? c->ops->opened(c) : 0;
}

void pmc_counters_open_status(const struct pmc_counters *c, size_t i, enum pmc_status *ret_status,
			      int *ret_error)
{
	enum pmc_status st = PMC_STATUS_UNSUPPORTED;
	int err = EINVAL;

	if (c && i < c->n)
		c->ops->open_status(c, i, &st, &err);
	if (ret_status)
		*ret_status = st;
	if (ret_error)
		*ret_error = err;
}

int pmc_counters_ioctl(struct pmc_counters *c, unsigned long request)
{
	return c ? c->ops->ioctl(c, request) : -EINVAL;
}

int pmc_counters_enable(struct pmc_counters *c)
{
	return pmc_counters_ioctl(c, PERF_EVENT_IOC_ENABLE);
}

int pmc_counters_disable(struct pmc_counters *c)
{
	return pmc_counters_ioctl(c, PERF_EVENT_IOC_DISABLE);
}

int pmc_counters_reset(struct pmc_counters *c)
{
	return pmc_counters_ioctl(c, PERF_EVENT_IOC_RESET);
}

int pmc_counters_pause(struct pmc_counters *c, bool pause)
{
	return c ? c->ops->pause(c, pause) : -EINVAL;
}

/* struct pmc_reading as the first release (0.1.0) has it: the smallest a caller knows. */
#define READING_SZ_0_1 (offsetof(struct pmc_reading, user_only) + sizeof(bool))

int pmc_counters_read(struct pmc_counters *c, struct pmc_reading *out, size_t reading_sz)
{
	unsigned char *p = (unsigned char *)out;
	size_t known = reading_sz < sizeof(*out) ? reading_sz : sizeof(*out);
	int r;

	if (!c || (!out && c->n) || reading_sz < READING_SZ_0_1)
		return -EINVAL;
	r = c->ops->read(c);
	if (r < 0)
		return r;
	/* The elements are reading_sz bytes apart: an older caller's smaller struct
	 * gets the fields it knows, a newer caller's larger one zero in the fields this
	 * library does not fill. */
	for (size_t i = 0; i < c->n; i++, p += reading_sz) {
		memcpy(p, &c->tmp[i], known);
		if (reading_sz > known)
			memset(p + known, 0, reading_sz - known);
	}
	return 0;
}

int pmc_counters_self_read(struct pmc_counters *c)
{
	return c ? c->ops->self_read(c) : -EINVAL;
}

void pmc_counters_read_counts(const struct pmc_counters *c, uint64_t *ret_self, uint64_t *ret_sys)
{
	uint64_t self = 0, sys = 0;

	if (c)
		c->ops->inner_read_counts(c, &self, &sys);
	if (ret_self)
		*ret_self = self + (c ? c->reads_self : 0);
	if (ret_sys)
		*ret_sys = sys + (c ? c->reads_sys : 0);
}

size_t pmc_counters_nparts(const struct pmc_counters *c, size_t i)
{
	return c && i < c->n ? c->ops->nparts(c, i) : 0;
}

const char *pmc_counters_part_pmu(const struct pmc_counters *c, size_t i, size_t k)
{
	const char *pmu = NULL;

	if (!c || i >= c->n || c->ops->part(c, i, k, &pmu, NULL) < 0)
		return NULL;
	return pmu;
}

bool pmc_counters_restricted(const struct pmc_counters *c, size_t i)
{
	return c && i < c->n && c->ops->restricted(c, i);
}

int pmc_counters_part_reading(const struct pmc_counters *c, size_t i, size_t k,
			      struct pmc_reading *ret)
{
	if (!c || i >= c->n)
		return -EINVAL;
	return c->ops->part(c, i, k, NULL, ret);
}

void pmc_counters_read_parts(const struct pmc_counters *c, size_t i, struct pmc_reading_parts *ret)
{
	ret->n = pmc_counters_nparts(c, i);
	ret->restricted = pmc_counters_restricted(c, i);
	for (size_t k = 0; k < ret->n; k++) {
		const char *pmu = pmc_counters_part_pmu(c, i, k);

		snprintf(ret->pmu[k], sizeof(ret->pmu[k]), "%s", pmu ? pmu : "");
		pmc_counters_part_reading(c, i, k, &ret->rd[k]);
	}
}

void pmc_counters_close(struct pmc_counters *c)
{
	if (!c)
		return;
	if (c->ops)
		c->ops->free(c);
	free(c->tmp);
	free(c);
}

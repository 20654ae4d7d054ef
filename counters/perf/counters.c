/* The counter engine: groups of perf events opened leader first, read by id, each event
 * given a status (docs/events.md, "Event status"). Every syscall goes through struct pmc_sys
 * so tests can put an emulated PMU in place of the kernel. */
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/perf/counters.h"
#include "counters/perf/selfread.h"
#include "counters/perf/hybrid.h"
#include "base/opts.h"

#define READ_FORMAT                                                                                \
	(PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |                     \
	 PERF_FORMAT_TOTAL_TIME_RUNNING)
/* Without group reads (kernels before 4.13 with inherit): value, enabled, running, id. */
#define READ_FORMAT_ONE (READ_FORMAT & ~(uint64_t)PERF_FORMAT_GROUP)

struct slot {
	int fd; /* -1 when not open */
	uint64_t id;
	enum pmc_status status; /* COUNTED once open; UNSUPPORTED or DENIED when it failed */
	int error;
	bool user_only;
};

struct group {
	size_t *members; /* indices into slots, in list order; the first open one leads */
	size_t n;
	int leader_fd; /* split: the first open member's, to tell that one is open */
	/* A weak group (:W) whose events did not fit the PMU together: each member is
	 * opened, enabled and read on its own, as perf does. */
	bool split;
};

/* The options as used: defaults filled in for what the caller's struct does not hold. */
struct open_opts {
	pid_t pid;
	int cpu; /* -1: any */
	bool inherit, enable_on_exec, start_disabled, user_only_fallback;
	const int *known_errors;
};

struct pmc_counters {
	const struct pmc_sys *sys;
	struct open_opts opts;
	struct slot *slots;
	size_t n;
	struct group *groups;
	size_t ngroups;
	size_t *member_store;
	uint64_t *buf; /* one group read: nr, enabled, running, {value, id}[nr] */
	size_t buf_words;
	struct pmc_reading *tmp; /* read results, copied out only on success */
	/* The kernel refused inherit with group reads (before Linux 4.13): every event is
	 * opened and read on its own format, as perf's "switching off group read". */
	bool no_group_read;
	/* Groups read through their mmap pages (selfread.h; NULL: every read is a read())
	 * and how each group read went. */
	struct pmc_selfread *sr;
	uint64_t reads_self, reads_sys;
	/* Hybrid CPUs (counters/perf/hybrid.h): the plan, the engine opened on its list, and
	 * that engine's readings of the last read; all NULL when the list is opened as
	 * it is. */
	struct pmc_hybrid *hy;
	struct pmc_counters *inner;
	struct pmc_reading *parts;
	/* Uncore and RAPL (docs/events.md, "Uncore and RAPL events"): the list's per-task
	 * events are opened as an engine of their own (task; NULL when there are none), and
	 * each system-wide event once per CPU of its cpumask, outside any group. NULL
	 * unless the list has such events or a scope was asked for. */
	struct syswide *sw;
};

/* One system-wide event: a descriptor per CPU of its cpumask (pid -1, no inherit). */
struct cpu_wide {
	size_t n;
	int *fd;
	uint64_t *id;
	enum pmc_status status;
	int error;
};

struct syswide {
	struct pmc_event_list tasks; /* the per-task events, regrouped */
	struct pmc_counters *task;
	size_t *task_idx;    /* per event: its index in tasks; SIZE_MAX: not there */
	struct cpu_wide *cw; /* per event; n 0 and status not-counted when per-task */
	double *scale;	     /* per event */
	struct pmc_reading *task_rd;
};

/* Errors that say nothing about one event but about the process or the machine: the
 * run cannot go on, so they are returned instead of becoming a status. */
static bool fatal_errno(int err)
{
	return err == EMFILE || err == ENFILE || err == ENOMEM || err == ESRCH || err == EFAULT ||
	       err == EBADF;
}

/* EBUSY (another tool holds the PMU, or what the event needs, exclusively) says
 * nothing about the event: not counted this time, tried again next time. */
static enum pmc_status status_of_errno(int err)
{
	if (err == EBUSY)
		return PMC_STATUS_NOT_COUNTED;
	return err == EACCES || err == EPERM ? PMC_STATUS_DENIED : PMC_STATUS_UNSUPPORTED;
}

static int sys_close(struct pmc_counters *c, int *fd)
{
	int r = 0;

	if (*fd >= 0)
		r = c->sys->close(c->sys->ctx, *fd);
	*fd = -1;
	return r;
}

static void close_group(struct pmc_counters *c, struct group *g)
{
	/* Members first, so the leader never outlives being a leader with orphans. */
	for (size_t k = g->n; k-- > 0;)
		sys_close(c, &c->slots[g->members[k]].fd);
	g->leader_fd = -1;
}

static int sys_open(struct pmc_counters *c, struct perf_event_attr *attr, int group_fd)
{
	return c->sys->event_open(c->sys->ctx, attr, c->opts.pid, c->opts.cpu, group_fd,
				  PERF_FLAG_FD_CLOEXEC);
}

/* Whether attr opens with every exclude bit cleared (disabled, closed at once). */
static bool opens_without_excludes(struct pmc_counters *c, const struct perf_event_attr *attr,
				   int group_fd)
{
	struct perf_event_attr a = *attr;
	int fd;

	a.exclude_user = a.exclude_kernel = a.exclude_hv = 0;
	a.disabled = 1;
	a.enable_on_exec = 0;
	fd = sys_open(c, &a, group_fd);
	if (fd < 0)
		return false;
	c->sys->close(c->sys->ctx, fd);
	return true;
}

static int open_one(struct pmc_counters *c, const struct pmc_event *ev, struct slot *s,
		    int group_fd)
{
	const struct open_opts *o = &c->opts;
	bool leader = group_fd < 0;
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = ev->type;
	attr.config = ev->config;
	attr.config1 = ev->config1;
	attr.config2 = ev->config2;
	attr.read_format = c->no_group_read ? READ_FORMAT_ONE : READ_FORMAT;
	attr.exclude_user = ev->exclude_user;
	attr.exclude_kernel = ev->exclude_kernel;
	attr.exclude_hv = ev->exclude_hv;
	attr.inherit = o->inherit;
	/* Members follow their leader (perf_event_open(2): a member is scheduled only when
	 * its leader is), so only the leader starts disabled and waits for exec. */
	attr.disabled = leader && (o->start_disabled || o->enable_on_exec);
	attr.enable_on_exec = leader && o->enable_on_exec;

	fd = sys_open(c, &attr, group_fd);
	if (fd == -EINVAL && leader && attr.inherit && !c->no_group_read) {
		/* Before Linux 4.13 inherit and PERF_FORMAT_GROUP exclude each other (perf:
		 * "switching off group read"): if the event opens without group reads,
		 * every event from here on is read on its own. A group opened before is
		 * left as it is: the first leader is where this shows. */
		attr.read_format = READ_FORMAT_ONE;
		fd = sys_open(c, &attr, group_fd);
		if (fd >= 0)
			c->no_group_read = true;
		else
			attr.read_format = READ_FORMAT;
		if (fd == -EINVAL || fd >= 0)
			goto opened;
	}
	if (fd == -EOPNOTSUPP && !attr.exclude_guest) {
		/* PMUs that cannot count in guest mode refuse an event that does not
		 * exclude it (Apple's M1 PMU driver answers EOPNOTSUPP): a benchmark runs in
		 * the host, so excluding the guest loses nothing. */
		int fd2;

		attr.exclude_guest = 1;
		fd2 = sys_open(c, &attr, group_fd);
		if (fd2 >= 0 || fd2 != -EOPNOTSUPP)
			fd = fd2;
		if (fd2 < 0)
			attr.exclude_guest = 0;
	}
opened:
	/* perf_event_paranoid >= 2 lets unprivileged users count user space only. An event
	 * asked to count the kernel only (:k) has nothing left to count then: it stays
	 * denied, never a count of nothing with both levels excluded. */
	if ((fd == -EACCES || fd == -EPERM) && o->user_only_fallback && !attr.exclude_kernel &&
	    !attr.exclude_user) {
		int fd2;

		attr.exclude_kernel = 1;
		attr.exclude_hv = 1;
		fd2 = sys_open(c, &attr, group_fd);
		if (fd2 == -EOPNOTSUPP && !attr.exclude_guest) {
			/* perf_event_open() checks the privilege level before the PMU sees the
			 * event, so on Apple's PMUs under paranoid 2 the need for exclude_guest
			 * shows only now. */
			attr.exclude_guest = 1;
			fd2 = sys_open(c, &attr, group_fd);
		}
		if (fd2 >= 0) {
			s->user_only = true;
			return fd2;
		}
		/* The retry tells whether the event exists at all (ENOENT: unsupported either
		 * way). EINVAL only says this PMU cannot exclude the kernel (msr/tsc/
		 * cannot), so the event stays denied, for the first attempt's reason. */
		if (fd2 != -EACCES && fd2 != -EPERM && fd2 != -EINVAL)
			fd = fd2;
	}
	if (fd == -EPERM && (attr.exclude_user || attr.exclude_kernel || attr.exclude_hv) &&
	    opens_without_excludes(c, &attr, group_fd))
		/* EPERM is also what some PMUs (older ARM drivers) answer for an exclude
		 * setting they cannot honour: the event opens without it, so it is the
		 * modifier this PMU does not support, not a permission. */
		fd = -EOPNOTSUPP;
	return fd;
}

/* Whether the event opens on its own: tells a member refused because it does not fit
 * the PMU together with its group (EINVAL from x86's and arm's validate_group(), or from
 * a group mixing PMUs) from one refused for itself. */
static bool opens_alone(struct pmc_counters *c, const struct pmc_event *ev)
{
	struct slot probe = { .fd = -1 };
	struct open_opts saved = c->opts;
	int fd;

	c->opts.start_disabled = true; /* never counts, whatever the caller asked */
	c->opts.enable_on_exec = false;
	fd = open_one(c, ev, &probe, -1);
	c->opts = saved;
	if (fd < 0)
		return false;
	c->sys->close(c->sys->ctx, fd);
	return true;
}

/* Opens one group, leader first. A failing leader is dropped and the next event leads.
 * A member refused for itself closes the group, which is reopened without it, so one
 * missing event does not sink the others. A member that opens alone but not in the
 * group does not fit the PMU with the others: a weak group (:W) is then split into
 * single events, as perf does; in any other group it is not counted (ENOSPC) and the
 * group reopened without it. Neither is remembered as the event's error. */
static int open_group(struct pmc_counters *c, const struct pmc_event_list *list, struct group *g)
{
	for (;;) {
		bool reopen = false;

		g->leader_fd = -1;
		for (size_t k = 0; k < g->n; k++) {
			const struct pmc_event *ev = &list->events[g->members[k]];
			struct slot *s = &c->slots[g->members[k]];
			int fd;

			if (s->status != PMC_STATUS_COUNTED)
				continue;
			s->user_only = false;
			fd = open_one(c, ev, s, g->split ? -1 : g->leader_fd);
			if (fd >= 0) {
				s->fd = fd;
				if (g->leader_fd < 0)
					g->leader_fd = fd;
				continue;
			}
			if (fatal_errno(-fd)) {
				close_group(c, g);
				return fd;
			}
			if (g->leader_fd >= 0 && !g->split && fd == -EINVAL && opens_alone(c, ev)) {
				close_group(c, g);
				if (ev->weak) {
					g->split = true;
				} else {
					s->status = PMC_STATUS_NOT_COUNTED;
					s->error = PMC_ERROR_NO_FIT;
				}
				reopen = true;
				break;
			}
			s->status = status_of_errno(-fd);
			s->error = -fd;
			if (g->leader_fd >= 0 && !g->split) {
				close_group(c, g);
				reopen = true;
				break;
			}
		}
		if (!reopen)
			break;
	}
	for (size_t k = 0; k < g->n; k++) {
		struct slot *s = &c->slots[g->members[k]];
		int r;

		if (s->fd < 0)
			continue;
		r = c->sys->ioctl(c->sys->ctx, s->fd, PERF_EVENT_IOC_ID, (unsigned long)&s->id);
		if (r < 0) {
			close_group(c, g);
			return r;
		}
	}
	return 0;
}

/* Reads the caller's options, of any version of the struct (harness/0-base/opts.h). */
static int copy_opts(struct pmc_counters *c, const struct pmc_counters_opts *opts)
{
	if (!PMC_OPTS_VALID(opts, struct pmc_counters_opts))
		return -EINVAL;
	c->opts.pid = PMC_OPTS_GET(opts, pid, 0);
	c->opts.cpu = PMC_OPTS_GET(opts, on_cpu, false) ? PMC_OPTS_GET(opts, cpu, -1) : -1;
	c->opts.inherit = PMC_OPTS_GET(opts, inherit, false);
	c->opts.enable_on_exec = PMC_OPTS_GET(opts, enable_on_exec, false);
	c->opts.start_disabled = PMC_OPTS_GET(opts, start_disabled, false);
	c->opts.known_errors = PMC_OPTS_GET(opts, known_errors, NULL);
	c->opts.user_only_fallback = PMC_OPTS_GET(opts, user_only_fallback, false);
	if (c->opts.cpu < -1)
		return -EINVAL;
	return 0;
}

static int build_groups(struct pmc_counters *c, const struct pmc_event_list *list)
{
	size_t *fill;

	for (size_t i = 0; i < list->n; i++)
		if (list->events[i].group >= list->ngroups)
			return -EINVAL;
	c->ngroups = list->ngroups;
	c->groups = calloc(c->ngroups ? c->ngroups : 1, sizeof(*c->groups));
	c->member_store = calloc(list->n ? list->n : 1, sizeof(*c->member_store));
	fill = calloc(c->ngroups ? c->ngroups : 1, sizeof(*fill));
	if (!c->groups || !c->member_store || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (size_t i = 0; i < list->n; i++)
		c->groups[list->events[i].group].n++;
	for (size_t g = 0, at = 0; g < c->ngroups; g++) {
		c->groups[g].members = c->member_store + at;
		c->groups[g].leader_fd = -1;
		at += c->groups[g].n;
		if (3 + 2 * c->groups[g].n > c->buf_words)
			c->buf_words = 3 + 2 * c->groups[g].n;
	}
	for (size_t i = 0; i < list->n; i++) {
		size_t g = list->events[i].group;

		c->groups[g].members[fill[g]++] = i;
	}
	free(fill);
	return 0;
}

int pmc_counters_open(const struct pmc_event_list *events, const struct pmc_counters_opts *opts,
		      struct pmc_counters **ret)
{
	return pmc_counters_open_sys(events, opts, NULL, ret);
}

static int open_plain(const struct pmc_event_list *events, const struct pmc_counters_opts *opts,
		      const struct pmc_sys *sys, struct pmc_counters **ret)
{
	struct pmc_counters *c;
	int r;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	r = copy_opts(c, opts);
	if (r < 0)
		goto fail_opts;
	c->sys = sys ? sys : pmc_sys_kernel();
	c->n = events->n;
	c->slots = calloc(c->n ? c->n : 1, sizeof(*c->slots));
	c->tmp = calloc(c->n ? c->n : 1, sizeof(*c->tmp));
	if (!c->slots || !c->tmp) {
		r = -ENOMEM;
		goto fail_alloc;
	}
	for (size_t i = 0; i < c->n; i++) {
		int known = c->opts.known_errors ? c->opts.known_errors[i] : 0;

		c->slots[i].fd = -1;
		c->slots[i].status = known > 0 ? status_of_errno(known) : PMC_STATUS_COUNTED;
		c->slots[i].error = known > 0 ? known : 0;
	}
	r = build_groups(c, events);
	if (r < 0)
		goto fail_alloc;
	c->buf = calloc(c->buf_words ? c->buf_words : 1, sizeof(*c->buf));
	if (!c->buf) {
		r = -ENOMEM;
		goto fail_alloc;
	}
	for (size_t g = 0; g < c->ngroups; g++) {
		r = open_group(c, events, &c->groups[g]);
		if (r < 0)
			goto fail_open;
	}
	if (PMC_OPTS_GET(opts, self_read, false) && (r = pmc_counters_self_read(c)) < 0)
		goto fail_open;
	*ret = c;
	return 0;

fail_open:
fail_alloc:
fail_opts:
	pmc_counters_close(c);
	return r;
}

/* The list split over the core PMUs of a hybrid CPU: the engine above opens hy->list,
 * each event's known error passed on to its parts. */
/* The options of an engine opened on the list a wrapper made (hybrid parts, the task's
 * events of a list with system-wide ones): the caller's, with known_errors for that list. */
static struct pmc_counters_opts inner_opts(const struct pmc_counters *c,
					   const struct pmc_counters_opts *opts, const int *known)
{
	return (struct pmc_counters_opts){
	    .sz = sizeof(struct pmc_counters_opts),
	    .pid = c->opts.pid,
	    .on_cpu = c->opts.cpu >= 0,
	    .cpu = c->opts.cpu,
	    .inherit = c->opts.inherit,
	    .enable_on_exec = c->opts.enable_on_exec,
	    .start_disabled = c->opts.start_disabled,
	    .user_only_fallback = c->opts.user_only_fallback,
	    .self_read = PMC_OPTS_GET(opts, self_read, false),
	    .known_errors = known,
	};
}

static int open_hybrid(const struct pmc_event_list *events, const struct pmc_counters_opts *opts,
		       const struct pmc_sys *sys, struct pmc_hybrid *hy, struct pmc_counters **ret)
{
	struct pmc_counters_opts o;
	struct pmc_counters *c;
	int *known = NULL, r;

	c = calloc(1, sizeof(*c));
	if (!c) {
		pmc_hybrid_free(hy);
		return -ENOMEM;
	}
	c->hy = hy;
	c->n = events->n;
	c->sys = sys;
	r = copy_opts(c, opts);
	if (r < 0)
		goto fail;
	c->tmp = calloc(c->n ? c->n : 1, sizeof(*c->tmp));
	c->parts = calloc(hy->list.n ? hy->list.n : 1, sizeof(*c->parts));
	known = calloc(hy->list.n ? hy->list.n : 1, sizeof(*known));
	if (!c->tmp || !c->parts || !known) {
		r = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; c->opts.known_errors && i < c->n; i++)
		for (size_t k = 0; k < hy->nparts[i]; k++)
			known[hy->part[i][k]] = c->opts.known_errors[i];
	o = inner_opts(c, opts, known);
	r = open_plain(&hy->list, &o, sys, &c->inner);
	if (r < 0)
		goto fail;
	free(known);
	*ret = c;
	return 0;
fail:
	free(known);
	pmc_counters_close(c);
	return r;
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
		cw->status = status_of_errno(known);
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
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = ev->type;
	attr.config = ev->config;
	attr.config1 = ev->config1;
	attr.config2 = ev->config2;
	attr.read_format = READ_FORMAT_ONE;
	attr.exclude_user = ev->exclude_user;
	attr.exclude_kernel = ev->exclude_kernel;
	attr.exclude_hv = ev->exclude_hv;
	attr.disabled = c->opts.start_disabled || c->opts.enable_on_exec;
	r = pmc_cpu_list_each(ev->cpus, open_on_cpu, &o);
	if (r < 0) {
		for (size_t k = 0; k < cw->n; k++)
			sys_close(c, &cw->fd[k]);
		cw->n = 0;
		if (fatal_errno(-r))
			return r;
		cw->status = status_of_errno(-r);
		cw->error = -r;
	}
	return 0;
}

/* A list with system-wide events (or opened for one scope): its per-task events are
 * opened as a list of their own, regrouped without the system-wide ones (which can share
 * no group with a task's events: docs/events.md, "Uncore and RAPL events"), and the
 * system-wide events each on their CPUs. */
static int open_syswide(const struct pmc_event_list *events, const struct pmc_counters_opts *opts,
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
	c->sys = sys;
	c->n = events->n;
	r = copy_opts(c, opts);
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
		o = inner_opts(c, opts, known);
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

static bool needs_syswide(const struct pmc_event_list *events)
{
	for (size_t i = 0; i < events->n; i++)
		if (events->events[i].system_wide || events->events[i].scale > 0)
			return true;
	return false;
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
	if (!PMC_OPTS_VALID(opts, struct pmc_counters_opts))
		return -EINVAL;
	sys = sys ? sys : pmc_sys_kernel();
	if (scope != PMC_SCOPE_ALL || needs_syswide(events))
		return open_syswide(events, opts, sys, scope, ret);
	r = pmc_hybrid_plan(events, sys, &hy);
	if (r < 0)
		return r;
	if (hy)
		return open_hybrid(events, opts, sys, hy, ret);
	return open_plain(events, opts, sys, ret);
}

/* True when part k of event i (hybrid) opened. */
static bool part_open(const struct pmc_counters *c, size_t i, size_t k)
{
	return c->inner->slots[c->hy->part[i][k]].fd >= 0;
}

size_t pmc_counters_opened(const struct pmc_counters *c)
{
	size_t n = 0;

	if (!c)
		return 0;
	if (c->sw) {
		for (size_t i = 0; i < c->n; i++) {
			enum pmc_status st;

			pmc_counters_open_status(c, i, &st, NULL);
			n += st == PMC_STATUS_COUNTED;
		}
		return n;
	}
	if (c->hy) {
		for (size_t i = 0; i < c->n; i++) {
			bool any = false;

			for (size_t k = 0; k < c->hy->nparts[i]; k++)
				any |= part_open(c, i, k);
			n += any;
		}
		return n;
	}
	for (size_t i = 0; i < c->n; i++)
		n += c->slots[i].fd >= 0;
	return n;
}

void pmc_counters_open_status(const struct pmc_counters *c, size_t i, enum pmc_status *ret_status,
			      int *ret_error)
{
	enum pmc_status st = PMC_STATUS_UNSUPPORTED;
	int err = EINVAL;

	if (c && i < c->n && c->sw) {
		if (c->sw->task_idx[i] != SIZE_MAX) {
			pmc_counters_open_status(c->sw->task, c->sw->task_idx[i], ret_status,
						 ret_error);
			return;
		}
		st = c->sw->cw[i].status;
		err = c->sw->cw[i].error;
	} else if (c && i < c->n && c->hy) {
		/* Open when some part opened; else the first part's reason. */
		const struct slot *s = &c->inner->slots[c->hy->part[i][0]];

		st = s->status;
		err = s->error;
		for (size_t k = 0; k < c->hy->nparts[i]; k++) {
			if (part_open(c, i, k)) {
				st = PMC_STATUS_COUNTED;
				err = 0;
			}
		}
	} else if (c && i < c->n) {
		st = c->slots[i].status;
		err = c->slots[i].error;
	}
	if (ret_status)
		*ret_status = st;
	if (ret_error)
		*ret_error = err;
}

static int group_ioctl(struct pmc_counters *c, unsigned long request);

/* Enables, disables or resets the per-task engine and every CPU of the system-wide
 * events. */
static int syswide_ioctl(struct pmc_counters *c, unsigned long request)
{
	int r = c->sw->task ? group_ioctl(c->sw->task, request) : 0;

	for (size_t i = 0; r == 0 && i < c->n; i++)
		for (size_t k = 0; r == 0 && k < c->sw->cw[i].n; k++)
			if (c->sw->cw[i].fd[k] >= 0)
				r = c->sys->ioctl(c->sys->ctx, c->sw->cw[i].fd[k], request, 0);
	return r;
}

static int group_ioctl(struct pmc_counters *c, unsigned long request)
{
	if (!c)
		return -EINVAL;
	if (c->inner)
		return group_ioctl(c->inner, request);
	if (c->sw)
		return syswide_ioctl(c, request);
	for (size_t g = 0; g < c->ngroups; g++) {
		int r;

		const struct group *gr = &c->groups[g];

		if (gr->leader_fd < 0)
			continue;
		if (!gr->split) {
			r = c->sys->ioctl(c->sys->ctx, gr->leader_fd, request, PERF_IOC_FLAG_GROUP);
			if (r < 0)
				return r;
			continue;
		}
		for (size_t k = 0; k < gr->n; k++) {
			int fd = c->slots[gr->members[k]].fd;

			if (fd >= 0 && (r = c->sys->ioctl(c->sys->ctx, fd, request, 0)) < 0)
				return r;
		}
	}
	return 0;
}

int pmc_counters_enable(struct pmc_counters *c)
{
	return group_ioctl(c, PERF_EVENT_IOC_ENABLE);
}

int pmc_counters_disable(struct pmc_counters *c)
{
	return group_ioctl(c, PERF_EVENT_IOC_DISABLE);
}

int pmc_counters_reset(struct pmc_counters *c)
{
	return group_ioctl(c, PERF_EVENT_IOC_RESET);
}

static void set_missing(struct pmc_reading *r, enum pmc_status status, int error)
{
	memset(r, 0, sizeof(*r));
	r->status = status;
	r->error = error;
	r->scaled = NAN;
}

/* docs/events.md, "Scaling": an event multiplexed onto the PMU for part of the time it was
 * enabled is extrapolated as value * enabled / running (perf stat does the same). */
static void set_value(struct pmc_reading *r, uint64_t value, uint64_t enabled, uint64_t running)
{
	memset(r, 0, sizeof(*r));
	r->value = value;
	r->enabled = enabled;
	r->running = running;
	if (running == 0) {
		r->status = PMC_STATUS_NOT_COUNTED;
		r->scaled = NAN;
	} else if (running < enabled) {
		r->status = PMC_STATUS_SCALED;
		r->scaled = (double)value * ((double)enabled / (double)running);
	} else {
		r->status = PMC_STATUS_COUNTED;
		r->scaled = (double)value;
	}
}

/* Reads one event opened without group reads: value, enabled, running, id. */
static int read_one(struct pmc_counters *c, size_t i)
{
	struct slot *s = &c->slots[i];
	ssize_t got = c->sys->read(c->sys->ctx, s->fd, c->buf, 4 * sizeof(uint64_t));

	c->reads_sys++;
	if (got < 0)
		return (int)got;
	if (got == 0) {
		/* Its pinned group is in an error state, as with a group read. */
		set_missing(&c->tmp[i], PMC_STATUS_NOT_COUNTED, 0);
		return 0;
	}
	if (got != 4 * sizeof(uint64_t) || c->buf[3] != s->id)
		return -EIO;
	set_value(&c->tmp[i], c->buf[0], c->buf[1], c->buf[2]);
	c->tmp[i].user_only = s->user_only;
	return 0;
}

static int read_group_of(struct pmc_counters *c, struct group *g);

static int read_group(struct pmc_counters *c, struct group *g)
{
	if (!c->no_group_read && !g->split)
		return read_group_of(c, g);
	/* Event by event: a split group's members each lead a group of one. */
	for (size_t k = 0; k < g->n; k++) {
		size_t i = g->members[k];
		int r;

		if (c->slots[i].fd < 0)
			continue;
		if (c->no_group_read) {
			r = read_one(c, i);
		} else {
			struct group one = { .members = &g->members[k], .n = 1,
					     .leader_fd = c->slots[i].fd };

			r = read_group_of(c, &one);
		}
		if (r < 0)
			return r;
	}
	return 0;
}

/* One read() of a group's leader with PERF_FORMAT_GROUP. */
static int read_group_of(struct pmc_counters *c, struct group *g)
{
	size_t nopen = 0, want, nr;
	uint64_t enabled, running;
	ssize_t got;

	for (size_t k = 0; k < g->n; k++)
		nopen += c->slots[g->members[k]].fd >= 0;
	want = (3 + 2 * nopen) * sizeof(uint64_t);
	/* The same bytes through the group's pages when it is on the PMU; else read(). */
	got = pmc_selfread_group(c->sr, g->leader_fd, c->buf, want);
	if (got >= 0) {
		c->reads_self++;
	} else {
		got = c->sys->read(c->sys->ctx, g->leader_fd, c->buf, want);
		c->reads_sys++;
	}
	if (got < 0)
		return (int)got;
	if (got == 0) {
		/* A pinned group the PMU could not schedule is in an error state and reads
		 * 0 bytes (perf_event_open(2), "pinned"): it never counted. */
		for (size_t k = 0; k < g->n; k++) {
			size_t i = g->members[k];

			if (c->slots[i].fd >= 0)
				set_missing(&c->tmp[i], PMC_STATUS_NOT_COUNTED, 0);
		}
		return 0;
	}
	if ((size_t)got < 3 * sizeof(uint64_t))
		return -EIO;
	nr = c->buf[0];
	if (nr > nopen || (size_t)got < (3 + 2 * nr) * sizeof(uint64_t))
		return -EIO;
	enabled = c->buf[1];
	running = c->buf[2];
	/* Whatever the read does not mention never ran. */
	for (size_t k = 0; k < g->n; k++) {
		size_t i = g->members[k];

		if (c->slots[i].fd >= 0)
			set_missing(&c->tmp[i], PMC_STATUS_NOT_COUNTED, 0);
	}
	/* Values come as {value, id} pairs; match them by id (PERF_EVENT_IOC_ID), since
	 * the order is the kernel's, not ours. */
	for (size_t e = 0; e < nr; e++) {
		uint64_t value = c->buf[3 + 2 * e], id = c->buf[4 + 2 * e];
		bool found = false;

		for (size_t k = 0; k < g->n && !found; k++) {
			size_t i = g->members[k];

			if (c->slots[i].fd >= 0 && c->slots[i].id == id) {
				set_value(&c->tmp[i], value, enabled, running);
				c->tmp[i].user_only = c->slots[i].user_only;
				found = true;
			}
		}
		if (!found)
			return -EIO;
	}
	return 0;
}

/* Hybrid: reads the parts, then each split event's sum by the rule of counters/perf/hybrid.h. */
static int read_hybrid(struct pmc_counters *c, struct pmc_reading *out)
{
	const struct pmc_hybrid *hy = c->hy;
	int r = pmc_counters_read(c->inner, c->parts);

	if (r < 0)
		return r;
	for (size_t i = 0; i < c->n; i++) {
		struct pmc_reading p[PMC_CORE_PMUS_MAX];

		if (!hy->split[i]) {
			c->tmp[i] = c->parts[hy->part[i][0]];
			continue;
		}
		for (size_t k = 0; k < hy->nparts[i]; k++)
			p[k] = c->parts[hy->part[i][k]];
		pmc_reading_combine(p, hy->nparts[i], hy->restricted[i], &c->tmp[i]);
		for (size_t k = 0; k < hy->nparts[i]; k++)
			c->parts[hy->part[i][k]] = p[k];
	}
	if (c->n)
		memcpy(out, c->tmp, c->n * sizeof(*out));
	return 0;
}

/* A system-wide event: each CPU's count read on its own and summed, with the CPUs'
 * times, as perf stat aggregates them; its scale applied to the scaled value. */
static int read_cpu_wide(struct pmc_counters *c, size_t i, struct pmc_reading *rd)
{
	const struct cpu_wide *cw = &c->sw->cw[i];
	uint64_t value = 0, enabled = 0, running = 0, buf[4];

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
	}
	set_value(rd, value, enabled, running);
	return 0;
}

static int read_syswide(struct pmc_counters *c, struct pmc_reading *out)
{
	struct syswide *sw = c->sw;
	int r = sw->task ? pmc_counters_read(sw->task, sw->task_rd) : 0;

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
	if (c->n)
		memcpy(out, c->tmp, c->n * sizeof(*out));
	return 0;
}

int pmc_counters_read(struct pmc_counters *c, struct pmc_reading *out)
{
	if (!c || (!out && c->n))
		return -EINVAL;
	if (c->hy)
		return read_hybrid(c, out);
	if (c->sw)
		return read_syswide(c, out);
	for (size_t i = 0; i < c->n; i++)
		if (c->slots[i].fd < 0)
			set_missing(&c->tmp[i], c->slots[i].status, c->slots[i].error);
	for (size_t g = 0; g < c->ngroups; g++) {
		int r;

		if (c->groups[g].leader_fd < 0)
			continue;
		r = read_group(c, &c->groups[g]);
		if (r < 0)
			return r;
	}
	if (c->n)
		memcpy(out, c->tmp, c->n * sizeof(*out));
	return 0;
}

/* Registers group g (or, split, each of its events) with the self-reader. Returns the
 * groups kept, or -ENOMEM. */
static int self_read_group(struct pmc_counters *c, const struct group *g, int *fds, uint64_t *ids)
{
	size_t n = 0;
	int kept = 0, r;

	for (size_t k = 0; k < g->n; k++) {
		const struct slot *s = &c->slots[g->members[k]];

		if (s->fd < 0)
			continue;
		fds[n] = s->fd;
		ids[n] = s->id;
		/* A split group's events each lead a group of one; in a group the first
		 * open event leads. */
		if (g->split) {
			if ((r = pmc_selfread_add(c->sr, fds, ids, 1)) < 0)
				return r;
			kept += r;
		} else {
			n++;
		}
	}
	if (!g->split && n)
		return pmc_selfread_add(c->sr, fds, ids, n);
	return kept;
}

int pmc_counters_self_read(struct pmc_counters *c)
{
	int *fds, kept = 0, r = 0;
	uint64_t *ids;

	if (!c)
		return -EINVAL;
	if (c->sw)
		return c->sw->task ? pmc_counters_self_read(c->sw->task) : 0;
	/* Only this thread's own counters can be read with rdpmc, and inherited events
	 * fold their children's counts in where no page shows them. */
	if (c->sr || c->opts.pid != 0 || c->opts.inherit || c->no_group_read)
		return 0;
	r = pmc_selfread_new(c->sys, &c->sr);
	if (r < 0)
		return r == -EOPNOTSUPP ? 0 : r;
	fds = calloc(c->n ? c->n : 1, sizeof(*fds));
	ids = calloc(c->n ? c->n : 1, sizeof(*ids));
	if (!fds || !ids)
		r = -ENOMEM;
	for (size_t g = 0; g < c->ngroups && r >= 0; g++) {
		if (c->groups[g].leader_fd < 0)
			continue;
		r = self_read_group(c, &c->groups[g], fds, ids);
		if (r > 0)
			kept += r;
	}
	free(fds);
	free(ids);
	return r < 0 ? r : kept;
}

void pmc_counters_read_counts(const struct pmc_counters *c, uint64_t *ret_self,
			      uint64_t *ret_sys)
{
	uint64_t self = 0, sys = 0;

	if (c && c->sw && c->sw->task)
		pmc_counters_read_counts(c->sw->task, &self, &sys);
	if (ret_self)
		*ret_self = self + (c ? c->reads_self : 0);
	if (ret_sys)
		*ret_sys = sys + (c ? c->reads_sys : 0);
}

static void syswide_free(struct pmc_counters *c, struct syswide *sw)
{
	if (!sw)
		return;
	for (size_t i = 0; sw->cw && i < c->n; i++) {
		for (size_t k = 0; k < sw->cw[i].n; k++)
			sys_close(c, &sw->cw[i].fd[k]);
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

void pmc_counters_close(struct pmc_counters *c)
{
	if (!c)
		return;
	pmc_selfread_free(c->sr);
	if (c->groups && c->slots) {
		for (size_t g = 0; g < c->ngroups; g++)
			if (c->groups[g].members)
				close_group(c, &c->groups[g]);
	}
	free(c->groups);
	free(c->member_store);
	free(c->slots);
	free(c->tmp);
	free(c->buf);
	pmc_counters_close(c->inner);
	pmc_hybrid_free(c->hy);
	free(c->parts);
	syswide_free(c, c->sw);
	free(c);
}

/* The per-task engine and event index for event i of a list with system-wide events;
 * false when i is system-wide (never split over core PMUs). */
static bool task_event(const struct pmc_counters **c, size_t *i)
{
	if (!*c || !(*c)->sw)
		return true;
	if (*i >= (*c)->n || (*c)->sw->task_idx[*i] == SIZE_MAX)
		return false;
	*i = (*c)->sw->task_idx[*i];
	*c = (*c)->sw->task;
	return true;
}

size_t pmc_counters_nparts(const struct pmc_counters *c, size_t i)
{
	if (!task_event(&c, &i))
		return 0;
	return c && c->hy && i < c->n && c->hy->split[i] ? c->hy->nparts[i] : 0;
}

const char *pmc_counters_part_pmu(const struct pmc_counters *c, size_t i, size_t k)
{
	int pmu;

	if (!task_event(&c, &i) || k >= pmc_counters_nparts(c, i))
		return NULL;
	pmu = c->hy->part_pmu[c->hy->part[i][k]];
	return pmu >= 0 ? c->hy->pmus.pmu[pmu].name : "";
}

bool pmc_counters_restricted(const struct pmc_counters *c, size_t i)
{
	if (!task_event(&c, &i))
		return false;
	return pmc_counters_nparts(c, i) && c->hy->restricted[i];
}

int pmc_counters_part_reading(const struct pmc_counters *c, size_t i, size_t k,
			      struct pmc_reading *ret)
{
	if (!task_event(&c, &i) || k >= pmc_counters_nparts(c, i))
		return -EINVAL;
	*ret = c->parts[c->hy->part[i][k]];
	return 0;
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

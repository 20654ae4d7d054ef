/* The plain engine (counters_priv.h, struct counters_ops): a list opened as it is, groups
 * of perf events opened leader first, read by id, each event given a status
 * (docs/events.md, "Event status"), scaled when multiplexed. Every syscall goes through
 * struct pmc_sys so tests can put an emulated PMU in place of the kernel. The hybrid and
 * system-wide engines open their lists through this one. */
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "counters/perf/counters_priv.h"
#include "counters/perf/selfread.h"

static void close_group(struct pmc_counters *c, struct group *g)
{
	/* Members first, so the leader never outlives being a leader with orphans. */
	for (size_t k = g->n; k-- > 0;)
		pmc_counters_sys_close(c, &c->slots[g->members[k]].fd);
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

/* arm64 lets a task read its counters (mrs PMEVCNTR<n>_EL0, PMCCNTR_EL0) only for
 * events that ask for it with the core PMU's "rdpmc" format bit, config1:1
 * (arch/arm64/kernel/perf_event.c, armv8pmu_event_want_user_access), and only while
 * kernel.perf_user_access is 1; otherwise the page's index stays 0 and every read is a
 * read(). Core-PMU events are the generic hardware and cache events and raw codes. */
static void ask_user_access(const struct pmc_event *ev, struct perf_event_attr *attr)
{
#if defined(__aarch64__)
	if (ev->type == PERF_TYPE_HARDWARE || ev->type == PERF_TYPE_HW_CACHE ||
	    ev->type == PERF_TYPE_RAW)
		attr->config1 |= UINT64_C(1) << 1;
#else
	(void)ev;
	(void)attr;
#endif
}

/* Opens attr, and again without group reads when a leader with inherit gets EINVAL:
 * before Linux 4.13 inherit and PERF_FORMAT_GROUP exclude each other (perf: "switching
 * off group read"). If it opens so, every event from here on is read on its own. A group
 * opened before is left as it is: the first leader is where this shows. Every attempt of
 * open_one goes through here, the :u retry too: perf_event_open() refuses kernel-space
 * counting (EACCES) before it looks at read_format, so under perf_event_paranoid 2 the
 * refusal of group reads shows only on the retry. */
static int open_attr(struct pmc_counters *c, struct perf_event_attr *attr, int group_fd)
{
	int fd = sys_open(c, attr, group_fd);

	if (fd == -EINVAL && group_fd < 0 && attr->inherit && !c->no_group_read &&
	    (attr->read_format & PERF_FORMAT_GROUP)) {
		attr->read_format = READ_FORMAT_ONE;
		fd = sys_open(c, attr, group_fd);
		if (fd >= 0)
			c->no_group_read = true;
		else
			attr->read_format = READ_FORMAT;
	}
	return fd;
}

static int open_one(struct pmc_counters *c, const struct pmc_event *ev, struct slot *s,
		    int group_fd)
{
	const struct open_opts *o = &c->opts;
	bool leader = group_fd < 0;
	struct perf_event_attr attr;
	int fd;

	event_attr(ev, c->no_group_read ? READ_FORMAT_ONE : READ_FORMAT, &attr);
	attr.inherit = o->inherit;
	/* Members follow their leader (perf_event_open(2): a member is scheduled only when
	 * its leader is), so only the leader starts disabled and waits for exec. */
	attr.disabled = leader && (o->start_disabled || o->enable_on_exec);
	attr.enable_on_exec = leader && o->enable_on_exec;
	if (o->self_read)
		ask_user_access(ev, &attr);

	fd = open_attr(c, &attr, group_fd);
	if (fd == -EOPNOTSUPP && !attr.exclude_guest) {
		/* PMUs that cannot count in guest mode refuse an event that does not
		 * exclude it (Apple's M1 PMU driver answers EOPNOTSUPP): a benchmark runs in
		 * the host, so excluding the guest loses nothing. */
		int fd2;

		attr.exclude_guest = 1;
		fd2 = open_attr(c, &attr, group_fd);
		if (fd2 >= 0 || fd2 != -EOPNOTSUPP)
			fd = fd2;
		if (fd2 < 0)
			attr.exclude_guest = 0;
	}
	/* perf_event_paranoid >= 2 lets unprivileged users count user space only. An event
	 * asked to count the kernel only (:k) has nothing left to count then: it stays
	 * denied, never a count of nothing with both levels excluded. So does one the kernel
	 * records only in kernel mode (context switches, migrations): with exclude_kernel
	 * perf_exclude_event() drops each of them, and the count would be a 0 by
	 * construction. */
	if ((fd == -EACCES || fd == -EPERM) && o->user_only_fallback && !ev->no_user_fallback &&
	    !attr.exclude_kernel && !attr.exclude_user &&
	    !pmc_event_kernel_recorded(attr.type, attr.config)) {
		int fd2;

		attr.exclude_kernel = 1;
		attr.exclude_hv = 1;
		fd2 = open_attr(c, &attr, group_fd);
		if (fd2 == -EOPNOTSUPP && !attr.exclude_guest) {
			/* perf_event_open() checks the privilege level before the PMU sees the
			 * event, so on Apple's PMUs under paranoid 2 the need for exclude_guest
			 * shows only now. */
			attr.exclude_guest = 1;
			fd2 = open_attr(c, &attr, group_fd);
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
	struct slot probe = {.fd = -1};
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

/* Intel's topdown events on a core PMU (arch/x86/events/intel/core.c, is_slots_event() and
 * is_metric_event()): slots (event 0, umask 0x04) and the metric events (event 0, umask
 * 0x80-0x87). rdpmc of a metric event's index gives the PERF_METRICS register, fractions
 * packed in bytes, not a count (x86_pmu_event_idx()), and every read() of the group resets
 * fixed counter 3 and PERF_METRICS without writing the pages (intel_update_topdown_event()),
 * so slots' page no longer adds up either. A raw code elsewhere that matches only loses
 * the rdpmc. */
static bool is_topdown(const struct pmc_event *ev)
{
#if defined(__x86_64__) || defined(__i386__)
	uint64_t c = ev->config & 0xffff;

	if (ev->type < PERF_TYPE_RAW || ev->type == PERF_TYPE_BREAKPOINT)
		return false;
	return c == 0x0400 || ((c & 0xff) == 0 && c >= 0x8000 && c <= 0x8700);
#else
	(void)ev;
	return false;
#endif
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
			s->topdown = is_topdown(ev);
			fd = open_one(c, ev, s, g->split ? -1 : g->leader_fd);
			if (fd >= 0) {
				s->fd = fd;
				if (g->leader_fd < 0)
					g->leader_fd = fd;
				continue;
			}
			if (pmc_counters_fatal_errno(-fd)) {
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
			s->status = pmc_counters_status_of_errno(-fd);
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

static int plain_self_read(struct pmc_counters *c);

int pmc_counters_open_plain(const struct pmc_event_list *events,
			    const struct pmc_counters_opts *opts, const struct pmc_sys *sys,
			    struct pmc_counters **ret)
{
	struct pmc_counters *c;
	int r;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->ops = &pmc_counters_plain_ops;
	r = pmc_counters_copy_opts(c, opts);
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
		c->slots[i].status =
		    known > 0 ? pmc_counters_status_of_errno(known) : PMC_STATUS_COUNTED;
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
	if (c->opts.self_read && (r = plain_self_read(c)) < 0)
		goto fail_open;
	*ret = c;
	return 0;

fail_open:
fail_alloc:
fail_opts:
	pmc_counters_close(c);
	return r;
}

static size_t plain_opened(const struct pmc_counters *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		n += c->slots[i].fd >= 0;
	return n;
}

static void plain_open_status(const struct pmc_counters *c, size_t i, enum pmc_status *ret_status,
			      int *ret_error)
{
	*ret_status = c->slots[i].status;
	*ret_error = c->slots[i].error;
}

static int ioctl_group(struct pmc_counters *c, const struct group *gr, unsigned long request)
{
	int r;

	if (!gr->split)
		return c->sys->ioctl(c->sys->ctx, gr->leader_fd, request, PERF_IOC_FLAG_GROUP);
	for (size_t k = 0; k < gr->n; k++) {
		int fd = c->slots[gr->members[k]].fd;

		if (fd >= 0 && (r = c->sys->ioctl(c->sys->ctx, fd, request, 0)) < 0)
			return r;
	}
	return 0;
}

static int ioctl_groups(struct pmc_counters *c, unsigned long request)
{
	for (size_t g = 0; g < c->ngroups; g++) {
		int r;

		if (c->groups[g].leader_fd < 0)
			continue;
		if ((r = ioctl_group(c, &c->groups[g], request)) < 0)
			return r;
	}
	return 0;
}

static int plain_ioctl(struct pmc_counters *c, unsigned long request)
{
	int r = ioctl_groups(c, request);

	/* A reset leaves the pages not matching the counters (selfread.h), even one that
	 * failed part way, and zeroes what the pauses took off. */
	if (request == PERF_EVENT_IOC_RESET) {
		pmc_selfread_hold(c->sr);
		for (size_t i = 0; i < c->n; i++)
			memset(c->slots[i].paused, 0, sizeof(c->slots[i].paused));
	}
	return r;
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
			struct group one = {
			    .members = &g->members[k], .n = 1, .leader_fd = c->slots[i].fd};

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
			const uint64_t *off = c->slots[i].paused;

			if (c->slots[i].fd >= 0 && c->slots[i].id == id) {
				/* Less what the pauses counted (plain_pause). */
				set_value(&c->tmp[i], value - off[0], enabled - off[1],
					  running - off[2]);
				c->tmp[i].user_only = c->slots[i].user_only;
				found = true;
			}
		}
		if (!found)
			return -EIO;
	}
	return 0;
}

/* A group paused by reading (pmc_counters_pause): read through its pages at a pause and
 * at the resume, what it counted in between taken off its later reads. A read at either
 * end goes to read() while the group is off a counter, and a read gives a count of one
 * moment of the group, as the ioctl() of a group disables it at one moment. */
static bool pauses_by_read(const struct pmc_counters *c, const struct group *g)
{
	return !c->no_group_read && !g->split && pmc_selfread_kept(c->sr, g->leader_fd);
}

static int pause_by_read(struct pmc_counters *c, struct group *g, bool pause)
{
	int r = read_group_of(c, g);

	if (r < 0)
		return r;
	for (size_t k = 0; k < g->n; k++) {
		struct slot *s = &c->slots[g->members[k]];
		const struct pmc_reading *t = &c->tmp[g->members[k]];
		uint64_t now[3] = {t->value, t->enabled, t->running};

		if (s->fd < 0)
			continue;
		if (pause) {
			memcpy(s->at_pause, now, sizeof(now));
			continue;
		}
		/* A pinned group in an error state reads nothing (0 bytes) at both ends, and
		 * stays so: nothing to take off. */
		if (now[0] < s->at_pause[0] || now[1] < s->at_pause[1] || now[2] < s->at_pause[2])
			continue;
		for (int j = 0; j < 3; j++)
			s->paused[j] += now[j] - s->at_pause[j];
	}
	return 0;
}

static int plain_pause(struct pmc_counters *c, bool pause)
{
	for (size_t g = 0; g < c->ngroups; g++) {
		struct group *gr = &c->groups[g];
		int r;

		if (gr->leader_fd < 0)
			continue;
		if (pauses_by_read(c, gr))
			r = pause_by_read(c, gr, pause);
		else
			r = ioctl_group(c, gr,
					pause ? PERF_EVENT_IOC_DISABLE : PERF_EVENT_IOC_ENABLE);
		if (r < 0)
			return r;
	}
	return 0;
}

static int read_groups(struct pmc_counters *c)
{
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
	return 0;
}

/* Registers group g (or, split, each of its events) with the self-reader. Returns the
 * groups kept, or -ENOMEM. */
static int self_read_group(struct pmc_counters *c, const struct group *g, int *fds, uint64_t *ids)
{
	size_t n = 0;
	int kept = 0, r;

	for (size_t k = 0; k < g->n && !g->split; k++)
		if (c->slots[g->members[k]].fd >= 0 && c->slots[g->members[k]].topdown)
			return 0;
	for (size_t k = 0; k < g->n; k++) {
		const struct slot *s = &c->slots[g->members[k]];

		if (s->fd < 0 || s->topdown)
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

static int plain_self_read(struct pmc_counters *c)
{
	int *fds, kept = 0, r = 0;
	uint64_t *ids;

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

static void plain_inner_read_counts(const struct pmc_counters *c, uint64_t *ret_self,
				    uint64_t *ret_sys)
{
	*ret_self = *ret_sys = 0;
}

static size_t plain_nparts(const struct pmc_counters *c, size_t i)
{
	return 0;
}

static int plain_part(const struct pmc_counters *c, size_t i, size_t k, const char **ret_pmu,
		      struct pmc_reading *ret_rd)
{
	return -EINVAL;
}

static bool plain_restricted(const struct pmc_counters *c, size_t i)
{
	return false;
}

static void plain_free(struct pmc_counters *c)
{
	pmc_selfread_free(c->sr);
	if (c->groups && c->slots) {
		for (size_t g = 0; g < c->ngroups; g++)
			if (c->groups[g].members)
				close_group(c, &c->groups[g]);
	}
	free(c->groups);
	free(c->member_store);
	free(c->slots);
	free(c->buf);
}

const struct counters_ops pmc_counters_plain_ops = {
    .read = read_groups,
    .ioctl = plain_ioctl,
    .pause = plain_pause,
    .opened = plain_opened,
    .open_status = plain_open_status,
    .self_read = plain_self_read,
    .inner_read_counts = plain_inner_read_counts,
    .nparts = plain_nparts,
    .part = plain_part,
    .restricted = plain_restricted,
    .free = plain_free,
};

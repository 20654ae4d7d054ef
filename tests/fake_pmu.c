/* The emulated PMU described in fake_pmu.h. */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/fake_pmu.h"

#define READ_FORMAT                                                                                \
	(PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |                     \
	 PERF_FORMAT_TOTAL_TIME_RUNNING)

uint64_t fake_pmu_rate(uint32_t type, uint64_t config)
{
	return 1000 * ((uint64_t)type + 1) + config % 997 + (config >> 16) * 10;
}

/* The core PMUs: cfg's, or one on every CPU with cfg.counters when it has none. */
static unsigned ncores(const struct fake_pmu *f)
{
	return f->cfg.ncores ? f->cfg.ncores : 1;
}

static unsigned core_counters(const struct fake_pmu *f, int core)
{
	return f->cfg.ncores ? f->cfg.cores[core].counters : f->cfg.counters;
}

static bool core_owns(const struct fake_pmu *f, int core, int cpu)
{
	if (!f->cfg.ncores)
		return true;
	return cpu >= 0 && cpu < 64 && (f->cfg.cores[core].cpus >> cpu & 1);
}

uint64_t fake_pmu_core_rate(const struct fake_pmu *f, unsigned core, uint64_t config)
{
	return fake_pmu_rate(f->cfg.cores[core].type, config & PERF_HW_EVENT_MASK);
}

static int core_of_type(const struct fake_pmu *f, uint64_t type)
{
	for (unsigned k = 0; k < f->cfg.ncores; k++)
		if (f->cfg.cores[k].type == type)
			return (int)k;
	return -1;
}

/* The core PMU a hardware, cache or raw event goes to (kernel/events/core.c,
 * perf_init_event()), into *ret; -1 for other events. Returns 0 or -errno. */
static int route(const struct fake_pmu *f, const struct perf_event_attr *a, int *ret)
{
	const struct fake_pmu_config *cfg = &f->cfg;
	uint64_t ext = a->config >> PERF_PMU_TYPE_SHIFT;
	int core = -1;

	switch (a->type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
		if (ext && (!cfg->ncores || cfg->no_extended_type)) {
			/* An older kernel reads the whole config of a hardware event (beyond
			 * PERF_COUNT_HW_MAX: EINVAL) but only the low three bytes of a cache
			 * event, so that one is silently taken as a legacy event. */
			if (a->type == PERF_TYPE_HARDWARE)
				return -EINVAL;
			ext = 0;
		}
		if (ext) {
			core = core_of_type(f, ext);
			if (core < 0)
				return -ENOENT;
		} else {
			core = cfg->ncores ? (int)cfg->legacy_core : 0;
		}
		break;
	case PERF_TYPE_RAW:
		core = cfg->ncores ? core_of_type(f, PERF_TYPE_RAW) : 0;
		if (core < 0)
			core = (int)cfg->legacy_core;
		break;
	default:
		if (a->type != PERF_TYPE_SOFTWARE && cfg->ncores)
			core = core_of_type(f, a->type);
		break;
	}
	*ret = core;
	return 0;
}

/* Whether an event takes a counter of a core PMU. */
static bool needs_counter(const struct fake_pmu *f, const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ||
	       a->type == PERF_TYPE_RAW || (f->cfg.ncores && core_of_type(f, a->type) >= 0);
}

/* arch/x86/events/intel/core.c: is_slots_event(), is_metric_event() (INTEL_TD_SLOTS,
 * INTEL_TD_METRIC_RETIRING..INTEL_TD_METRIC_MEM_BOUND), on the core PMU. */
bool fake_pmu_is_slots(const struct fake_pmu *f, const struct perf_event_attr *a)
{
	return f->cfg.perf_metrics && a->type == PERF_TYPE_RAW && (a->config & 0xffff) == 0x0400;
}

bool fake_pmu_is_metric(const struct fake_pmu *f, const struct perf_event_attr *a)
{
	uint64_t c = a->config & 0xffff;

	return f->cfg.perf_metrics && a->type == PERF_TYPE_RAW && (c & 0xff) == 0 && c >= 0x8000 &&
	       c <= 0x8700;
}

/* intel_pmu_hw_config()'s rules for topdown events; leader NULL: a leads. */
static int check_topdown(const struct fake_pmu *f, const struct perf_event_attr *a,
			 const struct fake_pmu_event *leader)
{
	/* X86_ALL_EVENT_FLAGS: edge, pin control, any, inv, cmask, in_tx, in_tx_cp. */
	const uint64_t flags = UINT64_C(0x3ffac0000);

	if (!fake_pmu_is_slots(f, a) && !fake_pmu_is_metric(f, a))
		return 0;
	if (a->config1 || a->config2 || (a->config & flags))
		return -EINVAL;
	if (!fake_pmu_is_metric(f, a))
		return 0;
	if (a->sample_period || !leader || !fake_pmu_is_slots(f, &leader->attr) ||
	    leader->attr.sample_period)
		return -EINVAL;
	return 0;
}

struct fake_pmu_event *fake_pmu_lookup(struct fake_pmu *f, int fd)
{
	int slot = fd - FAKE_PMU_FD_BASE;

	if (slot < 0 || slot >= FAKE_PMU_MAX_EVENTS || !f->ev[slot].used)
		return NULL;
	return &f->ev[slot];
}

size_t fake_pmu_open_attempts(const struct fake_pmu *f, uint32_t type, uint64_t config)
{
	size_t n = 0;

	for (size_t i = 0; i < f->nlog; i++)
		n += f->log[i].attr.type == type && f->log[i].attr.config == config;
	return n;
}

/* Whether a hardware event can use the fixed counter that counts generic event hw. */
static bool fixed_for(const struct perf_event_attr *a, uint64_t hw)
{
	return a->type == PERF_TYPE_HARDWARE && (a->config & PERF_HW_EVENT_MASK) == hw;
}

/* The fixed counters free at a moment of the emulated PMU. */
struct fixed_free {
	bool insn, cycles;
};

/* General-purpose counters the group led by slot `leader` needs (plus `extra`, an event
 * about to join it) besides the fixed counters free in *fx, which it takes. */
static unsigned group_need(const struct fake_pmu *f, int leader,
			   const struct perf_event_attr *extra, struct fixed_free *fx)
{
	unsigned n = 0;

	for (int i = 0; i <= FAKE_PMU_MAX_EVENTS; i++) {
		const struct perf_event_attr *a;

		if (i < FAKE_PMU_MAX_EVENTS) {
			if (!f->ev[i].used || f->ev[i].leader != leader)
				continue;
			a = &f->ev[i].attr;
		} else if (!(a = extra)) {
			break;
		}
		/* Slots has fixed counter 3 to itself, the metric events need none. */
		if (!needs_counter(f, a) || fake_pmu_is_slots(f, a) || fake_pmu_is_metric(f, a))
			continue;
		if (fx->insn && fixed_for(a, PERF_COUNT_HW_INSTRUCTIONS))
			fx->insn = false;
		else if (fx->cycles && fixed_for(a, PERF_COUNT_HW_CPU_CYCLES))
			fx->cycles = false;
		else
			n++;
	}
	return n;
}

/* arm_pmu's validate_group(): the counters of the group led by slot `leader` with
 * `extra` added, leaving out events in state OFF that will not be enabled on exec. */
static unsigned arm_group_need(const struct fake_pmu *f, int leader,
			       const struct perf_event_attr *extra)
{
	unsigned n = 0;

	for (int i = 0; i < FAKE_PMU_MAX_EVENTS; i++) {
		const struct fake_pmu_event *e = &f->ev[i];

		if (e->used && e->leader == leader && needs_counter(f, &e->attr) &&
		    (e->enabled || e->attr.enable_on_exec))
			n++;
	}
	if (needs_counter(f, extra) && (!extra->disabled || extra->enable_on_exec))
		n++;
	return n;
}

/* Hardware counters the group led by slot `leader` needs at run time: 0 only for a
 * group without hardware events. */
static unsigned group_counters(const struct fake_pmu *f, int leader)
{
	unsigned n = 0;

	for (int i = 0; i < FAKE_PMU_MAX_EVENTS; i++)
		if (f->ev[i].used && f->ev[i].leader == leader && f->ev[i].core >= 0)
			n++;
	return n;
}

/* The core PMU of the group led by slot `leader`: -1 when it has no hardware event. */
static int group_core(const struct fake_pmu *f, int leader)
{
	for (int i = 0; i < FAKE_PMU_MAX_EVENTS; i++)
		if (f->ev[i].used && f->ev[i].leader == leader && f->ev[i].core >= 0)
			return f->ev[i].core;
	return -1;
}

/* Whether cpu is in a list such as "0-3,6". */
static bool fake_cpu_listed(const char *list, int cpu)
{
	const char *p = list;

	while (*p && *p != '\n') {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p)
			return false;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (cpu >= a && cpu <= b)
			return true;
		p = *end == ',' ? end + 1 : end;
	}
	return false;
}

static int check_open(struct fake_pmu *f, const struct perf_event_attr *a, pid_t pid, int cpu,
		      int group_fd, int *ret_core)
{
	const struct fake_pmu_config *cfg = &f->cfg;
	struct fake_pmu_event *leader = NULL;
	int core = -1, r;

	if (a->size != sizeof(*a))
		return -E2BIG;
	/* Debian's perf_event_paranoid=3 refuses the syscall to unprivileged users; >= 2
	 * refuses kernel-space counting (kernel/events/core.c, perf_allow_kernel()). */
	if (!cfg->privileged && cfg->paranoid >= 3)
		return -EACCES;
	if (!cfg->privileged && cfg->paranoid >= 2 && !a->exclude_kernel)
		return -EACCES;
	/* perf_event_alloc() refuses an event bound to neither a task nor a CPU, before
	 * find_get_context() checks the right to count a CPU (perf_allow_cpu()). */
	if (pid == -1 && cpu == -1)
		return -EINVAL;
	/* "the cpu to monitor does not exist" (perf_event_open(2), EINVAL): one of
	 * cfg.online's, when it names them. */
	if (cpu >= 0 && cfg->online && !fake_cpu_listed(cfg->online, cpu))
		return -EINVAL;
	if (!cfg->privileged && cfg->paranoid >= 1 && pid == -1)
		return -EACCES;
	if (cfg->no_build_id && a->build_id)
		return -EINVAL;
	if (cfg->no_stack_user && (a->sample_type & PERF_SAMPLE_STACK_USER))
		return -ENOSYS;
	if (cfg->gone_pid && pid == cfg->gone_pid)
		return -ESRCH;
	/* perf_event_open(): the task is found first, then the right to watch it. */
	if (cfg->foreign_pid && pid == cfg->foreign_pid && !cfg->privileged)
		return -EACCES;
	if (cfg->busy && needs_counter(f, a) && a->config == cfg->busy_config)
		return -EBUSY;
	if (cfg->eperm_exclude && needs_counter(f, a) && !cfg->no_pmu &&
	    (a->exclude_user || a->exclude_kernel || a->exclude_hv))
		return -EPERM;
	/* Linux 4.13 taught inherited events to read as a group. */
	if (cfg->kernel && cfg->kernel < FAKE_PMU_KERNEL(4, 13) && a->inherit &&
	    (a->read_format & PERF_FORMAT_GROUP))
		return -EINVAL;
	if (cfg->need_exclude_guest && needs_counter(f, a) && !cfg->no_pmu && !a->exclude_guest)
		return -EOPNOTSUPP;
	if (cfg->max_sample_rate && a->freq && a->sample_freq > cfg->max_sample_rate)
		return -EINVAL;
	if (cfg->max_fds > 0 && f->nopen >= cfg->max_fds)
		return -EMFILE;
	if (group_fd != -1) {
		leader = fake_pmu_lookup(f, group_fd);
		if (!leader)
			return -EBADF;
		if (leader->leader != group_fd - FAKE_PMU_FD_BASE)
			return -EINVAL;
		/* perf_event_open(): a member counts on its leader's CPU and in its leader's
		 * context (the same task, or the same CPU), else EINVAL. */
		if (leader->cpu != cpu || leader->pid != pid)
			return -EINVAL;
	}
	switch (a->type) {
	case PERF_TYPE_SOFTWARE:
		if (a->config >= PERF_COUNT_SW_MAX)
			return -ENOENT;
		break;
	case PERF_TYPE_TRACEPOINT:
		if (!cfg->tracepoints)
			return -ENOENT;
		break;
	case PERF_TYPE_HARDWARE:
		if (cfg->no_pmu)
			return -ENOENT;
		if ((r = route(f, a, &core)) < 0)
			return r;
		if ((a->config & PERF_HW_EVENT_MASK) >= PERF_COUNT_HW_MAX)
			return -EINVAL;
		if ((a->config & PERF_HW_EVENT_MASK) < 32 &&
		    (cfg->enoent_hw_mask >> (a->config & PERF_HW_EVENT_MASK) & 1))
			return -ENOENT;
		break;
	case PERF_TYPE_HW_CACHE:
		if (cfg->no_pmu)
			return -ENOENT;
		if ((r = route(f, a, &core)) < 0)
			return r;
		if ((a->config & 0xff) >= PERF_COUNT_HW_CACHE_MAX ||
		    (a->config >> 8 & 0xff) >= PERF_COUNT_HW_CACHE_OP_MAX ||
		    (a->config >> 16 & 0xff) >= PERF_COUNT_HW_CACHE_RESULT_MAX)
			return -EINVAL;
		break;
	case PERF_TYPE_RAW:
		if (cfg->no_pmu)
			return -ENOENT;
		if ((r = route(f, a, &core)) < 0)
			return r;
		break;
	default:
		if (!cfg->no_pmu && cfg->ncores && core_of_type(f, a->type) >= 0) {
			route(f, a, &core);
			break;
		}
		if (cfg->power_type && a->type == cfg->power_type) {
			if (cpu < 0 || a->config < 1 || a->config > 2)
				return -EINVAL;
			if (a->exclude_user || a->exclude_kernel || a->exclude_hv)
				return -EINVAL;
			break;
		}
		if (!cfg->msr_type || a->type != cfg->msr_type)
			return -ENOENT;
		if (a->exclude_user || a->exclude_kernel || a->exclude_hv)
			return -EINVAL;
		break;
	}
	if (cfg->einval && needs_counter(f, a) && a->config == cfg->einval_config)
		return -EINVAL;
	if ((r = check_topdown(f, a, leader)) < 0)
		return r;
	/* x86 hybrid and arm_pmu refuse an event bound to a CPU of another core type. */
	if (core >= 0 && cpu >= 0 && !core_owns(f, core, cpu))
		return -ENOENT;
	if (leader && core >= 0) {
		/* x86 validate_group(): a group that could never be scheduled on an empty
		 * PMU is refused; the watchdog's use of a counter is not considered. */
		struct fixed_free empty = {cfg->fixed_counters, cfg->fixed_counters};
		int gcore = group_core(f, group_fd - FAKE_PMU_FD_BASE);

		/* A group lives on one PMU: a hardware event of another is refused. */
		if (gcore >= 0 && gcore != core)
			return -EINVAL;
		unsigned need = cfg->arm_validate
				    ? arm_group_need(f, group_fd - FAKE_PMU_FD_BASE, a)
				    : group_need(f, group_fd - FAKE_PMU_FD_BASE, a, &empty);

		if (need > core_counters(f, core))
			return -EINVAL;
	}
	*ret_core = core;
	return 0;
}

static int fake_event_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
			   int group_fd, unsigned long flags)
{
	struct fake_pmu *f = ctx;
	struct fake_pmu_event *e = NULL;
	int r, slot = -1, core = -1;

	r = check_open(f, attr, pid, cpu, group_fd, &core);
	if (r == 0) {
		/* A closed event whose ring is still mapped keeps its slot until munmap. */
		for (slot = 0; slot < FAKE_PMU_MAX_EVENTS && (f->ev[slot].used || f->ev[slot].ring);
		     slot++)
			;
		if (slot == FAKE_PMU_MAX_EVENTS)
			r = -EMFILE;
	}
	if (r == 0) {
		e = &f->ev[slot];
		memset(e, 0, sizeof(*e));
		e->used = true;
		e->attr = *attr;
		e->pid = pid;
		e->cpu = cpu;
		e->leader = group_fd == -1 ? slot : group_fd - FAKE_PMU_FD_BASE;
		e->seq = f->next_seq++;
		/* Decreasing ids, so the order of ids never matches the order of opening. */
		e->id = 90000 - 7 * (uint64_t)e->seq;
		e->enabled = !attr->disabled;
		/* x86_pmu_event_init(): rdpmc is allowed or not as the event is created. */
		e->rdpmc_ok = f->cfg.rdpmc > 0 && needs_counter(f, attr);
		e->core = core;
		f->nopen++;
		r = FAKE_PMU_FD_BASE + slot;
	}
	if (r >= 0 && f->on_open)
		f->on_open(f, f->on_open_ud);
	if (f->nlog < FAKE_PMU_MAX_LOG) {
		struct fake_pmu_open *l = &f->log[f->nlog++];

		l->attr = *attr;
		l->pid = pid;
		l->cpu = cpu;
		l->group_fd = group_fd;
		l->flags = flags;
		l->result = r;
	}
	return r;
}

static void for_group(struct fake_pmu *f, int slot, bool whole_group,
		      void (*fn)(struct fake_pmu_event *e))
{
	if (!whole_group) {
		fn(&f->ev[slot]);
		return;
	}
	for (int i = 0; i < FAKE_PMU_MAX_EVENTS; i++)
		if (f->ev[i].used && f->ev[i].leader == f->ev[slot].leader)
			fn(&f->ev[i]);
}

static void do_enable(struct fake_pmu_event *e)
{
	e->enabled = true;
}

static void do_disable(struct fake_pmu_event *e)
{
	e->enabled = false;
}

/* _perf_event_reset(): perf_event_read() first, which on a counter sets prev_count to the
 * counter as read (x86_perf_event_update()); the page written next shows that. */
static void do_reset(struct fake_pmu_event *e)
{
	e->value = 0;
	e->prev_read = e->on_counter;
}

/* kernel/events/core.c, perf_event_set_output(): e's records go to out's ring (out_fd -1:
 * back to its own). out must be another perf event (EBADF) on the same CPU, of the same
 * task when not bound to one, with the same clock and write direction, and have a ring (its
 * own or one it writes into); e must have none mapped. Else EINVAL. */
static int set_output(struct fake_pmu *f, struct fake_pmu_event *e, int out_fd)
{
	struct fake_pmu_event *o;

	if (out_fd != -1) {
		if (!(o = fake_pmu_lookup(f, out_fd)))
			return -EBADF;
		if (o == e || o->cpu != e->cpu || (o->cpu == -1 && o->pid != e->pid))
			return -EINVAL;
		if (o->attr.use_clockid != e->attr.use_clockid ||
		    (e->attr.use_clockid && o->attr.clockid != e->attr.clockid))
			return -EINVAL;
		if (o->attr.write_backward != e->attr.write_backward)
			return -EINVAL;
	}
	if (e->ring)
		return -EINVAL; /* "Can't redirect output if we've got an active mmap()" */
	if (out_fd == -1) {
		e->output = 0;
		return 0;
	}
	if (o->output)
		o = &f->ev[o->output - 1];
	if (!o->ring)
		return -EINVAL; /* ring_buffer_get() finds none */
	e->output = 1 + (int)(o - f->ev);
	f->set_outputs++;
	return 0;
}

static int fake_ioctl(void *ctx, int fd, unsigned long request, unsigned long arg)
{
	struct fake_pmu *f = ctx;
	struct fake_pmu_event *e = fake_pmu_lookup(f, fd);
	bool group = arg & PERF_IOC_FLAG_GROUP;

	f->ioctls++;
	if (!e)
		return -EBADF;
	switch (request) {
	case PERF_EVENT_IOC_ENABLE:
		for_group(f, (int)(e - f->ev), group, do_enable);
		fake_pmu_selfmon_sync(f);
		return 0;
	case PERF_EVENT_IOC_DISABLE:
		for_group(f, (int)(e - f->ev), group, do_disable);
		fake_pmu_selfmon_sync(f);
		return 0;
	case PERF_EVENT_IOC_RESET:
		fake_pmu_selfmon_anchor(f);
		for_group(f, (int)(e - f->ev), group, do_reset);
		fake_pmu_selfmon_sync(f);
		return 0;
	case PERF_EVENT_IOC_ID:
		*(uint64_t *)arg = e->id;
		return 0;
	case PERF_EVENT_IOC_SET_OUTPUT:
		return set_output(f, e, (int)arg);
	default:
		return -ENOTTY;
	}
}

static ssize_t fake_read(void *ctx, int fd, void *buf, size_t len)
{
	struct fake_pmu *f = ctx;
	struct fake_pmu_event *e = fake_pmu_lookup(f, fd), *members[FAKE_PMU_MAX_EVENTS];
	int slot, nr = 0;
	bool td = false; /* a topdown group: slots and metric events */
	uint64_t *out = buf;

	f->reads++;
	if (!e)
		return -EBADF;
	if (f->cfg.read_error)
		return -f->cfg.read_error;
	slot = (int)(e - f->ev);
	if (e->attr.read_format == (READ_FORMAT & ~(uint64_t)PERF_FORMAT_GROUP)) {
		/* One event: value, time_enabled, time_running, id. */
		if (len < 4 * sizeof(uint64_t))
			return -ENOSPC;
		if (f->ev[e->leader].error_state)
			return 0;
		out[0] = e->value;
		out[1] = e->time_enabled;
		out[2] = e->time_running;
		out[3] = e->id;
		e->prev_read = e->on_counter; /* x86_perf_event_update() */
		return 4 * sizeof(uint64_t);
	}
	if (e->leader != slot || e->attr.read_format != READ_FORMAT)
		return -EINVAL;
	if (e->error_state)
		return 0;
	/* Leader first, members in the order they were attached. */
	members[nr++] = e;
	for (unsigned seq = e->seq + 1; seq < f->next_seq; seq++)
		for (int i = 0; i < FAKE_PMU_MAX_EVENTS; i++)
			if (f->ev[i].used && i != slot && f->ev[i].leader == slot &&
			    f->ev[i].seq == seq)
				members[nr++] = &f->ev[i];
	if (len < (3 + 2 * (size_t)nr) * sizeof(uint64_t))
		return -ENOSPC;
	out[0] = (uint64_t)nr;
	out[1] = e->time_enabled;
	out[2] = e->time_running;
	for (int k = 0; k < nr; k++)
		td = td || fake_pmu_is_metric(f, &members[k]->attr);
	for (int k = 0; k < nr; k++) {
		struct fake_pmu_event *m = members[f->cfg.reverse_ids ? nr - 1 - k : k];

		out[3 + 2 * k] = m->value;
		out[4 + 2 * k] = m->id;
		m->prev_read = m->on_counter; /* x86_perf_event_update() of each */
		/* intel_update_topdown_event(): fixed counter 3 starts again from 0. */
		if (td && m->on_counter && fake_pmu_is_slots(f, &m->attr)) {
			m->raw0 = 0;
			m->v0 = m->value;
		}
	}
	return (ssize_t)((3 + 2 * (size_t)nr) * sizeof(uint64_t));
}

static int fake_close(void *ctx, int fd)
{
	struct fake_pmu *f = ctx;
	struct fake_pmu_event *e = fake_pmu_lookup(f, fd);
	int slot;

	f->closes++;
	if (!e) {
		f->bad_closes++;
		return -EBADF;
	}
	slot = (int)(e - f->ev);
	/* The kernel turns the members of a closed leader into groups of their own. */
	for (int i = 0; i < FAKE_PMU_MAX_EVENTS; i++)
		if (f->ev[i].used && i != slot && f->ev[i].leader == slot)
			f->ev[i].leader = i;
	e->used = false;
	e->on_counter = false;
	f->nopen--;
	return 0;
}

/* The CPUs in a list such as "0-3,6". */
static size_t fake_count_cpus(const char *list)
{
	size_t n = 0;
	const char *p = list;

	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		n += (size_t)(b - a + 1);
		p = *end == ',' ? end + 1 : end;
		if (*p == '\n')
			break;
	}
	return n ? n : 1;
}

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static int fake_mmap(void *ctx, int fd, size_t len, void **ret)
{
	struct fake_pmu *f = ctx;
	struct fake_pmu_event *e = fake_pmu_lookup(f, fd);
	size_t page = page_size(), data;
	struct perf_event_mmap_page *pg;

	f->mmaps++;
	if (!e)
		return -EBADF;
	if (e->ring)
		return -EBUSY;
	/* perf_mmap(): 1 + 2^n pages, or the control page alone (a counting event read
	 * with rdpmc); an inherited per-task event cannot be mapped. */
	if (len % page || len < page)
		return -EINVAL;
	data = len - page;
	if (data & (data - 1))
		return -EINVAL;
	if (e->attr.inherit && e->cpu == -1)
		return -EINVAL;
	if (f->cfg.mlock_kb) {
		/* perf_mmap(): the allowance is per user, mlock_kb times the online CPUs. */
		size_t ncpus = fake_count_cpus(f->cfg.online ? f->cfg.online : "0");
		uint64_t allowance = f->cfg.mlock_kb * ncpus, extra = 0;

		if (f->locked_kb + len / 1024 > allowance)
			extra = f->locked_kb + len / 1024 - allowance;
		/* Past RLIMIT_MEMLOCK only CAP_IPC_LOCK, or perf_event_paranoid -1, lets the
		 * ring be locked (perf_mmap(): perf_is_paranoid() && !capable(CAP_IPC_LOCK));
		 * CAP_PERFMON does not. */
		if (extra > f->cfg.memlock_kb && !f->cfg.ipc_lock && f->cfg.paranoid > -1)
			return -EPERM;
	}
	pg = aligned_alloc(page, len);
	if (!pg)
		return -ENOMEM;
	f->locked_kb += len / 1024;
	memset(pg, 0, len);
	pg->version = 0;
	pg->data_offset = page;
	pg->data_size = data;
	e->ring = pg;
	e->ring_len = len;
	fake_pmu_selfmon_write(f, e);
	*ret = pg;
	return 0;
}

static int fake_munmap(void *ctx, void *addr, size_t len)
{
	struct fake_pmu *f = ctx;

	f->munmaps++;
	for (int i = 0; i < FAKE_PMU_MAX_EVENTS; i++)
		if (f->ev[i].ring == addr && f->ev[i].ring_len == len) {
			f->locked_kb -= len / 1024;
			free(f->ev[i].ring);
			f->ev[i].ring = NULL;
			f->ev[i].ring_len = 0;
			return 0;
		}
	return -EINVAL;
}

static int fake_poll(void *ctx, struct pollfd *fds, unsigned nfds, int timeout_ms)
{
	struct fake_pmu *f = ctx;
	int n = 0;

	(void)timeout_ms;
	for (unsigned i = 0; i < nfds; i++) {
		struct fake_pmu_event *e = fake_pmu_lookup(f, fds[i].fd);

		fds[i].revents = 0;
		if (!e) {
			fds[i].revents = POLLNVAL;
		} else {
			struct perf_event_mmap_page *pg = e->ring;

			if (pg && pg->data_head != pg->data_tail)
				fds[i].revents |= POLLIN;
			if (f->hangup)
				fds[i].revents |= POLLHUP;
		}
		n += fds[i].revents != 0;
	}
	return n;
}

static int fake_online_cpus(void *ctx, char *buf, size_t len)
{
	struct fake_pmu *f = ctx;

	snprintf(buf, len, "%s\n", f->cfg.online ? f->cfg.online : "0");
	return 0;
}

void fake_pmu_hangup(struct fake_pmu *f)
{
	f->hangup = true;
}

static struct fake_pmu_event *ring_event(struct fake_pmu *f, int cpu)
{
	for (int i = 0; i < FAKE_PMU_MAX_EVENTS; i++)
		if (f->ev[i].used && f->ev[i].ring && f->ev[i].cpu == cpu)
			return &f->ev[i];
	return NULL;
}

struct perf_event_mmap_page *fake_pmu_ring(struct fake_pmu *f, int cpu)
{
	struct fake_pmu_event *e = ring_event(f, cpu);

	return e ? e->ring : NULL;
}

void fake_pmu_ring_seek(struct fake_pmu *f, int cpu, uint64_t pos)
{
	struct perf_event_mmap_page *pg = fake_pmu_ring(f, cpu);

	if (pg) {
		pg->data_tail = pos;
		pg->data_head = pos;
	}
}

/* Copies len bytes to the ring at position pos, wrapping at its end. */
static void ring_put(struct perf_event_mmap_page *pg, uint64_t pos, const void *src, size_t len)
{
	unsigned char *data = (unsigned char *)pg + pg->data_offset;
	const unsigned char *p = src;

	for (size_t i = 0; i < len; i++)
		data[(pos + i) & (pg->data_size - 1)] = p[i];
}

int fake_pmu_emit_raw(struct fake_pmu *f, int cpu, const void *bytes, size_t len)
{
	struct perf_event_mmap_page *pg = fake_pmu_ring(f, cpu);

	if (!pg)
		return -ENOENT;
	ring_put(pg, pg->data_head, bytes, len);
	__atomic_store_n(&pg->data_head, pg->data_head + len, __ATOMIC_RELEASE);
	return 0;
}

/* The sample_id_all trailer for the event's sample_type: {pid, tid}, time, {cpu, res}
 * (include/uapi/linux/perf_event.h, struct sample_id). Returns its size. */
static size_t put_sample_id(const struct fake_pmu_event *e, const struct fake_pmu_id *id,
			    unsigned char *out)
{
	uint64_t st = e->attr.sample_type;
	size_t n = 0;

	if (!e->attr.sample_id_all)
		return 0;
	if (st & PERF_SAMPLE_TID) {
		memcpy(out + n, &id->pid, 4);
		memcpy(out + n + 4, &id->tid, 4);
		n += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		memcpy(out + n, &id->time, 8);
		n += 8;
	}
	if (st & PERF_SAMPLE_CPU) {
		uint32_t c[2] = {(uint32_t)e->cpu, 0};

		memcpy(out + n, c, 8);
		n += 8;
	}
	return n;
}

int fake_pmu_emit(struct fake_pmu *f, int cpu, const void *rec, size_t size)
{
	struct fake_pmu_event *e = ring_event(f, cpu);
	struct perf_event_mmap_page *pg;
	unsigned char lost[128];
	size_t nlost = 0;
	uint64_t head, tail;

	if (!e)
		return -ENOENT;
	pg = e->ring;
	if (e->pending_lost) {
		struct perf_event_header h = {.type = PERF_RECORD_LOST, .misc = 0};
		const struct perf_event_header *rh = rec;
		struct fake_pmu_id id = {0};
		uint64_t body[2] = {e->id, e->pending_lost};

		/* The LOST record carries the id fields of the task writing the next record
		 * (the kernel fills them at output time): take them from that record, its
		 * trailer or, for a sample with IP, TID and TIME, its first fields. */
		if (rh->type != PERF_RECORD_SAMPLE && e->attr.sample_id_all && size >= 32) {
			const unsigned char *t = (const unsigned char *)rec + size - 24;

			memcpy(&id.pid, t, 4);
			memcpy(&id.tid, t + 4, 4);
			memcpy(&id.time, t + 8, 8);
		} else if (rh->type == PERF_RECORD_SAMPLE && size >= 32 &&
			   (e->attr.sample_type &
			    (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)) ==
			       (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)) {
			const unsigned char *b = (const unsigned char *)rec + sizeof(*rh);

			memcpy(&id.pid, b + 8, 4);
			memcpy(&id.tid, b + 12, 4);
			memcpy(&id.time, b + 16, 8);
		}
		nlost = sizeof(h) + sizeof(body);
		memcpy(lost + sizeof(h), body, sizeof(body));
		nlost += put_sample_id(e, &id, lost + nlost);
		h.size = (uint16_t)nlost;
		memcpy(lost, &h, sizeof(h));
	}
	head = pg->data_head;
	tail = __atomic_load_n(&pg->data_tail, __ATOMIC_ACQUIRE);
	if (pg->data_size - (head - tail) < size + nlost) {
		e->pending_lost++;
		return -ENOSPC;
	}
	if (nlost) {
		ring_put(pg, head, lost, nlost);
		head += nlost;
		e->pending_lost = 0;
	}
	ring_put(pg, head, rec, size);
	__atomic_store_n(&pg->data_head, head + size, __ATOMIC_RELEASE);
	return 0;
}

static void put(unsigned char *buf, size_t *n, const void *p, size_t len)
{
	memcpy(buf + *n, p, len);
	*n += len;
}

static int emit_built(struct fake_pmu *f, int cpu, uint32_t type, uint16_t misc, unsigned char *buf,
		      size_t n)
{
	struct perf_event_header h = {.type = type, .misc = misc, .size = (uint16_t)n};

	memcpy(buf, &h, sizeof(h));
	return fake_pmu_emit(f, cpu, buf, n);
}

int fake_pmu_sample(struct fake_pmu *f, int cpu, const struct fake_pmu_id *id, uint16_t misc,
		    uint64_t ip, uint64_t period, const uint64_t *chain, unsigned nchain)
{
	struct fake_pmu_event *e = ring_event(f, cpu);
	unsigned char buf[4096];
	size_t n = sizeof(struct perf_event_header);
	uint64_t st, nr = nchain;

	if (!e)
		return -ENOENT;
	if (nchain > 400)
		return -E2BIG;
	/* The order of PERF_RECORD_SAMPLE's fields (include/uapi/linux/perf_event.h). */
	st = e->attr.sample_type;
	if (st & PERF_SAMPLE_IP)
		put(buf, &n, &ip, 8);
	if (st & PERF_SAMPLE_TID) {
		put(buf, &n, &id->pid, 4);
		put(buf, &n, &id->tid, 4);
	}
	if (st & PERF_SAMPLE_TIME)
		put(buf, &n, &id->time, 8);
	if (st & PERF_SAMPLE_CPU) {
		uint32_t c[2] = {(uint32_t)cpu, 0};

		put(buf, &n, c, 8);
	}
	if (st & PERF_SAMPLE_PERIOD)
		put(buf, &n, &period, 8);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		put(buf, &n, &nr, 8);
		put(buf, &n, chain, 8 * (size_t)nchain);
	}
	return emit_built(f, cpu, PERF_RECORD_SAMPLE, misc, buf, n);
}

int fake_pmu_mmap2(struct fake_pmu *f, int cpu, const struct fake_pmu_id *id, uint64_t addr,
		   uint64_t len, uint64_t pgoff, const char *filename, const uint8_t *build_id,
		   unsigned build_id_size)
{
	struct fake_pmu_event *e = ring_event(f, cpu);
	unsigned char buf[4096], u[24] = {0};
	size_t n = sizeof(struct perf_event_header), flen = strlen(filename) + 1;
	uint32_t prot = 5 /* PROT_READ | PROT_EXEC */, flags = 2 /* MAP_PRIVATE */;
	uint16_t misc = PERF_RECORD_MISC_USER;

	if (!e)
		return -ENOENT;
	if (flen > 2048 || build_id_size > 20)
		return -E2BIG;
	put(buf, &n, &id->pid, 4);
	put(buf, &n, &id->tid, 4);
	put(buf, &n, &addr, 8);
	put(buf, &n, &len, 8);
	put(buf, &n, &pgoff, 8);
	if (build_id) {
		/* build_id_size, two reserved fields, build_id[20]. */
		u[0] = (uint8_t)build_id_size;
		memcpy(u + 4, build_id, build_id_size);
		misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	} else {
		uint32_t maj = 8, min = 1;
		uint64_t ino = 1234, gen = 7;

		memcpy(u, &maj, 4);
		memcpy(u + 4, &min, 4);
		memcpy(u + 8, &ino, 8);
		memcpy(u + 16, &gen, 8);
	}
	put(buf, &n, u, sizeof(u));
	put(buf, &n, &prot, 4);
	put(buf, &n, &flags, 4);
	put(buf, &n, filename, flen);
	while (n % 8)
		buf[n++] = 0;
	n += put_sample_id(e, id, buf + n);
	return emit_built(f, cpu, PERF_RECORD_MMAP2, misc, buf, n);
}

int fake_pmu_comm(struct fake_pmu *f, int cpu, const struct fake_pmu_id *id, const char *comm,
		  bool exec)
{
	struct fake_pmu_event *e = ring_event(f, cpu);
	unsigned char buf[256];
	size_t n = sizeof(struct perf_event_header), clen = strlen(comm) + 1;

	if (!e)
		return -ENOENT;
	if (clen > 16)
		return -E2BIG;
	put(buf, &n, &id->pid, 4);
	put(buf, &n, &id->tid, 4);
	put(buf, &n, comm, clen);
	while (n % 8)
		buf[n++] = 0;
	n += put_sample_id(e, id, buf + n);
	return emit_built(f, cpu, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0, buf, n);
}

int fake_pmu_task(struct fake_pmu *f, int cpu, uint32_t type, const struct fake_pmu_id *id,
		  uint32_t ppid, uint32_t ptid)
{
	struct fake_pmu_event *e = ring_event(f, cpu);
	unsigned char buf[128];
	size_t n = sizeof(struct perf_event_header);

	if (!e)
		return -ENOENT;
	/* struct { pid, ppid, tid, ptid; time } (PERF_RECORD_FORK and _EXIT). */
	put(buf, &n, &id->pid, 4);
	put(buf, &n, &ppid, 4);
	put(buf, &n, &id->tid, 4);
	put(buf, &n, &ptid, 4);
	put(buf, &n, &id->time, 8);
	n += put_sample_id(e, id, buf + n);
	return emit_built(f, cpu, type, 0, buf, n);
}

int fake_pmu_throttle(struct fake_pmu *f, int cpu, const struct fake_pmu_id *id, bool unthrottle)
{
	struct fake_pmu_event *e = ring_event(f, cpu);
	unsigned char buf[128];
	size_t n = sizeof(struct perf_event_header);

	if (!e)
		return -ENOENT;
	/* struct { time, id, stream_id } (PERF_RECORD_THROTTLE and _UNTHROTTLE). */
	put(buf, &n, &id->time, 8);
	put(buf, &n, &e->id, 8);
	put(buf, &n, &e->id, 8);
	n += put_sample_id(e, id, buf + n);
	return emit_built(f, cpu, unthrottle ? PERF_RECORD_UNTHROTTLE : PERF_RECORD_THROTTLE, 0,
			  buf, n);
}

void fake_pmu_init(struct fake_pmu *f, const struct fake_pmu_config *cfg)
{
	memset(f, 0, sizeof(*f));
	f->cfg = *cfg;
	f->sys.event_open = fake_event_open;
	f->sys.ioctl = fake_ioctl;
	f->sys.read = fake_read;
	f->sys.close = fake_close;
	f->sys.ctx = f;
	f->sys.mmap = fake_mmap;
	f->sys.munmap = fake_munmap;
	f->sys.poll = fake_poll;
	f->sys.online_cpus = fake_online_cpus;
	fake_pmu_selfmon_init(f);
}

void fake_pmu_exec(struct fake_pmu *f)
{
	for (int i = 0; i < FAKE_PMU_MAX_EVENTS; i++)
		if (f->ev[i].used && f->ev[i].attr.enable_on_exec)
			f->ev[i].enabled = true;
}

static bool leader_runs_at_all(const struct fake_pmu *f, int slot)
{
	return f->ev[slot].used && f->ev[slot].leader == slot && f->ev[slot].enabled &&
	       !f->ev[slot].error_state;
}

static bool is_pinned(const struct fake_pmu *f, int slot)
{
	return f->ev[slot].attr.pinned || f->cfg.pinned;
}

static uint64_t event_rate(const struct fake_pmu *f, const struct fake_pmu_event *e)
{
	if (f->cfg.ncores && e->core >= 0)
		return fake_pmu_core_rate(f, (unsigned)e->core, e->attr.config);
	return fake_pmu_rate(e->attr.type, e->attr.config);
}

/* What an event's exclude bits leave of a quantum's counts. The scheduler's software
 * events are recorded with kernel-mode registers (include/linux/perf_event.h,
 * __perf_sw_event_sched()), and perf_exclude_event() (kernel/events/core.c) drops them
 * all under exclude_kernel. Faults carry the faulting context's registers: the task's are
 * taken as user-mode ones here. The clocks count time, which no exclude bit filters. */
static bool counts_excluded(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE && a->exclude_kernel &&
	       (a->config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
		a->config == PERF_COUNT_SW_CPU_MIGRATIONS || a->config == 11 /* cgroup-switches */);
}

static void run_group(struct fake_pmu *f, int leader, bool running)
{
	for (int i = 0; i < FAKE_PMU_MAX_EVENTS; i++) {
		struct fake_pmu_event *e = &f->ev[i];

		if (!e->used || e->leader != leader)
			continue;
		/* A member counts only while it and its leader are enabled. */
		if (!e->enabled || !f->ev[leader].enabled)
			continue;
		e->time_enabled += FAKE_PMU_QUANTUM_NS;
		if (running) {
			e->time_running += FAKE_PMU_QUANTUM_NS;
			if (!counts_excluded(&e->attr))
				e->value += event_rate(f, e);
		}
	}
}

/* Schedules the groups of one core PMU (its CPU runs the task) onto its counters. */
static void schedule_core(struct fake_pmu *f, int core, const int *order, int n, bool *scheduled)
{
	unsigned free_counters = core_counters(f, core);
	/* The watchdog's pinned cycles event holds the fixed cycles counter. */
	struct fixed_free fx = {f->cfg.fixed_counters,
				f->cfg.fixed_counters && !f->cfg.nmi_watchdog};
	int flex[FAKE_PMU_MAX_EVENTS], nf = 0;

	/* Pinned groups first; one that does not fit goes into an error state. */
	for (int k = 0; k < n; k++) {
		struct fixed_free after = fx;
		unsigned need;

		if (group_counters(f, order[k]) == 0 || group_core(f, order[k]) != core ||
		    !is_pinned(f, order[k]))
			continue;
		need = group_need(f, order[k], NULL, &after);
		if (need <= free_counters) {
			free_counters -= need;
			fx = after;
			scheduled[order[k]] = true;
		} else {
			f->ev[order[k]].error_state = true;
		}
	}
	/* Flexible groups in rotated order until one does not fit. */
	for (int k = 0; k < n; k++)
		if (group_counters(f, order[k]) > 0 && group_core(f, order[k]) == core &&
		    !is_pinned(f, order[k]))
			flex[nf++] = order[k];
	for (int k = 0; k < nf; k++) {
		int g = flex[(k + (int)(f->rotation % (unsigned)nf)) % nf];
		struct fixed_free after = fx;
		unsigned need = group_need(f, g, NULL, &after);

		if (need > free_counters)
			break;
		free_counters -= need;
		fx = after;
		scheduled[g] = true;
	}
}

/* Schedules the groups onto the PMU of the task's CPU: the leaders in creation order
 * into order[*n], those that run into scheduled[]; their counters and pages follow. */
static void schedule(struct fake_pmu *f, int *order, int *n, bool *scheduled)
{
	*n = 0;
	/* Leaders in creation order. */
	for (unsigned seq = 0; seq < f->next_seq; seq++)
		for (int i = 0; i < FAKE_PMU_MAX_EVENTS; i++)
			if (leader_runs_at_all(f, i) && f->ev[i].seq == seq)
				order[(*n)++] = i;
	/* Software-only groups always run. */
	for (int k = 0; k < *n; k++)
		if (group_counters(f, order[k]) == 0)
			scheduled[order[k]] = true;
	/* Only the PMU of the task's CPU schedules; the groups of the others stay enabled
	 * but do not run (the kernel's event filter). */
	for (unsigned c = 0; c < ncores(f); c++)
		if (core_owns(f, (int)c, f->cpu))
			schedule_core(f, (int)c, order, *n, scheduled);
	fake_pmu_selfmon_sched(f, scheduled);
}

static void tick_once(struct fake_pmu *f)
{
	int order[FAKE_PMU_MAX_EVENTS], n = 0;
	bool scheduled[FAKE_PMU_MAX_EVENTS] = {false};

	schedule(f, order, &n, scheduled);
	for (int k = 0; k < n; k++)
		if (!f->ev[order[k]].error_state)
			run_group(f, order[k], scheduled[order[k]]);
	fake_pmu_selfmon_ran(f);
	f->rotation++;
}

void fake_pmu_run_on(struct fake_pmu *f, int cpu)
{
	int order[FAKE_PMU_MAX_EVENTS], n;
	bool scheduled[FAKE_PMU_MAX_EVENTS] = {false};
	bool moved = f->cpu != cpu;

	f->cpu = cpu;
	/* A migration is a sched-out on the old CPU and a sched-in on the new one, before
	 * the task runs there: on a hybrid CPU the old type's events leave their counters
	 * (x86_pmu_del() writes the page, index 0) and the new type's take theirs. */
	if (moved && f->cfg.ncores)
		schedule(f, order, &n, scheduled);
}

void fake_pmu_tick_on(struct fake_pmu *f, int cpu, unsigned n)
{
	fake_pmu_run_on(f, cpu);
	fake_pmu_tick(f, n);
}

void fake_pmu_tick(struct fake_pmu *f, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		tick_once(f);
}

static int put_file(const char *root, const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *fp;

	if (snprintf(path, sizeof(path), "%s/%s", root, rel) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	/* Parent directories first. */
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	fp = fopen(path, "w");
	if (!fp)
		return -errno;
	fputs(text, fp);
	return fclose(fp) == 0 ? 0 : -EIO;
}

/* "0-3,8" for a CPU mask. */
static void cpu_list(uint64_t mask, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int c = 0; c < 64 && o < len; c++) {
		int e = c;

		if (!(mask >> c & 1))
			continue;
		while (e + 1 < 64 && (mask >> (e + 1) & 1))
			e++;
		o += (size_t)(e > c ? snprintf(buf + o, len - o, "%s%d-%d", o ? "," : "", c, e)
				    : snprintf(buf + o, len - o, "%s%d", o ? "," : "", c));
		c = e;
	}
	if (o < len)
		snprintf(buf + o, len - o, "\n");
}

static int put_core(const char *root, const char *name, uint32_t type, const char *cpus)
{
	static const char *const files[][2] = {
	    {"events/cycles", "event=0x3c\n"},
	    {"events/instructions", "event=0xc0\n"},
	    {"format/event", "config:0-7\n"},
	    {"format/umask", "config:8-15\n"},
	};
	char rel[256], text[64];
	int r;

	snprintf(rel, sizeof(rel), "%s/type", name);
	snprintf(text, sizeof(text), "%u\n", type);
	r = put_file(root, rel, text);
	if (r == 0 && cpus) {
		snprintf(rel, sizeof(rel), "%s/cpus", name);
		r = put_file(root, rel, cpus);
	}
	for (size_t i = 0; r == 0 && i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(rel, sizeof(rel), "%s/%s", name, files[i][0]);
		r = put_file(root, rel, files[i][1]);
	}
	return r;
}

int fake_pmu_sysfs(const struct fake_pmu_config *cfg, char *root)
{
	const char *tmp = getenv("TMPDIR");
	char text[256];
	int r;

	snprintf(root, PATH_MAX, "%s/pmc-fake-sysfs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root))
		return -errno;
	r = put_file(root, "software/type", "1\n");
	for (unsigned k = 0; r == 0 && k < cfg->ncores; k++) {
		cpu_list(cfg->cores[k].cpus, text, sizeof(text));
		r = put_core(root, cfg->cores[k].name, cfg->cores[k].type, text);
	}
	if (r == 0 && cfg->ncores == 0)
		r = put_core(root, "cpu", PERF_TYPE_RAW, NULL);
	if (r == 0 && cfg->msr_type) {
		snprintf(text, sizeof(text), "%u\n", cfg->msr_type);
		r = put_file(root, "msr/type", text);
		if (r == 0)
			r = put_file(root, "msr/events/tsc", "event=0x00\n");
		if (r == 0)
			r = put_file(root, "msr/format/event", "config:0-63\n");
	}
	if (r == 0 && cfg->power_type) {
		static const char *const files[][2] = {
		    {"power/events/energy-cores", "event=0x01\n"},
		    {"power/events/energy-cores.scale", "2.3283064365386962890625e-10\n"},
		    {"power/events/energy-cores.unit", "Joules\n"},
		    {"power/events/energy-pkg", "event=0x02\n"},
		    {"power/events/energy-pkg.scale", "2.3283064365386962890625e-10\n"},
		    {"power/events/energy-pkg.unit", "Joules\n"},
		    {"power/format/event", "config:0-7\n"},
		};

		snprintf(text, sizeof(text), "%u\n", cfg->power_type);
		r = put_file(root, "power/type", text);
		snprintf(text, sizeof(text), "%s\n", cfg->power_cpumask ? cfg->power_cpumask : "0");
		if (r == 0)
			r = put_file(root, "power/cpumask", text);
		for (size_t i = 0; r == 0 && i < sizeof(files) / sizeof(files[0]); i++)
			r = put_file(root, files[i][0], files[i][1]);
	}
	if (r < 0)
		fake_pmu_sysfs_remove(root);
	return r;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void fake_pmu_sysfs_remove(const char *root)
{
	/* Only what fake_pmu_sysfs() made: a directory under the temporary one. */
	if (root && strstr(root, "/pmc-fake-sysfs-"))
		nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

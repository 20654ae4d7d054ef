/* The emulated PMU described in fake_pmu.h. */
#include <errno.h>
#include <string.h>

#include "tests/fake_pmu.h"

#define READ_FORMAT                                                                                \
	(PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |                     \
	 PERF_FORMAT_TOTAL_TIME_RUNNING)

uint64_t fake_pmu_rate(uint32_t type, uint64_t config)
{
	return 1000 * ((uint64_t)type + 1) + config % 997 + (config >> 16) * 10;
}

static bool needs_counter(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ||
	       a->type == PERF_TYPE_RAW;
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

/* Hardware counters the group led by slot `leader` needs. */
static unsigned group_counters(const struct fake_pmu *f, int leader)
{
	unsigned n = 0;

	for (int i = 0; i < FAKE_PMU_MAX_EVENTS; i++)
		if (f->ev[i].used && f->ev[i].leader == leader && needs_counter(&f->ev[i].attr))
			n++;
	return n;
}

static int check_open(struct fake_pmu *f, const struct perf_event_attr *a, pid_t pid, int cpu,
		      int group_fd)
{
	const struct fake_pmu_config *cfg = &f->cfg;
	struct fake_pmu_event *leader = NULL;

	if (a->size != sizeof(*a))
		return -E2BIG;
	/* Debian's perf_event_paranoid=3 refuses the syscall to unprivileged users; >= 2
	 * refuses kernel-space counting (kernel/events/core.c, perf_allow_kernel()). */
	if (!cfg->privileged && cfg->paranoid >= 3)
		return -EACCES;
	if (!cfg->privileged && cfg->paranoid >= 2 && !a->exclude_kernel)
		return -EACCES;
	if (!cfg->privileged && cfg->paranoid >= 1 && pid == -1)
		return -EACCES;
	if (cfg->max_fds > 0 && f->nopen >= cfg->max_fds)
		return -EMFILE;
	if (group_fd != -1) {
		leader = fake_pmu_lookup(f, group_fd);
		if (!leader)
			return -EBADF;
		if (leader->leader != group_fd - FAKE_PMU_FD_BASE)
			return -EINVAL;
	}
	switch (a->type) {
	case PERF_TYPE_SOFTWARE:
		if (a->config >= PERF_COUNT_SW_MAX)
			return -ENOENT;
		break;
	case PERF_TYPE_HARDWARE:
		if (cfg->no_pmu)
			return -ENOENT;
		if (a->config >= PERF_COUNT_HW_MAX)
			return -EINVAL;
		if (a->config < 32 && (cfg->enoent_hw_mask >> a->config & 1))
			return -ENOENT;
		break;
	case PERF_TYPE_HW_CACHE:
		if (cfg->no_pmu)
			return -ENOENT;
		if ((a->config & 0xff) >= PERF_COUNT_HW_CACHE_MAX ||
		    (a->config >> 8 & 0xff) >= PERF_COUNT_HW_CACHE_OP_MAX ||
		    (a->config >> 16 & 0xff) >= PERF_COUNT_HW_CACHE_RESULT_MAX)
			return -EINVAL;
		break;
	case PERF_TYPE_RAW:
		if (cfg->no_pmu)
			return -ENOENT;
		break;
	default:
		if (!cfg->msr_type || a->type != cfg->msr_type)
			return -ENOENT;
		if (a->exclude_user || a->exclude_kernel || a->exclude_hv)
			return -EINVAL;
		break;
	}
	if (leader && needs_counter(a)) {
		if (cfg->einval_member && a->config == cfg->einval_member_config)
			return -EINVAL;
		/* x86 validate_group(): a group that could never be scheduled is refused. */
		if (group_counters(f, group_fd - FAKE_PMU_FD_BASE) + 1 > cfg->counters)
			return -EINVAL;
	}
	return 0;
}

static int fake_event_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
			   int group_fd, unsigned long flags)
{
	struct fake_pmu *f = ctx;
	struct fake_pmu_event *e = NULL;
	int r, slot = -1;

	r = check_open(f, attr, pid, cpu, group_fd);
	if (r == 0) {
		for (slot = 0; slot < FAKE_PMU_MAX_EVENTS && f->ev[slot].used; slot++)
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
		f->nopen++;
		r = FAKE_PMU_FD_BASE + slot;
	}
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

static void do_reset(struct fake_pmu_event *e)
{
	e->value = 0;
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
		return 0;
	case PERF_EVENT_IOC_DISABLE:
		for_group(f, (int)(e - f->ev), group, do_disable);
		return 0;
	case PERF_EVENT_IOC_RESET:
		for_group(f, (int)(e - f->ev), group, do_reset);
		return 0;
	case PERF_EVENT_IOC_ID:
		*(uint64_t *)arg = e->id;
		return 0;
	default:
		return -ENOTTY;
	}
}

static ssize_t fake_read(void *ctx, int fd, void *buf, size_t len)
{
	struct fake_pmu *f = ctx;
	struct fake_pmu_event *e = fake_pmu_lookup(f, fd), *members[FAKE_PMU_MAX_EVENTS];
	int slot, nr = 0;
	uint64_t *out = buf;

	f->reads++;
	if (!e)
		return -EBADF;
	if (f->cfg.read_error)
		return -f->cfg.read_error;
	slot = (int)(e - f->ev);
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
	for (int k = 0; k < nr; k++) {
		const struct fake_pmu_event *m = members[f->cfg.reverse_ids ? nr - 1 - k : k];

		out[3 + 2 * k] = m->value;
		out[4 + 2 * k] = m->id;
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
	f->nopen--;
	return 0;
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
			e->value += fake_pmu_rate(e->attr.type, e->attr.config);
		}
	}
}

static void tick_once(struct fake_pmu *f)
{
	int order[FAKE_PMU_MAX_EVENTS], n = 0;
	unsigned free_counters = f->cfg.counters;
	bool scheduled[FAKE_PMU_MAX_EVENTS] = {false};

	/* Leaders in creation order. */
	for (unsigned seq = 0; seq < f->next_seq; seq++)
		for (int i = 0; i < FAKE_PMU_MAX_EVENTS; i++)
			if (leader_runs_at_all(f, i) && f->ev[i].seq == seq)
				order[n++] = i;
	/* Software-only groups always run. */
	for (int k = 0; k < n; k++)
		if (group_counters(f, order[k]) == 0)
			scheduled[order[k]] = true;
	/* Pinned groups first; one that does not fit goes into an error state. */
	for (int k = 0; k < n; k++) {
		unsigned need = group_counters(f, order[k]);

		if (need == 0 || !is_pinned(f, order[k]))
			continue;
		if (need <= free_counters) {
			free_counters -= need;
			scheduled[order[k]] = true;
		} else {
			f->ev[order[k]].error_state = true;
		}
	}
	/* Flexible groups in rotated order until one does not fit. */
	{
		int flex[FAKE_PMU_MAX_EVENTS], nf = 0;

		for (int k = 0; k < n; k++)
			if (group_counters(f, order[k]) > 0 && !is_pinned(f, order[k]))
				flex[nf++] = order[k];
		for (int k = 0; k < nf; k++) {
			int g = flex[(k + (int)(f->rotation % (unsigned)nf)) % nf];
			unsigned need = group_counters(f, g);

			if (need > free_counters)
				break;
			free_counters -= need;
			scheduled[g] = true;
		}
	}
	for (int k = 0; k < n; k++)
		if (!f->ev[order[k]].error_state)
			run_group(f, order[k], scheduled[order[k]]);
	f->rotation++;
}

void fake_pmu_tick(struct fake_pmu *f, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		tick_once(f);
}

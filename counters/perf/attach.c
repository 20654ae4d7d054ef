/* Attached counting (attach.h): one counter engine per thread of the processes attached
 * (pid = the thread, cpu -1, inherit, so that threads and children it starts later are
 * counted into its events: perf_event_open(2), "inherit"), or per online CPU (pid -1, cpu
 * k, no inherit: a CPU's context has no children); every read is a window, the parts'
 * differences scaled each by its own running fraction and summed, as perf stat
 * aggregates threads and CPUs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/grow.h"
#include "counters/perf/attach.h"
#include "counters/perf/counters.h"
#include "counters/perf/threads.h"

/* The raw figures of one event of one part at the last read. */
struct raw {
	uint64_t value, enabled, running;
};

struct pmc_attach {
	const struct pmc_event_list *events;
	struct pmc_counters **parts;
	size_t nparts, cap;
	/* Every thread tried, attached or gone (ESRCH: it exited, or is a zombie leader that
	 * /proc still lists), so that listing again never tries one twice. */
	pid_t *seen;
	size_t nseen, seen_cap;
	struct raw *prev;	/* nparts x events->n */
	struct pmc_reading *rd; /* one part's reading */
	bool system_wide;
};

size_t pmc_attach_parts(const struct pmc_attach *a)
{
	return a ? a->nparts : 0;
}

static int add_part(struct pmc_attach *a, const struct pmc_attach_opts *o, pid_t pid, int cpu)
{
	/* Uncore and RAPL events count CPUs whoever runs: opened once, with the first part. */
	enum pmc_counters_scope scope = a->nparts ? PMC_SCOPE_TASK : PMC_SCOPE_ALL;
	/* PMC_OPTS zeroes the padding too, which PMC_OPTS_VALID checks (an initializer
	 * leaves it unspecified: clang's sanitized build left it not zero). */
	PMC_OPTS(pmc_counters_opts, co, .pid = pid, .on_cpu = cpu >= 0, .cpu = cpu,
		 .inherit = pid > 0, .start_disabled = true,
		 .user_only_fallback = o->user_only_fallback);
	struct pmc_counters *c;
	int r;

	if (pmc_grow_to(&a->parts, &a->cap, a->nparts + 1, sizeof(*a->parts)) < 0)
		return -ENOMEM;
	if (!a->system_wide) {
		if (pmc_grow_to(&a->seen, &a->seen_cap, a->nseen + 1, sizeof(*a->seen)) < 0)
			return -ENOMEM;
		a->seen[a->nseen++] = pid;
	}
	r = pmc_counters_open_scope(a->events, &co, o->sys, scope, &c);
	if (r < 0)
		return r;
	a->parts[a->nparts++] = c;
	return 0;
}

/* perf_event_paranoid under proc_root, or -100 when it cannot be read. */
static int paranoid(const char *proc_root)
{
	char path[512];
	int level = -100;
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/kernel/perf_event_paranoid",
		 proc_root ? proc_root : "/proc");
	if ((f = fopen(path, "r"))) {
		if (fscanf(f, "%d", &level) != 1)
			level = -100;
		fclose(f);
	}
	return level;
}

/* Whether the first part opened no event at all because the kernel refused it: then the
 * target, not an event, is what is denied. */
static bool all_denied(const struct pmc_counters *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		enum pmc_status st;

		pmc_counters_open_status(c, i, &st, NULL);
		if (st != PMC_STATUS_DENIED)
			return false;
	}
	return n > 0;
}

static int open_cpu(int cpu, void *ud)
{
	void **p = ud;

	return add_part(p[0], p[1], -1, cpu);
}

static int attach_cpus(struct pmc_attach *a, const struct pmc_attach_opts *o, char *err,
		       size_t errlen)
{
	const struct pmc_sys *sys = o->sys ? o->sys : pmc_sys_kernel();
	void *ud[2] = {a, (void *)o};
	char online[4096];
	int r, level;

	if (!sys->online_cpus || (r = sys->online_cpus(sys->ctx, online, sizeof(online))) < 0) {
		pmc_err_set(err, errlen, "-a: cannot read the online CPUs");
		return -EINVAL;
	}
	online[strcspn(online, "\n")] = '\0';
	r = pmc_cpu_list_each(online, open_cpu, ud);
	if (r < 0)
		return r;
	if (a->nparts && all_denied(a->parts[0], a->events->n)) {
		level = paranoid(o->proc_root);
		if (level > -100)
			pmc_err_set(err, errlen,
				    "-a counts every CPU: that needs root or CAP_PERFMON, or "
				    "kernel.perf_event_paranoid <= 0 (it is %d: sysctl -w "
				    "kernel.perf_event_paranoid=0)",
				    level);
		else
			pmc_err_set(err, errlen,
				    "-a counts every CPU: that needs root or CAP_PERFMON");
		return -EACCES;
	}
	return 0;
}

/* Every thread of pid: listed again until a listing finds none new (a thread started
 * meanwhile by one not yet attached; those started by an attached one are inherited).
 * A thread gone since it was listed is no error. */
static int attach_process(struct pmc_attach *a, const struct pmc_attach_opts *o, pid_t pid,
			  char *err, size_t errlen)
{
	size_t first = a->nparts, seen = a->nseen;
	int n, r = 0;

	for (;;) {
		pid_t *tids = NULL;

		/* a->seen is NULL until a thread is seen: no pointer arithmetic on it then. */
		n = pmc_proc_new_threads(o->proc_root, pid, a->seen ? a->seen + seen : NULL,
					 a->nseen - seen, &tids);
		if (n == -ESRCH || (n == 0 && a->nparts == first)) {
			pmc_err_set(err, errlen, "-p %d: no such process", (int)pid);
			return -ESRCH;
		}
		if (n < 0) {
			pmc_err_set(err, errlen, "-p %d: cannot list its threads: %s", (int)pid,
				    strerror(-n));
			return n;
		}
		if (n == 0)
			return 0;
		for (int i = 0; i < n && r == 0; i++) {
			r = add_part(a, o, tids[i], -1);
			if (r == -ESRCH)
				r = 0;
			else if (r == 0 && all_denied(a->parts[a->nparts - 1], a->events->n)) {
				pmc_err_set(
				    err, errlen,
				    "-p %d: the kernel refuses to count it (permission "
				    "denied): counting another user's process needs root "
				    "or CAP_PERFMON (perf_event_open's ptrace access check)",
				    (int)pid);
				r = -EACCES;
			}
		}
		free(tids);
		if (r < 0)
			return r;
	}
}

int pmc_attach_open(const struct pmc_event_list *events, const struct pmc_attach_opts *o,
		    struct pmc_attach **ret, char *err, size_t errlen)
{
	struct pmc_attach *a;
	int r = 0;

	if (!events || !o || !ret || (!o->system_wide && !o->npids) ||
	    (o->system_wide && o->npids)) {
		pmc_err_set(err, errlen, "attach: give processes or every CPU, one of them");
		return -EINVAL;
	}
	if (!(a = calloc(1, sizeof(*a))))
		return -ENOMEM;
	a->events = events;
	a->system_wide = o->system_wide;
	if (o->system_wide)
		r = attach_cpus(a, o, err, errlen);
	for (size_t i = 0; r == 0 && i < o->npids; i++) {
		if (o->pids[i] <= 0) {
			pmc_err_set(err, errlen, "-p %d: not a process id", (int)o->pids[i]);
			r = -EINVAL;
		} else {
			r = attach_process(a, o, o->pids[i], err, errlen);
		}
	}
	if (r == 0) {
		a->prev = calloc(a->nparts * events->n + 1, sizeof(*a->prev));
		a->rd = calloc(events->n + 1, sizeof(*a->rd));
		if (!a->prev || !a->rd)
			r = -ENOMEM;
	}
	if (r < 0) {
		if (r == -ENOMEM)
			pmc_err_set(err, errlen, "out of memory");
		else if (r == -EMFILE || r == -ENFILE)
			pmc_err_set(err, errlen,
				    "out of file descriptors: attaching takes a set of counters "
				    "per thread or CPU; raise 'ulimit -n' or count fewer events");
		else if (!err[0])
			pmc_err_set(err, errlen, "attaching the counters: %s", strerror(-r));
		pmc_attach_close(a);
		return r;
	}
	*ret = a;
	return 0;
}

static int each_part(struct pmc_attach *a, int (*fn)(struct pmc_counters *))
{
	for (size_t k = 0; k < a->nparts; k++) {
		int r = fn(a->parts[k]);

		if (r < 0)
			return r;
	}
	return 0;
}

int pmc_attach_enable(struct pmc_attach *a)
{
	return a ? each_part(a, pmc_counters_enable) : -EINVAL;
}

int pmc_attach_disable(struct pmc_attach *a)
{
	return a ? each_part(a, pmc_counters_disable) : -EINVAL;
}

/* What one window adds up to for one event, part by part. */
struct sum {
	uint64_t value, enabled, running;
	double scaled;
	bool any_open, any_scaled, unknown, user_only;
	enum pmc_status fail; /* the first part's, when none opened */
	int error;
};

static void add_window(struct sum *s, const struct pmc_reading *now, struct raw *prev)
{
	uint64_t dv = now->value - prev->value, de = now->enabled - prev->enabled,
		 dr = now->running - prev->running;

	*prev = (struct raw){now->value, now->enabled, now->running};
	s->any_open = true;
	s->user_only = s->user_only || now->user_only;
	s->value += dv;
	s->enabled += de;
	s->running += dr;
	if (dr == 0) {
		/* Enabled but never on the PMU: its share is unknown. No time at all: its
		 * task did not run in the window, so nothing happened in it. */
		s->unknown = s->unknown || de > 0;
		return;
	}
	s->any_scaled = s->any_scaled || dr < de;
	s->scaled += dr < de ? pmc_reading_scale(dv, de, dr) : (double)dv;
}

static void finish(const struct sum *s, struct pmc_reading *out)
{
	memset(out, 0, sizeof(*out));
	out->user_only = s->user_only;
	if (!s->any_open) {
		out->status = s->fail;
		out->error = s->error;
		out->scaled = NAN;
		return;
	}
	out->value = s->value;
	out->enabled = s->enabled;
	out->running = s->running;
	if (s->unknown) {
		out->status = PMC_STATUS_NOT_COUNTED;
		out->scaled = NAN;
		return;
	}
	out->status = s->any_scaled ? PMC_STATUS_SCALED : PMC_STATUS_COUNTED;
	out->scaled = s->scaled;
}

int pmc_attach_read(struct pmc_attach *a, struct pmc_reading *out)
{
	size_t n;
	struct sum *sums;
	int r = 0;

	if (!a)
		return -EINVAL;
	n = a->events->n;
	if (!(sums = calloc(n + 1, sizeof(*sums))))
		return -ENOMEM;
	for (size_t k = 0; k < a->nparts && r == 0; k++) {
		r = pmc_counters_read(a->parts[k], a->rd, sizeof(*a->rd));
		for (size_t i = 0; r == 0 && i < n; i++) {
			enum pmc_status st;
			int e;

			/* A system-wide event is opened with the first part only. */
			if (k > 0 && a->events->events[i].system_wide)
				continue;
			pmc_counters_open_status(a->parts[k], i, &st, &e);
			if (st != PMC_STATUS_COUNTED) {
				if (!sums[i].fail && !sums[i].error) {
					sums[i].fail = st;
					sums[i].error = e;
				}
				continue;
			}
			add_window(&sums[i], &a->rd[i], &a->prev[k * n + i]);
		}
	}
	for (size_t i = 0; r == 0 && out && i < n; i++)
		finish(&sums[i], &out[i]);
	free(sums);
	return r;
}

void pmc_attach_close(struct pmc_attach *a)
{
	if (!a)
		return;
	for (size_t k = 0; k < a->nparts; k++)
		pmc_counters_close(a->parts[k]);
	free(a->parts);
	free(a->seen);
	free(a->prev);
	free(a->rd);
	free(a);
}

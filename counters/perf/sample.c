/* Sampling with perf_event_open (counters/perf/sample.h, docs/profile.md "Sampling"). The
 * record layouts and the ring protocol are the kernel's: include/uapi/linux/perf_event.h
 * (struct perf_event_mmap_page, enum perf_event_type) and perf_event_open(2). */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "counters/perf/sample.h"
#include "counters/perf/sample_priv.h"
#include "counters/perf/threads.h"
#include "base/grow.h"
#include "counters/perf/events.h"
#include "base/error.h"
#include "counters/perf/tracefs.h"

/* What every record ends with (sample_id_all) and a sample starts with, for the
 * sample_type below: {pid, tid}, time, {cpu, res}. */
#define SAMPLE_TYPE_BASE                                                                           \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
#define DEFAULT_PAGES 256

/* The user registers a DWARF call graph's sample carries: perf's set for unwinding
 * (tools/perf/arch/x86/include/perf_regs.h, PERF_REGS_MASK), every general register up to
 * r15 but the segment registers ds, es, fs and gs, which the kernel refuses on x86-64
 * (arch/x86/kernel/perf_regs.c, REG_NOSUPPORT). The unwinder needs ip, sp and the
 * callee-saved ones (bx, bp, r12-r15); the CFI may name any. */
#if defined(__x86_64__)
#include <asm/perf_regs.h>
#define DWARF_REGS_MASK                                                                            \
	(((1ULL << PERF_REG_X86_64_MAX) - 1) &                                                     \
	 ~((1ULL << PERF_REG_X86_DS) | (1ULL << PERF_REG_X86_ES) | (1ULL << PERF_REG_X86_FS) |     \
	   (1ULL << PERF_REG_X86_GS)))
#elif defined(__aarch64__)
/* arm64: x0-x30, sp and pc (tools/perf/arch/arm64/include/perf_regs.h, PERF_REGS_MASK). */
#include <asm/perf_regs.h>
#define DWARF_REGS_MASK ((1ULL << PERF_REG_ARM64_MAX) - 1)
#else
#define DWARF_REGS_MASK 0ULL
#endif

struct cpus {
	int *v;
	size_t n;
};

static int add_cpu(int cpu, void *ud)
{
	struct cpus *c = ud;

	if (pmc_grow(&c->v, c->n, sizeof(*c->v)) < 0)
		return -ENOMEM;
	c->v[c->n++] = cpu;
	return 0;
}

/* The kernel's CPU list ("0-3,6\n", Documentation/ABI cpu/online) as a new array, read
 * as every CPU list is (pmc_cpu_list_each). */
static int parse_cpus(char *text, int **ret, size_t *ret_n)
{
	struct cpus c = {0};
	int r;

	text[strcspn(text, "\n")] = '\0';
	r = pmc_cpu_list_each(text, add_cpu, &c);
	if (r < 0) {
		free(c.v);
		return r;
	}
	*ret = c.v;
	*ret_n = c.n;
	return 0;
}

/* A number from /proc/sys/kernel/NAME under proc_root; 0 when it cannot be read. */
static uint64_t read_sysctl(const char *proc_root, const char *name)
{
	char path[512];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/kernel/%s", proc_root ? proc_root : "/proc", name);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/* perf record's default ring: what perf_event_mlock_kb (the per-CPU allowance the kernel
 * gives every user before RLIMIT_MEMLOCK counts) holds besides the control page, in a
 * power of two of pages; 516 KiB when unreadable, at most DEFAULT_PAGES. */
static unsigned default_pages(const char *proc_root, size_t page)
{
	uint64_t kb = read_sysctl(proc_root, "perf_event_mlock_kb");
	uint64_t pages;
	unsigned p = 1;

	if (kb == 0)
		kb = 516;
	pages = kb * 1024 > page ? (kb * 1024 - page) / page : 1;
	while ((uint64_t)p * 2 <= pages && p < DEFAULT_PAGES)
		p *= 2;
	return p;
}

/* DWARF samples carry a copy of the stack (8 KiB by default): perf record's ring of 516
 * KiB holds some 60 of them, 15 ms at 4000 Hz, which a reader delayed by a loaded
 * machine's scheduler can pass. Their default ring is four times as large, within this
 * much locked memory over all CPUs; where the kernel refuses to lock that much
 * (RLIMIT_MEMLOCK), the sampler falls back to perf record's size. */
#define DWARF_RING_FACTOR 4
#define DWARF_RINGS_BUDGET ((size_t)16 << 20)

static unsigned dwarf_pages(unsigned pages, size_t page, size_t ncpus)
{
	unsigned want = pages * DWARF_RING_FACTOR;

	while (want > pages && (size_t)want * page * ncpus > DWARF_RINGS_BUDGET)
		want /= 2;
	return want;
}

static void set_pages(struct pmc_sampler *s, unsigned pages)
{
	s->data_size = (size_t)pages * s->page;
	s->map_len = s->data_size + s->page;
}

static void fill_attr(const struct pmc_sampler *s, const struct pmc_sample_opts *o,
		      struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = s->ev.type;
	a->config = s->ev.config;
	if (o->off_cpu) {
		/* Every switch-out, and the switches that say when the task runs again. */
		a->sample_period = 1;
		a->context_switch = 1;
	} else if (o->period) {
		a->sample_period = o->period;
	} else {
		a->freq = 1;
		a->sample_freq = s->freq;
	}
	a->sample_type = s->layout.sample_type;
	a->disabled = 1;
	a->inherit = 1;
	a->enable_on_exec = o->enable_on_exec;
	a->sample_id_all = 1;
	/* Side-band records, so a profile can name the code behind each address. */
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->build_id = s->build_id;
	/* Times in CLOCK_MONOTONIC, as perf record -k mono: the clock a JIT stamps its
	 * jitdump's records with (harness/4-profile/jitdump.h). */
	if (s->monotonic) {
		a->use_clockid = 1;
		a->clockid = CLOCK_MONOTONIC;
	}
	/* A tracepoint fires in the kernel: excluding it would drop every sample. */
	a->exclude_kernel = o->exclude_kernel && !o->off_cpu;
	/* Without kernel samples, kernel frames in call chains would need the same right. */
	a->exclude_callchain_kernel = o->exclude_kernel;
	if (s->stack_user) {
		/* DWARF call graphs, as perf record's: the user part of the stack comes from
		 * the unwinder, so the kernel walks no frame pointers of the task. */
		a->sample_regs_user = s->layout.regs_mask;
		a->sample_stack_user = s->stack_user;
		a->exclude_callchain_user = 1;
	}
	/* Wake the poller when a quarter of the ring is full: time to drain before the
	 * kernel has to drop samples. */
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(s->data_size / 4);
}

static void close_rings(struct pmc_sampler *s)
{
	for (size_t i = 0; i < s->nextra; i++)
		s->sys->close(s->sys->ctx, s->extra[i]);
	s->nextra = 0;
	for (size_t i = 0; i < s->nrings; i++) {
		struct ring *r = &s->rings[i];

		if (r->base)
			s->sys->munmap(s->sys->ctx, r->base, s->map_len);
		if (r->fd >= 0)
			s->sys->close(s->sys->ctx, r->fd);
		r->base = NULL;
		r->fd = -1;
	}
	s->nrings = 0;
}

/* Whether the kernel opens the event without the DWARF call graph's registers and stack:
 * then it refused those (a kernel without PERF_SAMPLE_STACK_USER answers ENOSYS, an
 * architecture without the registers EINVAL). */
static bool refuses_dwarf(const struct pmc_sampler *s, const struct pmc_sample_opts *o, pid_t pid,
			  int cpu)
{
	struct pmc_sampler plain = *s;
	struct perf_event_attr a;
	int fd;

	plain.stack_user = 0;
	plain.layout.sample_type &= ~(uint64_t)(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
	fill_attr(&plain, o, &a);
	fd = s->sys->event_open(s->sys->ctx, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return false;
	s->sys->close(s->sys->ctx, fd);
	return true;
}

static void open_failed(const struct pmc_sampler *s, const struct pmc_sample_opts *o, pid_t pid,
			int cpu, int r, char *err, size_t errlen)
{
	if (s->stack_user && (r == -EINVAL || r == -ENOSYS || r == -EOPNOTSUPP) &&
	    refuses_dwarf(s, o, pid, cpu))
		pmc_err_set(err, errlen,
			    "perf_event_open of \"%s\" on CPU %d: %s: this kernel does not copy "
			    "user registers and stacks into samples (PERF_SAMPLE_REGS_USER, "
			    "PERF_SAMPLE_STACK_USER), which DWARF call graphs need; use frame "
			    "pointers (--call-graph fp)",
			    s->ev.name, cpu, strerror(-r));
	else if (r == -EMFILE || r == -ENFILE)
		/* Not the event's fault: attaching takes a descriptor per thread and CPU. The
		 * limit is the caller's to raise (pmcbench's CLI raises it to the hard one). */
		pmc_err_set(err, errlen,
			    "perf_event_open of \"%s\" on CPU %d: %s: sampling takes a descriptor "
			    "per CPU, and per thread and CPU of an attached process; raise the "
			    "limit ('ulimit -n')",
			    s->ev.name, cpu, strerror(-r));
	else if ((r == -EACCES || r == -EPERM) && o->off_cpu)
		pmc_err_set(err, errlen,
			    "perf_event_open of \"%s\" on CPU %d: %s: off-CPU time samples a "
			    "kernel tracepoint, which needs root or CAP_PERFMON, or "
			    "/proc/sys/kernel/perf_event_paranoid at 1 or less (%llu here)",
			    s->ev.name, cpu, strerror(-r),
			    (unsigned long long)read_sysctl(o->proc_root, "perf_event_paranoid"));
	else if ((r == -EACCES || r == -EPERM) && o->attach)
		pmc_err_set(err, errlen,
			    "perf_event_open of \"%s\" on process %d: %s: attaching needs the "
			    "right to read the process as ptrace does (the same user, not set-uid, "
			    "or CAP_PERFMON or CAP_SYS_PTRACE) and "
			    "/proc/sys/kernel/perf_event_paranoid at 2 or less (%llu here)",
			    s->ev.name, (int)pid, strerror(-r),
			    (unsigned long long)read_sysctl(o->proc_root, "perf_event_paranoid"));
	else if ((r == -EACCES || r == -EPERM) && !o->exclude_kernel)
		pmc_err_set(err, errlen,
			    "perf_event_open of \"%s\" on CPU %d: %s: sample "
			    "user space only (exclude_kernel, \":u\") or lower "
			    "/proc/sys/kernel/perf_event_paranoid (below 2)",
			    s->ev.name, cpu, strerror(-r));
	else if (r == -EACCES || r == -EPERM)
		pmc_err_set(err, errlen,
			    "perf_event_open of \"%s\" on CPU %d: %s: lower "
			    "/proc/sys/kernel/perf_event_paranoid or run with CAP_PERFMON",
			    s->ev.name, cpu, strerror(-r));
	else
		pmc_err_set(err, errlen,
			    "perf_event_open of \"%s\" on CPU %d: %s: the "
			    "event cannot sample here; try \"cpu-clock\"",
			    s->ev.name, cpu, strerror(-r));
}

/* Off-CPU time's event: the tracepoint sched:sched_switch, its id from tracefs. Returns
 * 0, or -ENOENT/-EACCES with one line in err (what is missing and the fix). */
static int switch_event(const struct pmc_sample_opts *o, struct pmc_event_generic *ret, char *err,
			size_t errlen)
{
	char root[4096], why[512] = "";
	uint64_t id;
	int r;

	r = pmc_tracefs_find(o->tracefs_root, true, root, sizeof(root), why, sizeof(why));
	if (r < 0) {
		pmc_err_set(err, errlen, "off-CPU time samples sched:sched_switch: %s",
			    why[0] ? why : strerror(-r));
		return r;
	}
	r = pmc_tracefs_event_id(root, "sched", "sched_switch", &id);
	if (r < 0) {
		pmc_err_set(
		    err, errlen,
		    "off-CPU time samples sched:sched_switch: %s/events/sched/sched_switch/id: "
		    "%s: %s",
		    root, strerror(-r),
		    r == -ENOENT ? "this kernel has no sched tracepoints"
				 : "run as root or give this user tracefs access");
		return r == -EPERM ? -EACCES : r;
	}
	*ret = (struct pmc_event_generic){
	    .name = "sched:sched_switch", .type = PERF_TYPE_TRACEPOINT, .config = id};
	return 0;
}

/* Opens the event on (pid, cpu) from *attr (filled in). The kernel refuses a frequency
 * above perf_event_max_sample_rate with EINVAL, and lowers that maximum by itself when
 * samples take too long (kernel/events/core.c, perf_sample_event_took()), so it can be
 * lower now than when the sampler was opened, also in the middle of an attach: the
 * frequency is lowered to the maximum as it is now, as perf record lowers it at start,
 * for this event and those opened after it (pmc_sampler_freq() says so). The kernel
 * throttles the events already open at the higher rate to the new maximum. */
static int open_event(struct pmc_sampler *s, const struct pmc_sample_opts *o,
		      struct perf_event_attr *attr, pid_t pid, int cpu)
{
	int r;

	fill_attr(s, o, attr);
	r = s->sys->event_open(s->sys->ctx, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (r == -EINVAL && attr->freq) {
		uint64_t max = read_sysctl(o->proc_root, "perf_event_max_sample_rate");

		if (max && max < s->freq) {
			s->freq = max;
			fill_attr(s, o, attr);
			r = s->sys->event_open(s->sys->ctx, attr, pid, cpu, -1,
					       PERF_FLAG_FD_CLOEXEC);
		}
	}
	return r;
}

/* Opens and maps the event on every CPU; on failure closes what it opened. */
static int open_rings(struct pmc_sampler *s, const struct pmc_sample_opts *o, pid_t pid,
		      const int *cpus, size_t ncpus, char *err, size_t errlen)
{
	struct perf_event_attr attr;
	int r;

	for (size_t i = 0; i < ncpus; i++) {
		struct ring *ring = &s->rings[i];

		r = open_event(s, o, &attr, pid, cpus[i]);
		if (r == -EINVAL && s->build_id) {
			/* Kernels before 5.12 do not know attr.build_id: MMAP2 records then
			 * carry the device and inode instead. */
			s->build_id = false;
			r = open_event(s, o, &attr, pid, cpus[i]);
		}
		if (r == -EINVAL && s->monotonic) {
			/* Before Linux 4.1 there is no attr.clockid: the perf clock then. */
			s->monotonic = false;
			r = open_event(s, o, &attr, pid, cpus[i]);
		}
		if (r < 0) {
			open_failed(s, o, pid, cpus[i], r, err, errlen);
			goto fail;
		}
		ring->fd = r;
		ring->cpu = cpus[i];
		s->nrings = i + 1;
		r = s->sys->mmap(s->sys->ctx, ring->fd, s->map_len, &ring->base);
		if (r == -EPERM) {
			s->mmap_refused = true;
			/* perf_mmap(): past perf_event_mlock_kb per CPU, the rings count
			 * against RLIMIT_MEMLOCK. */
			struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};
			char lim[32] = "unlimited";

			ring->base = NULL;
			if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
				snprintf(lim, sizeof(lim), "%llu KiB",
					 (unsigned long long)(rl.rlim_cur / 1024));
			pmc_err_set(
			    err, errlen,
			    "mmap of the ring of CPU %d: %s: %zu CPUs x %zu KiB pass what "
			    "the kernel lets this user lock (perf_event_mlock_kb=%llu per "
			    "CPU, then ulimit -l of %s): give fewer pages, or raise "
			    "/proc/sys/kernel/perf_event_mlock_kb or ulimit -l",
			    cpus[i], strerror(-r), ncpus, s->map_len / 1024,
			    (unsigned long long)read_sysctl(o->proc_root, "perf_event_mlock_kb"),
			    lim);
			goto fail;
		}
		if (r < 0) {
			ring->base = NULL;
			pmc_err_set(err, errlen,
				    "mmap of %zu bytes for the ring of CPU %d: "
				    "%s: use fewer pages or raise "
				    "/proc/sys/kernel/perf_event_mlock_kb or ulimit -l",
				    s->map_len, cpus[i], strerror(-r));
			goto fail;
		}
	}
	return 0;
fail:
	close_rings(s);
	return r;
}

/* The threads of process pid not yet sampled, into *ret (malloc'd). Returns their count,
 * or -errno (-ESRCH: no such process). */
static int new_threads(const struct pmc_sampler *s, const char *proc_root, pid_t pid, pid_t **ret)
{
	return pmc_proc_new_threads(proc_root, pid, s->tids, s->ntids, ret);
}

/* Remembers tid as tried, so that listing the threads again does not find it anew: also
 * one whose open said ESRCH (it exited, or is a zombie leader /proc still lists), which
 * would otherwise be listed and tried forever. */
static int remember(struct pmc_sampler *s, pid_t tid)
{
	if (pmc_grow_to(&s->tids, &s->tids_cap, s->ntids + 1, sizeof(*s->tids)) < 0)
		return -ENOMEM;
	s->tids[s->ntids++] = tid;
	return 0;
}

/* Samples thread tid too, into the rings already open: one event per CPU whose records go
 * to that CPU's ring. A thread that has exited since it was listed is no error. */
static int attach_thread(struct pmc_sampler *s, const struct pmc_sample_opts *o, pid_t tid,
			 char *err, size_t errlen)
{
	struct perf_event_attr attr;
	int r;

	for (size_t i = 0; i < s->nrings; i++) {
		r = open_event(s, o, &attr, tid, s->rings[i].cpu);
		if (r == -ESRCH)
			return remember(s, tid);
		if (r < 0) {
			open_failed(s, o, tid, s->rings[i].cpu, r, err, errlen);
			return r;
		}
		if (pmc_grow_to(&s->extra, &s->extra_cap, s->nextra + 1, sizeof(*s->extra)) < 0) {
			s->sys->close(s->sys->ctx, r);
			return -ENOMEM;
		}
		s->extra[s->nextra++] = r;
		r = s->sys->ioctl(s->sys->ctx, r, PERF_EVENT_IOC_SET_OUTPUT,
				  (unsigned long)s->rings[i].fd);
		if (r < 0) {
			pmc_err_set(err, errlen,
				    "redirecting the samples of thread %d into the ring of CPU %d: "
				    "%s",
				    (int)tid, s->rings[i].cpu, strerror(-r));
			return r;
		}
	}
	return remember(s, tid);
}

/* Attaches to every thread of process pid: the first one listed gets the rings, the
 * others write into them. Threads started meanwhile by a thread not yet attached are
 * found by listing again, until a listing finds none (those started by an attached one
 * are inherited). */
static int attach_process(struct pmc_sampler *s, const struct pmc_sample_opts *o, pid_t pid,
			  const int *cpus, size_t ncpus, char *err, size_t errlen)
{
	int n, r = 0;

	for (;;) {
		pid_t *tids = NULL;

		n = new_threads(s, o->proc_root, pid, &tids);
		if (n == -ESRCH || (n == 0 && s->nrings == 0)) {
			pmc_err_set(err, errlen, "no process %d to attach to", (int)pid);
			return -ESRCH;
		}
		if (n < 0) {
			pmc_err_set(err, errlen, "listing the threads of process %d: %s", (int)pid,
				    strerror(-n));
			return n;
		}
		if (n == 0)
			return 0;
		for (int i = 0; i < n && r == 0; i++) {
			if (s->nrings) {
				r = attach_thread(s, o, tids[i], err, errlen);
				continue;
			}
			r = open_rings(s, o, tids[i], cpus, ncpus, err, errlen);
			/* Gone since it was listed: the next one gets the rings. */
			if (r == 0 || r == -ESRCH)
				r = remember(s, tids[i]);
		}
		free(tids);
		if (r < 0)
			return r;
	}
}

/* Opens the events and rings of the task or process; rings larger than perf record's
 * (DWARF) that the kernel refuses to lock are opened again at its size. */
static int open_all(struct pmc_sampler *s, const struct pmc_sample_opts *o, pid_t pid,
		    unsigned pages, const int *cpus, size_t ncpus, char *err, size_t errlen)
{
	int r;

	s->mmap_refused = false;
	r = o->attach ? attach_process(s, o, pid, cpus, ncpus, err, errlen)
		      : open_rings(s, o, pid, cpus, ncpus, err, errlen);
	if (r == -EPERM && s->mmap_refused && s->data_size > (size_t)pages * s->page) {
		close_rings(s);
		s->ntids = 0;
		set_pages(s, pages);
		r = o->attach ? attach_process(s, o, pid, cpus, ncpus, err, errlen)
			      : open_rings(s, o, pid, cpus, ncpus, err, errlen);
	}
	return r;
}

int pmc_sampler_open(const struct pmc_sample_opts *opts, pid_t pid, struct pmc_sampler **ret,
		     char *err, size_t errlen)
{
	struct pmc_sampler *s = NULL;
	const struct pmc_sys *sys;
	char online[4096];
	int *cpus = NULL, r;
	size_t ncpus = 0;
	unsigned pages;

	if (!opts || opts->sz != sizeof(*opts) || !ret) {
		pmc_err_set(err, errlen,
			    "pmc_sampler_open: opts.sz must be "
			    "sizeof(struct pmc_sample_opts)");
		return -EINVAL;
	}
	sys = opts->sys ? opts->sys : pmc_sys_kernel();
	if (!sys->mmap || !sys->munmap || !sys->poll || !sys->online_cpus) {
		pmc_err_set(err, errlen,
			    "the syscall table has no mmap, "
			    "munmap, poll or online_cpus: sampling needs them");
		return -EOPNOTSUPP;
	}
	pages = opts->pages ? opts->pages
			    : default_pages(opts->proc_root, (size_t)sysconf(_SC_PAGESIZE));
	if (pages & (pages - 1) || pages > (1u << 20)) {
		pmc_err_set(err, errlen,
			    "%u pages per CPU: the ring must be a power of two "
			    "of pages (perf_event_open(2), \"MMAP layout\")",
			    pages);
		return -EINVAL;
	}
	if (opts->stack_user && opts->no_callchain) {
		pmc_err_set(err, errlen,
			    "a stack copy for DWARF call graphs without call chains: leave one "
			    "of them out");
		return -EINVAL;
	}
	if (opts->stack_user % 8 || opts->stack_user > PMC_SAMPLE_STACK_MAX) {
		pmc_err_set(err, errlen,
			    "a stack copy of %u bytes: the kernel takes a multiple of 8 up to %d "
			    "(perf_event_open(2), sample_stack_user)",
			    (unsigned)opts->stack_user, PMC_SAMPLE_STACK_MAX);
		return -EINVAL;
	}
	if (opts->stack_user && !DWARF_REGS_MASK) {
		pmc_err_set(
		    err, errlen,
		    "DWARF call graphs are implemented for x86-64 and arm64 only; use frame "
		    "pointers (--call-graph fp)");
		return -EOPNOTSUPP;
	}
	if (opts->freq && opts->period) {
		pmc_err_set(err, errlen, "both a frequency and a period: give one of them");
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->freed, NULL);
	s->store_max = opts->store_max ? opts->store_max : PMC_SAMPLE_STORE_DEFAULT;
	s->sys = sys;
	s->page = (size_t)sysconf(_SC_PAGESIZE);
	set_pages(s, pages);
	s->freq = opts->period || opts->off_cpu ? 0
		  : opts->freq			? opts->freq
						: PMC_SAMPLE_DEFAULT_FREQ;
	if (s->freq) {
		/* The kernel refuses a frequency above this (EINVAL); perf record lowers its
		 * own to it and says so: the caller compares pmc_sampler_freq(). */
		uint64_t max = read_sysctl(opts->proc_root, "perf_event_max_sample_rate");

		if (max && s->freq > max)
			s->freq = max;
	}
	s->layout.sample_type = SAMPLE_TYPE_BASE | (opts->no_callchain ? 0 : PERF_SAMPLE_CALLCHAIN);
	if (opts->stack_user) {
		s->stack_user = opts->stack_user;
		s->layout.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		s->layout.regs_mask = DWARF_REGS_MASK;
		s->layout.nregs = (uint32_t)__builtin_popcountll(DWARF_REGS_MASK);
	}
	s->build_id = true;
	s->monotonic = true;
	if (opts->off_cpu) {
		if ((r = switch_event(opts, &s->ev, err, errlen)) < 0)
			goto fail_event;
	} else if (pmc_event_generic_find(opts->event ? opts->event : "cycles", &s->ev) < 0) {
		char q[PMC_QUOTE_SIZE(64)];

		pmc_err_set(err, errlen,
			    "unknown event \"%s\": use a generic event such as "
			    "\"cpu-clock\", \"task-clock\", \"cycles\" or \"instructions\"",
			    pmc_quote(q, sizeof(q), opts->event));
		r = -EINVAL;
		goto fail_event;
	}

	r = sys->online_cpus(sys->ctx, online, sizeof(online));
	if (r < 0) {
		pmc_err_set(err, errlen,
			    "/sys/devices/system/cpu/online: %s: sampling "
			    "needs sysfs mounted",
			    strerror(-r));
		goto fail_cpus;
	}
	r = parse_cpus(online, &cpus, &ncpus);
	if (r < 0) {
		char q[PMC_QUOTE_SIZE(64)];

		if (r == -EINVAL)
			pmc_err_set(err, errlen,
				    "/sys/devices/system/cpu/online: cannot "
				    "parse \"%s\" as a CPU list",
				    pmc_quote(q, sizeof(q), online));
		goto fail_cpus;
	}
	s->rings = calloc(ncpus, sizeof(*s->rings));
	if (!s->rings) {
		r = -ENOMEM;
		goto fail_cpus;
	}
	for (size_t i = 0; i < ncpus; i++)
		s->rings[i].fd = -1;

	if (!opts->pages && opts->stack_user)
		set_pages(s, dwarf_pages(pages, s->page, ncpus));
	r = open_all(s, opts, pid, pages, cpus, ncpus, err, errlen);
	if (!opts->event && !opts->off_cpu && (r == -ENOENT || r == -EOPNOTSUPP || r == -ENODEV)) {
		/* No hardware PMU (a VM): the kernel's timer-driven software event still
		 * samples, as perf record falls back to it. */
		close_rings(s);
		s->ntids = 0;
		pmc_event_generic_find("cpu-clock", &s->ev);
		r = open_all(s, opts, pid, pages, cpus, ncpus, err, errlen);
	}
	if (r < 0)
		goto fail_open;
	if (!opts->enable_on_exec) {
		for (size_t i = 0; i < s->nrings + s->nextra; i++) {
			int fd = i < s->nrings ? s->rings[i].fd : s->extra[i - s->nrings];

			r = sys->ioctl(sys->ctx, fd, PERF_EVENT_IOC_ENABLE, 0);
			if (r < 0) {
				pmc_err_set(err, errlen, "enabling the event on CPU %d: %s",
					    i < s->nrings ? s->rings[i].cpu : -1, strerror(-r));
				goto fail_enable;
			}
		}
	}
	free(cpus);
	*ret = s;
	return 0;

fail_enable:
	close_rings(s);
fail_open:
fail_cpus:
	free(cpus);
fail_event:
	pmc_sampler_close(s);
	return r;
}

const char *pmc_sampler_event(const struct pmc_sampler *s)
{
	return s->ev.name;
}

const char *pmc_sampler_unit(const struct pmc_sampler *s)
{
	/* The clock events count nanoseconds (kernel/events/core.c, cpu_clock_event_update). */
	return s->ev.type == PERF_TYPE_SOFTWARE && (s->ev.config == PERF_COUNT_SW_CPU_CLOCK ||
						    s->ev.config == PERF_COUNT_SW_TASK_CLOCK)
		   ? "ns"
		   : "events";
}

uint64_t pmc_sampler_freq(const struct pmc_sampler *s)
{
	return s->freq;
}

bool pmc_sampler_monotonic(const struct pmc_sampler *s)
{
	return s && s->monotonic;
}

uint64_t pmc_sampler_regs_mask(const struct pmc_sampler *s)
{
	return s->layout.regs_mask;
}

uint64_t pmc_sampler_samples(const struct pmc_sampler *s)
{
	return s->samples;
}

uint64_t pmc_sampler_throttled(const struct pmc_sampler *s)
{
	return s->throttled;
}

uint64_t pmc_sampler_lost(const struct pmc_sampler *s)
{
	return s->lost;
}

uint64_t pmc_sampler_store_full(const struct pmc_sampler *s)
{
	return s->full;
}

void pmc_sampler_close(struct pmc_sampler *s)
{
	if (!s)
		return;
	if (s->rings)
		close_rings(s);
	free(s->rings);
	free(s->extra);
	free(s->tids);
	pmc_sample_store_free(s);
	pthread_cond_destroy(&s->freed);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

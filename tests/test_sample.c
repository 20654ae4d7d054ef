/* The sampler (counters/perf/sample.h) against the emulated PMU's rings (tests/fake_pmu.h):
 * the attributes opened, the cycles -> cpu-clock fallback, EACCES, call-chain markers,
 * side-band records, records across the ring's end, LOST, time order across CPUs and
 * corrupt records; and once against the kernel, on a child that spins. */
#include <errno.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "counters/perf/sample.h"
#include "tests/fake_pmu.h"

static struct fake_pmu fake;
static char err[512];

#define MAX_RECS 256
static struct pmc_record recs[MAX_RECS];
static size_t nrecs;

static int collect(const struct pmc_record *rec, void *ud)
{
	(void)ud;
	if (nrecs < MAX_RECS)
		recs[nrecs++] = *rec;
	return 0;
}

static void replay(struct pmc_sampler *s)
{
	nrecs = 0;
	assert_int_equal(pmc_sampler_replay(s, collect, NULL), 0);
}

/* A proc tree with the two sysctls the sampler reads; returns its root. */
static const char *proc_with(const char *max_rate, const char *mlock_kb)
{
	static char root[64];
	char path[128];
	FILE *f;

	snprintf(root, sizeof(root), "/tmp/pmc-sample-proc-%d", (int)getpid());
	snprintf(path, sizeof(path), "mkdir -p %s/sys/kernel", root);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "%s/sys/kernel/perf_event_max_sample_rate", root);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "%s\n", max_rate);
	fclose(f);
	snprintf(path, sizeof(path), "%s/sys/kernel/perf_event_mlock_kb", root);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "%s\n", mlock_kb);
	fclose(f);
	return root;
}

/* The machine's own sysctls never reach a test: the kernel lowers its maximum sample
 * rate under load. Here it is high, and the mlock allowance holds 256 pages per CPU. */
static struct pmc_sample_opts fake_opts(void)
{
	struct pmc_sample_opts o = {.sz = sizeof(o), .event = "cpu-clock", .sys = &fake.sys};
	char kb[32];

	snprintf(kb, sizeof(kb), "%zu", 257 * (size_t)sysconf(_SC_PAGESIZE) / 1024);
	o.proc_root = proc_with("100000", kb);
	return o;
}

static struct pmc_sampler *open_fake(const struct fake_pmu_config *cfg,
				     const struct pmc_sample_opts *o)
{
	struct pmc_sampler *s = NULL;

	fake_pmu_init(&fake, cfg);
	err[0] = '\0';
	assert_int_equal(pmc_sampler_open(o, 42, &s, err, sizeof(err)), 0);
	assert_non_null(s);
	return s;
}

static void close_fake(struct pmc_sampler *s)
{
	pmc_sampler_close(s);
	/* Every ring unmapped, every event closed. */
	assert_int_equal(fake.nopen, 0);
	assert_int_equal(fake.munmaps, fake.mmaps);
	assert_int_equal(fake.bad_closes, 0);
}

static void test_attributes(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .online = "0-1,3"};
	struct pmc_sample_opts o = fake_opts();
	struct pmc_sampler *s;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	(void)state;
	o.exclude_kernel = true;
	s = open_fake(&cfg, &o);
	assert_int_equal(fake.nopen, 3);
	assert_int_equal(fake.nlog, 3);
	for (size_t i = 0; i < 3; i++) {
		const struct fake_pmu_open *l = &fake.log[i];
		const struct fake_pmu_event *e = fake_pmu_lookup(&fake, l->result);

		assert_int_equal(l->cpu, i == 2 ? 3 : (int)i);
		assert_int_equal(l->pid, 42);
		assert_int_equal(l->group_fd, -1);
		assert_int_equal(l->attr.type, PERF_TYPE_SOFTWARE);
		assert_int_equal(l->attr.config, PERF_COUNT_SW_CPU_CLOCK);
		assert_true(l->attr.inherit && l->attr.disabled && !l->attr.enable_on_exec);
		assert_true(l->attr.sample_id_all && l->attr.freq);
		assert_int_equal(l->attr.sample_freq, PMC_SAMPLE_DEFAULT_FREQ);
		assert_int_equal(l->attr.sample_type,
				 PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				     PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN);
		assert_true(l->attr.mmap && l->attr.mmap2 && l->attr.comm && l->attr.comm_exec &&
			    l->attr.task && l->attr.build_id);
		assert_true(l->attr.exclude_kernel && l->attr.exclude_callchain_kernel);
		assert_true(l->attr.watermark);
		assert_int_equal(l->attr.wakeup_watermark, 256 * page / 4);
		/* Enabled after open, as enable_on_exec was not asked for. */
		assert_true(e->enabled);
		assert_int_equal(e->ring_len, 257 * page);
	}
	assert_string_equal(pmc_sampler_event(s), "cpu-clock");
	assert_string_equal(pmc_sampler_unit(s), "ns");
	assert_int_equal(pmc_sampler_freq(s), PMC_SAMPLE_DEFAULT_FREQ);
	assert_int_equal(pmc_sampler_samples(s), 0);
	assert_int_equal(pmc_sampler_lost(s), 0);
	close_fake(s);

	/* enable_on_exec, a period, no call chains, 4 pages. */
	o = fake_opts();
	o.event = "task-clock";
	o.enable_on_exec = true;
	o.period = 100000;
	o.no_callchain = true;
	o.pages = 4;
	cfg.online = "0";
	s = open_fake(&cfg, &o);
	assert_true(fake.log[0].attr.enable_on_exec && !fake.log[0].attr.freq);
	assert_int_equal(fake.log[0].attr.sample_period, 100000);
	assert_int_equal(fake.log[0].attr.sample_type & PERF_SAMPLE_CALLCHAIN, 0);
	assert_false(fake.log[0].attr.exclude_kernel);
	assert_false(fake_pmu_lookup(&fake, fake.log[0].result)->enabled);
	fake_pmu_exec(&fake);
	assert_true(fake_pmu_lookup(&fake, fake.log[0].result)->enabled);
	assert_int_equal(fake_pmu_lookup(&fake, fake.log[0].result)->ring_len, 5 * page);
	assert_int_equal(pmc_sampler_freq(s), 0);
	assert_string_equal(pmc_sampler_unit(s), "ns");
	close_fake(s);

	o = fake_opts();
	o.event = "instructions";
	s = open_fake(&cfg, &o);
	assert_string_equal(pmc_sampler_unit(s), "events");
	assert_int_equal(fake.log[0].attr.type, PERF_TYPE_HARDWARE);
	close_fake(s);
}

static void test_event_fallback(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .no_pmu = true, .online = "0-1"};
	struct pmc_sample_opts o = fake_opts();
	struct pmc_sampler *s;

	(void)state;
	o.event = NULL;
	s = open_fake(&cfg, &o);
	assert_string_equal(pmc_sampler_event(s), "cpu-clock");
	assert_string_equal(pmc_sampler_unit(s), "ns");
	assert_int_equal(
	    fake_pmu_open_attempts(&fake, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES), 1);
	assert_int_equal(fake_pmu_open_attempts(&fake, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK),
			 2);
	assert_int_equal(fake.nopen, 2);
	close_fake(s);

	/* With a PMU, cycles. */
	cfg.no_pmu = false;
	s = open_fake(&cfg, &o);
	assert_string_equal(pmc_sampler_event(s), "cycles");
	assert_string_equal(pmc_sampler_unit(s), "events");
	close_fake(s);

	/* Asked for by name, cycles does not fall back. */
	cfg.no_pmu = true;
	fake_pmu_init(&fake, &cfg);
	o.event = "cycles";
	{
		struct pmc_sampler *none = (struct pmc_sampler *)&fake;

		assert_int_equal(pmc_sampler_open(&o, 42, &none, err, sizeof(err)), -ENOENT);
		assert_ptr_equal(none, (struct pmc_sampler *)&fake);
		assert_non_null(strstr(err, "cpu-clock"));
		assert_int_equal(fake.nopen, 0);
	}
}

/* The sampler takes the generic events of the event table (counters/perf/events_table.c) by
 * perf's names, aliases keeping their own name, and no cache, raw or PMU event. */
static void test_event_names(void **state)
{
	static const struct {
		const char *name;
		uint32_t type;
		uint64_t config;
	} ok[] = {
	    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
	    {"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
	    {"branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
	    {"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
	    {"emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS},
	};
	static const char *const refused[] = {"L1-dcache-loads", "Cycles", "r1234", "msr/tsc/", ""};
	struct fake_pmu_config cfg = {.counters = 4, .online = "0"};
	struct pmc_sample_opts o = fake_opts();
	struct pmc_sampler *s;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		o.event = ok[i].name;
		s = open_fake(&cfg, &o);
		assert_string_equal(pmc_sampler_event(s), ok[i].name);
		assert_int_equal(fake.log[0].attr.type, ok[i].type);
		assert_int_equal(fake.log[0].attr.config, ok[i].config);
		close_fake(s);
	}
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		s = NULL;
		o.event = refused[i];
		fake_pmu_init(&fake, &cfg);
		assert_int_equal(pmc_sampler_open(&o, 42, &s, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "use a generic event such as"));
		assert_null(s);
		assert_int_equal(fake.nopen, 0);
	}
}

static void test_build_id_fallback(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .no_build_id = true, .online = "0-1"};
	struct pmc_sample_opts o = fake_opts();
	struct pmc_sampler *s;

	(void)state;
	s = open_fake(&cfg, &o);
	assert_int_equal(fake.nopen, 2);
	for (int cpu = 0; cpu < 2; cpu++) {
		struct perf_event_mmap_page *pg = fake_pmu_ring(&fake, cpu);

		assert_non_null(pg);
	}
	/* One refused attempt, then both CPUs without build_id. */
	assert_int_equal(fake.nlog, 3);
	assert_true(fake.log[0].attr.build_id);
	assert_int_equal(fake.log[0].result, -EINVAL);
	assert_false(fake.log[1].attr.build_id);
	assert_false(fake.log[2].attr.build_id);
	close_fake(s);
}

static void test_eacces(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .paranoid = 2, .online = "0-1"};
	struct pmc_sample_opts o = fake_opts();
	struct pmc_sampler *s = NULL;

	(void)state;
	fake_pmu_init(&fake, &cfg);
	assert_int_equal(pmc_sampler_open(&o, 42, &s, err, sizeof(err)), -EACCES);
	assert_null(s);
	assert_non_null(strstr(err, "exclude_kernel"));
	assert_non_null(strstr(err, "/proc/sys/kernel/perf_event_paranoid"));
	assert_int_equal(fake.nopen, 0);

	o.exclude_kernel = true;
	s = open_fake(&cfg, &o);
	close_fake(s);

	/* Paranoid 3 refuses even user-only sampling; the message does not blame
	 * exclude_kernel then. */
	cfg.paranoid = 3;
	fake_pmu_init(&fake, &cfg);
	assert_int_equal(pmc_sampler_open(&o, 42, &s, err, sizeof(err)), -EACCES);
	assert_null(strstr(err, "exclude_kernel"));
	assert_non_null(strstr(err, "perf_event_paranoid"));
}

/* Out of descriptors is the process's limit, not the event: the message says to raise
 * it (it said the event cannot sample here and to try cpu-clock), and nothing stays open. */
static void test_emfile(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .online = "0-3", .max_fds = 2};
	struct pmc_sample_opts o = fake_opts();
	struct pmc_sampler *s = NULL;

	(void)state;
	fake_pmu_init(&fake, &cfg);
	assert_int_equal(pmc_sampler_open(&o, 42, &s, err, sizeof(err)), -EMFILE);
	assert_null(s);
	assert_non_null(strstr(err, "ulimit -n"));
	assert_null(strstr(err, "cannot sample here"));
	assert_int_equal(fake.nopen, 0);
}

static void test_bad_options(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .online = "0"};
	struct pmc_sample_opts o = fake_opts();
	struct pmc_sampler *s = NULL;

	(void)state;
	fake_pmu_init(&fake, &cfg);
	o.pages = 3;
	assert_int_equal(pmc_sampler_open(&o, 0, &s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "power of two"));
	o = fake_opts();
	o.freq = 100;
	o.period = 1000;
	assert_int_equal(pmc_sampler_open(&o, 0, &s, err, sizeof(err)), -EINVAL);
	o = fake_opts();
	o.event = "no-such\nevent";
	assert_int_equal(pmc_sampler_open(&o, 0, &s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "\"no-such\\nevent\""));
	o = fake_opts();
	o.sz = 8;
	assert_int_equal(pmc_sampler_open(&o, 0, &s, err, sizeof(err)), -EINVAL);
	cfg.online = "0-x";
	fake_pmu_init(&fake, &cfg);
	o = fake_opts();
	assert_int_equal(pmc_sampler_open(&o, 0, &s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "online"));
	assert_null(s);
	assert_int_equal(fake.nopen, 0);
	pmc_sampler_close(NULL);
}

/* A frequency above perf_event_max_sample_rate (which the kernel refuses with EINVAL)
 * is lowered to it, as perf record does, and the sampler says the rate it used. */
static void test_frequency_clamped(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .online = "0-1", .max_sample_rate = 1000};
	struct pmc_sample_opts o = fake_opts();
	struct pmc_sampler *s;

	(void)state;
	o.freq = 4000;
	o.proc_root = proc_with("1000", "516");
	s = open_fake(&cfg, &o);
	assert_int_equal(pmc_sampler_freq(s), 1000);
	for (size_t i = 0; i < fake.nlog; i++) {
		assert_int_equal(fake.log[i].attr.sample_freq, 1000);
		assert_true(fake.log[i].result >= 0);
	}
	close_fake(s);
	/* Below the limit, as asked. */
	o.freq = 999;
	s = open_fake(&cfg, &o);
	assert_int_equal(pmc_sampler_freq(s), 999);
	close_fake(s);
}

/* Threads tids of process 42 in the proc tree at root. */
static void proc_threads(const char *root, const int *tids, size_t n)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf %s/42 && mkdir -p %s/42/task", root, root);
	assert_int_equal(system(cmd), 0);
	for (size_t i = 0; i < n; i++) {
		snprintf(cmd, sizeof(cmd), "mkdir %s/42/task/%d", root, tids[i]);
		assert_int_equal(system(cmd), 0);
	}
}

/* Attaching to a running process (record -p): the first thread's events get a ring on
 * each CPU, the other threads' events write into those rings (PERF_EVENT_IOC_SET_OUTPUT,
 * which the kernel allows between events of one CPU only). */
static void test_attach_threads(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .online = "0-1"};
	struct pmc_sample_opts o = fake_opts();
	const int tids[] = {42, 43, 44};
	struct pmc_sampler *s;

	(void)state;
	o.attach = true;
	proc_threads(o.proc_root, tids, 3);
	s = open_fake(&cfg, &o);
	assert_int_equal(fake.nopen, 6);
	assert_int_equal(fake.mmaps, 2);
	assert_int_equal(fake.set_outputs, 4);
	for (int i = 0; i < FAKE_PMU_MAX_EVENTS; i++) {
		const struct fake_pmu_event *e = &fake.ev[i];

		if (!e->used)
			continue;
		assert_true(e->ring || (e->output && fake.ev[e->output - 1].cpu == e->cpu));
	}
	close_fake(s);
}

/* A thread /proc lists but the kernel says is gone (ESRCH: exited since, or a zombie
 * leader) is skipped once, not listed and tried again forever; the leader's ring goes to
 * the next thread. */
static void test_attach_thread_gone(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .online = "0", .gone_pid = 42};
	struct pmc_sample_opts o = fake_opts();
	const int tids[] = {42, 43, 44};
	struct pmc_sampler *s;

	(void)state;
	o.attach = true;
	proc_threads(o.proc_root, tids, 3);
	s = open_fake(&cfg, &o);
	assert_int_equal(fake.nopen, 2);
	assert_int_equal(
	    fake_pmu_open_attempts(&fake, fake.log[0].attr.type, fake.log[0].attr.config), 3);
	close_fake(s);
}

/* After two opens the kernel lowers perf_event_max_sample_rate to 1000 (it does so when
 * samples take too long), in the sysctl and in what it accepts. */
static void lower_rate_after_two(struct fake_pmu *f, void *ud)
{
	if (f->nopen == 2) {
		f->cfg.max_sample_rate = 1000;
		proc_with("1000", ud);
	}
}

/* The maximum lowered at run time, while attaching: the threads found after it are
 * opened at the new maximum, not refused (EINVAL) as an event that cannot sample. */
static void test_attach_rate_lowered(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .online = "0-1", .max_sample_rate = 100000};
	struct pmc_sample_opts o = fake_opts();
	const int tids[] = {42, 43};
	struct pmc_sampler *s = NULL;
	char kb[32];

	(void)state;
	snprintf(kb, sizeof(kb), "%zu", 257 * (size_t)sysconf(_SC_PAGESIZE) / 1024);
	o.attach = true;
	o.freq = 4000;
	proc_threads(o.proc_root, tids, 2);
	fake_pmu_init(&fake, &cfg);
	fake.on_open = lower_rate_after_two;
	fake.on_open_ud = kb;
	err[0] = '\0';
	assert_int_equal(pmc_sampler_open(&o, 42, &s, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_int_equal(fake.nopen, 4);
	assert_int_equal(pmc_sampler_freq(s), 1000);
	for (int i = 0; i < FAKE_PMU_MAX_EVENTS; i++)
		if (fake.ev[i].used)
			assert_int_equal(fake.ev[i].attr.sample_freq,
					 fake.ev[i].ring ? 4000 : 1000);
	close_fake(s);
}

/* The emulated kernel refuses what perf_event_set_output() refuses. */
static void test_set_output_rules(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .online = "0-1"};
	struct perf_event_attr a = {.size = sizeof(a),
				    .type = PERF_TYPE_SOFTWARE,
				    .config = PERF_COUNT_SW_CPU_CLOCK,
				    .disabled = 1};
	int fd[4];
	void *ring;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	(void)state;
	fake_pmu_init(&fake, &cfg);
	fd[0] = fake.sys.event_open(fake.sys.ctx, &a, 42, 0, -1, 0);
	fd[1] = fake.sys.event_open(fake.sys.ctx, &a, 43, 1, -1, 0);
	fd[2] = fake.sys.event_open(fake.sys.ctx, &a, 43, 0, -1, 0);
	a.use_clockid = 1;
	a.clockid = 1; /* CLOCK_MONOTONIC */
	fd[3] = fake.sys.event_open(fake.sys.ctx, &a, 43, 0, -1, 0);
	for (int i = 0; i < 4; i++)
		assert_true(fd[i] >= 0);
	/* No ring to write into yet. */
	assert_int_equal(fake.sys.ioctl(fake.sys.ctx, fd[2], PERF_EVENT_IOC_SET_OUTPUT, fd[0]),
			 -EINVAL);
	assert_int_equal(fake.sys.mmap(fake.sys.ctx, fd[0], 2 * page, &ring), 0);
	assert_int_equal(fake.sys.ioctl(fake.sys.ctx, fd[1], PERF_EVENT_IOC_SET_OUTPUT, fd[0]),
			 -EINVAL); /* another CPU */
	assert_int_equal(fake.sys.ioctl(fake.sys.ctx, fd[3], PERF_EVENT_IOC_SET_OUTPUT, fd[0]),
			 -EINVAL); /* another clock */
	assert_int_equal(fake.sys.ioctl(fake.sys.ctx, fd[2], PERF_EVENT_IOC_SET_OUTPUT, 77),
			 -EBADF);
	assert_int_equal(fake.sys.ioctl(fake.sys.ctx, fd[2], PERF_EVENT_IOC_SET_OUTPUT, fd[0]), 0);
	assert_int_equal(fake.sys.munmap(fake.sys.ctx, ring, 2 * page), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(fake.sys.close(fake.sys.ctx, fd[i]), 0);
}

/* The rings are sized as perf record sizes them: what perf_event_mlock_kb lets a user
 * lock per CPU. With 16 CPUs, the default fits where 256 pages per CPU would pass the
 * allowance and RLIMIT_MEMLOCK (EPERM); then the error names both limits. */
static void test_ring_size_and_mlock(void **state)
{
	struct fake_pmu_config cfg = {
	    .counters = 4, .online = "0-15", .mlock_kb = 516, .memlock_kb = 64};
	struct pmc_sample_opts o = fake_opts();
	struct pmc_sampler *s = NULL;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	(void)state;
	o.proc_root = proc_with("100000", "516");
	s = open_fake(&cfg, &o);
	assert_int_equal(fake.mmaps, 16);
	if (page == 4096)
		assert_int_equal(fake.locked_kb, 16 * 516);
	assert_true(fake.locked_kb <= 16 * 516);
	close_fake(s);

	o.pages = 256;
	fake_pmu_init(&fake, &cfg);
	s = NULL;
	assert_int_equal(pmc_sampler_open(&o, 42, &s, err, sizeof(err)), -EPERM);
	assert_null(s);
	assert_non_null(strstr(err, "perf_event_mlock_kb=516"));
	assert_non_null(strstr(err, "ulimit -l"));
	assert_null(strchr(err, '\n'));
	assert_int_equal(fake.nopen, 0);
	assert_int_equal(fake.munmaps, fake.mmaps - 1); /* the refused one was never mapped */

	/* perf_mmap(): CAP_PERFMON does not lift RLIMIT_MEMLOCK; CAP_IPC_LOCK does, and so
	 * does perf_event_paranoid -1. */
	cfg.privileged = true;
	fake_pmu_init(&fake, &cfg);
	assert_int_equal(pmc_sampler_open(&o, 42, &s, err, sizeof(err)), -EPERM);
	assert_null(s);
	cfg.ipc_lock = true;
	s = open_fake(&cfg, &o);
	close_fake(s);
	cfg.ipc_lock = false;
	cfg.paranoid = -1;
	s = open_fake(&cfg, &o);
	close_fake(s);
}

static void test_callchain_markers(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .online = "0"};
	struct pmc_sample_opts o = fake_opts();
	struct pmc_sampler *s;
	struct fake_pmu_id id = {.pid = 42, .tid = 43, .time = 1000};
	const uint64_t chain[] = {PERF_CONTEXT_KERNEL,
				  0xffffffff81000010,
				  0xffffffff81000020,
				  PERF_CONTEXT_USER,
				  0x401010,
				  0x401020,
				  0x401030};
	const uint64_t user_only[] = {PERF_CONTEXT_USER, 0x402000, 0x402100};

	(void)state;
	s = open_fake(&cfg, &o);
	assert_int_equal(fake_pmu_sample(&fake, 0, &id, PERF_RECORD_MISC_KERNEL, 0xffffffff81000010,
					 250000, chain, 7),
			 0);
	id.time = 2000;
	assert_int_equal(
	    fake_pmu_sample(&fake, 0, &id, PERF_RECORD_MISC_USER, 0x402000, 250000, user_only, 3),
	    0);
	assert_int_equal(pmc_sampler_poll(s, 0), 2);
	replay(s);
	assert_int_equal(nrecs, 2);
	assert_int_equal(recs[0].type, PMC_RECORD_SAMPLE);
	assert_int_equal(recs[0].pid, 42);
	assert_int_equal(recs[0].tid, 43);
	assert_int_equal(recs[0].time, 1000);
	assert_int_equal(recs[0].cpu, 0);
	assert_true(recs[0].sample.kernel);
	assert_int_equal(recs[0].sample.ip, 0xffffffff81000010);
	assert_int_equal(recs[0].sample.period, 250000);
	assert_int_equal(recs[0].sample.nips, 5);
	assert_int_equal(recs[0].sample.nkernel, 2);
	assert_int_equal(recs[0].sample.ips[0], 0xffffffff81000010);
	assert_int_equal(recs[0].sample.ips[1], 0xffffffff81000020);
	assert_int_equal(recs[0].sample.ips[2], 0x401010);
	assert_int_equal(recs[0].sample.ips[4], 0x401030);
	assert_false(recs[1].sample.kernel);
	assert_int_equal(recs[1].sample.nips, 2);
	assert_int_equal(recs[1].sample.nkernel, 0);
	assert_int_equal(recs[1].sample.ips[0], 0x402000);
	assert_int_equal(pmc_sampler_samples(s), 2);
	/* A second replay sees the same (the markers were removed once). */
	replay(s);
	assert_int_equal(recs[0].sample.nips, 5);
	assert_int_equal(recs[0].sample.nkernel, 2);
	close_fake(s);
}

/* Frames the kernel marks as the hypervisor's or a guest's are not the task's: they are
 * dropped, whatever comes after them until the next kernel or user marker; a sample
 * taken in the hypervisor or a guest says so instead of naming an address of the task. */
static void test_hypervisor_and_guest_frames(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .online = "0"};
	struct pmc_sample_opts o = fake_opts();
	struct pmc_sampler *s;
	struct fake_pmu_id id = {.pid = 42, .tid = 43, .time = 1000};
	const uint64_t chain[] = {PERF_CONTEXT_HV,
				  0xc000000000001000,
				  PERF_CONTEXT_KERNEL,
				  0xffffffff81000010,
				  PERF_CONTEXT_GUEST,
				  PERF_CONTEXT_GUEST_USER,
				  0x7000000000001234,
				  PERF_CONTEXT_USER,
				  0x401010,
				  0x401020};
	const uint64_t guest[] = {PERF_CONTEXT_GUEST_KERNEL, 0xffffffff82000000};

	(void)state;
	s = open_fake(&cfg, &o);
	assert_int_equal(fake_pmu_sample(&fake, 0, &id, PERF_RECORD_MISC_KERNEL, 0xffffffff81000010,
					 1000, chain, 10),
			 0);
	id.time = 2000;
	assert_int_equal(fake_pmu_sample(&fake, 0, &id, PERF_RECORD_MISC_GUEST_KERNEL,
					 0xffffffff82000000, 1000, guest, 2),
			 0);
	assert_int_equal(pmc_sampler_poll(s, 0), 2);
	replay(s);
	assert_int_equal(nrecs, 2);
	assert_int_equal(recs[0].sample.nips, 3);
	assert_int_equal(recs[0].sample.nkernel, 1);
	assert_int_equal(recs[0].sample.ips[0], 0xffffffff81000010);
	assert_int_equal(recs[0].sample.ips[1], 0x401010);
	assert_int_equal(recs[0].sample.ips[2], 0x401020);
	assert_false(recs[0].sample.foreign);
	assert_int_equal(recs[1].sample.nips, 0);
	assert_true(recs[1].sample.foreign);
	assert_false(recs[1].sample.kernel);
	close_fake(s);

	/* Without call chains. */
	o.no_callchain = true;
	s = open_fake(&cfg, &o);
	assert_int_equal(
	    fake_pmu_sample(&fake, 0, &id, PERF_RECORD_MISC_USER, 0x401000, 7, NULL, 0), 0);
	assert_int_equal(pmc_sampler_poll(s, 0), 1);
	replay(s);
	assert_int_equal(nrecs, 1);
	assert_int_equal(recs[0].sample.ip, 0x401000);
	assert_int_equal(recs[0].sample.nips, 0);
	assert_null(recs[0].sample.ips);
	close_fake(s);
}

static void test_side_band(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .online = "0"};
	struct pmc_sample_opts o = fake_opts();
	struct pmc_sampler *s;
	struct fake_pmu_id id = {.pid = 42, .tid = 42, .time = 10};
	uint8_t bid[20];

	(void)state;
	for (int i = 0; i < 20; i++)
		bid[i] = (uint8_t)(0xa0 + i);
	s = open_fake(&cfg, &o);
	assert_int_equal(fake_pmu_comm(&fake, 0, &id, "pmc-work", true), 0);
	id.time = 20;
	assert_int_equal(
	    fake_pmu_mmap2(&fake, 0, &id, 0x400000, 0x2000, 0x1000, "/usr/bin/pmc-work", bid, 20),
	    0);
	id.time = 30;
	assert_int_equal(
	    fake_pmu_mmap2(&fake, 0, &id, 0x7f0000000000, 0x1000, 0, "//anon", NULL, 0), 0);
	id.time = 40;
	assert_int_equal(fake_pmu_comm(&fake, 0, &id, "worker", false), 0);
	id = (struct fake_pmu_id){.pid = 42, .tid = 44, .time = 50};
	assert_int_equal(fake_pmu_task(&fake, 0, PERF_RECORD_FORK, &id, 42, 42), 0);
	id.time = 60;
	assert_int_equal(fake_pmu_task(&fake, 0, PERF_RECORD_EXIT, &id, 42, 42), 0);
	assert_int_equal(pmc_sampler_poll(s, 0), 6);
	replay(s);
	assert_int_equal(nrecs, 6);

	assert_int_equal(recs[0].type, PMC_RECORD_COMM);
	assert_string_equal(recs[0].comm.comm, "pmc-work");
	assert_true(recs[0].comm.exec);
	assert_int_equal(recs[0].time, 10);

	assert_int_equal(recs[1].type, PMC_RECORD_MMAP);
	assert_int_equal(recs[1].mmap.addr, 0x400000);
	assert_int_equal(recs[1].mmap.len, 0x2000);
	assert_int_equal(recs[1].mmap.pgoff, 0x1000);
	assert_int_equal(recs[1].mmap.prot, 5);
	assert_int_equal(recs[1].mmap.flags, 2);
	assert_string_equal(recs[1].mmap.filename, "/usr/bin/pmc-work");
	assert_int_equal(recs[1].mmap.build_id_size, 20);
	assert_memory_equal(recs[1].mmap.build_id, bid, 20);
	assert_int_equal(recs[1].pid, 42);
	assert_int_equal(recs[1].time, 20);

	assert_int_equal(recs[2].type, PMC_RECORD_MMAP);
	assert_null(recs[2].mmap.build_id);
	assert_int_equal(recs[2].mmap.build_id_size, 0);
	assert_int_equal(recs[2].mmap.maj, 8);
	assert_int_equal(recs[2].mmap.min, 1);
	assert_int_equal(recs[2].mmap.ino, 1234);
	assert_string_equal(recs[2].mmap.filename, "//anon");

	assert_int_equal(recs[3].type, PMC_RECORD_COMM);
	assert_false(recs[3].comm.exec);
	assert_string_equal(recs[3].comm.comm, "worker");

	assert_int_equal(recs[4].type, PMC_RECORD_FORK);
	assert_int_equal(recs[4].pid, 42);
	assert_int_equal(recs[4].tid, 44);
	assert_int_equal(recs[4].task.ppid, 42);
	assert_int_equal(recs[4].task.ptid, 42);
	assert_int_equal(recs[4].time, 50);
	assert_int_equal(recs[5].type, PMC_RECORD_EXIT);
	assert_int_equal(recs[5].tid, 44);
	assert_int_equal(recs[5].time, 60);
	assert_int_equal(pmc_sampler_samples(s), 0);
	close_fake(s);
}

static void test_wrap_around(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .online = "0"};
	struct pmc_sample_opts o = fake_opts();
	struct pmc_sampler *s;
	struct fake_pmu_id id = {.pid = 42, .tid = 42, .time = 5};
	const uint64_t chain[] = {PERF_CONTEXT_USER, 0x401000, 0x401100, 0x401200};
	struct perf_event_mmap_page *pg;
	uint64_t size;

	(void)state;
	o.pages = 1;
	s = open_fake(&cfg, &o);
	pg = fake_pmu_ring(&fake, 0);
	size = pg->data_size;
	/* The header fits before the end, the body wraps. */
	fake_pmu_ring_seek(&fake, 0, size - 8);
	assert_int_equal(
	    fake_pmu_sample(&fake, 0, &id, PERF_RECORD_MISC_USER, 0x401000, 9, chain, 4), 0);
	/* Several laps later, the header itself straddles nothing but the file name does. */
	assert_int_equal(pmc_sampler_poll(s, 0), 1);
	fake_pmu_ring_seek(&fake, 0, 5 * size - 24);
	id.time = 6;
	assert_int_equal(
	    fake_pmu_mmap2(&fake, 0, &id, 0x400000, 0x1000, 0, "/usr/lib/libwrap.so", NULL, 0), 0);
	assert_int_equal(pmc_sampler_poll(s, 0), 1);
	assert_int_equal(pg->data_tail, pg->data_head);
	replay(s);
	assert_int_equal(nrecs, 2);
	assert_int_equal(recs[0].sample.ip, 0x401000);
	assert_int_equal(recs[0].sample.period, 9);
	assert_int_equal(recs[0].time, 5);
	assert_int_equal(recs[0].sample.nips, 3);
	assert_int_equal(recs[0].sample.ips[2], 0x401200);
	assert_string_equal(recs[1].mmap.filename, "/usr/lib/libwrap.so");
	assert_int_equal(recs[1].time, 6);
	close_fake(s);
}

/* Throttling is counted (samples are missing for the rest of a tick), and never
 * replayed as a record of its own; unthrottling is not counted. */
static void test_throttle(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .online = "0"};
	struct pmc_sample_opts o = fake_opts();
	struct pmc_sampler *s;
	struct fake_pmu_id id = {.pid = 42, .tid = 42, .time = 1};
	const uint64_t chain[] = {PERF_CONTEXT_USER, 0x401000};

	(void)state;
	s = open_fake(&cfg, &o);
	assert_int_equal(
	    fake_pmu_sample(&fake, 0, &id, PERF_RECORD_MISC_USER, 0x401000, 1, chain, 2), 0);
	id.time = 2;
	assert_int_equal(fake_pmu_throttle(&fake, 0, &id, false), 0);
	id.time = 3;
	assert_int_equal(fake_pmu_throttle(&fake, 0, &id, true), 0);
	id.time = 4;
	assert_int_equal(fake_pmu_throttle(&fake, 0, &id, false), 0);
	id.time = 5;
	assert_int_equal(
	    fake_pmu_sample(&fake, 0, &id, PERF_RECORD_MISC_USER, 0x401000, 1, chain, 2), 0);
	assert_int_equal(pmc_sampler_poll(s, 0), 5);
	assert_int_equal(pmc_sampler_throttled(s), 2);
	assert_int_equal(pmc_sampler_samples(s), 2);
	replay(s);
	assert_int_equal(nrecs, 2);
	close_fake(s);
}

static void test_lost(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .online = "0"};
	struct pmc_sample_opts o = fake_opts();
	struct pmc_sampler *s;
	struct fake_pmu_id id = {.pid = 42, .tid = 42, .time = 1};
	const uint64_t chain[] = {PERF_CONTEXT_USER, 0x401000, 0x401100, 0x401200};
	uint64_t written = 0, dropped = 0;
	bool saw_lost = false;

	(void)state;
	o.pages = 1;
	s = open_fake(&cfg, &o);
	/* Fill the ring without reading it, then three more. */
	while (dropped < 3) {
		id.time++;
		if (fake_pmu_sample(&fake, 0, &id, PERF_RECORD_MISC_USER, 0x401000, 1, chain, 4) ==
		    0)
			written++;
		else
			dropped++;
	}
	assert_true(written > 10);
	assert_int_equal(pmc_sampler_poll(s, 0), (int)written);
	assert_int_equal(pmc_sampler_lost(s), 0);
	/* Space freed: the kernel first writes the LOST record. */
	id.time++;
	assert_int_equal(
	    fake_pmu_sample(&fake, 0, &id, PERF_RECORD_MISC_USER, 0x401000, 1, chain, 4), 0);
	assert_int_equal(pmc_sampler_poll(s, 0), 2);
	assert_int_equal(pmc_sampler_lost(s), 3);
	assert_int_equal(pmc_sampler_samples(s), written + 1);
	replay(s);
	for (size_t i = 0; i < nrecs; i++)
		if (recs[i].type == PMC_RECORD_LOST) {
			assert_int_equal(recs[i].lost.lost, 3);
			/* Stamped like the sample written after it, so it sorts next to it. */
			assert_int_equal(recs[i].time, id.time);
			assert_int_equal(recs[i].pid, 42);
			assert_int_equal(recs[i].cpu, 0);
			assert_int_equal(i + 2, nrecs);
			saw_lost = true;
		}
	assert_true(saw_lost);
	close_fake(s);
}

static void test_time_order_across_cpus(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .online = "0-1"};
	struct pmc_sample_opts o = fake_opts();
	struct pmc_sampler *s;
	const uint64_t t0[] = {10, 30, 40, 50}, t1[] = {20, 40, 45};
	const uint64_t want_time[] = {10, 20, 30, 40, 40, 45, 50};
	const uint32_t want_cpu[] = {0, 1, 0, 0, 1, 1, 0};

	(void)state;
	o.no_callchain = true;
	s = open_fake(&cfg, &o);
	for (size_t i = 0; i < 4; i++) {
		struct fake_pmu_id id = {.pid = 42, .tid = 42, .time = t0[i]};

		assert_int_equal(
		    fake_pmu_sample(&fake, 0, &id, PERF_RECORD_MISC_USER, 0x1000 + i, 1, NULL, 0),
		    0);
	}
	for (size_t i = 0; i < 3; i++) {
		struct fake_pmu_id id = {.pid = 42, .tid = 42, .time = t1[i]};

		assert_int_equal(
		    fake_pmu_sample(&fake, 1, &id, PERF_RECORD_MISC_USER, 0x2000 + i, 1, NULL, 0),
		    0);
	}
	fake_pmu_hangup(&fake);
	assert_int_equal(pmc_sampler_poll(s, 100), 7);
	replay(s);
	assert_int_equal(nrecs, 7);
	for (size_t i = 0; i < 7; i++) {
		assert_int_equal(recs[i].time, want_time[i]);
		assert_int_equal(recs[i].cpu, want_cpu[i]);
	}
	/* Equal times keep the order they were read in: CPU 0's ring is drained first. */
	assert_int_equal(recs[3].sample.ip, 0x1002);
	assert_int_equal(recs[4].sample.ip, 0x2001);
	close_fake(s);
}

/* Streaming: a flush hands out only what no later poll can precede, in time order across
 * rings and polls, each record once; the last flush (all) the rest. */
static void flush_collect(struct pmc_sampler *s, bool all)
{
	nrecs = 0;
	assert_int_equal(pmc_sampler_flush(s, all, collect, NULL), 0);
}

static void add_sample(int cpu, uint64_t time, uint64_t ip)
{
	struct fake_pmu_id id = {.pid = 42, .tid = 42, .time = time};

	assert_int_equal(fake_pmu_sample(&fake, cpu, &id, PERF_RECORD_MISC_USER, ip, 1, NULL, 0),
			 0);
}

static void test_flush_in_rounds(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .online = "0-1"};
	struct pmc_sample_opts o = fake_opts();
	struct pmc_sampler *s;

	(void)state;
	o.no_callchain = true;
	s = open_fake(&cfg, &o);
	add_sample(0, 10, 0x10);
	add_sample(0, 30, 0x30);
	assert_int_equal(pmc_sampler_poll(s, 0), 2);
	/* After the first poll, another ring may still get a record older than 30. */
	flush_collect(s, false);
	assert_int_equal(nrecs, 0);
	add_sample(1, 20, 0x20);
	add_sample(0, 40, 0x40);
	assert_int_equal(pmc_sampler_poll(s, 0), 2);
	/* Up to the first poll's latest time, 30: CPU 1's 20 comes before CPU 0's 30. */
	flush_collect(s, false);
	assert_int_equal(nrecs, 3);
	assert_int_equal(recs[0].sample.ip, 0x10);
	assert_int_equal(recs[1].sample.ip, 0x20);
	assert_int_equal(recs[2].sample.ip, 0x30);
	add_sample(1, 35, 0x35);
	assert_int_equal(pmc_sampler_poll(s, 0), 1);
	flush_collect(s, false);
	assert_int_equal(nrecs, 2);
	assert_int_equal(recs[0].sample.ip, 0x35);
	assert_int_equal(recs[1].sample.ip, 0x40);
	/* Nothing is handed out twice; the last flush takes what is left. */
	add_sample(1, 50, 0x50);
	assert_int_equal(pmc_sampler_poll(s, 0), 1);
	flush_collect(s, false);
	assert_int_equal(nrecs, 0);
	flush_collect(s, true);
	assert_int_equal(nrecs, 1);
	assert_int_equal(recs[0].sample.ip, 0x50);
	flush_collect(s, true);
	assert_int_equal(nrecs, 0);
	assert_int_equal(pmc_sampler_samples(s), 6);
	close_fake(s);
}

/* Many polls' worth of records, flushed as they come: every one handed out once, in
 * order, through chunks that are given back and refilled. */
static void test_flush_many_rounds(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .online = "0"};
	struct pmc_sample_opts o = fake_opts();
	struct pmc_sampler *s;
	uint64_t seen = 0, t = 0;

	(void)state;
	o.no_callchain = true;
	s = open_fake(&cfg, &o);
	for (int round = 0; round < 200; round++) {
		for (int i = 0; i < 50; i++) {
			t++;
			add_sample(0, t, t);
		}
		assert_int_equal(pmc_sampler_poll(s, 0), 50);
		flush_collect(s, round == 199);
		for (size_t i = 0; i < nrecs; i++)
			assert_int_equal(recs[i].sample.ip, ++seen);
	}
	assert_int_equal(seen, t);
	close_fake(s);
}

/* Samples handed out, and whether their ips came as 1, 2, 3, ... */
struct in_order {
	uint64_t last, n;
	bool ordered;
};

static int count_in_order(const struct pmc_record *rec, void *ud)
{
	struct in_order *o = ud;

	if (rec->type == PMC_RECORD_SAMPLE) {
		o->ordered &= rec->sample.ip == o->last + 1;
		o->last = rec->sample.ip;
		o->n++;
	}
	return 0;
}

/* A store bound below what the ring holds: a poll copies what fits and leaves the rest in
 * the ring, a flush then hands out everything stored to make room, and the next poll reads
 * on; every record once, in order, none lost. */
static void test_store_bound_leaves_records_in_the_ring(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .online = "0"};
	struct pmc_sample_opts o = fake_opts();
	struct in_order seen = {.ordered = true};
	struct pmc_sampler *s;
	const uint64_t n = 6000; /* 48-byte samples: more than one 256 KiB chunk */
	int first, second;

	(void)state;
	o.no_callchain = true;
	o.pages = 128;
	o.store_max = 1; /* one chunk, the least the store takes */
	s = open_fake(&cfg, &o);
	for (uint64_t t = 1; t <= n; t++)
		add_sample(0, t, t);
	first = pmc_sampler_poll(s, 0);
	assert_true(first > 0 && (uint64_t)first < n);
	assert_int_equal(pmc_sampler_store_full(s), 1);
	assert_int_equal(pmc_sampler_samples(s), first);
	assert_int_equal(pmc_sampler_flush(s, false, count_in_order, &seen), 0);
	assert_int_equal(seen.n, first);
	second = pmc_sampler_poll(s, 0);
	assert_int_equal((uint64_t)(first + second), n);
	assert_int_equal(pmc_sampler_flush(s, true, count_in_order, &seen), 0);
	assert_int_equal(seen.n, n);
	assert_true(seen.ordered);
	assert_int_equal(pmc_sampler_lost(s), 0);
	close_fake(s);
}

static int stop_at_second(const struct pmc_record *rec, void *ud)
{
	int *n = ud;

	(void)rec;
	return ++*n == 2 ? 77 : 0;
}

static void test_replay_stops(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .online = "0"};
	struct pmc_sample_opts o = fake_opts();
	struct pmc_sampler *s;
	int n = 0;

	(void)state;
	s = open_fake(&cfg, &o);
	for (uint64_t t = 1; t <= 3; t++) {
		struct fake_pmu_id id = {.pid = 1, .tid = 1, .time = t};

		assert_int_equal(fake_pmu_comm(&fake, 0, &id, "x", false), 0);
	}
	assert_int_equal(pmc_sampler_poll(s, 0), 3);
	assert_int_equal(pmc_sampler_replay(s, stop_at_second, &n), 77);
	assert_int_equal(n, 2);
	close_fake(s);
}

static void test_corrupt_records(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .online = "0-1"};
	struct pmc_sample_opts o = fake_opts();
	struct pmc_sampler *s;
	struct fake_pmu_id id = {.pid = 42, .tid = 42, .time = 7};
	struct perf_event_header zero = {.type = PERF_RECORD_SAMPLE, .misc = 0, .size = 0};
	struct perf_event_header big = {.type = PERF_RECORD_COMM, .misc = 0, .size = 64};
	struct perf_event_header tiny = {.type = PERF_RECORD_SAMPLE, .misc = 0, .size = 16};
	uint64_t pad = 0;
	unsigned char noname[8 + 8 + 8 + 24];

	(void)state;
	/* Size 0 on CPU 0; CPU 1 still delivers. */
	s = open_fake(&cfg, &o);
	assert_int_equal(fake_pmu_comm(&fake, 1, &id, "ok", false), 0);
	assert_int_equal(fake_pmu_emit_raw(&fake, 0, &zero, sizeof(zero)), 0);
	assert_int_equal(pmc_sampler_poll(s, 0), -EIO);
	/* The broken ring is no longer read; the other one is. */
	assert_int_equal(fake_pmu_comm(&fake, 1, &id, "ok2", false), 0);
	assert_int_equal(pmc_sampler_poll(s, 0), 1);
	replay(s);
	assert_int_equal(nrecs, 2);
	assert_string_equal(recs[1].comm.comm, "ok2");
	close_fake(s);

	/* A record longer than what data_head published. */
	s = open_fake(&cfg, &o);
	assert_int_equal(fake_pmu_emit_raw(&fake, 0, &big, sizeof(big)), 0);
	assert_int_equal(fake_pmu_emit_raw(&fake, 0, &pad, sizeof(pad)), 0);
	assert_int_equal(pmc_sampler_poll(s, 0), -EIO);
	assert_int_equal(pmc_sampler_samples(s), 0);
	close_fake(s);

	/* A sample too short for its sample_type. */
	s = open_fake(&cfg, &o);
	assert_int_equal(fake_pmu_emit_raw(&fake, 0, &tiny, sizeof(tiny)), 0);
	assert_int_equal(fake_pmu_emit_raw(&fake, 0, &pad, sizeof(pad)), 0);
	assert_int_equal(pmc_sampler_poll(s, 0), -EIO);
	replay(s);
	assert_int_equal(nrecs, 0);
	close_fake(s);

	/* A COMM whose name does not end inside the record. */
	s = open_fake(&cfg, &o);
	memset(noname, 'A', sizeof(noname));
	big.size = sizeof(noname);
	memcpy(noname, &big, sizeof(big));
	assert_int_equal(fake_pmu_emit_raw(&fake, 0, noname, sizeof(noname)), 0);
	assert_int_equal(pmc_sampler_poll(s, 0), -EIO);
	/* A call chain claiming more frames than the record holds. */
	{
		const uint64_t chain[] = {PERF_CONTEXT_USER, 0x401000};
		struct perf_event_mmap_page *pg;
		unsigned char rec[8 + 8 * 8];

		assert_int_equal(
		    fake_pmu_sample(&fake, 1, &id, PERF_RECORD_MISC_USER, 1, 1, chain, 2), 0);
		pg = fake_pmu_ring(&fake, 1);
		/* Patch nr (after ip, pid/tid, time, cpu, period) to 1000. */
		memcpy(rec, (unsigned char *)pg + pg->data_offset, sizeof(rec));
		((uint64_t *)(rec + 8))[5] = 1000;
		memcpy((unsigned char *)pg + pg->data_offset, rec, sizeof(rec));
		assert_int_equal(pmc_sampler_poll(s, 0), -EIO);
	}
	close_fake(s);
}

struct child_count {
	uint32_t pid;
	size_t samples, records, chains, kernel_frames;
};

static int count_child(const struct pmc_record *rec, void *ud)
{
	struct child_count *c = ud;

	c->records++;
	if (rec->type == PMC_RECORD_SAMPLE && rec->pid == c->pid) {
		c->samples++;
		c->chains += rec->sample.nips > 0;
		c->kernel_frames += rec->sample.nkernel;
	}
	return 0;
}

/* Garbage in the rings, from a fixed seed: every poll either copies records or says
 * -EIO, and what was stored replays; ASan and UBSan builds check that nothing is read out
 * of bounds. */
static void test_garbage(void **state)
{
	struct fake_pmu_config cfg = {.counters = 4, .online = "0-1"};
	struct pmc_sample_opts o = fake_opts();
	uint32_t x = 12345;
	size_t eio = 0, copied = 0;

	(void)state;
	o.pages = 1;
	for (int round = 0; round < 200; round++) {
		struct pmc_sampler *s = open_fake(&cfg, &o);
		unsigned char junk[512];
		size_t len;
		int r;

		for (size_t i = 0; i < sizeof(junk); i++) {
			x = x * 1103515245 + 12345;
			junk[i] = (unsigned char)(x >> 16);
		}
		/* Plausible headers: a known type, a size within what was written. */
		x = x * 1103515245 + 12345;
		len = 8 + (x >> 16) % (sizeof(junk) - 8);
		junk[0] = (unsigned char)(1 + round % 9);
		junk[1] = junk[2] = junk[3] = 0;
		/* Half the rounds one record of the whole length, half a random size. */
		if (round % 4 < 2) {
			junk[6] = (unsigned char)(len & 0xff);
			junk[7] = (unsigned char)(len >> 8);
		} else {
			junk[6] = (unsigned char)((x >> 8) % len);
			junk[7] = 0;
		}
		fake_pmu_ring_seek(&fake, round % 2,
				   fake_pmu_ring(&fake, 0)->data_size - (size_t)(round % 64));
		assert_int_equal(fake_pmu_emit_raw(&fake, round % 2, junk, len), 0);
		r = pmc_sampler_poll(s, 0);
		assert_true(r >= 0 || r == -EIO);
		eio += r == -EIO;
		copied += r > 0;
		replay(s);
		close_fake(s);
	}
	/* The seed gives both outcomes. */
	print_message("garbage: %zu rounds stored records, %zu said -EIO\n", copied, eio);
	assert_true(eio > 0);
	assert_true(copied > 0);
}

/* The kernel: a child spins ~0.3 s of CPU time once told to; its cpu-clock samples. */
static void test_kernel_cpu_clock(void **state)
{
	struct pmc_sample_opts o = {
	    .sz = sizeof(o), .event = "cpu-clock", .freq = 1000, .exclude_kernel = true};
	struct pmc_sampler *s = NULL;
	int go[2], r, status;
	pid_t child, w = 0;
	struct child_count c = {0};

	(void)state;
	assert_int_equal(pipe(go), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct timespec ts;
		char byte;
		volatile uint64_t x = 0;

		close(go[1]);
		if (read(go[0], &byte, 1) != 1)
			_exit(1);
		do {
			for (int i = 0; i < 100000; i++)
				x += (uint64_t)i;
			clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		} while (ts.tv_sec == 0 && ts.tv_nsec < 300000000);
		_exit(x == 0); /* x is used: the loop is not optimized away */
	}
	close(go[0]);
	r = pmc_sampler_open(&o, child, &s, err, sizeof(err));
	if (r == -EACCES || r == -EPERM || r == -ENOENT || r == -EOPNOTSUPP || r == -ENOSYS) {
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
		close(go[1]);
		print_message("sampling denied here (%s): skipped\n", err);
		skip();
	}
	assert_int_equal(r, 0);
	c.pid = (uint32_t)child;
	assert_int_equal(write(go[1], "g", 1), 1);
	close(go[1]);
	while (w == 0) {
		r = pmc_sampler_poll(s, 100);
		assert_true(r >= 0);
		w = waitpid(child, &status, WNOHANG);
	}
	assert_int_equal(w, child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(pmc_sampler_poll(s, 0) >= 0);
	assert_int_equal(pmc_sampler_replay(s, count_child, &c), 0);
	assert_string_equal(pmc_sampler_event(s), "cpu-clock");
	assert_string_equal(pmc_sampler_unit(s), "ns");
	assert_true(pmc_sampler_samples(s) > 0);
	print_message("kernel: %llu samples (%zu of the child), %llu lost, %zu records\n",
		      (unsigned long long)pmc_sampler_samples(s), c.samples,
		      (unsigned long long)pmc_sampler_lost(s), c.records);
	assert_true(c.samples > 0);
	/* A user-space sample's chain starts at least with its ip; exclude_kernel left the
	 * kernel's frames out. */
	assert_true(c.chains > 0);
	assert_int_equal(c.kernel_frames, 0);
	pmc_sampler_close(s);
}

struct exec_seen {
	uint32_t pid;
	size_t samples, comm_exec, mmap_work, build_ids;
};

static int see_exec(const struct pmc_record *rec, void *ud)
{
	struct exec_seen *e = ud;
	size_t n;

	if (rec->pid != e->pid)
		return 0;
	switch (rec->type) {
	case PMC_RECORD_SAMPLE:
		e->samples++;
		break;
	case PMC_RECORD_COMM:
		e->comm_exec += rec->comm.exec && strcmp(rec->comm.comm, "pmc-work") == 0;
		break;
	case PMC_RECORD_MMAP:
		n = strlen(rec->mmap.filename);
		if (n >= 9 && strcmp(rec->mmap.filename + n - 9, "/pmc-work") == 0) {
			e->mmap_work++;
			e->build_ids += rec->mmap.build_id != NULL;
		}
		break;
	default:
		break;
	}
	return 0;
}

/* The kernel, enable_on_exec: a child execs pmc-work, which spins 200 ms of CPU time;
 * the exec's COMM and the program's MMAP2 come with the samples. */
static void test_kernel_enable_on_exec(void **state)
{
	struct pmc_sample_opts o = {.sz = sizeof(o),
				    .event = "cpu-clock",
				    .freq = 1000,
				    .exclude_kernel = true,
				    .enable_on_exec = true};
	struct pmc_sampler *s = NULL;
	struct exec_seen e = {0};
	int go[2], r, status;
	pid_t child, w = 0;

	(void)state;
	if (access(PMC_TEST_WORK, X_OK) != 0) {
		print_message("%s not built: skipped\n", PMC_TEST_WORK);
		skip();
	}
	assert_int_equal(pipe(go), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		char byte;

		close(go[1]);
		if (read(go[0], &byte, 1) != 1)
			_exit(1);
		execl(PMC_TEST_WORK, "pmc-work", "spin", "200", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	r = pmc_sampler_open(&o, child, &s, err, sizeof(err));
	if (r == -EACCES || r == -EPERM || r == -ENOENT || r == -EOPNOTSUPP || r == -ENOSYS) {
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
		close(go[1]);
		print_message("sampling denied here (%s): skipped\n", err);
		skip();
	}
	assert_int_equal(r, 0);
	e.pid = (uint32_t)child;
	assert_int_equal(write(go[1], "g", 1), 1);
	close(go[1]);
	while (w == 0) {
		assert_true(pmc_sampler_poll(s, 100) >= 0);
		w = waitpid(child, &status, WNOHANG);
	}
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(pmc_sampler_poll(s, 0) >= 0);
	assert_int_equal(pmc_sampler_replay(s, see_exec, &e), 0);
	print_message("kernel, exec: %zu samples, %zu COMM exec, %zu MMAP of pmc-work (%zu with "
		      "build-id), %llu lost\n",
		      e.samples, e.comm_exec, e.mmap_work, e.build_ids,
		      (unsigned long long)pmc_sampler_lost(s));
	assert_true(e.samples > 0);
	assert_true(e.comm_exec > 0);
	assert_true(e.mmap_work > 0);
	pmc_sampler_close(s);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_attributes),
	    cmocka_unit_test(test_event_fallback),
	    cmocka_unit_test(test_event_names),
	    cmocka_unit_test(test_build_id_fallback),
	    cmocka_unit_test(test_eacces),
	    cmocka_unit_test(test_emfile),
	    cmocka_unit_test(test_bad_options),
	    cmocka_unit_test(test_callchain_markers),
	    cmocka_unit_test(test_hypervisor_and_guest_frames),
	    cmocka_unit_test(test_side_band),
	    cmocka_unit_test(test_wrap_around),
	    cmocka_unit_test(test_lost),
	    cmocka_unit_test(test_throttle),
	    cmocka_unit_test(test_time_order_across_cpus),
	    cmocka_unit_test(test_replay_stops),
	    cmocka_unit_test(test_corrupt_records),
	    cmocka_unit_test(test_garbage),
	    cmocka_unit_test(test_frequency_clamped),
	    cmocka_unit_test(test_flush_in_rounds),
	    cmocka_unit_test(test_flush_many_rounds),
	    cmocka_unit_test(test_store_bound_leaves_records_in_the_ring),
	    cmocka_unit_test(test_ring_size_and_mlock),
	    cmocka_unit_test(test_attach_threads),
	    cmocka_unit_test(test_attach_thread_gone),
	    cmocka_unit_test(test_attach_rate_lowered),
	    cmocka_unit_test(test_set_output_rules),
	    cmocka_unit_test(test_kernel_cpu_clock),
	    cmocka_unit_test(test_kernel_enable_on_exec),
	};

	pmc_test_args(argc, argv, tests);
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	char rm[96];

	snprintf(rm, sizeof(rm), "rm -rf /tmp/pmc-sample-proc-%d", (int)getpid());
	if (system(rm) != 0)
		fprintf(stderr, "could not remove /tmp/pmc-sample-proc-%d\n", (int)getpid());
	return failed;
}

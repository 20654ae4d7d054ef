/* The runner behind `pmcbench run` on the perf backend, driven through the emulated PMU
 * (fake_pmu.h): real runs of pmc-work, with counters opened in the child before exec,
 * read after wait4, recorded per run with status, raw and scaled values, and the derived
 * metrics computed per run. A machine without a PMU can only test these paths this way.
 * Duet runs use the kernel's software events instead: the emulated PMU serves one
 * thread. */
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <math.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "counters/perf/counters.h"
#include "counters/perf/events.h"
#include "counters/valgrind/valgrind.h"
#include "core/result.h"
#include "run/runner.h"
#include "tests/fake_pmu.h"
#include "tests/helpers.h"

#define Q FAKE_PMU_QUANTUM_NS
#define MAX_RUNS 8

/* The fake only lets time pass when told to. This layer over it plays the part of the
 * measured task: the first read after a run's counters were opened (enable_on_exec, so
 * in the child) stands for "the child exec'd, ran ticks[k] quanta and was reaped". The
 * open runs in the child, which shares this memory (CLONE_VM), so the flag it sets is
 * seen by the parent's read. Each run gets a different number of quanta, so a sample
 * recorded in the wrong run or mixed up with another run's shows. */
struct task_sim {
	struct pmc_sys sys;
	struct fake_pmu *f;
	bool pending;
	unsigned ticks[MAX_RUNS];
	size_t nsim; /* runs simulated so far */
	/* A hybrid CPU's task: 3/5 of each run's quanta on CPU 0, the rest on CPU 2. */
	bool migrate;
};

static struct fake_pmu fake;
static struct task_sim sim;

static int sim_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		    unsigned long flags)
{
	struct task_sim *s = ctx;
	int r = s->f->sys.event_open(s->f->sys.ctx, attr, pid, cpu, group_fd, flags);

	if (r >= 0 && attr->enable_on_exec)
		s->pending = true;
	return r;
}

static void sim_run(struct task_sim *s);

/* The runner disables its system-wide events once the child is reaped: the child ran
 * before that. */
static int sim_ioctl(void *ctx, int fd, unsigned long request, unsigned long arg)
{
	struct task_sim *s = ctx;

	if (request == PERF_EVENT_IOC_DISABLE)
		sim_run(s);
	return s->f->sys.ioctl(s->f->sys.ctx, fd, request, arg);
}

static ssize_t sim_read(void *ctx, int fd, void *buf, size_t len)
{
	struct task_sim *s = ctx;

	sim_run(s);
	return s->f->sys.read(s->f->sys.ctx, fd, buf, len);
}

static void sim_run(struct task_sim *s)
{
	if (s->pending) {
		s->pending = false;
		unsigned t = s->nsim < MAX_RUNS ? s->ticks[s->nsim] : 1;

		fake_pmu_exec(s->f);
		if (s->migrate) {
			fake_pmu_tick_on(s->f, 0, t * 3 / 5);
			fake_pmu_tick_on(s->f, 2, t - t * 3 / 5);
		} else {
			fake_pmu_tick(s->f, t);
		}
		s->nsim++;
	}
}

static int sim_close(void *ctx, int fd)
{
	struct task_sim *s = ctx;

	return s->f->sys.close(s->f->sys.ctx, fd);
}

/* Resets the fake and the task; run k lasts ticks(k) = a + b * k quanta. */
static void sim_init(const struct fake_pmu_config *cfg, unsigned a, unsigned b)
{
	fake_pmu_init(&fake, cfg);
	memset(&sim, 0, sizeof(sim));
	sim.f = &fake;
	sim.sys = (struct pmc_sys){.event_open = sim_open,
				   .ioctl = sim_ioctl,
				   .read = sim_read,
				   .close = sim_close,
				   .ctx = &sim};
	for (unsigned k = 0; k < MAX_RUNS; k++)
		sim.ticks[k] = a + b * k;
}

static const struct pmc_event *event_named(const struct pmc_event_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->events[i].name, name) == 0)
			return &l->events[i];
	fail_msg("no event %s in the list", name);
	return NULL;
}

static uint64_t rate(const struct pmc_event_list *l, const char *name)
{
	const struct pmc_event *ev = event_named(l, name);

	return fake_pmu_rate(ev->type, ev->config);
}

/* Opens of the event the runner made in measured runs: those have inherit set, the
 * copy it keeps open on itself (never enabled, never read) has not. */
static size_t run_opens(const struct pmc_event_list *l, const char *name)
{
	const struct pmc_event *ev = event_named(l, name);
	size_t n = 0;

	for (size_t i = 0; i < fake.nlog; i++)
		n += fake.log[i].attr.type == ev->type && fake.log[i].attr.config == ev->config &&
		     fake.log[i].attr.inherit;
	return n;
}

static char *work_argv[8];

static struct pmc_runner_cmd work_cmd(const char *display, const char *a1, const char *a2)
{
	work_argv[0] = (char *)PMC_TEST_WORK;
	work_argv[1] = (char *)a1;
	work_argv[2] = (char *)a2;
	work_argv[3] = NULL;
	return (struct pmc_runner_cmd){
	    .name = "work", .display = display, .argv = work_argv, .path = PMC_TEST_WORK};
}

static struct pmc_runner_opts perf_opts(const struct pmc_event_list *l, size_t runs)
{
	return (struct pmc_runner_opts){.sz = sizeof(struct pmc_runner_opts),
					.runs = runs,
					.backend = PMC_BACKEND_PERF,
					.events = l,
					.sys = &sim.sys};
}

static struct pmc_result *run_ok(const struct pmc_runner_cmd *cmd, const struct pmc_runner_opts *o)
{
	struct pmc_result *res = t_result("perf");
	char err[512] = "";
	int r;

	assert_non_null(res);
	r = pmc_runner_run(cmd, 1, o, res, err, sizeof(err));
	if (r != 0)
		print_error("pmc_runner_run: %s\n", err);
	assert_int_equal(r, 0);
	assert_int_equal(res->nbench, 1);
	assert_int_equal(res->benchmarks[0].nruns, o->runs);
	/* Every descriptor the runner opened on the PMU was closed, and only once. */
	assert_int_equal(fake.nopen, 0);
	assert_int_equal(fake.bad_closes, 0);
	return res;
}

static const struct pmc_metric *metric(const struct pmc_result *res, const char *id)
{
	const struct pmc_metric *m = pmc_benchmark_find_metric(&res->benchmarks[0], id);

	if (!m)
		fail_msg("no metric %s", id);
	return m;
}

static const char *status_name(enum pmc_status st)
{
	return pmc_status_name(st);
}

static void assert_status(const struct pmc_metric *m, size_t i, enum pmc_status want)
{
	assert_true(m->has_status);
	if (m->status[i] != want)
		print_error("%s run %zu: status %s, expected %s\n", m->id, i,
			    status_name(m->status[i]), status_name(want));
	assert_int_equal(m->status[i], want);
}

static void assert_double(const char *what, size_t i, double got, double want)
{
	if (!(got == want))
		print_error("%s run %zu: %.17g, expected %.17g\n", what, i, got, want);
	assert_true(got == want);
}

/* A counted event: the fake's count for the run's quanta, raw == scaled, whole time. */
static void assert_counted(const struct pmc_metric *m, uint64_t per_q)
{
	assert_int_equal(m->n, sim.nsim);
	assert_int_equal(m->error, 0);
	for (size_t i = 0; i < m->n; i++) {
		uint64_t t = sim.ticks[i];

		assert_status(m, i, PMC_STATUS_COUNTED);
		assert_int_equal(m->raw[i].value, per_q * t);
		assert_int_equal(m->raw[i].enabled, t * Q);
		assert_int_equal(m->raw[i].running, t * Q);
		assert_double(m->id, i, m->values[i], (double)(per_q * t));
	}
}

/* A missing event: no number in any run, the status and errno docs/events.md
 * asks for ("a number that was not measured is never stored as a number"). */
static void assert_missing(const struct pmc_metric *m, size_t runs, enum pmc_status st, int error)
{
	assert_int_equal(m->n, runs);
	assert_int_equal(m->error, error);
	for (size_t i = 0; i < runs; i++) {
		assert_status(m, i, st);
		if (!isnan(m->values[i]))
			print_error("%s run %zu: %g, expected no value\n", m->id, i, m->values[i]);
		assert_true(isnan(m->values[i]));
		assert_int_equal(m->raw[i].value, 0);
		assert_int_equal(m->raw[i].running, 0);
	}
}

/* wall-time, user-time, system-time and max-rss: one sample per run, no counter status.
 * max-rss is the command's or not measured, with the note saying why (below). */
static void assert_rusage(const struct pmc_result *res, size_t runs)
{
	static const char *const ids[] = {"wall-time", "user-time", "system-time", "max-rss"};
	const struct pmc_metric *rss = metric(res, "max-rss");

	for (size_t k = 0; k < 4; k++) {
		const struct pmc_metric *m = metric(res, ids[k]);

		assert_int_equal(m->n, runs);
		assert_false(m->has_status);
		for (size_t i = 0; i < runs && k < 3; i++)
			assert_false(isnan(m->values[i]));
	}
	/* Every process has a resident set; 0 would mean wait4's figures were lost. */
	for (size_t i = 0; i < runs; i++) {
		assert_true(isnan(rss->values[i]) || rss->values[i] > 0);
		if (isnan(rss->values[i]))
			assert_non_null(rss->note);
	}
}

static const struct fake_pmu_config pmu8 = {.counters = 8, .paranoid = 2, .privileged = true};
static const char *const defaults = "{cycles,instructions},{branches,branch-misses},task-clock";

/* Enough counters: every run counted, the fake's exact values, ipc and branch-miss-rate
 * per run from that run's counts, warm-up runs neither measured nor recorded. */
static void test_counted(void **state)
{
	struct pmc_event_list *l = t_events(defaults);
	struct pmc_runner_cmd cmd = work_cmd("pmc-work loop 1000", "loop", "1000");
	struct pmc_runner_opts o = perf_opts(l, 3);
	const struct pmc_metric *cyc, *ins, *br, *bm, *ipc, *bmr;
	struct pmc_result *res;

	(void)state;
	sim_init(&pmu8, 3, 2);
	o.warmup = 1;
	res = run_ok(&cmd, &o);
	assert_int_equal(sim.nsim, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(res->benchmarks[0].runs[i].exit_code, 0);
		assert_int_equal(res->benchmarks[0].runs[i].term_signal, 0);
	}
	/* The counters were opened in the measured runs only, on the child, by its exec. */
	for (size_t i = 0; i < l->n; i++)
		assert_int_equal(run_opens(l, l->events[i].name), 3);
	for (size_t i = 0; i < fake.nlog; i++) {
		const struct fake_pmu_open *op = &fake.log[i];

		if (!op->attr.inherit)
			continue;
		assert_int_equal(op->pid, 0);
		assert_int_equal(op->cpu, -1);
		assert_int_equal(op->attr.enable_on_exec, op->group_fd == -1);
		assert_int_equal(op->attr.disabled, op->group_fd == -1);
	}
	cyc = metric(res, "cycles");
	ins = metric(res, "instructions");
	br = metric(res, "branches");
	bm = metric(res, "branch-misses");
	assert_counted(cyc, rate(l, "cycles"));
	assert_counted(ins, rate(l, "instructions"));
	assert_counted(br, rate(l, "branches"));
	assert_counted(bm, rate(l, "branch-misses"));
	assert_counted(metric(res, "task-clock"), rate(l, "task-clock"));

	ipc = metric(res, "ipc");
	bmr = metric(res, "branch-miss-rate");
	assert_true(ipc->derived);
	assert_false(ipc->cross_group);
	assert_false(ipc->has_status);
	assert_true(bmr->derived);
	assert_false(bmr->cross_group);
	assert_int_equal(ipc->n, 3);
	assert_int_equal(bmr->n, 3);
	for (size_t i = 0; i < 3; i++) {
		double t = sim.ticks[i];
		double c = (double)rate(l, "cycles") * t, n = (double)rate(l, "instructions") * t;
		double b = (double)rate(l, "branches") * t,
		       m = (double)rate(l, "branch-misses") * t;

		assert_double("ipc", i, ipc->values[i], n / c);
		assert_double("branch-miss-rate", i, bmr->values[i], 100.0 * m / b);
	}
	/* cycles and task-clock are in different groups. */
	assert_true(metric(res, "ghz")->cross_group);
	assert_rusage(res, 3);
	pmc_result_free(res);
	pmc_event_list_free(l);
}

/* A hybrid CPU (docs/events.md, "Hybrid CPUs"): every run spends 40% of its time on
 * E-cores. cycles is the exact sum of both core types, counted, with each core type's
 * count as a part of the metric; cpu_core/cycles/ is the P-cores' count, restricted, not
 * extrapolated. */
static void test_hybrid_parts(void **state)
{
	static const struct fake_pmu_config adl = {
	    .counters = 8,
	    .privileged = true,
	    .cores = {{"cpu_core", PERF_TYPE_RAW, 0x3, 8}, {"cpu_atom", 10, 0xc, 6}},
	    .ncores = 2,
	};
	struct pmc_event_list_opts eo = {.sz = sizeof(eo)};
	struct pmc_runner_cmd cmd = work_cmd("pmc-work loop 1000", "loop", "1000");
	struct pmc_event_list *l = NULL;
	struct pmc_runner_opts o;
	const struct pmc_metric *m;
	struct pmc_result *res;
	char root[PATH_MAX], err[256];
	uint64_t pc = fake_pmu_rate(PERF_TYPE_RAW, PERF_COUNT_HW_CPU_CYCLES),
		 ac = fake_pmu_rate(10, PERF_COUNT_HW_CPU_CYCLES),
		 pe = fake_pmu_rate(PERF_TYPE_RAW, 0x3c);

	(void)state;
	sim_init(&adl, 5, 5);
	sim.migrate = true;
	assert_int_equal(fake_pmu_sysfs(&adl, root), 0);
	sim.sys.sysfs_root = root;
	eo.sysfs_root = root;
	assert_int_equal(pmc_event_list_parse("cycles,cpu_core/cycles/", &eo, &l, err, sizeof(err)),
			 0);
	o = perf_opts(l, 3);
	res = run_ok(&cmd, &o);
	m = metric(res, "cycles");
	assert_false(m->restricted);
	assert_int_equal(m->nparts, 2);
	assert_string_equal(m->parts[0].id, "cpu_core");
	assert_string_equal(m->parts[1].id, "cpu_atom");
	for (size_t i = 0; i < 3; i++) {
		uint64_t t = sim.ticks[i], p = t * 3 / 5, a = t - p;

		assert_status(m, i, PMC_STATUS_COUNTED);
		assert_int_equal(m->raw[i].value, p * pc + a * ac);
		assert_int_equal(m->raw[i].running, t * Q);
		assert_double("cycles", i, m->values[i], (double)(p * pc + a * ac));
		assert_status(&m->parts[0], i, PMC_STATUS_COUNTED);
		assert_double("cpu_core", i, m->parts[0].values[i], (double)(p * pc));
		assert_int_equal(m->parts[0].raw[i].running, p * Q);
		assert_double("cpu_atom", i, m->parts[1].values[i], (double)(a * ac));
	}
	m = metric(res, "cpu_core/cycles/");
	assert_true(m->restricted);
	assert_int_equal(m->nparts, 1);
	for (size_t i = 0; i < 3; i++) {
		uint64_t p = sim.ticks[i] * 3 / 5;

		assert_status(m, i, PMC_STATUS_COUNTED);
		assert_double("cpu_core/cycles/", i, m->values[i], (double)(p * pe));
	}
	/* The software events are what they were. */
	assert_int_equal(metric(res, "wall-time")->nparts, 0);
	pmc_result_free(res);
	pmc_event_list_free(l);
	fake_pmu_sysfs_remove(root);
}

/* Uncore and RAPL (docs/events.md, "Uncore and RAPL events"): the runner opens the
 * energy event itself on CPU 0 (pid -1, no inherit), enabled around the run; the metric
 * is in joules (the count times sysfs's scale), with the note that it counts the whole
 * package; the child's own events count as before. Unprivileged under paranoid 1 it is
 * denied, and the rest of the run still counts. */
static void test_system_wide(void **state)
{
	struct fake_pmu_config cfg = pmu8;
	struct pmc_event_list_opts eo = {.sz = sizeof(eo)};
	struct pmc_runner_cmd cmd = work_cmd("pmc-work loop 1000", "loop", "1000");
	struct pmc_event_list *l = NULL;
	struct pmc_runner_opts o;
	const struct pmc_metric *m;
	struct pmc_result *res;
	char root[PATH_MAX], err[256];
	uint64_t energy = fake_pmu_rate(21, 0x02);
	size_t opens = 0;

	(void)state;
	cfg.power_type = 21;
	sim_init(&cfg, 5, 5);
	assert_int_equal(fake_pmu_sysfs(&cfg, root), 0);
	sim.sys.sysfs_root = root;
	eo.sysfs_root = root;
	assert_int_equal(
	    pmc_event_list_parse("task-clock,power/energy-pkg/", &eo, &l, err, sizeof(err)), 0);
	o = perf_opts(l, 3);
	res = run_ok(&cmd, &o);
	assert_counted(metric(res, "task-clock"), rate(l, "task-clock"));
	m = metric(res, "power/energy-pkg/");
	assert_string_equal(m->unit, "Joules");
	assert_non_null(m->note);
	assert_non_null(strstr(m->note, "system-wide"));
	assert_int_equal(m->n, 3);
	for (size_t i = 0; i < 3; i++) {
		uint64_t t = sim.ticks[i];

		assert_status(m, i, PMC_STATUS_COUNTED);
		assert_int_equal(m->raw[i].value, t * energy);
		assert_int_equal(m->raw[i].running, t * Q);
		assert_double("energy-pkg", i, m->values[i], (double)(t * energy) * 0x1p-32);
	}
	for (size_t i = 0; i < fake.nlog; i++) {
		const struct fake_pmu_open *op = &fake.log[i];

		if (op->attr.type != 21)
			continue;
		opens++;
		assert_int_equal(op->pid, -1);
		assert_int_equal(op->cpu, 0);
		assert_int_equal(op->attr.inherit, 0);
		assert_int_equal(op->attr.enable_on_exec, 0);
		assert_true(op->result >= 0);
	}
	/* The runner's copy that keeps the kernel's keys on, and one per run. */
	assert_int_equal(opens, 1 + 3);
	pmc_result_free(res);

	cfg.privileged = false;
	cfg.paranoid = 1;
	sim_init(&cfg, 5, 5);
	sim.sys.sysfs_root = root;
	res = run_ok(&cmd, &o);
	assert_counted(metric(res, "task-clock"), rate(l, "task-clock"));
	assert_missing(metric(res, "power/energy-pkg/"), 3, PMC_STATUS_DENIED, EACCES);
	m = metric(res, "power/energy-pkg/");
	assert_non_null(m->note);
	assert_non_null(strstr(m->note, "CAP_PERFMON"));
	pmc_result_free(res);
	pmc_event_list_free(l);

	/* In a group with the task's events: counted all the same, opened apart, and the
	 * note says so. */
	cfg.privileged = true;
	sim_init(&cfg, 5, 5);
	sim.sys.sysfs_root = root;
	l = NULL;
	assert_int_equal(
	    pmc_event_list_parse("{task-clock,power/energy-pkg/}", &eo, &l, err, sizeof(err)), 0);
	o = perf_opts(l, 2);
	res = run_ok(&cmd, &o);
	assert_counted(metric(res, "task-clock"), rate(l, "task-clock"));
	m = metric(res, "power/energy-pkg/");
	assert_status(m, 0, PMC_STATUS_COUNTED);
	assert_double("energy-pkg", 0, m->values[0], (double)(sim.ticks[0] * energy) * 0x1p-32);
	assert_non_null(strstr(m->note, "opened apart from its group"));
	pmc_result_free(res);
	pmc_event_list_free(l);
	fake_pmu_sysfs_remove(root);
}

/* Two groups of two on two counters: each group is on the PMU every other quantum, so
 * running is half of enabled, raw values are half, and scaled values are what a
 * dedicated counter would have counted. A ratio inside a group is exact; one across
 * groups is marked. */
static void test_multiplexed(void **state)
{
	struct pmc_event_list *l = t_events(defaults);
	struct pmc_runner_cmd cmd = work_cmd("pmc-work loop 1000", "loop", "1000");
	struct pmc_runner_opts o = perf_opts(l, 3);
	struct fake_pmu_config cfg = pmu8;
	const char *const hw[] = {"cycles", "instructions", "branches", "branch-misses"};
	const struct pmc_metric *ipc, *ghz, *tc;
	struct pmc_result *res;

	(void)state;
	cfg.counters = 2;
	/* An even number of quanta per run, so each group runs exactly half of them. */
	sim_init(&cfg, 4, 2);
	res = run_ok(&cmd, &o);
	for (size_t e = 0; e < 4; e++) {
		const struct pmc_metric *m = metric(res, hw[e]);
		uint64_t per_q = rate(l, hw[e]);

		assert_int_equal(m->n, 3);
		for (size_t i = 0; i < 3; i++) {
			uint64_t t = sim.ticks[i];

			assert_status(m, i, PMC_STATUS_SCALED);
			assert_int_equal(m->raw[i].value, per_q * t / 2);
			assert_int_equal(m->raw[i].enabled, t * Q);
			assert_int_equal(m->raw[i].running, t / 2 * Q);
			/* docs/events.md, "Scaling": value * enabled / running. */
			assert_double(hw[e], i, m->values[i], (double)(per_q * t));
		}
	}
	tc = metric(res, "task-clock");
	assert_counted(tc, rate(l, "task-clock"));
	ipc = metric(res, "ipc");
	ghz = metric(res, "ghz");
	assert_false(ipc->cross_group);
	assert_true(ghz->cross_group);
	for (size_t i = 0; i < 3; i++) {
		double t = sim.ticks[i];

		assert_double("ipc", i, ipc->values[i],
			      (double)rate(l, "instructions") / (double)rate(l, "cycles"));
		assert_double("ghz", i, ghz->values[i],
			      (double)rate(l, "cycles") * t / tc->values[i]);
	}
	pmc_result_free(res);
	pmc_event_list_free(l);

	/* cycles and instructions as groups of their own on one counter: ipc is a ratio
	 * of two extrapolations and says so. */
	l = t_events("cycles,instructions");
	o = perf_opts(l, 2);
	cfg.counters = 1;
	sim_init(&cfg, 2, 4);
	res = run_ok(&cmd, &o);
	ipc = metric(res, "ipc");
	assert_true(ipc->derived);
	assert_true(ipc->cross_group);
	for (size_t i = 0; i < 2; i++) {
		assert_status(metric(res, "cycles"), i, PMC_STATUS_SCALED);
		assert_status(metric(res, "instructions"), i, PMC_STATUS_SCALED);
		assert_double("ipc", i, ipc->values[i],
			      (double)rate(l, "instructions") / (double)rate(l, "cycles"));
	}
	pmc_result_free(res);
	pmc_event_list_free(l);
}

/* No PMU (our development machines): hardware events unsupported with ENOENT in every
 * run, no number and no ratio made of them; software events still counted; and the
 * failing opens are never repeated by the runs: the runner's disabled copy of the
 * groups, opened once before the first run, already found them. */
static void test_no_pmu(void **state)
{
	struct pmc_event_list *l = t_events(defaults);
	struct pmc_runner_cmd cmd = work_cmd("pmc-work loop 1000", "loop", "1000");
	struct pmc_runner_opts o = perf_opts(l, 4);
	struct fake_pmu_config cfg = pmu8;
	const char *const hw[] = {"cycles", "instructions", "branches", "branch-misses"};
	struct pmc_result *res;

	(void)state;
	cfg.no_pmu = true;
	sim_init(&cfg, 2, 3);
	res = run_ok(&cmd, &o);
	for (size_t e = 0; e < 4; e++) {
		assert_missing(metric(res, hw[e]), 4, PMC_STATUS_UNSUPPORTED, ENOENT);
		assert_int_equal(run_opens(l, hw[e]), 0);
	}
	assert_int_equal(run_opens(l, "task-clock"), 4);
	assert_counted(metric(res, "task-clock"), rate(l, "task-clock"));
	assert_null(pmc_benchmark_find_metric(&res->benchmarks[0], "ipc"));
	assert_null(pmc_benchmark_find_metric(&res->benchmarks[0], "branch-miss-rate"));
	assert_null(pmc_benchmark_find_metric(&res->benchmarks[0], "ghz"));
	assert_rusage(res, 4);
	pmc_result_free(res);
	pmc_event_list_free(l);
}

/* perf_event_paranoid=4 for an unprivileged user (GitHub's hosted runners, docs/ci.md):
 * every event denied with EACCES in every run, task-clock too, none written as 0 and no
 * ratio made of them, never opened by the runs again; what wait4 measures still is. */
static void test_every_event_denied(void **state)
{
	struct pmc_event_list *l = t_events(defaults);
	struct pmc_runner_cmd cmd = work_cmd("pmc-work loop 1000", "loop", "1000");
	struct pmc_runner_opts o = perf_opts(l, 3);
	struct fake_pmu_config cfg = {.counters = 8, .paranoid = 4};
	const char *const all[] = {"cycles", "instructions", "branches", "branch-misses",
				   "task-clock"};
	struct pmc_result *res;

	(void)state;
	sim_init(&cfg, 2, 3);
	res = run_ok(&cmd, &o);
	for (size_t e = 0; e < 5; e++) {
		assert_missing(metric(res, all[e]), 3, PMC_STATUS_DENIED, EACCES);
		assert_int_equal(run_opens(l, all[e]), 0);
	}
	assert_null(pmc_benchmark_find_metric(&res->benchmarks[0], "ipc"));
	assert_null(pmc_benchmark_find_metric(&res->benchmarks[0], "ghz"));
	assert_rusage(res, 3);
	pmc_result_free(res);
	pmc_event_list_free(l);
}

/* A pinned group the PMU cannot schedule reads 0 bytes: not counted, no number, no
 * errno (it opened), while the group that fits is counted. */
static void test_pinned_unschedulable(void **state)
{
	struct pmc_event_list *l = t_events(defaults);
	struct pmc_runner_cmd cmd = work_cmd("pmc-work loop 1000", "loop", "1000");
	struct pmc_runner_opts o = perf_opts(l, 3);
	struct fake_pmu_config cfg = pmu8;
	struct pmc_result *res;

	(void)state;
	cfg.counters = 2;
	cfg.pinned = true;
	sim_init(&cfg, 3, 1);
	res = run_ok(&cmd, &o);
	assert_counted(metric(res, "cycles"), rate(l, "cycles"));
	assert_counted(metric(res, "instructions"), rate(l, "instructions"));
	assert_missing(metric(res, "branches"), 3, PMC_STATUS_NOT_COUNTED, 0);
	assert_missing(metric(res, "branch-misses"), 3, PMC_STATUS_NOT_COUNTED, 0);
	/* Opened (not unsupported), so they are opened again in every run. */
	assert_int_equal(run_opens(l, "branches"), 3);
	assert_non_null(pmc_benchmark_find_metric(&res->benchmarks[0], "ipc"));
	assert_null(pmc_benchmark_find_metric(&res->benchmarks[0], "branch-miss-rate"));
	pmc_result_free(res);
	pmc_event_list_free(l);
}

/* A command that exits 3 is an error naming the run, unless failures are to be
 * recorded, and then every run is, with its exit code and its counts. */
static size_t rounds_seen[8], nseen;

/* Stops after the third measured round; records what it was shown. */
static bool stop_at_three(void *ud, const struct pmc_result *r, size_t round)
{
	(void)ud;
	if (nseen < 8)
		rounds_seen[nseen++] = round;
	assert_int_equal(r->benchmarks[0].nruns, round);
	assert_int_equal(r->benchmarks[1].nruns, round);
	return round == 3;
}

/* Several commands run in rounds: each run records its round, the result its design, and
 * round_done can end the run early (--runs auto). */
static void test_rounds_and_early_stop(void **state)
{
	struct pmc_event_list *l = t_events("task-clock");
	char *argv_a[] = {(char *)PMC_TEST_WORK, (char *)"loop", (char *)"10", NULL};
	char *argv_b[] = {(char *)PMC_TEST_WORK, (char *)"loop", (char *)"20", NULL};
	struct pmc_runner_cmd cmds[2] = {
	    {.name = "a", .display = "a", .argv = argv_a, .path = PMC_TEST_WORK},
	    {.name = "b", .display = "b", .argv = argv_b, .path = PMC_TEST_WORK},
	};
	struct pmc_runner_opts o = perf_opts(l, 10);
	struct pmc_result *res = t_result("perf");
	char err[512] = "";

	(void)state;
	sim_init(&pmu8, 2, 1);
	o.warmup = 1;
	o.round_done = stop_at_three;
	nseen = 0;
	assert_int_equal(pmc_runner_run(cmds, 2, &o, res, err, sizeof(err)), 0);
	/* Asked after rounds 1 and 2 (went on) and 3 (stopped); never during warm-up. */
	assert_int_equal(nseen, 3);
	assert_int_equal(rounds_seen[0], 1);
	assert_int_equal(rounds_seen[2], 3);
	assert_string_equal(res->design.mode, "interleaved");
	assert_int_equal(res->design.rounds, 3);
	for (size_t b = 0; b < 2; b++) {
		assert_int_equal(res->benchmarks[b].nruns, 3);
		for (size_t i = 0; i < 3; i++)
			assert_int_equal(res->benchmarks[b].runs[i].round, i + 1);
	}
	pmc_result_free(res);

	/* One command: no rounds, no design. */
	res = t_result("perf");
	o.round_done = NULL;
	o.runs = 2;
	assert_int_equal(pmc_runner_run(cmds, 1, &o, res, err, sizeof(err)), 0);
	assert_null(res->design.mode);
	assert_int_equal(res->benchmarks[0].runs[1].round, 0);
	pmc_result_free(res);
	pmc_event_list_free(l);
}

/* mib MiB of this process's memory, written so that it is resident. */
static char *hold_resident(size_t mib)
{
	size_t len = mib << 20;
	char *p = malloc(len);

	assert_non_null(p);
	for (size_t i = 0; i < len; i += 4096)
		((volatile char *)p)[i] = 1;
	return p;
}

/* A command's max-rss is its own peak, never pmcbench's: the kernel keeps the peak of the
 * image an exec replaces in ru_maxrss, and the command starts in our memory. So a
 * command that needs less than we do is "not measured", with a note that says why, and
 * one that needs more has its own figure. */
static void test_max_rss_is_the_commands(void **state)
{
	struct pmc_event_list *l = t_events(defaults);
	struct pmc_runner_opts o = perf_opts(l, 3);
	struct pmc_runner_cmd cmd;
	char *held;
	const struct pmc_metric *m;
	struct pmc_result *res;

	(void)state;
	held = hold_resident(64);
	cmd = work_cmd("pmc-work loop 1", "loop", "1");
	sim_init(&pmu8, 2, 1);
	res = run_ok(&cmd, &o);
	m = metric(res, "max-rss");
	assert_int_equal(m->n, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_true(isnan(m->values[i]));
	}
	assert_non_null(m->note);
	assert_non_null(strstr(m->note, "pmcbench's own"));
	pmc_result_free(res);

	/* 40,000 pages written: 156 MiB, above our 64. */
	cmd = work_cmd("pmc-work touch 40000", "touch", "40000");
	sim_init(&pmu8, 2, 1);
	res = run_ok(&cmd, &o);
	m = metric(res, "max-rss");
	for (size_t i = 0; i < 3; i++)
		assert_true(m->values[i] >= 40000.0 * 4096);
	assert_null(m->note);
	pmc_result_free(res);
	pmc_event_list_free(l);
	free(held);
}

static void test_failing_command(void **state)
{
	struct pmc_event_list *l = t_events(defaults);
	struct pmc_runner_cmd cmd = work_cmd("pmc-work exit 3", "exit", "3");
	struct pmc_runner_opts o = perf_opts(l, 3);
	struct pmc_result *res;
	char err[512] = "";
	int r;

	(void)state;
	sim_init(&pmu8, 2, 1);
	res = t_result("perf");
	assert_non_null(res);
	r = pmc_runner_run(&cmd, 1, &o, res, err, sizeof(err));
	assert_int_equal(r, -ECHILD);
	if (!strstr(err, "measured run 1 of 'pmc-work exit 3' exited with status 3"))
		print_error("err: %s\n", err);
	assert_non_null(strstr(err, "measured run 1 of 'pmc-work exit 3' exited with status 3"));
	assert_int_equal(res->benchmarks[0].nruns, 0);
	assert_int_equal(fake.nopen, 0);
	pmc_result_free(res);

	/* A failing warm-up run stops the benchmark too, and says it was a warm-up. */
	sim_init(&pmu8, 2, 1);
	o.warmup = 2;
	res = t_result("perf");
	assert_non_null(res);
	err[0] = '\0';
	r = pmc_runner_run(&cmd, 1, &o, res, err, sizeof(err));
	assert_int_equal(r, -ECHILD);
	if (!strstr(err, "warm-up run 1 of 'pmc-work exit 3'"))
		print_error("err: %s\n", err);
	assert_non_null(strstr(err, "warm-up run 1 of 'pmc-work exit 3'"));
	assert_int_equal(fake.nopen, 0);
	pmc_result_free(res);

	sim_init(&pmu8, 2, 1);
	o.warmup = 0;
	o.ignore_failure = true;
	res = run_ok(&cmd, &o);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(res->benchmarks[0].runs[i].exit_code, 3);
		assert_int_equal(res->benchmarks[0].runs[i].term_signal, 0);
		assert_false(res->benchmarks[0].runs[i].timed_out);
	}
	assert_counted(metric(res, "instructions"), rate(l, "instructions"));
	assert_rusage(res, 3);
	pmc_result_free(res);
	pmc_event_list_free(l);
}

/* ---- duet runs ------------------------------------------------------------------------ */

/* The first two CPUs this test may run on; false (the test is skipped) with fewer. */
static bool two_cpus(int cpus[2])
{
	cpu_set_t set;
	int n = 0;

	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	if (n < 2)
		print_message("skipped: this process may use one CPU; a duet needs two\n");
	return n == 2;
}

/* Commands of pmc-work with up to three arguments, each with an argv of its own. */
static char *duet_argv[3][6];

static struct pmc_runner_cmd duet_cmd(size_t i, const char *name, const char *a1, const char *a2,
				      const char *a3)
{
	char **argv = duet_argv[i];

	argv[0] = (char *)PMC_TEST_WORK;
	argv[1] = (char *)a1;
	argv[2] = (char *)a2;
	argv[3] = (char *)a3;
	argv[4] = NULL;
	return (struct pmc_runner_cmd){
	    .name = name, .display = name, .argv = argv, .path = PMC_TEST_WORK};
}

/* On the kernel's software events: counters opened by two threads' children at once. */
static struct pmc_runner_opts duet_opts(const struct pmc_event_list *l, size_t runs)
{
	return (struct pmc_runner_opts){.sz = sizeof(struct pmc_runner_opts),
					.runs = runs,
					.backend = PMC_BACKEND_PERF,
					.events = l,
					.duet = true};
}

static volatile sig_atomic_t duet_slots[PMC_RUNNER_SLOTS];

/* The two commands of each round run at the same time: one opens a named pipe for
 * writing, the other for reading, and neither open returns before the other end is open,
 * so no run ends unless its partner runs at once (the timeout only turns a sequential
 * runner's hang into a failed run). Each run records its round, from 1, and its CPU: the
 * first command on the first CPU in odd rounds, the second on the other; the design is
 * duet over those two CPUs. Warm-up rounds meet too, and are not recorded. */
static void test_duet_runs_overlap_and_alternate(void **state)
{
	struct pmc_event_list *l = t_events("task-clock");
	char dir[] = "/tmp/pmc-duet.XXXXXX", fifo[64];
	struct pmc_runner_cmd cmds[2];
	struct pmc_runner_opts o = duet_opts(l, 3);
	struct pmc_result *res = t_result("perf");
	char err[512] = "";
	int cpus[2], r;

	(void)state;
	if (!two_cpus(cpus))
		skip();
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/meet", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	cmds[0] = duet_cmd(0, "writer", "meet", fifo, "w");
	cmds[1] = duet_cmd(1, "reader", "meet", fifo, "r");
	o.warmup = 2;
	o.timeout_s = 30;
	o.running = duet_slots;
	r = pmc_runner_run(cmds, 2, &o, res, err, sizeof(err));
	if (r != 0)
		print_error("pmc_runner_run: %s\n", err);
	assert_int_equal(r, 0);
	assert_int_equal(res->nbench, 2);
	for (size_t c = 0; c < 2; c++) {
		const struct pmc_benchmark *b = &res->benchmarks[c];

		assert_int_equal(b->nruns, 3);
		for (size_t k = 0; k < 3; k++) {
			const struct pmc_run_info *run = &b->runs[k];

			assert_int_equal(run->exit_code, 0);
			assert_false(run->timed_out);
			assert_int_equal(run->round, k + 1);
			assert_true(run->pinned);
			if (run->cpu != cpus[(k + c) % 2])
				print_error("%s round %zu ran on CPU %d, expected %d\n", b->name,
					    k + 1, run->cpu, cpus[(k + c) % 2]);
			assert_int_equal(run->cpu, cpus[(k + c) % 2]);
		}
		assert_int_equal(pmc_benchmark_find_metric(b, "task-clock")->n, 3);
		assert_int_equal(duet_slots[c], 0);
	}
	assert_non_null(res->design.mode);
	assert_string_equal(res->design.mode, "duet");
	assert_int_equal(res->design.rounds, 3);
	assert_int_equal(res->design.ncpus, 2);
	assert_int_equal(res->design.cpus[0], cpus[0]);
	assert_int_equal(res->design.cpus[1], cpus[1]);
	pmc_result_free(res);

	/* Without duet the same two commands run one after the other, in rounds, unpinned:
	 * the writer waits for a reader that never comes, until its timeout. */
	o.duet = false;
	o.warmup = 0;
	o.runs = 1;
	o.timeout_s = 0.2;
	res = t_result("perf");
	r = pmc_runner_run(cmds, 2, &o, res, err, sizeof(err));
	assert_int_equal(r, -ECHILD);
	assert_contains(err, "timed out");
	pmc_result_free(res);
	o.ignore_failure = true;
	res = t_result("perf");
	assert_int_equal(pmc_runner_run(cmds, 2, &o, res, err, sizeof(err)), 0);
	assert_string_equal(res->design.mode, "interleaved");
	assert_int_equal(res->design.ncpus, 0);
	assert_int_equal(res->benchmarks[0].runs[0].round, 1);
	assert_false(res->benchmarks[0].runs[0].pinned);
	pmc_result_free(res);
	assert_int_equal(unlink(fifo), 0);
	assert_int_equal(rmdir(dir), 0);
	pmc_event_list_free(l);
}

/* Each child of a round has counters and wait4 figures of its own: one touches 30,000
 * fresh pages (a page fault each, and 117 MiB of resident memory on 4 KiB pages), the
 * other one, and neither's counts show up in the other's. The small one needs less
 * memory than this process: its max-rss is not measured (a child cloned with CLONE_VM
 * starts in our memory, whose peak exec keeps), never ours. */
static void test_duet_counts_are_each_childs_own(void **state)
{
	struct pmc_event_list *l = t_events("page-faults");
	struct pmc_runner_cmd cmds[2] = {duet_cmd(0, "big", "touch", "30000", NULL),
					 duet_cmd(1, "small", "touch", "1", NULL)};
	struct pmc_runner_opts o = duet_opts(l, 3);
	struct pmc_result *res = t_result("perf");
	const struct pmc_metric *big, *small, *big_rss, *small_rss;
	char err[512] = "";
	int cpus[2], r;

	(void)state;
	if (!two_cpus(cpus))
		skip();
	r = pmc_runner_run(cmds, 2, &o, res, err, sizeof(err));
	if (r != 0)
		print_error("pmc_runner_run: %s\n", err);
	assert_int_equal(r, 0);
	big = pmc_benchmark_find_metric(&res->benchmarks[0], "page-faults");
	small = pmc_benchmark_find_metric(&res->benchmarks[1], "page-faults");
	assert_non_null(big);
	assert_non_null(small);
	if (big->status[0] != PMC_STATUS_COUNTED) {
		print_message("skipped: page-faults cannot be counted here (%s)\n",
			      pmc_status_name(big->status[0]));
		pmc_result_free(res);
		pmc_event_list_free(l);
		skip();
	}
	big_rss = pmc_benchmark_find_metric(&res->benchmarks[0], "max-rss");
	small_rss = pmc_benchmark_find_metric(&res->benchmarks[1], "max-rss");
	for (size_t k = 0; k < 3; k++) {
		print_message("round %zu: page-faults %.0f and %.0f, max-rss %.0f and %.0f\n",
			      k + 1, big->values[k], small->values[k], big_rss->values[k],
			      small_rss->values[k]);
		assert_true(big->values[k] >= 30000);
		assert_true(small->values[k] < 30000);
		assert_true(big_rss->values[k] >= 30000 * 4096.0);
		assert_true(isnan(small_rss->values[k]));
	}
	pmc_result_free(res);
	pmc_event_list_free(l);
}

/* Runs a duet of the two commands; returns the runner's code and its message. */
static int run_duet(struct pmc_runner_cmd cmds[2], bool ignore_failure, struct pmc_result **ret,
		    char *err, size_t errlen)
{
	struct pmc_event_list *l = t_events("task-clock");
	struct pmc_runner_opts o = duet_opts(l, 2);
	int r;

	o.ignore_failure = ignore_failure;
	*ret = t_result("perf");
	err[0] = '\0';
	r = pmc_runner_run(cmds, 2, &o, *ret, err, errlen);
	pmc_event_list_free(l);
	return r;
}

/* A failing run of a round is an error naming it, unless failures are to be recorded, as
 * in sequential runs; the other child of the round is waited for first (this process has
 * no child left, not even a zombie, when the runner returns), and when both fail the
 * first command's failure is the one named. */
static void test_duet_failure_waits_for_both(void **state)
{
	struct pmc_runner_cmd cmds[2];
	struct pmc_result *res;
	char err[512];
	int cpus[2];

	(void)state;
	if (!two_cpus(cpus))
		skip();
	cmds[0] = duet_cmd(0, "three", "exit", "3", NULL);
	cmds[1] = duet_cmd(1, "sleeper", "sleep", "300", NULL);
	assert_int_equal(run_duet(cmds, false, &res, err, sizeof(err)), -ECHILD);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	assert_contains(err, "measured run 1 of 'three' exited with status 3");
	pmc_result_free(res);

	cmds[1] = duet_cmd(1, "four", "exit", "4", NULL);
	assert_int_equal(run_duet(cmds, false, &res, err, sizeof(err)), -ECHILD);
	assert_contains(err, "of 'three' exited with status 3");
	pmc_result_free(res);
	cmds[0] = duet_cmd(0, "zero", "exit", "0", NULL);
	assert_int_equal(run_duet(cmds, false, &res, err, sizeof(err)), -ECHILD);
	assert_contains(err, "of 'four' exited with status 4");
	pmc_result_free(res);

	/* Recorded with --ignore-failure: each run with its own exit status. */
	assert_int_equal(run_duet(cmds, true, &res, err, sizeof(err)), 0);
	for (size_t k = 0; k < 2; k++) {
		assert_int_equal(res->benchmarks[0].runs[k].exit_code, 0);
		assert_int_equal(res->benchmarks[1].runs[k].exit_code, 4);
	}
	pmc_result_free(res);
}

/* Each run ran on the CPU it records, and on no other: `pmc-work cpu` exits with 64 + the
 * one CPU it may run on (recorded with ignore_failure, as any non-zero status). */
static void test_duet_runs_where_it_records(void **state)
{
	struct pmc_runner_cmd cmds[2] = {duet_cmd(0, "a", "cpu", NULL, NULL),
					 duet_cmd(1, "b", "cpu", NULL, NULL)};
	struct pmc_result *res;
	char err[512];
	int cpus[2];

	(void)state;
	if (!two_cpus(cpus))
		skip();
	assert_int_equal(run_duet(cmds, true, &res, err, sizeof(err)), 0);
	for (size_t c = 0; c < 2; c++) {
		for (size_t k = 0; k < 2; k++) {
			const struct pmc_run_info *run = &res->benchmarks[c].runs[k];

			assert_true(run->pinned);
			assert_int_equal(run->cpu, cpus[(k + c) % 2]);
			assert_int_equal(run->exit_code, 64 + run->cpu);
		}
	}
	pmc_result_free(res);
}

/* Runs the one-CPU check in a child of this test bound to one CPU, so this process keeps
 * its own mask: the exit status says whether the runner refused as it should. */
static void assert_one_cpu_refused(struct pmc_runner_cmd cmds[2], int cpu)
{
	int status = 0;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		struct pmc_event_list *l = NULL;
		struct pmc_runner_opts o;
		struct pmc_result *res = NULL;
		char err[512] = "";
		cpu_set_t one;
		int r;

		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one) < 0 ||
		    pmc_event_list_parse("task-clock", NULL, &l, err, sizeof(err)) < 0 ||
		    pmc_result_new("perf", &res) < 0)
			_exit(3);
		o = duet_opts(l, 2);
		r = pmc_runner_run(cmds, 2, &o, res, err, sizeof(err));
		if (r == -EINVAL && res->nbench == 0 &&
		    strstr(err, "--duet needs two CPUs; this process may use 1 (taskset/cgroup)"))
			_exit(0);
		fprintf(stderr, "one CPU: %d, %zu benchmarks, %s\n", r, res->nbench, err);
		_exit(1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* A duet needs exactly two commands, the perf backend and two CPUs; anything else is an
 * error in one line before anything runs. The two CPUs are the first this process may
 * use. */
static void test_duet_errors(void **state)
{
	struct pmc_event_list *l = t_events("task-clock");
	struct pmc_runner_cmd cmds[3] = {duet_cmd(0, "a", "exit", "0", NULL),
					 duet_cmd(1, "b", "exit", "0", NULL),
					 duet_cmd(2, "c", "exit", "0", NULL)};
	struct pmc_runner_opts o = duet_opts(l, 2);
	struct pmc_result *res;
	char err[512];
	int cpus[2], got[2] = {-1, -1};

	(void)state;
	for (size_t n = 1; n <= 3; n += 2) {
		res = t_result("perf");
		assert_int_equal(pmc_runner_run(cmds, n, &o, res, err, sizeof(err)), -EINVAL);
		assert_contains(err, "--duet runs two commands at the same time; give exactly two");
		assert_int_equal(res->nbench, 0);
		pmc_result_free(res);
	}
	o = (struct pmc_runner_opts){.sz = sizeof(o),
				     .runs = 1,
				     .backend = PMC_BACKEND_VALGRIND,
				     .valgrind_path = "/nonexistent/valgrind",
				     .duet = true};
	res = t_result("valgrind");
	assert_int_equal(pmc_runner_run(cmds, 2, &o, res, err, sizeof(err)), -EINVAL);
	assert_contains(err, "--duet does not apply to --backend valgrind");
	assert_int_equal(res->nbench, 0);
	pmc_result_free(res);
	pmc_event_list_free(l);

	if (!two_cpus(cpus))
		skip();
	assert_int_equal(pmc_runner_check_duet(2, PMC_BACKEND_PERF, got, err, sizeof(err)), 0);
	assert_int_equal(got[0], cpus[0]);
	assert_int_equal(got[1], cpus[1]);
	assert_one_cpu_refused(cmds, cpus[1]);
}

/* ---- the valgrind backend ------------------------------------------------------------ */

static struct pmc_runner_opts valgrind_opts(const char *valgrind)
{
	return (struct pmc_runner_opts){.sz = sizeof(struct pmc_runner_opts),
					.runs = 1,
					.backend = PMC_BACKEND_VALGRIND,
					.valgrind_path = valgrind};
}

/* A stand-in for valgrind, at path: it writes one callgrind file with the given totals
 * line for the columns Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw, and nothing else. */
static void write_fake_valgrind(const char *path, const char *totals)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f,
		"#!/bin/sh\n"
		"for a; do case $a in --callgrind-out-file=*) out=${a#*=};; esac; done\n"
		"printf 'events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\\ntotals: %s\\n' "
		">\"${out%%\\%%p}$$\"\n",
		totals);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, 0755), 0);
}

/* Runs pmc-work under the fake valgrind; returns the runner's code and its message. */
static int run_fake(const char *totals, struct pmc_result **ret, char *err, size_t errlen)
{
	struct pmc_runner_cmd cmd = work_cmd("pmc-work loop 1", "loop", "1");
	char dir[] = "/tmp/pmc-fake-vg.XXXXXX", vg[64];
	struct pmc_runner_opts o = valgrind_opts(vg);
	int r;

	assert_non_null(mkdtemp(dir));
	snprintf(vg, sizeof(vg), "%s/valgrind", dir);
	write_fake_valgrind(vg, totals);
	*ret = t_result("valgrind");
	assert_non_null(*ret);
	err[0] = '\0';
	r = pmc_runner_run(&cmd, 1, &o, *ret, err, errlen);
	print_message("%s: %d %s\n", totals, r, err);
	assert_int_equal(unlink(vg), 0);
	assert_int_equal(rmdir(dir), 0);
	return r;
}

/* Counts that contradict each other or do not fit in a result stop the run with what is
 * wrong and where, never "out of memory"; the same file with sound counts is recorded. */
static void test_valgrind_bad_counts_are_named(void **state)
{
	struct pmc_result *res;
	char err[1024];

	(void)state;
	assert_int_equal(run_fake("1000 10 5 0 0 0 0 0 0", &res, err, sizeof(err)), 0);
	assert_true(metric(res, "instructions")->values[0] == 1000.0);
	pmc_result_free(res);

	/* 40 LL misses but 10 L1 misses: est-cycles cannot be computed */
	assert_int_equal(run_fake("1000 10 40 0 0 0 0 0 0", &res, err, sizeof(err)), -ERANGE);
	assert_non_null(strstr(err, "run 1 of 'pmc-work loop 1': est-cycles: the counts "
				    "contradict each other: 40 LL misses"));
	assert_null(strstr(err, "out of memory"));
	pmc_result_free(res);

	/* 2^63 instructions: refused where the file is read, with its line */
	assert_int_equal(run_fake("9223372036854775808 0 0 0 0 0 0 0 0", &res, err, sizeof(err)),
			 -EOVERFLOW);
	assert_non_null(strstr(err, "'pmc-work loop 1': valgrind wrote no usable counts"));
	assert_non_null(strstr(err, ":2: Ir count 9223372036854775808 is above 2^63 - 1"));
	pmc_result_free(res);
}

static double vg_instructions(const char *valgrind, const struct pmc_runner_opts *base,
			      char **ret_env)
{
	struct pmc_runner_cmd cmd = work_cmd("pmc-work loop 20000", "loop", "20000");
	struct pmc_result *res = t_result("valgrind");
	char err[1024] = "";
	double v;
	int r;

	assert_non_null(res);
	r = pmc_runner_run(&cmd, 1, base, res, err, sizeof(err));
	if (r < 0)
		print_error("pmc_runner_run: %s\n", err);
	assert_int_equal(r, 0);
	v = metric(res, "instructions")->values[0];
	*ret_env = strdup(pmc_result_get_env(res, "target-env"));
	pmc_result_free(res);
	return v;
}

/* Issue 8, case 9: an extra 100-character variable in the caller's environment moved
 * valgrind's exact instruction count (the stack moves with the environment's size).
 * With the normalized environment, the counts from both callers are identical; with
 * --env-inherit (the control) they differ, so this test can tell. */
static void test_valgrind_counts_ignore_the_callers_environment(void **state)
{
	char pad[101], *vg = NULL, *env_a, *env_b;
	struct pmc_runner_opts o;
	double a, b;

	(void)state;
	if (pmc_valgrind_find(&vg) < 0) {
		print_message("skipped: valgrind is not installed\n");
		skip();
	}
	memset(pad, 'x', 100);
	pad[100] = '\0';
	o = valgrind_opts(vg);
	assert_int_equal(unsetenv("PMC_TEST_PADDING"), 0);
	a = vg_instructions(vg, &o, &env_a);
	assert_int_equal(setenv("PMC_TEST_PADDING", pad, 1), 0);
	b = vg_instructions(vg, &o, &env_b);
	print_message("normalized: %.0f and %.0f instructions (%s)\n", a, b, env_a);
	assert_true(a == b);
	assert_string_equal(env_a, env_b);
	assert_non_null(strstr(env_a, "normalized: "));
	assert_null(strstr(env_a, "PMC_TEST_PADDING"));
	free(env_a);
	free(env_b);

	o.env_inherit = true;
	assert_int_equal(unsetenv("PMC_TEST_PADDING"), 0);
	a = vg_instructions(vg, &o, &env_a);
	assert_int_equal(setenv("PMC_TEST_PADDING", pad, 1), 0);
	b = vg_instructions(vg, &o, &env_b);
	print_message("inherited: %.0f and %.0f instructions (%s, %s)\n", a, b, env_a, env_b);
	assert_true(a != b);
	/* The fingerprints differ too, so compare can warn. */
	assert_string_not_equal(env_a, env_b);
	free(env_a);
	free(env_b);
	assert_int_equal(unsetenv("PMC_TEST_PADDING"), 0);
	free(vg);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_counted),
	    cmocka_unit_test(test_multiplexed),
	    cmocka_unit_test(test_hybrid_parts),
	    cmocka_unit_test(test_system_wide),
	    cmocka_unit_test(test_no_pmu),
	    cmocka_unit_test(test_every_event_denied),
	    cmocka_unit_test(test_pinned_unschedulable),
	    cmocka_unit_test(test_failing_command),
	    cmocka_unit_test(test_rounds_and_early_stop),
	    cmocka_unit_test(test_duet_runs_overlap_and_alternate),
	    cmocka_unit_test(test_duet_counts_are_each_childs_own),
	    cmocka_unit_test(test_duet_failure_waits_for_both),
	    cmocka_unit_test(test_duet_runs_where_it_records),
	    cmocka_unit_test(test_duet_errors),
	    cmocka_unit_test(test_valgrind_bad_counts_are_named),
	    cmocka_unit_test(test_valgrind_counts_ignore_the_callers_environment),
	    cmocka_unit_test(test_max_rss_is_the_commands),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

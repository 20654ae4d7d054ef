/* harness/4-profile/offcpu.c and the off-CPU recording (docs/profile.md, "Off-CPU time"):
 * each switch-out's stack weighs the time until its thread runs again, or exits, or the
 * recording ends; and through the sampler (the emulated PMU, tests/fake_pmu.c) and the
 * profile's builder, switch records that come out of order across the CPUs' rings are
 * paired in time order, the tracepoint's id read from tracefs; two off-CPU profiles
 * compare by the change of each function's time off CPU. */
#include <errno.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "counters/perf/sample.h"
#include "profile/offcpu.h"
#include "profile/profile.h"
#include "profile/record_build.h"
#include "tests/fake_pmu.h"

#define MS 1000000ULL

static struct pmc_profile *new_profile(void)
{
	struct pmc_profile_info in = {
	    .kind = PMC_PROFILE_SAMPLED, .event = "off-cpu", .unit = "ns"};
	struct pmc_profile *p = NULL;

	assert_int_equal(pmc_profile_new(&in, &p), 0);
	return p;
}

/* The weight and samples of the stacks whose leaf is the frame named sym. */
static uint64_t weight_of(const struct pmc_profile *p, const char *sym, uint64_t *ret_samples)
{
	uint64_t w = 0, n = 0;

	for (size_t i = 0; i < pmc_profile_stack_count(p); i++) {
		const struct pmc_profile_stack *s = pmc_profile_stack(p, i);
		const struct pmc_profile_frame *f = pmc_profile_frame(p, s->frames[s->depth - 1]);

		if (f->symbol && !strcmp(f->symbol, sym)) {
			w += s->weight;
			n += s->samples;
		}
	}
	if (ret_samples)
		*ret_samples = n;
	return w;
}

/* The stack main -> fn. */
static void stack(struct pmc_profile *p, const char *fn, uint32_t frames[2])
{
	assert_int_equal(pmc_profile_frame_id(p, "main", "prog", 0, &frames[0]), 0);
	assert_int_equal(pmc_profile_frame_id(p, fn, "prog", 0, &frames[1]), 0);
}

/* The stack main -> fn -> schedule, of waits that weigh ms in all (k of them). */
static void add_waits(struct pmc_profile *p, const char *fn, uint64_t ms, uint64_t k)
{
	uint32_t f[3];

	stack(p, fn, f);
	assert_int_equal(pmc_profile_frame_id(p, "schedule", "[kernel]", 0, &f[2]), 0);
	assert_int_equal(pmc_profile_add(p, f, 3, ms * MS, k, false), 0);
}

/* Two off-CPU profiles compare by the time each function waited, its total (the self
 * time is all schedule's), exact: waits_here 200 -> 400 ms is +200 ms and no sampling
 * error, though it is 4 waits on each side (as samples of 50 ms, +200 ms would be within
 * the interval of a Poisson count); waits_less's 10 ms did not change. */
static void diff_ranks_by_the_change_of_waiting(void **state)
{
	struct pmc_profile *o = new_profile(), *n = new_profile();
	struct pmc_profile_delta *d;
	size_t nd;

	(void)state;
	add_waits(o, "waits_here", 200, 4);
	add_waits(o, "waits_less", 10, 1);
	add_waits(n, "waits_here", 400, 4);
	add_waits(n, "waits_less", 10, 1);
	assert_true(pmc_profile_off_cpu(o));
	assert_int_equal(pmc_profile_diff_mode(o, n), PMC_PROFILE_DIFF_WAITS);
	assert_int_equal(pmc_profile_diff(o, n, &d, &nd), 0);
	assert_int_equal(nd, 4);
	/* main, schedule and waits_here: +200 ms each, by name; then waits_less, unchanged. */
	assert_string_equal(d[0].name, "main");
	assert_string_equal(d[1].name, "schedule");
	assert_string_equal(d[2].name, "waits_here");
	assert_int_equal(d[2].old_total, 200 * MS);
	assert_int_equal(d[2].new_total, 400 * MS);
	assert_true(d[2].change == 200.0 * MS && d[2].lo == d[2].change && d[2].hi == d[2].change);
	assert_true(d[2].clear);
	assert_string_equal(d[3].name, "waits_less");
	assert_true(d[3].change == 0 && !d[3].clear);
	pmc_profile_deltas_free(d, nd);

	/* An off-CPU profile beside a cpu-clock one: two events, shares. */
	{
		struct pmc_profile_info in = {
		    .kind = PMC_PROFILE_SAMPLED, .event = "cpu-clock", .unit = "ns"};
		struct pmc_profile *c = NULL;

		assert_int_equal(pmc_profile_new(&in, &c), 0);
		assert_false(pmc_profile_off_cpu(c));
		assert_int_equal(pmc_profile_diff_mode(o, c), PMC_PROFILE_DIFF_SHARES);
		pmc_profile_free(c);
	}
	pmc_profile_free(o);
	pmc_profile_free(n);
}

/* Thread 1 waits 100 -> 600 ms (it wakes on another CPU: the pairing is by thread); thread
 * 2 waits from 200 ms and exits at 350 without running again; thread 3 is still waiting
 * when the recording ends at 1000; a switch-in without a switch-out before it (the
 * thread's first) adds nothing; a switch-in that another CPU's clock puts before its
 * switch-out weighs 0, never a wrapped difference. */
static void waits_are_paired_by_thread(void **state)
{
	struct pmc_profile *p = new_profile();
	struct pmc_offcpu *oc = pmc_offcpu_new();
	uint32_t a[2], b[2], c[2], d[2];
	uint64_t n;

	(void)state;
	assert_non_null(oc);
	stack(p, "waits_here", a);
	stack(p, "waits_exit", b);
	stack(p, "waits_end", c);
	stack(p, "skewed", d);
	assert_int_equal(pmc_offcpu_in(oc, p, 9, 50 * MS), 0); /* nothing pending */
	assert_int_equal(pmc_offcpu_out(oc, p, 1, 100 * MS, a, 2, PMC_PROFILE_NO_TASK, false), 0);
	assert_int_equal(pmc_offcpu_out(oc, p, 2, 200 * MS, b, 2, PMC_PROFILE_NO_TASK, false), 0);
	assert_int_equal(pmc_offcpu_out(oc, p, 3, 300 * MS, c, 2, PMC_PROFILE_NO_TASK, true), 0);
	assert_int_equal(pmc_offcpu_in(oc, p, 2, 350 * MS), 0); /* its exit */
	assert_int_equal(pmc_offcpu_in(oc, p, 1, 600 * MS), 0);
	assert_int_equal(pmc_offcpu_in(oc, p, 1, 650 * MS), 0); /* already running */
	assert_int_equal(pmc_offcpu_out(oc, p, 4, 700 * MS, d, 2, PMC_PROFILE_NO_TASK, false), 0);
	assert_int_equal(pmc_offcpu_in(oc, p, 4, 700 * MS - 3000), 0);
	assert_int_equal(pmc_offcpu_waits(oc), 3);
	assert_int_equal(pmc_offcpu_pending(oc), 1);
	assert_int_equal(pmc_offcpu_finish(oc, p, 1000 * MS), 0);
	assert_int_equal(pmc_offcpu_pending(oc), 0);
	assert_int_equal(pmc_offcpu_waits(oc), 4);
	assert_int_equal(weight_of(p, "waits_here", &n), 500 * MS);
	assert_int_equal(n, 1);
	assert_int_equal(weight_of(p, "waits_exit", NULL), 150 * MS);
	assert_int_equal(weight_of(p, "waits_end", NULL), 700 * MS);
	assert_int_equal(weight_of(p, "skewed", &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(pmc_profile_total(p), 1350 * MS);
	/* The cut chain is said as cut. */
	assert_int_equal(pmc_profile_truncated(p), 700 * MS);
	/* Finishing again adds nothing. */
	assert_int_equal(pmc_offcpu_finish(oc, p, 2000 * MS), 0);
	assert_int_equal(pmc_profile_total(p), 1350 * MS);
	assert_int_equal(pmc_offcpu_out(oc, p, 5, 0, a, 0, PMC_PROFILE_NO_TASK, false), -EINVAL);
	pmc_offcpu_free(oc);
	pmc_profile_free(p);
}

/* A thread that leaves twice without a switch-in between (its record lost) has its first
 * wait end where the second starts, and the second stack weighs the rest. */
static void second_switch_out_ends_the_first(void **state)
{
	struct pmc_profile *p = new_profile();
	struct pmc_offcpu *oc = pmc_offcpu_new();
	uint32_t a[2], b[2];

	(void)state;
	stack(p, "first", a);
	stack(p, "second", b);
	assert_int_equal(pmc_offcpu_out(oc, p, 7, 10 * MS, a, 2, PMC_PROFILE_NO_TASK, false), 0);
	assert_int_equal(pmc_offcpu_out(oc, p, 7, 40 * MS, b, 2, PMC_PROFILE_NO_TASK, false), 0);
	assert_int_equal(pmc_offcpu_in(oc, p, 7, 45 * MS), 0);
	assert_int_equal(weight_of(p, "first", NULL), 30 * MS);
	assert_int_equal(weight_of(p, "second", NULL), 5 * MS);
	pmc_offcpu_free(oc);
	pmc_profile_free(p);
}

/* ---- through the sampler and the builder ---- */

static struct fake_pmu fake;
static char tracefs[64];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A tracefs of one tracepoint, sched:sched_switch with id 316. */
static int make_tracefs(void **state)
{
	char cmd[192], path[128];

	(void)state;
	snprintf(tracefs, sizeof(tracefs), "/tmp/pmc-test-offcpu-%d", (int)getpid());
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/events/sched/sched_switch", tracefs);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/id", tracefs);
	write_file(path, "316\n");
	return 0;
}

static int remove_tracefs(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tracefs);
	return system(cmd) == 0 ? 0 : -1;
}

/* PERF_RECORD_SWITCH of (pid, tid) at time on cpu: its body is its sample_id alone. */
static void emit_switch(int cpu, uint32_t tid, uint64_t time, bool out)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		uint64_t time;
		uint32_t cpu, res;
	} r = {.h = {.type = PERF_RECORD_SWITCH,
		     .misc = out ? PERF_RECORD_MISC_SWITCH_OUT : 0,
		     .size = sizeof(r)},
	       .pid = 42,
	       .tid = tid,
	       .time = time,
	       .cpu = (uint32_t)cpu};

	assert_int_equal(fake_pmu_emit(&fake, cpu, &r, sizeof(r)), 0);
}

/* The switch-out sample of tid at time on cpu, waiting at user address ip. */
static void emit_out(int cpu, uint32_t tid, uint64_t time, uint64_t ip)
{
	struct fake_pmu_id id = {.pid = 42, .tid = tid, .time = time};
	uint64_t chain[] = {(uint64_t)PERF_CONTEXT_USER, ip};

	assert_int_equal(fake_pmu_sample(&fake, cpu, &id, PERF_RECORD_MISC_USER, ip, 1, chain, 2),
			 0);
	emit_switch(cpu, tid, time, true);
}

/* The weight of the stacks whose leaf is the unnamed address ip. */
static uint64_t weight_at(const struct pmc_profile *p, uint64_t ip)
{
	uint64_t w = 0;

	for (size_t i = 0; i < pmc_profile_stack_count(p); i++) {
		const struct pmc_profile_stack *s = pmc_profile_stack(p, i);

		if (pmc_profile_frame(p, s->frames[s->depth - 1])->offset == ip)
			w += s->weight;
	}
	return w;
}

/* Thread 43 leaves CPU 0 at 100 ms and comes back on CPU 1 at 400; thread 44 leaves CPU 1
 * at 150 and runs again on CPU 0 at 250, then exits at 300 while waiting again (from 280);
 * CPU 1's ring is read first, though its records are the later ones. The sampler asks for
 * the tracepoint (period 1, context switches, the kernel not excluded: a tracepoint fires
 * there), and the profile weighs 300, 100 and 20 ms. */
static void records_of_two_cpus_pair_in_time_order(void **state)
{
	struct fake_pmu_config cfg = {.online = "0-1", .tracepoints = true};
	struct pmc_sample_opts o = {.sz = sizeof(o),
				    .off_cpu = true,
				    .tracefs_root = tracefs,
				    .exclude_kernel = true,
				    .pages = 8};
	struct pmc_profile_builder *b = NULL;
	struct pmc_sampler *s = NULL;
	struct pmc_profile *p;
	char err[512] = "";

	(void)state;
	fake_pmu_init(&fake, &cfg);
	o.sys = &fake.sys;
	assert_int_equal(pmc_sampler_open(&o, 42, &s, err, sizeof(err)), 0);
	assert_string_equal(pmc_sampler_event(s), "sched:sched_switch");
	assert_int_equal(fake.nlog, 2);
	for (size_t i = 0; i < fake.nlog; i++) {
		const struct perf_event_attr *a = &fake.log[i].attr;

		assert_int_equal(a->type, PERF_TYPE_TRACEPOINT);
		assert_int_equal(a->config, 316);
		assert_int_equal(a->sample_period, 1);
		assert_true(!a->freq && a->context_switch && a->sample_id_all);
		assert_true(!a->exclude_kernel && a->exclude_callchain_kernel);
	}
	/* CPU 1 first: the later records. */
	emit_switch(1, 44, 150 * MS - 10, false);
	emit_out(1, 44, 150 * MS, 0x1000);
	emit_switch(1, 43, 400 * MS, false);
	emit_out(0, 43, 100 * MS, 0x2000);
	emit_switch(0, 44, 250 * MS, false);
	emit_out(0, 44, 280 * MS, 0x3000);
	{
		struct fake_pmu_id id = {.pid = 42, .tid = 44, .time = 300 * MS};

		assert_int_equal(fake_pmu_task(&fake, 0, PERF_RECORD_EXIT, &id, 42, 44), 0);
	}
	emit_switch(0, 42, 500 * MS, false);
	assert_true(pmc_sampler_poll(s, 0) > 0);
	assert_int_equal(pmc_profile_builder_new(s, &o, "off-cpu", "t", &b), 0);
	assert_int_equal(pmc_profile_builder_take(b, s, true), 0);
	p = pmc_profile_builder_finish(b, s, NULL, NULL);
	assert_non_null(p);
	assert_string_equal(pmc_profile_info(p)->unit, "ns");
	assert_int_equal(weight_at(p, 0x2000), 300 * MS);
	assert_int_equal(weight_at(p, 0x1000), 100 * MS);
	assert_int_equal(weight_at(p, 0x3000), 20 * MS);
	assert_int_equal(pmc_profile_total(p), 420 * MS);
	assert_int_equal(pmc_profile_samples(p), 3);
	pmc_profile_free(p);
	pmc_profile_builder_free(b);
	pmc_sampler_close(s);
	assert_int_equal(fake.nopen, 0);
}

static struct pmc_record seen[8];
static size_t nseen;

static int collect(const struct pmc_record *rec, void *ud)
{
	(void)ud;
	if (nseen < sizeof(seen) / sizeof(seen[0]))
		seen[nseen++] = *rec;
	return 0;
}

/* PERF_RECORD_SWITCH is parsed with its thread, time and direction (and the preemption
 * flag of a switch-out); one too short for its sample_id is malformed, as any record that
 * runs past its size: the ring is no longer read. */
static void switch_records_are_parsed_and_checked(void **state)
{
	struct fake_pmu_config cfg = {.online = "0-1", .tracepoints = true};
	struct pmc_sample_opts o = {
	    .sz = sizeof(o), .off_cpu = true, .tracefs_root = tracefs, .pages = 8};
	struct perf_event_header bare = {.type = PERF_RECORD_SWITCH, .size = sizeof(bare)};
	struct pmc_sampler *s = NULL;
	char err[512] = "";

	(void)state;
	fake_pmu_init(&fake, &cfg);
	o.sys = &fake.sys;
	assert_int_equal(pmc_sampler_open(&o, 42, &s, err, sizeof(err)), 0);
	emit_switch(0, 43, 20 * MS, false);
	{
		struct {
			struct perf_event_header h;
			uint32_t pid, tid;
			uint64_t time;
			uint32_t cpu, res;
		} r = {
		    .h = {.type = PERF_RECORD_SWITCH,
			  .misc = PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT,
			  .size = sizeof(r)},
		    .pid = 42,
		    .tid = 43,
		    .time = 10 * MS,
		    .cpu = 1};

		assert_int_equal(fake_pmu_emit(&fake, 1, &r, sizeof(r)), 0);
	}
	assert_int_equal(pmc_sampler_poll(s, 0), 2);
	nseen = 0;
	assert_int_equal(pmc_sampler_replay(s, collect, NULL), 0);
	assert_int_equal(nseen, 2);
	assert_int_equal(seen[0].type, PMC_RECORD_SWITCH);
	assert_true(seen[0].sw.out && seen[0].sw.preempt);
	assert_int_equal(seen[0].time, 10 * MS);
	assert_int_equal(seen[0].cpu, 1);
	assert_int_equal(seen[1].type, PMC_RECORD_SWITCH);
	assert_true(!seen[1].sw.out && !seen[1].sw.preempt);
	assert_int_equal(seen[1].tid, 43);
	assert_int_equal(seen[1].time, 20 * MS);
	assert_int_equal(fake_pmu_emit_raw(&fake, 1, &bare, sizeof(bare)), 0);
	assert_int_equal(pmc_sampler_poll(s, 0), -EIO);
	pmc_sampler_close(s);
}

/* No tracefs: one line that names what is missing, and no event opened. */
static void no_tracefs_is_one_line(void **state)
{
	struct fake_pmu_config cfg = {.online = "0", .tracepoints = true};
	struct pmc_sample_opts o = {
	    .sz = sizeof(o), .off_cpu = true, .tracefs_root = "/nonexistent/tracefs", .pages = 8};
	struct pmc_sampler *s = NULL;
	char err[512] = "";
	int r;

	(void)state;
	fake_pmu_init(&fake, &cfg);
	o.sys = &fake.sys;
	r = pmc_sampler_open(&o, 42, &s, err, sizeof(err));
	assert_true(r == -ENOENT || r == -EACCES);
	assert_null(s);
	assert_non_null(strstr(err, "off-CPU time samples sched:sched_switch: "));
	assert_null(strchr(err, '\n'));
	assert_int_equal(fake.nlog, 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(waits_are_paired_by_thread),
	    cmocka_unit_test(second_switch_out_ends_the_first),
	    cmocka_unit_test(diff_ranks_by_the_change_of_waiting),
	    cmocka_unit_test_setup_teardown(records_of_two_cpus_pair_in_time_order, make_tracefs,
					    remove_tracefs),
	    cmocka_unit_test_setup_teardown(switch_records_are_parsed_and_checked, make_tracefs,
					    remove_tracefs),
	    cmocka_unit_test(no_tracefs_is_one_line),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

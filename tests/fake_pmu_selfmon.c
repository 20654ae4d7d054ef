/* The emulated PMU's self-monitoring (fake_pmu.h): counters that events are put on, the
 * control page of each mapped event, the rdpmc instruction and a TSC. */
#include <string.h>

#include "tests/fake_pmu.h"

/* The kernel's clock from the fake TSC: ns = cyc * 25 / 64 (2.56 GHz), written as x86
 * writes cyc2ns, a 32-bit multiplier and a shift of 32. TSC values stay multiples of
 * 64, so the conversion is exact and a quantum is FAKE_PMU_QUANTUM_NS. */
#define TIME_MULT (UINT32_C(25) << 26)
#define TIME_SHIFT 32
/* rdpmc's number of fixed counter n (Intel: bit 30 selects the fixed counters). */
#define FIXED(n) (UINT32_C(1) << 30 | (n))
/* rdpmc's number of PERF_METRICS (INTEL_PMC_FIXED_RDPMC_METRICS). */
#define METRICS (UINT32_C(1) << 29)

static uint64_t cyc2ns(uint64_t cyc)
{
	return (cyc >> 6) * 25 + ((cyc & 63) * 25 >> 6);
}

/* Whether e is an event of the PMU of the CPU the task runs on: on a hybrid CPU, rdpmc
 * there reads that PMU's counters, whatever event another type's page names. */
static bool on_this_cpu(const struct fake_pmu *f, const struct fake_pmu_event *e)
{
	if (e->core < 0)
		return false;
	return !f->cfg.ncores ||
	       (f->cpu >= 0 && f->cpu < 64 && (f->cfg.cores[e->core].cpus >> f->cpu & 1));
}

/* A generic hardware event hw, extended type or not: x86 strips the PMU type from config
 * before the PMU sees it (kernel/events/core.c, perf_init_event()). */
static bool is_hw(const struct perf_event_attr *a, uint64_t hw)
{
	return a->type == PERF_TYPE_HARDWARE && (a->config & PERF_HW_EVENT_MASK) == hw;
}

static unsigned width(const struct fake_pmu *f)
{
	return f->cfg.pmc_width ? f->cfg.pmc_width : 48;
}

static uint64_t wmask(const struct fake_pmu *f)
{
	return width(f) >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << width(f)) - 1;
}

static uint64_t left(const struct fake_pmu *f)
{
	return f->cfg.pmc_left ? f->cfg.pmc_left : (UINT64_C(1) << (width(f) - 1)) - 1;
}

static int64_t sext(const struct fake_pmu *f, uint64_t raw)
{
	uint64_t sign = UINT64_C(1) << (width(f) - 1);

	raw &= wmask(f);
	return (int64_t)((raw ^ sign) - sign);
}

static uint64_t raw_now(const struct fake_pmu *f, const struct fake_pmu_event *e)
{
	return (e->raw0 + (e->value - e->v0)) & wmask(f);
}

/* Arms e's counter as a counting event is (x86_perf_event_set_period(): -left). */
static void arm(struct fake_pmu *f, struct fake_pmu_event *e)
{
	e->raw0 = (UINT64_C(0) - left(f)) & wmask(f);
	e->v0 = e->value;
	e->prev_read = false;
}

void fake_pmu_selfmon_write(struct fake_pmu *f, struct fake_pmu_event *e)
{
	volatile struct perf_event_mmap_page *pg = e->ring;
	bool on = e->on_counter && e->rdpmc_ok;

	if (!pg)
		return;
	f->page_writes++;
	pg->lock++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	pg->index = on ? e->counter + 1 : 0;
	/* perf_event_update_userpage(): the count less prev_count while the event is on a
	 * counter. Armed, prev_count is -left sign-extended, so that offset + the counter
	 * sign-extended is the count; last set by a read, it is the counter zero-extended,
	 * and that sum is 2^pmc_width off while the counter's top bit is set (as it is from
	 * -left until the overflow). */
	if (!on)
		pg->offset = (int64_t)e->value;
	else if (e->prev_read)
		pg->offset = (int64_t)(e->value - raw_now(f, e));
	else
		pg->offset = (int64_t)(e->v0 - (uint64_t)sext(f, e->raw0));
	pg->time_enabled = e->time_enabled;
	pg->time_running = e->time_running;
	pg->cap_bit0 = 0;
	pg->cap_bit0_is_deprecated = 1;
	pg->cap_user_rdpmc = e->rdpmc_ok;
	pg->cap_user_time = !f->cfg.no_user_time;
	pg->cap_user_time_short = f->cfg.tsc_bits != 0;
	pg->pmc_width = (uint16_t)width(f);
	pg->time_mult = TIME_MULT;
	pg->time_shift = TIME_SHIFT;
	/* x86 and arm64: time_offset + cyc2ns(TSC) is the time since this write. */
	pg->time_offset = UINT64_C(0) - cyc2ns(f->tsc);
	pg->time_cycles = f->tsc;
	pg->time_mask = f->cfg.tsc_bits && f->cfg.tsc_bits < 64
			    ? (UINT64_C(1) << f->cfg.tsc_bits) - 1
			    : ~UINT64_C(0);
	pg->size = (uint32_t)offsetof(struct perf_event_mmap_page, __reserved);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	pg->lock++;
}

/* Takes e off its counter or puts it on counter c (on: c valid), writing its page when
 * that changes. */
static void place(struct fake_pmu *f, struct fake_pmu_event *e, bool on, unsigned c)
{
	if (e->on_counter == on && (!on || e->counter == c))
		return;
	e->on_counter = on;
	e->counter = on ? c : 0;
	if (on)
		arm(f, e);
	fake_pmu_selfmon_write(f, e);
}

static bool may_count(const struct fake_pmu *f, const struct fake_pmu_event *e)
{
	const struct fake_pmu_event *l = &f->ev[e->leader];

	return e->used && e->enabled && l->used && l->enabled && !l->error_state;
}

void fake_pmu_selfmon_sched(struct fake_pmu *f, const bool *scheduled)
{
	bool insn = f->cfg.fixed_counters, cycles = f->cfg.fixed_counters && !f->cfg.nmi_watchdog;
	unsigned gp = 0;

	/* The PMI of a counter that overflowed during the last quantum. */
	for (int i = 0; i < FAKE_PMU_MAX_EVENTS; i++) {
		struct fake_pmu_event *e = &f->ev[i];

		if (e->used && e->on_counter && e->value - e->v0 >= left(f)) {
			arm(f, e);
			fake_pmu_selfmon_write(f, e);
		}
	}
	/* Counters for the groups of this quantum, in creation order. */
	for (unsigned seq = 0; seq < f->next_seq; seq++) {
		for (int i = 0; i < FAKE_PMU_MAX_EVENTS; i++) {
			struct fake_pmu_event *e = &f->ev[i];
			/* Any event of a core PMU takes a counter: a generic one, a raw
			 * code, or an event of that PMU's own type (cpu_atom/event=0xc0/). */
			bool on = e->used && e->seq == seq && e->core >= 0 &&
				  scheduled[e->leader] && may_count(f, e);
			unsigned c = 0;

			if (!e->used || e->seq != seq)
				continue;
			if (on && fake_pmu_is_slots(f, &e->attr)) {
				c = FIXED(3);
			} else if (on && fake_pmu_is_metric(f, &e->attr)) {
				c = METRICS; /* x86_pmu_event_idx(): every metric event's */
			} else if (on) {
				if (insn && is_hw(&e->attr, PERF_COUNT_HW_INSTRUCTIONS)) {
					insn = false;
					c = FIXED(0);
				} else if (cycles && is_hw(&e->attr, PERF_COUNT_HW_CPU_CYCLES)) {
					cycles = false;
					c = FIXED(1);
				} else {
					c = gp++;
				}
			}
			place(f, e, on, c);
		}
	}
}

void fake_pmu_selfmon_ran(struct fake_pmu *f)
{
	f->tsc += FAKE_PMU_TSC_PER_QUANTUM;
}

void fake_pmu_selfmon_anchor(struct fake_pmu *f)
{
	/* The counter keeps its value whatever the ioctl does to the count. */
	for (int i = 0; i < FAKE_PMU_MAX_EVENTS; i++) {
		struct fake_pmu_event *e = &f->ev[i];

		if (e->on_counter) {
			e->raw0 = raw_now(f, e);
			e->v0 = e->value;
		}
	}
}

void fake_pmu_selfmon_sync(struct fake_pmu *f)
{
	for (int i = 0; i < FAKE_PMU_MAX_EVENTS; i++) {
		struct fake_pmu_event *e = &f->ev[i];
		bool stale = false;

		if (e->on_counter && !may_count(f, e)) {
			place(f, e, false, 0);
			continue;
		}
		/* Reset: the count starts again from the counter's value now. */
		if (e->on_counter && e->value != e->v0) {
			e->v0 = e->value;
			stale = true;
		}
		if (stale)
			fake_pmu_selfmon_write(f, e);
	}
}

void fake_pmu_rearm(struct fake_pmu *f, int fd)
{
	for (int i = 0; i < FAKE_PMU_MAX_EVENTS; i++) {
		struct fake_pmu_event *e = &f->ev[i];

		if (e->used && e->on_counter && (fd < 0 || fd == FAKE_PMU_FD_BASE + i)) {
			arm(f, e);
			fake_pmu_selfmon_write(f, e);
		}
	}
}

uint64_t fake_pmu_counter(struct fake_pmu *f, int fd)
{
	struct fake_pmu_event *e = fake_pmu_lookup(f, fd);

	return e && e->on_counter ? raw_now(f, e) : 0;
}

/* What a wrong read gets: no count of any event. */
#define GARBAGE UINT64_C(0x5a5a5a5a5a5a5a5a)

static uint64_t fake_rdpmc(void *ctx, unsigned counter)
{
	struct fake_pmu *f = ctx;
	bool mapped = false;

	f->rdpmcs++;
	if (f->on_rdpmc) {
		void (*fn)(struct fake_pmu *, void *) = f->on_rdpmc;

		f->on_rdpmc = NULL;
		fn(f, f->on_rdpmc_ud);
	}
	/* x86 sets CR4.PCE for a task that maps the page of an rdpmc event (setting 1),
	 * or for every task (2); else rdpmc raises #GP. */
	for (int i = 0; i < FAKE_PMU_MAX_EVENTS && !mapped; i++)
		mapped = f->ev[i].ring && f->ev[i].rdpmc_ok;
	if (f->cfg.rdpmc == 0 || (f->cfg.rdpmc == 1 && !mapped)) {
		f->rdpmc_faults++;
		return GARBAGE;
	}
	/* Four fractions of 255, a byte each: retiring, bad speculation, frontend bound,
	 * backend bound. */
	if (counter == METRICS) {
		f->rdpmc_metrics++;
		return UINT64_C(0x40302010);
	}
	for (int i = 0; i < FAKE_PMU_MAX_EVENTS; i++)
		if (f->ev[i].used && f->ev[i].on_counter && f->ev[i].counter == counter &&
		    on_this_cpu(f, &f->ev[i]))
			return raw_now(f, &f->ev[i]);
	f->rdpmc_stale++;
	return GARBAGE & wmask(f);
}

static uint64_t fake_tsc(void *ctx)
{
	struct fake_pmu *f = ctx;

	if (f->cfg.tsc_bits && f->cfg.tsc_bits < 64)
		return f->tsc & ((UINT64_C(1) << f->cfg.tsc_bits) - 1);
	return f->tsc;
}

void fake_pmu_selfmon_init(struct fake_pmu *f)
{
	f->tsc = FAKE_PMU_TSC_START;
	f->sys.rdpmc = fake_rdpmc;
	f->sys.tsc = fake_tsc;
}

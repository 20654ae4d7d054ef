/* The valgrind backend's metrics: the metric table, and each metric's value from the
 * summed event counts (a single event, a sum, or a derived estimate). */
#include "counters/valgrind/valgrind.h"
#include "counters/valgrind/valgrind_priv.h"
#include "base/error.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "counters/reading.h"

static const char *const metric_ids[PMC_VG_M_COUNT] = {
#define PMC_VG_M_ID(sym, id) [PMC_VG_M_##sym] = id,
    PMC_VALGRIND_METRICS(PMC_VG_M_ID)
#undef PMC_VG_M_ID
};

#define EV(sym) (1u << PMC_VG_EV_##sym)
#define CACHE_EVENTS                                                                               \
	(EV(IR) | EV(DR) | EV(DW) | EV(I1MR) | EV(D1MR) | EV(D1MW) | EV(ILMR) | EV(DLMR) | EV(DLMW))

/* ---- metrics ------------------------------------------------------------------------- */

size_t pmc_valgrind_metric_count(void)
{
	return PMC_VG_M_COUNT;
}

const char *pmc_valgrind_metric_id(size_t i)
{
	return i < PMC_VG_M_COUNT ? metric_ids[i] : NULL;
}

/* Estimated cycles, the formula of Itamar Turner-Trauring's cachegrind benchmarking
 * method (also used by iai and iai-callgrind): every access costs 1 cycle when it hits
 * L1, 5 when it hits LL, 35 when it goes to memory. Accesses are instruction fetches
 * plus data reads and writes; branch mispredictions are not part of it. */
static int est_cycles(const uint64_t *ev, uint64_t *ret, char *err, size_t errlen)
{
	uint64_t acc, l1m, llm, llm35, v;

	/* Each count is at most 2^63 - 1 (collect), so none of the sums of three wraps. */
	if (__builtin_add_overflow(ev[PMC_VG_EV_IR], ev[PMC_VG_EV_DR], &acc) ||
	    __builtin_add_overflow(acc, ev[PMC_VG_EV_DW], &acc) ||
	    __builtin_add_overflow(ev[PMC_VG_EV_I1MR], ev[PMC_VG_EV_D1MR], &l1m) ||
	    __builtin_add_overflow(l1m, ev[PMC_VG_EV_D1MW], &l1m) ||
	    __builtin_add_overflow(ev[PMC_VG_EV_ILMR], ev[PMC_VG_EV_DLMR], &llm) ||
	    __builtin_add_overflow(llm, ev[PMC_VG_EV_DLMW], &llm)) {
		pmc_err_set(err, errlen,
			    "est-cycles: the accesses or misses do not fit in 64 bits");
		return -ERANGE;
	}
	/* LL is only accessed on an L1 miss, and L1 on an access, so these cannot hold
	 * for counts of one simulation. */
	if (l1m > acc) {
		pmc_err_set(err, errlen,
			    "est-cycles: the counts contradict each other: %llu L1 misses "
			    "(I1mr + D1mr + D1mw) but only %llu accesses (Ir + Dr + Dw)",
			    (unsigned long long)l1m, (unsigned long long)acc);
		return -ERANGE;
	}
	if (llm > l1m) {
		pmc_err_set(err, errlen,
			    "est-cycles: the counts contradict each other: %llu LL misses "
			    "(ILmr + DLmr + DLmw) but only %llu L1 misses (I1mr + D1mr + D1mw); LL "
			    "is accessed only on an L1 miss",
			    (unsigned long long)llm, (unsigned long long)l1m);
		return -ERANGE;
	}
	/* (acc - l1m) L1 hits + 5 (l1m - llm) LL hits + 35 llm memory accesses */
	if (__builtin_mul_overflow(l1m - llm, (uint64_t)5, &v) ||
	    __builtin_add_overflow(v, acc - l1m, &v) ||
	    __builtin_mul_overflow(llm, (uint64_t)35, &llm35) ||
	    __builtin_add_overflow(v, llm35, &v) || v > COUNT_MAX) {
		pmc_err_set(
		    err, errlen,
		    "est-cycles: %llu L1 hits + 5 x %llu LL hits + 35 x %llu memory accesses "
		    "is above 2^63 - 1, the largest count a result holds",
		    (unsigned long long)(acc - l1m), (unsigned long long)(l1m - llm),
		    (unsigned long long)llm);
		return -ERANGE;
	}
	*ret = v;
	return 0;
}

int pmc_valgrind_metric_value(const struct pmc_valgrind_counts *c, size_t i, uint64_t *ret,
			      char *err, size_t errlen)
{
	static const enum pmc_valgrind_event single[PMC_VG_M_COUNT] = {
	    [PMC_VG_M_INSTRUCTIONS] = PMC_VG_EV_IR,
	    [PMC_VG_M_DATA_READS] = PMC_VG_EV_DR,
	    [PMC_VG_M_DATA_WRITES] = PMC_VG_EV_DW,
	    [PMC_VG_M_I1_MISSES] = PMC_VG_EV_I1MR,
	    [PMC_VG_M_LLI_MISSES] = PMC_VG_EV_ILMR,
	    [PMC_VG_M_D1_READ_MISSES] = PMC_VG_EV_D1MR,
	    [PMC_VG_M_D1_WRITE_MISSES] = PMC_VG_EV_D1MW,
	    [PMC_VG_M_LLD_READ_MISSES] = PMC_VG_EV_DLMR,
	    [PMC_VG_M_LLD_WRITE_MISSES] = PMC_VG_EV_DLMW,
	    [PMC_VG_M_BRANCH_COND] = PMC_VG_EV_BC,
	    [PMC_VG_M_BRANCH_COND_MISSES] = PMC_VG_EV_BCM,
	    [PMC_VG_M_BRANCH_INDIRECT] = PMC_VG_EV_BI,
	    [PMC_VG_M_BRANCH_INDIRECT_MISSES] = PMC_VG_EV_BIM,
	};
	uint64_t v;
	int r;

	if (!c || !ret || i >= PMC_VG_M_COUNT)
		return -EINVAL;
	switch (i) {
	case PMC_VG_M_BRANCH_MISSES:
		if ((c->present & (EV(BCM) | EV(BIM))) != (EV(BCM) | EV(BIM)))
			return -ENODATA;
		if (__builtin_add_overflow(c->ev[PMC_VG_EV_BCM], c->ev[PMC_VG_EV_BIM], &v) ||
		    v > COUNT_MAX) {
			pmc_err_set(
			    err, errlen,
			    "branch-misses: %llu Bcm + %llu Bim is above 2^63 - 1, the largest "
			    "count a result holds",
			    (unsigned long long)c->ev[PMC_VG_EV_BCM],
			    (unsigned long long)c->ev[PMC_VG_EV_BIM]);
			return -ERANGE;
		}
		break;
	case PMC_VG_M_EST_CYCLES:
		if ((c->present & CACHE_EVENTS) != CACHE_EVENTS)
			return -ENODATA;
		r = est_cycles(c->ev, &v, err, errlen);
		if (r < 0)
			return r;
		break;
	default:
		if (!(c->present & (1u << single[i])))
			return -ENODATA;
		v = c->ev[single[i]];
		/* pmc_valgrind_collect never gives one; counts filled in by hand may. */
		if (v > COUNT_MAX) {
			pmc_err_set(
			    err, errlen,
			    "%s: %llu %s is above 2^63 - 1, the largest count a result holds",
			    metric_ids[i], (unsigned long long)v,
			    pmc_valgrind_event_names[single[i]]);
			return -ERANGE;
		}
		break;
	}
	*ret = v;
	return 0;
}

int pmc_valgrind_metric_reading(const struct pmc_valgrind_counts *c, size_t i,
				struct pmc_reading *ret, char *err, size_t errlen)
{
	uint64_t v;
	int r;

	if (!ret)
		return -EINVAL;
	r = pmc_valgrind_metric_value(c, i, &v, err, errlen);
	if (r < 0)
		return r;
	*ret = (struct pmc_reading){
	    .status = PMC_STATUS_EXACT,
	    .value = v,
	    .scaled = (double)v,
	};
	return 0;
}

/* The profile model's views (profile.h, docs/profile.md) that every reader shares: self
 * and total per function, the diff of two profiles, the attribution of a change. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "core/counts.h"
#include "profile/profile.h"
#include "profile/profile_priv.h"

/* ---- Views by display name ------------------------------------------------------- */

/* The display name of frame f as a new string. */
static char *display_name(const struct pmc_profile_frame *f)
{
	int n = format_name(f, NULL, 0);
	char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;

	if (s)
		format_name(f, s, (size_t)n + 1);
	return s;
}

void pmc_profile_functions_free(struct pmc_profile_fn *fns, size_t n)
{
	if (!fns)
		return;
	for (size_t i = 0; i < n; i++)
		free(fns[i].name);
	free(fns);
}

static int fn_cmp(const void *a, const void *b)
{
	const struct pmc_profile_fn *x = a, *y = b;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

int pmc_profile_functions(const struct pmc_profile *p, struct pmc_profile_fn **ret, size_t *ret_n)
{
	struct pmc_hashmap byname = {0};
	struct pmc_profile_fn *fns = NULL;
	size_t *fn_of = NULL, *seen = NULL;
	size_t n = 0;
	int rc = -ENOMEM;

	if (!p || !ret || !ret_n)
		return -EINVAL;
	fn_of = malloc((p->nframes + 1) * sizeof(*fn_of));
	fns = calloc(p->nframes + 1, sizeof(*fns));
	if (!fn_of || !fns || pmc_hashmap_init(&byname, p->nframes) < 0)
		goto out;
	/* Frames with one display name (one symbol in two objects, the unresolved
	 * addresses of one object) are one function. */
	for (size_t i = 0; i < p->nframes; i++) {
		char *name = display_name(&p->frames[i]);
		size_t idx;
		int r;

		if (!name)
			goto out;
		r = pmc_hashmap_get_or_put(&byname, name, n, &idx);
		if (r < 0) {
			free(name);
			goto out;
		}
		if (r == 1) {
			fns[n].name = name;
			/* The object of the function's first frame (the lowest id). */
			fns[n].object = (char *)p->frames[i].object;
			n++;
		} else {
			free(name);
		}
		fn_of[i] = idx;
	}
	seen = malloc((n + 1) * sizeof(*seen));
	if (!seen)
		goto out;
	for (size_t f = 0; f < n; f++)
		seen[f] = SIZE_MAX;
	for (size_t s = 0; s < p->nstacks; s++) {
		const struct pmc_profile_stack *st = &p->stacks[s];

		fns[fn_of[st->frames[st->depth - 1]]].self += st->weight;
		fns[fn_of[st->frames[st->depth - 1]]].self_samples += st->samples;
		/* A recursive function is on the stack once for its total. */
		for (uint32_t d = 0; d < st->depth; d++) {
			size_t f = fn_of[st->frames[d]];

			if (seen[f] != s) {
				seen[f] = s;
				fns[f].total += st->weight;
			}
		}
	}
	/* A frame on no stack (one that "(below main)" took the place of) is no function. */
	size_t kept = 0;

	for (size_t f = 0; f < n; f++) {
		if (seen[f] != SIZE_MAX)
			fns[kept++] = fns[f];
		else
			free(fns[f].name);
	}
	n = kept;
	if (n)
		qsort(fns, n, sizeof(*fns), fn_cmp);
	*ret = fns;
	*ret_n = n;
	fns = NULL;
	rc = 0;
out:
	if (fns)
		for (size_t i = 0; i < n; i++)
			free(fns[i].name);
	free(fns);
	free(seen);
	free(fn_of);
	pmc_hashmap_free(&byname);
	return rc;
}

void pmc_profile_deltas_free(struct pmc_profile_delta *d, size_t n)
{
	if (!d)
		return;
	for (size_t i = 0; i < n; i++)
		free(d[i].name);
	free(d);
}

static int delta_abs_cmp(const void *a, const void *b)
{
	const struct pmc_profile_delta *x = a, *y = b;
	double ax = fabs(x->delta), ay = fabs(y->delta);

	if (ax != ay)
		return ax > ay ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int delta_part_cmp(const void *a, const void *b)
{
	const struct pmc_profile_delta *x = a, *y = b;

	if (x->delta != y->delta)
		return x->delta > y->delta ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Every function of either profile with its self weight and share on each side,
 * matched by display name; delta = new_share - old_share. Shares need a total: an empty
 * profile has none (-EINVAL). */
static int match(const struct pmc_profile *old_p, const struct pmc_profile *new_p, bool allow_empty,
		 struct pmc_profile_delta **ret, size_t *ret_n)
{
	struct pmc_profile_fn *of = NULL, *nf = NULL;
	size_t on = 0, nn = 0, n = 0;
	struct pmc_hashmap byname = {0};
	struct pmc_profile_delta *d = NULL;
	double ot, nt;
	int rc;

	if (!old_p || !new_p || !ret || !ret_n)
		return -EINVAL;
	if (!allow_empty && (!old_p->total || !new_p->total))
		return -EINVAL;
	/* An empty profile's functions all weigh 0: a share of 0 of a total taken as 1. */
	ot = old_p->total ? (double)old_p->total : 1;
	nt = new_p->total ? (double)new_p->total : 1;
	rc = pmc_profile_functions(old_p, &of, &on);
	if (rc < 0)
		goto out;
	rc = pmc_profile_functions(new_p, &nf, &nn);
	if (rc < 0)
		goto out;
	rc = -ENOMEM;
	d = calloc(on + nn + 1, sizeof(*d));
	if (!d || pmc_hashmap_init(&byname, on + nn) < 0)
		goto out;
	for (size_t i = 0; i < on; i++) {
		if (pmc_hashmap_put(&byname, of[i].name, n) < 0)
			goto out;
		d[n].name = of[i].name;
		of[i].name = NULL; /* moved */
		d[n].old_self = of[i].self;
		d[n].old_samples = of[i].self_samples;
		d[n].old_total = of[i].total;
		d[n].old_share = (double)of[i].self / ot;
		n++;
	}
	for (size_t i = 0; i < nn; i++) {
		size_t idx;

		if (pmc_hashmap_get(&byname, nf[i].name, &idx) < 0) {
			idx = n++;
			d[idx].name = nf[i].name;
			nf[i].name = NULL;
		}
		d[idx].new_self = nf[i].self;
		d[idx].new_samples = nf[i].self_samples;
		d[idx].new_total = nf[i].total;
		d[idx].new_share = (double)nf[i].self / nt;
	}
	for (size_t i = 0; i < n; i++)
		d[i].delta = d[i].new_share - d[i].old_share;
	*ret = d;
	*ret_n = n;
	d = NULL;
	rc = 0;
out:
	pmc_hashmap_free(&byname);
	pmc_profile_deltas_free(d, n);
	pmc_profile_functions_free(of, on);
	pmc_profile_functions_free(nf, nn);
	return rc;
}

bool pmc_profile_off_cpu(const struct pmc_profile *p)
{
	return p && p->info.kind == PMC_PROFILE_SAMPLED &&
	       strcmp(p->info.event, PMC_PROFILE_OFF_CPU_EVENT) == 0 &&
	       strcmp(p->info.unit, "ns") == 0;
}

enum pmc_profile_diff_mode pmc_profile_diff_mode(const struct pmc_profile *old_p,
						 const struct pmc_profile *new_p)
{
	if (!old_p || !new_p || old_p->info.kind != new_p->info.kind ||
	    strcmp(old_p->info.event, new_p->info.event) != 0 ||
	    strcmp(old_p->info.unit, new_p->info.unit) != 0)
		return PMC_PROFILE_DIFF_SHARES;
	if (old_p->info.kind == PMC_PROFILE_EXACT)
		return PMC_PROFILE_DIFF_COUNTS;
	/* Each wait measured, none sampled: the time off CPU of a function is an amount
	 * without sampling error, and it is its total (its self is the kernel's). */
	if (pmc_profile_off_cpu(old_p) && pmc_profile_off_cpu(new_p))
		return PMC_PROFILE_DIFF_WAITS;
	/* Numbers of samples (folded stacks) at rates not known are no amount; a sampled
	 * side needs samples to say what one stands for (an empty one takes the other's). */
	if (strcmp(new_p->info.unit, "samples") == 0 ||
	    (!pmc_profile_per_sample(old_p) && !pmc_profile_per_sample(new_p)))
		return PMC_PROFILE_DIFF_SHARES;
	return PMC_PROFILE_DIFF_AMOUNTS;
}

double pmc_profile_per_sample(const struct pmc_profile *p)
{
	uint64_t k;

	if (!p || p->info.kind != PMC_PROFILE_SAMPLED)
		return 0;
	k = pmc_profile_samples(p);
	return k && p->total ? (double)p->total / (double)k : 0;
}

void pmc_profile_change(uint64_t w0, uint64_t k0, double p0, uint64_t w1, uint64_t k1, double p1,
			double *ret_change, double *ret_lo, double *ret_hi, bool *ret_clear)
{
	struct pmc_count_change c;
	double change = (double)w1 - (double)w0;

	*ret_change = *ret_lo = *ret_hi = change;
	*ret_clear = change != 0;
	if (!p0 && !p1)
		return; /* exact */
	/* A side without samples (an empty profile) counts as the other side's rate. */
	if (!p0)
		p0 = p1;
	if (!p1)
		p1 = p0;
	/* The function's own worth per sample where it has samples: a period that varies
	 * (cpu-clock at a frequency) is then the one its samples had. */
	if (pmc_count_change((double)w0, k0, k0 && w0 ? (double)w0 / (double)k0 : p0, (double)w1,
			     k1, k1 && w1 ? (double)w1 / (double)k1 : p1,
			     PMC_PROFILE_DIFF_CONFIDENCE, &c) < 0) {
		*ret_clear = false;
		return;
	}
	*ret_lo = c.lo;
	*ret_hi = c.hi;
	*ret_clear = c.clear;
}

/* Amounts: the changes beyond sampling error first, then by |change|, then name. */
static int delta_change_cmp(const void *a, const void *b)
{
	const struct pmc_profile_delta *x = a, *y = b;
	double ax = fabs(x->change), ay = fabs(y->change);

	if (x->clear != y->clear)
		return x->clear ? -1 : 1;
	if (ax != ay)
		return ax > ay ? -1 : 1;
	return strcmp(x->name, y->name);
}

int pmc_profile_diff(const struct pmc_profile *old_p, const struct pmc_profile *new_p,
		     struct pmc_profile_delta **ret, size_t *ret_n)
{
	enum pmc_profile_diff_mode mode = pmc_profile_diff_mode(old_p, new_p);
	double p0 = 0, p1 = 0;
	struct pmc_profile_delta *d;
	size_t n;
	int rc = match(old_p, new_p, true, &d, &n);

	if (rc < 0)
		return rc;
	if (mode == PMC_PROFILE_DIFF_AMOUNTS) {
		p0 = pmc_profile_per_sample(old_p);
		p1 = pmc_profile_per_sample(new_p);
	}
	for (size_t i = 0; i < n; i++)
		if (mode == PMC_PROFILE_DIFF_WAITS)
			pmc_profile_change(d[i].old_total, 0, 0, d[i].new_total, 0, 0, &d[i].change,
					   &d[i].lo, &d[i].hi, &d[i].clear);
		else
			pmc_profile_change(d[i].old_self, d[i].old_samples, p0, d[i].new_self,
					   d[i].new_samples, p1, &d[i].change, &d[i].lo, &d[i].hi,
					   &d[i].clear);
	qsort(d, n, sizeof(*d), mode == PMC_PROFILE_DIFF_SHARES ? delta_abs_cmp : delta_change_cmp);
	*ret = d;
	*ret_n = n;
	return 0;
}

/* The 95% interval of a sampled share: Wilson's score interval of k samples among n
 * (Wilson 1927; it stays inside [0, 1] and is sound for k near 0 or n, where most
 * functions of a profile are), moved by the difference between the share of weight and
 * k / n (the same at a fixed sampling period), and clamped to [0, 1]. */
static void share_interval(double share, uint64_t k, uint64_t n, double *lo, double *hi)
{
	const double z = 1.959963984540054, z2 = z * z;
	double p, c, h;

	if (!n) {
		*lo = 0;
		*hi = 1;
		return;
	}
	p = (double)k / (double)n;
	c = (p + z2 / (2.0 * (double)n)) / (1.0 + z2 / (double)n);
	h = z / (1.0 + z2 / (double)n) *
	    sqrt(p * (1.0 - p) / (double)n + z2 / (4.0 * (double)n * (double)n));
	*lo = fmax(0.0, share - (p - (c - h)));
	*hi = fmin(1.0, share + (c + h - p));
}

/* The events a time profile samples and the metrics that measure time, without "/op"
 * or modifiers (docs/profile.md, "Profiles in the gate"). */
static const char *const time_events[] = {"cpu-clock", "task-clock", "cycles"};
static const char *const time_metrics[] = {"task-clock", "cpu-clock", "wall-time", "user-time",
					   "cycles"};
/* Callgrind's events and the metrics the valgrind backend reports for them. */
static const struct {
	const char *event, *metric;
} exact_events[] = {{"Ir", "instructions"}};

/* The length of an id without "/op" and without a modifier (":u", ":k", ...). */
static size_t base_len(const char *id)
{
	size_t n = strcspn(id, ":");

	if (n > 3 && strncmp(id + n - 3, "/op", 3) == 0)
		n -= 3;
	return n;
}

static bool in_list(const char *id, size_t len, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(list[i]) == len && strncmp(list[i], id, len) == 0)
			return true;
	return false;
}

enum pmc_profile_fit pmc_profile_fits_metric(const struct pmc_profile *p, const char *metric)
{
	size_t ml, el;
	const char *ev;

	if (!p || !metric)
		return PMC_PROFILE_FIT_NONE;
	ev = p->info.event;
	ml = base_len(metric);
	el = base_len(ev);
	if (p->info.kind == PMC_PROFILE_EXACT) {
		for (size_t i = 0; i < sizeof(exact_events) / sizeof(exact_events[0]); i++)
			if (strlen(exact_events[i].event) == el &&
			    strncmp(exact_events[i].event, ev, el) == 0 &&
			    strlen(exact_events[i].metric) == ml &&
			    strncmp(exact_events[i].metric, metric, ml) == 0)
				return PMC_PROFILE_FIT_EXACT;
		return PMC_PROFILE_FIT_NONE;
	}
	if (el == ml && strncmp(ev, metric, ml) == 0)
		return PMC_PROFILE_FIT_SAMPLED;
	if (in_list(ev, el, time_events, sizeof(time_events) / sizeof(time_events[0])) &&
	    in_list(metric, ml, time_metrics, sizeof(time_metrics) / sizeof(time_metrics[0])))
		return PMC_PROFILE_FIT_SAMPLED;
	return PMC_PROFILE_FIT_NONE;
}

int pmc_profile_attribute(const struct pmc_profile *old_p, const struct pmc_profile *new_p,
			  double old_value, double new_value, struct pmc_profile_delta **ret,
			  size_t *ret_n)
{
	struct pmc_profile_delta *d;
	double change = new_value - old_value;
	uint64_t on, nn;
	bool sampled;
	size_t n;
	int rc;

	if (!isfinite(old_value) || !isfinite(new_value) || !isfinite(change))
		return -EINVAL;
	if (change == 0)
		return -EDOM;
	rc = match(old_p, new_p, false, &d, &n);
	if (rc < 0)
		return rc;
	sampled =
	    old_p->info.kind == PMC_PROFILE_SAMPLED || new_p->info.kind == PMC_PROFILE_SAMPLED;
	on = pmc_profile_samples(old_p);
	nn = pmc_profile_samples(new_p);
	/* Each function's estimated amount of the metric is its share of the profile
	 * times the metric's total; its part is its amount's change over the total's. */
	for (size_t i = 0; i < n; i++) {
		struct pmc_profile_delta *x = &d[i];
		double ol, oh, nl, nh, a, b;

		x->delta = (x->new_share * new_value - x->old_share * old_value) / change;
		x->lo = x->hi = x->delta;
		x->clear = true;
		if (!sampled)
			continue;
		/* A side with an exact profile (one may be exact, the other sampled) has
		 * exact shares. */
		ol = oh = x->old_share;
		nl = nh = x->new_share;
		if (old_p->info.kind == PMC_PROFILE_SAMPLED)
			share_interval(x->old_share, x->old_samples, on, &ol, &oh);
		if (new_p->info.kind == PMC_PROFILE_SAMPLED)
			share_interval(x->new_share, x->new_samples, nn, &nl, &nh);
		/* The part is increasing in the new share and decreasing in the old one (for
		 * positive values): its bounds are at the shares' opposite bounds. */
		a = (nl * new_value - oh * old_value) / change;
		b = (nh * new_value - ol * old_value) / change;
		x->lo = fmin(a, b);
		x->hi = fmax(a, b);
		x->clear = x->old_samples + x->new_samples >= PMC_PROFILE_ATTRIBUTE_MIN_SAMPLES &&
			   (x->lo > 0 || x->hi < 0);
	}
	qsort(d, n, sizeof(*d), delta_part_cmp);
	*ret = d;
	*ret_n = n;
	return 0;
}

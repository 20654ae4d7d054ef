/* The comparison's pairing (compare_priv.h): the benchmarks of two results paired by name
 * and checked (one backend, the same commands, skipped ones set aside), and the metrics
 * of each pair paired by id into rows, grouped by metric into blocks, each with its
 * threshold and whether the gate judges it. The statistics come later
 * (compare_stats.c). */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/grow.h"
#include "base/hashmap.h"
#include "counters/backend.h"
#include "core/compare.h"
#include "core/compare_priv.h"
#include "core/metrics.h"
#include "core/result.h"

static bool selected(const struct pmc_compare_opts *o, const char *id)
{
	if (!o->metrics || o->nmetrics == 0)
		return true;
	for (size_t i = 0; i < o->nmetrics; i++)
		if (fnmatch(o->metrics[i], id, 0) == 0)
			return true;
	return false;
}

static int slot_of(struct ctx *x, const char *id, size_t *ret)
{
	size_t idx;
	int r;

	r = pmc_hashmap_get_or_put(&x->ids, id, x->nslots, &idx);
	if (r < 0)
		return r;
	if (r == 1) {
		if (pmc_grow(&x->slots, x->nslots, sizeof(*x->slots)) < 0)
			return -ENOMEM;
		x->slots[idx] = (struct slot){
		    .id = id,
		    .selected = selected(x->o, id),
		    .block = SIZE_MAX,
		    .newpos = SIZE_MAX,
		};
		x->nslots++;
	}
	*ret = idx;
	return 0;
}

/* The direction of an improvement: the registry's for a metric it knows (result files
 * store "lower" for cpus-utilized, which has none), else the result's. */
static int direction_of(const struct pmc_metric *m)
{
	struct pmc_metric_info info = pmc_metric_lookup(m->id);

	return info.id ? (int)info.direction : m->better;
}

/* Whether `gate` judges this metric of this benchmark (docs/compare.md, "What the gate
 * judges"): a limit that names it, always; else only a metric gated by default, when a
 * default the user set covers it or when no limit names any metric. */
static bool gated_row(const struct ctx *x, const struct pmc_metric *m,
		      enum pmc_threshold_origin origin)
{
	struct pmc_metric_info info = pmc_metric_lookup(m->id);

	if (origin == PMC_TH_NAMED)
		return true;
	if (!info.id || !info.gated || (x->simulator && !m->simulated))
		return false;
	return origin == PMC_TH_DEFAULT || !x->names_metrics;
}

static int block_of(struct ctx *x, struct slot *s, const struct pmc_metric *m, size_t *ret)
{
	struct pmc_comparison *c = x->c;

	if (s->block == SIZE_MAX) {
		struct pmc_cmp_block *b;

		if (pmc_grow(&c->blocks, c->nblocks, sizeof(*c->blocks)) < 0)
			return -ENOMEM;
		b = &c->blocks[c->nblocks];
		memset(b, 0, sizeof(*b));
		b->metric = s->id;
		b->unit = m->unit;
		b->better = direction_of(m);
		b->derived = m->derived;
		b->cross_group = m->cross_group;
		b->geo_old = b->geo_new = b->geo_ratio = NAN;
		s->block = c->nblocks++;
	}
	*ret = s->block;
	return 0;
}

static int block_add_row(struct pmc_cmp_block *b, size_t row)
{
	if (pmc_grow(&b->rows, b->nrows, sizeof(*b->rows)) < 0)
		return -ENOMEM;
	b->rows[b->nrows++] = row;
	return 0;
}

static struct pmc_cmp_row *new_row(struct ctx *x)
{
	struct pmc_comparison *c = x->c;
	struct pmc_cmp_row *row;

	/* The jobs grow with the rows, one per row. */
	if (pmc_grow(&c->rows, c->nrows, sizeof(*c->rows)) < 0 ||
	    pmc_grow(&x->jobs, c->nrows, sizeof(*x->jobs)) < 0)
		return NULL;
	row = &c->rows[c->nrows];
	memset(row, 0, sizeof(*row));
	row->ratio = row->ratio_lo = row->ratio_hi = NAN;
	row->diff = row->p = row->q = row->limit_rel = NAN;
	return row;
}

/* Returns true when a run of m was scaled from less than half of its enabled time. */
static bool note_multiplexing(struct ctx *x, const struct pmc_metric *m, const char *bench)
{
	bool low = false;

	if (!m->has_status)
		return false;
	for (size_t i = 0; i < m->n; i++) {
		double frac;

		if (m->status[i] != PMC_STATUS_SCALED || m->raw[i].enabled == 0)
			continue;
		frac = pmc_reading_running_fraction(m->raw[i].enabled, m->raw[i].running);
		if (frac < 0.5) {
			low = true;
			if (isnan(x->mux_min) || frac < x->mux_min) {
				x->mux_min = frac;
				x->mux_metric = m->id;
				x->mux_bench = bench;
			}
		}
	}
	return low;
}

static const char *missing_reason(const struct pmc_metric *m)
{
	if (!m)
		return "absent";
	if (m->has_status && m->n > 0)
		return pmc_status_name(m->status[0]);
	return "not measured";
}

static size_t count_present(const struct pmc_metric *m)
{
	size_t n = 0;

	if (m)
		for (size_t i = 0; i < m->n; i++)
			n += !isnan(m->values[i]);
	return n;
}

/* Pairs one metric present in the old benchmark with its namesake in the new one (nm is
 * NULL when the new benchmark lacks it) and sets up its row; the statistics come later,
 * in pmc_cmp_compute_rows(). */
/* Run i of both benchmarks is from round i, and every metric has one value per run. */
static bool same_rounds(const struct pmc_benchmark *ob, const struct pmc_benchmark *nb,
			const struct pmc_metric *om, const struct pmc_metric *nm)
{
	if (!nm || ob->nruns != nb->nruns || om->n != ob->nruns || nm->n != nb->nruns)
		return false;
	for (size_t i = 0; i < ob->nruns; i++)
		if (!ob->runs[i].round || ob->runs[i].round != nb->runs[i].round)
			return false;
	return true;
}

static int compare_metric(struct ctx *x, const struct pmc_benchmark *ob,
			  const struct pmc_benchmark *nb, const struct pmc_metric *om,
			  const struct pmc_metric *nm, struct slot *s)
{
	const struct pmc_compare_opts *o = x->o;
	struct pmc_comparison *c = x->c;
	struct pmc_cmp_row *row;
	size_t na, nn, blk;
	int r;

	na = count_present(om);
	nn = count_present(nm);
	if (na == 0 && nn == 0) {
		/* Measured on neither side: not a row, but a limit set for it checked nothing. */
		if (s->nno_values++ == 0)
			s->no_values_status = missing_reason(om);
		return 0;
	}
	if (nm && om->unit && nm->unit && strcmp(om->unit, nm->unit) != 0) {
		snprintf(x->err, x->errlen,
			 "metric '%s' of benchmark '%s' is in %s in the old result but in %s in "
			 "the new one; compare results written by the same pmcbench version",
			 om->id, nb->name, om->unit, nm->unit);
		return -EINVAL;
	}
	if (nm && om->simulated != nm->simulated && na > 0 && nn > 0) {
		if (!o->force) {
			snprintf(x->err, x->errlen,
				 "metric '%s' of benchmark '%s' is simulated (valgrind) in the %s "
				 "result but counted by hardware in the %s one; compare results "
				 "of the same backend, or pass --force",
				 om->id, nb->name, om->simulated ? "old" : "new",
				 om->simulated ? "new" : "old");
			return -EINVAL;
		}
		if (!s->warned_forced) {
			s->warned_forced = true;
			r = pmc_cmp_warn(c,
					 "metric '%s' is simulated on one side and counted by "
					 "hardware on the other (--force): the numbers are not "
					 "alike",
					 om->id);
			if (r < 0)
				return r;
		}
	}
	r = block_of(x, s, om, &blk);
	if (r < 0)
		return r;
	row = new_row(x);
	if (!row)
		return -ENOMEM;
	x->jobs[c->nrows] = (struct job){.om = om,
					 .nm = nm,
					 .na = na,
					 .nn = nn,
					 .paired = x->paired && same_rounds(ob, nb, om, nm),
					 .two_results = !x->one_result};
	if (na > x->maxn)
		x->maxn = na;
	if (nn > x->maxn)
		x->maxn = nn;
	row->bench = nb->name;
	row->old_bench = ob->name;
	row->metric = s->id;
	row->old_m = om;
	row->new_m = nm;
	row->old_runs = ob->runs;
	row->old_nruns = ob->nruns;
	row->new_runs = nb->runs;
	row->new_nruns = nb->nruns;
	row->block = blk;
	if (om->simulated || (nm && nm->simulated))
		c->blocks[blk].simulated = true;
	{
		enum pmc_threshold_origin origin;

		pmc_thresholds_find(o->thresholds, nb->name, om->id, &origin);
		row->gated = gated_row(x, om, origin);
		row->asked = origin != PMC_TH_BUILTIN;
	}

	if (na == 0 || nn == 0) {
		int side = na == 0 ? 0 : 1;

		row->kind = PMC_ROW_MISSING;
		row->missing_old = na == 0;
		if (s->none_side++ == 0) {
			s->one_side_old = na > 0;
			s->one_side_status = missing_reason(na == 0 ? om : nm);
		}
		x->missing_rows[side]++;
		if (!x->missing_example[side]) {
			x->missing_example[side] = s->id;
			x->missing_status[side] = missing_reason(side == 0 ? om : nm);
		}
		row->verdict = PMC_VERDICT_INCONCLUSIVE;
		row->why = "no value on one side";
		c->nrows++;
		return block_add_row(&c->blocks[blk], c->nrows - 1);
	}

	s->nvalues++;
	if ((int)note_multiplexing(x, om, ob->name) | (int)note_multiplexing(x, nm, nb->name)) {
		x->mux_low++;
		row->multiplexed = true;
	}
	{
		const struct pmc_threshold *th =
		    pmc_thresholds_lookup(o->thresholds, nb->name, om->id);
		int better = c->blocks[blk].better;

		r = pmc_threshold_check_unit(th, om->id, om->unit, x->err, x->errlen);
		if (r < 0)
			return r;
		if (better == PMC_NO_DIRECTION && row->gated && !th->sign) {
			/* Gated, it must be able to regress: only a sign can say which way. */
			pmc_err_set(
			    x->err, x->errlen,
			    "threshold %s=%s: metric '%s' has no direction (neither more "
			    "nor less is better); write +%s or -%s to say which change is a "
			    "regression",
			    om->id, th->text, om->id, th->text, th->text);
			return -EINVAL;
		}
		row->threshold = th;
		row->bad = th->sign ? th->sign : -better;
		/* Only a metric of the table has a known direction to contradict. */
		if (th->sign && better && th->sign == better && !s->warned_sign &&
		    pmc_metric_lookup(om->id).id) {
			s->warned_sign = true;
			r = pmc_cmp_warn(c,
					 "threshold %s=%s counts %s of %s as a regression, but "
					 "%s is better for it",
					 om->id, th->text,
					 th->sign > 0 ? "an increase" : "a decrease", om->id,
					 better > 0 ? "higher" : "lower");
			if (r < 0)
				return r;
		}
	}
	c->nrows++;
	return block_add_row(&c->blocks[blk], c->nrows - 1);
}

/* The slot of the metric at position pos of a benchmark. Benchmarks of one result list
 * their metrics in the same order as a rule, so the slot used at the same position last
 * time is tried before the hash. */
static int slot_at(struct ctx *x, size_t pos, const char *id, struct slot **ret)
{
	size_t idx;
	int r;

	if (pos < x->npos && x->pos_slot[pos] != SIZE_MAX &&
	    strcmp(x->slots[x->pos_slot[pos]].id, id) == 0) {
		*ret = &x->slots[x->pos_slot[pos]];
		return 0;
	}
	r = slot_of(x, id, &idx);
	if (r < 0)
		return r;
	if (pos >= x->npos) {
		size_t from = x->npos;

		if (pmc_grow_to(&x->pos_slot, &x->npos, pos + 1, sizeof(*x->pos_slot)) < 0)
			return -ENOMEM;
		for (size_t i = from; i < x->npos; i++)
			x->pos_slot[i] = SIZE_MAX;
	}
	x->pos_slot[pos] = idx;
	*ret = &x->slots[idx];
	return 0;
}

static int compare_pair(struct ctx *x, const struct pmc_benchmark *ob,
			const struct pmc_benchmark *nb)
{
	bool indexed = false; /* slots' newpos set for nb's metrics */
	size_t matched = 0;
	struct slot *s;
	int r;

	if (pmc_grow_to(&x->used, &x->capused, nb->nmetrics, sizeof(*x->used)) < 0)
		return -ENOMEM;
	memset(x->used, 0, nb->nmetrics * sizeof(*x->used));
	for (size_t j = 0; j < ob->nmetrics; j++) {
		const struct pmc_metric *om = &ob->metrics[j], *nm = NULL;
		size_t k = SIZE_MAX;

		r = slot_at(x, j, om->id, &s);
		if (r < 0)
			return r;
		if (j < nb->nmetrics && !x->used[j] && strcmp(nb->metrics[j].id, om->id) == 0) {
			k = j; /* the same position on both sides: no lookup */
		} else {
			if (!indexed) {
				for (size_t t = 0; t < nb->nmetrics; t++) {
					struct slot *ns;

					r = slot_at(x, t, nb->metrics[t].id, &ns);
					if (r < 0)
						return r;
					ns->newpos = t;
				}
				indexed = true;
				r = slot_at(x, j, om->id, &s);
				if (r < 0)
					return r;
			}
			if (s->newpos != SIZE_MAX && !x->used[s->newpos])
				k = s->newpos;
		}
		if (k != SIZE_MAX) {
			x->used[k] = true;
			matched++;
			nm = &nb->metrics[k];
		}
		if (!s->selected)
			continue;
		r = compare_metric(x, ob, nb, om, nm, s);
		if (r < 0)
			return r;
	}
	if (matched == nb->nmetrics && !indexed)
		return 0;
	/* What is left is in the new benchmark only. */
	for (size_t t = 0; t < nb->nmetrics; t++) {
		const struct pmc_metric *nm = &nb->metrics[t];

		r = slot_at(x, t, nm->id, &s);
		if (r < 0)
			return r;
		s->newpos = SIZE_MAX;
		if (!x->used[t] && count_present(nm) > 0)
			s->only_new++;
	}
	return 0;
}

/* Whether r's backend, as its file names it, is a registered simulator. */
static bool is_simulator(const struct pmc_result *r)
{
	enum pmc_backend id;

	return pmc_backend_find(r->backend, &id) == 0 && pmc_backend_get(id)->simulated;
}

/* Results of two backends count different things (a simulated machine against the real
 * one): an error naming both, unless --force (docs/compare.md, "Mismatched inputs"). */
static int check_backends(struct ctx *x, const struct pmc_result *a, const struct pmc_result *b)
{
	if (!a->backend || !b->backend || strcmp(a->backend, b->backend) == 0 || x->o->force)
		return 0;
	pmc_err_set(
	    x->err, x->errlen,
	    "%s was measured with the %.40s backend and %s with the %.40s backend: their "
	    "counts are not alike%s; compare results of one backend, or pass --force",
	    pmc_cmp_side_name(x, SIDE_OLD), a->backend, pmc_cmp_side_name(x, SIDE_NEW), b->backend,
	    is_simulator(a) != is_simulator(b) ? " (simulated against hardware counts)" : "");
	return -EINVAL;
}

/* Benchmarks paired by name that ran different commands compare two programs, not two
 * versions of one: an error, unless --force. */
/* Whether two command lines differ at most in the directory of their first word:
 * "./old/wc -l data" and "/opt/new/wc -l data". */
static bool same_but_directory(const char *a, const char *b)
{
	size_t la = strcspn(a, " \t"), lb = strcspn(b, " \t");
	const char *ba = a, *bb = b;

	for (size_t i = 0; i < la; i++)
		if (a[i] == '/')
			ba = a + i + 1;
	for (size_t i = 0; i < lb; i++)
		if (b[i] == '/')
			bb = b + i + 1;
	return (size_t)(a + la - ba) == (size_t)(b + lb - bb) &&
	       memcmp(ba, bb, (size_t)(a + la - ba)) == 0 && strcmp(a + la, b + lb) == 0;
}

static int check_command(struct ctx *x, const struct pmc_benchmark *ob,
			 const struct pmc_benchmark *nb)
{
	if (!ob->command || !nb->command || strcmp(ob->command, nb->command) == 0 || x->o->force)
		return 0;
	/* A name the user gave (-n wc: not the command itself) is the benchmark's identity
	 * when only the program's directory differs: the same program at two paths
	 * (./old/wc data, ./new/wc data) is compared, and the commands are a note (issue
	 * 19). Other arguments are another workload: an error, as below. */
	if (strcmp(ob->name, ob->command) != 0 && strcmp(nb->name, nb->command) != 0 &&
	    same_but_directory(ob->command, nb->command))
		return pmc_cmp_warn(x->c,
				    "benchmark '%.100s' ran '%.120s' in %s and '%.120s' in %s: "
				    "compared by the name given to both",
				    nb->name, ob->command, pmc_cmp_side_name(x, SIDE_OLD),
				    nb->command, pmc_cmp_side_name(x, SIDE_NEW));
	pmc_err_set(x->err, x->errlen,
		    "benchmark '%.100s' ran different commands: '%.120s' in %s, '%.120s' in %s; "
		    "compare results of the same command, or pass --force",
		    nb->name, ob->command, pmc_cmp_side_name(x, SIDE_OLD), nb->command,
		    pmc_cmp_side_name(x, SIDE_NEW));
	return -EINVAL;
}

/* A baseline written after the new result suggests the arguments were swapped. Both
 * times are ISO 8601 UTC of one format (docs/result-schema.md), which sort as text. */
static int check_created(struct ctx *x, const struct pmc_result *a, const struct pmc_result *b)
{
	if (!a->created || !b->created || strlen(a->created) != strlen(b->created) ||
	    strcmp(a->created, b->created) <= 0)
		return 0;
	return pmc_cmp_warn(x->c,
			    "%s (the baseline) was created after %s (%.40s, later than %.40s): "
			    "are the arguments swapped?",
			    pmc_cmp_side_name(x, SIDE_OLD), pmc_cmp_side_name(x, SIDE_NEW),
			    a->created, b->created);
}

/* A benchmark skipped in either result measured nothing there: it is counted and named
 * (skipped_warning()), never paired. Returns true when ob or nb was skipped. */
static bool skipped_pair(struct ctx *x, const struct pmc_benchmark *ob,
			 const struct pmc_benchmark *nb)
{
	const struct pmc_benchmark *side[2] = {ob, nb};

	if (!ob->skipped && !nb->skipped)
		return false;
	for (int s = SIDE_OLD; s <= SIDE_NEW; s++) {
		if (!side[s]->skipped)
			continue;
		if (x->nskip[s] < 3)
			x->skip_example[s][x->nskip[s]] = side[s];
		x->nskip[s]++;
	}
	x->c->nskipped++;
	return true;
}

static void list_names(char *buf, size_t len, const struct pmc_result *r)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < r->nbench && i < 3 && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s'%.40s'", i ? ", " : "",
					r->benchmarks[i].name);
	if (r->nbench > 3 && off < len)
		snprintf(buf + off, len - off, ", ...");
}

int pmc_cmp_pair_benchmarks(struct ctx *x, const struct pmc_result *old_r,
			    const struct pmc_result *new_r, size_t **ret_pair)
{
	struct pmc_comparison *c = x->c;
	struct pmc_hashmap names = {0};
	size_t *pair = NULL; /* old index -> new index, SIZE_MAX when unpaired */
	int r;

	x->simulator = is_simulator(old_r) || is_simulator(new_r);
	r = check_backends(x, old_r, new_r);
	if (r < 0)
		goto fail;
	r = pmc_hashmap_init(&names, new_r->nbench);
	if (r < 0)
		goto fail;
	pair = malloc((old_r->nbench ? old_r->nbench : 1) * sizeof(*pair));
	if (!pair) {
		r = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < new_r->nbench; i++) {
		size_t idx;

		/* The first of duplicate names wins; the loader rejects duplicates anyway. */
		r = pmc_hashmap_get_or_put(&names, new_r->benchmarks[i].name, i, &idx);
		if (r < 0)
			goto fail;
	}
	for (size_t i = 0; i < old_r->nbench; i++) {
		if (pmc_hashmap_get(&names, old_r->benchmarks[i].name, &pair[i]) < 0)
			pair[i] = SIZE_MAX;
		if (pair[i] != SIZE_MAX)
			c->ncommon++;
	}
	if (c->ncommon == 0 && old_r->nbench == 1 && new_r->nbench == 1 && x->o->force &&
	    !old_r->benchmarks[0].skipped && !new_r->benchmarks[0].skipped) {
		/* Two runs of one command each (`run -o a.json -- ./old`, `... ./new`) are
		 * an A/B comparison when the user says so: without --force, results of
		 * different commands are an error (check_commands()). */
		pair[0] = 0;
		c->ncommon = 1;
		r = pmc_cmp_warn(c, "comparing the only benchmark of each result: '%s' with '%s'",
				 old_r->benchmarks[0].name, new_r->benchmarks[0].name);
		if (r < 0)
			goto fail;
	}
	c->nonly_old = old_r->nbench - c->ncommon;
	c->nonly_new = new_r->nbench - c->ncommon;
	if (c->ncommon == 0 && old_r->nbench == 1 && new_r->nbench == 1) {
		pmc_err_set(x->err, x->errlen,
			    "%s and %s measure different benchmarks ('%.100s' and '%.100s'): "
			    "compare results of the same command; for two builds of one "
			    "program, give both runs one name ('pmcbench run -n NAME -o FILE -- "
			    "./new/prog'), or pass --force to compare the two anyway",
			    pmc_cmp_side_name(x, SIDE_OLD), pmc_cmp_side_name(x, SIDE_NEW),
			    old_r->benchmarks[0].name, new_r->benchmarks[0].name);
		r = -EINVAL;
		goto fail;
	}
	if (c->ncommon == 0) {
		char a[160], b[160];

		list_names(a, sizeof(a), old_r);
		list_names(b, sizeof(b), new_r);
		pmc_err_set(x->err, x->errlen,
			    "nothing to compare: no benchmark is in both results "
			    "(old: %zu: %s; new: %zu: %s); compare results of the same benchmarks",
			    old_r->nbench, old_r->nbench ? a : "none", new_r->nbench,
			    new_r->nbench ? b : "none");
		r = -ENODATA;
		goto fail;
	}
	for (size_t i = 0; i < old_r->nbench; i++) {
		if (pair[i] != SIZE_MAX &&
		    skipped_pair(x, &old_r->benchmarks[i], &new_r->benchmarks[pair[i]]))
			pair[i] = SIZE_MAX;
	}
	if (c->nskipped == c->ncommon) {
		int side = x->nskip[SIDE_NEW] ? SIDE_NEW : SIDE_OLD;
		char name[300];

		pmc_cmp_skipped_name(name, sizeof(name), x->skip_example[side][0]);
		pmc_err_set(
		    x->err, x->errlen,
		    "nothing to compare: every benchmark in both results was skipped in one "
		    "of them (e.g. %s in %s); compare results where they ran",
		    name, pmc_cmp_side_name(x, side));
		r = -ENODATA;
		goto fail;
	}
	for (size_t i = 0; i < old_r->nbench; i++) {
		if (pair[i] == SIZE_MAX)
			continue;
		r = check_command(x, &old_r->benchmarks[i], &new_r->benchmarks[pair[i]]);
		if (r < 0)
			goto fail;
	}
	r = check_created(x, old_r, new_r);
	if (r < 0)
		goto fail;
	pmc_hashmap_free(&names);
	*ret_pair = pair;
	return 0;

fail:
	pmc_hashmap_free(&names);
	free(pair);
	return r;
}

int pmc_cmp_add_rows(struct ctx *x, const struct pmc_result *old_r, const struct pmc_result *new_r,
		     const size_t *pair)
{
	const struct pmc_compare_opts *opts = x->o;
	struct pmc_comparison *c = x->c;
	int r;

	for (size_t i = 0; i < old_r->nbench; i++) {
		if (pair[i] == SIZE_MAX)
			continue;
		r = compare_pair(x, &old_r->benchmarks[i], &new_r->benchmarks[pair[i]]);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < c->nrows; i++)
		if (c->rows[i].kind == PMC_ROW_MISSING)
			c->nmissing++;
	if (c->nrows == 0) {
		if (opts->metrics && opts->nmetrics)
			pmc_err_set(x->err, x->errlen,
				    "nothing to compare: no metric given with --metric "
				    "has values in both results");
		else
			pmc_err_set(x->err, x->errlen,
				    "nothing to compare: no metric has values in both "
				    "results");
		return -ENODATA;
	}
	if (c->nmissing == c->nrows) {
		pmc_err_set(x->err, x->errlen,
			    "nothing to compare: every metric lacks values on one side "
			    "(e.g. '%s' of '%s' in the %s result: %s)",
			    c->rows[0].metric, c->rows[0].bench,
			    c->rows[0].missing_old ? "old" : "new",
			    x->missing_status[c->rows[0].missing_old ? 0 : 1]);
		return -ENODATA;
	}
	return 0;
}

/* The comparison's verdicts (compare_priv.h, docs/compare.md): which rows can detect a
 * change in their Benjamini-Hochberg family and what the others need, the q-values, each
 * row's verdict against its threshold, and per metric the verdict counts, the geometric
 * means and the order of the blocks. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/compare.h"
#include "core/compare_priv.h"
#include "core/stats.h"

/* Where a change lies against the limits: +1 beyond the upper one, -1 beyond the lower
 * one, 0 inside the band, 2 when it straddles a limit. */
static int place_interval(double lo, double hi, double limit)
{
	if (lo > 1.0 + limit)
		return 1;
	if (hi < 1.0 - limit)
		return -1;
	if (lo >= 1.0 - limit && hi <= 1.0 + limit)
		return 0;
	return 2;
}

static enum pmc_verdict beyond(const struct pmc_cmp_row *row, int side)
{
	if (side == 0)
		return PMC_VERDICT_NO_CHANGE;
	return side == row->bad ? PMC_VERDICT_REGRESSION : PMC_VERDICT_IMPROVEMENT;
}

static void judge(struct pmc_cmp_row *row, double alpha, double confidence, bool fdr)
{
	const struct pmc_threshold *th = row->threshold;
	int side;

	if (row->kind == PMC_ROW_MISSING)
		return;
	if (row->one_invocation) {
		row->verdict = PMC_VERDICT_INCONCLUSIVE;
		row->why = "not tested: a side is one invocation, whose runs share its "
			   "conditions";
		return;
	}
	if (row->kind == PMC_ROW_EXACT) {
		if (row->diff == 0) {
			side = 0;
		} else if (th->absolute) {
			side = row->diff > th->limit ? 1 : row->diff < -th->limit ? -1 : 0;
		} else if (isnan(row->ratio)) {
			side = 1; /* from exactly 0 to more: beyond any relative limit */
		} else {
			side = place_interval(row->ratio, row->ratio, th->limit);
		}
		row->verdict = beyond(row, side);
		return;
	}
	row->significant = row->testable && (fdr ? row->q : row->p) < alpha;
	/* An interval that inverts the test (docs/statistics.md, "Ties at an endpoint"): on
	 * tied data an endpoint of the Moses (or Walsh) interval lands exactly on no change, a
	 * difference of two equal values. Whether no change belongs to the confidence set is
	 * what the test at no change says: when it rejects at the interval's level, that
	 * endpoint is open, "(+0.00%, +5.10%]", and excludes no change. */
	if (!isnan(row->ratio_lo) && row->p < 1.0 - confidence) {
		row->lo_open = row->ratio_lo == 1.0;
		row->hi_open = row->ratio_hi == 1.0;
	}
	/* The verdict must not contradict the interval printed beside it: a change is
	 * significant only when the test says so and its CI, where there is one, excludes no
	 * change (docs/compare.md, "Verdicts"). The exact test and the Moses CI, whose
	 * critical value comes from the tie-corrected normal approximation, can still
	 * disagree on tied data, with no change strictly inside the interval. */
	if (row->significant && !isnan(row->ratio_lo) && !isnan(row->ratio_hi) &&
	    (row->ratio_lo < 1.0 || (row->ratio_lo == 1.0 && !row->lo_open)) &&
	    (row->ratio_hi > 1.0 || (row->ratio_hi == 1.0 && !row->hi_open)))
		row->significant = false;
	if (!row->testable) {
		row->verdict = PMC_VERDICT_INCONCLUSIVE;
		if (!row->why) /* pmc_cmp_detectability() says what it needs */
			row->why = "too few samples for the test";
		return;
	}
	if (!row->significant) {
		row->verdict = PMC_VERDICT_NO_CHANGE;
		return;
	}
	if (isnan(row->ratio_lo) || isnan(row->ratio_hi) || isnan(row->limit_rel)) {
		row->verdict = PMC_VERDICT_INCONCLUSIVE;
		row->why = isnan(row->limit_rel) ? "no relative scale for the threshold"
						 : "no confidence interval for the change";
		return;
	}
	/* An open endpoint at no change lies just beyond it: beyond a limit of 0%. */
	side = place_interval(row->lo_open ? nextafter(1.0, 2.0) : row->ratio_lo,
			      row->hi_open ? nextafter(1.0, 0.0) : row->ratio_hi, row->limit_rel);
	if (side == 2) {
		row->verdict = PMC_VERDICT_INCONCLUSIVE;
		row->why = "confidence interval crosses the threshold";
		return;
	}
	row->verdict = beyond(row, side);
}

/* The notes and the verdict rules that follow the judgement: per-row notes on too few
 * runs (benchstat's "need >= N samples"), and no verdict with a direction for a metric
 * that has none. */
static void annotate(const struct pmc_comparison *c, struct pmc_cmp_row *row)
{
	if (row->kind != PMC_ROW_TESTED || row->one_invocation)
		return;
	if (!row->testable)
		return; /* its note was set with its family (detectability) */
	if (row->bad == 0 &&
	    (row->verdict == PMC_VERDICT_REGRESSION || row->verdict == PMC_VERDICT_IMPROVEMENT)) {
		/* cpus-utilized and the like: the change is shown, but neither way is worse. */
		row->verdict = PMC_VERDICT_INCONCLUSIVE;
		row->why = "changed, but the metric has no direction; name it with a signed limit";
		return;
	}
	if (!row->why && (!row->old.has_ci || !row->new.has_ci))
		row->why = c->note_ci;
}

/* A tested row with a p: one of a Benjamini-Hochberg family. Rows not tested (one
 * invocation a side) have no p and belong to none. */
static bool in_family(const struct pmc_cmp_row *row, bool gated)
{
	return row->kind == PMC_ROW_TESTED && !row->one_invocation && row->gated == gated;
}

/* Benjamini-Hochberg over one family: the gated rows, which the gate judges, or the
 * others. A regression the gate is asked about is not diluted by rows nobody gated
 * (docs/statistics.md, "Many comparisons"). */
static int fdr_family(struct pmc_comparison *c, bool gated, size_t n)
{
	double *p, *q;
	size_t k = 0;
	int r;

	if (n == 0)
		return 0;
	p = malloc(n * sizeof(*p));
	q = malloc(n * sizeof(*q));
	if (!p || !q) {
		free(p);
		free(q);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->nrows; i++)
		if (in_family(&c->rows[i], gated))
			p[k++] = c->rows[i].p;
	r = pmc_bh_adjust(p, n, q);
	if (r == 0) {
		k = 0;
		for (size_t i = 0; i < c->nrows; i++)
			if (in_family(&c->rows[i], gated))
				c->rows[i].q = q[k++];
	}
	free(p);
	free(q);
	return r;
}

int pmc_cmp_fdr_adjust(struct pmc_comparison *c)
{
	int r = fdr_family(c, true, c->family_gated);

	return r < 0 ? r : fdr_family(c, false, c->family_other);
}

/* The note of a row that cannot detect anything, kept once per distinct text. Returns it,
 * or NULL without memory. */
static const char *keep_note(struct pmc_comparison *c, const char *text)
{
	char *copy;

	for (size_t i = 0; i < c->nnotes; i++)
		if (strcmp(c->notes[i], text) == 0)
			return c->notes[i];
	copy = strdup(text);
	if (!copy || pmc_cmp_lines_push(&c->notes, &c->nnotes, copy) < 0)
		return NULL;
	return copy;
}

/* The smallest n (per side; rounds when paired) at which a lone change can be
 * significant in a family of m: min_p(n) * m < alpha, with min_p of Mann-Whitney U at n
 * + n, 2 / C(2n, n), or of the signed-rank test at n rounds, 2 / 2^n. */
static size_t needed_n(bool paired, size_t m, double alpha)
{
	size_t n;

	for (n = 1; n < 1100; n++)
		if ((paired ? ldexp(2.0, -(int)n) : pmc_cmp_smallest_p(n, n)) * (double)m < alpha)
			break;
	return n;
}

/* Which rows can detect a change on their own in their family, and what those that
 * cannot need (docs/compare.md, "Sample sizes"). Sets the families' sizes. */
int pmc_cmp_detectability(struct pmc_comparison *c)
{
	for (size_t i = 0; i < c->nrows; i++) {
		const struct pmc_cmp_row *row = &c->rows[i];

		c->family_gated += in_family(row, true);
		c->family_other += in_family(row, false);
	}
	for (size_t i = 0; i < c->nrows; i++) {
		struct pmc_cmp_row *row = &c->rows[i];
		const char *unit = row->paired			     ? "rounds"
				   : row->by_process || row->program ? "processes"
								     : "runs";
		char text[200], over[96] = "";

		if (row->kind != PMC_ROW_TESTED || row->one_invocation)
			continue;
		row->family = !c->fdr ? 1 : row->gated ? c->family_gated : c->family_other;
		row->testable = row->min_p * (double)row->family < c->alpha;
		if (row->testable)
			continue;
		row->need_n = needed_n(row->paired, row->family, c->alpha);
		if (row->family > 1)
			snprintf(over, sizeof(over), " among %zu %s tests", row->family,
				 row->gated ? "gated" : "ungated");
		snprintf(text, sizeof(text),
			 "need >= %zu %s%s to detect a difference at alpha=%g%s", row->need_n, unit,
			 row->paired ? "" : " per side", c->alpha, over);
		row->why = keep_note(c, text);
		if (!row->why)
			return -ENOMEM;
	}
	return 0;
}

/* Reports lead with what was gated: the blocks (metrics) with a gated row first, each
 * group in the order the metrics first appeared (issue 18, item 7). */
int pmc_cmp_gated_blocks_first(struct pmc_comparison *c)
{
	struct pmc_cmp_block *sorted;
	size_t *to, k = 0;
	bool *gated;

	if (c->nblocks < 2)
		return 0;
	sorted = malloc(c->nblocks * sizeof(*sorted));
	to = malloc(c->nblocks * sizeof(*to));
	gated = calloc(c->nblocks, sizeof(*gated));
	if (!sorted || !to || !gated) {
		free(sorted);
		free(to);
		free(gated);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->nrows; i++)
		gated[c->rows[i].block] |= c->rows[i].gated;
	for (int pass = 1; pass >= 0; pass--)
		for (size_t b = 0; b < c->nblocks; b++)
			if (gated[b] == (bool)pass) {
				to[b] = k;
				sorted[k++] = c->blocks[b];
			}
	for (size_t i = 0; i < c->nrows; i++)
		c->rows[i].block = to[c->rows[i].block];
	memcpy(c->blocks, sorted, c->nblocks * sizeof(*sorted));
	free(sorted);
	free(to);
	free(gated);
	return 0;
}

int pmc_cmp_geomeans(struct pmc_comparison *c)
{
	size_t cap = 0;
	double *a = NULL, *b = NULL;

	for (size_t i = 0; i < c->nblocks; i++)
		if (c->blocks[i].nrows > cap)
			cap = c->blocks[i].nrows;
	if (cap) {
		a = malloc(cap * sizeof(*a));
		b = malloc(cap * sizeof(*b));
		if (!a || !b) {
			free(a);
			free(b);
			return -ENOMEM;
		}
	}
	for (size_t i = 0; i < c->nblocks; i++) {
		struct pmc_cmp_block *blk = &c->blocks[i];
		size_t n = 0;

		for (size_t j = 0; j < blk->nrows; j++) {
			const struct pmc_cmp_row *row = &c->rows[blk->rows[j]];

			if (row->kind == PMC_ROW_MISSING) {
				blk->nmissing++;
				continue;
			}
			blk->counts[row->verdict]++;
			/* Only rows with both medians positive take part, so the geomean of
			 * each side runs over the same benchmarks. */
			if (row->old.median > 0 && row->new.median > 0) {
				a[n] = row->old.median;
				b[n] = row->new.median;
				n++;
			}
		}
		blk->geo_n = n;
		if (n) {
			blk->geo_old = pmc_geomean(a, n);
			blk->geo_new = pmc_geomean(b, n);
			blk->geo_ratio = blk->geo_new / blk->geo_old;
		}
	}
	free(a);
	free(b);
	return 0;
}

void pmc_cmp_judge_rows(struct pmc_comparison *c)
{
	for (size_t i = 0; i < c->nrows; i++) {
		struct pmc_cmp_row *row = &c->rows[i];

		judge(row, c->alpha, c->confidence, c->fdr);
		annotate(c, row);
		if (row->kind != PMC_ROW_MISSING)
			c->counts[row->verdict]++;
		if (row->left_out && c->nleft_out++ == 0)
			c->left_out = row;
		if (!row->gated)
			continue;
		c->ngated++;
		if (row->kind == PMC_ROW_MISSING) {
			c->ngated_missing++;
			continue;
		}
		c->gated_counts[row->verdict]++;
		if (row->one_invocation && c->none_invocation++ == 0)
			c->one_invocation = row;
		if (row->kind == PMC_ROW_TESTED && !row->testable && c->nundetectable++ == 0)
			c->undetectable = row;
		if (row->kind == PMC_ROW_EXACT || (row->kind == PMC_ROW_TESTED && row->testable))
			c->njudged++;
	}
}

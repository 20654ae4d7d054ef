/* What the comparison reports share (compare_cells.h): the cells of a row, the summary
 * lines, and the line buffer the long reports write through. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "core/compare.h"
#include "core/metrics.h"
#include "core/result.h"
#include "core/stats.h"
#include "pmcbench/report.h"
#include "reporters/compare_cells.h"
#include "reporters/format.h"

static bool sb_reserve(struct pmc_sbuf *b, size_t more)
{
	if (!b->oom && pmc_grow_to(&b->p, &b->cap, b->len + more + 1, 1) == 0)
		return true;
	b->oom = true;
	return false;
}

void pmc_sb_put(struct pmc_sbuf *b, const char *s, size_t n)
{
	if (!sb_reserve(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void pmc_sb_puts(struct pmc_sbuf *b, const char *s)
{
	pmc_sb_put(b, s, strlen(s));
}

void pmc_sb_printf(struct pmc_sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (!b->p || (size_t)n >= b->cap - b->len) {
		if (!sb_reserve(b, (size_t)n))
			return;
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

bool pmc_sb_flush(struct pmc_sbuf *b, FILE *out)
{
	bool ok = !b->oom && fwrite(b->p, 1, b->len, out) == b->len;

	b->len = 0;
	return ok;
}

/* "1.235M ± 2.0%": the median and the larger half of its CI, relative to it. */
/* buf holds 128 bytes: two numbers of at most 48 and the sign between them. */
static void fmt_side(const struct pmc_summary *s, bool have, const char *unit, bool exact,
		     char buf[static 128])
{
	static const char pm[] = " ± ";
	size_t n;

	if (!have) {
		memcpy(buf, "no value", sizeof("no value"));
		return;
	}
	n = pmc_fmt_short_to(buf, s->median, unit);
	if (exact)
		return;
	memcpy(buf + n, pm, sizeof(pm));
	n += sizeof(pm) - 1;
	if (!s->has_ci) {
		memcpy(buf + n, "∞", sizeof("∞"));
	} else {
		double half = fmax(s->ci_hi - s->median, s->median - s->ci_lo);

		if (s->median != 0) {
			double pct = half / fabs(s->median) * 100;

			n += pmc_fmt_fixed_to(buf + n, pct, pmc_fmt_percent_decimals(pct), false);
			memcpy(buf + n, "%", 2);
		} else {
			pmc_fmt_short_to(buf + n, half, unit);
		}
	}
}

static void fmt_change(const struct pmc_cmp_row *row, const char *unit, char *buf, size_t len)
{
	char d[48] = "";

	if (row->kind == PMC_ROW_MISSING) {
		snprintf(buf, len, "-");
		return;
	}
	if (row->kind == PMC_ROW_TESTED && !row->significant) {
		snprintf(buf, len, "~");
		return;
	}
	if (row->threshold && row->threshold->absolute) {
		char v[32];

		pmc_fmt_short(row->diff, unit, v, sizeof(v));
		snprintf(d, sizeof(d), " (%s%s)", row->diff > 0 ? "+" : "", v);
	}
	/* Every percentage through pmc_fmt_percent: a ratio of 1e70 stays one number
	 * ("+1.500e+72%"), not 70 digits cut off by the cell. */
	if (row->kind == PMC_ROW_EXACT) {
		char p[PMC_FMT_MAX];

		/* Kernel counts identical in each side's runs are the kernel's, not a
		 * simulator's: said apart (docs/compare.md, "The method"). */
		const char *how = row->identical ? "identical runs" : "exact";

		pmc_fmt_percent((row->ratio - 1) * 100, true, p, sizeof(p));
		if (row->diff == 0)
			snprintf(buf, len, "0%% (%s)", how);
		else if (isnan(row->ratio))
			snprintf(buf, len, "from 0 (%s)%s", how, d);
		else
			snprintf(buf, len, "%s (%s)%s", p, how, d);
	} else if (isnan(row->ratio)) {
		snprintf(buf, len, "? (values <= 0)%s", d);
	} else {
		char p[PMC_FMT_MAX], lo[PMC_FMT_MAX], hi[PMC_FMT_MAX];

		pmc_fmt_percent((row->ratio - 1) * 100, true, p, sizeof(p));
		if (isnan(row->ratio_lo)) {
			snprintf(buf, len, "%s (no CI)%s", p, d);
		} else {
			pmc_fmt_percent((row->ratio_lo - 1) * 100, true, lo, sizeof(lo));
			pmc_fmt_percent((row->ratio_hi - 1) * 100, true, hi, sizeof(hi));
			/* An open endpoint is one the test excludes (compare.h). */
			snprintf(buf, len, "%s %c%s, %s%c%s", p, row->lo_open ? '(' : '[', lo, hi,
				 row->hi_open ? ')' : ']', d);
		}
	}
}

/* The verdict; a row the gate does not judge says so unless nothing changed
 * (docs/compare.md, "What the gate judges"). */
static const char *verdict_cell(const struct pmc_cmp_row *row)
{
	static const char *const not_gated[PMC_VERDICT_COUNT] = {
	    [PMC_VERDICT_NO_CHANGE] = "no change",
	    [PMC_VERDICT_IMPROVEMENT] = "improvement (not gated)",
	    [PMC_VERDICT_REGRESSION] = "regression (not gated)",
	    [PMC_VERDICT_INCONCLUSIVE] = "inconclusive (not gated)",
	};

	if (row->kind == PMC_ROW_MISSING)
		return row->gated ? "not compared" : "not compared (not gated)";
	if (!row->gated && (unsigned)row->verdict < PMC_VERDICT_COUNT)
		return not_gated[row->verdict];
	return pmc_verdict_name(row->verdict);
}

void pmc_cmp_cells(const struct pmc_comparison *c, const struct pmc_cmp_row *row,
		   struct pmc_cmp_cells *out)
{
	const struct pmc_cmp_block *b = &c->blocks[row->block];
	bool exact = row->kind == PMC_ROW_EXACT;
	size_t na = row->has_old ? row->old.n : 0, nn = row->has_new ? row->new.n : 0;

	fmt_side(&row->old, row->has_old, b->unit, exact, out->old);
	fmt_side(&row->new, row->has_new, b->unit, exact, out->new);
	fmt_change(row, b->unit, out->change, sizeof(out->change));
	{
		char *t = out->test;
		size_t n = 0;

		/* The value that was judged, labelled: q with Benjamini-Hochberg, else p
		 * (docs/compare.md, "Reports"). */
		bool q = c->fdr && !isnan(row->q);
		double v = q ? row->q : row->p;

		if (row->kind == PMC_ROW_TESTED && v < 0.001) {
			memcpy(t, q ? "q<0.001 " : "p<0.001 ", 8);
			n = 8;
		} else if (row->kind == PMC_ROW_TESTED) {
			memcpy(t, q ? "q=" : "p=", 2);
			n = 2 + pmc_fmt_fixed_to(t + 2, v, 3, false);
			t[n++] = ' ';
		} else if (exact && row->identical) {
			memcpy(t, "identical ", 10);
			n = 10;
		} else if (exact) {
			memcpy(t, "exact ", 6);
			n = 6;
		}
		if (row->one_invocation) {
			memcpy(t, "not tested", 11);
			n = 10;
		} else if (row->paired) {
			/* Rounds, each a pair of runs. */
			n += pmc_fmt_uint_to(t + n, row->npairs);
			memcpy(t + n, " pairs", 7);
			n += 6;
		} else if (row->by_process) {
			/* Processes, each the median of its samples. */
			n += pmc_fmt_uint_to(t + n, row->nunits_old);
			t[n++] = '+';
			n += pmc_fmt_uint_to(t + n, row->nunits_new);
			memcpy(t + n, " procs", 7);
			n += 6;
		} else {
			memcpy(t + n, "n=", 2);
			n += 2;
			n += pmc_fmt_uint_to(t + n, na);
			t[n++] = '+';
			n += pmc_fmt_uint_to(t + n, nn);
		}
		t[n] = '\0';
	}
	/* A limit only where one judges the row: the built-in 5% of a row nobody gated
	 * limits nothing. */
	out->limit = row->threshold && (row->gated || row->asked) ? row->threshold->text : "-";
	out->verdict = verdict_cell(row);
}

const char *pmc_cmp_better_text(int better)
{
	if (better == PMC_NO_DIRECTION)
		return "no direction";
	return better == PMC_HIGHER_IS_BETTER ? "higher is better" : "lower is better";
}

void pmc_cmp_outcome_counts(FILE *out, const struct pmc_comparison *c, bool md)
{
	static const enum pmc_verdict order[] = {PMC_VERDICT_REGRESSION, PMC_VERDICT_IMPROVEMENT,
						 PMC_VERDICT_NO_CHANGE, PMC_VERDICT_INCONCLUSIVE};
	static const char *const plural[] = {"no change", "improvements", "regressions",
					     "inconclusive"};
	const size_t *n = c->ngated ? c->gated_counts : c->counts;
	size_t nother = c->nrows - c->ngated;

	/* Regressions and improvements are what the gate judges: counted over the gated
	 * rows only; the others are changes, said apart (issue 31: "4 regressions" when one
	 * row was gated). */
	if (c->ngated || !nother) {
		for (size_t i = 0; i < 4; i++) {
			enum pmc_verdict v = order[i];
			bool bold = md && n[v] > 0 && v == PMC_VERDICT_REGRESSION;

			fprintf(out, "%s%s%zu %s%s", i ? ", " : "", bold ? "**" : "", n[v],
				n[v] == 1 ? pmc_verdict_name(v) : plural[v], bold ? "**" : "");
		}
		if (nother)
			fprintf(out, " in %zu gated row%s", c->ngated, c->ngated == 1 ? "" : "s");
		if (c->nmissing)
			fprintf(out, ", %zu not compared", c->nmissing);
	}
	if (nother) {
		size_t o[PMC_VERDICT_COUNT];

		for (size_t v = 0; v < PMC_VERDICT_COUNT; v++)
			o[v] = c->counts[v] - (c->ngated ? c->gated_counts[v] : 0);
		if (c->ngated)
			fprintf(out, "; not gated (%zu of %zu rows): ", nother, c->nrows);
		else
			fputs("no row gated: ", out);
		fprintf(out, "%zu changed, %zu no change, %zu inconclusive",
			o[PMC_VERDICT_REGRESSION] + o[PMC_VERDICT_IMPROVEMENT],
			o[PMC_VERDICT_NO_CHANGE], o[PMC_VERDICT_INCONCLUSIVE]);
		if (!c->ngated && c->nmissing)
			fprintf(out, ", %zu not compared", c->nmissing);
	}
	if (c->nskipped)
		fprintf(out, "; %zu skipped benchmark%s not compared", c->nskipped,
			c->nskipped == 1 ? "" : "s");
}

void pmc_cmp_settings_line(FILE *out, const struct pmc_comparison *c)
{
	size_t tests = 0, paired = 0, procs = 0;
	bool geomean = false;
	const char *test;

	for (size_t i = 0; i < c->nrows; i++)
		if (c->rows[i].kind == PMC_ROW_TESTED && !c->rows[i].one_invocation) {
			tests++;
			paired += c->rows[i].paired;
			procs += c->rows[i].by_process;
		}
	/* docs/compare.md, "Paired": rows of runs taken in rounds are tested round by round. */
	test = paired == 0 ? "Mann-Whitney U two-sided"
	       : paired == tests
		   ? "Wilcoxon signed-rank two-sided (runs paired by round)"
		   : "Wilcoxon signed-rank two-sided (rows with pairs) or Mann-Whitney U";
	for (size_t i = 0; i < c->nblocks; i++)
		geomean = geomean || pmc_cmp_has_geomean(&c->blocks[i]);
	/* Says what the test column shows, which is what was judged. */
	if (c->fdr && tests)
		fprintf(out,
			"%s test, alpha=%g; q: its p adjusted by Benjamini-Hochberg over the %zu "
			"test%s, which is judged (--no-fdr judges raw p)",
			test, c->alpha, tests, tests == 1 ? "" : "s");
	else
		fprintf(out, "%s p, alpha=%g", test, c->alpha);
	fprintf(out,
		"; change (HL): Hodges-Lehmann estimate of new/old%s with its %g%% CI (exact rows: "
		"new/old); ~: not significant (%s >= alpha, or the CI holds 0%%)",
		paired ? " (paired: of the per-round ratios)" : "", c->confidence * 100,
		c->fdr && tests ? "q" : "p");
	if (procs)
		fputs("; procs: tested over the processes of each side, each one value, the "
		      "median of its samples (docs/statistics.md, \"The unit of replication\")",
		      out);
	/* The table's one meaning of the sign, said where the table ends. */
	fprintf(out,
		"; ± beside a median: the larger half of its %g%% CI, relative to it (∞: too few "
		"runs for a CI)",
		c->confidence * 100);
	if (geomean)
		fputs("; geomean: ratio of the geometric means of the medians, over the benchmarks "
		      "with values on both sides",
		      out);
}

bool pmc_cmp_has_geomean(const struct pmc_cmp_block *b)
{
	/* Over one benchmark it would only repeat that row, as a ratio of medians. */
	return b->geo_n >= 2;
}

void pmc_cmp_geomean_cells(const struct pmc_cmp_block *b, struct pmc_cmp_cells *out)
{
	char pct[24];

	pmc_fmt_short(b->geo_old, b->unit, out->old, sizeof(out->old));
	pmc_fmt_short(b->geo_new, b->unit, out->new, sizeof(out->new));
	pmc_fmt_percent((b->geo_ratio - 1) * 100, true, pct, sizeof(pct));
	snprintf(out->change, sizeof(out->change), "%s (geomean ratio)", pct);
	snprintf(out->test, sizeof(out->test), "%zu benchmarks", b->geo_n);
	out->limit = "";
	out->verdict = "";
}

const char *pmc_cmp_decision_name(enum pmc_decision d)
{
	switch (d) {
	case PMC_DECISION_PASS:
		return "PASS";
	case PMC_DECISION_REGRESSION:
		return "FAIL (regression)";
	case PMC_DECISION_INCONCLUSIVE:
		return "FAIL (inconclusive)";
	default:
		return "ERROR";
	}
}

int pmc_cmp_decision_status(const struct pmc_report_opts *o)
{
	if (o->error)
		return 2;
	switch (o->decision) {
	case PMC_DECISION_PASS:
		return 0;
	case PMC_DECISION_REGRESSION:
		return 1;
	case PMC_DECISION_INCONCLUSIVE:
		return 3;
	default:
		return 2;
	}
}

bool pmc_cmp_same_as_error(const char *warning, const struct pmc_report_opts *o)
{
	return o->error && strcmp(warning, o->error) == 0;
}

bool pmc_cmp_row_folds(const struct pmc_cmp_row *row, bool gate)
{
	return row->kind != PMC_ROW_MISSING && row->verdict == PMC_VERDICT_NO_CHANGE && !row->why &&
	       !row->one_invocation && !row->multiplexed && !row->asked && !(gate && row->gated);
}

const char *pmc_cmp_label(const char *name, const char *fallback)
{
	return name ? name : fallback;
}

/* "6.05x": three significant digits, as far as a ratio needs them. */
static void fmt_times(double r, char *buf)
{
	size_t n = pmc_fmt_fixed_to(buf, r, r < 10 ? 2 : r < 100 ? 1 : 0, false);

	buf[n++] = 'x';
	buf[n] = '\0';
}

/* The factor and its interval, inverted (1/ratio, its interval's ends swapped) so as to
 * be said the way round that gives a factor above 1, as hyperfine does. */
static void fmt_factor(const struct pmc_cmp_row *row, bool invert, char *r, char *ci, size_t cilen)
{
	double v = invert ? 1 / row->ratio : row->ratio;
	double l = invert ? 1 / row->ratio_hi : row->ratio_lo;
	double h = invert ? 1 / row->ratio_lo : row->ratio_hi;
	char lo[64], hi[64];

	fmt_times(v, r);
	ci[0] = '\0';
	if (isfinite(l) && isfinite(h) && l > 0) {
		fmt_times(l, lo);
		fmt_times(h, hi);
		snprintf(ci, cilen, " [%s, %s]", lo, hi);
	}
}

/* Whether the row's interval lies wholly on one side of no change (an open endpoint at
 * no change counts as beyond it). */
static bool ci_excludes_one(const struct pmc_cmp_row *row)
{
	if (isnan(row->ratio_lo) || isnan(row->ratio_hi))
		return false;
	return row->ratio_lo > 1 || row->ratio_hi < 1 || (row->ratio_lo == 1 && row->lo_open) ||
	       (row->ratio_hi == 1 && row->hi_open);
}

/* What a headline says of a row without a significant change (docs/compare.md, "The
 * headline"): never "no difference" for a row that could not decide, nor beside an
 * interval that excludes none. Sets *ret_lead (the words before "between A and B" or
 * "from B"), tail (what follows the line's parentheses, "" or "; need >= 8 rounds ...")
 * and *ret_ci_ok (the factor's interval may be shown). */
static void undecided_words(const struct pmc_cmp_row *row, const char **ret_lead, char *tail,
			    size_t len, bool *ret_ci_ok)
{
	*ret_ci_ok = false;
	tail[0] = '\0';
	if (!row->testable) {
		/* The row's note says what the design needs: "need >= 8 rounds ...". */
		*ret_lead = "undecided";
		snprintf(tail, len, "; %s", row->why ? row->why : "too few runs for the test");
	} else if (ci_excludes_one(row)) {
		*ret_lead = "no significant difference";
		snprintf(tail, len, "; not significant among %zu tests (q=%.3g)", row->family,
			 row->q);
	} else {
		*ret_lead = "no significant difference";
		*ret_ci_ok = true;
	}
}

static const char *metric_note(const struct pmc_comparison *c, const struct pmc_cmp_row *row);

/* Three or more commands, as hyperfine summarises them: the reference (the caller makes
 * it the fastest) on the first line, then one line per other command. */
static bool headline_multi(const struct pmc_comparison *c, const struct pmc_cmp_block *blk,
			   const struct pmc_report_opts *o, char *buf, size_t len)
{
	const char *on = pmc_cmp_label(o->old_name, "old");
	size_t used;

	used = (size_t)snprintf(buf, len, "%s ran\n", on);
	for (size_t j = 0; j < blk->nrows && used < len; j++) {
		const struct pmc_cmp_row *row = &c->rows[blk->rows[j]];
		char r[64], ci[160];
		/* ratio = other / reference: above 1 the reference ran faster. */
		bool slower = row->ratio < 1 && row->significant;

		fmt_factor(row, slower, r, ci, sizeof(ci));
		if (!row->significant) {
			char tail[200];
			const char *lead;
			bool ci_ok;

			undecided_words(row, &lead, tail, sizeof(tail), &ci_ok);
			used += (size_t)snprintf(
			    buf + used, len - used, "  %s from %s: %s%s (%s%s)%s\n", lead,
			    row->bench, r, ci_ok ? ci : "", row->metric, metric_note(c, row), tail);
		} else {
			used +=
			    (size_t)snprintf(buf + used, len - used, "  %s %s than %s%s (%s%s)\n",
					     r, slower ? "slower" : "faster", row->bench, ci,
					     row->metric, metric_note(c, row));
		}
	}
	return true;
}

/* What follows the metric's name in the headline's parentheses: ", paired", and why
 * the wall-time when the commands mostly wait (docs/compare.md, "The headline"). */
static const char *metric_note(const struct pmc_comparison *c, const struct pmc_cmp_row *row)
{
	bool waits = strcmp(row->metric, "wall-time") == 0 &&
		     pmc_metric_primary_waits(pmc_comparison_primary(c));

#define WAIT_STR(x) #x
#define WAIT_NOTE(pct) "; the commands mostly wait: CPU time < " WAIT_STR(pct) "%"
	if (waits)
		return row->paired ? ", paired" WAIT_NOTE(PMC_PRIMARY_MIN_CPU_PERCENT)
				   : WAIT_NOTE(PMC_PRIMARY_MIN_CPU_PERCENT);
	return row->paired ? ", paired" : "";
}

bool pmc_cmp_headline(const struct pmc_comparison *c, const struct pmc_report_opts *o, char *buf,
		      size_t len)
{
	const struct pmc_cmp_row *row = pmc_comparison_headline(c);
	const char *on = pmc_cmp_label(o->old_name, "old"), *nn = pmc_cmp_label(o->new_name, "new");
	const struct pmc_cmp_block *multi;
	char r[64], ci[160];
	bool faster;

	if (!row) {
		/* One reference against two or more commands: each row shares its samples. */
		multi = pmc_comparison_primary_block(c);
		return multi && multi->nrows >= 2 ? headline_multi(c, multi, o, buf, len) : false;
	}
	/* A time: above 1 the new side ran longer. Said the way round that gives a factor
	 * above 1, as hyperfine does. */
	faster = row->ratio < 1 && row->significant;
	fmt_factor(row, faster, r, ci, sizeof(ci));
	if (row->one_invocation)
		/* docs/statistics.md, "The unit of replication": no verdict either way. */
		snprintf(buf, len,
			 "not tested: %s or %s is one invocation, and %s drifts between "
			 "invocations: %s (ratio of medians)\n",
			 nn, on, row->metric, r);
	else if (!row->significant) {
		char tail[200];
		const char *lead;
		bool ci_ok;

		undecided_words(row, &lead, tail, sizeof(tail), &ci_ok);
		snprintf(buf, len, "%s between %s and %s: %s%s (%s%s)%s\n", lead, nn, on, r,
			 ci_ok ? ci : "", row->metric, metric_note(c, row), tail);
	} else
		snprintf(buf, len, "%s ran %s %s than %s%s (%s%s)\n", nn, r,
			 faster ? "faster" : "slower", on, ci, row->metric, metric_note(c, row));
	return true;
}

static int by_block(const void *a, const void *b, void *arg)
{
	const struct pmc_comparison *c = arg;
	size_t x = c->rows[*(const size_t *)a].block, y = c->rows[*(const size_t *)b].block;

	return (x > y) - (x < y);
}

size_t pmc_cmp_benchmark_rows(const struct pmc_comparison *c, size_t first, size_t *idx)
{
	size_t end = first + 1;

	while (end < c->nrows && strcmp(c->rows[end].bench, c->rows[first].bench) == 0)
		end++;
	for (size_t j = first; j < end; j++)
		idx[j - first] = j;
	qsort_r(idx, end - first, sizeof(*idx), by_block, (void *)c);
	return end;
}

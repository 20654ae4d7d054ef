/* The display rows of a result that the table and the Markdown report share
 * (report_rows.h): one benchmark's analysis turned into rows of text, the footnotes under
 * them, and the loop over the benchmarks. Every number shown is a summary of measured
 * samples: a metric that was never measured is named with its status, and a derived
 * metric is shown only from the derived samples the runner recorded, never recomputed
 * here. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analysis.h"
#include "core/metrics.h"
#include "core/result.h"
#include "reporters/escape.h"
#include "reporters/format.h"
#include "reporters/report_rows.h"
#include "reporters/reporter.h"

/* ---- Rows ------------------------------------------------------------------------- */

/* Trailer rows (wait4's times and sizes) are shown after the counters, in registry order,
 * as perf shows the elapsed time after them (harness/2-core/metrics.h). */
static bool is_trailer(const char *id)
{
	const struct pmc_metric_info *info = pmc_metric_find(id);

	return info && info->trailer;
}

static size_t count_present(const struct pmc_metric *m)
{
	size_t k = 0;

	for (size_t i = 0; i < m->n; i++)
		if (!isnan(m->values[i]))
			k++;
	return k;
}

/* The metric d is shown beside, or NULL; *ret_text gets the words after its value. A
 * derived id with a modifier goes with the host of the same modifier (ipc:u with
 * instructions:u), which is how pmc_benchmark_derive() pairs them. */
static const struct pmc_metric *host_of(const struct pmc_benchmark *b, const struct pmc_metric *d,
					const char **ret_text)
{
	const char *colon = strchr(d->id, ':');
	size_t base = colon ? (size_t)(colon - d->id) : strlen(d->id);
	const struct pmc_metric_info *info = NULL;
	const struct pmc_metric *h;
	char id[160];

	if (!d->derived || pmc_metric_info_lookup(d->id, &info) < 0 || !info->host ||
	    strlen(info->id) != base)
		return NULL;
	if ((size_t)snprintf(id, sizeof(id), "%s%s", info->host, colon ? colon : "") >= sizeof(id))
		return NULL;
	h = pmc_benchmark_find_metric(b, id);
	if (h && ret_text)
		*ret_text = info->host_text;
	return h;
}

/* A derived metric goes into its host's comment unless it holds numbers the host line
 * could not carry (its host was not measured): then it gets a line of its own. */
static bool is_attached(const struct pmc_benchmark *b, const struct pmc_metric *d)
{
	const struct pmc_metric *h = host_of(b, d, NULL);

	return h && h != d && (count_present(h) > 0 || count_present(d) == 0);
}

static const char *errno_name(int err)
{
	switch (err) {
	case ENOENT:
		return "ENOENT";
	case EOPNOTSUPP:
		return "EOPNOTSUPP";
	case ENODEV:
		return "ENODEV";
	case EINVAL:
		return "EINVAL";
	case EACCES:
		return "EACCES";
	case EPERM:
		return "EPERM";
	case EMFILE:
		return "EMFILE";
	case ENOSYS:
		return "ENOSYS";
	case EBUSY:
		return "EBUSY";
	default:
		return NULL;
	}
}

/* A metric with no measured run: the placeholder perf uses, and the status words. */
static void fill_missing(const struct pmc_metric_analysis *ma, struct pmc_report_row *row)
{
	const struct pmc_metric *m = ma->m;
	const size_t *count = ma->status_count;
	size_t kinds = 0, last = 0, o = 0;
	const char *name = errno_name(m->error);

	row->missing = true;
	row->why = m->note;
	if (!m->has_status || m->n == 0) {
		snprintf(row->value, sizeof(row->value), "<not counted>");
		snprintf(row->comment, sizeof(row->comment), "not measured");
		return;
	}
	for (size_t s = 0; s < PMC_NSTATUS; s++) {
		if (count[s]) {
			kinds++;
			last = s;
		}
	}
	if (kinds == 1 && last == PMC_STATUS_UNSUPPORTED)
		snprintf(row->value, sizeof(row->value), "<not supported>");
	else if (kinds == 1 && last == PMC_STATUS_DENIED)
		snprintf(row->value, sizeof(row->value), "<denied>");
	else
		snprintf(row->value, sizeof(row->value), "<not counted>");

	row->denied = kinds == 1 && last == PMC_STATUS_DENIED;
	if (kinds == 1) {
		o = (size_t)snprintf(row->comment, sizeof(row->comment), "%s",
				     pmc_status_name((enum pmc_status)last));
	} else {
		/* Runs disagree: say how many runs got which status. */
		for (size_t s = 0; s < PMC_NSTATUS && o < sizeof(row->comment); s++) {
			if (count[s])
				o += (size_t)snprintf(row->comment + o, sizeof(row->comment) - o,
						      "%s%s in %zu run%s", o ? ", " : "",
						      pmc_status_name((enum pmc_status)s), count[s],
						      count[s] == 1 ? "" : "s");
		}
	}
	if (kinds == 1 && last == PMC_STATUS_NOT_COUNTED && m->error == PMC_ERROR_NO_FIT)
		snprintf(row->comment + o, sizeof(row->comment) - o,
			 ": does not fit the PMU with its group (:W after the group splits it)");
	else if (name && o < sizeof(row->comment))
		snprintf(row->comment + o, sizeof(row->comment) - o, " (%s)", name);
}

/* Appends text to a cell, separated by a space from what is already there. */
static void cell_add(char *cell, size_t len, const char *text)
{
	size_t o = strlen(cell);

	if (o < len)
		snprintf(cell + o, len - o, "%s%s", o ? " " : "", text);
}

/* "# 1.23 insn per cycle" (without the "#") for each derived metric shown beside h. */
static int fill_comment(const struct pmc_report_block *blk, const struct pmc_metric *h,
			size_t h_present, struct pmc_report_row *row)
{
	const struct pmc_benchmark *b = blk->b;

	for (size_t i = 0; i < b->nmetrics; i++) {
		const struct pmc_metric *d = &b->metrics[i];
		const struct pmc_metric_analysis *da = &blk->ba->metrics[i];
		const char *text = "";
		size_t k;
		char v[48], piece[112];

		if (d == h || host_of(b, d, &text) != h || !is_attached(b, d))
			continue;
		k = da->present;
		if (k == 0)
			continue;
		pmc_fmt_value(blk->median ? da->s.median : da->s.mean, "ratio", v, sizeof(v));
		snprintf(piece, sizeof(piece), "%s%s%s", v, text,
			 d->cross_group ? " " PMC_REPORT_CROSS_MARK : "");
		cell_add(row->comment, sizeof(row->comment), piece);
		if (k != h_present) {
			snprintf(piece, sizeof(piece), "(n=%zu/%zu)", k, blk->runs);
			cell_add(row->comment, sizeof(row->comment), piece);
		}
	}
	return 0;
}

/* Hybrid CPUs (docs/events.md): "= cpu_core 1.2 G + cpu_atom 340 M", the count of each
 * core type whose sum the row shows, or the core types a restricted count covers. */
static void fill_parts(const struct pmc_report_block *blk, const struct pmc_metric_analysis *ma,
		       struct pmc_report_row *row)
{
	const struct pmc_metric *m = ma->m;
	char v[48];

	if (!m->restricted)
		cell_add(row->comment, sizeof(row->comment), "=");
	for (size_t k = 0; k < m->nparts && k < PMC_PARTS_MAX; k++) {
		const struct pmc_summary *s = &ma->part[k];

		if (k)
			cell_add(row->comment, sizeof(row->comment), "+");
		cell_add(row->comment, sizeof(row->comment), m->parts[k].id);
		if (ma->part_present[k])
			pmc_fmt_short(blk->median ? s->median : s->mean, m->unit, v, sizeof(v));
		else
			snprintf(v, sizeof(v), "not counted");
		cell_add(row->comment, sizeof(row->comment), v);
	}
	if (m->restricted)
		cell_add(row->comment, sizeof(row->comment),
			 "(counted on these core types only, not extrapolated)");
}

static int fill_row(struct pmc_report_block *blk, const struct pmc_metric_analysis *ma,
		    struct pmc_report_row *row)
{
	const struct pmc_metric *m = ma->m;
	const struct pmc_summary *s = &ma->s;
	size_t k = ma->present;
	double center, spread;
	char piece[48];
	int err;

	memset(row, 0, sizeof(*row));
	row->m = m;
	row->unit = "";
	row->spread_kind = "";
	row->marked = m->cross_group;
	blk->any_cross |= m->cross_group;
	if (k == 0) {
		fill_missing(ma, row);
		return 0;
	}

	center = blk->median ? s->median : s->mean;
	row->unit = pmc_fmt_value(center, m->unit, row->value, sizeof(row->value));
	/* One run has no spread to show (perf stat -r 1 shows none either). */
	if (s->n >= 2) {
		if (!blk->median) {
			spread = s->stddev;
		} else if (s->has_ci) {
			/* Half-width of the distribution-free CI of the median (stats.h); the
			 * larger side, since order statistics need not be symmetric. */
			spread = fmax(s->ci_hi - s->median, s->median - s->ci_lo);
		} else {
			spread = s->mad;
			row->spread_kind = "MAD";
			blk->any_mad = true;
		}
		pmc_fmt_spread(spread, center, m->unit, row->spread, sizeof(row->spread));
		blk->any_spread = true;
		if (ma->kernel_count && ma->identical) {
			/* The kernel's count of each occurrence, the same in every run: no
			 * spread to estimate (docs/metrics.md, "Identical runs"). */
			snprintf(row->spread, sizeof(row->spread), "=");
			snprintf(row->range, sizeof(row->range), "identical in %zu runs", k);
		} else if (!ma->all_exact) {
			char lo[48], hi[48];

			pmc_fmt_short(s->min, m->unit, lo, sizeof(lo));
			pmc_fmt_short(s->max, m->unit, hi, sizeof(hi));
			snprintf(row->range, sizeof(row->range), "%s … %s", lo, hi);
		}
	}

	if (ma->scaled) {
		snprintf(piece, sizeof(piece), "(%.2f%%)", ma->running * 100);
		cell_add(row->extra, sizeof(row->extra), piece);
		blk->any_scaled = true;
		row->scaled = true;
	}
	if (m->nparts)
		fill_parts(blk, ma, row);
	if (m->simulated) {
		cell_add(row->extra, sizeof(row->extra),
			 ma->all_exact ? "(simulated, exact)" : "(simulated)");
		blk->any_simulated = true;
	} else if (ma->all_exact) {
		cell_add(row->extra, sizeof(row->extra), "(exact)");
	}
	if (k < blk->runs) {
		snprintf(piece, sizeof(piece), "n=%zu/%zu", k, blk->runs);
		cell_add(row->extra, sizeof(row->extra), piece);
		blk->any_partial = true;
	}
	err = fill_comment(blk, m, k, row);
	if (err < 0)
		return err;
	/* A cross-group ratio shown beside its host needs the footnote too. */
	blk->any_cross |= strstr(row->comment, PMC_REPORT_CROSS_MARK) != NULL;
	return 0;
}

static void block_free(struct pmc_report_block *blk)
{
	if (!blk)
		return;
	free(blk->rows);
	blk->rows = NULL;
	blk->nrows = 0;
}

static const struct pmc_metric_analysis *row_analysis(const struct pmc_report_block *blk,
						      const struct pmc_report_row *row)
{
	return &blk->ba->metrics[row->m - blk->b->metrics];
}

/* The mean a tracepoint row is ranked by; -1 for a row without a value (kept in the
 * table, after the counted ones). */
static double rank_of(const struct pmc_report_block *blk, const struct pmc_report_row *row)
{
	const struct pmc_metric_analysis *ma = row_analysis(blk, row);

	return ma->has_summary ? ma->s.mean : -1;
}

static const struct pmc_report_block *sort_blk;

static int by_count_desc(const void *a, const void *b)
{
	double x = rank_of(sort_blk, a), y = rank_of(sort_blk, b);
	const struct pmc_report_row *ra = a, *rb = b;

	if (x != y)
		return x > y ? -1 : 1;
	return ra->m < rb->m ? -1 : ra->m > rb->m; /* list order among equals */
}

/* Kernel event counts: notes whether each read the same in every run, and shows the
 * tracepoints of a glob by count (PMC_REPORT_TRACEPOINTS_ALL). Rows before first_trailer
 * only. Returns 0 or -ENOMEM. */
static int kernel_rows(struct pmc_report_block *blk)
{
	struct pmc_report_row *tp;
	size_t ntp = 0, at = SIZE_MAX, kept = 0, out = 0;

	for (size_t i = 0; i < blk->nrows; i++) {
		const char *id = blk->rows[i].m->id;
		const struct pmc_metric_analysis *ma = row_analysis(blk, &blk->rows[i]);

		if (!pmc_metric_is_tracepoint(id) && !pmc_metric_is_uprobe(id))
			continue;
		if (pmc_metric_is_tracepoint(id)) {
			ntp++;
			if (at == SIZE_MAX)
				at = i;
		}
		/* The analysis's rule (pmc_metric_kernel_identical): scheduler events, which
		 * follow the machine's load, are not counts of the program's own work. */
		if (!ma->has_summary || !ma->kernel_count)
			continue;
		blk->nkernel++;
		if (ma->identical)
			blk->nidentical++;
		else if (!blk->first_differing)
			blk->first_differing = id;
	}
	if (ntp <= PMC_REPORT_TRACEPOINTS_ALL)
		return 0;
	tp = calloc(ntp, sizeof(*tp));
	if (!tp)
		return -ENOMEM;
	for (size_t i = 0, k = 0; i < blk->nrows; i++)
		if (pmc_metric_is_tracepoint(blk->rows[i].m->id))
			tp[k++] = blk->rows[i];
	sort_blk = blk;
	qsort(tp, ntp, sizeof(*tp), by_count_desc);
	sort_blk = NULL;
	/* Rebuilt in place: the rows before the first tracepoint, the ranked ones, the rest. */
	for (size_t i = 0; i < blk->nrows; i++) {
		if (i == at) {
			for (size_t k = 0; k < ntp; k++) {
				const struct pmc_metric_analysis *ma = row_analysis(blk, &tp[k]);

				if (ma->has_summary && ma->s.max == 0 && ma->s.min == 0) {
					blk->tp_zero_hidden++;
					continue;
				}
				if (kept == PMC_REPORT_TRACEPOINTS_TOP) {
					blk->tp_more_hidden++;
					continue;
				}
				kept++;
				blk->rows[out++] = tp[k];
			}
		}
		if (!pmc_metric_is_tracepoint(blk->rows[i].m->id))
			blk->rows[out++] = blk->rows[i];
	}
	blk->nrows = out;
	free(tp);
	return 0;
}

/* Fills *ret from a benchmark's analysis (median: medians instead of means; confidence:
 * the analysis's, for the footnotes); free it with block_free(). Returns 0, -ENOMEM or
 * -EINVAL. */
static int block_build(const struct pmc_bench_analysis *ba, bool median, double confidence,
		       struct pmc_report_block *ret)
{
	const struct pmc_benchmark *b = ba ? ba->b : NULL;
	struct pmc_report_block blk = {
	    .ba = ba,
	    .b = b,
	    .median = median,
	    .confidence = confidence,
	};
	int err;

	if (!b || !ret)
		return -EINVAL;
	blk.runs = ba->runs;
	blk.failed = ba->failed;
	blk.timed_out = ba->timed_out;
	blk.rows = calloc(b->nmetrics ? b->nmetrics : 1, sizeof(*blk.rows));
	if (!blk.rows)
		return -ENOMEM;
	for (size_t i = 0; i < b->nmetrics; i++) {
		const struct pmc_metric *m = &b->metrics[i];

		if (is_trailer(m->id) || is_attached(b, m))
			continue;
		err = fill_row(&blk, &ba->metrics[i], &blk.rows[blk.nrows++]);
		if (err < 0)
			goto fail_row;
	}
	err = kernel_rows(&blk);
	if (err < 0)
		goto fail_row;
	blk.first_trailer = blk.nrows;
	for (size_t t = 0; t < pmc_metric_info_count(); t++) {
		const struct pmc_metric_info *info = pmc_metric_info_at(t);
		const struct pmc_metric *m =
		    info->trailer ? pmc_benchmark_find_metric(b, info->id) : NULL;

		if (!m)
			continue;
		err = fill_row(&blk, &ba->metrics[m - b->metrics], &blk.rows[blk.nrows++]);
		if (err < 0)
			goto fail_row;
	}
	*ret = blk;
	return 0;

fail_row:
	block_free(&blk);
	return err;
}

static void report_health(FILE *out, const struct pmc_bench_analysis *ba, const char *bullet);

bool pmc_report_has_footnotes(const struct pmc_report_block *blk)
{
	return blk->any_spread || blk->median || blk->any_scaled || blk->any_partial ||
	       blk->any_simulated || blk->any_cross || blk->nkernel || blk->tp_zero_hidden ||
	       blk->tp_more_hidden;
}

void pmc_report_footnotes(FILE *out, const struct pmc_report_block *blk, const char *bullet)
{
	if (blk->any_spread && !blk->median) {
		fprintf(out,
			"%sMeans over the runs; ± is the coefficient of variation "
			"(stddev / mean).\n",
			bullet);
	} else if (blk->any_spread) {
		fprintf(out,
			"%sMedians over the runs; ± is the half-width of the %g%% confidence "
			"interval of the median",
			bullet, blk->confidence * 100);
		if (blk->any_mad)
			fputs(" (MAD: the median absolute deviation, where the runs are too few "
			      "for that interval)",
			      out);
		fputs(".\n", out);
	} else if (blk->median) {
		fprintf(out, "%sMedians over the runs.\n", bullet);
	}
	if (blk->any_scaled)
		fprintf(out,
			"%s(x%%): the counter ran x%% of the time it was enabled "
			"(multiplexed); its count is scaled up.\n",
			bullet);
	if (blk->any_partial)
		fprintf(out, "%sn=k/N: measured in k of the N runs.\n", bullet);
	if (blk->any_simulated)
		fprintf(out,
			"%ssimulated: counted by a simulator (valgrind), not by hardware "
			"counters.\n",
			bullet);
	if (blk->any_cross)
		fprintf(out,
			"%s" PMC_REPORT_CROSS_MARK " ratio of events in different groups: "
			"multiplexing may skew it.\n",
			bullet);
	if (blk->tp_zero_hidden || blk->tp_more_hidden) {
		fprintf(out, "%sTracepoints by count, the highest first; not shown: ", bullet);
		if (blk->tp_more_hidden)
			fprintf(out, "%zu more below the top %d%s", blk->tp_more_hidden,
				PMC_REPORT_TRACEPOINTS_TOP, blk->tp_zero_hidden ? ", " : "");
		if (blk->tp_zero_hidden)
			fprintf(out, "%zu that counted 0 in every run", blk->tp_zero_hidden);
		fputs(" (all are in the result file).\n", out);
	}
	if (blk->nkernel) {
		fprintf(out,
			"%sTracepoint and uprobe counts are the kernel's exact counts of what "
			"happened (not sampled, not simulated): ",
			bullet);
		if (blk->nidentical == blk->nkernel)
			fprintf(out, "identical in every run (%zu event%s).\n", blk->nkernel,
				blk->nkernel == 1 ? "" : "s");
		else
			fprintf(out, "identical in every run for %zu of %zu events; %s varied.\n",
				blk->nidentical, blk->nkernel, blk->first_differing);
	}
	report_health(out, blk->ba, bullet);
}

/* The sample-health warnings of a benchmark's metrics, one line each ("warning: task-clock
 * drifts +4.1% over 20 runs (p=0.0021)"), after bullet; nothing when all are healthy. */
static void report_health(FILE *out, const struct pmc_bench_analysis *ba, const char *bullet)
{
	char phrase[PMC_HEALTH_DESC_MAX];

	for (size_t i = 0; i < ba->b->nmetrics; i++) {
		const struct pmc_metric_analysis *ma = &ba->metrics[i];

		if (!ma->has_summary ||
		    pmc_health_describe(&ma->health, phrase, sizeof(phrase)) < 0 || !phrase[0])
			continue;
		/* docs/statistics.md, "Sample health": the runs may not be repeated draws of
		 * one quantity, so a comparison of them may mislead. */
		fprintf(out, "%swarning: ", bullet);
		pmc_escape_text(out, ma->m->id);
		fprintf(out, " %s\n", phrase);
	}
}

int pmc_report_each_block(FILE *out, const struct pmc_analysis *a, const struct pmc_report_opts *o,
			  const char *empty, void (*print)(FILE *, const struct pmc_report_block *))
{
	int err;

	if (!out || !a || !o)
		return -EINVAL;
	if (a->nbench == 0)
		fputs(empty, out);
	struct pmc_report_block blks[2];

	for (size_t i = 0; i < a->nbench; i++) {
		struct pmc_report_block *blk = &blks[i % 2];

		err = block_build(&a->benches[i], o->median, a->confidence, blk);
		if (err < 0) {
			if (i > 0)
				block_free(&blks[(i - 1) % 2]);
			return err;
		}
		if (i > 0)
			fputc('\n', out);
		blk->color = o->color;
		blk->width = o->width;
		blk->prev = i > 0 ? &blks[(i - 1) % 2] : NULL;
		print(out, blk);
		/* The block before it is kept until this one is written. */
		if (i > 0)
			block_free(&blks[(i - 1) % 2]);
	}
	if (a->nbench > 0)
		block_free(&blks[(a->nbench - 1) % 2]);
	/* The errno of the failed write (a full disk is ENOSPC), not a made-up EIO. */
	if (fflush(out) != 0 || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}

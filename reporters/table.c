/* The perf-stat-like table of a result, and the display rows it shares with the Markdown
 * report (report_rows.h). Every number shown is a summary of measured samples: a metric
 * that was never measured is named with its status, and a derived metric is shown only
 * from the derived samples the runner recorded, never recomputed here. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/core/metrics.h"
#include "harness/core/result.h"
#include "harness/core/stats.h"
#include "reporters/report_rows.h"
#include "reporters/reporters.h"

#define ARRAY_SIZE(x) (sizeof(x) / sizeof((x)[0]))

/* ---- Numbers ---------------------------------------------------------------------- */

/* |v| rounded to an integer with its digits grouped by three, as perf prints counts. */
static void fmt_grouped(double v, char *buf, size_t len)
{
	char digits[400];
	size_t n, o = 0;
	int k = snprintf(digits, sizeof(digits), "%.0f", fabs(v));

	if (k < 0 || (size_t)k >= sizeof(digits) || k > 30) {
		/* Far beyond any count: scientific notation rather than 40 digits. */
		snprintf(buf, len, "%.3e", v);
		return;
	}
	n = (size_t)k;
	if (v < 0 && strcmp(digits, "0") != 0 && o + 1 < len)
		buf[o++] = '-';
	for (size_t i = 0; i < n && o + 1 < len; i++) {
		if (i > 0 && (n - i) % 3 == 0 && o + 2 < len)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
}

/* Counts: whole numbers grouped; a mean below 1000 keeps two decimals (0.30 context
 * switches per run says more than 0) unless they would read .00 (a mean of 103 computed
 * as 103.00000000000001). */
static void fmt_count(double v, char *buf, size_t len)
{
	if (fabs(v - round(v)) < 0.005 || fabs(v) >= 1000)
		fmt_grouped(v, buf, len);
	else
		snprintf(buf, len, "%.2f", v);
}

/* v in the largest unit of units[] that keeps it at or above 1 ("1.23 ms", "3.45 MiB").
 * The threshold is a hair below step so that 999.996 becomes 1.00 of the next unit
 * rather than 1000.00 of this one. */
static const char *fmt_scaled(double v, const char *const *units, size_t n, double step, char *buf,
			      size_t len)
{
	size_t i = 0;

	while (i + 1 < n && fabs(v) >= step - 0.005) {
		v /= step;
		i++;
	}
	snprintf(buf, len, i == 0 && v == floor(v) ? "%.0f" : "%.2f", v);
	return units[i];
}

/* Formats v in the metric's unit; returns the unit to show after it (static storage or
 * unit itself). Never writes "nan" or "inf". */
static const char *fmt_value(double v, const char *unit, char *buf, size_t len)
{
	static const char *const times[] = {"ns", "us", "ms", "s"};
	static const char *const sizes[] = {"B", "KiB", "MiB", "GiB", "TiB"};

	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return "";
	}
	if (!unit || strcmp(unit, "count") == 0) {
		fmt_count(v, buf, len);
		return "";
	}
	if (strcmp(unit, "ns") == 0)
		return fmt_scaled(v, times, ARRAY_SIZE(times), 1000, buf, len);
	if (strcmp(unit, "bytes") == 0)
		return fmt_scaled(v, sizes, ARRAY_SIZE(sizes), 1024, buf, len);
	snprintf(buf, len, "%.2f", v);
	if (strcmp(unit, "percent") == 0)
		return "%";
	if (strcmp(unit, "ratio") == 0)
		return "";
	return unit;
}

/* "± 1.23%" of center, or the spread in the metric's unit when center is 0. */
static void fmt_spread(double spread, double center, const char *unit, char *buf, size_t len)
{
	char v[48];
	const char *u;

	if (spread == 0) {
		snprintf(buf, len, "± 0.00%%");
	} else if (center != 0 && isfinite(spread / fabs(center))) {
		snprintf(buf, len, "± %.2f%%", spread / fabs(center) * 100);
	} else {
		u = fmt_value(spread, unit, v, sizeof(v));
		snprintf(buf, len, "± %s%s%s", v, *u ? " " : "", u);
	}
}

/* ---- Rows ------------------------------------------------------------------------- */

/* Trailer rows (wait4's times and sizes) are shown after the counters, in registry order,
 * as perf shows the elapsed time after them (harness/core/metrics.h). */
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
	default:
		return NULL;
	}
}

#define NSTATUS (PMC_STATUS_EXACT + 1)

/* A metric with no measured run: the placeholder perf uses, and the status words. */
static void fill_missing(const struct pmc_metric *m, struct pmc_report_row *row)
{
	size_t count[NSTATUS] = {0}, kinds = 0, last = 0, o = 0;
	const char *name = errno_name(m->error);

	row->missing = true;
	row->why = m->note;
	if (!m->has_status || m->n == 0) {
		snprintf(row->value, sizeof(row->value), "<not counted>");
		snprintf(row->comment, sizeof(row->comment), "not measured");
		return;
	}
	for (size_t i = 0; i < m->n; i++) {
		if ((unsigned)m->status[i] < NSTATUS && count[m->status[i]]++ == 0) {
			kinds++;
			last = m->status[i];
		}
	}
	if (kinds == 1 && last == PMC_STATUS_UNSUPPORTED)
		snprintf(row->value, sizeof(row->value), "<not supported>");
	else if (kinds == 1 && last == PMC_STATUS_DENIED)
		snprintf(row->value, sizeof(row->value), "<denied>");
	else
		snprintf(row->value, sizeof(row->value), "<not counted>");

	if (kinds == 1) {
		o = (size_t)snprintf(row->comment, sizeof(row->comment), "%s",
				     pmc_status_name((enum pmc_status)last));
	} else {
		/* Runs disagree: say how many runs got which status. */
		for (size_t s = 0; s < NSTATUS && o < sizeof(row->comment); s++) {
			if (count[s])
				o += (size_t)snprintf(row->comment + o, sizeof(row->comment) - o,
						      "%s%s in %zu run%s", o ? ", " : "",
						      pmc_status_name((enum pmc_status)s), count[s],
						      count[s] == 1 ? "" : "s");
		}
	}
	if (name && o < sizeof(row->comment))
		snprintf(row->comment + o, sizeof(row->comment) - o, " (%s)", name);
}

/* Appends text to a cell, separated by a space from what is already there. */
static void cell_add(char *cell, size_t len, const char *text)
{
	size_t o = strlen(cell);

	if (o < len)
		snprintf(cell + o, len - o, "%s%s", o ? " " : "", text);
}

/* The mean share of its enabled time the counter ran, over the runs that gave a value;
 * false when no run was multiplexed. */
static bool running_fraction(const struct pmc_metric *m, double *ret)
{
	double sum = 0;
	size_t k = 0;
	bool scaled = false;

	if (!m->has_status)
		return false;
	for (size_t i = 0; i < m->n; i++) {
		if (isnan(m->values[i]) || m->raw[i].enabled == 0)
			continue;
		scaled |= m->status[i] == PMC_STATUS_SCALED;
		sum += fmin(1.0, (double)m->raw[i].running / (double)m->raw[i].enabled);
		k++;
	}
	if (!scaled || k == 0)
		return false;
	*ret = sum / (double)k;
	return true;
}

static bool all_exact(const struct pmc_metric *m)
{
	if (!m->has_status || m->n == 0)
		return false;
	for (size_t i = 0; i < m->n; i++)
		if (m->status[i] != PMC_STATUS_EXACT)
			return false;
	return true;
}

static int summarize(const struct pmc_metric *m, const struct pmc_report_block *blk,
		     struct pmc_summary *ret)
{
	return pmc_summary_compute(m->values, m->n, blk->confidence, ret);
}

/* "# 1.23 insn per cycle" (without the "#") for each derived metric shown beside h. */
static int fill_comment(const struct pmc_report_block *blk, const struct pmc_metric *h,
			size_t h_present, struct pmc_report_row *row)
{
	const struct pmc_benchmark *b = blk->b;

	for (size_t i = 0; i < b->nmetrics; i++) {
		const struct pmc_metric *d = &b->metrics[i];
		const char *text = "";
		struct pmc_summary s;
		size_t k;
		char v[48], piece[112];
		int err;

		if (d == h || host_of(b, d, &text) != h || !is_attached(b, d))
			continue;
		k = count_present(d);
		if (k == 0)
			continue;
		err = summarize(d, blk, &s);
		if (err < 0)
			return err;
		fmt_value(blk->median ? s.median : s.mean, "ratio", v, sizeof(v));
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

static int fill_row(struct pmc_report_block *blk, const struct pmc_metric *m,
		    struct pmc_report_row *row)
{
	struct pmc_summary s;
	size_t k = count_present(m);
	double center, spread, frac;
	char piece[48];
	int err;

	memset(row, 0, sizeof(*row));
	row->m = m;
	row->unit = "";
	row->spread_kind = "";
	row->marked = m->cross_group;
	blk->any_cross |= m->cross_group;
	if (k == 0) {
		fill_missing(m, row);
		return 0;
	}
	err = summarize(m, blk, &s);
	if (err < 0)
		return err;

	center = blk->median ? s.median : s.mean;
	row->unit = fmt_value(center, m->unit, row->value, sizeof(row->value));
	/* One run has no spread to show (perf stat -r 1 shows none either). */
	if (s.n >= 2) {
		if (!blk->median) {
			spread = s.stddev;
		} else if (s.has_ci) {
			/* Half-width of the distribution-free CI of the median (stats.h); the
			 * larger side, since order statistics need not be symmetric. */
			spread = fmax(s.ci_hi - s.median, s.median - s.ci_lo);
		} else {
			spread = s.mad;
			row->spread_kind = "MAD";
			blk->any_mad = true;
		}
		fmt_spread(spread, center, m->unit, row->spread, sizeof(row->spread));
		blk->any_spread = true;
	}

	if (running_fraction(m, &frac)) {
		snprintf(piece, sizeof(piece), "(%.2f%%)", frac * 100);
		cell_add(row->extra, sizeof(row->extra), piece);
		blk->any_scaled = true;
	}
	if (m->simulated) {
		cell_add(row->extra, sizeof(row->extra),
			 all_exact(m) ? "(simulated, exact)" : "(simulated)");
		blk->any_simulated = true;
	} else if (all_exact(m)) {
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

void pmc_report_block_free(struct pmc_report_block *blk)
{
	if (!blk)
		return;
	free(blk->rows);
	blk->rows = NULL;
	blk->nrows = 0;
}

int pmc_report_block_build(const struct pmc_benchmark *b, bool median, double confidence,
			   struct pmc_report_block *ret)
{
	struct pmc_report_block blk = {
	    .b = b,
	    .median = median,
	    .confidence = confidence,
	};
	size_t max_n = 0;
	int err;

	if (!b || !ret || (b->nmetrics && !b->metrics))
		return -EINVAL;
	for (size_t i = 0; i < b->nruns && b->runs; i++) {
		if (b->runs[i].timed_out)
			blk.timed_out++;
		else if (b->runs[i].exit_code != 0 || b->runs[i].term_signal != 0)
			blk.failed++;
	}
	for (size_t i = 0; i < b->nmetrics; i++) {
		if (b->metrics[i].n && !b->metrics[i].values)
			return -EINVAL;
		if (b->metrics[i].has_status && b->metrics[i].n &&
		    (!b->metrics[i].status || !b->metrics[i].raw))
			return -EINVAL;
		max_n = b->metrics[i].n > max_n ? b->metrics[i].n : max_n;
	}
	blk.runs = b->nruns > max_n ? b->nruns : max_n;

	blk.rows = calloc(b->nmetrics ? b->nmetrics : 1, sizeof(*blk.rows));
	if (!blk.rows)
		return -ENOMEM;
	for (size_t i = 0; i < b->nmetrics; i++) {
		const struct pmc_metric *m = &b->metrics[i];

		if (is_trailer(m->id) || is_attached(b, m))
			continue;
		err = fill_row(&blk, m, &blk.rows[blk.nrows++]);
		if (err < 0)
			goto fail_row;
	}
	blk.first_trailer = blk.nrows;
	for (size_t t = 0; t < pmc_metric_info_count(); t++) {
		const struct pmc_metric_info *info = pmc_metric_info_at(t);
		const struct pmc_metric *m =
		    info->trailer ? pmc_benchmark_find_metric(b, info->id) : NULL;

		if (!m)
			continue;
		err = fill_row(&blk, m, &blk.rows[blk.nrows++]);
		if (err < 0)
			goto fail_row;
	}
	*ret = blk;
	return 0;

fail_row:
	pmc_report_block_free(&blk);
	return err;
}

size_t pmc_report_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

/* ---- The table -------------------------------------------------------------------- */

/* Writes one line of cells, padding with spaces that are emitted only before more text,
 * so that no line ends in blanks. */
struct line {
	FILE *out;
	size_t pending;
};

/* Result text (names, commands, notes) may hold control characters: shown as spaces so
 * that a newline in a note cannot break the layout. */
static void put_text(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, out);
}

static void line_gap(struct line *l, size_t n)
{
	l->pending += n;
}

static void line_put(struct line *l, const char *s)
{
	if (!*s)
		return;
	fprintf(l->out, "%*s", (int)l->pending, "");
	l->pending = 0;
	put_text(l->out, s);
}

/* A cell of width w (skipped when the whole column is empty), after gap spaces. */
static void line_cell(struct line *l, size_t gap, const char *s, size_t w, bool right)
{
	size_t sw = pmc_report_width(s);

	if (w == 0)
		return;
	line_gap(l, gap);
	if (right)
		line_gap(l, w - sw);
	line_put(l, s);
	if (!right)
		line_gap(l, w - sw);
}

static void line_end(struct line *l)
{
	fputc('\n', l->out);
	l->pending = 0;
}

#define MAX(a, b) ((a) > (b) ? (a) : (b))

struct widths {
	size_t value, unit, label, spread, kind, extra;
};

static void label_text(const struct pmc_report_row *row, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", row->m->id, row->marked ? " " PMC_REPORT_CROSS_MARK : "");
}

static void print_row(FILE *out, const struct pmc_report_row *row, const struct widths *w)
{
	struct line l = {.out = out};
	char label[512];

	label_text(row, label, sizeof(label));
	line_cell(&l, 2, row->value, w->value, true);
	line_cell(&l, 1, row->unit, w->unit, false);
	line_cell(&l, 2, label, w->label, false);
	line_cell(&l, 2, row->spread, w->spread, true);
	line_cell(&l, 1, row->spread_kind, w->kind, false);
	line_cell(&l, 2, row->extra, w->extra, false);
	line_gap(&l, 2);
	if (row->missing) {
		line_put(&l, row->comment);
		if (row->why) {
			line_put(&l, ": ");
			put_text(out, row->why);
		}
	} else if (row->comment[0]) {
		line_put(&l, "# ");
		put_text(out, row->comment);
	}
	line_end(&l);
}

static void print_header(FILE *out, const struct pmc_report_block *blk)
{
	const struct pmc_benchmark *b = blk->b;

	fputs("Benchmark: ", out);
	put_text(out, b->name ? b->name : "(unnamed)");
	fprintf(out, " (%zu run%s", blk->runs, blk->runs == 1 ? "" : "s");
	if (blk->failed)
		fprintf(out, ", %zu failed", blk->failed);
	if (blk->timed_out)
		fprintf(out, ", %zu timed out", blk->timed_out);
	fputs(")\n", out);
	if (b->command) {
		fputs("Command:   ", out);
		put_text(out, b->command);
		fputc('\n', out);
	}
}

void pmc_report_footnotes(FILE *out, const struct pmc_report_block *blk, const char *bullet)
{
	if (blk->any_spread && !blk->median) {
		fprintf(out, "%sMeans over the runs; ± is the coefficient of variation "
			     "(stddev / mean).\n", bullet);
	} else if (blk->any_spread) {
		fprintf(out, "%sMedians over the runs; ± is the half-width of the %g%% confidence "
			     "interval of the median", bullet, blk->confidence * 100);
		if (blk->any_mad)
			fputs(" (MAD: the median absolute deviation, where the runs are too few "
			      "for that interval)",
			      out);
		fputs(".\n", out);
	} else if (blk->median) {
		fprintf(out, "%sMedians over the runs.\n", bullet);
	}
	if (blk->any_scaled)
		fprintf(out, "%s(x%%): the counter ran x%% of the time it was enabled "
			     "(multiplexed); its count is scaled up.\n", bullet);
	if (blk->any_partial)
		fprintf(out, "%sn=k/N: measured in k of the N runs.\n", bullet);
	if (blk->any_simulated)
		fprintf(out, "%ssimulated: counted by a simulator (valgrind), not by hardware "
			     "counters.\n", bullet);
	if (blk->any_cross)
		fprintf(out, "%s" PMC_REPORT_CROSS_MARK " ratio of events in different groups: "
			     "multiplexing may skew it.\n", bullet);
}

static void print_block(FILE *out, const struct pmc_report_block *blk)
{
	struct widths w = {0};

	for (size_t i = 0; i < blk->nrows; i++) {
		const struct pmc_report_row *row = &blk->rows[i];
		char label[512];

		label_text(row, label, sizeof(label));
		w.value = MAX(w.value, pmc_report_width(row->value));
		w.unit = MAX(w.unit, pmc_report_width(row->unit));
		w.label = MAX(w.label, pmc_report_width(label));
		w.spread = MAX(w.spread, pmc_report_width(row->spread));
		w.kind = MAX(w.kind, pmc_report_width(row->spread_kind));
		w.extra = MAX(w.extra, pmc_report_width(row->extra));
	}

	print_header(out, blk);
	fputc('\n', out);
	for (size_t i = 0; i < blk->nrows; i++) {
		if (i == blk->first_trailer && i > 0)
			fputc('\n', out);
		print_row(out, &blk->rows[i], &w);
	}
	if (blk->nrows == 0)
		fputs("  (no metrics)\n", out);
	fputc('\n', out);
	pmc_report_footnotes(out, blk, "  ");
}

int pmc_report_opts_resolve(const struct pmc_report_opts *o, bool *ret_median,
			    double *ret_confidence)
{
	double confidence = o && o->confidence != 0 ? o->confidence : 0.95;

	if (!(confidence > 0 && confidence < 1))
		return -EINVAL;
	*ret_median = o && o->median;
	*ret_confidence = confidence;
	return 0;
}

int pmc_report_each_block(FILE *out, const struct pmc_result *r, const struct pmc_report_opts *o,
			  const char *empty, void (*print)(FILE *, const struct pmc_report_block *))
{
	bool median;
	double confidence;
	int err;

	if (!out || !r || (r->nbench && !r->benchmarks))
		return -EINVAL;
	err = pmc_report_opts_resolve(o, &median, &confidence);
	if (err < 0)
		return err;
	if (r->nbench == 0)
		fputs(empty, out);
	for (size_t i = 0; i < r->nbench; i++) {
		struct pmc_report_block blk;

		err = pmc_report_block_build(&r->benchmarks[i], median, confidence, &blk);
		if (err < 0)
			return err;
		if (i > 0)
			fputc('\n', out);
		print(out, &blk);
		pmc_report_block_free(&blk);
	}
	if (fflush(out) != 0 || ferror(out))
		return -EIO;
	return 0;
}

int pmc_report_table(FILE *out, const struct pmc_result *r, const struct pmc_report_opts *o)
{
	return pmc_report_each_block(out, r, o, "No benchmarks in the result.\n", print_block);
}

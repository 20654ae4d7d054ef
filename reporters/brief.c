/* The brief format: a benchmark program's terminal report, one line per benchmark as
 * Google Benchmark's console reporter prints it (docs/microbench.md, "The report"): the
 * median time per operation with its confidence interval, the CPU time, the iterations,
 * every measured counter and the rates over the totals; complexity fits as GB's BigO and
 * RMS lines; one line for the counters no benchmark measured. Every number comes from
 * the analysis; a value a benchmark did not measure is "-", never 0. */
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
#include "reporters/reporter.h"
#include "reporters/wrap.h"

#define TIME_ID "wall-time/op"
#define CPU_ID "task-clock/op"
/* A benchmark timed by the process's CPU clock (MeasureProcessCPUTime) has this instead. */
#define PROCESS_CPU_ID "cpu-time/op"
/* The fixed columns: name, time, its interval, CPU, iterations. */
#define NFIXED 5

/* Columns a UTF-8 string takes on a terminal: one per code point. */
static size_t width_of(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

/* The table, built before it is written so that every column gets its width. */
struct brief {
	const struct pmc_analysis *a;
	const char **cols; /* the counter and rate columns' metric ids, first seen first */
	size_t ncols;
	char **cells; /* nrows x (NFIXED + ncols), NULL for an empty cell */
	char **tails; /* nrows: text after the name instead of cells (a skip), or NULL */
	bool *fit;    /* nrows: a fit's line, which ends at its last cell */
	size_t nrows, cap;
	size_t *w;
	bool any_interval, no_interval;
};

static bool is_rate(const struct pmc_metric *m)
{
	size_t n = m->unit ? strlen(m->unit) : 0;

	return n > 2 && strcmp(m->unit + n - 2, "/s") == 0;
}

/* A metric of its own column: a counter (hardware, software or the benchmark's), a
 * derived ratio but the CPU column's (cpus-utilized), or a rate; not the time columns,
 * nor wait4's trailers. */
static bool is_column(const struct pmc_metric *m)
{
	const struct pmc_metric_info *info = pmc_metric_find(m->id);

	if (strcmp(m->id, TIME_ID) == 0 || strcmp(m->id, CPU_ID) == 0 ||
	    strcmp(m->id, PROCESS_CPU_ID) == 0)
		return false;
	if (is_rate(m))
		return true;
	if (info && info->trailer)
		return false;
	if (m->derived && info && info->host && strcmp(info->host, "task-clock") == 0)
		return false;
	return true;
}

static int add_col(struct brief *t, const char *id)
{
	const char **v;

	/* Beyond the widest terminal: the rest stay in -v's report. */
	if (t->ncols == 64)
		return 0;
	for (size_t i = 0; i < t->ncols; i++)
		if (strcmp(t->cols[i], id) == 0)
			return 0;
	v = realloc(t->cols, (t->ncols + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	t->cols = v;
	t->cols[t->ncols++] = id;
	return 0;
}

static size_t row_len(const struct brief *t)
{
	return NFIXED + t->ncols;
}

/* A new row of empty cells; its index in *ret. */
static int add_row(struct brief *t, size_t *ret)
{
	size_t n = row_len(t);

	if (t->nrows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		char **c = realloc(t->cells, cap * n * sizeof(*c));
		char **tl = c ? realloc(t->tails, cap * sizeof(*tl)) : NULL;
		bool *fit = tl ? realloc(t->fit, cap * sizeof(*fit)) : NULL;

		if (c)
			t->cells = c;
		if (tl)
			t->tails = tl;
		if (!fit)
			return -ENOMEM;
		t->fit = fit;
		t->cap = cap;
	}
	memset(t->cells + t->nrows * n, 0, n * sizeof(*t->cells));
	t->tails[t->nrows] = NULL;
	t->fit[t->nrows] = false;
	*ret = t->nrows++;
	return 0;
}

static int set_text(char **c, const char *text)
{
	free(*c);
	*c = pmc_escape_text_needed(text) ? pmc_escape_text_dup(text) : strdup(text);
	return *c ? 0 : -ENOMEM;
}

static int set_cell(struct brief *t, size_t row, size_t col, const char *text)
{
	return set_text(&t->cells[row * row_len(t) + col], text);
}

static void brief_free(struct brief *t)
{
	for (size_t i = 0; t->cells && i < t->nrows * row_len(t); i++)
		free(t->cells[i]);
	for (size_t i = 0; t->tails && i < t->nrows; i++)
		free(t->tails[i]);
	free(t->cells);
	free(t->tails);
	free(t->fit);
	free(t->cols);
	free(t->w);
}

static const struct pmc_metric_analysis *find(const struct pmc_bench_analysis *ba, const char *id)
{
	for (size_t i = 0; i < ba->b->nmetrics; i++)
		if (strcmp(ba->b->metrics[i].id, id) == 0)
			return &ba->metrics[i];
	return NULL;
}

/* "2.25 ns": the median in the run table's style; a time in ns in the benchmark's own
 * unit when it has one (time_unit): "0.0023 ms", "2.00 ms". */
static void value_text(double v, const char *unit, int time_unit, char *buf, size_t len)
{
	static const double per_unit[] = {
	    [PMC_TIME_NS] = 1, [PMC_TIME_US] = 1e3, [PMC_TIME_MS] = 1e6, [PMC_TIME_S] = 1e9};
	const char *name = pmc_time_unit_name(time_unit);
	char num[64];
	const char *u;

	if (name && strcmp(unit, "ns") == 0 && isfinite(v)) {
		v /= per_unit[time_unit];
		snprintf(buf, len, fabs(v) >= 1 || v == 0 ? "%.2f %s" : "%.3g %s", v, name);
		return;
	}
	u = pmc_fmt_value(v, unit, num, sizeof(num));
	snprintf(buf, len, "%s%s%s", num, *u ? " " : "", u);
}

static int time_cells(struct brief *t, size_t row, const struct pmc_bench_analysis *ba)
{
	const struct pmc_metric_analysis *ma = find(ba, TIME_ID), *cpu = find(ba, PROCESS_CPU_ID);
	char buf[96];
	int r = 0;

	if (!cpu)
		cpu = find(ba, CPU_ID);
	if (ma && ma->has_summary) {
		const struct pmc_summary *s = &ma->s;

		value_text(s->median, ma->m->unit, ba->b->time_unit, buf, sizeof(buf));
		r = set_cell(t, row, 1, buf);
		/* The half-width of the distribution-free CI of the median, its larger side:
		 * order statistics need not be symmetric (stats.h). */
		if (r == 0 && s->has_ci) {
			pmc_fmt_spread(fmax(s->ci_hi - s->median, s->median - s->ci_lo), s->median,
				       ma->m->unit, buf, sizeof(buf));
			r = set_cell(t, row, 2, buf);
			t->any_interval = true;
		} else {
			t->no_interval = true;
		}
	}
	if (r == 0 && cpu && cpu->has_summary) {
		value_text(cpu->s.median, cpu->m->unit, ba->b->time_unit, buf, sizeof(buf));
		r = set_cell(t, row, 3, buf);
	}
	return r;
}

static int bench_row(struct brief *t, const struct pmc_bench_analysis *ba)
{
	const struct pmc_benchmark *b = ba->b;
	unsigned long long iters = 0;
	char buf[160];
	size_t row;
	int r = add_row(t, &row);

	if (r == 0)
		r = set_cell(t, row, 0, b->name ? b->name : "(unnamed)");
	if (r < 0)
		return r;
	if (b->skipped) {
		snprintf(buf, sizeof(buf), "(skipped%s%s)", *b->skipped ? ": " : "", b->skipped);
		return set_text(&t->tails[row], buf);
	}
	r = time_cells(t, row, ba);
	for (size_t i = 0; i < b->nruns && b->runs; i++)
		iters += b->runs[i].iterations;
	if (r == 0 && iters) {
		snprintf(buf, sizeof(buf), "%llu", iters);
		r = set_cell(t, row, 4, buf);
	}
	for (size_t c = 0; r == 0 && c < t->ncols; c++) {
		const struct pmc_metric_analysis *ma = find(ba, t->cols[c]);

		if (!ma || !ma->has_summary)
			continue;
		if (is_rate(ma->m) && !isnan(ma->of_totals))
			value_text(ma->of_totals, ma->m->unit, PMC_TIME_AUTO, buf, sizeof(buf));
		else
			pmc_fmt_short(ma->s.median, ma->m->unit, buf, sizeof(buf));
		r = set_cell(t, row, NFIXED + c, buf);
	}
	return r;
}

/* Google Benchmark's names of the fits (src/complexity.cc, GetBigOString). */
static const char *gb_big_o(const char *big_o)
{
	static const char *const ours[] = {PMC_FIT_BIG_O};
	static const char *const gb[] = {"(1)", "lgN", "N", "NlgN", "N^2", "N^3", "f(N)"};

	for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		if (strcmp(big_o, ours[i]) == 0)
			return gb[i];
	return big_o;
}

/* The fit's two lines, as Google Benchmark prints them: name_BigO with the coefficient
 * and the O() of n, name_RMS with the error. */
static int fit_rows(struct brief *t, const struct pmc_fit *f, const struct pmc_benchmark *b)
{
	const struct pmc_metric *m = pmc_benchmark_find_metric(b, f->metric);
	char name[256], num[64], buf[160];
	const char *u;
	size_t row;
	int r;

	u = pmc_fmt_value(f->coef, m ? m->unit : "", num, sizeof(num));
	snprintf(buf, sizeof(buf), "%s%s%s %s", num, *u ? " " : "", u, gb_big_o(f->big_o));
	snprintf(name, sizeof(name), "%s_BigO", f->name);
	r = add_row(t, &row);
	if (r == 0) {
		t->fit[row] = true;
		r = set_cell(t, row, 0, name);
	}
	if (r == 0)
		r = set_cell(t, row, 1, buf);
	if (r == 0 && strcmp(f->metric, TIME_ID) != 0)
		r = set_cell(t, row, 2, f->metric);
	snprintf(name, sizeof(name), "%s_RMS", f->name);
	snprintf(buf, sizeof(buf), "%.0f %%", f->rms * 100);
	if (r == 0)
		r = add_row(t, &row);
	if (r == 0) {
		t->fit[row] = true;
		r = set_cell(t, row, 0, name);
	}
	if (r == 0)
		r = set_cell(t, row, 1, buf);
	return r;
}

/* The last benchmark of fit f's definition (name/...) at or before i, when i is it. */
static bool ends_fit(const struct pmc_result *res, size_t i, const struct pmc_fit *f)
{
	size_t n = strlen(f->name);

	for (size_t k = res->nbench; k-- > i;) {
		const char *name = res->benchmarks[k].name;

		if (name && strncmp(name, f->name, n) == 0 && name[n] == '/')
			return k == i;
	}
	return false;
}

static int build(struct brief *t)
{
	const struct pmc_analysis *a = t->a;
	int r = 0;

	for (size_t i = 0; r == 0 && i < a->nbench; i++)
		for (size_t k = 0; r == 0 && k < a->benches[i].b->nmetrics; k++) {
			const struct pmc_metric *m = &a->benches[i].b->metrics[k];

			if (a->benches[i].metrics[k].has_summary && is_column(m))
				r = add_col(t, m->id);
		}
	for (size_t i = 0; r == 0 && i < a->nbench; i++) {
		r = bench_row(t, &a->benches[i]);
		for (size_t f = 0; r == 0 && f < a->r->nfits; f++)
			if (ends_fit(a->r, i, &a->r->fits[f]))
				r = fit_rows(t, &a->r->fits[f], a->benches[i].b);
	}
	return r;
}

static void put_cell(FILE *out, const char *s, size_t w, bool right, bool last)
{
	size_t sw = width_of(s);

	if (right)
		fprintf(out, "%*s%s", (int)(w - sw), "", s);
	else if (last)
		fputs(s, out);
	else
		fprintf(out, "%s%*s", s, (int)(w - sw), "");
}

static const char *const fixed_heads[NFIXED] = {"Benchmark", "Time", "", "CPU", "Iterations"};

static const char *head_of(const struct brief *t, size_t c)
{
	return c < NFIXED ? fixed_heads[c] : t->cols[c - NFIXED];
}

/* The gap before column c: the time's interval (column 2) follows it after one space. */
static size_t gap_before(size_t c)
{
	return c == 0 ? 0 : c == 2 ? 1 : 2;
}

/* One panel of the table: the names (column 0) and columns from..to, the header, its
 * rule and the rows; tails: write the fits' tails (the first panel only). */
static void write_panel(FILE *out, const struct brief *t, const bool *used, size_t from, size_t to,
			bool tails)
{
	size_t n = row_len(t), total = 0;

	for (size_t c = 0; c <= to; c++) {
		if (!used[c] || (c && c < from))
			continue;
		if (c)
			fprintf(out, "%*s", (int)gap_before(c), "");
		put_cell(out, head_of(t, c), t->w[c], c > 0 && c != 2, c == to);
		total += t->w[c] + gap_before(c);
	}
	fputc('\n', out);
	for (size_t i = 0; i < total; i++)
		fputc('-', out);
	fputc('\n', out);
	for (size_t i = 0; i < t->nrows; i++) {
		bool tail = tails && t->tails[i];
		size_t end = tail ? 0 : to;

		/* A fit's line ends at its last cell; a benchmark's shows "-" to the end. */
		if (t->fit[i]) {
			end = 0;
			for (size_t c = from; c <= to; c++)
				if (t->cells[i * n + c])
					end = c;
			if (!end && !tail && from > 1)
				continue;
		}
		for (size_t c = 0; c <= end; c++) {
			const char *s = t->cells[i * n + c];

			if (!used[c] || (c && c < from))
				continue;
			if (c)
				fprintf(out, "%*s", (int)gap_before(c), "");
			put_cell(out, s ? s : "-", t->w[c], c > 0 && c != 2, c == end && !tail);
		}
		if (tail)
			fprintf(out, "  %s", t->tails[i]);
		fputc('\n', out);
	}
}

/* Writes the header and the rows; a column that is empty in every row is left out, and
 * no line ends in blanks. Wider than width (0: any), the columns that do not fit go to
 * more panels below, each with the names again (docs/microbench.md, "The report"). */
static void write_table(FILE *out, struct brief *t, unsigned width)
{
	size_t n = row_len(t), last = 0;
	bool used[NFIXED + 64];

	for (size_t c = 0; c < n; c++) {
		const char *head = head_of(t, c);
		bool any = c == 0;

		t->w[c] = width_of(head);
		for (size_t i = 0; i < t->nrows; i++) {
			const char *s = t->cells[i * n + c];

			if (s) {
				any = true;
				t->w[c] = t->w[c] > width_of(s) ? t->w[c] : width_of(s);
			}
		}
		used[c] = any;
		if (any)
			last = c;
	}
	for (size_t from = 1; from <= last || from == 1;) {
		size_t to = from, total = t->w[0];

		/* The panel takes columns while they fit; at least one, and the time with
		 * its interval. */
		for (size_t c = from; c <= last; c++) {
			size_t add = used[c] ? gap_before(c) + t->w[c] : 0;

			if (width && c > from && c != 2 && total + add > width)
				break;
			total += add;
			to = c;
		}
		if (from > 1)
			fputc('\n', out);
		write_panel(out, t, used, from, to, from == 1);
		if (to >= last)
			break;
		from = to + 1;
	}
}

/* The reason a missing metric gives: its status over the runs, its errno's name, its
 * note. */
static void missing_reason(const struct pmc_metric_analysis *ma, char *buf, size_t len)
{
	const struct pmc_metric *m = ma->m;
	size_t o = 0;

	buf[0] = '\0';
	for (size_t s = 0; s < PMC_NSTATUS && o < len; s++)
		if (ma->status_count[s])
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? "/" : "",
					      pmc_status_name((enum pmc_status)s));
	if (!o && o < len)
		o += (size_t)snprintf(buf + o, len - o, "not measured");
	if (m->note && o < len)
		snprintf(buf + o, len - o, ": %s", m->note);
	else if (m->error && o < len)
		snprintf(buf + o, len - o, ": %s", strerror(m->error));
}

/* One line for the metrics that no benchmark measured, grouped by their reason:
 * "Not measured: cycles/op, instructions/op (unsupported, No such file or directory)". */
static void write_missing(FILE *out, const struct pmc_analysis *a)
{
	const char *ids[64], *reasons[64];
	char text[64][256];
	size_t n = 0;
	bool first = true;

	for (size_t i = 0; i < a->nbench; i++)
		for (size_t k = 0; k < a->benches[i].b->nmetrics && n < 64; k++) {
			const struct pmc_metric_analysis *ma = &a->benches[i].metrics[k];
			bool seen = false, measured = false;

			if (ma->has_summary || !is_column(ma->m))
				continue;
			for (size_t j = 0; j < n && !seen; j++)
				seen = strcmp(ids[j], ma->m->id) == 0;
			for (size_t j = 0; j < a->nbench && !measured; j++) {
				const struct pmc_metric_analysis *o =
				    find(&a->benches[j], ma->m->id);

				measured = o && o->has_summary;
			}
			if (seen || measured)
				continue;
			ids[n] = ma->m->id;
			missing_reason(ma, text[n], sizeof(text[n]));
			reasons[n] = text[n];
			n++;
		}
	for (size_t i = 0; i < n; i++) {
		bool done = false;

		for (size_t j = 0; j < i && !done; j++)
			done = strcmp(reasons[j], reasons[i]) == 0;
		if (done)
			continue;
		fputs(first ? "Not measured: " : "; ", out);
		first = false;
		for (size_t j = i, k = 0; j < n; j++)
			if (strcmp(reasons[j], reasons[i]) == 0) {
				fputs(k++ ? ", " : "", out);
				pmc_escape_text(out, ids[j]);
			}
		fputs(" (", out);
		pmc_escape_text(out, reasons[i]);
		fputc(')', out);
	}
	if (!first)
		fputc('\n', out);
}

/* The columns whose source the report names, from their notes: a benchmark program's
 * allocations, counted in its process or through uprobes (docs/microbench.md,
 * "Allocations"). One line per note, the first benchmark's that measured each. */
static void write_sources(FILE *out, const struct pmc_analysis *a)
{
	static const char *const ids[] = {"allocs/op", "alloc-bytes/op"};
	const char *notes[2] = {NULL, NULL};

	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < a->nbench && !notes[k]; i++) {
			const struct pmc_metric_analysis *ma = find(&a->benches[i], ids[k]);

			if (ma && ma->has_summary && ma->m->note)
				notes[k] = ma->m->note;
		}
	for (size_t k = 0; k < 2; k++) {
		if (!notes[k] || (k == 1 && notes[0] && strcmp(notes[0], notes[1]) == 0))
			continue;
		pmc_escape_text(out, ids[k]);
		if (k == 0 && notes[1] && strcmp(notes[0], notes[1]) == 0)
			fputs(", alloc-bytes/op", out);
		fputs(": ", out);
		pmc_escape_text(out, notes[k]);
		fputc('\n', out);
	}
}

/* What a benchmark's time carries: the notes of wall-time/op (the loop's share, the
 * pauses subtracted), its failed runs, and the health of its runs. */
static void write_notes(FILE *out, const struct pmc_analysis *a)
{
	char phrase[PMC_HEALTH_DESC_MAX];

	for (size_t i = 0; i < a->nbench; i++) {
		const struct pmc_bench_analysis *ba = &a->benches[i];
		const struct pmc_metric_analysis *ma = find(ba, TIME_ID);

		if (ba->failed || ba->timed_out) {
			pmc_escape_text(out, ba->b->name);
			fprintf(out, ": %zu of %zu runs failed, %zu timed out\n", ba->failed,
				ba->runs, ba->timed_out);
		}
		if (!ma)
			continue;
		/* Also of a time with no sample left: the note says why (pauses that cost more
		 * than every batch). */
		if (ma->m->note) {
			fputs("note: ", out);
			pmc_escape_text(out, ba->b->name);
			fputs(": ", out);
			pmc_escape_text(out, ma->m->note);
			fputc('\n', out);
		}
		if (!ma->has_summary)
			continue;
		if (pmc_health_describe(&ma->health, phrase, sizeof(phrase)) == 0 && phrase[0]) {
			fputs("warning: ", out);
			pmc_escape_text(out, ba->b->name);
			fprintf(out, ": " TIME_ID " %s\n", phrase);
		}
	}
}

static int write_prose(FILE *to, const struct brief *t, const struct pmc_analysis *a,
		       unsigned width);

static int brief_result(FILE *out, const struct pmc_result *r, const struct pmc_analysis *a,
			const struct pmc_report_opts *o)
{
	struct brief t = {.a = a};
	int err;

	if (a->nbench == 0) {
		fputs("No benchmarks in the result.\n", out);
		return 0;
	}
	err = build(&t);
	if (err == 0) {
		t.w = calloc(row_len(&t), sizeof(*t.w));
		err = t.w ? 0 : -ENOMEM;
	}
	if (err == 0) {
		write_table(out, &t, o->width);
		fputc('\n', out);
		err = write_prose(out, &t, a, o->width);
	}
	brief_free(&t);
	if (err < 0)
		return err;
	if (fflush(out) != 0 || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}

/* The notes under the table, wrapped to width. */
static int write_prose(FILE *to, const struct brief *t, const struct pmc_analysis *a,
		       unsigned width)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (!out)
		return -ENOMEM;
	{
		if (t->any_interval)
			fprintf(out,
				"Time, CPU: medians per operation over the runs; ± the half-width "
				"of the %g%% confidence interval of the time's median%s.\n",
				a->confidence * 100,
				t->no_interval ? " (none: too few runs for it; -r 6 at least)"
					       : "");
		else if (t->no_interval)
			fputs("Time, CPU: medians per operation over the runs (too few for a "
			      "confidence interval; -r 6 at least).\n",
			      out);
		fputs("Iterations: over all the runs; rates (/s): the total over the total "
		      "time.\n",
		      out);
		write_missing(out, a);
		write_sources(out, a);
		write_notes(out, a);
	}
	if (fclose(out) != 0) {
		free(text);
		return -ENOMEM;
	}
	pmc_report_wrap(to, text, width);
	free(text);
	return 0;
}

const struct pmc_reporter pmc_reporter_brief = {
    .name = "brief",
    .ext = ".txt",
    .result = brief_result,
    .needs_analysis = true,
};

/* Comparison reports: a benchstat-like table, Markdown and JSON. Rows are formatted one
 * at a time and written at once, so that a comparison of 100,000 rows is reported in
 * one pass without holding its text in memory. */
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "harness/core/compare.h"
#include "harness/core/metrics.h"
#include "reporters/compare_report.h"

/* A growing line buffer: a row is built in memory and written with one fwrite, which is
 * several times cheaper than a stdio call per cell for 100,000 rows. */
struct sbuf {
	char *p;
	size_t len, cap;
	bool oom;
};

static bool sb_reserve(struct sbuf *b, size_t more)
{
	if (b->len + more + 1 <= b->cap)
		return true;
	if (!b->oom) {
		size_t cap = b->cap ? b->cap : 256;
		char *grown;

		while (cap < b->len + more + 1)
			cap *= 2;
		grown = realloc(b->p, cap);
		if (grown) {
			b->p = grown;
			b->cap = cap;
			return true;
		}
	}
	b->oom = true;
	return false;
}

static void sb_put(struct sbuf *b, const char *s, size_t n)
{
	if (!sb_reserve(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_printf(struct sbuf *b, const char *fmt, ...)
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

/* Writes and empties the buffer; false when writing failed or memory ran out. */
static bool sb_flush(struct sbuf *b, FILE *out)
{
	bool ok = !b->oom && fwrite(b->p, 1, b->len, out) == b->len;

	b->len = 0;
	return ok;
}

/* A JSON string with the escapes RFC 8259 requires. */
static void sb_json_str(struct sbuf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const char *run = s;

	sb_put(b, "\"", 1);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch >= 0x20 && ch != '"' && ch != '\\')
			continue;
		sb_put(b, run, (size_t)(s - run));
		run = s + 1;
		if (ch == '"' || ch == '\\') {
			char e[2] = {'\\', (char)ch};

			sb_put(b, e, 2);
		} else {
			char e[6] = {'\\', 'u', '0', '0', hex[ch >> 4], hex[ch & 15]};

			sb_put(b, e, 6);
		}
	}
	sb_put(b, run, (size_t)(s - run));
	sb_put(b, "\"", 1);
}

/* A JSON number, null where there is none (a report never holds NaN). Integral values,
 * which counts and most medians are, skip printf; others keep 17 digits when they are
 * measured values and 10 when they are statistics of them. */
static void sb_json_num(struct sbuf *b, double v, bool measured)
{
	if (!isfinite(v)) {
		sb_put(b, "null", 4);
	} else if (v == trunc(v) && fabs(v) < 1e15) {
		char d[24], *e = d + sizeof(d), *q = e;
		unsigned long long k = (unsigned long long)fabs(v);

		do
			*--q = (char)('0' + k % 10);
		while ((k /= 10) != 0);
		if (v < 0)
			*--q = '-';
		sb_put(b, q, (size_t)(e - q));
	} else {
		sb_printf(b, measured ? "%.17g" : "%.10g", v);
	}
}

int pmc_compare_format_parse(const char *name, enum pmc_compare_format *ret)
{
	if (!name)
		return -EINVAL;
	if (strcmp(name, "table") == 0)
		*ret = PMC_COMPARE_TABLE;
	else if (strcmp(name, "markdown") == 0 || strcmp(name, "md") == 0)
		*ret = PMC_COMPARE_MARKDOWN;
	else if (strcmp(name, "json") == 0)
		*ret = PMC_COMPARE_JSON;
	else
		return -EINVAL;
	return 0;
}

/* A value scaled for display: the number, its suffix and how to print it. */
struct scaled {
	double v;
	const char *suffix;
	enum { SV_G4, SV_F3, SV_PERCENT, SV_UNIT } how;
};

/* Number formatting for the table, which prints several numbers on each of up to
 * 100,000 rows: fixed and %.4g-style output without printf for the usual magnitudes
 * (printf is kept for the rest), which makes the table several times faster. */

static size_t put_uint(char *buf, unsigned long long k)
{
	char d[24], *e = d + sizeof(d), *q = e;

	do
		*--q = (char)('0' + k % 10);
	while ((k /= 10) != 0);
	memcpy(buf, q, (size_t)(e - q));
	return (size_t)(e - q);
}

/* Like "%.*f" (or "%+.*f" with plus) for 0 <= d <= 7; buf holds at least 48 bytes. */
static size_t put_fixed(char *buf, double v, int d, bool plus)
{
	static const double p10[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7};
	double a = fabs(v) * p10[d];
	unsigned long long m, ip;
	size_t n = 0;

	if (!isfinite(v)) {
		memcpy(buf, "-", 2);
		return 1;
	}
	/* printf rounds the exact binary value; near a tie the product a may have rounded
	 * across it, so ties go to printf. */
	if (!(a < 1e15) || fabs(a - floor(a) - 0.5) < 1e-6)
		return (size_t)snprintf(buf, 48, plus ? "%+.*f" : "%.*f", d, v);
	m = (unsigned long long)llround(a);
	if (signbit(v))
		buf[n++] = '-';
	else if (plus)
		buf[n++] = '+';
	ip = m;
	for (int i = 0; i < d; i++)
		ip /= 10;
	n += put_uint(buf + n, ip);
	if (d) {
		buf[n++] = '.';
		for (int i = d - 1; i >= 0; i--) {
			buf[n + (size_t)i] = (char)('0' + m % 10);
			m /= 10;
		}
		n += (size_t)d;
	}
	buf[n] = '\0';
	return n;
}

/* Like "%.4g" for 1e-4 <= |v| < 9999.5, which is what scale_value() leaves; printf for
 * the rest. buf holds at least 48 bytes. */
static size_t put_g4(char *buf, double v)
{
	double a = fabs(v);
	int e, d;
	size_t n;

	if (!isfinite(v)) {
		memcpy(buf, "-", 2);
		return 1;
	}
	if (!(a >= 1e-4 && a < 9999.5))
		return (size_t)snprintf(buf, 48, "%.4g", v);
	e = a >= 1000	 ? 3
	    : a >= 100	 ? 2
	    : a >= 10	 ? 1
	    : a >= 1	 ? 0
	    : a >= 0.1	 ? -1
	    : a >= 0.01	 ? -2
	    : a >= 0.001 ? -3
			 : -4;
	d = 3 - e;
	/* 999.96 rounds to 1000 at 4 digits: one decimal fewer. */
	if (a * pow(10, d) >= 9999.5 - 1e-6) {
		if (a * pow(10, d) < 9999.5 + 1e-6)
			return (size_t)snprintf(buf, 48, "%.4g", v);
		d--;
	}
	n = put_fixed(buf, v, d, false);
	if (d > 0) {
		while (buf[n - 1] == '0')
			n--;
		if (buf[n - 1] == '.')
			n--;
		buf[n] = '\0';
	}
	return n;
}

/* Prints sv into buf (at least 48 bytes); returns the length. */
static size_t sv_print(char *buf, const struct scaled *sv)
{
	size_t n;

	switch (sv->how) {
	case SV_F3:
		return put_fixed(buf, sv->v, 3, false);
	case SV_PERCENT:
		return (size_t)snprintf(buf, 48, "%.3g%%", sv->v);
	case SV_UNIT:
		n = put_g4(buf, sv->v);
		return n + (size_t)snprintf(buf + n, 48 - n, " %.16s", sv->suffix);
	default:
		n = put_g4(buf, sv->v);
		memcpy(buf + n, sv->suffix, strlen(sv->suffix) + 1);
		return n + strlen(sv->suffix);
	}
}

static const char *si_prefix(double *v, const char *const *prefixes, size_t n, double step)
{
	size_t i = 0;

	/* 0.9995 of a step would print as "1000" at 4 digits: show it as 1 of the next. */
	while (i + 1 < n && fabs(*v) >= step * 0.9995) {
		*v /= step;
		i++;
	}
	return prefixes[i];
}

static struct scaled scale_value(double v, const char *unit)
{
	static const char *const si[] = {"", "k", "M", "G", "T", "P"};
	static const char *const bin[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	static const char *const t[] = {"ns", "us", "ms", "s"};
	struct scaled r = {.v = v, .suffix = "", .how = SV_G4};

	if (!unit || strcmp(unit, "count") == 0) {
		r.suffix = si_prefix(&r.v, si, sizeof(si) / sizeof(si[0]), 1000.0);
	} else if (strcmp(unit, "ns") == 0) {
		r.suffix = si_prefix(&r.v, t, sizeof(t) / sizeof(t[0]), 1000.0);
	} else if (strcmp(unit, "bytes") == 0) {
		r.suffix = si_prefix(&r.v, bin, sizeof(bin) / sizeof(bin[0]), 1024.0);
	} else if (strcmp(unit, "ratio") == 0) {
		r.how = SV_F3;
	} else if (strcmp(unit, "percent") == 0) {
		r.how = SV_PERCENT;
	} else {
		r.how = SV_UNIT;
		r.suffix = unit;
	}
	return r;
}

char *pmc_compare_format_value(double v, const char *unit, char *buf, size_t len)
{
	struct scaled sv;
	char tmp[64];

	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	sv = scale_value(v, unit);
	sv_print(tmp, &sv);
	snprintf(buf, len, "%s", tmp);
	return buf;
}

/* Decimals for a percentage: 2 below 10%, 1 below 100%, none above. */
static int pct_decimals(double pct)
{
	double a = fabs(pct);

	return a >= 99.95 ? 0 : a >= 9.995 ? 1 : 2;
}

static void fmt_percent(double pct, char *buf, size_t len, bool sign)
{
	snprintf(buf, len, sign ? "%+.*f%%" : "%.*f%%", pct_decimals(pct), pct);
}

/* "1.235M ± 2.0%": the median and the larger half of its CI, relative to it. */
/* buf holds 128 bytes: two numbers of at most 48 and the sign between them. */
static void fmt_side(const struct pmc_summary *s, bool have, const char *unit, bool exact,
		     char buf[static 128])
{
	static const char pm[] = " ± ";
	struct scaled sv;
	size_t n;

	if (!have) {
		memcpy(buf, "no value", sizeof("no value"));
		return;
	}
	sv = scale_value(s->median, unit);
	n = sv_print(buf, &sv);
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

			n += put_fixed(buf + n, pct, pct_decimals(pct), false);
			memcpy(buf + n, "%", 2);
		} else {
			struct scaled sh = scale_value(half, unit);

			sv_print(buf + n, &sh);
		}
	}
}

struct cells {
	char old[128], new[128], change[160], test[64];
	const char *limit;
	const char *verdict;
};

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

		pmc_compare_format_value(row->diff, unit, v, sizeof(v));
		snprintf(d, sizeof(d), " (%s%s)", row->diff > 0 ? "+" : "", v);
	}
	if (row->kind == PMC_ROW_EXACT) {
		double pct = (row->ratio - 1) * 100;

		if (row->diff == 0)
			snprintf(buf, len, "0%% (exact)");
		else if (isnan(row->ratio))
			snprintf(buf, len, "from 0 (exact)%s", d);
		else
			snprintf(buf, len, "%+.*f%% (exact)%s", pct_decimals(pct), pct, d);
	} else if (isnan(row->ratio)) {
		snprintf(buf, len, "? (values <= 0)%s", d);
	} else {
		double pct = (row->ratio - 1) * 100;

		if (isnan(row->ratio_lo)) {
			snprintf(buf, len, "%+.*f%% (no CI)%s", pct_decimals(pct), pct, d);
		} else {
			double lo = (row->ratio_lo - 1) * 100, hi = (row->ratio_hi - 1) * 100;

			snprintf(buf, len, "%+.*f%% [%+.*f%%, %+.*f%%]%s", pct_decimals(pct), pct,
				 pct_decimals(lo), lo, pct_decimals(hi), hi, d);
		}
	}
}

static void format_row(const struct pmc_comparison *c, const struct pmc_cmp_row *row,
		       struct cells *out)
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

		if (row->kind == PMC_ROW_TESTED && row->p < 0.001) {
			memcpy(t, "p<0.001 ", 8);
			n = 8;
		} else if (row->kind == PMC_ROW_TESTED) {
			memcpy(t, "p=", 2);
			n = 2 + put_fixed(t + 2, row->p, 3, false);
			t[n++] = ' ';
		} else if (exact) {
			memcpy(t, "exact ", 6);
			n = 6;
		}
		memcpy(t + n, "n=", 2);
		n += 2;
		n += put_uint(t + n, na);
		t[n++] = '+';
		n += put_uint(t + n, nn);
		t[n] = '\0';
	}
	out->limit = row->threshold ? row->threshold->text : "-";
	out->verdict =
	    row->kind == PMC_ROW_MISSING ? "not compared" : pmc_verdict_name(row->verdict);
}

static const char *better_text(int better)
{
	return better == PMC_HIGHER_IS_BETTER ? "higher is better" : "lower is better";
}

/* Display width of UTF-8 text: one column per code point (± and ∞ are one column). */
static size_t width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

static void cell(struct sbuf *b, const char *s, size_t w, bool last)
{
	static const char spaces[] = "                                                            ";
	size_t n = width(s);

	sb_puts(b, s);
	if (last)
		return;
	/* A cell wider than its column pushes the rest of its row, by one space at least. */
	n = n + 1 < w + 2 ? w + 2 - n : 1;
	while (n > 0) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;

		sb_put(b, spaces, k);
		n -= k;
	}
}

static void outcome_counts(FILE *out, const struct pmc_comparison *c, bool md)
{
	static const enum pmc_verdict order[] = {PMC_VERDICT_REGRESSION, PMC_VERDICT_IMPROVEMENT,
						 PMC_VERDICT_NO_CHANGE, PMC_VERDICT_INCONCLUSIVE};
	static const char *const plural[] = {"no change", "improvements", "regressions",
					     "inconclusive"};

	for (size_t i = 0; i < 4; i++) {
		enum pmc_verdict v = order[i];
		size_t n = c->counts[v];
		bool bold = md && n > 0 && v == PMC_VERDICT_REGRESSION;

		fprintf(out, "%s%s%zu %s%s", i ? ", " : "", bold ? "**" : "", n,
			n == 1 ? pmc_verdict_name(v) : plural[v], bold ? "**" : "");
	}
	if (c->nmissing)
		fprintf(out, ", %zu not compared", c->nmissing);
}

static void settings_line(FILE *out, const struct pmc_comparison *c)
{
	size_t tests = 0;

	for (size_t i = 0; i < c->nrows; i++)
		if (c->rows[i].kind == PMC_ROW_TESTED)
			tests++;
	fprintf(out,
		"Mann-Whitney U two-sided p, alpha=%g%s; change (HL): Hodges-Lehmann "
		"estimate of new/old with its %g%% CI (exact rows: new/old); ~: not significant",
		c->alpha, c->fdr && tests ? ", Benjamini-Hochberg over the tests" : "",
		c->confidence * 100);
	if (c->fdr && tests)
		fprintf(out, " (%zu tests; --no-fdr judges raw p)", tests);
}

static const char *outcome_name(int code)
{
	switch (code) {
	case 0:
		return "PASS";
	case 1:
		return "FAIL (regression)";
	case 3:
		return "FAIL (inconclusive)";
	default:
		return "ERROR";
	}
}

/* A warning the error line repeats word for word (a gate's limit that checked nothing)
 * is shown once, as the error. */
static bool same_as_error(const char *warning, const struct pmc_compare_report_opts *o)
{
	return o->error && strcmp(warning, o->error) == 0;
}

static const char *label(const char *name, const char *fallback)
{
	return name ? name : fallback;
}

static int report_table(FILE *out, const struct pmc_comparison *c,
			const struct pmc_compare_report_opts *o)
{
	const char *on = label(o->old_name, "old"), *nn = label(o->new_name, "new");
	struct sbuf b = {0};
	bool ok = true;

	if (!c) {
		fprintf(out, "error: %s\n", o->error);
		return 0;
	}
	for (size_t bi = 0; bi < c->nblocks && ok; bi++) {
		const struct pmc_cmp_block *blk = &c->blocks[bi];
		size_t wb = strlen("benchmark"), wo = 16, wn = 16, wt = 15, wl = 5, wc = 24;
		struct cells k;

		/* Name widths exactly; value columns at their usual width (a longer cell
		 * only pushes its own row), so the block is formatted in one pass. */
		for (size_t j = 0; j < blk->nrows; j++) {
			size_t w = width(c->rows[blk->rows[j]].bench);

			if (w > wb)
				wb = w < 60 ? w : 60;
		}
		if (width(on) > wo)
			wo = width(on);
		if (width(nn) > wn)
			wn = width(nn);
		sb_printf(&b, "%s%s [%s, %s]%s%s\n", bi ? "\n" : "", blk->metric,
			  blk->unit ? blk->unit : "count", better_text(blk->better),
			  blk->simulated ? " (simulated)" : "", blk->derived ? " (derived)" : "");
		cell(&b, "benchmark", wb, false);
		cell(&b, on, wo, false);
		cell(&b, nn, wn, false);
		/* The change is the Hodges-Lehmann estimate, not the ratio of the medians
		 * shown beside it; the header says so (docs/compare.md, "Reports"). */
		cell(&b, "change (HL)", wc, false);
		cell(&b, "test", wt, false);
		cell(&b, "limit", wl, false);
		cell(&b, "verdict", 0, true);
		sb_put(&b, "\n", 1);
		for (size_t j = 0; j < blk->nrows && ok; j++) {
			const struct pmc_cmp_row *row = &c->rows[blk->rows[j]];

			format_row(c, row, &k);
			cell(&b, row->bench, wb, false);
			cell(&b, k.old, wo, false);
			cell(&b, k.new, wn, false);
			cell(&b, k.change, wc, false);
			cell(&b, k.test, wt, false);
			cell(&b, k.limit, wl, false);
			cell(&b, k.verdict, 0, true);
			sb_put(&b, "\n", 1);
			if (b.len > 32768)
				ok = sb_flush(&b, out);
		}
		if (blk->geo_n) {
			char go[32], gn[32], gc[24], n[24];

			pmc_compare_format_value(blk->geo_old, blk->unit, go, sizeof(go));
			pmc_compare_format_value(blk->geo_new, blk->unit, gn, sizeof(gn));
			fmt_percent((blk->geo_ratio - 1) * 100, gc, sizeof(gc), true);
			snprintf(n, sizeof(n), "n=%zu", blk->geo_n);
			cell(&b, "geomean", wb, false);
			cell(&b, go, wo, false);
			cell(&b, gn, wn, false);
			cell(&b, gc, wc, false);
			cell(&b, n, wt, true);
			sb_put(&b, "\n", 1);
		}
	}
	sb_put(&b, "\n", 1);
	for (size_t i = 0; i < c->nwarnings; i++)
		if (!same_as_error(c->warnings[i], o))
			sb_printf(&b, "warning: %s\n", c->warnings[i]);
	if (o->error)
		sb_printf(&b, "error: %s\n", o->error);
	ok = ok && sb_flush(&b, out);
	free(b.p);
	if (!ok)
		return -EIO;
	if (o->gate || o->error)
		fprintf(out, "%s %s; ", o->gate ? "gate:" : "compare:",
			o->error ? "ERROR" : outcome_name(o->exit_code));
	outcome_counts(out, c, false);
	fputc('\n', out);
	settings_line(out, c);
	fputc('\n', out);
	return 0;
}

/* Markdown text with the characters that would break a table cell or start markup
 * escaped. */
static void md_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (strchr("|\\`*_[]<>#", *s))
			fputc('\\', out);
		if (*s == '\n' || *s == '\r')
			fputc(' ', out);
		else
			fputc(*s, out);
	}
}

static void md_row(FILE *out, const struct pmc_comparison *c, const struct pmc_cmp_row *row)
{
	struct cells k;
	bool bold = row->kind != PMC_ROW_MISSING && row->verdict == PMC_VERDICT_REGRESSION;

	format_row(c, row, &k);
	fputs("| ", out);
	md_text(out, row->bench);
	fprintf(out, " | %s | %s | %s%s%s | %s | %s | %s%s%s", k.old, k.new, bold ? "**" : "",
		k.change, bold ? "**" : "", k.test, k.limit, bold ? "**" : "", k.verdict,
		bold ? "**" : "");
	if (row->why && row->kind != PMC_ROW_MISSING)
		fprintf(out, " (%s)", row->why);
	fputs(" |\n", out);
}

static void md_header(FILE *out, const char *on, const char *nn)
{
	fputs("| benchmark | ", out);
	md_text(out, on);
	fputs(" | ", out);
	md_text(out, nn);
	fputs(" | change (HL) | test | limit | verdict |\n|---|--:|--:|--:|---|--:|---|\n", out);
}

static int report_markdown(FILE *out, const struct pmc_comparison *c,
			   const struct pmc_compare_report_opts *o)
{
	const char *on = label(o->old_name, "old"), *nn = label(o->new_name, "new");
	size_t max_changed = o->md_max_changed ? o->md_max_changed : 1000;
	size_t max_same = o->md_max_unchanged ? o->md_max_unchanged : 100;

	fprintf(out, "## pmcbench %s", o->gate ? "gate" : "compare");
	if (o->gate || o->error)
		fprintf(out, ": %s", o->error ? "ERROR" : outcome_name(o->exit_code));
	fputs("\n\n", out);
	fputs("`", out);
	fputs(on, out);
	fputs("` → `", out);
	fputs(nn, out);
	fputs("`\n\n", out);
	if (o->error) {
		fputs("**Error:** ", out);
		md_text(out, o->error);
		fputs("\n\n", out);
		if (!c)
			return 0;
	}
	outcome_counts(out, c, true);
	fprintf(out, " (%zu benchmark%s in both", c->ncommon, c->ncommon == 1 ? "" : "s");
	if (c->nonly_old || c->nonly_new)
		fprintf(out, "; %zu only in %s, %zu only in %s", c->nonly_old, on, c->nonly_new,
			nn);
	fputs(").\n", out);
	if (c->nwarnings) {
		fputs("\n", out);
		for (size_t i = 0; i < c->nwarnings; i++) {
			if (same_as_error(c->warnings[i], o))
				continue;
			fputs("> **Warning:** ", out);
			md_text(out, c->warnings[i]);
			fputs("\n>\n", out);
		}
	}
	for (size_t bi = 0; bi < c->nblocks; bi++) {
		const struct pmc_cmp_block *b = &c->blocks[bi];
		size_t nchanged = 0, nsame = 0, shown;

		fprintf(out, "\n### %s (%s, %s)%s%s\n\n", b->metric, b->unit ? b->unit : "count",
			better_text(b->better), b->simulated ? " — simulated" : "",
			b->derived ? " — derived" : "");
		for (size_t j = 0; j < b->nrows; j++) {
			const struct pmc_cmp_row *row = &c->rows[b->rows[j]];

			if (row->kind != PMC_ROW_MISSING && row->verdict == PMC_VERDICT_NO_CHANGE)
				nsame++;
			else
				nchanged++;
		}
		if (nchanged) {
			md_header(out, on, nn);
			shown = 0;
			for (size_t j = 0; j < b->nrows && shown < max_changed; j++) {
				const struct pmc_cmp_row *row = &c->rows[b->rows[j]];

				if (row->kind != PMC_ROW_MISSING &&
				    row->verdict == PMC_VERDICT_NO_CHANGE)
					continue;
				md_row(out, c, row);
				shown++;
			}
			if (nchanged > shown)
				fprintf(out, "| … %zu more (see the JSON report) | | | | | | |\n",
					nchanged - shown);
		}
		if (b->geo_n) {
			char go[32], gn[32], gc[24];

			if (!nchanged)
				md_header(out, on, nn);
			pmc_compare_format_value(b->geo_old, b->unit, go, sizeof(go));
			pmc_compare_format_value(b->geo_new, b->unit, gn, sizeof(gn));
			fmt_percent((b->geo_ratio - 1) * 100, gc, sizeof(gc), true);
			fprintf(out, "| **geomean** | %s | %s | %s | n=%zu | | |\n", go, gn, gc,
				b->geo_n);
		}
		if (nsame) {
			fprintf(out,
				"\n<details><summary>%zu benchmark%s without change</summary>"
				"\n\n",
				nsame, nsame == 1 ? "" : "s");
			md_header(out, on, nn);
			shown = 0;
			for (size_t j = 0; j < b->nrows && shown < max_same; j++) {
				const struct pmc_cmp_row *row = &c->rows[b->rows[j]];

				if (row->kind == PMC_ROW_MISSING ||
				    row->verdict != PMC_VERDICT_NO_CHANGE)
					continue;
				md_row(out, c, row);
				shown++;
			}
			if (nsame > shown)
				fprintf(out, "| … %zu more (see the JSON report) | | | | | | |\n",
					nsame - shown);
			fputs("\n</details>\n", out);
		}
	}
	fputs("\n<sub>", out);
	settings_line(out, c);
	fputs("</sub>\n", out);
	return 0;
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static void sb_side(struct sbuf *b, const char *key, const struct pmc_summary *s, bool have)
{
	sb_printf(b, ",\"%s\":", key);
	if (!have) {
		sb_puts(b, "null");
		return;
	}
	sb_printf(b, "{\"n\":%zu,\"median\":", s->n);
	sb_json_num(b, s->median, true);
	sb_puts(b, ",\"ci_lo\":");
	sb_json_num(b, s->has_ci ? s->ci_lo : NAN, true);
	sb_puts(b, ",\"ci_hi\":");
	sb_json_num(b, s->has_ci ? s->ci_hi : NAN, true);
	sb_puts(b, ",\"min\":");
	sb_json_num(b, s->min, true);
	sb_puts(b, ",\"max\":");
	sb_json_num(b, s->max, true);
	sb_puts(b, ",\"mean\":");
	sb_json_num(b, s->mean, false);
	sb_puts(b, "}");
}

static const char *const kind_names[] = {"tested", "exact", "missing"};

/* One row as a JSON object (docs/compare.md, "JSON report"). */
static void sb_row(struct sbuf *b, const struct pmc_cmp_row *row)
{
	const struct pmc_threshold *th = row->threshold;
	static const struct {
		const char *key;
		size_t off;
		bool measured;
	} nums[] = {
	    {"ratio", offsetof(struct pmc_cmp_row, ratio), false},
	    {"ratio_lo", offsetof(struct pmc_cmp_row, ratio_lo), false},
	    {"ratio_hi", offsetof(struct pmc_cmp_row, ratio_hi), false},
	    {"diff", offsetof(struct pmc_cmp_row, diff), true},
	    {"p", offsetof(struct pmc_cmp_row, p), false},
	    {"q", offsetof(struct pmc_cmp_row, q), false},
	};

	sb_puts(b, "{\"benchmark\":");
	sb_json_str(b, row->bench);
	if (row->old_bench && strcmp(row->old_bench, row->bench) != 0) {
		sb_puts(b, ",\"old_benchmark\":");
		sb_json_str(b, row->old_bench);
	}
	sb_printf(b, ",\"kind\":\"%s\"", kind_names[row->kind]);
	if (row->kind == PMC_ROW_MISSING)
		sb_printf(b, ",\"missing\":\"%s\"", row->missing_old ? "old" : "new");
	sb_side(b, "old", &row->old, row->has_old);
	sb_side(b, "new", &row->new, row->has_new);
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		sb_printf(b, ",\"%s\":", nums[i].key);
		sb_json_num(b, *(const double *)((const char *)row + nums[i].off),
			    nums[i].measured);
	}
	sb_printf(b, ",\"significant\":%s,\"testable\":%s,\"threshold\":",
		  row->significant ? "true" : "false", row->testable ? "true" : "false");
	if (th) {
		sb_puts(b, "{\"text\":");
		sb_json_str(b, th->text);
		sb_printf(b, ",\"absolute\":%s,\"limit\":", th->absolute ? "true" : "false");
		sb_json_num(b, th->limit, true);
		sb_printf(b, ",\"regression\":\"%s\"}", row->bad > 0 ? "increase" : "decrease");
	} else {
		sb_puts(b, "null");
	}
	sb_printf(b, ",\"verdict\":\"%s\",\"why\":",
		  row->kind == PMC_ROW_MISSING ? "not compared" : pmc_verdict_name(row->verdict));
	if (row->why)
		sb_json_str(b, row->why);
	else
		sb_puts(b, "null");
	sb_puts(b, "}");
}

static json_t *jcounts(const size_t *counts, size_t missing)
{
	return json_pack(
	    "{s:I s:I s:I s:I s:I}", "regression", (json_int_t)counts[PMC_VERDICT_REGRESSION],
	    "improvement", (json_int_t)counts[PMC_VERDICT_IMPROVEMENT], "no change",
	    (json_int_t)counts[PMC_VERDICT_NO_CHANGE], "inconclusive",
	    (json_int_t)counts[PMC_VERDICT_INCONCLUSIVE], "not compared", (json_int_t)missing);
}

/* Writes "key": value, taking the reference of value. */
static int jwrite(FILE *out, const char *key, json_t *value, bool comma)
{
	json_t *k = json_string(key);
	int r = 0;

	if (!k || !value) {
		json_decref(k);
		json_decref(value);
		return -ENOMEM;
	}
	if (comma)
		fputs(",\n  ", out);
	if (json_dumpf(k, out, JSON_ENCODE_ANY) < 0)
		r = -EIO;
	fputs(": ", out);
	if (r == 0 && json_dumpf(value, out, JSON_ENCODE_ANY | JSON_COMPACT) < 0)
		r = -EIO;
	json_decref(k);
	json_decref(value);
	return r;
}

static const char *outcome_word(int code)
{
	switch (code) {
	case 0:
		return "pass";
	case 1:
		return "regression";
	case 3:
		return "inconclusive";
	default:
		return "error";
	}
}

static int report_json(FILE *out, const struct pmc_comparison *c,
		       const struct pmc_compare_report_opts *o)
{
	struct sbuf sb = {0};
	int r;

	fputs("{\n  ", out);
	r = jwrite(out, "schema", json_string(PMC_COMPARE_SCHEMA), false);
	if (r == 0)
		r = jwrite(out, "old", o->old_name ? json_string(o->old_name) : json_null(), true);
	if (r == 0)
		r = jwrite(out, "new", o->new_name ? json_string(o->new_name) : json_null(), true);
	if (r == 0)
		r = jwrite(out, "command", json_string(o->gate ? "gate" : "compare"), true);
	if (r == 0)
		r = jwrite(out, "outcome",
			   o->error ? json_string("error")
				    : json_string(outcome_word(o->gate ? o->exit_code : 0)),
			   true);
	if (r == 0)
		r = jwrite(out, "exit_code", json_integer(o->error ? 2 : o->exit_code), true);
	if (r == 0)
		r = jwrite(out, "error", o->error ? json_string(o->error) : json_null(), true);
	if (r < 0 || !c)
		goto end;
	r = jwrite(out, "settings",
		   json_pack("{s:f s:f s:b}", "alpha", c->alpha, "confidence", c->confidence, "fdr",
			     c->fdr),
		   true);
	if (r == 0)
		r = jwrite(out, "counts", jcounts(c->counts, c->nmissing), true);
	if (r == 0)
		r = jwrite(out, "benchmarks",
			   json_pack("{s:I s:I s:I}", "common", (json_int_t)c->ncommon, "only_old",
				     (json_int_t)c->nonly_old, "only_new",
				     (json_int_t)c->nonly_new),
			   true);
	if (r == 0) {
		json_t *w = json_array();

		for (size_t i = 0; w && i < c->nwarnings; i++)
			json_array_append_new(w, json_string(c->warnings[i]));
		r = jwrite(out, "warnings", w, true);
	}
	if (r < 0)
		goto end;
	fputs(",\n  \"metrics\": [", out);
	for (size_t bi = 0; bi < c->nblocks && r == 0; bi++) {
		const struct pmc_cmp_block *b = &c->blocks[bi];
		json_t *head;

		head = json_pack("{s:s s:s s:s s:b s:b s:o s:o}", "id", b->metric, "unit",
				 b->unit ? b->unit : "count", "better",
				 b->better == PMC_HIGHER_IS_BETTER ? "higher" : "lower",
				 "simulated", b->simulated, "derived", b->derived, "counts",
				 jcounts(b->counts, b->nmissing), "geomean",
				 json_pack("{s:I s:o s:o s:o}", "n", (json_int_t)b->geo_n, "old",
					   jnum(b->geo_old), "new", jnum(b->geo_new), "ratio",
					   jnum(b->geo_ratio)));
		if (!head) {
			r = -ENOMEM;
			break;
		}
		/* Each block's object is written without its closing brace so that the rows
		 * can stream in one by one. */
		{
			char *text = json_dumps(head, JSON_COMPACT);
			size_t len;

			json_decref(head);
			if (!text) {
				r = -ENOMEM;
				break;
			}
			len = strlen(text);
			fprintf(out, "%s\n    %.*s, \"rows\": [", bi ? "," : "", (int)(len - 1),
				text);
			free(text);
		}
		for (size_t j = 0; j < b->nrows && r == 0; j++) {
			sb_puts(&sb, j ? ",\n      " : "\n      ");
			sb_row(&sb, &c->rows[b->rows[j]]);
			if (sb.len > 32768 && !sb_flush(&sb, out))
				r = sb.oom ? -ENOMEM : -EIO;
		}
		sb_puts(&sb, "]}");
		if (r == 0 && !sb_flush(&sb, out))
			r = sb.oom ? -ENOMEM : -EIO;
	}
	fputs("\n  ]", out);
end:
	fputs("\n}\n", out);
	free(sb.p);
	return r;
}

int pmc_compare_report(FILE *out, enum pmc_compare_format format, const struct pmc_comparison *c,
		       const struct pmc_compare_report_opts *o)
{
	static const struct pmc_compare_report_opts defaults = {0};
	int r;

	if (!out)
		return -EINVAL;
	if (!o)
		o = &defaults;
	if (!c && !o->error)
		return -EINVAL;
	switch (format) {
	case PMC_COMPARE_TABLE:
		r = report_table(out, c, o);
		break;
	case PMC_COMPARE_MARKDOWN:
		r = report_markdown(out, c, o);
		break;
	case PMC_COMPARE_JSON:
		r = report_json(out, c, o);
		break;
	default:
		return -EINVAL;
	}
	if (r == 0 && (fflush(out) != 0 || ferror(out)))
		r = -EIO;
	return r;
}

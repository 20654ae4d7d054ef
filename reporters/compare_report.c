/* Comparison reports: a benchstat-like table, Markdown and JSON. Rows are formatted one
 * at a time and written at once, so that a comparison of 100,000 rows is reported in
 * one pass without holding its text in memory. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compare.h"
#include "compare_report.h"
#include "metrics.h"

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

static const char *si_prefix(double *v, const char *const *prefixes, size_t n, double step)
{
	size_t i = 0;

	while (i + 1 < n && fabs(*v) >= step * 0.9995) {
		*v /= step;
		i++;
	}
	return prefixes[i];
}

char *pmc_compare_format_value(double v, const char *unit, char *buf, size_t len)
{
	static const char *const si[] = { "", "k", "M", "G", "T", "P" };
	static const char *const bin[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	static const char *const t[] = { "ns", "us", "ms", "s" };
	const char *p;

	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	if (!unit || strcmp(unit, "count") == 0) {
		p = si_prefix(&v, si, sizeof(si) / sizeof(si[0]), 1000.0);
		snprintf(buf, len, "%.4g%s", v, p);
	} else if (strcmp(unit, "ns") == 0) {
		p = si_prefix(&v, t, sizeof(t) / sizeof(t[0]), 1000.0);
		snprintf(buf, len, "%.4g%s", v, p);
	} else if (strcmp(unit, "bytes") == 0) {
		p = si_prefix(&v, bin, sizeof(bin) / sizeof(bin[0]), 1024.0);
		snprintf(buf, len, "%.4g%s", v, p);
	} else if (strcmp(unit, "ratio") == 0) {
		snprintf(buf, len, "%.3f", v);
	} else if (strcmp(unit, "percent") == 0) {
		snprintf(buf, len, "%.3g%%", v);
	} else {
		snprintf(buf, len, "%.4g %s", v, unit);
	}
	return buf;
}

static void fmt_percent(double pct, char *buf, size_t len, bool sign)
{
	double a = fabs(pct);

	if (a >= 100)
		snprintf(buf, len, sign ? "%+.0f%%" : "%.0f%%", pct);
	else if (a >= 10)
		snprintf(buf, len, sign ? "%+.1f%%" : "%.1f%%", pct);
	else
		snprintf(buf, len, sign ? "%+.2f%%" : "%.2f%%", pct);
}

/* "1.235M ± 2%": the median and the larger half of its CI, relative to it. */
static void fmt_side(const struct pmc_summary *s, bool have, const char *unit, bool exact,
		     char *buf, size_t len)
{
	char v[32], w[32];

	if (!have) {
		snprintf(buf, len, "no value");
		return;
	}
	pmc_compare_format_value(s->median, unit, v, sizeof(v));
	if (exact) {
		snprintf(buf, len, "%s", v);
	} else if (!s->has_ci) {
		snprintf(buf, len, "%s ± ∞", v);
	} else {
		double half = fmax(s->ci_hi - s->median, s->median - s->ci_lo);

		if (s->median != 0)
			fmt_percent(half / fabs(s->median) * 100, w, sizeof(w), false);
		else
			pmc_compare_format_value(half, unit, w, sizeof(w));
		snprintf(buf, len, "%s ± %s", v, w);
	}
}

struct cells {
	char old[80], new[80], change[160], test[64], limit[40];
	const char *verdict;
};

static void fmt_change(const struct pmc_cmp_row *row, const char *unit, char *buf, size_t len)
{
	char a[24], b[24], d[40] = "";

	if (row->threshold && row->threshold->absolute) {
		char v[32];

		pmc_compare_format_value(row->diff, unit, v, sizeof(v));
		snprintf(d, sizeof(d), " (%s%s)", row->diff > 0 ? "+" : "", v);
	}
	if (row->kind == PMC_ROW_MISSING) {
		snprintf(buf, len, "-");
	} else if (row->kind == PMC_ROW_EXACT) {
		if (row->diff == 0) {
			snprintf(buf, len, "0%% (exact)");
		} else if (isnan(row->ratio)) {
			snprintf(buf, len, "from 0 (exact)%s", d);
		} else {
			fmt_percent((row->ratio - 1) * 100, a, sizeof(a), true);
			snprintf(buf, len, "%s (exact)%s", a, d);
		}
	} else if (!row->significant) {
		snprintf(buf, len, "~");
	} else if (isnan(row->ratio)) {
		snprintf(buf, len, "? (values <= 0)%s", d);
	} else {
		fmt_percent((row->ratio - 1) * 100, a, sizeof(a), true);
		if (isnan(row->ratio_lo)) {
			snprintf(buf, len, "%s (no CI)%s", a, d);
		} else {
			char lo[24];

			fmt_percent((row->ratio_lo - 1) * 100, lo, sizeof(lo), true);
			fmt_percent((row->ratio_hi - 1) * 100, b, sizeof(b), true);
			snprintf(buf, len, "%s [%s, %s]%s", a, lo, b, d);
		}
	}
}

static void fmt_p(double p, char *buf, size_t len)
{
	if (p < 0.001)
		snprintf(buf, len, "p<0.001");
	else
		snprintf(buf, len, "p=%.3f", p);
}

static void format_row(const struct pmc_comparison *c, const struct pmc_cmp_row *row,
		       struct cells *out)
{
	const struct pmc_cmp_block *b = &c->blocks[row->block];
	bool exact = row->kind == PMC_ROW_EXACT;
	size_t na = row->has_old ? row->old.n : 0, nn = row->has_new ? row->new.n : 0;

	fmt_side(&row->old, row->has_old, b->unit, exact, out->old, sizeof(out->old));
	fmt_side(&row->new, row->has_new, b->unit, exact, out->new, sizeof(out->new));
	fmt_change(row, b->unit, out->change, sizeof(out->change));
	if (row->kind == PMC_ROW_TESTED) {
		char p[16];

		fmt_p(row->p, p, sizeof(p));
		snprintf(out->test, sizeof(out->test), "%s n=%zu+%zu", p, na, nn);
	} else if (exact) {
		snprintf(out->test, sizeof(out->test), "exact n=%zu+%zu", na, nn);
	} else {
		snprintf(out->test, sizeof(out->test), "n=%zu+%zu", na, nn);
	}
	if (row->threshold)
		snprintf(out->limit, sizeof(out->limit), "%s", row->threshold->text);
	else
		snprintf(out->limit, sizeof(out->limit), "-");
	out->verdict = row->kind == PMC_ROW_MISSING ? "not compared" : pmc_verdict_name(row->verdict);
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

static void cell(FILE *out, const char *s, size_t w, bool last)
{
	size_t n = width(s);

	fputs(s, out);
	if (last)
		return;
	/* A cell wider than its column pushes the rest of its row, by one space at least. */
	do
		fputc(' ', out);
	while (++n < w + 2);
}

static void outcome_counts(FILE *out, const struct pmc_comparison *c, bool md)
{
	static const enum pmc_verdict order[] = { PMC_VERDICT_REGRESSION, PMC_VERDICT_IMPROVEMENT,
						  PMC_VERDICT_NO_CHANGE,
						  PMC_VERDICT_INCONCLUSIVE };
	static const char *const plural[] = { "no change", "improvements", "regressions",
					      "inconclusive" };

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
	fprintf(out, "Mann-Whitney U two-sided p, alpha=%g%s; change: Hodges-Lehmann ratio "
		"with %g%% CI; ~: not significant",
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

static const char *label(const char *name, const char *fallback)
{
	return name ? name : fallback;
}

static int report_table(FILE *out, const struct pmc_comparison *c,
			const struct pmc_compare_report_opts *o)
{
	const char *on = label(o->old_name, "old"), *nn = label(o->new_name, "new");

	if (!c) {
		fprintf(out, "error: %s\n", o->error);
		return 0;
	}
	for (size_t bi = 0; bi < c->nblocks; bi++) {
		const struct pmc_cmp_block *b = &c->blocks[bi];
		size_t wb = strlen("benchmark"), wo = 16, wn = 16, wt = 15, wl = 5;
		struct cells k;
		char go[32], gn[32], gc[24];

		/* Name widths exactly; value columns at their usual width (a longer cell
		 * only pushes its own row), so the block is formatted in one pass. */
		for (size_t j = 0; j < b->nrows; j++) {
			size_t w = width(c->rows[b->rows[j]].bench);

			if (w > wb)
				wb = w < 60 ? w : 60;
		}
		if (width(on) > wo)
			wo = width(on);
		if (width(nn) > wn)
			wn = width(nn);
		fprintf(out, "%s%s [%s, %s]%s%s\n", bi ? "\n" : "", b->metric,
			b->unit ? b->unit : "count", better_text(b->better),
			b->simulated ? " (simulated)" : "", b->derived ? " (derived)" : "");
		cell(out, "benchmark", wb, false);
		cell(out, on, wo, false);
		cell(out, nn, wn, false);
		cell(out, "change", 24, false);
		cell(out, "test", wt, false);
		cell(out, "limit", wl, false);
		cell(out, "verdict", 0, true);
		fputc('\n', out);
		for (size_t j = 0; j < b->nrows; j++) {
			const struct pmc_cmp_row *row = &c->rows[b->rows[j]];

			format_row(c, row, &k);
			cell(out, row->bench, wb, false);
			cell(out, k.old, wo, false);
			cell(out, k.new, wn, false);
			cell(out, k.change, 24, false);
			cell(out, k.test, wt, false);
			cell(out, k.limit, wl, false);
			cell(out, k.verdict, 0, true);
			fputc('\n', out);
		}
		if (b->geo_n) {
			char n[24];

			pmc_compare_format_value(b->geo_old, b->unit, go, sizeof(go));
			pmc_compare_format_value(b->geo_new, b->unit, gn, sizeof(gn));
			fmt_percent((b->geo_ratio - 1) * 100, gc, sizeof(gc), true);
			snprintf(n, sizeof(n), "n=%zu", b->geo_n);
			cell(out, "geomean", wb, false);
			cell(out, go, wo, false);
			cell(out, gn, wn, false);
			cell(out, gc, 24, false);
			cell(out, n, wt, true);
			fputc('\n', out);
		}
	}
	fputc('\n', out);
	for (size_t i = 0; i < c->nwarnings; i++)
		fprintf(out, "warning: %s\n", c->warnings[i]);
	if (o->error)
		fprintf(out, "error: %s\n", o->error);
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
	fputs(" | change | test | limit | verdict |\n|---|--:|--:|--:|---|--:|---|\n", out);
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
	fprintf(out, " (%zu benchmarks in both", c->ncommon);
	if (c->nonly_old || c->nonly_new)
		fprintf(out, "; %zu only in %s, %zu only in %s", c->nonly_old, on, c->nonly_new,
			nn);
	fputs(").\n", out);
	if (c->nwarnings) {
		fputs("\n", out);
		for (size_t i = 0; i < c->nwarnings; i++) {
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
			fprintf(out, "\n<details><summary>%zu benchmark%s without change</summary>"
				"\n\n", nsame, nsame == 1 ? "" : "s");
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

/* A JSON number, or null where there is none: the report never holds NaN. */
static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jside(const struct pmc_summary *s, bool have)
{
	if (!have)
		return json_null();
	return json_pack("{s:I s:o s:o s:o s:o s:o s:o}", "n", (json_int_t)s->n, "median",
			 jnum(s->median), "ci_lo", s->has_ci ? jnum(s->ci_lo) : json_null(),
			 "ci_hi", s->has_ci ? jnum(s->ci_hi) : json_null(), "min", jnum(s->min),
			 "max", jnum(s->max), "mean", jnum(s->mean));
}

static const char *const kind_names[] = { "tested", "exact", "missing" };

static json_t *jrow(const struct pmc_comparison *c, const struct pmc_cmp_row *row)
{
	const struct pmc_threshold *th = row->threshold;
	json_t *o, *t = json_null();

	if (th)
		t = json_pack("{s:s s:b s:f s:s}", "text", th->text, "absolute", th->absolute,
			      "limit", th->limit, "regression", row->bad > 0 ? "increase" : "decrease");
	o = json_pack("{s:s s:s s:o s:o s:o s:o s:o s:o s:o s:o s:o s:b s:b s:o s:s s:o}",
		      "benchmark", row->bench, "kind", kind_names[row->kind], "old",
		      jside(&row->old, row->has_old), "new", jside(&row->new, row->has_new),
		      "ratio", jnum(row->ratio), "ratio_lo", jnum(row->ratio_lo), "ratio_hi",
		      jnum(row->ratio_hi), "change_pct", jnum((row->ratio - 1) * 100), "diff",
		      jnum(row->diff), "p", jnum(row->p), "q", jnum(row->q), "significant",
		      row->significant, "testable", row->testable, "threshold", t ? t : json_null(),
		      "verdict",
		      row->kind == PMC_ROW_MISSING ? "not compared" : pmc_verdict_name(row->verdict),
		      "why", row->why ? json_string(row->why) : json_null());
	if (o && row->old_bench && strcmp(row->old_bench, row->bench) != 0)
		json_object_set_new(o, "old_benchmark", json_string(row->old_bench));
	if (o && row->kind == PMC_ROW_MISSING)
		json_object_set_new(o, "missing", json_string(row->missing_old ? "old" : "new"));
	(void)c;
	return o;
}

static json_t *jcounts(const size_t *counts, size_t missing)
{
	return json_pack("{s:I s:I s:I s:I s:I}", "regression",
			 (json_int_t)counts[PMC_VERDICT_REGRESSION], "improvement",
			 (json_int_t)counts[PMC_VERDICT_IMPROVEMENT], "no change",
			 (json_int_t)counts[PMC_VERDICT_NO_CHANGE], "inconclusive",
			 (json_int_t)counts[PMC_VERDICT_INCONCLUSIVE], "not compared",
			 (json_int_t)missing);
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
		   json_pack("{s:f s:f s:b}", "alpha", c->alpha, "confidence", c->confidence,
			     "fdr", c->fdr),
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
			fprintf(out, "%s\n    %.*s, \"rows\": [", bi ? "," : "", (int)(len - 1), text);
			free(text);
		}
		for (size_t j = 0; j < b->nrows; j++) {
			json_t *row = jrow(c, &c->rows[b->rows[j]]);

			if (!row) {
				r = -ENOMEM;
				break;
			}
			fputs(j ? ",\n      " : "\n      ", out);
			if (json_dumpf(row, out, JSON_COMPACT) < 0)
				r = -EIO;
			json_decref(row);
		}
		fputs("]}", out);
	}
	fputs("\n  ]", out);
end:
	fputs("\n}\n", out);
	return r;
}

int pmc_compare_report(FILE *out, enum pmc_compare_format format, const struct pmc_comparison *c,
		       const struct pmc_compare_report_opts *o)
{
	static const struct pmc_compare_report_opts defaults = { 0 };
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

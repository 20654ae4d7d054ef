/* The change points of a history as a table, Markdown or JSON (changes.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "base/error.h"
#include "formats/json_out.h"
#include "reporters/changes.h"
#include "reporters/escape.h"
#include "reporters/format.h"

void pmc_changes_text(const struct pmc_changepoint *cp, char *buf, size_t len)
{
	char a[32], b[32], c[32];

	if (!isfinite(cp->ratio)) {
		snprintf(buf, len, "-");
		return;
	}
	pmc_fmt_percent((cp->ratio - 1) * 100, true, a, sizeof(a));
	if (isfinite(cp->ratio_lo) && isfinite(cp->ratio_hi)) {
		pmc_fmt_percent((cp->ratio_lo - 1) * 100, true, b, sizeof(b));
		pmc_fmt_percent((cp->ratio_hi - 1) * 100, true, c, sizeof(c));
		snprintf(buf, len, "%s [%s, %s]", a, b, c);
	} else {
		snprintf(buf, len, "%s", a);
	}
}

static const char *way_name(enum pmc_cp_way w)
{
	return w == PMC_CP_REGRESSION	 ? "regression"
	       : w == PMC_CP_IMPROVEMENT ? "improvement"
					 : "none";
}

/* "c017..c018": the commits the change lies between, each cut to 12 characters. */
static void commit_range(const struct pmc_change_row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%.12s..%.12s", r->commit_before ? r->commit_before : "?",
		 r->commit ? r->commit : "?");
}

/* "3 change points", "1 new change point": the count and what it counts. */
static void count_text(const struct pmc_changes *c, char *buf, size_t len)
{
	snprintf(buf, len, "%zu %schange point%s", c->n, c->new_since ? "new " : "",
		 c->n == 1 ? "" : "s");
}

/* What the selection keeps, "regressions only, at least 2.00%", or "" for everything. */
static void select_text(const struct pmc_changes *c, char *buf, size_t len)
{
	char pct[32];
	bool reg = c->select.regressions_only, min = c->select.min_change > 0;

	pmc_fmt_percent(c->select.min_change, false, pct, sizeof(pct));
	snprintf(buf, len, "%s%s%s%s", reg ? "regressions only" : "", reg && min ? ", " : "",
		 min ? "at least " : "", min ? pct : "");
}

static void table_row(FILE *out, const struct pmc_change_row *r)
{
	char range[40], change[128], b1[PMC_FMT_MAX], b2[PMC_FMT_MAX];
	char q1[PMC_QUOTE_SIZE(64)], q2[PMC_QUOTE_SIZE(64)], q3[PMC_QUOTE_SIZE(64)];

	commit_range(r, range, sizeof(range));
	pmc_changes_text(&r->cp, change, sizeof(change));
	pmc_fmt_short(r->cp.before, r->unit, b1, sizeof(b1));
	pmc_fmt_short(r->cp.after, r->unit, b2, sizeof(b2));
	fprintf(out, "%-24s  %-16s  %-12s  %-26s  %-20s  %-28s  %-10s  %-10s  %.2g\n",
		pmc_quote(q1, sizeof(q1), r->benchmark), pmc_quote(q2, sizeof(q2), r->metric),
		pmc_quote(q3, sizeof(q3), r->machine ? r->machine : "-"), range, r->measured,
		change, b1, b2, r->cp.p);
}

int pmc_changes_table(FILE *out, const struct pmc_changes *c)
{
	char count[64], sel[96], q1[PMC_QUOTE_SIZE(64)];
	size_t nreg = pmc_changes_regressions(c);

	fprintf(out, "%-24s  %-16s  %-12s  %-26s  %-20s  %-28s  %-10s  %-10s  %s\n", "benchmark",
		"metric", "machine", "commits", "measured", "change (95% interval)", "before",
		"after", "p");
	for (size_t i = 0; i < c->n; i++)
		table_row(out, &c->rows[i]);
	count_text(c, count, sizeof(count));
	select_text(c, sel, sizeof(sel));
	fputs(count, out);
	if (c->new_since)
		fprintf(out, " after %s", pmc_quote(q1, sizeof(q1), c->new_since));
	fprintf(out, " in %zu series of %s", c->nseries, c->store);
	if (sel[0])
		fprintf(out, " (%s)", sel);
	if (c->new_since)
		fprintf(out, ": %zu regression%s", nreg, nreg == 1 ? "" : "s");
	fputc('\n', out);
	for (size_t i = 0; i < c->ngone; i++) {
		const struct pmc_withdrawn_row *g = &c->gone[i];
		char q2[PMC_QUOTE_SIZE(64)], q3[PMC_QUOTE_SIZE(64)];

		fprintf(out,
			"withdrawn: %s %s (%s): the change at %.12s..%.12s, reported at %.12s, "
			"is gone since %.12s (%s): p=%.2g with every point since\n",
			pmc_quote(q1, sizeof(q1), g->benchmark),
			pmc_quote(q2, sizeof(q2), g->metric),
			pmc_quote(q3, sizeof(q3), g->machine ? g->machine : "-"),
			g->commit_before ? g->commit_before : "?", g->commit ? g->commit : "?",
			g->reported_at ? g->reported_at : "?",
			g->withdrawn_at ? g->withdrawn_at : "?", g->withdrawn_measured, g->w.p);
	}
	return 0;
}

/* The verdict, first: what a pull request's reader needs before the table. */
static void markdown_verdict(FILE *out, const struct pmc_changes *c)
{
	size_t nreg = pmc_changes_regressions(c);
	char count[64];

	count_text(c, count, sizeof(count));
	if (!c->new_since) {
		fprintf(out, "**%s** in %zu series of ", count, c->nseries);
		pmc_escape_md_code(out, c->store);
		fputs("\n\n", out);
		return;
	}
	if (nreg)
		fprintf(out, "**Regression: %zu new regression%s** after ", nreg,
			nreg == 1 ? "" : "s");
	else
		fputs("**Pass: no new regression** after ", out);
	pmc_escape_md_code(out, c->new_since);
	fprintf(out, " (%s in %zu series of ", count, c->nseries);
	pmc_escape_md_code(out, c->store);
	fputs(")\n\n", out);
}

int pmc_changes_markdown(FILE *out, const struct pmc_changes *c)
{
	char sel[96];

	markdown_verdict(out, c);
	if (c->n)
		fputs("| benchmark | metric | machine | backend | commits | measured | change (95% "
		      "interval) | before | after | way |\n"
		      "|---|---|---|---|---|---|---|---|---|---|\n",
		      out);
	for (size_t i = 0; i < c->n; i++) {
		const struct pmc_change_row *r = &c->rows[i];
		char range[40], change[128], b1[PMC_FMT_MAX], b2[PMC_FMT_MAX];

		commit_range(r, range, sizeof(range));
		pmc_changes_text(&r->cp, change, sizeof(change));
		pmc_fmt_short(r->cp.before, r->unit, b1, sizeof(b1));
		pmc_fmt_short(r->cp.after, r->unit, b2, sizeof(b2));
		const char *cells[] = {r->benchmark, r->metric, r->machine ? r->machine : "-",
				       r->backend ? r->backend : "-"};
		for (size_t k = 0; k < sizeof(cells) / sizeof(cells[0]); k++) {
			fputs("| ", out);
			pmc_escape_md(out, cells[k]);
			fputc(' ', out);
		}
		fputs("| ", out);
		pmc_escape_md_code(out, range);
		fputs(" | ", out);
		pmc_escape_md(out, r->measured);
		fputs(" | ", out);
		pmc_escape_md(out, change);
		fputs(" | ", out);
		pmc_escape_md(out, b1);
		fputs(" | ", out);
		pmc_escape_md(out, b2);
		fprintf(out, " | %s |\n", way_name(r->way));
	}
	select_text(c, sel, sizeof(sel));
	if (sel[0])
		fprintf(out, "%sSelected: %s.\n", c->n ? "\n" : "", sel);
	if (c->ngone)
		fputs("\nWithdrawn since they were reported (the points after them show no "
		      "difference):\n\n",
		      out);
	for (size_t i = 0; i < c->ngone; i++) {
		const struct pmc_withdrawn_row *g = &c->gone[i];
		char range[40];

		snprintf(range, sizeof(range), "%.12s..%.12s",
			 g->commit_before ? g->commit_before : "?", g->commit ? g->commit : "?");
		fputs("- ", out);
		pmc_escape_md(out, g->benchmark);
		fputc(' ', out);
		pmc_escape_md(out, g->metric);
		fputs(" at ", out);
		pmc_escape_md_code(out, range);
		fputs(", reported at ", out);
		pmc_escape_md_code(out, g->reported_at ? g->reported_at : "?");
		fputs(", gone since ", out);
		pmc_escape_md_code(out, g->withdrawn_at ? g->withdrawn_at : "?");
		fprintf(out, " (p=%.2g)\n", g->w.p);
	}
	return 0;
}

static json_t *changes_jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *row_json(const struct pmc_change_row *r)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	json_object_set_new(o, "benchmark", pmc_json_str_or_null(r->benchmark));
	json_object_set_new(o, "metric", pmc_json_str_or_null(r->metric));
	json_object_set_new(o, "unit", pmc_json_str_or_null(r->unit));
	json_object_set_new(o, "machine", pmc_json_str_or_null(r->machine));
	json_object_set_new(o, "backend", pmc_json_str_or_null(r->backend));
	json_object_set_new(o, "fingerprint", pmc_json_str_or_null(r->fingerprint));
	json_object_set_new(o, "points", json_integer((json_int_t)r->points));
	json_object_set_new(o, "index", json_integer((json_int_t)r->cp.index));
	json_object_set_new(o, "first_index", json_integer((json_int_t)r->cp.first_index));
	json_object_set_new(o, "reported_with", json_integer((json_int_t)r->cp.reported_n));
	json_object_set_new(o, "entry", pmc_json_str_or_null(r->entry));
	json_object_set_new(o, "measured", json_string(r->measured));
	json_object_set_new(o, "commit_before", pmc_json_str_or_null(r->commit_before));
	json_object_set_new(o, "commit", pmc_json_str_or_null(r->commit));
	json_object_set_new(o, "branch", pmc_json_str_or_null(r->branch));
	json_object_set_new(o, "way", json_string(way_name(r->way)));
	json_object_set_new(o, "change_pct", changes_jnum(pmc_cp_size_pct(&r->cp)));
	json_object_set_new(o, "before", changes_jnum(r->cp.before));
	json_object_set_new(o, "after", changes_jnum(r->cp.after));
	json_object_set_new(o, "ratio", changes_jnum(r->cp.ratio));
	json_object_set_new(o, "ratio_lo", changes_jnum(r->cp.ratio_lo));
	json_object_set_new(o, "ratio_hi", changes_jnum(r->cp.ratio_hi));
	json_object_set_new(o, "p", changes_jnum(r->cp.p));
	json_object_set_new(o, "q", changes_jnum(r->cp.q));
	return o;
}

/* A withdrawn change point: where it was, when reported and when withdrawn. */
static json_t *gone_json(const struct pmc_withdrawn_row *g)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	json_object_set_new(o, "benchmark", pmc_json_str_or_null(g->benchmark));
	json_object_set_new(o, "metric", pmc_json_str_or_null(g->metric));
	json_object_set_new(o, "machine", pmc_json_str_or_null(g->machine));
	json_object_set_new(o, "index", json_integer((json_int_t)g->w.index));
	json_object_set_new(o, "first_index", json_integer((json_int_t)g->w.first_index));
	json_object_set_new(o, "reported_with", json_integer((json_int_t)g->w.reported_n));
	json_object_set_new(o, "withdrawn_with", json_integer((json_int_t)g->w.withdrawn_n));
	json_object_set_new(o, "commit_before", pmc_json_str_or_null(g->commit_before));
	json_object_set_new(o, "commit", pmc_json_str_or_null(g->commit));
	json_object_set_new(o, "reported_at", pmc_json_str_or_null(g->reported_at));
	json_object_set_new(o, "withdrawn_at", pmc_json_str_or_null(g->withdrawn_at));
	json_object_set_new(o, "withdrawn_measured", json_string(g->withdrawn_measured));
	json_object_set_new(o, "p", changes_jnum(g->w.p));
	return o;
}

int pmc_changes_json(FILE *out, const struct pmc_changes *c)
{
	json_t *doc = json_object(), *rows = json_array(), *gone;
	const char *verdict = pmc_changes_verdict(c);
	int r = -ENOMEM;

	if (!doc || !rows)
		goto out;
	json_object_set_new(doc, "schema", json_string("pmcbench-changes/1"));
	json_object_set_new(doc, "store", pmc_json_str_or_null(c->store));
	json_object_set_new(doc, "series", json_integer((json_int_t)c->nseries));
	json_object_set_new(doc, "new_since", pmc_json_str_or_null(c->new_since));
	json_object_set_new(doc, "regressions_only", json_boolean(c->select.regressions_only));
	json_object_set_new(doc, "min_change_pct", json_real(c->select.min_change));
	json_object_set_new(doc, "verdict", pmc_json_str_or_null(verdict));
	json_object_set_new(doc, "regressions",
			    json_integer((json_int_t)pmc_changes_regressions(c)));
	for (size_t i = 0; i < c->n; i++)
		if (json_array_append_new(rows, row_json(&c->rows[i])) < 0)
			goto out;
	json_object_set(doc, "changes", rows);
	if (!(gone = json_array()) || json_object_set_new(doc, "withdrawn", gone) < 0)
		goto out;
	for (size_t i = 0; i < c->ngone; i++)
		if (json_array_append_new(gone, gone_json(&c->gone[i])) < 0)
			goto out;
	r = pmc_json_dumpf(doc, out, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) < 0 ||
		    fputc('\n', out) == EOF
		? -EIO
		: 0;
out:
	json_decref(rows);
	json_decref(doc);
	return r;
}

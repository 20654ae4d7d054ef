/* JSON: a result as its result file (schema pmcbench-result/1, harness/3-formats), and a
 * comparison as the report of docs/compare.md, "JSON report" (schema pmcbench-compare/1).
 * Every value is encoded by jansson; the comparison is streamed a row at a time, so
 * that a report of 100,000 rows is never held in memory as one tree. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/compare.h"
#include "core/metrics.h"
#include "formats/json_out.h"
#include "formats/result_json.h"
#include "reporters/changes.h"
#include "reporters/compare_cells.h"
#include "reporters/points.h"
#include "reporters/reporter.h"

/* ---- A result --------------------------------------------------------------------- */

static int json_result(FILE *out, const struct pmc_result *r, const struct pmc_analysis *a,
		       const struct pmc_report_opts *o)
{
	char *text = NULL;
	int rc = pmc_result_dumps(r, a, &text);

	if (rc < 0)
		return rc;
	fputs(text, out);
	fputc('\n', out);
	free(text);
	return 0;
}

/* ---- A comparison ----------------------------------------------------------------- */

/* A number, null where there is none (a report never holds NaN). Integral values, which
 * counts and most medians are, are integers; measured values keep every digit, and
 * statistics of them (means, ratios, p-values) 10 significant digits. */
static json_t *jnum(double v, bool measured)
{
	char buf[32];

	if (!isfinite(v))
		return json_null();
	if (!measured && v != trunc(v)) {
		snprintf(buf, sizeof(buf), "%.10g", v);
		v = strtod(buf, NULL);
	}
	if (v == trunc(v) && fabs(v) < 1e15)
		return json_integer((json_int_t)v);
	return json_real(v);
}

/* A geometric mean: a real, with every digit. */
static json_t *jreal(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Sets key to value (taking its reference); false when either is missing. */
static bool jset(json_t *obj, const char *key, json_t *value)
{
	return value && json_object_set_new(obj, key, value) == 0;
}

static json_t *json_side(const struct pmc_summary *s, bool have)
{
	json_t *o;
	bool ok;

	if (!have)
		return json_null();
	o = json_object();
	ok = o && jset(o, "n", json_integer((json_int_t)s->n)) &&
	     jset(o, "median", jnum(s->median, true)) &&
	     jset(o, "ci_lo", jnum(s->has_ci ? s->ci_lo : NAN, true)) &&
	     jset(o, "ci_hi", jnum(s->has_ci ? s->ci_hi : NAN, true)) &&
	     jset(o, "min", jnum(s->min, true)) && jset(o, "max", jnum(s->max, true)) &&
	     jset(o, "mean", jnum(s->mean, false));
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *json_threshold(const struct pmc_cmp_row *row)
{
	const struct pmc_threshold *th = row->threshold;

	if (!th)
		return json_null();
	return json_pack("{s:s s:b s:o s:s}", "text", th->text, "absolute", th->absolute, "limit",
			 jnum(th->limit, true), "regression",
			 row->bad > 0	? "increase"
			 : row->bad < 0 ? "decrease"
					: "none");
}

static const char *const kind_names[] = {"tested", "exact", "missing"};

/* One row as a JSON object (docs/compare.md, "JSON report"); NULL when memory ran out. */
static json_t *json_row(const struct pmc_cmp_row *row)
{
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
	json_t *o = json_object();
	/* Names are copied as they are: a name that is not UTF-8 came from a result that
	 * holds it already. */
	bool ok = o && jset(o, "benchmark", json_string_nocheck(row->bench));

	if (ok && row->old_bench && strcmp(row->old_bench, row->bench) != 0)
		ok = jset(o, "old_benchmark", json_string_nocheck(row->old_bench));
	ok = ok && jset(o, "kind", json_string(kind_names[row->kind]));
	if (ok && row->kind == PMC_ROW_MISSING)
		ok = jset(o, "missing", json_string(row->missing_old ? "old" : "new"));
	ok = ok && jset(o, "old", json_side(&row->old, row->has_old)) &&
	     jset(o, "new", json_side(&row->new, row->has_new));
	for (size_t i = 0; ok && i < sizeof(nums) / sizeof(nums[0]); i++)
		ok = jset(
		    o, nums[i].key,
		    jnum(*(const double *)((const char *)row + nums[i].off), nums[i].measured));
	ok = ok && (!row->identical || jset(o, "identical_runs", json_true())) &&
	     jset(o, "gated", json_boolean(row->gated)) &&
	     jset(o, "significant", json_boolean(row->significant)) &&
	     jset(o, "testable", json_boolean(row->testable)) &&
	     ((!row->lo_open && !row->hi_open) ||
	      jset(o, "ci_open", json_pack("[b,b]", row->lo_open, row->hi_open))) &&
	     (!row->family || jset(o, "family", json_integer((json_int_t)row->family))) &&
	     (row->kind != PMC_ROW_TESTED ||
	      jset(o, "test",
		   json_string(row->one_invocation ? "none (one invocation a side)"
			       : row->paired	   ? "wilcoxon-signed-rank"
						   : "mann-whitney-u"))) &&
	     (!row->paired || jset(o, "pairs", json_integer((json_int_t)row->npairs))) &&
	     (!row->by_process ||
	      jset(o, "processes",
		   json_pack("[I,I]", (json_int_t)row->nunits_old, (json_int_t)row->nunits_new))) &&
	     jset(o, "threshold", json_threshold(row)) &&
	     jset(o, "verdict",
		  json_string(row->kind == PMC_ROW_MISSING ? "not compared"
							   : pmc_verdict_name(row->verdict))) &&
	     jset(o, "why", pmc_json_str_or_null(row->why));
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static int sb_append(const char *buf, size_t size, void *data)
{
	pmc_sb_put(data, buf, size);
	return ((struct pmc_sbuf *)data)->oom ? -1 : 0;
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
	if (pmc_json_dumpf(k, out, JSON_ENCODE_ANY) < 0)
		r = errno ? -errno : -EIO;
	fputs(": ", out);
	if (r == 0 && pmc_json_dumpf(value, out, JSON_ENCODE_ANY | JSON_COMPACT) < 0)
		r = errno ? -errno : -EIO;
	json_decref(k);
	json_decref(value);
	return r;
}

static const char *outcome_word(enum pmc_decision d)
{
	switch (d) {
	case PMC_DECISION_PASS:
		return "pass";
	case PMC_DECISION_REGRESSION:
		return "regression";
	case PMC_DECISION_INCONCLUSIVE:
		return "inconclusive";
	default:
		return "error";
	}
}

static int json_comparison(FILE *out, const struct pmc_comparison *c,
			   const struct pmc_report_opts *o)
{
	struct pmc_sbuf sb = {0};
	int r;

	fputs("{\n  ", out);
	r = jwrite(out, "schema", json_string(PMC_COMPARE_SCHEMA), false);
	if (r == 0)
		r = jwrite(out, "old", pmc_json_str_or_null(o->old_name), true);
	if (r == 0)
		r = jwrite(out, "new", pmc_json_str_or_null(o->new_name), true);
	if (r == 0)
		r = jwrite(out, "command", json_string(o->gate ? "gate" : "compare"), true);
	if (r == 0)
		r = jwrite(
		    out, "outcome",
		    o->error ? json_string("error")
			     : json_string(outcome_word(o->gate ? o->decision : PMC_DECISION_PASS)),
		    true);
	if (r == 0)
		r = jwrite(out, "exit_code", json_integer(pmc_cmp_decision_status(o)), true);
	if (r == 0)
		r = jwrite(out, "error", pmc_json_str_or_null(o->error), true);
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
			   json_pack("{s:I s:I s:I s:I}", "common", (json_int_t)c->ncommon,
				     "skipped", (json_int_t)c->nskipped, "only_old",
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
				 b->better == PMC_HIGHER_IS_BETTER ? "higher"
				 : b->better == PMC_NO_DIRECTION   ? "none"
								   : "lower",
				 "simulated", b->simulated, "derived", b->derived, "counts",
				 jcounts(b->counts, b->nmissing), "geomean",
				 json_pack("{s:I s:o s:o s:o}", "n", (json_int_t)b->geo_n, "old",
					   jreal(b->geo_old), "new", jreal(b->geo_new), "ratio",
					   jreal(b->geo_ratio)));
		if (!head) {
			r = -ENOMEM;
			break;
		}
		/* Each block's object is written without its closing brace so that the rows
		 * can stream in one by one. */
		{
			char *text = pmc_json_dumps(head, JSON_COMPACT);
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
			json_t *row = json_row(&c->rows[b->rows[j]]);

			pmc_sb_puts(&sb, j ? ",\n      " : "\n      ");
			if (!row || pmc_json_dump_callback(row, sb_append, &sb, JSON_COMPACT) < 0)
				r = -ENOMEM;
			json_decref(row);
			if (r == 0 && sb.len > 32768 && !pmc_sb_flush(&sb, out))
				r = sb.oom ? -ENOMEM : -EIO;
		}
		pmc_sb_puts(&sb, "]}");
		if (r == 0 && !pmc_sb_flush(&sb, out))
			r = sb.oom ? -ENOMEM : -EIO;
	}
	fputs("\n  ]", out);
end:
	fputs("\n}\n", out);
	free(sb.p);
	return r;
}

/* Several comparisons with one base (docs/compare.md, "More than two files"): an object
 * of schema pmcbench-compare-set/1 whose "comparisons" are the two-file reports, each
 * whole (schema pmcbench-compare/1), in the order of the files. */
static int json_comparisons(FILE *out, const struct pmc_comparison *const *cs,
			    const char *const *names, size_t n, const struct pmc_report_opts *o)
{
	json_t *files = json_array();
	int r;

	for (size_t i = 0; files && i <= n; i++)
		if (json_array_append_new(files, json_string(names[i])) < 0) {
			json_decref(files);
			files = NULL;
		}
	fputs("{\n  ", out);
	r = jwrite(out, "schema", json_string(PMC_COMPARE_SET_SCHEMA), false);
	if (r == 0)
		r = jwrite(out, "base", json_string(names[0]), true);
	if (r == 0)
		r = jwrite(out, "files", files, true);
	else
		json_decref(files);
	if (r == 0)
		r = jwrite(out, "command", json_string(o->gate ? "gate" : "compare"), true);
	if (r == 0)
		r = jwrite(out, "exit_code", json_integer(pmc_cmp_decision_status(o)), true);
	if (r == 0)
		fputs(",\n  \"comparisons\": [\n", out);
	for (size_t i = 0; r == 0 && i < n; i++) {
		struct pmc_report_opts one = *o;

		one.old_name = names[0];
		one.new_name = names[i + 1];
		if (i)
			fputs(",\n", out);
		r = json_comparison(out, cs[i], &one);
	}
	fputs("  ]\n}\n", out);
	return r;
}

const struct pmc_reporter pmc_reporter_json = {
    .name = "json",
    .ext = ".json",
    .by_extension = true,
    .document = true,
    .result = json_result,
    .needs_analysis = true,
    .comparison = json_comparison,
    .comparisons = json_comparisons,
    .points = pmc_points_json,
    .changes = pmc_changes_json,
};

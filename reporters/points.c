/* The samples of a history's points as CSV and JSON (points.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "formats/json_out.h"
#include "reporters/escape.h"
#include "reporters/format.h"
#include "reporters/points.h"

/* A CSV field (RFC 4180): quoted when it holds a comma or a quote; control characters
 * as spaces, as the reporters' CSV writes them (docs/export.md): the file is shown in
 * CI logs too. */
static void csv_field(FILE *f, const char *text)
{
	char *shown = text ? pmc_escape_text_dup(text) : NULL;
	const char *s = shown;

	if (!s)
		return;
	if (!strpbrk(s, ",\"")) {
		fputs(s, f);
		free(shown);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
	free(shown);
}

/* The fields of p up to the run, each followed by a comma. */
static void csv_point(FILE *f, const struct pmc_history_point *p, const char *when)
{
	const char *fields[] = {p->e.commit, p->e.branch, p->e.machine};
	const char *names[] = {p->e.tags, p->benchmark, p->metric, p->unit};

	fprintf(f, "%s,%s,", p->e.id, when);
	for (size_t k = 0; k < 3; k++) {
		csv_field(f, fields[k]);
		fputc(',', f);
	}
	fprintf(f, "%s,", p->e.fingerprint);
	for (size_t k = 0; k < 4; k++) {
		csv_field(f, names[k]);
		fputc(',', f);
	}
}

int pmc_points_csv(FILE *f, const struct pmc_history_point *ps, size_t n)
{
	fputs("entry,measured,commit,branch,machine,fingerprint,tags,benchmark,metric,unit,run,"
	      "value\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		const struct pmc_history_point *p = &ps[i];
		char when[32];

		pmc_history_time_text(p->e.t, when);
		for (size_t k = 0; k < p->n; k++) {
			char num[PMC_FMT_MAX] = "";

			if (!isnan(p->samples[k]))
				num[pmc_fmt_exact_to(num, p->samples[k])] = '\0';
			csv_point(f, p, when);
			fprintf(f, "%zu,%s\n", k + 1, num);
		}
	}
	return ferror(f) ? -EIO : 0;
}

/* The object of p, or NULL when out of memory. */
static json_t *point_json(const struct pmc_history_point *p)
{
	json_t *o = json_object(), *samples = json_array();
	char when[32];

	if (!o || !samples) {
		json_decref(o);
		json_decref(samples);
		return NULL;
	}
	pmc_history_time_text(p->e.t, when);
	for (size_t k = 0; k < p->n; k++)
		json_array_append_new(samples, isnan(p->samples[k]) ? json_null()
								    : json_real(p->samples[k]));
	json_object_set_new(o, "entry", json_string(p->e.id));
	json_object_set_new(o, "measured", json_string(when));
	json_object_set_new(o, "commit", pmc_json_str_or_null(p->e.commit));
	json_object_set_new(o, "branch", pmc_json_str_or_null(p->e.branch));
	json_object_set_new(o, "machine", pmc_json_str_or_null(p->e.machine));
	json_object_set_new(o, "fingerprint", pmc_json_str_or_null(p->e.fingerprint));
	json_object_set_new(o, "tags", pmc_json_str_or_null(p->e.tags));
	json_object_set_new(o, "benchmark", pmc_json_str_or_null(p->benchmark));
	json_object_set_new(o, "metric", pmc_json_str_or_null(p->metric));
	json_object_set_new(o, "unit", pmc_json_str_or_null(p->unit));
	json_object_set_new(o, "median", isnan(p->median) ? json_null() : json_real(p->median));
	json_object_set_new(o, "samples", samples);
	return o;
}

int pmc_points_json(FILE *f, const struct pmc_history_point *ps, size_t n)
{
	json_t *all = json_array();
	int r = 0;

	if (!all)
		return -ENOMEM;
	for (size_t i = 0; i < n && r == 0; i++)
		if (json_array_append_new(all, point_json(&ps[i])) < 0)
			r = -ENOMEM;
	if (r == 0 && (pmc_json_dumpf(all, f, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) < 0 ||
		       fputc('\n', f) == EOF))
		r = -EIO;
	json_decref(all);
	return r;
}

/* The samples of a history's points as CSV and JSON (points.h). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "formats/json_out.h"
#include "reporters/escape.h"
#include "reporters/format.h"
#include "reporters/points.h"
#include "reporters/reporter.h"

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

int pmc_points_csv(FILE *f, const struct pmc_history_point *ps, size_t n, unsigned part)
{
	if (part & PMC_POINTS_FIRST)
		fputs("entry,measured,commit,branch,machine,fingerprint,tags,benchmark,metric,unit,"
		      "run,value\n",
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

/* jansson's text of an object on its own, written as an element of an array at depth 1
 * (JSON_INDENT(1)): a space after each of its line breaks, as the array would indent it
 * (a line break is never inside a JSON string, which escapes it). */
static int indented_cb(const char *buf, size_t size, void *data)
{
	FILE *f = data;

	for (const char *s = buf, *end = buf + size; s < end;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) + 1 : (size_t)(end - s);

		if (fwrite(s, 1, len, f) != len || (nl && fputc(' ', f) == EOF))
			return -1;
		s += len;
	}
	return 0;
}

/* The points as the elements of one array, written part by part as jansson would write
 * the whole array (JSON_INDENT(1)), each object built and freed in turn. */
int pmc_points_json(FILE *f, const struct pmc_history_point *ps, size_t n, unsigned part)
{
	const size_t flags = JSON_INDENT(1) | JSON_REAL_PRECISION(17);
	bool first = part & PMC_POINTS_FIRST;

	for (size_t i = 0; i < n; i++) {
		json_t *o = point_json(&ps[i]);
		int r;

		if (!o)
			return -ENOMEM;
		r = fputs(first && i == 0 ? "[\n " : ",\n ", f) == EOF ||
			    pmc_json_dump_callback(o, indented_cb, f, flags) < 0
			? -EIO
			: 0;
		json_decref(o);
		if (r < 0)
			return r;
	}
	if ((part & PMC_POINTS_LAST) && fputs(first && n == 0 ? "[]\n" : "\n]\n", f) == EOF)
		return -EIO;
	return ferror(f) ? -EIO : 0;
}

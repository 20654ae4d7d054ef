/* `pmcbench history export`: the samples a selection picks, as CSV (a row per sample)
 * or JSON (an object per point). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/atomic_file.h"
#include "cli/cli.h"
#include "cli/cli_history.h"
#include "formats/json_out.h"
#include "history/history.h"
#include "reporters/escape.h"
#include "reporters/format.h"
#include "session/session.h"

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

static void export_csv(FILE *f, const struct pmc_history_point *ps, size_t n)
{
	fputs("entry,measured,commit,branch,machine,fingerprint,tags,benchmark,metric,unit,run,"
	      "value\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		const struct pmc_history_point *p = &ps[i];
		char when[32];

		when_text(p->e.t, when);
		for (size_t k = 0; k < p->n; k++) {
			char num[PMC_FMT_MAX] = "";

			if (!isnan(p->samples[k]))
				num[pmc_fmt_exact_to(num, p->samples[k])] = '\0';
			fprintf(f, "%s,%s,", p->e.id, when);
			csv_field(f, p->e.commit);
			fputc(',', f);
			csv_field(f, p->e.branch);
			fputc(',', f);
			csv_field(f, p->e.machine);
			fprintf(f, ",%s,", p->e.fingerprint);
			csv_field(f, p->e.tags);
			fputc(',', f);
			csv_field(f, p->benchmark);
			fputc(',', f);
			csv_field(f, p->metric);
			fputc(',', f);
			csv_field(f, p->unit);
			fprintf(f, ",%zu,%s\n", k + 1, num);
		}
	}
}

static int export_json(FILE *f, const struct pmc_history_point *ps, size_t n)
{
	json_t *all = json_array();
	int r = 0;

	if (!all)
		return -ENOMEM;
	for (size_t i = 0; i < n && r == 0; i++) {
		const struct pmc_history_point *p = &ps[i];
		json_t *o = json_object(), *samples = json_array();
		char when[32];

		when_text(p->e.t, when);
		if (!o || !samples) {
			json_decref(o);
			json_decref(samples);
			r = -ENOMEM;
			break;
		}
		for (size_t k = 0; k < p->n; k++)
			json_array_append_new(
			    samples, isnan(p->samples[k]) ? json_null() : json_real(p->samples[k]));
		json_object_set_new(o, "entry", json_string(p->e.id));
		json_object_set_new(o, "measured", json_string(when));
		json_object_set_new(o, "commit", jstr(p->e.commit));
		json_object_set_new(o, "branch", jstr(p->e.branch));
		json_object_set_new(o, "machine", jstr(p->e.machine));
		json_object_set_new(o, "fingerprint", jstr(p->e.fingerprint));
		json_object_set_new(o, "tags", jstr(p->e.tags));
		json_object_set_new(o, "benchmark", jstr(p->benchmark));
		json_object_set_new(o, "metric", jstr(p->metric));
		json_object_set_new(o, "unit", jstr(p->unit));
		json_object_set_new(o, "median",
				    isnan(p->median) ? json_null() : json_real(p->median));
		json_object_set_new(o, "samples", samples);
		if (json_array_append_new(all, o) < 0)
			r = -ENOMEM;
	}
	if (r == 0 && (pmc_json_dumpf(all, f, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) < 0 ||
		       fputc('\n', f) == EOF))
		r = -EIO;
	json_decref(all);
	return r;
}

int pmc_cli_hist_export(int argc, char **argv, struct hopts *o)
{
	struct pmc_history *h = NULL;
	struct pmc_history_point *ps = NULL;
	struct pmc_atomic_file *af = NULL;
	const char *format = o->format ? o->format : "csv";
	FILE *f = stdout;
	size_t n = 0;
	char err[1024];
	int code = PMC_EXIT_ERROR, r;

	if (argc > 0) {
		pmc_cli_error(
		    "history export takes no arguments, got '%s'; select with --benchmark, "
		    "--metric, ...",
		    argv[0]);
		return PMC_EXIT_ERROR;
	}
	if (strcmp(format, "csv") != 0 && strcmp(format, "json") != 0) {
		pmc_cli_error("--format '%s': history export writes csv or json", format);
		return PMC_EXIT_ERROR;
	}
	if (o->output && pmc_session_check_path(&pmc_cli_printer, "--output", o->output) < 0)
		return PMC_EXIT_ERROR;
	if (pmc_cli_hist_open(o, 0, &h) < 0)
		return PMC_EXIT_ERROR;
	if (pmc_history_points(h, &o->f, &ps, &n, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		goto out;
	}
	if (o->output) {
		if (pmc_atomic_file_open(o->output, &af, err, sizeof(err)) < 0) {
			pmc_cli_error("%s", err);
			goto out;
		}
		f = pmc_atomic_file_stream(af);
	}
	if (strcmp(format, "csv") == 0) {
		export_csv(f, ps, n);
		r = ferror(f) ? -EIO : 0;
	} else {
		r = export_json(f, ps, n);
	}
	if (af) {
		if (r == -EIO && pmc_atomic_file_write_error(af))
			r = pmc_atomic_file_write_error(af);
		if (r < 0 && r != -ENOMEM)
			pmc_cli_error("%s: %s", o->output, strerror(-r));
		if (r < 0)
			pmc_atomic_file_abort(af);
		else if ((r = pmc_atomic_file_commit(af, err, sizeof(err))) < 0)
			pmc_cli_error("%s", err);
		af = NULL;
	} else if (fflush(stdout) != 0) {
		r = -EIO;
	}
	if (r < 0) {
		if (r == -ENOMEM)
			pmc_cli_error("out of memory");
		else if (!af && !o->output)
			pmc_cli_error("cannot write to standard output");
		goto out;
	}
	code = PMC_EXIT_OK;
out:
	pmc_history_points_free(ps, n);
	pmc_history_close(h);
	return code;
}

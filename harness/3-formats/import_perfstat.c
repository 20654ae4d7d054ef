/* perf stat's machine-readable output: -x, (CSV, read with libcsv) and -j (a JSON object per
 * line). One file is one benchmark, "perf stat", whose runs are the blocks of counts in it:
 * perf stat --append -o FILE run once per run writes one block each, headed by "# started
 * on ...". A block ends there, or where an event already in it appears again. perf stat -r
 * prints the mean of its runs with a variance column instead: a summary, which cannot be
 * tested, and is refused (docs/import.md). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <csv.h>
#include <jansson.h>

#include "base/grow.h"
#include "base/utf8.h"
#include "core/metrics.h"
#include "core/result.h"
#include "formats/import_priv.h"
#include "pmcbench/events.h"

#define FIX_CSV "record each run with perf stat -x, --append -o FILE -e EVENTS CMD"
#define FIX_JSON "record each run with perf stat -j --append -o FILE -e EVENTS CMD"

/* The name of the one benchmark of a perf stat file: perf does not write the command. */
#define BENCH_NAME "perf stat"

/* One row: an event's count in one run, as perf printed it. */
struct row {
	const char *value; /* "123", "0.43", "<not counted>", "<not supported>" */
	const char *unit;  /* "", "msec", "ns", "Joules", ... */
	const char *event;
	bool variance;	/* a -r summary's variance column */
	double runtime; /* ns the counter ran; NAN when not printed */
	double pcnt;	/* percentage of the enabled time it ran */
};

struct ps {
	struct pmc_importer im;
	const char *fix;
	struct pmc_result *res;
	struct pmc_benchmark *b;
	size_t line;
	/* The events of the first run, in order; every run counts the same ones. */
	char **events;
	size_t nevents;
	/* The run being read: its rows so far, and whether it is the first. */
	char **cur;
	size_t ncur;
	bool first_done;
};

/* The metric id of a perf event name: its canonical name ("page-faults" for "faults",
 * "cycles:u" for "cpu-cycles:u"); perf's tool events duration_time, user_time and
 * system_time are the times pmcbench run takes from wait4. Names pmcbench does not know
 * (PMU events of another machine) stay as perf wrote them. */
static int event_id(const char *name, char **ret)
{
	static const struct {
		const char *perf, *id;
	} tools[] = {
	    {"duration_time", "wall-time"},
	    {"user_time", "user-time"},
	    {"system_time", "system-time"},
	};
	/* PMU events and tracepoints are not looked up: the file may come from another
	 * machine (a tracepoint keeps perf's name as its id). */
	struct pmc_event_list_opts o = {
	    .sz = sizeof(o), .sysfs_root = "/nonexistent", .tracefs_root = "/nonexistent"};
	struct pmc_event_list *l = NULL;
	const char *id = name;

	PMC_OPTS_ZERO_TAIL(pmc_event_list_opts, &o); /* padding the initializer need not zero */
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (strcmp(name, tools[i].perf) == 0)
			id = tools[i].id;
	if (id == name && !strchr(name, ',') && !strchr(name, '{') &&
	    pmc_event_list_parse(name, &o, &l, NULL, 0) == 0 && pmc_event_list_count(l) == 1)
		id = pmc_event_list_name(l, 0);
	*ret = strdup(id);
	pmc_event_list_free(l);
	return *ret ? 0 : -ENOMEM;
}

static bool in_list(char *const *list, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], s) == 0)
			return true;
	return false;
}

static void free_list(char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

/* Ends the run being read: the first one fixes the events, every later one must have
 * counted each of them. */
static int close_run(struct ps *p)
{
	if (p->ncur == 0)
		return 0;
	if (!p->first_done) {
		p->events = p->cur;
		p->nevents = p->ncur;
		p->first_done = true;
	} else {
		for (size_t i = 0; i < p->nevents; i++)
			if (!in_list(p->cur, p->ncur, p->events[i]))
				return pmc_import_fail(&p->im, p->line,
						       "run %zu has no count of '%.60s', which the "
						       "first run has; every "
						       "run must count the same events — %s",
						       p->b->nruns, p->events[i], p->fix);
		free_list(p->cur, p->ncur);
	}
	p->cur = NULL;
	p->ncur = 0;
	return 0;
}

/* The reading of a row: its status and its raw count and times. perf prints a count
 * scaled by multiplexing and the share of the time it ran; the raw count and the enabled
 * time are worked back from them, so that compare can warn about a count that ran less
 * than half the time. The sample is the count perf printed. */
static int reading_of(struct ps *p, const struct row *r, double value, struct pmc_reading *ret)
{
	struct pmc_reading rd = {.scaled = value};

	if (isnan(value)) {
		rd.status = strcmp(r->value, "<not counted>") == 0 ? PMC_STATUS_NOT_COUNTED
								   : PMC_STATUS_UNSUPPORTED;
		*ret = rd;
		return 0;
	}
	if (isnan(r->runtime) || isnan(r->pcnt))
		return pmc_import_fail(&p->im, p->line,
				       "'%.60s': no running time or percentage after the count; %s",
				       r->event, p->fix);
	if (!(r->pcnt > 0 && r->pcnt <= 100))
		return pmc_import_fail(
		    &p->im, p->line,
		    "'%.60s': running percentage %g outside (0, 100] for a count; "
		    "%s",
		    r->event, r->pcnt, p->fix);
	if (r->runtime < 0 || r->runtime > (double)INT64_MAX)
		return pmc_import_fail(&p->im, p->line,
				       "'%.60s': running time %g is not a time in ns; %s", r->event,
				       r->runtime, p->fix);
	rd.running = (uint64_t)r->runtime;
	if (r->pcnt >= 100) {
		rd.status = PMC_STATUS_COUNTED;
		rd.value = (uint64_t)llround(value);
		rd.enabled = rd.running;
	} else {
		rd.status = PMC_STATUS_SCALED;
		rd.value = (uint64_t)llround(value * r->pcnt / 100);
		rd.enabled = (uint64_t)llround(r->runtime * 100 / r->pcnt);
		if (rd.running == 0 || rd.enabled <= rd.running)
			rd.enabled = rd.running + 1;
	}
	*ret = rd;
	return 0;
}

/* Adds one row to the run being read, starting a new run when the event is already in
 * it. */
static int add_row(struct ps *p, const struct row *r)
{
	const struct pmc_metric_info *info = NULL;
	struct pmc_reading rd;
	struct pmc_metric *m;
	const char *unit = "count";
	double value = NAN, factor = 1;
	char *id = NULL;
	int rc;

	if (r->variance)
		return pmc_import_fail(
		    &p->im, p->line,
		    "perf stat -r printed the mean of its runs (the variance column) and not each "
		    "run: a mean cannot be tested; %s, once per run and without -r",
		    p->fix);
	if ((rc = event_id(r->event, &id)) < 0)
		return rc;
	if (r->value[0] == '<') {
		if (strcmp(r->value, "<not counted>") != 0 &&
		    strcmp(r->value, "<not supported>") != 0) {
			rc =
			    pmc_import_fail(&p->im, p->line,
					    "'%.60s': '%.40s' is neither a count nor <not counted> "
					    "or <not supported>; %s",
					    r->event, r->value, p->fix);
			goto out;
		}
	} else if (!pmc_import_number(r->value, strlen(r->value), &value) || value < 0) {
		rc = pmc_import_fail(&p->im, p->line, "'%.40s' is not a count (for '%.60s'); %s",
				     r->value, r->event, p->fix);
		goto out;
	}
	/* Times in ns, counts as they are; another unit (Joules, MiB) is kept, and printed
	 * after every value: a word, never a terminal control. */
	if (pmc_utf8_has_control(r->unit)) {
		rc = pmc_import_fail(&p->im, p->line,
				     "the unit of '%.60s' holds a control character; %s", r->event,
				     p->fix);
		goto out;
	}
	if (*r->unit) {
		factor = pmc_import_ns_per(r->unit, strlen(r->unit));
		unit = factor ? "ns" : r->unit;
		if (!factor)
			factor = 1;
	}
	if (pmc_metric_info_lookup(id, &info) == 0 && strcmp(info->unit, unit) != 0) {
		rc = pmc_import_fail(&p->im, p->line,
				     "'%.60s' is in '%.20s', but pmcbench's %s is in %s; %s",
				     r->event, r->unit, id, info->unit, p->fix);
		goto out;
	}
	if (!isnan(value)) {
		value *= factor;
		/* perf prints times in ms with at most 6 decimals: whole ns. */
		if (strcmp(unit, "ns") == 0)
			value = round(value);
	}
	if ((rc = reading_of(p, r, value, &rd)) < 0)
		goto out;
	if (in_list(p->cur, p->ncur, id) && (rc = close_run(p)) < 0)
		goto out;
	if (p->first_done && !in_list(p->events, p->nevents, id)) {
		rc = pmc_import_fail(
		    &p->im, p->line,
		    "'%.60s' is not in the first run; every run must count the same "
		    "events — %s",
		    r->event, p->fix);
		goto out;
	}
	if (p->ncur == 0 && (rc = pmc_benchmark_record_run(p->b, 0, 0, false)) < 0)
		goto out;
	if ((rc = pmc_benchmark_metric(p->b, id, &m)) < 0)
		goto out;
	if (!info) {
		char *u = strdup(unit);

		if (!u) {
			rc = -ENOMEM;
			goto out;
		}
		free(m->unit);
		m->unit = u;
	}
	if ((rc = pmc_metric_append(m, value, &rd)) < 0)
		goto out;
	if (pmc_grow(&p->cur, p->ncur, sizeof(*p->cur)) < 0) {
		rc = -ENOMEM;
		goto out;
	}
	p->cur[p->ncur++] = id;
	return 0;
out:
	free(id);
	return rc;
}

static bool started_on(const char *line, size_t len)
{
	static const char mark[] = "# started on";

	return len >= sizeof(mark) - 1 && memcmp(line, mark, sizeof(mark) - 1) == 0;
}

/* Lines that are not rows: blank ones, comments, and what perf -D writes beside the
 * counts. */
static bool skipped_line(const char *line, size_t len)
{
	static const char *const notes[] = {"Events disabled", "Events enabled"};
	size_t i = 0;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i == len || line[i] == '#')
		return true;
	for (size_t k = 0; k < sizeof(notes) / sizeof(notes[0]); k++)
		if (len - i == strlen(notes[k]) && memcmp(line + i, notes[k], len - i) == 0)
			return true;
	return false;
}

typedef int (*row_parser)(struct ps *p, const char *line, size_t len);

static int import(const char *name, const char *text, size_t len, enum pmc_import_format f,
		  row_parser parse, struct pmc_result **ret, char *err, size_t errlen)
{
	const char *fix = f == PMC_IMPORT_PERF_STAT_CSV ? FIX_CSV : FIX_JSON;
	struct ps p = {.im = {.file = name, .err = err, .errlen = errlen}, .fix = fix};
	struct pmc_lines it = {.p = text, .end = text + len};
	const char *line;
	size_t n;
	int r;

	if (memchr(text, '\0', len))
		return pmc_import_fail(&p.im, 0, "holds a NUL byte: not perf stat's output; %s",
				       fix);
	if ((r = pmc_import_result_new("perf", f, &p.res)) < 0 ||
	    (r = pmc_result_add_benchmark(p.res, BENCH_NAME, NULL, &p.b)) < 0)
		goto out;
	while (pmc_lines_next(&it, &line, &n)) {
		p.line = it.lineno;
		if (started_on(line, n)) {
			if ((r = close_run(&p)) < 0)
				goto out;
			continue;
		}
		if (skipped_line(line, n))
			continue;
		if ((r = parse(&p, line, n)) < 0)
			goto out;
	}
	if ((r = close_run(&p)) < 0)
		goto out;
	if (p.b->nruns == 0) {
		r = pmc_import_fail(&p.im, 0, "no counts; %s", fix);
		goto out;
	}
	*ret = p.res;
	p.res = NULL;
out:
	free_list(p.events, p.nevents);
	free_list(p.cur, p.ncur);
	pmc_result_free(p.res);
	return r;
}

/* ---- perf stat -x, ---------------------------------------------------------------- */

#define MAX_FIELDS 16

struct csv_row {
	char *fields[MAX_FIELDS];
	size_t n;
	bool nomem;
};

static void csv_field(void *s, size_t len, void *data)
{
	struct csv_row *row = data;

	if (row->n < MAX_FIELDS) {
		row->fields[row->n] = strndup(s ? s : "", s ? len : 0);
		if (!row->fields[row->n])
			row->nomem = true;
	}
	row->n++;
}

static void csv_end(int c, void *data)
{
}

/* perf stat -x, prints value,unit,event,[variance,]run time,percentage,metric,metric
 * unit; -r adds the variance ("5.89%"). A row without an event continues the metric of
 * the row before it and is skipped. */
static int csv_row(struct ps *p, const char *line, size_t len)
{
	struct csv_row row = {0};
	struct csv_parser parser;
	struct row r = {.runtime = NAN, .pcnt = NAN};
	double x;
	size_t next;
	int rc = 0;

	if (csv_init(&parser, CSV_APPEND_NULL) != 0)
		return -ENOMEM;
	if (csv_parse(&parser, line, len, csv_field, csv_end, &row) != len ||
	    csv_fini(&parser, csv_field, csv_end, &row) != 0) {
		rc = csv_error(&parser) == CSV_ENOMEM
			 ? -ENOMEM
			 : pmc_import_fail(&p->im, p->line, "not a CSV row: %s; %s",
					   csv_strerror(csv_error(&parser)), p->fix);
		goto out;
	}
	if (row.nomem) {
		rc = -ENOMEM;
		goto out;
	}
	if (row.n < 5) {
		rc = pmc_import_fail(
		    &p->im, p->line,
		    "%zu fields, expected value,unit,event,run time,percentage,...; "
		    "%s",
		    row.n, p->fix);
		goto out;
	}
	r.value = row.fields[0];
	r.unit = row.fields[1];
	r.event = row.fields[2];
	/* -A and the --per-* modes put the CPU, core or socket first. */
	if (isalpha((unsigned char)r.value[0])) {
		rc = pmc_import_fail(
		    &p->im, p->line,
		    "'%.40s' where the count belongs: per-CPU, per-core, per-socket "
		    "and per-thread output (-A, --per-core, --per-socket, "
		    "--per-thread) is not read — %s",
		    r.value, p->fix);
		goto out;
	}
	/* perf stat -I puts the time first: the count is then where the unit belongs. */
	if (pmc_import_number(r.value, strlen(r.value), &x) && *r.unit &&
	    (r.unit[0] == '<' || pmc_import_number(r.unit, strlen(r.unit), &x))) {
		rc = pmc_import_fail(&p->im, p->line,
				     "'%.40s' where the unit belongs: interval output (-I) is not "
				     "read — %s",
				     r.unit, p->fix);
		goto out;
	}
	if (!*r.event)
		goto out;
	next = 3;
	if (row.n > 5 && *row.fields[3] && row.fields[3][strlen(row.fields[3]) - 1] == '%') {
		r.variance = true;
		next = 4;
	}
	if (*row.fields[next] &&
	    !pmc_import_number(row.fields[next], strlen(row.fields[next]), &r.runtime)) {
		rc = pmc_import_fail(&p->im, p->line,
				     "'%.60s': run time '%.40s' is not a number; %s", r.event,
				     row.fields[next], p->fix);
		goto out;
	}
	if (*row.fields[next + 1] &&
	    !pmc_import_number(row.fields[next + 1], strlen(row.fields[next + 1]), &r.pcnt)) {
		rc = pmc_import_fail(&p->im, p->line,
				     "'%.60s': running percentage '%.40s' is not a number; %s",
				     r.event, row.fields[next + 1], p->fix);
		goto out;
	}
	rc = add_row(p, &r);
out:
	for (size_t i = 0; i < row.n && i < MAX_FIELDS; i++)
		free(row.fields[i]);
	csv_free(&parser);
	return rc;
}

int pmc_import_perf_stat_csv(const char *name, const char *text, size_t len,
			     struct pmc_result **ret, char *err, size_t errlen)
{
	return import(name, text, len, PMC_IMPORT_PERF_STAT_CSV, csv_row, ret, err, errlen);
}

/* ---- perf stat -j ----------------------------------------------------------------- */

/* A member that perf writes as a string or a number, as text. */
static const char *text_of(const json_t *v, char *buf, size_t len)
{
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_number(v)) {
		snprintf(buf, len, "%.17g", json_number_value(v));
		return buf;
	}
	return NULL;
}

/* {"counter-value" : "0.421724", "unit" : "msec", "event" : "task-clock", ["variance" :
 * 2.55,] "event-runtime" : 421724, "pcnt-running" : 100.00, "metric-value" : ...}. A line
 * without an event carries a metric of the line before it and is skipped. */
static int json_row(struct ps *p, const char *line, size_t len)
{
	const json_t *event, *unit, *runtime, *pcnt;
	struct row r = {.runtime = NAN, .pcnt = NAN};
	char buf[64];
	json_error_t jerr;
	json_t *o;
	int rc;

	o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!o) {
		if (json_error_code(&jerr) == json_error_out_of_memory)
			return -ENOMEM;
		return pmc_import_fail_at(&p->im, p->line, (size_t)jerr.column,
					  "%s; each line of perf stat -j is one JSON object — %s",
					  jerr.text, p->fix);
	}
	rc = 0;
	if (!json_is_object(o)) {
		rc = pmc_import_fail(&p->im, p->line, "not a JSON object; %s", p->fix);
		goto out;
	}
	event = json_object_get(o, "event");
	if (!event)
		goto out;
	unit = json_object_get(o, "unit");
	runtime = json_object_get(o, "event-runtime");
	pcnt = json_object_get(o, "pcnt-running");
	r.value = text_of(json_object_get(o, "counter-value"), buf, sizeof(buf));
	r.unit = json_is_string(unit) ? json_string_value(unit) : NULL;
	r.event = json_is_string(event) ? json_string_value(event) : NULL;
	r.variance = json_object_get(o, "variance") != NULL;
	if (!r.value || !r.unit || !r.event || !*r.event || (runtime && !json_is_number(runtime)) ||
	    (pcnt && !json_is_number(pcnt))) {
		rc = pmc_import_fail(
		    &p->im, p->line,
		    "expected \"counter-value\", \"unit\" and \"event\" as strings, "
		    "\"event-runtime\" and \"pcnt-running\" as numbers; %s",
		    p->fix);
		goto out;
	}
	if (runtime)
		r.runtime = json_number_value(runtime);
	if (pcnt)
		r.pcnt = json_number_value(pcnt);
	rc = add_row(p, &r);
out:
	json_decref(o);
	return rc;
}

int pmc_import_perf_stat_json(const char *name, const char *text, size_t len,
			      struct pmc_result **ret, char *err, size_t errlen)
{
	return import(name, text, len, PMC_IMPORT_PERF_STAT_JSON, json_row, ret, err, errlen);
}

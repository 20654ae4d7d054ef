/* `pmcbench compare OLD NEW [NEW2...]` and `pmcbench gate --baseline BASE NEW`, and the
 * reports of every comparison, `pmcbench run`'s too (its options: cli_compare_opts.c).
 * `compare` reports and exits 0 whatever the verdicts; `gate` decides: 1 on a regression
 * beyond a threshold, 3 on an inconclusive row with --fail-on-inconclusive. Errors exit 2
 * (docs/compare.md). */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/atomic_file.h"
#include "cli/cli.h"
#include "cli/cli_compare_priv.h"
#include "cli/cli_profile.h"
#include "core/result.h"
#include "formats/import.h"
#include "pmcbench/compare.h"
#include "pmcbench/report.h"
#include "reporters/compare_cells.h"
#include "reporters/reporter.h"

static FILE *report_stream(const struct pmc_cli_compare_opts *o)
{
	return o->out ? o->out : stdout;
}

static const char *stream_name(FILE *f)
{
	return f == stdout ? "standard output" : f == stderr ? "standard error" : "the report stream";
}

/* Flushes f and says whether everything written to it arrived: a full disk or a closed
 * pipe must not pass for a report that was written. */
static int check_written(FILE *f)
{
	int r = 0;

	errno = 0;
	if (fflush(f) != 0 || ferror(f))
		r = errno ? -errno : -EIO;
	return r;
}

/* Prints a help text on stdout; 0, or 2 after one error line when it could not be written. */
static int print_help(void (*help)(FILE *))
{
	int r;

	help(stdout);
	r = check_written(stdout);
	if (r < 0) {
		pmc_cli_error("cannot write the help to standard output: %s", strerror(-r));
		return PMC_EXIT_ERROR;
	}
	return PMC_EXIT_OK;
}

/* Where the time went (cli_profile.h), after the verdicts, when both sides have
 * profiles: on out, in Markdown when the report is; draw: write the differential flame
 * graphs too (once per report). A document on stdout stays one: its explanation goes to
 * stderr. */
static void explain(const struct pmc_cli_compare_opts *o, const struct pmc_comparison *c,
		    FILE *out, bool draw)
{
	if (pmc_cli_format_is_document(o->format))
		out = stderr;
	pmc_cli_profiles_explain(c, o->old_profiles, o->new_profiles, o->profile_ref,
				 strcmp(o->format, "markdown") == 0, out, draw);
}

/* The report of c, or of every comparison of set when there is one. */
static int render(FILE *f, const struct pmc_cli_compare_opts *o, const struct pmc_comparison *c,
		  const struct pmc_cli_comparison_set *set, const struct pmc_report_opts *ro)
{
	if (set)
		return pmc_report_comparisons(f, o->format, set->cs, set->names, set->n, ro, NULL,
					      0);
	return pmc_report_comparison(f, o->format, c, ro, NULL, 0);
}

/* Where the time went, for c or for each comparison of set. */
static void explain_all(const struct pmc_cli_compare_opts *o, const struct pmc_comparison *c,
			const struct pmc_cli_comparison_set *set, const struct pmc_cli_profiles *ps,
			FILE *out, bool draw)
{
	if (!set) {
		explain(o, c, out, draw);
		return;
	}
	for (size_t i = 0; i < set->n; i++) {
		struct pmc_cli_compare_opts one = *o;

		pmc_cli_compare_opts_set_profiles(&one, &ps[0], &ps[i + 1], NULL);
		explain(&one, set->cs[i], out, draw);
	}
}

static int write_report_file(const struct pmc_cli_compare_opts *o, const struct pmc_comparison *c,
			     const struct pmc_cli_comparison_set *set,
			     const struct pmc_cli_profiles *ps, const struct pmc_report_opts *ro)
{
	const char *path = o->output;
	struct pmc_atomic_file *af;
	int r;

	r = pmc_atomic_file_open(path, &af, NULL, 0);
	if (r == 0) {
		r = render(pmc_atomic_file_stream(af), o, c, set, ro);
		/* The file says where the time went too (a CI job summary shows it). */
		if (r == 0 && (c || set) && !pmc_cli_format_is_document(o->format))
			explain_all(o, c, set, ps, pmc_atomic_file_stream(af), false);
		if (r < 0)
			pmc_atomic_file_abort(af);
		else
			r = pmc_atomic_file_commit(af, NULL, 0);
	}
	if (r < 0)
		pmc_cli_error("%s: cannot write the report: %s", path, strerror(-r));
	return r;
}

/* Writes the report to its stream (stdout unless set) and to the --report file; returns
 * the exit code, which turns into an error when a report cannot be written. */
static int emit_set(const struct pmc_cli_compare_opts *o, const struct pmc_comparison *c,
		    const struct pmc_cli_comparison_set *set, const struct pmc_cli_profiles *ps,
		    struct pmc_report_opts *ro, bool to_stream)
{
	int code = ro->error ? PMC_EXIT_ERROR : ro->exit_code;
	FILE *out = report_stream(o);
	struct pmc_report_opts plain = *ro;

	PMC_OPTS_ZERO_TAIL(pmc_report_opts, &plain); /* what the struct copy need not bring */
	/* Files get no colour, whatever the terminal gets. */
	plain.color = false;

	if (to_stream) {
		int r;

		errno = 0;
		r = render(out, o, c, set, ro);
		if (r == -EIO && errno)
			r = -errno; /* what the failed write said: ENOSPC, EPIPE, ... */
		else if (r == 0)
			r = check_written(out);
		if (r < 0) {
			pmc_cli_error("cannot write the report to %s: %s", stream_name(out),
				      strerror(-r));
			code = PMC_EXIT_ERROR;
		} else if (c || set) {
			explain_all(o, c, set, ps, out, true);
		}
	}
	if (o->output && write_report_file(o, c, set, ps, &plain) < 0)
		code = PMC_EXIT_ERROR;
	/* Exports hold a comparison: none is written when there is none. */
	if (set && pmc_cli_exports_comparisons(&o->exports, set, &plain) < 0)
		code = PMC_EXIT_ERROR;
	else if (c && pmc_cli_exports_comparison(&o->exports, c, &plain) < 0)
		code = PMC_EXIT_ERROR;
	return code;
}

static int emit(const struct pmc_cli_compare_opts *o, const struct pmc_comparison *c,
		struct pmc_report_opts *ro, bool to_stream)
{
	return emit_set(o, c, NULL, NULL, ro, to_stream);
}

/* Fills *ret by memcpy, which, unlike a struct copy, keeps the zeroed padding the
 * library checks (include/pmcbench/common.h). */
static void library_opts(const struct pmc_cli_compare_opts *o, const char *old_name,
			 const char *new_name, struct pmc_compare_opts *ret)
{
	PMC_OPTS(pmc_compare_opts, co, .alpha = o->alpha, .confidence = o->confidence,
		 .no_fdr = o->no_fdr, .force = o->force,
		 .metrics = (const char *const *)o->metrics, .nmetrics = o->nmetrics,
		 .thresholds = o->thresholds, .old_name = old_name, .new_name = new_name,
		 .unpaired = o->unpaired);

	memcpy(ret, &co, sizeof(co));
}

/* Reports a comparison that pmc_compare (or pmc_compare_reference) returned r and c for:
 * the failure, or the report with the gate's decision. Frees c; returns the exit code. */
static int report(int r, struct pmc_comparison *c, char *err, size_t errlen,
		  const char *old_name, const char *new_name,
		  const struct pmc_cli_compare_opts *o, bool gate, bool no_headline)
{
	PMC_OPTS(pmc_gate_opts, go, .fail_on_inconclusive = o->fail_on_inconclusive);
	PMC_OPTS(pmc_report_opts, ro, .old_name = old_name, .new_name = new_name, .gate = gate,
		 .no_headline = no_headline,
		 .color = pmc_cli_compare_opts_color(o, report_stream(o)),
		 .all_rows = o->all_rows, .by_benchmark = o->by_benchmark);
	enum pmc_gate_outcome outcome = PMC_GATE_PASS;
	char gate_err[1280];
	int code;

	if (r < 0) {
		if (r == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		pmc_cli_error("%s", err);
		ro.error = err;
		ro.exit_code = PMC_EXIT_ERROR;
		/* A table on stdout would only repeat the line above; a document is still
		 * written, so that a job summary shows why the gate failed. */
		emit(o, NULL, &ro, strcmp(o->format, "table") != 0);
		return PMC_EXIT_ERROR;
	}
	if (gate) {
		gate_err[0] = '\0';
		if (pmc_gate_decide(c, &go, &outcome, NULL, gate_err, sizeof(gate_err)) < 0) {
			snprintf(gate_err, sizeof(gate_err), "the gate cannot decide");
			outcome = PMC_GATE_ERROR;
		}
		if (outcome == PMC_GATE_ERROR) {
			pmc_cli_error("%s", gate_err);
			ro.error = gate_err;
		}
	}
	/* The outcomes are the exit codes (README, "Exit codes"). */
	ro.exit_code = (int)outcome;
	/* The table carries its warnings; with a document on stdout they go to stderr. */
	if (strcmp(o->format, "table") != 0)
		for (size_t i = 0; i < pmc_comparison_warning_count(c); i++)
			pmc_cli_warn("%s", pmc_comparison_warning_at(c, i));
	code = emit(o, c, &ro, true);
	pmc_comparison_free(c);
	return code;
}

int pmc_cli_compare_results(const struct pmc_result *old_r, const char *old_name,
			    const struct pmc_result *new_r, const char *new_name,
			    const struct pmc_cli_compare_opts *o, bool gate)
{
	struct pmc_compare_opts co;
	struct pmc_comparison *c = NULL;
	char err[1024];
	int r;

	library_opts(o, old_name, new_name, &co);
	r = pmc_compare(old_r, new_r, &co, &c, err, sizeof(err));
	return report(r, c, err, sizeof(err), old_name, new_name, o, gate, false);
}

int pmc_cli_compare_reference(const struct pmc_result *r, size_t ref,
			      const struct pmc_cli_compare_opts *o, bool gate,
			      struct pmc_comparison *pre)
{
	const char *label = r->benchmarks[ref].name;
	/* With two commands the other side has a name; with more, each row names its own. */
	const char *other = r->nbench == 2 ? r->benchmarks[1 - ref].name : "command";
	struct pmc_compare_opts co;
	struct pmc_comparison *c = pre;
	char err[1024];
	int rc = 0;

	library_opts(o, label, other, &co);
	if (!c)
		rc = pmc_compare_reference(r, ref, &co, &c, err, sizeof(err));
	return report(rc, c, err, sizeof(err), label, other, o, gate, pre != NULL);
}

struct pmc_comparison *pmc_cli_compare_headline(const struct pmc_result *r, size_t ref,
						const struct pmc_cli_compare_opts *o, FILE *out)
{
	const char *label = r->benchmarks[ref].name;
	const char *other = r->nbench == 2 ? r->benchmarks[1 - ref].name : "command";
	struct pmc_compare_opts co;
	PMC_OPTS(pmc_report_opts, ro, .old_name = label, .new_name = other);
	struct pmc_comparison *c = NULL;
	char line[512], err[1024];

	library_opts(o, label, other, &co);
	if (pmc_compare_reference(r, ref, &co, &c, err, sizeof(err)) < 0)
		return NULL;
	if (out && pmc_cmp_headline(c, &ro, line, sizeof(line)))
		fprintf(out, "%s\n", line);
	return c;
}

static void compare_help(FILE *out)
{
	fputs("Usage: pmcbench compare [OPTION]... OLD.json NEW.json [NEW2.json]...\n"
	      "Compare two result files: per benchmark and metric, the medians with their\n"
	      "confidence intervals, the change as a ratio with its confidence interval, the\n"
	      "Mann-Whitney U p-value and a verdict (regression, improvement, no change,\n"
	      "inconclusive). Benchmarks are paired by name, metrics by id. With more files,\n"
	      "each later one is compared with the first, as two files would be, and the\n"
	      "report holds one comparison per file.\n"
	      "Besides pmcbench's result files, OLD and NEW may be Google Benchmark JSON,\n"
	      "hyperfine --export-json, perf stat -x, or -j output, or go test -bench\n"
	      "output, told apart by their content (docs/import.md).\n\n",
	      out);
	pmc_cli_compare_opts_help(out);
	fputs("      --filter EXPR           compare only what EXPR selects (repeatable, all\n"
	      "                              must hold): name:GLOB or a plain GLOB of benchmark\n"
	      "                              names, metric:GLOB of metric ids; -name:GLOB and\n"
	      "                              -metric:GLOB leave out what they match\n"
	      "      --row KEY               what a row is: benchmark (default; a table per\n"
	      "                              metric) or metric (a table per benchmark)\n"
	      "      --col KEY               file only: the files are the columns, the first\n"
	      "                              the base (benchstat's -col .file)\n"
	      "  -o, --output FILE           same as --report FILE\n"
	      "      --export FILE           also write the comparison to FILE (atomically;\n"
	      "                              repeatable) in the format its extension names:\n"
	      "                              .json, .csv, .md, or .txt (both sides' samples in\n"
	      "                              Go's benchmark format: benchstat -col side FILE;\n"
	      "                              two files only); docs/export.md\n"
	      "  -h, --help                  display this help and exit\n\n"
	      "Exit status: 0 when compared, whatever the verdicts (use 'pmcbench gate' to\n"
	      "fail on a regression); 2 on an error (unreadable or invalid file, nothing in\n"
	      "common, a unit mismatch, different commands or backends, simulated against\n"
	      "hardware counts, a filter that is invalid or selects nothing).\n",
	      out);
}

static void gate_help(FILE *out)
{
	fputs("Usage: pmcbench gate [OPTION]... --baseline BASE.json NEW.json\n"
	      "Fail when NEW regresses against the baseline BASE beyond a threshold: the\n"
	      "change must be significant and its whole confidence interval beyond the\n"
	      "limit (for exact counts, the change itself). Only the gated metrics decide:\n"
	      "those a limit names, or without one, those gated by default. BASE and NEW\n"
	      "may also be other tools' results, as for 'pmcbench compare'.\n\n"
	      "  -b, --baseline FILE         the baseline result (any result file)\n",
	      out);
	pmc_cli_compare_opts_help(out);
	fputs("  -o, --output FILE           same as --report FILE\n"
	      "      --export FILE           also write the comparison to FILE (atomically;\n"
	      "                              repeatable) in the format its extension names:\n"
	      "                              .json, .csv, .md, or .txt (both sides' samples in\n"
	      "                              Go's benchmark format: benchstat -col side FILE);\n"
	      "                              docs/export.md\n"
	      "  -h, --help                  display this help and exit\n\n"
	      "Exit status: 0 pass; 1 regression beyond a threshold; 2 error (unreadable or\n"
	      "invalid file, nothing compared, a unit mismatch, different commands or\n"
	      "backends, no gated metric, a gated metric without a value on one side or\n"
	      "with too few runs for the test to reach alpha, a --threshold or --metric\n"
	      "that matched no metric with values, a limit without a unit);\n"
	      "3 inconclusive, with --fail-on-inconclusive only.\n",
	      out);
}

/* Reports a file that cannot be loaded, and writes the report of that failure when one
 * was asked for. */
static int load_failed(const struct pmc_cli_compare_opts *o, const char *err, const char *old_name,
		       const char *new_name, bool gate)
{
	PMC_OPTS(pmc_report_opts, ro, .old_name = old_name, .new_name = new_name, .gate = gate,
		 .exit_code = PMC_EXIT_ERROR, .error = err);

	pmc_cli_error("%s", err);
	/* The exit code is 2 already; a report that cannot be written adds its own line. */
	emit(o, NULL, &ro, strcmp(o->format, "table") != 0);
	return PMC_EXIT_ERROR;
}

struct load_job {
	const char *path;
	struct pmc_result *r;
	int rc;
	char err[1024];
	pthread_t thread;
};

static void *load_one(void *arg)
{
	struct load_job *j = arg;

	j->err[0] = '\0';
	/* pmcbench's files, and other tools' results told by their content (docs/import.md). */
	j->rc = pmc_result_load_any(j->path, &j->r, j->err, sizeof(j->err));
	if (j->rc < 0 && (j->err[0] == '\0' || j->rc == -ENOMEM))
		snprintf(j->err, sizeof(j->err), "%s: %s", j->path, strerror(-j->rc));
	return NULL;
}

/* Loads every file at once: for large results the parsing is most of the time of a
 * comparison, and the loader is reentrant (it keeps its own C locale). */
static void load_all(struct load_job *jobs, size_t n)
{
	bool *threaded = calloc(n, sizeof(*threaded));

	for (size_t i = 1; threaded && i < n; i++)
		threaded[i] = pthread_create(&jobs[i].thread, NULL, load_one, &jobs[i]) == 0;
	load_one(&jobs[0]);
	for (size_t i = 1; i < n; i++) {
		if (threaded && threaded[i])
			pthread_join(jobs[i].thread, NULL);
		else
			load_one(&jobs[i]);
	}
	free(threaded);
}

static void *free_one(void *arg)
{
	pmc_result_free(arg);
	return NULL;
}

/* Frees the results, the first on a thread of its own: a large result takes as long to
 * free as to compare. */
static void free_all(struct pmc_result **rs, size_t n)
{
	pthread_t t;
	bool threaded = n > 1 && rs[0] && pthread_create(&t, NULL, free_one, rs[0]) == 0;

	for (size_t i = threaded ? 1 : 0; i < n; i++)
		pmc_result_free(rs[i]);
	if (threaded)
		pthread_join(t, NULL);
}

/* compare A B C ...: each later file against the first, each comparison as two files
 * give it, reported together (docs/compare.md, "More than two files"). */
static int compare_many(struct pmc_result *const *rs, const char *const *names, size_t n,
			const struct pmc_cli_compare_opts *o, const struct pmc_cli_profiles *ps)
{
	struct pmc_comparison **cs = calloc(n - 1, sizeof(*cs));
	PMC_OPTS(pmc_report_opts, ro, .old_name = names[0],
		 .color = pmc_cli_compare_opts_color(o, report_stream(o)),
		 .all_rows = o->all_rows, .by_benchmark = o->by_benchmark);
	struct pmc_cli_comparison_set set = {.cs = (const struct pmc_comparison *const *)cs,
					     .names = names,
					     .n = n - 1};
	char err[1024];
	int code = PMC_EXIT_ERROR;

	if (!cs) {
		pmc_cli_error("out of memory");
		return PMC_EXIT_ERROR;
	}
	for (size_t i = 1; i < n; i++) {
		struct pmc_compare_opts co;
		int r;

		library_opts(o, names[0], names[i], &co);
		r = pmc_compare(rs[0], rs[i], &co, &cs[i - 1], err, sizeof(err));

		if (r < 0) {
			if (r == -ENOMEM)
				snprintf(err, sizeof(err), "out of memory");
			pmc_cli_error("%s", err);
			ro.new_name = names[i];
			ro.error = err;
			ro.exit_code = PMC_EXIT_ERROR;
			emit(o, NULL, &ro, strcmp(o->format, "table") != 0);
			goto out;
		}
	}
	/* The table carries its warnings; with a document on stdout they go to stderr,
	 * each naming its pair. */
	if (strcmp(o->format, "table") != 0)
		for (size_t i = 0; i < n - 1; i++)
			for (size_t w = 0; w < pmc_comparison_warning_count(cs[i]); w++)
				pmc_cli_warn("%s -> %s: %s", names[0], names[i + 1],
					     pmc_comparison_warning_at(cs[i], w));
	code = emit_set(o, NULL, &set, ps, &ro, true);
out:
	for (size_t i = 0; i < n - 1; i++)
		pmc_comparison_free(cs[i]);
	free(cs);
	return code;
}

enum { OPT_FORMAT = 0x100, OPT_EXPORT, OPT_FILTER, OPT_ROW, OPT_COL };

static const struct option compare_own_opts[] = {
	{"format", required_argument, NULL, OPT_FORMAT},
	{"export", required_argument, NULL, OPT_EXPORT},
	{"output", required_argument, NULL, 'o'},
	{"filter", required_argument, NULL, OPT_FILTER},
	{"row", required_argument, NULL, OPT_ROW},
	{"col", required_argument, NULL, OPT_COL},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static const struct option gate_own_opts[] = {
	{"baseline", required_argument, NULL, 'b'},
	{"format", required_argument, NULL, OPT_FORMAT},
	{"export", required_argument, NULL, OPT_EXPORT},
	{"output", required_argument, NULL, 'o'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* --row and --col, in pmcbench's words or benchstat's (.name, .unit, .file): rows are
 * benchmarks (a table per metric) or metrics (a table per benchmark); the files are
 * always the columns, the first the base. */
static int set_projection(struct pmc_cli_compare_opts *o, int opt, const char *v)
{
	static const char *const bench[] = {"benchmark", "name", ".name", ".fullname"};
	static const char *const metric[] = {"metric", ".unit"};

	if (opt == OPT_COL) {
		if (strcmp(v, "file") == 0 || strcmp(v, ".file") == 0)
			return 0;
		pmc_cli_error("--col '%s': only --col file is supported (the files are the "
			      "columns, the first the base); --row metric gives a table per "
			      "benchmark",
			      v);
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(bench) / sizeof(bench[0]); i++)
		if (strcmp(v, bench[i]) == 0) {
			o->by_benchmark = false;
			return 0;
		}
	for (size_t i = 0; i < sizeof(metric) / sizeof(metric[0]); i++)
		if (strcmp(v, metric[i]) == 0) {
			o->by_benchmark = true;
			return 0;
		}
	pmc_cli_error("--row '%s': rows are 'benchmark' (a table per metric, the default) or "
		      "'metric' (a table per benchmark)",
		      v);
	return -EINVAL;
}

static int main_common(int argc, char **argv, bool gate)
{
	const char *cmd = gate ? "gate" : "compare";
	struct pmc_cli_compare_opts *o = NULL;
	struct option *longopts;
	struct pmc_result **rs = NULL, **views = NULL;
	struct pmc_cli_profiles *profiles = NULL;
	struct load_job *jobs = NULL;
	const char **pos = NULL, *baseline = NULL;
	size_t npos = 0, nfiles = 0;
	int code = PMC_EXIT_ERROR, opt;
	char err[1024];

	longopts = pmc_cli_options_merge(gate ? gate_own_opts : compare_own_opts,
					 pmc_cli_compare_long_opts);
	if (pmc_cli_compare_opts_new(&o) < 0 || !longopts) {
		pmc_cli_error("out of memory");
		goto out;
	}
	optind = 0;
	while ((opt = pmc_cli_getopt(argc, argv, gate ? ":b:o:h" : ":o:h", longopts, cmd)) != -1) {
		switch (opt) {
		case 'h':
			code = print_help(gate ? gate_help : compare_help);
			goto out;
		case 'o':
			/* --output is --report under another name. */
			if (pmc_cli_compare_opts_set_output(o, optarg) < 0) {
				pmc_cli_error("out of memory");
				goto out;
			}
			break;
		case 'b':
			if (baseline) {
				pmc_cli_error("--baseline given twice ('%s' and '%s'); a gate has "
					      "one baseline",
					      baseline, optarg);
				goto out;
			}
			baseline = optarg;
			break;
		case OPT_FORMAT:
			if (pmc_cli_compare_opts_set_format(o, optarg) < 0)
				goto out;
			break;
		case OPT_EXPORT:
			if (pmc_cli_compare_opts_add_export(o, optarg) < 0)
				goto out;
			break;
		case OPT_FILTER: {
			int r = pmc_filter_add(&o->filter, optarg, err, sizeof(err));

			if (r < 0) {
				pmc_cli_error("--filter: %s", r == -ENOMEM ? "out of memory" : err);
				goto out;
			}
			break;
		}
		case OPT_ROW:
		case OPT_COL:
			if (set_projection(o, opt, optarg) < 0)
				goto out;
			break;
		case '?':
			goto out;
		default:
			if (pmc_cli_compare_opts_handle(o, opt, optarg) <= 0)
				goto out;
			break;
		}
	}
	npos = (size_t)(argc - optind);
	if (gate && !baseline) {
		pmc_cli_error("gate needs --baseline BASE.json and one result file; try "
			      "'pmcbench gate --help'");
		goto out;
	}
	if (gate && npos > 1) {
		pmc_cli_error("gate judges one result against its baseline, got %zu files after "
			      "--baseline %s; gate each on its own, or see them all with "
			      "'pmcbench compare %s FILE...'",
			      npos, baseline, baseline);
		goto out;
	}
	if (gate ? npos != 1 : npos < 2) {
		pmc_cli_error("%s needs %s, got %zu file%s; try 'pmcbench %s --help'", cmd,
			      gate ? "one result file after --baseline BASE.json"
				   : "two result files or more, OLD.json and NEW.json...",
			      npos, npos == 1 ? "" : "s", cmd);
		goto out;
	}
	nfiles = gate ? 2 : npos;
	if (nfiles > 2) {
		/* Go's benchmark format holds the samples of two sides. */
		if (strcmp(o->format, "gobench") == 0) {
			pmc_cli_error("--format gobench writes two files' samples, and %zu files "
				      "were given; use table, markdown, json or csv",
				      nfiles);
			goto out;
		}
		for (size_t i = 0; i < o->exports.n; i++)
			if (strcmp(o->exports.v[i].format, "gobench") == 0) {
				pmc_cli_error("--export '%s': Go's benchmark format (.txt) holds "
					      "two files' samples, and %zu files were given; use "
					      ".json, .csv or .md",
					      o->exports.v[i].path, nfiles);
				goto out;
			}
	}
	if (pmc_cli_exports_check(&o->exports) < 0)
		goto out;
	/* Text for a reader in ASCII when the locale asks; documents byte for byte. */
	if (!pmc_cli_format_is_document(o->format) && pmc_cli_ascii_wrap(&stdout) < 0) {
		pmc_cli_error("out of memory");
		goto out;
	}
	pos = calloc(nfiles, sizeof(*pos));
	jobs = calloc(nfiles, sizeof(*jobs));
	rs = calloc(nfiles, sizeof(*rs));
	views = calloc(nfiles, sizeof(*views));
	profiles = calloc(nfiles, sizeof(*profiles));
	if (!pos || !jobs || !rs || !views || !profiles) {
		pmc_cli_error("out of memory");
		goto out;
	}
	if (gate) {
		pos[0] = baseline;
		pos[1] = argv[optind];
	} else {
		for (size_t i = 0; i < nfiles; i++)
			pos[i] = argv[optind + (int)i];
	}
	for (size_t i = 0; i < nfiles; i++)
		jobs[i].path = pos[i];
	load_all(jobs, nfiles);
	for (size_t i = 0; i < nfiles; i++)
		rs[i] = jobs[i].r;
	for (size_t i = 0; i < nfiles; i++) {
		if (jobs[i].rc < 0) {
			code = load_failed(o, jobs[i].err, pos[0], pos[i ? i : 1], gate);
			goto out;
		}
	}
	for (size_t i = 0; i < nfiles; i++) {
		views[i] = rs[i];
		if (o->filter.n == 0)
			continue;
		views[i] = NULL;
		int r = pmc_filter_view(&o->filter, rs[i], pos[i], &views[i], err, sizeof(err));

		if (r < 0) {
			code = load_failed(o, r == -ENOMEM ? "out of memory" : err, pos[0],
					   pos[i ? i : 1], gate);
			goto out;
		}
	}
	for (size_t i = 0; i < nfiles; i++) {
		if (pmc_cli_profiles_load(&profiles[i], pos[i], rs[i]) < 0) {
			pmc_cli_error("out of memory");
			goto out;
		}
	}
	if (nfiles == 2) {
		pmc_cli_compare_opts_set_profiles(o, &profiles[0], &profiles[1], NULL);
		code = pmc_cli_compare_results(views[0], pos[0], views[1], pos[1], o, gate);
	} else {
		code = compare_many(views, pos, nfiles, o, profiles);
	}
out:
	for (size_t i = 0; profiles && i < nfiles; i++)
		pmc_cli_profiles_clear(&profiles[i]);
	for (size_t i = 0; views && i < nfiles; i++)
		if (views[i] != rs[i])
			pmc_filter_view_free(views[i]);
	if (rs)
		free_all(rs, nfiles);
	free(profiles);
	free(views);
	free(rs);
	free(jobs);
	free(pos);
	free(longopts);
	pmc_cli_compare_opts_free(o);
	return code;
}

int pmc_cli_compare(int argc, char **argv)
{
	return main_common(argc, argv, false);
}

int pmc_cli_gate(int argc, char **argv)
{
	return main_common(argc, argv, true);
}

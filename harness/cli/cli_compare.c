/* `pmcbench compare OLD NEW` and `pmcbench gate --baseline BASE NEW`, and the comparison
 * options they share with `pmcbench run` (-c A -c B, --baseline). `compare` reports and
 * exits 0 whatever the verdicts; `gate` decides: 1 on a regression beyond a threshold,
 * 3 on an inconclusive row with --fail-on-inconclusive. Errors exit 2 (docs/compare.md). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/grow.h"
#include "harness/base/atomic_file.h"
#include "harness/cli/cli.h"
#include "harness/cli/cli_profile.h"
#include "harness/core/compare.h"
#include "harness/core/gate.h"
#include "harness/core/result.h"
#include "harness/core/threshold.h"
#include "harness/formats/import.h"
#include "harness/formats/thresholds_json.h"
#include "pmcbench/report.h"
#include "reporters/compare_cells.h"

struct pmc_cli_compare_opts {
	double alpha, confidence;
	char **metrics;
	size_t nmetrics;
	const char *format; /* a format of pmcbench/report.h, by its canonical name */
	char *output;
	struct pmc_thresholds *thresholds;
	bool no_fdr, fail_on_inconclusive, force, unpaired;
	enum { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } color; /* --color */
	const char *first_given; /* the first option that judges a comparison, or NULL */
	FILE *out; /* the report's stream; NULL: stdout */
	struct pmc_cli_exports exports; /* compare, gate: --export */
	/* The profiles of both sides (cli_profile.h): a regression is explained with them.
	 * profile_ref: the old side's benchmark in a reference comparison. */
	const struct pmc_cli_profiles *old_profiles, *new_profiles;
	const char *profile_ref;
};

void pmc_cli_compare_opts_set_profiles(struct pmc_cli_compare_opts *o,
				       const struct pmc_cli_profiles *old_ps,
				       const struct pmc_cli_profiles *new_ps, const char *ref_name)
{
	o->old_profiles = old_ps;
	o->new_profiles = new_ps;
	o->profile_ref = ref_name;
}

int pmc_cli_compare_opts_new(struct pmc_cli_compare_opts **ret)
{
	struct pmc_cli_compare_opts *o = calloc(1, sizeof(*o));

	if (!o)
		return -ENOMEM;
	o->alpha = 0.05;
	o->confidence = 0.95;
	o->format = "table";
	if (pmc_thresholds_new(&o->thresholds) < 0) {
		free(o);
		return -ENOMEM;
	}
	*ret = o;
	return 0;
}

void pmc_cli_compare_opts_set_stream(struct pmc_cli_compare_opts *o, FILE *out)
{
	if (o)
		o->out = out;
}

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

void pmc_cli_compare_opts_free(struct pmc_cli_compare_opts *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->nmetrics; i++)
		free(o->metrics[i]);
	free(o->metrics);
	free(o->output);
	pmc_thresholds_free(o->thresholds);
	pmc_cli_exports_clear(&o->exports);
	free(o);
}

/* A probability strictly between 0 and 1, as a fraction ("0.95") or a percentage
 * ("95%"). A bare number above 1 is refused rather than read as a percentage: "1.5"
 * could mean 1.5% or be a typo of 0.15, and a wrong guess changes every verdict. */
static int parse_fraction(const char *name, const char *text, const char *example, double *ret)
{
	bool percent = false;
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (end != text && *end == '%' && end[1] == '\0') {
		v /= 100;
		end++;
		percent = true;
	}
	if (errno || end == text || *end != '\0' || isnan(v)) {
		pmc_cli_error("%s '%s': expected a number between 0 and 1 (e.g. %s or %g%%)", name,
			      text, example, strtod(example, NULL) * 100);
		return -EINVAL;
	}
	if (!(v > 0 && v < 1)) {
		pmc_cli_error("%s '%s': must lie strictly between 0 and 1%s; use %s or %g%%", name,
			      text, percent ? " (0% and 100%)" : "", example,
			      strtod(example, NULL) * 100);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

enum {
	OPT_ALPHA = PMC_CLI_COMPARE_OPT_FIRST,
	OPT_CONFIDENCE,
	OPT_METRIC,
	OPT_THRESHOLD,
	OPT_THRESHOLDS,
	OPT_NO_FDR,
	OPT_FAIL_ON_INCONCLUSIVE,
	OPT_FORCE,
	OPT_REPORT,
	OPT_COLOR,
};

const struct option pmc_cli_compare_long_opts[] = {
	{"alpha", required_argument, NULL, OPT_ALPHA},
	{"confidence", required_argument, NULL, OPT_CONFIDENCE},
	{"metric", required_argument, NULL, OPT_METRIC},
	{"threshold", required_argument, NULL, OPT_THRESHOLD},
	{"thresholds", required_argument, NULL, OPT_THRESHOLDS},
	{"no-fdr", no_argument, NULL, OPT_NO_FDR},
	{"fail-on-inconclusive", no_argument, NULL, OPT_FAIL_ON_INCONCLUSIVE},
	{"force", no_argument, NULL, OPT_FORCE},
	{"report", required_argument, NULL, OPT_REPORT},
	{"color", required_argument, NULL, OPT_COLOR},
	{NULL, 0, NULL, 0},
};

static int set_output(struct pmc_cli_compare_opts *o, const char *path)
{
	free(o->output);
	o->output = strdup(path);
	return o->output ? 0 : -ENOMEM;
}

int pmc_cli_compare_opts_set_format(struct pmc_cli_compare_opts *o, const char *name)
{
	if (pmc_report_format(name, PMC_REPORT_COMPARISON, &o->format, NULL) < 0) {
		pmc_cli_error("--format '%s': unknown format; use table, markdown, json, csv or "
			      "gobench",
			      name);
		return -EINVAL;
	}
	return 0;
}

int pmc_cli_compare_opts_add_export(struct pmc_cli_compare_opts *o, const char *path)
{
	return pmc_cli_exports_add(&o->exports, path);
}

int pmc_cli_compare_opts_handle(struct pmc_cli_compare_opts *o, int opt, const char *v)
{
	char err[512];
	int r;

	/* Colour is how, not what: it does nothing wrong where nothing is compared. */
	for (size_t i = 0; !o->first_given && opt != OPT_COLOR && pmc_cli_compare_long_opts[i].name; i++)
		if (pmc_cli_compare_long_opts[i].val == opt)
			o->first_given = pmc_cli_compare_long_opts[i].name;

	switch (opt) {
	case OPT_NO_FDR:
		o->no_fdr = true;
		return 1;
	case OPT_FAIL_ON_INCONCLUSIVE:
		o->fail_on_inconclusive = true;
		return 1;
	case OPT_FORCE:
		o->force = true;
		return 1;
	case OPT_ALPHA:
		r = parse_fraction("--alpha", v, "0.05", &o->alpha);
		return r < 0 ? r : 1;
	case OPT_CONFIDENCE:
		r = parse_fraction("--confidence", v, "0.95", &o->confidence);
		return r < 0 ? r : 1;
	case OPT_METRIC:
		if (v[0] == '\0') {
			pmc_cli_error("--metric: empty metric id; give one such as instructions");
			return -EINVAL;
		}
		if (pmc_grow(&o->metrics, o->nmetrics, sizeof(*o->metrics)) < 0)
			goto fail_memory;
		o->metrics[o->nmetrics] = strdup(v);
		if (!o->metrics[o->nmetrics])
			goto fail_memory;
		o->nmetrics++;
		return 1;
	case OPT_COLOR:
		if (strcmp(v, "auto") == 0) {
			o->color = COLOR_AUTO;
		} else if (strcmp(v, "always") == 0) {
			o->color = COLOR_ALWAYS;
		} else if (strcmp(v, "never") == 0) {
			o->color = COLOR_NEVER;
		} else {
			pmc_cli_error("--color: '%s' is not auto, always or never", v);
			return -EINVAL;
		}
		return 1;
	case OPT_REPORT:
		if (set_output(o, v) < 0)
			goto fail_memory;
		return 1;
	case OPT_THRESHOLDS:
		r = pmc_thresholds_load(o->thresholds, v, err, sizeof(err));
		if (r < 0) {
			pmc_cli_error("%s", err);
			return -EINVAL;
		}
		return 1;
	case OPT_THRESHOLD:
		r = pmc_thresholds_add_arg(o->thresholds, v, err, sizeof(err));
		if (r < 0) {
			pmc_cli_error("%s", r == -ENOMEM ? "out of memory" : err);
			return -EINVAL;
		}
		return 1;
	default:
		return 0;
	}

fail_memory:
	pmc_cli_error("out of memory");
	return -EINVAL;
}

void pmc_cli_compare_opts_help(FILE *out)
{
	fputs("Comparison options:\n"
	      "      --threshold METRIC=LIMIT  regression limit of a metric (repeatable):\n"
	      "                              5% (either way), +1% (an increase is bad),\n"
	      "                              -2% (a decrease is bad), +2MiB, +10ms, +1k\n"
	      "                              (absolute: a unit is required); METRIC '*' sets\n"
	      "                              the default (built in: 5%). gate judges the\n"
	      "                              metrics named, or without any, those gated by\n"
	      "                              default (docs/metrics.md)\n"
	      "      --thresholds FILE       per-benchmark and per-metric limits (JSON, see\n"
	      "                              docs/compare.md)\n"
	      "      --metric ID             compare only this metric (repeatable; a glob such\n"
	      "                              as 'L1-*' works)\n"
	      "      --alpha P               significance level, 0 < P < 1 (default 0.05; 5%\n"
	      "                              works too)\n"
	      "      --confidence C          level of every confidence interval, 0 < C < 1\n"
	      "                              (default 0.95; 95% works too)\n"
	      "      --no-fdr                judge raw p-values instead of Benjamini-Hochberg\n"
	      "                              adjusted ones\n"
	      "      --fail-on-inconclusive  gate: exit 3 when a verdict is inconclusive\n"
	      "      --force                 allow results of different commands or\n"
	      "                              backends, and simulated (valgrind) metrics\n"
	      "                              against hardware ones of the same id\n"
	      "      --format FORMAT         compare, gate: the report as table (default),\n"
	      "                              markdown, json, csv or gobench (Go's benchmark\n"
	      "                              format); in run, run's own --format decides, and\n"
	      "                              the comparison follows it for table and markdown\n"
	      "      --report FILE           also write the report to FILE (atomically, even\n"
	      "                              when the comparison fails)\n"
	      "      --color WHEN            colour the verdicts: auto (default: when the\n"
	      "                              report goes to a terminal and NO_COLOR is unset),\n"
	      "                              always or never\n",
	      out);
}

/* Writes the report to path atomically (harness/base/atomic_file.h), so that a reader
 * never sees half a report. */
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

static int write_report_file(const struct pmc_cli_compare_opts *o, const struct pmc_comparison *c,
			     const struct pmc_report_opts *ro)
{
	const char *path = o->output;
	struct pmc_atomic_file *af;
	int r;

	r = pmc_atomic_file_open(path, &af, NULL, 0);
	if (r == 0) {
		r = pmc_report_comparison(pmc_atomic_file_stream(af), o->format, c, ro, NULL, 0);
		/* The file says where the time went too (a CI job summary shows it). */
		if (r == 0 && c && !pmc_cli_format_is_document(o->format))
			explain(o, c, pmc_atomic_file_stream(af), false);
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
static int emit(const struct pmc_cli_compare_opts *o, const struct pmc_comparison *c,
		struct pmc_report_opts *ro, bool to_stream)
{
	int code = ro->error ? PMC_EXIT_ERROR : ro->exit_code;
	FILE *out = report_stream(o);
	struct pmc_report_opts plain = *ro;

	/* Files get no colour, whatever the terminal gets. */
	plain.color = false;

	if (to_stream) {
		int r;

		errno = 0;
		r = pmc_report_comparison(out, o->format, c, ro, NULL, 0);
		if (r == -EIO && errno)
			r = -errno; /* what the failed write said: ENOSPC, EPIPE, ... */
		else if (r == 0)
			r = check_written(out);
		if (r < 0) {
			pmc_cli_error("cannot write the report to %s: %s", stream_name(out),
				      strerror(-r));
			code = PMC_EXIT_ERROR;
		} else if (c) {
			explain(o, c, out, true);
		}
	}
	if (o->output && write_report_file(o, c, &plain) < 0)
		code = PMC_EXIT_ERROR;
	/* Exports hold a comparison: none is written when there is none. */
	if (c && pmc_cli_exports_comparison(&o->exports, c, &plain) < 0)
		code = PMC_EXIT_ERROR;
	return code;
}

static struct pmc_compare_opts library_opts(const struct pmc_cli_compare_opts *o,
					    const char *old_name, const char *new_name)
{
	return (struct pmc_compare_opts){
	    .sz = sizeof(struct pmc_compare_opts),
	    .alpha = o->alpha,
	    .confidence = o->confidence,
	    .no_fdr = o->no_fdr,
	    .force = o->force,
	    .metrics = (const char *const *)o->metrics,
	    .nmetrics = o->nmetrics,
	    .thresholds = o->thresholds,
	    .old_name = old_name,
	    .new_name = new_name,
	    .unpaired = o->unpaired,
	};
}

bool pmc_cli_compare_opts_color(const struct pmc_cli_compare_opts *o, FILE *f)
{
	const char *no = getenv("NO_COLOR");

	int fd = fileno(f);

	if (o->color != COLOR_AUTO)
		return o->color == COLOR_ALWAYS;
	/* A stream of cli_ascii.c has no descriptor: it writes to stdout or stderr. */
	if (fd < 0)
		fd = f == stderr ? STDERR_FILENO : STDOUT_FILENO;
	/* https://no-color.org: set and not empty. */
	return isatty(fd) && !(no && no[0]);
}

int pmc_cli_compare_opts_check_used(const struct pmc_cli_compare_opts *o, bool compares,
				    const char *fix)
{
	if (compares || !o->first_given)
		return 0;
	pmc_cli_error("--%s judges a comparison, and here nothing is compared; %s", o->first_given,
		      fix);
	return -EINVAL;
}

void pmc_cli_compare_opts_set_unpaired(struct pmc_cli_compare_opts *o, bool unpaired)
{
	o->unpaired = unpaired;
}

double pmc_cli_compare_opts_alpha(const struct pmc_cli_compare_opts *o)
{
	return o->alpha;
}

const struct pmc_thresholds *pmc_cli_compare_opts_thresholds(const struct pmc_cli_compare_opts *o)
{
	return o->thresholds;
}

bool pmc_cli_compare_opts_fail_on_inconclusive(const struct pmc_cli_compare_opts *o)
{
	return o->fail_on_inconclusive;
}

const char *pmc_cli_compare_opts_report(const struct pmc_cli_compare_opts *o, bool *ret_markdown)
{
	*ret_markdown = strcmp(o->format, "markdown") == 0;
	return o->output;
}

/* Reports a comparison that pmc_compare (or pmc_compare_reference) returned r and c for:
 * the failure, or the report with the gate's decision. Frees c; returns the exit code. */
static int report(int r, struct pmc_comparison *c, char *err, size_t errlen,
		  const char *old_name, const char *new_name,
		  const struct pmc_cli_compare_opts *o, bool gate, bool no_headline)
{
	struct pmc_gate_opts go = {
	    .sz = sizeof(go),
	    .fail_on_inconclusive = o->fail_on_inconclusive,
	};
	struct pmc_report_opts ro = {
	    .sz = sizeof(ro),
	    .old_name = old_name,
	    .new_name = new_name,
	    .gate = gate,
	    .no_headline = no_headline,
	    .color = pmc_cli_compare_opts_color(o, report_stream(o)),
	};
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
			pmc_cli_warn("%s", pmc_comparison_warning(c, i));
	code = emit(o, c, &ro, true);
	pmc_comparison_free(c);
	return code;
}

int pmc_cli_compare_results(const struct pmc_result *old_r, const char *old_name,
			    const struct pmc_result *new_r, const char *new_name,
			    const struct pmc_cli_compare_opts *o, bool gate)
{
	struct pmc_compare_opts co = library_opts(o, old_name, new_name);
	struct pmc_comparison *c = NULL;
	char err[1024];
	int r;

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
	struct pmc_compare_opts co = library_opts(o, label, other);
	struct pmc_comparison *c = pre;
	char err[1024];
	int rc = 0;

	if (!c)
		rc = pmc_compare_reference(r, ref, &co, &c, err, sizeof(err));
	return report(rc, c, err, sizeof(err), label, other, o, gate, pre != NULL);
}

struct pmc_comparison *pmc_cli_compare_headline(const struct pmc_result *r, size_t ref,
						const struct pmc_cli_compare_opts *o, FILE *out)
{
	const char *label = r->benchmarks[ref].name;
	const char *other = r->nbench == 2 ? r->benchmarks[1 - ref].name : "command";
	struct pmc_compare_opts co = library_opts(o, label, other);
	struct pmc_report_opts ro = { .sz = sizeof(ro), .old_name = label, .new_name = other };
	struct pmc_comparison *c = NULL;
	char line[512], err[1024];

	if (pmc_compare_reference(r, ref, &co, &c, err, sizeof(err)) < 0)
		return NULL;
	if (out && pmc_cmp_headline(c, &ro, line, sizeof(line)))
		fprintf(out, "%s\n", line);
	return c;
}

static void compare_help(FILE *out)
{
	fputs("Usage: pmcbench compare [OPTION]... OLD.json NEW.json\n"
	      "Compare two result files: per benchmark and metric, the medians with their\n"
	      "confidence intervals, the change as a ratio with its confidence interval, the\n"
	      "Mann-Whitney U p-value and a verdict (regression, improvement, no change,\n"
	      "inconclusive). Benchmarks are paired by name, metrics by id.\n"
	      "Besides pmcbench's result files, OLD and NEW may be Google Benchmark JSON,\n"
	      "hyperfine --export-json, perf stat -x, or -j output, or go test -bench\n"
	      "output, told apart by their content (docs/import.md).\n\n",
	      out);
	pmc_cli_compare_opts_help(out);
	fputs("  -o, --output FILE           same as --report FILE\n"
	      "      --export FILE           also write the comparison to FILE (atomically;\n"
	      "                              repeatable) in the format its extension names:\n"
	      "                              .json, .csv, .md, or .txt (both sides' samples in\n"
	      "                              Go's benchmark format: benchstat -col side FILE);\n"
	      "                              docs/export.md\n"
	      "  -h, --help                  display this help and exit\n\n"
	      "Exit status: 0 when compared, whatever the verdicts (use 'pmcbench gate' to\n"
	      "fail on a regression); 2 on an error (unreadable or invalid file, nothing in\n"
	      "common, a unit mismatch, different commands or backends, simulated against\n"
	      "hardware counts).\n",
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
	struct pmc_report_opts ro = {
	    .sz = sizeof(ro),
	    .old_name = old_name,
	    .new_name = new_name,
	    .gate = gate,
	    .exit_code = PMC_EXIT_ERROR,
	    .error = err,
	};

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

/* Loads both files at once: for large results the parsing is most of the time of a
 * comparison, and the loader is reentrant (it keeps its own C locale). */
static void load_both(struct load_job *jobs)
{
	bool threaded = pthread_create(&jobs[1].thread, NULL, load_one, &jobs[1]) == 0;

	load_one(&jobs[0]);
	if (threaded)
		pthread_join(jobs[1].thread, NULL);
	else
		load_one(&jobs[1]);
}

static void *free_one(void *arg)
{
	pmc_result_free(arg);
	return NULL;
}

/* Frees both results at once: a large result takes as long to free as to compare. */
static void free_both(struct pmc_result *a, struct pmc_result *b)
{
	pthread_t t;

	if (a && b && pthread_create(&t, NULL, free_one, a) == 0) {
		pmc_result_free(b);
		pthread_join(t, NULL);
		return;
	}
	pmc_result_free(a);
	pmc_result_free(b);
}

enum { OPT_FORMAT = 0x100, OPT_EXPORT };

static const struct option compare_own_opts[] = {
	{"format", required_argument, NULL, OPT_FORMAT},
	{"export", required_argument, NULL, OPT_EXPORT},
	{"output", required_argument, NULL, 'o'},
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

static int main_common(int argc, char **argv, bool gate)
{
	const char *cmd = gate ? "gate" : "compare";
	struct pmc_cli_compare_opts *o = NULL;
	struct option *longopts;
	struct pmc_result *a = NULL, *b = NULL;
	struct pmc_cli_profiles profiles[2] = {{0}, {0}};
	const char *pos[2] = {NULL, NULL}, *baseline = NULL;
	size_t npos;
	int code = PMC_EXIT_ERROR, opt;

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
			if (set_output(o, optarg) < 0) {
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
	if (npos != (gate ? 1u : 2u)) {
		pmc_cli_error("%s needs %s, got %zu file%s; try 'pmcbench %s --help'", cmd,
			      gate ? "one result file after --baseline BASE.json"
				   : "two result files, OLD.json and NEW.json",
			      npos, npos == 1 ? "" : "s", cmd);
		goto out;
	}
	if (pmc_cli_exports_check(&o->exports) < 0)
		goto out;
	/* Text for a reader in ASCII when the locale asks; documents byte for byte. */
	if (!pmc_cli_format_is_document(o->format) && pmc_cli_ascii_wrap(&stdout) < 0) {
		pmc_cli_error("out of memory");
		goto out;
	}
	if (gate) {
		pos[0] = baseline;
		pos[1] = argv[optind];
	} else {
		pos[0] = argv[optind];
		pos[1] = argv[optind + 1];
	}
	{
		struct load_job jobs[2] = {{.path = pos[0]}, {.path = pos[1]}};

		load_both(jobs);
		a = jobs[0].r;
		b = jobs[1].r;
		for (int side = 0; side < 2; side++) {
			if (jobs[side].rc < 0) {
				code = load_failed(o, jobs[side].err, pos[0], pos[1], gate);
				goto out;
			}
		}
	}
	if (pmc_cli_profiles_load(&profiles[0], pos[0], a) < 0 ||
	    pmc_cli_profiles_load(&profiles[1], pos[1], b) < 0) {
		pmc_cli_error("out of memory");
		goto out;
	}
	pmc_cli_compare_opts_set_profiles(o, &profiles[0], &profiles[1], NULL);
	code = pmc_cli_compare_results(a, pos[0], b, pos[1], o, gate);
out:
	pmc_cli_profiles_clear(&profiles[0]);
	pmc_cli_profiles_clear(&profiles[1]);
	free_both(a, b);
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

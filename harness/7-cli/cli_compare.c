/* `pmcbench compare OLD NEW [NEW2...]` and `pmcbench gate --baseline BASE NEW`: their
 * options (the comparison's: cli_compare_opts.c), the files loaded, then the comparison,
 * the gate and the reports of the session layer (harness/6-session/session_compare.c).
 * `compare` reports and exits 0 whatever the verdicts; `gate` decides: 1 on a regression
 * beyond a threshold, 3 on an inconclusive row with --fail-on-inconclusive. Errors exit 2
 * (docs/compare.md). */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/result.h"
#include "formats/import.h"
#include "pmcbench/compare.h"
#include "pmcbench/report.h"
#include "reporters/reporter.h"

/* Prints a help text on stdout; 0, or 2 after one error line when it could not be written. */
static int print_help(void (*help)(FILE *))
{
	int r;

	help(stdout);
	r = pmc_session_stream_flush(stdout);
	if (r < 0) {
		pmc_cli_error("cannot write the help to standard output: %s", strerror(-r));
		return PMC_EXIT_ERROR;
	}
	return PMC_EXIT_OK;
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
			o->s.by_benchmark = false;
			return 0;
		}
	for (size_t i = 0; i < sizeof(metric) / sizeof(metric[0]); i++)
		if (strcmp(v, metric[i]) == 0) {
			o->s.by_benchmark = true;
			return 0;
		}
	pmc_cli_error("--row '%s': rows are 'benchmark' (a table per metric, the default) or "
		      "'metric' (a table per benchmark)",
		      v);
	return -EINVAL;
}

/* A report of more than two files in a format that holds two sides' samples at most
 * (the reporter's two_sides: Go's benchmark format) is refused before anything is read.
 * Returns 0, or -1 after an error line. */
static int refuse_two_sides(const struct pmc_cli_compare_opts *o, size_t nfiles)
{
	const struct pmc_reporter *rep = pmc_reporter_find(o->s.format);
	char names[128];

	if (rep && rep->two_sides) {
		pmc_reporter_names(PMC_REPORTERS_COMPARISONS, names, sizeof(names));
		pmc_cli_error("--format %s writes two files' samples, and %zu files were given; "
			      "use %s",
			      rep->name, nfiles, names);
		return -1;
	}
	for (size_t i = 0; i < o->s.exports.n; i++) {
		rep = pmc_reporter_find(o->s.exports.v[i].format);
		if (!rep || !rep->two_sides)
			continue;
		pmc_reporter_set_extensions(PMC_REPORTERS_COMPARISONS, names, sizeof(names));
		pmc_cli_error("--export '%s': %s (%s) holds two files' samples, and %zu files were "
			      "given; use %s",
			      o->s.exports.v[i].path, rep->describe ? rep->describe : rep->name,
			      rep->ext, nfiles, names);
		return -1;
	}
	return 0;
}

static int main_common(int argc, char **argv, bool gate)
{
	const char *cmd = gate ? "gate" : "compare";
	struct pmc_cli_compare_opts *o = NULL;
	struct option *longopts;
	struct pmc_result **rs = NULL, **views = NULL;
	struct pmc_session_profiles *profiles = NULL;
	struct load_job *jobs = NULL;
	const char **pos = NULL, *baseline = NULL;
	size_t npos = 0, nfiles = 0;
	int code = PMC_EXIT_ERROR, opt;
	enum pmc_decision d;
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
			if (pmc_session_exports_add(&o->s.exports, optarg, &pmc_cli_printer) < 0)
				goto out;
			break;
		case OPT_FILTER: {
			int r = pmc_filter_add(&o->s.filter, optarg, err, sizeof(err));

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
	if (nfiles > 2 && refuse_two_sides(o, nfiles) < 0)
		goto out;
	if (pmc_session_exports_check(&o->s.exports, &pmc_cli_printer) < 0)
		goto out;
	/* Text for a reader in ASCII when the locale asks; documents byte for byte. */
	if (!pmc_session_format_is_document(o->s.format) && pmc_cli_ascii_wrap(&stdout) < 0) {
		pmc_cli_error("out of memory");
		goto out;
	}
	o->s.out = stdout;
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
			pmc_session_compare_failed(&o->s, jobs[i].err, pos[0], pos[i ? i : 1], gate,
						   &pmc_cli_printer);
			goto out;
		}
	}
	for (size_t i = 0; i < nfiles; i++) {
		views[i] = rs[i];
		if (o->s.filter.n == 0)
			continue;
		views[i] = NULL;
		int r = pmc_filter_view(&o->s.filter, rs[i], pos[i], &views[i], err, sizeof(err));

		if (r < 0) {
			pmc_session_compare_failed(&o->s, r == -ENOMEM ? "out of memory" : err,
						   pos[0], pos[i ? i : 1], gate, &pmc_cli_printer);
			goto out;
		}
	}
	for (size_t i = 0; i < nfiles; i++) {
		if (pmc_session_profiles_load(&profiles[i], pos[i], rs[i], &pmc_cli_printer) < 0) {
			pmc_cli_error("out of memory");
			goto out;
		}
	}
	if (nfiles == 2) {
		o->s.old_profiles = &profiles[0];
		o->s.new_profiles = &profiles[1];
		d = pmc_session_compare_results(views[0], pos[0], views[1], pos[1], &o->s, gate,
						&pmc_cli_printer);
	} else {
		d = pmc_session_compare_many(views, pos, nfiles, &o->s, profiles, &pmc_cli_printer);
	}
	code = pmc_cli_exit_status(0, d);
out:
	for (size_t i = 0; profiles && i < nfiles; i++)
		pmc_session_profiles_clear(&profiles[i]);
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

/* The comparison options that `compare`, `gate` and `run` (-c A -c B, --baseline)
 * share: parsing them into the session's comparison settings, and their help. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/grow.h"
#include "cli/cli.h"
#include "core/threshold.h"
#include "formats/thresholds_json.h"
#include "pmcbench/compare.h"
#include "pmcbench/report.h"
#include "reporters/reporter.h"

int pmc_cli_compare_opts_new(struct pmc_cli_compare_opts **ret)
{
	struct pmc_cli_compare_opts *o = calloc(1, sizeof(*o));

	if (!o)
		return -ENOMEM;
	if (pmc_session_compare_init(&o->s) < 0) {
		free(o);
		return -ENOMEM;
	}
	/* The CLI's reports go to standard output, unless a command says otherwise (after
	 * cli_ascii.c replaced it, or beside a document). */
	o->s.out = stdout;
	*ret = o;
	return 0;
}

void pmc_cli_compare_opts_free(struct pmc_cli_compare_opts *o)
{
	if (!o)
		return;
	pmc_session_compare_clear(&o->s);
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
	OPT_ALL,
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
    {"all", no_argument, NULL, OPT_ALL},
    {NULL, 0, NULL, 0},
};

int pmc_cli_compare_opts_set_output(struct pmc_cli_compare_opts *o, const char *path)
{
	free(o->s.report);
	o->s.report = strdup(path);
	return o->s.report ? 0 : -ENOMEM;
}

int pmc_cli_compare_opts_set_format(struct pmc_cli_compare_opts *o, const char *name)
{
	if (pmc_report_format(name, PMC_REPORT_COMPARISON, &o->s.format, NULL) < 0) {
		char names[128];

		pmc_reporter_names(PMC_REPORTERS_COMPARISON, names, sizeof(names));
		pmc_cli_error("--format '%s': unknown format; use %s", name, names);
		return -EINVAL;
	}
	return 0;
}

int pmc_cli_compare_opts_handle(struct pmc_cli_compare_opts *o, int opt, const char *v)
{
	char err[512];
	int r;

	/* Colour and --all are how, not what: they do nothing wrong where nothing is
	 * compared. */
	for (size_t i = 0; !o->first_given && opt != OPT_COLOR && opt != OPT_ALL &&
			   pmc_cli_compare_long_opts[i].name;
	     i++)
		if (pmc_cli_compare_long_opts[i].val == opt)
			o->first_given = pmc_cli_compare_long_opts[i].name;

	switch (opt) {
	case OPT_NO_FDR:
		o->s.no_fdr = true;
		return 1;
	case OPT_FAIL_ON_INCONCLUSIVE:
		o->s.fail_on_inconclusive = true;
		return 1;
	case OPT_FORCE:
		o->s.force = true;
		return 1;
	case OPT_ALPHA:
		r = parse_fraction("--alpha", v, "0.05", &o->s.alpha);
		return r < 0 ? r : 1;
	case OPT_CONFIDENCE:
		r = parse_fraction("--confidence", v, "0.95", &o->s.confidence);
		return r < 0 ? r : 1;
	case OPT_METRIC:
		if (v[0] == '\0') {
			pmc_cli_error("--metric: empty metric id; give one such as instructions");
			return -EINVAL;
		}
		if (pmc_grow(&o->s.metrics, o->s.nmetrics, sizeof(*o->s.metrics)) < 0)
			goto fail_memory;
		o->s.metrics[o->s.nmetrics] = strdup(v);
		if (!o->s.metrics[o->s.nmetrics])
			goto fail_memory;
		o->s.nmetrics++;
		return 1;
	case OPT_COLOR:
		if (strcmp(v, "auto") == 0) {
			o->s.color = PMC_SESSION_COLOR_AUTO;
		} else if (strcmp(v, "always") == 0) {
			o->s.color = PMC_SESSION_COLOR_ALWAYS;
			pmc_cli_controls_allow_colour();
		} else if (strcmp(v, "never") == 0) {
			o->s.color = PMC_SESSION_COLOR_NEVER;
		} else {
			pmc_cli_error("--color: '%s' is not auto, always or never", v);
			return -EINVAL;
		}
		return 1;
	case OPT_ALL:
		o->s.all_rows = true;
		return 1;
	case OPT_REPORT:
		if (pmc_cli_compare_opts_set_output(o, v) < 0)
			goto fail_memory;
		return 1;
	case OPT_THRESHOLDS:
		r = pmc_thresholds_load(o->s.thresholds, v, err, sizeof(err));
		if (r < 0) {
			pmc_cli_error("%s", err);
			return -EINVAL;
		}
		return 1;
	case OPT_THRESHOLD:
		r = pmc_thresholds_add_arg(o->s.thresholds, v, err, sizeof(err));
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
	char names[128];

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
	      "                              against hardware ones of the same id\n",
	      out);
	pmc_reporter_names(PMC_REPORTERS_COMPARISON, names, sizeof(names));
	fprintf(out,
		"      --format FORMAT         compare, gate: the report as one of\n"
		"                              %s\n"
		"                              (default table; gobench: Go's benchmark format);\n"
		"                              in run, run's own --format decides, and the\n"
		"                              comparison follows it for table and markdown\n",
		names);
	fputs("      --report FILE           also write the report to FILE (atomically, even\n"
	      "                              when the comparison fails)\n"
	      "      --color WHEN            colour the verdicts: auto (default: when the\n"
	      "                              report goes to a terminal and NO_COLOR is unset),\n"
	      "                              always or never\n"
	      "      --all                   show every row; by default the rows without\n"
	      "                              change that nothing else marks (a note, a limit\n"
	      "                              asked for, a row a gate judges) fold into one\n"
	      "                              line per table (Markdown: into <details>)\n",
	      out);
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

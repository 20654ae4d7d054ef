/* `pmcbench history ACTION` (docs/history.md): the help, the options of every action,
 * and the dispatcher to the actions, one file each (cli_history.h). The store is
 * harness/3-history's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "base/grow.h"
#include "base/suggest.h"
#include "base/utf8.h"
#include "cli/cli.h"
#include "cli/cli_history.h"
#include "history/history.h"
#include "reporters/reporter.h"

#define DEFAULT_DB "pmcbench-history.db"

static void history_help(FILE *out)
{
	char names[128];

	fputs("Usage: pmcbench history ACTION [OPTION]... [ARG]...\n"
	      "Keep every result with its commit, and find the change points of each series\n"
	      "(docs/history.md). The history is a SQLite file, or a PostgreSQL database\n"
	      "shared by many machines.\n\n"
	      "Actions:\n"
	      "  add       add result files: history add [OPTION]... RESULT.json...\n"
	      "  list      list the entries, oldest first\n"
	      "  show      show the series of one metric: history show BENCHMARK METRIC\n"
	      "  export    write the selected samples as CSV or JSON\n"
	      "  changes   find the change points of every selected series\n"
	      "  gate      gate a result against the last results of its fingerprint:\n"
	      "            history gate [OPTION]... RESULT.json\n"
	      "  remove    remove entries (a bad run): history remove ENTRY...\n"
	      "  bisect    find the first bad commit between a good and a bad one: git\n"
	      "            bisect run with a build and a measurement; history bisect\n"
	      "            --good REV --bad REV --build CMD --threshold M=L -- COMMAND\n\n"
	      "Every action:\n"
	      "      --db URL              the history: a SQLite file (default $PMCBENCH_HISTORY,\n"
	      "                            else " DEFAULT_DB "), or postgresql://USER@HOST/DB\n"
	      "                            (password from PGPASSWORD, ~/.pgpass or the URL)\n\n",
	      out);
	fputs("add:\n"
	      "      --commit SHA          the commit measured (default: $GITHUB_SHA,\n"
	      "                            $CI_COMMIT_SHA, else git rev-parse HEAD here)\n"
	      "      --branch NAME         its branch (default: $GITHUB_HEAD_REF,\n"
	      "                            $GITHUB_REF_NAME, $CI_COMMIT_REF_NAME, else git)\n"
	      "      --tag KEY=VALUE       a tag of the entries (repeatable)\n"
	      "      --compiler NAME       the compiler, for a result that names none\n"
	      "      --machine NAME        the machine instead of the result's hostname (a CI\n"
	      "                            runner whose hostname is new every job)\n\n"
	      "list, show, export, changes select with:\n"
	      "      --benchmark NAME      one benchmark\n"
	      "      --metric ID           one metric\n"
	      "      --branch NAME         entries of one branch\n"
	      "      --machine NAME        entries of one machine (its hostname)\n"
	      "      --fingerprint FP      entries of one fingerprint\n"
	      "      --since TIME          measured at or after TIME (YYYY-MM-DD[THH:MM:SS])\n"
	      "      --until TIME          measured at or before TIME\n"
	      "      --from COMMIT         from the first entry of COMMIT (its name, or a\n"
	      "                            prefix of its SHA)\n"
	      "      --to COMMIT           to the last entry of COMMIT\n"
	      "      --tag KEY=VALUE       entries with this tag (repeatable)\n\n"
	      "export:\n",
	      out);
	pmc_reporter_names(PMC_REPORTERS_POINTS, names, sizeof(names));
	fprintf(out,
		"      --format FMT          %s; csv (the default): one row per\n"
		"                            sample; json: an object per point\n"
		"  -o, --output FILE         write to FILE (atomically) instead of stdout\n\n",
		names);
	fputs("show, changes:\n"
	      "      --alpha P             a change point's p-value is at most P (default\n"
	      "                            0.001: about one false change in 1000 series)\n"
	      "      --min-size N          the fewest points between two changes (default 4)\n"
	      "show:\n"
	      "      --svg FILE            also draw the series as a trend chart (SVG): each\n"
	      "                            point's median and spread, the change points\n"
	      "changes:\n",
	      out);
	pmc_reporter_names(PMC_REPORTERS_CHANGES, names, sizeof(names));
	fprintf(out,
		"      --format FMT          %s; table (the default);\n"
		"                            markdown: a pull request's comment, the verdict\n"
		"                            first; json: for a webhook, schema\n"
		"                            pmcbench-changes/1\n",
		names);
	fputs("      --new-since REV|TIME  only the change points after the last entry of\n"
	      "                            commit REV, or measured at or after TIME; exit 1\n"
	      "                            when a regression is among them\n"
	      "      --regressions-only    only the changes for the worse (by each metric's\n"
	      "                            direction: higher times, lower ipc)\n"
	      "      --min-change PCT      leave out the changes smaller than PCT percent\n"
	      "      --html FILE           also write a page of the change points and the\n"
	      "                            trend chart of every selected series\n\n"
	      "gate:\n"
	      "      --last K              the baseline: the last K entries of the result's\n"
	      "                            fingerprint (default 10, at most 128), each\n"
	      "                            metric from its current level (its last change\n"
	      "                            point; exact counts: its newest value) on\n"
	      "      --branch NAME         of this branch only (default: any)\n"
	      "      --compiler NAME       as for add\n"
	      "      --machine NAME        as for add\n",
	      out);
	pmc_reporter_names(PMC_REPORTERS_COMPARISON, names, sizeof(names));
	fprintf(out,
		"      --format FMT          the report's format, as for gate:\n"
		"                            %s\n"
		"      the options of 'pmcbench gate' too: --threshold, --metric, --alpha, ...\n\n",
		names);
	fputs("bisect (in a git checkout without changes; docs/history.md, \"Bisect\"):\n"
	      "      --good REV            a commit without the regression\n"
	      "      --bad REV             a later commit with it\n"
	      "      --build CMD           the build, run by sh at each commit\n"
	      "      --threshold METRIC=LIMIT  what is a regression: gate's limit, +5% (a commit "
	      "that\n"
	      "                            fails to build or measure is skipped)\n"
	      "      --runs N              runs of COMMAND at each commit (default 6, at\n"
	      "                            least 4; valgrind's exact counts: 1)\n"
	      "      --backend NAME        as for run (valgrind: exact counts)\n\n"
	      "  -h, --help                display this help and exit\n\n"
	      "Exit status: 0 done (gate: pass); 1 regression (gate; changes with\n"
	      "--new-since: a new regression among the new changes); 2 error (an\n"
	      "unreadable result, a store that cannot be opened, no history to gate\n"
	      "against, ...); 3 inconclusive (gate, with --fail-on-inconclusive).\n",
	      out);
}

/* Option values of the actions; one table per action below. */
enum {
	OPT_DB = 0x100,
	OPT_COMMIT,
	OPT_BRANCH,
	OPT_TAG,
	OPT_COMPILER,
	OPT_BENCHMARK,
	OPT_METRIC,
	OPT_MACHINE,
	OPT_FINGERPRINT,
	OPT_SINCE,
	OPT_UNTIL,
	OPT_FROM,
	OPT_TO,
	OPT_FORMAT,
	OPT_LAST,
	OPT_ALPHA,
	OPT_MIN_SIZE,
	OPT_SVG,
	OPT_HTML,
	OPT_GOOD,
	OPT_BAD,
	OPT_BUILD,
	OPT_THRESHOLD,
	OPT_RUNS,
	OPT_BACKEND,
	OPT_NEW_SINCE,
	OPT_REGRESSIONS_ONLY,
	OPT_MIN_CHANGE,
};

#define O_DB                                                                                       \
	{                                                                                          \
		"db", required_argument, NULL, OPT_DB                                              \
	}
#define O_HELP                                                                                     \
	{                                                                                          \
		"help", no_argument, NULL, 'h'                                                     \
	}
#define O_FILTER                                                                                   \
	{"benchmark", required_argument, NULL, OPT_BENCHMARK},                                     \
	    {"metric", required_argument, NULL, OPT_METRIC},                                       \
	    {"branch", required_argument, NULL, OPT_BRANCH},                                       \
	    {"machine", required_argument, NULL, OPT_MACHINE},                                     \
	    {"fingerprint", required_argument, NULL, OPT_FINGERPRINT},                             \
	    {"since", required_argument, NULL, OPT_SINCE},                                         \
	    {"until", required_argument, NULL, OPT_UNTIL},                                         \
	    {"from", required_argument, NULL, OPT_FROM}, {"to", required_argument, NULL, OPT_TO},  \
	{                                                                                          \
		"tag", required_argument, NULL, OPT_TAG                                            \
	}

static const struct option add_opts[] = {
    O_DB,
    {"commit", required_argument, NULL, OPT_COMMIT},
    {"branch", required_argument, NULL, OPT_BRANCH},
    {"tag", required_argument, NULL, OPT_TAG},
    {"compiler", required_argument, NULL, OPT_COMPILER},
    {"machine", required_argument, NULL, OPT_MACHINE},
    O_HELP,
    {0},
};
#define O_CP                                                                                       \
	{"alpha", required_argument, NULL, OPT_ALPHA},                                             \
	{                                                                                          \
		"min-size", required_argument, NULL, OPT_MIN_SIZE                                  \
	}

static const struct option select_opts[] = {O_DB, O_FILTER, O_HELP, {0}};
static const struct option remove_opts[] = {O_DB, O_HELP, {0}};
static const struct option show_opts[] = {
    O_DB, O_FILTER, O_CP, {"svg", required_argument, NULL, OPT_SVG}, O_HELP, {0},
};
static const struct option changes_opts[] = {
    O_DB,
    O_FILTER,
    O_CP,
    {"format", required_argument, NULL, OPT_FORMAT},
    {"html", required_argument, NULL, OPT_HTML},
    {"new-since", required_argument, NULL, OPT_NEW_SINCE},
    {"regressions-only", no_argument, NULL, OPT_REGRESSIONS_ONLY},
    {"min-change", required_argument, NULL, OPT_MIN_CHANGE},
    O_HELP,
    {0},
};
static const struct option bisect_opts[] = {
    {"good", required_argument, NULL, OPT_GOOD},
    {"bad", required_argument, NULL, OPT_BAD},
    {"build", required_argument, NULL, OPT_BUILD},
    {"threshold", required_argument, NULL, OPT_THRESHOLD},
    {"runs", required_argument, NULL, OPT_RUNS},
    {"backend", required_argument, NULL, OPT_BACKEND},
    O_HELP,
    {0},
};
static const struct option export_opts[] = {
    O_DB,
    O_FILTER,
    {"format", required_argument, NULL, OPT_FORMAT},
    {"output", required_argument, NULL, 'o'},
    O_HELP,
    {0},
};
static const struct option gate_opts[] = {
    O_DB,
    {"format", required_argument, NULL, OPT_FORMAT},
    {"last", required_argument, NULL, OPT_LAST},
    {"branch", required_argument, NULL, OPT_BRANCH},
    {"compiler", required_argument, NULL, OPT_COMPILER},
    {"machine", required_argument, NULL, OPT_MACHINE},
    O_HELP,
    {0},
};

static int print_help(void)
{
	history_help(stdout);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		pmc_cli_error("cannot write the help to standard output");
		return PMC_EXIT_ERROR;
	}
	return PMC_EXIT_OK;
}

int pmc_cli_hist_parse_when(const char *s, int64_t *ret)
{
	static const char *const forms[] = {"%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S",
					    "%Y-%m-%dT%H:%M", "%Y-%m-%d"};

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		struct tm tm;
		const char *end;

		memset(&tm, 0, sizeof(tm));
		end = strptime(s, forms[i], &tm);
		if (end && (*end == '\0' || strcmp(end, "Z") == 0)) {
			*ret = (int64_t)timegm(&tm);
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_when(const char *opt, const char *s, int64_t *ret)
{
	if (pmc_cli_hist_parse_when(s, ret) == 0)
		return 0;
	pmc_cli_error("%s '%s': not a time; use YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS (UTC)", opt, s);
	return -EINVAL;
}

static int add_tag(struct hopts *o, const char *tag)
{
	const char *eq = strchr(tag, '=');

	if (pmc_utf8_has_control(tag)) {
		char b[PMC_QUOTE_SIZE(128)];

		pmc_cli_error("--tag '%s': a tag holds no control characters; give it as KEY=VALUE",
			      pmc_quote(b, sizeof(b), tag));
		return -EINVAL;
	}
	if (!eq || eq == tag) {
		pmc_cli_error("--tag '%s': not KEY=VALUE", tag);
		return -EINVAL;
	}
	for (size_t i = 0; i < o->ntags; i++)
		if (strncmp(o->tags[i], tag, (size_t)(eq - tag) + 1) == 0) {
			pmc_cli_error("--tag '%s': key '%.*s' is given twice", tag, (int)(eq - tag),
				      tag);
			return -EINVAL;
		}
	if (pmc_grow(&o->tags, o->ntags, sizeof(*o->tags)) < 0) {
		pmc_cli_error("out of memory");
		return -ENOMEM;
	}
	o->tags[o->ntags++] = tag;
	o->f.tags = o->tags;
	o->f.ntags = o->ntags;
	return 0;
}

/* --min-change PCT: "2", "2%" or "0.5%", a size in percent from 0 to 1000. */
static int parse_min_change(const char *v, double *ret)
{
	char *end;
	double pct = strtod(v, &end);

	if (end != v && *end == '%')
		end++;
	if (end == v || *end || !(pct >= 0 && pct <= 1000)) {
		pmc_cli_error("--min-change '%s': give a size in percent, 0 to 1000 (2%%)", v);
		return -EINVAL;
	}
	*ret = pct;
	return 0;
}

/* Takes one option of the history's own; 1 taken, 0 not ours, -EINVAL after an error. */
static int take(struct hopts *o, int opt, const char *v)
{
	uint64_t k;

	switch (opt) {
	case OPT_DB:
		o->db = v;
		return 1;
	case OPT_COMMIT:
		o->commit = v;
		return 1;
	case OPT_BRANCH:
		o->branch = o->f.branch = v;
		return 1;
	case OPT_TAG:
		return add_tag(o, v) < 0 ? -EINVAL : 1;
	case OPT_COMPILER:
		o->compiler = v;
		return 1;
	case OPT_BENCHMARK:
		o->f.benchmark = v;
		return 1;
	case OPT_METRIC:
		o->f.metric = v;
		return 1;
	case OPT_MACHINE:
		/* add and gate: the fingerprint's machine; the others: a selection. */
		o->f.machine = o->machine = v;
		return 1;
	case OPT_FINGERPRINT:
		o->f.fingerprint = v;
		return 1;
	case OPT_SINCE:
		return parse_when("--since", v, &o->f.since) < 0 ? -EINVAL : 1;
	case OPT_UNTIL:
		return parse_when("--until", v, &o->f.until) < 0 ? -EINVAL : 1;
	case OPT_FROM:
		o->f.commit_from = v;
		return 1;
	case OPT_TO:
		o->f.commit_to = v;
		return 1;
	case OPT_FORMAT:
		o->format = v;
		return 1;
	case OPT_SVG:
		o->svg = v;
		return 1;
	case OPT_GOOD:
		o->bisect.good = v;
		return 1;
	case OPT_BAD:
		o->bisect.bad = v;
		return 1;
	case OPT_BUILD:
		o->bisect.build = v;
		return 1;
	case OPT_THRESHOLD:
		o->bisect.threshold = v;
		return 1;
	case OPT_BACKEND:
		o->bisect.backend = v;
		return 1;
	case OPT_RUNS:
		if (pmc_cli_parse_count("--runs", v, 1, 1000, &k) < 0)
			return -EINVAL;
		o->bisect.runs = (size_t)k;
		return 1;
	case OPT_HTML:
		o->html = v;
		return 1;
	case OPT_NEW_SINCE:
		o->new_since = v;
		return 1;
	case OPT_REGRESSIONS_ONLY:
		o->select.regressions_only = true;
		return 1;
	case OPT_MIN_CHANGE:
		return parse_min_change(v, &o->select.min_change) < 0 ? -EINVAL : 1;
	case 'o':
		o->output = v;
		return 1;
	case OPT_LAST:
		if (pmc_cli_parse_count("--last", v, 1, PMC_HISTORY_MAX_LAST, &k) < 0)
			return -EINVAL;
		o->last = (size_t)k;
		return 1;
	case OPT_ALPHA: {
		char *end;

		o->cp.alpha = strtod(v, &end);
		if (end == v || *end || !(o->cp.alpha > 0 && o->cp.alpha < 1)) {
			pmc_cli_error("--alpha '%s': give a probability, 0 < P < 1 (0.001)", v);
			return -EINVAL;
		}
		return 1;
	}
	case OPT_MIN_SIZE:
		if (pmc_cli_parse_count("--min-size", v, 2, 1000, &k) < 0)
			return -EINVAL;
		o->cp.min_size = (size_t)k;
		return 1;
	}
	return 0;
}

static const char *db_of(const struct hopts *o)
{
	const char *env = getenv("PMCBENCH_HISTORY");

	return o->db ? o->db : env && *env ? env : DEFAULT_DB;
}

int pmc_cli_hist_open(const struct hopts *o, unsigned flags, struct pmc_history **ret)
{
	char err[1024];

	if (pmc_history_open(db_of(o), flags, ret, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		return -1;
	}
	return 0;
}

/* ---- The dispatcher ---- */

struct action {
	const char *name;
	const struct option *opts;
};

static const struct action actions[] = {
    {"add", add_opts},	     {"list", select_opts},	{"show", show_opts},
    {"export", export_opts}, {"changes", changes_opts}, {"gate", gate_opts},
    {"remove", remove_opts}, {"bisect", bisect_opts},
};

static const struct action *find_action(const char *name)
{
	for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
		if (strcmp(actions[i].name, name) == 0)
			return &actions[i];
	return NULL;
}

static void unknown_action(const char *name)
{
	struct pmc_suggest s;
	char hint[256] = "", b[PMC_QUOTE_SIZE(64)];

	pmc_suggest_init(&s, name, strlen(name));
	for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
		pmc_suggest_offer(&s, actions[i].name, actions[i].name);
	if (pmc_suggest_format(&s, hint, sizeof(hint)))
		pmc_cli_error("unknown history action '%s'; %s", q(b, sizeof(b), name), hint);
	else
		pmc_cli_error("unknown history action '%s'; use add, list, show, export, changes, "
			      "gate, remove or bisect",
			      q(b, sizeof(b), name));
}

int pmc_cli_history(int argc, char **argv)
{
	const struct action *a;
	struct pmc_cli_compare_opts *co = NULL;
	struct option *longopts = NULL;
	struct hopts o = {0};
	char cmd[64];
	int code = PMC_EXIT_ERROR, opt;

	if (argc < 2) {
		pmc_cli_error("history needs an action: add, list, show, export, changes, gate, "
			      "remove or bisect; try 'pmcbench help history'");
		return PMC_EXIT_ERROR;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return print_help();
	a = find_action(argv[1]);
	if (!a) {
		unknown_action(argv[1]);
		return PMC_EXIT_ERROR;
	}
	snprintf(cmd, sizeof(cmd), "history");
	if (strcmp(a->name, "gate") == 0) {
		if (pmc_cli_compare_opts_new(&co) < 0) {
			pmc_cli_error("out of memory");
			return PMC_EXIT_ERROR;
		}
		longopts = pmc_cli_options_merge(a->opts, pmc_cli_compare_long_opts);
	} else {
		longopts = pmc_cli_options_merge(a->opts, NULL);
	}
	if (!longopts) {
		pmc_cli_error("out of memory");
		goto out;
	}
	argc--;
	argv++;
	optind = 0;
	while ((opt = pmc_cli_getopt(argc, argv, a->opts == export_opts ? ":o:h" : ":h", longopts,
				     cmd)) != -1) {
		int r;

		if (opt == 'h') {
			code = print_help();
			goto out;
		}
		if (opt == '?')
			goto out;
		r = take(&o, opt, optarg);
		if (r < 0)
			goto out;
		if (r == 0 && co) {
			if (pmc_cli_compare_opts_handle(co, opt, optarg) <= 0)
				goto out;
		}
	}
	argc -= optind;
	argv += optind;
	if (strcmp(a->name, "add") == 0)
		code = pmc_cli_hist_add(argc, argv, &o);
	else if (strcmp(a->name, "list") == 0)
		code = pmc_cli_hist_list(argc, argv, &o);
	else if (strcmp(a->name, "show") == 0)
		code = pmc_cli_hist_show(argc, argv, &o);
	else if (strcmp(a->name, "export") == 0)
		code = pmc_cli_hist_export(argc, argv, &o);
	else if (strcmp(a->name, "changes") == 0)
		code = pmc_cli_hist_changes(argc, argv, &o);
	else if (strcmp(a->name, "remove") == 0)
		code = pmc_cli_hist_remove(argc, argv, &o);
	else if (strcmp(a->name, "bisect") == 0)
		code = pmc_cli_history_bisect(argc, argv, &o.bisect);
	else
		code = pmc_cli_hist_gate(argc, argv, &o, co);
out:
	free(o.tags);
	free(longopts);
	pmc_cli_compare_opts_free(co);
	return code;
}

/* Offers the benchmark of a series to the suggestion. */
static int offer_series(void *ud, const struct pmc_history_point *ps, size_t n)
{
	pmc_suggest_offer(ud, ps[0].benchmark, ps[0].benchmark);
	return 0;
}

void pmc_cli_hist_near_benchmark(struct pmc_history *h, const struct pmc_history_filter *f,
				 char *buf, size_t size)
{
	struct pmc_history_filter any = *f;
	struct pmc_suggest s;
	char err[256];

	buf[0] = '\0';
	any.benchmark = NULL;
	if (!f->benchmark)
		return;
	pmc_suggest_init(&s, f->benchmark, strlen(f->benchmark));
	if (pmc_history_series(h, &any, offer_series, &s, NULL, NULL, err, sizeof(err)) == 0)
		pmc_suggest_format(&s, buf, size);
}

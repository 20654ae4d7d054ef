/* `pmcbench history ACTION` (docs/history.md): add results to a history, list and
 * filter its entries, show and export its series, find their change points, and gate a
 * result against the last results of its fingerprint. The store is harness/3-history's;
 * this file parses, calls it, and prints. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/atomic_file.h"
#include "base/error.h"
#include "base/grow.h"
#include "base/suggest.h"
#include "cli/cli.h"
#include "cli/cli_history.h"
#include "core/changepoint.h"
#include "core/result.h"
#include "core/threshold.h"
#include "formats/import.h"
#include "formats/json_out.h"
#include "history/history.h"
#include "reporters/escape.h"
#include "reporters/format.h"
#include "reporters/trend.h"
#include "session/session.h"

#define DEFAULT_DB "pmcbench-history.db"
#define DEFAULT_LAST 10

static void history_help(FILE *out)
{
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
	      "      --from COMMIT         from the first entry of COMMIT (a prefix)\n"
	      "      --to COMMIT           to the last entry of COMMIT\n"
	      "      --tag KEY=VALUE       entries with this tag (repeatable)\n\n"
	      "export:\n"
	      "      --format FMT          csv (one row per sample, the default) or json\n"
	      "  -o, --output FILE         write to FILE (atomically) instead of stdout\n\n",
	      out);
	fputs("show, changes:\n"
	      "      --alpha P             a change point's p-value is at most P (default\n"
	      "                            0.001: about one false change in 1000 series)\n"
	      "      --min-size N          the fewest points between two changes (default 4)\n"
	      "show:\n"
	      "      --svg FILE            also draw the series as a trend chart (SVG): each\n"
	      "                            point's median and spread, the change points\n"
	      "changes:\n"
	      "      --format FMT          table (the default) or json\n"
	      "      --html FILE           also write a page of the change points and the\n"
	      "                            trend chart of every selected series\n\n"
	      "gate:\n"
	      "      --last K              the baseline: the last K entries of the result's\n"
	      "                            fingerprint (default 10, at most 128)\n"
	      "      --branch NAME         of this branch only (default: any)\n"
	      "      --compiler NAME       as for add\n"
	      "      --machine NAME        as for add\n"
	      "      the options of 'pmcbench gate' too: --threshold, --metric, --alpha, ...\n\n",
	      out);
	fputs("bisect (in a git checkout without changes; docs/history.md, \"Bisect\"):\n"
	      "      --good REV            a commit without the regression\n"
	      "      --bad REV             a later commit with it\n"
	      "      --build CMD           the build, run by sh at each commit\n"
	      "      --threshold METRIC=LIMIT  what is a regression: gate's limit, +5% (a commit "
	      "that\n"
	      "                            fails to build or measure is skipped)\n"
	      "      --runs N              runs of COMMAND at each commit (default 6)\n"
	      "      --backend NAME        as for run (valgrind: exact counts)\n\n"
	      "  -h, --help                display this help and exit\n\n"
	      "Exit status: 0 done (gate: pass); 1 regression (gate); 2 error (an unreadable\n"
	      "result, a store that cannot be opened, no history to gate against, ...);\n"
	      "3 inconclusive (gate, with --fail-on-inconclusive).\n",
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
static const struct option show_opts[] = {
    O_DB, O_FILTER, O_CP, {"svg", required_argument, NULL, OPT_SVG}, O_HELP, {0},
};
static const struct option changes_opts[] = {
    O_DB,
    O_FILTER,
    O_CP,
    {"format", required_argument, NULL, OPT_FORMAT},
    {"html", required_argument, NULL, OPT_HTML},
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
    {"last", required_argument, NULL, OPT_LAST},
    {"branch", required_argument, NULL, OPT_BRANCH},
    {"compiler", required_argument, NULL, OPT_COMPILER},
    {"machine", required_argument, NULL, OPT_MACHINE},
    O_HELP,
    {0},
};

/* What the options of any action set. */
struct hopts {
	const char *db;
	const char *commit, *branch, *compiler, *machine, *format, *output, *svg, *html;
	struct pmc_cli_bisect_opts bisect;
	const char **tags;
	size_t ntags;
	size_t last;
	struct pmc_history_filter f;
	struct pmc_cp_opts cp;
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

/* "2026-01-02", "2026-01-02T03:04", "2026-01-02T03:04:05Z" (UTC) in unix seconds. */
static int parse_when(const char *opt, const char *s, int64_t *ret)
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
	pmc_cli_error("%s '%s': not a time; use YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS (UTC)", opt, s);
	return -EINVAL;
}

static int add_tag(struct hopts *o, const char *tag)
{
	const char *eq = strchr(tag, '=');

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
		if (pmc_cli_parse_count("--runs", v, 4, 1000, &k) < 0)
			return -EINVAL;
		o->bisect.runs = (size_t)k;
		return 1;
	case OPT_HTML:
		o->html = v;
		return 1;
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

static int open_store(const struct hopts *o, unsigned flags, struct pmc_history **ret)
{
	char err[1024];

	if (pmc_history_open(db_of(o), flags, ret, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		return -1;
	}
	return 0;
}

/* The first line git prints for args in the working directory, or NULL. */
static char *git_line(const char *args)
{
	char cmd[128], line[256];
	FILE *p;
	char *out = NULL;

	snprintf(cmd, sizeof(cmd), "git %s 2>/dev/null", args);
	p = popen(cmd, "r");
	if (!p)
		return NULL;
	if (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = '\0';
		if (*line)
			out = strdup(line);
	}
	if (pclose(p) != 0) {
		free(out);
		out = NULL;
	}
	return out;
}

static const char *first_env(const char *const *names)
{
	for (; *names; names++) {
		const char *v = getenv(*names);

		if (v && *v)
			return v;
	}
	return NULL;
}

/* ---- add ---- */

static int action_add(int argc, char **argv, struct hopts *o)
{
	static const char *const sha_vars[] = {"GITHUB_SHA", "CI_COMMIT_SHA", NULL};
	/* A pull request's branch first: GITHUB_REF_NAME is then "123/merge". */
	static const char *const branch_vars[] = {"GITHUB_HEAD_REF", "GITHUB_REF_NAME",
						  "CI_COMMIT_REF_NAME", NULL};
	struct pmc_result **rs = NULL;
	struct pmc_history *h = NULL;
	char *git_commit = NULL, *git_branch = NULL, err[1024];
	size_t n = (size_t)argc;
	int code = PMC_EXIT_ERROR;

	if (n == 0) {
		pmc_cli_error("history add needs result files; try 'pmcbench help history'");
		return PMC_EXIT_ERROR;
	}
	rs = calloc(n, sizeof(*rs));
	if (!rs) {
		pmc_cli_error("out of memory");
		return PMC_EXIT_ERROR;
	}
	/* Every file loads before anything is added: bad input writes nothing. */
	for (size_t i = 0; i < n; i++)
		if (pmc_result_load_any(argv[i], &rs[i], err, sizeof(err)) < 0) {
			pmc_cli_error("%s", err);
			goto out;
		}
	if (!o->commit && !(o->commit = first_env(sha_vars)))
		o->commit = git_commit = git_line("rev-parse HEAD");
	if (!o->branch && !(o->branch = first_env(branch_vars))) {
		git_branch = git_line("rev-parse --abbrev-ref HEAD");
		/* A detached HEAD has no branch. */
		if (git_branch && strcmp(git_branch, "HEAD") != 0)
			o->branch = git_branch;
	}
	if (open_store(o, PMC_HISTORY_WRITE, &h) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct pmc_history_meta meta = {
		    .commit = o->commit,
		    .branch = o->branch,
		    .source = argv[i],
		    .compiler = o->compiler,
		    .machine = o->machine,
		    .tags = o->tags,
		    .ntags = o->ntags,
		};
		char id[65];
		bool was_added;

		if (pmc_history_add(h, rs[i], &meta, &was_added, id, err, sizeof(err)) < 0) {
			pmc_cli_error("%s: %s", argv[i], err);
			goto out;
		}
		printf("%s: %s %.12s", argv[i], was_added ? "added as" : "already there as", id);
		if (was_added && (o->commit || o->branch))
			printf(" (%s%s%s%s%s)", o->commit ? "commit " : "",
			       o->commit ? o->commit : "", o->commit && o->branch ? ", " : "",
			       o->branch ? "branch " : "", o->branch ? o->branch : "");
		putchar('\n');
	}
	if (fflush(stdout) != 0) {
		pmc_cli_error("cannot write to standard output");
		goto out;
	}
	code = PMC_EXIT_OK;
out:
	for (size_t i = 0; i < n; i++)
		pmc_result_free(rs[i]);
	free(rs);
	pmc_history_close(h);
	free(git_commit);
	free(git_branch);
	return code;
}

int pmc_cli_history_add_file(const char *db, const char *path)
{
	struct hopts o = {.db = db};
	char *argv[] = {(char *)path};

	return action_add(1, argv, &o);
}

/* ---- list ---- */

static void when_text(int64_t t, char buf[32])
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* A name from a store, safe to print: control characters escaped. */
static const char *q(char *buf, size_t len, const char *s)
{
	return pmc_quote(buf, len, s ? s : "-");
}

static int action_list(int argc, char **argv, struct hopts *o)
{
	struct pmc_history *h = NULL;
	struct pmc_history_entry *es = NULL;
	size_t n = 0;
	char err[1024];
	int code = PMC_EXIT_ERROR;

	if (argc > 0) {
		pmc_cli_error("history list takes no arguments, got '%s'; select with --benchmark, "
			      "--branch, ...",
			      argv[0]);
		return PMC_EXIT_ERROR;
	}
	if (open_store(o, 0, &h) < 0)
		return PMC_EXIT_ERROR;
	if (pmc_history_list(h, &o->f, &es, &n, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		goto out;
	}
	printf("%-20s  %-12s  %-16s  %-16s  %-16s  %-12s  %s\n", "measured", "commit", "branch",
	       "machine", "fingerprint", "entry", "tags");
	for (size_t i = 0; i < n; i++) {
		char when[32], b1[PMC_QUOTE_SIZE(64)], b2[PMC_QUOTE_SIZE(64)],
		    b4[PMC_QUOTE_SIZE(256)];

		when_text(es[i].t, when);
		printf("%-20s  %-12.12s  %-16s  %-16s  %-16s  %-12.12s  %s\n", when,
		       es[i].commit ? es[i].commit : "-", q(b1, sizeof(b1), es[i].branch),
		       q(b2, sizeof(b2), es[i].machine), es[i].fingerprint, es[i].id,
		       *es[i].tags ? q(b4, sizeof(b4), es[i].tags) : "-");
	}
	printf("%zu entr%s in %s\n", n, n == 1 ? "y" : "ies", pmc_history_display(h));
	code = fflush(stdout) == 0 ? PMC_EXIT_OK : PMC_EXIT_ERROR;
out:
	pmc_history_entries_free(es, n);
	pmc_history_close(h);
	return code;
}

/* ---- change points ---- */

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* One series: ps[0..n) (one benchmark, metric and fingerprint, oldest first). The
 * points with a median are its values; at[i] is the point of value i. */
struct series {
	const struct pmc_history_point *ps;
	size_t n;
	double *x;
	size_t *at;
	size_t nx;
	struct pmc_changepoint *cps;
	size_t ncps;
};

static void series_clear(struct series *s)
{
	free(s->x);
	free(s->at);
	free(s->cps);
	memset(s, 0, sizeof(*s));
}

/* The change points of the series at ps[0..n). Returns 0, or -errno after an error line. */
static int series_changes(const struct pmc_history_point *ps, size_t n, const struct hopts *o,
			  struct series *s)
{
	int r;

	memset(s, 0, sizeof(*s));
	s->ps = ps;
	s->n = n;
	s->x = malloc((n + 1) * sizeof(double));
	s->at = malloc((n + 1) * sizeof(size_t));
	if (!s->x || !s->at) {
		pmc_cli_error("out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (isfinite(ps[i].median)) {
			s->x[s->nx] = ps[i].median;
			s->at[s->nx++] = i;
		}
	r = pmc_changepoints(s->x, s->nx, &o->cp, &s->cps, &s->ncps);
	if (r < 0) {
		pmc_cli_error("%s", r == -ENOMEM ? "out of memory"
						 : "the change-point options are not valid");
		return r;
	}
	return 0;
}

/* "+5.02% [+4.10%, +5.90%]" of a change point, without the interval when it has none. */
static void change_text(const struct pmc_changepoint *cp, char *buf, size_t len)
{
	char a[32], b[32], c[32];

	if (!isfinite(cp->ratio)) {
		snprintf(buf, len, "-");
		return;
	}
	pmc_fmt_percent((cp->ratio - 1) * 100, true, a, sizeof(a));
	if (isfinite(cp->ratio_lo) && isfinite(cp->ratio_hi)) {
		pmc_fmt_percent((cp->ratio_lo - 1) * 100, true, b, sizeof(b));
		pmc_fmt_percent((cp->ratio_hi - 1) * 100, true, c, sizeof(c));
		snprintf(buf, len, "%s [%s, %s]", a, b, c);
	} else {
		snprintf(buf, len, "%s", a);
	}
}

/* The commits the change lies between: after the point before it, up to its own. */
static void commit_range(const struct series *s, const struct pmc_changepoint *cp, char *buf,
			 size_t len)
{
	const struct pmc_history_point *before = &s->ps[s->at[cp->index - 1]];
	const struct pmc_history_point *at = &s->ps[s->at[cp->index]];

	snprintf(buf, len, "%.12s..%.12s", before->e.commit ? before->e.commit : "?",
		 at->e.commit ? at->e.commit : "?");
}

static int change_json(json_t *all, const struct series *s, const struct pmc_changepoint *cp)
{
	const struct pmc_history_point *at = &s->ps[s->at[cp->index]];
	const struct pmc_history_point *prev = &s->ps[s->at[cp->index - 1]];
	json_t *c = json_object();
	char when[32];

	if (!c || json_array_append_new(all, c) < 0)
		return -ENOMEM;
	when_text(at->e.t, when);
	json_object_set_new(c, "benchmark", jstr(at->benchmark));
	json_object_set_new(c, "metric", jstr(at->metric));
	json_object_set_new(c, "unit", jstr(at->unit));
	json_object_set_new(c, "machine", jstr(at->e.machine));
	json_object_set_new(c, "fingerprint", jstr(at->e.fingerprint));
	json_object_set_new(c, "points", json_integer((json_int_t)s->nx));
	json_object_set_new(c, "index", json_integer((json_int_t)cp->index));
	json_object_set_new(c, "entry", jstr(at->e.id));
	json_object_set_new(c, "measured", json_string(when));
	json_object_set_new(c, "commit_before", jstr(prev->e.commit));
	json_object_set_new(c, "commit", jstr(at->e.commit));
	json_object_set_new(c, "branch", jstr(at->e.branch));
	json_object_set_new(c, "before", jnum(cp->before));
	json_object_set_new(c, "after", jnum(cp->after));
	json_object_set_new(c, "ratio", jnum(cp->ratio));
	json_object_set_new(c, "ratio_lo", jnum(cp->ratio_lo));
	json_object_set_new(c, "ratio_hi", jnum(cp->ratio_hi));
	json_object_set_new(c, "p", jnum(cp->p));
	json_object_set_new(c, "q", jnum(cp->q));
	return 0;
}

static void change_line(const struct series *s, const struct pmc_changepoint *cp)
{
	const struct pmc_history_point *at = &s->ps[s->at[cp->index]];
	char range[40], when[32], change[128], b1[PMC_FMT_MAX], b2[PMC_FMT_MAX];
	char q1[PMC_QUOTE_SIZE(64)], q2[PMC_QUOTE_SIZE(64)], q3[PMC_QUOTE_SIZE(64)];

	when_text(at->e.t, when);
	commit_range(s, cp, range, sizeof(range));
	change_text(cp, change, sizeof(change));
	pmc_fmt_short(cp->before, at->unit, b1, sizeof(b1));
	pmc_fmt_short(cp->after, at->unit, b2, sizeof(b2));
	printf("%-24s  %-16s  %-12s  %-26s  %-20s  %-28s  %-10s  %-10s  %.2g\n",
	       q(q1, sizeof(q1), at->benchmark), q(q2, sizeof(q2), at->metric),
	       q(q3, sizeof(q3), at->e.machine), range, when, change, b1, b2, cp->p);
}

/* ---- trend charts ---- */

/* A series drawn (reporters/trend.h), owning what its trend points at. */
struct chart {
	struct pmc_trend t;
	struct pmc_trend_point *pts;
	char (*labels)[16];
	char (*whens)[32];
	struct pmc_changepoint *cps;
	char title[512];
};

struct charts {
	struct chart *v;
	size_t n;
};

static void charts_clear(struct charts *cs)
{
	for (size_t i = 0; i < cs->n; i++) {
		free(cs->v[i].pts);
		free(cs->v[i].labels);
		free(cs->v[i].whens);
		free(cs->v[i].cps);
	}
	free(cs->v);
	cs->v = NULL;
	cs->n = 0;
}

/* Adds the chart of s, taking its change points. Returns 0, or -ENOMEM after an error line. */
static int charts_add(struct charts *cs, struct series *s)
{
	struct chart *c;
	const struct pmc_history_point *first = s->nx ? &s->ps[s->at[0]] : &s->ps[0];

	if (pmc_grow(&cs->v, cs->n, sizeof(*cs->v)) < 0)
		goto oom;
	c = &cs->v[cs->n];
	memset(c, 0, sizeof(*c));
	c->pts = calloc(s->nx + 1, sizeof(*c->pts));
	c->labels = calloc(s->nx + 1, sizeof(*c->labels));
	c->whens = calloc(s->nx + 1, sizeof(*c->whens));
	cs->n++;
	if (!c->pts || !c->labels || !c->whens)
		goto oom;
	for (size_t i = 0; i < s->nx; i++) {
		const struct pmc_history_point *p = &s->ps[s->at[i]];
		double lo = INFINITY, hi = -INFINITY;

		for (size_t k = 0; k < p->n; k++)
			if (!isnan(p->samples[k])) {
				lo = fmin(lo, p->samples[k]);
				hi = fmax(hi, p->samples[k]);
			}
		when_text(p->e.t, c->whens[i]);
		snprintf(c->labels[i], sizeof(c->labels[i]), "%.12s",
			 p->e.commit ? p->e.commit : c->whens[i]);
		c->pts[i] = (struct pmc_trend_point){
		    .label = c->labels[i],
		    .when = c->whens[i],
		    .median = p->median,
		    .lo = isfinite(lo) ? lo : NAN,
		    .hi = isfinite(hi) ? hi : NAN,
		};
	}
	snprintf(c->title, sizeof(c->title), "%s %s on %s (%s)", first->benchmark, first->metric,
		 first->e.machine ? first->e.machine : "?", first->e.fingerprint);
	c->cps = s->cps;
	s->cps = NULL;
	c->t = (struct pmc_trend){
	    .title = c->title,
	    .unit = first->unit,
	    .pts = c->pts,
	    .n = s->nx,
	    .cps = c->cps,
	    .ncps = s->ncps,
	};
	return 0;
oom:
	pmc_cli_error("out of memory");
	return -ENOMEM;
}

static void html_change_rows(FILE *f, const struct charts *cs)
{
	for (size_t i = 0; i < cs->n; i++) {
		const struct pmc_trend *t = &cs->v[i].t;

		for (size_t k = 0; k < t->ncps; k++) {
			const struct pmc_changepoint *cp = &t->cps[k];
			char change[128], p[PMC_FMT_MAX];

			change_text(cp, change, sizeof(change));
			p[pmc_fmt_stat_to(p, cp->p)] = '\0';
			fputs("<tr><td><a href=\"#chart", f);
			fprintf(f, "%zu\">", i);
			pmc_escape_xml(f, t->title, SIZE_MAX);
			fputs("</a></td><td>", f);
			pmc_escape_xml(f, t->pts[cp->index - 1].label, SIZE_MAX);
			fputs("..", f);
			pmc_escape_xml(f, t->pts[cp->index].label, SIZE_MAX);
			fputs("</td><td>", f);
			pmc_escape_xml(f, t->pts[cp->index].when, SIZE_MAX);
			fputs("</td><td>", f);
			pmc_escape_xml(f, change, SIZE_MAX);
			fprintf(f, "</td><td>%s</td></tr>\n", p);
		}
	}
}

/* The charts into path, atomically: an SVG file, or with html a page of the change
 * points and every chart. Returns 0, or -errno after an error line. */
static int write_charts(const char *path, const struct charts *cs, bool html, const char *store)
{
	struct pmc_atomic_file *af;
	char err[1024];
	FILE *f;
	int r = 0;

	if (pmc_atomic_file_open(path, &af, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		return -EIO;
	}
	f = pmc_atomic_file_stream(af);
	if (!html) {
		struct pmc_trend *ts = calloc(cs->n + 1, sizeof(*ts));

		if (!ts) {
			pmc_atomic_file_abort(af);
			pmc_cli_error("out of memory");
			return -ENOMEM;
		}
		for (size_t i = 0; i < cs->n; i++)
			ts[i] = cs->v[i].t;
		r = pmc_trend_svg(f, ts, cs->n, true);
		free(ts);
	} else {
		fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		      "<title>pmcbench history: change points</title><style>"
		      "body{font:14px sans-serif;margin:24px} table{border-collapse:collapse}"
		      " td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}"
		      "</style></head><body>\n<h1>Change points</h1>\n<p>",
		      f);
		pmc_escape_xml(f, store, SIZE_MAX);
		fprintf(f,
			": %zu series</p>\n<table id=\"changes\"><tr><th>series</th><th>commits"
			"</th><th>measured</th><th>change (95%% interval)</th><th>p</th></tr>\n",
			cs->n);
		html_change_rows(f, cs);
		fputs("</table>\n", f);
		for (size_t i = 0; i < cs->n && r == 0; i++) {
			fprintf(f, "<div id=\"chart%zu\">\n", i);
			r = pmc_trend_svg(f, &cs->v[i].t, 1, false);
			fputs("</div>\n", f);
		}
		fputs("</body></html>\n", f);
	}
	if (r < 0 || ferror(f)) {
		pmc_atomic_file_abort(af);
		pmc_cli_error("%s: cannot write the chart", path);
		return -EIO;
	}
	if (pmc_atomic_file_commit(af, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		return -EIO;
	}
	return 0;
}

static int action_changes(int argc, char **argv, struct hopts *o)
{
	const char *format = o->format ? o->format : "table";
	struct pmc_history *h = NULL;
	struct pmc_history_point *ps = NULL;
	struct charts charts = {NULL, 0};
	json_t *all = NULL;
	size_t n = 0, nseries = 0, nchanges = 0;
	char err[1024];
	int code = PMC_EXIT_ERROR;

	if (argc > 0) {
		pmc_cli_error("history changes takes no arguments, got '%s'; select with "
			      "--benchmark, --metric, ...",
			      argv[0]);
		return PMC_EXIT_ERROR;
	}
	if (strcmp(format, "table") != 0 && strcmp(format, "json") != 0) {
		pmc_cli_error("--format '%s': history changes writes table or json", format);
		return PMC_EXIT_ERROR;
	}
	if (o->html && pmc_session_check_path(&pmc_cli_printer, "--html", o->html) < 0)
		return PMC_EXIT_ERROR;
	if (strcmp(format, "json") == 0 && !(all = json_array())) {
		pmc_cli_error("out of memory");
		return PMC_EXIT_ERROR;
	}
	if (open_store(o, 0, &h) < 0)
		goto out;
	if (pmc_history_points(h, &o->f, &ps, &n, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		goto out;
	}
	if (!all)
		printf("%-24s  %-16s  %-12s  %-26s  %-20s  %-28s  %-10s  %-10s  %s\n", "benchmark",
		       "metric", "machine", "commits", "measured", "change (95% interval)",
		       "before", "after", "p");
	for (size_t i = 0; i < n;) {
		struct series s;
		size_t j = i + 1;

		while (j < n && pmc_history_same_series(&ps[i], &ps[j]))
			j++;
		if (series_changes(&ps[i], j - i, o, &s) < 0) {
			series_clear(&s);
			goto out;
		}
		nseries++;
		nchanges += s.ncps;
		for (size_t k = 0; k < s.ncps; k++) {
			if (!all) {
				change_line(&s, &s.cps[k]);
			} else if (change_json(all, &s, &s.cps[k]) < 0) {
				pmc_cli_error("out of memory");
				series_clear(&s);
				goto out;
			}
		}
		if (o->html && charts_add(&charts, &s) < 0) {
			series_clear(&s);
			goto out;
		}
		series_clear(&s);
		i = j;
	}
	if (o->html && write_charts(o->html, &charts, true, pmc_history_display(h)) < 0)
		goto out;
	if (all) {
		if (pmc_json_dumpf(all, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) < 0 ||
		    putchar('\n') == EOF) {
			pmc_cli_error("cannot write to standard output");
			goto out;
		}
	} else {
		printf("%zu change point%s in %zu series of %s\n", nchanges,
		       nchanges == 1 ? "" : "s", nseries, pmc_history_display(h));
	}
	code = fflush(stdout) == 0 ? PMC_EXIT_OK : PMC_EXIT_ERROR;
out:
	charts_clear(&charts);
	json_decref(all);
	pmc_history_points_free(ps, n);
	pmc_history_close(h);
	return code;
}

/* One line of show: point k of the series, after the line of the change point at k
 * (*next: the change point to look for), and the series' heading before its first. */
static void show_point(const struct series *s, size_t k, size_t *next, bool gap)
{
	const struct pmc_history_point *p = &s->ps[k];
	char when[32], med[PMC_FMT_MAX], lo[PMC_FMT_MAX], hi[PMC_FMT_MAX];
	char b1[PMC_QUOTE_SIZE(64)], b2[PMC_QUOTE_SIZE(128)], b3[PMC_QUOTE_SIZE(128)];
	double mn = INFINITY, mx = -INFINITY;
	size_t measured = 0;

	if (k == 0)
		printf("%s%s %s on %s (fingerprint %s): %zu change point%s in %zu points\n"
		       "%-20s  %-12s  %-16s  %4s  %12s  %s\n",
		       gap ? "\n" : "", q(b2, sizeof(b2), p->benchmark),
		       q(b3, sizeof(b3), p->metric), q(b1, sizeof(b1), p->e.machine),
		       p->e.fingerprint, s->ncps, s->ncps == 1 ? "" : "s", s->nx, "measured",
		       "commit", "branch", "n", "median", "min .. max");
	if (*next < s->ncps && s->at[s->cps[*next].index] == k) {
		const struct pmc_changepoint *cp = &s->cps[(*next)++];
		char change[128];

		change_text(cp, change, sizeof(change));
		printf("---- change point: %s, p=%.2g\n", change, cp->p);
	}
	for (size_t i = 0; i < p->n; i++)
		if (!isnan(p->samples[i])) {
			mn = fmin(mn, p->samples[i]);
			mx = fmax(mx, p->samples[i]);
			measured++;
		}
	when_text(p->e.t, when);
	pmc_fmt_short(p->median, p->unit, med, sizeof(med));
	pmc_fmt_short(measured ? mn : NAN, p->unit, lo, sizeof(lo));
	pmc_fmt_short(measured ? mx : NAN, p->unit, hi, sizeof(hi));
	printf("%-20s  %-12.12s  %-16s  %4zu  %12s  %s .. %s\n", when,
	       p->e.commit ? p->e.commit : "-", q(b1, sizeof(b1), p->e.branch), measured, med, lo,
	       hi);
}

/* ---- show ---- */

static int action_show(int argc, char **argv, struct hopts *o)
{
	struct pmc_history *h = NULL;
	struct pmc_history_point *ps = NULL;
	struct charts charts = {NULL, 0};
	size_t n = 0;
	char err[1024];
	int code = PMC_EXIT_ERROR;

	if (argc != 2) {
		pmc_cli_error("history show needs BENCHMARK METRIC, got %d argument%s; 'pmcbench "
			      "history list' shows what there is",
			      argc, argc == 1 ? "" : "s");
		return PMC_EXIT_ERROR;
	}
	if (o->svg && pmc_session_check_path(&pmc_cli_printer, "--svg", o->svg) < 0)
		return PMC_EXIT_ERROR;
	o->f.benchmark = argv[0];
	o->f.metric = argv[1];
	if (open_store(o, 0, &h) < 0)
		return PMC_EXIT_ERROR;
	if (pmc_history_points(h, &o->f, &ps, &n, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		goto out;
	}
	if (n == 0) {
		char b1[PMC_QUOTE_SIZE(128)], b2[PMC_QUOTE_SIZE(128)];

		pmc_cli_error("no entry of %s has metric '%s' of benchmark '%s'; 'pmcbench history "
			      "list --benchmark NAME' shows the entries of a benchmark",
			      pmc_history_display(h), q(b2, sizeof(b2), argv[1]),
			      q(b1, sizeof(b1), argv[0]));
		goto out;
	}
	for (size_t i = 0; i < n;) {
		struct series s;
		size_t j = i + 1, next = 0;

		while (j < n && pmc_history_same_series(&ps[i], &ps[j]))
			j++;
		if (series_changes(&ps[i], j - i, o, &s) < 0) {
			series_clear(&s);
			goto out;
		}
		for (size_t k = 0; k < s.n; k++)
			show_point(&s, k, &next, i > 0);
		if (o->svg && charts_add(&charts, &s) < 0) {
			series_clear(&s);
			goto out;
		}
		series_clear(&s);
		i = j;
	}
	if (o->svg && write_charts(o->svg, &charts, false, pmc_history_display(h)) < 0)
		goto out;
	code = fflush(stdout) == 0 ? PMC_EXIT_OK : PMC_EXIT_ERROR;
out:
	charts_clear(&charts);
	pmc_history_points_free(ps, n);
	pmc_history_close(h);
	return code;
}

/* ---- export ---- */

/* A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
static void csv_field(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
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

static int action_export(int argc, char **argv, struct hopts *o)
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
	if (open_store(o, 0, &h) < 0)
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

/* ---- gate ---- */

static int action_gate(int argc, char **argv, struct hopts *o, struct pmc_cli_compare_opts *co)
{
	const struct pmc_history_meta meta = {.compiler = o->compiler, .machine = o->machine};
	struct pmc_history *h = NULL;
	struct pmc_result *r = NULL, *base = NULL;
	const char **read = NULL; /* the metrics the baseline reads */
	size_t nentries = 0, nread = 0;
	char err[1024], name[512], fp[17];
	int code = PMC_EXIT_ERROR;

	if (argc != 1) {
		pmc_cli_error("history gate judges one result file, got %d; try 'pmcbench help "
			      "history'",
			      argc);
		return PMC_EXIT_ERROR;
	}
	if (pmc_result_load_any(argv[0], &r, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		return PMC_EXIT_ERROR;
	}
	if (open_store(o, 0, &h) < 0)
		goto out;
	/* With --metric the comparison compares only the metrics selected, and speaks of
	 * those a --threshold names: the baseline needs no other (reading every metric of
	 * K entries is most of a gate's time). */
	if (co->s.nmetrics) {
		size_t nargs = pmc_thresholds_nargs(co->s.thresholds);

		read = calloc(co->s.nmetrics + nargs, sizeof(*read));
		if (!read) {
			pmc_cli_error("out of memory");
			goto out;
		}
		for (size_t i = 0; i < co->s.nmetrics; i++)
			read[nread++] = co->s.metrics[i];
		for (size_t i = 0; i < nargs; i++)
			read[nread++] = pmc_thresholds_arg(co->s.thresholds, i, NULL);
	}
	if (pmc_history_baseline(h, r, &meta, o->branch, o->last ? o->last : DEFAULT_LAST, read,
				 nread, &base, &nentries, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		goto out;
	}
	pmc_history_fingerprint(r, &meta, fp);
	if (!base) {
		pmc_cli_error(
		    "%s holds no earlier result of %s's benchmarks on its fingerprint %s%s%s; "
		    "add results of this machine first ('pmcbench history add')",
		    pmc_history_display(h), argv[0], fp, o->branch ? " on branch " : "",
		    o->branch ? o->branch : "");
		goto out;
	}
	snprintf(name, sizeof(name), "history (last %zu on %s)", nentries, fp);
	code = pmc_cli_exit_status(0, pmc_session_compare_results(base, name, r, argv[0], &co->s, true,
								   &pmc_cli_printer));
out:
	free(read);
	pmc_result_free(base);
	pmc_result_free(r);
	pmc_history_close(h);
	return code;
}

/* ---- The dispatcher ---- */

struct action {
	const char *name;
	const struct option *opts;
};

static const struct action actions[] = {
    {"add", add_opts},	     {"list", select_opts},	{"show", show_opts},
    {"export", export_opts}, {"changes", changes_opts}, {"gate", gate_opts},
    {"bisect", bisect_opts},
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
		pmc_cli_error(
		    "unknown history action '%s'; use add, list, show, export, changes or "
		    "gate",
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
		pmc_cli_error("history needs an action: add, list, show, export, changes or gate; "
			      "try 'pmcbench help history'");
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
		code = action_add(argc, argv, &o);
	else if (strcmp(a->name, "list") == 0)
		code = action_list(argc, argv, &o);
	else if (strcmp(a->name, "show") == 0)
		code = action_show(argc, argv, &o);
	else if (strcmp(a->name, "export") == 0)
		code = action_export(argc, argv, &o);
	else if (strcmp(a->name, "changes") == 0)
		code = action_changes(argc, argv, &o);
	else if (strcmp(a->name, "bisect") == 0)
		code = pmc_cli_history_bisect(argc, argv, &o.bisect);
	else
		code = action_gate(argc, argv, &o, co);
out:
	free(o.tags);
	free(longopts);
	pmc_cli_compare_opts_free(co);
	return code;
}

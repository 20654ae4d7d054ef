/* `pmcbench report`: a profile's top functions, its folded stacks or its flame graph,
 * and the difference between two profiles (docs/profile.md), pmcbench's or another
 * tool's (harness/4-profile/profile_import.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "profile/profile.h"
#include "profile/profile_import.h"
#include "reporters/flamegraph.h"
#include "reporters/profile_report.h"

#define REPORT_DEFAULT_TOP 20
/* With --by, functions per task: a screen holds several tasks' tops. */
#define REPORT_DEFAULT_TOP_BY 5

static void help(FILE *out)
{
	fprintf(out,
		"Usage: pmcbench report [OPTIONS] PROFILE\n"
		"       pmcbench report --diff [OPTIONS] OLD NEW\n"
		"       pmcbench report --lines=FUNC PROFILE\n"
		"       pmcbench report --annotate=FUNC PROFILE\n"
		"       pmcbench report --tree=caller|callee [--function=FUNC] PROFILE\n"
		"Show where a profile written by 'pmcbench record' (or 'run --profile') spent\n"
		"its event: the functions by self and total share, like 'perf report'.\n"
		"PROFILE may also be another tool's, told by its content: folded stacks\n"
		"('main;parse;scan 42' lines, flamegraph.pl's input) or the output of\n"
		"'perf script' of a 'perf record -g' file (for C++, 'perf script --no-demangle':\n"
		"perf drops the parameters pmcbench and valgrind show).\n\n"
		"Options:\n"
		"      --top=N            functions listed (default %d, or %d per task with\n"
		"                         --by; 0: all)\n"
		"      --by=KEY           the weight by task, and each one's top functions:\n"
		"                         KEY is comm (thread name), pid (process) or tid\n"
		"                         (thread; perf report's --sort pid is by thread);\n"
		"                         or by object, the file the samples fell in (perf\n"
		"                         report --sort dso: a stripped program adds up)\n"
		"      --folded           print the folded stacks instead (one line per stack,\n"
		"                         'root;caller;leaf WEIGHT', for other flame graph tools)\n"
		"      --svg=FILE         also write an interactive flame graph (search, zoom);\n"
		"                         with --diff a differential one: red grew, blue shrank\n"
		"      --diff             compare two profiles: the functions that changed most;\n"
		"                         of one event, by the change of their self time (or\n"
		"                         count), '~' within sampling error; else of their share\n"
		"      --lines=FUNC       the samples of function FUNC by source line (and the\n"
		"                         function inlined there), from the line table of its\n"
		"                         object (built with -g) read when it was recorded\n"
		"      --annotate=FUNC    the instructions of function FUNC, each with its share\n"
		"                         of FUNC's samples and of the profile, and its source\n"
		"                         line (perf annotate), disassembled from its object\n"
		"      --children         order the functions by total (with what they call), as\n"
		"                         perf report --children; with --tree=callee, each\n"
		"                         function's total split by its callers\n"
		"      --tree=KIND        the call tree as text (perf report -g KIND): caller,\n"
		"                         from the roots down, callers above what they call;\n"
		"                         callee, reversed, each function by self weight (or\n"
		"                         total, --children) with its callers below it\n"
		"      --function=FUNC    with --tree, FUNC's tree only: what it calls (caller),\n"
		"                         who calls it (callee: who calls memcmp?)\n"
		"      --percent-limit=PCT  with --tree, leave out paths under PCT%% of the\n"
		"                         total, counted in one line (default %g)\n"
		"  -h, --help             display this help and exit\n"
		"The flame graph's look (with --svg; search is case-sensitive unless its 'ic'\n"
		"control is on):\n"
		"      --width=PX         its width in pixels (default 1200, at least %d)\n"
		"      --title=TEXT       its title (default: 'Flame graph: ' and what was\n"
		"                         profiled)\n"
		"      --inverted         an icicle graph: the root at the top, callees below\n"
		"      --min-width=PX     leave out frames narrower than PX pixels (default 0.1,\n"
		"                         as flamegraph.pl's --minwidth)\n"
		"\n"
		"Exit status: 0 success, 2 error (a file that is not a profile, with the line\n"
		"that is not, a file that cannot be written).\n",
		REPORT_DEFAULT_TOP, REPORT_DEFAULT_TOP_BY, PMC_PROFILE_TREE_LIMIT,
		PMC_FLAME_MIN_WIDTH);
}

enum {
	OPT_TOP = 0x100,
	OPT_FOLDED,
	OPT_SVG,
	OPT_DIFF,
	OPT_WIDTH,
	OPT_TITLE,
	OPT_INVERTED,
	OPT_MIN_WIDTH,
	OPT_BY,
	OPT_LINES,
	OPT_ANNOTATE,
	OPT_TREE,
	OPT_FUNCTION,
	OPT_CHILDREN,
	OPT_PERCENT_LIMIT,
};

/* The widest graph: far beyond any screen, and every frame's coordinates stay exact. */
#define REPORT_MAX_WIDTH 100000

static const struct option long_opts[] = {
    {"top", required_argument, NULL, OPT_TOP},
    {"folded", no_argument, NULL, OPT_FOLDED},
    {"svg", required_argument, NULL, OPT_SVG},
    {"diff", no_argument, NULL, OPT_DIFF},
    {"width", required_argument, NULL, OPT_WIDTH},
    {"title", required_argument, NULL, OPT_TITLE},
    {"inverted", no_argument, NULL, OPT_INVERTED},
    {"min-width", required_argument, NULL, OPT_MIN_WIDTH},
    {"by", required_argument, NULL, OPT_BY},
    {"lines", required_argument, NULL, OPT_LINES},
    {"annotate", required_argument, NULL, OPT_ANNOTATE},
    {"tree", required_argument, NULL, OPT_TREE},
    {"function", required_argument, NULL, OPT_FUNCTION},
    {"children", no_argument, NULL, OPT_CHILDREN},
    {"percent-limit", required_argument, NULL, OPT_PERCENT_LIMIT},
    {"help", no_argument, NULL, 'h'},
    {0},
};

/* --min-width: pixels, 0 or more (0.1 is flamegraph.pl's default). */
static int parse_pixels(const char *s, double *ret)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= 0) || !isfinite(v) || v > REPORT_MAX_WIDTH) {
		pmc_cli_error("--min-width: '%s' is not a number of pixels from 0 to %d (such as "
			      "0.1)",
			      s, REPORT_MAX_WIDTH);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

/* --percent-limit: a share in percent, 0 to 100. */
static int parse_percent(const char *s, double *ret)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= 0 && v <= 100)) {
		pmc_cli_error("--percent-limit: '%s' is not a percentage from 0 to 100 (such as "
			      "0.5)",
			      s);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

/* A view of one profile that does not go with another option: one line. */
static int refuse_with(const char *view, bool diff, bool folded, const char *svg, bool by,
		       const char *lines)
{
	const char *other = diff     ? "--diff"
			    : folded ? "--folded"
			    : svg    ? "--svg"
			    : by     ? "--by"
			    : lines  ? "--lines"
				     : NULL;

	if (!other)
		return 0;
	pmc_cli_error("%s and %s are two views: give one of them", view, other);
	return -EINVAL;
}

static struct pmc_profile *load(const char *path)
{
	struct pmc_profile *p = NULL;
	char err[1024];

	if (pmc_profile_load_any(path, &p, NULL, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		return NULL;
	}
	return p;
}

int pmc_cli_report(int argc, char **argv)
{
	struct pmc_profile *old_p = NULL, *new_p = NULL;
	struct pmc_flame_view view = {0};
	const char *svg = NULL, *look = NULL, *lines = NULL, *function = NULL, *annotate = NULL;
	bool folded = false, diff = false, top_given = false, by_given = false;
	bool tree_given = false, children = false;
	struct pmc_profile_tree_view tree = {.percent_limit = -1};
	double limit = -1;
	enum pmc_profile_by by = PMC_PROFILE_BY_TID;
	uint64_t width;
	size_t top = REPORT_DEFAULT_TOP;
	int opt, r, code = PMC_EXIT_ERROR;

	optind = 0;
	while ((opt = pmc_cli_getopt(argc, argv, ":h", long_opts, "report")) != -1) {
		switch (opt) {
		case OPT_TOP:
			if (pmc_cli_parse_size("--top", optarg, 0, &top) < 0)
				return PMC_EXIT_ERROR;
			top_given = true;
			break;
		case OPT_BY:
			if (pmc_profile_by_parse(optarg, &by) < 0) {
				pmc_cli_error("--by: '%s' is not a grouping; give comm (thread "
					      "name), pid (process), tid (thread) or object",
					      optarg);
				return PMC_EXIT_ERROR;
			}
			by_given = true;
			break;
		case OPT_FOLDED:
			folded = true;
			break;
		case OPT_SVG:
			svg = optarg;
			break;
		case OPT_DIFF:
			diff = true;
			break;
		case OPT_WIDTH:
			if (pmc_cli_parse_count("--width", optarg, PMC_FLAME_MIN_WIDTH,
						REPORT_MAX_WIDTH, &width) < 0)
				return PMC_EXIT_ERROR;
			view.width = (unsigned)width;
			look = "--width";
			break;
		case OPT_TITLE:
			view.title = optarg;
			look = "--title";
			break;
		case OPT_INVERTED:
			view.inverted = true;
			look = "--inverted";
			break;
		case OPT_MIN_WIDTH:
			if (parse_pixels(optarg, &view.min_width) < 0)
				return PMC_EXIT_ERROR;
			look = "--min-width";
			break;
		case OPT_LINES:
			lines = optarg;
			break;
		case OPT_ANNOTATE:
			annotate = optarg;
			break;
		case OPT_TREE:
			if (pmc_profile_tree_kind_parse(optarg, &tree.kind) < 0) {
				pmc_cli_error("--tree: '%s' is not a call tree; give caller (from "
					      "the roots down) or callee (each function, then who "
					      "calls it)",
					      optarg);
				return PMC_EXIT_ERROR;
			}
			tree_given = true;
			break;
		case OPT_FUNCTION:
			function = optarg;
			break;
		case OPT_CHILDREN:
			children = true;
			break;
		case OPT_PERCENT_LIMIT:
			if (parse_percent(optarg, &limit) < 0)
				return PMC_EXIT_ERROR;
			break;
		case 'h':
			help(stdout);
			return PMC_EXIT_OK;
		default:
			return PMC_EXIT_ERROR;
		}
	}
	if (argc - optind != (diff ? 2 : 1)) {
		pmc_cli_error(diff ? "report --diff: give two profiles, OLD and NEW"
				   : "report: give one profile file (or --diff OLD NEW)");
		return PMC_EXIT_ERROR;
	}
	if (diff && folded) {
		pmc_cli_error("--folded writes one profile's stacks; with --diff use --svg for "
			      "the differential flame graph");
		return PMC_EXIT_ERROR;
	}
	/* The folded stacks, the flame graphs and the diff are by function: tasks merged. */
	if (by_given && (diff || folded || svg)) {
		const char *merged = diff ? "--diff" : svg ? "--svg" : "--folded";

		pmc_cli_error("--by shows one profile's weight by task as text; it does not "
			      "apply to %s, which merge the tasks",
			      merged);
		return PMC_EXIT_ERROR;
	}
	if (by_given && !top_given)
		top = REPORT_DEFAULT_TOP_BY;
	if (lines && (diff || folded || svg)) {
		pmc_cli_error("--lines shows one function's source lines: give it without "
			      "--diff, --folded and --svg");
		return PMC_EXIT_ERROR;
	}
	if (lines && by_given) {
		pmc_cli_error("--lines and --by are two views of one profile: give one of them");
		return PMC_EXIT_ERROR;
	}
	if (annotate) {
		const char *other = tree_given ? "--tree" : children ? "--children" : NULL;

		if (refuse_with("--annotate", diff, folded, svg, by_given, lines) < 0)
			return PMC_EXIT_ERROR;
		if (other) {
			pmc_cli_error("--annotate and %s are two views: give one of them", other);
			return PMC_EXIT_ERROR;
		}
		if (top_given) {
			pmc_cli_error(
			    "--annotate shows every instruction of FUNC: --top applies to "
			    "the function table");
			return PMC_EXIT_ERROR;
		}
	}
	if (annotate && !pmc_cli_report_annotate_possible())
		return PMC_EXIT_ERROR;
	if ((function || limit >= 0) && !tree_given) {
		pmc_cli_error("%s shapes the call tree: give --tree=caller or --tree=callee too",
			      function ? "--function" : "--percent-limit");
		return PMC_EXIT_ERROR;
	}
	if (tree_given && refuse_with("--tree", diff, folded, svg, by_given, lines) < 0)
		return PMC_EXIT_ERROR;
	if (children && refuse_with("--children", diff, folded, svg, by_given, lines) < 0)
		return PMC_EXIT_ERROR;
	if (tree_given && tree.kind == PMC_PROFILE_TREE_CALLER && (children || top_given)) {
		pmc_cli_error("--tree=caller shows every path by its total from the roots down: "
			      "%s applies to the function table and --tree=callee",
			      children ? "--children" : "--top");
		return PMC_EXIT_ERROR;
	}
	if (look && !svg) {
		pmc_cli_error("%s draws the flame graph: give --svg FILE too", look);
		return PMC_EXIT_ERROR;
	}
	if (svg && pmc_session_check_path(&pmc_cli_printer, "--svg", svg) < 0)
		return PMC_EXIT_ERROR;
	if (diff) {
		old_p = load(argv[optind]);
		if (!old_p)
			goto out;
		new_p = load(argv[optind + 1]);
	} else {
		new_p = load(argv[optind]);
	}
	if (!new_p)
		goto out;
	if (lines) {
		code = pmc_cli_report_lines(argv[optind], new_p, lines);
		goto out;
	}
	if (annotate) {
		/* Paths and names may be UTF-8: in ASCII where the locale is not. */
		if (pmc_cli_ascii_wrap(&stdout) < 0) {
			pmc_cli_error("out of memory");
			goto out;
		}
		code = pmc_cli_report_annotate(argv[optind], new_p, annotate);
		goto out;
	}

	if (tree_given) {
		/* Its guides are box-drawing characters: in ASCII where the locale is not UTF-8. */
		if (pmc_cli_ascii_wrap(&stdout) < 0) {
			pmc_cli_error("out of memory");
			goto out;
		}
		tree.function = function;
		tree.children = children;
		tree.percent_limit = limit;
		tree.top = top;
		tree.width = pmc_session_stream_width(stdout);
		r = pmc_profile_report_tree(stdout, new_p, &tree);
		if (r == -ENOENT) {
			pmc_cli_report_unknown_function(argv[optind], new_p, "--function",
							function);
			goto out;
		}
	} else if (folded)
		r = pmc_profile_report_folded(stdout, new_p);
	else if (diff)
		r = pmc_profile_report_diff(stdout, old_p, new_p, top);
	else if (by_given)
		r = pmc_profile_report_tasks(stdout, new_p, by, top);
	else
		r = pmc_profile_report_text_by(stdout, new_p, top, children);
	if (r == 0)
		r = pmc_session_stream_flush(stdout);
	if (r < 0) {
		pmc_cli_error("report: cannot write to standard output: %s", strerror(-r));
		goto out;
	}
	/* Folded stacks are a document for other tools: the note goes to stderr (the text
	 * report has it in its header). */
	if (folded && pmc_profile_truncated(new_p)) {
		fputs("pmcbench: note: ", stderr);
		pmc_profile_report_truncated(stderr, new_p);
		fputs("\n", stderr);
	}
	if (svg) {
		if (pmc_session_write_flamegraph(svg, old_p, new_p, &view, &pmc_cli_printer) < 0)
			goto out;
		fprintf(stderr, "pmcbench: wrote the %sflame graph to %s\n",
			diff ? "differential " : "", svg);
	}
	code = PMC_EXIT_OK;
out:
	pmc_profile_free(old_p);
	pmc_profile_free(new_p);
	return code;
}

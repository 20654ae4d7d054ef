/* `pmcbench run`: parse options, check the commands and events, probe the counters
 * once, hand the work to the runner, then report, save and compare. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "counters/counters.h"
#include "counters/doctor.h"
#include "counters/events.h"
#include "counters/valgrind.h"
#include "harness/base/path.h"
#include "harness/cli/cli.h"
#include "harness/cli/cli_profile.h"
#include "harness/core/metrics.h"
#include "harness/core/result.h"
#include "harness/formats/result_json.h"
#include "harness/run/env.h"
#include "harness/run/runner.h"
#include "harness/run/spawn.h"
#include "harness/run/words.h"
#include "pmcbench/compare.h"
#include "pmcbench/report.h"
#include "reporters/compare_cells.h"
#include "reporters/format.h"


struct run_cli {
	struct pmc_runner_opts ro;
	char **cmd_strings; /* -c, in order */
	size_t ncmd_strings;
	/* -n names the command that follows it: names[i] is the -n before cmd_strings[i]
	 * (NULL when none), or with commands after "--", names[0] theirs. */
	char **names;
	size_t nnames;
	const char *pending_name; /* an -n not yet followed by its -c */
	char *events_spec; /* -e lists joined by ',' */
	bool shell, require_counters, median, quiet, stats;
	bool profile; /* --profile */
	const char *output, *baseline;
	size_t reference; /* 1-based, 0: the first */
	bool unpaired;	  /* --unpaired */
	bool gate;	  /* --gate */
	bool runs_auto;	  /* --runs auto, with seq.max_runs and seq.max_time_s */
	bool max_given;
	bool vg_tool_given; /* --valgrind-tool */
	struct pmc_cli_seq seq;
	const char *format; /* a format of pmcbench/report.h, by its canonical name */
	struct pmc_cli_compare_opts *copts;
	bool runs_given, warmup_given;
	const char **env_keep; /* --env-keep names, NULL-terminated (ro.env_keep) */
	size_t nenv_keep;
	struct pmc_cli_exports exports; /* --export */
};

static void help(FILE *out)
{
	fprintf(out,
		"Usage: pmcbench run [OPTIONS] -- COMMAND [ARGS...]\n"
		"       pmcbench run [OPTIONS] -c 'COMMAND A' -c 'COMMAND B' ...\n"
		"       pmcbench run --library=PATH.so [--filter=REGEX] [OPTIONS]\n"
		"Run commands repeatedly under grouped performance counters and report the\n"
		"counts, derived metrics (IPC, miss rates) and times, like 'perf stat -r'.\n\n"
		"What to run:\n"
		"  -c, --command=CMD      a command, split into words like a shell would (no\n"
		"                         shell runs); repeat to compare commands: their runs are\n"
		"                         interleaved so that drift hits all of them alike\n"
		"  -n, --name=NAME        name of the command that follows it (-n A -c CMD, or\n"
		"                         before '--'); default: the command as written\n"
		"      --shell            run each command with /bin/sh -c\n"
		"  -r, --runs=N|auto      measured runs per command (default 10; valgrind: 1);\n"
		"                         auto: with several commands, rounds until every metric\n"
		"                         a --threshold names is decided (docs/compare.md)\n"
		"      --max-runs=N       --runs auto: at most N rounds (default 100)\n"
		"      --max-time=SECONDS --runs auto: no new round after this long\n"
		"  -w, --warmup=N         unmeasured runs first (default 1; valgrind: 0)\n"
		"      --duet             run the two commands (-c A -c B) at the same time, each\n"
		"                         pinned to a CPU of its own (the first two this process\n"
		"                         may use; see taskset), swapped every round, so that the\n"
		"                         machine's noise hits both alike (docs/compare.md)\n"
		"      --timeout=SECONDS  kill a run (its whole process group) after this long\n"
		"      --input=FILE       the command's standard input (default /dev/null)\n"
		"      --show-output      let the command write to the terminal\n"
		"      --ignore-failure   record runs that exit non-zero or are killed instead\n"
		"                         of stopping with an error\n"
		"      --env-keep=VAR     pass VAR from this environment to the command too\n"
		"                         (repeatable); by default it gets only HOME, PATH and\n"
		"                         TMPDIR from here, and LC_ALL=C, so that other variables\n"
		"                         cannot change its counts\n"
		"      --env-inherit      pass the whole environment instead\n"
		"      --library=PATH.so  run the benchmarks a shared object registered with\n"
		"                         PMC_BENCHMARK, with the options of a benchmark program\n"
		"                         ('pmcbench run --library=X --help'; docs/microbench.md)\n\n"
		"What to count:\n"
		"  -e, --events=LIST      perf-style event list, e.g. '{cycles,instructions}:u,\n"
		"                         task-clock,msr/tsc/' (repeatable; 'pmcbench list')\n"
		"      --require-counters fail when a requested event cannot be counted\n"
		"      --backend=NAME     perf (default) or valgrind: exact simulated counts\n"
		"      --valgrind-tool=T  callgrind (default) or cachegrind\n"
		"      --profile          after the measured runs, one profiled run of each\n"
		"                         command (sampled; exact with valgrind), saved beside the\n"
		"                         result (FILE.profiles/); a regression then says which\n"
		"                         functions account for it (docs/profile.md)\n\n");
	/* Two strings: one would pass the 4095 characters C99 compilers must take. */
	fprintf(out,
		"Output:\n"
		"  -o, --output=FILE      write the result JSON (atomically) to FILE\n"
		"      --export=FILE      also write the result to FILE (atomically; repeatable)\n"
		"                         in the format its extension names: .json (the result\n"
		"                         file), .csv, .md, or .txt (Go's benchmark format, for\n"
		"                         benchstat); docs/export.md\n"
		"      --format=FMT       report on stdout: table (default), json, csv, markdown,\n"
		"                         gobench (Go's benchmark format)\n"
		"      --median           show medians instead of means in the table\n"
		"      --stats            add every metric's n, mean, stddev, median and its CI,\n"
		"                         MAD, min, max and CV after the table\n"
		"  -q, --quiet            no progress on stderr (on a terminal: the command, the\n"
		"                         run count, the running median time and the time left;\n"
		"                         in a log: one such line every 10 s)\n\n"
		"Comparison (with several commands, or --baseline):\n"
		"      --baseline=FILE    gate this run against a baseline result file\n"
		"      --reference=N      compare every command against the Nth (default 1)\n"
		"      --unpaired         compare the commands' runs as independent samples, not\n"
		"                         round by round (paired is the default: docs/compare.md)\n"
		"      --gate             with several commands, judge them as 'pmcbench gate'\n"
		"                         does: exit 1 when one regresses against the reference\n");
	pmc_cli_compare_opts_help(out);
	fprintf(out, "\nExit status: 0 success, 1 regression (with --baseline, or --gate), 2 error,\n"
		     "3 inconclusive (with --fail-on-inconclusive).\n");
}

static int parse_size(const char *opt, const char *s, size_t min, size_t *ret)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < min || v > 1000000) {
		pmc_cli_error("%s: '%s' is not a whole number from %zu to 1000000", opt, s, min);
		return -EINVAL;
	}
	*ret = (size_t)v;
	return 0;
}

/* Appends s; the array's room doubles (4, 8, 16, ...) so that n words cost O(n). */
static int push_str(char ***arr, size_t *n, char *s)
{
	if (*n == 0 || (*n >= 4 && (*n & (*n - 1)) == 0)) {
		char **grown = realloc(*arr, (*n ? 2 * *n : 4) * sizeof(**arr));

		if (!grown)
			return -ENOMEM;
		*arr = grown;
	}
	(*arr)[(*n)++] = s;
	return 0;
}

static int add_events(struct run_cli *c, const char *list)
{
	size_t len = c->events_spec ? strlen(c->events_spec) : 0;
	char *s = realloc(c->events_spec, len + strlen(list) + 2);

	if (!s)
		return -ENOMEM;
	if (len)
		s[len++] = ',';
	strcpy(s + len, list);
	c->events_spec = s;
	return 0;
}

enum {
	OPT_SHELL = 256,
	OPT_TIMEOUT,
	OPT_INPUT,
	OPT_SHOW_OUTPUT,
	OPT_IGNORE_FAILURE,
	OPT_REQUIRE,
	OPT_BACKEND,
	OPT_VG_TOOL,
	OPT_FORMAT,
	OPT_MEDIAN,
	OPT_STATS,
	OPT_BASELINE,
	OPT_REFERENCE,
	OPT_UNPAIRED,
	OPT_GATE,
	OPT_MAX_RUNS,
	OPT_MAX_TIME,
	OPT_ENV_KEEP,
	OPT_ENV_INHERIT,
	OPT_DUET,
	OPT_EXPORT,
	OPT_PROFILE,
};

static const struct option long_opts[] = {
	{ "command", required_argument, NULL, 'c' },
	{ "name", required_argument, NULL, 'n' },
	{ "shell", no_argument, NULL, OPT_SHELL },
	{ "runs", required_argument, NULL, 'r' },
	{ "warmup", required_argument, NULL, 'w' },
	{ "duet", no_argument, NULL, OPT_DUET },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "input", required_argument, NULL, OPT_INPUT },
	{ "show-output", no_argument, NULL, OPT_SHOW_OUTPUT },
	{ "ignore-failure", no_argument, NULL, OPT_IGNORE_FAILURE },
	{ "env-keep", required_argument, NULL, OPT_ENV_KEEP },
	{ "env-inherit", no_argument, NULL, OPT_ENV_INHERIT },
	{ "events", required_argument, NULL, 'e' },
	{ "require-counters", no_argument, NULL, OPT_REQUIRE },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "valgrind-tool", required_argument, NULL, OPT_VG_TOOL },
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "export", required_argument, NULL, OPT_EXPORT },
	{ "profile", no_argument, NULL, OPT_PROFILE },
	{ "median", no_argument, NULL, OPT_MEDIAN },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "reference", required_argument, NULL, OPT_REFERENCE },
	{ "unpaired", no_argument, NULL, OPT_UNPAIRED },
	{ "gate", no_argument, NULL, OPT_GATE },
	{ "max-runs", required_argument, NULL, OPT_MAX_RUNS },
	{ "max-time", required_argument, NULL, OPT_MAX_TIME },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Takes one option: 0 to go on, 1 when --help was handled, -EINVAL after an error line. */
static int parse_opt(struct run_cli *c, int opt)
{
	int r;

	switch (opt) {
	case 'c':
		if (push_str(&c->cmd_strings, &c->ncmd_strings, optarg) < 0 ||
		    push_str(&c->names, &c->nnames, (char *)c->pending_name) < 0)
			return -ENOMEM;
		c->pending_name = NULL;
		break;
	case 'n':
		if (c->pending_name) {
			pmc_cli_error("-n '%s' follows -n '%s' with no -c between them; -n names "
				      "the command that follows it: -n NAME -c CMD", optarg,
				      c->pending_name);
			return -EINVAL;
		}
		c->pending_name = optarg;
		break;
	case OPT_SHELL:
		c->shell = true;
		break;
	case 'r':
		c->runs_given = true;
		if (strcmp(optarg, "auto") == 0) {
			c->runs_auto = true;
			break;
		}
		if (parse_size("--runs", optarg, 1, &c->ro.runs) < 0)
			return -EINVAL;
		c->runs_auto = false;
		break;
	case OPT_MAX_RUNS:
		c->max_given = true;
		if (parse_size("--max-runs", optarg, 1, &c->seq.max_runs) < 0)
			return -EINVAL;
		break;
	case OPT_MAX_TIME: {
		char *end;

		c->max_given = true;
		c->seq.max_time_s = strtod(optarg, &end);
		if (end == optarg || *end || !(c->seq.max_time_s > 0) ||
		    !isfinite(c->seq.max_time_s)) {
			pmc_cli_error("--max-time: '%s' is not a positive number of seconds",
				      optarg);
			return -EINVAL;
		}
		break;
	}
	case OPT_GATE:
		c->gate = true;
		break;
	case 'w':
		if (parse_size("--warmup", optarg, 0, &c->ro.warmup) < 0)
			return -EINVAL;
		c->warmup_given = true;
		break;
	case OPT_TIMEOUT: {
		char *end;
		double t = strtod(optarg, &end);

		if (end == optarg || *end || !(t > 0) || !isfinite(t)) {
			pmc_cli_error("--timeout: '%s' is not a positive number of seconds",
				      optarg);
			return -EINVAL;
		}
		c->ro.timeout_s = t;
		break;
	}
	case OPT_INPUT: {
		int fd = open(optarg, O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			pmc_cli_error("--input: cannot read '%s': %s", optarg,
				      strerror(errno));
			return -EINVAL;
		}
		close(fd);
		c->ro.input_path = optarg;
		break;
	}
	case OPT_DUET:
		c->ro.duet = true;
		break;
	case OPT_SHOW_OUTPUT:
		c->ro.show_output = true;
		break;
	case OPT_IGNORE_FAILURE:
		c->ro.ignore_failure = true;
		break;
	case OPT_ENV_KEEP: {
		const char **grown;

		if (!optarg[0] || strchr(optarg, '=')) {
			pmc_cli_error("--env-keep: '%s' is not a variable name; give the name only "
				      "(set its value in the environment pmcbench runs in)", optarg);
			return -EINVAL;
		}
		grown = realloc(c->env_keep, (c->nenv_keep + 2) * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		grown[c->nenv_keep++] = optarg;
		grown[c->nenv_keep] = NULL;
		c->env_keep = grown;
		c->ro.env_keep = grown;
		break;
	}
	case OPT_ENV_INHERIT:
		c->ro.env_inherit = true;
		break;
	case 'e':
		if (add_events(c, optarg) < 0)
			return -ENOMEM;
		break;
	case OPT_REQUIRE:
		c->require_counters = true;
		break;
	case OPT_BACKEND:
		if (strcmp(optarg, "perf") == 0) {
			c->ro.backend = PMC_BACKEND_PERF;
		} else if (strcmp(optarg, "valgrind") == 0) {
			c->ro.backend = PMC_BACKEND_VALGRIND;
		} else {
			pmc_cli_error("--backend: unknown backend '%s'; use perf or valgrind",
				      optarg);
			return -EINVAL;
		}
		break;
	case OPT_VG_TOOL:
		c->vg_tool_given = true;
		if (strcmp(optarg, "callgrind") == 0) {
			c->ro.valgrind_tool = PMC_VALGRIND_CALLGRIND;
		} else if (strcmp(optarg, "cachegrind") == 0) {
			c->ro.valgrind_tool = PMC_VALGRIND_CACHEGRIND;
		} else {
			pmc_cli_error("--valgrind-tool: unknown tool '%s'; use callgrind or "
				      "cachegrind", optarg);
			return -EINVAL;
		}
		break;
	case 'o':
		c->output = optarg;
		break;
	case OPT_EXPORT:
		if (pmc_cli_exports_add(&c->exports, optarg) < 0)
			return -EINVAL;
		break;
	case OPT_FORMAT:
		if (pmc_report_format(optarg, PMC_REPORT_RESULT, &c->format, NULL) < 0) {
			pmc_cli_error("--format: unknown format '%s'; use table, json, csv, "
				      "markdown or gobench", optarg);
			return -EINVAL;
		}
		break;
	case OPT_MEDIAN:
		c->median = true;
		break;
	case OPT_STATS:
		c->stats = true;
		break;
	case 'q':
		c->quiet = true;
		break;
	case OPT_BASELINE:
		c->baseline = optarg;
		break;
	case OPT_PROFILE:
		c->profile = true;
		break;
	case OPT_REFERENCE:
		if (parse_size("--reference", optarg, 1, &c->reference) < 0)
			return -EINVAL;
		break;
	case OPT_UNPAIRED:
		c->unpaired = true;
		pmc_cli_compare_opts_set_unpaired(c->copts, true);
		break;
	case 'h':
		help(stdout);
		return 1;
	case '?':
		return -EINVAL;
	default:
		/* The comparison options (cli_compare.c); --format here is run's own. */
		r = pmc_cli_compare_opts_handle(c->copts, opt, optarg);
		return r < 0 ? r : r > 0 ? 0 : -EINVAL;
	}
	return 0;
}

/* Returns 0 to go on, 1 when --help was handled, -EINVAL after an error line. */
static int parse_args(struct run_cli *c, int argc, char **argv, int *ret_optind)
{
	struct option *longopts = pmc_cli_options_merge(long_opts, pmc_cli_compare_long_opts);
	int opt, r = 0;

	if (!longopts)
		return -ENOMEM;
	/* "+": the options end at the command, whose own options are its business. */
	optind = 0;
	while (r == 0 &&
	       (opt = pmc_cli_getopt(argc, argv, "+:c:n:r:w:e:o:qh", longopts, "run")) != -1) {
		r = parse_opt(c, opt);
	}
	free(longopts);
	if (r == 0)
		*ret_optind = optind;
	return r;
}

static char *join_words(char *const *words, size_t n)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; i < n; i++)
		len += strlen(words[i]) + 1;
	s = calloc(1, len);
	for (size_t i = 0; s && i < n; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, words[i]);
	}
	return s;
}

/* Turns the -c strings or the words after "--" into runner commands. */
static int build_commands(struct run_cli *c, int argc, char **argv, int first,
			  struct pmc_runner_cmd **ret_cmds, char ****ret_owned, size_t *ret_n)
{
	size_t n = c->ncmd_strings ? c->ncmd_strings : 1;
	struct pmc_runner_cmd *cmds = calloc(n, sizeof(*cmds));
	char ***owned = calloc(n, sizeof(*owned)); /* argv arrays to free */
	int r = -EINVAL;

	/* The caller frees what was built, whether this succeeds or not. */
	if (!cmds || !owned) {
		r = -ENOMEM;
		goto fail;
	}
	if (c->ncmd_strings && first < argc) {
		pmc_cli_error("give commands either with -c or after '--', not both");
		goto fail;
	}
	if (!c->ncmd_strings && first >= argc) {
		pmc_cli_error("no command to run; usage: pmcbench run [OPTIONS] -- COMMAND [ARGS...]");
		goto fail;
	}
	if (c->pending_name && c->ncmd_strings) {
		pmc_cli_error("-n '%s' names the command that follows it, and no -c follows; "
			      "put it before its command: -n %s -c CMD", c->pending_name,
			      c->pending_name);
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		char *display;
		char **words = NULL;

		if (c->ncmd_strings) {
			size_t col = 0;

			display = strdup(c->cmd_strings[i]);
			if (c->shell) {
				words = calloc(4, sizeof(*words));
				if (words) {
					words[0] = strdup("/bin/sh");
					words[1] = strdup("-c");
					words[2] = strdup(c->cmd_strings[i]);
				}
			} else if (pmc_words_split(c->cmd_strings[i], &words, &col) < 0) {
				pmc_cli_error("-c '%s': column %zu: %s", c->cmd_strings[i], col,
					      col == 1 ? "empty command"
						       : "unterminated quote or trailing backslash; "
							 "close the quote");
				free(display);
				goto fail;
			}
		} else {
			size_t nw = (size_t)(argc - first);

			display = join_words(argv + first, nw);
			/* With --shell: /bin/sh -c "the words", then NULL. */
			words = calloc(c->shell ? 4 : nw + 1, sizeof(*words));
			if (words && c->shell) {
				words[0] = strdup("/bin/sh");
				words[1] = strdup("-c");
				words[2] = strdup(display ? display : "");
			} else {
				for (size_t w = 0; words && w < nw; w++)
					words[w] = strdup(argv[first + (int)w]);
			}
		}
		if (!display || !words) {
			free(display);
			free(words);
			r = -ENOMEM;
			goto fail;
		}
		owned[i] = words;
		cmds[i].display = display;
		cmds[i].name = !c->ncmd_strings && c->pending_name ? c->pending_name :
			       i < c->nnames && c->names[i] ? c->names[i] : display;
		cmds[i].argv = words;
	}
	r = 0;
	for (size_t i = 0; i < n && r == 0; i++) {
		for (size_t j = 0; j < i && r == 0; j++) {
			if (strcmp(cmds[i].name, cmds[j].name) == 0) {
				pmc_cli_error("two commands are named '%s'; name them apart with -n",
					      cmds[i].name);
				r = -EINVAL;
			}
		}
	}
fail:
	*ret_cmds = cmds;
	*ret_owned = owned;
	*ret_n = n;
	return r;
}

static void free_commands(struct pmc_runner_cmd *cmds, char ***owned, size_t n)
{
	for (size_t i = 0; cmds && i < n; i++) {
		free((char *)cmds[i].display);
		free((char *)cmds[i].path);
		for (size_t w = 0; owned && owned[i] && owned[i][w]; w++)
			free(owned[i][w]);
		if (owned)
			free(owned[i]);
	}
	free(cmds);
	free(owned);
}

/* A -c string is split into words, not given to a shell: "a | b" runs a with the
 * arguments "|" and "b". One warning line names the first such command. */
static void warn_shell_syntax(const struct run_cli *c)
{
	static const char *const syntax[] = { "|", ">", "<", "&&", "$(", "`", ";" };

	for (size_t i = 0; !c->shell && i < c->ncmd_strings; i++)
		for (size_t k = 0; k < sizeof(syntax) / sizeof(syntax[0]); k++)
			if (strstr(c->cmd_strings[i], syntax[k])) {
				pmc_cli_warn("-c '%s' holds shell syntax ('%s'), but no shell runs it: "
					     "its words go to the command as they are; add --shell to "
					     "run it with /bin/sh -c", c->cmd_strings[i], syntax[k]);
				return;
			}
}

/* Every command must be an executable file before anything runs. */
static int check_commands(struct pmc_runner_cmd *cmds, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *path = NULL;
		int rc = pmc_find_executable(cmds[i].argv[0], &path);

		if (rc == 0) {
			/* Searched once here, not by every run's exec. */
			cmds[i].path = path;
			continue;
		}
		if (rc == -EACCES)
			pmc_cli_error("'%s' is not executable; check its permissions (chmod +x)",
				      cmds[i].argv[0]);
		else if (strchr(cmds[i].argv[0], '/'))
			pmc_cli_error("'%s': no such file", cmds[i].argv[0]);
		else
			pmc_cli_error("'%s': command not found in PATH; give its path, or use "
				      "--shell for shell built-ins", cmds[i].argv[0]);
		return -EINVAL;
	}
	return 0;
}

int pmc_cli_check_path(const char *opt, const char *path)
{
	char *copy;
	const char *dir;
	struct stat st;
	int r = 0;

	if (path[0] == '\0') {
		pmc_cli_error("%s: empty file name; give the path of the file to write", opt);
		return -EINVAL;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		pmc_cli_error("%s: '%s' is a directory; give the path of a file in it", opt, path);
		return -EINVAL;
	}
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	dir = dirname(copy);
	if (access(dir, W_OK) < 0) {
		pmc_cli_error("%s: cannot write into '%s': %s", opt, dir, strerror(errno));
		r = -EINVAL;
	}
	free(copy);
	return r;
}

int pmc_cli_check_output(const char *path)
{
	return pmc_cli_check_path("--output", path);
}

/* Probes the events once on this process to learn what this machine can count (the
 * library renames user-only events with ":u", as perf does) and says in one line which
 * events are missing and why. */
int pmc_cli_probe_events(struct pmc_event_list *ev, bool require, const struct pmc_sys *sys,
			 bool *ret_user_only)
{
	struct pmc_probe_report *rep = NULL;
	char missing[1024] = "", reason[512] = "", fell_back[1024] = "", err[256] = "";
	size_t nmissing, len = 0, flen = 0, n = pmc_event_list_count(ev);
	int first_err, level, r;

	*ret_user_only = false;
	r = pmc_event_list_probe(ev, NULL, &rep, err, sizeof(err));
	if (r < 0) {
		pmc_cli_error("%s", err);
		return r;
	}
	for (size_t i = 0; i < n; i++) {
		struct pmc_event_desc d = { .sz = sizeof(d) };
		enum pmc_status st;
		bool user_only;

		pmc_event_list_describe(ev, i, &d);
		pmc_probe_report_event(rep, i, &st, NULL, &user_only);
		if (d.exclude_kernel)
			*ret_user_only = true;
		if (user_only && flen < sizeof(fell_back) - 64)
			flen += (size_t)snprintf(fell_back + flen, sizeof(fell_back) - flen, "%s%s",
						 flen ? ", " : "", d.name);
		if ((st == PMC_STATUS_UNSUPPORTED || st == PMC_STATUS_DENIED) &&
		    len < sizeof(missing) - 64)
			len += (size_t)snprintf(missing + len, sizeof(missing) - len, "%s%s",
						len ? ", " : "", d.name);
	}
	if (flen) {
		char lv[16] = "?";

		if (pmc_probe_report_paranoid(rep, &level) == 0)
			snprintf(lv, sizeof(lv), "%d", level);
		fprintf(stderr, "pmcbench: note: counting user space only for %s: the kernel "
				"denies kernel-space counting (perf_event_paranoid=%s); see "
				"'pmcbench doctor'\n",
			fell_back, lv);
	}
	nmissing = pmc_probe_report_missing(rep);
	first_err = pmc_probe_report_first_error(rep);
	pmc_probe_report_free(rep);
	if (nmissing == 0)
		return 0;
	{
		struct pmc_doctor_opts dopts = { .sz = sizeof(dopts), .sys = sys };
		struct pmc_doctor d;

		if (pmc_doctor_collect(&dopts, &d) == 0)
			pmc_doctor_hw_reason(&d, first_err, reason, sizeof(reason));
		else
			snprintf(reason, sizeof(reason), "%s", strerror(first_err));
	}
	if (require) {
		pmc_cli_error("%zu event%s cannot be counted (%s): %s; drop --require-counters "
			      "to go on without them (see 'pmcbench doctor')",
			      nmissing, nmissing == 1 ? "" : "s", missing, reason);
		return -EINVAL;
	}
	fprintf(stderr, "pmcbench: note: %zu event%s not counted (%s): %s; see 'pmcbench doctor'\n",
		nmissing, nmissing == 1 ? "" : "s", missing, reason);
	return 0;
}

/* Two events with one metric id (after aliases: "cs" is "context-switches") would
 * record two samples per run under one name. */
int pmc_cli_check_duplicate_events(const struct pmc_event_list *ev, const char *spec)
{
	for (size_t i = 0; i < ev->n; i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(ev->events[i].name, ev->events[j].name) == 0) {
				pmc_cli_error("--events '%s': '%s' is given twice (aliases count as "
					      "the same event); give each event once",
					      spec, ev->events[i].name);
				return -EINVAL;
			}
	return 0;
}

/* The progress line: on a terminal, rewritten before every run; in a log (stderr not a
 * terminal), one line every PROGRESS_LOG_S seconds, none for a shorter run. */
#define PROGRESS_LOG_S 10.0

struct progress {
	const struct pmc_runner_cmd *cmds;
	const struct pmc_result *result;
	bool tty;
	size_t started, total; /* runs begun, runs in all (an upper bound with -r auto) */
	double t0, last;       /* CLOCK_MONOTONIC seconds: the start, the last log line */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The running median of the command's main time metric (task-clock when counted, else
 * wall-time) into buf; "" before its first measured run. */
static void running_median(const struct progress *p, size_t cmd, char *buf, size_t len)
{
	static const char *const ids[] = { "task-clock", "wall-time" };
	struct pmc_benchmark *b = pmc_result_find_benchmark(p->result, p->cmds[cmd].name);

	buf[0] = '\0';
	for (size_t i = 0; b && i < sizeof(ids) / sizeof(ids[0]); i++) {
		struct pmc_metric *m = pmc_benchmark_find_metric(b, ids[i]);
		double *v;
		size_t n = 0;

		if (!m || !m->n)
			continue;
		v = malloc(m->n * sizeof(*v));
		if (!v)
			return;
		for (size_t k = 0; k < m->n; k++)
			if (!isnan(m->values[k]))
				v[n++] = m->values[k];
		if (n) {
			char val[64];

			qsort(v, n, sizeof(*v), cmp_double);
			pmc_fmt_short(n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, m->unit, val,
				      sizeof(val));
			snprintf(buf, len, ", median %s %s", val, ids[i]);
		}
		free(v);
		if (n)
			return;
	}
}

static void progress(void *ud, size_t cmd, size_t run, size_t runs, bool warmup)
{
	struct progress *p = ud;
	double t = now_s(), left = -1;
	char med[96], eta[48] = "";

	/* Runs take about the same time: what is left at the pace so far. */
	if (p->started > 0 && p->total > p->started)
		left = (t - p->t0) / (double)p->started * (double)(p->total - p->started);
	p->started++;
	if (!p->tty && t - p->last < PROGRESS_LOG_S)
		return;
	p->last = t;
	running_median(p, cmd, med, sizeof(med));
	if (left >= 0)
		snprintf(eta, sizeof(eta), ", %.0fs left", ceil(left));
	if (p->tty) {
		fprintf(stderr, "\r\033[K%s %zu/%zu: %.40s%s%s", warmup ? "warm-up" : "run", run,
			runs, p->cmds[cmd].name, med, eta);
		fflush(stderr);
	} else {
		fprintf(stderr, "pmcbench: %s %zu/%zu of '%s'%s%s\n", warmup ? "warm-up" : "run",
			run, runs, p->cmds[cmd].name, med, eta);
	}
}

/* `run -c A -c B`: every command against the reference, as one comparison. */
static int compare_commands(const struct pmc_result *r, const struct run_cli *c,
			    struct pmc_comparison *pre)
{
	size_t ref = c->reference ? c->reference - 1 : 0;
	/* Beside a document on stdout (JSON, CSV, Go's format), on stderr with the rest. */
	FILE *to = pmc_cli_format_is_document(c->format) ? stderr : stdout;

	/* The comparison follows run's own format for table and markdown. */
	if (strcmp(c->format, "markdown") == 0 && pmc_cli_compare_opts_set_format(c->copts, "markdown") < 0)
		return PMC_EXIT_ERROR;
	fprintf(to, "\nComparison against the reference '%s':\n", r->benchmarks[ref].name);
	fflush(to);
	/* After --runs auto the sequential rule judges: the table's fixed-sample tests lose
	 * their error rates when the data chose the number of rounds. */
	return pmc_cli_compare_reference(r, ref, c->copts, c->gate && !c->runs_auto, pre);
}

int pmc_cli_run(int argc, char **argv)
{
	struct run_cli c = { .ro = { .sz = sizeof(c.ro), .runs = 10, .warmup = 1 }, .format = "table" };
	struct pmc_event_list *events = NULL;
	struct pmc_runner_cmd *cmds = NULL;
	struct pmc_result *result = NULL, *base = NULL;
	struct pmc_comparison *pre = NULL; /* computed for the headline, reported after */
	struct progress prog = {0};
	struct pmc_cli_profiles profiles = {0}, base_profiles = {0};
	char ***owned = NULL, err[1024] = "", *vg = NULL;
	size_t ncmds = 0;
	int code = PMC_EXIT_ERROR, first = 0, r;
	bool user_only = false;

	/* A shared object's benchmarks take the options of a benchmark program. */
	if (pmc_cli_wants_library(argc, argv))
		return pmc_cli_run_library(argc, argv);
	if (pmc_cli_compare_opts_new(&c.copts) < 0) {
		pmc_cli_error("out of memory");
		return PMC_EXIT_ERROR;
	}
	r = parse_args(&c, argc, argv, &first);
	if (r == -ENOMEM)
		pmc_cli_error("out of memory");
	if (r == 1) {
		code = PMC_EXIT_OK;
		goto out;
	}
	if (r < 0)
		goto out;
	/* Text for a reader in ASCII when the locale asks; documents byte for byte. */
	if (!pmc_cli_format_is_document(c.format) && pmc_cli_ascii_wrap(&stdout) < 0) {
		pmc_cli_error("out of memory");
		goto out;
	}
	if (c.ro.env_inherit && c.nenv_keep) {
		pmc_cli_error("--env-keep has no effect with --env-inherit, which passes every "
			      "variable; give one or the other");
		goto out;
	}
	/* Before anything is looked up or probed: the runner checks the same again. */
	if (c.ro.duet && pmc_runner_check_duet(c.ncmd_strings ? c.ncmd_strings : 1, c.ro.backend,
					       NULL, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		goto out;
	}
	if (c.vg_tool_given && c.ro.backend != PMC_BACKEND_VALGRIND) {
		pmc_cli_error("--valgrind-tool chooses valgrind's tool and does nothing without "
			      "--backend valgrind; give both, or neither");
		goto out;
	}
	if (c.ro.backend == PMC_BACKEND_VALGRIND) {
		if (!c.runs_given)
			c.ro.runs = 1;
		if (!c.warmup_given)
			c.ro.warmup = 0;
		if (c.events_spec || c.require_counters) {
			pmc_cli_error("%s does not apply to --backend valgrind, which always "
				      "reports its simulated counts", c.events_spec ? "--events" :
				      "--require-counters");
			goto out;
		}
		if (pmc_valgrind_find(&vg) < 0) {
			pmc_cli_error("valgrind is not installed; install it with: "
				      "apt-get install valgrind");
			goto out;
		}
		c.ro.valgrind_path = vg;
	}
	if (build_commands(&c, argc, argv, first, &cmds, &owned, &ncmds) < 0)
		goto out;
	if ((c.gate || c.runs_auto) && ncmds < 2) {
		pmc_cli_error("%s compares several commands (-c A -c B); to gate one command, "
			      "give --baseline FILE",
			      c.runs_auto ? "--runs auto" : "--gate");
		goto out;
	}
	if (pmc_cli_compare_opts_check_used(c.copts, ncmds >= 2 || c.baseline,
					    "give two commands (-c A -c B) or --baseline FILE") < 0)
		goto out;
	if (c.gate && c.baseline) {
		pmc_cli_error("--gate judges the commands against the reference; --baseline "
			      "gates against a file: give one of them");
		goto out;
	}
	if (c.max_given && !c.runs_auto) {
		pmc_cli_error("--max-runs and --max-time bound --runs auto; give -r auto too");
		goto out;
	}
	if (c.runs_auto && c.ro.backend == PMC_BACKEND_VALGRIND) {
		pmc_cli_error("--runs auto: valgrind's counts are exact, one run decides; drop "
			      "--runs auto");
		goto out;
	}
	if (c.runs_auto) {
		c.seq.ref = c.reference ? c.reference - 1 : 0;
		c.seq.copts = c.copts;
		if (!c.seq.max_runs)
			c.seq.max_runs = 100;
		if (c.reference <= ncmds && pmc_cli_seq_check_opts(&c.seq, ncmds) < 0)
			goto out;
		c.ro.runs = c.seq.max_runs;
		c.ro.round_done = pmc_cli_seq_round_done;
		c.ro.round_ud = &c.seq;
	}
	if (c.unpaired && ncmds < 2) {
		pmc_cli_error("--unpaired compares several commands' runs; give two or more "
			      "(-c A -c B)");
		goto out;
	}
	if (c.reference > ncmds) {
		pmc_cli_error("--reference %zu: there %s only %zu command%s", c.reference,
			      ncmds == 1 ? "is" : "are", ncmds, ncmds == 1 ? "" : "s");
		goto out;
	}
	warn_shell_syntax(&c);
	if (check_commands(cmds, ncmds) < 0)
		goto out;
	if (c.output && pmc_cli_check_output(c.output) < 0)
		goto out;
	if (pmc_cli_exports_check(&c.exports) < 0)
		goto out;
	if (c.baseline) {
		r = pmc_result_load(c.baseline, &base, err, sizeof(err));
		if (r < 0) {
			pmc_cli_error("%s", err);
			goto out;
		}
	}
	if (c.ro.backend == PMC_BACKEND_PERF) {
		const char *spec = c.events_spec ? c.events_spec : PMC_DEFAULT_EVENTS;

		r = pmc_event_list_parse(spec, NULL, &events, err, sizeof(err));
		if (r < 0) {
			pmc_cli_error("--events '%s': %s", spec, err);
			goto out;
		}
		if (pmc_cli_check_duplicate_events(events, spec) < 0)
			goto out;
		c.ro.events = events;
		c.ro.user_only_fallback = true;
		if (pmc_cli_probe_events(events, c.require_counters, c.ro.sys, &user_only) < 0)
			goto out;
	}

	if (pmc_result_new(c.ro.backend == PMC_BACKEND_VALGRIND ? "valgrind" : "perf", &result) < 0 ||
	    pmc_env_collect(result) < 0) {
		pmc_cli_error("out of memory");
		goto out;
	}
	if (c.ro.backend == PMC_BACKEND_VALGRIND && pmc_env_valgrind(result, vg, c.ro.valgrind_tool) < 0) {
		pmc_cli_error("out of memory");
		goto out;
	}
	if (c.ro.backend == PMC_BACKEND_PERF) {
		pmc_result_set_env(result, "events",
				   c.events_spec ? c.events_spec : PMC_DEFAULT_EVENTS);
		pmc_result_set_env(result, "counting", user_only ? "user-only" : "user+kernel");
	}
	if (!c.quiet) {
		prog.cmds = cmds;
		prog.result = result;
		prog.tty = isatty(STDERR_FILENO);
		prog.total = ncmds * (c.ro.runs + c.ro.warmup);
		prog.t0 = prog.last = now_s();
		c.ro.progress = progress;
		c.ro.ud = &prog;
	}
	c.ro.stop = &pmc_cli_interrupted;
	c.ro.running = pmc_cli_running;
	pmc_cli_catch_signals(true);
	r = pmc_runner_run(cmds, ncmds, &c.ro, result, err, sizeof(err));
	pmc_cli_catch_signals(false);
	if (c.ro.progress && prog.tty)
		fprintf(stderr, "\r\033[K");
	if (pmc_cli_interrupted) {
		pmc_result_free(result);
		result = NULL;
		pmc_cli_die_interrupted("nothing was written");
		goto out;
	}
	if (r < 0) {
		pmc_cli_error("%s", err);
		goto out;
	}
	/* One more run of each command, profiled, never one of the measured ones. */
	if (c.profile) {
		pmc_cli_catch_signals(true);
		r = pmc_cli_profiles_record(&profiles, cmds, ncmds, &c.ro, c.output);
		pmc_cli_catch_signals(false);
		if (pmc_cli_interrupted) {
			pmc_cli_die_interrupted("no result was written (the profiles so far were)");
			goto out;
		}
		if (r < 0)
			goto out;
		if (base && pmc_cli_profiles_load(&base_profiles, c.baseline, base) < 0) {
			pmc_cli_error("out of memory");
			goto out;
		}
		if (base)
			pmc_cli_compare_opts_set_profiles(c.copts, &base_profiles, &profiles, NULL);
		else
			pmc_cli_compare_opts_set_profiles(
			    c.copts, &profiles, &profiles,
			    cmds[c.reference ? c.reference - 1 : 0].name);
	}

	/* The answer first (docs/compare.md, "The headline"), then the detail. After
	 * --runs auto the sequential rule judges, after the table. */
	if (ncmds == 2 && !base && !c.runs_auto && strcmp(c.format, "table") == 0)
		pre = pmc_cli_compare_headline(result, c.reference ? c.reference - 1 : 0, c.copts,
					       stdout);
	/* Three or more: hyperfine's summary from the fastest; the comparison against the
	 * reference follows the table as usual. */
	if (ncmds > 2 && !base && !c.runs_auto && strcmp(c.format, "table") == 0) {
		size_t ref = c.reference ? c.reference - 1 : 0;
		FILE *devnull = fopen("/dev/null", "w");

		pmc_comparison_free(pmc_cli_compare_headline(
		    result, pmc_cmp_headline_fastest(result, ref), c.copts, stdout));
		/* The comparison against the reference, computed now so that its report
		 * after the table does not repeat a summary (its own goes nowhere). */
		if (devnull) {
			pre = pmc_cli_compare_headline(result, ref, c.copts, devnull);
			fclose(devnull);
		}
	}
	{
		PMC_OPTS(pmc_report_opts, ro, .median = c.median, .confidence = 0.95,
			 .color = pmc_cli_compare_opts_color(c.copts, stdout));

		r = pmc_report_result(stdout, c.format, result, &ro, NULL, 0);
		if (r == 0 && c.stats && strcmp(c.format, "table") == 0)
			r = pmc_report_result(stdout, "stats", result, &ro, NULL, 0);
	}
	if (r == 0 && (fflush(stdout) != 0 || ferror(stdout)))
		r = -errno ? -errno : -EIO;
	if (r < 0) {
		pmc_cli_error("cannot write the report to standard output: %s", strerror(-r));
		goto out;
	}
	if (c.runs_auto && pmc_cli_seq_settle(&c.seq, result) < 0)
		goto out;
	if (c.output) {
		r = pmc_result_save(result, c.output, err, sizeof(err));
		if (r < 0) {
			pmc_cli_error("%s", err);
			goto out;
		}
	}
	if (c.exports.n) {
		PMC_OPTS(pmc_report_opts, ro, .median = c.median, .confidence = 0.95);

		if (pmc_cli_exports_result(&c.exports, result, &ro) < 0)
			goto out;
	}
	code = PMC_EXIT_OK;
	/* Standard output holds one document (JSON, CSV, Go's format); the verdict goes to
	 * stderr. */
	if (pmc_cli_format_is_document(c.format))
		pmc_cli_compare_opts_set_stream(c.copts, stderr);
	/* The comparison follows run's own format for table and Markdown (README). */
	if (base && strcmp(c.format, "markdown") == 0 &&
	    pmc_cli_compare_opts_set_format(c.copts, "markdown") < 0)
		goto out;
	if (base)
		code = pmc_cli_compare_results(base, c.baseline, result, "this run", c.copts, true);
	else if (ncmds > 1)
		code = compare_commands(result, &c, pre), pre = NULL;
	if (c.runs_auto && code != PMC_EXIT_ERROR) {
		bool to_stderr = pmc_cli_format_is_document(c.format);

		code = pmc_cli_seq_report(&c.seq, result, to_stderr ? stderr : stdout, c.gate);
	}
	if (code != PMC_EXIT_ERROR && (fflush(stdout) != 0 || ferror(stdout))) {
		pmc_cli_error("cannot write to standard output: %s", strerror(errno ? errno : EIO));
		code = PMC_EXIT_ERROR;
	}
out:
	pmc_comparison_free(pre);
	pmc_cli_profiles_clear(&profiles);
	pmc_cli_profiles_clear(&base_profiles);
	free_commands(cmds, owned, ncmds);
	pmc_event_list_free(events);
	pmc_result_free(result);
	pmc_result_free(base);
	pmc_seq_check_clear(&c.seq.chk);
	pmc_cli_compare_opts_free(c.copts);
	free(c.cmd_strings);
	free(c.names);
	free(c.env_keep);
	free(c.events_spec);
	pmc_cli_exports_clear(&c.exports);
	free(vg);
	return code;
}

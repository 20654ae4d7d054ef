/* `pmcbench run`'s command line: its help, its options, and the commands they name
 * (cli_run_priv.h). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters/valgrind/valgrind.h"
#include "base/grow.h"
#include "cli/cli.h"
#include "cli/cli_run_priv.h"
#include "run/runner.h"
#include "run/words.h"
#include "pmcbench/report.h"
#include "reporters/reporter.h"

static void help(FILE *out)
{
	char names[128];

	fprintf(
	    out,
	    "Usage: pmcbench run [OPTIONS] -- COMMAND [ARGS...]\n"
	    "       pmcbench run [OPTIONS] -c 'COMMAND A' -c 'COMMAND B' ...\n"
	    "       pmcbench run --library=PATH.so [--filter=REGEX] [OPTIONS]\n"
	    "       pmcbench run [-n A] --library=A.so [-n B] --library=B.so [OPTIONS]\n"
	    "       pmcbench run -p PID[,PID...] | -a  [--duration=SECONDS | -- COMMAND]\n"
	    "Run commands repeatedly under grouped performance counters and report the\n"
	    "counts, derived metrics (IPC, miss rates) and times, like 'perf stat -r'.\n\n"
	    "What to run:\n"
	    "  -c, --command=CMD      a command, split into words like a shell would (no\n"
	    "                         shell runs); repeat to compare commands: their runs are\n"
	    "                         interleaved so that drift hits all of them alike\n"
	    "  -n, --name=NAME        name of the command that follows it (-n A -c CMD, or\n"
	    "                         before '--'); default: the command as written\n"
	    "      --shell            run each command with /bin/sh -c\n"
	    "  -L, --parameter-list=VAR VALUES\n"
	    "                         each command once per value of the comma-separated\n"
	    "                         VALUES, {VAR} replaced by it in the command, its -n name,\n"
	    "                         --setup, --prepare and --cleanup (repeatable: every\n"
	    "                         combination; recorded in the result as hyperfine does)\n"
	    "  -P, --parameter-scan=VAR MIN MAX\n"
	    "                         as -L with the values MIN, MIN+STEP, ... up to MAX\n"
	    "  -D, --parameter-step-size=STEP\n"
	    "                         the step of -P (default 1; a fraction such as 0.25\n"
	    "                         gives every value as many decimals)\n"
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
	    "      --setup=CMD        run CMD (sh -c) once before each command's first run\n"
	    "      --prepare=CMD      run CMD before every run (warm-ups too), unmeasured:\n"
	    "                         drop caches, reset a file (as hyperfine's option)\n"
	    "      --cleanup=CMD      run CMD once after each command's last run\n"
	    "      --env-keep=VAR     pass VAR from this environment to the command too\n"
	    "                         (repeatable); by default it gets only HOME, PATH and\n"
	    "                         TMPDIR from here, and LC_ALL=C, so that other variables\n"
	    "                         cannot change its counts\n"
	    "      --env-inherit      pass the whole environment instead\n");
	fprintf(
	    out,
	    "  -p, --pid=PIDS         count these running processes (PID[,PID...]: every\n"
	    "                         thread, and the threads and children they start)\n"
	    "                         instead of the command, as 'perf stat -p': while the\n"
	    "                         command runs (a load generator, itself not counted),\n"
	    "                         for --duration, or until they exit; each of the -r\n"
	    "                         runs is one window (docs/events.md)\n"
	    "  -a, --all-cpus         count every CPU instead (root or CAP_PERFMON, or\n"
	    "                         kernel.perf_event_paranoid <= 0), as 'perf stat -a'\n"
	    "      --duration=SECONDS with -p or -a and no command: the length of a window\n"
	    "      --library=PATH.so  run the benchmarks a shared object registered with\n"
	    "                         PMC_BENCHMARK, with the options of a benchmark program\n"
	    "                         ('pmcbench run --library=X --help'; docs/microbench.md);\n"
	    "                         twice: two builds, each benchmark compared round by\n"
	    "                         round (-n LABEL before each names it)\n\n");
	fprintf(
	    out,
	    "What to count:\n"
	    "  -e, --events=LIST      perf-style event list, e.g. '{cycles,instructions}:u,\n"
	    "                         task-clock,msr/tsc/' (repeatable; 'pmcbench list')\n"
	    "      --syscalls         also count every system call by name (the\n"
	    "                         syscalls:sys_enter_* tracepoints) and their total,\n"
	    "                         syscalls:total: the kernel's exact counts (root)\n"
	    "      --allocs           also count calls of malloc, calloc, realloc and free\n"
	    "                         (uprobe:libc:...; per operation in benchmarks; root)\n"
	    "  -d, --detailed         also count perf stat -d's cache events (L1-dcache,\n"
	    "                         LLC); -dd adds L1-icache, dTLB, iTLB; -ddd the L1\n"
	    "                         data prefetches\n"
	    "      --require-counters fail when a requested event cannot be counted\n"
	    "      --backend=NAME     perf (default) or valgrind: exact simulated counts\n"
	    "      --valgrind-tool=T  callgrind (default) or cachegrind\n"
	    "  -I, --interval-print=MS\n"
	    "                         also read the counters every MS milliseconds (10 or\n"
	    "                         more) while each run goes, and show the last run's\n"
	    "                         counts per interval before the table, as perf stat -I;\n"
	    "                         every run's are in the result (docs/metrics.md)\n"
	    "      --profile          after the measured runs, one profiled run of each\n"
	    "                         command (sampled; exact with valgrind), saved beside the\n"
	    "                         result (FILE.profiles/); a regression then says which\n"
	    "                         functions account for it (docs/profile.md)\n"
	    "      --profile=off-cpu  that run records where each command waits instead\n"
	    "                         (record --off-cpu: sleeps, I/O, locks; root)\n\n");
	/* Two strings: one would pass the 4095 characters C99 compilers must take. */
	fprintf(out,
		"Output:\n"
		"  -o, --output=FILE      write the result JSON (atomically) to FILE\n"
		"      --history=FILE     then add the saved result to the history in FILE (or\n"
		"                         at a postgresql:// URL) with its commit and branch,\n"
		"                         as 'pmcbench history add' does (docs/history.md)\n"
		"      --export=FILE      also write the result to FILE (atomically; repeatable)\n"
		"                         in the format its extension names: .json (the result\n"
		"                         file), .csv, .md, or .txt (Go's benchmark format, for\n"
		"                         benchstat); docs/export.md\n");
	pmc_reporter_names(PMC_REPORTERS_RESULT, names, sizeof(names));
	fprintf(out,
		"      --format=FMT       report on stdout as one of\n"
		"                         %s\n"
		"                         (default table; brief: one line per benchmark;\n"
		"                         gobench: Go's benchmark format)\n",
		names);
	fprintf(out,
		"      --median           show medians instead of means in the table\n"
		"      --stats            add every metric's n, mean, stddev, median and its CI,\n"
		"                         MAD, min, max and CV after the table\n"
		"  -q, --quiet            no progress on stderr (on a terminal: the command, the\n"
		"                         run count, the running median time and the time left;\n"
		"                         in a log: one such line every 10 s), and no note of\n"
		"                         counters that cannot be counted (the report still says;\n"
		"                         the note that every event is denied stays)\n\n"
		"Comparison (with several commands, or --baseline):\n"
		"      --baseline=FILE    gate this run against a baseline result file\n"
		"      --reference=N      compare every command against the Nth (default 1)\n"
		"      --unpaired         compare the commands' runs as independent samples, not\n"
		"                         round by round (paired is the default: docs/compare.md)\n"
		"      --gate             with several commands, judge them as 'pmcbench gate'\n"
		"                         does: exit 1 when one regresses against the reference\n");
	pmc_cli_compare_opts_help(out);
	fprintf(out,
		"\nExit status: 0 success, 1 regression (with --baseline, or --gate), 2 error,\n"
		"3 inconclusive (with --fail-on-inconclusive).\n");
}

static int push_str(char ***arr, size_t *n, char *s)
{
	if (pmc_grow(arr, *n, sizeof(**arr)) < 0)
		return -ENOMEM;
	(*arr)[(*n)++] = s;
	return 0;
}

enum {
	OPT_SHELL = 256,
	OPT_INPUT,
	OPT_SHOW_OUTPUT,
	OPT_IGNORE_FAILURE,
	OPT_SETUP,
	OPT_PREPARE,
	OPT_CLEANUP,
	OPT_VG_TOOL,
	OPT_MEDIAN,
	OPT_STATS,
	OPT_REFERENCE,
	OPT_UNPAIRED,
	OPT_GATE,
	OPT_MAX_RUNS,
	OPT_MAX_TIME,
	OPT_ENV_KEEP,
	OPT_ENV_INHERIT,
	OPT_DUET,
	OPT_HISTORY,
	OPT_DURATION,
};

/* The next word of the command line, for an option that takes several (-L, -P); NULL
 * when there is none. */
static const char *next_word(struct run_cli *c)
{
	/* "--" starts the command: the values are missing. */
	if (optind >= c->argc || strcmp(c->argv[optind], "--") == 0)
		return NULL;
	return c->argv[optind++];
}

static const struct option long_opts[] = {
    {"command", required_argument, NULL, 'c'},
    {"name", required_argument, NULL, 'n'},
    {"shell", no_argument, NULL, OPT_SHELL},
    {"parameter-list", required_argument, NULL, 'L'},
    {"parameter-scan", required_argument, NULL, 'P'},
    {"parameter-step-size", required_argument, NULL, 'D'},
    {"runs", required_argument, NULL, 'r'},
    {"warmup", required_argument, NULL, 'w'},
    {"duet", no_argument, NULL, OPT_DUET},
    {"input", required_argument, NULL, OPT_INPUT},
    {"show-output", no_argument, NULL, OPT_SHOW_OUTPUT},
    {"ignore-failure", no_argument, NULL, OPT_IGNORE_FAILURE},
    {"setup", required_argument, NULL, OPT_SETUP},
    {"prepare", required_argument, NULL, OPT_PREPARE},
    {"cleanup", required_argument, NULL, OPT_CLEANUP},
    {"env-keep", required_argument, NULL, OPT_ENV_KEEP},
    {"env-inherit", no_argument, NULL, OPT_ENV_INHERIT},
    {"valgrind-tool", required_argument, NULL, OPT_VG_TOOL},
    {"median", no_argument, NULL, OPT_MEDIAN},
    {"stats", no_argument, NULL, OPT_STATS},
    {"reference", required_argument, NULL, OPT_REFERENCE},
    {"unpaired", no_argument, NULL, OPT_UNPAIRED},
    {"gate", no_argument, NULL, OPT_GATE},
    {"max-runs", required_argument, NULL, OPT_MAX_RUNS},
    {"max-time", required_argument, NULL, OPT_MAX_TIME},
    {"history", required_argument, NULL, OPT_HISTORY},
    {"pid", required_argument, NULL, 'p'},
    {"all-cpus", no_argument, NULL, 'a'},
    {"duration", required_argument, NULL, OPT_DURATION},
    {"interval-print", required_argument, NULL, 'I'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* Takes one option: 0 to go on, 1 when --help was handled, -EINVAL after an error line. */
static int parse_opt(struct run_cli *c, int opt)
{
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
				      "the command that follows it: -n NAME -c CMD",
				      optarg, c->pending_name);
			return -EINVAL;
		}
		c->pending_name = optarg;
		break;
	case OPT_SHELL:
		c->shell = true;
		break;
	case 'L':
		return pmc_cli_run_param_list(c, optarg, next_word(c));
	case 'P': {
		const char *min = next_word(c), *max = min ? next_word(c) : NULL;

		return pmc_cli_run_param_scan(c, optarg, min, max);
	}
	case 'D':
		c->param_step = optarg;
		break;
	case 'r':
		c->runs_given = true;
		if (strcmp(optarg, "auto") == 0) {
			c->runs_auto = true;
			break;
		}
		if (pmc_cli_parse_size("--runs", optarg, 1, &c->ro.runs) < 0)
			return -EINVAL;
		c->runs_auto = false;
		break;
	case OPT_MAX_RUNS:
		c->max_given = true;
		if (pmc_cli_parse_size("--max-runs", optarg, 1, &c->seq.max_runs) < 0)
			return -EINVAL;
		break;
	case OPT_MAX_TIME: {
		c->max_given = true;
		if (pmc_cli_parse_seconds("--max-time", optarg, 0, &c->seq.max_time_s) < 0)
			return -EINVAL;
		break;
	}
	case OPT_HISTORY:
		c->history = optarg;
		break;
	case 'p':
		return pmc_cli_run_parse_pids(c, optarg);
	case 'a':
		c->ro.system_wide = true;
		break;
	case OPT_DURATION:
		c->duration_given = true;
		if (pmc_cli_parse_seconds("--duration", optarg, 0, &c->ro.duration_s) < 0)
			return -EINVAL;
		break;
	case 'I': {
		uint64_t ms;

		if (pmc_cli_parse_count("-I", optarg, 1, UINT32_MAX, &ms) < 0)
			return -EINVAL;
		/* perf stat's limit: reading more often mostly measures the reads. */
		if (ms < PMC_RUNNER_INTERVAL_MIN_MS) {
			pmc_cli_error("-I %s: the interval must be at least %d ms, as perf stat's; "
				      "give -I %d or more",
				      optarg, PMC_RUNNER_INTERVAL_MIN_MS,
				      PMC_RUNNER_INTERVAL_MIN_MS);
			return -EINVAL;
		}
		c->ro.interval_ms = (unsigned)ms;
		break;
	}
	case OPT_GATE:
		c->gate = true;
		break;
	case 'w':
		if (pmc_cli_parse_size("--warmup", optarg, 0, &c->ro.warmup) < 0)
			return -EINVAL;
		c->warmup_given = true;
		break;
	case OPT_INPUT: {
		int fd = open(optarg, O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			pmc_cli_error("--input: cannot read '%s': %s", optarg, strerror(errno));
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
	case OPT_SETUP:
		c->ro.setup = optarg;
		return 0;
	case OPT_PREPARE:
		c->ro.prepare = optarg;
		return 0;
	case OPT_CLEANUP:
		c->ro.cleanup = optarg;
		return 0;
	case OPT_IGNORE_FAILURE:
		c->ro.ignore_failure = true;
		break;
	case OPT_ENV_KEEP:
		if (!optarg[0] || strchr(optarg, '=')) {
			pmc_cli_error("--env-keep: '%s' is not a variable name; give the name only "
				      "(set its value in the environment pmcbench runs in)",
				      optarg);
			return -EINVAL;
		}
		/* NULL-terminated: room for the name and the NULL after it. */
		if (pmc_grow_to(&c->env_keep, &c->env_keep_cap, c->nenv_keep + 2,
				sizeof(*c->env_keep)) < 0)
			return -ENOMEM;
		c->env_keep[c->nenv_keep++] = optarg;
		c->env_keep[c->nenv_keep] = NULL;
		c->ro.env_keep = c->env_keep;
		break;
	case OPT_ENV_INHERIT:
		c->ro.env_inherit = true;
		break;
	case OPT_VG_TOOL:
		c->vg_tool_given = true;
		if (strcmp(optarg, "callgrind") == 0) {
			c->ro.valgrind_tool = PMC_VALGRIND_CALLGRIND;
		} else if (strcmp(optarg, "cachegrind") == 0) {
			c->ro.valgrind_tool = PMC_VALGRIND_CACHEGRIND;
		} else {
			pmc_cli_error("--valgrind-tool: unknown tool '%s'; use callgrind or "
				      "cachegrind",
				      optarg);
			return -EINVAL;
		}
		break;
	case OPT_MEDIAN:
		c->median = true;
		break;
	case OPT_STATS:
		c->stats = true;
		break;
	case OPT_REFERENCE:
		if (pmc_cli_parse_size("--reference", optarg, 1, &c->reference) < 0)
			return -EINVAL;
		break;
	case OPT_UNPAIRED:
		c->unpaired = true;
		c->copts->s.unpaired = true;
		break;
	case 'h':
		help(stdout);
		return 1;
	case '?':
		return -EINVAL;
	default:
		/* The options benchmark programs take too (cli_session.c), then the comparison
		 * options (cli_compare_opts.c); --format here is run's own. */
		return pmc_cli_shared_opts_handle(&c->so, c->copts, opt, optarg);
	}
	return 0;
}

/* Returns 0 to go on, 1 when --help was handled, -EINVAL after an error line. */
int pmc_cli_run_parse_args(struct run_cli *c, int argc, char **argv, int *ret_optind)
{
	struct option *longopts = pmc_cli_session_options(long_opts);
	int opt, r = 0;

	if (!longopts)
		return -EINVAL;
	/* "+": the options end at the command, whose own options are its business. */
	optind = 0;
	c->argc = argc;
	c->argv = argv;
	while (r == 0 && (opt = pmc_cli_getopt(argc, argv,
					       "+:c:n:r:w:hL:P:D:p:aI:" PMC_CLI_SESSION_SHORT_OPTS,
					       longopts, "run")) != -1) {
		r = parse_opt(c, opt);
	}
	free(longopts);
	if (r == 0)
		r = pmc_cli_run_params_finish(c, argc, argv, optind);
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

/* The words of command template i (a -c string, or the words from first on) in
 * parameter combination combo, with what to show for it, into cmd and *ret_words.
 * Returns 0, -ENOMEM, or -EINVAL after an error line. */
static int build_command(struct run_cli *c, int argc, char **argv, int first, size_t i,
			 size_t combo, struct pmc_runner_cmd *cmd, char ***ret_words)
{
	bool subst = c->nparams > 0;
	char *display = NULL, **words = NULL;
	const char *name;

	if (c->ncmd_strings) {
		size_t col = 0;

		display = subst ? pmc_cli_run_subst(c, c->cmd_strings[i], combo)
				: strdup(c->cmd_strings[i]);
		if (!display)
			return -ENOMEM;
		if (c->shell) {
			words = calloc(4, sizeof(*words));
			if (words) {
				words[0] = strdup("/bin/sh");
				words[1] = strdup("-c");
				words[2] = strdup(display);
			}
		} else if (pmc_words_split(display, &words, &col) < 0) {
			pmc_cli_error("-c '%s': column %zu: %s", display, col,
				      col == 1 ? "empty command"
					       : "unterminated quote or trailing backslash; "
						 "close the quote");
			free(display);
			return -EINVAL;
		}
	} else {
		size_t nw = (size_t)(argc - first);

		/* The words, then NULL; with --shell, replaced by /bin/sh -c "the words". */
		words = calloc(nw + 4, sizeof(*words));
		for (size_t w = 0; words && w < nw; w++) {
			const char *word = argv[first + (int)w];

			/* Each word on its own: a value with a space stays one argument. */
			words[w] = subst ? pmc_cli_run_subst(c, word, combo) : strdup(word);
			if (!words[w]) {
				for (size_t k = 0; k < w; k++)
					free(words[k]);
				free(words);
				words = NULL;
			}
		}
		display = words ? join_words(words, nw) : NULL;
		if (words && c->shell) {
			for (size_t w = 0; w < nw; w++) {
				free(words[w]);
				words[w] = NULL;
			}
			words[0] = strdup("/bin/sh");
			words[1] = strdup("-c");
			words[2] = strdup(display ? display : "");
		}
	}
	if (!display || !words) {
		free(display);
		free(words);
		return -ENOMEM;
	}
	*ret_words = words;
	cmd->display = display;
	cmd->argv = words;
	name = !c->ncmd_strings && c->pending_name ? c->pending_name
	       : i < c->nnames && c->names[i]	   ? c->names[i]
						   : NULL;
	cmd->name = display;
	if (name && !subst)
		cmd->name = name;
	else if (name &&
		 pmc_cli_run_keep(c, (void *)(cmd->name = pmc_cli_run_subst(c, name, combo))) < 0)
		return -ENOMEM;
	if (!subst)
		return 0;
	{
		const char **values = calloc(c->nparams, sizeof(*values));
		const char **names = calloc(c->nparams, sizeof(*names));

		if (pmc_cli_run_keep(c, values) < 0 || pmc_cli_run_keep(c, names) < 0)
			return -ENOMEM;
		for (size_t k = 0; k < c->nparams; k++) {
			names[k] = c->params[k].name;
			values[k] = pmc_cli_run_param_value(c, k, combo);
		}
		cmd->param_names = names;
		cmd->param_values = values;
		cmd->nparams = c->nparams;
	}
	/* The hooks of this combination. */
	if ((c->ro.setup && pmc_cli_run_keep(c, (void *)(cmd->setup = pmc_cli_run_subst(
							     c, c->ro.setup, combo))) < 0) ||
	    (c->ro.prepare && pmc_cli_run_keep(c, (void *)(cmd->prepare = pmc_cli_run_subst(
							       c, c->ro.prepare, combo))) < 0) ||
	    (c->ro.cleanup && pmc_cli_run_keep(c, (void *)(cmd->cleanup = pmc_cli_run_subst(
							       c, c->ro.cleanup, combo))) < 0))
		return -ENOMEM;
	return 0;
}

/* Turns the -c strings or the words after "--" into runner commands: each once per
 * combination of the parameters' values (-L, -P), as hyperfine orders them (a command's
 * combinations together, the last parameter varying fastest). */
int pmc_cli_run_build_commands(struct run_cli *c, int argc, char **argv, int first,
			       struct pmc_runner_cmd **ret_cmds, char ****ret_owned, size_t *ret_n)
{
	size_t ntemplates = c->ncmd_strings ? c->ncmd_strings : 1;
	size_t ncombos = c->ncombos ? c->ncombos : 1, n = ntemplates * ncombos;
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
		pmc_cli_error(
		    "no command to run; usage: pmcbench run [OPTIONS] -- COMMAND [ARGS...]");
		goto fail;
	}
	if (c->pending_name && c->ncmd_strings) {
		pmc_cli_error("-n '%s' names the command that follows it, and no -c follows; "
			      "put it before its command: -n %s -c CMD",
			      c->pending_name, c->pending_name);
		goto fail;
	}
	for (size_t i = 0; i < ntemplates; i++) {
		for (size_t k = 0; k < ncombos; k++) {
			size_t at = i * ncombos + k;

			r = build_command(c, argc, argv, first, i, k, &cmds[at], &owned[at]);
			if (r < 0)
				goto fail;
		}
	}
	r = 0;
	for (size_t i = 0; i < n && r == 0; i++) {
		for (size_t j = 0; j < i && r == 0; j++) {
			if (strcmp(cmds[i].name, cmds[j].name) == 0) {
				if (c->nparams)
					pmc_cli_error(
					    "two commands are named '%s'; put a parameter in "
					    "the name (-n 'sort {%s}') or name them apart "
					    "with -n",
					    cmds[i].name, c->params[0].name);
				else
					pmc_cli_error(
					    "two commands are named '%s'; name them apart "
					    "with -n",
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

void pmc_cli_run_free_commands(struct pmc_runner_cmd *cmds, char ***owned, size_t n)
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
void pmc_cli_run_warn_shell_syntax(const struct run_cli *c)
{
	static const char *const syntax[] = {"|", ">", "<", "&&", "$(", "`", ";"};

	for (size_t i = 0; !c->shell && i < c->ncmd_strings; i++)
		for (size_t k = 0; k < sizeof(syntax) / sizeof(syntax[0]); k++)
			if (strstr(c->cmd_strings[i], syntax[k])) {
				pmc_cli_warn(
				    "-c '%s' holds shell syntax ('%s'), but no shell runs it: "
				    "its words go to the command as they are; add --shell to "
				    "run it with /bin/sh -c",
				    c->cmd_strings[i], syntax[k]);
				return;
			}
}

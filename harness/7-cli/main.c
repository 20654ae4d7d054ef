/* pmcbench: the command dispatcher and the GNU-style --help and --version. */
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "commit.h"
#include "config.h"
#include "base/suggest.h"
#include "cli/cli.h"
#include "run/spawn.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

/* `run`, whose --history adds to the history this executable has (cli_history_add.c). */
static int run_with_history(int argc, char **argv)
{
	return pmc_cli_run(argc, argv, pmc_cli_history_add_file);
}

static const struct command commands[] = {
    {"run", run_with_history, "measure commands under performance counters"},
    {"compare", pmc_cli_compare, "compare result files (A/B, or a base and several)"},
    {"gate", pmc_cli_gate, "fail when a result regresses against a baseline"},
    {"list", pmc_cli_list, "list known events and whether each opens here"},
    {"doctor", pmc_cli_doctor, "explain why counters are or are not available"},
    {"record", pmc_cli_record, "profile one run of a command (sampled, or exact)"},
    {"report", pmc_cli_report, "show a profile, its flame graph, or the diff of two"},
    {"history", pmc_cli_history, "keep results over commits; find their change points"},
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: pmcbench COMMAND [OPTIONS] [ARGS]\n"
		"Benchmark harness with hardware performance counters and regression gates.\n\n"
		"Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "  %-9s %s\n", "help", "show the help of a command");
	fprintf(out,
		"\nOptions:\n"
		"  -h, --help     display this help and exit\n"
		"  -V, --version  output version information and exit\n\n"
		"Exit status: 0 pass, 1 regression, 2 error, 3 inconclusive (when asked for).\n"
		"Run 'pmcbench help COMMAND' for the options of a command.\n");
}

/* "unknown command 'rn'; did you mean 'run'? try 'pmcbench --help'" (issue 19). */
static void unknown_command(const char *name)
{
	struct pmc_suggest s;
	char hint[256] = "";

	pmc_suggest_init(&s, name, strlen(name));
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		pmc_suggest_offer(&s, commands[i].name, commands[i].name);
	pmc_suggest_offer(&s, "help", "help");
	if (pmc_suggest_format(&s, hint, sizeof(hint)))
		pmc_cli_error("unknown command '%s'; %s", name, hint);
	else
		pmc_cli_error("unknown command '%s'; try 'pmcbench --help'", name);
}

/* The commands that open counters raise the soft RLIMIT_NOFILE to the hard limit, as
 * perf's tool does (tools/perf/util/rlimit.c, rlimit__increase_nofile()): an event per
 * thread and CPU of an attached process, or many events of a command, need more than
 * the usual 1024. Here, once, because it is the program's policy: the library returns
 * EMFILE and leaves the process's limits alone. The commands measured get the limit back
 * (pmc_spawn_set_nofile), so they run as they would without pmcbench. */
static void raise_nofile(void)
{
	struct rlimit rl;
	rlim_t soft;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= rl.rlim_max)
		return;
	soft = rl.rlim_cur;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
		pmc_spawn_set_nofile(soft);
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct command *cmd;
	int code;

	if (argc < 2) {
		usage(stderr);
		return PMC_EXIT_ERROR;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return PMC_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("pmcbench %s (commit %s)\n", PMC_VERSION, PMC_COMMIT);
		return PMC_EXIT_OK;
	}
	if (strcmp(argv[1], "help") == 0) {
		char help[] = "--help";
		char *args[3];

		if (argc < 3) {
			usage(stdout);
			return PMC_EXIT_OK;
		}
		cmd = find_command(argv[2]);
		if (!cmd) {
			unknown_command(argv[2]);
			return PMC_EXIT_ERROR;
		}
		args[0] = argv[2];
		args[1] = help;
		args[2] = NULL;
		return cmd->fn(2, args);
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		unknown_command(argv[1]);
		return PMC_EXIT_ERROR;
	}
	/* Only the character set, only here: numbers keep the C locale's format, and a
	 * program linking libpmcbench keeps its own locale. */
	setlocale(LC_CTYPE, "");
	/* Every string a command prints passes here (cli_controls.c). */
	if (pmc_cli_controls_wrap(&stdout, false) < 0 ||
	    pmc_cli_controls_wrap(&stderr, isatty(STDERR_FILENO)) < 0) {
		pmc_cli_controls_finish();
		fprintf(stderr, "pmcbench: error: out of memory\n");
		return PMC_EXIT_ERROR;
	}
	if (pmc_cli_locale_ascii()) {
		pmc_cli_set_ascii(true);
		if (pmc_cli_ascii_wrap(&stderr) < 0) {
			pmc_cli_error("out of memory");
			return PMC_EXIT_ERROR;
		}
	}
	if (strcmp(cmd->name, "run") == 0 || strcmp(cmd->name, "record") == 0)
		raise_nofile();
	code = cmd->fn(argc - 1, argv + 1);
	if ((pmc_cli_ascii_finish() < 0 || pmc_cli_controls_finish() < 0) &&
	    code != PMC_EXIT_ERROR) {
		fprintf(stderr, "pmcbench: error: cannot write to standard output\n");
		code = PMC_EXIT_ERROR;
	}
	return code;
}

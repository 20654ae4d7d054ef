/* `pmcbench run` (cli_run.c) and its options (cli_run_opts.c): what the command line
 * says, and the commands it names. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "harness/cli/cli.h"
#include "harness/run/runner.h"

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

/* Parses run's options into c (c->copts already made). Returns 0 to go on, 1 when --help
 * was handled, -EINVAL after an error line, -ENOMEM; *ret_optind is the first word of a
 * command given after the options ("--"). */
int pmc_cli_run_parse_args(struct run_cli *c, int argc, char **argv, int *ret_optind);

/* The commands to run, from -c strings (split into words, or given to /bin/sh -c with
 * --shell) or the words from first on, each with its name. *ret_owned holds what to free
 * with pmc_cli_run_free_commands. Returns 0, or -errno after an error line. */
int pmc_cli_run_build_commands(struct run_cli *c, int argc, char **argv, int first,
			       struct pmc_runner_cmd **ret_cmds, char ****ret_owned, size_t *ret_n);
void pmc_cli_run_free_commands(struct pmc_runner_cmd *cmds, char ***owned, size_t n);

/* A -c holding shell syntax without --shell: one warning. */
void pmc_cli_run_warn_shell_syntax(const struct run_cli *c);

/* Every command names an executable that exists: else an error line and -errno. */
int pmc_cli_run_check_commands(struct pmc_runner_cmd *cmds, size_t n);

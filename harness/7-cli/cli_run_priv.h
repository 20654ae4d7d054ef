/* `pmcbench run` (cli_run.c) and its options (cli_run_opts.c): what the command line
 * says, and the commands it names. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cli/cli.h"
#include "run/runner.h"

/* A parameter of -L (its values) or -P (its bounds, expanded into values once every
 * option is read, as -D may come after it). */
struct run_param {
	const char *name;
	char **values;
	size_t nvalues;
	const char *min, *max; /* -P */
};

struct run_cli {
	struct pmc_runner_opts ro;
	char **cmd_strings; /* -c, in order */
	size_t ncmd_strings;
	/* -n names the command that follows it: names[i] is the -n before cmd_strings[i]
	 * (NULL when none), or with commands after "--", names[0] theirs. */
	char **names;
	size_t nnames;
	const char *pending_name;	/* an -n not yet followed by its -c */
	struct pmc_cli_session_opts so; /* the options benchmark programs take too */
	bool shell, median, stats;
	size_t reference;		/* 1-based, 0: the first */
	bool unpaired;			/* --unpaired */
	bool gate;			/* --gate */
	const char *history;		/* --history DB */
	pmc_cli_history_fn add_history; /* pmc_cli_run's history: NULL when there is none */
	bool runs_auto;			/* --runs auto, with seq.max_runs and seq.max_time_s */
	bool max_given;
	bool vg_tool_given; /* --valgrind-tool */
	struct pmc_session_seq seq;
	struct pmc_cli_compare_opts *copts;
	bool runs_given, warmup_given;
	const char **env_keep; /* --env-keep names, NULL-terminated (ro.env_keep) */
	size_t nenv_keep, env_keep_cap;
	struct run_param *params; /* -L and -P, in order */
	size_t nparams;
	size_t ncombos;		/* the combinations of their values (1 without any) */
	const char *param_step; /* -D */
	void **allocs;		/* what the commands point to, freed with the options */
	size_t nallocs;
	/* -p PID[,PID...] and -a: attached counting (ro.attach_pids, ro.system_wide), for
	 * --duration or while the one command runs. */
	pid_t *pids;
	size_t npids;
	bool duration_given;
	int argc; /* the command line, for the options with several values (-L, -P) */
	char **argv;
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

/* -L name list and -P name min max (min, max or list NULL when the command line ended
 * before them): 0, -EINVAL after an error line, or -ENOMEM. */
int pmc_cli_run_param_list(struct run_cli *c, const char *name, const char *list);
int pmc_cli_run_param_scan(struct run_cli *c, const char *name, const char *min, const char *max);

/* Once the options are read: expands -P's values with -D's step, checks that each
 * parameter is used ("{name}" in a command, from first on after '--', its -n, or a
 * --setup, --prepare or --cleanup) and that the commands stay few, and sets c->ncombos.
 * Returns 0 or -errno after an error line. */
int pmc_cli_run_params_finish(struct run_cli *c, int argc, char **argv, int first);

/* s with each "{name}" replaced by the parameter's value in combination combo (from 0
 * to ncombos, the last parameter varying fastest), malloc'd; NULL when out of memory. */
char *pmc_cli_run_subst(const struct run_cli *c, const char *s, size_t combo);

/* Parameter i's value in combination combo (owned by c). */
const char *pmc_cli_run_param_value(const struct run_cli *c, size_t i, size_t combo);

/* Keeps p (malloc'd) until pmc_cli_run_params_clear(); -ENOMEM (p freed) when p is NULL
 * or cannot be kept. */
int pmc_cli_run_keep(struct run_cli *c, void *p);
void pmc_cli_run_params_clear(struct run_cli *c);

/* -p's list, PID[,PID...], into c->pids: 0, -ENOMEM, or -EINVAL after an error line. */
int pmc_cli_run_parse_pids(struct run_cli *c, const char *list);

/* The options of attached counting (-p, -a, --duration) against the rest, with ncmds
 * commands (the load generator): 0, or -EINVAL after an error line. */
int pmc_cli_run_check_attach(const struct run_cli *c, size_t ncmds);

/* A -c holding shell syntax without --shell: one warning. */
void pmc_cli_run_warn_shell_syntax(const struct run_cli *c);

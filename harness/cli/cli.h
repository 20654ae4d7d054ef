/* The command-line front end: one entry point per subcommand. Only this layer prints
 * to the terminal. */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

struct pmc_result;

/* Exit codes (README, "Exit codes"). */
enum {
	PMC_EXIT_OK = 0,
	PMC_EXIT_REGRESSION = 1,
	PMC_EXIT_ERROR = 2,
	PMC_EXIT_INCONCLUSIVE = 3,
};

/* Each takes the arguments after the subcommand name (argv[0] is the subcommand) and
 * returns the process exit code. "--help" prints the command's help and returns 0. */
int pmc_cli_run(int argc, char **argv);
int pmc_cli_compare(int argc, char **argv);
int pmc_cli_gate(int argc, char **argv);
int pmc_cli_list(int argc, char **argv);
int pmc_cli_doctor(int argc, char **argv);

/* Prints "pmcbench: <message>" on stderr as one line. */
void pmc_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "pmcbench: warning: <message>" on stderr as one line. */
void pmc_cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Options shared by `compare`, `gate` and `run --baseline`/`run -c A -c B`
 * (implemented in cli_compare.c). */
struct pmc_cli_compare_opts;

/* Creates the options with their defaults; NULL with errno on failure. */
struct pmc_cli_compare_opts *pmc_cli_compare_opts_new(void);
void pmc_cli_compare_opts_free(struct pmc_cli_compare_opts *o);

/* Tries to consume one comparison option at argv[*i] (--alpha, --confidence, --metric,
 * --threshold, --thresholds, --no-fdr, --fail-on-inconclusive, --format, --force, ...),
 * advancing *i past its value. Returns 1 when consumed, 0 when argv[*i] is not such an
 * option, or -EINVAL after printing one error line. */
int pmc_cli_compare_opts_parse(struct pmc_cli_compare_opts *o, int argc, char **argv, int *i);

/* Where the comparison report goes (default stdout); `run --format json|csv` sends it
 * to stderr so that stdout stays one document. */
void pmc_cli_compare_opts_set_stream(struct pmc_cli_compare_opts *o, FILE *out);

/* Help lines for those options, for the help text of the commands that accept them. */
void pmc_cli_compare_opts_help(FILE *out);

/* Compares new against old as `compare` (gate=false) or `gate` (gate=true) would, prints
 * the report on stdout (and, for markdown, to the --output file when given) and returns
 * the exit code. old_name/new_name label the sides in the report. */
int pmc_cli_compare_results(const struct pmc_result *old_r, const char *old_name,
			    const struct pmc_result *new_r, const char *new_name,
			    const struct pmc_cli_compare_opts *o, bool gate);

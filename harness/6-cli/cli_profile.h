/* Profiles beside results (cli_profile.c, docs/profile.md "Profiles in the gate"). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct pmc_comparison;
struct pmc_profile;
struct pmc_result;
struct pmc_runner_cmd;
struct pmc_runner_opts;

struct pmc_cli_profile {
	char *name; /* the benchmark's */
	struct pmc_profile *p;
};

/* The profiles of one result, by benchmark name, and the directory they are in (NULL
 * when they were not saved). */
struct pmc_cli_profiles {
	struct pmc_cli_profile *v;
	size_t n, cap;
	char *dir;
};

/* `run --profile`: one profiled run of each command, as the measured runs ran it,
 * saved in RESULT.profiles/ beside result_path (or pmcbench.profiles/ without one). A
 * profile never fails the run (docs/profile.md, "Profiles in the gate"): a command that
 * cannot be profiled, a profile that cannot be saved, a directory that cannot be made,
 * each is a warning on stderr, and the others go on. Stops early when *ro->stop. */
void pmc_cli_profiles_record(struct pmc_cli_profiles *ps, const struct pmc_runner_cmd *cmds,
			     size_t n, const struct pmc_runner_opts *ro, const char *result_path);

/* The directory the profiles of result_path go to (created when missing): RESULT.profiles/,
 * or pmcbench.profiles/ when result_path is NULL. Returns 0, or -errno after a warning
 * (ps->dir stays NULL: profiles are then kept in memory only). */
int pmc_cli_profiles_open_dir(struct pmc_cli_profiles *ps, const char *result_path);

/* Takes p (freed with ps) as the profile of benchmark name, saves it in ps->dir (when
 * there is one) and says where on stderr (display: how the user wrote the benchmark).
 * Returns 0, or -errno after a warning: the caller goes on without the file. */
int pmc_cli_profiles_keep(struct pmc_cli_profiles *ps, const char *name, const char *display,
			  struct pmc_profile *p);

/* `compare`, `gate`, `run --baseline`: the profiles saved beside result_path for r's
 * benchmarks, those that exist (a damaged one is a warning). Returns 0 or -ENOMEM. */
/* Says why the profile of name could not be recorded (r < 0, err its line). Returns true
 * when sampling is denied (EACCES, EPERM), which holds for every later one too: the caller
 * stops trying, and that was said once. */
bool pmc_cli_profile_failed(int r, const char *name, const char *err);

int pmc_cli_profiles_load(struct pmc_cli_profiles *ps, const char *result_path,
			  const struct pmc_result *r);


void pmc_cli_profiles_clear(struct pmc_cli_profiles *ps);

/* The flame graph of new_p (differential against old_p when set) into path,
 * atomically. Returns 0, or -errno after an error line. */
int pmc_cli_write_flamegraph(const char *path, const struct pmc_profile *old_p,
			     const struct pmc_profile *new_p);

/* For every regression of c whose two sides have profiles: which functions account for
 * it (the old side is benchmark ref_name when it is set: `run -c A -c B`), and the path
 * of its differential flame graph in new_ps->dir, which draw writes (a second report of
 * the same comparison names it without drawing it again). Prints nothing when neither
 * side has a profile. */
void pmc_cli_profiles_explain(const struct pmc_comparison *c, const struct pmc_cli_profiles *old_ps,
			      const struct pmc_cli_profiles *new_ps, const char *ref_name,
			      bool markdown, FILE *out, bool draw);

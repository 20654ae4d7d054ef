/* `pmcbench history add` (docs/history.md): result files into the history, with the
 * commit and branch from options, CI variables, then git. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/atomic_file.h"
#include "base/error.h"
#include "base/utf8.h"
#include "cli/cli.h"
#include "cli/cli_git.h"
#include "cli/cli_history.h"
#include "core/result.h"
#include "formats/import.h"
#include "history/history.h"

/* The first of the variables names that is set and not empty, and its name in *ret_name. */
static const char *first_env(const char *const *names, const char **ret_name)
{
	for (; *names; names++) {
		const char *v = getenv(*names);

		if (v && *v) {
			*ret_name = *names;
			return v;
		}
	}
	return NULL;
}

/* A commit or a branch is printed by every history command: one with a control character
 * (an escape sequence, a carriage return) is refused before anything is added. from
 * says where it came from. Returns 0 or -EINVAL after the message. */
static int check_name(const char *v, const char *from, const char *what, const char *fix)
{
	char b[PMC_QUOTE_SIZE(128)];

	if (!v || !pmc_utf8_has_control(v))
		return 0;
	pmc_cli_error("%s '%s': a %s holds no control characters; %s", from,
		      pmc_quote(b, sizeof(b), v), what, fix);
	return -EINVAL;
}

int pmc_cli_hist_add(int argc, char **argv, struct hopts *o)
{
	static const char *const sha_vars[] = {"GITHUB_SHA", "CI_COMMIT_SHA", NULL};
	/* A pull request's branch first: GITHUB_REF_NAME is then "123/merge". */
	static const char *const branch_vars[] = {"GITHUB_HEAD_REF", "GITHUB_REF_NAME",
						  "CI_COMMIT_REF_NAME", NULL};
	struct pmc_result **rs = NULL;
	struct pmc_history *h = NULL;
	char *git_commit = NULL, *git_branch = NULL, err[1024];
	const char *commit_from = "--commit", *branch_from = "--branch";
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
	if (!o->commit && !(o->commit = first_env(sha_vars, &commit_from))) {
		o->commit = git_commit = pmc_cli_git("rev-parse HEAD", NULL, NULL);
		commit_from = "git rev-parse HEAD";
	}
	if (!o->branch && !(o->branch = first_env(branch_vars, &branch_from))) {
		git_branch = pmc_cli_git("rev-parse --abbrev-ref HEAD", NULL, NULL);
		branch_from = "git rev-parse --abbrev-ref HEAD";
		/* A detached HEAD has no branch. */
		if (git_branch && strcmp(git_branch, "HEAD") != 0)
			o->branch = git_branch;
	}
	if (check_name(o->commit, commit_from, "commit",
		       "give the commit's SHA (--commit $(git rev-parse HEAD))") < 0 ||
	    check_name(o->branch, branch_from, "branch", "give its name (--branch NAME)") < 0)
		goto out;
	if (pmc_cli_hist_open(o, PMC_HISTORY_WRITE, &h) < 0)
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
		char b1[PMC_QUOTE_SIZE(256)], b2[PMC_QUOTE_SIZE(64)], b3[PMC_QUOTE_SIZE(64)];

		printf("%s: %s %.12s", q(b1, sizeof(b1), argv[i]),
		       was_added ? "added as" : "already there as", id);
		if (was_added && (o->commit || o->branch))
			printf(" (%s%s%s%s%s)", o->commit ? "commit " : "",
			       o->commit ? q(b2, sizeof(b2), o->commit) : "",
			       o->commit && o->branch ? ", " : "", o->branch ? "branch " : "",
			       o->branch ? q(b3, sizeof(b3), o->branch) : "");
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

/* Whether db could take a result (pmc_cli_run's history with no path). */
static int check_db(const char *db)
{
	const char *file = strncmp(db, "sqlite:", 7) == 0 ? db + 7 : db;
	struct pmc_history *h = NULL;
	char err[1024];
	int r;

	if (pmc_history_engine_check(db, err, sizeof(err)) < 0) {
		pmc_cli_error("--history: %s", err);
		return PMC_EXIT_ERROR;
	}
	if (strncmp(db, "postgresql://", 13) == 0 || strncmp(db, "postgres://", 11) == 0) {
		/* A server that refuses us now would after the runs too; an empty database
		 * gets the tables then. */
		r = pmc_history_open(db, 0, &h, err, sizeof(err));
		pmc_history_close(h);
		if (r < 0 && r != -ENOENT) {
			pmc_cli_error("--history: %s", err);
			return PMC_EXIT_ERROR;
		}
		return PMC_EXIT_OK;
	}
	/* SQLite writes the file and its journal beside it: the directory must take a new
	 * file, and an existing store must be writable. */
	if (pmc_atomic_file_check(file, err, sizeof(err)) < 0) {
		pmc_cli_error("--history: %s", err);
		return PMC_EXIT_ERROR;
	}
	if (access(file, F_OK) == 0 && access(file, W_OK) < 0) {
		pmc_cli_error("--history: cannot write %s: %s", file, strerror(errno));
		return PMC_EXIT_ERROR;
	}
	return PMC_EXIT_OK;
}

int pmc_cli_history_add_file(const char *db, const char *path)
{
	struct hopts o = {.db = db};
	char *argv[] = {(char *)path};

	if (!path)
		return check_db(db);
	return pmc_cli_hist_add(1, argv, &o);
}

/* `pmcbench history bisect` (docs/history.md, "Bisect"): between a good and a bad
 * commit, git bisect run with a build, a measurement by `pmcbench run` and a gate
 * against the good end, to the first bad commit and its measured change. The work at
 * each commit is a generated shell script (step.sh), which also measures the two ends. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_history.h"

/* s in single quotes for sh: every ' as '\''. */
static void sh_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

/* git ARGS (quoted for sh by the caller) in the working directory: its first line of
 * output (malloc'ed), or NULL when it failed. */
static char *git_quoted(const char *fmt, const char *a, const char *b)
{
	char *cmd = NULL, *args = NULL, *out;
	size_t len = 0;
	FILE *m = open_memstream(&args, &len);

	if (!m)
		return NULL;
	fputs(fmt, m);
	if (a) {
		fputc(' ', m);
		sh_quote(m, a);
	}
	if (b) {
		fputc(' ', m);
		sh_quote(m, b);
	}
	if (fclose(m) != 0 || asprintf(&cmd, "git %s 2>/dev/null", args) < 0) {
		free(args);
		return NULL;
	}
	free(args);
	{
		FILE *p = popen(cmd, "r");
		char line[512];

		out = NULL;
		if (p) {
			if (fgets(line, sizeof(line), p)) {
				line[strcspn(line, "\n")] = '\0';
				out = *line ? strdup(line) : NULL;
			}
			if (pclose(p) != 0) {
				free(out);
				out = NULL;
			}
		}
	}
	free(cmd);
	return out;
}

/* Runs the shell command cmd with its output appended to log; its exit status, or -1. */
static int sh_log(const char *cmd, const char *log)
{
	char *full = NULL;
	int st;

	if (asprintf(&full, "(%s) >>'%s' 2>&1", cmd, log) < 0)
		return -1;
	st = system(full);
	free(full);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* The script git bisect run runs at each commit (and which measures the two ends):
 * build, measure, gate against the good end. "step.sh measure NAME" builds and measures
 * into NAME.json (exit 0, or 125 when the build or the run failed). */
static int write_step(const char *dir, const char *self, const struct pmc_cli_bisect_opts *o,
		      int argc, char **argv)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/step.sh", dir);
	f = fopen(path, "we");
	if (!f)
		return -errno;
	fputs("#!/bin/sh\n# One step of pmcbench history bisect (docs/history.md, \"Bisect\").\n"
	      "dir=",
	      f);
	sh_quote(f, dir);
	/* git bisect run puts git's own directory first in PATH: every measurement runs with
	 * the PATH of the first, so that their environments are the same. */
	fputs("\nPATH=", f);
	sh_quote(f, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	fputs("\nexport PATH\nname=${2:-$(git rev-parse HEAD)}\n"
	      "echo \"== $name\" >>\"$dir/log\"\n{\n",
	      f);
	fputs("\tsh -c ", f);
	sh_quote(f, o->build);
	fputs(" || exit 125\n\t", f);
	sh_quote(f, self);
	fprintf(f, " run -q -r %zu", o->runs);
	if (o->backend) {
		fputs(" --backend ", f);
		sh_quote(f, o->backend);
	}
	fputs(" -o \"$dir/$name.json\" --", f);
	for (int i = 0; i < argc; i++) {
		fputc(' ', f);
		sh_quote(f, argv[i]);
	}
	fputs(" || exit 125\n} >>\"$dir/log\" 2>&1\n"
	      "[ \"${1:-}\" = measure ] && exit 0\n",
	      f);
	sh_quote(f, self);
	fputs(" gate --baseline \"$dir/good.json\" --threshold ", f);
	sh_quote(f, o->threshold);
	fputs(" \"$dir/$name.json\" >>\"$dir/log\" 2>&1\n"
	      "case $? in 0) exit 0 ;; 1) exit 1 ;; *) exit 125 ;; esac\n",
	      f);
	return fclose(f) == 0 ? 0 : -EIO;
}

/* Measures commit sha as name (good, bad) in dir: checks it out, builds, runs. */
static int measure_end(const char *dir, const char *sha, const char *name, const char *log)
{
	char *cmd = NULL;
	int st;

	if (asprintf(&cmd, "git checkout -q --detach '%s' && sh '%s/step.sh' measure %s", sha, dir,
		     name) < 0)
		return -1;
	st = sh_log(cmd, log);
	free(cmd);
	return st;
}

static void show_log_tail(const char *log)
{
	char *cmd = NULL;

	if (asprintf(&cmd, "tail -n 15 '%s' >&2", log) >= 0 && system(cmd) != 0)
		pmc_cli_warn("cannot show %s", log);
	free(cmd);
}

int pmc_cli_history_bisect(int argc, char **argv, struct pmc_cli_bisect_opts *o)
{
	char dir[4096], self[4096], log[4200], *cmd = NULL;
	const char *tmp = getenv("TMPDIR");
	char *good = NULL, *bad = NULL, *orig = NULL, *first = NULL, *status = NULL;
	ssize_t len;
	int code = PMC_EXIT_ERROR, st;
	bool started = false, moved = false;

	if (!o->good || !o->bad || !o->build || !o->threshold || argc < 1) {
		pmc_cli_error(
		    "history bisect needs --good REV, --bad REV, --build CMD, --threshold "
		    "METRIC=+P%% and -- COMMAND; try 'pmcbench help history'");
		return PMC_EXIT_ERROR;
	}
	if (!o->runs)
		o->runs = 6;
	/* The values go into shell commands in single quotes. */
	if (strchr(o->threshold, '\'') || strchr(o->good, '\'') || strchr(o->bad, '\'')) {
		pmc_cli_error("--threshold, --good and --bad may not hold a single quote");
		return PMC_EXIT_ERROR;
	}
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0) {
		pmc_cli_error("cannot find this program's path (/proc/self/exe)");
		return PMC_EXIT_ERROR;
	}
	self[len] = '\0';
	good = git_quoted("rev-parse --verify", o->good, NULL);
	bad = git_quoted("rev-parse --verify", o->bad, NULL);
	if (!good || !bad) {
		pmc_cli_error("--%s '%s' is not a commit of the git repository here",
			      good ? "bad" : "good", good ? o->bad : o->good);
		goto out;
	}
	status = git_quoted("status --porcelain --untracked-files=no", NULL, NULL);
	if (status) {
		pmc_cli_error(
		    "the working tree has changes (%s ...); bisect checks out other commits: "
		    "commit or stash them first",
		    status);
		goto out;
	}
	orig = git_quoted("symbolic-ref -q --short HEAD", NULL, NULL);
	if (!orig || strchr(orig, '\'')) {
		free(orig);
		orig = git_quoted("rev-parse HEAD", NULL, NULL);
	}
	if (!orig) {
		pmc_cli_error("the working directory is not in a git repository with a commit");
		goto out;
	}
	snprintf(dir, sizeof(dir), "%s/pmcbench-bisect-XXXXXX",
		 tmp && *tmp && !strchr(tmp, '\'') ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		pmc_cli_error("cannot make a directory for the measurements (%s): %s", dir,
			      strerror(errno));
		goto out;
	}
	snprintf(log, sizeof(log), "%s/log", dir);
	if (write_step(dir, self, o, argc, argv) < 0) {
		pmc_cli_error("cannot write %s/step.sh", dir);
		goto out;
	}
	moved = true;
	printf("bisect: measuring the good end %.12s and the bad end %.12s\n", good, bad);
	fflush(stdout);
	if (measure_end(dir, good, "good", log) != 0 || measure_end(dir, bad, "bad", log) != 0) {
		pmc_cli_error("building or measuring an end failed; its output is in %s:", log);
		show_log_tail(log);
		goto out;
	}
	/* The ends must differ as the threshold says, or there is nothing to find. */
	if (asprintf(&cmd, "'%s' gate --baseline '%s/good.json' --threshold '%s' '%s/bad.json'",
		     self, dir, o->threshold, dir) < 0) {
		cmd = NULL;
		goto oom;
	}
	st = sh_log(cmd, log);
	free(cmd);
	cmd = NULL;
	if (st != 1) {
		pmc_cli_error(
		    "the bad end %.12s is not a regression beyond %s against the good end "
		    "%.12s (gate exit %d; %s): nothing to bisect",
		    bad, o->threshold, good, st, log);
		goto out;
	}
	if (asprintf(&cmd,
		     "git checkout -q '%s' && git bisect start '%s' '%s' && git bisect run sh "
		     "'%s/step.sh'",
		     orig, bad, good, dir) < 0) {
		cmd = NULL;
		goto oom;
	}
	started = true;
	st = sh_log(cmd, log);
	free(cmd);
	cmd = NULL;
	first = git_quoted("rev-parse --verify -q refs/bisect/bad", NULL, NULL);
	if (st != 0 || !first) {
		pmc_cli_error("git bisect run failed (exit %d); its output is in %s:", st, log);
		show_log_tail(log);
		goto out;
	}
	{
		char *subject = git_quoted("log -1 --format=%s", first, NULL);

		printf("first bad commit: %s %s\n", first, subject ? subject : "");
		free(subject);
	}
	fflush(stdout);
	/* Its measured change against the good end, as gate reports it, on the threshold's
	 * metric; the files named by what they are. */
	if (asprintf(&cmd,
		     "cd '%s' && cp '%s.json' 'bad-%.12s.json' && '%s' gate --baseline good.json "
		     "--metric '%.*s' --threshold '%s' 'bad-%.12s.json'",
		     dir, first, first, self, (int)strcspn(o->threshold, "="), o->threshold,
		     o->threshold, first) < 0) {
		cmd = NULL;
		goto oom;
	}
	if (system(cmd) == -1)
		pmc_cli_warn("cannot run the gate of the first bad commit");
	code = PMC_EXIT_OK;
	printf("bisect: the measurements and git's log are in %s\n", dir);
	goto out;
oom:
	pmc_cli_error("out of memory");
out:
	if (started && sh_log("git bisect reset", log) != 0)
		pmc_cli_warn("git bisect reset failed; run it by hand");
	free(cmd);
	if (moved && !started && asprintf(&cmd, "git checkout -q '%s'", orig) >= 0) {
		if (sh_log(cmd, log) != 0)
			pmc_cli_warn("cannot check out %s again; run 'git checkout %s'", orig,
				     orig);
		free(cmd);
	}
	free(good);
	free(bad);
	free(orig);
	free(first);
	free(status);
	return code;
}

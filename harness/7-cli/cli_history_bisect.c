/* `pmcbench history bisect` (docs/history.md, "Bisect"): between a good and a bad
 * commit, git bisect run with a build, a measurement by `pmcbench run` and a gate
 * against the good end, to the first bad commit and its measured change. The work at
 * each commit is a generated shell script (step.sh), which also measures the two ends.
 * Every command runs from an argv (no shell pastes a path into a command line), in a
 * process group of its own, to which SIGINT, SIGTERM and SIGHUP are forwarded: the
 * bisect then waits for it, resets git's bisect, returns to the branch and exits
 * 128+N. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_git.h"
#include "cli/cli_history.h"
#include "counters/backend.h"

/* The signal that stops the bisect, and how many came: the handler only counts, the
 * commands' loop forwards them. */
static volatile sig_atomic_t stop_sig, stop_count;

static void on_stop(int sig)
{
	stop_sig = sig;
	stop_count++;
}

/* A handled SIGCHLD ends the sigsuspend() of run_argv() (ignored by default, it would
 * not). */
static void on_child(int sig)
{
	(void)sig;
}

static const int stop_sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGCHLD};

/* Installs the handlers (on) or puts back those in saved. */
static void catch_stops(bool on, struct sigaction saved[4])
{
	for (size_t i = 0; i < 4; i++) {
		struct sigaction sa = {.sa_handler = stop_sigs[i] == SIGCHLD ? on_child : on_stop,
				       .sa_flags = SA_RESTART};

		sigemptyset(&sa.sa_mask);
		if (on)
			sigaction(stop_sigs[i], &sa, &saved[i]);
		else
			sigaction(stop_sigs[i], &saved[i], NULL);
	}
}

enum {
	RUN_CLEANUP = 1,   /* runs after a stop too; only a later signal is forwarded */
	RUN_TO_STDERR = 2, /* its stdout goes to stderr */
};

/* Runs argv (PATH searched) in cwd (NULL: here) in a process group of its own, its
 * output appended to log (NULL: ours), and waits for it; a stop signal that comes
 * meanwhile is sent to its group, and waited for too. Returns its exit status (128+N
 * when killed by signal N), or -1 when it could not run or, without RUN_CLEANUP, the
 * bisect was stopped before it started. */
static int run_argv(char *const argv[], const char *log, const char *cwd, int flags)
{
	sigset_t block, old, during;
	sig_atomic_t seen;
	int st = 0, rc = -1;
	pid_t pid;

	sigemptyset(&block);
	for (size_t i = 0; i < 4; i++)
		sigaddset(&block, stop_sigs[i]);
	/* Blocked but in sigsuspend(), a signal cannot come between the check and the
	 * wait and be missed. */
	sigprocmask(SIG_BLOCK, &block, &old);
	seen = stop_count;
	if (seen && !(flags & RUN_CLEANUP))
		goto out;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		goto out;
	if (pid == 0) {
		int fd;

		setpgid(0, 0);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (log) {
			fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
			if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
				_exit(127);
		} else if ((flags & RUN_TO_STDERR) && dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
			_exit(127);
		}
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			dup2(fd, STDIN_FILENO);
		if (cwd && chdir(cwd) < 0)
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	/* Both sides set the group, so that it exists before a signal is sent to it. */
	setpgid(pid, pid);
	during = old;
	for (size_t i = 0; i < 4; i++)
		sigdelset(&during, stop_sigs[i]);
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			goto out;
		if (stop_count != seen) {
			seen = stop_count;
			kill(-pid, stop_sig);
		}
		if (w == 0)
			sigsuspend(&during);
	}
	rc = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
	/* Stopped, the group's leader may go first: what is left of its group is killed
	 * and, reparented to this process (the subreaper), reaped before it goes on. */
	if (stop_count) {
		kill(-pid, SIGKILL);
		while (waitpid(-pid, NULL, 0) > 0 || errno == EINTR)
			;
	}
out:
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
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
	pmc_cli_sh_quote(f, dir);
	/* git bisect run puts git's own directory first in PATH: every measurement runs with
	 * the PATH of the first, so that their environments are the same. */
	fputs("\nPATH=", f);
	pmc_cli_sh_quote(f, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	fputs("\nexport PATH\nname=${2:-$(git rev-parse HEAD)}\n"
	      "echo \"== $name\" >>\"$dir/log\"\n{\n",
	      f);
	fputs("\tsh -c ", f);
	pmc_cli_sh_quote(f, o->build);
	fputs(" || exit 125\n\t", f);
	pmc_cli_sh_quote(f, self);
	fprintf(f, " run -q -r %zu", o->runs);
	if (o->backend) {
		fputs(" --backend ", f);
		pmc_cli_sh_quote(f, o->backend);
	}
	fputs(" -o \"$dir/$name.json\" --", f);
	for (int i = 0; i < argc; i++) {
		fputc(' ', f);
		pmc_cli_sh_quote(f, argv[i]);
	}
	fputs(" || exit 125\n} >>\"$dir/log\" 2>&1\n"
	      "[ \"${1:-}\" = measure ] && exit 0\n",
	      f);
	pmc_cli_sh_quote(f, self);
	fputs(" gate --baseline \"$dir/good.json\" --threshold ", f);
	pmc_cli_sh_quote(f, o->threshold);
	fputs(" \"$dir/$name.json\" >>\"$dir/log\" 2>&1\n"
	      "case $? in 0) exit 0 ;; 1) exit 1 ;; *) exit 125 ;; esac\n",
	      f);
	return fclose(f) == 0 ? 0 : -EIO;
}

/* The runs of each step: 1 for a backend of exact counts (valgrind's: one run decides,
 * the gate compares the counts directly), else 6; fewer than 4 are refused there, since
 * a gate's rank test needs 4 runs a side to find any change at alpha 0.05 (the smallest
 * p-value of 3 + 3 runs is 0.1). Returns 0, or -EINVAL after an error line. */
static int bisect_runs(struct pmc_cli_bisect_opts *o)
{
	const char *name = o->backend ? o->backend : "perf";
	enum pmc_backend id;
	bool exact;

	if (pmc_cli_parse_backend(name, &id) < 0)
		return -EINVAL;
	exact = pmc_backend_get(id)->simulated;
	if (!o->runs)
		o->runs = exact ? 1 : 6;
	if (!exact && o->runs < 4) {
		pmc_cli_error("--runs %zu: the %s backend's measurements vary from run to run, and "
			      "a step's gate needs at least 4 runs a side to tell a change from "
			      "that noise; give --runs 4 or more, or --backend valgrind, whose "
			      "exact counts need 1",
			      o->runs, name);
		return -EINVAL;
	}
	return 0;
}

/* Measures commit sha as name (good, bad) in dir: checks it out, builds, runs. */
static int measure_end(const char *dir, const char *sha, const char *name, const char *log)
{
	char step[4200];
	int st;

	snprintf(step, sizeof(step), "%s/step.sh", dir);
	st = run_argv((char *[]){"git", "checkout", "-q", "--detach", (char *)sha, NULL}, log, NULL,
		      0);
	if (st != 0)
		return st;
	return run_argv((char *[]){"sh", step, "measure", (char *)name, NULL}, log, NULL, 0);
}

static void show_log_tail(const char *log)
{
	if (run_argv((char *[]){"tail", "-n", "15", (char *)log, NULL}, NULL, NULL,
		     RUN_CLEANUP | RUN_TO_STDERR) != 0)
		pmc_cli_warn("cannot show %s", log);
}

int pmc_cli_history_bisect(int argc, char **argv, struct pmc_cli_bisect_opts *o)
{
	char dir[4096], self[4096], log[4200], good_json[4200], bad_json[4200], step[4200];
	char copy[64], metric[256];
	const char *tmp = getenv("TMPDIR");
	char *good = NULL, *bad = NULL, *orig = NULL, *first = NULL, *status = NULL;
	struct sigaction saved[4];
	ssize_t len;
	int code = PMC_EXIT_ERROR, st;
	bool started = false, moved = false;

	if (!o->good || !o->bad || !o->build || !o->threshold || argc < 1) {
		pmc_cli_error(
		    "history bisect needs --good REV, --bad REV, --build CMD, --threshold "
		    "METRIC=+P%% and -- COMMAND; try 'pmcbench help history'");
		return PMC_EXIT_ERROR;
	}
	if (bisect_runs(o) < 0)
		return PMC_EXIT_ERROR;
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0) {
		pmc_cli_error("cannot find this program's path (/proc/self/exe)");
		return PMC_EXIT_ERROR;
	}
	self[len] = '\0';
	stop_sig = stop_count = 0;
	catch_stops(true, saved);
	/* Orphans of the commands become this process's children, so that a stop can
	 * reap them (run_argv()). */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	/* --end-of-options: a --good or --bad that starts with "-" is a revision, never an
	 * option of git (git 2.30 or later). */
	good = pmc_cli_git("rev-parse --verify --end-of-options", o->good, NULL);
	bad = pmc_cli_git("rev-parse --verify --end-of-options", o->bad, NULL);
	if (stop_sig)
		goto out;
	if (!good || !bad) {
		pmc_cli_error("--%s '%s' is not a commit of the git repository here",
			      good ? "bad" : "good", good ? o->bad : o->good);
		goto out;
	}
	status = pmc_cli_git("status --porcelain --untracked-files=no", NULL, NULL);
	if (status) {
		pmc_cli_error(
		    "the working tree has changes (%s ...); bisect checks out other commits: "
		    "commit or stash them first",
		    status);
		goto out;
	}
	orig = pmc_cli_git("symbolic-ref -q --short HEAD", NULL, NULL);
	if (!orig)
		orig = pmc_cli_git("rev-parse HEAD", NULL, NULL);
	if (stop_sig)
		goto out;
	if (!orig) {
		pmc_cli_error("the working directory is not in a git repository with a commit");
		goto out;
	}
	snprintf(dir, sizeof(dir), "%s/pmcbench-bisect-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		pmc_cli_error("cannot make a directory for the measurements (%s): %s", dir,
			      strerror(errno));
		goto out;
	}
	snprintf(log, sizeof(log), "%s/log", dir);
	snprintf(step, sizeof(step), "%s/step.sh", dir);
	snprintf(good_json, sizeof(good_json), "%s/good.json", dir);
	snprintf(bad_json, sizeof(bad_json), "%s/bad.json", dir);
	if (write_step(dir, self, o, argc, argv) < 0) {
		pmc_cli_error("cannot write %s/step.sh", dir);
		goto out;
	}
	moved = true;
	printf("bisect: measuring the good end %.12s and the bad end %.12s\n", good, bad);
	fflush(stdout);
	if (measure_end(dir, good, "good", log) != 0 || measure_end(dir, bad, "bad", log) != 0) {
		if (stop_sig)
			goto out;
		pmc_cli_error("building or measuring an end failed; its output is in %s:", log);
		show_log_tail(log);
		goto out;
	}
	/* The ends must differ as the threshold says, or there is nothing to find. */
	st = run_argv((char *[]){self, "gate", "--baseline", good_json, "--threshold",
				 (char *)o->threshold, bad_json, NULL},
		      log, NULL, 0);
	if (stop_sig)
		goto out;
	if (st != 1) {
		pmc_cli_error(
		    "the bad end %.12s is not a regression beyond %s against the good end "
		    "%.12s (gate exit %d; %s): nothing to bisect",
		    bad, o->threshold, good, st, log);
		goto out;
	}
	if (run_argv((char *[]){"git", "checkout", "-q", orig, NULL}, log, NULL, 0) != 0)
		goto failed;
	started = true;
	if (run_argv((char *[]){"git", "bisect", "start", bad, good, NULL}, log, NULL, 0) != 0 ||
	    run_argv((char *[]){"git", "bisect", "run", "sh", step, NULL}, log, NULL, 0) != 0)
		goto failed;
	first = pmc_cli_git("rev-parse --verify -q refs/bisect/bad", NULL, NULL);
	if (!first)
		goto failed;
	{
		char *subject = pmc_cli_git("log -1 --format=%s", first, NULL);
		char b[PMC_QUOTE_SIZE(512)];

		/* A commit's subject is anyone's text. */
		printf("first bad commit: %s %s\n", first,
		       subject ? pmc_quote(b, sizeof(b), subject) : "");
		free(subject);
	}
	fflush(stdout);
	/* Its measured change against the good end, as gate reports it, on the threshold's
	 * metric; the files named by what they are. */
	{
		char from[4200];

		snprintf(from, sizeof(from), "%s.json", first);
		snprintf(copy, sizeof(copy), "bad-%.12s.json", first);
		snprintf(metric, sizeof(metric), "%.*s", (int)strcspn(o->threshold, "="),
			 o->threshold);
		if (run_argv((char *[]){"cp", from, copy, NULL}, NULL, dir, 0) != 0 ||
		    run_argv((char *[]){self, "gate", "--baseline", "good.json", "--metric", metric,
					"--threshold", (char *)o->threshold, copy, NULL},
			     NULL, dir, 0) < 0)
			pmc_cli_warn("cannot run the gate of the first bad commit");
	}
	if (stop_sig)
		goto out;
	code = PMC_EXIT_OK;
	printf("bisect: the measurements and git's log are in %s\n", dir);
	goto out;
failed:
	if (!stop_sig) {
		pmc_cli_error("git bisect run failed; its output is in %s:", log);
		show_log_tail(log);
	}
out:
	/* git bisect reset returns to the branch the bisect started on. */
	if (started &&
	    run_argv((char *[]){"git", "bisect", "reset", NULL}, log, NULL, RUN_CLEANUP) != 0)
		pmc_cli_warn("git bisect reset failed; run it by hand");
	if (moved && !started &&
	    run_argv((char *[]){"git", "checkout", "-q", orig, NULL}, log, NULL, RUN_CLEANUP) != 0)
		pmc_cli_warn("cannot check out %s again; run 'git checkout %s'", orig, orig);
	catch_stops(false, saved);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	if (stop_sig) {
		pmc_cli_error("interrupted");
		code = 128 + stop_sig;
	}
	free(good);
	free(bad);
	free(orig);
	free(first);
	free(status);
	return code;
}

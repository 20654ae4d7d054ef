/* A session's commands (session_priv.h): their executables looked up once, then the
 * runner, with the progress the caller shows and, when a run fails, the end of what it
 * wrote to its standard error. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/path.h"
#include "core/compare.h"
#include "core/metrics.h"
#include "core/result.h"
#include "core/stats.h"
#include "run/runner.h"
#include "session/session_priv.h"

int pmc_session_check_commands(struct pmc_runner_cmd *cmds, size_t n,
			       const struct pmc_session_printer *pr)
{
	for (size_t i = 0; i < n; i++) {
		char *path = NULL;
		int rc = pmc_find_executable(cmds[i].argv[0], &path);

		if (rc == 0) {
			char interp[256];

			/* Searched once here, not by every run's exec. */
			cmds[i].path = path;
			/* exec would say "No such file or directory" of a script that exists. */
			rc = pmc_script_interpreter_check(path, interp, sizeof(interp));
			if (rc == 0)
				continue;
			pmc_session_say(
			    pr, PMC_SESSION_ERROR,
			    "'%s': its interpreter '%s' (its #! line) %s; install it or "
			    "correct the line",
			    cmds[i].argv[0], interp,
			    rc == -EACCES ? "is not executable" : "does not exist");
			return -EINVAL;
		}
		if (rc == -EACCES)
			pmc_session_say(pr, PMC_SESSION_ERROR,
					"'%s' is not executable; check its permissions (chmod +x)",
					cmds[i].argv[0]);
		else if (strchr(cmds[i].argv[0], '/'))
			pmc_session_say(pr, PMC_SESSION_ERROR, "'%s': no such file",
					cmds[i].argv[0]);
		else
			pmc_session_say(pr, PMC_SESSION_ERROR,
					"'%s': command not found in PATH; give its path, or use "
					"--shell for shell built-ins",
					cmds[i].argv[0]);
		return -EINVAL;
	}
	return 0;
}

/* What the progress knows between runs. */
struct progress {
	const struct pmc_session_cfg *cfg;
	const struct pmc_result *result;
	size_t started, total; /* runs begun, runs in all (an upper bound with -r auto) */
	double t0;	       /* CLOCK_MONOTONIC seconds at the start */
};

/* The median so far of the command's primary metric (the registry's order,
 * pmc_benchmark_primary: the first of them it measured) into p; none before its first
 * measured run. */
static void running_median(const struct progress *pg, size_t cmd, struct pmc_session_progress *p)
{
	struct pmc_benchmark *b = pmc_result_find_benchmark(pg->result, pg->cfg->cmds[cmd].name);

	const char *const *primary = pmc_benchmark_primary(b);

	for (size_t i = 0; b && primary[i]; i++) {
		struct pmc_metric *m = pmc_benchmark_find_metric(b, primary[i]);

		if (m && m->n && pmc_median_of(m->values, m->n, &p->median) == 0) {
			p->median_metric = primary[i];
			p->median_unit = m->unit;
			return;
		}
	}
}

static void progress(void *ud, size_t cmd, size_t run, size_t runs, bool warmup)
{
	struct progress *pg = ud;
	struct pmc_session_progress p = {
	    .name = pg->cfg->cmds[cmd].name,
	    .run = run,
	    .runs = runs,
	    .warmup = warmup,
	    .left_s = -1,
	    .median = NAN,
	};
	double t = pmc_clock_s();

	/* Runs take about the same time: what is left at the pace so far. */
	if (pg->started > 0 && pg->total > pg->started)
		p.left_s = (t - pg->t0) / (double)pg->started * (double)(pg->total - pg->started);
	pg->started++;
	running_median(pg, cmd, &p);
	pg->cfg->progress(&p, pg->cfg->progress_ud);
}

/* After a failed run's error: the end of what it wrote to stderr, which was not shown. */
static void show_tail(const struct pmc_runner_tail *t, const struct pmc_session_printer *pr)
{
	if (!t->text[0])
		return;
	if (!t->cut)
		pmc_session_say(pr, PMC_SESSION_INFO, "its standard error said:");
	else if (t->partial)
		pmc_session_say(pr, PMC_SESSION_INFO,
				"the end of its standard error (%llu bytes in all; "
				"--show-output shows them):",
				(unsigned long long)t->bytes);
	else
		pmc_session_say(pr, PMC_SESSION_INFO,
				"the last %zu line%s of its standard error (%llu bytes in all; "
				"--show-output shows them):",
				t->lines, t->lines == 1 ? "" : "s", (unsigned long long)t->bytes);
	pmc_session_say(pr, PMC_SESSION_OUTPUT, "%s%s", t->partial ? "..." : "", t->text);
}

/* The runner's notes (what a run left running and was ended), as the session's. */
static void runner_note(void *ud, const char *text)
{
	pmc_session_say(ud, PMC_SESSION_NOTE, "%s", text);
}

int pmc_session_run_commands(const struct pmc_session_cfg *cfg, const struct pmc_runner_opts *opts,
			     const struct pmc_event_list *events, struct pmc_result *result)
{
	struct pmc_runner_opts ro = *opts;
	struct progress pg = {.cfg = cfg, .result = result};
	struct pmc_runner_tail *tail = calloc(1, sizeof(*tail));
	char err[1024] = "";
	int r;

	if (!tail) {
		pmc_session_say(&cfg->pr, PMC_SESSION_ERROR, "out of memory");
		return -ENOMEM;
	}
	ro.events = events;
	if (cfg->progress && !cfg->quiet) {
		pg.total = cfg->ncmds * (ro.runs + ro.warmup);
		pg.t0 = pmc_clock_s();
		ro.progress = progress;
		ro.ud = &pg;
	}
	ro.tail = tail;
	ro.note = runner_note;
	ro.note_ud = (void *)&cfg->pr;
	if (cfg->guard)
		cfg->guard(true, cfg->guard_ud);
	r = pmc_runner_run(cfg->cmds, cfg->ncmds, &ro, result, err, sizeof(err));
	if (cfg->guard)
		cfg->guard(false, cfg->guard_ud);
	if (ro.progress)
		cfg->progress(&(struct pmc_session_progress){.done = true, .median = NAN},
			      cfg->progress_ud);
	if (ro.stop && *ro.stop)
		r = -EINTR;
	else if (r < 0) {
		pmc_session_say(&cfg->pr, PMC_SESSION_ERROR, "%s", err);
		show_tail(tail, &cfg->pr);
	}
	free(tail);
	return r;
}

/* The session (session.h): the one sequence of `pmcbench run`, of every benchmark
 * program and of pmc_session_run() — look up what runs, probe the events once, run,
 * report, save, export, compare, gate — and the decision it comes to. pmc_session_exec
 * takes one step at a time (exec_check, exec_probe, exec_run, exec_report, exec_save,
 * exec_compare, exec_decide) over the state they share (struct exec); the events' probe
 * is session_probe.c's. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/opts.h"
#include "core/analysis.h"
#include "core/result.h"
#include "formats/result_json.h"
#include "run/env.h"
#include "run/words.h"
#include "pmcbench/metrics.h"
#include "pmcbench/report.h"
#include "reporters/escape.h"
#include "reporters/compare_cells.h"
#include "reporters/reporter.h"
#include "session/session_priv.h"

/* The error of a session that was stopped: stop holds the signal that stopped it. */
static int stopped(const struct pmc_session_printer *pr, const volatile sig_atomic_t *stop,
		   const char *what)
{
	int sig = (int)*stop;

	pmc_session_say(pr, PMC_SESSION_ERROR, "interrupted by signal %d (%s); %s", sig,
			strsignal(sig), what);
	return -EINTR;
}

/* The program the backend needs on this machine into *ret_path (NULL when it needs
 * none). 0, or -errno after an error line: the backend's install line when it is
 * missing. */
static int find_backend(const struct pmc_backend_ops *b, const struct pmc_session_printer *pr,
			char **ret_path)
{
	char err[256] = "";
	int r = b->find(ret_path, err, sizeof(err));

	if (r < 0)
		pmc_session_say(pr, PMC_SESSION_ERROR, "%s", r == -ENOENT ? err : strerror(-r));
	return r;
}

/* The compiler of the attached processes' executables (/proc/PID/exe). */
static int attached_compiler(struct pmc_result *result, const struct pmc_runner_opts *ro)
{
	char(*exe)[64] = calloc(ro->nattach + 1, sizeof(*exe));
	const char **paths = calloc(ro->nattach + 1, sizeof(*paths));
	int r = exe && paths ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && i < ro->nattach; i++) {
		snprintf(exe[i], sizeof(exe[i]), "/proc/%d/exe", (int)ro->attach_pids[i]);
		paths[i] = exe[i];
	}
	if (r == 0 && ro->nattach)
		r = pmc_env_compiler(result, paths, ro->nattach);
	free(exe);
	free(paths);
	return r;
}

/* The compiler of what is measured (pmc_env_compiler): the commands' executables (looked
 * up by then), or the benchmarks' shared objects, or the other build's program and this
 * one, else this program, which holds them. */
static int describe_compiler(struct pmc_result *result, const struct pmc_session_cfg *cfg)
{
	const char *self = "/proc/self/exe";
	const char **paths;
	int r;

	if (cfg->benchmarks && cfg->nlibraries)
		return pmc_env_compiler(result, cfg->libraries, cfg->nlibraries);
	if (cfg->benchmarks && cfg->other_program) {
		const char *builds[2] = {cfg->other_program, self};

		return pmc_env_compiler(result, builds, 2);
	}
	if (cfg->benchmarks)
		return pmc_env_compiler(result, &self, 1);
	/* Attached: the processes' executables, not the load generator's; under -a, none. */
	if (cfg->ro.nattach || cfg->ro.system_wide)
		return attached_compiler(result, &cfg->ro);
	paths = calloc(cfg->ncmds + 1, sizeof(*paths));
	if (!paths)
		return -ENOMEM;
	for (size_t i = 0; i < cfg->ncmds; i++)
		paths[i] = cfg->cmds[i].path;
	r = pmc_env_compiler(result, paths, cfg->ncmds);
	free(paths);
	return r;
}

/* The measurement's environment in result: the fingerprint, the backend's (program: the
 * one its find gave), and for a backend that takes events the events asked for and what
 * was counted. */
static int describe(struct pmc_result *result, const struct pmc_session_cfg *cfg,
		    const char *program, const char *spec, bool user_only)
{
	const struct pmc_backend_ops *be = pmc_backend_get(cfg->ro.backend);
	/* Benchmark programs run marked under a backend that marks (session_benchmarks.c). */
	struct pmc_backend_opts bo = {.valgrind_tool = cfg->ro.valgrind_tool,
				      .marked = cfg->benchmarks && be->marks};
	bool takes_events = be->takes_events;
	int r = pmc_env_collect(result);

	if (r == 0)
		r = describe_compiler(result, cfg);
	if (r == 0)
		r = pmc_env_backend(result, be, &bo, program);
	if (r == 0 && takes_events)
		r = pmc_result_set_env(result, "events", spec);
	if (r == 0 && takes_events)
		r = pmc_result_set_env(result, "counting", user_only ? "user-only" : "user+kernel");
	return r;
}

/* The result's report on cfg->out (the run table, and with stats every summary), from
 * its analysis a (NULL: each reporter analyses). */
static int report_result(const struct pmc_session_cfg *cfg, const struct pmc_session_compare *cmp,
			 const struct pmc_result *result, const struct pmc_analysis *a,
			 const char *format)
{
	PMC_OPTS(pmc_report_opts, ro, .median = cfg->median, .confidence = 0.95,
		 .color = pmc_session_compare_color(cmp, cfg->out),
		 .width = pmc_session_stream_width(cfg->out));
	int r;

	/* run -I: the counts per interval, then the summary of the runs. */
	if (cfg->ro.interval_ms && strcmp(format, "table") == 0)
		r = pmc_report_intervals(cfg->out, result);
	else
		r = 0;
	if (r == 0)
		r = pmc_report_result_analyzed(cfg->out, format, result, a, &ro, NULL, 0);
	if (r == 0 && cfg->stats && strcmp(format, "table") == 0)
		r = pmc_report_result_analyzed(cfg->out, "stats", result, a, &ro, NULL, 0);
	if (r == 0)
		r = pmc_session_stream_flush(cfg->out);
	if (r < 0)
		pmc_session_say(&cfg->pr, PMC_SESSION_ERROR, "cannot write the report to %s: %s",
				pmc_session_stream_name(cfg->out), strerror(-r));
	return r;
}

/* `run -c A -c B` before the run table: the answer first (docs/compare.md, "The
 * headline"), then the detail; a: the result's analysis, or NULL. Returns the
 * comparison the report after the table reuses. */
static struct pmc_comparison *headline(const struct pmc_session_cfg *cfg,
				       const struct pmc_session_compare *cmp,
				       const struct pmc_result *result,
				       const struct pmc_analysis *a)
{
	size_t ref = cfg->reference, fastest;
	struct pmc_comparison *pre;

	if (cfg->ncmds == 2)
		return pmc_session_compare_headline(result, ref, cmp, cfg->out);
	/* Three or more: hyperfine's summary from the fastest; the comparison against the
	 * reference follows the table as usual, computed here without a summary of its own,
	 * so that it does not repeat one. */
	fastest = a ? pmc_analysis_fastest(a, ref) : ref;
	pre = pmc_session_compare_headline(result, fastest, cmp, cfg->out);
	if (fastest != ref) {
		pmc_comparison_free(pre);
		pre = pmc_session_compare_headline(result, ref, cmp, NULL);
	}
	return pre;
}

/* What the steps of one pmc_session_exec share, in the order they fill it. */
struct exec {
	struct pmc_session_cfg *cfg;
	const struct pmc_session_printer *pr;
	const struct pmc_backend_ops *b;
	bool commands;	    /* commands, else registered benchmarks */
	const char *spec;   /* the events asked for */
	const char *format; /* of the report on cfg->out */
	/* The comparison's stream: beside a document it goes aside, as the sequential
	 * decisions do. */
	FILE *compare_out;
	size_t n; /* the commands, or the benchmarks */
	struct pmc_runner_opts ro;
	struct pmc_session_compare cmp;
	struct pmc_session_seq seq;
	char *program; /* the backend's, from its find */
	struct pmc_result *base;
	struct pmc_session_benchmarks mb;
	struct pmc_session_events ev;
	struct pmc_result *result;
	struct pmc_session_profiles profiles, base_profiles;
	size_t failed;		    /* benchmarks that failed */
	bool interrupted;	    /* a signal stopped the benchmarks: what finished is written */
	struct pmc_analysis *an;    /* the result's, for every reader of it */
	struct pmc_comparison *pre; /* the headline's, which the comparison reuses */
	bool md_first;		    /* Markdown: the comparison before the runs' tables */
};

/* Before anything runs: the backend's program, the commands, the paths to write, the
 * exports, the baseline, this program's path for the benchmarks' processes. */
static int exec_check(struct exec *x)
{
	struct pmc_session_cfg *cfg = x->cfg;
	char err[1024] = "";
	int r;

	if (x->commands) {
		if ((r = find_backend(x->b, x->pr, &x->program)) < 0)
			return r;
		x->ro.valgrind_path = x->program;
		if ((r = pmc_session_check_commands(cfg->cmds, cfg->ncmds, x->pr)) < 0)
			return r;
	}
	if (cfg->output && (r = pmc_session_check_path(x->pr, "--output", cfg->output)) < 0)
		return r;
	if ((r = pmc_session_exports_check(cfg->exports, x->pr)) < 0)
		return r;
	if (cfg->baseline && (r = pmc_result_load(cfg->baseline, &x->base, err, sizeof(err))) < 0) {
		pmc_session_say(x->pr, PMC_SESSION_ERROR, "%s", err);
		return r;
	}
	if (!x->commands && (r = find_backend(x->b, x->pr, &x->program)) < 0)
		return r;
	if (!x->commands && (r = pmc_session_benchmarks_prepare(cfg, &x->mb)) < 0)
		return r;
	return 0;
}

/* The events probed once (a backend that takes them), and the result that the runs
 * fill, with its environment. */
static int exec_probe(struct exec *x)
{
	struct pmc_session_cfg *cfg = x->cfg;
	/* A benchmark program's brief table names the missing events in one line
	 * (docs/microbench.md, "The report"). */
	bool brief = !x->commands && cfg->out && strcmp(x->format, "brief") == 0;
	int r;

	if (x->b->takes_events &&
	    (r = pmc_session_events_probe(cfg, &x->ro, x->spec, brief, &x->ev)) < 0)
		return r;
	r = pmc_result_new(x->b->name, &x->result);
	if (r == 0)
		r = describe(x->result, cfg, x->program, x->spec, x->ev.user_only);
	if (r < 0)
		pmc_session_say(x->pr, PMC_SESSION_ERROR, "out of memory");
	return r;
}

/* The commands' runs, each command's profiled run after them with --profile. */
static int exec_run_commands(struct exec *x)
{
	struct pmc_session_cfg *cfg = x->cfg;
	int r;

	if (cfg->runs_auto) {
		x->ro.runs = x->seq.max_runs;
		x->ro.round_done = pmc_session_seq_round_done;
		x->ro.round_ud = &x->seq;
	}
	r = pmc_session_run_commands(cfg, &x->ro, x->ev.events, x->result);
	if (r == -EINTR)
		r = stopped(x->pr, x->ro.stop, "nothing was written");
	if (r < 0 || !cfg->profile)
		return r;
	/* One more run of each command, profiled, never one of the measured ones. */
	if (cfg->guard)
		cfg->guard(true, cfg->guard_ud);
	pmc_session_profiles_record(&x->profiles, cfg->cmds, cfg->ncmds, &x->ro,
				    cfg->profile_off_cpu, cfg->output, x->pr);
	if (cfg->guard)
		cfg->guard(false, cfg->guard_ud);
	if (x->ro.stop && *x->ro.stop)
		return stopped(x->pr, x->ro.stop,
			       "no result was written (the profiles so far were)");
	return 0;
}

/* The benchmarks' runs. Stopped (also after the last process, before the handler was
 * removed): what finished is reported and written, then the run ends, without the fits,
 * profiles and comparison of a whole one. */
static int exec_run_benchmarks(struct exec *x)
{
	int r;

	x->failed = pmc_session_run_benchmarks(x->cfg, &x->mb, x->ev.events, x->program, x->result,
					       &x->profiles);
	x->interrupted = x->ro.stop && *x->ro.stop;
	if (!x->interrupted &&
	    (r = pmc_session_benchmarks_finish(x->cfg, &x->mb, x->result, &x->profiles)) < 0)
		return r;
	if ((r = pmc_session_note_missing(x->result, x->ev.missing_why)) < 0)
		pmc_session_say(x->pr, PMC_SESSION_ERROR, "out of memory");
	return r;
}

/* The runs, then the profiles the comparison explains a change with. */
static int exec_run(struct exec *x)
{
	struct pmc_session_cfg *cfg = x->cfg;
	int r = x->commands ? exec_run_commands(x) : exec_run_benchmarks(x);

	if (r < 0 || !cfg->profile)
		return r;
	/* Profiles only explain (docs/profile.md): without the baseline's, the comparison
	 * goes on unexplained. */
	if (x->base &&
	    pmc_session_profiles_load(&x->base_profiles, cfg->baseline, x->base, x->pr) < 0)
		pmc_session_say(x->pr, PMC_SESSION_WARN,
				"--profile: out of memory reading the baseline's profiles");
	x->cmp.old_profiles = x->base || !x->commands ? &x->base_profiles : &x->profiles;
	x->cmp.new_profiles = &x->profiles;
	x->cmp.profile_ref = x->base || !x->commands ? NULL : cfg->cmds[cfg->reference].name;
	return 0;
}

/* The result analysed once, for the headline, the reports, the saved file and the
 * exports (docs/architecture.md, "The data flow"); should that fail, each of them
 * analyses it and says why, as alone. Then the answer first, the report, and after
 * --runs auto the sequential rule's settling. */
static int exec_report(struct exec *x)
{
	struct pmc_session_cfg *cfg = x->cfg;
	bool several = x->commands && x->n >= 2 && !x->base && !cfg->runs_auto && cfg->out;
	int r;

	if (pmc_analysis_new(x->result, 0.95, &x->an) < 0)
		x->an = NULL;
	/* After --runs auto the sequential rule judges, after the table. */
	if (several && strcmp(x->format, "table") == 0)
		x->pre = headline(cfg, &x->cmp, x->result, x->an);
	/* Markdown for a pull request: the verdict and the headline first, the runs' tables
	 * after the comparison (docs/ci.md). */
	x->md_first = several && x->compare_out == cfg->out && strcmp(x->format, "markdown") == 0;
	if (cfg->out && !x->md_first &&
	    (r = report_result(cfg, &x->cmp, x->result, x->an, x->format)) < 0)
		return r;
	if (cfg->runs_auto && (r = pmc_session_seq_settle(&x->seq, x->result, x->pr)) < 0)
		return r;
	return 0;
}

/* The result's file and its exports; then, when a signal stopped the benchmarks, the
 * end (-EINTR), after saying what was kept. */
static int exec_save(struct exec *x)
{
	struct pmc_session_cfg *cfg = x->cfg;
	char err[1024] = "", what[PATH_MAX + 96];
	int r;

	if (cfg->output &&
	    (r = pmc_result_save_analyzed(x->result, x->an, cfg->output, err, sizeof(err))) < 0) {
		pmc_session_say(x->pr, PMC_SESSION_ERROR, "%s", err);
		return r;
	}
	if (cfg->exports && cfg->exports->n) {
		PMC_OPTS(pmc_report_opts, xo, .median = cfg->median, .confidence = 0.95);

		if ((r = pmc_session_exports_result(cfg->exports, x->result, x->an, &xo, x->pr)) <
		    0)
			return r;
	}
	if (!x->interrupted)
		return 0;
	snprintf(what, sizeof(what), "the runs that finished were %s%s%s",
		 cfg->output ? "written to " : "reported", cfg->output ? cfg->output : "",
		 cfg->output && x->result->incomplete ? ", marked incomplete" : "");
	return stopped(x->pr, x->ro.stop, what);
}

/* The comparison of the commands against the reference, after a title; with Markdown
 * for a pull request, the runs' tables after it. */
static int exec_compare_reference(struct exec *x, enum pmc_decision *ret)
{
	struct pmc_session_cfg *cfg = x->cfg;

	if (x->compare_out && !x->md_first) {
		fputs("\nComparison against the reference '", x->compare_out);
		pmc_escape_text(x->compare_out, x->result->benchmarks[cfg->reference].name);
		fputs("':\n", x->compare_out);
		fflush(x->compare_out);
	}
	/* After --runs auto the sequential rule judges: the table's fixed-sample tests lose
	 * their error rates when the data chose the number of rounds. */
	*ret = pmc_session_compare_reference(x->result, cfg->reference, &x->cmp,
					     cfg->gate && !cfg->runs_auto, x->pre, x->pr);
	x->pre = NULL;
	if (!x->md_first)
		return 0;
	fputc('\n', cfg->out);
	return report_result(cfg, &x->cmp, x->result, x->an, x->format);
}

/* Two builds: the second against the first, benchmark by benchmark (docs/microbench.md,
 * "Comparing two builds"). */
static enum pmc_decision exec_compare_builds(struct exec *x)
{
	struct pmc_session_cfg *cfg = x->cfg;

	if (x->compare_out) {
		fputs("\nComparison of build '", x->compare_out);
		pmc_escape_text(x->compare_out, cfg->labels[1]);
		fputs("' against build '", x->compare_out);
		pmc_escape_text(x->compare_out, cfg->labels[0]);
		fputs("':\n", x->compare_out);
		fflush(x->compare_out);
	}
	return pmc_session_compare_builds(x->result, cfg->labels[0], cfg->labels[1], &x->cmp,
					  cfg->gate, x->pr);
}

/* The comparison the session makes (with the baseline, of the commands against the
 * reference, of the benchmarks against the named one, of two builds) and, after --runs
 * auto, the sequential rule's report, into *ret. Returns 0, or -errno after an error
 * message (a report that could not be written). */
static int exec_compare(struct exec *x, enum pmc_decision *ret)
{
	struct pmc_session_cfg *cfg = x->cfg;
	enum pmc_decision d = PMC_DECISION_PASS;
	int r;

	x->cmp.out = x->compare_out;
	/* The comparison follows the run's own format for table and Markdown (README). */
	if (strcmp(x->format, "markdown") == 0)
		x->cmp.format = "markdown";
	if (x->base) {
		d = pmc_session_compare_results(x->base, cfg->baseline, x->result, "this run",
						&x->cmp, true, x->pr);
	} else if (x->commands && x->n > 1) {
		if ((r = exec_compare_reference(x, &d)) < 0)
			return r;
	} else if (cfg->reference_name) {
		d = pmc_session_compare_named(x->result, cfg->reference_name, &x->cmp, cfg->gate,
					      x->compare_out, x->pr);
	} else if (cfg->labels) {
		d = exec_compare_builds(x);
	}
	if (cfg->runs_auto && d != PMC_DECISION_ERROR)
		d = pmc_session_seq_report(&x->seq, x->result, x->compare_out, cfg->gate, x->pr);
	if (d != PMC_DECISION_ERROR && cfg->out && (r = pmc_session_stream_flush(cfg->out)) < 0) {
		pmc_session_say(x->pr, PMC_SESSION_ERROR, "cannot write to %s: %s",
				pmc_session_stream_name(cfg->out), strerror(-r));
		d = PMC_DECISION_ERROR;
	}
	*ret = d;
	return 0;
}

/* The decision d, or an error when benchmarks failed, a fit could not be made or a
 * definition was bad: the others' results were written all the same. */
static enum pmc_decision exec_decide(const struct exec *x, enum pmc_decision d)
{
	const struct pmc_mb_set *set = x->cfg->benchmarks;

	if (x->failed) {
		pmc_session_say(x->pr, PMC_SESSION_ERROR,
				"%zu of %zu benchmarks failed; the others' results were written",
				x->failed, x->n);
		d = PMC_DECISION_ERROR;
	}
	if (x->mb.fit_failed)
		d = PMC_DECISION_ERROR;
	/* A bad registration was said where the definitions were expanded; the others ran
	 * (docs/microbench.md, "Exit codes"). */
	if (set && set->nbad) {
		pmc_session_say(x->pr, PMC_SESSION_ERROR,
				"%zu benchmark definition%s skipped (above); the others' results "
				"were written",
				set->nbad, set->nbad == 1 ? " was" : "s were");
		d = PMC_DECISION_ERROR;
	}
	return d;
}

static void exec_clear(struct exec *x)
{
	pmc_analysis_free(x->an);
	pmc_comparison_free(x->pre);
	pmc_session_profiles_clear(&x->profiles);
	pmc_session_profiles_clear(&x->base_profiles);
	pmc_session_benchmarks_clear(&x->mb);
	pmc_session_seq_clear(&x->seq);
	pmc_session_events_clear(&x->ev);
	pmc_result_free(x->base);
	pmc_result_free(x->result);
	free(x->program);
}

int pmc_session_exec(struct pmc_session_cfg *cfg, enum pmc_decision *ret_decision,
		     struct pmc_result **ret_result)
{
	const char *format = cfg->format ? cfg->format : "table";
	struct exec x = {
	    .cfg = cfg,
	    .pr = &cfg->pr,
	    .b = pmc_backend_get(cfg->ro.backend),
	    .commands = !cfg->benchmarks,
	    .spec = cfg->events ? cfg->events : PMC_DEFAULT_EVENTS,
	    .format = format,
	    .compare_out = pmc_session_format_is_document(format) ? cfg->aside : cfg->out,
	    .n = cfg->benchmarks ? cfg->benchmarks->n : cfg->ncmds,
	    .ro = cfg->ro,
	    .cmp = *cfg->cmp,
	    .seq = cfg->seq,
	};
	enum pmc_decision d = PMC_DECISION_PASS;
	int r;

	x.seq.cmp = &x.cmp;
	r = exec_check(&x);
	if (r == 0)
		r = exec_probe(&x);
	if (r == 0)
		r = exec_run(&x);
	if (r == 0)
		r = exec_report(&x);
	if (r == 0)
		r = exec_save(&x);
	if (r == 0)
		r = exec_compare(&x, &d);
	if (r == 0) {
		*ret_decision = exec_decide(&x, d);
		if (ret_result) {
			*ret_result = x.result;
			x.result = NULL;
		}
	}
	exec_clear(&x);
	return r;
}

/* ---- pmc_session_run: the public face ---- */

/* What pmc_session_run builds from its options, freed with session_free(). */
struct public_session {
	struct pmc_session_cfg cfg;
	struct pmc_session_compare cmp;
	struct pmc_session_exports exports;
	struct pmc_mb_set set;
	char ***words;
};

static void public_free(struct public_session *s)
{
	for (size_t i = 0; s->words && i < s->cfg.ncmds; i++) {
		pmc_words_free(s->words[i]);
		free((char *)s->cfg.cmds[i].path);
	}
	free(s->words);
	free(s->cfg.cmds);
	pmc_mb_set_free(&s->set);
	pmc_session_exports_clear(&s->exports);
	pmc_session_compare_clear(&s->cmp);
}

/* The commands of o, split into words as `run -c` splits them. */
static int public_commands(struct public_session *s, const struct pmc_session_opts *o,
			   const struct pmc_session_printer *pr)
{
	size_t n = o->ncommands;

	s->cfg.cmds = calloc(n, sizeof(*s->cfg.cmds));
	s->words = calloc(n, sizeof(*s->words));
	if (!s->cfg.cmds || !s->words)
		return -ENOMEM;
	s->cfg.ncmds = n;
	for (size_t i = 0; i < n; i++) {
		const char *name = o->names && o->names[i] ? o->names[i] : o->commands[i];
		size_t col = 0;
		int r;

		if (!o->commands[i]) {
			pmc_session_say(pr, PMC_SESSION_ERROR, "command %zu is NULL", i);
			return -EINVAL;
		}
		r = pmc_words_split(o->commands[i], &s->words[i], &col);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			pmc_session_say(pr, PMC_SESSION_ERROR, "command '%s': column %zu: %s",
					o->commands[i], col,
					col == 1 ? "empty command"
						 : "unterminated quote or trailing backslash");
			return -EINVAL;
		}
		s->cfg.cmds[i] = (struct pmc_runner_cmd){
		    .name = name, .display = o->commands[i], .argv = s->words[i]};
	}
	return 0;
}

int pmc_session_run(const struct pmc_session_opts *opts, enum pmc_decision *ret_decision,
		    struct pmc_result **ret_result)
{
	struct pmc_session_printer pr = {PMC_OPTS_GET(opts, print, NULL),
					 PMC_OPTS_GET(opts, print_ud, NULL)};
	struct public_session s = {0};
	const char *format = PMC_OPTS_GET(opts, report_format, NULL);
	bool commands, benchmarks;
	char err[1024];
	int r;

	if (!opts || !ret_decision || !PMC_OPTS_VALID(opts, pmc_session_opts)) {
		pmc_session_say(&pr, PMC_SESSION_ERROR, "pmc_session_run: %s",
				!opts ? "no options: give the commands or benchmarks to run"
				: !ret_decision ? "no place for the decision (ret_decision is NULL)"
						: "options from a newer pmcbench set fields this "
						  "library does not know; build against this "
						  "version's header");
		return -EINVAL;
	}
	commands = opts->ncommands > 0;
	benchmarks = opts->bench_begin || opts->bench_end;
	if (commands == benchmarks || (commands && !opts->commands)) {
		pmc_session_say(&pr, PMC_SESSION_ERROR,
				"pmc_session_run: give either commands (commands, ncommands) or "
				"registered benchmarks (bench_begin, bench_end)%s",
				commands ? ", not both" : "");
		return -EINVAL;
	}
	if (format && pmc_report_format(format, PMC_REPORT_RESULT, &format, NULL) < 0) {
		char names[128];

		pmc_reporter_names(PMC_REPORTERS_RESULT, names, sizeof(names));
		pmc_session_say(&pr, PMC_SESSION_ERROR,
				"pmc_session_run: report_format: unknown format '%s'; use %s",
				opts->report_format, names);
		return -EINVAL;
	}
	if (opts->alpha < 0 || opts->alpha >= 1 || (opts->nexports && !opts->exports)) {
		pmc_session_say(&pr, PMC_SESSION_ERROR, "pmc_session_run: %s",
				opts->nexports && !opts->exports
				    ? "nexports is set and exports is NULL"
				    : "alpha must lie between 0 and 1 (0: the default, 0.05)");
		return -EINVAL;
	}
	r = pmc_session_compare_init(&s.cmp);
	if (r < 0)
		goto out;
	if (opts->thresholds) {
		pmc_thresholds_free(s.cmp.thresholds);
		s.cmp.thresholds = (struct pmc_thresholds *)opts->thresholds;
	}
	if (opts->alpha > 0)
		s.cmp.alpha = opts->alpha;
	s.cmp.fail_on_inconclusive = opts->fail_on_inconclusive;
	s.cmp.color = PMC_SESSION_COLOR_NEVER;
	for (size_t i = 0; i < opts->nexports; i++)
		if ((r = pmc_session_exports_add(&s.exports, opts->exports[i], &pr)) < 0)
			goto out;
	s.cfg = (struct pmc_session_cfg){
	    .pr = pr,
	    .progress = opts->progress,
	    .progress_ud = opts->progress_ud,
	    .ro = {.sz = sizeof(s.cfg.ro),
		   .runs = opts->runs ? opts->runs : 10,
		   .warmup = opts->warmup,
		   .user_only_fallback = true,
		   .stop = opts->stop},
	    .mo = {.samples = opts->runs ? opts->runs : PMC_SESSION_MB_SAMPLES,
		   .warmup = opts->warmup},
	    /* The processes of a benchmark program run it again with its command line,
	     * which only pmc_main_defs() answers: here every benchmark runs in this one. */
	    .no_fork = true,
	    .events = opts->events,
	    .require_counters = opts->require_counters,
	    .out = opts->report,
	    .format = format,
	    .output = opts->output,
	    .exports = &s.exports,
	    .baseline = opts->baseline,
	    .cmp = &s.cmp,
	};
	if (commands) {
		r = public_commands(&s, opts, &pr);
	} else {
		r = pmc_mb_expand(opts->bench_begin, opts->bench_end, opts->bench_filter, &s.set,
				  err, sizeof(err));
		if (r == -EINVAL)
			pmc_session_say(&pr, PMC_SESSION_ERROR, "%s", err);
		for (size_t i = 0; r == 0 && i < s.set.nbad; i++)
			pmc_session_say(&pr, PMC_SESSION_ERROR, "%s", s.set.bad[i]);
		if (r == 0 && s.set.n == 0) {
			pmc_session_say(&pr, PMC_SESSION_ERROR, "no benchmark to run%s%s%s",
					opts->bench_filter ? ": the filter '" : "",
					opts->bench_filter ? opts->bench_filter : "",
					opts->bench_filter ? "' matches none" : "");
			r = -EINVAL;
		}
		s.cfg.benchmarks = &s.set;
	}
out:
	if (r == -ENOMEM)
		pmc_session_say(&pr, PMC_SESSION_ERROR, "out of memory");
	if (r == 0)
		r = pmc_session_exec(&s.cfg, ret_decision, ret_result);
	/* The caller's limits stay the caller's. */
	if (opts->thresholds)
		s.cmp.thresholds = NULL;
	public_free(&s);
	return r;
}

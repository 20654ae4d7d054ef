/* The session (session.h): the one sequence of `pmcbench run`, of every benchmark
 * program and of pmc_session_run() — look up what runs, probe the events once, run,
 * report, save, export, compare, gate — and the decision it comes to. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/opts.h"
#include "counters/perf/counters.h"
#include "counters/perf/doctor.h"
#include "counters/perf/events.h"
#include "counters/perf/hybrid.h"
#include "counters/perf/uprobe.h"
#include "counters/valgrind/valgrind.h"
#include "core/analysis.h"
#include "core/result.h"
#include "formats/result_json.h"
#include "run/env.h"
#include "run/uprobes.h"
#include "run/words.h"
#include "base/path.h"
#include "pmcbench/metrics.h"
#include "pmcbench/report.h"
#include "reporters/escape.h"
#include "reporters/compare_cells.h"
#include "reporters/reporter.h"
#include "session/session_priv.h"

/* Probes the events once on this process to learn what this machine can count (the
 * library renames user-only events with ":u", as perf does) and says in one message
 * which events are missing and why, unless quiet (the reports and the result still show
 * each missing counter's status); when every event is denied, it says so even when
 * quiet, with what the run goes on with (without). With require, a missing event is an
 * error. Returns 0, or -errno after an error message. */
static int probe_events(const struct pmc_session_printer *pr, struct pmc_event_list *ev,
			bool require, bool quiet, const struct pmc_sys *sys, const char *without,
			bool report_says, char *ret_reason, size_t reason_len, bool *ret_user_only)
{
	struct pmc_probe_report *rep = NULL;
	char missing[1024] = "", reason[512] = "", fell_back[1024] = "", err[256] = "";
	char nofit[1024] = "", krec[512] = "";
	size_t nmissing, ndenied = 0, len = 0, flen = 0, nlen = 0, klen = 0, nkrec = 0;
	size_t n = pmc_event_list_count(ev);
	int first_err, level = -1, r;

	*ret_user_only = false;
	r = pmc_event_list_probe_sys(ev, NULL, sys, NULL, &rep, err, sizeof(err));
	if (r < 0) {
		pmc_session_say(pr, PMC_SESSION_ERROR, "%s", err);
		return r;
	}
	for (size_t i = 0; i < n; i++) {
		struct pmc_event_desc d = {.sz = sizeof(d)};
		enum pmc_status st;
		bool user_only;
		int error;

		pmc_event_list_describe(ev, i, &d);
		pmc_probe_report_event_at(rep, i, &st, &error, &user_only);
		if (d.exclude_kernel)
			*ret_user_only = true;
		if (user_only && flen < sizeof(fell_back) - 64)
			flen += (size_t)snprintf(fell_back + flen, sizeof(fell_back) - flen, "%s%s",
						 flen ? ", " : "", d.name);
		if (st == PMC_STATUS_NOT_COUNTED && error == PMC_ERROR_NO_FIT &&
		    nlen < sizeof(nofit) - 64)
			nlen += (size_t)snprintf(nofit + nlen, sizeof(nofit) - nlen, "%s%s",
						 nlen ? ", " : "", d.name);
		ndenied += st == PMC_STATUS_DENIED;
		/* Denied for want of the :u fallback, which would count nothing of it. */
		if (st == PMC_STATUS_DENIED && !d.exclude_kernel &&
		    pmc_event_kernel_recorded(d.type, d.config)) {
			nkrec++;
			if (klen < sizeof(krec) - 64)
				klen += (size_t)snprintf(krec + klen, sizeof(krec) - klen, "%s%s",
							 klen ? ", " : "", d.name);
		}
		if ((st == PMC_STATUS_UNSUPPORTED || st == PMC_STATUS_DENIED) &&
		    len < sizeof(missing) - 64)
			len += (size_t)snprintf(missing + len, sizeof(missing) - len, "%s%s",
						len ? ", " : "", d.name);
	}
	if (pmc_probe_report_paranoid(rep, &level) < 0)
		level = -1;
	if (flen && !quiet) {
		char lv[16] = "?";

		if (level >= 0)
			snprintf(lv, sizeof(lv), "%d", level);
		pmc_session_say(pr, PMC_SESSION_NOTE,
				"counting user space only for %s: the kernel denies kernel-space "
				"counting (perf_event_paranoid=%s); see 'pmcbench doctor'",
				fell_back, lv);
	}
	if (nlen && require) {
		pmc_session_say(
		    pr, PMC_SESSION_ERROR,
		    "%s cannot be counted: it does not fit the PMU together with the "
		    "rest of its group; put ':W' after the group to open its events one "
		    "by one, or drop --require-counters",
		    nofit);
		pmc_probe_report_free(rep);
		return -EINVAL;
	}
	if (nlen && !quiet)
		pmc_session_say(pr, PMC_SESSION_NOTE,
				"%s not counted: it does not fit the PMU together with the rest of "
				"its group; put ':W' after the group to open its events one by one",
				nofit);
	nmissing = pmc_probe_report_missing(rep);
	first_err = pmc_probe_report_first_error(rep);
	pmc_probe_report_free(rep);
	if (nmissing == 0)
		return 0;
	{
		struct pmc_doctor_opts dopts = {.sys = sys};
		struct pmc_doctor d;

		if (pmc_doctor_collect(&dopts, &d) == 0)
			pmc_doctor_hw_reason(&d, first_err, reason, sizeof(reason));
		else
			snprintf(reason, sizeof(reason), "%s", strerror(first_err));
	}
	if (nkrec && level == 2) {
		/* The kernel records them in kernel mode only (counters/perf/events.h,
		 * pmc_event_kernel_recorded()): paranoid's own advice, :u, counts 0 of them. */
		char why[384];

		snprintf(why, sizeof(why),
			 "denied: perf_event_paranoid is 2, so unprivileged users may count only "
			 "user space, and the kernel records %s in kernel mode only (a :u count "
			 "is always 0); run 'sysctl kernel.perf_event_paranoid=1' as root, or "
			 "grant CAP_PERFMON",
			 nkrec == 1 ? "this event" : "these events");
		if (nkrec == nmissing)
			snprintf(reason, sizeof(reason), "%s", why);
		else if (!quiet && !require)
			pmc_session_say(pr, PMC_SESSION_NOTE, "%s not counted: %s", krec, why);
	}
	snprintf(ret_reason, reason_len, "%s", reason);
	if (require) {
		pmc_session_say(pr, PMC_SESSION_ERROR,
				"%zu event%s cannot be counted (%s): %s; drop --require-counters "
				"to go on without them (see 'pmcbench doctor')",
				nmissing, nmissing == 1 ? "" : "s", missing, reason);
		return -EINVAL;
	}
	/* Every event denied (perf_event_paranoid=4 on GitHub's runners) leaves no counter
	 * at all: that changes what the whole run means, so it is said even when quiet. */
	if (ndenied == n)
		pmc_session_say(pr, PMC_SESSION_NOTE,
				"every event is denied (%s): %s; going on without counters, with "
				"%s; see 'pmcbench doctor'",
				missing, reason, without);
	else if (!quiet && !report_says)
		pmc_session_say(pr, PMC_SESSION_NOTE,
				"%zu event%s not counted (%s): %s; see 'pmcbench doctor'", nmissing,
				nmissing == 1 ? "" : "s", missing, reason);
	return 0;
}

/* Gives every event metric of r that no run of its benchmark counted (unsupported or
 * denied: the machine's doing, not the benchmark's) the probe's reason as its note, so
 * that the report says why in its one line of missing counters. Returns 0 or -ENOMEM. */
static int note_missing(struct pmc_result *r, const char *reason)
{
	for (size_t i = 0; reason[0] && i < r->nbench; i++)
		for (size_t k = 0; k < r->benchmarks[i].nmetrics; k++) {
			struct pmc_metric *m = &r->benchmarks[i].metrics[k];
			bool counted = false;

			if (!m->has_status || m->note || m->n == 0)
				continue;
			for (size_t j = 0; j < m->n && !counted; j++)
				counted = m->status[j] != PMC_STATUS_UNSUPPORTED &&
					  m->status[j] != PMC_STATUS_DENIED;
			if (!counted && pmc_metric_set_note(m, reason) < 0)
				return -ENOMEM;
		}
	return 0;
}

/* Two events with one metric id (after aliases: "cs" is "context-switches") would
 * record two samples per run under one name. */
/* Function-call events (uprobe:LIBRARY:SYMBOL) resolved through the measured program's
 * linking: the first command's executable, or this benchmark program itself. */
static int resolve_uprobes(struct pmc_event_list *events, const struct pmc_runner_cmd *cmds,
			   bool attached, const char *spec, const struct pmc_sys *sys,
			   const struct pmc_session_printer *pr, struct pmc_uprobe_set **ret_probes)
{
	char err[1024], *found = NULL;
	const char *program = NULL;
	int r;

	if (cmds) {
		program = cmds[0].path;
		if (!program && pmc_find_executable(cmds[0].argv[0], &found) == 0)
			program = found;
	}
	r = pmc_uprobes_resolve(events, program, err, sizeof(err));
	free(found);
	if (r < 0) {
		pmc_session_say(pr, PMC_SESSION_ERROR, "--events '%s': %s", spec, err);
		return r;
	}
	r = pmc_uprobes_probe(events, sys, !cmds && !attached, ret_probes, err, sizeof(err));
	if (r < 0) {
		pmc_session_say(pr, PMC_SESSION_ERROR, "out of memory");
		return r;
	}
	if (err[0])
		pmc_session_say(pr, PMC_SESSION_NOTE, "%s", err);
	/* Each counted call traps into the kernel (a breakpoint, then a single step): the
	 * counts are exact, the times beside them are not the program's own. */
	for (size_t i = 0; i < events->n; i++)
		if (events->events[i].kind == PMC_EV_UPROBE) {
			pmc_session_say(
			    pr, PMC_SESSION_NOTE,
			    "uprobe events trap into the kernel on every call they count: "
			    "the times of this run are disturbed by that (microseconds a "
			    "call here); gate on the counts, time without -e uprobe:...");
			break;
		}
	return 0;
}

static int check_duplicate_events(const struct pmc_event_list *ev, const char *spec,
				  const struct pmc_session_printer *pr)
{
	for (size_t i = 0; i < ev->n; i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(ev->events[i].name, ev->events[j].name) == 0) {
				pmc_session_say(pr, PMC_SESSION_ERROR,
						"--events '%s': '%s' is given twice (aliases count "
						"as the same event); give each event once",
						spec, ev->events[i].name);
				return -EINVAL;
			}
	return 0;
}

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

/* The measurement's environment in result: the fingerprint, the backend's, and under
 * perf the events asked for and what was counted. */
static int describe(struct pmc_result *result, const struct pmc_session_cfg *cfg,
		    const char *valgrind, const char *spec, bool user_only)
{
	bool takes_events = pmc_backend_get(cfg->ro.backend)->takes_events;
	int r = pmc_env_collect(result);

	if (r == 0)
		r = describe_compiler(result, cfg);

	/* Valgrind-specific: its version and tool, which no other backend has. */
	if (r == 0 && cfg->ro.backend == PMC_BACKEND_VALGRIND)
		r = pmc_env_valgrind(result, valgrind,
				     cfg->benchmarks ? PMC_VALGRIND_CALLGRIND
						     : cfg->ro.valgrind_tool);
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

int pmc_session_exec(struct pmc_session_cfg *cfg, enum pmc_decision *ret_decision,
		     struct pmc_result **ret_result)
{
	const struct pmc_session_printer *pr = &cfg->pr;
	const struct pmc_backend_ops *b = pmc_backend_get(cfg->ro.backend);
	bool commands = !cfg->benchmarks;
	const char *spec = cfg->events ? cfg->events : PMC_DEFAULT_EVENTS;
	const char *format = cfg->format ? cfg->format : "table";
	bool document = pmc_session_format_is_document(format);
	/* A comparison beside a document goes aside, as the sequential decisions do. */
	FILE *compare_out = document ? cfg->aside : cfg->out;
	size_t n = commands ? cfg->ncmds : cfg->benchmarks->n, failed = 0;
	struct pmc_runner_opts ro = cfg->ro;
	struct pmc_session_compare cmp = *cfg->cmp;
	struct pmc_session_seq seq = cfg->seq;
	struct pmc_session_benchmarks mb = {0};
	struct pmc_session_profiles profiles = {0}, base_profiles = {0};
	struct pmc_event_list *events = NULL;
	struct pmc_event_hold *held = NULL;
	struct pmc_uprobe_set *probes = NULL;
	struct pmc_sys machine_sys;
	struct pmc_hybrid_machine machine;
	struct pmc_result *result = NULL, *base = NULL;
	struct pmc_comparison *pre = NULL;
	struct pmc_analysis *an = NULL; /* the result's, for every reader of it */
	enum pmc_decision d = PMC_DECISION_PASS;
	char err[1024] = "", *program = NULL; /* the backend's, from its find */
	/* Why events are missing (the probe's), and whether the report says it: a benchmark
	 * program's brief table names them in one line (docs/microbench.md, "The report"). */
	char missing_why[512] = "";
	bool brief = !commands && cfg->out && strcmp(format, "brief") == 0;
	bool user_only = false, interrupted = false, md_first = false;
	int r;

	seq.cmp = &cmp;
	if (commands) {
		if ((r = find_backend(b, pr, &program)) < 0)
			goto out;
		ro.valgrind_path = program;
	}
	if (commands && (r = pmc_session_check_commands(cfg->cmds, cfg->ncmds, pr)) < 0)
		goto out;
	if (cfg->output && (r = pmc_session_check_path(pr, "--output", cfg->output)) < 0)
		goto out;
	if ((r = pmc_session_exports_check(cfg->exports, pr)) < 0)
		goto out;
	if (cfg->baseline && (r = pmc_result_load(cfg->baseline, &base, err, sizeof(err))) < 0) {
		pmc_session_say(pr, PMC_SESSION_ERROR, "%s", err);
		goto out;
	}
	if (!commands && (r = find_backend(b, pr, &program)) < 0)
		goto out;
	if (!commands && (r = pmc_session_benchmarks_prepare(cfg, &mb)) < 0)
		goto out;
	if (b->takes_events) {
		r = pmc_event_list_parse(spec, NULL, &events, err, sizeof(err));
		if (r < 0) {
			pmc_session_say(pr, PMC_SESSION_ERROR, "--events '%s': %s", spec, err);
			goto out;
		}
		if ((r = check_duplicate_events(events, spec, pr)) < 0)
			goto out;
		/* Attached, a library's functions are the processes', not the load's. */
		if ((r = resolve_uprobes(
			 events, commands && !ro.nattach && !ro.system_wide ? cfg->cmds : NULL,
			 ro.nattach || ro.system_wide, spec, ro.sys, pr, &probes)) < 0)
			goto out;
		/* Looked up once for the probe, the doctor's reason and every run's open. */
		pmc_hybrid_machine_share(events, &ro.sys, &machine_sys, &machine);
		if ((r = pmc_events_hold(events, &held)) < 0) {
			pmc_session_say(pr, PMC_SESSION_ERROR, "out of memory");
			goto out;
		}
		r = probe_events(pr, events, cfg->require_counters, cfg->quiet, ro.sys,
				 commands
				     ? "what wait4 measures (wall-time, user-time, system-time, "
				       "max-rss)"
				     : "the clock's wall-time/op",
				 brief, missing_why, sizeof(missing_why), &user_only);
		if (r < 0)
			goto out;
	}
	r = pmc_result_new(b->name, &result);
	if (r == 0)
		r = describe(result, cfg, program, spec, user_only);
	if (r < 0) {
		pmc_session_say(pr, PMC_SESSION_ERROR, "out of memory");
		goto out;
	}

	if (commands) {
		if (cfg->runs_auto) {
			ro.runs = seq.max_runs;
			ro.round_done = pmc_session_seq_round_done;
			ro.round_ud = &seq;
		}
		r = pmc_session_run_commands(cfg, &ro, events, result);
		if (r == -EINTR)
			r = stopped(pr, ro.stop, "nothing was written");
		if (r < 0)
			goto out;
		/* One more run of each command, profiled, never one of the measured ones. */
		if (cfg->profile) {
			if (cfg->guard)
				cfg->guard(true, cfg->guard_ud);
			pmc_session_profiles_record(&profiles, cfg->cmds, cfg->ncmds, &ro,
						    cfg->profile_off_cpu, cfg->output, pr);
			if (cfg->guard)
				cfg->guard(false, cfg->guard_ud);
			if (ro.stop && *ro.stop) {
				r = stopped(pr, ro.stop,
					    "no result was written (the profiles so far were)");
				goto out;
			}
		}
	} else {
		failed = pmc_session_run_benchmarks(cfg, &mb, events, program, result, &profiles);
		/* Stopped (also after the last process, before the handler was removed): what
		 * finished is reported and written, then the run ends, without the fits,
		 * profiles and comparison of a whole one. */
		interrupted = ro.stop && *ro.stop;
		if (!interrupted &&
		    (r = pmc_session_benchmarks_finish(cfg, &mb, result, &profiles)) < 0)
			goto out;
		if ((r = note_missing(result, missing_why)) < 0) {
			pmc_session_say(pr, PMC_SESSION_ERROR, "out of memory");
			goto out;
		}
	}
	if (cfg->profile) {
		/* Profiles only explain (docs/profile.md): without the baseline's, the
		 * comparison goes on unexplained. */
		if (base && pmc_session_profiles_load(&base_profiles, cfg->baseline, base, pr) < 0)
			pmc_session_say(pr, PMC_SESSION_WARN,
					"--profile: out of memory reading the baseline's profiles");
		cmp.old_profiles = base || !commands ? &base_profiles : &profiles;
		cmp.new_profiles = &profiles;
		cmp.profile_ref = base || !commands ? NULL : cfg->cmds[cfg->reference].name;
	}

	/* The result is complete: analysed once, for the headline, the reports, the saved
	 * file and the exports (docs/architecture.md, "Data flow"). Should that fail, each
	 * of them analyses it and says why, as alone. */
	if (pmc_analysis_new(result, 0.95, &an) < 0)
		an = NULL;
	/* The answer first, then the detail; after --runs auto the sequential rule judges,
	 * after the table. */
	if (commands && n >= 2 && !base && !cfg->runs_auto && strcmp(format, "table") == 0 &&
	    cfg->out)
		pre = headline(cfg, &cmp, result, an);
	/* Markdown for a pull request: the verdict and the headline first, the runs' tables
	 * after the comparison (docs/ci.md). */
	md_first = commands && n > 1 && !base && !cfg->runs_auto && cfg->out &&
		   compare_out == cfg->out && strcmp(format, "markdown") == 0;
	if (cfg->out && !md_first && (r = report_result(cfg, &cmp, result, an, format)) < 0)
		goto out;
	if (cfg->runs_auto && (r = pmc_session_seq_settle(&seq, result, pr)) < 0)
		goto out;
	if (cfg->output &&
	    (r = pmc_result_save_analyzed(result, an, cfg->output, err, sizeof(err))) < 0) {
		pmc_session_say(pr, PMC_SESSION_ERROR, "%s", err);
		goto out;
	}
	if (cfg->exports && cfg->exports->n) {
		PMC_OPTS(pmc_report_opts, xo, .median = cfg->median, .confidence = 0.95);

		if ((r = pmc_session_exports_result(cfg->exports, result, an, &xo, pr)) < 0)
			goto out;
	}

	if (interrupted) {
		char what[PATH_MAX + 96];

		snprintf(what, sizeof(what), "the runs that finished were %s%s%s",
			 cfg->output ? "written to " : "reported", cfg->output ? cfg->output : "",
			 cfg->output && result->incomplete ? ", marked incomplete" : "");
		r = stopped(pr, ro.stop, what);
		goto out;
	}

	cmp.out = compare_out;
	/* The comparison follows the run's own format for table and Markdown (README). */
	if (strcmp(format, "markdown") == 0)
		cmp.format = "markdown";
	if (base) {
		d = pmc_session_compare_results(base, cfg->baseline, result, "this run", &cmp, true,
						pr);
	} else if (commands && n > 1) {
		if (compare_out && !md_first) {
			fputs("\nComparison against the reference '", compare_out);
			pmc_escape_text(compare_out, result->benchmarks[cfg->reference].name);
			fputs("':\n", compare_out);
			fflush(compare_out);
		}
		/* After --runs auto the sequential rule judges: the table's fixed-sample tests
		 * lose their error rates when the data chose the number of rounds. */
		d = pmc_session_compare_reference(result, cfg->reference, &cmp,
						  cfg->gate && !cfg->runs_auto, pre, pr);
		pre = NULL;
		if (md_first) {
			fputc('\n', cfg->out);
			if ((r = report_result(cfg, &cmp, result, an, format)) < 0)
				goto out;
		}
	} else if (cfg->reference_name) {
		d = pmc_session_compare_named(result, cfg->reference_name, &cmp, cfg->gate,
					      compare_out, pr);
	} else if (cfg->labels) {
		/* Two builds: the second against the first, benchmark by benchmark
		 * (docs/microbench.md, "Comparing two builds"). */
		if (compare_out) {
			fputs("\nComparison of build '", compare_out);
			pmc_escape_text(compare_out, cfg->labels[1]);
			fputs("' against build '", compare_out);
			pmc_escape_text(compare_out, cfg->labels[0]);
			fputs("':\n", compare_out);
			fflush(compare_out);
		}
		d = pmc_session_compare_builds(result, cfg->labels[0], cfg->labels[1], &cmp,
					       cfg->gate, pr);
	}
	if (cfg->runs_auto && d != PMC_DECISION_ERROR)
		d = pmc_session_seq_report(&seq, result, compare_out, cfg->gate, pr);
	if (d != PMC_DECISION_ERROR && cfg->out && (r = pmc_session_stream_flush(cfg->out)) < 0) {
		pmc_session_say(pr, PMC_SESSION_ERROR, "cannot write to %s: %s",
				pmc_session_stream_name(cfg->out), strerror(-r));
		d = PMC_DECISION_ERROR;
	}
	if (failed) {
		pmc_session_say(pr, PMC_SESSION_ERROR,
				"%zu of %zu benchmarks failed; the others' results were written",
				failed, n);
		d = PMC_DECISION_ERROR;
	}
	if (mb.fit_failed)
		d = PMC_DECISION_ERROR;
	/* A bad registration was said where the definitions were expanded; the others ran
	 * (docs/microbench.md, "Exit codes"). */
	if (!commands && cfg->benchmarks->nbad) {
		pmc_session_say(pr, PMC_SESSION_ERROR,
				"%zu benchmark definition%s skipped (above); the others' results "
				"were written",
				cfg->benchmarks->nbad,
				cfg->benchmarks->nbad == 1 ? " was" : "s were");
		d = PMC_DECISION_ERROR;
	}
	r = 0;
out:
	pmc_analysis_free(an);
	pmc_comparison_free(pre);
	pmc_session_profiles_clear(&profiles);
	pmc_session_profiles_clear(&base_profiles);
	pmc_session_benchmarks_clear(&mb);
	pmc_session_seq_clear(&seq);
	pmc_events_release(held);
	pmc_uprobe_set_free(probes); /* every counter on them closed */
	pmc_event_list_free(events);
	pmc_result_free(base);
	free(program);
	if (r == 0) {
		*ret_decision = d;
		if (ret_result) {
			*ret_result = result;
			result = NULL;
		}
	}
	pmc_result_free(result);
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
	    .mo = {.samples = opts->runs ? opts->runs : 8, .warmup = opts->warmup},
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

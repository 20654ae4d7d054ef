/* `pmcbench run`: check the commands and events (its options are read by cli_run_opts.c),
 * probe the counters once, hand the work to the runner, then report, save and compare. */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "counters/perf/counters.h"
#include "counters/perf/doctor.h"
#include "counters/perf/events.h"
#include "counters/valgrind/valgrind.h"
#include "cli/cli.h"
#include "cli/cli_profile.h"
#include "cli/cli_run_priv.h"
#include "core/metrics.h"
#include "core/result.h"
#include "formats/result_json.h"
#include "run/env.h"
#include "run/runner.h"
#include "pmcbench/compare.h"
#include "pmcbench/report.h"
#include "reporters/compare_cells.h"
#include "reporters/escape.h"
#include "reporters/format.h"

int pmc_cli_check_path(const char *opt, const char *path)
{
	char *copy;
	const char *dir;
	struct stat st;
	int r = 0;

	if (path[0] == '\0') {
		pmc_cli_error("%s: empty file name; give the path of the file to write", opt);
		return -EINVAL;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		pmc_cli_error("%s: '%s' is a directory; give the path of a file in it", opt, path);
		return -EINVAL;
	}
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	dir = dirname(copy);
	if (access(dir, W_OK) < 0) {
		pmc_cli_error("%s: cannot write into '%s': %s", opt, dir, strerror(errno));
		r = -EINVAL;
	}
	free(copy);
	return r;
}

int pmc_cli_check_output(const char *path)
{
	return pmc_cli_check_path("--output", path);
}

/* Probes the events once on this process to learn what this machine can count (the
 * library renames user-only events with ":u", as perf does) and says in one line which
 * events are missing and why. */
int pmc_cli_probe_events(struct pmc_event_list *ev, bool require, bool quiet,
			 const struct pmc_sys *sys, const char *without, bool *ret_user_only)
{
	struct pmc_probe_report *rep = NULL;
	char missing[1024] = "", reason[512] = "", fell_back[1024] = "", err[256] = "";
	char nofit[1024] = "";
	size_t nmissing, ndenied = 0, len = 0, flen = 0, nlen = 0, n = pmc_event_list_count(ev);
	int first_err, level, r;

	*ret_user_only = false;
	r = pmc_event_list_probe(ev, NULL, &rep, err, sizeof(err));
	if (r < 0) {
		pmc_cli_error("%s", err);
		return r;
	}
	for (size_t i = 0; i < n; i++) {
		struct pmc_event_desc d = { .sz = sizeof(d) };
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
		if ((st == PMC_STATUS_UNSUPPORTED || st == PMC_STATUS_DENIED) &&
		    len < sizeof(missing) - 64)
			len += (size_t)snprintf(missing + len, sizeof(missing) - len, "%s%s",
						len ? ", " : "", d.name);
	}
	if (flen && !quiet) {
		char lv[16] = "?";

		if (pmc_probe_report_paranoid(rep, &level) == 0)
			snprintf(lv, sizeof(lv), "%d", level);
		fprintf(stderr, "pmcbench: note: counting user space only for %s: the kernel "
				"denies kernel-space counting (perf_event_paranoid=%s); see "
				"'pmcbench doctor'\n",
			fell_back, lv);
	}
	if (nlen && require) {
		pmc_cli_error("%s cannot be counted: it does not fit the PMU together with the "
			      "rest of its group; put ':W' after the group to open its events one "
			      "by one, or drop --require-counters",
			      nofit);
		pmc_probe_report_free(rep);
		return -EINVAL;
	}
	if (nlen && !quiet)
		fprintf(stderr, "pmcbench: note: %s not counted: it does not fit the PMU together "
				"with the rest of its group; put ':W' after the group to open its "
				"events one by one\n",
			nofit);
	nmissing = pmc_probe_report_missing(rep);
	first_err = pmc_probe_report_first_error(rep);
	pmc_probe_report_free(rep);
	if (nmissing == 0)
		return 0;
	{
		struct pmc_doctor_opts dopts = { .sz = sizeof(dopts), .sys = sys };
		struct pmc_doctor d;

		if (pmc_doctor_collect(&dopts, &d) == 0)
			pmc_doctor_hw_reason(&d, first_err, reason, sizeof(reason));
		else
			snprintf(reason, sizeof(reason), "%s", strerror(first_err));
	}
	if (require) {
		pmc_cli_error("%zu event%s cannot be counted (%s): %s; drop --require-counters "
			      "to go on without them (see 'pmcbench doctor')",
			      nmissing, nmissing == 1 ? "" : "s", missing, reason);
		return -EINVAL;
	}
	/* Every event denied (perf_event_paranoid=4 on GitHub's runners) leaves no counter
	 * at all: that changes what the whole run means, so it is said even under -q, once. */
	if (ndenied == n)
		fprintf(stderr,
			"pmcbench: note: every event is denied (%s): %s; going on without "
			"counters, with %s; see 'pmcbench doctor'\n",
			missing, reason, without);
	else if (!quiet)
		fprintf(stderr,
			"pmcbench: note: %zu event%s not counted (%s): %s; see 'pmcbench doctor'\n",
			nmissing, nmissing == 1 ? "" : "s", missing, reason);
	return 0;
}

/* Two events with one metric id (after aliases: "cs" is "context-switches") would
 * record two samples per run under one name. */
int pmc_cli_check_duplicate_events(const struct pmc_event_list *ev, const char *spec)
{
	for (size_t i = 0; i < ev->n; i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(ev->events[i].name, ev->events[j].name) == 0) {
				pmc_cli_error("--events '%s': '%s' is given twice (aliases count as "
					      "the same event); give each event once",
					      spec, ev->events[i].name);
				return -EINVAL;
			}
	return 0;
}

/* The progress line: on a terminal, rewritten before every run; in a log (stderr not a
 * terminal), one line every PROGRESS_LOG_S seconds, none for a shorter run. */
#define PROGRESS_LOG_S 10.0

struct progress {
	const struct pmc_runner_cmd *cmds;
	const struct pmc_result *result;
	bool tty;
	size_t started, total; /* runs begun, runs in all (an upper bound with -r auto) */
	double t0, last;       /* CLOCK_MONOTONIC seconds: the start, the last log line */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The running median of the command's main time metric (task-clock when counted, else
 * wall-time) into buf; "" before its first measured run. */
static void running_median(const struct progress *p, size_t cmd, char *buf, size_t len)
{
	static const char *const ids[] = { "task-clock", "wall-time" };
	struct pmc_benchmark *b = pmc_result_find_benchmark(p->result, p->cmds[cmd].name);

	buf[0] = '\0';
	for (size_t i = 0; b && i < sizeof(ids) / sizeof(ids[0]); i++) {
		struct pmc_metric *m = pmc_benchmark_find_metric(b, ids[i]);
		double *v;
		size_t n = 0;

		if (!m || !m->n)
			continue;
		v = malloc(m->n * sizeof(*v));
		if (!v)
			return;
		for (size_t k = 0; k < m->n; k++)
			if (!isnan(m->values[k]))
				v[n++] = m->values[k];
		if (n) {
			char val[64];

			qsort(v, n, sizeof(*v), cmp_double);
			pmc_fmt_short(n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, m->unit, val,
				      sizeof(val));
			snprintf(buf, len, ", median %s %s", val, ids[i]);
		}
		free(v);
		if (n)
			return;
	}
}

static void progress(void *ud, size_t cmd, size_t run, size_t runs, bool warmup)
{
	struct progress *p = ud;
	double t = now_s(), left = -1;
	char med[96], eta[48] = "";

	/* Runs take about the same time: what is left at the pace so far. */
	if (p->started > 0 && p->total > p->started)
		left = (t - p->t0) / (double)p->started * (double)(p->total - p->started);
	p->started++;
	if (!p->tty && t - p->last < PROGRESS_LOG_S)
		return;
	p->last = t;
	running_median(p, cmd, med, sizeof(med));
	if (left >= 0)
		snprintf(eta, sizeof(eta), ", %.0fs left", ceil(left));
	/* The command's name is the user's text: escaped, as every message (cli_msg.c). */
	if (p->tty) {
		char name[41];

		snprintf(name, sizeof(name), "%s", p->cmds[cmd].name);
		fprintf(stderr, "\r\033[K%s %zu/%zu: ", warmup ? "warm-up" : "run", run, runs);
		pmc_escape_text(stderr, name);
		fprintf(stderr, "%s%s", med, eta);
		fflush(stderr);
	} else {
		fprintf(stderr, "pmcbench: %s %zu/%zu of '", warmup ? "warm-up" : "run", run, runs);
		pmc_escape_text(stderr, p->cmds[cmd].name);
		fprintf(stderr, "'%s%s\n", med, eta);
	}
}

/* After a failed run's error: the end of what it wrote to stderr, which was not shown. */
static void show_tail(const struct pmc_runner_tail *t)
{
	if (!t->text[0])
		return;
	if (!t->cut)
		fprintf(stderr, "pmcbench: its standard error said:\n");
	else if (t->partial)
		fprintf(stderr,
			"pmcbench: the end of its standard error (%llu bytes in all; "
			"--show-output shows them):\n",
			(unsigned long long)t->bytes);
	else
		fprintf(stderr,
			"pmcbench: the last %zu line%s of its standard error (%llu bytes in all; "
			"--show-output shows them):\n",
			t->lines, t->lines == 1 ? "" : "s", (unsigned long long)t->bytes);
	pmc_cli_quote_lines(t->text, t->partial ? "..." : NULL);
}

/* `run -c A -c B`: every command against the reference, as one comparison. */
static int compare_commands(const struct pmc_result *r, const struct run_cli *c,
			    struct pmc_comparison *pre)
{
	size_t ref = c->reference ? c->reference - 1 : 0;
	/* Beside a document on stdout (JSON, CSV, Go's format), on stderr with the rest. */
	FILE *to = pmc_cli_format_is_document(c->format) ? stderr : stdout;

	/* The comparison follows run's own format for table and markdown. */
	if (strcmp(c->format, "markdown") == 0 && pmc_cli_compare_opts_set_format(c->copts, "markdown") < 0)
		return PMC_EXIT_ERROR;
	fprintf(to, "\nComparison against the reference '%s':\n", r->benchmarks[ref].name);
	fflush(to);
	/* After --runs auto the sequential rule judges: the table's fixed-sample tests lose
	 * their error rates when the data chose the number of rounds. */
	return pmc_cli_compare_reference(r, ref, c->copts, c->gate && !c->runs_auto, pre);
}

int pmc_cli_run(int argc, char **argv)
{
	struct run_cli c = { .ro = { .sz = sizeof(c.ro), .runs = 10, .warmup = 1 }, .format = "table" };
	struct pmc_event_list *events = NULL;
	struct pmc_runner_cmd *cmds = NULL;
	struct pmc_result *result = NULL, *base = NULL;
	struct pmc_comparison *pre = NULL; /* computed for the headline, reported after */
	struct progress prog = {0};
	struct pmc_cli_profiles profiles = {0}, base_profiles = {0};
	struct pmc_runner_tail tail = {0};
	char ***owned = NULL, err[1024] = "", *vg = NULL;
	size_t ncmds = 0;
	int code = PMC_EXIT_ERROR, first = 0, r;
	bool user_only = false;

	/* A shared object's benchmarks take the options of a benchmark program. */
	if (pmc_cli_wants_library(argc, argv))
		return pmc_cli_run_library(argc, argv);
	if (pmc_cli_compare_opts_new(&c.copts) < 0) {
		pmc_cli_error("out of memory");
		return PMC_EXIT_ERROR;
	}
	r = pmc_cli_run_parse_args(&c, argc, argv, &first);
	if (r == -ENOMEM)
		pmc_cli_error("out of memory");
	if (r == 1) {
		code = PMC_EXIT_OK;
		goto out;
	}
	if (r < 0)
		goto out;
	/* Text for a reader in ASCII when the locale asks; documents byte for byte. */
	if (!pmc_cli_format_is_document(c.format) && pmc_cli_ascii_wrap(&stdout) < 0) {
		pmc_cli_error("out of memory");
		goto out;
	}
	if (c.ro.env_inherit && c.nenv_keep) {
		pmc_cli_error("--env-keep has no effect with --env-inherit, which passes every "
			      "variable; give one or the other");
		goto out;
	}
	/* Two commands started together leave no moment between their runs for one. */
	if (c.ro.duet && (c.ro.prepare || c.ro.setup || c.ro.cleanup)) {
		pmc_cli_error("--%s does not go with --duet, which starts both commands at once; "
			      "drop one of them",
			      c.ro.prepare ? "prepare" : c.ro.setup ? "setup" : "cleanup");
		goto out;
	}
	/* Before anything is looked up or probed: the runner checks the same again. */
	if (c.ro.duet && pmc_runner_check_duet((c.ncmd_strings ? c.ncmd_strings : 1) * c.ncombos,
					       c.ro.backend,
					       NULL, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		goto out;
	}
	if (c.vg_tool_given && c.ro.backend != PMC_BACKEND_VALGRIND) {
		pmc_cli_error("--valgrind-tool chooses valgrind's tool and does nothing without "
			      "--backend valgrind; give both, or neither");
		goto out;
	}
	if (c.ro.backend == PMC_BACKEND_VALGRIND) {
		if (!c.runs_given)
			c.ro.runs = 1;
		if (!c.warmup_given)
			c.ro.warmup = 0;
		if (c.events_spec || c.require_counters) {
			pmc_cli_error("%s does not apply to --backend valgrind, which always "
				      "reports its simulated counts", c.events_spec ? "--events" :
				      "--require-counters");
			goto out;
		}
		if (pmc_valgrind_find(&vg) < 0) {
			pmc_cli_error("valgrind is not installed; install it with: "
				      "apt-get install valgrind");
			goto out;
		}
		c.ro.valgrind_path = vg;
	}
	if (pmc_cli_run_build_commands(&c, argc, argv, first, &cmds, &owned, &ncmds) < 0)
		goto out;
	if ((c.gate || c.runs_auto) && ncmds < 2) {
		pmc_cli_error("%s compares several commands (-c A -c B); to gate one command, "
			      "give --baseline FILE",
			      c.runs_auto ? "--runs auto" : "--gate");
		goto out;
	}
	if (pmc_cli_compare_opts_check_used(c.copts, ncmds >= 2 || c.baseline,
					    "give two commands (-c A -c B) or --baseline FILE") < 0)
		goto out;
	if (c.gate && c.baseline) {
		pmc_cli_error("--gate judges the commands against the reference; --baseline "
			      "gates against a file: give one of them");
		goto out;
	}
	if (c.max_given && !c.runs_auto) {
		pmc_cli_error("--max-runs and --max-time bound --runs auto; give -r auto too");
		goto out;
	}
	if (c.runs_auto && c.ro.backend == PMC_BACKEND_VALGRIND) {
		pmc_cli_error("--runs auto: valgrind's counts are exact, one run decides; drop "
			      "--runs auto");
		goto out;
	}
	if (c.runs_auto) {
		c.seq.ref = c.reference ? c.reference - 1 : 0;
		c.seq.copts = c.copts;
		if (!c.seq.max_runs)
			c.seq.max_runs = 100;
		if (c.reference <= ncmds && pmc_cli_seq_check_opts(&c.seq, ncmds) < 0)
			goto out;
		c.ro.runs = c.seq.max_runs;
		c.ro.round_done = pmc_cli_seq_round_done;
		c.ro.round_ud = &c.seq;
	}
	if (c.unpaired && ncmds < 2) {
		pmc_cli_error("--unpaired compares several commands' runs; give two or more "
			      "(-c A -c B)");
		goto out;
	}
	if (c.reference > ncmds) {
		pmc_cli_error("--reference %zu: there %s only %zu command%s", c.reference,
			      ncmds == 1 ? "is" : "are", ncmds, ncmds == 1 ? "" : "s");
		goto out;
	}
	pmc_cli_run_warn_shell_syntax(&c);
	if (pmc_cli_run_check_commands(cmds, ncmds) < 0)
		goto out;
	if (c.output && pmc_cli_check_output(c.output) < 0)
		goto out;
	if (pmc_cli_exports_check(&c.exports) < 0)
		goto out;
	if (c.baseline) {
		r = pmc_result_load(c.baseline, &base, err, sizeof(err));
		if (r < 0) {
			pmc_cli_error("%s", err);
			goto out;
		}
	}
	if (c.ro.backend == PMC_BACKEND_PERF) {
		const char *spec = c.events_spec ? c.events_spec : PMC_DEFAULT_EVENTS;

		r = pmc_event_list_parse(spec, NULL, &events, err, sizeof(err));
		if (r < 0) {
			pmc_cli_error("--events '%s': %s", spec, err);
			goto out;
		}
		if (pmc_cli_check_duplicate_events(events, spec) < 0)
			goto out;
		c.ro.events = events;
		c.ro.user_only_fallback = true;
		if (pmc_cli_probe_events(events, c.require_counters, c.quiet, c.ro.sys,
					 "what wait4 measures (wall-time, user-time, system-time, "
					 "max-rss)",
					 &user_only) < 0)
			goto out;
	}

	if (pmc_result_new(c.ro.backend == PMC_BACKEND_VALGRIND ? "valgrind" : "perf", &result) < 0 ||
	    pmc_env_collect(result) < 0) {
		pmc_cli_error("out of memory");
		goto out;
	}
	if (c.ro.backend == PMC_BACKEND_VALGRIND && pmc_env_valgrind(result, vg, c.ro.valgrind_tool) < 0) {
		pmc_cli_error("out of memory");
		goto out;
	}
	if (c.ro.backend == PMC_BACKEND_PERF) {
		pmc_result_set_env(result, "events",
				   c.events_spec ? c.events_spec : PMC_DEFAULT_EVENTS);
		pmc_result_set_env(result, "counting", user_only ? "user-only" : "user+kernel");
	}
	if (!c.quiet) {
		prog.cmds = cmds;
		prog.result = result;
		prog.tty = isatty(STDERR_FILENO);
		prog.total = ncmds * (c.ro.runs + c.ro.warmup);
		prog.t0 = prog.last = now_s();
		c.ro.progress = progress;
		c.ro.ud = &prog;
	}
	c.ro.stop = &pmc_cli_interrupted;
	c.ro.running = pmc_cli_running;
	c.ro.tail = &tail;
	pmc_cli_catch_signals(true);
	r = pmc_runner_run(cmds, ncmds, &c.ro, result, err, sizeof(err));
	pmc_cli_catch_signals(false);
	if (c.ro.progress && prog.tty)
		fprintf(stderr, "\r\033[K");
	if (pmc_cli_interrupted) {
		pmc_result_free(result);
		result = NULL;
		pmc_cli_die_interrupted("nothing was written");
		goto out;
	}
	if (r < 0) {
		pmc_cli_error("%s", err);
		show_tail(&tail);
		goto out;
	}
	/* One more run of each command, profiled, never one of the measured ones. */
	if (c.profile) {
		pmc_cli_catch_signals(true);
		pmc_cli_profiles_record(&profiles, cmds, ncmds, &c.ro, c.output);
		pmc_cli_catch_signals(false);
		if (pmc_cli_interrupted) {
			pmc_cli_die_interrupted("no result was written (the profiles so far were)");
			goto out;
		}
		/* Profiles only explain (docs/profile.md): without the baseline's, the
		 * comparison goes on unexplained. */
		if (base && pmc_cli_profiles_load(&base_profiles, c.baseline, base) < 0)
			pmc_cli_warn("--profile: out of memory reading the baseline's profiles");
		if (base)
			pmc_cli_compare_opts_set_profiles(c.copts, &base_profiles, &profiles, NULL);
		else
			pmc_cli_compare_opts_set_profiles(
			    c.copts, &profiles, &profiles,
			    cmds[c.reference ? c.reference - 1 : 0].name);
	}

	/* The answer first (docs/compare.md, "The headline"), then the detail. After
	 * --runs auto the sequential rule judges, after the table. */
	if (ncmds == 2 && !base && !c.runs_auto && strcmp(c.format, "table") == 0)
		pre = pmc_cli_compare_headline(result, c.reference ? c.reference - 1 : 0, c.copts,
					       stdout);
	/* Three or more: hyperfine's summary from the fastest; the comparison against the
	 * reference follows the table as usual. */
	if (ncmds > 2 && !base && !c.runs_auto && strcmp(c.format, "table") == 0) {
		size_t ref = c.reference ? c.reference - 1 : 0;
		size_t fastest = pmc_cmp_headline_fastest(result, ref);

		pre = pmc_cli_compare_headline(result, fastest, c.copts, stdout);
		/* The report after the table is against the reference, computed here without
		 * a summary of its own, so that it does not repeat one. */
		if (fastest != ref) {
			pmc_comparison_free(pre);
			pre = pmc_cli_compare_headline(result, ref, c.copts, NULL);
		}
	}
	{
		PMC_OPTS(pmc_report_opts, ro, .median = c.median, .confidence = 0.95,
			 .color = pmc_cli_compare_opts_color(c.copts, stdout));

		r = pmc_report_result(stdout, c.format, result, &ro, NULL, 0);
		if (r == 0 && c.stats && strcmp(c.format, "table") == 0)
			r = pmc_report_result(stdout, "stats", result, &ro, NULL, 0);
	}
	if (r == 0 && (fflush(stdout) != 0 || ferror(stdout)))
		r = -errno ? -errno : -EIO;
	if (r < 0) {
		pmc_cli_error("cannot write the report to standard output: %s", strerror(-r));
		goto out;
	}
	if (c.runs_auto && pmc_cli_seq_settle(&c.seq, result) < 0)
		goto out;
	if (c.output) {
		r = pmc_result_save(result, c.output, err, sizeof(err));
		if (r < 0) {
			pmc_cli_error("%s", err);
			goto out;
		}
	}
	if (c.exports.n) {
		PMC_OPTS(pmc_report_opts, ro, .median = c.median, .confidence = 0.95);

		if (pmc_cli_exports_result(&c.exports, result, &ro) < 0)
			goto out;
	}
	code = PMC_EXIT_OK;
	/* Standard output holds one document (JSON, CSV, Go's format); the verdict goes to
	 * stderr. */
	if (pmc_cli_format_is_document(c.format))
		pmc_cli_compare_opts_set_stream(c.copts, stderr);
	/* The comparison follows run's own format for table and Markdown (README). */
	if (base && strcmp(c.format, "markdown") == 0 &&
	    pmc_cli_compare_opts_set_format(c.copts, "markdown") < 0)
		goto out;
	if (base)
		code = pmc_cli_compare_results(base, c.baseline, result, "this run", c.copts, true);
	else if (ncmds > 1)
		code = compare_commands(result, &c, pre), pre = NULL;
	if (c.runs_auto && code != PMC_EXIT_ERROR) {
		bool to_stderr = pmc_cli_format_is_document(c.format);

		code = pmc_cli_seq_report(&c.seq, result, to_stderr ? stderr : stdout, c.gate);
	}
	if (code != PMC_EXIT_ERROR && (fflush(stdout) != 0 || ferror(stdout))) {
		pmc_cli_error("cannot write to standard output: %s", strerror(errno ? errno : EIO));
		code = PMC_EXIT_ERROR;
	}
out:
	pmc_comparison_free(pre);
	pmc_cli_profiles_clear(&profiles);
	pmc_cli_profiles_clear(&base_profiles);
	pmc_cli_run_free_commands(cmds, owned, ncmds);
	pmc_event_list_free(events);
	pmc_result_free(result);
	pmc_result_free(base);
	pmc_seq_check_clear(&c.seq.chk);
	pmc_cli_compare_opts_free(c.copts);
	free(c.cmd_strings);
	free(c.names);
	pmc_cli_run_params_clear(&c);
	free(c.env_keep);
	free(c.events_spec);
	pmc_cli_exports_clear(&c.exports);
	free(vg);
	return code;
}

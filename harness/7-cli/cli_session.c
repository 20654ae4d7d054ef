/* What `pmcbench run` (cli_run.c) and benchmark programs (cli_microbench.c) share (cli.h):
 * one table of the options that mean the same in both, the session's messages and
 * progress on stderr, the signal handlers around its commands, and its decision as the
 * exit status. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "base/suggest.h"
#include "cli/cli.h"
#include "counters/perf/events.h"
#include "pmcbench/metrics.h"
#include "pmcbench/report.h"
#include "reporters/escape.h"
#include "reporters/format.h"
#include "reporters/reporter.h"

enum {
	OPT_REQUIRE = PMC_CLI_SESSION_OPT_FIRST,
	OPT_BACKEND,
	OPT_FORMAT,
	OPT_EXPORT,
	OPT_BASELINE,
	OPT_PROFILE,
	OPT_TIMEOUT,
	OPT_SYSCALLS,
	OPT_ALLOCS,
};

/* The presets (docs/events.md, "Presets"): every system call by name (perf trace -s,
 * strace -c), and the calls of the C library's allocator. */
#define PRESET_SYSCALLS "syscalls:sys_enter_*"
#define PRESET_ALLOCS "uprobe:libc:malloc,uprobe:libc:calloc,uprobe:libc:realloc,uprobe:libc:free"

const struct option pmc_cli_session_long_opts[] = {
    {"events", required_argument, NULL, 'e'},
    {"require-counters", no_argument, NULL, OPT_REQUIRE},
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"output", required_argument, NULL, 'o'},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"export", required_argument, NULL, OPT_EXPORT},
    {"profile", optional_argument, NULL, OPT_PROFILE},
    {"quiet", no_argument, NULL, 'q'},
    {"baseline", required_argument, NULL, OPT_BASELINE},
    {"syscalls", no_argument, NULL, OPT_SYSCALLS},
    {"allocs", no_argument, NULL, OPT_ALLOCS},
    {"detailed", no_argument, NULL, 'd'},
    {NULL, 0, NULL, 0},
};

/* Appends list to *to with a comma. */
static int append_list(char **to, const char *list)
{
	size_t len = *to ? strlen(*to) : 0;
	char *s = realloc(*to, len + strlen(list) + 2);

	if (!s) {
		pmc_cli_error("out of memory");
		return -ENOMEM;
	}
	if (len)
		s[len++] = ',';
	strcpy(s + len, list);
	*to = s;
	return 0;
}

/* A preset, once however often it is given. */
static int add_preset(struct pmc_cli_session_opts *o, const char *list)
{
	if (o->presets && strstr(o->presets, list))
		return 0;
	return append_list(&o->presets, list);
}

const char *pmc_cli_session_spec(struct pmc_cli_session_opts *o)
{
	const char *detailed = pmc_event_detailed_list(o->detailed > 3 ? 3 : o->detailed);

	if (!o->presets && !detailed)
		return o->events;
	if (o->spec)
		return o->spec;
	if (append_list(&o->spec, o->events ? o->events : PMC_DEFAULT_EVENTS) < 0 ||
	    (detailed && append_list(&o->spec, detailed) < 0) ||
	    (o->presets && append_list(&o->spec, o->presets) < 0)) {
		free(o->spec);
		o->spec = NULL;
		return o->events;
	}
	return o->spec;
}

/* Appends an -e list: every -e counts, as perf stat's do. */
static int add_events(struct pmc_cli_session_opts *o, const char *list)
{
	return append_list(&o->events, list);
}

int pmc_cli_parse_backend(const char *v, enum pmc_backend *ret)
{
	char msg[512], names[256] = "use ";
	size_t len = strlen(names);
	struct pmc_suggest s;

	if (pmc_backend_find(v, ret) == 0)
		return 0;
	pmc_suggest_init(&s, v, strlen(v));
	for (int i = 0; i < PMC_BACKEND_COUNT; i++) {
		const char *name = pmc_backend_get((enum pmc_backend)i)->name;
		const char *sep = i == 0 ? "" : i + 1 == PMC_BACKEND_COUNT ? " or " : ", ";

		pmc_suggest_offer(&s, name, name);
		if (len < sizeof(names))
			len +=
			    (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", sep, name);
	}
	snprintf(msg, sizeof(msg), "--backend: unknown backend '%s'", v);
	pmc_suggest_append(&s, msg, sizeof(msg), names);
	pmc_cli_error("%s", msg);
	return -EINVAL;
}

int pmc_cli_session_opts_handle(struct pmc_cli_session_opts *o, int opt, const char *v)
{
	switch (opt) {
	case 'e':
		o->perf_only = "-e/--events";
		return add_events(o, v) < 0 ? -ENOMEM : 1;
	case OPT_SYSCALLS:
		o->perf_only = "--syscalls";
		return add_preset(o, PRESET_SYSCALLS) < 0 ? -ENOMEM : 1;
	case OPT_ALLOCS:
		o->perf_only = "--allocs";
		return add_preset(o, PRESET_ALLOCS) < 0 ? -ENOMEM : 1;
	case 'd':
		/* -d, -dd, -ddd as perf stat's; more d's are -ddd, as there. */
		o->perf_only = "-d/--detailed";
		o->detailed++;
		return 1;
	case OPT_REQUIRE:
		o->perf_only = "--require-counters";
		o->require_counters = true;
		return 1;
	case OPT_BACKEND:
		return pmc_cli_parse_backend(v, &o->backend) < 0 ? -EINVAL : 1;
	case OPT_TIMEOUT:
		/* "none" switches a benchmark program's default limit off (docs/microbench.md,
		 * "Isolation"); a command has none by default. 0 stays an error: it could as
		 * well mean "at once". */
		if (strcmp(v, "none") == 0) {
			o->timeout_s = -1;
			return 1;
		}
		return pmc_cli_parse_seconds("--timeout", v, 0, &o->timeout_s) < 0 ? -EINVAL : 1;
	case 'o':
		o->output = v;
		return 1;
	case OPT_FORMAT:
		if (pmc_report_format(v, PMC_REPORT_RESULT, &o->format, NULL) < 0) {
			char names[128];

			pmc_reporter_names(PMC_REPORTERS_RESULT, names, sizeof(names));
			pmc_cli_error("--format: unknown format '%s'; use %s", v, names);
			return -EINVAL;
		}
		return 1;
	case OPT_EXPORT:
		return pmc_session_exports_add(&o->exports, v, &pmc_cli_printer) < 0 ? -EINVAL : 1;
	case OPT_PROFILE:
		/* --profile=off-cpu: where the commands wait (record --off-cpu). */
		if (v && strcmp(v, "off-cpu") != 0) {
			pmc_cli_error("--profile=%s: not a kind of profile; give --profile (where "
				      "the time goes) or --profile=off-cpu (where the commands "
				      "wait)",
				      v);
			return -EINVAL;
		}
		o->profile = true;
		o->profile_off_cpu = v != NULL;
		return 1;
	case 'q':
		o->quiet = true;
		return 1;
	case OPT_BASELINE:
		o->baseline = v;
		return 1;
	default:
		return 0;
	}
}

int pmc_cli_shared_opts_handle(struct pmc_cli_session_opts *o, struct pmc_cli_compare_opts *c,
			       int opt, const char *v)
{
	int r = pmc_cli_session_opts_handle(o, opt, v);

	if (r == 0)
		r = pmc_cli_compare_opts_handle(c, opt, v);
	return r < 0 ? r : r > 0 ? 0 : -EINVAL;
}

void pmc_cli_session_opts_clear(struct pmc_cli_session_opts *o)
{
	free(o->events);
	free(o->presets);
	free(o->spec);
	pmc_session_exports_clear(&o->exports);
	*o = (struct pmc_cli_session_opts){0};
}

struct option *pmc_cli_session_options(const struct option *own)
{
	struct option *mine = pmc_cli_options_merge(own, pmc_cli_session_long_opts);
	struct option *all = mine ? pmc_cli_options_merge(mine, pmc_cli_compare_long_opts) : NULL;

	free(mine);
	if (!all)
		pmc_cli_error("out of memory");
	return all;
}

/* pmc_cli_printer's print function (cli.h); ud unused. */
static void print_message(enum pmc_session_level level, const char *msg, void *ud)
{
	switch (level) {
	case PMC_SESSION_ERROR:
	case PMC_SESSION_INFO:
		pmc_cli_error("%s", msg);
		break;
	case PMC_SESSION_WARN:
		pmc_cli_warn("%s", msg);
		break;
	case PMC_SESSION_NOTE:
		pmc_cli_note("%s", msg);
		break;
	case PMC_SESSION_OUTPUT:
		pmc_cli_quote_lines(msg, NULL);
		break;
	case PMC_SESSION_ASIDE:
		fprintf(stderr, "%s\n", msg);
		break;
	}
}

const struct pmc_session_printer pmc_cli_printer = {.fn = print_message};

/* In a log (stderr not a terminal), one progress line every PROGRESS_LOG_S seconds,
 * none for a shorter run. */
#define PROGRESS_LOG_S 10.0

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The progress on stderr (the session's progress function; ud unused): on a terminal
 * one line rewritten before every run; in a log (commands only) one line every 10 s. */
static void progress(const struct pmc_session_progress *p, void *ud)
{
	/* Whether stderr is a terminal, and when the last line went to a log (0: the run
	 * has not begun). */
	static int tty = -1;
	static double last;
	double t = now_s();
	char med[96] = "", eta[48] = "";

	if (tty < 0)
		tty = isatty(STDERR_FILENO);
	if (p->done) {
		if (tty)
			fprintf(stderr, "\r\033[K");
		return;
	}
	/* A benchmark program's progress is for a terminal only. */
	if (p->processes) {
		if (!tty)
			return;
		if (p->processes > 1)
			fprintf(stderr, "\r\033[Kprocess %zu/%zu, %zu/%zu: %.60s", p->process,
				p->processes, p->run, p->runs, p->name);
		else
			fprintf(stderr, "\r\033[K%zu/%zu: %.60s", p->run, p->runs, p->name);
		fflush(stderr);
		return;
	}
	if (!tty) {
		/* The first run begins the first interval. */
		if (last == 0)
			last = t;
		if (t - last < PROGRESS_LOG_S)
			return;
		last = t;
	}
	if (p->median_metric) {
		char val[64];

		pmc_fmt_short(p->median, p->median_unit, val, sizeof(val));
		snprintf(med, sizeof(med), ", median %s %s", val, p->median_metric);
	}
	if (p->left_s >= 0)
		snprintf(eta, sizeof(eta), ", %.0fs left", ceil(p->left_s));
	/* The command's name is the user's text: escaped, as every message (cli_msg.c). */
	if (tty) {
		char name[41];

		snprintf(name, sizeof(name), "%s", p->name);
		fprintf(stderr, "\r\033[K%s %zu/%zu: ", p->warmup ? "warm-up" : "run", p->run,
			p->runs);
		pmc_escape_text(stderr, name);
		fprintf(stderr, "%s%s", med, eta);
		fflush(stderr);
	} else {
		fprintf(stderr, "pmcbench: %s %zu/%zu of '", p->warmup ? "warm-up" : "run", p->run,
			p->runs);
		pmc_escape_text(stderr, p->name);
		fprintf(stderr, "'%s%s\n", med, eta);
	}
}

void pmc_cli_guard(bool on, void *ud)
{
	pmc_cli_catch_signals(on);
	/* The orphans a run leaves (a daemonizing command) become this process's, so the
	 * runner can end them (harness/3-run/leftovers.h). */
	prctl(PR_SET_CHILD_SUBREAPER, on ? 1 : 0);
}

int pmc_cli_exit_status(int r, enum pmc_decision d)
{
	if (r == -EINTR)
		raise(pmc_cli_interrupted);
	if (r < 0)
		return PMC_EXIT_ERROR;
	switch (d) {
	case PMC_DECISION_PASS:
		return PMC_EXIT_OK;
	case PMC_DECISION_REGRESSION:
		return PMC_EXIT_REGRESSION;
	case PMC_DECISION_INCONCLUSIVE:
		return PMC_EXIT_INCONCLUSIVE;
	default:
		return PMC_EXIT_ERROR;
	}
}

void pmc_cli_session_cfg(struct pmc_cli_session_opts *o, struct pmc_cli_compare_opts *c,
			 struct pmc_session_cfg *cfg)
{
	cfg->pr = pmc_cli_printer;
	cfg->progress = progress;
	cfg->events = pmc_cli_session_spec(o);
	cfg->require_counters = o->require_counters;
	cfg->quiet = o->quiet;
	cfg->profile = o->profile;
	cfg->profile_off_cpu = o->profile_off_cpu;
	/* With -o -, standard output is the result file's: the report goes beside it. */
	cfg->out = o->output && strcmp(o->output, "-") == 0 ? stderr : stdout;
	cfg->format = o->format;
	cfg->aside = stderr;
	cfg->output = o->output;
	cfg->exports = &o->exports;
	cfg->baseline = o->baseline;
	cfg->cmp = &c->s;
}

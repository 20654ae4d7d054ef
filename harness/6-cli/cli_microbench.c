/* pmc_main_defs(): the command line of every benchmark program (docs/microbench.md,
 * "Options"): expand and filter the registered benchmarks, run each in its own child
 * (harness/3-microbench/), then report, save and gate as `pmcbench run` does. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters/perf/events.h"
#include "cli/cli.h"
#include "cli/cli_profile.h"
#include "core/result.h"
#include "formats/result_json.h"
#include "microbench/microbench.h"
#include "run/env.h"
#include "pmcbench/metrics.h"
#include "pmcbench/report.h"

struct mb_cli {
	struct pmc_mb_opts mo;
	const char *filter, *output, *baseline, *format, *events_spec;
	bool list, no_fork, quiet, require_counters, valgrind;
	/* The options that only the perf backend takes, as given (NULL: none). */
	const char *perf_only;
	/* Internal: this process is the child of the valgrind backend (valgrind.c). */
	const char *vg_child, *vg_report;
	size_t vg_iters;
	/* Processes per benchmark (--processes; 0: the default). Internal: this process is
	 * one of them, for the benchmark proc_child, writing its samples to proc_fd. */
	size_t processes;
	const char *proc_child;
	size_t proc_fd, proc_samples;
	uint64_t proc_iters;
	bool proc_overhead;
	/* --profile; internal: this process is the child that profiles one loop. */
	bool profile;
	const char *prof_child;
	double prof_time;
	struct pmc_cli_compare_opts *copts;
	struct pmc_cli_exports exports; /* --export */
};

static void help(FILE *out, const char *prog)
{
	fprintf(out,
		"Usage: %s [OPTIONS]\n"
		"Run the benchmarks registered with PMC_BENCHMARK in this program and report\n"
		"per-operation time and counters (docs/microbench.md).\n\n"
		"What to run:\n"
		"      --list             list the benchmarks (after --filter) and exit\n"
		"      --filter=REGEX     only the benchmarks whose name matches (POSIX ERE)\n"
		"  -r, --runs=N           samples per benchmark, over all its processes\n"
		"                         (default 8: one in each process)\n"
		"      --processes=N      processes per benchmark, each a new start of this\n"
		"                         program, interleaved across the benchmarks (default\n"
		"                         8): compare tests at the level of processes\n"
		"  -w, --warmup=N         unrecorded batches in each process (default 1)\n"
		"      --min-time=SECONDS target CPU time of one sample (default 0.01)\n"
		"      --no-fork          run every benchmark in this process (for debugging:\n"
		"                         a crash then ends the whole run; one process)\n"
		"      --timeout=SECONDS  kill a benchmark's child that has not finished after\n"
		"                         this long; the others still run (not with --no-fork)\n\n"
		"What to count:\n"
		"  -e, --events=LIST      perf-style event list (repeatable; default: pmcbench's)\n"
		"      --require-counters fail when a requested event cannot be counted\n"
		"      --no-rdpmc         read the counters with read() at every batch edge, never\n"
		"                         through their mmap pages with rdpmc\n"
		"      --backend=NAME     perf (default): time and hardware/software counters;\n"
		"                         valgrind: exact simulated counts per operation of\n"
		"                         the body alone, one run (docs/microbench.md)\n\n"
		"Output:\n"
		"  -o, --output=FILE      write the result JSON (atomically) to FILE\n"
		"      --export=FILE      also write the result to FILE (atomically; repeatable)\n"
		"                         in the format its extension names: .json (the result\n"
		"                         file), .csv, .md, or .txt (Go's benchmark format, for\n"
		"                         benchstat); docs/export.md\n"
		"      --format=FMT       report on stdout: table (default), json, csv, markdown,\n"
		"                         gobench (Go's benchmark format)\n"
		"  -q, --quiet            no progress line, and no note of counters that cannot\n"
		"                         be counted (the report still says; the note that every\n"
		"                         event is denied stays)\n"
		"      --profile          keep a profile of each benchmark's loop beside the\n"
		"                         result (FILE.profiles/NAME.json): sampled for a second\n"
		"                         in a child of its own, or with --backend valgrind exact,\n"
		"                         from the run that counts it; a regression against\n"
		"                         --baseline then names the functions behind it\n\n"
		"Comparison:\n"
		"      --baseline=FILE    gate this run against a baseline result file\n",
		prog);
	pmc_cli_compare_opts_help(out);
	fprintf(out, "\nExit status: 0 success, 1 regression (with --baseline), 2 error (a bad\n"
		     "option, a benchmark that crashed, failed or timed out: the others are still\n"
		     "written), 3 inconclusive (with --fail-on-inconclusive).\n");
}

enum {
	OPT_LIST = 256,
	OPT_FILTER,
	OPT_MIN_TIME,
	OPT_NO_FORK,
	OPT_TIMEOUT,
	OPT_REQUIRE,
	OPT_BACKEND,
	OPT_FORMAT,
	OPT_BASELINE,
	OPT_VG_CHILD,
	OPT_VG_REPORT,
	OPT_VG_ITERS,
	OPT_EXPORT,
	OPT_PROFILE,
	OPT_PROF_CHILD,
	OPT_PROF_TIME,
	OPT_PROCESSES,
	OPT_PROC_CHILD,
	OPT_PROC_FD,
	OPT_PROC_SAMPLES,
	OPT_PROC_ITERS,
	OPT_PROC_OVERHEAD,
	OPT_NO_RDPMC,
};

static const struct option long_opts[] = {
    {"list", no_argument, NULL, OPT_LIST},
    {"filter", required_argument, NULL, OPT_FILTER},
    {"runs", required_argument, NULL, 'r'},
    {"warmup", required_argument, NULL, 'w'},
    {"min-time", required_argument, NULL, OPT_MIN_TIME},
    {"no-fork", no_argument, NULL, OPT_NO_FORK},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"events", required_argument, NULL, 'e'},
    {"require-counters", no_argument, NULL, OPT_REQUIRE},
    {"no-rdpmc", no_argument, NULL, OPT_NO_RDPMC},
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"output", required_argument, NULL, 'o'},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"export", required_argument, NULL, OPT_EXPORT},
    {"quiet", no_argument, NULL, 'q'},
    {"baseline", required_argument, NULL, OPT_BASELINE},
    /* Internal: how the valgrind backend runs the program again under valgrind. */
    {"valgrind-child", required_argument, NULL, OPT_VG_CHILD},
    {"valgrind-report", required_argument, NULL, OPT_VG_REPORT},
    {"valgrind-iters", required_argument, NULL, OPT_VG_ITERS},
    {"profile", no_argument, NULL, OPT_PROFILE},
    /* Internal: how --profile runs the program again for one benchmark's loop. */
    {"profile-child", required_argument, NULL, OPT_PROF_CHILD},
    {"profile-time", required_argument, NULL, OPT_PROF_TIME},
    {"processes", required_argument, NULL, OPT_PROCESSES},
    /* Internal: how each benchmark runs in processes of its own. */
    {"process-child", required_argument, NULL, OPT_PROC_CHILD},
    {"process-fd", required_argument, NULL, OPT_PROC_FD},
    {"process-samples", required_argument, NULL, OPT_PROC_SAMPLES},
    {"process-iters", required_argument, NULL, OPT_PROC_ITERS},
    {"process-overhead", no_argument, NULL, OPT_PROC_OVERHEAD},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* 0 to go on, 1 after --help, -EINVAL after an error line. */
static int parse_opt(struct mb_cli *c, int opt, const char *prog)
{
	int r;

	switch (opt) {
	case OPT_LIST:
		c->list = true;
		return 0;
	case OPT_FILTER:
		c->filter = optarg;
		return 0;
	case 'r':
		c->perf_only = "-r/--runs";
		return pmc_cli_parse_size("--runs", optarg, 1, &c->mo.samples);
	case 'w':
		c->perf_only = "-w/--warmup";
		return pmc_cli_parse_size("--warmup", optarg, 0, &c->mo.warmup);
	case OPT_MIN_TIME:
		c->perf_only = "--min-time";
		return pmc_cli_parse_seconds("--min-time", optarg, 3600, &c->mo.min_time_s);
	case OPT_NO_FORK:
		c->perf_only = "--no-fork";
		c->no_fork = true;
		return 0;
	case OPT_TIMEOUT:
		return pmc_cli_parse_seconds("--timeout", optarg, 0, &c->mo.timeout_s);
	case 'e':
		c->perf_only = "-e/--events";
		if (c->events_spec) {
			pmc_cli_error("--events: give one list (join them with ',')");
			return -EINVAL;
		}
		c->events_spec = optarg;
		return 0;
	case OPT_REQUIRE:
		c->perf_only = "--require-counters";
		c->require_counters = true;
		return 0;
	case OPT_NO_RDPMC:
		c->perf_only = "--no-rdpmc";
		c->mo.no_self_read = true;
		return 0;
	case OPT_BACKEND:
		if (strcmp(optarg, "perf") == 0 || strcmp(optarg, "valgrind") == 0) {
			c->valgrind = strcmp(optarg, "valgrind") == 0;
			return 0;
		}
		pmc_cli_error("--backend: unknown backend '%s'; use perf or valgrind", optarg);
		return -EINVAL;
	case OPT_VG_CHILD:
		c->vg_child = optarg;
		return 0;
	case OPT_VG_REPORT:
		c->vg_report = optarg;
		return 0;
	case OPT_VG_ITERS:
		return pmc_cli_parse_size("--valgrind-iters", optarg, 1, &c->vg_iters);
	case OPT_PROFILE:
		c->profile = true;
		return 0;
	case OPT_PROF_CHILD:
		c->prof_child = optarg;
		return 0;
	case OPT_PROF_TIME:
		return pmc_cli_parse_seconds("--profile-time", optarg, 3600, &c->prof_time);
	case OPT_PROCESSES:
		c->perf_only = "--processes";
		return pmc_cli_parse_size("--processes", optarg, 1, &c->processes);
	case OPT_PROC_CHILD:
		c->proc_child = optarg;
		return 0;
	case OPT_PROC_FD:
		return pmc_cli_parse_size("--process-fd", optarg, 0, &c->proc_fd);
	case OPT_PROC_SAMPLES:
		return pmc_cli_parse_size("--process-samples", optarg, 1, &c->proc_samples);
	case OPT_PROC_ITERS:
		return pmc_cli_parse_count("--process-iters", optarg, 0, UINT64_C(1) << 62,
					   &c->proc_iters);
	case OPT_PROC_OVERHEAD:
		c->proc_overhead = true;
		return 0;
	case 'o':
		c->output = optarg;
		return 0;
	case OPT_EXPORT:
		return pmc_cli_exports_add(&c->exports, optarg) < 0 ? -EINVAL : 0;
	case OPT_FORMAT:
		if (pmc_report_format(optarg, PMC_REPORT_RESULT, &c->format, NULL) < 0) {
			pmc_cli_error("--format: unknown format '%s'; use table, json, csv, "
				      "markdown or gobench",
				      optarg);
			return -EINVAL;
		}
		return 0;
	case 'q':
		c->quiet = true;
		return 0;
	case OPT_BASELINE:
		c->baseline = optarg;
		return 0;
	case 'h':
		help(stdout, prog);
		return 1;
	case '?':
		return -EINVAL;
	default:
		r = pmc_cli_compare_opts_handle(c->copts, opt, optarg);
		return r < 0 ? r : r > 0 ? 0 : -EINVAL;
	}
}

static int parse_args(struct mb_cli *c, int argc, char **argv, const char *prog)
{
	struct option *longopts = pmc_cli_options_merge(long_opts, pmc_cli_compare_long_opts);
	int opt, r = 0;

	if (!longopts) {
		pmc_cli_error("out of memory");
		return -ENOMEM;
	}
	optind = 0;
	while (r == 0 && (opt = pmc_cli_getopt(argc, argv, ":r:w:e:o:qh", longopts, prog)) != -1)
		r = parse_opt(c, opt, prog);
	free(longopts);
	if (r == 0 && optind < argc) {
		pmc_cli_error("unexpected argument '%s'; see '%s --help'", argv[optind], prog);
		r = -EINVAL;
	}
	/* An option that would do nothing is an error, not silently ignored. */
	if (r == 0 && c->valgrind && c->perf_only) {
		pmc_cli_error("%s does not apply to --backend valgrind, which counts each "
			      "benchmark exactly, once, in a child under valgrind",
			      c->perf_only);
		r = -EINVAL;
	}
	/* The comparison options judge the gate against --baseline, and nothing else. */
	if (r == 0)
		r = pmc_cli_compare_opts_check_used(c->copts, c->baseline != NULL,
						    "give --baseline FILE to gate against it, or "
						    "drop the option");
	if (r == 0 && (!c->vg_child != !c->vg_report || !c->vg_child != !c->vg_iters)) {
		pmc_cli_error("--valgrind-child, --valgrind-report and --valgrind-iters go "
			      "together (they are the valgrind backend's own)");
		r = -EINVAL;
	}
	if (r == 0 && c->no_fork && c->processes > 1) {
		pmc_cli_error("--processes %zu needs processes of their own; drop --no-fork, "
			      "which runs everything in this one",
			      c->processes);
		r = -EINVAL;
	}
	if (r == 0 && c->no_fork && c->mo.timeout_s > 0) {
		/* Only a child can be killed: in this process nothing could enforce it. */
		pmc_cli_error("--timeout cannot be enforced with --no-fork (the benchmarks run in "
			      "this process); drop one of them");
		r = -EINVAL;
	}
	return r;
}

/* One benchmark under the valgrind backend: exact counts per operation, and with
 * --profile the exact profile of its loop, kept in ps. */
static int run_valgrind(const struct pmc_mb_bench *b, const struct pmc_mb_valgrind_opts *vo,
			struct pmc_result *res, struct pmc_cli_profiles *ps, bool *ret_skipped,
			char **ret_message, char *err, size_t errlen)
{
	struct pmc_mb_exact x = {0};
	int r = pmc_mb_measure_valgrind(b, vo, &x, err, errlen);

	if (r == 0)
		r = pmc_mb_record_exact(b, &x, res, err, errlen);
	/* A profile that cannot be saved is a warning: the counts stand without it. */
	if (r == 0 && x.profile && ps) {
		pmc_cli_profiles_keep(ps, b->name, b->name, x.profile);
		x.profile = NULL; /* the profiles' now, even when it could not be saved */
	}
	*ret_skipped = x.skipped;
	*ret_message = x.message;
	x.message = NULL;
	pmc_mb_exact_free(&x);
	return r;
}

/* The default processes per benchmark: at 8 + 8 the smallest p of a test over them is
 * 2 / C(16, 8) = 1.6e-4, so a lone change can be significant among up to 300 gated
 * tests (docs/statistics.md, "The unit of replication", "Many comparisons"). */
#define DEFAULT_PROCESSES 8

/* The samples process p (from 0) of np takes when n are shared out: the first n % np
 * processes take one more. */
static size_t share(size_t n, size_t np, size_t p)
{
	return n / np + (p < n % np ? 1 : 0);
}

/* What run_all knows of one benchmark while its processes run. */
struct mb_state {
	struct pmc_mb_samples s; /* merged over the processes so far */
	bool done, failed;
};

static size_t processes_of(const struct mb_cli *c)
{
	size_t np = c->no_fork ? 1 : c->processes ? c->processes : DEFAULT_PROCESSES;

	return np < c->mo.samples ? np : c->mo.samples;
}

/* Process p of benchmark i: calibrated in the first process, at its batch size in the
 * others, whose empty loop is not measured again. */
static int run_process(const struct mb_cli *c, const struct pmc_mb_bench *b, size_t p, size_t np,
		       struct mb_state *st, char *const *self, char *err, size_t errlen)
{
	struct pmc_mb_opts o = c->mo;
	struct pmc_mb_samples s = {0};
	int r;

	PMC_OPTS_ZERO_TAIL(pmc_mb_opts, &o); /* what the struct copy need not bring */
	o.samples = share(c->mo.samples, np, p);
	o.iters = p ? st->s.iters : 0;
	o.no_overhead = p > 0;
	o.self_argv = self;
	r = c->no_fork ? pmc_mb_measure(b, &o, &s, err, errlen)
		       : pmc_mb_measure_forked(b, &o, &s, err, errlen);
	if (r == 0 && s.skipped) {
		/* A skip ends the benchmark: it measured nothing (docs/result-schema.md). */
		pmc_mb_samples_free(&st->s);
		st->s = s;
		st->done = true;
		return 0;
	}
	if (r == 0 && (r = pmc_mb_samples_merge(&st->s, &s, (unsigned)(p + 1))) < 0)
		snprintf(err, errlen, "'%s': cannot keep the samples of its process %zu: %s",
			 b->name, p + 1, strerror(-r));
	pmc_mb_samples_free(&s);
	return r;
}

/* Runs every benchmark in processes of its own, the first process of each benchmark,
 * then the second of each, and so on, so that what changes on the machine meanwhile is
 * spread over all of them (or every one in this process with --no-fork; under valgrind
 * with vo, once each). One that fails is reported and the others go on. Returns the
 * number that failed. */
static size_t run_all(const struct mb_cli *c, const struct pmc_mb_set *set,
		      const struct pmc_event_list *events, const struct pmc_mb_valgrind_opts *vo,
		      struct pmc_result *res, struct pmc_cli_profiles *ps, char *const *self,
		      uint64_t reads[2])
{
	bool progress = !c->quiet && isatty(STDERR_FILENO);
	size_t np = vo ? 1 : processes_of(c), failed = 0;
	struct mb_state *st = calloc(set->n + 1, sizeof(*st));
	char err[1024];
	int r;

	if (!st) {
		pmc_cli_error("out of memory");
		return set->n;
	}
	for (size_t p = 0; p < np; p++) {
		for (size_t i = 0; i < set->n; i++) {
			const struct pmc_mb_bench *b = &set->v[i];

			if (st[i].done)
				continue;
			if (progress && np > 1)
				fprintf(stderr, "\r\033[Kprocess %zu/%zu, %zu/%zu: %.60s", p + 1, np,
					i + 1, set->n, b->name);
			else if (progress)
				fprintf(stderr, "\r\033[K%zu/%zu: %.60s", i + 1, set->n, b->name);
			if (progress)
				fflush(stderr);
			err[0] = '\0';
			if (vo) {
				bool skipped = false;

				r = run_valgrind(b, vo, res, ps, &skipped, &st[i].s.message, err,
						 sizeof(err));
				st[i].s.skipped = skipped;
				st[i].done = true;
			} else {
				r = run_process(c, b, p, np, &st[i], self, err, sizeof(err));
			}
			if (progress)
				fprintf(stderr, "\r\033[K");
			if (r < 0) {
				pmc_cli_error("%s", err);
				st[i].failed = st[i].done = true;
				failed++;
			}
		}
	}
	for (size_t i = 0; i < set->n; i++) {
		const struct pmc_mb_bench *b = &set->v[i];

		if (st[i].failed)
			goto next;
		if (!vo && pmc_mb_record(b, &st[i].s, events, res, err, sizeof(err)) < 0) {
			pmc_cli_error("%s", err);
			failed++;
		} else if (st[i].s.skipped) {
			fprintf(stderr, "pmcbench: note: '%s' skipped itself: %s\n", b->name,
				st[i].s.message ? st[i].s.message : "no reason given");
		}
next:
		reads[0] += st[i].s.reads_self;
		reads[1] += st[i].s.reads_sys;
		pmc_mb_samples_free(&st[i].s);
	}
	free(st);
	return failed;
}

/* How the counters were read at the batch edges (docs/result-schema.md, "Environment"):
 * counter-read is rdpmc, read or rdpmc+read; counter-reads says how many group reads
 * went each way. */
static int set_read_method(struct pmc_result *res, const struct mb_cli *c, const uint64_t reads[2])
{
	char buf[128];
	const char *method = reads[0] && reads[1] ? "rdpmc+read" : reads[0] ? "rdpmc" : "read";

	if (reads[0] + reads[1] == 0)
		return 0;
	snprintf(buf, sizeof(buf), "%" PRIu64 " rdpmc, %" PRIu64 " read()%s", reads[0], reads[1],
		 c->mo.no_self_read ? " (--no-rdpmc)" : "");
	if (pmc_result_set_env(res, "counter-read", method) < 0 ||
	    pmc_result_set_env(res, "counter-reads", buf) < 0)
		return -ENOMEM;
	return 0;
}

int pmc_main_defs(int argc, char **argv, const struct pmc_bench_def *begin,
		  const struct pmc_bench_def *end)
{
	const char *prog = argc > 0 && argv[0] ? argv[0] : "benchmark";

	if (strrchr(prog, '/'))
		prog = strrchr(prog, '/') + 1;
	return pmc_cli_microbench(argc, argv, prog, begin, end, NULL);
}

/* The command that runs this program again, for the valgrind backend and the
 * benchmarks' processes: its path (what /proc/self/exe links to; under valgrind that
 * link would name valgrind), then "run --library PATH" when pmcbench runs a shared
 * object, then the nargs options of args (the processes take the user's). */
static int self_argv(const char *library, char *const *args, size_t nargs, char ***ret)
{
	char **v = calloc(5 + nargs, sizeof(*v));
	char *exe = v ? realpath("/proc/self/exe", NULL) : NULL;
	size_t n = 1;

	if (!exe) {
		free(v);
		return -errno;
	}
	v[0] = exe;
	if (library) {
		v[n++] = (char *)"run";
		v[n++] = (char *)"--library";
		v[n++] = (char *)library;
	}
	for (size_t i = 0; i < nargs; i++)
		v[n++] = args[i];
	*ret = v;
	return 0;
}

static void self_argv_free(char **v)
{
	if (v)
		free(v[0]);
	free(v);
}

/* The child of --profile: runs one benchmark's loop for the time asked. Exit code. */
static int profile_child(const struct mb_cli *c, const struct pmc_mb_set *set)
{
	char err[1024];

	for (size_t i = 0; i < set->n; i++) {
		if (strcmp(set->v[i].name, c->prof_child) != 0)
			continue;
		if (pmc_mb_profile_child(&set->v[i], c->prof_time > 0 ? c->prof_time : 1, err,
					 sizeof(err)) < 0) {
			pmc_cli_error("%s", err);
			return PMC_EXIT_ERROR;
		}
		return PMC_EXIT_OK;
	}
	pmc_cli_error("--profile-child: no benchmark '%s'", c->prof_child);
	return PMC_EXIT_ERROR;
}

/* --profile: a profile of each benchmark's loop, saved beside the result. A profile
 * never fails the run (docs/profile.md): every problem is a warning, and the others go
 * on. */
static void profile_all(const struct mb_cli *c, const struct pmc_mb_set *set,
			const struct pmc_result *res, const char *library,
			struct pmc_cli_profiles *ps)
{
	struct pmc_mb_profile_opts po = {.sz = sizeof(po), .timeout_s = c->mo.timeout_s};
	char **self = NULL, err[1024];
	int r;

	r = self_argv(library, NULL, 0, &self);
	if (r < 0) {
		pmc_cli_warn("--profile: cannot find this program's path: %s; no profiles are "
			     "recorded",
			     strerror(-r));
		return;
	}
	po.self_argv = self;
	pmc_cli_profiles_open_dir(ps, c->output);
	for (size_t i = 0; i < set->n; i++) {
		const struct pmc_benchmark *b = pmc_result_find_benchmark(res, set->v[i].name);
		struct pmc_profile *p = NULL;

		/* A benchmark that failed or skipped itself has nothing to profile. */
		if (!b || pmc_benchmark_skipped(b))
			continue;
		r = pmc_mb_profile(&set->v[i], &po, &p, err, sizeof(err));
		if (r == 0)
			pmc_cli_profiles_keep(ps, set->v[i].name, set->v[i].name, p);
		else if (pmc_cli_profile_failed(r, set->v[i].name, err))
			break;
	}
	self_argv_free(self);
}

/* One of a benchmark's processes (run_process): measures it with the options the
 * parent passed and writes the samples to the pipe it named. Exit code. */
static int process_child(struct mb_cli *c, const struct pmc_mb_set *set)
{
	struct pmc_event_list *events = NULL;
	const char *spec = c->events_spec ? c->events_spec : PMC_DEFAULT_EVENTS;
	char err[1024];
	int code = PMC_EXIT_ERROR;

	for (size_t i = 0; i < set->n; i++) {
		if (strcmp(set->v[i].name, c->proc_child) != 0)
			continue;
		/* The parent parsed and probed the list; its notes were said there. */
		if (pmc_event_list_parse(spec, NULL, &events, err, sizeof(err)) < 0) {
			pmc_cli_error("--events '%s': %s", spec, err);
			return PMC_EXIT_ERROR;
		}
		c->mo.events = events;
		c->mo.user_only_fallback = true;
		c->mo.samples = c->proc_samples ? c->proc_samples : c->mo.samples;
		c->mo.iters = c->proc_iters;
		c->mo.no_overhead = !c->proc_overhead;
		if (pmc_mb_process_child(&set->v[i], &c->mo, (int)c->proc_fd) == 0)
			code = PMC_EXIT_OK;
		pmc_event_list_free(events);
		return code;
	}
	pmc_cli_error("--process-child: no benchmark '%s'", c->proc_child);
	return PMC_EXIT_ERROR;
}

/* The child of the valgrind backend: runs one benchmark's counted loops. Exit code. */
static int valgrind_child(const struct mb_cli *c, const struct pmc_mb_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		if (strcmp(set->v[i].name, c->vg_child) == 0)
			return pmc_mb_valgrind_child(&set->v[i], c->vg_iters, c->vg_report) < 0
				   ? PMC_EXIT_ERROR
				   : PMC_EXIT_OK;
	pmc_cli_error("--valgrind-child: no benchmark '%s'", c->vg_child);
	return PMC_EXIT_ERROR;
}

int pmc_cli_microbench(int argc, char **argv, const char *prog, const struct pmc_bench_def *begin,
		       const struct pmc_bench_def *end, const char *library)
{
	struct mb_cli c = {.mo = {.sz = sizeof(c.mo), .samples = 8, .warmup = 1},
			   .format = "table"};
	/* The user's options as given (getopt reorders argv), for the processes. */
	char **args = argc > 1 ? calloc((size_t)argc, sizeof(*args)) : NULL, **proc_self = NULL;
	struct pmc_event_list *events = NULL;
	struct pmc_result *result = NULL, *base = NULL;
	struct pmc_mb_set set = {0};
	struct pmc_mb_valgrind_opts vo = {.sz = sizeof(vo)};
	struct pmc_cli_profiles profiles = {0}, base_profiles = {0};
	char err[1024] = "", **self = NULL, *vg_path = NULL;
	const char *spec;
	size_t failed;
	uint64_t reads[2] = {0, 0};
	bool user_only = false;
	int code = PMC_EXIT_ERROR, r;

	/* The padding the library checks, which the initializers need not zero. */
	PMC_OPTS_ZERO_TAIL(pmc_mb_opts, &c.mo);
	PMC_OPTS_ZERO_TAIL(pmc_mb_valgrind_opts, &vo);
	if ((argc > 1 && !args) || pmc_cli_compare_opts_new(&c.copts) < 0) {
		pmc_cli_error("out of memory");
		free(args);
		return PMC_EXIT_ERROR;
	}
	for (int i = 1; i < argc; i++)
		args[i - 1] = argv[i];
	r = parse_args(&c, argc, argv, prog);
	if (r != 0) {
		code = r == 1 ? PMC_EXIT_OK : PMC_EXIT_ERROR;
		goto out;
	}
	if (pmc_mb_expand(begin, end, c.filter, &set, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		goto out;
	}
	if (c.vg_child) {
		code = valgrind_child(&c, &set);
		goto out;
	}
	if (c.prof_child) {
		code = profile_child(&c, &set);
		goto out;
	}
	if (c.proc_child) {
		code = process_child(&c, &set);
		goto out;
	}
	if (c.list) {
		for (size_t i = 0; i < set.n; i++)
			printf("%s\n", set.v[i].name);
		code = fflush(stdout) == 0 ? PMC_EXIT_OK : PMC_EXIT_ERROR;
		goto out;
	}
	if (set.n == 0) {
		if (c.filter)
			pmc_cli_error("--filter '%s' matches no benchmark; see '%s --list'",
				      c.filter, prog);
		else
			pmc_cli_error("no benchmarks in this program; register them with "
				      "PMC_BENCHMARK(fn)");
		goto out;
	}
	if (c.output && pmc_cli_check_output(c.output) < 0)
		goto out;
	if (pmc_cli_exports_check(&c.exports) < 0)
		goto out;
	if (c.baseline && pmc_result_load(c.baseline, &base, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		goto out;
	}
	if (c.valgrind) {
		if ((r = pmc_valgrind_find(&vg_path)) < 0) {
			pmc_cli_error("--backend valgrind: %s",
				      r == -ENOENT
					  ? "valgrind is not installed (Debian and Ubuntu: "
					    "apt-get install valgrind)"
					  : strerror(-r));
			goto out;
		}
		if ((r = self_argv(library, NULL, 0, &self)) < 0) {
			pmc_cli_error("--backend valgrind: cannot find this program's path: %s",
				      strerror(-r));
			goto out;
		}
		vo.self_argv = self;
		vo.valgrind = vg_path;
		vo.timeout_s = c.mo.timeout_s;
		if (pmc_result_new("valgrind", &result) < 0 || pmc_env_collect(result) < 0 ||
		    pmc_env_valgrind(result, vg_path, PMC_VALGRIND_CALLGRIND) < 0) {
			pmc_cli_error("out of memory");
			goto out;
		}
	} else {
		spec = c.events_spec ? c.events_spec : PMC_DEFAULT_EVENTS;
		if (pmc_event_list_parse(spec, NULL, &events, err, sizeof(err)) < 0) {
			pmc_cli_error("--events '%s': %s", spec, err);
			goto out;
		}
		if (pmc_cli_check_duplicate_events(events, spec) < 0 ||
		    pmc_cli_probe_events(events, c.require_counters, c.quiet, NULL,
					 "the clock's wall-time/op", &user_only) < 0)
			goto out;
		c.mo.events = events;
		c.mo.user_only_fallback = true;
		if (pmc_result_new("perf", &result) < 0 || pmc_env_collect(result) < 0 ||
		    pmc_result_set_env(result, "events", spec) < 0 ||
		    pmc_result_set_env(result, "counting",
				       user_only ? "user-only" : "user+kernel") < 0) {
			pmc_cli_error("out of memory");
			goto out;
		}
	}
	/* The valgrind backend profiles each loop in the run that counts it, exactly. */
	if (c.valgrind && c.profile) {
		vo.profile = true;
		pmc_cli_profiles_open_dir(&profiles, c.output); /* a warning when it fails */
	}
	if (!c.valgrind && !c.no_fork &&
	    (r = self_argv(library, args, argc > 1 ? (size_t)argc - 1 : 0, &proc_self)) < 0) {
		pmc_cli_error("cannot find this program's path to start its processes: %s",
			      strerror(-r));
		goto out;
	}
	failed = run_all(&c, &set, events, c.valgrind ? &vo : NULL, result,
			 c.profile ? &profiles : NULL, proc_self, reads);
	if (!c.valgrind && set_read_method(result, &c, reads) < 0) {
		pmc_cli_error("out of memory");
		goto out;
	}
	if (c.profile) {
		if (!c.valgrind)
			profile_all(&c, &set, result, library, &profiles);
		if (base && pmc_cli_profiles_load(&base_profiles, c.baseline, base) < 0)
			pmc_cli_warn("--profile: out of memory reading the baseline's profiles");
		pmc_cli_compare_opts_set_profiles(c.copts, &base_profiles, &profiles, NULL);
	}
	{
		PMC_OPTS(pmc_report_opts, ro, .confidence = 0.95);

		r = pmc_report_result(stdout, c.format, result, &ro, NULL, 0);
	}
	if (r == 0 && fflush(stdout) != 0)
		r = errno ? -errno : -EIO;
	if (r < 0) {
		pmc_cli_error("cannot write the report to standard output: %s", strerror(-r));
		goto out;
	}
	if (c.output && pmc_result_save(result, c.output, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		goto out;
	}
	if (c.exports.n) {
		PMC_OPTS(pmc_report_opts, ro, .confidence = 0.95);

		if (pmc_cli_exports_result(&c.exports, result, &ro) < 0)
			goto out;
	}
	code = PMC_EXIT_OK;
	if (pmc_cli_format_is_document(c.format))
		pmc_cli_compare_opts_set_stream(c.copts, stderr);
	/* The comparison follows the run's own format for table and Markdown. */
	if (base && strcmp(c.format, "markdown") == 0 &&
	    pmc_cli_compare_opts_set_format(c.copts, "markdown") < 0) {
		code = PMC_EXIT_ERROR;
		goto out;
	}
	if (base)
		code = pmc_cli_compare_results(base, c.baseline, result, "this run", c.copts, true);
	if (failed) {
		pmc_cli_error("%zu of %zu benchmarks failed; the others' results were written",
			      failed, set.n);
		code = PMC_EXIT_ERROR;
	}
out:
	pmc_cli_profiles_clear(&profiles);
	pmc_cli_profiles_clear(&base_profiles);
	self_argv_free(self);
	self_argv_free(proc_self);
	free(args);
	free(vg_path);
	pmc_mb_set_free(&set);
	pmc_event_list_free(events);
	pmc_result_free(result);
	pmc_result_free(base);
	pmc_cli_compare_opts_free(c.copts);
	pmc_cli_exports_clear(&c.exports);
	return code;
}

/* pmc_main_defs(): the command line of every benchmark program (docs/microbench.md,
 * "Options"): expand and filter the registered benchmarks, answer as one of the
 * processes the session starts, or run them all in one session (harness/5-session/),
 * which reports, saves and gates as `pmcbench run` does. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "counters/perf/events.h"
#include "cli/cli.h"
#include "run/uprobes.h"
#include "microbench/microbench.h"
#include "microbench/program.h"
#include "pmcbench/common.h"
#include "pmcbench/metrics.h"

struct mb_cli {
	struct pmc_mb_opts mo;
	struct pmc_cli_session_opts so; /* the options `pmcbench run` takes too */
	const char *filter;
	/* --benchmark_out FILE and --benchmark_out_format's reporter (NULL: json, as -o). */
	const char *gb_out, *gb_out_format;
	bool list, no_fork;
	bool verbose; /* the detailed report instead of one line per benchmark */
	/* Two builds (`run --library A --library B`, or this program --against another):
	 * judge the second as `gate` does; or compare their samples as independent ones,
	 * not round by round. */
	bool gate, unpaired;
	/* Two builds of this program: the other's executable (--against), the labels the
	 * user gave (given[0] the other's: the -n before --against; given[1] this
	 * program's: any other -n), and a -n whose build is not known yet. */
	const char *against, *given[2], *pending;
	/* Internal: this process is a child of one of two builds of a program, whose
	 * benchmarks are named "build_label:name"; or it lists its benchmarks after the
	 * child protocol's line (--process-list, program.h). */
	const char *build_label;
	bool process_list;
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
	/* Internal: this process is the child that profiles one loop (--profile). */
	const char *prof_child;
	double prof_time;
	struct pmc_cli_compare_opts *copts;
};

static void help(FILE *out, const char *prog)
{
	fprintf(out,
		"Usage: %s [OPTIONS]\n"
		"Run the benchmarks registered with PMC_BENCHMARK in this program and report\n"
		"per-operation time and counters (docs/microbench.md).\n\n"
		"What to run:\n"
		"      --list             list the benchmarks (after --filter) and exit\n"
		"      --filter=REGEX     only the benchmarks whose name matches (POSIX ERE;\n"
		"                         -REGEX: those it does not match); names that start\n"
		"                         DISABLED_ never run\n"
		"  -r, --runs=N           samples per benchmark, over all its processes\n"
		"                         (default 8: one in each process)\n"
		"      --processes=N      processes per benchmark, each a new start of this\n"
		"                         program, interleaved across the benchmarks (default\n"
		"                         8): compare tests at the level of processes\n"
		"  -w, --warmup=N         unrecorded batches in each process (default 1)\n"
		"      --min-time=SECONDS target CPU time of one sample (default 0.01; 0.5s\n"
		"                         too), or Nx: samples of N iterations each\n"
		"      --no-fork          run every benchmark in this process (for debugging:\n"
		"                         a crash then ends the whole run, and Ctrl-C or SIGTERM\n"
		"                         ends it at once, writing nothing; one process)\n"
		"      --timeout=SECONDS  kill a benchmark's child that has not finished after\n"
		"                         this long (default: 600 plus ten times its measuring\n"
		"                         time; none: no limit); the others still run (not with\n"
		"                         --no-fork)\n\n"
		"What to count:\n"
		"  -e, --events=LIST      perf-style event list (repeatable; default: pmcbench's)\n"
		"      --syscalls         also count every system call by name (the\n"
		"                         syscalls:sys_enter_* tracepoints) and their total,\n"
		"                         syscalls:total: the kernel's exact counts (root)\n"
		"      --allocs           also count calls of malloc, calloc, realloc and free\n"
		"                         (uprobe:libc:...; per operation in benchmarks; root)\n"
		"  -d, --detailed         also count perf stat -d's cache events (L1-dcache,\n"
		"                         LLC); -dd adds L1-icache, dTLB, iTLB; -ddd the L1\n"
		"                         data prefetches\n"
		"      --require-counters fail when a requested event cannot be counted\n"
		"      --no-rdpmc         read the counters with read() at every batch edge, never\n"
		"                         through their mmap pages with rdpmc\n"
		"      --backend=NAME     perf (default): time and hardware/software counters;\n"
		"                         valgrind: exact simulated counts per operation of\n"
		"                         the body alone, one run (docs/microbench.md)\n\n",
		prog);
	fprintf(out,
		"Output:\n"
		"  -o, --output=FILE      write the result JSON (atomically) to FILE\n"
		"      --export=FILE      also write the result to FILE (atomically; repeatable)\n"
		"                         in the format its extension names: .json (the result\n"
		"                         file), .csv, .md, or .txt (Go's benchmark format, for\n"
		"                         benchstat); docs/export.md\n"
		"      --format=FMT       report on stdout: table (default: brief, one line per\n"
		"                         benchmark; with -v the detailed table), brief, json,\n"
		"                         csv, markdown, gobench (Go's benchmark format); with\n"
		"                         json, csv or gobench what the benchmarks print goes to\n"
		"                         stderr\n"
		"  -v, --verbose          the table in detail: every metric of each benchmark\n"
		"                         with its spread and status, the batch size and the\n"
		"                         empty loop's cost\n"
		"  -q, --quiet            no progress line, and no note of counters that cannot\n"
		"                         be counted (the report still says; the note that every\n"
		"                         event is denied stays)\n"
		"      --profile          keep a profile of each benchmark's loop beside the\n"
		"                         result (FILE.profiles/NAME.json): sampled for a second\n"
		"                         in a child of its own, or with --backend valgrind exact,\n"
		"                         from the run that counts it; a regression against\n"
		"                         --baseline then names the functions behind it\n\n");
	fprintf(out,
		"Comparison:\n"
		"      --baseline=FILE    gate this run against a baseline result file\n"
		"      --against=PATH     another build of this program (before a change, say):\n"
		"                         both builds' benchmarks run in turn, round by round,\n"
		"                         and this program's are compared with PATH's\n"
		"                         (docs/microbench.md, \"Comparing two builds\")\n"
		"  -n, --name=LABEL       with --against: before it, the label of PATH's build;\n"
		"                         elsewhere, this program's (default: the shortest ends\n"
		"                         of the two paths that tell them apart)\n"
		"      --gate             two builds (--against PATH, or 'pmcbench run --library\n"
		"                         A.so --library B.so'): judge the second against the\n"
		"                         first as 'pmcbench gate' does: exit 1 when a benchmark\n"
		"                         regresses\n"
		"      --unpaired         two builds: compare their samples as independent ones,\n"
		"                         not round by round (paired is the default)\n");
	pmc_cli_compare_opts_help(out);
	fprintf(out, "\nGoogle Benchmark's flags are aliases: --benchmark_filter, --benchmark_list_tests,\n"
		     "--benchmark_min_time, --benchmark_repetitions (-r), --benchmark_format\n"
		     "(console, json, csv), --benchmark_out (-o), --benchmark_out_format (json,\n"
		     "csv, console: the file's format). --version: this program's name\n"
		     "and libpmcbench's version.\n");
	fprintf(out, "\nExit status: 0 success, 1 regression (with --baseline, or --gate), 2 error\n"
		     "(a bad option, a benchmark that crashed, failed or timed out: the others are\n"
		     "still written), 3 inconclusive (with --fail-on-inconclusive); stopped by\n"
		     "SIGINT or SIGTERM: what finished is written, and it ends by the signal.\n");
}

enum {
	OPT_LIST = 256,
	OPT_FILTER,
	OPT_MIN_TIME,
	OPT_NO_FORK,
	OPT_VG_CHILD,
	OPT_VG_REPORT,
	OPT_VG_ITERS,
	OPT_PROF_CHILD,
	OPT_PROF_TIME,
	OPT_PROCESSES,
	OPT_PROC_CHILD,
	OPT_PROC_FD,
	OPT_PROC_SAMPLES,
	OPT_PROC_ITERS,
	OPT_PROC_OVERHEAD,
	OPT_NO_RDPMC,
	OPT_GATE,
	OPT_UNPAIRED,
	OPT_AGAINST,
	OPT_BUILD_LABEL,
	OPT_PROC_LIST,
	OPT_VERSION,
	OPT_GB_LIST,
	OPT_GB_FORMAT,
	OPT_GB_OUT,
	OPT_GB_OUT_FORMAT,
};

static const struct option long_opts[] = {
    {"list", no_argument, NULL, OPT_LIST},
    {"filter", required_argument, NULL, OPT_FILTER},
    {"runs", required_argument, NULL, 'r'},
    {"warmup", required_argument, NULL, 'w'},
    {"min-time", required_argument, NULL, OPT_MIN_TIME},
    {"no-fork", no_argument, NULL, OPT_NO_FORK},
    {"no-rdpmc", no_argument, NULL, OPT_NO_RDPMC},
    {"verbose", no_argument, NULL, 'v'},
    {"gate", no_argument, NULL, OPT_GATE},
    {"unpaired", no_argument, NULL, OPT_UNPAIRED},
    {"against", required_argument, NULL, OPT_AGAINST},
    {"name", required_argument, NULL, 'n'},
    /* Internal: the child protocol of two builds of a program (program.h). */
    {"build-label", required_argument, NULL, OPT_BUILD_LABEL},
    {"process-list", no_argument, NULL, OPT_PROC_LIST},
    /* Internal: how the valgrind backend runs the program again under valgrind. */
    {"valgrind-child", required_argument, NULL, OPT_VG_CHILD},
    {"valgrind-report", required_argument, NULL, OPT_VG_REPORT},
    {"valgrind-iters", required_argument, NULL, OPT_VG_ITERS},
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
    {"version", no_argument, NULL, OPT_VERSION},
    /* Google Benchmark's flags, for the habits of its users (docs/microbench.md). */
    {"benchmark_filter", required_argument, NULL, OPT_FILTER},
    {"benchmark_list_tests", optional_argument, NULL, OPT_GB_LIST},
    {"benchmark_min_time", required_argument, NULL, OPT_MIN_TIME},
    {"benchmark_repetitions", required_argument, NULL, 'r'},
    {"benchmark_format", required_argument, NULL, OPT_GB_FORMAT},
    {"benchmark_out", required_argument, NULL, OPT_GB_OUT},
    {"benchmark_out_format", required_argument, NULL, OPT_GB_OUT_FORMAT},
    {NULL, 0, NULL, 0},
};

/* 0 to go on, 1 after --help, -EINVAL after an error line. */
/* --min-time: seconds (0.5 or 0.5s), or Google Benchmark's Nx: batches of N iterations,
 * not calibrated. */
static int parse_min_time(struct mb_cli *c, const char *arg)
{
	size_t len = strlen(arg);
	unsigned long long n;
	char *end;

	if (len == 0 || arg[len - 1] != 'x')
		return pmc_cli_parse_seconds("--min-time", arg, 3600, &c->mo.min_time_s);
	errno = 0;
	n = strtoull(arg, &end, 10);
	if (arg[0] < '0' || arg[0] > '9' || errno || *end != 'x' || end[1] || n < 1 ||
	    n > UINT64_C(1000000000000)) {
		pmc_cli_error("--min-time: '%s' is not a count of iterations from 1x to "
			      "1000000000000x",
			      arg);
		return -EINVAL;
	}
	c->mo.iters = n;
	return 0;
}

static int parse_opt(struct mb_cli *c, int opt, const char *prog)
{
	switch (opt) {
	case OPT_LIST:
		c->list = true;
		return 0;
	case OPT_FILTER:
		c->filter = optarg;
		return 0;
	case 'r':
		c->so.perf_only = "-r/--runs";
		return pmc_cli_parse_size("--runs", optarg, 1, &c->mo.samples);
	case 'w':
		c->so.perf_only = "-w/--warmup";
		return pmc_cli_parse_size("--warmup", optarg, 0, &c->mo.warmup);
	case OPT_MIN_TIME:
		c->so.perf_only = "--min-time";
		return parse_min_time(c, optarg);
	case OPT_NO_FORK:
		c->so.perf_only = "--no-fork";
		c->no_fork = true;
		return 0;
	case OPT_NO_RDPMC:
		c->so.perf_only = "--no-rdpmc";
		c->mo.no_self_read = true;
		return 0;
	case OPT_VG_CHILD:
		c->vg_child = optarg;
		return 0;
	case OPT_VG_REPORT:
		c->vg_report = optarg;
		return 0;
	case OPT_VG_ITERS:
		return pmc_cli_parse_size("--valgrind-iters", optarg, 1, &c->vg_iters);
	case OPT_PROF_CHILD:
		c->prof_child = optarg;
		return 0;
	case OPT_PROF_TIME:
		return pmc_cli_parse_seconds("--profile-time", optarg, 3600, &c->prof_time);
	case OPT_PROCESSES:
		c->so.perf_only = "--processes";
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
	case 'v':
		c->verbose = true;
		return 0;
	case OPT_GATE:
		c->gate = true;
		return 0;
	case OPT_UNPAIRED:
		c->unpaired = true;
		c->copts->s.unpaired = true;
		return 0;
	case 'n':
		if (pmc_cli_check_label(optarg) < 0)
			return -EINVAL;
		/* A -n that --against did not follow labels this program. */
		if (c->pending && c->given[1]) {
			pmc_cli_error("-n %s: this program is labelled '%s' already; give -n LABEL "
				      "before --against for its build",
				      c->pending, c->given[1]);
			return -EINVAL;
		}
		if (c->pending)
			c->given[1] = c->pending;
		c->pending = optarg;
		return 0;
	case OPT_AGAINST:
		if (c->against) {
			pmc_cli_error("--against %s: give one other build (--against %s is "
				      "given)",
				      optarg, c->against);
			return -EINVAL;
		}
		c->against = optarg;
		c->given[0] = c->pending;
		c->pending = NULL;
		return 0;
	case OPT_BUILD_LABEL:
		c->build_label = optarg;
		return 0;
	case OPT_PROC_LIST:
		c->process_list = true;
		return 0;
	case 'h':
		help(stdout, prog);
		return 1;
	case OPT_VERSION:
		printf("%s (libpmcbench %s)\n", prog, pmc_version());
		return 1;
	case OPT_GB_LIST:
		/* --benchmark_list_tests, =true or =false, as Google Benchmark's booleans. */
		if (!optarg || strcmp(optarg, "true") == 0 || strcmp(optarg, "1") == 0) {
			c->list = true;
			return 0;
		}
		if (strcmp(optarg, "false") == 0 || strcmp(optarg, "0") == 0)
			return 0;
		pmc_cli_error("--benchmark_list_tests: '%s' is not true or false", optarg);
		return -EINVAL;
	case OPT_GB_FORMAT:
		/* console, json, csv: Google Benchmark's names of the report's formats. */
		if (strcmp(optarg, "console") == 0 || strcmp(optarg, "json") == 0 ||
		    strcmp(optarg, "csv") == 0) {
			c->so.format = strcmp(optarg, "console") == 0 ? "table" : optarg;
			return 0;
		}
		pmc_cli_error("--benchmark_format: unknown format '%s'; use console, json or csv "
			      "(or --format)",
			      optarg);
		return -EINVAL;
	case OPT_GB_OUT:
		c->gb_out = optarg;
		return 0;
	case OPT_GB_OUT_FORMAT:
		/* --benchmark_out's file: the result (json), a CSV export, the report. */
		if (strcmp(optarg, "json") == 0 || strcmp(optarg, "csv") == 0 ||
		    strcmp(optarg, "console") == 0) {
			c->gb_out_format = strcmp(optarg, "console") == 0 ? "brief" : optarg;
			return 0;
		}
		pmc_cli_error("--benchmark_out_format: unknown format '%s'; use json, csv or "
			      "console (or --export FILE.EXT)",
			      optarg);
		return -EINVAL;
	case '?':
		return -EINVAL;
	default:
		/* The options `pmcbench run` takes too (cli_session.c), then the comparison
		 * options (cli_compare_opts.c). */
		return pmc_cli_shared_opts_handle(&c->so, c->copts, opt, optarg);
	}
}

/* builds: two builds of shared objects; library: pmcbench runs shared objects. */
static int parse_args(struct mb_cli *c, int argc, char **argv, const char *prog, bool builds,
		      bool library)
{
	struct option *longopts = pmc_cli_session_options(long_opts);
	const struct pmc_backend_ops *b;
	int opt, r = 0;

	if (!longopts)
		return -ENOMEM;
	optind = 0;
	while (r == 0 && (opt = pmc_cli_getopt(argc, argv, ":r:w:n:vh" PMC_CLI_SESSION_SHORT_OPTS,
					       longopts, prog)) != -1)
		r = parse_opt(c, opt, prog);
	free(longopts);
	if (r == 0 && c->pending && c->given[1]) {
		pmc_cli_error("-n %s: this program is labelled '%s' already; give -n LABEL before "
			      "--against for its build",
			      c->pending, c->given[1]);
		r = -EINVAL;
	}
	if (c->pending)
		c->given[1] = c->pending;
	if (r == 0 && c->gb_out_format && !c->gb_out) {
		pmc_cli_error("--benchmark_out_format names the format of --benchmark_out FILE; "
			      "give it, or drop --benchmark_out_format");
		r = -EINVAL;
	}
	if (r == 0 && c->gb_out && (!c->gb_out_format || strcmp(c->gb_out_format, "json") == 0))
		c->so.output = c->gb_out;
	else if (r == 0 && c->gb_out)
		r = pmc_session_exports_add_as(&c->so.exports, c->gb_out, c->gb_out_format,
					       &pmc_cli_printer) < 0 ? -ENOMEM : 0;
	/* A child of one of two builds takes the user's options, --against included. */
	builds = builds || c->against || c->build_label;
	if (r == 0 && (c->given[0] || c->given[1]) && !builds) {
		pmc_cli_error("-n %s: a label names one of two builds; give --against PATH (another "
			      "build of this program), or drop -n",
			      c->given[0] ? c->given[0] : c->given[1]);
		r = -EINVAL;
	}
	if (r == 0 && c->against && library) {
		pmc_cli_error("--against compares two builds of a benchmark program; two builds of "
			      "a shared object are two --library");
		r = -EINVAL;
	}
	if (r == 0 && c->against && c->no_fork) {
		pmc_cli_error("--against runs each build's benchmarks in processes of that build's "
			      "program; drop --no-fork");
		r = -EINVAL;
	}
	if (r == 0 && optind < argc) {
		char see[160];

		pmc_cli_error("unexpected argument '%s'; %s", argv[optind],
			      pmc_cli_see(prog, see, sizeof(see)));
		r = -EINVAL;
	}
	/* An option that would do nothing is an error, not silently ignored. */
	b = pmc_backend_get(c->so.backend);
	if (r == 0 && !b->takes_events && c->so.perf_only) {
		pmc_cli_error("%s does not apply to --backend %s, which counts each benchmark "
			      "exactly, once, in a child under %s",
			      c->so.perf_only, b->name, b->wrapper ? b->wrapper : b->name);
		r = -EINVAL;
	}
	/* The comparison options judge the gate against --baseline, or the second of two
	 * builds against the first. */
	if (r == 0)
		r = pmc_cli_compare_opts_check_used(c->copts, c->so.baseline != NULL || builds,
						    "give --baseline FILE to gate against it, or "
						    "drop the option");
	if (r == 0 && (c->gate || c->unpaired) && !builds) {
		pmc_cli_error("--%s compares two builds (--against PATH, or 'pmcbench run --library "
			      "A.so --library B.so'); against a result file, give --baseline FILE",
			      c->gate ? "gate" : "unpaired");
		r = -EINVAL;
	}
	if (r == 0 && builds && c->so.baseline) {
		pmc_cli_error("--baseline: two builds are compared with each other; run one "
			      "build against a baseline, or drop --baseline");
		r = -EINVAL;
	}
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
	if (r == 0 && c->no_fork && c->so.timeout_s > 0) {
		/* Only a child can be killed: in this process nothing could enforce it. */
		pmc_cli_error("--timeout cannot be enforced with --no-fork (the benchmarks run in "
			      "this process); drop one of them");
		r = -EINVAL;
	}
	return r;
}

int pmc_main_defs(int argc, char **argv, const struct pmc_bench_def *begin,
		  const struct pmc_bench_def *end)
{
	const char *prog = argc > 0 && argv[0] ? argv[0] : "benchmark";

	if (strrchr(prog, '/'))
		prog = strrchr(prog, '/') + 1;
	const struct pmc_cli_build own = {.begin = begin, .end = end};
	int code;

	/* Its messages send the user to its own --help, as it was started. */
	pmc_cli_set_program(argc > 0 && argv[0] ? argv[0] : prog);
	/* ASCII where the locale is not UTF-8, as pmcbench's own main() does: its messages
	 * here, its table where pmc_cli_microbench knows the format. */
	if (pmc_cli_locale_ascii()) {
		pmc_cli_set_ascii(true);
		if (pmc_cli_ascii_wrap(&stderr) < 0) {
			pmc_cli_error("out of memory");
			return PMC_EXIT_ERROR;
		}
	}
	code = pmc_cli_microbench(argc, argv, prog, &own, 1);
	if (pmc_cli_ascii_finish() < 0 && code != PMC_EXIT_ERROR) {
		fprintf(stderr, "%s: error: cannot write to standard output\n", prog);
		code = PMC_EXIT_ERROR;
	}
	pmc_cli_set_ascii(false);
	return code;
}

/* The child of --profile: runs one benchmark's loop for the time asked. Exit code. */
static int profile_child(const struct mb_cli *c, const struct pmc_mb_set *set, const char *self)
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
	pmc_cli_error("--profile-child: '%s' is not in this build (%s)", c->prof_child, self);
	return PMC_EXIT_ERROR;
}

/* One of a benchmark's processes (run_process): measures it with the options the
 * parent passed and writes the samples to the pipe it named; one this build does not have
 * is answered as such (another build's program may ask). Exit code. */
static int process_child(struct mb_cli *c, const struct pmc_mb_set *set, const char *self)
{
	struct pmc_event_list *events = NULL;
	const char *spec = pmc_cli_session_spec(&c->so) ? pmc_cli_session_spec(&c->so)
							 : PMC_DEFAULT_EVENTS;
	char err[1024];
	int code = PMC_EXIT_ERROR;

	for (size_t i = 0; i < set->n; i++) {
		if (strcmp(set->v[i].name, c->proc_child) != 0)
			continue;
		/* The parent parsed and probed the list; its notes were said there. */
		if (pmc_event_list_parse(spec, NULL, &events, err, sizeof(err)) < 0 ||
		    pmc_uprobes_resolve(events, NULL, err, sizeof(err)) < 0) {
			pmc_cli_error("--events '%s': %s", spec, err);
			pmc_event_list_free(events);
			return PMC_EXIT_ERROR;
		}
		c->mo.events = events;
		c->mo.user_only_fallback = true;
		c->mo.timeout_s = c->so.timeout_s;
		c->mo.samples = c->proc_samples ? c->proc_samples : c->mo.samples;
		c->mo.iters = c->proc_iters;
		c->mo.no_overhead = !c->proc_overhead;
		if (pmc_mb_process_child(&set->v[i], &c->mo, (int)c->proc_fd) == 0)
			code = PMC_EXIT_OK;
		pmc_event_list_free(events);
		return code;
	}
	pmc_mb_process_child_absent(c->proc_child, self, (int)c->proc_fd);
	return PMC_EXIT_ERROR;
}

/* The child of the valgrind backend: runs one benchmark's counted loops, or reports that
 * this build does not have it. Exit code. */
static int valgrind_child(const struct mb_cli *c, const struct pmc_mb_set *set, const char *self)
{
	int r = -ENOENT;

	for (size_t i = 0; r == -ENOENT && i < set->n; i++)
		if (strcmp(set->v[i].name, c->vg_child) == 0)
			r = pmc_mb_valgrind_child(&set->v[i], c->vg_iters, c->vg_report);
	if (r == -ENOENT)
		r = pmc_mb_valgrind_child_absent(c->vg_child, self, c->vg_report);
	return r < 0 ? PMC_EXIT_ERROR : PMC_EXIT_OK;
}

/* --process-list: the child protocol's line, then the benchmarks' names, which another
 * build's program reads (pmc_mb_program_list). Exit code. */
static int process_list(const struct pmc_mb_set *set)
{
	char proto[PMC_MB_PROTOCOL_MAX];

	pmc_mb_protocol(proto);
	printf("%s\n", proto);
	for (size_t i = 0; i < set->n; i++)
		printf("%s\n", set->v[i].name);
	return fflush(stdout) == 0 ? PMC_EXIT_OK : PMC_EXIT_ERROR;
}

/* Two builds of this program (--against, docs/microbench.md, "Comparing two builds"):
 * checks the other program, asks it for its benchmarks (pmc_mb_program_list: the same
 * child protocol, or an error), labels the two builds by their real paths, and makes set
 * (this program's benchmarks) the set of both, the other's first. Sets *ret_other (its
 * real path) and ret_labels, malloc'ed. Returns 0, or -errno after an error line. */
static int against_builds(const struct mb_cli *c, struct pmc_mb_set *set, char **ret_other,
			  char *ret_labels[2])
{
	struct pmc_mb_set other = {0}, both = {0};
	char **names = NULL, *path[2] = {NULL, NULL}, err[1024];
	size_t n = 0;
	struct stat st;
	int r = -EINVAL;

	if (stat(c->against, &st) < 0) {
		pmc_cli_error("--against %s: %s", c->against, strerror(errno));
		return -EINVAL;
	}
	if (!S_ISREG(st.st_mode) || access(c->against, X_OK) < 0) {
		pmc_cli_error("--against %s: not an executable file; give another build of this "
			      "benchmark program",
			      c->against);
		return -EINVAL;
	}
	path[0] = realpath(c->against, NULL);
	path[1] = path[0] ? realpath("/proc/self/exe", NULL) : NULL;
	if (!path[1]) {
		pmc_cli_error("--against %s: cannot find %s: %s", c->against,
			      path[0] ? "this program's path" : "its path", strerror(errno));
		goto out;
	}
	r = pmc_mb_program_list(c->against, c->filter, &names, &n, err, sizeof(err));
	if (r < 0) {
		pmc_cli_error("--against %s", err);
		goto out;
	}
	r = pmc_cli_build_labels((const char *const *)path, c->given, ret_labels);
	if (r < 0)
		goto out;
	r = pmc_mb_set_of_names(set, names, n, &other);
	if (r == 0)
		r = pmc_mb_set_add_build(&both, &other, ret_labels[0]);
	if (r == 0)
		r = pmc_mb_set_add_build(&both, set, ret_labels[1]);
	if (r < 0) {
		pmc_cli_error("out of memory");
		free(ret_labels[0]);
		free(ret_labels[1]);
		goto out;
	}
	pmc_mb_set_free(set);
	*set = both;
	both = (struct pmc_mb_set){0};
	*ret_other = path[0];
	path[0] = NULL;
out:
	pmc_mb_set_free(&other);
	pmc_mb_set_free(&both);
	pmc_mb_program_names_free(names, n);
	free(path[0]);
	free(path[1]);
	return r;
}

/* A report that is one document on stdout (json, csv, gobench) must stay one: from here
 * on, what the benchmarks print (in this process or the children, which inherit the
 * descriptor) goes to stderr, and the report to a copy of the original stdout, which
 * the children do not inherit. Returns that stream, or NULL after an error line. */
static FILE *document_stream(void)
{
	int fd;
	FILE *f;

	fflush(stdout);
	fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		pmc_cli_error("cannot set standard output aside for the report: %s",
			      strerror(errno));
		if (f)
			fclose(f);
		else if (fd >= 0)
			close(fd);
		return NULL;
	}
	return f;
}

/* The benchmarks of one build; with only (a child's one benchmark), of its definition. */
static int expand_build(const struct pmc_cli_build *b, const char *filter, const char *only,
			struct pmc_mb_set *ret, char *err, size_t errlen)
{
	if (only)
		return pmc_mb_expand_named(b->begin, b->end, only, ret, err, errlen);
	return pmc_mb_expand(b->begin, b->end, filter, ret, err, errlen);
}

/* The benchmarks of the builds, each of two named "LABEL:name" (pmc_mb_set_add_build),
 * into *ret. Returns 0, or -errno with one line in err. */
static int expand(const struct pmc_cli_build *builds, size_t n, const char *filter,
		  const char *only, struct pmc_mb_set *ret, char *err, size_t errlen)
{
	int r = 0;

	if (n == 1 && !builds[0].label)
		return expand_build(&builds[0], filter, only, ret, err, errlen);
	for (size_t i = 0; r == 0 && i < n; i++) {
		struct pmc_mb_set one = {0};

		r = expand_build(&builds[i], filter, only, &one, err, errlen);
		if (r == 0 && (r = pmc_mb_set_add_build(ret, &one, builds[i].label)) < 0)
			snprintf(err, errlen, "out of memory");
		pmc_mb_set_free(&one);
	}
	return r;
}

int pmc_cli_microbench(int argc, char **argv, const char *prog, const struct pmc_cli_build *builds,
		       size_t nbuilds)
{
	const char *libraries[2], *labels[2];
	char *against_labels[2] = {NULL, NULL}, *other = NULL;
	struct pmc_cli_build own;
	size_t nlibraries = 0;
	struct mb_cli c = {.mo = {.sz = sizeof(c.mo), .samples = 8, .warmup = 1},
			   .so = {.format = "table"}};
	/* The user's options as given (getopt reorders argv), for the processes. */
	char **args = argc > 1 ? calloc((size_t)argc, sizeof(*args)) : NULL;
	struct pmc_mb_set set = {0};
	struct pmc_session_cfg cfg;
	FILE *report = NULL; /* the report's stream when it is a document (document_stream) */
	char err[1024] = "";
	enum pmc_decision d = PMC_DECISION_ERROR;
	int code = PMC_EXIT_ERROR, r;

	if ((argc > 1 && !args) || pmc_cli_compare_opts_new(&c.copts) < 0) {
		pmc_cli_error("out of memory");
		free(args);
		return PMC_EXIT_ERROR;
	}
	for (int i = 1; i < argc; i++)
		args[i - 1] = argv[i];
	r = parse_args(&c, argc, argv, prog, nbuilds == 2, nbuilds && builds[0].path);
	if (r != 0) {
		code = r == 1 ? PMC_EXIT_OK : PMC_EXIT_ERROR;
		goto out;
	}
	for (size_t i = 0; i < nbuilds && i < 2; i++) {
		labels[i] = builds[i].label;
		if (builds[i].path)
			libraries[nlibraries++] = builds[i].path;
	}
	/* A child of one of two builds of a program names its benchmarks as the parent does. */
	if (c.build_label && nbuilds == 1) {
		own = builds[0];
		own.label = c.build_label;
		builds = &own;
	}
	/* A child's cost does not grow with the benchmarks: it expands its own definition. */
	if (expand(builds, nbuilds, c.filter,
		   c.proc_child ? c.proc_child : c.vg_child ? c.vg_child : c.prof_child, &set, err,
		   sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		goto out;
	}
	if (c.vg_child) {
		code = valgrind_child(&c, &set, argv[0]);
		goto out;
	}
	if (c.prof_child) {
		code = profile_child(&c, &set, argv[0]);
		goto out;
	}
	if (c.proc_child) {
		code = process_child(&c, &set, argv[0]);
		goto out;
	}
	if (c.process_list) {
		code = process_list(&set);
		goto out;
	}
	if (c.against) {
		if (against_builds(&c, &set, &other, against_labels) < 0)
			goto out;
		labels[0] = against_labels[0];
		labels[1] = against_labels[1];
	}
	/* A bad registration is said once (not by the processes), the others run, and the
	 * program exits 2 at the end (docs/microbench.md, "Exit codes"). */
	for (size_t i = 0; i < set.nbad; i++)
		pmc_cli_error("%s", set.bad[i]);
	if (c.list) {
		for (size_t i = 0; i < set.n; i++)
			printf("%s\n", set.v[i].name);
		code = fflush(stdout) == 0 && !set.nbad ? PMC_EXIT_OK : PMC_EXIT_ERROR;
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
	c.mo.timeout_s = c.so.timeout_s;
	cfg = (struct pmc_session_cfg){
	    /* Ctrl-C or SIGTERM while a benchmark's process runs stops it, and what
	     * finished is written (docs/microbench.md, "Interrupted"). */
	    .ro = {.sz = sizeof(cfg.ro),
		   .backend = c.so.backend,
		   .stop = &pmc_cli_interrupted,
		   .running = pmc_cli_running},
	    .guard = pmc_cli_guard,
	    .benchmarks = &set,
	    .mo = c.mo,
	    .no_fork = c.no_fork,
	    .processes = c.processes,
	    .libraries = libraries,
	    .labels = nbuilds == 2 || other ? labels : NULL,
	    .nlibraries = nlibraries,
	    .other_program = other,
	    .gate = c.gate,
	    .args = args,
	    .nargs = argc > 1 ? (size_t)argc - 1 : 0,
	};
	PMC_OPTS_ZERO_TAIL(pmc_mb_opts, &cfg.mo); /* what the struct copy need not bring */
	pmc_cli_session_cfg(&c.so, c.copts, &cfg);
	/* A benchmark program's table is one line per benchmark, as Google Benchmark's
	 * console report; -v gives the detailed one of `pmcbench run` (docs/microbench.md,
	 * "The report"). */
	if (!c.verbose && strcmp(cfg.format, "table") == 0)
		cfg.format = "brief";
	if (pmc_session_format_is_document(cfg.format) && !(report = document_stream()))
		goto out;
	if (!report) {
		FILE *was = stdout;

		if (pmc_cli_ascii_wrap(&stdout) < 0) {
			pmc_cli_error("out of memory");
			goto out;
		}
		if (cfg.out == was)
			cfg.out = stdout;
	}
	if (report)
		cfg.out = report;
	r = pmc_session_exec(&cfg, &d, NULL);
	code = pmc_cli_exit_status(r, d);
	/* The session flushed it and said when that failed. */
	if (report && fclose(report) != 0 && code == PMC_EXIT_OK) {
		pmc_cli_error("cannot write the report to standard output: %s", strerror(errno));
		code = PMC_EXIT_ERROR;
	}
out:
	free(args);
	free(other);
	free(against_labels[0]);
	free(against_labels[1]);
	pmc_mb_set_free(&set);
	pmc_cli_compare_opts_free(c.copts);
	pmc_cli_session_opts_clear(&c.so);
	return code;
}

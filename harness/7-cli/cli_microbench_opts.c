/* The options of a benchmark program (docs/microbench.md, "Options"): its --help, the
 * table getopt reads (with Google Benchmark's flags as aliases), and the checks of what
 * goes together. */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_microbench_priv.h"
#include "pmcbench/common.h"
#include "reporters/reporter.h"

static void help(FILE *out, const char *prog)
{
	char names[128];

	fprintf(
	    out,
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
		"                         benchstat); docs/export.md\n");
	pmc_reporter_names(PMC_REPORTERS_RESULT, names, sizeof(names));
	fprintf(out,
		"      --format=FMT       report on stdout as one of\n"
		"                         %s\n"
		"                         (default table: brief, one line per benchmark; with\n"
		"                         -v the detailed table; gobench: Go's benchmark\n"
		"                         format); with a format for programs (json, csv,\n"
		"                         gobench) what the benchmarks print goes to stderr\n",
		names);
	fprintf(
	    out,
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
	fprintf(
	    out,
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
	    "                         first as 'pmcbench gate' does, or with --reference every\n"
	    "                         benchmark against it: exit 1 when a benchmark regresses\n"
	    "      --reference=N|NAME compare every benchmark with the Nth of --list (from\n"
	    "                         1) or the one named, as 'pmcbench run --reference'\n"
	    "                         compares commands (nanobench's relative column); with\n"
	    "                         --gate, exit 1 when one regresses against it\n"
	    "      --unpaired         two builds, or --reference: compare the samples as\n"
	    "                         independent ones, not round by round (paired is the\n"
	    "                         default)\n");
	pmc_cli_compare_opts_help(out);
	fprintf(
	    out,
	    "\nGoogle Benchmark's flags are aliases: --benchmark_filter, --benchmark_list_tests,\n"
	    "--benchmark_min_time, --benchmark_repetitions (-r), --benchmark_format\n"
	    "(console, json, csv), --benchmark_out (-o), --benchmark_out_format (json,\n"
	    "csv, console: the file's format), --benchmark_counters_tabular (the\n"
	    "report has a column per counter anyway). --version: this program's name\n"
	    "and libpmcbench's version.\n");
	fprintf(out,
		"\nExit status: 0 success, 1 regression (with --baseline, or --gate), 2 error\n"
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
	OPT_REFERENCE,
	OPT_GB_TABULAR,
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
    {"reference", required_argument, NULL, OPT_REFERENCE},
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
    {"benchmark_counters_tabular", optional_argument, NULL, OPT_GB_TABULAR},
    {"benchmark_min_time", required_argument, NULL, OPT_MIN_TIME},
    {"benchmark_repetitions", required_argument, NULL, 'r'},
    {"benchmark_format", required_argument, NULL, OPT_GB_FORMAT},
    {"benchmark_out", required_argument, NULL, OPT_GB_OUT},
    {"benchmark_out_format", required_argument, NULL, OPT_GB_OUT_FORMAT},
    {NULL, 0, NULL, 0},
};

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

/* 0 to go on, 1 after --help, -EINVAL after an error line. */
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
	case OPT_REFERENCE:
		c->reference = optarg;
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
	case OPT_GB_TABULAR:
		/* The report has a column per counter already: true asks for what it does. */
		if (!optarg || strcmp(optarg, "true") == 0 || strcmp(optarg, "1") == 0)
			return 0;
		pmc_cli_error("--benchmark_counters_tabular: '%s': the report always shows a "
			      "column per counter; drop the option",
			      optarg);
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

int pmc_cli_mb_parse(struct mb_cli *c, int argc, char **argv, const char *prog, bool builds,
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
					       &pmc_cli_printer) < 0
			? -ENOMEM
			: 0;
	/* A child of one of two builds takes the user's options, --against included. */
	builds = builds || c->against || c->build_label;
	if (r == 0 && (c->given[0] || c->given[1]) && !builds) {
		pmc_cli_error(
		    "-n %s: a label names one of two builds; give --against PATH (another "
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
		r = pmc_cli_compare_opts_check_used(
		    c->copts, c->so.baseline != NULL || builds || c->reference,
		    "give --baseline FILE to gate against it, or "
		    "drop the option");
	if (r == 0 && (c->gate || c->unpaired) && !builds && !c->reference) {
		pmc_cli_error(
		    "--%s compares two builds (--against PATH, or 'pmcbench run --library "
		    "A.so --library B.so') or the benchmarks with --reference; against a "
		    "result file, give --baseline FILE",
		    c->gate ? "gate" : "unpaired");
		r = -EINVAL;
	}
	if (r == 0 && c->reference && (builds || c->so.baseline)) {
		pmc_cli_error("--reference compares this run's benchmarks with one of them; %s: "
			      "give one of them",
			      builds ? "two builds are compared with each other"
				     : "--baseline gates against a file");
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

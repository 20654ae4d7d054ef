/* `pmcbench record`: one run of a command under the sampling profiler (or callgrind),
 * saved as a profile file (docs/profile.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/perf/sample.h"
#include "cli/cli.h"
#include "profile/profile.h"
#include "profile/record.h"
#include "run/spawn.h"
#include "reporters/profile_report.h"

#define RECORD_DEFAULT_OUTPUT "pmcbench.profile.json"

static void help(FILE *out)
{
	fprintf(
	    out,
	    "Usage: pmcbench record [OPTIONS] [--] COMMAND [ARGS...]\n"
	    "       pmcbench record [OPTIONS] -p PID [--duration SECONDS]\n"
	    "Profile one run of COMMAND: where it spends its time, sampled with\n"
	    "perf_event_open (cycles where the machine has a PMU, else cpu-clock), or\n"
	    "exactly under valgrind; or a running process. Read the profile with\n"
	    "'pmcbench report'.\n\n"
	    "Options:\n"
	    "  -o, --output=FILE      write the profile to FILE (default " RECORD_DEFAULT_OUTPUT
	    ")\n"
	    "  -F, --freq=HZ          samples per second (default %d)\n"
	    "  -e, --event=EVENT      the event to sample: cycles, cpu-clock, task-clock, ...;\n"
	    "                         EVENT:u samples user space only (as perf's modifier)\n"
	    "      --call-graph=fp|dwarf[,SIZE]\n"
	    "                         how callers are found: fp (default), the kernel's walk\n"
	    "                         of frame pointers; dwarf, SIZE bytes of user stack\n"
	    "                         (default %d, at most %d) copied with each sample and\n"
	    "                         unwound with each object's CFI, for code built without\n"
	    "                         frame pointers (as perf record --call-graph dwarf)\n"
	    "      --no-callchain     record the sampled function only, not its callers\n"
	    "      --off-cpu          where the command waits instead of where it runs: each\n"
	    "                         switch-out (sched:sched_switch) with its stack, weighed by\n"
	    "                         the nanoseconds until the thread runs again (sleeps, I/O,\n"
	    "                         locks, waiting for a CPU); needs root or CAP_PERFMON\n"
	    "      --backend=perf|valgrind\n"
	    "                         valgrind: an exact profile of instructions (callgrind)\n"
	    "  -p, --pid=PID          attach to running process PID (all its threads, and what\n"
	    "                         they start) until it exits, --duration or Ctrl-C\n"
	    "      --duration=SECONDS with -p: stop sampling after this long\n"
	    "      --timeout=SECONDS  kill the command after this long\n"
	    "      --input=FILE       the command's standard input (default /dev/null)\n"
	    "      --show-output      let the command write to the terminal\n"
	    "  -h, --help             display this help and exit\n\n"
	    "Exit status: 0 when the profile was written, 2 on an error (the command could not\n"
	    "be run or profiled, the file could not be written); 130 after Ctrl-C (SIGINT), 143\n"
	    "after SIGTERM: the command is killed, the samples so far are written as a\n"
	    "profile marked partial, and pmcbench ends by the same signal. With -p the\n"
	    "process is left running, and the profile is partial only when --duration was\n"
	    "not reached.\n",
	    PMC_SAMPLE_DEFAULT_FREQ, PMC_SAMPLE_STACK_DEFAULT, PMC_SAMPLE_STACK_MAX);
}

enum {
	OPT_NO_CALLCHAIN = 0x100,
	OPT_CALL_GRAPH,
	OPT_BACKEND,
	OPT_TIMEOUT,
	OPT_INPUT,
	OPT_SHOW_OUTPUT,
	OPT_DURATION,
	OPT_OFF_CPU,
};

static const struct option long_opts[] = {
    {"output", required_argument, NULL, 'o'},
    {"freq", required_argument, NULL, 'F'},
    {"event", required_argument, NULL, 'e'},
    {"no-callchain", no_argument, NULL, OPT_NO_CALLCHAIN},
    {"off-cpu", no_argument, NULL, OPT_OFF_CPU},
    {"call-graph", required_argument, NULL, OPT_CALL_GRAPH},
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"pid", required_argument, NULL, 'p'},
    {"duration", required_argument, NULL, OPT_DURATION},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"input", required_argument, NULL, OPT_INPUT},
    {"show-output", no_argument, NULL, OPT_SHOW_OUTPUT},
    {"help", no_argument, NULL, 'h'},
    {0},
};

/* What the run did, on stderr: the samples, what was lost, what could not be named, and
 * how much weight lost its callers. */
static void summary(const struct pmc_profile *p, const char *path, bool event_given,
		    uint64_t asked_freq)
{
	const struct pmc_profile_info *in = pmc_profile_info(p);

	if (in->kind == PMC_PROFILE_EXACT) {
		fprintf(stderr, "pmcbench: recorded an exact profile of %s (%zu stacks) into %s\n",
			in->event, pmc_profile_stack_count(p), path);
	} else {
		if (!strcmp(in->event, PMC_PROFILE_OFF_CPU_EVENT))
			/* Its self time is the kernel's schedule: the waiting function is
			 * found by total. */
			fprintf(stderr,
				"pmcbench: recorded %llu waits off CPU (%.3f ms) into %s; by the "
				"function that waited: pmcbench report --children %s\n",
				(unsigned long long)pmc_profile_samples(p),
				(double)pmc_profile_total(p) / 1e6, path, path);
		else if (!event_given && strncmp(in->event, "cycles", 6) != 0)
			fprintf(stderr,
				"pmcbench: cycles cannot be sampled on this machine (no hardware "
				"PMU); sampled %s instead\n",
				in->event);
		if (strcmp(in->event, PMC_PROFILE_OFF_CPU_EVENT) != 0)
			fprintf(stderr,
				"pmcbench: recorded %llu samples of %s at %llu Hz into %s\n",
				(unsigned long long)in->samples, in->event,
				(unsigned long long)in->freq, path);
		if (in->freq && in->freq < asked_freq)
			pmc_cli_warn("sampled at %llu Hz, not the %llu Hz asked: the kernel allows "
				     "no more (/proc/sys/kernel/perf_event_max_sample_rate)",
				     (unsigned long long)in->freq, (unsigned long long)asked_freq);
		if (in->throttled)
			pmc_cli_warn("the kernel throttled sampling %llu times; parts of the run "
				     "have no samples: lower -F",
				     (unsigned long long)in->throttled);
		if (in->lost) {
			char lost[1024];

			pmc_profile_lost_text(p, false, lost, sizeof(lost));
			pmc_cli_warn("%s", lost);
		}
		if (in->samples && in->unresolved)
			fprintf(stderr,
				"pmcbench: %llu frames had no symbol (stripped objects or JIT "
				"code): they show as OBJECT+0xOFFSET\n",
				(unsigned long long)in->unresolved);
	}
	if (pmc_profile_truncated(p)) {
		fputs("pmcbench: note: ", stderr);
		pmc_profile_report_truncated(stderr, p);
		fputs("\n", stderr);
	}
}

/* --call-graph fp|dwarf[,SIZE] as perf record reads it: SIZE in bytes, rounded up to a
 * multiple of 8 (tools/perf/util/callchain.c, get_stack_size). *ret: 0 for fp. */
static int parse_call_graph(const char *s, uint32_t *ret)
{
	uint64_t size = PMC_SAMPLE_STACK_DEFAULT;

	if (strcmp(s, "fp") == 0) {
		*ret = 0;
		return 0;
	}
	if (strncmp(s, "dwarf", 5) != 0 || (s[5] && s[5] != ',')) {
		pmc_cli_error("--call-graph: '%s' is not fp or dwarf[,SIZE]; try --call-graph "
			      "dwarf",
			      s);
		return -1;
	}
	if (s[5] == ',' && pmc_cli_parse_count("--call-graph dwarf,SIZE", s + 6, 1,
					       PMC_SAMPLE_STACK_MAX, &size) < 0)
		return -1;
	*ret = (uint32_t)((size + 7) / 8 * 8);
	return 0;
}

/* A problem naming the samples (pmc_record_opts.note). */
static void note(const char *text, void *ud)
{
	(void)ud;
	pmc_cli_note("%s", text);
}

int pmc_cli_record(int argc, char **argv)
{
	struct pmc_record_opts o = {0};
	const char *output = RECORD_DEFAULT_OUTPUT;
	uint64_t pid = 0;
	bool call_graph = false;
	struct pmc_spawn_result sr;
	struct pmc_profile *p = NULL;
	char err[1024];
	int opt, r;

	optind = 0;
	while ((opt = pmc_cli_getopt(argc, argv, "+:o:F:e:p:h", long_opts, "record")) != -1) {
		switch (opt) {
		case 'o':
			output = optarg;
			break;
		case 'F':
			if (pmc_cli_parse_count("--freq", optarg, 1, 100000, &o.freq) < 0)
				return PMC_EXIT_ERROR;
			break;
		case 'e':
			o.event = optarg;
			break;
		case OPT_NO_CALLCHAIN:
			o.no_callchain = true;
			break;
		case OPT_OFF_CPU:
			o.off_cpu = true;
			break;
		case OPT_CALL_GRAPH:
			if (parse_call_graph(optarg, &o.dwarf_stack) < 0)
				return PMC_EXIT_ERROR;
			call_graph = true;
			break;
		case OPT_BACKEND:
			if (strcmp(optarg, "valgrind") == 0) {
				o.valgrind = true;
			} else if (strcmp(optarg, "perf") != 0) {
				pmc_cli_error("--backend: '%s' is not perf or valgrind", optarg);
				return PMC_EXIT_ERROR;
			}
			break;
		case 'p':
			if (pmc_cli_parse_count("--pid", optarg, 1, INT32_MAX, &pid) < 0)
				return PMC_EXIT_ERROR;
			break;
		case OPT_DURATION:
			if (pmc_cli_parse_seconds("--duration", optarg, 0, &o.duration_s) < 0)
				return PMC_EXIT_ERROR;
			if (o.duration_s <= 0) {
				pmc_cli_error("--duration: give a time above 0 (or none: until "
					      "Ctrl-C)");
				return PMC_EXIT_ERROR;
			}
			break;
		case OPT_TIMEOUT:
			if (pmc_cli_parse_seconds("--timeout", optarg, 0, &o.timeout_s) < 0)
				return PMC_EXIT_ERROR;
			break;
		case OPT_INPUT:
			o.input_path = optarg;
			break;
		case OPT_SHOW_OUTPUT:
			o.show_output = true;
			break;
		case 'h':
			help(stdout);
			return PMC_EXIT_OK;
		default:
			return PMC_EXIT_ERROR;
		}
	}
	if (pid && optind < argc) {
		pmc_cli_error("record: -p attaches to a running process and a command would be "
			      "started: give one of them");
		return PMC_EXIT_ERROR;
	}
	if (!pid && o.duration_s > 0) {
		pmc_cli_error("--duration is for -p; a command is recorded until it exits (or "
			      "--timeout kills it)");
		return PMC_EXIT_ERROR;
	}
	if (pid && (o.valgrind || o.timeout_s > 0 || o.input_path || o.show_output)) {
		pmc_cli_error("-p attaches to a running process: --backend valgrind, --timeout, "
			      "--input and --show-output are for a command it starts; leave them "
			      "out");
		return PMC_EXIT_ERROR;
	}
	if (!pid && optind >= argc) {
		pmc_cli_error(
		    "record: no command to profile; try 'pmcbench record -- ./prog args' or "
		    "'pmcbench record -p PID'");
		return PMC_EXIT_ERROR;
	}
	if (o.valgrind && (o.event || o.freq || o.no_callchain || call_graph)) {
		pmc_cli_error("--backend valgrind profiles every instruction exactly: -e, -F, "
			      "--call-graph and --no-callchain would do nothing; leave them out");
		return PMC_EXIT_ERROR;
	}
	if (o.off_cpu && (o.valgrind || o.event || o.freq)) {
		pmc_cli_error("--off-cpu samples every switch-out of the command's threads: -e, -F "
			      "and --backend valgrind would sample something else; leave them out");
		return PMC_EXIT_ERROR;
	}
	if (o.no_callchain && call_graph) {
		pmc_cli_error("--no-callchain records no callers, --call-graph how to find them: "
			      "give one of them");
		return PMC_EXIT_ERROR;
	}
	if (pmc_session_check_path(&pmc_cli_printer, "--output", output) < 0)
		return PMC_EXIT_ERROR;
	o.argv = argv + optind;
	o.name = pid ? NULL : argv[optind];
	o.attach_pid = (uint32_t)pid;
	o.note = note;
	o.running = pmc_cli_running;
	o.stop = &pmc_cli_interrupted;
	pmc_cli_catch_signals(true);
	r = pmc_profile_record(&o, &p, &sr, err, sizeof(err));
	pmc_cli_catch_signals(false);
	if (pmc_cli_interrupted) {
		char what[1400];

		/* The samples so far are kept, as perf record keeps them: the profile says it
		 * is partial, and the exit status that a signal ended the recording. */
		if (r == 0 && pmc_profile_save(p, output, err, sizeof(err)) == 0)
			snprintf(what, sizeof(what), "wrote the %llu samples recorded %s to %s%s",
				 (unsigned long long)pmc_profile_info(p)->samples,
				 pid ? "until then" : "so far", output,
				 pmc_profile_info(p)->partial ? " (a partial profile)" : "");
		else
			snprintf(what, sizeof(what), "no profile was written%s%s",
				 r == 0 ? ": " : "", r == 0 ? err : "");
		pmc_profile_free(p);
		pmc_cli_die_interrupted(what);
		return PMC_EXIT_ERROR;
	}
	if (r < 0) {
		pmc_cli_error("record: %s", err);
		return PMC_EXIT_ERROR;
	}
	if (sr.timed_out)
		pmc_cli_warn("'%s' timed out and was killed; the profile covers what it did",
			     argv[optind]);
	else if (sr.term_signal)
		pmc_cli_warn("'%s' was killed by signal %d; the profile covers what it did",
			     argv[optind], sr.term_signal);
	else if (sr.exit_code)
		pmc_cli_warn("'%s' exited with status %d", argv[optind], sr.exit_code);
	r = pmc_profile_save(p, output, err, sizeof(err));
	if (r < 0) {
		pmc_cli_error("%s", err);
		pmc_profile_free(p);
		return PMC_EXIT_ERROR;
	}
	summary(p, output, o.event != NULL, o.freq ? o.freq : PMC_SAMPLE_DEFAULT_FREQ);
	pmc_profile_free(p);
	return PMC_EXIT_OK;
}

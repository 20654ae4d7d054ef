/* A benchmark program's command line (cli_microbench.c) and its options
 * (cli_microbench_opts.c): what the user and the parent process asked for. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/cli.h"
#include "microbench/microbench.h"

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
	/* --reference N or NAME: compare every benchmark with that one (the Nth, from 1, of
	 * --list's, or the one named), as `run --reference` does commands; NULL: none. */
	const char *reference;
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

/* Parses the options into c (which the caller zeroed but for its defaults). builds: two
 * builds of shared objects; library: pmcbench runs shared objects. Returns 0 to go on, 1
 * after --help or --version, -errno after an error line. */
int pmc_cli_mb_parse(struct mb_cli *c, int argc, char **argv, const char *prog, bool builds,
		     bool library);

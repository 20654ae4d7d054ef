/* The valgrind backend: exact, simulated counts for machines without a PMU.
 *
 * The target runs under callgrind (default) or cachegrind with cache and branch
 * simulation; every process writes its own output file into a directory, and
 * pmc_valgrind_collect() sums them. Use:
 *
 *	pmc_valgrind_find(&vg);                   -ENOENT: valgrind is not installed
 *	pmc_valgrind_outdir_new(NULL, &dir);      a fresh directory per run
 *	pmc_valgrind_argv(&opts, target, &argv);  exec argv (spawn with ADDR_NO_RANDOMIZE)
 *	... spawn argv, wait ...
 *	pmc_valgrind_collect(dir, &counts, err, sizeof(err));
 *	for each i < pmc_valgrind_metric_count(): pmc_valgrind_metric_value(&counts, i, &v, ...)
 *	pmc_valgrind_outdir_remove(dir);
 *
 * docs/valgrind.md explains the metrics, the estimated-cycles formula, children and
 * the microbenchmark plan. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pmc_reading;

/* The events valgrind's cache and branch simulators count, with the names they have in
 * the "events:" line of cachegrind and callgrind output files. */
#define PMC_VALGRIND_EVENTS(X)                                                                     \
	X(IR, "Ir")	/* instructions executed */                                                \
	X(DR, "Dr")	/* data reads */                                                           \
	X(DW, "Dw")	/* data writes */                                                          \
	X(I1MR, "I1mr") /* L1 instruction cache read misses */                                     \
	X(D1MR, "D1mr") /* L1 data cache read misses */                                            \
	X(D1MW, "D1mw") /* L1 data cache write misses */                                           \
	X(ILMR, "ILmr") /* last-level cache instruction read misses */                             \
	X(DLMR, "DLmr") /* last-level cache data read misses */                                    \
	X(DLMW, "DLmw") /* last-level cache data write misses */                                   \
	X(BC, "Bc")	/* conditional branches executed */                                        \
	X(BCM, "Bcm")	/* conditional branches mispredicted */                                    \
	X(BI, "Bi")	/* indirect branches executed */                                           \
	X(BIM, "Bim")	/* indirect branches mispredicted */

enum pmc_valgrind_event {
#define PMC_VG_EV_ENUM(sym, name) PMC_VG_EV_##sym,
	PMC_VALGRIND_EVENTS(PMC_VG_EV_ENUM)
#undef PMC_VG_EV_ENUM
	    PMC_VG_EV_COUNT
};

/* The metrics the backend reports, by their stable ids: counts with status exact.
 * Their units, directions and descriptions are in the metric registry
 * (harness/2-core/metrics.c); the formulas of branch-misses and est-cycles are in
 * valgrind_metrics.c and docs/valgrind.md. */
#define PMC_VALGRIND_METRICS(X)                                                                    \
	X(INSTRUCTIONS, "instructions")			    /* Ir */                               \
	X(DATA_READS, "data-reads")			    /* Dr */                               \
	X(DATA_WRITES, "data-writes")			    /* Dw */                               \
	X(I1_MISSES, "I1-misses")			    /* I1mr */                             \
	X(LLI_MISSES, "LLi-misses")			    /* ILmr */                             \
	X(D1_READ_MISSES, "D1-read-misses")		    /* D1mr */                             \
	X(D1_WRITE_MISSES, "D1-write-misses")		    /* D1mw */                             \
	X(LLD_READ_MISSES, "LLd-read-misses")		    /* DLmr */                             \
	X(LLD_WRITE_MISSES, "LLd-write-misses")		    /* DLmw */                             \
	X(BRANCH_COND, "branch-cond")			    /* Bc */                               \
	X(BRANCH_COND_MISSES, "branch-cond-misses")	    /* Bcm */                              \
	X(BRANCH_INDIRECT, "branch-indirect")		    /* Bi */                               \
	X(BRANCH_INDIRECT_MISSES, "branch-indirect-misses") /* Bim */                              \
	X(BRANCH_MISSES, "branch-misses")		    /* Bcm + Bim */                        \
	X(EST_CYCLES, "est-cycles") /* L1 hits + 5 x LL hits + 35 x memory accesses */

enum pmc_valgrind_metric {
#define PMC_VG_M_ENUM(sym, id) PMC_VG_M_##sym,
	PMC_VALGRIND_METRICS(PMC_VG_M_ENUM)
#undef PMC_VG_M_ENUM
	    PMC_VG_M_COUNT
};

enum pmc_valgrind_tool {
	/* Default: its dumps before fork() let forked children be counted exactly, and it
	 * can count only the benchmark body (collect_only, collect_atstart_off). */
	PMC_VALGRIND_CALLGRIND = 0,
	/* About 1.7x faster on compute-bound code, but a child forked without exec also
	 * reports its parent's counts up to the fork (docs/valgrind.md, "Children"). */
	PMC_VALGRIND_CACHEGRIND = 1,
};

/* Zero-initialised fields mean the defaults, so `{.outdir = dir}` is a
 * complete, valid set of options. */
struct pmc_valgrind_opts {
	const char *outdir;   /* required: an existing, empty directory for this run's files */
	const char *valgrind; /* from pmc_valgrind_find(); NULL: "valgrind" in PATH */
	enum pmc_valgrind_tool tool;
	bool no_cache_sim;  /* --cache-sim=no: no cache events, so no miss metrics nor est-cycles */
	bool no_branch_sim; /* --branch-sim=no: no branch metrics */
	/* Simulate the caches valgrind detects on this machine instead of the fixed
	 * reference geometry (I1 and D1 32 KiB 8-way, LL 8 MiB 16-way, 64 B lines), which
	 * keeps miss counts comparable between machines. */
	bool host_caches;
	bool no_children; /* --trace-children=no: do not follow exec'd programs */
	/* Callgrind only: count only while inside functions matching these patterns
	 * (--toggle-collect=PATTERN each, with --collect-atstart=no). NULL-terminated. */
	const char *const *collect_only;
	/* Callgrind only: start with collection off; the program switches it on and off
	 * around the measured code with CALLGRIND_TOGGLE_COLLECT (valgrind/callgrind.h). */
	bool collect_atstart_off;
	/* Passed to valgrind verbatim after our options, before the target. NULL-terminated. */
	const char *const *extra_args;
};

struct pmc_valgrind_counts {
	uint64_t ev[PMC_VG_EV_COUNT]; /* summed over every output file */
	uint32_t present;	      /* bit (1u << event): collected in every file */
	enum pmc_valgrind_tool tool;  /* which tool wrote the files */
	unsigned files;		      /* output files summed (callgrind: one per dump) */
	unsigned processes;	      /* distinct processes that wrote them */
	char caches[192]; /* simulated geometry from the "desc:" lines, "" when not simulated */
};

/* Looks valgrind up in PATH. Returns 0 and a malloc'ed absolute path in *ret_path, or
 * -ENOENT when it is not installed, -ENOMEM. */
int pmc_valgrind_find(char **ret_path);

/* Builds the argv to exec: valgrind, its options (output and log files in opts->outdir,
 * one per process: %p), then target_argv (NULL-terminated). The result is one malloc'ed
 * block, freed with free(). Returns 0, -EINVAL for bad options (no outdir, a callgrind
 * option with cachegrind, an empty target), -ENOENT/-EACCES when the target is not an
 * executable file (found in PATH when it has no '/'), -ENOMEM. */
int pmc_valgrind_argv(const struct pmc_valgrind_opts *opts, char *const *target_argv,
		      char ***ret_argv);

/* Parses every callgrind.out.* or cachegrind.out.* file in outdir and sums them into
 * *ret (untouched on failure). Errors come with one line in err naming the file and the
 * problem: -ENOENT no output file (valgrind failed before the target ran), -EINVAL a
 * malformed or truncated file or one whose events differ from the others, -EOVERFLOW a
 * count or a sum above 2^63 - 1 (the largest count a result holds), or -errno from
 * reading. Never returns 0 with a count it did not read. */
int pmc_valgrind_collect(const char *outdir, struct pmc_valgrind_counts *ret, char *err,
			 size_t errlen);

/* Reads the numbered callgrind dumps of the one process that wrote outdir's files
 * (callgrind.out.PID.1, .2, ...: one per CALLGRIND_DUMP_STATS request, in request
 * order), each on its own, into ret[0..*ret_n-1]; the dump at the program's end (the
 * file without a number) is not one of them. At most max dumps. Returns 0, or the errors
 * of pmc_valgrind_collect and -EINVAL when the files are not one callgrind process's or
 * their numbers are not 1..n without a gap, -E2BIG when there are more than max. */
int pmc_valgrind_collect_dumps(const char *outdir, struct pmc_valgrind_counts *ret, size_t max,
			       size_t *ret_n, char *err, size_t errlen);

/* Copies into buf the first line of valgrind's logs in outdir that says why a run
 * failed ("Process terminating with default action of signal 11 (SIGSEGV)", an
 * unhandled instruction, a fatal error), without the "==pid==" prefix. Returns 0,
 * -ENOENT when no log says anything of the kind, or -errno. */
int pmc_valgrind_log_error(const char *outdir, char *buf, size_t len);

/* Creates a fresh, empty directory for one run's files under parent (NULL: $TMPDIR or
 * /tmp). Returns 0 and a malloc'ed path, or -errno. */
int pmc_valgrind_outdir_new(const char *parent, char **ret_path);
/* Deletes the output and log files this backend writes, then the directory. Returns 0,
 * or -ENOTEMPTY when other files remain (they are left alone), or -errno. Accepts NULL. */
int pmc_valgrind_outdir_remove(const char *dir);

/* The metric table: PMC_VG_M_COUNT entries, in PMC_VALGRIND_METRICS order. */
size_t pmc_valgrind_metric_count(void);
/* The metric's id ("instructions", "est-cycles", ...) or NULL when i is out of range. */
const char *pmc_valgrind_metric_id(size_t i);
/* The metric's value from the counts. Returns 0, -ENODATA when an event it needs was
 * not collected (never a 0 in its place), -ERANGE with one line in err naming the metric
 * and the numbers when the counts contradict each other (more LL than L1 misses) or the
 * value is above 2^63 - 1 (the largest count a result holds), -EINVAL when i is out of
 * range. */
int pmc_valgrind_metric_value(const struct pmc_valgrind_counts *c, size_t i, uint64_t *ret,
			      char *err, size_t errlen);
/* The same as a reading with status PMC_STATUS_EXACT (no enabled/running times). */
int pmc_valgrind_metric_reading(const struct pmc_valgrind_counts *c, size_t i,
				struct pmc_reading *ret, char *err, size_t errlen);

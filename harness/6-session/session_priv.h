/* Between the session's files (session.c, session_probe.c, session_commands.c,
 * session_benchmarks.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters/perf/hybrid.h"
#include "counters/perf/sys.h"
#include "session/session.h"

struct pmc_event_hold;
struct pmc_event_list;
struct pmc_uprobe_set;
struct pmc_result;

/* The events a session counts, and what their probe found (session_probe.c). */
struct pmc_session_events {
	struct pmc_event_list *events;
	struct pmc_event_hold *held;   /* held open for the whole session (pmc_events_hold) */
	struct pmc_uprobe_set *probes; /* the uprobe events' probes (run/uprobes.h) */
	/* The machine the events were looked up on, once: pmc_runner_opts.sys points here. */
	struct pmc_sys machine_sys;
	struct pmc_hybrid_machine machine;
	/* Why events are missing (the probe's reason; "" when none is), and whether any
	 * counts user space only (:u). */
	char missing_why[512];
	bool user_only;
};

/* Parses spec (--events) into ev, resolves its uprobe events through the first command's
 * executable (or this program), shares one look-up of the machine through ro->sys, holds
 * the events open and probes them once on this process, saying in one message which are
 * missing and why, unless cfg->quiet (or, with brief, the brief table says it); a missing
 * event is an error with cfg->require_counters. Returns 0, or -errno after an error
 * message; free with pmc_session_events_clear (also after a failure). */
int pmc_session_events_probe(const struct pmc_session_cfg *cfg, struct pmc_runner_opts *ro,
			     const char *spec, bool brief, struct pmc_session_events *ev);
void pmc_session_events_clear(struct pmc_session_events *ev);

/* Gives every event metric of r that no run of its benchmark counted (unsupported or
 * denied: the machine's doing, not the benchmark's) the probe's reason as its note, so
 * that the report says why in its one line of missing counters. Returns 0 or -ENOMEM. */
int pmc_session_note_missing(struct pmc_result *r, const char *reason);

/* Every command names an executable that exists (its path is kept in the command): else
 * an error message and -EINVAL. */
int pmc_session_check_commands(struct pmc_runner_cmd *cmds, size_t n,
			       const struct pmc_session_printer *pr);

/* Runs cfg's commands with the runner's options opts and events into result, the
 * progress and the signal guard around them, and on a failed run says what it wrote to
 * its standard error. Returns 0, -EINTR when stopped (nothing said yet), or -errno after
 * an error message. */
int pmc_session_run_commands(const struct pmc_session_cfg *cfg, const struct pmc_runner_opts *opts,
			     const struct pmc_event_list *events, struct pmc_result *result);

/* What running cfg's benchmarks needs and gives (session_benchmarks.c). */
struct pmc_session_benchmarks {
	/* This program, run again in the exact mode (under valgrind) and for --profile; proc_self:
	 * the same with the user's options, for the processes. Per build: [0] also for the
	 * program's own benchmarks and both shared objects', [1] this program of two builds of a
	 * program (pmc_session_cfg.other_program is [0]'s). */
	char **self[2];
	char **proc_self[2];
	uint64_t reads[2]; /* group reads through rdpmc and read(), over every batch */
	bool fit_failed;   /* a complexity fit could not be made (said): the outcome is an error */
};

/* Finds this program's path for the processes or the exact mode. Returns 0, or
 * -errno after an error message. */
int pmc_session_benchmarks_prepare(const struct pmc_session_cfg *cfg,
				   struct pmc_session_benchmarks *b);
/* Runs every benchmark (each in processes of its own, or once in the exact mode of a
 * backend that marks, under program, its find's) into result,
 * profiling each one's loop with cfg->profile into ps. A benchmark that fails is reported
 * and the others go on. With cfg->guard (forked processes), a signal stops the run: the
 * processes that finished are recorded and result->incomplete says why (docs/microbench.md,
 * "Interrupted"). Returns the number that failed. */
size_t pmc_session_run_benchmarks(const struct pmc_session_cfg *cfg,
				  struct pmc_session_benchmarks *b,
				  const struct pmc_event_list *events, const char *program,
				  struct pmc_result *result, struct pmc_session_profiles *ps);
/* After the run: the complexity fits (each said as a note unless quiet; one that cannot
 * be made is an error message and sets b->fit_failed), how the counters were read (the
 * result's environment), and with --profile, a profile of each benchmark's loop. Returns
 * 0 or -ENOMEM. */
int pmc_session_benchmarks_finish(const struct pmc_session_cfg *cfg,
				  struct pmc_session_benchmarks *b, struct pmc_result *result,
				  struct pmc_session_profiles *ps);
void pmc_session_benchmarks_clear(struct pmc_session_benchmarks *b);

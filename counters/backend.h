/* The backends: what counts a command's runs (docs/architecture.md, "Backends"). A backend
 * is a table of operations; the runner (harness/3-run/runner.c) drives every backend
 * through it and never asks which one it has. Each lives in a folder of its own
 * (counters/perf/, counters/valgrind/) and is registered by one line of PMC_BACKENDS.
 *
 * One run of a command, as the runner does it:
 *
 *	session_new(opts, &s)                       once, before the first run
 *	run_new(s, measured, argv, ..., &run)       what to exec: argv or a wrapper's argv
 *	round_start(s, measured)                    right before spawning (a duet: two runs)
 *	spawn run_argv(run), run_in_child(run) in the child before exec
 *	run_peek(run, ...) while it runs            run -I: its counts so far
 *	round_stop(s, r)                            right after the run is reaped
 *	run_collect(run, ...)                       when it ran: its readings
 *	run_reading(run, i, ...) for each metric    when it is recorded
 *	run_free(run) ... session_free(s)
 *
 * A benchmark program's batches (harness/5-microbench/measure.c) count on the calling
 * thread, around the loop, with no session:
 *
 *	thread_open(opts, &t)                       counting from here
 *	thread_read(t, ...) at each batch's edges   cumulative readings
 *	thread_pause(t, true) ... (t, false)        pmc_pause, pmc_resume
 *	thread_parts(t, i, ...)                     a split event's PMUs (hybrid CPUs)
 *	thread_read_counts(t, ...), thread_close(t)
 *
 * A backend that counts whole programs only (thread_open: -EOPNOTSUPP) and says `marks`
 * gives benchmark programs their exact mode (harness/5-microbench/exact.c): the program
 * runs again under it, and counts only what it marks:
 *
 *	mark_check(...)                             in the parent: can this build mark?
 *	session_new({.marked = true, ...}) ... run_new, spawned, run_collect
 *	  in the program: mark_toggle() at each loop's edges, mark_zero() and
 *	  mark_dump(what) around each loop: every dump is one reading of every metric
 *	run_dumps(run), run_dump_reading(run, k, i, ...), run_dump_file(run, k, ...) */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "counters/reading.h"

struct pmc_event_list;
struct pmc_sys;

/* The registry: one line per backend, X(SYMBOL, name), where name is the folder, the
 * spelling of --backend and of a result's "backend", and pmc_backend_<name> the table of
 * operations the folder defines. */
#define PMC_BACKENDS(X)                                                                            \
	X(PERF, perf)                                                                              \
	X(VALGRIND, valgrind)

enum pmc_backend {
#define PMC_BACKEND_ENUM(sym, name) PMC_BACKEND_##sym,
	PMC_BACKENDS(PMC_BACKEND_ENUM)
#undef PMC_BACKEND_ENUM
	    PMC_BACKEND_COUNT
};

/* What a session asks of its backend; each backend reads the fields it knows. */
struct pmc_backend_opts {
	const struct pmc_event_list *events; /* perf: the events each run counts */
	bool user_only_fallback;	     /* perf: count user space only when denied more */
	const struct pmc_sys *sys;	     /* perf: NULL, the kernel */
	int valgrind_tool;		     /* valgrind: enum pmc_valgrind_tool */
	const char *program;		     /* the program the backend's find gave (NULL: none) */
	/* A backend that marks (pmc_backend_ops.marks): each run counts only what its
	 * program marks, and none of the programs it starts, into a dump at each
	 * mark_dump. */
	bool marked;
	/* More arguments of the wrapper's own, after the backend's, before the command
	 * (NULL-terminated; NULL: none): those that make each dump an exact profile
	 * (pmc_profile_marked_args, harness/4-profile/marked.h). */
	const char *const *wrapper_args;
};

/* The format of a marked run's dump files (pmc_backend_ops.run_dump_file), which the
 * profile layer reads into an exact profile (harness/4-profile/marked.c): counters/ has
 * no profile model, so a backend says what its files are and the reader is there. */
enum pmc_dump_format {
	PMC_DUMP_NONE,	    /* its dumps have no file to profile */
	PMC_DUMP_CALLGRIND, /* callgrind's output files (harness/4-profile/callgrind.c) */
};

/* The most dumps a marked run's program may make (pmc_backend_ops.run_dumps). */
#define PMC_BACKEND_DUMPS_MAX 16

struct pmc_backend_session;
struct pmc_backend_run;

/* What a benchmark program's batches ask of the backend that counts them on the calling
 * thread. */
struct pmc_backend_thread_opts {
	const struct pmc_event_list *events; /* the events each batch counts */
	bool user_only_fallback;	     /* count user space only when denied more */
	/* The threads the calling one starts count too, folded in as they end (a batch of
	 * several threads). */
	bool inherit;
	bool self_read;		   /* perf: read without a system call where allowed */
	const struct pmc_sys *sys; /* perf: NULL, the kernel */
};

struct pmc_backend_thread;

/* What a result's environment records of the backend that measured it
 * (pmc_backend_ops.env), besides the machine's fingerprint: the counts it gives differ
 * with these. */
#define PMC_BACKEND_ENV_MAX 4
struct pmc_backend_env {
	/* n pairs, each key and value static or the session options' strings. */
	const char *key[PMC_BACKEND_ENV_MAX], *value[PMC_BACKEND_ENV_MAX];
	size_t n;
	/* Recorded as version_key (after the pairs): the first line the backend's program
	 * (its find's path) prints when run with the one argument version_arg. NULL: the
	 * backend has no version of its own (perf's is the kernel's). */
	const char *version_key, *version_arg;
};

/* What a run's child calls just before exec, with the run (pmc_spawn_opts.in_child). */
typedef int (*pmc_backend_child_fn)(void *run);

/* Every operation is set in every backend (tests/test_backend.c checks it). Operations
 * that can fail return 0 or a negative errno. */
struct pmc_backend_ops {
	const char *name;
	/* The program each command runs under ("valgrind"), which messages name; NULL when
	 * the command runs as it is. A wrapper's own messages go to its logs (run_failure),
	 * so the command's standard error is not kept for a message. */
	const char *wrapper;
	/* Simulated counts: exact, the same in identical runs whatever runs beside them
	 * (the runs are spawned without address-space randomization; one run decides; no
	 * duet), never multiplexed, and with no wait4 figures of the command's own (wait4
	 * measures the simulator). */
	bool simulated;
	/* Counts the events its user names (pmc_backend_opts.events: -e, --require-counters),
	 * which the session probes before the runs and records in the result's environment;
	 * false: its metrics are fixed (nmetrics) and an event list is refused. */
	bool takes_events;
	/* Counts a program's marked stretches (pmc_backend_opts.marked, the mark_
	 * operations): a benchmark program runs in the exact mode under it. */
	bool marks;
	/* The format of its dumps' files (run_dump_file), for their exact profiles. */
	enum pmc_dump_format dump_format;

	/* What the result's environment records of the backend with session options o into
	 * *ret (zeroed first): valgrind's tool and version. */
	void (*env)(const struct pmc_backend_opts *o, struct pmc_backend_env *ret);

	/* Whether this machine can use the backend: 0 with the program it needs in
	 * *ret_path (malloc'ed; NULL when it needs none), or -ENOENT with one line in err
	 * saying what to install. */
	int (*find)(char **ret_path, char *err, size_t errlen);

	/* A session: the state its runs share. -ENOMEM, or 0. */
	int (*session_new)(const struct pmc_backend_opts *o, struct pmc_backend_session **ret);
	void (*session_free)(struct pmc_backend_session *s);
	/* The metrics each run gives, by their ids, in order; none: nothing to run. */
	size_t (*nmetrics)(const struct pmc_backend_session *s);
	const char *(*metric_id)(const struct pmc_backend_session *s, size_t i);
	/* The event list the metrics are, whose groups tell which ratios multiplexing
	 * cannot skew (pmc_derive_opts.events); NULL when nothing is multiplexed. */
	const struct pmc_event_list *(*events)(const struct pmc_backend_session *s);

	/* Around spawning one round's runs (two at once in a duet), on the caller's thread:
	 * start right before, stop right after they are reaped (r: how spawning went;
	 * returns r, or the stop's error). */
	int (*round_start)(struct pmc_backend_session *s, bool measured);
	int (*round_stop)(struct pmc_backend_session *s, int r);

	/* One run of argv, the command display names: -errno with one line in err naming
	 * it. Then what to exec (argv itself when the backend has no wrapper), and what the
	 * child calls before exec (NULL: nothing). */
	int (*run_new)(struct pmc_backend_session *s, bool measured, char *const *argv,
		       const char *display, struct pmc_backend_run **ret, char *err, size_t errlen);
	char *const *(*run_argv)(const struct pmc_backend_run *run);
	pmc_backend_child_fn (*run_in_child)(const struct pmc_backend_run *run);
	/* After a run that was spawned and reaped (whatever its exit status): collects its
	 * readings. -errno, with one line in why when the errno does not say it all ("" when
	 * it does). On the caller's thread, one run after the other. */
	int (*run_collect)(struct pmc_backend_run *run, char *why, size_t whylen);
	/* Metric i's reading of a collected run and, on a hybrid CPU, its parts (n 0
	 * otherwise); a metric this run has no value of is a reading with its status.
	 * -ERANGE with one line in why when the counts contradict each other. */
	int (*run_reading)(const struct pmc_backend_run *run, size_t i, struct pmc_reading *ret,
			   struct pmc_reading_parts *ret_parts, char *why, size_t whylen);
	/* While a measured run's command runs (run -I), on the caller's thread: the
	 * cumulative readings of every metric so far into ret (nmetrics entries).
	 * -EOPNOTSUPP for a backend whose counts come only at the end. */
	int (*run_peek)(struct pmc_backend_run *run, struct pmc_reading *ret);
	/* Why a run that failed did, in the wrapper's words (its logs): 0 with one line in
	 * buf, or -ENOENT when they say nothing. */
	int (*run_failure)(const struct pmc_backend_run *run, char *buf, size_t len);
	/* Frees the run (closing what it opened); accepts NULL. */
	void (*run_free)(struct pmc_backend_run *run);

	/* Counting on the calling thread (a benchmark program's batches): opens the events
	 * counting from now on; -errno, -EOPNOTSUPP for a backend that counts whole
	 * commands only (a simulator: a benchmark program runs in its exact mode,
	 * harness/5-microbench/exact.c). An event that does not open is a reading with its
	 * status, not a failure. */
	int (*thread_open)(const struct pmc_backend_thread_opts *o,
			   struct pmc_backend_thread **ret);
	/* Every event's cumulative reading into ret (one per event) and, when ret_parts is
	 * not NULL, the readings of a split event's parts from the same read into
	 * ret_parts[PMC_PARTS_MAX * i + k]. */
	int (*thread_read)(struct pmc_backend_thread *t, struct pmc_reading *ret,
			   struct pmc_reading *ret_parts);
	/* Event i's parts on a hybrid CPU, without readings: how many (0: counted as one),
	 * whether it counts on some core types only, each part's PMU. */
	void (*thread_parts)(const struct pmc_backend_thread *t, size_t i,
			     struct pmc_reading_parts *ret);
	/* Leaves what every event counts from here (pmc_pause) to the resume (pmc_resume) out
	 * of its later readings, times included. */
	int (*thread_pause)(struct pmc_backend_thread *t, bool pause);
	/* How the reads went so far: without a system call, and with one. */
	void (*thread_read_counts)(const struct pmc_backend_thread *t, uint64_t *ret_self,
				   uint64_t *ret_sys);
	/* Closes what thread_open opened; accepts NULL. */
	void (*thread_close)(struct pmc_backend_thread *t);

	/* The exact mode (marks). Whether this build of the program can mark: 0, or
	 * -EOPNOTSUPP with one line in err saying why not (how to build it in). */
	int (*mark_check)(char *err, size_t errlen);
	/* In the program that runs under the backend, on the thread that runs the marked
	 * code; each does nothing when the program runs under no backend. Counting on
	 * when off, off when on: at a loop's two edges, and at a pause and its resume. */
	void (*mark_toggle)(void);
	/* The counts so far forgotten. */
	void (*mark_zero)(void);
	/* The counts since the last zero or dump into the next dump, named what. */
	void (*mark_dump)(const char *what);
	/* After run_collect of a marked run: how many dumps its program made, in order. */
	size_t (*run_dumps)(const struct pmc_backend_run *run);
	/* Metric i's reading in dump k (a metric not counted: a reading with its status).
	 * -ERANGE with one line in why when the counts contradict each other. */
	int (*run_dump_reading)(const struct pmc_backend_run *run, size_t k, size_t i,
				struct pmc_reading *ret, char *why, size_t whylen);
	/* The file dump k was written to (malloc'ed, into *ret_path), in dump_format, from
	 * which an exact profile is read (harness/4-profile/marked.h): 0, -ENOENT when there
	 * is none, or -ENOMEM. */
	int (*run_dump_file)(const struct pmc_backend_run *run, size_t k, char **ret_path);
};

/* The backend registered as id, or NULL for no such id. */
const struct pmc_backend_ops *pmc_backend_get(enum pmc_backend id);

/* The backend named name ("perf", "valgrind") into *ret. Returns 0, or -ENOENT. */
int pmc_backend_find(const char *name, enum pmc_backend *ret);

/* The tables of the registered backends, each in its folder. */
#define PMC_BACKEND_DECLARE(sym, name) extern const struct pmc_backend_ops pmc_backend_##name;
PMC_BACKENDS(PMC_BACKEND_DECLARE)
#undef PMC_BACKEND_DECLARE

/* pmc_main_defs(): the command line of every benchmark program (docs/microbench.md,
 * "Options"): expand and filter the registered benchmarks, answer as one of the
 * processes the session starts, or run them all in one session (harness/6-session/),
 * which reports, saves and gates as `pmcbench run` does. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "counters/backend.h"
#include "counters/perf/events.h"
#include "cli/cli.h"
#include "counters/perf/uprobe.h"
#include "run/uprobes.h"
#include "microbench/microbench.h"
#include "microbench/program.h"
#include "pmcbench/common.h"
#include "pmcbench/metrics.h"
#include "cli/cli_microbench_priv.h"

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
	struct pmc_uprobe_set *probes = NULL;
	const char *spec =
	    pmc_cli_session_spec(&c->so) ? pmc_cli_session_spec(&c->so) : PMC_DEFAULT_EVENTS;
	char err[1024], note[1024];
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
		/* Probes of its own, so that the benchmark's threads count (the parent said
		 * the note, if any, for the same tracefs). */
		if (pmc_uprobes_probe(events, NULL, true, &probes, note, sizeof(note)) < 0) {
			pmc_cli_error("out of memory");
			pmc_event_list_free(events);
			return PMC_EXIT_ERROR;
		}
		c->mo.events = events;
		c->mo.backend = pmc_backend_get(c->so.backend);
		c->mo.user_only_fallback = true;
		c->mo.timeout_s = c->so.timeout_s;
		c->mo.samples = c->proc_samples ? c->proc_samples : c->mo.samples;
		c->mo.iters = c->proc_iters;
		c->mo.no_overhead = !c->proc_overhead;
		if (pmc_mb_process_child(&set->v[i], &c->mo, (int)c->proc_fd) == 0)
			code = PMC_EXIT_OK;
		pmc_uprobe_set_free(probes);
		pmc_event_list_free(events);
		return code;
	}
	pmc_mb_process_child_absent(c->proc_child, self, (int)c->proc_fd);
	return PMC_EXIT_ERROR;
}

/* The child of a backend's exact mode (--backend, valgrind's): runs one benchmark's
 * marked loops, or reports that this build does not have it. Exit code. */
static int valgrind_child(const struct mb_cli *c, const struct pmc_mb_set *set, const char *self)
{
	int r = -ENOENT;

	for (size_t i = 0; r == -ENOENT && i < set->n; i++)
		if (strcmp(set->v[i].name, c->vg_child) == 0)
			r = pmc_mb_exact_child(pmc_backend_get(c->so.backend), &set->v[i],
					       c->vg_iters, c->vg_report);
	if (r == -ENOENT)
		r = pmc_mb_exact_child_absent(c->vg_child, self, c->vg_report);
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

/* --reference N or NAME: the name of the Nth benchmark of the set (from 1, as --list
 * shows them) or of the one named. Returns it, or NULL after an error line. */
static const char *reference_of(const char *arg, const struct pmc_mb_set *set, const char *prog)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(arg, &end, 10);
	if (arg[0] >= '0' && arg[0] <= '9' && !*end && !errno) {
		if (n >= 1 && n <= set->n)
			return set->v[n - 1].name;
		pmc_cli_error("--reference %s: there %s %zu benchmark%s (after --filter); see '%s "
			      "--list'",
			      arg, set->n == 1 ? "is" : "are", set->n, set->n == 1 ? "" : "s",
			      prog);
		return NULL;
	}
	for (size_t i = 0; i < set->n; i++)
		if (strcmp(set->v[i].name, arg) == 0)
			return set->v[i].name;
	pmc_cli_error("--reference '%s' names no benchmark (after --filter); see '%s --list'", arg,
		      prog);
	return NULL;
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
	const char *reference = NULL; /* --reference's benchmark */
	struct pmc_cli_build own;
	size_t nlibraries = 0;
	struct mb_cli c = {.mo = {.samples = PMC_SESSION_MB_SAMPLES, .warmup = 1},
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
	r = pmc_cli_mb_parse(&c, argc, argv, prog, nbuilds == 2, nbuilds && builds[0].path);
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
	/* A loop's profile is a second of its CPU time: a loop that waits would take that
	 * second in CPU time, however long it waited. */
	if (c.so.profile_off_cpu) {
		pmc_cli_error("--profile=off-cpu records where commands wait (pmcbench run "
			      "--profile=off-cpu -c CMD); a benchmark's profile samples its loop's "
			      "CPU time: give --profile");
		goto out;
	}
	/* A child's cost does not grow with the benchmarks: it expands its own definition. */
	if (expand(builds, nbuilds, c.filter,
		   c.proc_child ? c.proc_child
		   : c.vg_child ? c.vg_child
				: c.prof_child,
		   &set, err, sizeof(err)) < 0) {
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
	if (c.reference && !(reference = reference_of(c.reference, &set, prog)))
		goto out;
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
	    .reference_name = reference,
	    .args = args,
	    .nargs = argc > 1 ? (size_t)argc - 1 : 0,
	};
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

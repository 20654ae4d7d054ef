/* The valgrind backend (counters/backend.h): each run is the command under valgrind's
 * callgrind or cachegrind, writing its files into a directory of its own, whose counts
 * become the run's exact metrics (counters/valgrind/valgrind.h, docs/valgrind.md). */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "counters/backend.h"
#include "counters/valgrind/valgrind.h"

#ifdef PMC_HAVE_CALLGRIND_H
#include <valgrind/callgrind.h>
#endif

struct pmc_backend_session {
	struct pmc_backend_opts o;
};

struct pmc_backend_run {
	char *dir;   /* valgrind's files */
	char **argv; /* valgrind's command line around the command's */
	struct pmc_valgrind_counts counts;
	/* A marked run's: its dumps' counts, one per callgrind dump (PMC_BACKEND_DUMPS_MAX). */
	struct pmc_valgrind_counts *dumps;
	size_t ndumps;
};

static int vg_find(char **ret_path, char *err, size_t errlen)
{
	int r = pmc_valgrind_find(ret_path);

	if (r == -ENOENT)
		pmc_err_set(err, errlen,
			    "valgrind is not installed; install it with: "
			    "apt-get install valgrind");
	return r;
}

/* Which of valgrind's tools counted (a marked run's is callgrind, vg_run_new) and which
 * valgrind: counts differ between the tools and between valgrind's releases. */
static void vg_env(const struct pmc_backend_opts *o, struct pmc_backend_env *ret)
{
	bool cachegrind = !o->marked && o->valgrind_tool == PMC_VALGRIND_CACHEGRIND;

	*ret = (struct pmc_backend_env){
	    .key = {"valgrind-tool"},
	    .value = {cachegrind ? "cachegrind" : "callgrind"},
	    .n = 1,
	    .version_key = "valgrind-version", /* "valgrind-3.19.0" */
	    .version_arg = "--version",
	};
}

static int vg_session_new(const struct pmc_backend_opts *o, struct pmc_backend_session **ret)
{
	struct pmc_backend_session *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->o = *o;
	*ret = s;
	return 0;
}

static void vg_session_free(struct pmc_backend_session *s)
{
	free(s);
}

static size_t vg_nmetrics(const struct pmc_backend_session *s)
{
	return pmc_valgrind_metric_count();
}

static const char *vg_metric_id(const struct pmc_backend_session *s, size_t i)
{
	return pmc_valgrind_metric_id(i);
}

/* Simulated counts are never multiplexed: no groups to tell apart. */
static const struct pmc_event_list *vg_events(const struct pmc_backend_session *s)
{
	return NULL;
}

static int vg_round_start(struct pmc_backend_session *s, bool measured)
{
	return 0;
}

static int vg_round_stop(struct pmc_backend_session *s, int r)
{
	return r;
}

static void vg_run_free(struct pmc_backend_run *run)
{
	if (!run)
		return;
	free(run->argv);
	free(run->dumps);
	pmc_valgrind_outdir_remove(run->dir);
	free(run->dir);
	free(run);
}

static int vg_run_new(struct pmc_backend_session *s, bool measured, char *const *argv,
		      const char *display, struct pmc_backend_run **ret, char *err, size_t errlen)
{
	/* Marked: callgrind, collecting only between the program's toggles, in its own
	 * process (the benchmark program's children are not its loop). */
	struct pmc_valgrind_opts vo = {
	    .valgrind = s->o.program,
	    .tool =
		s->o.marked ? PMC_VALGRIND_CALLGRIND : (enum pmc_valgrind_tool)s->o.valgrind_tool,
	    .no_children = s->o.marked,
	    .collect_atstart_off = s->o.marked,
	    .extra_args = s->o.wrapper_args,
	};
	struct pmc_backend_run *run = calloc(1, sizeof(*run));
	int r;

	if (!run)
		return -ENOMEM;
	if (s->o.marked && !(run->dumps = calloc(PMC_BACKEND_DUMPS_MAX, sizeof(*run->dumps)))) {
		free(run);
		return -ENOMEM;
	}
	r = pmc_valgrind_outdir_new(NULL, &run->dir);
	if (r < 0) {
		pmc_err_set(err, errlen, "cannot create a directory for valgrind's output: %s",
			    strerror(-r));
		goto fail;
	}
	vo.outdir = run->dir;
	r = pmc_valgrind_argv(&vo, argv, &run->argv);
	if (r < 0) {
		pmc_err_set(err, errlen, "'%s': %s", display, strerror(-r));
		goto fail;
	}
	*ret = run;
	return 0;
fail:
	vg_run_free(run);
	return r;
}

static char *const *vg_run_argv(const struct pmc_backend_run *run)
{
	return run->argv;
}

static pmc_backend_child_fn vg_run_in_child(const struct pmc_backend_run *run)
{
	return NULL;
}

/* A failing run is still counted if valgrind wrote its files; a marked run's are its
 * numbered dumps, each on its own. */
static int vg_run_collect(struct pmc_backend_run *run, char *why, size_t whylen)
{
	char cerr[512] = "";
	int r = run->dumps ? pmc_valgrind_collect_dumps(run->dir, run->dumps, PMC_BACKEND_DUMPS_MAX,
							&run->ndumps, cerr, sizeof(cerr))
			   : pmc_valgrind_collect(run->dir, &run->counts, cerr, sizeof(cerr));

	if (r < 0)
		pmc_err_set(why, whylen, "valgrind wrote no usable counts: %s", cerr);
	return r;
}

/* Metric i of counts c as a reading. */
static int counts_reading(const struct pmc_valgrind_counts *c, size_t i, struct pmc_reading *ret,
			  char *why, size_t whylen)
{
	int r = pmc_valgrind_metric_reading(c, i, ret, why, whylen);

	if (r == -ENODATA) {
		/* Not simulated in this run (cache or branch simulation off). */
		*ret = (struct pmc_reading){.status = PMC_STATUS_UNSUPPORTED, .error = ENODATA};
		r = 0;
	}
	return r;
}

static int vg_run_reading(const struct pmc_backend_run *run, size_t i, struct pmc_reading *ret,
			  struct pmc_reading_parts *ret_parts, char *why, size_t whylen)
{
	*ret_parts = (struct pmc_reading_parts){0};
	return counts_reading(&run->counts, i, ret, why, whylen);
}

/* The simulator reports its counts when the command ends, not before. */
static int vg_run_peek(struct pmc_backend_run *run, struct pmc_reading *ret)
{
	return -EOPNOTSUPP;
}

static int vg_run_failure(const struct pmc_backend_run *run, char *buf, size_t len)
{
	return pmc_valgrind_log_error(run->dir, buf, len);
}

/* The simulator counts whole commands: a benchmark program runs under it in its exact
 * mode (the mark_ operations below), never counting one of its own threads. There is
 * never a thread to read, pause or close. */
static int vg_thread_open(const struct pmc_backend_thread_opts *o, struct pmc_backend_thread **ret)
{
	return -EOPNOTSUPP;
}

static int vg_thread_read(struct pmc_backend_thread *t, struct pmc_reading *ret,
			  struct pmc_reading *ret_parts)
{
	return -EINVAL;
}

static void vg_thread_parts(const struct pmc_backend_thread *t, size_t i,
			    struct pmc_reading_parts *ret)
{
	*ret = (struct pmc_reading_parts){0};
}

static int vg_thread_pause(struct pmc_backend_thread *t, bool pause)
{
	return -EINVAL;
}

static void vg_thread_read_counts(const struct pmc_backend_thread *t, uint64_t *ret_self,
				  uint64_t *ret_sys)
{
	*ret_self = *ret_sys = 0;
}

static void vg_thread_close(struct pmc_backend_thread *t)
{
}

/* ---- the exact mode: callgrind's client requests, its numbered dumps ---- */

static int vg_mark_check(char *err, size_t errlen)
{
#ifdef PMC_HAVE_CALLGRIND_H
	return 0;
#else
	pmc_err_set(err, errlen,
		    "this libpmcbench was built without valgrind's headers "
		    "(valgrind/callgrind.h); install valgrind and rebuild it");
	return -EOPNOTSUPP;
#endif
}

static void vg_mark_toggle(void)
{
#ifdef PMC_HAVE_CALLGRIND_H
	CALLGRIND_TOGGLE_COLLECT;
#endif
}

static void vg_mark_zero(void)
{
#ifdef PMC_HAVE_CALLGRIND_H
	CALLGRIND_ZERO_STATS;
#endif
}

static void vg_mark_dump(const char *what)
{
#ifdef PMC_HAVE_CALLGRIND_H
	CALLGRIND_DUMP_STATS_AT(what);
#else
	(void)what;
#endif
}

static size_t vg_run_dumps(const struct pmc_backend_run *run)
{
	return run->ndumps;
}

static int vg_run_dump_reading(const struct pmc_backend_run *run, size_t k, size_t i,
			       struct pmc_reading *ret, char *why, size_t whylen)
{
	if (k >= run->ndumps)
		return -EINVAL;
	return counts_reading(&run->dumps[k], i, ret, why, whylen);
}

/* callgrind.out.PID.N, dump k + 1 of the run's one process (numbered in request order). */
static int vg_run_dump_file(const struct pmc_backend_run *run, size_t k, char **ret_path)
{
	char *pattern = NULL;
	glob_t g = {0};
	int r = -ENOENT;

	if (k >= run->ndumps)
		return -ENOENT;
	if (asprintf(&pattern, "%s/callgrind.out.*.%zu", run->dir, k + 1) < 0)
		return -ENOMEM;
	if (glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc == 1)
		r = (*ret_path = strdup(g.gl_pathv[0])) ? 0 : -ENOMEM;
	globfree(&g);
	free(pattern);
	return r;
}

const struct pmc_backend_ops pmc_backend_valgrind = {
    .name = "valgrind",
    .wrapper = "valgrind",
    .simulated = true,
    .takes_events = false, /* its metrics are the simulated ones */
    .marks = true,
    .dump_format = PMC_DUMP_CALLGRIND, /* one callgrind.out file per dump */
    .env = vg_env,
    .find = vg_find,
    .session_new = vg_session_new,
    .session_free = vg_session_free,
    .nmetrics = vg_nmetrics,
    .metric_id = vg_metric_id,
    .events = vg_events,
    .round_start = vg_round_start,
    .round_stop = vg_round_stop,
    .run_new = vg_run_new,
    .run_argv = vg_run_argv,
    .run_in_child = vg_run_in_child,
    .run_collect = vg_run_collect,
    .run_reading = vg_run_reading,
    .run_peek = vg_run_peek,
    .run_failure = vg_run_failure,
    .run_free = vg_run_free,
    .thread_open = vg_thread_open,
    .thread_read = vg_thread_read,
    .thread_parts = vg_thread_parts,
    .thread_pause = vg_thread_pause,
    .thread_read_counts = vg_thread_read_counts,
    .thread_close = vg_thread_close,
    .mark_check = vg_mark_check,
    .mark_toggle = vg_mark_toggle,
    .mark_zero = vg_mark_zero,
    .mark_dump = vg_mark_dump,
    .run_dumps = vg_run_dumps,
    .run_dump_reading = vg_run_dump_reading,
    .run_dump_file = vg_run_dump_file,
};

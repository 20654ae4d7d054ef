/* The valgrind backend (counters/backend.h): each run is the command under valgrind's
 * callgrind or cachegrind, writing its files into a directory of its own, whose counts
 * become the run's exact metrics (counters/valgrind/valgrind.h, docs/valgrind.md). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "counters/backend.h"
#include "counters/valgrind/valgrind.h"

struct pmc_backend_session {
	struct pmc_backend_opts o;
};

struct pmc_backend_run {
	char *dir;   /* valgrind's files */
	char **argv; /* valgrind's command line around the command's */
	struct pmc_valgrind_counts counts;
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
	pmc_valgrind_outdir_remove(run->dir);
	free(run->dir);
	free(run);
}

static int vg_run_new(struct pmc_backend_session *s, bool measured, char *const *argv,
		      const char *display, struct pmc_backend_run **ret, char *err, size_t errlen)
{
	struct pmc_valgrind_opts vo = {.sz = sizeof(vo),
				       .valgrind = s->o.valgrind_path,
				       .tool = (enum pmc_valgrind_tool)s->o.valgrind_tool};
	struct pmc_backend_run *run = calloc(1, sizeof(*run));
	int r;

	PMC_OPTS_ZERO_TAIL(pmc_valgrind_opts, &vo); /* padding the initializer need not zero */
	if (!run)
		return -ENOMEM;
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

/* A failing run is still counted if valgrind wrote its files. */
static int vg_run_collect(struct pmc_backend_run *run, char *why, size_t whylen)
{
	char cerr[512] = "";
	int r = pmc_valgrind_collect(run->dir, &run->counts, cerr, sizeof(cerr));

	if (r < 0)
		pmc_err_set(why, whylen, "valgrind wrote no usable counts: %s", cerr);
	return r;
}

static int vg_run_reading(const struct pmc_backend_run *run, size_t i, struct pmc_reading *ret,
			  struct pmc_reading_parts *ret_parts, char *why, size_t whylen)
{
	int r = pmc_valgrind_metric_reading(&run->counts, i, ret, why, whylen);

	if (r == -ENODATA) {
		/* Not simulated in this run (cache or branch simulation off). */
		*ret = (struct pmc_reading){.status = PMC_STATUS_UNSUPPORTED, .error = ENODATA};
		r = 0;
	}
	*ret_parts = (struct pmc_reading_parts){0};
	return r;
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

const struct pmc_backend_ops pmc_backend_valgrind = {
    .name = "valgrind",
    .wrapper = "valgrind",
    .simulated = true,
    .takes_events = false, /* its metrics are the simulated ones */
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
};

/* Recording one run of a command into a profile (record.h). The sampler is opened by the
 * child itself just before exec (pid 0, enable_on_exec), like the runner's counters, so
 * not one sample falls before the command starts. Two threads of ours work while the
 * command runs, as perf record only copies the rings and leaves the naming to perf
 * report: one empties the rings into the sampler's store and does nothing else, so that
 * they do not overflow while the other is busy; the other hands the stored records, in
 * time order as soon as it is known, to the profile's builder (record_build.h), which
 * reads the kernel's symbols first, then follows MMAP2, COMM, FORK and EXIT into the
 * address spaces and makes each sample a stack (reading an object's symbols and CFI the
 * first time it meets it, which may take a while: the store holds what comes meanwhile,
 * up to its bound). Once the command was reaped, the rest. */
#include "profile/record.h"

#include <errno.h>
#include <glob.h>
#include <pthread.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "counters/perf/sample.h"
#include "counters/valgrind/valgrind.h"
#include "base/error.h"
#include "profile/callgrind.h"
#include "profile/maps.h"
#include "profile/profile.h"
#include "profile/record_build.h"
#include "run/spawn.h"

/* How much nicer than the command the builder runs. */
#define BUILDER_NICE 5

struct sampling {
	struct pmc_sample_opts so;
	_Atomic(struct pmc_sampler *) sampler; /* set by the child, read by the threads */
	atomic_bool done;
	int open_err;
	char open_msg[256];
	_Atomic int poll_err; /* the reader's error, which stops it */
	/* The profile, built by the builder thread while the command runs, then by the
	 * caller once it was joined; its event's name and the profile's. */
	struct pmc_profile_builder *b;
	bool prepared; /* the builder has read the kernel's symbols */
	char event[64];
	const char *name;
	_Atomic int build_err; /* the builder's error, which stops it */
	/* The reader's polls that stored records, for the builder to wait on. */
	pthread_mutex_t lock;
	pthread_cond_t stored;
	uint64_t polls;
	pthread_t reader, builder;
	bool started;
};

/* The sampler's options for a record: a command's (enabled when it execs) or an attached
 * process's. */
static struct pmc_sample_opts sample_opts(const struct pmc_record_opts *o, bool exclude_kernel,
					  bool attach)
{
	return (struct pmc_sample_opts){.sz = sizeof(struct pmc_sample_opts),
					.event = o->event,
					.freq = o->freq,
					.no_callchain = o->no_callchain,
					.exclude_kernel = exclude_kernel,
					.stack_user = o->dwarf_stack,
					.enable_on_exec = !attach,
					.attach = attach,
					.off_cpu = o->off_cpu,
					.sys = o->sys};
}

/* In the child, before exec (pmc_spawn_opts.in_child): memory is shared with us. */
static int open_in_child(void *ud)
{
	struct sampling *st = ud;
	struct pmc_sampler *s = NULL;

	st->open_err = pmc_sampler_open(&st->so, 0, &s, st->open_msg, sizeof(st->open_msg));
	if (st->open_err < 0)
		return st->open_err;
	atomic_store_explicit(&st->sampler, s, memory_order_release);
	return 0;
}

/* Takes what the store holds into the profile, its builder made on the first call. */
static int take(struct sampling *st, struct pmc_sampler *s, bool all)
{
	int r;

	if (!st->b) {
		snprintf(st->event, sizeof(st->event), "%s%s",
			 st->so.off_cpu ? PMC_PROFILE_OFF_CPU_EVENT : pmc_sampler_event(s),
			 st->so.exclude_kernel ? ":u" : "");
		r = pmc_profile_builder_new(s, &st->so, st->event, st->name, &st->b);
		if (r < 0)
			return r;
	}
	return pmc_profile_builder_take(st->b, s, all);
}

static bool is_done(struct sampling *st)
{
	return atomic_load_explicit(&st->done, memory_order_acquire);
}

/* The sampler, once the child has opened it; NULL while it has not. */
static struct pmc_sampler *sampler_of(struct sampling *st)
{
	return atomic_load_explicit(&st->sampler, memory_order_acquire);
}

/* Waits up to ms milliseconds for the reader's signal. Under st->lock. */
static void wait_stored(struct sampling *st, long ms)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += ms * 1000000;
	until.tv_sec += until.tv_nsec / 1000000000;
	until.tv_nsec %= 1000000000;
	pthread_cond_timedwait(&st->stored, &st->lock, &until);
}

/* The reader: empties the rings into the store while the command runs, and nothing else,
 * so that they do not overflow; tells the builder each time it stored records. */
static void *read_rings(void *ud)
{
	struct sampling *st = ud;

	while (!is_done(st)) {
		struct pmc_sampler *s = sampler_of(st);
		int r;

		if (!s) {
			struct timespec ts = {0, 1000 * 1000};

			nanosleep(&ts, NULL);
			continue;
		}
		r = pmc_sampler_poll(s, 50);
		if (r < 0) {
			st->poll_err = r;
			break;
		}
		if (r > 0) {
			pthread_mutex_lock(&st->lock);
			st->polls++;
			pthread_cond_signal(&st->stored);
			pthread_mutex_unlock(&st->lock);
		}
	}
	return NULL;
}

/* This thread's nice value raised by BUILDER_NICE, which needs no privilege: when the
 * CPUs are short, the reader and the command go first; the store waits for the builder,
 * the rings would not. */
static void lower_priority(void)
{
	int now;

	errno = 0;
	now = getpriority(PRIO_PROCESS, 0);
	if (errno == 0)
		setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), now + BUILDER_NICE);
}

/* The builder: reads the kernel's symbols before the first sample needs them, then names
 * the stored samples as their order becomes known, so that memory follows the distinct
 * stacks. */
static void *build(void *ud)
{
	struct sampling *st = ud;
	uint64_t seen = 0;

	lower_priority();
	for (;;) {
		struct pmc_sampler *s = sampler_of(st);
		bool last;
		int r;

		pthread_mutex_lock(&st->lock);
		if (st->polls == seen && !is_done(st))
			wait_stored(st, 100);
		seen = st->polls;
		last = is_done(st);
		pthread_mutex_unlock(&st->lock);
		if (last)
			break;
		if (!s)
			continue;
		if (!st->b && (r = take(st, s, false)) < 0) {
			st->build_err = r;
			break;
		}
		if (!st->prepared) {
			st->prepared = true;
			pmc_profile_builder_prepare(st->b);
		}
		if ((r = take(st, s, false)) < 0) {
			st->build_err = r;
			break;
		}
	}
	return NULL;
}

/* What the rings and the store hold once the threads stopped, into the profile: a poll,
 * then everything stored, again while a poll left records in the rings (the store was
 * full). Returns 0 or the builder's error; a poll's error in *ret_read_err. */
static int take_rest(struct sampling *st, struct pmc_sampler *s, int *ret_read_err)
{
	uint64_t full;
	int r;

	*ret_read_err = 0;
	if (st->build_err < 0)
		return st->build_err;
	do {
		full = pmc_sampler_store_full(s);
		if ((r = pmc_sampler_poll(s, 0)) < 0) {
			*ret_read_err = r;
			return 0;
		}
		if ((r = take(st, s, true)) < 0)
			return r;
	} while (pmc_sampler_store_full(s) > full);
	return 0;
}

/* Starts the reader and the builder. Returns 0 or -errno with one line in err. */
static int threads_start(struct sampling *st, char *err, size_t errlen)
{
	int r;

	pthread_mutex_init(&st->lock, NULL);
	pthread_cond_init(&st->stored, NULL);
	if ((r = pthread_create(&st->reader, NULL, read_rings, st))) {
		pmc_err_set(err, errlen, "cannot start the thread that reads the samples: %s",
			    strerror(r));
		goto fail_reader;
	}
	if ((r = pthread_create(&st->builder, NULL, build, st))) {
		pmc_err_set(err, errlen, "cannot start the thread that names the samples: %s",
			    strerror(r));
		goto fail_builder;
	}
	st->started = true;
	return 0;
fail_builder:
	atomic_store_explicit(&st->done, true, memory_order_release);
	pthread_join(st->reader, NULL);
fail_reader:
	pthread_cond_destroy(&st->stored);
	pthread_mutex_destroy(&st->lock);
	return -r;
}

/* Stops both threads (what is left is the caller's to take). */
static void threads_stop(struct sampling *st)
{
	if (!st->started)
		return;
	pthread_mutex_lock(&st->lock);
	atomic_store_explicit(&st->done, true, memory_order_release);
	pthread_cond_broadcast(&st->stored);
	pthread_mutex_unlock(&st->lock);
	pthread_join(st->reader, NULL);
	pthread_join(st->builder, NULL);
	pthread_cond_destroy(&st->stored);
	pthread_mutex_destroy(&st->lock);
	st->started = false;
}

/* How the command runs, profiled either way. */
static struct pmc_spawn_opts spawn_opts(const struct pmc_record_opts *o)
{
	return (struct pmc_spawn_opts){
	    .argv = o->argv,
	    .path = o->path,
	    .input_path = o->input_path,
	    .show_output = o->show_output,
	    .timeout_s = o->timeout_s,
	    .envp = o->envp,
	    .running = o->running,
	    .stop = o->stop,
	    .die_with_parent = o->die_with_parent,
	};
}

/* One attempt at a sampled run; -EACCES from the sampler comes back untouched so that
 * the caller can retry with user space only. */
static int record_sampled(const struct pmc_record_opts *o, bool exclude_kernel,
			  struct pmc_profile **ret, struct pmc_spawn_result *sr, char *err,
			  size_t errlen)
{
	struct sampling st = {.so = sample_opts(o, exclude_kernel, false), .name = o->name};
	struct pmc_spawn_opts so = spawn_opts(o);
	struct pmc_sampler *s;
	int r, read_err;

	so.in_child = open_in_child;
	so.ud = &st;
	atomic_init(&st.sampler, NULL);
	atomic_init(&st.done, false);
	if ((r = threads_start(&st, err, errlen)) < 0)
		return r;
	r = pmc_spawn_run(&so, sr);
	threads_stop(&st);
	s = atomic_load_explicit(&st.sampler, memory_order_acquire);
	if (r < 0) {
		if (st.open_err < 0)
			pmc_err_set(err, errlen, "%s", st.open_msg);
		else
			pmc_err_set(err, errlen, "cannot run '%s': %s", o->argv[0], strerror(-r));
		goto out;
	}
	if (st.poll_err < 0) {
		r = st.poll_err;
		pmc_err_set(err, errlen, "cannot read the samples of '%s': %s", o->argv[0],
			    strerror(-r));
		goto out;
	}
	r = take_rest(&st, s, &read_err);
	if (read_err < 0) {
		r = read_err;
		pmc_err_set(err, errlen, "cannot read the samples of '%s': %s", o->argv[0],
			    strerror(-r));
		goto out;
	}
	if (r < 0) {
		pmc_err_set(err, errlen, "cannot build the profile from the kernel's records: %s",
			    strerror(-r));
		goto out;
	}
	*ret = pmc_profile_builder_finish(st.b, s, o->note, o->note_ud);
out:
	pmc_profile_builder_free(st.b);
	pmc_sampler_close(s);
	return r;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Whether process pid has exited, waiting up to ms for it: its pidfd (Linux 5.3) reads as
 * ready then, even before its parent reaps it; without one, whether it can still be
 * signalled after the wait. */
static bool has_exited(int pidfd, pid_t pid, int ms)
{
	struct pollfd p = {.fd = pidfd, .events = POLLIN};
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

	if (pidfd >= 0)
		return poll(&p, 1, ms) > 0;
	nanosleep(&ts, NULL);
	return kill(pid, 0) < 0 && errno == ESRCH;
}

/* The process's command name (its comm), for the profile's name; "pid PID" when gone. */
static void process_name(pid_t pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(buf, len, "pid %d", (int)pid);
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if (!(f = fopen(path, "re")))
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* One attempt at sampling a running process, as record_sampled. Its maps are read before
 * the first record is taken: the kernel reports only the mappings made after the attach. */
static int record_attached(const struct pmc_record_opts *o, bool exclude_kernel,
			   struct pmc_profile **ret, char *err, size_t errlen)
{
	pid_t pid = (pid_t)o->attach_pid;
	double duration = o->duration_s, end = 0;
	struct sampling st = {.so = sample_opts(o, exclude_kernel, true)};
	struct pmc_sampler *s = NULL;
	char name[64];
	int pidfd, r, read_err = 0;

	process_name(pid, name, sizeof(name));
	st.name = o->name ? o->name : name;
	atomic_init(&st.done, false);
	r = pmc_sampler_open(&st.so, pid, &s, err, errlen);
	if (r < 0)
		return r;
	atomic_init(&st.sampler, s);
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if ((r = take(&st, s, false)) < 0)
		goto build_failed;
	r = pmc_maps_load_proc(pmc_profile_builder_maps(st.b), (uint32_t)pid, NULL);
	if (r < 0) {
		pmc_err_set(err, errlen, "cannot read /proc/%d/maps: %s", (int)pid, strerror(-r));
		goto out;
	}
	if ((r = threads_start(&st, err, errlen)) < 0)
		goto out;
	if (duration > 0)
		end = now_s() + duration;
	/* The threads read and name the samples; this one waits for the end. */
	while (!(o->stop && *o->stop) && !st.poll_err && !st.build_err) {
		double left = end ? end - now_s() : 1;

		if (left <= 0 || has_exited(pidfd, pid, left < 0.05 ? (int)(left * 1000) + 1 : 50))
			break;
	}
	threads_stop(&st);
	if (st.poll_err >= 0)
		r = take_rest(&st, s, &read_err);
	if (st.poll_err < 0 || read_err < 0) {
		r = st.poll_err < 0 ? st.poll_err : read_err;
		pmc_err_set(err, errlen, "cannot read the samples of process %d: %s", (int)pid,
			    strerror(-r));
		goto out;
	}
	if (r < 0)
		goto build_failed;
	*ret = pmc_profile_builder_finish(st.b, s, o->note, o->note_ud);
	/* Stopped before the duration asked for; without one, a stop is the end. */
	if (end && o->stop && *o->stop)
		pmc_profile_set_partial(*ret, true);
	goto out;
build_failed:
	pmc_err_set(err, errlen, "cannot build the profile from the kernel's records: %s",
		    strerror(-r));
out:
	if (pidfd >= 0)
		close(pidfd);
	pmc_profile_builder_free(st.b);
	pmc_sampler_close(s);
	return r;
}

/* The exact profile of one run under callgrind. */
static int record_valgrind(const struct pmc_record_opts *o, struct pmc_profile **ret,
			   struct pmc_spawn_result *sr, char *err, size_t errlen)
{
	struct pmc_valgrind_opts vo = {.valgrind = o->valgrind_path,
				       .tool = PMC_VALGRIND_CALLGRIND,
				       .extra_args = pmc_callgrind_profile_args()};
	struct pmc_spawn_opts so = spawn_opts(o);
	char **argv = NULL, *dir = NULL, *pattern = NULL;
	glob_t g = {0};
	int r;

	r = pmc_valgrind_outdir_new(NULL, &dir);
	if (r < 0) {
		pmc_err_set(err, errlen, "cannot create a directory for callgrind's output: %s",
			    strerror(-r));
		return r;
	}
	vo.outdir = dir;
	so.no_aslr = true; /* as the valgrind backend's measured runs */
	r = pmc_valgrind_argv(&vo, o->argv, &argv);
	if (r < 0) {
		pmc_err_set(err, errlen, "'%s': %s", o->argv[0], strerror(-r));
		goto out;
	}
	so.argv = argv;
	so.path = NULL; /* valgrind, found in PATH by its argv[0] */
	r = pmc_spawn_run(&so, sr);
	if (r < 0) {
		pmc_err_set(err, errlen, "'%s': cannot run valgrind: %s", o->argv[0], strerror(-r));
		goto out;
	}
	if (asprintf(&pattern, "%s/callgrind.out.*", dir) < 0) {
		pattern = NULL;
		r = -ENOMEM;
		goto out;
	}
	if (glob(pattern, 0, NULL, &g) != 0 || g.gl_pathc == 0) {
		char why[256];

		if (pmc_valgrind_log_error(dir, why, sizeof(why)) < 0)
			snprintf(why, sizeof(why), "no output file");
		pmc_err_set(err, errlen, "'%s': callgrind wrote no profile: %s", o->argv[0], why);
		r = -EIO;
		goto out;
	}
	r = pmc_callgrind_profile((const char *const *)g.gl_pathv, g.gl_pathc,
				  o->valgrind_event ? o->valgrind_event : "Ir", o->name, ret, err,
				  errlen);
out:
	globfree(&g);
	free(pattern);
	free(argv);
	pmc_valgrind_outdir_remove(dir);
	free(dir);
	return r;
}

/* The sampled event's modifiers, as perf takes them after a ':' ("cpu-clock:u"): the name
 * without them into name, and *user_only for "u" (user space only: the profile's event
 * says ":u"). "uk" is both, as no modifier is. Returns 0, or -EINVAL with one line in err
 * for what pmcbench cannot sample (":k", kernel only; precise and guest modifiers). */
static int event_modifiers(const char *event, char *name, size_t len, bool *user_only, char *err,
			   size_t errlen)
{
	const char *colon = strchr(event, ':');
	bool u = false, k = false;

	*user_only = false;
	if (!colon) {
		snprintf(name, len, "%s", event);
		return 0;
	}
	for (const char *m = colon + 1; *m; m++) {
		if (*m == 'u' && !u)
			u = true;
		else if (*m == 'k' && !k)
			k = true;
		else {
			pmc_err_set(err, errlen,
				    "event \"%.64s\": modifier '%c' is not one record takes: "
				    "give :u (user space only), :uk or none (user and kernel)",
				    event, *m);
			return -EINVAL;
		}
	}
	if (colon == event || (!u && !k) || (k && !u)) {
		pmc_err_set(err, errlen,
			    (k && !u) ? "event \"%.64s\": kernel only (:k) is not sampled by "
					"record: give :u (user space only), :uk or none"
				      : "event \"%.64s\": expected NAME or NAME:MODIFIERS "
					"(cpu-clock:u)",
			    event);
		return -EINVAL;
	}
	snprintf(name, len, "%.*s", (int)(colon - event), event);
	*user_only = u && !k;
	return 0;
}

int pmc_profile_record(const struct pmc_record_opts *opts, struct pmc_profile **ret,
		       struct pmc_spawn_result *ret_run, char *err, size_t errlen)
{
	const struct pmc_record_opts *o = opts;
	struct pmc_record_opts copy;
	struct pmc_spawn_result sr;
	struct pmc_profile *p = NULL;
	bool user_only = false;
	char event[128];
	int r;

	if (!opts) {
		pmc_err_set(err, errlen, "no command to profile");
		return -EINVAL;
	}
	/* The caller's options as they are, but for the event's modifiers. */
	if (!opts->valgrind && opts->event && strchr(opts->event, ':')) {
		if ((r = event_modifiers(opts->event, event, sizeof(event), &user_only, err,
					 errlen)) < 0)
			return r;
		copy = *opts;
		copy.event = event;
		o = &copy;
	}
	if (o->attach_pid) {
		if (o->valgrind || !ret) {
			pmc_err_set(err, errlen, "valgrind cannot attach to a running process");
			return -EINVAL;
		}
		r = record_attached(o, user_only, ret, err, errlen);
		if ((r == -EACCES || r == -EPERM) && !user_only && !o->off_cpu)
			r = record_attached(o, true, ret, err, errlen);
		if (r == 0 && ret_run)
			*ret_run = (struct pmc_spawn_result){0};
		return r;
	}
	if (!o->argv || !o->argv[0] || !ret) {
		pmc_err_set(err, errlen, "no command to profile");
		return -EINVAL;
	}
	if (o->valgrind) {
		r = record_valgrind(o, &p, &sr, err, errlen);
	} else {
		r = record_sampled(o, user_only, &p, &sr, err, errlen);
		/* perf_event_paranoid >= 2 refuses kernel samples to the unprivileged:
		 * user space is still worth profiling, and the event name says ":u". */
		if ((r == -EACCES || r == -EPERM) && !user_only && !o->off_cpu)
			r = record_sampled(o, true, &p, &sr, err, errlen);
	}
	if (r < 0)
		return r;
	/* Stopped by the caller (its signal handler killed the command): what was sampled
	 * until then is the profile, and it says it is not the whole run. */
	if (o->stop && *o->stop)
		pmc_profile_set_partial(p, true);
	*ret = p;
	if (ret_run)
		*ret_run = sr;
	return 0;
}

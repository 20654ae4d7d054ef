/* One benchmark per process (docs/microbench.md, "Isolation"): the child measures and
 * writes its samples to a pipe; a crash or an exit() ends only the child, and the
 * parent says how it ended. The pipe carries the samples as the program wrote them in
 * memory: both ends are one binary, or two builds of a program that speak one protocol
 * (pmc_mb_protocol, checked before the other is started). With a timeout, the parent
 * waits for the pipe with poll() up to a deadline and kills a child that has not written
 * by then. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "microbench/child_pipe.h"
#include "microbench/microbench.h"

#define MAGIC UINT64_C(0x706d636d62310a00) /* "pmcmb1" */

struct header {
	uint64_t magic;
	uint64_t iters, n, nev, items, bytes;
	double over_ns;
	uint64_t skipped, message_len;	/* message_len includes the NUL; 0: none */
	uint64_t reads_self, reads_sys; /* how the counters were read */
	int32_t error;			/* the child's failure: -errno; its words follow */
	uint32_t has_parts;		/* hybrid CPUs: n * nev parts follow the readings */
	uint64_t pauses;		/* pmc_pause pairs per batch, each pause_ns */
	double pause_ns;
	uint64_t nuc; /* user counters: nuc names, then n * PMC_COUNTERS_MAX values */
	uint64_t threads;
};

void pmc_mb_protocol(char buf[PMC_MB_PROTOCOL_MAX])
{
	/* The version, then the sizes of what the pipe carries as it is in memory: a layout
	 * that changed without the version disagrees there. */
	snprintf(buf, PMC_MB_PROTOCOL_MAX, "pmcbench-child %d h%zu r%zu p%zu u%zu c%d",
		 PMC_MB_PROTOCOL, sizeof(struct header), sizeof(struct pmc_reading),
		 sizeof(struct pmc_reading_parts), sizeof(struct pmc_mb_ucounter),
		 PMC_COUNTERS_MAX);
}

static int write_all(int fd, const void *p, size_t len)
{
	const char *c = p;

	while (len) {
		ssize_t w = write(fd, c, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		c += w;
		len -= (size_t)w;
	}
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

/* Waits until fd can be read (data, or the writer's end closed) or the deadline
 * (CLOCK_MONOTONIC ns) passes. Returns 0, -ETIMEDOUT or -errno. */
static int wait_readable(int fd, uint64_t deadline)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	for (;;) {
		uint64_t now = now_ns(), left;
		struct timespec ts;
		int n;

		if (now >= deadline)
			return -ETIMEDOUT;
		left = deadline - now;
		ts.tv_sec = (time_t)(left / 1000000000u);
		ts.tv_nsec = (long)(left % 1000000000u);
		n = ppoll(&p, 1, &ts, NULL);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

/* Reads len bytes; deadline 0 waits as long as it takes. */
static int read_all(int fd, void *p, size_t len, uint64_t deadline)
{
	char *c = p;

	while (len) {
		ssize_t r;

		if (deadline) {
			int rc = wait_readable(fd, deadline);

			if (rc < 0)
				return rc;
		}
		r = read(fd, c, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		c += r;
		len -= (size_t)r;
	}
	return 0;
}

/* What read_array reads at a time. */
#define READ_CHUNK ((size_t)1 << 20)

/* Reads count items of size bytes into *ret, malloc'ed with room for one more (zeroed):
 * grown as the bytes arrive, so that a header promising more than the pipe then carries
 * (a child that died mid-write, another program) costs no more memory than what came.
 * Returns 0 or as read_all, -ENOMEM; *ret is set only on success. */
static int read_array(int fd, void **ret, size_t count, size_t size, uint64_t deadline)
{
	size_t total = count * size, got = 0, cap = total < READ_CHUNK ? total : READ_CHUNK;
	char *buf = calloc(1, cap + size), *more;
	int r = 0;

	if (!buf)
		return -ENOMEM;
	while (r == 0 && got < total) {
		size_t want = total - got < READ_CHUNK ? total - got : READ_CHUNK;

		if (got + want > cap) {
			cap = cap * 2 < got + want ? got + want : cap * 2;
			cap = cap < total ? cap : total;
			more = realloc(buf, cap + size);
			if (!more) {
				r = -ENOMEM;
				break;
			}
			buf = more;
			memset(buf + cap, 0, size);
		}
		r = read_all(fd, buf + got, want, deadline);
		got += want;
	}
	if (r < 0) {
		free(buf);
		return r;
	}
	*ret = buf;
	return 0;
}

int pmc_mb_error_write(int fd, int error, const char *msg)
{
	struct header h = {.magic = MAGIC, .error = error, .message_len = strlen(msg) + 1};
	int r = write_all(fd, &h, sizeof(h));

	return r < 0 ? r : write_all(fd, msg, h.message_len);
}

int pmc_mb_samples_write(int fd, const struct pmc_mb_samples *s)
{
	struct header h = {
	    .magic = MAGIC,
	    .iters = s->iters,
	    .n = s->n,
	    .nev = s->nev,
	    .items = s->items,
	    .bytes = s->bytes,
	    .over_ns = s->over_ns,
	    .skipped = s->skipped,
	    .reads_self = s->reads_self,
	    .reads_sys = s->reads_sys,
	    .message_len = s->message ? strlen(s->message) + 1 : 0,
	    .has_parts = s->parts != NULL,
	    .pauses = s->pauses,
	    .pause_ns = s->pause_ns,
	    .nuc = s->uc_values ? s->nuc : 0,
	    .threads = s->threads,
	};
	int r = write_all(fd, &h, sizeof(h));

	if (r == 0)
		r = write_all(fd, s->ns, s->n * sizeof(*s->ns));
	if (r == 0)
		r = write_all(fd, s->readings, s->n * s->nev * sizeof(*s->readings));
	if (r == 0 && s->parts)
		r = write_all(fd, s->parts, s->n * s->nev * sizeof(*s->parts));
	if (r == 0)
		r = write_all(fd, s->over_counts, s->nev * sizeof(*s->over_counts));
	if (r == 0 && h.message_len)
		r = write_all(fd, s->message, h.message_len);
	if (r == 0 && h.nuc)
		r = write_all(fd, s->uc, h.nuc * sizeof(s->uc[0]));
	if (r == 0 && h.nuc)
		r = write_all(fd, s->uc_values, s->n * PMC_COUNTERS_MAX * sizeof(double));
	return r;
}

int pmc_mb_samples_read(int fd, struct pmc_mb_samples *ret, uint64_t deadline, char *err,
			size_t errlen)
{
	struct pmc_mb_samples s = {0};
	struct header h;
	int r = read_all(fd, &h, sizeof(h), deadline);

	if (r < 0)
		return r;
	if (h.magic != MAGIC || h.n > (1u << 24) || h.nev > 4096 || h.message_len > 65536 ||
	    h.nuc > PMC_COUNTERS_MAX)
		return -EIO;
	if (h.error) {
		char *msg = calloc(1, h.message_len + 1);

		if (!msg)
			return -ENOMEM;
		r = h.message_len ? read_all(fd, msg, h.message_len, deadline) : 0;
		pmc_err_set(err, errlen, "%s", r == 0 ? msg : "");
		free(msg);
		return h.error < 0 ? h.error : -EIO;
	}
	s.iters = h.iters;
	s.n = h.n;
	s.nev = h.nev;
	s.items = h.items;
	s.bytes = h.bytes;
	s.over_ns = h.over_ns;
	s.skipped = h.skipped;
	s.reads_self = h.reads_self;
	s.reads_sys = h.reads_sys;
	s.pauses = h.pauses;
	s.pause_ns = h.pause_ns;
	s.threads = (unsigned)h.threads;
	s.over_counts = calloc(s.nev + 1, sizeof(*s.over_counts));
	s.message = h.message_len ? calloc(1, h.message_len) : NULL;
	if (!s.over_counts || (h.message_len && !s.message)) {
		r = -ENOMEM;
		goto fail;
	}
	r = read_array(fd, (void **)&s.ns, s.n, sizeof(*s.ns), deadline);
	if (r == 0)
		r = read_array(fd, (void **)&s.readings, s.n * s.nev, sizeof(*s.readings),
			       deadline);
	if (r == 0 && h.has_parts)
		r = read_array(fd, (void **)&s.parts, s.n * s.nev, sizeof(*s.parts), deadline);
	for (size_t i = 0; r == 0 && s.parts && i < s.n * s.nev; i++)
		if (s.parts[i].n > PMC_PARTS_MAX)
			r = -EIO;
	if (r == 0)
		r = read_all(fd, s.over_counts, s.nev * sizeof(*s.over_counts), deadline);
	if (r == 0 && h.message_len) {
		r = read_all(fd, s.message, h.message_len, deadline);
		s.message[h.message_len - 1] = '\0';
	}
	if (r == 0 && h.nuc) {
		s.nuc = h.nuc;
		r = read_all(fd, s.uc, s.nuc * sizeof(s.uc[0]), deadline);
		if (r == 0)
			r = read_array(fd, (void **)&s.uc_values, s.n * PMC_COUNTERS_MAX,
				       sizeof(double), deadline);
		for (size_t k = 0; r == 0 && k < s.nuc; k++)
			s.uc[k].name[sizeof(s.uc[k].name) - 1] = '\0';
	}
	if (r < 0)
		goto fail;
	*ret = s;
	return 0;
fail:
	pmc_mb_samples_free(&s);
	return r;
}

/* In the forked child: runs self_argv with the options that make the started program
 * measure b and write its samples to fd (pmc_mb_process_child), or writes why it could
 * not. Never returns. */
static void exec_self(const struct pmc_mb_bench *b, const struct pmc_mb_opts *o, char *const *self,
		      int fd)
{
	char fd_s[24], n_s[24], it_s[24], why[512];
	const char **argv;
	size_t n = 0;

	while (self[n])
		n++;
	argv = calloc(n + 12, sizeof(*argv));
	if (!argv || fcntl(fd, F_SETFD, 0) < 0) {
		pmc_mb_error_write(fd, -ENOMEM,
				   "cannot start the benchmark's process: out of memory");
		_exit(1);
	}
	memcpy(argv, self, n * sizeof(*argv));
	snprintf(fd_s, sizeof(fd_s), "%d", fd);
	snprintf(n_s, sizeof(n_s), "%zu", o->samples);
	snprintf(it_s, sizeof(it_s), "%" PRIu64, o->iters);
	argv[n++] = "--process-child";
	argv[n++] = b->name;
	argv[n++] = "--process-fd";
	argv[n++] = fd_s;
	argv[n++] = "--process-samples";
	argv[n++] = n_s;
	argv[n++] = "--process-iters";
	argv[n++] = it_s;
	if (!o->no_overhead)
		argv[n++] = "--process-overhead";
	argv[n] = NULL;
	execv(argv[0], (char *const *)argv);
	snprintf(why, sizeof(why), "'%s': cannot run %s: %s", b->name, argv[0], strerror(errno));
	pmc_mb_error_write(fd, -ECHILD, why);
	_exit(1);
}

int pmc_mb_process_child(const struct pmc_mb_bench *b, const struct pmc_mb_opts *o, int fd)
{
	struct pmc_mb_samples s = {0};
	char why[512] = "";
	int r = pmc_mb_measure(b, o, &s, why, sizeof(why));

	r = r < 0 ? pmc_mb_error_write(fd, r, why) : pmc_mb_samples_write(fd, &s);
	pmc_mb_samples_free(&s);
	return r;
}

int pmc_mb_process_child_absent(const char *name, const char *program, int fd)
{
	char why[512];

	snprintf(why, sizeof(why), "'%s' is not in this build (%s)", name, program);
	return pmc_mb_error_write(fd, -ENOENT, why);
}

static int grow(void **p, size_t n, size_t size)
{
	void *v = realloc(*p, (n ? n : 1) * size);

	if (!v)
		return -ENOMEM;
	*p = v;
	return 0;
}

/* The user counters of src appended to dst's, matched by name: a process may have set
 * them in another order, or some not at all (NAN in the samples that lack one). */
static int merge_counters(struct pmc_mb_samples *dst, const struct pmc_mb_samples *src)
{
	size_t n = dst->n + src->n, map[PMC_COUNTERS_MAX];
	double *v;

	if (!src->uc_values && !dst->uc_values)
		return 0;
	for (size_t k = 0; k < src->nuc; k++) {
		size_t j = 0;

		while (j < dst->nuc && strcmp(dst->uc[j].name, src->uc[k].name) != 0)
			j++;
		if (j == PMC_COUNTERS_MAX)
			return -EINVAL;
		if (j == dst->nuc)
			dst->uc[dst->nuc++] = src->uc[k];
		map[k] = j;
	}
	v = realloc(dst->uc_values, n * PMC_COUNTERS_MAX * sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (!dst->uc_values)
		for (size_t k = 0; k < dst->n * PMC_COUNTERS_MAX; k++)
			v[k] = NAN;
	dst->uc_values = v;
	v += dst->n * PMC_COUNTERS_MAX;
	for (size_t i = 0; i < src->n; i++) {
		for (size_t k = 0; k < PMC_COUNTERS_MAX; k++)
			v[i * PMC_COUNTERS_MAX + k] = NAN;
		for (size_t k = 0; src->uc_values && k < src->nuc; k++)
			v[i * PMC_COUNTERS_MAX + map[k]] = src->uc_values[i * PMC_COUNTERS_MAX + k];
	}
	return 0;
}

/* The empty loop beside src's samples into dst->over_v from index at (the dst->n samples
 * before them; dst == src for the first process): src's own batches when it has them
 * (measured in this process), else its process's median, which came through the pipe
 * (NAN: not measured). Returns 0 or -ENOMEM. */
static int over_beside(struct pmc_mb_samples *dst, struct pmc_mb_samples *src, size_t at)
{
	double *v;

	if (dst == src && src->over_v)
		return 0;
	v = realloc(dst == src ? NULL : dst->over_v, (at + src->n) * sizeof(*v) + 1);
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < src->n; i++)
		v[at + i] = src->over_v ? src->over_v[i] : src->over_ns;
	dst->over_v = v;
	return 0;
}

int pmc_mb_samples_merge(struct pmc_mb_samples *dst, struct pmc_mb_samples *src, unsigned process)
{
	size_t n = dst->n + src->n;
	int r;

	if (dst->ns &&
	    (dst->iters != src->iters || dst->nev != src->nev || dst->threads != src->threads))
		return -EINVAL;
	if (!dst->ns) {
		unsigned *proc = calloc(src->n + 1, sizeof(*proc));

		if (!proc || over_beside(src, src, 0) < 0) {
			free(proc);
			return -ENOMEM;
		}
		free(src->process);
		*dst = *src;
		dst->process = proc;
		for (size_t i = 0; i < src->n; i++)
			proc[i] = process;
		memset(src, 0, sizeof(*src));
		return 0;
	}
	r = merge_counters(dst, src);
	if (r < 0)
		return r;
	if (grow((void **)&dst->ns, n, sizeof(*dst->ns)) < 0 ||
	    grow((void **)&dst->process, n, sizeof(*dst->process)) < 0 ||
	    grow((void **)&dst->readings, n * dst->nev, sizeof(*dst->readings)) < 0)
		return -ENOMEM;
	if (over_beside(dst, src, dst->n) < 0)
		return -ENOMEM;
	memcpy(dst->ns + dst->n, src->ns, src->n * sizeof(*src->ns));
	memcpy(dst->readings + dst->n * dst->nev, src->readings,
	       src->n * src->nev * sizeof(*src->readings));
	/* Every process runs on the same machine, so all of them have parts or none. */
	if (dst->parts && src->parts) {
		if (grow((void **)&dst->parts, n * dst->nev, sizeof(*dst->parts)) < 0)
			return -ENOMEM;
		memcpy(dst->parts + dst->n * dst->nev, src->parts,
		       src->n * src->nev * sizeof(*src->parts));
	} else {
		free(dst->parts);
		dst->parts = NULL;
	}
	for (size_t i = 0; i < src->n; i++)
		dst->process[dst->n + i] = process;
	dst->n = n;
	dst->reads_self += src->reads_self;
	dst->reads_sys += src->reads_sys;
	/* The pairs' cost was subtracted in each process; the note is of the largest. */
	if (src->pauses * src->pause_ns > dst->pauses * dst->pause_ns) {
		dst->pauses = src->pauses;
		dst->pause_ns = src->pause_ns;
	}
	if (isnan(dst->over_ns) && !isnan(src->over_ns)) {
		dst->over_ns = src->over_ns;
		memcpy(dst->over_counts, src->over_counts, src->nev * sizeof(*src->over_counts));
	}
	pmc_mb_samples_free(src);
	return 0;
}

double pmc_mb_timeout(double timeout_s, double work_s)
{
	if (timeout_s < 0)
		return 0;
	return timeout_s > 0 ? timeout_s : PMC_MB_TIMEOUT_DEFAULT + 10 * work_s;
}

int pmc_mb_measure_forked(const struct pmc_mb_bench *b, const struct pmc_mb_opts *opts,
			  struct pmc_mb_samples *ret, char *err, size_t errlen)
{
	const struct pmc_mb_opts *o = opts ? opts : &pmc_mb_opts_defaults;
	struct pmc_mb_samples s = {0};
	double timeout =
	    pmc_mb_timeout(o->timeout_s, (double)(o->samples + o->warmup) * pmc_mb_min_time(b, o));
	char *const *self = o->self_argv;
	volatile sig_atomic_t *running = o->running;
	const volatile sig_atomic_t *stop = o->stop;
	uint64_t deadline = 0;
	char why[512] = "";
	int fds[2], status = 0, r;
	pid_t pid, parent;

	if (pipe2(fds, O_CLOEXEC) < 0) {
		r = -errno;
		pmc_err_set(err, errlen, "'%s': cannot make a pipe: %s", b->name, strerror(-r));
		return r;
	}
	/* What stdio holds would otherwise be written twice if the benchmark calls exit(). */
	fflush(NULL);
	parent = getpid();
	/* The benchmark's time starts with its process; a limit beyond 30 years is none. */
	if (timeout > 0 && isfinite(timeout))
		deadline =
		    now_ns() + (timeout < 1e9 ? (uint64_t)(timeout * 1e9) : UINT64_C(1) << 60);
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(fds[0]);
		close(fds[1]);
		pmc_err_set(err, errlen, "'%s': cannot fork: %s", b->name, strerror(-r));
		return r;
	}
	if (pid == 0) {
		close(fds[0]);
		/* The child never outlives the program (a CI job that stops it with SIGTERM
		 * would leave it spinning): killed when its parent ends, also across exec. A
		 * parent that ended before the call is checked for after it. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(1);
		if (self)
			exec_self(b, o, self, fds[1]);
		r = pmc_mb_measure(b, o, &s, why, sizeof(why));
		r = r < 0 ? pmc_mb_error_write(fds[1], r, why) : pmc_mb_samples_write(fds[1], &s);
		/* The child ends here, without the parent's atexit handlers, but with what
		 * the benchmark printed: stdout to a file or a pipe is fully buffered. */
		fflush(NULL);
		_exit(r < 0 ? 1 : 0);
	}
	close(fds[1]);
	if (running)
		*running = pid;
	/* A signal that came before the slot held the pid found nothing to stop. */
	if (stop && *stop)
		kill(pid, SIGKILL);
	r = pmc_mb_samples_read(fds[0], &s, deadline, why, sizeof(why));
	/* Killed before the pipe closes, so that it cannot block on a write to it. */
	if (r == -ETIMEDOUT)
		kill(pid, SIGKILL);
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	/* Cleared only once the child is reaped, so that its pid cannot be another's. */
	if (running)
		*running = 0;
	if (stop && *stop) {
		pmc_mb_samples_free(&s);
		pmc_err_set(err, errlen, "'%s' was stopped by signal %d", b->name, (int)*stop);
		return -EINTR;
	}
	if (r == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		*ret = s;
		return 0;
	}
	pmc_mb_samples_free(&s);
	if (r == -ETIMEDOUT) {
		pmc_err_set(err, errlen, "'%s' timed out after %g s%s", b->name, timeout,
			    o->timeout_s == 0 ? " (the default; --timeout sets another)" : "");
		return -ETIMEDOUT;
	}
	if (why[0])
		pmc_err_set(err, errlen, "%s", why);
	else if (WIFSIGNALED(status))
		pmc_err_set(err, errlen, "'%s' crashed: killed by signal %d (%s)", b->name,
			    WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		pmc_err_set(err, errlen,
			    "'%s' exited with status %d before it finished "
			    "(a benchmark must not call exit)",
			    b->name, WEXITSTATUS(status));
	return -ECHILD;
}

/* Writes seeds of fuzz_sample (sample_ring.h) from a real sampling run: a shell loop is
 * sampled on cpu-clock, with call chains, by the real sampler (counters/perf/sample.c) over
 * the kernel's syscall table; before each drain the bytes the kernel published in the
 * ring are copied out, and the busiest ring's bytes become the seed: once at the ring
 * position the kernel wrote them, once near the ring's end so that they wrap.
 *
 *	sample_seed DIR      (as a user who may sample: perf_event_paranoid, CAP_PERFMON)
 *
 * tests/fuzz/README.md says when to run it again. */
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "counters/perf/sample.h"
#include "tests/fuzz/sample_ring.h"

#define MAX_RINGS 64

struct capture {
	struct {
		int fd;
		void *base;
		unsigned char *bytes;
		size_t n, cap;
		bool bad;
	} rings[MAX_RINGS];
	size_t nrings, page, size;
};

static struct capture cap;
static const struct pmc_sys *kernel;

static int cap_mmap(void *ctx, int fd, size_t len, void **ret)
{
	int r = kernel->mmap(kernel->ctx, fd, len, ret);

	if (r == 0 && cap.nrings < MAX_RINGS) {
		cap.rings[cap.nrings].fd = fd;
		cap.rings[cap.nrings].base = *ret;
		cap.nrings++;
		cap.size = len - cap.page;
	}
	return r;
}

/* Appends the records of [data_tail, data_head). */
static void snapshot(size_t i)
{
	struct perf_event_mmap_page *pg = cap.rings[i].base;
	const unsigned char *area = (const unsigned char *)cap.rings[i].base + cap.page;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE), tail = pg->data_tail;

	while (!cap.rings[i].bad && tail != head) {
		struct perf_event_header h;
		unsigned char *grown;

		for (size_t k = 0; k < sizeof(h); k++)
			((unsigned char *)&h)[k] = area[(tail + k) & (cap.size - 1)];
		if (h.size < sizeof(h) || h.size > head - tail) {
			cap.rings[i].bad = true;
			break;
		}
		grown = realloc(cap.rings[i].bytes, cap.rings[i].n + h.size);
		if (!grown)
			exit(1);
		cap.rings[i].bytes = grown;
		for (size_t k = 0; k < h.size; k++)
			grown[cap.rings[i].n + k] = area[(tail + k) & (cap.size - 1)];
		cap.rings[i].n += h.size;
		tail += h.size;
	}
}

static int cap_poll(void *ctx, struct pollfd *fds, unsigned nfds, int timeout_ms)
{
	int r = kernel->poll(kernel->ctx, fds, nfds, timeout_ms);

	for (size_t i = 0; i < cap.nrings; i++)
		snapshot(i);
	return r;
}

/* The records of a stream to keep in one ring's size, in stream order: the first ones
 * (the exec's COMM and MMAP2, the first samples) up to half the ring, then every record
 * that is not a sample (LOST, EXIT, ...), then the last ones. */
static size_t pick(const unsigned char *b, size_t n, size_t size, unsigned char *out)
{
	struct perf_event_header h;
	size_t k = 0, i = 0, from, room, *at, nat = 0;

	for (; i < n; i += h.size) {
		memcpy(&h, b + i, sizeof(h));
		if (k + h.size > size / 2)
			break;
		memcpy(out + k, b + i, h.size);
		k += h.size;
	}
	at = malloc((n / sizeof(h) + 1) * sizeof(*at));
	if (!at)
		exit(1);
	for (size_t j = i; j < n; j += h.size) {
		memcpy(&h, b + j, sizeof(h));
		if (h.type == PERF_RECORD_SAMPLE)
			at[nat++] = j;
		else if (k + h.size <= size * 3 / 4) {
			memcpy(out + k, b + j, h.size);
			k += h.size;
		}
	}
	/* The last samples that fit in what is left, in stream order. */
	room = size - k;
	for (from = nat; from > 0; from--) {
		memcpy(&h, b + at[from - 1], sizeof(h));
		if (h.size > room)
			break;
		room -= h.size;
	}
	for (size_t j = from; j < nat; j++) {
		memcpy(&h, b + at[j], sizeof(h));
		memcpy(out + k, b + at[j], h.size);
		k += h.size;
	}
	free(at);
	return k;
}

static int write_seed(const char *dir, const char *name, const unsigned char *bytes, size_t n,
		      uint64_t start)
{
	unsigned char head[SAMPLE_RING_HEADER] = {SAMPLE_RING_CALLCHAIN, (unsigned char)start,
						  (unsigned char)(start >> 8), 0, 0};
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "we");
	if (!f || fwrite(head, 1, sizeof(head), f) != sizeof(head) || fwrite(bytes, 1, n, f) != n ||
	    fclose(f) != 0) {
		fprintf(stderr, "sample_seed: cannot write %s: %s\n", path, strerror(errno));
		return 1;
	}
	printf("%s: %zu bytes of records from ring position %llu\n", path, n,
	       (unsigned long long)start);
	return 0;
}

int main(int argc, char **argv)
{
	struct pmc_sys sys;
	struct pmc_sample_opts o = {
	    .sz = sizeof(o),
	    .event = "cpu-clock",
	    .pages = SAMPLE_RING_PAGES,
	    .enable_on_exec = true,
	};
	struct pmc_sampler *s = NULL;
	char err[512];
	int go[2], status;
	size_t best = 0, n;
	unsigned char *seed;
	pid_t pid;

	if (argc != 2) {
		fprintf(stderr, "usage: sample_seed DIR\n");
		return 2;
	}
	kernel = pmc_sys_kernel();
	sys = *kernel;
	sys.mmap = cap_mmap;
	sys.poll = cap_poll;
	o.sys = &sys;
	cap.page = (size_t)sysconf(_SC_PAGESIZE);
	if (pipe(go) < 0)
		return 1;
	pid = fork();
	if (pid == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		execl("/bin/sh", "sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done",
		      (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	if (pmc_sampler_open(&o, pid, &s, err, sizeof(err)) < 0) {
		fprintf(stderr, "sample_seed: %s\n", err);
		kill(pid, SIGKILL);
		return 1;
	}
	if (write(go[1], "x", 1) != 1)
		return 1;
	close(go[1]);
	/* Drained every 50 ms, the ring of 8 KiB overflows (about 90 samples at the default
	 * 4000 Hz): the kernel then writes LOST records, as it does under load. */
	while (waitpid(pid, &status, WNOHANG) == 0) {
		usleep(50000);
		pmc_sampler_poll(s, 0);
	}
	pmc_sampler_poll(s, 0);
	for (size_t i = 1; i < cap.nrings; i++)
		if (cap.rings[i].n > cap.rings[best].n)
			best = i;
	if (!cap.nrings || !cap.rings[best].n) {
		fprintf(stderr, "sample_seed: no records were sampled\n");
		return 1;
	}
	printf("sampled %llu samples, %llu lost\n", (unsigned long long)pmc_sampler_samples(s),
	       (unsigned long long)pmc_sampler_lost(s));
	seed = malloc(cap.size);
	if (!seed)
		return 1;
	n = pick(cap.rings[best].bytes, cap.rings[best].n, cap.size, seed);
	if (write_seed(argv[1], "cpu-clock.ring", seed, n, 0) ||
	    write_seed(argv[1], "cpu-clock-wrap.ring", seed, n, cap.size - n / 2))
		return 1;
	free(seed);
	pmc_sampler_close(s);
	return 0;
}

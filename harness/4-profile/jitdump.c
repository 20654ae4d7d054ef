/* JIT code's names from a jitdump, jit-PID.dump (jitdump.h). The file is read on from
 * where the last read stopped: whole records only, so that one the runtime is still
 * writing waits for its end. */
#include "profile/jitdump.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/grow.h"

#define JITDUMP_MAGIC 0x4A695444u
#define JITDUMP_MAGIC_SWAPPED 0x4454694Au
#define JITDUMP_VERSION 1
#define JITDUMP_FLAGS_ARCH_TIMESTAMP 1u
#define HEADER_SIZE 40 /* magic, version, total_size, elf_mach, pad1, pid, timestamp, flags */
#define PREFIX_SIZE 16 /* id, total_size, timestamp */
#define LOAD_SIZE 56   /* prefix, pid, tid, vma, code_addr, code_size, code_index */
#define MOVE_SIZE                                                                                  \
	64		   /* prefix, pid, tid, vma, old_code_addr, new_code_addr, code_size,      \
			    * code_index */
#define NAME_MAX_READ 1024 /* a longer name is cut there */

enum { JIT_CODE_LOAD = 0, JIT_CODE_MOVE = 1, JIT_CODE_CLOSE = 3 };

struct dump_sym {
	uint64_t start, end, time;
	size_t seq; /* the record's order in the file */
	char *name;
};

struct pmc_jitdump {
	char *path;
	struct dump_sym *syms; /* the first sorted by start, then seq; the rest unsorted */
	size_t n, cap, sorted;
	off_t read_to; /* the file's bytes read: the header, then whole records */
	off_t size_seen;
	uint64_t read_at; /* CLOCK_MONOTONIC ns of the last read */
	bool arch_time;	  /* the stamps are the CPU's counter, not CLOCK_MONOTONIC */
	bool done;	  /* JIT_CODE_CLOSE read, or a problem: never read again */
	char *problem;
};

bool pmc_jitdump_is(const char *filename, uint32_t pid)
{
	const char *base, *p;
	uint64_t v = 0;

	if (!filename)
		return false;
	base = strrchr(filename, '/');
	base = base ? base + 1 : filename;
	if (strncmp(base, "jit-", 4) != 0)
		return false;
	for (p = base + 4; *p >= '0' && *p <= '9' && v <= UINT32_MAX; p++)
		v = v * 10 + (uint64_t)(*p - '0');
	return p > base + 4 && strcmp(p, ".dump") == 0 && v == pid;
}

int pmc_jitdump_new(const char *path, struct pmc_jitdump **ret)
{
	struct pmc_jitdump *d;

	if (!path || !ret)
		return -EINVAL;
	if (!(d = calloc(1, sizeof(*d))))
		return -ENOMEM;
	if (!(d->path = strdup(path))) {
		free(d);
		return -ENOMEM;
	}
	*ret = d;
	return 0;
}

void pmc_jitdump_free(struct pmc_jitdump *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++)
		free(d->syms[i].name);
	free(d->syms);
	free(d->problem);
	free(d->path);
	free(d);
}

const char *pmc_jitdump_path(const struct pmc_jitdump *d)
{
	return d ? d->path : NULL;
}

const char *pmc_jitdump_problem(const struct pmc_jitdump *d)
{
	return d ? d->problem : NULL;
}

/* Stops reading d for good, saying why (out of memory loses only the words). */
static void give_up(struct pmc_jitdump *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void give_up(struct pmc_jitdump *d, const char *fmt, ...)
{
	char q[PMC_QUOTE_SIZE(256)];
	char why[256];
	va_list ap;

	d->done = true;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	free(d->problem);
	if (asprintf(&d->problem, "%s: %s; the JIT code it names stays [anon]",
		     pmc_quote(q, sizeof(q), d->path), why) < 0)
		d->problem = NULL;
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Reads exactly n bytes at the file's position; false at its end (a part not written yet). */
static bool get(FILE *f, void *buf, size_t n)
{
	return fread(buf, 1, n, f) == n;
}

static int add_sym(struct pmc_jitdump *d, uint64_t start, uint64_t size, uint64_t time,
		   const char *name)
{
	struct dump_sym *s;

	/* Nothing to name, or past the end of the address space: not a runtime's code. */
	if (size == 0 || size > UINT64_MAX - start || !*name)
		return 0;
	if (pmc_grow_to(&d->syms, &d->cap, d->n + 1, sizeof(*d->syms)) < 0)
		return -ENOMEM;
	s = &d->syms[d->n];
	if (!(s->name = strdup(name)))
		return -ENOMEM;
	s->start = start;
	s->end = start + size;
	s->time = time;
	s->seq = d->n++;
	return 0;
}

static const struct dump_sym *find(const struct pmc_jitdump *d, uint64_t ip, uint64_t time);
static void sort_syms(struct pmc_jitdump *d);

/* The header: the file's first bytes. Returns 1 when read, 0 when not all written yet,
 * -1 when the file is not one this reader reads (given up). */
static int read_header(struct pmc_jitdump *d, FILE *f)
{
	unsigned char h[HEADER_SIZE];
	uint32_t magic, size;

	if (!get(f, h, sizeof(h)))
		return 0;
	magic = get32(h);
	size = get32(h + 8);
	if (magic == JITDUMP_MAGIC_SWAPPED) {
		give_up(d, "a jitdump of the other byte order");
		return -1;
	}
	if (magic != JITDUMP_MAGIC) {
		give_up(d, "not a jitdump (magic 0x%08" PRIx32 ", not 0x%08x)", magic,
			JITDUMP_MAGIC);
		return -1;
	}
	if (get32(h + 4) != JITDUMP_VERSION) {
		give_up(d, "jitdump version %" PRIu32 ", pmcbench reads version %d", get32(h + 4),
			JITDUMP_VERSION);
		return -1;
	}
	if (size < HEADER_SIZE) {
		give_up(d, "its header says it is %" PRIu32 " bytes, less than the %d it holds",
			size, HEADER_SIZE);
		return -1;
	}
	d->arch_time = get64(h + 32) & JITDUMP_FLAGS_ARCH_TIMESTAMP;
	d->read_to = size; /* a longer header (a later revision) is skipped */
	return 1;
}

/* A JIT_CODE_LOAD record's body, rest bytes after its prefix (at least LOAD_SIZE in all).
 * Returns 0, -ENOMEM, or -EIO when cut short. */
static int read_load(struct pmc_jitdump *d, FILE *f, uint64_t time, uint32_t total)
{
	unsigned char b[LOAD_SIZE - PREFIX_SIZE];
	char name[NAME_MAX_READ];
	size_t room = total - LOAD_SIZE < sizeof(name) ? total - LOAD_SIZE : sizeof(name);
	char *nul;

	if (!get(f, b, sizeof(b)) || !get(f, name, room))
		return -EIO;
	if (!(nul = memchr(name, '\0', room))) {
		if (room < sizeof(name)) {
			give_up(d, "the code load at byte %jd has a name without its end",
				(intmax_t)d->read_to);
			return 0;
		}
		name[sizeof(name) - 1] = '\0'; /* a longer name is cut */
	}
	/* pid, tid and vma (b, b + 4, b + 8) are not needed: the file is the process's. */
	return add_sym(d, get64(b + 16), get64(b + 24), time, name);
}

/* A JIT_CODE_MOVE record's body: the code at the old address, as it was named at time,
 * now at the new one. Returns 0, -ENOMEM or -EIO. */
static int read_move(struct pmc_jitdump *d, FILE *f, uint64_t time)
{
	unsigned char b[MOVE_SIZE - PREFIX_SIZE];
	const struct dump_sym *old;
	char *name;
	int rc;

	if (!get(f, b, sizeof(b)))
		return -EIO;
	sort_syms(d);
	if (!(old = find(d, get64(b + 16), time)))
		return 0; /* code no load named */
	if (!(name = strdup(old->name)))
		return -ENOMEM;
	rc = add_sym(d, get64(b + 24), get64(b + 32), time, name);
	free(name);
	return rc;
}

static int cmp_sym(const void *pa, const void *pb)
{
	const struct dump_sym *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The loads read since the last sort, sorted in with the others. */
static void sort_syms(struct pmc_jitdump *d)
{
	if (d->sorted != d->n)
		qsort(d->syms, d->n, sizeof(*d->syms), cmp_sym);
	d->sorted = d->n;
}

/* The records from read_to on, while whole ones are there. */
static void read_records(struct pmc_jitdump *d, FILE *f, off_t size)
{
	unsigned char pre[PREFIX_SIZE];

	while (!d->done && size - d->read_to >= PREFIX_SIZE) {
		uint32_t id, total;
		uint64_t time;
		int rc = 0;

		if (fseeko(f, d->read_to, SEEK_SET) != 0 || !get(f, pre, sizeof(pre)))
			break;
		id = get32(pre);
		total = get32(pre + 4);
		time = get64(pre + 8);
		if (total < PREFIX_SIZE || (id == JIT_CODE_LOAD && total <= LOAD_SIZE) ||
		    (id == JIT_CODE_MOVE && total < MOVE_SIZE)) {
			give_up(d,
				"the record at byte %jd (type %" PRIu32 ") says it is %" PRIu32
				" bytes, less than it holds",
				(intmax_t)d->read_to, id, total);
			break;
		}
		if (size - d->read_to < (off_t)total)
			break; /* being written */
		if (id == JIT_CODE_LOAD)
			rc = read_load(d, f, time, total);
		else if (id == JIT_CODE_MOVE)
			rc = read_move(d, f, time);
		else if (id == JIT_CODE_CLOSE)
			d->done = true;
		if (rc == -EIO)
			break; /* shorter than fstat said: read again later */
		if (rc < 0) {
			give_up(d, "out of memory");
			break;
		}
		d->read_to += total;
	}
	sort_syms(d);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Reads what was added to the file since the last read. */
static void refresh(struct pmc_jitdump *d)
{
	char q[PMC_QUOTE_SIZE(256)];
	struct stat st;
	FILE *f;
	int fd;

	if (d->done)
		return;
	d->read_at = now_ns();
	if ((fd = open(d->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return; /* not there yet, or gone: its names stay unknown */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (st.st_uid != geteuid() && st.st_uid != 0)) {
		close(fd);
		d->done = true;
		free(d->problem);
		if (asprintf(&d->problem,
			     "%s: not a regular file of this user or root, so not read (as perf "
			     "reads it); the JIT code it names stays [anon]",
			     pmc_quote(q, sizeof(q), d->path)) < 0)
			d->problem = NULL;
		return;
	}
	if (st.st_size == d->size_seen || !(f = fdopen(fd, "r"))) {
		close(fd);
		return;
	}
	d->size_seen = st.st_size;
	if (d->read_to > 0 || read_header(d, f) > 0)
		read_records(d, f, st.st_size);
	fclose(f);
}

/* The load that names ip at time (0: the latest), among those starting at or before it. */
static const struct dump_sym *find(const struct pmc_jitdump *d, uint64_t ip, uint64_t time)
{
	const struct dump_sym *best = NULL, *first = NULL;
	size_t lo = 0, hi = d->n;

	if (d->arch_time)
		time = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->syms[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Loads are rarely nested: look back over the few that might cover ip. */
	for (size_t i = lo, k = 0; i-- > 0 && k < 64; k++) {
		const struct dump_sym *s = &d->syms[i];

		if (ip >= s->end)
			continue;
		if (!first || s->time < first->time)
			first = s;
		if (time && s->time > time)
			continue;
		if (!best ||
		    (time ? s->time > best->time || (s->time == best->time && s->seq > best->seq)
			  : s->seq > best->seq))
			best = s;
	}
	/* Code run before its load was stamped: the clocks disagree; its first name. */
	return best ? best : first;
}

const char *pmc_jitdump_lookup(struct pmc_jitdump *d, uint64_t ip, uint64_t time)
{
	const struct dump_sym *s;

	if (!d)
		return NULL;
	/* Stamped times: every load before time was written before the code ran, so before
	 * time; a read since then has them all. Else read again only on a miss. */
	if (time && !d->arch_time && time > d->read_at)
		refresh(d);
	if ((s = find(d, ip, time)))
		return s->name;
	if (time && !d->arch_time)
		return NULL;
	refresh(d);
	return (s = find(d, ip, time)) ? s->name : NULL;
}

/* JIT code's names from /tmp/perf-PID.map (jit_map.h). */
#include "profile/jit_map.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/grow.h"

struct jit_sym {
	uint64_t start, end;
	size_t seq; /* the line's order in the file: the latest wins */
	char *name;
};

struct pmc_jit_map {
	char path[64];
	struct jit_sym *syms; /* sorted by start, then seq */
	size_t n, cap;
	off_t read_to; /* the file's bytes read so far: whole lines only */
	off_t size_seen;
	bool refused; /* not a regular file of this user or root: never read */
};

int pmc_jit_map_new(uint32_t pid, const char *dir, struct pmc_jit_map **ret)
{
	struct pmc_jit_map *j = calloc(1, sizeof(*j));

	if (!j)
		return -ENOMEM;
	snprintf(j->path, sizeof(j->path), "%.40s/perf-%" PRIu32 ".map", dir ? dir : "/tmp", pid);
	*ret = j;
	return 0;
}

void pmc_jit_map_free(struct pmc_jit_map *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->n; i++)
		free(j->syms[i].name);
	free(j->syms);
	free(j);
}

/* One "START SIZE NAME" line (without its newline) added; a line that is not one is
 * skipped, as perf skips it. Returns 0 or -ENOMEM. */
static int add_line(struct pmc_jit_map *j, char *line)
{
	uint64_t start, size;
	char *end;

	errno = 0;
	start = strtoull(line, &end, 16);
	if (end == line || (*end != ' ' && *end != '\t') || errno)
		return 0;
	line = end;
	size = strtoull(line, &end, 16);
	if (end == line || (*end != ' ' && *end != '\t') || errno || size == 0 ||
	    size > UINT64_MAX - start)
		return 0;
	while (*end == ' ' || *end == '\t')
		end++;
	if (!*end)
		return 0;
	if (pmc_grow_to(&j->syms, &j->cap, j->n + 1, sizeof(*j->syms)) < 0)
		return -ENOMEM;
	if (!(j->syms[j->n].name = strdup(end)))
		return -ENOMEM;
	j->syms[j->n].start = start;
	j->syms[j->n].end = start + size;
	j->syms[j->n].seq = j->n;
	j->n++;
	return 0;
}

static int cmp_sym(const void *pa, const void *pb)
{
	const struct jit_sym *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Reads the whole lines added to the file since the last read. */
static void refresh(struct pmc_jit_map *j)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	struct stat st;
	FILE *f;
	int fd;

	if (j->refused)
		return;
	if ((fd = open(j->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (st.st_uid != geteuid() && st.st_uid != 0)) {
		j->refused = true;
		close(fd);
		return;
	}
	if (st.st_size == j->size_seen || !(f = fdopen(fd, "r"))) {
		close(fd);
		return;
	}
	j->size_seen = st.st_size;
	if (fseeko(f, j->read_to, SEEK_SET) == 0) {
		while ((len = getline(&line, &cap, f)) > 0 && line[len - 1] == '\n') {
			line[len - 1] = '\0';
			if (add_line(j, line) < 0)
				break; /* out of memory: the names stay unknown */
			j->read_to += len;
		}
	}
	free(line);
	fclose(f);
	if (j->n)
		qsort(j->syms, j->n, sizeof(*j->syms), cmp_sym);
}

/* The latest line covering ip: among those starting at or before it. */
static const char *find(const struct pmc_jit_map *j, uint64_t ip)
{
	const struct jit_sym *best = NULL;
	size_t lo = 0, hi = j->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (j->syms[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* JIT code is rarely nested: look back over the few lines that might cover ip. */
	for (size_t i = lo, k = 0; i-- > 0 && k < 64; k++)
		if (ip < j->syms[i].end && (!best || j->syms[i].seq > best->seq))
			best = &j->syms[i];
	return best ? best->name : NULL;
}

const char *pmc_jit_map_lookup(struct pmc_jit_map *j, uint64_t ip)
{
	const char *name;

	if (!j)
		return NULL;
	if ((name = find(j, ip)))
		return name;
	refresh(j);
	return find(j, ip);
}

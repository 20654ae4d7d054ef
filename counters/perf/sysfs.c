/* PMU descriptions from sysfs (see sysfs.h for the files and their ABI documents). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters/perf/sysfs.h"
#include "base/grow.h"

int pmc_sysfs_name_ok(const char *name)
{
	if (!name || !*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return 0;
	for (const char *p = name; *p; p++)
		if (*p == '/' || (unsigned char)*p < 0x20)
			return 0;
	return 1;
}

static const char *root_or_default(const char *root)
{
	return root ? root : PMC_SYSFS_ROOT;
}

/* Reads a small sysfs file into buf as a string, with trailing whitespace removed. */
static int read_small(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	int fd, r = 0;

	if (size == 0)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len + 1 < size) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (r < 0)
		return r;
	buf[len] = '\0';
	while (len > 0 && isspace((unsigned char)buf[len - 1]))
		buf[--len] = '\0';
	return 0;
}

static int build_path(char *buf, size_t size, const char *root, const char *pmu, const char *sub,
		      const char *name)
{
	int n;

	if (!pmc_sysfs_name_ok(pmu) || (name && !pmc_sysfs_name_ok(name)))
		return -ENOENT;
	if (sub && name)
		n = snprintf(buf, size, "%s/%s/%s/%s", root_or_default(root), pmu, sub, name);
	else if (sub)
		n = snprintf(buf, size, "%s/%s/%s", root_or_default(root), pmu, sub);
	else if (name)
		n = snprintf(buf, size, "%s/%s/%s", root_or_default(root), pmu, name);
	else
		n = snprintf(buf, size, "%s/%s", root_or_default(root), pmu);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

int pmc_sysfs_pmu_file(const char *root, const char *pmu, const char *name, char *buf, size_t size)
{
	char path[PATH_MAX];
	int r;

	r = build_path(path, sizeof(path), root, pmu, NULL, name);
	if (r < 0)
		return r;
	r = read_small(path, buf, size);
	if (r == -ENOTDIR || r == -EISDIR)
		return -ENOENT;
	return r;
}

int pmc_sysfs_pmu_type(const char *root, const char *pmu, uint32_t *ret)
{
	char path[PATH_MAX], buf[64], *end;
	unsigned long v;
	int r;

	r = build_path(path, sizeof(path), root, pmu, NULL, "type");
	if (r < 0)
		return r;
	r = read_small(path, buf, sizeof(buf));
	if (r == -ENOTDIR)
		return -ENOENT;
	if (r < 0)
		return r;
	errno = 0;
	v = strtoul(buf, &end, 10);
	if (errno || end == buf || *end || v > UINT32_MAX)
		return -EINVAL;
	*ret = (uint32_t)v;
	return 0;
}

int pmc_sysfs_event_alias(const char *root, const char *pmu, const char *name, char *buf,
			  size_t size)
{
	char path[PATH_MAX];
	int r;

	r = build_path(path, sizeof(path), root, pmu, "events", name);
	if (r < 0)
		return r;
	r = read_small(path, buf, size);
	/* A directory or a missing PMU both mean "no such alias". */
	if (r == -ENOTDIR || r == -EISDIR)
		return -ENOENT;
	return r;
}

static int parse_uint(const char **p, unsigned *ret)
{
	unsigned long v;
	char *end;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	v = strtoul(*p, &end, 10);
	if (errno || v > 63)
		return -EINVAL;
	*p = end;
	*ret = (unsigned)v;
	return 0;
}

int pmc_sysfs_format_parse(const char *text, struct pmc_sysfs_format *ret)
{
	struct pmc_sysfs_format f = {0};
	const char *p = text;

	if (strncmp(p, "config", 6) != 0)
		return -EINVAL;
	p += 6;
	if (*p == ':') {
		f.field = 0;
	} else if (p[0] >= '1' && p[0] <= '3' && p[1] == ':') {
		f.field = p[0] - '0';
		p++;
	} else {
		return -EINVAL;
	}
	if (f.field > 2)
		return -EOPNOTSUPP;
	p++;
	for (;;) {
		unsigned lo, hi;

		if (f.nranges == PMC_SYSFS_FORMAT_MAX_RANGES || parse_uint(&p, &lo) < 0)
			return -EINVAL;
		hi = lo;
		if (*p == '-') {
			p++;
			if (parse_uint(&p, &hi) < 0 || hi < lo)
				return -EINVAL;
		}
		f.ranges[f.nranges].lo = lo;
		f.ranges[f.nranges].hi = hi;
		f.nranges++;
		if (*p == '\0')
			break;
		if (*p != ',')
			return -EINVAL;
		p++;
	}
	*ret = f;
	return 0;
}

int pmc_sysfs_format_read(const char *root, const char *pmu, const char *term,
			  struct pmc_sysfs_format *ret)
{
	char path[PATH_MAX], buf[256];
	int r;

	r = build_path(path, sizeof(path), root, pmu, "format", term);
	if (r < 0)
		return r;
	r = read_small(path, buf, sizeof(buf));
	if (r == -ENOTDIR || r == -EISDIR)
		return -ENOENT;
	if (r < 0)
		return r;
	return pmc_sysfs_format_parse(buf, ret);
}

unsigned pmc_sysfs_format_width(const struct pmc_sysfs_format *f)
{
	unsigned w = 0;

	for (size_t i = 0; i < f->nranges; i++)
		w += f->ranges[i].hi - f->ranges[i].lo + 1;
	return w;
}

int pmc_sysfs_format_apply(const struct pmc_sysfs_format *f, uint64_t value, uint64_t config[3])
{
	unsigned width = pmc_sysfs_format_width(f), shift = 0;
	uint64_t *dst = &config[f->field];

	if (width < 64 && (value >> width) != 0)
		return -ERANGE;
	for (size_t i = 0; i < f->nranges; i++) {
		unsigned bits = f->ranges[i].hi - f->ranges[i].lo + 1;
		uint64_t mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
		uint64_t part = shift >= 64 ? 0 : (value >> shift) & mask;

		*dst &= ~(mask << f->ranges[i].lo);
		*dst |= part << f->ranges[i].lo;
		shift += bits;
	}
	return 0;
}

static bool hidden_companion(const char *name)
{
	static const char *const suffixes[] = {".scale", ".unit", ".snapshot", ".per-pkg"};
	size_t len = strlen(name);

	if (name[0] == '.')
		return true;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t sl = strlen(suffixes[i]);

		if (len > sl && strcmp(name + len - sl, suffixes[i]) == 0)
			return true;
	}
	return false;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void pmc_sysfs_names_free(char **names, size_t n)
{
	if (!names)
		return;
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int pmc_sysfs_names(const char *root, const char *pmu, const char *sub, char ***ret, size_t *ret_n)
{
	char path[PATH_MAX], **names = NULL;
	size_t n = 0;
	struct dirent *de;
	DIR *dir;
	int r;

	if (pmu) {
		r = build_path(path, sizeof(path), root, pmu, sub, NULL);
		if (r < 0)
			return r;
	} else if (snprintf(path, sizeof(path), "%s", root_or_default(root)) >= (int)sizeof(path)) {
		return -ENAMETOOLONG;
	}
	dir = opendir(path);
	if (!dir)
		return errno == ENOTDIR ? -ENOENT : -errno;
	while ((de = readdir(dir))) {
		char *copy;

		if (hidden_companion(de->d_name))
			continue;
		if (pmc_grow(&names, n, sizeof(*names)) < 0) {
			r = -ENOMEM;
			goto fail_alloc;
		}
		copy = strdup(de->d_name);
		if (!copy) {
			r = -ENOMEM;
			goto fail_alloc;
		}
		names[n++] = copy;
	}
	closedir(dir);
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_names);
	*ret = names;
	*ret_n = n;
	return 0;

fail_alloc:
	closedir(dir);
	pmc_sysfs_names_free(names, n);
	return r;
}

/* The emulated tracefs of uprobe probes (fake_tracefs.h). */
#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "counters/perf/sys.h"
#include "tests/fake_pmu.h"
#include "tests/fake_tracefs.h"

static int put_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fputs(text, f);
	return fclose(f) == 0 ? 0 : -errno;
}

int fake_tracefs_init(struct fake_tracefs *t, struct pmc_sys *sys)
{
	const char *tmp = getenv("TMPDIR");
	char path[PATH_MAX + 32];

	memset(t, 0, sizeof(*t));
	t->next_id = 2000;
	snprintf(t->root, sizeof(t->root), "%s/pmc-fake-tracefs-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(t->root))
		return -errno;
	snprintf(path, sizeof(path), "%s/events", t->root);
	if (mkdir(path, 0755) < 0)
		return -errno;
	snprintf(path, sizeof(path), "%s/uprobe_events", t->root);
	if (put_text(path, "") < 0)
		return -errno;
	if (sys) {
		sys->tracefs_root = t->root;
		sys->probe_write = fake_tracefs_write;
		sys->probe_ctx = t;
	}
	return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void fake_tracefs_remove(struct fake_tracefs *t)
{
	if (strstr(t->root, "/pmc-fake-tracefs-"))
		nftw(t->root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *fake_tracefs_listing(const struct fake_tracefs *t, char *buf, size_t len)
{
	char path[PATH_MAX + 32];
	FILE *f;
	size_t n = 0;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/uprobe_events", t->root);
	if ((f = fopen(path, "r"))) {
		n = fread(buf, 1, len - 1, f);
		buf[n] = '\0';
		fclose(f);
	}
	return buf;
}

/* is_good_name(): a C identifier. */
static bool good_name(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (s++; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* "[GRP/]EVENT" into group and event, as traceprobe_parse_event_name() checks them. */
static int parse_name(const char *s, char *group, char *event)
{
	const char *slash = strchr(s, '/');

	snprintf(group, 64, "uprobes");
	if (slash) {
		if (slash == s || slash - s + 1 > 64)
			return -EINVAL;
		snprintf(group, 64, "%.*s", (int)(slash - s), s);
		if (!good_name(group))
			return -EINVAL;
		s = slash + 1;
	}
	if (!*s)
		return -EOPNOTSUPP; /* a generated name */
	if (strlen(s) > 64 || !good_name(s))
		return -EINVAL;
	snprintf(event, 65, "%s", s);
	return 0;
}

static int read_id(const struct fake_tracefs *t, const char *group, const char *event,
		   uint64_t *ret)
{
	char path[PATH_MAX + 160];
	unsigned long long v;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", t->root, group, event);
	if (!(f = fopen(path, "r")))
		return -ENOENT;
	ok = fscanf(f, "%llu", &v) == 1;
	fclose(f);
	*ret = v;
	return ok ? 0 : -EIO;
}

static bool busy(const struct fake_tracefs *t, uint64_t id)
{
	for (size_t i = 0; t->pmu && i < FAKE_PMU_MAX_EVENTS; i++)
		if (t->pmu->ev[i].used && t->pmu->ev[i].attr.type == PERF_TYPE_TRACEPOINT &&
		    t->pmu->ev[i].attr.config == id)
			return true;
	return false;
}

/* Rewrites uprobe_events without the line of group/event; keep NULL. Or appends add. */
static int rewrite_listing(const struct fake_tracefs *t, const char *drop, const char *add)
{
	char path[PATH_MAX + 32], text[16384], out[16384] = "", *line, *save = NULL;

	fake_tracefs_listing(t, text, sizeof(text));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *name = strchr(line, ':');
		size_t dl = drop ? strlen(drop) : 0;

		if (drop && name && strncmp(name + 1, drop, dl) == 0 && name[1 + dl] == ' ')
			continue;
		strncat(out, line, sizeof(out) - strlen(out) - 2);
		strcat(out, "\n");
	}
	if (add) {
		strncat(out, add, sizeof(out) - strlen(out) - 2);
		strcat(out, "\n");
	}
	snprintf(path, sizeof(path), "%s/uprobe_events", t->root);
	return put_text(path, out);
}

static int delete_event(struct fake_tracefs *t, const char *arg)
{
	char group[64], event[65], path[PATH_MAX + 160], both[130];
	uint64_t id;
	int r;

	if (arg[1] != ':' || (r = parse_name(arg + 2, group, event)) < 0)
		return -EINVAL;
	if (read_id(t, group, event, &id) < 0)
		return -ENOENT;
	if (busy(t, id))
		return -EBUSY;
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", t->root, group, event);
	unlink(path);
	snprintf(path, sizeof(path), "%s/events/%s/%s", t->root, group, event);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/events/%s", t->root, group);
	rmdir(path); /* fails while the group has other events */
	snprintf(both, sizeof(both), "%s/%s", group, event);
	return rewrite_listing(t, both, NULL);
}

static int define_event(struct fake_tracefs *t, char kind, const char *name, char *where)
{
	char group[64], event[65], path[PATH_MAX + 160], line[PATH_MAX + 200], *colon, *end;
	unsigned long off;
	uint64_t id;
	struct stat st;
	int r;

	if (!name)
		return -EOPNOTSUPP;
	if ((r = parse_name(name, group, event)) < 0)
		return r;
	if (!(colon = strrchr(where, ':')) || colon == where)
		return -EINVAL;
	*colon++ = '\0';
	if (strchr(colon, '(') || strchr(colon, '%'))
		return -EOPNOTSUPP;
	errno = 0;
	off = strtoul(colon, &end, 0);
	if (!*colon || *end || errno || *colon == '-')
		return -EINVAL;
	if (stat(where, &st) < 0)
		return -ENOENT;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (read_id(t, group, event, &id) == 0)
		return -EEXIST;
	snprintf(path, sizeof(path), "%s/events/%s", t->root, group);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/events/%s/%s", t->root, group, event);
	if (mkdir(path, 0755) < 0)
		return -errno;
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", t->root, group, event);
	snprintf(line, sizeof(line), "%" PRIu64 "\n", t->next_id++);
	if ((r = put_text(path, line)) < 0)
		return r;
	snprintf(line, sizeof(line), "%c:%s/%s %s:0x%016lx", kind, group, event, where, off);
	return rewrite_listing(t, NULL, line);
}

static int parse_line(struct fake_tracefs *t, char *text)
{
	char *argv[4], *save = NULL, *s;
	size_t argc = 0, len = strlen(text);

	if (len && text[len - 1] == '\n')
		text[--len] = '\0';
	for (s = strtok_r(text, " \t\n", &save); s; s = strtok_r(NULL, " \t\n", &save)) {
		if (argc == 3)
			return -EOPNOTSUPP; /* fetch arguments */
		argv[argc++] = s;
	}
	if (argc == 0)
		return 0;
	if (argv[0][0] == '-')
		return argc == 1 ? delete_event(t, argv[0]) : -EINVAL;
	if ((argv[0][0] != 'p' && argv[0][0] != 'r') || (argv[0][1] && argv[0][1] != ':'))
		return -EINVAL;
	if (argc < 2)
		return -EINVAL;
	if (argc > 2)
		return -EOPNOTSUPP;
	return define_event(t, argv[0][0], argv[0][1] ? argv[0] + 2 : NULL, argv[1]);
}

int fake_tracefs_write(void *ctx, const char *tracefs, const char *line)
{
	struct fake_tracefs *t = ctx;
	char *copy = strdup(line);
	int r;

	if (!copy)
		return -ENOMEM;
	r = strcmp(tracefs, t->root) == 0 ? parse_line(t, copy) : -ENOENT;
	free(copy);
	if (t->nlines < FAKE_TRACEFS_MAX_LOG) {
		snprintf(t->lines[t->nlines], sizeof(t->lines[0]), "%s", line);
		t->results[t->nlines++] = r;
	}
	return r;
}

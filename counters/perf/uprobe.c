/* Uprobe events as tracefs probes (uprobe.h): defining them in uprobe_events, reading
 * their ids, deleting them, and deleting what a killed pmcbench left. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "counters/perf/events.h"
#include "counters/perf/sys.h"
#include "counters/perf/tracefs.h"
#include "counters/perf/uprobe.h"

/* The kernel takes group and event names of at most MAX_EVENT_NAME_LEN (64) bytes with
 * the NUL, in C identifier characters (kernel/trace/trace_probe.c,
 * traceprobe_parse_event_name() and is_good_name()). */
#define NAME_MAX_LEN 63

struct probe {
	char name[NAME_MAX_LEN + 1];
	size_t ev; /* the event of the list it stands for */
	/* The event's uprobe PMU attributes, given back when the probe is deleted. */
	uint32_t type;
	uint64_t config, config2;
};

struct pmc_uprobe_set {
	const struct pmc_sys *sys;
	struct pmc_event_list *list;
	char tracefs[4096];
	char group[NAME_MAX_LEN + 1];
	struct probe *probes;
	size_t n;
};

/* Probes of one process are numbered across sets, so two sets never share a name. */
static atomic_uint next_probe;

/* What the default writer does: append, never truncate (opening uprobe_events with
 * O_TRUNC deletes every probe on the machine, perf's and other tools' too). */
static int file_write(const char *tracefs, const char *line)
{
	char path[4096 + 16];
	size_t len = strlen(line);
	char *buf;
	ssize_t w;
	int fd, r = 0;

	snprintf(path, sizeof(path), "%s/uprobe_events", tracefs);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(len + 2);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	memcpy(buf, line, len);
	buf[len] = '\n';
	buf[len + 1] = '\0';
	/* The kernel parses the write as a whole: one line, all of it or an error. */
	w = write(fd, buf, len + 1);
	if (w < 0)
		r = -errno;
	else if ((size_t)w != len + 1)
		r = -EIO;
	free(buf);
	close(fd);
	return r;
}

static int write_line(const struct pmc_uprobe_set *set, const char *line)
{
	if (set->sys && set->sys->probe_write)
		return set->sys->probe_write(set->sys->probe_ctx, set->tracefs, line);
	return file_write(set->tracefs, line);
}

static void delete_probe(const struct pmc_uprobe_set *set, const char *group, const char *name)
{
	char line[2 * NAME_MAX_LEN + 8];

	snprintf(line, sizeof(line), "-:%s/%s", group, name);
	(void)write_line(set, line); /* -ENOENT: gone; -EBUSY: in use, left to the next run */
}

/* The pid of a group name pmcbench_<pid>, or 0 when it is no such name. */
static pid_t group_pid(const char *group, size_t len)
{
	size_t plen = strlen(PMC_UPROBE_GROUP_PREFIX);
	unsigned long v = 0;

	if (len <= plen || len > NAME_MAX_LEN || strncmp(group, PMC_UPROBE_GROUP_PREFIX, plen) != 0)
		return 0;
	for (size_t i = plen; i < len; i++) {
		if (!isdigit((unsigned char)group[i]) || v > 100000000)
			return 0;
		v = v * 10 + (unsigned long)(group[i] - '0');
	}
	return (pid_t)v;
}

/* A probe of a pmcbench that was killed before it could delete it: its process is gone.
 * (A pmcbench in another pid namespace looks gone too; its probes in use are safe, as
 * the kernel refuses to delete them.) */
static bool stale(pid_t pid)
{
	return pid > 0 && pid != getpid() && kill(pid, 0) < 0 && errno == ESRCH;
}

/* Deletes the probes of gone pmcbench processes, as uprobe_events lists them:
 * "p:GROUP/EVENT PATH:0xOFFSET" (or r:), one a line. */
static void delete_stale(const struct pmc_uprobe_set *set)
{
	char path[4096 + 16];
	char *text = NULL, *line;
	size_t len = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/uprobe_events", set->tracefs);
	f = fopen(path, "re");
	if (!f)
		return;
	if (getdelim(&text, &len, '\0', f) < 0) {
		free(text);
		fclose(f);
		return;
	}
	fclose(f);
	for (line = text; line && *line;) {
		char *next = strchr(line, '\n'), *slash, *end;

		if (next)
			*next++ = '\0';
		slash = strchr(line, '/');
		end = slash ? strchr(slash, ' ') : NULL;
		if (line[0] && line[1] == ':' && slash && end && end - slash - 1 <= NAME_MAX_LEN &&
		    stale(group_pid(line + 2, (size_t)(slash - line - 2)))) {
			char group[NAME_MAX_LEN + 1], name[NAME_MAX_LEN + 1];

			snprintf(group, sizeof(group), "%.*s", (int)(slash - line - 2), line + 2);
			snprintf(name, sizeof(name), "%.*s", (int)(end - slash - 1), slash + 1);
			delete_probe(set, group, name);
		}
		line = next;
	}
	free(text);
}

/* The probe's name: e<number>_<symbol>, its dots as underscores, cut to fit. */
static void probe_name(const struct pmc_event *ev, char *ret)
{
	int n = snprintf(ret, NAME_MAX_LEN + 1, "e%u_%s", atomic_fetch_add(&next_probe, 1),
			 ev->probe_symbol);

	for (int i = 0; i < n && ret[i]; i++)
		if (!isalnum((unsigned char)ret[i]))
			ret[i] = '_';
}

/* Gives the events of the first n probes back their uprobe PMU attributes. */
static void restore(struct pmc_uprobe_set *set, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct pmc_event *ev = &set->list->events[set->probes[i].ev];

		ev->type = set->probes[i].type;
		ev->config = set->probes[i].config;
		ev->config2 = set->probes[i].config2;
	}
}

/* Defines the probe of event i and makes the event its tracepoint. */
static int add_probe(struct pmc_uprobe_set *set, size_t i, char *err, size_t errlen)
{
	struct pmc_event *ev = &set->list->events[i];
	struct probe *p = &set->probes[set->n];
	char line[2 * NAME_MAX_LEN + sizeof(ev->probe_path) + 32], quoted[PMC_QUOTE_SIZE(64)];
	uint64_t id;
	int r;

	/* The kernel splits a definition at white space (argv_split()). */
	for (const char *c = ev->probe_path; *c; c++)
		if (isspace((unsigned char)*c)) {
			pmc_err_set(err, errlen,
				    "%s: the path %s has white space, which a probe in "
				    "uprobe_events cannot name",
				    ev->name, pmc_quote(quoted, sizeof(quoted), ev->probe_path));
			return -EINVAL;
		}
	probe_name(ev, p->name);
	/* A name this pid used before, left by a killed pmcbench of the same pid: the kernel
	 * would add the new probe to the old event (append_trace_uprobe()). */
	delete_probe(set, set->group, p->name);
	snprintf(line, sizeof(line), "%c:%s/%s %s:0x%" PRIx64, ev->probe_return ? 'r' : 'p',
		 set->group, p->name, ev->probe_path, ev->config2);
	r = write_line(set, line);
	if (r < 0) {
		pmc_err_set(err, errlen,
			    "%s: the kernel refused the probe '%s' in %s/uprobe_events: %s",
			    ev->name, line, set->tracefs, strerror(-r));
		return r;
	}
	r = pmc_tracefs_event_id(set->tracefs, set->group, p->name, &id);
	if (r < 0) {
		pmc_err_set(err, errlen, "%s: cannot read the id of probe %s/%s in %s/events: %s",
			    ev->name, set->group, p->name, set->tracefs, strerror(-r));
		delete_probe(set, set->group, p->name);
		return r;
	}
	p->ev = i;
	p->type = ev->type;
	p->config = ev->config;
	p->config2 = ev->config2;
	set->n++;
	ev->type = PERF_TYPE_TRACEPOINT;
	ev->config = id;
	ev->config2 = 0;
	return 0;
}

/* Whether uprobe_events is there and this user may write it. */
static int check_writable(const struct pmc_uprobe_set *set, char *err, size_t errlen)
{
	char path[4096 + 16];
	struct stat st;

	snprintf(path, sizeof(path), "%s/uprobe_events", set->tracefs);
	if (stat(path, &st) < 0) {
		int r = -errno;

		pmc_err_set(err, errlen, "%s: %s (a kernel without CONFIG_UPROBE_EVENTS)", path,
			    strerror(-r));
		return r == -EACCES ? r : -ENOENT;
	}
	if (!set->sys->probe_write && access(path, W_OK) < 0) {
		pmc_err_set(err, errlen,
			    "%s is not writable by this user (uid %u): defining probes needs root",
			    path, (unsigned)geteuid());
		return -EACCES;
	}
	return 0;
}

static size_t count_probes(const struct pmc_event_list *list)
{
	size_t n = 0;

	for (size_t i = 0; list && i < list->n; i++)
		n += list->events[i].kind == PMC_EV_UPROBE && list->events[i].probe_resolved &&
		     list->events[i].type != PERF_TYPE_TRACEPOINT;
	return n;
}

int pmc_uprobe_set_create(struct pmc_event_list *list, const struct pmc_sys *sys,
			  struct pmc_uprobe_set **ret, char *err, size_t errlen)
{
	size_t n = count_probes(list);
	struct pmc_uprobe_set *set;
	int r;

	*ret = NULL;
	if (n == 0)
		return 0;
	set = calloc(1, sizeof(*set));
	if (!set || !(set->probes = calloc(n, sizeof(*set->probes)))) {
		free(set);
		pmc_err_set(err, errlen, "out of memory");
		return -ENOMEM;
	}
	set->sys = sys ? sys : pmc_sys_kernel();
	set->list = list;
	snprintf(set->group, sizeof(set->group), PMC_UPROBE_GROUP_PREFIX "%ld", (long)getpid());
	r = pmc_tracefs_find(set->sys->tracefs_root, false, set->tracefs, sizeof(set->tracefs), err,
			     errlen);
	if (r < 0)
		goto fail_tracefs;
	if ((r = check_writable(set, err, errlen)) < 0)
		goto fail_tracefs;
	delete_stale(set);
	for (size_t i = 0; i < list->n && r == 0; i++)
		if (list->events[i].kind == PMC_EV_UPROBE && list->events[i].probe_resolved &&
		    list->events[i].type != PERF_TYPE_TRACEPOINT)
			r = add_probe(set, i, err, errlen);
	if (r < 0)
		goto fail_probe;
	*ret = set;
	return 0;

fail_probe:
	pmc_uprobe_set_free(set);
	return r;
fail_tracefs:
	free(set->probes);
	free(set);
	return r;
}

void pmc_uprobe_set_free(struct pmc_uprobe_set *set)
{
	if (!set)
		return;
	restore(set, set->n);
	for (size_t i = set->n; i-- > 0;)
		delete_probe(set, set->group, set->probes[i].name);
	free(set->probes);
	free(set);
}

const char *pmc_uprobe_set_tracefs(const struct pmc_uprobe_set *set)
{
	return set->tracefs;
}

const char *pmc_uprobe_set_group(const struct pmc_uprobe_set *set)
{
	return set->group;
}

bool pmc_uprobe_event_probed(const struct pmc_event *ev)
{
	return ev->kind == PMC_EV_UPROBE && ev->type == PERF_TYPE_TRACEPOINT;
}

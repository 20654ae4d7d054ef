/* The kernel's events in an event list (docs/events.md, "Tracepoints" and "Function
 * calls"): tracepoints named as perf spells them, subsystem:event with globs in either
 * part, their ids from tracefs (tracefs.c); and calls of a user-space function through
 * the uprobe PMU, uprobe:FILE_OR_LIBRARY:SYMBOL[%return]. The list's syntax is events.c's,
 * whose parser state this file shares (events_parse.h). */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/suggest.h"
#include "counters/perf/events_parse.h"
#include "counters/perf/sysfs.h"
#include "counters/perf/tracefs.h"

/* A glob expanding to hundreds of tracepoints is opened in groups of at most this many
 * (weak, so a kernel refusing one splits it into single events): one read() per group per
 * run instead of one per event, well inside the kernel's limit on a group's read size
 * (kernel/events/core.c, perf_event_validate_size(): 16 KiB, about 1000 events). */
#define PMC_TRACEPOINT_GROUP_MAX 128

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static bool only_mod_letters(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != 'u' && s[i] != 'k' && s[i] != 'W')
			return false;
	return len > 0;
}

bool pmc_parse_looks_raw(const char *name, size_t len)
{
	if (len < 2 || name[0] != 'r')
		return false;
	for (size_t i = 1; i < len; i++)
		if (!isxdigit((unsigned char)name[i]))
			return false;
	return true;
}

/* Finds tracefs once per parse; the error message goes into p->err. */
static int need_tracefs(struct parser *p, size_t at)
{
	char msg[sizeof(p->err->message)];
	int r;

	if (p->tracefs[0])
		return 0;
	r = pmc_tracefs_find(p->tracefs_opt, true, p->tracefs, sizeof(p->tracefs), msg,
			     sizeof(msg));
	if (r < 0) {
		p->tracefs[0] = '\0';
		return fail(p, at, "%s", msg);
	}
	return 0;
}

static int fail_unknown_subsystem(struct parser *p, size_t at, const char *sys, char **subs,
				  size_t nsubs)
{
	struct pmc_suggest s;

	pmc_suggest_init(&s, sys, strlen(sys));
	for (size_t i = 0; i < nsubs; i++)
		pmc_suggest_offer(&s, subs[i], subs[i]);
	fail(p, at, "unknown tracepoint subsystem '%.60s' (in %.200s/events)", sys, p->tracefs);
	pmc_suggest_append(&s, p->err->message, sizeof(p->err->message),
			   "run 'pmcbench list tracepoint' to see them");
	return -EINVAL;
}

static int fail_unknown_tracepoint(struct parser *p, size_t at, const char *sys, const char *event)
{
	struct pmc_suggest s;
	char **evs = NULL;
	size_t nevs = 0;

	pmc_suggest_init(&s, event, strlen(event));
	if (pmc_tracefs_names(p->tracefs, sys, &evs, &nevs) == 0) {
		for (size_t i = 0; i < nevs; i++) {
			char display[PMC_EVENT_NAME_MAX];

			format_cut(display, sizeof(display), "%s:%s", sys, evs[i]);
			pmc_suggest_offer(&s, evs[i], display);
		}
		pmc_tracefs_names_free(evs, nevs);
	}
	fail(p, at, "unknown tracepoint '%.60s:%.60s'", sys, event);
	pmc_suggest_append(&s, p->err->message, sizeof(p->err->message), NULL);
	format_cut(p->err->message + strlen(p->err->message),
		   sizeof(p->err->message) - strlen(p->err->message),
		   "; run 'pmcbench list tracepoint '%.60s:*'' to see its events", sys);
	return -EINVAL;
}

/* Appends tracepoint sys:event (its id read from tracefs) to the group being filled:
 * the caller's group for the first event or inside '{...}', else a new group once the
 * current one holds PMC_TRACEPOINT_GROUP_MAX events. */
static int push_tracepoint(struct parser *p, size_t at, const char *sys, const char *event,
			   size_t *g, bool *leader, size_t *ingroup)
{
	struct pmc_event *ev;
	uint64_t id;
	int r;

	r = pmc_tracefs_event_id(p->tracefs, sys, event, &id);
	if (r == -ENOENT)
		return fail_unknown_tracepoint(p, at, sys, event);
	if (r < 0)
		return fail(p, at, "cannot read the id of tracepoint %.60s:%.60s from %.200s: %s",
			    sys, event, p->tracefs, strerror(-r));
	if (strlen(sys) + strlen(event) + 2 > PMC_EVENT_NAME_MAX - 4)
		return fail(p, at, "tracepoint name %.60s:%.60s too long", sys, event);
	if (!p->in_group && *ingroup == PMC_TRACEPOINT_GROUP_MAX) {
		*g = p->ngroups++;
		*leader = true;
		*ingroup = 0;
	}
	r = pmc_parse_push_event(p, &ev);
	if (r < 0)
		return r;
	ev->kind = PMC_EV_TRACEPOINT;
	ev->type = PERF_TYPE_TRACEPOINT;
	ev->config = id;
	ev->group = *g;
	ev->leader = *leader;
	/* Counting user space only would keep the tracepoints that fire with user registers
	 * and drop the others to 0: denied is the honest answer (counters_plain.c, open_one). */
	ev->no_user_fallback = true;
	format_cut(ev->name, sizeof(ev->name), "%s:%s", sys, event);
	*leader = false;
	(*ingroup)++;
	return 0;
}

/* The events of subsystem sys matching event (a glob or a name), appended; *ret_n gets
 * how many. */
static int expand_subsystem(struct parser *p, size_t at, const char *sys, const char *event,
			    size_t *g, bool *leader, size_t *ingroup, size_t *ret_n)
{
	char **evs = NULL;
	size_t nevs = 0;
	int r;

	if (!has_glob(event)) {
		r = push_tracepoint(p, at, sys, event, g, leader, ingroup);
		if (r == 0)
			(*ret_n)++;
		return r;
	}
	r = pmc_tracefs_names(p->tracefs, sys, &evs, &nevs);
	if (r < 0)
		return fail(p, at, "cannot list the tracepoints of %.60s in %.200s: %s", sys,
			    p->tracefs, strerror(-r));
	for (size_t i = 0; i < nevs && r == 0; i++) {
		if (fnmatch(event, evs[i], 0) != 0)
			continue;
		r = push_tracepoint(p, at, sys, evs[i], g, leader, ingroup);
		if (r == 0)
			(*ret_n)++;
	}
	pmc_tracefs_names_free(evs, nevs);
	return r;
}

/* uprobe:FILE:SYMBOL[%return]: p->pos is at the ':' after "uprobe". The file is resolved
 * and the symbol's offset found later, by whoever knows the command
 * (pmc_uprobes_resolve()); the kernel's uprobe PMU is looked up now. */
int pmc_parse_uprobe(struct parser *p, size_t start, struct pmc_event *ev)
{
	static const char usage[] = "write uprobe:FILE:SYMBOL, as in uprobe:libc:malloc or "
				    "uprobe:/usr/lib/x86_64-linux-gnu/libc.so.6:free%return";
	size_t fstart = ++p->pos, flen, sstart, slen, nlen;
	uint64_t config[3] = {0, 0, 0};
	struct pmc_sysfs_format f;
	bool ret_probe = false;
	uint32_t type;
	int r;

	while (peek(p) && peek(p) != ':' && peek(p) != ',' && peek(p) != '}' &&
	       !isspace((unsigned char)peek(p)))
		p->pos++;
	flen = p->pos - fstart;
	if (flen == 0 || peek(p) != ':')
		return fail(p, start, "incomplete uprobe '%.*s'; %s", QLEN(p->pos - start),
			    p->spec + start, usage);
	sstart = ++p->pos;
	while (!is_delim(peek(p)))
		p->pos++;
	slen = p->pos - sstart;
	if (slen >= 7 && strncmp(p->spec + p->pos - 7, "%return", 7) == 0) {
		ret_probe = true;
		slen -= 7;
	}
	if (slen == 0)
		return fail(p, start, "uprobe '%.*s' names no symbol; %s", QLEN(p->pos - start),
			    p->spec + start, usage);
	if (flen >= sizeof(ev->probe_path) || slen >= sizeof(ev->probe_symbol))
		return fail(p, start, "uprobe '%.*s': file or symbol name too long",
			    QLEN(p->pos - start), p->spec + start);
	for (size_t i = sstart; i < sstart + slen; i++)
		if (!isalnum((unsigned char)p->spec[i]) && p->spec[i] != '_' && p->spec[i] != '.')
			return fail(p, i,
				    "bad character '%c' in the symbol of uprobe '%.*s'; give the "
				    "symbol's name as the ELF file spells it (malloc, _Znwm)",
				    p->spec[i], QLEN(p->pos - start), p->spec + start);
	nlen = p->pos - start;
	if (nlen > PMC_EVENT_NAME_MAX - 4)
		return fail(p, start, "event name too long (at most %d characters)",
			    PMC_EVENT_NAME_MAX - 4);
	r = pmc_sysfs_pmu_type(p->root, "uprobe", &type);
	if (r < 0)
		return fail(p, start,
			    "this kernel has no uprobe PMU (%.200s/uprobe: %s); function calls "
			    "need a kernel with CONFIG_UPROBE_EVENTS (Linux 4.17 or later)",
			    p->root ? p->root : PMC_SYSFS_ROOT, strerror(-r));
	if (ret_probe) {
		r = pmc_sysfs_format_read(p->root, "uprobe", "retprobe", &f);
		if (r == 0)
			r = pmc_sysfs_format_apply(&f, 1, config);
		if (r < 0)
			return fail(p, start,
				    "the uprobe PMU here has no 'retprobe' format, so returns "
				    "cannot be counted; count the calls (drop %%return)");
	}
	ev->kind = PMC_EV_UPROBE;
	ev->type = type;
	ev->config = config[0];
	ev->probe_return = ret_probe;
	memcpy(ev->probe_path, p->spec + fstart, flen);
	ev->probe_path[flen] = '\0';
	memcpy(ev->probe_symbol, p->spec + sstart, slen);
	ev->probe_symbol[slen] = '\0';
	memcpy(ev->name, p->spec + start, nlen);
	ev->name[nlen] = '\0';
	return 0;
}

/* subsystem:event after a name that is not a builtin: p->pos is at the ':'. Returns 1
 * (p->pos unchanged) when it is a name with modifiers after all ("cyclse:u", reported as
 * an unknown event), 0 with the tracepoints appended, or a negative errno. */
int pmc_parse_tracepoint(struct parser *p, size_t start, size_t g, bool leader)
{
	size_t colon = p->pos, slen = p->pos - start, estart, elen, first = p->n, n = 0;
	size_t ingroup = 0;
	char sys[PMC_EVENT_NAME_MAX], event[PMC_EVENT_NAME_MAX];
	char **subs = NULL;
	size_t nsubs = 0;
	unsigned mods = 0;
	bool known_sys = false;
	int r;

	estart = p->pos + 1;
	for (p->pos = estart; !is_delim(peek(p));)
		p->pos++;
	elen = p->pos - estart;
	if (elen == 0 || slen >= sizeof(sys) || elen >= sizeof(event)) {
		p->pos = colon;
		return 1;
	}
	memcpy(sys, p->spec + start, slen);
	sys[slen] = '\0';
	memcpy(event, p->spec + estart, elen);
	event[elen] = '\0';
	if (only_mod_letters(event, elen)) {
		/* "name:u": a tracepoint only if tracefs has such a subsystem. */
		char probe[4096];

		known_sys =
		    pmc_tracefs_find(p->tracefs_opt, false, probe, sizeof(probe), NULL, 0) == 0 &&
		    pmc_tracefs_names(probe, sys, &subs, &nsubs) == 0;
		pmc_tracefs_names_free(subs, nsubs);
		subs = NULL;
		nsubs = 0;
		if (!known_sys) {
			p->pos = colon;
			return 1;
		}
	}
	if ((r = need_tracefs(p, start)) < 0)
		return r;
	r = pmc_tracefs_names(p->tracefs, NULL, &subs, &nsubs);
	if (r < 0)
		return fail(p, start, "cannot list the tracepoint subsystems in %.200s/events: %s",
			    p->tracefs, strerror(-r));
	for (size_t i = 0; i < nsubs && r == 0; i++) {
		if (has_glob(sys) ? fnmatch(sys, subs[i], 0) != 0 : strcmp(sys, subs[i]) != 0)
			continue;
		known_sys = true;
		r = expand_subsystem(p, start, subs[i], event, &g, &leader, &ingroup, &n);
	}
	if (r == 0 && !known_sys && !has_glob(sys))
		r = fail_unknown_subsystem(p, start, sys, subs, nsubs);
	pmc_tracefs_names_free(subs, nsubs);
	if (r < 0)
		return r;
	if (n == 0)
		return fail(p, start,
			    "'%.60s:%.60s' matches no tracepoint; run 'pmcbench list tracepoint' "
			    "to see them",
			    sys, event);
	if (peek(p) == ':') {
		size_t c2 = p->pos++;

		r = pmc_parse_mods(p, c2, &mods);
		if (r < 0)
			return r;
		if (mods & MOD_W)
			return fail(p, c2,
				    "':W' (weak group) applies to a group; put it after the "
				    "group's '}', as in {cycles,instructions}:W");
	}
	for (size_t i = first; i < p->n; i++) {
		p->mods[i] = mods;
		/* The groups a glob was split into: weak, as perf's are not groups at all. */
		if (!p->in_group)
			p->mods[i] |= MOD_W;
	}
	return 0;
}

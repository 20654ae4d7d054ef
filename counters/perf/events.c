/* perf's event-list syntax: the parser of `-e` lists into events (the names it knows are in
 * events_table.c, PMU events' terms in events_pmu.c, what a parsed list holds in
 * events_list.c).
 *
 * Grammar (what `perf stat -e` accepts, restricted to what pmcbench counts):
 *   list   := item (',' item)*
 *   item   := event | '{' event (',' event)* '}' [mods]
 *   event  := (builtin | 'r' HEX | pmu '/' term (',' term)* '/' | tracepoint | uprobe) [mods]
 *   tracepoint := subsystem ':' event    (either may be a glob: syscalls:sys_enter_*)
 *   uprobe := 'uprobe:' (PATH | LIBRARY) ':' SYMBOL ['%return']
 *   term   := name ['=' number]
 *   mods   := ':' ('u' | 'k' | 'W')+  (also directly after a PMU event's closing '/';
 *                                     'W', a weak group, only after a group's '}')
 * Spaces around items are allowed. Builtin names match case-insensitively, as in perf. */
#include <ctype.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "counters/perf/events.h"
#include "counters/perf/events_parse.h"
#include "counters/perf/events_priv.h"
#include "counters/perf/sysfs.h"
#include "base/error.h"
#include "base/opts.h"
#include "base/suggest.h"

/* snprintf for messages and names where cutting a long input short is intended. */

/* ---- the parser ---- */

/* MOD_W marks a weak group (perf's :W): when its events do not fit the PMU together,
 * they are opened one by one instead (counters/perf/counters_plain.c). */

static int fail_nomem(struct parser *p)
{
	fail(p, p->pos, "out of memory while parsing the event list");
	return -ENOMEM;
}

static void skip_space(struct parser *p)
{
	while (isspace((unsigned char)peek(p)))
		p->pos++;
}

/* The character at the parser's position, quoted for a one-line message. */
static const char *shown(const struct parser *p, char buf[8])
{
	unsigned char c = (unsigned char)peek(p);

	if (isprint(c))
		snprintf(buf, 8, "'%c'", c);
	else
		snprintf(buf, 8, "0x%02x", c);
	return buf;
}

int pmc_parse_push_event(struct parser *p, struct pmc_event **ret)
{
	if (pmc_grow(&p->events, p->n, sizeof(*p->events)) < 0 ||
	    pmc_grow(&p->mods, p->n, sizeof(*p->mods)) < 0)
		return fail_nomem(p);
	memset(&p->events[p->n], 0, sizeof(p->events[p->n]));
	p->mods[p->n] = 0;
	*ret = &p->events[p->n++];
	return 0;
}

/* Parses the letters of a modifier starting at p->pos (after ':' or a PMU event's '/'). */
int pmc_parse_mods(struct parser *p, size_t colon, unsigned *ret)
{
	unsigned mods = 0;

	if (is_delim(peek(p)))
		return fail(p, colon,
			    "empty modifier after ':'; use :u (user space only) or "
			    ":k (kernel only)");
	for (; !is_delim(peek(p)); p->pos++) {
		char c = peek(p);

		if (c == 'u')
			mods |= MOD_U;
		else if (c == 'k')
			mods |= MOD_K;
		else if (c == 'W')
			mods |= MOD_W;
		else if (isprint((unsigned char)c))
			return fail(p, p->pos,
				    "unknown modifier '%c'; pmcbench supports u (user space only), "
				    "k (kernel only) and W (weak group), as in cycles:u",
				    c);
		else
			return fail(p, p->pos,
				    "unknown modifier character 0x%02x; pmcbench supports u (user "
				    "space only) and k (kernel only)",
				    (unsigned char)c);
	}
	if (peek(p) == ':' || peek(p) == '/')
		return fail(p, p->pos,
			    "unexpected '%c' after the modifier; give one modifier "
			    "such as :u or :k, then a comma",
			    peek(p));
	*ret = mods;
	return 0;
}

/* Fills s with builtin names and sysfs PMU events ("pmu/event/") close to the typed
 * name. A PMU event whose name is exactly what was typed comes first, as perf would
 * find "tsc" in msr/tsc/. */
static void suggest_events(const struct parser *p, const char *typed, size_t len,
			   struct pmc_suggest *s)
{
	char **pmus = NULL;
	size_t npmus = 0;

	pmc_suggest_init(s, typed, len);
	for (size_t i = 0; i < pmc_event_builtin_count(); i++)
		pmc_suggest_offer(s, pmc_event_builtin_name(i), pmc_event_builtin_name(i));
	if (pmc_sysfs_names(p->root, NULL, NULL, &pmus, &npmus) < 0)
		return;
	for (size_t i = 0; i < npmus; i++) {
		char **evs = NULL;
		size_t nevs = 0;

		if (pmc_sysfs_names(p->root, pmus[i], "events", &evs, &nevs) < 0)
			continue;
		for (size_t j = 0; j < nevs; j++) {
			char display[PMC_EVENT_NAME_MAX];

			if (strlen(pmus[i]) + strlen(evs[j]) + 3 > sizeof(display))
				continue;
			format_cut(display, sizeof(display), "%s/%s/", pmus[i], evs[j]);
			pmc_suggest_offer(s, evs[j], display);
		}
		pmc_sysfs_names_free(evs, nevs);
	}
	pmc_sysfs_names_free(pmus, npmus);
}

/* Notes an unknown name and returns 1: the parse goes on, and pmc_event_list_parse()
 * reports every unknown name at once. */
static int fail_unknown_event(struct parser *p, size_t start, size_t len)
{
	const char *typed = p->spec + start;
	struct pmc_suggest s;
	struct parse_error *e = &p->first_unknown;
	char mean[192];
	size_t used = strlen(p->unknown);

	suggest_events(p, typed, len, &s);
	if (p->nunknown++ == 0) {
		e->column = start + 1;
		format_cut(e->message, sizeof(e->message), "unknown event '%.*s'", QLEN(len),
			   typed);
		pmc_suggest_append(&s, e->message, sizeof(e->message),
				   "run 'pmcbench list' to see the known events");
	}
	if (pmc_suggest_format(&s, mean, sizeof(mean)) == 0)
		p->unknown_unhelped = true;
	/* Past the buffer, the count still says how many. */
	if (used + 64 < sizeof(p->unknown))
		format_cut(p->unknown + used, sizeof(p->unknown) - used, "%s'%.*s'%s%.0zu%s%s%s",
			   used ? ", " : "", QLEN(len > 40 ? 40 : len), typed,
			   used ? " at column " : "", used ? start + 1 : 0, mean[0] ? " (" : "",
			   mean, mean[0] ? ")" : "");
	else if (!strstr(p->unknown, ", ..."))
		format_cut(p->unknown + used, sizeof(p->unknown) - used, ", ...");
	return 1;
}

/* rNNNN: a raw PMU config in hex (PERF_TYPE_RAW), as perf spells it. */
static int parse_raw(struct parser *p, size_t start, size_t len, struct pmc_event *ev)
{
	uint64_t v = 0;
	size_t digits = 0;

	for (size_t i = 1; i < len; i++) {
		char c = p->spec[start + i];

		if (!isxdigit((unsigned char)c))
			return fail(p, start + i,
				    "bad raw event '%.*s': '%c' is not a hex digit; write raw "
				    "events as r followed by hex digits, without 0x, as in r00c0",
				    QLEN(len), p->spec + start, c);
		if (digits > 0 || c != '0')
			digits++;
		if (digits > 16)
			return fail(p, start,
				    "raw event '%.*s' does not fit in 64 bits; give at "
				    "most 16 hex digits",
				    QLEN(len), p->spec + start);
		v = v << 4 |
		    (uint64_t)(isdigit((unsigned char)c) ? c - '0'
							 : tolower((unsigned char)c) - 'a' + 10);
	}
	ev->kind = PMC_EV_RAW;
	ev->type = PERF_TYPE_RAW;
	ev->config = v;
	for (size_t i = 0; i < len; i++)
		ev->name[i] = (char)tolower((unsigned char)p->spec[start + i]);
	ev->name[len] = '\0';
	return 0;
}

static bool all_alnum(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]))
			return false;
	return true;
}

/* A name (not a PMU event): builtin, raw, or unknown. */
static int resolve_name(struct parser *p, size_t start, size_t len, struct pmc_event *ev)
{
	const char *name = p->spec + start;
	const struct pmc_event_builtin *b = pmc_event_builtin_find(name, len);

	if (b) {
		ev->kind = b->kind;
		ev->type = b->type;
		ev->config = b->config;
		snprintf(ev->name, sizeof(ev->name), "%s", b->canonical);
		return 0;
	}
	if (len >= 2 && name[0] == 'r' && isxdigit((unsigned char)name[1]) &&
	    all_alnum(name, len)) {
		struct pmc_suggest s;
		bool hex = true;

		for (size_t i = 1; i < len; i++)
			hex = hex && isxdigit((unsigned char)name[i]);
		/* "rcycles" is more likely a typo of a name than a raw code. */
		if (!hex) {
			suggest_events(p, name, len, &s);
			if (s.n > 0)
				return fail_unknown_event(p, start, len);
		}
		return parse_raw(p, start, len, ev);
	}
	return fail_unknown_event(p, start, len);
}

/* One event with its own modifier, appended as a member of group g. */
static int parse_event(struct parser *p, size_t g, bool leader)
{
	size_t start = p->pos, idx;
	struct pmc_event *ev;
	int r;

	while (!is_delim(peek(p)))
		p->pos++;
	if (p->pos == start && peek(p) != '/')
		return fail(p, start, "empty event name; remove the extra comma or give an event");
	r = pmc_parse_push_event(p, &ev);
	if (r < 0)
		return r;
	idx = p->n - 1;
	ev->group = g;
	ev->leader = leader;
	if (peek(p) == '/') {
		r = pmc_parse_pmu_event(p, start, ev);
		if (r < 0)
			return r;
		/* perf also takes modifiers right after the closing '/': msr/tsc/u */
		if (!is_delim(peek(p))) {
			r = pmc_parse_mods(p, p->pos - 1, &p->mods[idx]);
			if (r == 0 && (p->mods[idx] & MOD_W))
				return fail(p, p->pos - 1,
					    "'W' (weak group) applies to a group; put it "
					    "after the group's '}', as in {cycles,instructions}:W");
			return r;
		}
	} else {
		size_t len = p->pos - start;

		if (peek(p) == ':' && len == 6 && strncmp(p->spec + start, "uprobe", 6) == 0) {
			r = pmc_parse_uprobe(p, start, ev);
			if (r < 0)
				return r;
			goto mods;
		}
		if (peek(p) == ':' && !pmc_event_builtin_find(p->spec + start, len) &&
		    !pmc_parse_looks_raw(p->spec + start, len)) {
			/* Not pushed as one event: a tracepoint may be a glob of many. */
			p->n--;
			r = pmc_parse_tracepoint(p, start, g, leader);
			if (r <= 0)
				return r;
			r = pmc_parse_push_event(p, &ev);
			if (r < 0)
				return r;
			ev->group = g;
			ev->leader = leader;
		}
		if (len > PMC_EVENT_NAME_MAX - 4)
			return fail(p, start, "event name too long (at most %d characters)",
				    PMC_EVENT_NAME_MAX - 4);
		/* 1: an unknown name, noted; the parse goes on to find the others. */
		r = resolve_name(p, start, len, ev);
		if (r < 0)
			return r;
	}
mods:
	if (peek(p) == ':') {
		size_t colon = p->pos++;

		r = pmc_parse_mods(p, colon, &p->mods[idx]);
		if (r == 0 && (p->mods[idx] & MOD_W))
			return fail(p, colon,
				    "':W' (weak group) applies to a group; put it after the "
				    "group's '}', as in {cycles,instructions}:W");
		return r;
	}
	return 0;
}

static void apply_mods(struct pmc_event *ev, unsigned mods)
{
	static const char *const suffix[] = {"", ":u", ":k", ":uk"};
	size_t len = strlen(ev->name);

	/* perf's :u and :k: count only that privilege level; the hypervisor is excluded
	 * whenever a level is chosen, as perf does without :h. */
	ev->weak = mods & MOD_W;
	mods &= MOD_LEVELS;
	ev->exclude_user = mods && !(mods & MOD_U);
	ev->exclude_kernel = mods && !(mods & MOD_K);
	ev->exclude_hv = mods != 0;
	snprintf(ev->name + len, sizeof(ev->name) - len, "%s", suffix[mods]);
}

static int parse_group(struct parser *p)
{
	size_t open = p->pos++, g = p->ngroups++, first = p->n;
	unsigned gmods = 0;
	char c[8];
	int r;

	p->in_group = true;

	for (;;) {
		skip_space(p);
		if (peek(p) == '{')
			return fail(p, p->pos,
				    "nested group: a group cannot contain a group; close "
				    "the first one with '}' before opening another");
		if (peek(p) == '}') {
			if (p->n == first)
				return fail(p, open,
					    "empty group '{}'; put events inside or remove it");
			return fail(p, p->pos,
				    "empty event name before '}'; remove the extra comma");
		}
		if (!peek(p))
			return fail(p, open,
				    "unbalanced '{': this group is never closed; add '}' "
				    "after its last event");
		r = parse_event(p, g, p->n == first);
		if (r < 0)
			return r;
		skip_space(p);
		if (peek(p) == ',') {
			p->pos++;
			continue;
		}
		if (peek(p) == '}') {
			p->pos++;
			p->in_group = false;
			break;
		}
		if (!peek(p))
			return fail(p, open,
				    "unbalanced '{': this group is never closed; add '}' "
				    "after its last event");
		return fail(p, p->pos,
			    "unexpected %s in a group; separate events with commas "
			    "and close the group with '}'",
			    shown(p, c));
	}
	if (peek(p) == ':') {
		size_t colon = p->pos++;

		r = pmc_parse_mods(p, colon, &gmods);
		if (r < 0)
			return r;
		for (size_t i = first; i < p->n; i++) {
			unsigned levels = gmods & MOD_LEVELS;

			/* :W alone leaves each event's own :u or :k as it is. */
			if (!levels) {
				p->mods[i] |= gmods;
				continue;
			}
			if (p->mods[i] && p->mods[i] != levels)
				return fail(p, colon,
					    "modifier on the group conflicts with the one "
					    "on '%.40s'; give it on the group or on its "
					    "events, not both",
					    p->events[i].name);
			p->mods[i] = gmods;
		}
	}
	return 0;
}

static int parse_list(struct parser *p)
{
	size_t comma = 0;
	char c[8];
	int r;

	skip_space(p);
	if (!peek(p))
		return fail(p, 0, "empty event list; give at least one event, as in cycles");
	for (;;) {
		skip_space(p);
		if (peek(p) == '{') {
			r = parse_group(p);
		} else if (peek(p) == '}') {
			return fail(p, p->pos,
				    "unbalanced '}': no group is open here; remove it "
				    "or add '{' before the group");
		} else if (!peek(p)) {
			/* Only reachable right after a comma. */
			return fail(p, comma, "trailing comma; remove it or add an event after it");
		} else {
			r = parse_event(p, p->ngroups++, true);
		}
		if (r < 0)
			return r;
		skip_space(p);
		if (!peek(p))
			return 0;
		if (peek(p) == '}')
			return fail(p, p->pos,
				    "unbalanced '}': no group is open here; remove it "
				    "or add '{' before the group");
		if (peek(p) != ',')
			return fail(p, p->pos, "unexpected %s; separate events with commas",
				    shown(p, c));
		comma = p->pos++;
	}
}

/* The message of a list with unknown names (p->nunknown > 0): the one name's own
 * message, or every name with its column and suggestions; then the error that stopped
 * the parse after them, if one did (later), so that one fix is not followed by another
 * message. */
static void report_unknown(const struct parser *p, const struct parse_error *then, char *err,
			   size_t errlen)
{
	char tail[sizeof(then->message) + 32] = "";

	if (then)
		format_cut(tail, sizeof(tail), "; then column %zu: %s", then->column,
			   then->message);
	if (p->nunknown == 1)
		pmc_err_set(err, errlen, "column %zu: %s%s", p->first_unknown.column,
			    p->first_unknown.message, tail);
	else
		pmc_err_set(err, errlen, "column %zu: %zu unknown events: %s%s%s",
			    p->first_unknown.column, p->nunknown, p->unknown,
			    p->unknown_unhelped ? "; run 'pmcbench list' to see the known events"
						: "",
			    tail);
	pmc_err_escape(err, errlen);
}

int pmc_event_list_parse(const char *spec, const struct pmc_event_list_opts *opts,
			 struct pmc_event_list **ret, char *err, size_t errlen)
{
	struct parse_error perr = {.column = 1};
	struct parser p = {.spec = spec, .err = &perr};
	struct pmc_event_list *list;
	int r;

	if (!spec || !ret) {
		snprintf(perr.message, sizeof(perr.message), "no event list given");
		r = -EINVAL;
		goto fail_args;
	}
	if (!PMC_OPTS_VALID(opts, pmc_event_list_opts)) {
		snprintf(perr.message, sizeof(perr.message),
			 "options from a newer pmcbench (unknown fields set); rebuild against "
			 "this library's header");
		r = -EINVAL;
		goto fail_args;
	}
	/* A newline or a tab is no separator perf knows, and would be stored in the result
	 * as the event's name: an event list is printable text. */
	for (const unsigned char *c = (const unsigned char *)spec; *c; c++) {
		if (*c < 0x20 || *c == 0x7f) {
			perr.column = (size_t)((const char *)c - spec) + 1;
			snprintf(perr.message, sizeof(perr.message),
				 "control character 0x%02x in the event list; separate events "
				 "with commas",
				 *c);
			r = -EINVAL;
			goto fail_args;
		}
	}
	p.root = PMC_OPTS_GET(opts, sysfs_root, NULL);
	p.tracefs_opt = PMC_OPTS_GET(opts, tracefs_root, NULL);
	r = parse_list(&p);
	if (p.nunknown > 0) {
		report_unknown(&p, r < 0 ? &perr : NULL, err, errlen);
		r = -EINVAL;
		goto fail_unknown;
	}
	if (r < 0)
		goto fail_parse;
	list = calloc(1, sizeof(*list));
	if (!list) {
		r = fail_nomem(&p);
		goto fail_parse;
	}
	for (size_t i = 0; i < p.n; i++)
		apply_mods(&p.events[i], p.mods[i]);
	free(p.mods);
	list->events = p.events;
	list->n = p.n;
	list->ngroups = p.ngroups;
	*ret = list;
	return 0;

fail_unknown:
	free(p.mods);
	free(p.events);
	return r;

fail_parse:
	free(p.mods);
	free(p.events);
fail_args:
	pmc_err_set(err, errlen, "column %zu: %s", perr.column, perr.message);
	/* Messages quote the input: shown escaped, on one line (pmc_quote()). */
	pmc_err_escape(err, errlen);
	return r;
}

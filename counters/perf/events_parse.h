/* Private to the event-list parser (docs/events.md): its state and the few steps its files
 * share. events.c parses the list's syntax and the names of built-in and raw events;
 * events_pmu.c PMU events (pmu/term=value/); events_kernel.c the kernel's events named through
 * tracefs (subsystem:event) and function calls through the uprobe PMU (uprobe:FILE:SYMBOL). */
#pragma once

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "counters/perf/events.h"

enum { MOD_U = 1, MOD_K = 2, MOD_W = 4, MOD_LEVELS = MOD_U | MOD_K };

struct parse_error {
	size_t column;	   /* 1-based column in the list where the problem starts */
	char message[256]; /* what is wrong and what to do, without the column */
};

struct parser {
	const char *spec;
	size_t pos;
	const char *root;
	const char *tracefs_opt; /* pmc_event_list_opts.tracefs_root */
	char tracefs[4096];	 /* the tracefs found, "" until one is needed */
	bool in_group;		 /* parsing the events of a '{...}' group */
	struct pmc_event *events;
	unsigned *mods; /* the event's own modifiers, before its group's are merged */
	size_t n, ngroups;
	struct parse_error *err;
	/* Unknown names do not stop the parse, so that one message names them all: the
	 * first one's own message, and every one with its column and suggestions. */
	size_t nunknown;
	struct parse_error first_unknown;
	char unknown[640];
	bool unknown_unhelped; /* one of them has no suggestion */
};

/* Printable width of a quoted piece of input in messages, so they stay one line. */
#define QLEN(len) ((int)((len) > 60 ? 60 : (len)))

__attribute__((format(printf, 3, 4))) static inline void format_cut(char *buf, size_t size,
								    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

/* Records the problem at column at + 1; returns -EINVAL. */
__attribute__((format(printf, 3, 4))) static inline int fail(struct parser *p, size_t at,
							     const char *fmt, ...)
{
	va_list ap;

	p->err->column = at + 1;
	va_start(ap, fmt);
	vsnprintf(p->err->message, sizeof(p->err->message), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static inline char peek(const struct parser *p)
{
	return p->spec[p->pos];
}

static inline bool is_delim(char c)
{
	return c == '\0' || c == ',' || c == '{' || c == '}' || c == ':' || c == '/' ||
	       isspace((unsigned char)c);
}

/* events.c: appends a zeroed event (and its modifiers) to the list; -ENOMEM. */
int pmc_parse_push_event(struct parser *p, struct pmc_event **ret);
/* events.c: the letters of a modifier at p->pos, after the ':' at colon. */
int pmc_parse_mods(struct parser *p, size_t colon, unsigned *ret);

/* events_pmu.c: pmu/term,term=value/ from start into ev. */
int pmc_parse_pmu_event(struct parser *p, size_t start, struct pmc_event *ev);

/* events_kernel.c: whether name[0..len) is a raw code (rNNNN), never a subsystem. */
bool pmc_parse_looks_raw(const char *name, size_t len);
/* events_kernel.c: uprobe:FILE_OR_LIBRARY:SYMBOL[%return] from start into ev. */
int pmc_parse_uprobe(struct parser *p, size_t start, struct pmc_event *ev);
/* events_kernel.c: subsystem:event (globs in either) from start, its events appended as
 * members of group g (a glob into groups of their own outside '{...}'). */
int pmc_parse_tracepoint(struct parser *p, size_t start, size_t g, bool leader);

/* perf script's default output of a `perf record -g` file as a profile
 * (profile_import.h). Each sample is a header line, its call chain one frame a line
 * (indented, leaf first), and a blank line:
 *
 *   pmc-prof-work 11808 32398.520279:     250000 cpu-clock:
 *   	            119f prof_hot+0x3b (/path/pmc-prof-work)
 *   	            12a1 main+0x99 (/path/pmc-prof-work)
 *   	           2724a __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)
 *
 * The header is "COMMAND PID[/TID] [CPU] TIME: [PERIOD] EVENT:" (perf's
 * tools/perf/builtin-script.c, perf_sample__fprintf_start and the event's name; the
 * command may hold spaces, the period is printed when the file has one), and without
 * -g the one frame follows the event on the same line. A frame is "ADDRESS SYMBOL+0xOFF
 * (DSO)", the symbol "[unknown]" when perf could not name it, its DSO "[unknown]" when
 * no mapping held it; perf demangles C++ names itself (names.h makes mangled ones alike).
 * The weight of a sample is its period, as in pmcbench's sampled profiles (ns of
 * cpu-clock), or 1 with the unit "samples" when the file has no periods. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/grow.h"
#include "profile/profile.h"
#include "profile/profile_import_priv.h"

#define PERF_FIX "give the output of perf script (its default fields) of a perf record -g file"

/* The token at s (up to white space) and where the next one starts. */
static size_t token(const char *s, const char **ret_next)
{
	size_t n = strcspn(s, " \t");
	const char *next = s + n;

	while (*next == ' ' || *next == '\t')
		next++;
	*ret_next = next;
	return n;
}

static bool all_digits(const char *s, size_t n)
{
	return n && strspn(s, "0123456789") >= n;
}

/* A time token: digits, '.', digits, ':'. */
static bool is_time(const char *s, size_t n)
{
	const char *dot = memchr(s, '.', n);

	return n >= 4 && s[n - 1] == ':' && dot && dot > s && all_digits(s, (size_t)(dot - s)) &&
	       dot + 1 < s + n - 1 && all_digits(dot + 1, (size_t)(s + n - 1 - dot - 1));
}

struct header {
	const char *event; /* into the line */
	size_t event_len;
	bool has_period;
	uint64_t period;
	const char *rest; /* what follows the event: the frame of a sample without -g */
};

/* What follows the time of a record's line ("COMMAND PID[/TID] [CPU] TIME: ..."), or NULL
 * when the line has none. The command before the time may hold spaces, so the time is the
 * first token after the first that looks like one. */
static const char *after_time(const char *line)
{
	const char *s = line, *next;
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return NULL;
	token(s, &next); /* the command's first word */
	for (s = next; *s; s = next) {
		n = token(s, &next);
		if (is_time(s, n))
			return next;
	}
	return NULL;
}

/* Parses a header line; false when line is none. */
static bool parse_header(const char *line, struct header *h)
{
	const char *s = after_time(line), *next;
	size_t n;

	if (!s)
		return false;
	n = token(s, &next);
	h->has_period = all_digits(s, n) && s[n - 1] != ':';
	if (h->has_period) {
		errno = 0;
		h->period = strtoull(s, NULL, 10);
		if (errno == ERANGE)
			return false;
		s = next;
		n = token(s, &next);
	}
	/* The event: a token ending in ':' ("cpu-clock:", "cycles:u:"). */
	if (n < 2 || s[n - 1] != ':')
		return false;
	h->event = s;
	h->event_len = n - 1;
	h->rest = next;
	return true;
}

bool pmc_perf_script_is_header(const char *line)
{
	struct header h;

	return parse_header(line, &h) || pmc_perf_script_lost(line, NULL);
}

/* "COMMAND PID[/TID] [CPU] TIME: PERF_RECORD_LOST lost N", as perf script
 * --show-lost-events prints a LOST record (perf's "PERF_RECORD_LOST_SAMPLES lost N"
 * alike). */
bool pmc_perf_script_lost(const char *line, uint64_t *ret)
{
	const char *s = after_time(line), *next;
	char *end;
	uint64_t v;
	size_t n;

	if (!s)
		return false;
	n = token(s, &next);
	if (!((n == 16 && !strncmp(s, "PERF_RECORD_LOST", n)) ||
	      (n == 24 && !strncmp(s, "PERF_RECORD_LOST_SAMPLES", n))))
		return false;
	s = next;
	n = token(s, &next);
	if (n != 4 || strncmp(s, "lost", 4) != 0 || !all_digits(next, strlen(next)))
		return false;
	errno = 0;
	v = strtoull(next, &end, 10);
	if (errno == ERANGE || *end)
		return false;
	if (ret)
		*ret = v;
	return true;
}

struct reader {
	struct pmc_profile_lines *l;
	struct pmc_profile *p;
	char *event;  /* the first sample's */
	bool periods; /* the first sample had a period */
	bool open;    /* a sample is being read */
	uint64_t weight;
	uint32_t *ids; /* its frames, leaf first */
	size_t depth, cap;
	uint64_t samples, unresolved;
	uint64_t lost;	/* what the LOST lines say */
	bool lost_seen; /* perf script --show-lost-events: the output tells the lost */
	char *err;
	size_t errlen;
};

static int bad(struct reader *r, const char *what)
{
	pmc_err_set(r->err, r->errlen, "%s:%lu: %s; " PERF_FIX, r->l->path, r->l->no, what);
	return -EINVAL;
}

/* One frame "ADDRESS SYMBOL+0xOFF (DSO)" (s trimmed) onto the open sample. */
static int frame(struct reader *r, const char *s)
{
	const char *next, *open = NULL, *close;
	char *sym = NULL, *dso = NULL, *plus;
	const char *object;
	uint64_t addr, offset = 0;
	size_t n = token(s, &next), depth = 0, symlen;
	int rc;

	if (!n || strspn(s, "0123456789abcdefABCDEF") < n)
		return bad(r, "a call chain line that does not start with an address");
	errno = 0;
	addr = strtoull(s, NULL, 16);
	if (errno == ERANGE)
		return bad(r, "an address beyond 64 bits");
	/* The DSO is the parenthesized group at the end, matched from there: a C++ name
	 * before it has parentheses of its own. */
	symlen = strlen(next);
	close = symlen ? next + symlen - 1 : next;
	if (symlen && *close == ')') {
		for (const char *c = close; c >= next; c--) {
			depth += *c == ')';
			depth -= *c == '(';
			if (depth == 0) {
				open = c;
				break;
			}
		}
		if (!open)
			return bad(r, "a frame's object is missing its '('");
		dso = strndup(open + 1, (size_t)(close - open - 1));
		symlen = (size_t)(open - next);
		while (symlen && isspace((unsigned char)next[symlen - 1]))
			symlen--;
	}
	sym = strndup(next, symlen);
	if (!sym || (open && !dso)) {
		rc = -ENOMEM;
		goto out;
	}
	/* "name+0x3b": the offset into the function, which a profile does not keep. */
	plus = strrchr(sym, '+');

	if (plus && plus[1] == '0' && plus[2] == 'x' && plus[3] &&
	    strspn(plus + 3, "0123456789abcdef") == strlen(plus + 3))
		*plus = '\0';
	if (!*sym || !strcmp(sym, "[unknown]")) {
		free(sym);
		sym = NULL;
	}
	if (!dso || !*dso || !strcmp(dso, "[unknown]"))
		object = "[unknown]";
	else if (!strncmp(dso, "[kernel", 7) || !strncmp(dso, "[guest.kernel", 13))
		object = "[kernel]"; /* "[kernel.kallsyms]", a module's own name aside */
	else if (!strcmp(dso, "//anon") || !strncmp(dso, "[anon", 5))
		object = "[anon]";
	else
		object = dso;
	/* Where the chain ends: the outermost frame's 0 return address (as pmcbench's
	 * sampler reads it, docs/profile.md "Call chains") is no frame. */
	if (!sym && addr == 0 && !strcmp(object, "[unknown]")) {
		rc = 0;
		goto out;
	}
	if (!sym) {
		/* perf prints the address within the object for a file: the offset
		 * pmcbench shows ("prog+0x119f"); a pseudo-object is one row. */
		offset = object[0] == '[' ? 0 : addr;
		if (offset > PMC_PROFILE_OFFSET_MAX) {
			object = "[unknown]";
			offset = 0;
		}
		if (strcmp(object, "[kernel]"))
			r->unresolved++;
	}
	rc = -ENOMEM;
	if (r->depth == UINT32_MAX ||
	    pmc_grow_to(&r->ids, &r->cap, r->depth + 1, sizeof(*r->ids)) < 0)
		goto out;
	rc = pmc_profile_frame_id(r->p, sym, object, offset, &r->ids[r->depth]);
	if (rc == 0)
		r->depth++;
out:
	free(sym);
	free(dso);
	return rc;
}

/* The open sample into the profile. */
static int close_sample(struct reader *r)
{
	int rc;

	if (!r->open)
		return 0;
	r->open = false;
	if (r->depth == 0) {
		/* No frame at all (every one was a 0): where the sample was is unknown. */
		if (pmc_grow_to(&r->ids, &r->cap, 1, sizeof(*r->ids)) < 0)
			return -ENOMEM;
		rc = pmc_profile_frame_id(r->p, NULL, "[unknown]", 0, &r->ids[0]);
		if (rc < 0)
			return rc;
		r->depth = 1;
	}
	for (size_t i = 0; i < r->depth / 2; i++) {
		uint32_t t = r->ids[i];

		r->ids[i] = r->ids[r->depth - 1 - i];
		r->ids[r->depth - 1 - i] = t;
	}
	rc = pmc_profile_add(r->p, r->ids, (uint32_t)r->depth, r->weight, 1, false);
	if (rc == -EOVERFLOW)
		return bad(r, "the periods add up beyond 2^64-1");
	r->samples++;
	return rc;
}

static int header(struct reader *r, const char *line)
{
	struct header h;
	char what[512];
	int rc;

	if (!parse_header(line, &h))
		return bad(r, "not a sample's first line ('COMMAND PID TIME: PERIOD EVENT:') nor "
			      "a call chain line (indented)");
	if ((rc = close_sample(r)) < 0)
		return rc;
	if (!r->p) {
		/* The clock events count nanoseconds, as pmcbench's sampler says too. */
		bool clock = (h.event_len >= 9 && !strncmp(h.event, "cpu-clock", 9) &&
			      (h.event_len == 9 || h.event[9] == ':')) ||
			     (h.event_len >= 10 && !strncmp(h.event, "task-clock", 10) &&
			      (h.event_len == 10 || h.event[10] == ':'));
		/* perf script's samples say nothing of the ones perf lost (its LOST records
		 * are not samples): how many is not known, never 0. */
		struct pmc_profile_info in = {.kind = PMC_PROFILE_SAMPLED,
					      .lost_unknown = true,
					      .unit = !h.has_period ? "samples"
						      : clock	    ? "ns"
								    : "events"};

		r->event = strndup(h.event, h.event_len);
		if (!r->event)
			return -ENOMEM;
		in.event = r->event;
		r->periods = h.has_period;
		if ((rc = pmc_profile_new(&in, &r->p)) < 0)
			return rc;
	} else if (strlen(r->event) != h.event_len || strncmp(r->event, h.event, h.event_len)) {
		snprintf(what, sizeof(what),
			 "a sample of %.*s, but the first was of %s: a profile is of one event; "
			 "record one (perf record -e EVENT -g)",
			 (int)(h.event_len > 200 ? 200 : h.event_len), h.event, r->event);
		pmc_err_set(r->err, r->errlen, "%s:%lu: %s", r->l->path, r->l->no, what);
		return -EINVAL;
	} else if (r->periods != h.has_period) {
		return bad(r, "a sample with a period and one without");
	}
	r->open = true;
	r->depth = 0;
	r->weight = h.has_period ? h.period : 1;
	return *h.rest ? frame(r, h.rest) : 0;
}

int pmc_profile_read_perf_script(struct pmc_profile_lines *l, struct pmc_profile **ret, char *err,
				 size_t errlen)
{
	struct reader r = {.l = l, .err = err, .errlen = errlen};
	uint64_t lost;
	int rc;

	while ((rc = pmc_profile_lines_next(l)) != 0) {
		const char *s = l->line;

		if (rc == -EINVAL) {
			rc = bad(&r, "a NUL byte: not text");
			break;
		}
		if (rc < 0) {
			pmc_err_set(err, errlen, "%s: cannot read: %s", l->path, strerror(-rc));
			break;
		}

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			rc = close_sample(&r);
		else if (pmc_perf_script_lost(s, &lost)) {
			/* Between samples: the one before it, if any, has ended. */
			rc = close_sample(&r);
			if (r.lost + lost < r.lost)
				rc = bad(&r, "more lost samples than 2^64-1");
			r.lost += lost;
			r.lost_seen = true;
		} else if (*s == '#' && s == l->line && !r.open)
			continue; /* perf script --header's lines */
		else if (s == l->line || pmc_perf_script_is_header(s))
			rc = header(&r, s); /* without -g perf pads the command to 16 columns */
		else if (!r.open)
			rc = bad(&r,
				 "a call chain line outside a sample (no header line before it)");
		else
			rc = frame(&r, s);
		if (rc < 0)
			break;
	}
	if (rc == 0)
		rc = close_sample(&r);
	if (rc == 0 && !r.p) {
		pmc_err_set(err, errlen, "%s: no sample, only the samples perf lost; " PERF_FIX,
			    l->path);
		rc = -EINVAL;
	}
	if (rc == 0) {
		/* How many perf lost is known only where its LOST records were shown. */
		pmc_profile_set_counts(r.p, r.samples, r.lost, r.unresolved);
		pmc_profile_set_lost_known(r.p, r.lost_seen);
		*ret = r.p;
		r.p = NULL;
	}
	pmc_profile_free(r.p);
	free(r.event);
	free(r.ids);
	return rc;
}

/* The valgrind backend: builds the valgrind command line, and reads and sums the
 * per-process output files of cachegrind and callgrind through the one reader of their
 * format (counters/valgrind/valgrind_format.h). */
#include "counters/valgrind/valgrind.h"
#include "counters/valgrind/valgrind_format.h"
#include "base/error.h"
#include "base/grow.h"
#include "base/opts.h"
#include "base/path.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "counters/reading.h"

#define CALLGRIND_PREFIX "callgrind.out."
#define CACHEGRIND_PREFIX "cachegrind.out."
#define LOG_PREFIX "valgrind.log."

/* The reference cache geometry (size,associativity,line size), used unless the caller
 * asks for the host's: a typical current x86 core. Without it valgrind simulates what
 * CPUID reports, which differs between CI runners, so simulated misses would too. */
#define REF_I1 "--I1=32768,8,64"
#define REF_D1 "--D1=32768,8,64"
#define REF_LL "--LL=8388608,16,64"

/* The largest count a result holds (a JSON integer, docs/result-schema.md). */
#define COUNT_MAX ((uint64_t)INT64_MAX)

/* More columns than any valgrind tool writes; bounds the per-file column map. */
#define MAX_COLUMNS 64

static const char *const event_names[PMC_VG_EV_COUNT] = {
#define PMC_VG_EV_NAME(sym, name) [PMC_VG_EV_##sym] = name,
    PMC_VALGRIND_EVENTS(PMC_VG_EV_NAME)
#undef PMC_VG_EV_NAME
};

static const char *const metric_ids[PMC_VG_M_COUNT] = {
#define PMC_VG_M_ID(sym, id) [PMC_VG_M_##sym] = id,
    PMC_VALGRIND_METRICS(PMC_VG_M_ID)
#undef PMC_VG_M_ID
};

#define EV(sym) (1u << PMC_VG_EV_##sym)
#define CACHE_EVENTS                                                                               \
	(EV(IR) | EV(DR) | EV(DW) | EV(I1MR) | EV(D1MR) | EV(D1MW) | EV(ILMR) | EV(DLMR) | EV(DLMW))

/* ---- finding programs ---------------------------------------------------------------- */

int pmc_valgrind_find(char **ret_path)
{
	char *path = NULL, *abs;
	int r;

	if (!ret_path)
		return -EINVAL;
	r = pmc_find_executable("valgrind", &path);
	if (r < 0)
		return -ENOENT;
	if (path[0] != '/') {
		/* A relative PATH entry: callers exec it after changing nothing, but an
		 * absolute path is what they record. */
		abs = realpath(path, NULL);
		free(path);
		if (!abs)
			return -errno;
		path = abs;
	}
	*ret_path = path;
	return 0;
}

/* ---- the command line ---------------------------------------------------------------- */

struct strv {
	char **v;
	size_t n;
	int error;
};

static void strv_addf(struct strv *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void strv_addf(struct strv *s, const char *fmt, ...)
{
	va_list ap;
	char *str;
	int q;

	if (s->error)
		return;
	if (pmc_grow(&s->v, s->n, sizeof(*s->v)) < 0) {
		s->error = -ENOMEM;
		return;
	}
	va_start(ap, fmt);
	q = vasprintf(&str, fmt, ap);
	va_end(ap);
	if (q < 0) {
		s->error = -ENOMEM;
		return;
	}
	s->v[s->n++] = str;
}

static void strv_free(struct strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

/* Packs the strings into one block: the NULL-terminated pointer array, then the text. */
static int strv_pack(const struct strv *s, char ***ret)
{
	size_t bytes = (s->n + 1) * sizeof(char *);
	char **block, *text;

	for (size_t i = 0; i < s->n; i++)
		bytes += strlen(s->v[i]) + 1;
	block = malloc(bytes);
	if (!block)
		return -ENOMEM;
	text = (char *)(block + s->n + 1);
	for (size_t i = 0; i < s->n; i++) {
		size_t len = strlen(s->v[i]) + 1;

		memcpy(text, s->v[i], len);
		block[i] = text;
		text += len;
	}
	block[s->n] = NULL;
	*ret = block;
	return 0;
}

/* Reads the caller's options into a full-size struct (harness/0-base/opts.h): fields past
 * the caller's sz take their defaults, and bytes we do not know about must be zero. */
static int opts_copy(const struct pmc_valgrind_opts *in, struct pmc_valgrind_opts *out)
{
	if (!in || !PMC_OPTS_VALID(in, pmc_valgrind_opts) || !PMC_OPTS_HAS(in, outdir))
		return -EINVAL;
	*out = (struct pmc_valgrind_opts){
	    .sz = sizeof(*out),
	    .outdir = in->outdir,
	    .valgrind = PMC_OPTS_GET(in, valgrind, NULL),
	    .tool = PMC_OPTS_GET(in, tool, PMC_VALGRIND_CALLGRIND),
	    .no_cache_sim = PMC_OPTS_GET(in, no_cache_sim, false),
	    .no_branch_sim = PMC_OPTS_GET(in, no_branch_sim, false),
	    .host_caches = PMC_OPTS_GET(in, host_caches, false),
	    .no_children = PMC_OPTS_GET(in, no_children, false),
	    .collect_only = PMC_OPTS_GET(in, collect_only, NULL),
	    .collect_atstart_off = PMC_OPTS_GET(in, collect_atstart_off, false),
	    .extra_args = PMC_OPTS_GET(in, extra_args, NULL),
	};
	return 0;
}

int pmc_valgrind_argv(const struct pmc_valgrind_opts *opts, char *const *target_argv,
		      char ***ret_argv)
{
	struct pmc_valgrind_opts o;
	struct strv s = {0};
	const char *tool;
	char *found = NULL;
	int r;

	if (!ret_argv || !target_argv || !target_argv[0] || !target_argv[0][0])
		return -EINVAL;
	r = opts_copy(opts, &o);
	if (r < 0)
		return r;
	/* valgrind expands %p and %q{VAR} in file names, so a '%' in the directory would
	 * put the files somewhere else. */
	if (!o.outdir || !o.outdir[0] || strchr(o.outdir, '%'))
		return -EINVAL;
	if (o.tool != PMC_VALGRIND_CALLGRIND && o.tool != PMC_VALGRIND_CACHEGRIND)
		return -EINVAL;
	if (o.tool == PMC_VALGRIND_CACHEGRIND && (o.collect_only || o.collect_atstart_off))
		return -EINVAL; /* cachegrind 3.19 has no collection control */
	for (const char *const *p = o.collect_only; p && *p; p++)
		if (!(*p)[0])
			return -EINVAL;

	/* Check the target ourselves: valgrind reports a missing one only on its stderr,
	 * with exit status 127, which the target itself could also return. */
	r = pmc_find_executable(target_argv[0], &found);
	free(found);
	if (r < 0)
		return r;

	tool = o.tool == PMC_VALGRIND_CALLGRIND ? "callgrind" : "cachegrind";
	strv_addf(&s, "%s", o.valgrind ? o.valgrind : "valgrind");
	strv_addf(&s, "--tool=%s", tool);
	/* valgrind's own messages go to a log per process, so that they can be reported
	 * when a run fails, and never mix with the target's output. */
	strv_addf(&s, "--log-file=%s/" LOG_PREFIX "%%p", o.outdir);
	strv_addf(&s, "--%s-out-file=%s/%s.out.%%p", tool, o.outdir, tool);
	strv_addf(&s, "--cache-sim=%s", o.no_cache_sim ? "no" : "yes");
	strv_addf(&s, "--branch-sim=%s", o.no_branch_sim ? "no" : "yes");
	strv_addf(&s, "--trace-children=%s", o.no_children ? "no" : "yes");
	if (!o.no_cache_sim && !o.host_caches) {
		strv_addf(&s, REF_I1);
		strv_addf(&s, REF_D1);
		strv_addf(&s, REF_LL);
	}
	if (o.tool == PMC_VALGRIND_CALLGRIND) {
		/* A child forked without exec inherits its parent's counters and would
		 * report them again. A dump writes the counts so far and zeroes them, so a
		 * dump just before fork leaves the child only its own work. glibc >= 2.34
		 * forks in _Fork (called by fork), older ones in fork itself. */
		strv_addf(&s, "--dump-before=fork");
		strv_addf(&s, "--dump-before=_Fork");
		if (o.collect_atstart_off || o.collect_only)
			strv_addf(&s, "--collect-atstart=no");
		for (const char *const *p = o.collect_only; p && *p; p++)
			strv_addf(&s, "--toggle-collect=%s", *p);
	}
	for (const char *const *p = o.extra_args; p && *p; p++)
		strv_addf(&s, "%s", *p);
	strv_addf(&s, "--");
	for (char *const *p = target_argv; *p; p++)
		strv_addf(&s, "%s", *p);

	r = s.error;
	if (r == 0)
		r = strv_pack(&s, ret_argv);
	strv_free(&s);
	return r;
}

/* ---- output files -------------------------------------------------------------------- */

struct file_counts {
	uint64_t ev[PMC_VG_EV_COUNT];
	uint32_t present;
	char caches[sizeof(((struct pmc_valgrind_counts *)0)->caches)];
};

struct parser {
	const char *path;
	unsigned line;
	int columns[MAX_COLUMNS]; /* event of each column of the events line, or -1 */
	size_t ncolumns;
	bool have_events, have_end;
	char *err;
	size_t errlen;
};

static int parse_events(struct parser *p, const char *s, struct file_counts *fc)
{
	const char *name;
	size_t len;

	if (p->have_events) {
		pmc_err_set(p->err, p->errlen, "%s:%u: a second 'events:' line", p->path, p->line);
		return -EINVAL;
	}
	p->have_events = true;
	while ((name = pmc_vgf_token(&s, &len))) {
		int ev = -1;

		if (p->ncolumns == MAX_COLUMNS) {
			pmc_err_set(p->err, p->errlen, "%s:%u: more than %d events", p->path,
				    p->line, MAX_COLUMNS);
			return -EINVAL;
		}
		for (int i = 0; i < PMC_VG_EV_COUNT; i++)
			if (strlen(event_names[i]) == len && memcmp(name, event_names[i], len) == 0)
				ev = i;
		if (ev >= 0 && (fc->present & (1u << ev))) {
			pmc_err_set(p->err, p->errlen, "%s:%u: event '%.*s' listed twice", p->path,
				    p->line, (int)len, name);
			return -EINVAL;
		}
		/* Events we do not report (callgrind's sysCount, Ge, ...) keep their
		 * column so that the ones after them are read from the right place. */
		if (ev >= 0)
			fc->present |= 1u << ev;
		p->columns[p->ncolumns++] = ev;
	}
	if (p->ncolumns == 0) {
		pmc_err_set(p->err, p->errlen, "%s:%u: empty 'events:' line", p->path, p->line);
		return -EINVAL;
	}
	return 0;
}

/* The end line: "summary:" (cachegrind) or "totals:" (callgrind), one count per event
 * column. The format lets a cost line leave out trailing counts, which are zero. */
static int parse_end(struct parser *p, const char *key, const char *s, struct file_counts *fc)
{
	const char *tok;
	size_t col = 0, len;

	if (!p->have_events) {
		pmc_err_set(p->err, p->errlen, "%s:%u: '%s' line before the 'events:' line",
			    p->path, p->line, key);
		return -EINVAL;
	}
	if (p->have_end) {
		pmc_err_set(p->err, p->errlen, "%s:%u: a second '%s' line", p->path, p->line, key);
		return -EINVAL;
	}
	p->have_end = true;
	while ((tok = pmc_vgf_token(&s, &len))) {
		uint64_t v = 0;
		int q;

		if (col == p->ncolumns) {
			pmc_err_set(p->err, p->errlen,
				    "%s:%u: '%s' has more counts than the %zu events", p->path,
				    p->line, key, p->ncolumns);
			return -EINVAL;
		}
		q = pmc_vgf_count(tok, len, &v);
		if (q == -EINVAL) {
			pmc_err_set(p->err, p->errlen, "%s:%u: '%.*s' is not a count", p->path,
				    p->line, (int)len, tok);
			return -EINVAL;
		}
		/* A result holds counts as JSON integers, at most 2^63 - 1
		 * (docs/result-schema.md): refused here, where the number enters, rather
		 * than when a result is saved (a run without -o would report it). */
		if (q == -EOVERFLOW || v > COUNT_MAX) {
			if (p->columns[col] >= 0)
				pmc_err_set(
				    p->err, p->errlen,
				    "%s:%u: %s count %.*s is above 2^63 - 1, the largest count "
				    "a result holds; the file is corrupt",
				    p->path, p->line, event_names[p->columns[col]], (int)len, tok);
			else
				pmc_err_set(p->err, p->errlen,
					    "%s:%u: count %.*s (column %zu) is above 2^63 - 1, the "
					    "largest count a result holds; the file is corrupt",
					    p->path, p->line, (int)len, tok, col + 1);
			return -EOVERFLOW;
		}
		if (p->columns[col] >= 0)
			fc->ev[p->columns[col]] = v;
		col++;
	}
	return 0;
}

/* Keeps the simulated cache geometry ("desc: I1 cache: 32768 B, 64 B, 8-way
 * associative") so that results can record what was simulated. */
static void note_cache(struct file_counts *fc, const char *s)
{
	size_t len = strlen(fc->caches);

	while (*s == ' ')
		s++;
	snprintf(fc->caches + len, sizeof(fc->caches) - len, "%s%s", len ? "; " : "", s);
}

static int parse_file(const char *path, enum pmc_valgrind_tool tool, struct file_counts *fc,
		      char *err, size_t errlen)
{
	struct parser p = {.path = path, .err = err, .errlen = errlen};
	/* The end line, "summary:" (cachegrind) or "totals:" (callgrind). */
	const char *end = tool == PMC_VALGRIND_CALLGRIND ? "totals" : "summary";
	const char *end_key = tool == PMC_VALGRIND_CALLGRIND ? "totals:" : "summary:";
	struct pmc_vgf_reader *rd;
	struct pmc_vgf_line l;
	int r;

	memset(fc, 0, sizeof(*fc));
	r = pmc_vgf_open(path, err, errlen, &rd);
	if (r < 0)
		return r;
	/* Only the events, their totals and the simulated caches count here: every other
	 * line is left alone. */
	while ((r = pmc_vgf_next(rd, &l)) > 0) {
		p.line = pmc_vgf_line_number(rd);
		if (pmc_vgf_is(&l, PMC_VGF_HEADER, "events"))
			r = parse_events(&p, l.value, fc);
		else if (pmc_vgf_is(&l, PMC_VGF_HEADER, end))
			r = parse_end(&p, end_key, l.value, fc);
		else if (pmc_vgf_is(&l, PMC_VGF_HEADER, "desc") &&
			 (pmc_vgf_starts_with(l.value, " I1 cache:") ||
			  pmc_vgf_starts_with(l.value, " D1 cache:") ||
			  pmc_vgf_starts_with(l.value, " LL cache:")))
			note_cache(fc, l.value);
		if (r < 0)
			goto out;
	}
	if (r < 0 || (r = pmc_vgf_finish(rd)) < 0)
		goto out;
	r = -EINVAL;
	if (!p.have_events)
		pmc_err_set(err, errlen, "%s: no 'events:' line", path);
	else if (!p.have_end)
		pmc_err_set(err, errlen, "%s: no '%s' line at the end (truncated file?)", path,
			    end_key);
	else
		r = 0;
out:
	pmc_vgf_close(rd);
	return r;
}

/* "callgrind.out.PID" or "callgrind.out.PID.N" (a dump), "cachegrind.out.PID". Returns
 * the tool and pid, or -1 for any other name. */
static int classify_dump(const char *name, enum pmc_valgrind_tool *tool, unsigned long *pid,
			 unsigned long *seq)
{
	const char *s;
	char *end;

	if (pmc_vgf_starts_with(name, CALLGRIND_PREFIX)) {
		*tool = PMC_VALGRIND_CALLGRIND;
		s = name + strlen(CALLGRIND_PREFIX);
	} else if (pmc_vgf_starts_with(name, CACHEGRIND_PREFIX)) {
		*tool = PMC_VALGRIND_CACHEGRIND;
		s = name + strlen(CACHEGRIND_PREFIX);
	} else {
		return -1;
	}
	if (!isdigit((unsigned char)*s))
		return -1;
	*pid = strtoul(s, &end, 10);
	*seq = 0;
	if (*end == '.' && *tool == PMC_VALGRIND_CALLGRIND && isdigit((unsigned char)end[1]))
		*seq = strtoul(end + 1, &end, 10); /* the dump's sequence number */
	return *end ? -1 : 0;
}

static int classify(const char *name, enum pmc_valgrind_tool *tool, unsigned long *pid)
{
	unsigned long seq;

	return classify_dump(name, tool, pid, &seq);
}

static int output_filter(const struct dirent *d)
{
	enum pmc_valgrind_tool tool;
	unsigned long pid;

	return classify(d->d_name, &tool, &pid) == 0;
}

/* The output files of outdir, sorted by name (one process's files together). Returns
 * their number, or -errno with one line in err. */
static int scan_outputs(const char *outdir, struct dirent ***ret, char *err, size_t errlen)
{
	int n = scandir(outdir, ret, output_filter, alphasort);

	if (n < 0) {
		n = -errno;
		pmc_err_set(err, errlen, "%s: cannot read directory: %s", outdir, strerror(-n));
	}
	return n;
}

/* The error when a run left no output file: valgrind's own words when its log has them. */
static int collect_none(const char *outdir, char *err, size_t errlen)
{
	char why[160];

	if (pmc_valgrind_log_error(outdir, why, sizeof(why)) == 0)
		pmc_err_set(err, errlen, "%s: no valgrind output file: %s", outdir, why);
	else
		pmc_err_set(
		    err, errlen,
		    "%s: no valgrind output file (valgrind failed before the target ran; see "
		    "its standard error)",
		    outdir);
	return -ENOENT;
}

/* One callgrind file of outdir on its own. */
static int read_one(const char *outdir, const char *name, struct pmc_valgrind_counts *ret,
		    char *err, size_t errlen)
{
	struct file_counts fc;
	char *path;
	int r;

	if (asprintf(&path, "%s/%s", outdir, name) < 0)
		return -ENOMEM;
	r = parse_file(path, PMC_VALGRIND_CALLGRIND, &fc, err, errlen);
	free(path);
	if (r < 0)
		return r;
	*ret = (struct pmc_valgrind_counts){
	    .present = fc.present, .tool = PMC_VALGRIND_CALLGRIND, .files = 1, .processes = 1};
	memcpy(ret->ev, fc.ev, sizeof(ret->ev));
	memcpy(ret->caches, fc.caches, sizeof(ret->caches));
	return 0;
}

int pmc_valgrind_collect(const char *outdir, struct pmc_valgrind_counts *ret, char *err,
			 size_t errlen)
{
	struct pmc_valgrind_counts sum = {0};
	struct dirent **names = NULL;
	unsigned long prev_pid = 0;
	char *first = NULL;
	int n, r = 0;

	if (!outdir || !ret)
		return -EINVAL;
	n = scan_outputs(outdir, &names, err, errlen);
	if (n < 0)
		return n;
	if (n == 0) {
		r = collect_none(outdir, err, errlen);
		goto out;
	}
	for (int i = 0; i < n; i++) {
		struct file_counts fc;
		enum pmc_valgrind_tool tool;
		unsigned long pid;
		char *path;

		classify(names[i]->d_name, &tool, &pid);
		if (asprintf(&path, "%s/%s", outdir, names[i]->d_name) < 0) {
			r = -ENOMEM;
			goto out;
		}
		if (i > 0 && tool != sum.tool) {
			pmc_err_set(err, errlen, "%s: both callgrind and cachegrind output files",
				    outdir);
			free(path);
			r = -EINVAL;
			goto out;
		}
		sum.tool = tool;
		r = parse_file(path, tool, &fc, err, errlen);
		if (r == 0 && i > 0 && fc.present != sum.present) {
			pmc_err_set(err, errlen, "%s: its events differ from those of %s", path,
				    first);
			r = -EINVAL;
		}
		if (r < 0) {
			free(path);
			goto out;
		}
		if (i == 0) {
			first = path;
			sum.present = fc.present;
			memcpy(sum.caches, fc.caches, sizeof(sum.caches));
		} else {
			free(path);
		}
		for (int e = 0; e < PMC_VG_EV_COUNT; e++) {
			if (__builtin_add_overflow(sum.ev[e], fc.ev[e], &sum.ev[e]) ||
			    sum.ev[e] > COUNT_MAX) {
				pmc_err_set(
				    err, errlen,
				    "%s: the sum of %s over %d files is above 2^63 - 1, the "
				    "largest count a result holds",
				    outdir, event_names[e], i + 1);
				r = -EOVERFLOW;
				goto out;
			}
		}
		/* Sorted names keep one process's files together (PID, PID.1, ... sort
		 * before any longer PID with the same digits), so a change of pid is a
		 * new process. */
		if (i == 0 || pid != prev_pid)
			sum.processes++;
		prev_pid = pid;
		sum.files++;
	}
	*ret = sum;
out:
	free(first);
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return r;
}

int pmc_valgrind_collect_dumps(const char *outdir, struct pmc_valgrind_counts *ret, size_t max,
			       size_t *ret_n, char *err, size_t errlen)
{
	struct pmc_valgrind_counts *got = NULL;
	struct dirent **names = NULL;
	unsigned long first_pid = 0;
	size_t ndumps = 0;
	int n, r = 0;

	if (!outdir || !ret || !ret_n)
		return -EINVAL;
	n = scan_outputs(outdir, &names, err, errlen);
	if (n < 0)
		return n;
	got = calloc(max + 1, sizeof(*got));
	if (!got) {
		r = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		enum pmc_valgrind_tool tool;
		unsigned long pid, seq;

		classify_dump(names[i]->d_name, &tool, &pid, &seq);
		if (tool != PMC_VALGRIND_CALLGRIND || (i > 0 && pid != first_pid)) {
			pmc_err_set(err, errlen,
				    "%s: the files of more than one process, or not callgrind's",
				    outdir);
			r = -EINVAL;
			goto out;
		}
		first_pid = pid;
		if (seq == 0)
			continue; /* the dump at the program's end */
		if (seq > max) {
			pmc_err_set(err, errlen, "%s: more than %zu dumps", outdir, max);
			r = -E2BIG;
			goto out;
		}
		if (got[seq - 1].files) {
			pmc_err_set(err, errlen, "%s: dump %lu twice", outdir, seq);
			r = -EINVAL;
			goto out;
		}
		r = read_one(outdir, names[i]->d_name, &got[seq - 1], err, errlen);
		if (r < 0)
			goto out;
		ndumps++;
	}
	for (size_t k = 0; k < ndumps; k++)
		if (!got[k].files) {
			pmc_err_set(err, errlen, "%s: dump %zu of %zu is missing", outdir, k + 1,
				    ndumps);
			r = -EINVAL;
			goto out;
		}
	if (ndumps == 0 && n == 0)
		r = collect_none(outdir, err, errlen);
	if (r < 0)
		goto out;
	memcpy(ret, got, ndumps * sizeof(*got));
	*ret_n = ndumps;
out:
	free(got);
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return r;
}

/* ---- valgrind's logs ----------------------------------------------------------------- */

static int log_filter(const struct dirent *d)
{
	return pmc_vgf_starts_with(d->d_name, LOG_PREFIX);
}

/* What valgrind says when a run goes wrong. */
static bool is_failure_line(const char *s)
{
	/* clang-format off */
	static const char *const keys[] = {
		"Process terminating",		/* the target died by a signal */
		"valgrind:",			/* valgrind's own fatal errors */
		"Valgrind: ",
		"vex ",				/* "vex amd64->IR: unhandled instruction bytes" */
		"unhandled instruction",
		"Valgrind's memory management",	/* out of memory */
		"FATAL",
		"Fatal error",
	};
	/* clang-format on */

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strstr(s, keys[i]))
			return true;
	return false;
}

/* Drops the "==123== " or "--123-- " prefix valgrind puts on its lines. */
static const char *strip_pid(const char *s)
{
	if ((s[0] == '=' && s[1] == '=') || (s[0] == '-' && s[1] == '-')) {
		const char *p = s + 2;

		while (isdigit((unsigned char)*p))
			p++;
		if (p > s + 2 && p[0] == s[0] && p[1] == s[0])
			return p[2] == ' ' ? p + 3 : p + 2;
	}
	return s;
}

int pmc_valgrind_log_error(const char *outdir, char *buf, size_t len)
{
	struct dirent **names = NULL;
	char *line = NULL;
	size_t cap = 0;
	int n, r = -ENOENT;

	if (!outdir || !buf || len == 0)
		return -EINVAL;
	n = scandir(outdir, &names, log_filter, alphasort);
	if (n < 0)
		return -errno;
	for (int i = 0; i < n && r == -ENOENT; i++) {
		char *path;
		FILE *f;
		ssize_t l;

		if (asprintf(&path, "%s/%s", outdir, names[i]->d_name) < 0) {
			r = -ENOMEM;
			break;
		}
		f = fopen(path, "re");
		free(path);
		if (!f)
			continue;
		while ((l = getline(&line, &cap, f)) > 0) {
			const char *s;

			if (line[l - 1] == '\n')
				line[l - 1] = '\0';
			s = strip_pid(line);
			if (is_failure_line(s)) {
				snprintf(buf, len, "%s", s);
				r = 0;
				break;
			}
		}
		fclose(f);
	}
	free(line);
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return r;
}

/* ---- run directories ----------------------------------------------------------------- */

int pmc_valgrind_outdir_new(const char *parent, char **ret_path)
{
	char *path;

	if (!ret_path)
		return -EINVAL;
	if (!parent) {
		parent = getenv("TMPDIR");
		if (!parent || !parent[0])
			parent = "/tmp";
	}
	if (strchr(parent, '%'))
		return -EINVAL; /* see pmc_valgrind_argv */
	if (asprintf(&path, "%s/pmcbench-vg.XXXXXX", parent) < 0)
		return -ENOMEM;
	if (!mkdtemp(path)) {
		int r = -errno;

		free(path);
		return r;
	}
	*ret_path = path;
	return 0;
}

int pmc_valgrind_outdir_remove(const char *dir)
{
	struct dirent *d;
	DIR *dp;
	int r = 0;

	if (!dir)
		return 0;
	dp = opendir(dir);
	if (!dp)
		return -errno;
	while ((d = readdir(dp))) {
		enum pmc_valgrind_tool tool;
		unsigned long pid;

		if (classify(d->d_name, &tool, &pid) < 0 &&
		    !pmc_vgf_starts_with(d->d_name, LOG_PREFIX))
			continue;
		if (unlinkat(dirfd(dp), d->d_name, 0) < 0 && errno != ENOENT && r == 0)
			r = -errno;
	}
	closedir(dp);
	if (rmdir(dir) < 0 && r == 0)
		r = errno == EEXIST ? -ENOTEMPTY : -errno;
	return r;
}

/* ---- metrics ------------------------------------------------------------------------- */

size_t pmc_valgrind_metric_count(void)
{
	return PMC_VG_M_COUNT;
}

const char *pmc_valgrind_metric_id(size_t i)
{
	return i < PMC_VG_M_COUNT ? metric_ids[i] : NULL;
}

int pmc_valgrind_metric_find(const char *id)
{
	for (size_t i = 0; id && i < PMC_VG_M_COUNT; i++)
		if (strcmp(id, metric_ids[i]) == 0)
			return (int)i;
	return -ENOENT;
}

/* Estimated cycles, the formula of Itamar Turner-Trauring's cachegrind benchmarking
 * method (also used by iai and iai-callgrind): every access costs 1 cycle when it hits
 * L1, 5 when it hits LL, 35 when it goes to memory. Accesses are instruction fetches
 * plus data reads and writes; branch mispredictions are not part of it. */
static int est_cycles(const uint64_t *ev, uint64_t *ret, char *err, size_t errlen)
{
	uint64_t acc, l1m, llm, llm35, v;

	/* Each count is at most 2^63 - 1 (collect), so none of the sums of three wraps. */
	if (__builtin_add_overflow(ev[PMC_VG_EV_IR], ev[PMC_VG_EV_DR], &acc) ||
	    __builtin_add_overflow(acc, ev[PMC_VG_EV_DW], &acc) ||
	    __builtin_add_overflow(ev[PMC_VG_EV_I1MR], ev[PMC_VG_EV_D1MR], &l1m) ||
	    __builtin_add_overflow(l1m, ev[PMC_VG_EV_D1MW], &l1m) ||
	    __builtin_add_overflow(ev[PMC_VG_EV_ILMR], ev[PMC_VG_EV_DLMR], &llm) ||
	    __builtin_add_overflow(llm, ev[PMC_VG_EV_DLMW], &llm)) {
		pmc_err_set(err, errlen,
			    "est-cycles: the accesses or misses do not fit in 64 bits");
		return -ERANGE;
	}
	/* LL is only accessed on an L1 miss, and L1 on an access, so these cannot hold
	 * for counts of one simulation. */
	if (l1m > acc) {
		pmc_err_set(err, errlen,
			    "est-cycles: the counts contradict each other: %llu L1 misses "
			    "(I1mr + D1mr + D1mw) but only %llu accesses (Ir + Dr + Dw)",
			    (unsigned long long)l1m, (unsigned long long)acc);
		return -ERANGE;
	}
	if (llm > l1m) {
		pmc_err_set(err, errlen,
			    "est-cycles: the counts contradict each other: %llu LL misses "
			    "(ILmr + DLmr + DLmw) but only %llu L1 misses (I1mr + D1mr + D1mw); LL "
			    "is accessed only on an L1 miss",
			    (unsigned long long)llm, (unsigned long long)l1m);
		return -ERANGE;
	}
	/* (acc - l1m) L1 hits + 5 (l1m - llm) LL hits + 35 llm memory accesses */
	if (__builtin_mul_overflow(l1m - llm, (uint64_t)5, &v) ||
	    __builtin_add_overflow(v, acc - l1m, &v) ||
	    __builtin_mul_overflow(llm, (uint64_t)35, &llm35) ||
	    __builtin_add_overflow(v, llm35, &v) || v > COUNT_MAX) {
		pmc_err_set(
		    err, errlen,
		    "est-cycles: %llu L1 hits + 5 x %llu LL hits + 35 x %llu memory accesses "
		    "is above 2^63 - 1, the largest count a result holds",
		    (unsigned long long)(acc - l1m), (unsigned long long)(l1m - llm),
		    (unsigned long long)llm);
		return -ERANGE;
	}
	*ret = v;
	return 0;
}

int pmc_valgrind_metric_value(const struct pmc_valgrind_counts *c, size_t i, uint64_t *ret,
			      char *err, size_t errlen)
{
	static const enum pmc_valgrind_event single[PMC_VG_M_COUNT] = {
	    [PMC_VG_M_INSTRUCTIONS] = PMC_VG_EV_IR,
	    [PMC_VG_M_DATA_READS] = PMC_VG_EV_DR,
	    [PMC_VG_M_DATA_WRITES] = PMC_VG_EV_DW,
	    [PMC_VG_M_I1_MISSES] = PMC_VG_EV_I1MR,
	    [PMC_VG_M_LLI_MISSES] = PMC_VG_EV_ILMR,
	    [PMC_VG_M_D1_READ_MISSES] = PMC_VG_EV_D1MR,
	    [PMC_VG_M_D1_WRITE_MISSES] = PMC_VG_EV_D1MW,
	    [PMC_VG_M_LLD_READ_MISSES] = PMC_VG_EV_DLMR,
	    [PMC_VG_M_LLD_WRITE_MISSES] = PMC_VG_EV_DLMW,
	    [PMC_VG_M_BRANCH_COND] = PMC_VG_EV_BC,
	    [PMC_VG_M_BRANCH_COND_MISSES] = PMC_VG_EV_BCM,
	    [PMC_VG_M_BRANCH_INDIRECT] = PMC_VG_EV_BI,
	    [PMC_VG_M_BRANCH_INDIRECT_MISSES] = PMC_VG_EV_BIM,
	};
	uint64_t v;
	int r;

	if (!c || !ret || i >= PMC_VG_M_COUNT)
		return -EINVAL;
	switch (i) {
	case PMC_VG_M_BRANCH_MISSES:
		if ((c->present & (EV(BCM) | EV(BIM))) != (EV(BCM) | EV(BIM)))
			return -ENODATA;
		if (__builtin_add_overflow(c->ev[PMC_VG_EV_BCM], c->ev[PMC_VG_EV_BIM], &v) ||
		    v > COUNT_MAX) {
			pmc_err_set(
			    err, errlen,
			    "branch-misses: %llu Bcm + %llu Bim is above 2^63 - 1, the largest "
			    "count a result holds",
			    (unsigned long long)c->ev[PMC_VG_EV_BCM],
			    (unsigned long long)c->ev[PMC_VG_EV_BIM]);
			return -ERANGE;
		}
		break;
	case PMC_VG_M_EST_CYCLES:
		if ((c->present & CACHE_EVENTS) != CACHE_EVENTS)
			return -ENODATA;
		r = est_cycles(c->ev, &v, err, errlen);
		if (r < 0)
			return r;
		break;
	default:
		if (!(c->present & (1u << single[i])))
			return -ENODATA;
		v = c->ev[single[i]];
		/* pmc_valgrind_collect never gives one; counts filled in by hand may. */
		if (v > COUNT_MAX) {
			pmc_err_set(
			    err, errlen,
			    "%s: %llu %s is above 2^63 - 1, the largest count a result holds",
			    metric_ids[i], (unsigned long long)v, event_names[single[i]]);
			return -ERANGE;
		}
		break;
	}
	*ret = v;
	return 0;
}

int pmc_valgrind_metric_reading(const struct pmc_valgrind_counts *c, size_t i,
				struct pmc_reading *ret, char *err, size_t errlen)
{
	uint64_t v;
	int r;

	if (!ret)
		return -EINVAL;
	r = pmc_valgrind_metric_value(c, i, &v, err, errlen);
	if (r < 0)
		return r;
	*ret = (struct pmc_reading){
	    .status = PMC_STATUS_EXACT,
	    .value = v,
	    .scaled = (double)v,
	};
	return 0;
}

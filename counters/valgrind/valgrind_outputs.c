/* What a valgrind run leaves in its directory: the per-process output files of cachegrind
 * and callgrind, read through the one reader of their format
 * (counters/valgrind/valgrind_format.h) and summed into counts; the errors in valgrind's
 * logs; the directory itself, made and removed. */
#include "counters/valgrind/valgrind.h"
#include "counters/valgrind/valgrind_priv.h"
#include "counters/valgrind/valgrind_format.h"
#include "base/error.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* More columns than any valgrind tool writes; bounds the per-file column map. */
#define MAX_COLUMNS 64

/* The event names of the output files' "events:" lines, in PMC_VALGRIND_EVENTS order. */
const char *const pmc_valgrind_event_names[PMC_VG_EV_COUNT] = {
#define PMC_VG_EV_NAME(sym, name) [PMC_VG_EV_##sym] = name,
    PMC_VALGRIND_EVENTS(PMC_VG_EV_NAME)
#undef PMC_VG_EV_NAME
};

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
			if (strlen(pmc_valgrind_event_names[i]) == len &&
			    memcmp(name, pmc_valgrind_event_names[i], len) == 0)
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
				    p->path, p->line, pmc_valgrind_event_names[p->columns[col]],
				    (int)len, tok);
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
				    outdir, pmc_valgrind_event_names[e], i + 1);
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

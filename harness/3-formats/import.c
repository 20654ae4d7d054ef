/* Telling the format of a result file by its content, and loading it with pmcbench's
 * loader or the importer of its format (import.h, docs/import.md); the helpers the
 * importers share (import_priv.h). */
#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/error.h"
#include "base/grow.h"
#include "core/metrics.h"
#include "core/result.h"
#include "core/units.h"
#include "formats/import_priv.h"
#include "formats/result_json.h"

const char *pmc_import_format_id(enum pmc_import_format f)
{
	switch (f) {
	case PMC_IMPORT_PMCBENCH:
		return "pmcbench";
	case PMC_IMPORT_GBENCH:
		return "google-benchmark";
	case PMC_IMPORT_HYPERFINE:
		return "hyperfine";
	case PMC_IMPORT_PERF_STAT_CSV:
		return "perf-stat-csv";
	case PMC_IMPORT_PERF_STAT_JSON:
		return "perf-stat-json";
	case PMC_IMPORT_GO:
		return "go-bench";
	}
	return "unknown";
}

/* ---- Sniffing ------------------------------------------------------------------- */

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* The end of the JSON string that starts at p (a '"'), after its closing quote; NULL when
 * it does not end before end. */
static const char *skip_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

/* The end of the JSON value that starts at p; NULL when it does not end before end. Only
 * strings and nesting are tracked: this finds keys, it does not validate. */
static const char *skip_value(const char *p, const char *end)
{
	int depth = 0;

	while (p < end) {
		if (*p == '"') {
			p = skip_string(p, end);
			if (!p)
				return NULL;
			if (depth == 0)
				return p;
			continue;
		}
		if (*p == '{' || *p == '[') {
			depth++;
		} else if (*p == '}' || *p == ']') {
			if (--depth <= 0)
				return depth == 0 ? p + 1 : p;
		} else if (depth == 0 &&
			   (*p == ',' || *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) {
			return p;
		}
		p++;
	}
	return NULL;
}

static bool key_is(const char *k, size_t len, const char *word)
{
	return strlen(word) == len && memcmp(k, word, len) == 0;
}

/* Calls found(key, len, value, arg) for each key of the JSON object at p (a '{') until it
 * returns nonzero, which is returned; 0 when the object (or the text) ends first. */
static int each_key(const char *p, const char *end,
		    int (*found)(const char *key, size_t len, const char *value, const char *end,
				 void *arg),
		    void *arg)
{
	for (p = skip_space(p + 1, end); p < end && *p == '"';) {
		const char *k = p + 1, *q = skip_string(p, end);
		int r;

		if (!q)
			return 0;
		p = skip_space(q, end);
		if (p >= end || *p != ':')
			return 0;
		p = skip_space(p + 1, end);
		r = found(k, (size_t)(q - 1 - k), p, end, arg);
		if (r)
			return r;
		p = skip_value(p, end);
		if (!p)
			return 0;
		p = skip_space(p, end);
		if (p >= end || *p != ',')
			return 0;
		p = skip_space(p + 1, end);
	}
	return 0;
}

/* A key only Google Benchmark's runs have. */
static int gbench_run_key(const char *k, size_t len, const char *v, const char *end, void *arg)
{
	return key_is(k, len, "run_type") || key_is(k, len, "time_unit") ||
	       key_is(k, len, "real_time");
}

/* The format a top-level key gives away: "schema" is pmcbench's, "context" Google
 * Benchmark's, "results" hyperfine's; "benchmarks" before any of them is Google
 * Benchmark's when its first entry is a run of it. */
static int top_key(const char *k, size_t len, const char *v, const char *end, void *arg)
{
	if (key_is(k, len, "schema"))
		return 1 + PMC_IMPORT_PMCBENCH;
	if (key_is(k, len, "context"))
		return 1 + PMC_IMPORT_GBENCH;
	if (key_is(k, len, "results"))
		return 1 + PMC_IMPORT_HYPERFINE;
	if (key_is(k, len, "benchmarks") && v < end && *v == '[') {
		v = skip_space(v + 1, end);
		if (v < end && *v == '{' && each_key(v, end, gbench_run_key, NULL))
			return 1 + PMC_IMPORT_GBENCH;
	}
	return 0;
}

/* Lines perf stat writes to standard error beside its counts, and comments ("# started on
 * ..." with -o). */
static bool perf_noise(const char *line, size_t len)
{
	return (len > 0 && line[0] == '#') || key_is(line, len, "Events disabled") ||
	       key_is(line, len, "Events enabled");
}

static bool blank(const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isspace((unsigned char)line[i]))
			return false;
	return true;
}

/* A row of perf stat -x,: a count (or "<not counted>", "<not supported>"), or the CPU,
 * socket or die of the per-CPU modes (which the importer then refuses by name), and at
 * least four more comma-separated fields. */
static bool perf_csv_row(const char *line, size_t len)
{
	size_t commas = 0, first = len;

	for (size_t i = 0; i < len; i++) {
		if (line[i] == ',') {
			if (first == len)
				first = i;
			commas++;
		}
	}
	if (commas < 4 || first == 0)
		return false;
	if (line[0] == '<' ||
	    (first > 3 && memcmp(line, "CPU", 3) == 0 && isdigit((unsigned char)line[3])) ||
	    (first > 1 && line[0] == 'S' && isdigit((unsigned char)line[1])))
		return true;
	for (size_t i = 0; i < first; i++)
		if (!isdigit((unsigned char)line[i]) && line[i] != '.' && line[i] != ' ')
			return false;
	return true;
}

/* A line of Go's benchmark format that names a benchmark: "Benchmark" followed by an
 * upper-case letter, '/', '-', white space or nothing, as the format's definition allows
 * (sub-benchmarks and the -GOMAXPROCS suffix included). */
static bool go_bench_line(const char *line, size_t len)
{
	static const char prefix[] = "Benchmark";
	size_t n = sizeof(prefix) - 1;

	if (len < n || memcmp(line, prefix, n) != 0)
		return false;
	return len == n || isupper((unsigned char)line[n]) || line[n] == '/' || line[n] == '-' ||
	       line[n] == ' ' || line[n] == '\t';
}

/* A line that starts with '{': perf stat -j's first object, whose first key is
 * "counter-value" (a pmcbench result on one line may hold the word further on), or the
 * start of a JSON document. */
static enum pmc_import_format sniff_object(const char *line, size_t n, const char *end)
{
	int r;

	if (memmem(line, n < 40 ? n : 40, "\"counter-value\"", 15) != NULL)
		return PMC_IMPORT_PERF_STAT_JSON;
	r = each_key(line, end, top_key, NULL);
	return r ? (enum pmc_import_format)(r - 1) : PMC_IMPORT_PMCBENCH;
}

enum pmc_import_format pmc_import_sniff(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *line;
	bool first = true;
	struct pmc_lines it;
	size_t n;

	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	it = (struct pmc_lines){.p = p, .end = end};
	while (pmc_lines_next(&it, &line, &n)) {
		while (n > 0 && (*line == ' ' || *line == '\t')) {
			line++;
			n--;
		}
		if (blank(line, n) || perf_noise(line, n))
			continue;
		if (first) {
			first = false;
			if (line[0] == '{')
				return sniff_object(line, n, end);
			if (perf_csv_row(line, n))
				return PMC_IMPORT_PERF_STAT_CSV;
		}
		if (go_bench_line(line, n))
			return PMC_IMPORT_GO;
	}
	return PMC_IMPORT_PMCBENCH;
}

/* ---- Loading ---------------------------------------------------------------------- */

/* The head of a regular file, enough to tell its format. */
#define SNIFF_HEAD (64u << 10)

/* Reads the rest of f into *ret (NUL-terminated, malloc'd) after the len bytes of head. */
static int read_rest(FILE *f, const char *head, size_t len, char **ret, size_t *ret_len)
{
	size_t cap = len + SNIFF_HEAD + 1, n = len;
	char *buf = malloc(cap);

	if (!buf)
		return -ENOMEM;
	if (len)
		memcpy(buf, head, len);
	for (;;) {
		size_t got;

		if (pmc_grow_to(&buf, &cap, n + 4096, 1) < 0)
			goto fail_nomem;
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
		if (n > PMC_INPUT_MAX) {
			free(buf);
			return -EFBIG;
		}
	}
	if (ferror(f)) {
		int e = errno ? errno : EIO;

		free(buf);
		return -e;
	}
	buf[n] = '\0';
	*ret = buf;
	*ret_len = n;
	return 0;

fail_nomem:
	free(buf);
	return -ENOMEM;
}

static int import_text(enum pmc_import_format f, const char *path, const char *text, size_t len,
		       struct pmc_result **ret, char *err, size_t errlen)
{
	/* Numbers are read with strtod: in the C locale, whatever the program set. */
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0), old;
	int r = -EINVAL;

	if (c == (locale_t)0)
		return -ENOMEM;
	old = uselocale(c);
	switch (f) {
	case PMC_IMPORT_GBENCH:
		r = pmc_import_gbench(path, text, len, ret, err, errlen);
		break;
	case PMC_IMPORT_HYPERFINE:
		r = pmc_import_hyperfine(path, text, len, ret, err, errlen);
		break;
	case PMC_IMPORT_PERF_STAT_CSV:
		r = pmc_import_perf_stat_csv(path, text, len, ret, err, errlen);
		break;
	case PMC_IMPORT_PERF_STAT_JSON:
		r = pmc_import_perf_stat_json(path, text, len, ret, err, errlen);
		break;
	case PMC_IMPORT_GO:
		r = pmc_import_go(path, text, len, ret, err, errlen);
		break;
	case PMC_IMPORT_PMCBENCH:
		break;
	}
	uselocale(old);
	freelocale(c);
	return r;
}

/* pmcbench's loader on text already read (a pipe): from memory, read again as needed. */
static int load_from_memory(const char *path, char *text, size_t len, struct pmc_result **ret,
			    char *err, size_t errlen)
{
	static char space[] = " ";
	FILE *m;
	int r;

	/* fmemopen refuses a size of 0; a blank byte is as empty to the loader. */
	m = len ? fmemopen(text, len, "r") : fmemopen(space, 1, "r");
	if (!m)
		return -errno;
	r = pmc_result_load_stream(m, true, path, ret, err, errlen);
	fclose(m);
	return r;
}

int pmc_result_load_any(const char *path, struct pmc_result **ret, char *err, size_t errlen)
{
	enum pmc_import_format fmt;
	char *head = NULL, *text = NULL;
	size_t n = 0, len = 0;
	struct stat st;
	FILE *f;
	int r;

	f = fopen(path, "re");
	if (!f || fstat(fileno(f), &st) < 0 || pmc_input_check(path, &st, NULL, 0) < 0) {
		/* The loader says what is wrong, in its words. */
		if (f)
			fclose(f);
		return pmc_result_load(path, ret, err, errlen);
	}
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	if (S_ISREG(st.st_mode)) {
		head = malloc(SNIFF_HEAD);
		if (!head) {
			r = -ENOMEM;
			goto out;
		}
		n = fread(head, 1, SNIFF_HEAD, f);
		if (ferror(f)) {
			r = errno ? -errno : -EIO;
			goto fail_read;
		}
		if (pmc_import_sniff(head, n) == PMC_IMPORT_PMCBENCH) {
			if (fseek(f, 0, SEEK_SET) < 0) {
				r = -errno;
				goto fail_read;
			}
			r = pmc_result_load_stream(f, true, path, ret, err, errlen);
			goto out;
		}
	}
	r = read_rest(f, head, n, &text, &len);
	if (r < 0)
		goto fail_read;
	fmt = pmc_import_sniff(text, len);
	if (fmt == PMC_IMPORT_PMCBENCH)
		r = load_from_memory(path, text, len, ret, err, errlen);
	else
		r = import_text(fmt, path, text, len, ret, err, errlen);
	goto out;

fail_read:
	if (r == -EFBIG)
		pmc_err_set(err, errlen,
			    "%s: more than 1 GiB, larger than any result; is it the right file?",
			    path);
	else
		pmc_err_set(err, errlen, "%s: cannot read: %s", path, strerror(-r));
out:
	if (r == -ENOMEM)
		pmc_err_set(err, errlen, "%s: out of memory", path);
	/* The path and whatever an importer quoted: shown escaped (pmc_quote()). */
	if (r < 0)
		pmc_err_escape(err, errlen);
	free(text);
	free(head);
	fclose(f);
	return r;
}

/* ---- Helpers of the importers ----------------------------------------------------- */

static int vfail(const struct pmc_importer *im, size_t line, size_t column, const char *fmt,
		 va_list ap) __attribute__((format(printf, 4, 0)));

static int vfail(const struct pmc_importer *im, size_t line, size_t column, const char *fmt,
		 va_list ap)
{
	int n;

	if (!im->err || im->errlen == 0)
		return -EINVAL;
	if (line && column)
		n = snprintf(im->err, im->errlen, "%s:%zu:%zu: ", im->file, line, column);
	else if (line)
		n = snprintf(im->err, im->errlen, "%s:%zu: ", im->file, line);
	else
		n = snprintf(im->err, im->errlen, "%s: ", im->file);
	if (n >= 0 && (size_t)n < im->errlen)
		vsnprintf(im->err + n, im->errlen - (size_t)n, fmt, ap);
	/* One line: text quoted from the file may hold control characters. */
	pmc_err_escape(im->err, im->errlen);
	return -EINVAL;
}

int pmc_import_fail(const struct pmc_importer *im, size_t line, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfail(im, line, 0, fmt, ap);
	va_end(ap);
	return r;
}

int pmc_import_fail_at(const struct pmc_importer *im, size_t line, size_t column, const char *fmt,
		       ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfail(im, line, column, fmt, ap);
	va_end(ap);
	return r;
}

int pmc_import_result_new(const char *backend, enum pmc_import_format f, struct pmc_result **ret)
{
	struct pmc_result *r = NULL;

	if (pmc_result_new(backend, &r) < 0)
		return -ENOMEM;
	/* Neither the time of the measurement nor a pmcbench version is known: "created"
	 * would be the time of the import, and compare would read it as the measurement's. */
	free(r->created);
	r->created = NULL;
	free(r->tool_version);
	r->tool_version = NULL;
	if (pmc_result_set_env(r, PMC_IMPORT_ENV_KEY, pmc_import_format_id(f)) < 0) {
		pmc_result_free(r);
		return -ENOMEM;
	}
	*ret = r;
	return 0;
}

int pmc_import_sample(struct pmc_benchmark *b, const char *id, const char *unit, int better,
		      size_t run, double v)
{
	struct pmc_metric *m = pmc_benchmark_find_metric(b, id);
	const struct pmc_metric_info *info;
	int r;

	if (!m) {
		r = pmc_benchmark_metric(b, id, &m);
		if (r < 0)
			return r;
		if (pmc_metric_info_lookup(id, &info) < 0) {
			char *u = strdup(unit);

			if (!u)
				return -ENOMEM;
			free(m->unit);
			m->unit = u;
			m->better = better;
		}
	}
	if (m->n > run)
		return -EEXIST;
	while (m->n < run)
		if ((r = pmc_metric_add_missing(m)) < 0)
			return r;
	return isnan(v) ? pmc_metric_add_missing(m) : pmc_metric_add_value(m, v);
}

int pmc_import_pad(struct pmc_result *r)
{
	for (size_t i = 0; i < r->nbench; i++) {
		struct pmc_benchmark *b = &r->benchmarks[i];

		for (size_t k = 0; k < b->nmetrics; k++)
			while (b->metrics[k].n < b->nruns)
				if (pmc_metric_add_missing(&b->metrics[k]) < 0)
					return -ENOMEM;
	}
	return 0;
}

bool pmc_import_number(const char *s, size_t len, double *ret)
{
	char buf[64], *end;
	bool digits = false;
	double v;

	if (len == 0 || len >= sizeof(buf))
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (isdigit((unsigned char)c))
			digits = true;
		else if (c != '.' && c != '-' && c != '+' && c != 'e' && c != 'E')
			return false;
	}
	if (!digits)
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtod(buf, &end);
	if (end != buf + len || errno == ERANGE || !isfinite(v))
		return false;
	*ret = v;
	return true;
}

bool pmc_lines_next(struct pmc_lines *it, const char **ret_line, size_t *ret_len)
{
	const char *nl;
	size_t len;

	if (it->p >= it->end)
		return false;
	nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
	len = nl ? (size_t)(nl - it->p) : (size_t)(it->end - it->p);
	*ret_line = it->p;
	if (len > 0 && it->p[len - 1] == '\r')
		len--;
	*ret_len = len;
	it->p = nl ? nl + 1 : it->end;
	it->lineno++;
	return true;
}

double pmc_import_ns_per(const char *unit, size_t len)
{
	const struct pmc_scale *s = pmc_scale_find(unit, len, PMC_SCALE_IMPORT);

	return s ? s->factor : 0;
}

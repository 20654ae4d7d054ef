/* The result model (result.h) and its JSON file, schema pmcbench-result/1
 * (docs/result-schema.md).
 *
 * Reading and writing use a small streaming JSON reader and writer of our own rather
 * than jansson's tree: a result of 10,000 benchmarks x 10 metrics x 10 runs with raw
 * readings took jansson 4.8 s and 845 MB to load (its lexer runs at about 40 MB/s and
 * each value costs a heap object), against a target of 0.5 s and 200 MB for loading
 * two of them. The reader validates as it goes, so every error, syntax or schema, comes
 * with a line and column. The tests check both directions against jansson. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "metrics.h"
#include "result.h"

#define REGEN "regenerate the file with pmcbench run"

struct pmc_result_priv {
	struct pmc_benchmark *bench_array; /* the array bench_cap describes */
	size_t bench_cap;
	size_t *slots;	/* benchmark index + 1 by name hash; 0 marks a free slot */
	size_t mask;	/* slots has mask + 1 entries, a power of two */
	size_t indexed; /* benchmarks in the index; it is stale when != nbench */
};

/* ---- The model ------------------------------------------------------------------ */

static void metric_clear(struct pmc_metric *m)
{
	free(m->id);
	free(m->unit);
	free(m->values);
	free(m->status);
	free(m->raw);
	free(m->note);
}

static void benchmark_clear(struct pmc_benchmark *b)
{
	free(b->name);
	free(b->command);
	free(b->build_id);
	free(b->runs);
	for (size_t i = 0; i < b->nmetrics; i++)
		metric_clear(&b->metrics[i]);
	free(b->metrics);
}

void pmc_result_free(struct pmc_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nbench; i++)
		benchmark_clear(&r->benchmarks[i]);
	free(r->benchmarks);
	for (size_t i = 0; i < r->nenv; i++) {
		free(r->env[i].key);
		free(r->env[i].value);
	}
	free(r->env);
	free(r->backend);
	free(r->tool_version);
	free(r->created);
	if (r->priv)
		free(r->priv->slots);
	free(r->priv);
	free(r);
}

static char *now_iso8601(void)
{
	char buf[32];
	time_t t = time(NULL);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		return NULL;
	return strdup(buf);
}

struct pmc_result *pmc_result_new(const char *backend)
{
	struct pmc_result *r;

	if (!backend || !*backend) {
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->priv = calloc(1, sizeof(*r->priv));
	r->backend = strdup(backend);
	r->tool_version = strdup(PMC_VERSION);
	r->created = now_iso8601();
	if (!r->priv || !r->backend || !r->tool_version || !r->created) {
		pmc_result_free(r);
		errno = ENOMEM;
		return NULL;
	}
	return r;
}

int pmc_result_set_env(struct pmc_result *r, const char *key, const char *value)
{
	struct pmc_env_entry *env;
	char *v;

	if (!key || !*key || !value)
		return -EINVAL;
	v = strdup(value);
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < r->nenv; i++) {
		if (strcmp(r->env[i].key, key) == 0) {
			free(r->env[i].value);
			r->env[i].value = v;
			return 0;
		}
	}
	env = realloc(r->env, (r->nenv + 1) * sizeof(*env));
	if (!env)
		goto err_value;
	r->env = env;
	env[r->nenv].key = strdup(key);
	if (!env[r->nenv].key)
		goto err_value;
	env[r->nenv].value = v;
	r->nenv++;
	return 0;

err_value:
	free(v);
	return -ENOMEM;
}

const char *pmc_result_get_env(const struct pmc_result *r, const char *key)
{
	for (size_t i = 0; i < r->nenv; i++)
		if (strcmp(r->env[i].key, key) == 0)
			return r->env[i].value;
	return NULL;
}

/* FNV-1a: short benchmark names hash well and fast. */
static size_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return (size_t)h;
}

/* The slot holding name, or the free slot where it would go (open addressing). */
static size_t index_probe(const struct pmc_result_priv *pv, const struct pmc_benchmark *bench,
			  const char *name)
{
	size_t i = name_hash(name) & pv->mask;

	while (pv->slots[i] && strcmp(bench[pv->slots[i] - 1].name, name) != 0)
		i = (i + 1) & pv->mask;
	return i;
}

/* Brings the index up to the n benchmarks of bench. Returns 0, -ENOMEM, or -EEXIST with
 * *ret_dup set to the earlier of two benchmarks with the same name. */
static int index_update(struct pmc_result_priv *pv, const struct pmc_benchmark *bench, size_t n,
			size_t *ret_dup)
{
	if (!pv->slots || pv->indexed > n || (n + 1) * 2 > pv->mask + 1) {
		size_t cap = 16;
		size_t *slots;

		while (cap < (n + 1) * 2)
			cap *= 2;
		slots = calloc(cap, sizeof(*slots));
		if (!slots)
			return -ENOMEM;
		free(pv->slots);
		pv->slots = slots;
		pv->mask = cap - 1;
		pv->indexed = 0;
	}
	for (size_t k = pv->indexed; k < n; k++) {
		size_t s = index_probe(pv, bench, bench[k].name);

		if (pv->slots[s]) {
			*ret_dup = pv->slots[s] - 1;
			pv->indexed = k;
			return -EEXIST;
		}
		pv->slots[s] = k + 1;
	}
	pv->indexed = n;
	return 0;
}

struct pmc_benchmark *pmc_result_find_benchmark(const struct pmc_result *r, const char *name)
{
	const struct pmc_result_priv *pv = r->priv;

	if (!name)
		return NULL;
	if (pv && pv->slots && pv->indexed == r->nbench) {
		size_t s = index_probe(pv, r->benchmarks, name);

		return pv->slots[s] ? &r->benchmarks[pv->slots[s] - 1] : NULL;
	}
	/* A struct built by hand (or changed behind our back) has no index. */
	for (size_t i = 0; i < r->nbench; i++)
		if (strcmp(r->benchmarks[i].name, name) == 0)
			return &r->benchmarks[i];
	return NULL;
}

/* Makes room for one more benchmark, growing geometrically so that adding n of them
 * costs O(n). */
static int bench_reserve(struct pmc_result *r)
{
	struct pmc_result_priv *pv = r->priv;
	struct pmc_benchmark *b;
	size_t cap;

	if (pv->bench_array == r->benchmarks && r->benchmarks && r->nbench < pv->bench_cap)
		return 0;
	cap = r->nbench < 8 ? 16 : r->nbench * 2;
	b = realloc(r->benchmarks, cap * sizeof(*b));
	if (!b)
		return -ENOMEM;
	r->benchmarks = b;
	pv->bench_array = b;
	pv->bench_cap = cap;
	return 0;
}

struct pmc_benchmark *pmc_result_add_benchmark(struct pmc_result *r, const char *name,
					       const char *command)
{
	struct pmc_benchmark *b;
	size_t dup;
	int rc;

	if (!name || !*name) {
		errno = EINVAL;
		return NULL;
	}
	if (!r->priv) {
		r->priv = calloc(1, sizeof(*r->priv));
		if (!r->priv)
			return NULL;
	}
	rc = index_update(r->priv, r->benchmarks, r->nbench, &dup);
	if (rc == -ENOMEM)
		return NULL;
	if (pmc_result_find_benchmark(r, name)) {
		errno = EEXIST;
		return NULL;
	}
	if (bench_reserve(r) < 0) {
		errno = ENOMEM;
		return NULL;
	}
	b = &r->benchmarks[r->nbench];
	memset(b, 0, sizeof(*b));
	b->name = strdup(name);
	b->command = command ? strdup(command) : NULL;
	if (!b->name || (command && !b->command)) {
		benchmark_clear(b);
		errno = ENOMEM;
		return NULL;
	}
	r->nbench++;
	/* Out of memory here only leaves the index stale, and lookups linear. */
	index_update(r->priv, r->benchmarks, r->nbench, &dup);
	return b;
}

int pmc_benchmark_add_run(struct pmc_benchmark *b, const struct pmc_run_info *run)
{
	struct pmc_run_info *runs = realloc(b->runs, (b->nruns + 1) * sizeof(*runs));

	if (!runs)
		return -ENOMEM;
	b->runs = runs;
	runs[b->nruns++] = *run;
	return 0;
}

struct pmc_metric *pmc_benchmark_find_metric(const struct pmc_benchmark *b, const char *id)
{
	/* Linear: a benchmark has a handful of metrics. */
	for (size_t i = 0; i < b->nmetrics; i++)
		if (strcmp(b->metrics[i].id, id) == 0)
			return &b->metrics[i];
	return NULL;
}

struct pmc_metric *pmc_benchmark_metric(struct pmc_benchmark *b, const char *id)
{
	struct pmc_metric_info info;
	struct pmc_metric *m;

	if (!id || !*id) {
		errno = EINVAL;
		return NULL;
	}
	m = pmc_benchmark_find_metric(b, id);
	if (m)
		return m;
	m = realloc(b->metrics, (b->nmetrics + 1) * sizeof(*m));
	if (!m)
		return NULL;
	b->metrics = m;
	m = &b->metrics[b->nmetrics];
	memset(m, 0, sizeof(*m));
	info = pmc_metric_lookup(id);
	m->id = strdup(id);
	m->unit = strdup(info.unit);
	if (!m->id || !m->unit) {
		metric_clear(m);
		errno = ENOMEM;
		return NULL;
	}
	m->better = info.better;
	m->derived = info.derived;
	b->nmetrics++;
	return m;
}

static bool status_failed(enum pmc_status s)
{
	return s == PMC_STATUS_UNSUPPORTED || s == PMC_STATUS_DENIED;
}

int pmc_metric_append(struct pmc_metric *m, double value, const struct pmc_reading *reading)
{
	double *values;

	if (isinf(value))
		return -EINVAL;
	if (reading) {
		/* A number for a reading that holds none would be invented; NAN for one that
		 * holds one would lose it. */
		if (pmc_status_has_value(reading->status) == (bool)isnan(value))
			return -EINVAL;
		if (!m->has_status && m->n > 0)
			return -EINVAL;
	} else if (m->has_status) {
		return -EINVAL;
	}

	values = realloc(m->values, (m->n + 1) * sizeof(*values));
	if (!values)
		return -ENOMEM;
	m->values = values;
	if (reading) {
		enum pmc_status *status = realloc(m->status, (m->n + 1) * sizeof(*status));
		struct pmc_run_raw *raw;

		if (!status)
			return -ENOMEM;
		m->status = status;
		raw = realloc(m->raw, (m->n + 1) * sizeof(*raw));
		if (!raw)
			return -ENOMEM;
		m->raw = raw;
		status[m->n] = reading->status;
		raw[m->n] = (struct pmc_run_raw){
		    .value = reading->value,
		    .enabled = reading->enabled,
		    .running = reading->running,
		};
		/* The metric's errno stands for every run: it survives only while every run
		 * failed with the same one. */
		if (m->n == 0)
			m->error = status_failed(reading->status) ? reading->error : 0;
		else if (!status_failed(reading->status) || reading->error != m->error)
			m->error = 0;
		m->has_status = true;
	}
	values[m->n++] = value;
	return 0;
}

int pmc_metric_set_note(struct pmc_metric *m, const char *note)
{
	char *copy = NULL;

	if (note) {
		copy = strdup(note);
		if (!copy)
			return -ENOMEM;
	}
	free(m->note);
	m->note = copy;
	return 0;
}

size_t pmc_metric_present(const struct pmc_metric *m, double *out)
{
	size_t k = 0;

	for (size_t i = 0; i < m->n; i++)
		if (!isnan(m->values[i]))
			out[k++] = m->values[i];
	return k;
}

/* ---- Shared helpers ------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (RFC 3629: no overlong forms, no surrogates,
 * nothing above U+10FFFF), or 0 when it is not one. s is NUL-terminated. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned char lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;

		return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned char lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;

		return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 && (s[3] & 0xc0) == 0x80
			   ? 4
			   : 0;
	}
	return 0;
}

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* What kind of quantity a unit measures, for error messages. */
static const char *quantity_of(const char *unit)
{
	if (strcmp(unit, "count") == 0)
		return "count";
	if (strcmp(unit, "ns") == 0)
		return "time";
	if (strcmp(unit, "bytes") == 0)
		return "size";
	return "value";
}

/* ---- Checking a result before writing it -------------------------------------- */

/* The rules the reader enforces, applied before writing, so that everything saved loads
 * back, and a runner's mistake is reported where it happens rather than by the next
 * compare. */
static int result_check(const struct pmc_result *r, char *err, size_t errlen)
{
	if (!r->backend || !*r->backend) {
		set_err(err, errlen, "the result has no backend");
		return -EINVAL;
	}
	for (size_t i = 0; i < r->nbench; i++) {
		const struct pmc_benchmark *b = &r->benchmarks[i];

		if (!b->name || !*b->name) {
			set_err(err, errlen, "benchmark %zu has no name", i);
			return -EINVAL;
		}
		if (pmc_result_find_benchmark(r, b->name) != b) {
			set_err(err, errlen,
				"two benchmarks are named \"%s\"; names must be unique", b->name);
			return -EINVAL;
		}
		for (size_t k = 0; k < b->nruns; k++) {
			const struct pmc_run_info *run = &b->runs[k];

			if (run->exit_code < -1 || run->exit_code > 255 || run->term_signal < 0 ||
			    run->term_signal > 127 || (run->term_signal && run->exit_code != -1)) {
				set_err(err, errlen,
					"benchmark \"%s\": run %zu has exit code %d and signal %d; "
					"a run killed by a signal has exit code -1",
					b->name, k, run->exit_code, run->term_signal);
				return -EINVAL;
			}
		}
		for (size_t j = 0; j < b->nmetrics; j++) {
			const struct pmc_metric *m = &b->metrics[j];

			if (!m->id || !*m->id || !m->unit || !*m->unit ||
			    (m->better != PMC_LOWER_IS_BETTER &&
			     m->better != PMC_HIGHER_IS_BETTER)) {
				set_err(err, errlen,
					"benchmark \"%s\": metric %zu lacks an id, a unit or a "
					"direction",
					b->name, j);
				return -EINVAL;
			}
			if (pmc_benchmark_find_metric(b, m->id) != m) {
				set_err(err, errlen,
					"benchmark \"%s\": metric \"%s\" appears twice", b->name,
					m->id);
				return -EINVAL;
			}
			if (m->n != b->nruns) {
				set_err(
				    err, errlen,
				    "benchmark \"%s\": metric \"%s\" has %zu samples for %zu runs; "
				    "record one sample per run (NAN when not measured)",
				    b->name, m->id, m->n, b->nruns);
				return -EINVAL;
			}
			for (size_t k = 0; k < m->n; k++) {
				double v = m->values[k];

				if (isinf(v) || (!m->derived && v < 0)) {
					set_err(err, errlen,
						"benchmark \"%s\": metric \"%s\": run %zu has the "
						"%s %g",
						b->name, m->id, k, quantity_of(m->unit), v);
					return -EINVAL;
				}
				if (!m->has_status)
					continue;
				if ((unsigned)m->status[k] > PMC_STATUS_EXACT ||
				    pmc_status_has_value(m->status[k]) == (bool)isnan(v) ||
				    m->raw[k].running > m->raw[k].enabled) {
					set_err(
					    err, errlen,
					    "benchmark \"%s\": metric \"%s\": run %zu: the value, "
					    "status and raw reading disagree",
					    b->name, m->id, k);
					return -EINVAL;
				}
			}
		}
	}
	return 0;
}

/* ---- Writing -------------------------------------------------------------------- */

static void put_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	putc('"', f);
	while (*p) {
		unsigned char c = *p;
		size_t n;

		if (c == '"' || c == '\\') {
			putc('\\', f);
			putc(c, f);
			p++;
		} else if (c < 0x20) {
			switch (c) {
			case '\n':
				fputs("\\n", f);
				break;
			case '\t':
				fputs("\\t", f);
				break;
			case '\r':
				fputs("\\r", f);
				break;
			default:
				fprintf(f, "\\u%04x", c);
			}
			p++;
		} else if ((n = utf8_len(p)) > 0) {
			fwrite(p, 1, n, f);
			p += n;
		} else {
			/* JSON text is UTF-8: a stray byte (a Latin-1 file name in a command,
			 * say) becomes U+FFFD rather than making the file unreadable. */
			fputs("\xef\xbf\xbd", f);
			p++;
		}
	}
	putc('"', f);
}

static void put_string_or_null(FILE *f, const char *s)
{
	if (s)
		put_string(f, s);
	else
		fputs("null", f);
}

/* The shortest decimal that reads back as the same double; null when not finite.
 * Runs under the C locale (see emit_result). */
static void put_double(FILE *f, double v)
{
	int saved = errno; /* strtod's ERANGE must not hide why a write failed */
	char buf[40];

	if (!isfinite(v)) {
		fputs("null", f);
		return;
	}
	/* Whole numbers (counts, ns) print exactly without an exponent up to 2^63. */
	if (v == floor(v) && fabs(v) < 9.2e18) {
		fprintf(f, "%.0f", v);
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	errno = saved;
	fputs(buf, f);
}

static void put_bool(FILE *f, bool b)
{
	fputs(b ? "true" : "false", f);
}

static void put_metric(FILE *f, const struct pmc_metric *m)
{
	const char *in = "          ";

	fputs("        ", f);
	put_string(f, m->id);
	fprintf(f, ": {\n%s\"unit\": ", in);
	put_string(f, m->unit);
	fprintf(f, ",\n%s\"better\": \"%s\"", in,
		m->better == PMC_HIGHER_IS_BETTER ? "higher" : "lower");
	fprintf(f, ",\n%s\"derived\": ", in);
	put_bool(f, m->derived);
	fprintf(f, ",\n%s\"simulated\": ", in);
	put_bool(f, m->simulated);
	fprintf(f, ",\n%s\"cross_group\": ", in);
	put_bool(f, m->cross_group);
	if (m->error) {
		const char *name = strerrorname_np(m->error);

		fprintf(f, ",\n%s\"error\": ", in);
		if (name)
			put_string(f, name);
		else
			fprintf(f, "%d", m->error);
	}
	if (m->note) {
		fprintf(f, ",\n%s\"note\": ", in);
		put_string(f, m->note);
	}

	fprintf(f, ",\n%s\"samples\": [", in);
	for (size_t i = 0; i < m->n; i++) {
		if (i)
			fputs(", ", f);
		put_double(f, m->values[i]);
	}
	fputc(']', f);
	if (m->has_status) {
		fprintf(f, ",\n%s\"status\": [", in);
		for (size_t i = 0; i < m->n; i++)
			fprintf(f, "%s\"%s\"", i ? ", " : "", pmc_status_name(m->status[i]));
		fprintf(f, "],\n%s\"raw\": [", in);
		for (size_t i = 0; i < m->n; i++) {
			const struct pmc_run_raw *raw = &m->raw[i];

			if (i)
				fputs(", ", f);
			/* Nothing was read from an event that did not open, and a simulator
			 * has no times: null, never a made-up 0. */
			if (status_failed(m->status[i]))
				fputs("null", f);
			else if (m->status[i] == PMC_STATUS_EXACT)
				fprintf(f, "[%" PRIu64 ", null, null]", raw->value);
			else
				fprintf(f, "[%" PRIu64 ", %" PRIu64 ", %" PRIu64 "]", raw->value,
					raw->enabled, raw->running);
		}
		fprintf(f, "],\n%s\"running_fraction\": [", in);
		for (size_t i = 0; i < m->n; i++) {
			const struct pmc_run_raw *raw = &m->raw[i];

			if (i)
				fputs(", ", f);
			if (status_failed(m->status[i]) || m->status[i] == PMC_STATUS_EXACT ||
			    raw->enabled == 0)
				fputs("null", f);
			else
				put_double(f, (double)raw->running / (double)raw->enabled);
		}
		fputc(']', f);
	}
	fputs("\n        }", f);
}

static void put_benchmark(FILE *f, const struct pmc_benchmark *b)
{
	fputs("    {\n      \"name\": ", f);
	put_string(f, b->name);
	fputs(",\n      \"command\": ", f);
	put_string_or_null(f, b->command);
	fputs(",\n      \"build_id\": ", f);
	put_string_or_null(f, b->build_id);
	fputs(",\n      \"runs\": [", f);
	for (size_t i = 0; i < b->nruns; i++) {
		const struct pmc_run_info *run = &b->runs[i];

		fprintf(f, "%s\n        {\"exit_code\": %d, \"signal\": %d, \"timed_out\": %s}",
			i ? "," : "", run->exit_code, run->term_signal,
			run->timed_out ? "true" : "false");
	}
	fputs(b->nruns ? "\n      ],\n" : "],\n", f);
	fputs("      \"metrics\": {", f);
	for (size_t i = 0; i < b->nmetrics; i++) {
		fputs(i ? ",\n" : "\n", f);
		put_metric(f, &b->metrics[i]);
	}
	fputs(b->nmetrics ? "\n      }\n    }" : "}\n    }", f);
}

/* Writes the JSON text. Numbers are formatted in the C locale, whatever LC_NUMERIC the
 * program set, since JSON's decimal point is '.'. Returns 0 or -errno. */
static int emit_result(FILE *f, const struct pmc_result *r)
{
	locale_t c, old;

	c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (!c)
		return -ENOMEM;
	old = uselocale(c);

	fprintf(f, "{\n  \"schema\": \"%s\",\n  \"tool\": {\"name\": \"pmcbench\", \"version\": ",
		PMC_RESULT_SCHEMA);
	put_string_or_null(f, r->tool_version);
	fputs("},\n  \"created\": ", f);
	put_string_or_null(f, r->created);
	fputs(",\n  \"backend\": ", f);
	put_string(f, r->backend);
	fputs(",\n  \"environment\": {", f);
	for (size_t i = 0; i < r->nenv; i++) {
		fputs(i ? ",\n    " : "\n    ", f);
		put_string(f, r->env[i].key);
		fputs(": ", f);
		put_string(f, r->env[i].value);
	}
	fputs(r->nenv ? "\n  },\n" : "},\n", f);
	fputs("  \"benchmarks\": [", f);
	/* Stop at the first failed write (a full disk): errno still says why. */
	for (size_t i = 0; i < r->nbench && !ferror(f); i++) {
		fputs(i ? ",\n" : "\n", f);
		put_benchmark(f, &r->benchmarks[i]);
	}
	fputs(r->nbench ? "\n  ]\n}\n" : "]\n}\n", f);

	uselocale(old);
	freelocale(c);
	return 0;
}

char *pmc_result_dumps(const struct pmc_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	rc = result_check(r, NULL, 0);
	if (rc < 0) {
		errno = -rc;
		return NULL;
	}
	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	rc = emit_result(f, r);
	if (fclose(f) != 0 || rc < 0) {
		free(buf);
		errno = rc < 0 ? -rc : ENOMEM;
		return NULL;
	}
	return buf;
}

/* The mode a new file gets: the old file's when replacing one, else 0666 minus the
 * umask, as open(O_CREAT) would give (mkstemp always creates 0600). Reading the umask
 * means setting it back, which is fine for the single-threaded CLI. */
static mode_t target_mode(const char *path)
{
	struct stat st;
	mode_t mask;

	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		return st.st_mode & 07777;
	mask = umask(022);
	umask(mask);
	return 0666 & ~mask;
}

int pmc_result_save(const struct pmc_result *r, const char *path, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	char *dir = NULL, *tmp = NULL;
	FILE *f = NULL;
	int fd = -1, dfd, rc;

	rc = result_check(r, err, errlen);
	if (rc < 0) {
		/* Prefix the file name to the checker's message. */
		char msg[512];

		snprintf(msg, sizeof(msg), "%s", err ? err : "");
		set_err(err, errlen, "cannot write %s: %s", path, msg);
		return rc;
	}
	if (!*path || (slash && slash[1] == '\0')) {
		set_err(err, errlen, "cannot write \"%s\": not a file name", path);
		return -EINVAL;
	}
	if (slash)
		dir = slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
	else
		dir = strdup(".");
	if (!dir || asprintf(&tmp, "%s/.%s.XXXXXX", dir, slash ? slash + 1 : path) < 0) {
		tmp = NULL;
		rc = -ENOMEM;
		set_err(err, errlen, "cannot write %s: out of memory", path);
		goto out;
	}

	/* The temporary file lives in the target's directory so that rename() replaces the
	 * old file in one step: readers see the old file or the new one, never a part. */
	fd = mkstemp(tmp);
	if (fd < 0) {
		rc = -errno;
		set_err(err, errlen,
			"cannot write %s: cannot create a file in %s: %s; check that the directory "
			"exists and is writable",
			path, dir, strerror(errno));
		goto out;
	}
	if (fchmod(fd, target_mode(path)) < 0)
		goto err_write;
	f = fdopen(fd, "w");
	if (!f)
		goto err_write;
	fd = -1;
	errno = 0;
	rc = emit_result(f, r);
	if (rc < 0) {
		errno = -rc;
		goto err_write;
	}
	if (fflush(f) != 0 || ferror(f))
		goto err_write;
	if (fsync(fileno(f)) < 0)
		goto err_write;
	rc = fclose(f);
	f = NULL;
	if (rc != 0)
		goto err_write;
	if (rename(tmp, path) < 0)
		goto err_write;
	free(tmp);
	tmp = NULL;

	/* Make the rename itself durable. Some file systems cannot sync a directory
	 * (EINVAL); the file is in place either way. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		if (fsync(dfd) < 0 && errno != EINVAL && errno != ENOTSUP) {
			rc = -errno;
			set_err(err, errlen, "wrote %s, but syncing %s failed: %s", path, dir,
				strerror(errno));
			close(dfd);
			goto out;
		}
		close(dfd);
	}
	rc = 0;
	goto out;

err_write:
	rc = errno ? -errno : -EIO;
	set_err(err, errlen, "cannot write %s: %s; the previous file is unchanged", path,
		strerror(-rc));
out:
	if (f)
		fclose(f);
	if (fd >= 0)
		close(fd);
	if (tmp)
		unlink(tmp);
	free(tmp);
	free(dir);
	return rc;
}

/* ---- Reading: a streaming JSON reader ------------------------------------------- */

#define JR_PATH_DEPTH 8
#define JR_MAX_NESTING 128

struct jr_seg {
	char key[48];
	size_t index;
	bool is_index;
};

/* The text kept in memory while reading a large file, in bytes. */
#define RESULT_WINDOW (4u << 20)

struct jr {
	const char *file;
	const char *buf, *p, *end; /* *end is NUL */
	char *mem;		   /* the buffer buf points into */
	size_t cap;		   /* its size */
	int fd;
	bool windowed, eof;
	char *err;
	size_t errlen;
	locale_t cloc;
	char *s; /* the last string read, NUL-terminated */
	size_t slen, scap;
	const char *key_at; /* where the last object key started */
	struct jr_seg seg[JR_PATH_DEPTH];
	unsigned depth;
};

struct jnum {
	double d;
	uint64_t u;
	bool is_uint; /* a non-negative integer that fits in 64 bits, in u */
};

static void jr_push_key(struct jr *r, const char *key)
{
	if (r->depth < JR_PATH_DEPTH) {
		struct jr_seg *s = &r->seg[r->depth];
		size_t len = strlen(key);

		if (len < sizeof(s->key)) {
			memcpy(s->key, key, len + 1);
		} else {
			memcpy(s->key, key, sizeof(s->key) - 4);
			strcpy(s->key + sizeof(s->key) - 4, "...");
		}
		s->is_index = false;
	}
	r->depth++;
}

static void jr_push_index(struct jr *r)
{
	if (r->depth < JR_PATH_DEPTH) {
		r->seg[r->depth].index = 0;
		r->seg[r->depth].is_index = true;
	}
	r->depth++;
}

static void jr_set_index(struct jr *r, size_t i)
{
	if (r->depth - 1 < JR_PATH_DEPTH)
		r->seg[r->depth - 1].index = i;
}

static void jr_pop(struct jr *r)
{
	r->depth--;
}

/* Fills buf[len..cap-1) from fd until it is full or the file ends; NUL-terminates. */
static int fill(int fd, char *buf, size_t cap, size_t *len, bool *eof)
{
	while (*len + 1 < cap) {
		ssize_t n = read(fd, buf + *len, cap - *len - 1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0) {
			*eof = true;
			break;
		}
		*len += (size_t)n;
	}
	buf[*len] = '\0';
	return 0;
}

/* Reads the rest of the file after the len bytes in *buf, growing it; a pipe
 * (pmcbench compare <(...) new.json) works too. */
static int read_all(int fd, char **buf, size_t *cap, size_t *len)
{
	bool eof = false;
	int rc;

	for (;;) {
		rc = fill(fd, *buf, *cap, len, &eof);
		if (rc < 0 || eof)
			return rc;
		char *nb = realloc(*buf, *cap * 2);

		if (!nb)
			return -ENOMEM;
		*buf = nb;
		*cap *= 2;
	}
}

/* In windowed mode, called between benchmarks: drops what was parsed and reads on, so
 * that at least half a window of text follows the cursor (unless the file ends first). */
static int jr_refill(struct jr *r)
{
	size_t keep, len;
	int rc;

	if (!r->windowed || r->eof || (size_t)(r->end - r->p) >= r->cap / 2)
		return 0;
	keep = (size_t)(r->end - r->p);
	memmove(r->mem, r->p, keep);
	len = keep;
	rc = fill(r->fd, r->mem, r->cap, &len, &r->eof);
	r->buf = r->p = r->mem;
	r->end = r->mem + len;
	return rc;
}

/* Reports the first error as "<file>:<line>:<col>: <path>: <message>". */
static int jr_fail(struct jr *r, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int jr_fail(struct jr *r, const char *at, const char *fmt, ...)
{
	size_t line = 1, col = 1, off;
	char path[256];
	va_list ap;

	/* Positions in a window are not positions in the file: read it whole and retry. */
	if (r->windowed)
		return -EAGAIN;
	if (!r->err || r->errlen == 0)
		return -EINVAL;
	for (const char *q = r->buf; q < at; q++) {
		if (*q == '\n') {
			line++;
			col = 1;
		} else if ((*q & 0xc0) != 0x80) { /* count characters, not UTF-8 bytes */
			col++;
		}
	}
	path[0] = '\0';
	off = 0;
	for (unsigned i = 0; i < r->depth && i < JR_PATH_DEPTH && off < sizeof(path); i++) {
		const struct jr_seg *s = &r->seg[i];
		int n;

		if (s->is_index)
			n = snprintf(path + off, sizeof(path) - off, "[%zu]", s->index);
		else
			n = snprintf(path + off, sizeof(path) - off, "%s%s", i ? "." : "", s->key);
		if (n > 0)
			off += (size_t)n;
	}
	off = (size_t)snprintf(r->err, r->errlen, "%s:%zu:%zu: %s%s", r->file, line, col, path,
			       path[0] ? ": " : "");
	if (off < r->errlen) {
		va_start(ap, fmt);
		vsnprintf(r->err + off, r->errlen - off, fmt, ap);
		va_end(ap);
	}
	r->errlen = 0; /* keep the first error */
	return -EINVAL;
}

static void jr_ws(struct jr *r)
{
	while (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r')
		r->p++;
}

/* True when s starts with lit; stops at the first difference, so never reads past the
 * NUL that ends the buffer. */
static bool starts_with(const char *s, const char *lit)
{
	for (; *lit; s++, lit++)
		if (*s != *lit)
			return false;
	return true;
}

/* Describes what is at the cursor, for "expected X, found Y". */
static const char *jr_found(const struct jr *r, char *buf, size_t len)
{
	unsigned char c = (unsigned char)*r->p;

	if (r->p >= r->end)
		return "the end of the file";
	switch (c) {
	case '{':
		return "an object";
	case '[':
		return "an array";
	case '"':
		return "a string";
	case 't':
	case 'f':
		if (starts_with(r->p, "true") || starts_with(r->p, "false"))
			return "a boolean";
		break;
	case 'n':
		if (starts_with(r->p, "null"))
			return "null";
		break;
	default:
		if (c == '-' || (c >= '0' && c <= '9'))
			return "a number";
	}
	if (c >= 0x20 && c < 0x7f)
		snprintf(buf, len, "'%c'", c);
	else
		snprintf(buf, len, "byte 0x%02x", c);
	return buf;
}

/* Something other than what the grammar allows here. */
static int jr_syntax(struct jr *r, const char *expected)
{
	char buf[16];

	if (r->p >= r->end)
		return jr_fail(
		    r, r->p, "unexpected end of file, expected %s; the file is truncated — " REGEN,
		    expected);
	return jr_fail(r, r->p, "expected %s, found %s; the file is not valid JSON — " REGEN,
		       expected, jr_found(r, buf, sizeof(buf)));
}

/* Valid JSON, but the wrong type of value for the schema. */
static int jr_type(struct jr *r, const char *expected)
{
	char buf[16];

	if (r->p >= r->end)
		return jr_syntax(r, expected);
	return jr_fail(r, r->p, "expected %s, found %s; " REGEN, expected,
		       jr_found(r, buf, sizeof(buf)));
}

static int jr_append(struct jr *r, const char *src, size_t n)
{
	if (r->slen + n + 1 > r->scap) {
		size_t cap = r->scap ? r->scap : 64;
		char *s;

		while (cap < r->slen + n + 1)
			cap *= 2;
		s = realloc(r->s, cap);
		if (!s)
			return -ENOMEM;
		r->s = s;
		r->scap = cap;
	}
	memcpy(r->s + r->slen, src, n);
	r->slen += n;
	return 0;
}

static int hex4(const char *p, unsigned *ret)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -EINVAL;
	}
	*ret = v;
	return 0;
}

/* Reads the string at the cursor into r->s. */
static int jr_string(struct jr *r)
{
	const char *start = r->p;
	const char *q = r->p + 1;
	int rc;

	if (*r->p != '"')
		return jr_type(r, "a string");
	r->slen = 0;
	for (;;) {
		const char *run = q;
		unsigned char c;

		while ((unsigned char)*q >= 0x20 && (unsigned char)*q < 0x80 && *q != '"' &&
		       *q != '\\')
			q++;
		if (q > run && (rc = jr_append(r, run, (size_t)(q - run))) < 0)
			return rc;
		c = (unsigned char)*q;
		if (c == '"') {
			q++;
			break;
		}
		if (q >= r->end) {
			r->p = q;
			return jr_fail(r, start,
				       "unterminated string; the file is truncated — " REGEN);
		}
		if (c == '\\') {
			static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
			const char *e = q[1] ? strchr(from, q[1]) : NULL;
			unsigned cp, lo;
			char u8[4];
			size_t n;

			if (e) {
				if ((rc = jr_append(r, &to[e - from], 1)) < 0)
					return rc;
				q += 2;
				continue;
			}
			if (q[1] != 'u' || hex4(q + 2, &cp) < 0)
				return jr_fail(r, q, "invalid escape in a string; " REGEN);
			q += 6;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (q[0] != '\\' || q[1] != 'u' || hex4(q + 2, &lo) < 0 ||
				    lo < 0xdc00 || lo > 0xdfff)
					return jr_fail(
					    r, q - 6,
					    "unpaired UTF-16 surrogate in a string; " REGEN);
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				q += 6;
			} else if (cp >= 0xdc00 && cp <= 0xdfff) {
				return jr_fail(r, q - 6,
					       "unpaired UTF-16 surrogate in a string; " REGEN);
			} else if (cp == 0) {
				return jr_fail(r, q - 6,
					       "NUL character (\\u0000) in a string; " REGEN);
			}
			if (cp < 0x80) {
				u8[0] = (char)cp;
				n = 1;
			} else if (cp < 0x800) {
				u8[0] = (char)(0xc0 | (cp >> 6));
				u8[1] = (char)(0x80 | (cp & 0x3f));
				n = 2;
			} else if (cp < 0x10000) {
				u8[0] = (char)(0xe0 | (cp >> 12));
				u8[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
				u8[2] = (char)(0x80 | (cp & 0x3f));
				n = 3;
			} else {
				u8[0] = (char)(0xf0 | (cp >> 18));
				u8[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
				u8[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
				u8[3] = (char)(0x80 | (cp & 0x3f));
				n = 4;
			}
			if ((rc = jr_append(r, u8, n)) < 0)
				return rc;
			continue;
		}
		if (c < 0x20)
			return jr_fail(r, q, "control character 0x%02x in a string; " REGEN, c);
		/* Bytes of the buffer past end are NUL, so utf8_len never reads beyond it. */
		rc = (int)utf8_len((const unsigned char *)q);
		if (rc == 0)
			return jr_fail(r, q, "invalid UTF-8 in a string; " REGEN);
		if ((rc = jr_append(r, q, (size_t)rc)) < 0)
			return rc;
		q += utf8_len((const unsigned char *)q);
	}
	r->s[r->slen] = '\0';
	r->p = q;
	return 0;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Reads the number at the cursor (RFC 8259 grammar). Integers are converted exactly;
 * the rest by strtod in the C locale, which rounds correctly. */
static int jr_number(struct jr *r, struct jnum *ret)
{
	const char *start = r->p, *q = r->p;
	bool neg = false, ovf = false, plain = true;
	uint64_t u = 0;

	if (*q == '-') {
		neg = true;
		q++;
	}
	if (!is_digit(*q)) {
		r->p = q;
		return jr_syntax(r, "a digit");
	}
	if (*q == '0') {
		q++;
		if (is_digit(*q))
			return jr_fail(r, start, "a number with a leading zero; " REGEN);
	} else {
		const char *d = q;

		/* 19 digits always fit in 64 bits, a 20th may; longer integers go through
		 * strtod. */
		for (; is_digit(*q) && q - d < 19; q++)
			u = u * 10 + (uint64_t)(*q - '0');
		if (is_digit(*q)) {
			unsigned last = (unsigned)(*q++ - '0');

			if (u <= (UINT64_MAX - last) / 10)
				u = u * 10 + last;
			else
				ovf = true;
			for (; is_digit(*q); q++)
				ovf = true;
		}
	}
	if (*q == '.') {
		q++;
		plain = false;
		if (!is_digit(*q)) {
			r->p = q;
			return jr_syntax(r, "a digit after the decimal point");
		}
		while (is_digit(*q))
			q++;
	}
	if (*q == 'e' || *q == 'E') {
		q++;
		plain = false;
		if (*q == '+' || *q == '-')
			q++;
		if (!is_digit(*q)) {
			r->p = q;
			return jr_syntax(r, "a digit in the exponent");
		}
		while (is_digit(*q))
			q++;
	}
	if (plain && !ovf) {
		ret->u = u;
		ret->is_uint = !neg;
		ret->d = neg ? -(double)u : (double)u;
	} else {
		char *e;

		ret->is_uint = false;
		ret->d = strtod_l(start, &e, r->cloc);
		if (e != q || isinf(ret->d))
			return jr_fail(r, start, "number out of range; " REGEN);
	}
	r->p = q;
	return 0;
}

static int jr_literal(struct jr *r, const char *lit)
{
	size_t n = strlen(lit);

	if (!starts_with(r->p, lit) || (r->p[n] >= 'a' && r->p[n] <= 'z'))
		return jr_syntax(r, "a value");
	r->p += n;
	return 0;
}

static int jr_object_begin(struct jr *r)
{
	jr_ws(r);
	if (*r->p != '{')
		return jr_type(r, "an object");
	r->p++;
	return 0;
}

/* Steps to the next member of an object. Returns 1 with its key in r->s and the cursor
 * on its value, 0 after the closing brace, or -EINVAL. *i counts members. */
static int jr_object_next(struct jr *r, size_t *i)
{
	int rc;

	jr_ws(r);
	if (*r->p == '}') {
		r->p++;
		return 0;
	}
	if (*i > 0) {
		if (*r->p != ',')
			return jr_syntax(r, "',' or '}'");
		r->p++;
		jr_ws(r);
	}
	if (*r->p != '"')
		return jr_syntax(r, *i ? "a key" : "a key or '}'");
	r->key_at = r->p;
	if ((rc = jr_string(r)) < 0)
		return rc;
	jr_ws(r);
	if (*r->p != ':')
		return jr_syntax(r, "':'");
	r->p++;
	jr_ws(r);
	(*i)++;
	return 1;
}

static int jr_array_begin(struct jr *r)
{
	jr_ws(r);
	if (*r->p != '[')
		return jr_type(r, "an array");
	r->p++;
	return 0;
}

/* Steps to the next element of an array: 1 with the cursor on it, 0 after the closing
 * bracket, or -EINVAL. *i counts elements. */
static int jr_array_next(struct jr *r, size_t *i)
{
	jr_ws(r);
	if (*r->p == ']') {
		r->p++;
		return 0;
	}
	if (*i > 0) {
		if (*r->p != ',')
			return jr_syntax(r, "',' or ']'");
		r->p++;
		jr_ws(r);
	}
	(*i)++;
	return 1;
}

/* Skips one value of any type, checking its syntax (members this version ignores). */
static int jr_skip(struct jr *r, unsigned nesting)
{
	struct jnum num;
	size_t i = 0;
	int rc;

	if (nesting > JR_MAX_NESTING)
		return jr_fail(r, r->p, "values nested too deeply; " REGEN);
	jr_ws(r);
	switch (*r->p) {
	case '{':
		r->p++;
		while ((rc = jr_object_next(r, &i)) == 1)
			if ((rc = jr_skip(r, nesting + 1)) < 0)
				return rc;
		return rc;
	case '[':
		r->p++;
		while ((rc = jr_array_next(r, &i)) == 1)
			if ((rc = jr_skip(r, nesting + 1)) < 0)
				return rc;
		return rc;
	case '"':
		return jr_string(r);
	case 't':
		return jr_literal(r, "true");
	case 'f':
		return jr_literal(r, "false");
	case 'n':
		return jr_literal(r, "null");
	default:
		if (*r->p == '-' || is_digit(*r->p))
			return jr_number(r, &num);
		return jr_syntax(r, "a value");
	}
}

static bool jr_is_null(struct jr *r)
{
	return starts_with(r->p, "null");
}

/* A string (copied), or NULL for null when allow_null. */
static int jr_dup_string(struct jr *r, bool allow_null, char **ret)
{
	char *s;
	int rc;

	if (allow_null && jr_is_null(r)) {
		*ret = NULL;
		return jr_literal(r, "null");
	}
	if (*r->p != '"')
		return jr_type(r, allow_null ? "a string or null" : "a string");
	if ((rc = jr_string(r)) < 0)
		return rc;
	s = strdup(r->s);
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

static int jr_bool(struct jr *r, bool *ret)
{
	if (*r->p == 't') {
		*ret = true;
		return jr_literal(r, "true");
	}
	if (*r->p == 'f') {
		*ret = false;
		return jr_literal(r, "false");
	}
	return jr_type(r, "true or false");
}

static int jr_int(struct jr *r, long lo, long hi, long *ret)
{
	const char *at = r->p;
	struct jnum n;
	int rc;

	if (*r->p != '-' && !is_digit(*r->p))
		return jr_type(r, "an integer");
	if ((rc = jr_number(r, &n)) < 0)
		return rc;
	if (n.d != floor(n.d) || n.d < (double)lo || n.d > (double)hi)
		return jr_fail(r, at, "expected an integer from %ld to %ld, found %.17g; " REGEN,
			       lo, hi, n.d);
	*ret = (long)n.d;
	return 0;
}

/* Index of key in a NULL-terminated list of keys, or -1. */
static int key_index(const char *key, const char *const *keys)
{
	for (int i = 0; keys[i]; i++)
		if (keys[i][0] == key[0] && strcmp(keys[i], key) == 0)
			return i;
	return -1;
}

/* Marks a known key as seen; a second occurrence is an error, since a reader could not
 * tell which one the writer meant. */
static int jr_seen(struct jr *r, int k, unsigned *seen)
{
	if (k < 0)
		return 0;
	if (*seen & (1u << k))
		return jr_fail(r, r->key_at, "duplicate key \"%s\"; " REGEN, r->s);
	*seen |= 1u << k;
	return 0;
}

static int jr_missing(struct jr *r, const char *at, const char *key)
{
	return jr_fail(r, at, "missing key \"%s\"; " REGEN, key);
}

/* A growable array for the loader. */
static int grow(void *pptr, size_t *cap, size_t need, size_t size)
{
	void **pp = pptr;
	size_t n = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*pp, n * size);
	if (!p)
		return -ENOMEM;
	*pp = p;
	*cap = n;
	return 0;
}

/* ---- Loading: the schema ------------------------------------------------------- */

/* Where a metric's parts were, for checks that can only be made once the whole metric
 * (or benchmark) has been read, since JSON objects have no key order. */
struct metric_pos {
	const char *key_at, *samples_at, *status_at, *raw_at, *rf_at;
	size_t nstatus, nraw, nrf;
};

struct loader {
	struct jr r;
	struct metric_pos *mpos;
	size_t mpos_cap;
	unsigned char *raw_kind; /* enum raw_kind per run of the current metric */
	size_t raw_kind_cap;
	/* Arrays are read into these scratch buffers, then copied to allocations of the
	 * exact size: a model of a million samples stays small and allocation cheap. */
	double *values;
	size_t values_cap;
	enum pmc_status *status;
	size_t status_cap;
	struct pmc_run_raw *raw;
	size_t raw_cap;
};

/* A copy of n elements of size bytes at src, or NULL when n is 0 or out of memory. */
static int dup_exact(const void *src, size_t n, size_t size, void *ret)
{
	void *p;

	if (n == 0)
		return 0;
	p = malloc(n * size);
	if (!p)
		return -ENOMEM;
	memcpy(p, src, n * size);
	*(void **)ret = p;
	return 0;
}

static int load_error_value(struct jr *r, int *ret)
{
	const char *at = r->p;
	long v;
	int rc;

	if (jr_is_null(r)) {
		*ret = 0;
		return jr_literal(r, "null");
	}
	if (*r->p == '"') {
		if ((rc = jr_string(r)) < 0)
			return rc;
		/* Names rather than numbers: errno values differ between architectures. */
		for (int e = 1; e < 4096; e++) {
			const char *name = strerrorname_np(e);

			if (name && strcmp(name, r->s) == 0) {
				*ret = e;
				return 0;
			}
		}
		return jr_fail(r, at, "unknown errno name \"%s\"; " REGEN, r->s);
	}
	if ((rc = jr_int(r, 0, 4095, &v)) < 0)
		return rc;
	*ret = (int)v;
	return 0;
}

static int load_samples(struct loader *ld, struct pmc_metric *m, const char **neg_at, size_t *neg_i)
{
	struct jr *r = &ld->r;
	struct jnum num;
	size_t i = 0;
	int rc;

	if ((rc = jr_array_begin(r)) < 0)
		return rc;
	jr_push_index(r);
	while ((rc = jr_array_next(r, &i)) == 1) {
		double v;

		jr_set_index(r, i - 1);
		if (*r->p == 'n') {
			if ((rc = jr_literal(r, "null")) < 0)
				return rc;
			v = NAN;
		} else if (*r->p == '-' || is_digit(*r->p)) {
			const char *at = r->p;

			if ((rc = jr_number(r, &num)) < 0)
				return rc;
			v = num.d;
			if (v < 0 && !*neg_at) {
				*neg_at = at;
				*neg_i = i - 1;
			}
		} else {
			return jr_type(r, "a number or null");
		}
		if ((rc = grow(&ld->values, &ld->values_cap, i, sizeof(double))) < 0)
			return rc;
		ld->values[i - 1] = v;
	}
	jr_pop(r);
	if (rc < 0)
		return rc;
	m->n = i;
	return dup_exact(ld->values, i, sizeof(double), &m->values);
}

static int load_status(struct loader *ld, struct pmc_metric *m, size_t *ret_n)
{
	struct jr *r = &ld->r;
	size_t i = 0;
	int rc;

	if ((rc = jr_array_begin(r)) < 0)
		return rc;
	jr_push_index(r);
	while ((rc = jr_array_next(r, &i)) == 1) {
		const char *at = r->p;
		enum pmc_status st;

		jr_set_index(r, i - 1);
		if ((rc = jr_string(r)) < 0)
			return rc;
		/* Runs mostly share a status: try the previous one first. */
		if (i > 1 && strcmp(r->s, pmc_status_name(ld->status[i - 2])) == 0)
			st = ld->status[i - 2];
		else if (pmc_status_from_name(r->s, &st) < 0)
			return jr_fail(
			    r, at,
			    "unknown status \"%s\"; expected counted, scaled, not-counted, "
			    "unsupported, denied or exact — " REGEN,
			    r->s);
		if ((rc = grow(&ld->status, &ld->status_cap, i, sizeof(*ld->status))) < 0)
			return rc;
		ld->status[i - 1] = st;
	}
	jr_pop(r);
	if (rc < 0)
		return rc;
	*ret_n = i;
	return dup_exact(ld->status, i, sizeof(*ld->status), &m->status);
}

/* What a raw reading held, checked against the run's status once both are read. */
enum raw_kind {
	RAW_NONE,  /* null: the event did not open */
	RAW_COUNT, /* [value, null, null]: a simulated count, which has no times */
	RAW_FULL,  /* [value, time_enabled, time_running] */
};

static int load_raw(struct loader *ld, struct pmc_metric *m, size_t *ret_n)
{
	static const char *const names[] = {"value", "time_enabled", "time_running"};
	static const char shape[] = "a raw reading is [value, time_enabled, time_running] or "
				    "[value, null, null]; " REGEN;
	struct jr *r = &ld->r;
	size_t i = 0;
	int rc;

	if ((rc = jr_array_begin(r)) < 0)
		return rc;
	jr_push_index(r);
	while ((rc = jr_array_next(r, &i)) == 1) {
		const char *at = r->p;
		uint64_t v[3] = {0};
		bool null[3] = {false};
		size_t k = 0;

		jr_set_index(r, i - 1);
		if ((rc = grow(&ld->raw, &ld->raw_cap, i, sizeof(*ld->raw))) < 0 ||
		    (rc = grow(&ld->raw_kind, &ld->raw_kind_cap, i, sizeof(*ld->raw_kind))) < 0)
			return rc;
		if (jr_is_null(r)) {
			if ((rc = jr_literal(r, "null")) < 0)
				return rc;
			ld->raw[i - 1] = (struct pmc_run_raw){0};
			ld->raw_kind[i - 1] = RAW_NONE;
			continue;
		}
		if (*r->p != '[')
			return jr_type(r, "[value, time_enabled, time_running] or null");
		r->p++;
		jr_push_index(r);
		while ((rc = jr_array_next(r, &k)) == 1) {
			struct jnum num;
			const char *nat = r->p;

			jr_set_index(r, k - 1);
			if (k > 3)
				return jr_fail(r, at, "%s", shape);
			if (k > 1 && jr_is_null(r)) {
				if ((rc = jr_literal(r, "null")) < 0)
					return rc;
				null[k - 1] = true;
				continue;
			}
			if (*r->p != '-' && !is_digit(*r->p))
				return jr_type(r, k > 1 ? "a non-negative integer or null"
							: "a non-negative integer");
			if ((rc = jr_number(r, &num)) < 0)
				return rc;
			if (!num.is_uint)
				return jr_fail(
				    r, nat,
				    "%s %.17g is not a non-negative integer; raw readings "
				    "are what the kernel returned — " REGEN,
				    names[k - 1], num.d);
			v[k - 1] = num.u;
		}
		jr_pop(r);
		if (rc < 0)
			return rc;
		if (k != 3 || null[1] != null[2])
			return jr_fail(r, at, "%s", shape);
		if (v[2] > v[1])
			return jr_fail(r, at,
				       "time_running %" PRIu64 " exceeds time_enabled %" PRIu64
				       "; the kernel never reports that — " REGEN,
				       v[2], v[1]);
		ld->raw[i - 1] =
		    (struct pmc_run_raw){.value = v[0], .enabled = v[1], .running = v[2]};
		ld->raw_kind[i - 1] = null[1] ? RAW_COUNT : RAW_FULL;
	}
	jr_pop(r);
	if (rc < 0)
		return rc;
	*ret_n = i;
	return dup_exact(ld->raw, i, sizeof(*ld->raw), &m->raw);
}

static int load_running_fraction(struct loader *ld, size_t *ret_n)
{
	struct jr *r = &ld->r;
	size_t i = 0;
	int rc;

	if ((rc = jr_array_begin(r)) < 0)
		return rc;
	jr_push_index(r);
	while ((rc = jr_array_next(r, &i)) == 1) {
		const char *at = r->p;
		struct jnum num;

		jr_set_index(r, i - 1);
		if (jr_is_null(r)) {
			if ((rc = jr_literal(r, "null")) < 0)
				return rc;
			continue;
		}
		if (*r->p != '-' && !is_digit(*r->p))
			return jr_type(r, "a number or null");
		if ((rc = jr_number(r, &num)) < 0)
			return rc;
		if (!(num.d >= 0 && num.d <= 1))
			return jr_fail(r, at, "running fraction %g is outside 0..1; " REGEN, num.d);
	}
	jr_pop(r);
	*ret_n = i;
	return rc;
}

/* The raw reading each status comes with: none when the event did not open, a count
 * without times from a simulator, the kernel's three numbers otherwise. */
static enum raw_kind raw_kind_of(enum pmc_status st)
{
	if (status_failed(st))
		return RAW_NONE;
	return st == PMC_STATUS_EXACT ? RAW_COUNT : RAW_FULL;
}

/* Points the path at <metric>.<key>[index] for a check made after the metric was read;
 * the path then stands at .metrics.<id> already. */
static int metric_fail_at(struct jr *r, const char *at, const char *key, size_t index,
			  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int metric_fail_at(struct jr *r, const char *at, const char *key, size_t index,
			  const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	jr_push_key(r, key);
	if (index != SIZE_MAX) {
		jr_push_index(r);
		jr_set_index(r, index);
	}
	return jr_fail(r, at, "%s", msg);
}

enum {
	MK_UNIT,
	MK_BETTER,
	MK_DERIVED,
	MK_SIMULATED,
	MK_CROSS_GROUP,
	MK_ERROR,
	MK_NOTE,
	MK_SAMPLES,
	MK_STATUS,
	MK_RAW,
	MK_RF,
};

static int load_metric(struct loader *ld, struct pmc_metric *m, struct metric_pos *pos)
{
	static const char *const keys[] = {
	    "unit", "better",  "derived", "simulated", "cross_group",	   "error",
	    "note", "samples", "status",  "raw",       "running_fraction", NULL};
	struct jr *r = &ld->r;
	const char *obj_at, *neg_at = NULL;
	size_t i = 0, neg_i = 0;
	unsigned seen = 0;
	int rc;

	jr_ws(r);
	obj_at = r->p;
	if ((rc = jr_object_begin(r)) < 0)
		return rc;
	while ((rc = jr_object_next(r, &i)) == 1) {
		int k = key_index(r->s, keys);

		if ((rc = jr_seen(r, k, &seen)) < 0)
			return rc;
		jr_push_key(r, r->s);
		switch (k) {
		case MK_UNIT:
			rc = jr_dup_string(r, false, &m->unit);
			if (rc == 0 && !*m->unit)
				rc = jr_fail(r, r->p - 2, "empty unit; " REGEN);
			break;
		case MK_BETTER: {
			const char *at = r->p;

			if ((rc = jr_string(r)) < 0)
				break;
			if (strcmp(r->s, "lower") == 0)
				m->better = PMC_LOWER_IS_BETTER;
			else if (strcmp(r->s, "higher") == 0)
				m->better = PMC_HIGHER_IS_BETTER;
			else
				rc = jr_fail(
				    r, at,
				    "\"better\" is \"lower\" or \"higher\", not \"%s\"; " REGEN,
				    r->s);
			break;
		}
		case MK_DERIVED:
			rc = jr_bool(r, &m->derived);
			break;
		case MK_SIMULATED:
			rc = jr_bool(r, &m->simulated);
			break;
		case MK_CROSS_GROUP:
			rc = jr_bool(r, &m->cross_group);
			break;
		case MK_ERROR:
			rc = load_error_value(r, &m->error);
			break;
		case MK_NOTE:
			rc = jr_dup_string(r, true, &m->note);
			break;
		case MK_SAMPLES:
			pos->samples_at = r->p;
			rc = load_samples(ld, m, &neg_at, &neg_i);
			break;
		case MK_STATUS:
			pos->status_at = r->p;
			rc = load_status(ld, m, &pos->nstatus);
			break;
		case MK_RAW:
			pos->raw_at = r->p;
			rc = load_raw(ld, m, &pos->nraw);
			break;
		case MK_RF:
			pos->rf_at = r->p;
			rc = load_running_fraction(ld, &pos->nrf);
			break;
		default:
			rc = jr_skip(r, 0);
		}
		jr_pop(r);
		if (rc < 0)
			return rc;
	}
	if (rc < 0)
		return rc;

	if (!(seen & (1u << MK_UNIT)))
		return jr_missing(r, obj_at, "unit");
	if (!(seen & (1u << MK_BETTER)))
		return jr_missing(r, obj_at, "better");
	if (!(seen & (1u << MK_SAMPLES)))
		return jr_missing(r, obj_at, "samples");
	if (neg_at && !m->derived) {
		const char *q = quantity_of(m->unit);

		return metric_fail_at(r, neg_at, "samples", neg_i,
				      "negative %s %g; %ss cannot be negative — " REGEN, q,
				      m->values[neg_i], q);
	}
	if (!pos->status_at != !pos->raw_at)
		return jr_fail(r, obj_at, "\"status\" and \"raw\" come together; " REGEN);
	if (pos->rf_at && !pos->status_at)
		return jr_fail(r, obj_at, "\"running_fraction\" without \"status\"; " REGEN);
	if (pos->status_at && pos->nstatus != m->n)
		return metric_fail_at(r, pos->status_at, "status", SIZE_MAX,
				      "%zu statuses for %zu samples; " REGEN, pos->nstatus, m->n);
	if (pos->raw_at && pos->nraw != m->n)
		return metric_fail_at(r, pos->raw_at, "raw", SIZE_MAX,
				      "%zu raw readings for %zu samples; " REGEN, pos->nraw, m->n);
	if (pos->rf_at && pos->nrf != m->n)
		return metric_fail_at(r, pos->rf_at, "running_fraction", SIZE_MAX,
				      "%zu running fractions for %zu samples; " REGEN, pos->nrf,
				      m->n);
	m->has_status = pos->status_at != NULL;
	for (size_t k = 0; m->has_status && k < m->n; k++) {
		enum pmc_status st = m->status[k];
		bool value = pmc_status_has_value(st);

		if (value && isnan(m->values[k]))
			return metric_fail_at(r, pos->samples_at, "samples", k,
					      "null for a run with status \"%s\", which has a "
					      "value; " REGEN,
					      pmc_status_name(st));
		if (!value && !isnan(m->values[k]))
			return metric_fail_at(
			    r, pos->samples_at, "samples", k,
			    "a number for a run with status \"%s\", which was not "
			    "measured; it must be null — " REGEN,
			    pmc_status_name(st));
		if (ld->raw_kind[k] != raw_kind_of(st)) {
			static const char *const what[] = {
			    [RAW_NONE] = "null",
			    [RAW_COUNT] = "[value, null, null]",
			    [RAW_FULL] = "[value, time_enabled, time_running]",
			};

			return metric_fail_at(
			    r, pos->raw_at, "raw", k,
			    "%s for a run with status \"%s\"; expected %s — " REGEN,
			    what[ld->raw_kind[k]], pmc_status_name(st), what[raw_kind_of(st)]);
		}
	}
	return 0;
}

static int metric_pos_cmp(const void *a, const void *b, void *ctx)
{
	const struct pmc_metric *m = ctx;

	return strcmp(m[*(const size_t *)a].id, m[*(const size_t *)b].id);
}

/* Reads benchmarks[].metrics into b. */
static int load_metrics(struct loader *ld, struct pmc_benchmark *b)
{
	struct jr *r = &ld->r;
	size_t i = 0, cap = 0, *order;
	int rc;

	if ((rc = jr_object_begin(r)) < 0)
		return rc;
	while ((rc = jr_object_next(r, &i)) == 1) {
		struct pmc_metric *m;
		struct metric_pos *pos;

		if (!*r->s)
			return jr_fail(r, r->key_at, "empty metric id; " REGEN);
		if ((rc = grow(&b->metrics, &cap, i, sizeof(*b->metrics))) < 0 ||
		    (rc = grow(&ld->mpos, &ld->mpos_cap, i, sizeof(*ld->mpos))) < 0)
			return rc;
		m = &b->metrics[i - 1];
		memset(m, 0, sizeof(*m));
		m->better = PMC_LOWER_IS_BETTER;
		b->nmetrics = i;
		pos = &ld->mpos[i - 1];
		memset(pos, 0, sizeof(*pos));
		pos->key_at = r->key_at;
		m->id = strdup(r->s);
		if (!m->id)
			return -ENOMEM;
		jr_push_key(r, m->id);
		rc = load_metric(ld, m, pos);
		jr_pop(r);
		if (rc < 0)
			return rc;
	}
	if (rc < 0 || b->nmetrics < 2)
		return rc;

	/* Duplicate ids, found by sorting so that a file with many metrics stays fast. */
	order = malloc(b->nmetrics * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (size_t k = 0; k < b->nmetrics; k++)
		order[k] = k;
	qsort_r(order, b->nmetrics, sizeof(*order), metric_pos_cmp, b->metrics);
	for (size_t k = 1; k < b->nmetrics; k++) {
		if (strcmp(b->metrics[order[k]].id, b->metrics[order[k - 1]].id) == 0) {
			size_t later = order[k] > order[k - 1] ? order[k] : order[k - 1];

			free(order);
			return jr_fail(r, ld->mpos[later].key_at, "duplicate metric \"%s\"; " REGEN,
				       b->metrics[later].id);
		}
	}
	free(order);
	return 0;
}

static int load_runs(struct loader *ld, struct pmc_benchmark *b)
{
	static const char *const keys[] = {"exit_code", "signal", "timed_out", NULL};
	struct jr *r = &ld->r;
	size_t i = 0, cap = 0;
	int rc;

	if ((rc = jr_array_begin(r)) < 0)
		return rc;
	jr_push_index(r);
	while ((rc = jr_array_next(r, &i)) == 1) {
		struct pmc_run_info *run;
		const char *obj_at = r->p;
		unsigned seen = 0;
		size_t j = 0;

		jr_set_index(r, i - 1);
		if ((rc = grow(&b->runs, &cap, i, sizeof(*b->runs))) < 0)
			return rc;
		run = &b->runs[i - 1];
		memset(run, 0, sizeof(*run));
		b->nruns = i;
		if ((rc = jr_object_begin(r)) < 0)
			return rc;
		while ((rc = jr_object_next(r, &j)) == 1) {
			int k = key_index(r->s, keys);
			long v;

			if ((rc = jr_seen(r, k, &seen)) < 0)
				return rc;
			jr_push_key(r, r->s);
			if (k == 0 && (rc = jr_int(r, -1, 255, &v)) == 0)
				run->exit_code = (int)v;
			else if (k == 1 && (rc = jr_int(r, 0, 127, &v)) == 0)
				run->term_signal = (int)v;
			else if (k == 2)
				rc = jr_bool(r, &run->timed_out);
			else if (k < 0)
				rc = jr_skip(r, 0);
			jr_pop(r);
			if (rc < 0)
				return rc;
		}
		if (rc < 0)
			return rc;
		if (!(seen & 1u))
			return jr_missing(r, obj_at, "exit_code");
		if (run->term_signal && run->exit_code != -1)
			return jr_fail(r, obj_at,
				       "a run killed by signal %d has exit_code -1, not %d; " REGEN,
				       run->term_signal, run->exit_code);
	}
	jr_pop(r);
	return rc;
}

static bool is_build_id(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n % 2)
		return false;
	return strspn(s, "0123456789abcdef") == n;
}

enum { BK_NAME, BK_COMMAND, BK_BUILD_ID, BK_RUNS, BK_METRICS };

static int load_benchmark(struct loader *ld, struct pmc_benchmark *b)
{
	static const char *const keys[] = {"name", "command", "build_id", "runs", "metrics", NULL};
	struct jr *r = &ld->r;
	const char *obj_at, *at;
	unsigned seen = 0;
	size_t i = 0;
	int rc;

	jr_ws(r);
	obj_at = r->p;
	if ((rc = jr_object_begin(r)) < 0)
		return rc;
	while ((rc = jr_object_next(r, &i)) == 1) {
		int k = key_index(r->s, keys);

		if ((rc = jr_seen(r, k, &seen)) < 0)
			return rc;
		jr_push_key(r, r->s);
		at = r->p;
		switch (k) {
		case BK_NAME:
			rc = jr_dup_string(r, false, &b->name);
			if (rc == 0 && !*b->name)
				rc = jr_fail(r, at, "empty benchmark name; " REGEN);
			break;
		case BK_COMMAND:
			rc = jr_dup_string(r, true, &b->command);
			break;
		case BK_BUILD_ID:
			rc = jr_dup_string(r, true, &b->build_id);
			if (rc == 0 && b->build_id && !is_build_id(b->build_id))
				rc = jr_fail(
				    r, at,
				    "a build-id is lower-case hex digits, not \"%s\"; " REGEN,
				    b->build_id);
			break;
		case BK_RUNS:
			rc = load_runs(ld, b);
			break;
		case BK_METRICS:
			rc = load_metrics(ld, b);
			break;
		default:
			rc = jr_skip(r, 0);
		}
		jr_pop(r);
		if (rc < 0)
			return rc;
	}
	if (rc < 0)
		return rc;
	if (!(seen & (1u << BK_NAME)))
		return jr_missing(r, obj_at, "name");
	if (!(seen & (1u << BK_RUNS)))
		return jr_missing(r, obj_at, "runs");
	if (!(seen & (1u << BK_METRICS)))
		return jr_missing(r, obj_at, "metrics");
	for (size_t k = 0; k < b->nmetrics; k++) {
		const struct pmc_metric *m = &b->metrics[k];

		if (m->n != b->nruns) {
			jr_push_key(r, "metrics");
			jr_push_key(r, m->id);
			return metric_fail_at(
			    r, ld->mpos[k].samples_at, "samples", SIZE_MAX,
			    "%zu samples for %zu runs; every metric has one sample "
			    "per run (null when not measured) — " REGEN,
			    m->n, b->nruns);
		}
	}
	return 0;
}

static int load_benchmarks(struct loader *ld, struct pmc_result *res)
{
	struct jr *r = &ld->r;
	size_t i = 0, dup;
	int rc;

	if ((rc = jr_array_begin(r)) < 0)
		return rc;
	jr_push_index(r);
	for (;;) {
		const char *at;
		struct pmc_benchmark *b;

		if ((rc = jr_refill(r)) < 0 || (rc = jr_array_next(r, &i)) != 1)
			break;
		at = r->p;
		jr_set_index(r, i - 1);
		if ((rc = bench_reserve(res)) < 0)
			return rc;
		b = &res->benchmarks[res->nbench];
		memset(b, 0, sizeof(*b));
		res->nbench++;
		if ((rc = load_benchmark(ld, b)) < 0)
			return rc;
		rc = index_update(res->priv, res->benchmarks, res->nbench, &dup);
		if (rc == -EEXIST)
			return jr_fail(
			    r, at,
			    "a second benchmark named \"%s\" (the first is benchmarks[%zu]); "
			    "names must be unique — " REGEN,
			    b->name, dup);
		if (rc < 0)
			return rc;
	}
	jr_pop(r);
	return rc;
}

static int load_environment(struct jr *r, struct pmc_result *res)
{
	size_t i = 0;
	int rc;

	if ((rc = jr_object_begin(r)) < 0)
		return rc;
	while ((rc = jr_object_next(r, &i)) == 1) {
		char *key;

		if (!*r->s)
			return jr_fail(r, r->key_at, "empty key; " REGEN);
		if (pmc_result_get_env(res, r->s))
			return jr_fail(r, r->key_at, "duplicate key \"%s\"; " REGEN, r->s);
		key = strdup(r->s);
		if (!key)
			return -ENOMEM;
		jr_push_key(r, key);
		if (*r->p != '"') {
			rc = jr_type(r, "a string");
		} else if ((rc = jr_string(r)) == 0) {
			rc = pmc_result_set_env(res, key, r->s);
		}
		jr_pop(r);
		free(key);
		if (rc < 0)
			return rc;
	}
	return rc;
}

static int load_tool(struct jr *r, struct pmc_result *res)
{
	size_t i = 0;
	int rc;

	if ((rc = jr_object_begin(r)) < 0)
		return rc;
	while ((rc = jr_object_next(r, &i)) == 1) {
		bool version = strcmp(r->s, "version") == 0;

		jr_push_key(r, r->s);
		if (version) {
			free(res->tool_version);
			res->tool_version = NULL;
			rc = jr_dup_string(r, true, &res->tool_version);
		} else {
			rc = jr_skip(r, 0);
		}
		jr_pop(r);
		if (rc < 0)
			return rc;
	}
	return rc;
}

static int check_schema_value(struct jr *r)
{
	const char *at = r->p;
	const char *prefix = "pmcbench-result/";
	size_t plen = strlen(prefix);
	int rc;

	if (*r->p != '"')
		return jr_type(r, "a string such as \"" PMC_RESULT_SCHEMA "\"");
	if ((rc = jr_string(r)) < 0)
		return rc;
	if (strcmp(r->s, PMC_RESULT_SCHEMA) == 0)
		return 0;
	if (strncmp(r->s, prefix, plen) == 0 && r->s[plen] &&
	    strspn(r->s + plen, "0123456789") == strlen(r->s + plen) && atol(r->s + plen) > 1)
		return jr_fail(r, at,
			       "schema \"%s\" was written by a newer pmcbench; upgrade pmcbench to "
			       "read it (this one reads " PMC_RESULT_SCHEMA ")",
			       r->s);
	return jr_fail(r, at,
		       "unknown schema \"%s\"; this is not a pmcbench result file (expected "
		       "\"" PMC_RESULT_SCHEMA "\")",
		       r->s);
}

/* Finds and checks "schema" before anything else, wherever it is (jq -S sorts it last),
 * so that a file from a newer version says so instead of failing on some later field. */
static int check_schema(struct jr *r, const char *obj_at)
{
	const char *save = r->p;
	size_t i = 0;
	int rc;

	while ((rc = jr_object_next(r, &i)) == 1) {
		if (strcmp(r->s, "schema") == 0) {
			jr_push_key(r, "schema");
			rc = check_schema_value(r);
			jr_pop(r);
			r->p = save;
			return rc;
		}
		if ((rc = jr_skip(r, 0)) < 0)
			return rc;
	}
	if (rc < 0)
		return rc;
	return jr_fail(r, obj_at,
		       "no \"schema\" key; this is not a pmcbench result file (a result starts "
		       "with \"schema\": \"" PMC_RESULT_SCHEMA "\")");
}

enum { RK_SCHEMA, RK_TOOL, RK_CREATED, RK_BACKEND, RK_ENVIRONMENT, RK_BENCHMARKS };

static int load_root(struct loader *ld, struct pmc_result *res)
{
	static const char *const keys[] = {"schema",	  "tool",	"created", "backend",
					   "environment", "benchmarks", NULL};
	struct jr *r = &ld->r;
	const char *obj_at;
	unsigned seen = 0;
	size_t i = 0;
	int rc;

	/* A UTF-8 byte order mark is not JSON, but editors add it; skip it. */
	if (strncmp(r->p, "\xef\xbb\xbf", 3) == 0)
		r->p += 3;
	jr_ws(r);
	if (r->p >= r->end)
		return jr_fail(r, r->p,
			       "empty file; expected a pmcbench result — regenerate it with "
			       "pmcbench run -o FILE");
	obj_at = r->p;
	if (*r->p != '{') {
		char buf[16];

		return jr_fail(r, r->p,
			       "expected a JSON object, found %s; this is not a pmcbench result "
			       "file",
			       jr_found(r, buf, sizeof(buf)));
	}
	r->p++;
	if ((rc = check_schema(r, obj_at)) < 0)
		return rc;

	while ((rc = jr_object_next(r, &i)) == 1) {
		int k = key_index(r->s, keys);
		const char *at = r->p;

		if ((rc = jr_seen(r, k, &seen)) < 0)
			return rc;
		jr_push_key(r, r->s);
		switch (k) {
		case RK_TOOL:
			rc = load_tool(r, res);
			break;
		case RK_CREATED:
			free(res->created);
			res->created = NULL;
			rc = jr_dup_string(r, true, &res->created);
			break;
		case RK_BACKEND:
			free(res->backend);
			res->backend = NULL;
			rc = jr_dup_string(r, false, &res->backend);
			if (rc == 0 && !*res->backend)
				rc = jr_fail(r, at, "empty backend; " REGEN);
			break;
		case RK_ENVIRONMENT:
			rc = load_environment(r, res);
			break;
		case RK_BENCHMARKS:
			rc = load_benchmarks(ld, res);
			break;
		default: /* the schema, checked already, and keys of later versions */
			rc = jr_skip(r, 0);
		}
		jr_pop(r);
		if (rc < 0)
			return rc;
	}
	if (rc < 0)
		return rc;
	if (!(seen & (1u << RK_BACKEND)))
		return jr_missing(r, obj_at, "backend");
	if (!(seen & (1u << RK_BENCHMARKS)))
		return jr_missing(r, obj_at, "benchmarks");
	jr_ws(r);
	if (r->p < r->end)
		return jr_fail(r, r->p, "text after the end of the result; " REGEN);
	return 0;
}

/* One pass over the file. Windowed, it keeps only a window of the text in memory (a
 * large result then costs its model, not its text as well) and gives up with -EAGAIN
 * at the first problem, which may be a benchmark larger than the window; the caller
 * then makes a plain pass over the whole text, whose messages have true positions. */
static int load_pass(struct loader *ld, int fd, bool windowed, struct pmc_result **ret)
{
	struct jr *r = &ld->r;
	struct pmc_result *res;
	size_t len = 0;
	int rc;

	r->windowed = windowed;
	r->fd = fd;
	r->eof = false;
	r->cap = RESULT_WINDOW;
	r->mem = malloc(r->cap);
	if (!r->mem)
		return -ENOMEM;
	rc = windowed ? fill(fd, r->mem, r->cap, &len, &r->eof)
		      : read_all(fd, &r->mem, &r->cap, &len);
	if (rc < 0)
		return rc;
	r->buf = r->p = r->mem;
	r->end = r->mem + len;
	r->depth = 0;

	res = calloc(1, sizeof(*res));
	if (!res)
		return -ENOMEM;
	res->priv = calloc(1, sizeof(*res->priv));
	rc = res->priv ? load_root(ld, res) : -ENOMEM;
	if (rc < 0) {
		pmc_result_free(res);
		return rc;
	}
	*ret = res;
	return 0;
}

int pmc_result_load(const char *path, struct pmc_result **ret, char *err, size_t errlen)
{
	struct loader ld = {0};
	struct pmc_result *res = NULL;
	struct stat st;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		set_err(err, errlen, "%s: %s; check the file name", path, strerror(errno));
		return rc;
	}
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		rc = -EINVAL;
		set_err(err, errlen,
			"%s: is a directory; give the path of a result file (pmcbench run -o FILE)",
			path);
		goto out;
	}
	ld.r.cloc = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (!ld.r.cloc) {
		rc = -ENOMEM;
		goto out;
	}
	ld.r.file = path;
	ld.r.err = err;
	ld.r.errlen = errlen;

	rc = -EAGAIN;
	if (S_ISREG(st.st_mode) && st.st_size > RESULT_WINDOW)
		rc = load_pass(&ld, fd, true, &res);
	if (rc == -EAGAIN) {
		free(ld.r.mem);
		ld.r.mem = NULL;
		if (lseek(fd, 0, SEEK_SET) < 0 && errno != ESPIPE) {
			rc = -errno;
			goto out;
		}
		rc = load_pass(&ld, fd, false, &res);
	}
	if (rc < 0)
		goto out;
	*ret = res;
out:
	if (rc < 0 && rc != -EINVAL)
		set_err(err, errlen, "%s: cannot read: %s", path, strerror(-rc));
	if (ld.r.cloc)
		freelocale(ld.r.cloc);
	free(ld.r.mem);
	free(ld.r.s);
	free(ld.mpos);
	free(ld.raw_kind);
	free(ld.values);
	free(ld.status);
	free(ld.raw);
	close(fd);
	return rc;
}

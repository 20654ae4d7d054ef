/* The registry of formats and the public entry points of include/pmcbench/report.h:
 * arguments checked once, the analysis of a result computed once, then one reporter. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/error.h"
#include "base/opts.h"
#include "core/analysis.h"
#include "reporters/reporter.h"

#define ARRAY_SIZE(x) (sizeof(x) / sizeof((x)[0]))

/* The registry: in the order messages and help texts list them. */
static const struct pmc_reporter *const reporters[] = {
    &pmc_reporter_table,   &pmc_reporter_brief,	   &pmc_reporter_json,
    &pmc_reporter_csv,	   &pmc_reporter_markdown, &pmc_reporter_stats,
    &pmc_reporter_gobench, &pmc_reporter_svg,	   &pmc_reporter_html,
};

const struct pmc_reporter *pmc_reporter_at(size_t i)
{
	return i < ARRAY_SIZE(reporters) ? reporters[i] : NULL;
}

const struct pmc_reporter *pmc_reporter_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(reporters); i++)
		if (strcmp(reporters[i]->name, name) == 0 ||
		    (reporters[i]->alias && strcmp(reporters[i]->alias, name) == 0))
			return reporters[i];
	return NULL;
}

const struct pmc_reporter *pmc_reporter_for_path(const char *path)
{
	const char *base, *dot;

	if (!path)
		return NULL;
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	dot = strrchr(base, '.');
	/* ".csv" alone is a hidden file's name, not an extension. */
	if (!dot || dot == base)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(reporters); i++)
		if (reporters[i]->by_extension && strcasecmp(reporters[i]->ext, dot) == 0)
			return reporters[i];
	return NULL;
}

/* What goes before the k-th (from 0) of n items of a list "a, b or c". */
static const char *list_sep(size_t k, size_t n)
{
	return k == 0 ? "" : k + 1 == n ? " or " : ", ";
}

static bool in_set(const struct pmc_reporter *rep, enum pmc_reporter_set set)
{
	if (rep->unlisted)
		return false;
	switch (set) {
	case PMC_REPORTERS_RESULT:
		return rep->result != NULL;
	case PMC_REPORTERS_COMPARISON:
		return rep->comparison != NULL;
	case PMC_REPORTERS_COMPARISONS:
		return rep->comparisons != NULL;
	case PMC_REPORTERS_POINTS:
		return rep->points != NULL;
	case PMC_REPORTERS_CHANGES:
		return rep->changes != NULL;
	}
	return false;
}

const struct pmc_reporter *pmc_reporter_of(enum pmc_reporter_set set, const char *format)
{
	const struct pmc_reporter *rep = pmc_reporter_find(format);

	return rep && in_set(rep, set) ? rep : NULL;
}

void pmc_reporter_names(enum pmc_reporter_set set, char *buf, size_t len)
{
	const struct pmc_reporter *list[ARRAY_SIZE(reporters)];
	size_t n = 0, o = 0;

	/* Pass 0 takes the formats for a reader, pass 1 the documents; a result's formats
	 * all in pass 0, in the registry's order. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < ARRAY_SIZE(reporters); i++)
			if (in_set(reporters[i], set) &&
			    (set == PMC_REPORTERS_RESULT || set == PMC_REPORTERS_POINTS
				 ? pass == 0
				 : reporters[i]->document == (pass == 1)))
				list[n++] = reporters[i];
	buf[0] = '\0';
	for (size_t k = 0; k < n && o < len; k++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", list_sep(k, n), list[k]->name);
}

void pmc_reporter_extensions(char *buf, size_t len)
{
	const struct pmc_reporter *list[ARRAY_SIZE(reporters)];
	size_t n = 0, o = 0;

	for (size_t i = 0; i < ARRAY_SIZE(reporters); i++)
		if (reporters[i]->by_extension)
			list[n++] = reporters[i];
	buf[0] = '\0';
	for (size_t k = 0; k < n && o < len; k++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s%s%s%s", list_sep(k, n), list[k]->ext,
				      list[k]->describe ? " (" : "",
				      list[k]->describe ? list[k]->describe : "",
				      list[k]->describe ? ")" : "");
}

void pmc_reporter_set_extensions(enum pmc_reporter_set set, char *buf, size_t len)
{
	const struct pmc_reporter *list[ARRAY_SIZE(reporters)];
	size_t n = 0, o = 0;

	for (size_t i = 0; i < ARRAY_SIZE(reporters); i++)
		if (reporters[i]->by_extension && in_set(reporters[i], set))
			list[n++] = reporters[i];
	buf[0] = '\0';
	for (size_t k = 0; k < n && o < len; k++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", list_sep(k, n), list[k]->ext);
}

static bool renders(const struct pmc_reporter *rep, enum pmc_report_kind kind)
{
	return kind == PMC_REPORT_RESULT ? rep->result != NULL : rep->comparison != NULL;
}

/* The reporter of the reports of include/pmcbench/report.h named name: one that renders
 * a result or a comparison (a format of the history's only, svg, is no such format). */
static const struct pmc_reporter *report_find(const char *name)
{
	const struct pmc_reporter *rep = pmc_reporter_find(name);

	return rep && (rep->result || rep->comparison) ? rep : NULL;
}

int pmc_report_format(const char *name, enum pmc_report_kind kind, const char **ret_name,
		      const char **ret_ext)
{
	const struct pmc_reporter *rep = report_find(name);

	if (!rep)
		return -ENOENT;
	if (!renders(rep, kind))
		return -EOPNOTSUPP;
	if (ret_name)
		*ret_name = rep->name;
	if (ret_ext)
		*ret_ext = rep->ext;
	return 0;
}

/* "table, json, ..." of the formats that render kind, into buf. */
static void format_names(enum pmc_report_kind kind, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(reporters) && o < len; i++)
		if (renders(reporters[i], kind))
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "",
					      reporters[i]->name);
}

/* The reporter for name, or an error in err. */
static const struct pmc_reporter *lookup(const char *format, enum pmc_report_kind kind, int *ret,
					 char *err, size_t errlen)
{
	const struct pmc_reporter *rep = report_find(format);

	*ret = 0;
	if (!rep || !renders(rep, kind)) {
		*ret = rep ? -EOPNOTSUPP : -ENOENT;
		if (err && errlen) {
			char names[128];

			format_names(kind, names, sizeof(names));
			pmc_err_set(err, errlen, "format '%s': %s; use %s",
				    format ? format : "(null)",
				    rep ? "cannot render this report" : "unknown format", names);
		}
		return NULL;
	}
	return rep;
}

/* Copies the caller's options (of any size) into a complete struct with defaults. */
static int resolve(const struct pmc_report_opts *opts, struct pmc_report_opts *ret, char *err,
		   size_t errlen)
{
	struct pmc_report_opts o = {.sz = sizeof(o)};

	PMC_OPTS_ZERO_TAIL(pmc_report_opts, &o); /* padding the initializer need not zero */
	if (!PMC_OPTS_VALID(opts, pmc_report_opts)) {
		pmc_err_set(err, errlen,
			    "report options: unknown fields set (sz %zu); "
			    "rebuild against this library's headers",
			    opts->sz);
		return -EINVAL;
	}
	o.median = PMC_OPTS_GET(opts, median, false);
	o.confidence = PMC_OPTS_GET(opts, confidence, 0.0);
	o.old_name = PMC_OPTS_GET(opts, old_name, NULL);
	o.new_name = PMC_OPTS_GET(opts, new_name, NULL);
	o.gate = PMC_OPTS_GET(opts, gate, false);
	o.decision = PMC_OPTS_GET(opts, decision, PMC_DECISION_PASS);
	o.error = PMC_OPTS_GET(opts, error, NULL);
	o.md_max_changed = PMC_OPTS_GET(opts, md_max_changed, 0);
	o.md_max_unchanged = PMC_OPTS_GET(opts, md_max_unchanged, 0);
	o.no_headline = PMC_OPTS_GET(opts, no_headline, false);
	o.color = PMC_OPTS_GET(opts, color, false);
	o.all_rows = PMC_OPTS_GET(opts, all_rows, false);
	o.by_benchmark = PMC_OPTS_GET(opts, by_benchmark, false);
	o.width = PMC_OPTS_GET(opts, width, 0);
	if (o.confidence == 0)
		o.confidence = 0.95;
	if (!(o.confidence > 0 && o.confidence < 1)) {
		pmc_err_set(err, errlen, "report options: confidence %g is outside (0, 1)",
			    o.confidence);
		return -EINVAL;
	}
	*ret = o;
	return 0;
}

static void say(int r, const char *format, char *err, size_t errlen)
{
	if (r < 0 && err && errlen)
		pmc_err_set(err, errlen, "cannot write the %s report: %s", format, strerror(-r));
}

int pmc_report_result(FILE *out, const char *format, const struct pmc_result *r,
		      const struct pmc_report_opts *opts, char *err, size_t errlen)
{
	return pmc_report_result_analyzed(out, format, r, NULL, opts, err, errlen);
}

int pmc_report_result_analyzed(FILE *out, const char *format, const struct pmc_result *r,
			       const struct pmc_analysis *given, const struct pmc_report_opts *opts,
			       char *err, size_t errlen)
{
	const struct pmc_reporter *rep;
	const struct pmc_analysis *a = NULL;
	struct pmc_analysis *own = NULL;
	struct pmc_report_opts o;
	int ret;

	rep = lookup(format, PMC_REPORT_RESULT, &ret, err, errlen);
	if (!rep)
		return ret;
	if (!out || !r || (given && given->r != r)) {
		say(-EINVAL, rep->name, err, errlen);
		return -EINVAL;
	}
	ret = resolve(opts, &o, err, errlen);
	if (ret < 0)
		return ret;
	if (rep->needs_analysis && given && given->confidence == o.confidence) {
		a = given;
	} else if (rep->needs_analysis) {
		ret = pmc_analysis_new(r, o.confidence, &own);
		if (ret < 0) {
			say(ret, rep->name, err, errlen);
			return ret;
		}
		a = own;
	}
	ret = rep->result(out, r, a, &o);
	pmc_analysis_free(own);
	if (ret == 0 && (fflush(out) != 0 || ferror(out)))
		ret = -EIO;
	say(ret, rep->name, err, errlen);
	return ret;
}

int pmc_report_comparison(FILE *out, const char *format, const struct pmc_comparison *c,
			  const struct pmc_report_opts *opts, char *err, size_t errlen)
{
	const struct pmc_reporter *rep;
	struct pmc_report_opts o;
	int ret;

	rep = lookup(format, PMC_REPORT_COMPARISON, &ret, err, errlen);
	if (!rep)
		return ret;
	ret = resolve(opts, &o, err, errlen);
	if (ret < 0)
		return ret;
	if (!out || (!c && !o.error)) {
		say(-EINVAL, rep->name, err, errlen);
		return -EINVAL;
	}
	ret = rep->comparison(out, c, &o);
	if (ret == 0 && (fflush(out) != 0 || ferror(out)))
		ret = -EIO;
	say(ret, rep->name, err, errlen);
	return ret;
}

int pmc_report_comparisons(FILE *out, const char *format, const struct pmc_comparison *const *cs,
			   const char *const *names, size_t n, const struct pmc_report_opts *opts,
			   char *err, size_t errlen)
{
	const struct pmc_reporter *rep;
	struct pmc_report_opts o;
	int ret;

	rep = lookup(format, PMC_REPORT_COMPARISON, &ret, err, errlen);
	if (!rep)
		return ret;
	if (!rep->comparisons) {
		char formats[128];

		pmc_reporter_names(PMC_REPORTERS_COMPARISONS, formats, sizeof(formats));
		pmc_err_set(err, errlen,
			    "format '%s' renders one comparison of two files; use %s for more",
			    rep->name, formats);
		return -EOPNOTSUPP;
	}
	ret = resolve(opts, &o, err, errlen);
	if (ret < 0)
		return ret;
	if (!out || !cs || !names || n == 0) {
		say(-EINVAL, rep->name, err, errlen);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		if (!cs[i]) {
			say(-EINVAL, rep->name, err, errlen);
			return -EINVAL;
		}
	}
	ret = rep->comparisons(out, cs, names, n, &o);
	if (ret == 0 && (fflush(out) != 0 || ferror(out)))
		ret = -EIO;
	say(ret, rep->name, err, errlen);
	return ret;
}

/* What a history's output ends with: 0, r, or -EIO when out failed. */
static int flushed(FILE *out, int r)
{
	if (r == 0 && (fflush(out) != 0 || ferror(out)))
		r = -EIO;
	return r;
}

int pmc_report_points(FILE *out, const char *format, const struct pmc_history_point *ps, size_t n,
		      unsigned part)
{
	const struct pmc_reporter *rep = pmc_reporter_of(PMC_REPORTERS_POINTS, format);
	int r;

	if (!rep)
		return -ENOENT;
	r = rep->points(out, ps, n, part);
	if (part & PMC_POINTS_LAST)
		return flushed(out, r);
	return r == 0 && ferror(out) ? -EIO : r;
}

int pmc_report_changes(FILE *out, const char *format, const struct pmc_changes *c)
{
	const struct pmc_reporter *rep = pmc_reporter_of(PMC_REPORTERS_CHANGES, format);

	return rep ? flushed(out, rep->changes(out, c)) : -ENOENT;
}

int pmc_report_charts(FILE *out, const char *format, const struct pmc_charts *cs, const char *store)
{
	const struct pmc_reporter *rep = pmc_reporter_find(format);

	if (!rep || !rep->charts)
		return -ENOENT;
	return flushed(out, rep->charts(out, cs, store));
}

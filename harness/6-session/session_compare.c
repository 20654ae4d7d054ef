/* Comparisons and their reports, for `pmcbench compare`, `gate` and `run` alike
 * (session.h): compare, decide the gate, write the report to its stream, the report file
 * and the exports, and say with the profiles where a regression's time went. `compare`
 * reports whatever the verdicts; `gate` decides (docs/compare.md). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/atomic_file.h"
#include "core/compare.h"
#include "core/result.h"
#include "core/threshold.h"
#include "pmcbench/compare.h"
#include "pmcbench/report.h"
#include "reporters/escape.h"
#include "reporters/compare_cells.h"
#include "reporters/reporter.h"
#include "reporters/wrap.h"
#include "session/session.h"

int pmc_session_compare_init(struct pmc_session_compare *c)
{
	*c = (struct pmc_session_compare){
	    .alpha = 0.05,
	    .confidence = 0.95,
	    .format = "table",
	};
	return pmc_thresholds_new(&c->thresholds);
}

void pmc_session_compare_clear(struct pmc_session_compare *c)
{
	for (size_t i = 0; i < c->nmetrics; i++)
		free(c->metrics[i]);
	free(c->metrics);
	free(c->report);
	pmc_thresholds_free(c->thresholds);
	pmc_session_exports_clear(&c->exports);
	pmc_filter_clear(&c->filter);
	*c = (struct pmc_session_compare){0};
}

bool pmc_session_compare_color(const struct pmc_session_compare *c, FILE *f)
{
	const char *no = getenv("NO_COLOR");
	int fd = fileno(f);

	if (c->color != PMC_SESSION_COLOR_AUTO)
		return c->color == PMC_SESSION_COLOR_ALWAYS;
	/* A stream without a descriptor (a cookie stream, such as the CLI's ASCII one) writes
	 * to stdout or stderr. */
	if (fd < 0)
		fd = f == stderr ? STDERR_FILENO : STDOUT_FILENO;
	/* https://no-color.org: set and not empty. */
	return isatty(fd) && !(no && no[0]);
}

unsigned pmc_session_stream_width(FILE *f)
{
	const char *cols = getenv("COLUMNS");
	struct winsize ws = {0};
	int fd = f ? fileno(f) : -1;

	if (cols && *cols) {
		char *end;
		unsigned long n = strtoul(cols, &end, 10);

		/* Narrower than a name and its number is no layout at all. */
		if (*end == '\0' && n >= 40 && n <= 10000)
			return (unsigned)n;
	}
	if (f && fd < 0)
		fd = f == stderr ? STDERR_FILENO : STDOUT_FILENO;
	if (fd >= 0 && isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
		return ws.ws_col;
	return 0;
}

/* Where the time went (session_profiles.c), after the verdicts, when both sides have
 * profiles: on out, in Markdown when the report is; draw: write the differential flame
 * graphs too (once per report). A document stays one: its explanation goes to the
 * caller's print function, as text aside (PMC_SESSION_ASIDE). */
static void explain(const struct pmc_session_compare *c, const struct pmc_comparison *cmp,
		    FILE *out, bool draw, const struct pmc_session_printer *pr)
{
	char *text = NULL;
	size_t len = 0;

	if (!pmc_session_format_is_document(c->format)) {
		pmc_session_profiles_explain(cmp, c->old_profiles, c->new_profiles, c->profile_ref,
					     strcmp(c->format, "markdown") == 0, out, draw, pr);
		return;
	}
	out = open_memstream(&text, &len);
	if (!out) {
		pmc_session_say(pr, PMC_SESSION_WARN,
				"out of memory: where the time went is not shown");
		return;
	}
	pmc_session_profiles_explain(cmp, c->old_profiles, c->new_profiles, c->profile_ref, false,
				     out, draw, pr);
	if (fclose(out) == 0 && len) {
		if (text[len - 1] == '\n')
			text[len - 1] = '\0';
		pmc_session_say(pr, PMC_SESSION_ASIDE, "%s", text);
	}
	free(text);
}

/* The report of cmp, or of every comparison of set when there is one. */
static int render(FILE *f, const struct pmc_session_compare *c, const struct pmc_comparison *cmp,
		  const struct pmc_session_comparison_set *set, const struct pmc_report_opts *ro)
{
	if (set)
		return pmc_report_comparisons(f, c->format, set->cs, set->names, set->n, ro, NULL,
					      0);
	return pmc_report_comparison(f, c->format, cmp, ro, NULL, 0);
}

/* Where the time went, for cmp or for each comparison of set. */
static void explain_all(const struct pmc_session_compare *c, const struct pmc_comparison *cmp,
			const struct pmc_session_comparison_set *set,
			const struct pmc_session_profiles *ps, FILE *out, bool draw,
			const struct pmc_session_printer *pr)
{
	if (!set) {
		explain(c, cmp, out, draw, pr);
		return;
	}
	for (size_t i = 0; i < set->n; i++) {
		struct pmc_session_compare one = *c;

		one.old_profiles = &ps[0];
		one.new_profiles = &ps[i + 1];
		one.profile_ref = NULL;
		explain(&one, set->cs[i], out, draw, pr);
	}
}

static int write_report_file(const struct pmc_session_compare *c, const struct pmc_comparison *cmp,
			     const struct pmc_session_comparison_set *set,
			     const struct pmc_session_profiles *ps,
			     const struct pmc_report_opts *ro, const struct pmc_session_printer *pr)
{
	const char *path = c->report;
	struct pmc_atomic_file *af;
	int r;

	r = pmc_atomic_file_open(path, &af, NULL, 0);
	if (r == 0) {
		r = render(pmc_atomic_file_stream(af), c, cmp, set, ro);
		/* The file says where the time went too (a CI job summary shows it). */
		if (r == 0 && (cmp || set) && !pmc_session_format_is_document(c->format))
			explain_all(c, cmp, set, ps, pmc_atomic_file_stream(af), false, pr);
		if (r == -EIO && pmc_atomic_file_write_error(af))
			r = pmc_atomic_file_write_error(af); /* a full disk, not "I/O error" */
		if (r < 0)
			pmc_atomic_file_abort(af);
		else
			r = pmc_atomic_file_commit(af, NULL, 0);
	}
	if (r < 0)
		pmc_session_say(pr, PMC_SESSION_ERROR, "%s: cannot write the report: %s", path,
				strerror(-r));
	return r;
}

/* Writes the report to its stream (when to_stream) and to the report file and the
 * exports; returns the decision, which turns into an error when a report cannot be
 * written. */
static enum pmc_decision emit_set(const struct pmc_session_compare *c,
				  const struct pmc_comparison *cmp,
				  const struct pmc_session_comparison_set *set,
				  const struct pmc_session_profiles *ps, struct pmc_report_opts *ro,
				  bool to_stream, const struct pmc_session_printer *pr)
{
	enum pmc_decision d = ro->error ? PMC_DECISION_ERROR : ro->decision;
	FILE *out = c->out;
	struct pmc_report_opts plain = *ro;

	/* Files get no colour, whatever the terminal gets. */
	PMC_OPTS_ZERO_TAIL(pmc_report_opts, &plain); /* what the struct copy need not bring */
	plain.color = false;

	if (to_stream && out) {
		int r;

		errno = 0;
		r = render(out, c, cmp, set, ro);
		if (r == -EIO && errno)
			r = -errno; /* what the failed write said: ENOSPC, EPIPE, ... */
		else if (r == 0)
			r = pmc_session_stream_flush(out);
		if (r < 0) {
			pmc_session_say(pr, PMC_SESSION_ERROR, "cannot write the report to %s: %s",
					pmc_session_stream_name(out), strerror(-r));
			d = PMC_DECISION_ERROR;
		} else if (cmp || set) {
			explain_all(c, cmp, set, ps, out, true, pr);
		}
	}
	if (c->report && write_report_file(c, cmp, set, ps, &plain, pr) < 0)
		d = PMC_DECISION_ERROR;
	/* Exports hold a comparison: none is written when there is none. */
	if (set && pmc_session_exports_comparisons(&c->exports, set, &plain, pr) < 0)
		d = PMC_DECISION_ERROR;
	else if (cmp && pmc_session_exports_comparison(&c->exports, cmp, &plain, pr) < 0)
		d = PMC_DECISION_ERROR;
	return d;
}

static enum pmc_decision emit(const struct pmc_session_compare *c, const struct pmc_comparison *cmp,
			      struct pmc_report_opts *ro, bool to_stream,
			      const struct pmc_session_printer *pr)
{
	return emit_set(c, cmp, NULL, NULL, ro, to_stream, pr);
}

/* Fills *ret by memcpy, which, unlike a struct copy, keeps the zeroed padding the
 * library checks (include/pmcbench/common.h). */
static void library_opts(const struct pmc_session_compare *c, const char *old_name,
			 const char *new_name, struct pmc_compare_opts *ret)
{
	PMC_OPTS(pmc_compare_opts, co, .alpha = c->alpha, .confidence = c->confidence,
		 .no_fdr = c->no_fdr, .force = c->force, .metrics = (const char *const *)c->metrics,
		 .nmetrics = c->nmetrics, .thresholds = c->thresholds, .old_name = old_name,
		 .new_name = new_name, .unpaired = c->unpaired);

	memcpy(ret, &co, sizeof(co));
}

/* The colour of reports on the comparison's stream. */
static bool stream_color(const struct pmc_session_compare *c)
{
	return c->out && pmc_session_compare_color(c, c->out);
}

/* Reports a comparison that pmc_compare (or pmc_compare_reference) returned r and cmp
 * for: the failure, or the report with the gate's decision. Frees cmp. */
static enum pmc_decision report(int r, struct pmc_comparison *cmp, char *err, size_t errlen,
				const char *old_name, const char *new_name,
				const struct pmc_session_compare *c, bool gate, bool no_headline,
				const struct pmc_session_printer *pr)
{
	PMC_OPTS(pmc_gate_opts, go, .fail_on_inconclusive = c->fail_on_inconclusive);
	PMC_OPTS(pmc_report_opts, ro, .old_name = old_name, .new_name = new_name, .gate = gate,
		 .no_headline = no_headline, .color = stream_color(c), .all_rows = c->all_rows,
		 .by_benchmark = c->by_benchmark,
		 .width = c->out ? pmc_session_stream_width(c->out) : 0);
	enum pmc_decision d = PMC_DECISION_PASS;
	char gate_err[1280];

	if (r < 0) {
		if (r == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		pmc_session_say(pr, PMC_SESSION_ERROR, "%s", err);
		ro.error = err;
		ro.decision = PMC_DECISION_ERROR;
		/* A table on the stream would only repeat the line above; a document is still
		 * written, so that a job summary shows why the gate failed. */
		emit(c, NULL, &ro, strcmp(c->format, "table") != 0, pr);
		return PMC_DECISION_ERROR;
	}
	if (gate) {
		gate_err[0] = '\0';
		if (pmc_gate_decide(cmp, &go, &d, NULL, gate_err, sizeof(gate_err)) < 0) {
			snprintf(gate_err, sizeof(gate_err), "the gate cannot decide");
			d = PMC_DECISION_ERROR;
		}
		if (d == PMC_DECISION_ERROR) {
			pmc_session_say(pr, PMC_SESSION_ERROR, "%s", gate_err);
			ro.error = gate_err;
		}
	}
	ro.decision = d;
	/* The table carries its warnings; with a document they go to the messages. */
	if (strcmp(c->format, "table") != 0)
		for (size_t i = 0; i < pmc_comparison_warning_count(cmp); i++)
			pmc_session_say(pr, PMC_SESSION_WARN, "%s",
					pmc_comparison_warning_at(cmp, i));
	d = emit(c, cmp, &ro, true, pr);
	pmc_comparison_free(cmp);
	return d;
}

enum pmc_decision pmc_session_compare_results(const struct pmc_result *old_r, const char *old_name,
					      const struct pmc_result *new_r, const char *new_name,
					      const struct pmc_session_compare *c, bool gate,
					      const struct pmc_session_printer *pr)
{
	struct pmc_compare_opts co;

	library_opts(c, old_name, new_name, &co);
	struct pmc_comparison *cmp = NULL;
	char err[1024];
	int r;

	r = pmc_compare(old_r, new_r, &co, &cmp, err, sizeof(err));
	return report(r, cmp, err, sizeof(err), old_name, new_name, c, gate, false, pr);
}

enum pmc_decision pmc_session_compare_reference(const struct pmc_result *r, size_t ref,
						const struct pmc_session_compare *c, bool gate,
						struct pmc_comparison *pre,
						const struct pmc_session_printer *pr)
{
	const char *label = r->benchmarks[ref].name;
	/* With two commands the other side has a name; with more, each row names its own
	 * (the functions of a benchmark program's --reference are benchmarks). */
	const char *other = r->nbench == 2		 ? r->benchmarks[1 - ref].name
			    : r->benchmarks[ref].command ? "command"
							 : "benchmark";
	struct pmc_compare_opts co;

	library_opts(c, label, other, &co);
	struct pmc_comparison *cmp = pre;
	char err[1024];
	int rc = 0;

	if (!cmp)
		rc = pmc_compare_reference(r, ref, &co, &cmp, err, sizeof(err));
	return report(rc, cmp, err, sizeof(err), label, other, c, gate, pre != NULL, pr);
}

enum pmc_decision pmc_session_compare_builds(const struct pmc_result *r, const char *old_label,
					     const char *new_label,
					     const struct pmc_session_compare *c, bool gate,
					     const struct pmc_session_printer *pr)
{
	struct pmc_compare_opts co;

	library_opts(c, old_label, new_label, &co);
	struct pmc_comparison *cmp = NULL;
	char err[1024];
	int rc = pmc_compare_builds(r, old_label, new_label, &co, &cmp, err, sizeof(err));

	return report(rc, cmp, err, sizeof(err), old_label, new_label, c, gate, false, pr);
}

enum pmc_decision pmc_session_compare_named(const struct pmc_result *r, const char *ref_name,
					    const struct pmc_session_compare *c, bool gate,
					    FILE *out, const struct pmc_session_printer *pr)
{
	size_t ref = 0;

	while (ref < r->nbench &&
	       (!r->benchmarks[ref].name || strcmp(r->benchmarks[ref].name, ref_name) != 0))
		ref++;
	if (ref == r->nbench || r->benchmarks[ref].skipped) {
		pmc_session_say(pr, PMC_SESSION_ERROR,
				"--reference %s: the benchmark has no result to compare with (%s)",
				ref_name, ref == r->nbench ? "it failed" : "it skipped itself");
		return PMC_DECISION_ERROR;
	}
	if (out) {
		fprintf(out, "\nComparison against the reference '%s':\n", ref_name);
		fflush(out);
	}
	return pmc_session_compare_reference(r, ref, c, gate, NULL, pr);
}

/* The headline names the commands as given: each of its lines escaped for the terminal
 * (it has no colour). malloc'd, or NULL when out of memory. */
static char *escaped_lines(char *text)
{
	char *shown = NULL, *nl;
	size_t len = 0;
	FILE *m = open_memstream(&shown, &len);

	if (!m)
		return NULL;
	for (char *p = text; p; p = nl ? nl + 1 : NULL) {
		if ((nl = strchr(p, '\n')))
			*nl = '\0';
		pmc_escape_text(m, p);
		if (nl) {
			*nl = '\n';
			fputc('\n', m);
		}
	}
	if (fclose(m) != 0) {
		free(shown);
		return NULL;
	}
	return shown;
}

struct pmc_comparison *pmc_session_compare_headline(const struct pmc_result *r, size_t ref,
						    const struct pmc_session_compare *c, FILE *out)
{
	const char *label = r->benchmarks[ref].name;
	const char *other = r->nbench == 2		 ? r->benchmarks[1 - ref].name
			    : r->benchmarks[ref].command ? "command"
							 : "benchmark";
	struct pmc_compare_opts co;

	library_opts(c, label, other, &co);
	PMC_OPTS(pmc_report_opts, ro, .old_name = label, .new_name = other);
	struct pmc_comparison *cmp = NULL;
	char line[512], err[1024];

	if (pmc_compare_reference(r, ref, &co, &cmp, err, sizeof(err)) < 0)
		return NULL;
	/* The headline, and a blank line before the run table. */
	if (out && pmc_cmp_headline(cmp, &ro, line, sizeof(line))) {
		char *shown = escaped_lines(line);

		pmc_report_wrap(out, shown ? shown : "", pmc_session_stream_width(out));
		fputc('\n', out);
		free(shown);
	}
	return cmp;
}

enum pmc_decision pmc_session_compare_failed(const struct pmc_session_compare *c, const char *err,
					     const char *old_name, const char *new_name, bool gate,
					     const struct pmc_session_printer *pr)
{
	PMC_OPTS(pmc_report_opts, ro, .old_name = old_name, .new_name = new_name, .gate = gate,
		 .decision = PMC_DECISION_ERROR, .error = err);

	pmc_session_say(pr, PMC_SESSION_ERROR, "%s", err);
	/* The decision is an error already; a report that cannot be written adds its own
	 * message. */
	emit(c, NULL, &ro, strcmp(c->format, "table") != 0, pr);
	return PMC_DECISION_ERROR;
}

enum pmc_decision pmc_session_compare_many(struct pmc_result *const *rs, const char *const *names,
					   size_t n, const struct pmc_session_compare *c,
					   const struct pmc_session_profiles *ps,
					   const struct pmc_session_printer *pr)
{
	struct pmc_comparison **cs = calloc(n - 1, sizeof(*cs));
	PMC_OPTS(pmc_report_opts, ro, .old_name = names[0], .color = stream_color(c),
		 .all_rows = c->all_rows, .by_benchmark = c->by_benchmark,
		 .width = c->out ? pmc_session_stream_width(c->out) : 0);
	struct pmc_session_comparison_set set = {
	    .cs = (const struct pmc_comparison *const *)cs, .names = names, .n = n - 1};
	enum pmc_decision d = PMC_DECISION_ERROR;
	char err[1024];

	if (!cs) {
		pmc_session_say(pr, PMC_SESSION_ERROR, "out of memory");
		return PMC_DECISION_ERROR;
	}
	for (size_t i = 1; i < n; i++) {
		struct pmc_compare_opts co;

		library_opts(c, names[0], names[i], &co);
		int r = pmc_compare(rs[0], rs[i], &co, &cs[i - 1], err, sizeof(err));

		if (r < 0) {
			if (r == -ENOMEM)
				snprintf(err, sizeof(err), "out of memory");
			pmc_session_say(pr, PMC_SESSION_ERROR, "%s", err);
			ro.new_name = names[i];
			ro.error = err;
			ro.decision = PMC_DECISION_ERROR;
			emit(c, NULL, &ro, strcmp(c->format, "table") != 0, pr);
			goto out;
		}
	}
	/* The table carries its warnings; with a document they go to the messages, each
	 * naming its pair. */
	if (strcmp(c->format, "table") != 0)
		for (size_t i = 0; i < n - 1; i++)
			for (size_t w = 0; w < pmc_comparison_warning_count(cs[i]); w++)
				pmc_session_say(pr, PMC_SESSION_WARN, "%s -> %s: %s", names[0],
						names[i + 1], pmc_comparison_warning_at(cs[i], w));
	d = emit_set(c, NULL, &set, ps, &ro, true, pr);
out:
	for (size_t i = 0; i < n - 1; i++)
		pmc_comparison_free(cs[i]);
	free(cs);
	return d;
}

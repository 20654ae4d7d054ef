/* Profiles beside results (docs/profile.md, "Profiles in the gate"): `run --profile`
 * records one extra, profiled run of every benchmark, never one of the measured runs
 * (sampling perturbs counts), and saves the profiles in RESULT.profiles/ beside the
 * result file; `compare`, `gate` and `run` then say which functions account for a
 * regression and draw its differential flame graph. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/atomic_file.h"
#include "base/grow.h"
#include "base/slug.h"
#include "elf/disasm.h"
#include "profile/annotate.h"
#include "profile/profile.h"
#include "profile/profile_lines.h"
#include "profile/record.h"
#include "run/runner.h"
#include "run/spawn.h"
#include "run/target_env.h"
#include "core/compare.h"
#include "core/result.h"
#include "pmcbench/compare.h"
#include "pmcbench/result.h"
#include "reporters/escape.h"
#include "reporters/format.h"
#include "reporters/compare_cells.h"
#include "reporters/profile_annotate.h"
#include "reporters/profile_report.h"
#include "session/session.h"

/* Where the profiles of a run saved without -o go. */
#define PROFILES_DEFAULT_DIR "pmcbench.profiles"
/* The culprit's instructions a regression's explanation shows. */
#define EXPLAIN_INSNS 3

extern char **environ;

/* "base.json" → "base.profiles": the directory beside a result file. */
static char *dir_for(const char *result_path)
{
	size_t n = strlen(result_path);
	char *d;

	if (n > 5 && strcmp(result_path + n - 5, ".json") == 0)
		n -= 5;
	if (asprintf(&d, "%.*s.profiles", (int)n, result_path) < 0)
		return NULL;
	return d;
}

/* DIR/SLUG.EXT: the benchmark's name as a readable file name that cannot leave DIR and
 * is distinct for distinct names (harness/0-base/slug.h). */
/* path as a pull request's reader finds it among the job's artifacts: relative to the
 * working directory when it is inside it (a runner's /home/runner/work/... means nothing
 * there), else as it is. Points into path. */
static const char *relative(const char *path)
{
	char cwd[PATH_MAX];
	size_t n;

	if (path[0] != '/' || !getcwd(cwd, sizeof(cwd)))
		return path;
	n = strlen(cwd);
	if (n > 1 && strncmp(path, cwd, n) == 0 && path[n] == '/' && path[n + 1])
		return path + n + 1;
	return path;
}

static char *file_for(const char *dir, const char *name, const char *ext)
{
	char slug[PMC_SLUG_SIZE], *path;

	if (asprintf(&path, "%s/%s%s", dir, pmc_slug(name, slug), ext) < 0)
		return NULL;
	return path;
}

/* DIR/NAME.json as pmcbench wrote it before the slugs: every byte outside
 * [A-Za-z0-9_+-] (and a leading '.') as %XX. Only read, so that the profiles kept beside
 * an older baseline still explain its regressions. */
static char *legacy_file_for(const char *dir, const char *name, const char *ext)
{
	size_t n = strlen(name), k = 0;
	char *enc = malloc(3 * n + 1), *path = NULL;

	if (!enc)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)name[i];
		bool plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			     (ch >= '0' && ch <= '9') || ch == '_' || ch == '+' || ch == '-' ||
			     (ch == '.' && i > 0);

		if (plain)
			enc[k++] = (char)ch;
		else
			k += (size_t)sprintf(enc + k, "%%%02X", ch);
	}
	enc[k] = '\0';
	if (asprintf(&path, "%s/%s%s", dir, enc, ext) < 0)
		path = NULL;
	free(enc);
	return path;
}

static int push(struct pmc_session_profiles *ps, const char *name, struct pmc_profile *p)
{
	if (pmc_grow_to(&ps->v, &ps->cap, ps->n + 1, sizeof(*ps->v)) < 0)
		return -ENOMEM;
	ps->v[ps->n].name = strdup(name);
	if (!ps->v[ps->n].name)
		return -ENOMEM;
	ps->v[ps->n++].p = p;
	return 0;
}

int pmc_session_profiles_open_dir(struct pmc_session_profiles *ps, const char *result_path,
				  const struct pmc_session_printer *pr)
{
	struct stat st;
	char *dir = result_path ? dir_for(result_path) : strdup(PROFILES_DEFAULT_DIR);
	int e;

	if (!dir) {
		pmc_session_say(pr, PMC_SESSION_WARN,
				"--profile: out of memory; the profiles are not saved");
		return -ENOMEM;
	}
	if (mkdir(dir, 0777) == 0 ||
	    (errno == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))) {
		ps->dir = dir;
		return 0;
	}
	e = errno == EEXIST ? ENOTDIR : errno;
	pmc_session_say(pr, PMC_SESSION_WARN,
			"--profile: cannot create the directory %s for the profiles: %s; the "
			"profiles are not saved (the results are): remove or rename what is there",
			dir, strerror(e));
	free(dir);
	return -e;
}

int pmc_session_profiles_keep(struct pmc_session_profiles *ps, const char *name,
			      const char *display, struct pmc_profile *p,
			      const struct pmc_session_printer *pr)
{
	char err[1024], *path = NULL;
	int r;

	/* Distinct names have distinct files unless two 32-bit hashes meet: never overwrite
	 * the profile of another benchmark of this run then. */
	for (size_t i = 0; ps->dir && i < ps->n; i++) {
		char a[PMC_SLUG_SIZE], b[PMC_SLUG_SIZE];

		if (strcmp(ps->v[i].name, name) != 0 &&
		    strcmp(pmc_slug(ps->v[i].name, a), pmc_slug(name, b)) == 0) {
			pmc_session_say(
			    pr, PMC_SESSION_WARN,
			    "--profile: the profiles of '%s' and '%s' would have one file "
			    "name (%s.json); the second is kept for this run only: rename "
			    "one of them",
			    ps->v[i].name, display, a);
			if (push(ps, name, p) < 0) {
				pmc_profile_free(p);
				return -ENOMEM;
			}
			return 0;
		}
	}
	if ((ps->dir && !(path = file_for(ps->dir, name, ".json"))) || push(ps, name, p) < 0) {
		free(path);
		pmc_profile_free(p);
		pmc_session_say(pr, PMC_SESSION_WARN,
				"--profile: out of memory; the profile of '%s' is left out",
				display);
		return -ENOMEM;
	}
	/* Without a directory (it could not be made, which was said) the profile still
	 * explains this run's comparisons. */
	if (!path)
		return 0;
	r = pmc_profile_save(p, path, err, sizeof(err));
	if (r < 0) {
		pmc_session_say(pr, PMC_SESSION_WARN,
				"--profile: %s; the result is written without this profile", err);
		free(path);
		return r;
	}
	if (pmc_profile_info(p)->throttled)
		pmc_session_say(
		    pr, PMC_SESSION_WARN,
		    "the kernel throttled the sampling of '%s' %llu times; parts of its "
		    "run have no samples",
		    display, (unsigned long long)pmc_profile_info(p)->throttled);
	if (pmc_profile_info(p)->lost) {
		char lost[256];

		pmc_profile_lost_text(p, true, lost, sizeof(lost));
		pmc_session_say(pr, PMC_SESSION_WARN, "the profile of '%s': %s", display, lost);
	}
	pmc_session_say(pr, PMC_SESSION_INFO, "profile of %s: %s ('pmcbench report %s')", display,
			path, path);
	free(path);
	return 0;
}

void pmc_session_profiles_record(struct pmc_session_profiles *ps, const struct pmc_runner_cmd *cmds,
				 size_t n, const struct pmc_runner_opts *ro, bool off_cpu,
				 const char *result_path, const struct pmc_session_printer *pr)
{
	char **envp = NULL, *desc = NULL, err[1024];

	/* A profile only ever adds an explanation: whatever goes wrong here is a warning,
	 * and the measurement is written and judged as without --profile. */
	pmc_session_profiles_open_dir(ps, result_path, pr);
	/* The profiled run sees what the measured runs saw. */
	if (pmc_target_env_build(environ, ro->env_inherit, ro->env_keep, &envp, &desc) < 0) {
		pmc_session_say(pr, PMC_SESSION_WARN,
				"--profile: out of memory; no profiles are recorded");
		return;
	}
	for (size_t i = 0; i < n && !(ro->stop && *ro->stop); i++) {
		struct pmc_record_opts o = {
		    .argv = cmds[i].argv,
		    .path = cmds[i].path,
		    .name = cmds[i].name,
		    .envp = envp,
		    .input_path = ro->input_path,
		    .timeout_s = ro->timeout_s,
		    .running = ro->running,
		    .stop = ro->stop,
		    .sys = ro->sys,
		    /* Valgrind-specific: the recorder's two kinds, perf's samples and
		     * callgrind's exact profile (harness/4-profile/record.h). */
		    .valgrind = ro->backend == PMC_BACKEND_VALGRIND,
		    .valgrind_path = ro->valgrind_path,
		    .off_cpu = off_cpu,
		};
		struct pmc_spawn_result sr;
		struct pmc_profile *p = NULL;

		int r = pmc_profile_record(&o, &p, &sr, err, sizeof(err));

		if (r == 0)
			pmc_session_profiles_keep(ps, cmds[i].name, cmds[i].display, p, pr);
		else if (pmc_session_profile_failed(r, cmds[i].display, err, pr))
			break;
	}
	free(envp);
	free(desc);
}

bool pmc_session_profile_failed(int r, const char *name, const char *err,
				const struct pmc_session_printer *pr)
{
	if (r == -EACCES || r == -EPERM) {
		/* Sampling denied for one is denied for all: said once. */
		pmc_session_say(pr, PMC_SESSION_WARN,
				"--profile: %s; no profiles are recorded (the results are written "
				"without them)",
				err);
		return true;
	}
	pmc_session_say(pr, PMC_SESSION_WARN,
			"--profile: '%s': %s; the result is written without its profile", name,
			err);
	return false;
}

int pmc_session_profiles_load(struct pmc_session_profiles *ps, const char *result_path,
			      const struct pmc_result *r, const struct pmc_session_printer *pr)
{
	char err[1024];

	ps->dir = dir_for(result_path);
	if (!ps->dir)
		return -ENOMEM;
	if (access(ps->dir, F_OK) < 0)
		return 0; /* no profiles were saved with this result */
	for (size_t i = 0; i < pmc_result_benchmark_count(r); i++) {
		const char *name = pmc_benchmark_name(pmc_result_benchmark_at(r, i));
		char *path = file_for(ps->dir, name, ".json");
		const char *of;
		struct pmc_profile *p = NULL;
		int e;

		if (path && access(path, F_OK) < 0) {
			free(path);
			path = legacy_file_for(ps->dir, name, ".json");
			if (path && access(path, F_OK) < 0) {
				free(path);
				continue;
			}
		}
		if (!path)
			return -ENOMEM;
		e = pmc_profile_load(path, &p, err, sizeof(err));
		if (e < 0) {
			/* A damaged profile only takes away the explanation, never the
			 * verdict. */
			pmc_session_say(pr, PMC_SESSION_WARN, "%s", err);
			free(path);
			continue;
		}
		/* A file of another benchmark's (copied there by hand) explains nothing here. */
		of = pmc_profile_info(p)->name;
		if (of && strcmp(of, name) != 0) {
			pmc_session_say(pr, PMC_SESSION_WARN,
					"%s is the profile of '%s', not of '%s': not used", path,
					of, name);
			pmc_profile_free(p);
			free(path);
			continue;
		}
		free(path);
		if (push(ps, name, p) < 0) {
			pmc_profile_free(p);
			return -ENOMEM;
		}
	}
	return 0;
}

/* The profile of benchmark name, or NULL. */
static const struct pmc_profile *profiles_find(const struct pmc_session_profiles *ps,
					       const char *name)
{
	for (size_t i = 0; ps && i < ps->n; i++)
		if (strcmp(ps->v[i].name, name) == 0)
			return ps->v[i].p;
	return NULL;
}

void pmc_session_profiles_clear(struct pmc_session_profiles *ps)
{
	for (size_t i = 0; i < ps->n; i++) {
		free(ps->v[i].name);
		pmc_profile_free(ps->v[i].p);
	}
	free(ps->v);
	free(ps->dir);
	*ps = (struct pmc_session_profiles){0};
}

int pmc_session_write_flamegraph(const char *path, const struct pmc_profile *old_p,
				 const struct pmc_profile *new_p, const struct pmc_flame_view *view,
				 const struct pmc_session_printer *pr)
{
	struct pmc_atomic_file *af;
	char err[1024];
	int r;

	r = pmc_atomic_file_open(path, &af, err, sizeof(err));
	if (r < 0) {
		pmc_session_say(pr, PMC_SESSION_ERROR, "%s", err);
		return r;
	}
	r = pmc_profile_flamegraph(pmc_atomic_file_stream(af), old_p, new_p, view);
	if (r == -EIO && pmc_atomic_file_write_error(af))
		r = pmc_atomic_file_write_error(af); /* a full disk, not "I/O error" */
	if (r < 0) {
		pmc_atomic_file_abort(af);
		pmc_session_say(pr, PMC_SESSION_ERROR, "cannot draw the flame graph into %s: %s",
				path, strerror(-r));
		return r;
	}
	r = pmc_atomic_file_commit(af, err, sizeof(err));
	if (r < 0)
		pmc_session_say(pr, PMC_SESSION_ERROR, "%s", err);
	return r;
}

/* The hottest instructions of the function whose part of the change is the largest
 * growth clear of sampling error (docs/profile.md, "Profiles in the gate"), from the new
 * profile's addresses and its object's code: nothing where they cannot be had (an exact
 * or older profile, no disassembler, the object gone). */
static void explain_instructions(FILE *out, const struct pmc_profile *old_p,
				 const struct pmc_profile *new_p, const struct pmc_cmp_row *row,
				 bool markdown)
{
	struct pmc_profile_delta *d = NULL;
	struct pmc_annotation *a = NULL;
	const char *culprit = NULL;
	size_t n = 0;

	if (!pmc_profile_lines(new_p) || !pmc_disasm_available() ||
	    pmc_profile_fits_metric(old_p, row->metric) == PMC_PROFILE_FIT_NONE ||
	    pmc_profile_fits_metric(new_p, row->metric) == PMC_PROFILE_FIT_NONE ||
	    pmc_profile_attribute(old_p, new_p, row->old.median, row->new.median, &d, &n) < 0)
		return;
	/* Sorted by part, largest first: the first clear growth. */
	for (size_t i = 0; i < n && !culprit; i++)
		if (d[i].clear && d[i].delta > 0)
			culprit = d[i].name;
	if (culprit && pmc_profile_annotate(new_p, culprit, &a, NULL, 0) == 0)
		pmc_profile_report_annotate_top(out, a, EXPLAIN_INSNS,
						markdown ? PMC_ANNOTATE_TOP_MARKDOWN
							 : PMC_ANNOTATE_TOP_TEXT,
						"the new profile");
	pmc_annotation_free(a);
	pmc_profile_deltas_free(d, n);
}

/* Whether two off-CPU profiles (run --profile=off-cpu) speak of row's metric: where the
 * commands waited is part of their wall time, which no share of the profile's total
 * divides (the time on CPU is not in it), so the waits are shown as they changed. */
static bool waits_explain(const struct pmc_profile *old_p, const struct pmc_profile *new_p,
			  const struct pmc_cmp_row *row)
{
	return pmc_profile_diff_mode(old_p, new_p) == PMC_PROFILE_DIFF_WAITS &&
	       strncmp(row->metric, "wall-time", 9) == 0 &&
	       (row->metric[9] == 0 || row->metric[9] == '/');
}

/* The change of the time off CPU, and the command that ranks its functions. */
static void put_waits(FILE *out, const struct pmc_profile *old_p, const struct pmc_profile *new_p,
		      const struct pmc_session_profiles *old_ps, const char *old_name,
		      const struct pmc_session_profiles *new_ps, const char *new_name,
		      bool markdown)
{
	double o = (double)pmc_profile_total(old_p), n = (double)pmc_profile_total(new_p);
	char a[PMC_FMT_MAX + 1], b[PMC_FMT_MAX + 1], d[PMC_FMT_MAX + 2];
	char *op = old_ps->dir ? file_for(old_ps->dir, old_name, ".json") : NULL;
	char *np = new_ps->dir ? file_for(new_ps->dir, new_name, ".json") : NULL;

	pmc_fmt_short(o, "ns", a, sizeof(a));
	pmc_fmt_short(n, "ns", b, sizeof(b));
	d[0] = n >= o ? '+' : '-';
	pmc_fmt_short_to(d + 1, n >= o ? n - o : o - n, "ns");
	fprintf(out, "%stime off CPU (the profiles' waits): %s -> %s (%s)", markdown ? "\n" : "  ",
		a, b, d);
	if (op && np) {
		fputs(markdown ? "; by function: `pmcbench report --diff "
			       : "; by function: "
				 "pmcbench report --diff ",
		      out);
		pmc_escape_text(out, markdown ? relative(op) : op);
		putc(' ', out);
		pmc_escape_text(out, markdown ? relative(np) : np);
		fputs(markdown ? "`" : "", out);
	}
	putc('\n', out);
	free(op);
	free(np);
}

void pmc_session_profiles_explain(const struct pmc_comparison *c,
				  const struct pmc_session_profiles *old_ps,
				  const struct pmc_session_profiles *new_ps, const char *ref_name,
				  bool markdown, FILE *out, bool draw,
				  const struct pmc_session_printer *pr)
{
	const char *drawn = NULL; /* one graph per benchmark, however many metrics regressed */

	if (!c || !old_ps || !new_ps || (!old_ps->n && !new_ps->n))
		return;
	for (size_t i = 0; i < pmc_comparison_row_count(c); i++) {
		const struct pmc_cmp_row *row = pmc_comparison_row_at(c, i);
		const char *bench = row->bench;
		const struct pmc_profile *old_p, *new_p;
		struct pmc_cmp_cells cells;
		char *svg;

		/* What was gated and regressed: a row nobody gated is shown, not explained. */
		if (row->kind == PMC_ROW_MISSING || row->verdict != PMC_VERDICT_REGRESSION ||
		    !row->gated || !row->has_old || !row->has_new)
			continue;
		old_p = profiles_find(old_ps, ref_name ? ref_name : row->old_bench);
		new_p = profiles_find(new_ps, bench);
		if (!old_p || !new_p) {
			fputs(markdown ? "\n" : "", out);
			(markdown ? pmc_escape_md : pmc_escape_text)(out, bench);
			fprintf(out,
				": no profile on the %s side, so pmcbench cannot say where "
				"(record both with --profile)\n",
				!old_p ? "old" : "new");
			continue;
		}
		/* The medians the verdict compared; a profile of the metric says how the change
		 * divides, and the reporter says when there is none (docs/profile.md). */
		fputs(markdown ? "\n" : "", out);
		(markdown ? pmc_escape_md : pmc_escape_text)(out, bench);
		fputs(": ", out);
		/* Headed by the change as the table states it (issue 18: one change, one
		 * number): the estimate and its interval, not a ratio of medians. */
		pmc_cmp_cells(c, row, &cells);
		if (pmc_profile_report_attribution_of(
			out, old_p, new_p, row->metric, row->new_m ? row->new_m->unit : NULL,
			row->old.median, row->new.median, cells.change, 5, markdown) < 0)
			fprintf(out, "the profiles cannot divide this change\n");
		else
			explain_instructions(out, old_p, new_p, row, markdown);
		if (waits_explain(old_p, new_p, row))
			put_waits(out, old_p, new_p, old_ps, ref_name ? ref_name : row->old_bench,
				  new_ps, bench, markdown);
		/* The graph goes with an explanation: not under max-rss of a time profile. */
		else if (pmc_profile_fits_metric(old_p, row->metric) == PMC_PROFILE_FIT_NONE ||
			 pmc_profile_fits_metric(new_p, row->metric) == PMC_PROFILE_FIT_NONE)
			continue;
		if (drawn && strcmp(drawn, bench) == 0)
			continue;
		drawn = bench;
		if (!new_ps->dir)
			continue;
		svg = file_for(new_ps->dir, bench, ".diff.svg");
		if (svg &&
		    (!draw || pmc_session_write_flamegraph(svg, old_p, new_p, NULL, pr) == 0)) {
			fprintf(out, "%sdifferential flame graph: ", markdown ? "\n" : "  ");
			pmc_escape_text(out, markdown ? relative(svg) : svg);
			fputc('\n', out);
		}
		free(svg);
	}
}

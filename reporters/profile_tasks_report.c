/* `report --by comm|pid|tid|object` (profile_report.h, docs/profile.md "Tasks"): a
 * profile's weight by thread name, process, thread or the object its samples fell in,
 * and each one's top functions. It renders
 * the model's groups (harness/4-profile/profile_tasks.h), never computes shares of its
 * own beyond the division. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "profile/profile_tasks.h"
#include "reporters/escape.h"
#include "reporters/format.h"
#include "reporters/profile_report.h"

static double tasks_pct(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : NAN;
}

static const char *const singular[] = {"thread name", "process", "thread", "object"};
static const char *const plural[] = {"thread names", "processes", "threads", "objects"};

/* Why a profile has no tasks: never a guess at them. */
static void not_kept(FILE *out, const struct pmc_profile *p)
{
	fputs("Tasks: not kept: ", out);
	if (pmc_profile_info(p)->kind == PMC_PROFILE_EXACT)
		fputs("callgrind adds up the threads of a run (it writes one file per thread "
		      "only with its --separate-threads, which pmcbench does not use), so an "
		      "exact profile cannot be told by thread or process\n",
		      out);
	else
		fputs("this profile was written by a pmcbench that did not keep them, or read "
		      "from folded stacks or perf script output; record it again to see them\n",
		      out);
}

static void group_name(FILE *out, const struct pmc_profile_group *g)
{
	if (g->name)
		pmc_escape_text(out, g->name);
	else
		fputs("(name not known)", out);
}

/* The summary row of a group: share, weight, samples, then what tells it apart. */
static void summary_row(FILE *out, const struct pmc_profile *p, const struct pmc_profile_group *g,
			enum pmc_profile_by by, int weight_w)
{
	char a[PMC_FMT_MAX + 24], w[PMC_FMT_MAX + 24], s[PMC_FMT_MAX + 24];

	pmc_fmt_percent(tasks_pct(g->weight, pmc_profile_total(p)), false, a, sizeof(a));
	pmc_fmt_weight((double)g->weight, pmc_profile_info(p)->unit, false, w, sizeof(w));
	pmc_fmt_grouped((double)g->samples, s, sizeof(s));
	fprintf(out, "%7s %*s %9s  ", a, weight_w, w, s);
	if (!g->kept) {
		fputs("(task not kept)\n", out);
		return;
	}
	if (by == PMC_PROFILE_BY_TID)
		fprintf(out, "%8" PRIu32 " %8" PRIu32 "  ", g->pid, g->tid);
	else if (by == PMC_PROFILE_BY_PID)
		fprintf(out, "%8" PRIu32 " %8zu  ", g->pid, g->threads);
	else if (by == PMC_PROFILE_BY_COMM)
		fprintf(out, "%8zu  ", g->threads);
	group_name(out, g);
	putc('\n', out);
}

/* The title of a group's table of functions. */
static void section_title(FILE *out, const struct pmc_profile *p, const struct pmc_profile_group *g,
			  enum pmc_profile_by by)
{
	char a[PMC_FMT_MAX + 24];

	pmc_fmt_percent(tasks_pct(g->weight, pmc_profile_total(p)), false, a, sizeof(a));
	if (!g->kept) {
		fprintf(out, "\nStacks whose task was not kept: %s of the weight\n", a);
		return;
	}
	if (by == PMC_PROFILE_BY_TID)
		fprintf(out, "\nThread %" PRIu32 " of process %" PRIu32 ", ", g->tid, g->pid);
	else if (by == PMC_PROFILE_BY_PID)
		fprintf(out, "\nProcess %" PRIu32 " (%zu thread%s), ", g->pid, g->threads,
			g->threads == 1 ? "" : "s");
	else if (by == PMC_PROFILE_BY_OBJECT)
		fprintf(out, "\nSamples in ");
	else
		fprintf(out, "\nThreads named ");
	group_name(out, g);
	if (by == PMC_PROFILE_BY_COMM)
		fprintf(out, " (%zu thread%s)", g->threads, g->threads == 1 ? "" : "s");
	fprintf(out, ": %s of the weight\n", a);
}

int pmc_profile_report_tasks(FILE *out, const struct pmc_profile *p, enum pmc_profile_by by,
			     size_t top)
{
	struct pmc_profile_group *g = NULL;
	uint64_t total = pmc_profile_total(p);
	char a[PMC_FMT_MAX + 24];
	size_t n = 0;
	int rc, weight_w = 10;

	rc = pmc_profile_group_by(p, by, &g, &n);
	if (rc < 0)
		return rc;
	pmc_profile_report_header(out, p);
	if (n == 1 && !g[0].kept) {
		not_kept(out, p);
		goto out;
	}
	pmc_fmt_weight(total ? (double)total : NAN, pmc_profile_info(p)->unit, false, a, sizeof(a));
	fprintf(out, "Total: %s in %zu %s\n", total ? a : "0", n,
		n == 1 ? singular[by] : plural[by]);
	if (!n) {
		fputs("\nNo samples: nothing to show.\n", out);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		pmc_fmt_weight((double)g[i].weight, pmc_profile_info(p)->unit, false, a, sizeof(a));
		if ((int)strlen(a) > weight_w)
			weight_w = (int)strlen(a);
	}
	fprintf(out, "\n%7s %*s %9s  ", "share", weight_w, "weight", "samples");
	if (by == PMC_PROFILE_BY_TID)
		fprintf(out, "%8s %8s  comm\n", "pid", "tid");
	else if (by == PMC_PROFILE_BY_PID)
		fprintf(out, "%8s %8s  comm\n", "pid", "threads");
	else if (by == PMC_PROFILE_BY_OBJECT)
		fputs("object\n", out);
	else
		fprintf(out, "%8s  comm\n", "threads");
	for (size_t i = 0; i < n; i++)
		summary_row(out, p, &g[i], by, weight_w);
	/* Each group's functions, their shares of the group's weight: what that thread (or
	 * process) spent its time on. */
	for (size_t i = 0; i < n && rc == 0; i++) {
		section_title(out, p, &g[i], by);
		rc = pmc_profile_report_functions(out, g[i].p, top);
	}
out:
	pmc_profile_groups_free(g, n);
	if (rc == 0 && ferror(out))
		rc = -EIO;
	return rc;
}

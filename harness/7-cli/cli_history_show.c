/* `pmcbench history show BENCHMARK METRIC`: a series point by point, its change points
 * between them, and with --svg its trend chart. */
#include <math.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/cli_history.h"
#include "history/history.h"
#include "reporters/changes.h"
#include "reporters/charts.h"
#include "reporters/format.h"
#include "session/session.h"

/* One line of show: point k of the series, after the line of the change point at k
 * (*next: the change point to look for), and the series' heading before its first. */
static void show_point(const struct pmc_series *s, size_t k, size_t *next, bool gap)
{
	const struct pmc_history_point *p = &s->ps[k];
	char when[32], med[PMC_FMT_MAX], lo[PMC_FMT_MAX], hi[PMC_FMT_MAX];
	char b1[PMC_QUOTE_SIZE(64)], b2[PMC_QUOTE_SIZE(128)], b3[PMC_QUOTE_SIZE(128)];
	double mn = INFINITY, mx = -INFINITY;
	size_t measured = 0;

	if (k == 0)
		printf("%s%s %s on %s (fingerprint %s): %zu change point%s in %zu points\n"
		       "%-20s  %-12s  %-16s  %4s  %12s  %s\n",
		       gap ? "\n" : "", q(b2, sizeof(b2), p->benchmark),
		       q(b3, sizeof(b3), p->metric), q(b1, sizeof(b1), p->e.machine),
		       p->e.fingerprint, s->ncps, s->ncps == 1 ? "" : "s", s->nx, "measured",
		       "commit", "branch", "n", "median", "min .. max");
	if (*next < s->ncps && s->at[s->cps[*next].index] == k) {
		const struct pmc_changepoint *cp = &s->cps[(*next)++];
		char change[128];

		pmc_changes_text(cp, change, sizeof(change));
		printf("---- change point: %s, p=%.2g\n", change, cp->p);
	}
	for (size_t i = 0; i < p->n; i++)
		if (!isnan(p->samples[i])) {
			mn = fmin(mn, p->samples[i]);
			mx = fmax(mx, p->samples[i]);
			measured++;
		}
	pmc_history_time_text(p->e.t, when);
	pmc_fmt_short(p->median, p->unit, med, sizeof(med));
	pmc_fmt_short(measured ? mn : NAN, p->unit, lo, sizeof(lo));
	pmc_fmt_short(measured ? mx : NAN, p->unit, hi, sizeof(hi));
	printf("%-20s  %-12.12s  %-16s  %4zu  %12s  %s .. %s\n", when,
	       p->e.commit ? p->e.commit : "-", q(b1, sizeof(b1), p->e.branch), measured, med, lo,
	       hi);
}

int pmc_cli_hist_show(int argc, char **argv, struct hopts *o)
{
	struct pmc_history *h = NULL;
	struct pmc_history_point *ps = NULL;
	struct pmc_charts charts = {0};
	size_t n = 0;
	char err[1024];
	int code = PMC_EXIT_ERROR;

	if (argc != 2) {
		pmc_cli_error("history show needs BENCHMARK METRIC, got %d argument%s; 'pmcbench "
			      "history list' shows what there is",
			      argc, argc == 1 ? "" : "s");
		return PMC_EXIT_ERROR;
	}
	if (o->svg && pmc_session_check_path(&pmc_cli_printer, "--svg", o->svg) < 0)
		return PMC_EXIT_ERROR;
	o->f.benchmark = argv[0];
	o->f.metric = argv[1];
	if (pmc_cli_hist_open(o, 0, &h) < 0)
		return PMC_EXIT_ERROR;
	if (pmc_history_points(h, &o->f, &ps, &n, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		goto out;
	}
	if (n == 0) {
		char b1[PMC_QUOTE_SIZE(128)], b2[PMC_QUOTE_SIZE(128)], near[512];

		pmc_cli_hist_near_benchmark(h, &o->f, near, sizeof(near));
		pmc_cli_error("no entry of %s has metric '%s' of benchmark '%s'; %s",
			      pmc_history_display(h), q(b2, sizeof(b2), argv[1]),
			      q(b1, sizeof(b1), argv[0]),
			      *near ? near
				    : "'pmcbench history list --benchmark NAME' shows the entries "
				      "of a benchmark");
		goto out;
	}
	for (size_t i = 0; i < n;) {
		struct pmc_series s;
		size_t j = i + 1, next = 0;

		while (j < n && pmc_history_same_series(&ps[i], &ps[j]))
			j++;
		if (pmc_cli_hist_series(&ps[i], j - i, o, &s) < 0) {
			pmc_series_clear(&s);
			goto out;
		}
		for (size_t k = 0; k < s.n; k++)
			show_point(&s, k, &next, i > 0);
		if (o->svg && pmc_charts_add(&charts, &s) < 0) {
			pmc_series_clear(&s);
			pmc_cli_error("out of memory");
			goto out;
		}
		pmc_series_clear(&s);
		i = j;
	}
	if (o->svg && pmc_cli_hist_write_charts(o->svg, &charts, "svg", pmc_history_display(h)) < 0)
		goto out;
	code = fflush(stdout) == 0 ? PMC_EXIT_OK : PMC_EXIT_ERROR;
out:
	pmc_charts_clear(&charts);
	pmc_history_points_free(ps, n);
	pmc_history_close(h);
	return code;
}
